"""The Starlette application: one page (served from the package, no CDN) and the API it uses.

``POST /api/solve``  run one backend and answer ``python -m formulations.solve --json``'s object
``POST /api/runs``   start a run for the live view; ``GET /api/runs/ID/events`` streams it
                     (server-sent events), ``DELETE /api/runs/ID`` cancels it (kills the worker)
``POST /api/parse``  the puzzle read from text (clues, palette) or the reader's one-line error
``POST /api/hint``   the next line update line solving makes from the cells the page knows
``POST /api/explain``  every deduction with its reason and the difficulty report (the page's
                     step-through, "Why?", Hint and the Draw view's report)
``POST /api/export/KIND``  the puzzle as ``text`` / ``non``, its model as ``bqm`` / ``qubo`` /
                     ``cqm``
``GET /api/backends``, ``GET /api/examples``, ``GET /api/health``

Solves and tasks run in worker processes (:mod:`.runs`); the server itself never parses a
puzzle or imports a solver.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import time
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..io.formats import formats
from . import worker
from .requests import RequestError, solve_job, task_job
from .runs import Busy, Run, Runner, process_context
from .settings import Settings

EXAMPLES = ("cat15.txt", "flag_colour6.txt", "two_solutions4.txt", "impossible3.txt",
            "heart5.txt")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
                               "style-src 'self'; script-src 'self'; connect-src 'self'; "
                               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class BodyLimit:
    """Read every request body before the application sees it, held to ``limit`` bytes and
    ``timeout`` seconds. A body over the cap (by its Content-Length or as it arrives, chunked)
    is answered 413 with JSON after the rest of it is read and discarded, up to ``drain``
    bytes, so that a client that writes its whole body before it reads (urllib) gets the
    answer, not a reset connection; a body that stops arriving is answered 408."""

    def __init__(self, app: Any, limit: int, *, timeout: float = 10.0, drain: int = 64 * 2**20):
        self.app, self.limit, self.timeout, self.drain = app, limit, timeout, drain

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and not declared.strip().isdigit():
            return await _error("the Content-Length header is not a number", 400)(
                scope, receive, send)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        if declared is not None and int(declared) > self.limit + self.drain:
            # too large to read through: answered at once (the connection closes after it)
            return await _too_large(self.limit)(scope, _gone, send)
        chunks: list[bytes] = []
        seen, more = 0, True
        over = declared is not None and int(declared) > self.limit
        while more:
            try:
                message = await asyncio.wait_for(receive(), timeout=max(deadline - loop.time(),
                                                                        0.001))
            except TimeoutError:
                return await _error(f"the request body did not arrive within "
                                    f"{self.timeout:g} s", 408)(scope, _gone, send)
            if message["type"] != "http.request":  # the client went away
                return
            body = message.get("body", b"")
            seen += len(body)
            more = message.get("more_body", False)
            if seen > self.limit:
                over, chunks = True, []
                if seen > self.limit + self.drain:
                    break  # read enough of it: answer now, the connection closes after it
            elif not over:
                chunks.append(body)
        if over:
            return await _too_large(self.limit)(scope, _gone, send)
        buffered = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]

        async def replay() -> dict:
            return buffered.pop() if buffered else await receive()

        await self.app(scope, replay, send)


async def _gone() -> dict:
    return {"type": "http.disconnect"}


class HostCheck:
    """Answer 400 to a request whose Host header is not a loopback name or address when the
    server is bound to one (a page elsewhere cannot reach it through a rebound DNS name);
    IPv6 literals in brackets (``[::1]:8765``) are read as such."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
            if not is_loopback(host_name(host)):
                return await _error(f"this server answers only to a loopback host name "
                                    f"(localhost, 127.0.0.1, [::1]), not {host[:100]!r}", 400)(
                    scope, receive, send)
        await self.app(scope, receive, send)


def host_name(host: str) -> str:
    """The name part of a Host header: ``[::1]:8765`` -> ``::1``, ``localhost:80`` ->
    ``localhost``, a bare IPv6 address as it is."""
    host = host.strip()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else ""
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_loopback(name: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    import ipaddress
    if name.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _too_large(limit: int) -> Response:
    return JSONResponse({"error": f"the request body is over this server's cap of "
                                  f"{limit:,} bytes"}, status_code=413,
                        headers={"Connection": "close"})


def _error(message: str, status: int = 400, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


class TaskFailed(Exception):
    """A task that did not answer (its worker died, its time ran out, the server stops)."""

    def __init__(self, message: str, status: int = 500):
        super().__init__(message)
        self.status = status


class UnsupportedMedia(RequestError):
    """A body that is not declared as JSON (answered 415): a cross-site form cannot send one
    without the browser asking first, and this server never says yes."""


async def _json(request: Request) -> Any:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise UnsupportedMedia(f"send the body as JSON (Content-Type: application/json), not "
                               f"{kind or 'no content type'}")
    raw = await request.body()
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RequestError("the request body is not UTF-8 text") from None
    except ValueError as exc:
        raise RequestError(f"the request body is not JSON: {exc}") from None
    except RecursionError:
        raise RequestError("the request body is not JSON this server reads: nested too "
                           "deeply") from None


def _record_for(run: Run) -> tuple[dict[str, Any], int]:
    """The ``--json`` object of a finished run; a run the server ended (killed at its deadline,
    cancelled, crashed) gets the same object built by the same function."""
    from ..results import SolveResult, Status
    from ..solve import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_NOT_SOLVED, json_record

    final = run.final or {}
    if final.get("type") == "record" and final.get("record") is not None:
        code = final.get("exit_code", 1)
        return final["record"], 400 if code == EXIT_BAD_INPUT else 200
    backend, name = run.job.get("backend", ""), run.job.get("name")
    if run.ended == "killed":
        result = SolveResult(Status.TIMEOUT, backend, message=f"killed by the server after "
                             f"{final.get('after_s', 0):g} s (time limit {run.limit:g} s)")
        return json_record(name, None, result, EXIT_NOT_SOLVED), 200
    if run.ended == "stopped":
        return json_record(name, None, SolveResult(Status.ERROR, backend, message="the server "
                           "is stopping"), EXIT_NOT_SOLVED), 503
    if run.ended == "cancelled":
        record = json_record(name, None, SolveResult(Status.ERROR, backend, message="cancelled"),
                             EXIT_INTERRUPTED)
        record["status"] = "interrupted"
        return record, 200
    message = final.get("message") or "; ".join(final.get("stderr") or []) or \
        "the worker ended without an answer"
    return json_record(name, None, SolveResult(Status.ERROR, backend, message=message),
                       EXIT_NOT_SOLVED), 500


async def _finished(runner: Runner, run: Run) -> Run:
    """``run`` once it has ended; a client that goes away meanwhile takes its run with it."""
    try:
        while run.final is None:
            await run.changed.wait()
    except asyncio.CancelledError:
        runner.cancel(run)
        raise
    return run


def _rss_mb() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def create_app(settings: Settings | None = None) -> BodyLimit:
    """The web solver's ASGI application (wrapped in the body cap)."""
    settings = settings or Settings()
    ctx = process_context(settings.start_method)
    solves = Runner(worker.run_solve, slots=settings.max_running, queue=settings.max_queued,
                    grace=settings.grace, context=ctx, keep=settings.keep_finished,
                    keep_bytes=settings.keep_finished_bytes, name="solve")
    # a task's answer goes to the one request that waits for it: none is kept after it
    tasks = Runner(worker.run_task, slots=settings.max_tasks, queue=settings.max_tasks_queued,
                   grace=2.0, context=ctx, keep=0, keep_bytes=0, name="task")
    cache: dict[str, Any] = {}
    static = resources.files("formulations.serve") / "static"

    async def task(job: dict[str, Any], limit: float | None = None) -> dict[str, Any]:
        """The task's answer; a task that did not answer raises TaskFailed (5xx, the reason)."""
        limit = settings.task_time_limit if limit is None else limit
        run = await _finished(tasks, tasks.admit(job, limit))
        assert run.final is not None  # _finished waits for it
        if run.final.get("type") == "task":
            return run.final["result"]
        if run.ended == "killed":
            raise TaskFailed(f"stopped after {limit:g} s (this server's limit for this task)",
                             503)
        if run.ended == "stopped":
            raise TaskFailed("the server is stopping", 503)
        raise TaskFailed(run.final.get("message") or "the task failed", 500)

    async def index(request: Request) -> Response:
        html = (static / "index.html").read_text(encoding="utf-8")
        return Response(html, media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS)

    async def backends(request: Request) -> Response:
        if "backends" not in cache:
            # once per server, and it imports every solver: a cold start on a slow or busy
            # machine may take longer than a quick task is allowed
            got = await task({"task": "backends"}, max(settings.task_time_limit, 60.0))
            if "error" in got:
                return _error(got["error"], 503, retry_after_s=1)
            cache["backends"] = got["backends"]
        return JSONResponse({"backends": cache["backends"], "settings": {
            "time_limit": settings.time_limit, "max_time_limit": settings.max_time_limit,
            "max_threads": settings.max_threads, "max_body_bytes": settings.max_body_bytes}})

    async def examples(request: Request) -> Response:
        out = {}
        for name in EXAMPLES:
            path = static / "examples" / name
            if path.is_file():
                out[name] = path.read_text(encoding="utf-8")
        return JSONResponse({"examples": out, "default": "cat15.txt", "formats": [
            {"name": f.name, "title": f.title, "extensions": list(f.extensions)}
            for f in formats()]})

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "solves": solves.load, "tasks": tasks.load,
                             "rss_mb": round(_rss_mb(), 1)})

    async def solve(request: Request) -> Response:
        job = solve_job(await _json(request), settings)
        run = await _finished(solves, solves.admit(job.as_dict(), job.time_limit))
        record, status = _record_for(run)
        return JSONResponse(record, status_code=status)

    async def start_run(request: Request) -> Response:
        job = solve_job(await _json(request), settings, live=True)
        run = solves.admit(job.as_dict(), job.time_limit)
        return JSONResponse({"id": run.id, "events": f"/api/runs/{run.id}/events",
                             "time_limit": job.time_limit}, status_code=202)

    def _run_or_404(request: Request) -> Run:
        run = solves.get(request.path_params["run_id"])
        if run is None:
            raise LookupError("no such run (it may have ended long ago)")
        return run

    async def run_state(request: Request) -> Response:
        run = _run_or_404(request)
        body: dict[str, Any] = {"id": run.id, "state": run.state, "ended": run.ended or None}
        if run.state == "done":
            body["record"] = _record_for(run)[0]
        return JSONResponse(body)

    async def cancel_run(request: Request) -> Response:
        run = _run_or_404(request)
        cancelled = solves.cancel(run)
        return JSONResponse({"id": run.id, "cancelled": cancelled, "ended": run.ended or None})

    async def events(request: Request) -> Response:
        run = _run_or_404(request)

        async def stream():
            sent, last = 0, time.monotonic()
            yield "retry: 100000\n\n"
            while True:
                woken = run.changed  # set by any message added from here on
                while sent < len(run.messages):
                    message = run.messages[sent]
                    sent += 1
                    if message.get("type") == "end":
                        record, _ = _record_for(run)
                        final = run.final or {}
                        data = {"type": "result", "ended": run.ended, "record": record,
                                "extra": final.get("extra") or {}}
                        yield f"data: {json.dumps(data)}\n\n"
                        return
                    yield f"data: {json.dumps(message)}\n\n"
                    last = time.monotonic()
                if time.monotonic() - last > 15:
                    yield ": keep-alive\n\n"
                    last = time.monotonic()
                try:
                    await asyncio.wait_for(woken.wait(), timeout=15)
                except TimeoutError:
                    pass
                if await request.is_disconnected():
                    return

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def parse(request: Request) -> Response:
        got = await task(task_job(await _json(request), "parse"))
        return JSONResponse(got, status_code=400 if "error" in got else 200)

    async def hint(request: Request) -> Response:
        got = await task(task_job(await _json(request), "hint"))
        return JSONResponse(got, status_code=400 if "error" in got else 200)

    async def explain(request: Request) -> Response:
        job = task_job(await _json(request), "explain")
        # the trace stops itself before the task's process is killed, and says so (unknown)
        job["limit"] = max(1.0, settings.task_time_limit - 5.0)
        got = await task(job)
        return JSONResponse(got, status_code=400 if "error" in got else 200)

    async def export(request: Request) -> Response:
        kind = request.path_params["kind"]
        if kind not in ("text", "non", *worker.EXPORTS):
            return _error(f"unknown export {kind!r} (text, non, {', '.join(worker.EXPORTS)})", 404)
        job = task_job(await _json(request), "export")
        job.update(kind=kind, max_bytes=settings.max_download_bytes,
                   max_model_mb=settings.max_model_mb)
        got = await task(job)
        if "error" in got:
            return _error(got["error"], 400)
        return Response(got["data"], media_type="application/octet-stream", headers={
            "Content-Disposition": f'attachment; filename="{got["filename"]}"'})

    async def on_request_error(request: Request, exc: Exception) -> Response:
        return _error(str(exc), 415 if isinstance(exc, UnsupportedMedia) else 400)

    async def on_busy(request: Request, exc: Exception) -> Response:
        return _error(str(exc), 429, retry_after_s=1)

    async def on_missing(request: Request, exc: Exception) -> Response:
        return _error(str(exc).strip("'\""), 404)

    async def on_task_failed(request: Request, exc: Exception) -> Response:
        return _error(str(exc), getattr(exc, "status", 500))

    async def on_other(request: Request, exc: Exception) -> Response:
        return _error(f"internal error: {type(exc).__name__}: {exc}".splitlines()[0], 500)

    routes = [
        Route("/", index),
        Route("/api/backends", backends),
        Route("/api/examples", examples),
        Route("/api/health", health),
        Route("/api/solve", solve, methods=["POST"]),
        Route("/api/runs", start_run, methods=["POST"]),
        Route("/api/runs/{run_id}", run_state, methods=["GET"]),
        Route("/api/runs/{run_id}", cancel_run, methods=["DELETE"]),
        Route("/api/runs/{run_id}/events", events),
        Route("/api/parse", parse, methods=["POST"]),
        Route("/api/hint", hint, methods=["POST"]),
        Route("/api/explain", explain, methods=["POST"]),
        Route("/api/export/{kind}", export, methods=["POST"]),
        Mount("/static", app=StaticFiles(packages=[("formulations.serve", "static")]),
              name="static"),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        solves.kill_all()
        tasks.kill_all()

    app = Starlette(routes=routes, exception_handlers={
        RequestError: on_request_error, Busy: on_busy, LookupError: on_missing,
        TaskFailed: on_task_failed, Exception: on_other}, lifespan=lifespan)
    app.state.settings, app.state.solves, app.state.tasks = settings, solves, tasks
    wrapped: Any = app
    if is_loopback(host_name(settings.host)):  # no page elsewhere reaches it by a rebound name
        wrapped = HostCheck(app)
    return BodyLimit(wrapped, settings.max_body_bytes, timeout=settings.body_timeout,
                     drain=settings.drain_bytes)


def stop_runs(app: Any) -> None:
    """Kill every worker and end every run of the application (the server is stopping)."""
    while not hasattr(app, "state") and hasattr(app, "app"):
        app = app.app
    app.state.solves.kill_all()
    app.state.tasks.kill_all()
