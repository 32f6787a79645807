"""Puzzle -> text, in the two formats the readers take back losslessly.

Kept apart from the readers so that writing never drags in the parsing machinery, and so the
round-trip tests exercise two independent pieces of code.
"""
from __future__ import annotations

import html

from .puzzle import BLACK, Block, Grid, Puzzle, PuzzleError

# .non colour letters: colour index k >= 2 is written as letter chr(ord("a") + k - 2); black (1)
# carries no letter. The reader uses the same rule, so indices survive a round trip.
NON_FIRST_LETTER_INDEX = 2
NON_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def non_letter(colour: int) -> str:
    """The .non colour letter for a colour index ('' for black)."""
    if colour == BLACK:
        return ""
    k = colour - NON_FIRST_LETTER_INDEX
    if not 0 <= k < len(NON_LETTERS):
        raise PuzzleError(f"colour index {colour} has no .non letter (only 1..27 can be written)")
    return NON_LETTERS[k]


def non_colour(letter: str) -> int:
    """The colour index of a .non colour letter."""
    return NON_LETTERS.index(letter) + NON_FIRST_LETTER_INDEX


def _one_line(s: str) -> str:
    """Names are free text; a line break would end the header line early."""
    return " ".join(s.splitlines()).strip()


def write_text(puzzle: Puzzle) -> str:
    """The project's own text format: optional ``TITLE``, ``ROWS``, row clues, ``COLUMNS``,
    column clues. Empty clues are written as ``0`` (not blank) so trailing empty lines survive
    the reader, which drops blank lines at the end of a file."""
    if not puzzle.is_black_and_white:
        raise PuzzleError("the text format holds black-and-white puzzles only; use write_non")
    out: list[str] = []
    if puzzle.name:
        out.append(f"TITLE {_one_line(puzzle.name)}")
    out.append("ROWS")
    out.extend(_clue_text(c, " ") for c in puzzle.rows)
    out.append("COLUMNS")
    out.extend(_clue_text(c, " ") for c in puzzle.columns)
    return "\n".join(out) + "\n"


def write_non(puzzle: Puzzle, goal: Grid | None = None) -> str:
    """Steve Simpson's ``.non`` (mikix's extended variant: colour letters, ``goal``).

    Colours other than black are written as letters with a ``color`` line each, taken from
    the palette; palette names are not kept by the format."""
    out: list[str] = []
    if puzzle.name:
        out.append(f'title "{html.escape(_one_line(puzzle.name), quote=True)}"')
    out.append(f"width {puzzle.width}")
    out.append(f"height {puzzle.height}")
    used = set(puzzle.colours)
    for idx, _name, rgb in puzzle.palette:
        if idx > BLACK and idx in used:
            out.append(f"color {non_letter(idx)} {rgb}")
    out += ["", "rows"]
    out.extend(_clue_non(c) for c in puzzle.rows)
    out += ["", "columns"]
    out.extend(_clue_non(c) for c in puzzle.columns)
    if goal is not None:
        if len(goal) != puzzle.height or any(len(r) != puzzle.width for r in goal):
            raise PuzzleError(f"goal grid is not {puzzle.height}x{puzzle.width}")
        cells = "".join("0" if v == 0 else ("1" if v == BLACK else non_letter(v))
                        for row in goal for v in row)
        out += ["", f'goal "{cells}"']
    return "\n".join(out) + "\n"


def _clue_text(clue: tuple[Block, ...], sep: str) -> str:
    return sep.join(str(b.length) for b in clue) if clue else "0"


def _clue_non(clue: tuple[Block, ...]) -> str:
    return ",".join(f"{b.length}{non_letter(b.colour)}" for b in clue) if clue else "0"
