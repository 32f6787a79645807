"""What runs in a worker process: one solve (or one quick task) per process, its events sent to
the server through a pipe.

A solve is ``formulations.solve``'s own ``main`` on the puzzle text written to a file in a
private temporary folder (named after the upload, so that the extension hint and the error
messages are the command line's), so that ``POST /api/solve`` answers exactly the object of
``python -m formulations.solve --json``. Around it the live view gets: the line solver's replay
(for ``lines``), the annealers' batches (:data:`formulations.backends.sampling.BATCH_OBSERVERS`) and CP-SAT's
log lines, all as small dicts ``{"type": ...}``; the last message is ``{"type": "record", ...}``
or ``{"type": "task", ...}``.

Nothing here trusts the request: the server has checked and capped it (:mod:`.requests`), and
the process is killed at its deadline.
"""
from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time
from typing import Any

# imported here so that a forkserver's preload carries them into every worker
import numpy  # noqa: F401

from formulations.io.read import parse_puzzle_with_goal
from formulations.lines.engine import Engine, Step
from formulations.lines.replay import Backtrack, Guess, replay
from formulations.lines.settle import settle_masks
from formulations.puzzle import Puzzle, PuzzleError
from formulations.show.text import colour_chars

REPLAY_EVENTS = 20_000
"""Replay events streamed at most (a larger replay is cut, and says so)."""
REPLAY_CELLS = 400_000
"""Decided cells streamed at most over a replay's events (a large grid's replay is cut)."""
BROKEN_CELLS = 400
"""Cells a batch's best sample breaks, sent at most per batch."""
CHUNK = 200
"""Replay events per message."""
LOG_LINES_PER_S = 20


class _Sender:
    """Messages to the server; a closed pipe (the server gone) ends the worker quietly."""

    def __init__(self, conn: Any):
        self.conn = conn

    def __call__(self, message: dict[str, Any]) -> None:
        try:
            self.conn.send(message)
        except (BrokenPipeError, EOFError, OSError):
            os._exit(0)


def _own_group() -> None:
    """A process group of its own, so that the server's kill reaches the solver's children too,
    and SIGKILL when its parent (the forkserver, which ends with the server) dies: a server
    killed outright (SIGKILL) leaves no worker running."""
    try:
        os.setsid()
    except OSError:
        pass
    _drop_forkserver_sentinel()
    from formulations.runtime.workers import die_with_parent
    parent = os.getppid()
    die_with_parent()
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


def _drop_forkserver_sentinel() -> None:
    """Close the forkserver's 'server alive' pipe end that every forkserver child inherits: the
    forkserver ends when the server does only once no process holds it, and a worker that held it
    kept its forkserver (and so itself) alive after the server was killed."""
    try:
        from multiprocessing import forkserver
        fd = forkserver._forkserver._forkserver_alive_fd  # type: ignore[attr-defined]  # private
        if fd is not None:
            forkserver._forkserver._forkserver_alive_fd = None  # type: ignore[attr-defined]  # private, not in typeshed
            os.close(fd)
    except (ImportError, AttributeError, OSError):
        pass


def _failed(send: _Sender, exc: BaseException) -> None:
    """The worker's last message when it fails outside the solve's own error handling: the
    exception's type and first line, never a traceback."""
    text = f"{type(exc).__name__}: {exc}".splitlines()[0][:500] if str(exc) else \
        type(exc).__name__
    send({"type": "failed", "message": f"the worker failed: {text}"})


def puzzle_info(puzzle: Puzzle, goal: Any = None) -> dict[str, Any]:
    """What the page draws a puzzle with: size, clues as (length, colour) pairs, the palette and
    the display characters of ``--json``'s grids (so that its grids can be read back)."""
    chars = colour_chars(puzzle)
    used = {0, *puzzle.colours}
    return {
        "title": puzzle.name or None, "height": puzzle.height, "width": puzzle.width,
        "rows": [[[b.length, b.colour] for b in clue] for clue in puzzle.rows],
        "columns": [[[b.length, b.colour] for b in clue] for clue in puzzle.columns],
        "palette": [{"index": i, "name": name, "rgb": code or None, "char": chars.get(i)}
                    for i, name, code in sorted(puzzle.palette) if i in used],
        "colour": not puzzle.is_black_and_white,
        "goal": [list(r) for r in goal] if goal is not None else None,
    }


def line_name(puzzle: Puzzle, lid: int) -> dict[str, Any]:
    h = puzzle.height
    kind, index = ("row", lid) if lid < h else ("column", lid - h)
    clue = (puzzle.rows if kind == "row" else puzzle.columns)[index]
    return {"kind": kind, "index": index,
            "clue": " ".join(str(b.length) for b in clue) or "0",
            "label": f"{kind} {index + 1}"}


def contradicting_line(eng: Engine, state: list[int]) -> int | None:
    """The first line that no placement fits in ``state`` (the state a failed propagation left:
    it stops at the line that failed, before changing it)."""
    C = eng.C
    for lid in range(eng.nlines):
        if settle_masks(eng.specs[lid], tuple(state[lid * C:(lid + 1) * C])) is None:
            return lid
    return None


def _event(ev: Any) -> dict[str, Any]:
    if isinstance(ev, Step):
        kind, index = ev.line
        return {"e": "step", "line": ["row" if kind == "row" else "column", index],
                "cells": [list(c) for c in ev.fixed], "known": ev.known}
    if isinstance(ev, Guess):
        return {"e": "guess", "cell": list(ev.cell), "colour": ev.colour, "depth": ev.depth}
    if isinstance(ev, Backtrack):
        return {"e": "backtrack", "cell": list(ev.cell), "depth": ev.depth}
    return {"e": "other"}


def stream_replay(puzzle: Puzzle, send: _Sender, time_limit: float) -> None:
    """The line solving and search recorded (:func:`formulations.lines.replay.replay`) and sent in
    chunks, for the page to play cell by cell."""
    rec = replay(puzzle, max_events=REPLAY_EVENTS, time_limit=time_limit)
    events, cells = [], 0
    for e in rec.events:
        events.append(_event(e))
        cells += len(events[-1].get("cells", ()))
        if cells > REPLAY_CELLS:
            break
    for k in range(0, len(events), CHUNK):
        send({"type": "replay", "events": events[k:k + CHUNK]})
    send({"type": "replay_end", "status": rec.status.value, "steps": rec.steps,
          "guesses": rec.guesses, "backtracks": rec.backtracks,
          "truncated": rec.truncated or len(events) < len(rec.events)})


def explain_infeasible(puzzle: Puzzle) -> dict[str, Any] | None:
    """The line at which line solving meets a contradiction (None when line solving alone
    does not contradict: then only the search proves the clues impossible)."""
    eng = Engine(puzzle)
    state = eng.initial_state()
    if eng.propagate(state, eng.initial_lines()):
        return None
    lid = contradicting_line(eng, state)
    return None if lid is None else line_name(puzzle, lid)


class _LogStream(io.TextIOBase):
    """stderr of the solve: CP-SAT's log lines (``--param log=true``) and the command line's
    own error line, sent as ``log`` events, at most LOG_LINES_PER_S a second (the last line of a
    burst is kept)."""

    def __init__(self, send: _Sender):
        self.held: str | None  # a log line not yet sent (rate limit)
        self.send, self.buf, self.last, self.held = send, "", 0.0, None
        self.lines: list[str] = []

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.buf += text
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            if line.strip():
                self._line(line[:300])
        return len(text)

    def _line(self, line: str) -> None:
        self.lines = (self.lines + [line])[-20:]
        now = time.monotonic()
        if now - self.last >= 1.0 / LOG_LINES_PER_S:
            self.last, self.held = now, None
            self.send({"type": "log", "line": line})
        else:
            self.held = line

    def flush_held(self) -> None:
        if self.held is not None:
            self.send({"type": "log", "line": self.held})
            self.held = None


def _observe_batches(send: _Sender, puzzle: Puzzle | None) -> None:
    """Send every annealing batch's figures with the cells and lines its best sample breaks."""
    try:
        from formulations.backends import sampling as anneal
    except Exception:  # noqa: BLE001 - the annealers are optional
        return
    observers = getattr(anneal, "BATCH_OBSERVERS", None)
    if observers is None:
        return
    t0 = time.perf_counter()

    def seen(batch: dict[str, Any], broken: list) -> None:
        cells, lines = set(), set()
        for label in broken[:5000]:
            if not isinstance(label, tuple):
                continue
            if label and label[0] == "link":
                nums = [v for v in label[1:] if isinstance(v, int)]
                if len(nums) >= 2:
                    cells.add((nums[0], nums[1]))
                continue
            for k, v in enumerate(label[:-1]):
                if v in ("row", "col") and isinstance(label[k + 1], int):
                    lines.add(("row" if v == "row" else "column", label[k + 1]))
                    break
        send({"type": "batch", "t": round(time.perf_counter() - t0, 3),
              "reads": batch.get("reads"), "sweeps": batch.get("num_sweeps"),
              "best_energy": batch.get("best_energy"), "mean_energy": batch.get("mean_energy"),
              "successes": batch.get("successes"), "broken": len(broken),
              "energies": batch.get("energies"),
              "broken_cells": sorted(cells)[:BROKEN_CELLS], "broken_lines": sorted(lines)})

    observers.append(seen)


def run_solve(conn: Any, job: dict[str, Any]) -> None:
    """One solve: ``job`` holds ``text``, ``name`` (a bare file name: its extension names the
    format), ``backend``, ``time_limit``, ``pairs`` (the backend's options), ``switches`` (model
    switches, seed, memory cap; checked by the server, see ``requests.solve_options``) and
    ``replay``. The run is the command line's (:func:`formulations.solve.attempt` of a
    :class:`~formulations.solving.SolveRequest`); its record is the command line's ``--json``
    object. A sampler samples until a verified grid or the time limit (``until_solved``)."""
    _own_group()
    send = _Sender(conn)
    try:
        _solve(send, job)
    except Exception as exc:  # noqa: BLE001 - the server reports it, one line
        _failed(send, exc)


def _solve(send: _Sender, job: dict[str, Any]) -> None:
    started = time.perf_counter()
    send({"type": "started", "pid": os.getpid()})
    puzzle = None
    try:
        puzzle, goal = parse_puzzle_with_goal(job["text"], None, job["name"])
        send({"type": "puzzle", "puzzle": puzzle_info(puzzle, goal)})
    except PuzzleError:
        pass  # the run says the same in its own words below
    except Exception:  # noqa: BLE001 - never let the live view stop the run
        pass
    if puzzle is not None and job.get("replay"):
        try:
            stream_replay(puzzle, send, min(2.0, 0.25 * job["time_limit"]))
        except Exception as exc:  # noqa: BLE001
            send({"type": "log", "line": f"replay failed: {type(exc).__name__}: {exc}"})
    _observe_batches(send, puzzle)
    from formulations.backends import get_backend
    from formulations.runtime.clock import Deadline
    from formulations.solve import attempt
    from formulations.solving import SolveRequest

    clock = Deadline(job["time_limit"]).earlier(time.perf_counter() - started)
    switches = dict(job.get("switches") or {})

    def read() -> Puzzle:
        return puzzle if puzzle is not None else parse_puzzle_with_goal(
            job["text"], None, job["name"])[0]

    def make(p: Puzzle) -> SolveRequest:
        backend = get_backend(job["backend"])
        pairs = [tuple(kv) for kv in job.get("pairs") or ()]
        if "until_solved" in backend.options and not any(k == "until_solved" for k, _ in pairs):
            pairs.append(("until_solved", True))  # the page's time limit is a budget to use
        return SolveRequest.make(p, backend, pairs=pairs, time_limit=job["time_limit"],
                                 **switches)

    err = _LogStream(send)
    with contextlib.redirect_stderr(err):  # a solver's log lines (cpsat's log=true)
        outcome = attempt(read, make, clock, job["backend"])
    if outcome.result is None:
        err.write(f"error: {outcome.message}\n")
    err.flush_held()
    record = outcome.record(job["name"], job["backend"])
    code = outcome.code
    extra: dict[str, Any] = {}
    if record is not None and record.get("status") == "infeasible" and puzzle is not None:
        try:
            extra["contradiction"] = explain_infeasible(puzzle)
        except Exception:  # noqa: BLE001
            pass
    send({"type": "record", "record": record, "exit_code": code, "extra": extra,
          "stderr": err.lines[-3:]})


# -- quick tasks: parse, hint, export ------------------------------------------------------------

def task_parse(job: dict[str, Any]) -> dict[str, Any]:
    puzzle, goal = parse_puzzle_with_goal(job["text"], job.get("format"), job["name"])
    from formulations.io.writers import write_text
    return {"puzzle": puzzle_info(puzzle, goal), "text": write_text(puzzle)}


def task_hint(job: dict[str, Any]) -> dict[str, Any]:
    """The next line update line solving makes from the cells the page knows (``known``: rows
    of colour numbers, -1 undecided): its line and the cells it decides."""
    puzzle, _ = parse_puzzle_with_goal(job["text"], job.get("format"), job["name"])
    eng = Engine(puzzle)
    state = eng.initial_state()
    known = job.get("known") or []
    index = {c: k for k, c in enumerate(eng.colours)}
    for i, row in enumerate(known[:puzzle.height]):
        for j, v in enumerate(row[:puzzle.width]):
            if isinstance(v, int) and v >= 0:
                if v not in index:
                    return {"error": f"cell ({i + 1}, {j + 1}) has colour {v}, which no clue uses"}
                eng.assign(state, i, j, index[v])
    steps: list[Step] = []
    ok = eng.propagate(state, None, steps)
    if steps:
        kind, idx = steps[0].line
        lid = idx if kind == "row" else puzzle.height + idx
        return {"hint": {**line_name(puzzle, lid), "cells": [list(c) for c in steps[0].fixed]}}
    if not ok:
        bad = contradicting_line(eng, state)
        return {"contradiction": line_name(puzzle, bad) if bad is not None else None}
    if eng.is_complete(state):
        return {"done": True}
    return {"stuck": True}


EXPORTS = {"bqm": ("--export-bqm", "model.bqm"), "qubo": ("--export-bqm", "model.qubo"),
           "cqm": ("--export-cqm", "model.cqm")}


def task_export(job: dict[str, Any]) -> dict[str, Any]:
    """The puzzle as text / .non (the package's writers) or its model as a BQM or CQM file (the
    command line's ``--export-bqm`` / ``--export-cqm``)."""
    kind = job["kind"]
    if kind in ("text", "non"):
        from formulations.io.writers import write_non, write_text
        puzzle, _ = parse_puzzle_with_goal(job["text"], job.get("format"), job["name"])
        data = write_text(puzzle) if kind == "text" else write_non(puzzle)
        return {"data": data.encode("utf-8"),
                "filename": "puzzle." + ("txt" if kind == "text" else "non")}
    _, out_name = EXPORTS[kind]
    from formulations.backends import get_backend
    from formulations.model import build_model, export_bqm
    from formulations.model.cqm import export_cqm

    puzzle, _ = parse_puzzle_with_goal(job["text"], job.get("format"), job["name"])
    # the model the default backend (cpsat) would be given, as the command line's export
    nm = build_model(puzzle, use_x=get_backend("cpsat").model_x(None),
                     max_model_mb=job["max_model_mb"])
    with tempfile.TemporaryDirectory(prefix="nonogram-serve-") as tmp:
        path = os.path.join(tmp, out_name)
        if kind == "cqm":
            export_cqm(nm, path)
        else:
            export_bqm(nm, path)
        size = os.path.getsize(path)
        if size > job["max_bytes"]:
            return {"error": f"the {kind.upper()} file has {size:,} bytes, over this "
                             f"server's download cap of {job['max_bytes']:,}"}
        with open(path, "rb") as f:
            return {"data": f.read(), "filename": out_name}


TASKS = {"parse": task_parse, "hint": task_hint, "export": task_export}


def run_task(conn: Any, job: dict[str, Any]) -> None:
    """One quick task; its answer (or a PuzzleError's one line) as the last message."""
    _own_group()
    send = _Sender(conn)
    try:
        result = TASKS[job["task"]](job)
    except PuzzleError as exc:
        result = {"error": str(exc), "line": exc.line}
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        result = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0][:500]}
    send({"type": "task", "result": result})


def task_backends(job: dict[str, Any]) -> dict[str, Any]:
    """The registry's backends, each with whether it is installed here and, when it is not, the
    command that installs it (imports the solvers: done once, in a worker, so that the server
    itself stays small). A backend whose module does not even import is listed as not
    installed with its hint, never an error for the whole list."""
    from formulations.backends import get_backend, names
    from formulations.backends.base import missing_module_hint
    out = []
    for name in names():
        try:
            b = get_backend(name)
        except Exception as exc:  # noqa: BLE001 - one backend's import, not the list
            out.append({"name": name, "description": "", "available": False,
                        "install_hint": missing_module_hint(getattr(exc, "name", None)),
                        "supports_unique": False, "options": [], "uses_model": True,
                        "sampler": False})
            continue
        try:
            ok = b.available()
        except Exception:  # noqa: BLE001
            ok = False
        out.append({"name": b.name, "description": b.description, "available": ok,
                    "install_hint": b.install_hint,
                    "supports_unique": b.supports_unique,
                    "options": sorted(b.options), "uses_model": b.uses_model,
                    "sampler": "until_solved" in b.options})
    return {"backends": out}


TASKS["backends"] = task_backends


def _explain_task(job: dict[str, Any]) -> dict[str, Any]:
    from .explain_task import task_explain
    return task_explain(job)


TASKS["explain"] = _explain_task
