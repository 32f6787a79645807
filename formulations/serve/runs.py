"""Runs in worker processes: admitted up to a bound (past it a request is refused at once, never
queued silently), started when a slot is free, their messages kept for the live view, killed at
their deadline or on cancel.

Each run is one process (``forkserver`` by default: a fork of a server process that has already
imported the package, so a start costs milliseconds, and nothing of the web server's state is
shared) in a process group of its own, so that a kill also ends what the solver started.
"""
from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import os
import pickle
import secrets
import signal
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..runtime.workers import exit_text

MAX_MESSAGES = 5_000
"""Messages kept per run; past it the log lines are dropped (replay chunks and batches stay)."""
MAX_RUN_BYTES = 16 * 2**20
"""Bytes of messages (as pickled on the pipe) kept per run; past it only the answer is kept."""


class Busy(Exception):
    """Every slot and every place in the queue is taken (answered 429)."""


@dataclass
class Run:
    id: str
    kind: str
    job: dict[str, Any]
    limit: float
    state: str = "queued"              # queued, running, done
    messages: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] | None = None
    ended: str = ""                    # "", "finished", "killed", "cancelled", "crashed", "stopped"
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    process: Any = None
    cancel_asked: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    nbytes: int = 0                    # what it holds: the job's text, messages, the answer
    dropped: int = 0                   # messages not kept (over MAX_MESSAGES or MAX_RUN_BYTES)

    def add(self, message: dict[str, Any], size: int = 0) -> None:
        if (len(self.messages) >= MAX_MESSAGES and message.get("type") == "log") \
                or self.nbytes + size > MAX_RUN_BYTES:
            self.dropped += 1
            return
        self.nbytes += size
        self.messages.append(message)
        self._wake()

    def _wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    def finish(self, final: dict[str, Any], ended: str, size: int = 0) -> None:
        if self.final is None:
            self.final, self.ended, self.state = final, ended, "done"
            text = self.job.get("text")
            if text is not None:  # what a finished run keeps does not need the puzzle's text
                self.job = {k: v for k, v in self.job.items() if k != "text"}
                self.nbytes -= len(text)
            self.nbytes += size
            self.messages.append({"type": "end", "ended": ended})
            self._wake()


class Runner:
    """Runs of one kind (``target`` is the worker function) with ``slots`` at once and ``queue``
    more waiting; a run's process is killed ``grace`` seconds after its time limit. Finished
    runs are kept for their late readers, at most ``keep`` of them and ``keep_bytes`` bytes
    (their messages and answers as they came through the pipe), the oldest forgotten first."""

    def __init__(self, target: Callable[..., None], *, slots: int, queue: int, grace: float,
                 context: Any, keep: int = 64, keep_bytes: int = 64 * 2**20, name: str = "run"):
        self.target, self.slots, self.queue, self.grace = target, slots, queue, grace
        self.context, self.keep, self.keep_bytes, self.name = context, keep, keep_bytes, name
        self.stopping = False
        self.runs: OrderedDict[str, Run] = OrderedDict()
        self._sem: asyncio.Semaphore | None = None
        self._waiting = 0
        self._running = 0
        self._ids = itertools.count(1)
        self.finished = 0
        self.refused = 0

    @property
    def load(self) -> dict[str, int]:
        return {"running": self._running, "queued": self._waiting, "finished": self.finished,
                "refused": self.refused, "kept": len(self.runs), "kept_bytes": self.held_bytes}

    @property
    def held_bytes(self) -> int:
        """Bytes the kept runs hold (their job's text, messages and answers)."""
        return sum(r.nbytes for r in self.runs.values())

    def admit(self, job: dict[str, Any], limit: float) -> Run:
        """A new run, started in the background; Busy when the queue is full or the server is
        stopping."""
        if self.stopping:
            raise Busy("the server is stopping")
        if self._running + self._waiting >= self.slots + self.queue:
            self.refused += 1
            raise Busy(f"the server is busy: {self._running} {self.name}s running and "
                       f"{self._waiting} waiting (at most {self.slots} + {self.queue}); try "
                       "again in a moment")
        if self._sem is None:
            self._sem = asyncio.Semaphore(self.slots)
        run = Run(f"{next(self._ids)}-{secrets.token_hex(6)}", self.name, job, limit)
        run.nbytes = len(job.get("text") or "")
        self.runs[run.id] = run
        self._forget_old()
        self._waiting += 1
        asyncio.get_running_loop().create_task(self._execute(run))
        return run

    def get(self, run_id: str) -> Run | None:
        return self.runs.get(run_id)

    def cancel(self, run: Run) -> bool:
        """Stop ``run``: a queued run ends at once (and never starts), a running one's worker is
        killed by its supervisor. True when the run had not ended (it ends cancelled)."""
        if run.state == "done":
            return False
        run.cancel_asked = True
        if run.state == "queued":
            run.finish({"type": "cancelled"}, "cancelled")
        run._wake()
        return True

    def _forget_old(self) -> None:
        """Forget the oldest finished runs past ``keep`` of them or ``keep_bytes`` in all."""
        done = [k for k, r in self.runs.items() if r.state == "done"]
        held = sum(self.runs[k].nbytes for k in done)
        count = len(done)
        for k in done:
            if count <= self.keep and held <= self.keep_bytes:
                break
            held -= self.runs[k].nbytes
            count -= 1
            del self.runs[k]

    async def _execute(self, run: Run) -> None:
        assert self._sem is not None
        try:
            async with self._sem:
                self._waiting -= 1
                self._running += 1
                try:
                    if run.cancel_asked or run.final is not None:
                        run.finish({"type": "cancelled"}, "cancelled")
                        return
                    if self.stopping:
                        run.finish({"type": "stopped"}, "stopped")
                        return
                    await self._supervise(run)
                finally:
                    self._running -= 1
        except Exception as exc:  # noqa: BLE001 - a run always ends with an answer
            run.finish({"type": "crashed", "message": f"{type(exc).__name__}: {exc}"}, "crashed")
        finally:
            self.finished += 1
            self._forget_old()

    async def _supervise(self, run: Run) -> None:
        loop = asyncio.get_running_loop()
        parent, child = self.context.Pipe(duplex=False)
        proc = self.context.Process(target=self.target, args=(child, run.job), daemon=True)
        run.process = proc
        await loop.run_in_executor(None, proc.start)
        child.close()
        run.started = time.monotonic()
        if run.final is None and not self.stopping:
            run.state = "running"
            run._wake()
        else:  # cancelled (or the server stopping) while its process was starting: it goes
            self._kill(proc)
        eof = asyncio.Event()

        def readable() -> None:
            try:
                while parent.poll():
                    raw = parent.recv_bytes()
                    message = pickle.loads(raw)
                    kind = message.get("type")
                    if kind in ("record", "task"):
                        run.finish(message, "finished", len(raw))
                    elif kind == "failed":  # the worker's own one-line account of its failure
                        run.finish(message, "crashed", len(raw))
                    else:
                        run.add(message, len(raw))
            except (EOFError, OSError):
                loop.remove_reader(parent.fileno())
                eof.set()

        loop.add_reader(parent.fileno(), readable)
        deadline = run.started + run.limit + self.grace
        try:
            while run.final is None and not eof.is_set():
                if run.cancel_asked:
                    self._kill(proc)
                    run.finish({"type": "cancelled"}, "cancelled")
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    self._kill(proc)
                    after = round(time.monotonic() - run.started, 3)
                    run.finish({"type": "killed", "after_s": after}, "killed")
                    break
                waits = [asyncio.ensure_future(eof.wait()),
                         asyncio.ensure_future(run.changed.wait())]
                _, pending = await asyncio.wait(waits, timeout=min(left, 1.0),
                                                   return_when=asyncio.FIRST_COMPLETED)
                for w in pending:
                    w.cancel()
        finally:
            try:
                loop.remove_reader(parent.fileno())
            except (ValueError, OSError):
                pass
            code = await loop.run_in_executor(None, self._reap, proc)
            if run.final is None:
                if self.stopping:
                    run.finish({"type": "stopped"}, "stopped")
                else:
                    run.finish({"type": "crashed", "message": "the worker process ended "
                                f"without an answer ({exit_text(code)})"}, "crashed")
            parent.close()

    @staticmethod
    def _kill(proc: Any) -> None:
        """SIGKILL the worker's process group (it made itself a group leader), else the worker."""
        if proc.pid is None:
            return
        for kill in (lambda: os.killpg(proc.pid, signal.SIGKILL),
                     lambda: os.kill(proc.pid, signal.SIGKILL)):
            try:
                kill()
                return
            except (ProcessLookupError, PermissionError, OSError):
                continue

    @staticmethod
    def _reap(proc: Any) -> int | None:
        """Wait for the worker's end (killing it if it lingers); its exit code."""
        proc.join(2.0)
        if proc.is_alive():
            Runner._kill(proc)
            proc.join(2.0)
        code = proc.exitcode
        try:
            proc.close()
        except ValueError:
            pass
        return code

    def kill_all(self) -> None:
        """The server is stopping: no run starts from now on, queued runs end at once and every
        running worker is killed (its run ends ``stopped``). Safe in a signal handler: it only
        sets flags and sends signals."""
        self.stopping = True
        for run in list(self.runs.values()):
            if run.state == "queued":
                run.finish({"type": "stopped"}, "stopped")
            elif run.process is not None and run.state == "running":
                self._kill(run.process)


def process_context(method: str) -> Any:
    """The multiprocessing context the runs use; ``forkserver`` preloads the worker module."""
    if method not in multiprocessing.get_all_start_methods():
        method = "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(["formulations.serve.worker"])
    return ctx
