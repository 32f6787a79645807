"""Result types shared by every backend: one status enum, the raw answer a backend returns, and
the verified result the package hands back, with typed records for what only some runs have
(presolve figures, sampling statistics)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple

import numpy as np

from .puzzle import Grid, grid_to_strings


def tts99(t_run: float, p: float) -> float:
    """Time to a solution with 99 % confidence from independent runs of ``t_run`` seconds that
    each succeed with probability ``p``: ``t_run * ln(0.01) / ln(1 - p)``, ``t_run`` when
    ``p >= 0.99``, infinite when ``p = 0`` (null in JSON)."""
    if p <= 0:
        return math.inf
    if p >= 0.99:
        return t_run
    return t_run * math.log(0.01) / math.log(1.0 - p)


class Status(Enum):
    """The one status of the package: solves, the fixed point, the search, the ladder and the
    comparison harness all report one of these."""
    SOLVED = "solved"          # a grid that the package's checker accepted
    INFEASIBLE = "infeasible"  # proven: no grid satisfies the clues
    UNKNOWN = "unknown"        # no verified grid and no proof (time limit, sampler missed, cells left open)
    ERROR = "error"            # the backend failed or returned something the checker rejected
    TIMEOUT = "timeout"        # the comparison harness killed the run at its hard limit


class BackendError(Exception):
    """A backend cannot run as asked (not installed, bad option, model too large). Exit code 2."""


class Remedy(NamedTuple):
    """A change that would let a backend take a model: ``kind`` is ``"presolve"``, ``"no_x"``
    (``detail``: the smaller model's size), ``"other_backend"`` (``detail``: backend names
    separated by commas) or ``"memory_cap"`` (a higher cap for the model's size)."""
    kind: str
    detail: str = ""


class RemedyWords(NamedTuple):
    """How a front end names the remedies: its words for presolve and for the model without x,
    and how it names each other backend (``{}``: the name) and all of them together."""
    presolve: str
    no_x: str
    each_backend: str = "{}"
    backends: str = "another backend ({})"
    memory_cap: str = "a higher max_model_mb"

    def say(self, r: Remedy) -> str:
        if r.kind == "presolve":
            return self.presolve
        if r.kind == "memory_cap":
            return self.memory_cap
        if r.kind == "no_x":
            return self.no_x + (f" ({r.detail})" if r.detail else "")
        names = " or ".join(self.each_backend.format(n) for n in r.detail.split(",") if n)
        return self.backends.format(names) if names else self.backends.format("").strip(" ()")


API_WORDS = RemedyWords("presolve=True", "use_x=False")


class ModelRefused(BackendError):
    """A backend says why it cannot take this model (too large for it, over a licence limit),
    before any solving, and which changes would help. Front ends turn the remedies into their own
    advice (the command lines into flags, ``str()`` into keyword arguments); the backend writes
    none."""

    def __init__(self, backend: str, reason: str, remedies: tuple[Remedy, ...] = ()):
        self.backend = backend
        self.reason = reason
        self.remedies = tuple(remedies)
        super().__init__(self.advice(API_WORDS))

    def advice(self, words: RemedyWords) -> str:
        """The reason plus the remedies, in the caller's vocabulary."""
        ways = [words.say(r) for r in self.remedies]
        return f"backend '{self.backend}': {self.reason}" + (
            "; ways out: " + "; or ".join(ways) if ways else "")


@dataclass(frozen=True)
class SamplingStats:
    """What a sampler's reads say, for the statistics of annealing runs.

    ``time_per_read_s`` is the wall time of the sampler calls divided by the reads (overheads
    included), ``cpu_per_read_s`` the same in process CPU time (the figure that survives a busy
    machine); ``tts99_s`` is :func:`tts99` of the wall figure, None when no read succeeded (or
    the sampler enumerates, where a TTS means nothing); ``tts99_low_s``/``tts99_high_s`` its 95 %
    interval (exact binomial in p, :mod:`formulations.analysis.stats`; None for an unbounded end: the
    upper one when no read succeeded).

    The same in CPU (the package's one clock for statistics, :mod:`formulations.runtime.cputime`):
    ``sampling_cpu_s`` is the process CPU of the sampler calls alone (every thread; the
    lowering and the re-scoring of the reads are set-up, apart), ``tts99_cpu_s`` is
    :func:`tts99` of ``cpu_per_read_s``, and ``spin_updates_per_read`` is sweeps x variables
    (None for a sampler without sweeps: tabu)."""
    reads: int
    success_probability: float
    time_per_read_s: float
    cpu_per_read_s: float
    sampling_s: float
    tts99_s: float | None
    tts99_low_s: float | None = None
    tts99_high_s: float | None = None
    sampling_cpu_s: float | None = None
    tts99_cpu_s: float | None = None
    spin_updates_per_read: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: _jsonable(getattr(self, k)) for k in SAMPLING_KEYS}


SAMPLING_KEYS = ("reads", "success_probability", "time_per_read_s", "cpu_per_read_s",
                 "sampling_s", "tts99_s", "tts99_low_s", "tts99_high_s", "sampling_cpu_s",
                 "tts99_cpu_s", "spin_updates_per_read")


@dataclass(frozen=True)
class PresolveStats:
    """What line solving decided before the backend ran (``presolve=True``)."""
    variables_before: int
    variables_after: int
    status: Status             # SOLVED (every cell decided), UNKNOWN (cells left) or INFEASIBLE
    unknown_cells: int
    seconds: float

    @property
    def solved(self) -> bool:
        return self.status is Status.SOLVED

    def to_dict(self) -> dict[str, Any]:
        return {"variables_before": self.variables_before, "variables_after": self.variables_after,
                "presolve_status": self.status.value, "presolve_unknown_cells": self.unknown_cells,
                "presolve_s": round(self.seconds, 6)}


PRESOLVE_KEYS = ("variables_before", "variables_after", "presolve_status",
                 "presolve_unknown_cells", "presolve_s")


@dataclass(frozen=True)
class RawAnswer:
    """What a backend returns before the package verifies it.

    ``assignments`` are 0/1 vectors in the model's variable order: solutions found (a second one
    when uniqueness was asked), or for samplers the best sample even when it breaks constraints.
    A backend that works on the puzzle instead of the model returns ``grids``. ``proven_unique``
    says the backend proved that no second solution exists (when ``unique`` was asked).
    ``info`` holds the backend's own figures (solver status names, counters).
    """
    status: Status
    assignments: tuple[np.ndarray, ...] = ()
    solve_s: float = 0.0
    proven_unique: bool | None = None
    energy: float | None = None
    message: str = ""
    sampling: SamplingStats | None = None
    grids: tuple[Grid, ...] = ()
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SolveResult:
    """A verified answer: the grid is only present when the checker accepted it.

    ``use_x`` and ``encoding`` are the model variant (None: the backend works on the puzzle, no
    model was built);
    ``solve_s`` the wall time of the whole backend call and ``solver_s`` the backend's own
    figure; ``build_cpu_s`` and ``solve_cpu_s`` the CPU time of the build (with presolve) and of
    the backend call (:mod:`formulations.runtime.cputime`: every thread and waited-for worker process;
    None where not measured); ``second_grid`` the other solution when uniqueness was refuted.
    """
    status: Status
    backend: str
    grid: Grid | None = None
    unique: bool | None = None
    second_grid: Grid | None = None
    use_x: bool | None = None
    encoding: str | None = None
    variables: int | None = None
    constraints: int | None = None
    build_s: float = 0.0
    solve_s: float = 0.0
    solver_s: float | None = None
    energy: float | None = None
    violations: tuple = ()
    message: str = ""
    presolve: PresolveStats | None = None
    sampling: SamplingStats | None = None
    info: dict[str, Any] = field(default_factory=dict)
    build_cpu_s: float | None = None
    solve_cpu_s: float | None = None

    @property
    def solved(self) -> bool:
        return self.status is Status.SOLVED

    @property
    def decided(self) -> bool:
        """A verdict: a verified grid, or a proof that there is none."""
        return self.status in (Status.SOLVED, Status.INFEASIBLE)

    @property
    def total_s(self) -> float:
        """Build, presolve and solve: the whole time the package spent on the puzzle."""
        return self.build_s + self.solve_s + (self.presolve.seconds if self.presolve else 0.0)

    @property
    def total_cpu_s(self) -> float | None:
        """:attr:`total_s` in CPU time (None when not measured)."""
        if self.solve_cpu_s is None:
            return None
        return (self.build_cpu_s or 0.0) + self.solve_cpu_s

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready record: the same keys for every backend, null where a figure does
        not apply; the backend's own figures are under ``info``."""
        d: dict[str, Any] = {
            "status": self.status.value,
            "grid": grid_to_strings(self.grid) if self.grid is not None else None,
            "unique": self.unique,
            "second_grid": grid_to_strings(self.second_grid) if self.second_grid else None,
            "backend": self.backend,
            "use_x": self.use_x,
            "encoding": self.encoding,
            "variables": self.variables,
            "constraints": self.constraints,
            "build_s": round(self.build_s, 6),
            "solve_s": round(self.solve_s, 6),
            "build_cpu_s": _rounded(self.build_cpu_s),
            "solve_cpu_s": _rounded(self.solve_cpu_s),
            "solver_s": _jsonable(self.solver_s),
            "energy": self.energy,
            "violations": [list(v) if isinstance(v, tuple) else v for v in self.violations],
            "message": self.message,
        }
        d.update(self.presolve.to_dict() if self.presolve else dict.fromkeys(PRESOLVE_KEYS))
        d.update(self.sampling.to_dict() if self.sampling else dict.fromkeys(SAMPLING_KEYS))
        d["info"] = _jsonable(self.info)  # what only this backend reports, kept apart
        return d


def _rounded(v: float | None) -> float | None:
    return None if v is None else round(v, 6)


def _jsonable(v: Any) -> Any:
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return None
    if isinstance(v, np.generic):
        return _jsonable(v.item())
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v
