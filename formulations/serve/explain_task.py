"""The ``explain`` task of the web solver (``POST /api/explain``): the line engine's deduction
trace and difficulty report for the page's step-through, "Why?", Hint and the Draw view's report
(issue 43). Runs in a task worker like parse and hint."""
from __future__ import annotations

from typing import Any

from formulations.io.read import parse_puzzle_with_goal
from formulations.lines.explain import explain

MAX_CELLS = 250_000
"""Puzzles larger than this are not explained (the trace's JSON grows with the cells)."""


def task_explain(job: dict[str, Any]) -> dict[str, Any]:
    """The explanation object of ``--json`` (steps, difficulty, status) for the puzzle text,
    cut at ``job["limit"]`` seconds (then its status is ``unknown``)."""
    puzzle, _ = parse_puzzle_with_goal(job["text"], job.get("format"), job["name"])
    if puzzle.height * puzzle.width > MAX_CELLS:
        return {"error": f"the puzzle has {puzzle.height * puzzle.width:,} cells; this server "
                         f"explains at most {MAX_CELLS:,}"}
    ex = explain(puzzle, time_limit=job.get("limit"))
    return {"explanation": ex.to_json(), "height": puzzle.height, "width": puzzle.width}
