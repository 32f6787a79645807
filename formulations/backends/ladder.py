"""Seed 000's solver ladder as backends: ``ladder:cell``, ``ladder:row``, ``ladder:propagate``.

The rungs work on the puzzle (black and white only, as in the seed), not on the model, so the
pipeline builds no model for them and checks their grids against the clues directly.
"""
from __future__ import annotations

from typing import Any

from formulations.lines import ladder
from formulations.puzzle import Puzzle
from formulations.runtime.clock import NO_DEADLINE, Deadline
from formulations.results import BackendError, RawAnswer, Status

from .base import Backend

PREFIX = "ladder"
DEFAULT_BUDGET_S = 5.0
"""Without a time limit a rung gets the seed's own test budget (5000 ms) and reports unknown
past it, the seed's "N/A": cell backtracking on the 15x15 cat would run for many minutes."""


def _solver(rung: str):
    def solve(puzzle: Puzzle, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None,
              unique: bool = False) -> RawAnswer:
        left = deadline.left()
        budget = DEFAULT_BUDGET_S if left is None else left
        res = ladder.solve(puzzle, rung, budget)
        info: dict[str, Any] = {"nodes": res.nodes, "budget_s": budget}
        if res.status is Status.SOLVED:
            assert res.grid is not None  # a solved run carries its grid
            return RawAnswer(Status.SOLVED, grids=(res.grid,), solve_s=res.elapsed_s,
                             message=f"{res.nodes} nodes", info=info)
        message = f"{res.nodes} nodes"
        if res.status is Status.UNKNOWN:
            message += (f", budget spent: the seed's default of {DEFAULT_BUDGET_S:g} s, a time "
                        "limit gives another" if left is None else ", budget spent")
        return RawAnswer(res.status, solve_s=res.elapsed_s, message=message, info=info)
    return solve


def resolve(name: str) -> Backend:
    """The backend for ``ladder:RUNG``; an unknown rung lists the valid ones."""
    rung = name.split(":", 1)[1]
    if rung not in ladder.RUNGS:
        raise BackendError(f"unknown ladder rung '{name}', choose from "
                           + ", ".join(f"{PREFIX}:{r}" for r in ladder.RUNGS))
    return Backend(name, f"seed 000's {ladder.RUNG_TITLES[rung]} (black and white only; "
                   f"{DEFAULT_BUDGET_S:g} s unless given a time limit)",
                   _solver(rung), uses_model=False, reproducible=True)


def names() -> list[str]:
    return [f"{PREFIX}:{r}" for r in ladder.RUNGS]
