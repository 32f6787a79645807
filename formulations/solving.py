"""Build, (presolve,) hand to a backend, decode, verify: the one path every backend's answer takes."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from .model.encodings import build_model, check_encoding
from .model.order import NonogramModel
from .puzzle import Grid, Puzzle, check_grid
from .results import BackendError, PresolveStats, RawAnswer, SolveResult, Status


def verify(nm: NonogramModel, raw: RawAnswer, backend: str, *, build_s: float = 0.0,
           wall_s: float | None = None, unique_asked: bool = False,
           presolve: PresolveStats | None = None) -> SolveResult:
    """Turn a backend's raw answer on the model ``nm`` into a result the package vouches for.

    A grid is reported only when the model is feasible for the assignment and the independent
    clue checker accepts the decoded grid; the solver's own claim is never trusted.
    ``wall_s`` is the wall time of the backend call (default: the backend's own figure).
    """
    common = dict(backend=backend, use_x=nm.use_x, encoding=getattr(nm, "encoding", None),
                  variables=nm.model.num_variables,
                  constraints=nm.model.num_constraints, build_s=build_s,
                  solve_s=raw.solve_s if wall_s is None else wall_s, solver_s=raw.solve_s,
                  energy=raw.energy, presolve=presolve, sampling=raw.sampling, info=dict(raw.info))
    if raw.status is Status.INFEASIBLE:
        return SolveResult(Status.INFEASIBLE, message=raw.message, **common)
    if not raw.assignments:
        return SolveResult(_no_grid_status(raw), message=raw.message, **common)
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
    others = [nm.decode(a) for a in raw.assignments[1:]]
    unique, second = _uniqueness(nm.puzzle, grid, others, raw.proven_unique, unique_asked)
    return SolveResult(Status.SOLVED, grid=grid, unique=unique, second_grid=second,
                       message=raw.message, **common)


def verify_grids(puzzle: Puzzle, raw: RawAnswer, backend: str, *, wall_s: float | None = None,
                 unique_asked: bool = False) -> SolveResult:
    """:func:`verify` for a backend that works on the puzzle and answers with grids."""
    common = dict(backend=backend, use_x=None, solve_s=raw.solve_s if wall_s is None else wall_s,
                  solver_s=raw.solve_s, energy=raw.energy, sampling=raw.sampling,
                  info=dict(raw.info))
    if raw.status is Status.INFEASIBLE:
        return SolveResult(Status.INFEASIBLE, message=raw.message, **common)
    if not raw.grids:
        return SolveResult(_no_grid_status(raw), message=raw.message, **common)
    grid = tuple(tuple(row) for row in raw.grids[0])
    problems = check_grid(puzzle, grid)
    if problems:
        status = Status.ERROR if raw.status is Status.SOLVED else Status.UNKNOWN
        return SolveResult(status, violations=tuple(problems), message="backend claimed a grid "
                           "that breaks the clues: " + "; ".join(problems[:3]), **common)
    others = [tuple(tuple(row) for row in g) for g in raw.grids[1:]]
    unique, second = _uniqueness(puzzle, grid, others, raw.proven_unique, unique_asked)
    return SolveResult(Status.SOLVED, grid=grid, unique=unique, second_grid=second,
                       message=raw.message, **common)


def _no_grid_status(raw: RawAnswer) -> Status:
    return raw.status if raw.status in (Status.UNKNOWN, Status.ERROR) else Status.UNKNOWN


def _uniqueness(puzzle: Puzzle, grid: Grid, others: list[Grid], proven: bool | None,
                asked: bool) -> tuple[bool | None, Grid | None]:
    """The verdict from a verified grid and the other grids a backend sent: a second grid that
    passes the checker refutes uniqueness; only the backend's proof confirms it."""
    if not asked:
        return None, None
    second = next((g for g in others if g != grid and not check_grid(puzzle, g)), None)
    if second is not None:
        return False, second
    return (True if proven else None), None


def solve_puzzle(puzzle: Puzzle, backend: Any = "cpsat", *, use_x: bool | None = None,
                 time_limit: float | None = None, seed: int | None = None, unique: bool = False,
                 presolve: bool = False, encoding: str | None = None,
                 **options: Any) -> SolveResult:
    """Solve ``puzzle`` with a backend (a registry name or a ``Backend``) and return a verified
    result.

    ``use_x`` builds the model with (True) or without (False) the cell variables; None gives
    the backend the variant it solves faster (``Backend.use_x``: without x for cpsat).
    ``encoding`` names the model's encoding (``formulations.model.encodings``; None: ``order``).

    ``presolve=True`` line-solves first and hands the backend the model with every decided
    variable fixed (``formulations.model.presolve``); the grid is rebuilt from the fixed part plus
    the backend's answer and checked as usual. A fixed point that decides every cell, or proves
    the clues contradictory, answers without calling the backend (``result.presolve.solved``).
    A model the backend cannot take raises :class:`~formulations.results.ModelRefused`.
    """
    from backends import get_backend

    b = get_backend(backend)
    opts = b.prepare(options)  # install and option errors before any work
    if encoding is not None:
        try:
            check_encoding(encoding)
        except ValueError as exc:
            raise BackendError(str(exc)) from None
    if unique and not b.supports_unique:
        raise BackendError(f"backend '{b.name}' cannot prove uniqueness; use cpsat or lines")
    if not b.uses_model:
        if presolve:
            raise BackendError(f"backend '{b.name}' works on the puzzle itself; presolve does "
                               "not apply")
        if encoding is not None:
            raise BackendError(f"backend '{b.name}' works on the puzzle itself; an encoding does "
                               "not apply")
        raw, wall = _timed_solve(b, puzzle, opts, time_limit=time_limit, seed=seed, unique=unique)
        return verify_grids(puzzle, raw, b.name, wall_s=wall, unique_asked=unique)
    t0 = time.perf_counter()
    nm = build_model(puzzle, use_x=b.use_x if use_x is None else use_x, encoding=encoding)
    build_s = time.perf_counter() - t0
    if presolve:
        return _solve_presolved(nm, b, build_s, time_limit=_remaining(time_limit, build_s),
                                seed=seed, unique=unique, opts=opts)
    raw, wall = _timed_solve(b, nm, opts, time_limit=_remaining(time_limit, build_s), seed=seed,
                             unique=unique)
    return verify(nm, raw, b.name, build_s=build_s, wall_s=wall, unique_asked=unique)


def _remaining(time_limit: float | None, spent: float) -> float | None:
    """The time limit covers the whole solve: model building and presolve count against it."""
    return None if time_limit is None else max(0.0, time_limit - spent)


def _timed_solve(b: Any, target: Any, opts: dict[str, Any], **kwargs: Any) -> tuple[RawAnswer, float]:
    """Call the backend and time it the same way for every backend: the wall time of the whole
    call (translation, worker start, solving, uniqueness search), so backends are compared on
    equal terms; the backend's own figure stays ``raw.solve_s``."""
    t0 = time.perf_counter()
    raw = b.run(target, opts, **kwargs)
    return raw, time.perf_counter() - t0


def _solve_presolved(nm: NonogramModel, b: Any, build_s: float, *, time_limit: float | None,
                     seed: int | None, unique: bool, opts: dict[str, Any]) -> SolveResult:
    """The presolve path of :func:`solve_puzzle` (the backend sees only the free variables)."""
    from .model.presolve import presolve as run_presolve

    t0 = time.perf_counter()
    pre = run_presolve(nm)
    stats = pre.stats(time.perf_counter() - t0)
    wall = None
    if pre.infeasible:
        raw = RawAnswer(Status.INFEASIBLE, message="line solving proves the clues contradictory")
    elif pre.solved:
        # line logic decided every cell, so this grid is the only solution
        raw = RawAnswer(Status.SOLVED, (np.zeros(0, dtype=np.int8),), proven_unique=True,
                        message="presolve decided every cell; backend not called")
    else:
        raw, wall = _timed_solve(b, pre, opts, time_limit=_remaining(time_limit, stats.seconds),
                                 seed=seed, unique=unique)
    return verify(pre, raw, b.name, build_s=build_s, wall_s=wall, unique_asked=unique,
                  presolve=stats)
