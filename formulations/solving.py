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
            common["info"]["second_grid"] = second[0]
        elif raw.proven_unique:
            unique = True
    return SolveResult(Status.SOLVED, grid=grid, unique=unique, message=raw.message, **common)


def solve_puzzle(puzzle: Puzzle, backend: str = "cpsat", *, use_x: bool | None = None,
                 time_limit: float | None = None, seed: int | None = None, unique: bool = False,
                 presolve: bool = False, **options: Any) -> SolveResult:
    """Solve ``puzzle`` with the named backend and return a verified result.

    ``use_x`` builds the model with (True) or without (False) the cell variables; None gives
    the backend the variant it solves faster (``Backend.use_x``: without x for cpsat).

    ``presolve=True`` line-solves first and hands the backend the model with every decided
    variable fixed (``formulations.presolve``); the grid is rebuilt from the fixed part plus the
    backend's answer and checked as usual. A fixed point that decides every cell, or proves the
    clues contradictory, answers without calling the backend (``info["presolve_solved"]``).
    """
    from backends import get_backend

    b = get_backend(backend)
    opts = b.prepare(options)  # install and option errors before any work
    if unique and not b.supports_unique:
        raise BackendError(f"backend '{backend}' cannot prove uniqueness; use cpsat or lines")
    t0 = time.perf_counter()
    nm = build_model(puzzle, use_x=b.use_x if use_x is None else use_x)
    build_s = time.perf_counter() - t0
    if presolve:
        return _solve_presolved(nm, b, build_s, time_limit=_remaining(time_limit, build_s),
                                seed=seed, unique=unique, **opts)
    raw = _timed_solve(b, nm, opts, time_limit=_remaining(time_limit, build_s), seed=seed,
                       unique=unique)
    return verify(nm, raw, b.name, build_s=build_s, unique_asked=unique)


def _remaining(time_limit: float | None, spent: float) -> float | None:
    """The time limit covers the whole solve: model building and presolve count against it."""
    return None if time_limit is None else max(0.0, time_limit - spent)


def _timed_solve(b: Any, nm: Any, opts: dict[str, Any], **kwargs: Any) -> RawAnswer:
    """Call the backend and time it the same way for every backend.

    ``solve_s`` is the wall time of the whole backend call (translation, worker start, solving,
    uniqueness search), so backends are compared on equal terms; what the backend reports as
    its own solver time is kept as ``info["solver_s"]``.
    """
    from dataclasses import replace

    t0 = time.perf_counter()
    raw = b.run(nm, opts, **kwargs)
    wall = time.perf_counter() - t0
    return replace(raw, solve_s=wall, info={**raw.info, "solver_s": raw.solve_s})


def _solve_presolved(nm: NonogramModel, b: Any, build_s: float, *, time_limit: float | None,
                     seed: int | None, unique: bool, **opts: Any) -> SolveResult:
    """The presolve path of :func:`solve_puzzle` (the backend sees only the free variables)."""
    from dataclasses import replace

    import numpy as np

    from .presolve import presolve as run_presolve

    t0 = time.perf_counter()
    pre = run_presolve(nm)
    presolve_s = time.perf_counter() - t0
    info = {**pre.info(), "presolve_s": presolve_s}
    if pre.infeasible:
        raw = RawAnswer(Status.INFEASIBLE, message="line solving proves the clues contradictory")
    elif pre.solved:
        # line logic decided every cell, so this grid is the only solution
        raw = RawAnswer(Status.SOLVED, (np.zeros(0, dtype=np.int8),), proven_unique=True,
                        message="presolve decided every cell; backend not called")
    else:
        raw = _timed_solve(b, pre, opts, time_limit=_remaining(time_limit, presolve_s), seed=seed,
                           unique=unique)
    res = verify(pre, raw, b.name, build_s=build_s, unique_asked=unique)
    return replace(res, info={**res.info, **info})
