"""The one CPU clock of the package: CPU seconds of this process (every thread) plus those of
its finished child processes (a backend's worker process: ``sat``, ``mip``, ``qbpp``), so that a
backend that solves in a worker is timed like one that solves in-process.

Threads: process CPU counts every thread, so a run on several threads (CP-SAT's ``workers``,
a sampler's threads) reports the CPU of all of them, the work done, not the time waited; wall
times stay reported beside it. A child's CPU is counted once the child has been waited for
(every backend joins its worker before returning).
"""
from __future__ import annotations

import time

try:
    import resource
except ImportError:  # not POSIX: this process only
    resource = None  # type: ignore[assignment]


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and its waited-for children so far."""
    t = time.process_time()
    if resource is not None:
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        t += ru.ru_utime + ru.ru_stime
    return t
