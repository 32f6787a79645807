"""Result types shared by every backend."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

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
    SOLVED = "solved"          # a grid that the package's checker accepted
    INFEASIBLE = "infeasible"  # proven: no grid satisfies the clues
    UNKNOWN = "unknown"        # no verified grid and no proof (time limit, sampler missed)
    ERROR = "error"            # the backend failed or returned something the checker rejected


class BackendError(Exception):
    """A backend cannot run as asked (not installed, bad option, model too large). Exit code 2."""


@dataclass(frozen=True)
class RawAnswer:
    """What a backend returns before the package verifies it.

    ``assignments`` are 0/1 vectors in the model's variable order: solutions found (a second one
    when uniqueness was asked), or for samplers the best sample even when it breaks constraints.
    ``proven`` says the backend proved its status (infeasibility, or that no second solution
    exists when ``unique`` was asked).
    """
    status: Status
    assignments: tuple[np.ndarray, ...] = ()
    solve_s: float = 0.0
    proven_unique: bool | None = None
    energy: float | None = None
    message: str = ""
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SolveResult:
    """A verified answer: the grid is only present when the checker accepted it."""
    status: Status
    backend: str
    grid: Grid | None = None
    unique: bool | None = None
    variables: int = 0
    constraints: int = 0
    build_s: float = 0.0
    solve_s: float = 0.0
    energy: float | None = None
    violations: tuple = ()
    message: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def solved(self) -> bool:
        return self.status is Status.SOLVED

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready record (one row of a comparison table)."""
        d: dict[str, Any] = {
            "status": self.status.value,
            "grid": grid_to_strings(self.grid) if self.grid is not None else None,
            "unique": self.unique,
            "backend": self.backend,
            "variables": self.variables,
            "constraints": self.constraints,
            "build_s": round(self.build_s, 6),
            "solve_s": round(self.solve_s, 6),
            "energy": self.energy,
        }
        if self.violations:
            d["violations"] = [list(v) if isinstance(v, tuple) else v for v in self.violations]
        if self.message:
            d["message"] = self.message
        for k, v in self.info.items():
            if k == "second_grid":
                v = grid_to_strings(v)
            d.setdefault(k, _jsonable(v))
        return d


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
