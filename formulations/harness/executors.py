"""The one executor of the package: where compare's runs and every study's tasks are measured.

:class:`Executor` runs ``run(item)`` (a module-level function, so it pickles by name) for each
submitted item, on

* a local pool of single-process slots (:class:`_Slot`): each worker runs one item at a time, so
  an item that overruns its ``kill_after(item)`` seconds is killed with its process while the
  other slots carry on (compare's hard limit; a study's tasks pass none), or
* a Dask ``distributed`` cluster (``scheduler``: an address or a ``Client``): an item without a
  hard limit runs in the Dask worker itself (a study's task); one with a limit (or every item,
  ``isolate=True``: compare's runs) runs in a long-lived child process of the Dask worker
  thread (:class:`ChildRunner`), which the limit can kill (a Dask task cannot be killed).

One interface for both: ``submit(item)`` while ``free > 0``, then ``finished()`` yields
``(item, record)`` for every item that ended. Whatever happens to an item it ends in exactly
one record: the worker's answer, or ``failed(item, status, message, wall_s)`` (the caller's
error record, :data:`Failure`) for a kill (``timeout``), a worker's death or an exception
(``error``), never a hang. The records themselves are the caller's
(:mod:`formulations.harness.recordfile` describes their common envelope).
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from ..results import BackendError, Status
from formulations.runtime.workers import (child_env, die_with_parent, exit_text, protocol_stdout,
                                          reaped_exit_code)

Record = dict[str, Any]


Failure = Callable[[Any, Status, str, "float | None"], Record]
"""The caller's error record for an item that gave none: ``failed(item, status, message,
wall_s)``, ``status`` ``timeout`` (killed at its hard limit) or ``error`` (its worker died, or an
exception), ``wall_s`` the seconds it ran (None when unknown)."""


def worker_init() -> None:
    """In each local worker: Ctrl-C reaches the whole process group; the parent decides how to
    stop (it kills the workers)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ping(setup: tuple[Callable[..., Any], tuple] | None) -> int:
    """A new worker's first task: the caller's set-up (compare warms its backends' imports, so
    the first run does not pay them), then the worker's process id."""
    if setup is not None:
        setup[0](*setup[1])
    return os.getpid()


# -- a Dask worker's child process ----------------------------------------------------------------

class ChildRunner:
    """A long-lived child Python process (``python -m formulations.compare --serve``, which is
    :func:`serve`) that runs items one at a time and is killed, and replaced on the next item,
    when one overruns.

    Used on Dask workers: their processes may be daemonic (no multiprocessing children) and the
    harness cannot kill a Dask task, but it can kill a subprocess. Keeping the child between
    items keeps solver imports warm, so a sweep of thousands of small runs does not pay a Python
    start-up per run. Protocol: the parent writes a length-prefixed pickled ``(warm, run, item)``
    to the child's stdin; the child answers ``started`` once ``warm(item)`` is done (imports are
    not charged to the item), then ``run(item)``'s record as JSON."""

    START_TIMEOUT = 300.0  # start-up and solver imports, not charged to the run

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self._buf = b""

    def _spawn(self) -> subprocess.Popen:
        self.proc = subprocess.Popen([sys.executable, "-m", "formulations.compare", "--serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=child_env(), preexec_fn=die_with_parent)
        self._buf = b""
        return self.proc

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _line(self, timeout: float | None) -> bytes | None:
        """One line from the child, None on timeout; b"" when the child died."""
        import selectors

        assert self.proc is not None and self.proc.stdout is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                if not sel.select(left):
                    return None
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return b""
                self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def run(self, warm: Callable[[Any], None] | None, run: Callable[[Any], Record], item: Any,
            kill_after: float | None) -> tuple[Record | None, str, float]:
        """``(record, "", wall_s)``, or ``(None, why, wall_s)`` when the child was killed at
        ``kill_after`` (``why`` starts with ``killed``) or died."""
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._spawn()
        data = pickle.dumps((warm, run, item))
        t0 = time.perf_counter()
        try:
            assert proc.stdin is not None
            proc.stdin.write(len(data).to_bytes(8, "little") + data)
            proc.stdin.flush()
            started = self._line(self.START_TIMEOUT)
            t0 = time.perf_counter()
            row = self._line(kill_after) if started == b"started" else started
        except (BrokenPipeError, OSError):
            row = b""
        if row is None:
            self.close()
            return None, f"killed after {kill_after:g}s", time.perf_counter() - t0
        if row:
            try:
                return json.loads(row), "", time.perf_counter() - t0
            except ValueError:
                pass
        if proc.poll() is None:  # alive but answering nonsense: replace it
            proc.kill()
        code = proc.wait()
        self.proc = None
        return None, f"worker process died ({exit_text(code)})", time.perf_counter() - t0


_RUNNERS = threading.local()


def run_isolated(warm: Callable[[Any], None] | None, run: Callable[[Any], Record], item: Any,
                 kill_after: float | None) -> tuple[Record | None, str, float]:
    """Run ``item`` in this thread's :class:`ChildRunner` (the Dask task of an item with a hard
    limit)."""
    runner = getattr(_RUNNERS, "runner", None)
    if runner is None:  # the child exits by itself when this thread or process goes (stdin EOF)
        runner = _RUNNERS.runner = ChildRunner()
    return runner.run(warm, run, item, kill_after)


def serve() -> int:
    """The child side of :class:`ChildRunner`: length-prefixed pickled ``(warm, run, item)`` on
    stdin; ``started`` once ``warm(item)`` is done, then ``run(item)`` as one JSON line."""
    worker_init()
    out = protocol_stdout(binary=True)  # anything a solver prints goes to stderr, never into the protocol
    inp = sys.stdin.buffer
    while True:
        head = inp.read(8)
        if len(head) < 8:
            return 0
        warm, run, item = pickle.loads(inp.read(int.from_bytes(head, "little")))
        if warm is not None:
            warm(item)
        out.write(b"started\n")
        out.flush()
        out.write(json.dumps(run(item)).encode() + b"\n")
        out.flush()


# -- local slots ----------------------------------------------------------------------------------

class _Slot:
    """One single-process pool: its one worker runs one item at a time, so an item that overruns
    can be killed (with its process) without touching the items in other slots."""

    def __init__(self, setup: tuple[Callable[..., Any], tuple] | None):
        import multiprocessing

        self.ex = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=worker_init)
        self.future: Future | None = self.ex.submit(ping, setup)
        self.item: Any = None
        self.busy = False           # an item is running (not the ping)
        self.limit: float | None = None
        self.started = 0.0
        self.pid: int | None = None  # the worker's, once it has answered the ping
        self.procs: list = []

    @property
    def idle(self) -> bool:
        return self.future is None

    def start(self, run: Callable[[Any], Record], item: Any, limit: float | None) -> None:
        self.item, self.busy, self.limit = item, True, limit
        self.started = time.perf_counter()
        self.future = self.ex.submit(run, item)

    def overdue(self, now: float) -> bool:
        return self.busy and self.limit is not None and now - self.started > self.limit

    def deadline(self) -> float | None:
        return self.started + self.limit if self.busy and self.limit is not None else None

    def kill(self) -> None:
        procs = list((getattr(self.ex, "_processes", None) or {}).values())
        for p in procs:
            try:
                p.kill()
            except Exception:
                pass
        self.ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            p.join(timeout=5)

    def death_message(self, exc: BaseException) -> str:
        from concurrent.futures.process import BrokenProcessPool

        if not isinstance(exc, BrokenProcessPool):
            return f"{type(exc).__name__}: {exc}"  # e.g. a result that cannot be pickled
        codes = [c for c in (reaped_exit_code(p) for p in self.procs) if c is not None]
        return f"worker process died ({exit_text(codes[0]) if codes else 'no exit code'})"


SCHEDULER_TIMEOUT_S = 15.0


def connect(scheduler: Any) -> Any:
    """A Dask ``Client`` for an address (or the client given), with the errors in words."""
    try:
        from distributed import Client
    except ImportError:
        raise BackendError('a Dask scheduler needs Dask distributed: pip install '
                           '-e ".[compare]" (or: pip install distributed)') from None
    if isinstance(scheduler, Client):
        return scheduler
    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        why = str(exc) or type(exc).__name__
        raise BackendError(f"cannot reach the Dask scheduler at {scheduler!r} within "
                           f"{SCHEDULER_TIMEOUT_S:g} s: {why}") from None


class Executor:
    """Submit items, collect their records (see the module docstring).

    ``run(item)``: the record, computed in a worker (it should catch its own failures; one that
    raises still gives ``failed(...)``). ``failed``: the caller's error record. ``kill_after``:
    an item's hard limit in seconds (None: none). ``setup``: ``(function, args)`` called once in
    every new local worker before its first item. ``warm(item)``: called in a Dask child before
    an item's clock starts. ``on_start(item, pid)``: as each local item starts (monitoring).
    ``isolate``: on Dask, every item runs in a child process, not only those with a hard limit
    (compare's runs may start worker processes of their own, which a daemonic Dask worker
    cannot). ``label(item)``: the start of an item's Dask task key (the dashboard shows it)."""

    def __init__(self, run: Callable[[Any], Record], failed: Failure, *, workers: int = 1,
                 scheduler: Any = None,
                 kill_after: Callable[[Any], float | None] = lambda item: None,
                 setup: tuple[Callable[..., Any], tuple] | None = None,
                 warm: Callable[[Any], None] | None = None,
                 on_start: Callable[[Any, int | None], None] | None = None,
                 isolate: bool = False, label: Callable[[Any], str] | None = None):
        self.run, self.failed, self.kill_after, self.isolate = run, failed, kill_after, isolate
        self.label, self.tag = label, os.urandom(4).hex()  # Dask task keys unique to this run
        self.setup, self.warm, self.on_start = setup, warm, on_start
        self.queued: deque[Any] = deque()         # local: waiting for a slot
        self.futures: dict[Any, tuple[Any, bool]] = {}  # Dask: future -> (item, isolated)
        self.client = None
        self.slots: list[_Slot] = []
        self.own_client = False
        if scheduler is None:
            self.width = max(1, workers)
        else:
            self.client = connect(scheduler)
            from distributed import as_completed

            self.own_client = self.client is not scheduler
            self.width = max(1, sum(self.client.nthreads().values()))
            self.done = as_completed()

    @property
    def pending(self) -> int:
        """Items submitted and not yet finished."""
        if self.client is not None:
            return len(self.futures)
        return len(self.queued) + sum(1 for s in self.slots if s.busy)

    @property
    def free(self) -> int:
        """How many more items to submit now: every slot fed, a few queued."""
        return 2 * self.width - self.pending

    def submit(self, item: Any) -> None:
        if self.client is None:
            self.queued.append(item)
            while len(self.slots) < min(self.width, self.pending):  # no more workers than items
                self.slots.append(_Slot(self.setup))
            return
        limit = self.kill_after(item)
        isolated = limit is not None or self.isolate
        key = {} if self.label is None else {"key": f"{self.label(item)}-{self.tag}"}
        if isolated:
            fut = self.client.submit(run_isolated, self.warm, self.run, item, limit, pure=False,
                                     **key)
        else:
            fut = self.client.submit(self.run, item, pure=False, **key)
        self.futures[fut] = (item, isolated)
        self.done.add(fut)

    def finished(self) -> Iterator[tuple[Any, Record]]:
        """Wait until at least one item has ended (nothing when nothing is pending); yield
        ``(item, record)`` for each one that has."""
        if self.client is not None:
            yield from self._dask_finished()
        else:
            yield from self._local_finished()

    def _dask_finished(self) -> Iterator[tuple[Any, Record]]:
        if not self.futures:
            return
        fut = next(self.done)
        item, isolated = self.futures.pop(fut)
        try:
            got = fut.result()
        except Exception as exc:
            yield item, self.failed(item, Status.ERROR,
                                    f"dask task failed: {type(exc).__name__}: {exc}", None)
            return
        if isolated:  # run_isolated's answer: the record, or why there is none
            rec, why, wall = got
            if rec is None:
                status = Status.TIMEOUT if why.startswith("killed") else Status.ERROR
                rec = self.failed(item, status, why, wall)
            got = rec
        yield item, got

    def _feed(self) -> None:
        for s in self.slots:
            if s.idle and self.queued:
                item = self.queued.popleft()
                s.start(self.run, item, self.kill_after(item))
                if self.on_start is not None:
                    self.on_start(item, s.pid)

    def _local_finished(self) -> Iterator[tuple[Any, Record]]:
        while self.pending:
            self._feed()
            active = [s.future for s in self.slots if s.future is not None]
            deadlines = [d for d in (s.deadline() for s in self.slots) if d is not None]
            now = time.perf_counter()
            timeout = max(0.0, min(deadlines) - now) + 0.01 if deadlines else None
            wait(active, timeout=timeout, return_when=FIRST_COMPLETED)
            now = time.perf_counter()
            out: list[tuple[Any, Record]] = []
            for i, s in enumerate(self.slots):
                if s.future is not None and s.future.done():
                    fut, item, busy = s.future, s.item, s.busy
                    s.future, s.item, s.busy = None, None, False
                    try:
                        got = fut.result()
                    except Exception as exc:  # the worker died (BrokenProcessPool) or pickling
                        if not busy:
                            raise RuntimeError(f"worker process failed to start: {exc}") from exc
                        out.append((item, self.failed(item, Status.ERROR,
                                                      s.death_message(exc), now - s.started)))
                        s.kill()
                        self.slots[i] = _Slot(self.setup)
                        continue
                    if busy:
                        out.append((item, got))
                    else:  # the ping's answer: the worker is up
                        s.pid = got
                        s.procs = list((getattr(s.ex, "_processes", None) or {}).values())
                elif s.overdue(now):
                    item = s.item
                    s.kill()
                    out.append((item, self.failed(item, Status.TIMEOUT,
                                                  f"killed after {s.limit:g}s", now - s.started)))
                    self.slots[i] = _Slot(self.setup)
            if out:
                self._feed()  # the freed slots start their next items before the caller's work
                yield from out
                return

    def close(self) -> None:
        """Kill the local workers (a run that is stopped leaves none behind); cancel what a Dask
        cluster still holds."""
        for s in self.slots:
            s.kill()
        self.slots, self.queued = [], deque()
        if self.client is not None:
            for f in self.futures:
                f.cancel()
            self.futures = {}
            if self.own_client:
                self.client.close()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_all(items: Sequence[Any], executor: Executor,
            emit: Callable[[Any, Record], None]) -> None:
    """Every item through ``executor`` in order, ``emit(item, record)`` as each ends."""
    todo = deque(items)
    while todo or executor.pending:
        while todo and executor.free > 0:
            executor.submit(todo.popleft())
        for item, rec in executor.finished():
            emit(item, rec)
