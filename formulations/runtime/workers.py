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
