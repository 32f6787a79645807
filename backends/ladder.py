"""Seed 000's solver ladder as backends: ``ladder:cell``, ``ladder:row``, ``ladder:propagate``.

The rungs work on the puzzle (black and white only, as in the seed), not on the model, so the
pipeline builds no model for them and checks their grids against the clues directly.
"""
from __future__ import annotations

from typing import Any

from formulations.lines import ladder
from formulations.puzzle import Puzzle
from formulations.results import BackendError, RawAnswer, Status

from .base import Backend

PREFIX = "ladder"


def _solver(rung: str):
    def solve(puzzle: Puzzle, *, time_limit: float | None = None, seed: int | None = None,
              unique: bool = False) -> RawAnswer:
        res = ladder.solve(puzzle, rung, time_limit)
        info: dict[str, Any] = {"nodes": res.nodes}
        if res.status is Status.SOLVED:
            return RawAnswer(Status.SOLVED, grids=(res.grid,), solve_s=res.elapsed_s,
                             message=f"{res.nodes} nodes", info=info)
        message = f"{res.nodes} nodes" + (", budget spent" if res.status is Status.UNKNOWN else "")
        return RawAnswer(res.status, solve_s=res.elapsed_s, message=message, info=info)
    return solve


def resolve(name: str) -> Backend:
    """The backend for ``ladder:RUNG``; an unknown rung lists the valid ones."""
    rung = name.split(":", 1)[1]
    if rung not in ladder.RUNGS:
        raise BackendError(f"unknown ladder rung '{name}', choose from "
                           + ", ".join(f"{PREFIX}:{r}" for r in ladder.RUNGS))
    return Backend(name, f"seed 000's {ladder.RUNG_TITLES[rung]} (black and white only)",
                   _solver(rung), uses_model=False, reproducible=True)


def names() -> list[str]:
    return [f"{PREFIX}:{r}" for r in ladder.RUNGS]
