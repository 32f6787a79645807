"""Where jobs run: a local pool of single-job worker processes (a run that overruns is killed
with its process, the other slots carry on), or a Dask ``distributed`` cluster, where each run
executes in a long-lived child process of the Dask worker thread that the hard limit can kill.
Both give one row per job, whatever happens to it."""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from collections.abc import Callable, Sequence
from typing import Any

from ..results import BackendError, Status
from formulations.runtime.workers import child_env, die_with_parent, exit_text, reaped_exit_code
from .jobs import Job
from .records import record
from .runner import ping, run_job, worker_init


class ChildRunner:
    """A long-lived child Python process (``python -m formulations.compare --serve``) that runs
    jobs one at a time and is killed, and replaced on the next job, when one overruns.

    Used on Dask workers: their processes may be daemonic (no multiprocessing children) and the
    harness cannot kill a Dask task, but it can kill a subprocess. Keeping the child between
    jobs keeps solver imports warm, so a sweep of thousands of small runs does not pay a Python
    start-up per run. Protocol: the parent writes a length-prefixed pickled Job to the child's
    stdin; the child answers ``started`` once the backend is imported, then the row as JSON."""

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

    def run(self, job: Job) -> dict[str, Any]:
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._spawn()
        data = pickle.dumps(job)
        t0 = time.perf_counter()
        try:
            assert proc.stdin is not None
            proc.stdin.write(len(data).to_bytes(8, "little") + data)
            proc.stdin.flush()
            started = self._line(self.START_TIMEOUT)
            t0 = time.perf_counter()
            row = self._line(job.kill_after) if started == b"started" else started
        except (BrokenPipeError, OSError):
            row = b""
        if row is None:
            self.close()
            return record(job, Status.TIMEOUT, wall_s=time.perf_counter() - t0,
                           message=f"killed after {job.kill_after:g}s").to_row()
        if row:
            try:
                return json.loads(row)
            except ValueError:
                pass
        if proc.poll() is None:  # alive but answering nonsense: replace it
            proc.kill()
        code = proc.wait()
        self.proc = None
        return record(job, Status.ERROR, wall_s=time.perf_counter() - t0,
                       message=f"worker process died ({exit_text(code)})").to_row()


_RUNNERS = threading.local()


def run_job_isolated(job: Job) -> dict[str, Any]:
    """Run ``job`` in this thread's :class:`ChildRunner` (the Dask task function)."""
    runner = getattr(_RUNNERS, "runner", None)
    if runner is None:  # the child exits by itself when this thread or process goes (stdin EOF)
        runner = _RUNNERS.runner = ChildRunner()
    return runner.run(job)


class _Slot:
    """One single-process pool: its one worker runs one job at a time, so a job that overruns
    can be killed (with its process) without touching the runs in other slots."""

    def __init__(self, backends: Sequence[str]):
        import multiprocessing

        self.ex = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=worker_init)
        self.future: Future | None = self.ex.submit(ping, list(backends))
        self.job: Job | None = None
        self.started = 0.0
        self.pid: int | None = None  # the worker's, once it has answered the ping
        self.procs: list = []

    @property
    def idle(self) -> bool:
        return self.future is None

    def start(self, job: Job) -> None:
        self.job, self.started = job, time.perf_counter()
        self.future = self.ex.submit(run_job, job)

    def overdue(self, now: float) -> bool:
        return (self.job is not None and self.job.kill_after is not None
                and now - self.started > self.job.kill_after)

    def deadline(self) -> float | None:
        if self.job is None or self.job.kill_after is None:
            return None
        return self.started + self.job.kill_after

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


def run_local(jobs: Sequence[Job], workers: int, emit: Callable[[dict], None],
               on_start: Callable[[Job, int | None], None] | None = None) -> None:
    backends = sorted({j.backend for j in jobs})
    pending = list(reversed(jobs))
    slots = [_Slot(backends) for _ in range(max(1, min(workers, len(jobs))))]
    try:
        while pending or any(s.job is not None for s in slots):
            for s in slots:
                if s.idle and pending:
                    started = pending.pop()
                    s.start(started)
                    if on_start is not None:
                        on_start(started, s.pid)
            active = [s.future for s in slots if s.future is not None]
            now = time.perf_counter()
            deadlines = [d for d in (s.deadline() for s in slots) if d is not None]
            timeout = max(0.0, min(deadlines) - now) + 0.01 if deadlines else None
            wait(active, timeout=timeout, return_when=FIRST_COMPLETED)
            now = time.perf_counter()
            for i, s in enumerate(slots):
                if s.future is not None and s.future.done():
                    fut, job = s.future, s.job
                    s.future, s.job = None, None
                    try:
                        row = fut.result()
                    except Exception as exc:  # the worker died (BrokenProcessPool) or pickling
                        if job is None:
                            raise RuntimeError(f"worker process failed to start: {exc}") from exc
                        emit(record(job, Status.ERROR, wall_s=now - s.started,
                                     message=_death_message(s, exc)).to_row())
                        s.kill()
                        slots[i] = _Slot(backends)
                        continue
                    if job is not None:
                        emit(row)
                    else:  # the ping's answer: the worker is up
                        s.pid = row
                        s.procs = list((getattr(s.ex, "_processes", None) or {}).values())
                elif s.overdue(now):
                    job = s.job
                    assert job is not None  # overdue: a job is running
                    s.kill()
                    emit(record(job, Status.TIMEOUT, wall_s=now - s.started,
                                 message=f"killed after {job.kill_after:g}s").to_row())
                    slots[i] = _Slot(backends)
    finally:
        for s in slots:
            s.kill()


def _death_message(slot: _Slot, exc: BaseException) -> str:
    from concurrent.futures.process import BrokenProcessPool

    if not isinstance(exc, BrokenProcessPool):
        return f"{type(exc).__name__}: {exc}"  # e.g. a result that cannot be pickled
    codes = [c for c in (reaped_exit_code(p) for p in slot.procs) if c is not None]
    return f"worker process died ({exit_text(codes[0]) if codes else 'no exit code'})"


SCHEDULER_TIMEOUT_S = 15.0


def run_dask(jobs: Sequence[Job], scheduler: Any, emit: Callable[[dict], None]) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise BackendError('a Dask scheduler needs Dask distributed: pip install '
                           '-e ".[compare]" (or: pip install distributed)') from None
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, timeout=SCHEDULER_TIMEOUT_S) if own else scheduler
    except (OSError, TimeoutError) as exc:
        why = str(exc) or type(exc).__name__
        raise BackendError(f"cannot reach the Dask scheduler at {scheduler!r} within "
                           f"{SCHEDULER_TIMEOUT_S:g} s: {why}") from None
    futures = []
    try:
        tag = os.urandom(4).hex()  # task keys unique to this sweep
        futures = [client.submit(run_job_isolated, job, pure=False,
                                 key=f"nonogram-run-{job.key}-{tag}") for job in jobs]
        by_key = {f.key: j for f, j in zip(futures, jobs)}
        for fut in as_completed(futures):
            try:
                row = fut.result()
            except Exception as exc:
                row = record(by_key[fut.key], Status.ERROR,
                              message=f"dask task failed: {type(exc).__name__}: {exc}").to_row()
            emit(row)
    finally:
        for f in futures:
            if not f.done():
                f.cancel()
        if own:
            client.close()
