"""A deduction trace and a difficulty report as text (``--explain``, ``--difficulty``).

Rows and columns are numbered from 1 here, as a person counts them (the JSON keeps indices from
0); a cell is ``r3c7`` (row 3, column 7).
"""
from __future__ import annotations

from ..lines.explain import LEVELS, Explanation, GuessStep, LineStep, ProbeStep
from ..puzzle import BACKGROUND, Puzzle
from .text import colour_chars


def _value(puzzle: Puzzle, v: int) -> str:
    if v == BACKGROUND:
        return "empty"
    if puzzle.is_black_and_white:
        return "filled"
    return puzzle.colour_name(v)


def _n(k: int, one: str, many: str | None = None) -> str:
    return f"{k} {one if k == 1 else many or one + 's'}"


def _cell(i: int, j: int) -> str:
    return f"r{i + 1}c{j + 1}"


def _clue(puzzle: Puzzle, line) -> str:
    kind, idx = line
    clue = (puzzle.rows if kind == "row" else puzzle.columns)[idx]
    if not clue:
        return "0"
    if puzzle.is_black_and_white:
        return " ".join(str(b.length) for b in clue)
    return " ".join(f"{b.length}{puzzle.colour_name(b.colour)[:1]}" for b in clue)


def _spans(nums: list[int]) -> str:
    """1-based positions as ``3-5, 8``."""
    out, start, prev = [], None, None
    for n in sorted(nums) + [None]:
        if start is not None and (n is None or prev is None or n != prev + 1):
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = None
        if n is not None and start is None:
            start = n
        prev = n
    return ", ".join(out)


def _what(puzzle: Puzzle, step: LineStep) -> str:
    """'columns 3-5 filled, column 9 empty' for a row (rows for a column)."""
    other = "column" if step.line[0] == "row" else "row"
    by: dict[int, list[int]] = {}
    for i, j, v in step.cells:
        by.setdefault(v, []).append((j if other == "column" else i) + 1)
    parts = []
    for v in sorted(by, key=lambda v: (v == BACKGROUND, v)):
        pos = by[v]
        parts.append(f"{other}{'s' if len(pos) > 1 else ''} {_spans(pos)} {_value(puzzle, v)}")
    return ", ".join(parts)


def line_text(puzzle: Puzzle, step: LineStep) -> str:
    kind, idx = step.line
    n = step.placements
    if n is None:
        fit = ": every placement that fits gives "
    elif n == 1:
        fit = ": its only placement that fits gives "
    else:
        fit = f": all {n} placements that fit give "
    return f"{kind} {idx + 1} [{_clue(puzzle, step.line)}]{fit}{_what(puzzle, step)}"


def step_text(puzzle: Puzzle, step, *, chain: bool = True) -> list[str]:
    """One step as lines of text (a probe's chain indented below it)."""
    if isinstance(step, LineStep):
        return [line_text(puzzle, step)]
    if isinstance(step, ProbeStep):
        i, j, v = step.assume
        (_, _, w), = step.cells
        kind, idx = step.contradiction
        out = [f"probe {_cell(i, j)}: if it were {_value(puzzle, v)}, "
               f"{_n(len(step.chain), 'line step')} would leave {kind} {idx + 1} "
               f"[{_clue(puzzle, step.contradiction)}] no placement, so {_cell(i, j)} is "
               f"{_value(puzzle, w)}"]
        if chain:
            out += ["    then " + line_text(puzzle, s) for s in step.chain]
            out.append(f"    then {kind} {idx + 1} has no placement")
        return out
    assert isinstance(step, GuessStep)
    (i, j, v), = step.cells
    return [f"guess {_cell(i, j)} {_value(puzzle, v)} ({step.reason})"]


def explanation_text(puzzle: Puzzle, ex: Explanation) -> str:
    out = []
    for k, step in enumerate(ex.steps, 1):
        first, *rest = step_text(puzzle, step)
        out.append(f"{k:>4}. {first}")
        out.extend("      " + r for r in rest)
    if ex.contradiction is not None:
        kind, idx = ex.contradiction
        out.append(f"      then {kind} {idx + 1} [{_clue(puzzle, ex.contradiction)}] has no "
                   "placement: the puzzle has no solution")
    elif ex.status.value == "unknown":
        out.append("      (the explanation stopped at the time limit)")
    return "\n".join(out)


LEGEND = ("#/. decided by line logic alone; @/: (filled/empty) decided after line logic first "
          "ran out; P a probe's cell, G a guess")


def difficulty_text(puzzle: Puzzle, ex: Explanation) -> str:
    d = ex.difficulty
    if ex.status.value != "solved":
        why = ("the puzzle has no solution" if ex.status.value == "infeasible"
               else f"the explanation stopped at the time limit after {len(ex.steps)} steps")
        return f"difficulty: not rated ({why})"
    out = [f"difficulty: level {d.level if d.level is not None else '-'} of 5 ({d.label})",
           f"line-solvable: {'yes' if d.line_solvable else 'no'}; {_n(d.line_steps, 'line step')}, "
           f"{_n(d.probe_steps, 'probe')} (longest chain {d.max_chain}), "
           f"{_n(d.guesses, 'guess', 'guesses')}; "
           f"{len(d.beyond_lines)} of {puzzle.height * puzzle.width} cells need more than "
           "line logic"]
    if d.beyond_lines:
        chars = colour_chars(puzzle)
        beyond = set(d.beyond_lines)
        probe, guess = set(d.by_probe), set(d.by_guess)
        assert ex.grid is not None  # solved (checked above): the grid is there
        for i, row in enumerate(ex.grid):
            line = []
            for j, v in enumerate(row):
                if (i, j) in probe:
                    line.append("P")
                elif (i, j) in guess:
                    line.append("G")
                elif (i, j) in beyond:
                    line.append(":" if v == BACKGROUND else "@")
                else:
                    line.append(chars.get(v, "?") if not puzzle.is_black_and_white
                                else "." if v == BACKGROUND else "#")
            out.append("".join(line))
        out.append(LEGEND)
    out.append("scale: " + "; ".join(f"{k} {v}" for k, v in LEVELS.items()))
    return "\n".join(out)
