"""The classical reference: line solving to a fixed point, probing and search (seeds 000, 003, 004,
and pbnsolve's way of searching).

It works on the puzzle, not on a model: no model is built for it (``uses_model=False``), its
grids go straight to the clue checker, and since line solving is its first step ``presolve``
asks it for nothing more.
"""
from __future__ import annotations

import time

from formulations.lines import solve_lines
from formulations.lines.search import CDCL_AFTER, DEFAULT_GUESS, GUESS_RULES
from formulations.puzzle import Puzzle
from formulations.runtime.clock import NO_DEADLINE, Deadline
from formulations.results import BackendError, RawAnswer, Status

from .base import Backend


def solve(puzzle: Puzzle, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None,
          unique: bool = False, guess: str = DEFAULT_GUESS, probing: bool = True,
          sprints: bool = False, backjump: bool = False,
          cdcl_after: int = CDCL_AFTER, compiled: bool = True,
          compiled_probes: int | None = None, residual: str = "") -> RawAnswer:
    if guess not in GUESS_RULES:
        raise BackendError(f"guess must be one of {', '.join(GUESS_RULES)}, got {guess!r}")
    if residual:
        from formulations.lines.cdcl import NAMED_MODES  # only when asked: not at start-up

        if residual not in NAMED_MODES:
            raise BackendError(f"residual must be one of {', '.join(sorted(NAMED_MODES))}, "
                               f"got {residual!r}")
    t0 = time.perf_counter()
    res = solve_lines(puzzle, max_solutions=2 if unique else 1, time_limit=deadline,
                      probing=probing, guess=guess, sprints=sprints, backjump=backjump,
                      cdcl_after=None if cdcl_after < 0 else cdcl_after, compiled=compiled,
                      compiled_probes=compiled_probes, residual=residual or None)
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
    return RawAnswer(Status.SOLVED, grids=res.solutions, solve_s=solve_s, proven_unique=proven,
                     info=info)


BACKENDS = [
    Backend(
        name="lines",
        description="line solving to a fixed point, probing at every node and depth-first search "
                    "(compiled line core; compiled search for black-and-white puzzles, Python search "
                    "otherwise; complete: proves infeasible/unique)",
        solve_fn=solve,
        requires=(),
        options={"guess": str, "probing": bool, "sprints": bool, "backjump": bool,
                 "cdcl_after": int, "compiled": bool, "compiled_probes": int,
                 # how the CDCL fallback solves the residual (formulations.lines.cdcl.NAMED_MODES);
                 # order-cadical-stable-all-worker-bp-turns decides Knotty and Faase with --unique
                 "residual": str},
        supports_unique=True,
        uses_model=False,
        presolves=True,
        reproducible=True,
    ),
]
