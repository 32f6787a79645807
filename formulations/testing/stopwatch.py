"""A stopwatch for checking time bounds, robust to a loaded machine.

A run bounded by ``--time-limit`` stops on the wall clock, but on a shared machine (the other
test workers of ``pytest -n``, other jobs) a thread that wants the CPU can wait for it: the same
work then takes two or three times as long in wall time, and a wall-time bound flakes. The
kernel counts that wait (``/proc/thread-self/schedstat``, second field: nanoseconds spent
runnable on a run queue), so the time the run would have taken on an idle machine is the wall
time less the wait. Where the kernel does not count it, the stopwatch is a plain wall clock.
"""
from __future__ import annotations

import time
from pathlib import Path

_SCHEDSTAT = Path("/proc/thread-self/schedstat")


def _waited_s() -> float:
    """Seconds this thread has spent waiting for a CPU while runnable (0 where not counted)."""
    try:
        return int(_SCHEDSTAT.read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


class Stopwatch:
    """``with Stopwatch() as sw: ...`` then ``sw.elapsed``: wall seconds of the block less the
    time the calling thread waited for a CPU. Exact for work done in that thread; work in other
    threads or processes is counted in wall time (the caller blocks on it, which is no wait for
    a CPU). ``sw.wall`` keeps the plain wall time for messages."""

    def __enter__(self) -> Stopwatch:
        self._t0, self._w0 = time.perf_counter(), _waited_s()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self._t0
        self.waited = _waited_s() - self._w0
        self.elapsed = self.wall - self.waited

    def __repr__(self) -> str:
        return f"{self.elapsed:.3f} s unloaded ({self.wall:.3f} s wall, {self.waited:.3f} s waiting for a CPU)"
