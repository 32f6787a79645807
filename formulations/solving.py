"""Build, hand to a backend, decode, verify: the one path every backend's answer takes."""
from __future__ import annotations

import time
from typing import Any

from .builder import NonogramModel, build_model
from .puzzle import Puzzle, check_grid
from .results import BackendError, RawAnswer, SolveResult, Status


def verify(nm: NonogramModel, raw: RawAnswer, backend: str, *, build_s: float = 0.0,
           unique_asked: bool = False) -> SolveResult:
    """Turn a backend's raw answer into a result the package vouches for.

    A grid is reported only when the model is feasible for the assignment and the independent
    clue checker accepts the decoded grid; the solver's own claim is never trusted.
    """
    common = dict(backend=backend, variables=nm.model.num_variables,
                  constraints=nm.model.num_constraints, build_s=build_s, solve_s=raw.solve_s,
                  energy=raw.energy, info=dict(raw.info))
    if raw.status is Status.INFEASIBLE:
        return SolveResult(Status.INFEASIBLE, unique=None, message=raw.message, **common)
    if not raw.assignments:
        status = raw.status if raw.status in (Status.UNKNOWN, Status.ERROR) else Status.UNKNOWN
        return SolveResult(status, message=raw.message, **common)
    best = raw.assignments[0]
    broken = nm.model.violations(best)
    grid = nm.decode(best)
    problems = check_grid(nm.puzzle, grid)
    if broken or problems:
        if raw.status is Status.SOLVED and not broken:
            # The model accepted it but the clues do not: a bug in the formulation, never hidden.
            return SolveResult(Status.ERROR, message="model-feasible assignment breaks the clues: "
                               + "; ".join(problems[:3]), **common)
        msg = raw.message or f"best assignment breaks {len(broken)} constraints"
        status = Status.ERROR if raw.status is Status.SOLVED else Status.UNKNOWN
        if raw.status is Status.SOLVED:
            msg = f"backend claimed a solution that breaks {len(broken)} constraints"
        return SolveResult(status, violations=tuple(broken), message=msg, **common)
    unique = None
    if unique_asked:
        second = [g for g in (nm.decode(a) for a in raw.assignments[1:])
                  if g != grid and not check_grid(nm.puzzle, g)]
        if second:
            unique = False
            common["info"]["second_grid"] = ["".join(".#"[min(v, 1)] for v in r) for r in second[0]]
        elif raw.proven_unique:
            unique = True
    return SolveResult(Status.SOLVED, grid=grid, unique=unique, message=raw.message, **common)


def solve_puzzle(puzzle: Puzzle, backend: str = "cpsat", *, use_x: bool = True,
                 time_limit: float | None = None, seed: int | None = None, unique: bool = False,
                 **options: Any) -> SolveResult:
    """Solve ``puzzle`` with the named backend and return a verified result."""
    from backends import get_backend

    b = get_backend(backend)
    b.check_available()
    opts = b.check_options(options)
    if unique and not b.supports_unique:
        raise BackendError(f"backend '{backend}' cannot prove uniqueness; use cpsat or lines")
    t0 = time.perf_counter()
    nm = build_model(puzzle, use_x=use_x)
    build_s = time.perf_counter() - t0
    raw = b.solve(nm, time_limit=time_limit, seed=seed, unique=unique, **opts)
    return verify(nm, raw, b.name, build_s=build_s, unique_asked=unique)
