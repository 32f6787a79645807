"""What every worker process of the package needs, in one place: the comparison harness's run
children and the qbpp worker both start Python children that must find this package, must not
outlive their caller, must keep their answer channel free of whatever a native library prints,
and whose deaths must be reported in words.
"""
from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the ``formulations`` package (put on a child's PYTHONPATH)."""


def child_env() -> dict[str, str]:
    """The environment for a child ``python -m ...`` of this package: this process's, with the
    package's folder first on PYTHONPATH (so an uninstalled checkout works too)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    return env


def die_with_parent() -> None:
    """``preexec_fn`` for a child: on Linux ask for SIGKILL when the caller dies, so a caller
    killed from outside (a comparison run's timeout, Ctrl-C) leaves no search running."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except Exception:
            pass


def exit_text(code: int | None) -> str:
    """A process's exit status in words: ``exit code 1``, ``signal SIGKILL``, ``no exit code``."""
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def reaped_exit_code(process: Any, timeout: float = 5.0) -> int | None:
    """The exit code of a ``multiprocessing`` process that has ended or is ending, waiting until
    it is known. ``join`` alone can return before the code is set when another thread (a process
    pool's manager) reaps the same child at the same moment; the code then appears a moment later."""
    deadline = time.monotonic() + timeout
    process.join(timeout=timeout)
    while process.exitcode is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return process.exitcode


def protocol_stdout(binary: bool = False) -> IO:
    """In a worker: the original stdout as the answer channel, and file descriptor 1 pointed at
    stderr, so that nothing a solver or native library prints can reach the parent's pipe."""
    out = os.fdopen(os.dup(1), "wb" if binary else "w")
    sys.stdout.flush()
    os.dup2(2, 1)
    return out


@contextmanager
def forked_worker(ctx: Any, target: Callable[..., None], args: tuple,
                  name: str) -> Iterator[tuple[Any, Any]]:
    """``(process, receiving end)`` of a daemonic ``multiprocessing`` worker ``target(send,
    *args)`` of context ``ctx``, started with SIGINT blocked (a mask survives fork and exec: a
    Ctrl-C before the worker blocks the signal itself cannot print its traceback or reach a
    native solver's handler; one that reaches this thread meanwhile is raised here once the mask
    is back). On leaving, whatever ends it (an answer, the deadline, Ctrl-C, an error), the
    worker is killed if still alive and joined (its CPU then counts in the package's clock)."""
    recv, send = ctx.Pipe(duplex=False)
    worker = ctx.Process(target=target, name=name, daemon=True, args=(send, *args))
    try:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) \
            if hasattr(signal, "pthread_sigmask") else None
        try:
            worker.start()
        finally:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        send.close()
        yield worker, recv
    finally:
        if worker.pid is not None:
            if worker.is_alive():
                worker.kill()
            worker.join()
        send.close()
        recv.close()
