"""The classical reference: line solving to a fixed point, probing and search (seeds 000, 003, 004).

It works on the puzzle, not on the model's constraints; its grids are encoded back into the
model (``nm.encode``) so that the common verification checks them like any other backend's.
"""
from __future__ import annotations

import time

from formulations.lines import solve_lines
from formulations.model import NonogramModel
from formulations.results import RawAnswer, Status

from .base import Backend


def solve(nm: NonogramModel, *, time_limit: float | None = None, seed: int | None = None,
          unique: bool = False, probing: bool = True, probe_limit: int = 0) -> RawAnswer:
    t0 = time.perf_counter()
    res = solve_lines(nm.puzzle, max_solutions=2 if unique else 1, time_limit=time_limit,
                      probing=probing, probe_limit=probe_limit)
    info = res.info()
    solve_s = time.perf_counter() - t0
    if res.status is Status.INFEASIBLE:
        return RawAnswer(Status.INFEASIBLE, solve_s=solve_s, message="search exhausted: no solution",
                         info=info)
    if res.status is Status.UNKNOWN:
        return RawAnswer(Status.UNKNOWN, solve_s=solve_s,
                         message="time limit reached before a solution", info=info)
    proven = None
    if unique:
        if len(res.solutions) > 1:
            proven = False
        elif res.exhausted:
            proven = True
    return RawAnswer(Status.SOLVED, tuple(nm.encode(g) for g in res.solutions), solve_s=solve_s,
                     proven_unique=proven, info=info)


BACKENDS = [
    Backend(
        name="lines",
        description="line solving to a fixed point, probing and depth-first search (pure Python; "
                    "complete: proves infeasible/unique)",
        solve_fn=solve,
        requires=(),
        options={"probing": bool, "probe_limit": int},
        supports_unique=True,
        reproducible=True,
        minimum={"probe_limit": 0},
    ),
]
