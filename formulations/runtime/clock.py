"""The time limit of a run, as one deadline every stage reads.

``--time-limit T`` covers the whole run: reading aside, the model build, presolve, the lowering
to a QUBO, a backend's translation and its search all check the same :class:`Deadline` and stop
with :class:`OutOfTime` naming their stage, so that a run ends within T plus a little (the
promise is max(1 s, 5 % of T)). A stage that cannot be interrupted is refused up front when its
estimated cost does not fit the time left.
"""
from __future__ import annotations

import time


FIT_SLACK_S = 0.5


class OutOfTime(Exception):
    """The time limit ran out during ``stage`` (or, with ``estimate_s``, would have: the stage
    was refused up front)."""

    def __init__(self, stage: str, estimate_s: float | None = None):
        self.stage = stage
        self.estimate_s = estimate_s
        if estimate_s is None:
            text = f"time limit reached during the {stage}"
        else:
            text = (f"time limit too short for the {stage} (it would take about "
                    f"{estimate_s:.3g} s), refused before starting it")
        super().__init__(text)


class Deadline:
    """A point in time (``perf_counter``), or none. ``check`` is cheap enough for inner loops
    that call it every few thousand items. It is the one form a time limit takes from an entry
    point (the command line, ``solve_puzzle``, a comparison job, the web worker) down to every
    backend (``Backend.run(..., deadline=...)``). ``perf_counter`` is the system's monotonic
    clock on Linux, the same in every process, so a worker process reads the deadline it was
    handed as its caller does."""
    __slots__ = ("end",)

    def __init__(self, seconds: float | None):
        self.end = None if seconds is None else time.perf_counter() + max(0.0, seconds)

    @classmethod
    def of(cls, value: Deadline | float | None) -> Deadline:
        """A deadline from a Deadline (itself) or a time limit in seconds (or None)."""
        return value if isinstance(value, Deadline) else cls(value)

    def earlier(self, seconds: float) -> Deadline:
        """The same deadline ``seconds`` sooner (a reserve kept for the work after a stage: the
        answer's check); no deadline stays none."""
        out = Deadline(None)
        out.end = None if self.end is None else self.end - max(0.0, seconds)
        return out

    def within(self, seconds: float) -> Deadline:
        """The earlier of this deadline and ``seconds`` from now (a slice of a run's time)."""
        out = Deadline(seconds)
        if self.end is not None and out.end is not None:
            out.end = min(out.end, self.end)
        return out

    def left(self) -> float | None:
        """Seconds left (never negative), None without a limit."""
        return None if self.end is None else max(0.0, self.end - time.perf_counter())

    def expired(self) -> bool:
        return self.end is not None and time.perf_counter() >= self.end

    def past(self, grace_s: float = 0.0) -> bool:
        """More than ``grace_s`` seconds past the deadline (a worker's kill time)."""
        return self.end is not None and time.perf_counter() > self.end + grace_s

    def check(self, stage: str) -> None:
        """Raise OutOfTime for ``stage`` when the time is up."""
        if self.end is not None and time.perf_counter() >= self.end:
            raise OutOfTime(stage)

    def fits(self, stage: str, estimate_s: float) -> None:
        """Refuse ``stage`` up front (OutOfTime with the estimate) when it cannot end in time:
        when it would run past the deadline by more than :data:`FIT_SLACK_S` (half the second
        a run may overrun, the other half left for checking the answer)."""
        left = self.left()
        if left is not None and estimate_s > left + FIT_SLACK_S:
            raise OutOfTime(stage, estimate_s)


NO_DEADLINE = Deadline(None)
