"""Puzzle -> text, in the two formats the readers take back losslessly.

Kept apart from the readers so that writing never drags in the parsing machinery, and so the
round-trip tests exercise two independent pieces of code.
"""
from __future__ import annotations

import html
import re

from ..puzzle import BLACK, Block, Grid, Puzzle, PuzzleError
from .colours import distinct_rgb

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
    """Names are free text; a line break would end the header line early. Only the breaks the
    readers split on (CR, LF): ``str.splitlines`` would also eat characters like U+0085."""
    return " ".join(re.split(r"\r\n|\r|\n", s)).strip()


def write_text(puzzle: Puzzle) -> str:
    """The project's own text format: optional ``TITLE``, ``ROWS``, row clues, ``COLUMNS``,
    column clues. Empty clues are written as ``0`` (not blank) so trailing empty lines survive
    the reader, which drops blank lines at the end of a file.

    A colour puzzle also gets one ``COLOUR letter name #rrggbb`` line per colour index from 2
    up to the highest one (the reader numbers colours in declaration order, so none may be
    skipped) and blocks like ``3r``; black blocks carry no letter. What the format cannot hold:
    the names and codes of black and the background, and ``#`` in colour names."""
    out: list[str] = []
    if puzzle.name:
        out.append(f"TITLE {_one_line(puzzle.name)}")
    letters: dict[int, str] = {}
    if not puzzle.is_black_and_white:
        entries = _colour_entries(puzzle)
        letters = _pick_letters(entries, dict(puzzle.letters))
        for idx, (name, rgb) in entries.items():
            out.append(" ".join(x for x in ("COLOUR", letters[idx], name, rgb) if x))
    out.append("ROWS")
    out.extend(_clue_text(c, " ", letters) for c in puzzle.rows)
    out.append("COLUMNS")
    out.extend(_clue_text(c, " ", letters) for c in puzzle.columns)
    return "\n".join(out) + "\n"


def _colour_entries(puzzle: Puzzle) -> dict[int, tuple[str, str]]:
    """Colour index (2..highest) -> (name, "#rrggbb" or ""), as the text format writes them."""
    pal = {idx: (name, rgb) for idx, name, rgb in puzzle.palette}
    top = max([*puzzle.colours, *pal])
    used = {rgb.lower() for _, rgb in pal.values()}
    out: dict[int, tuple[str, str]] = {}
    for idx in range(NON_FIRST_LETTER_INDEX, top + 1):
        name, rgb = pal.get(idx, (f"colour{idx}", ""))
        name = " ".join(name.replace("#", " ").split())
        rgb = rgb.lower() if re.fullmatch(r"#[0-9a-fA-F]{6}", rgb or "") else ""
        if idx not in pal:
            rgb = distinct_rgb(used)
            used.add(rgb)
        out[idx] = (name, rgb)
    if len(out) > len(NON_LETTERS):
        raise PuzzleError(f"the text format holds at most {len(NON_LETTERS)} colours besides "
                          f"black, this puzzle has {len(out)}")
    return out


def _pick_letters(entries: dict[int, tuple[str, str]],
                  own: dict[int, str] | None = None) -> dict[int, str]:
    """A unique letter per colour: the puzzle's own (``Puzzle.letters``, as read), else from
    its name where possible (``red`` -> ``r``)."""
    taken: set[str] = set()
    out: dict[int, str] = {}
    for idx, letter in (own or {}).items():
        if idx in entries and letter in NON_LETTERS and letter not in taken:
            out[idx] = letter
            taken.add(letter)
    for idx, (name, _) in entries.items():
        if idx in out:
            continue
        pick = next(ch for ch in name.lower() + NON_LETTERS
                    if ch in NON_LETTERS and ch not in taken)
        out[idx] = pick
        taken.add(pick)
    return out


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


def _clue_text(clue: tuple[Block, ...], sep: str, letters: dict[int, str] | None = None) -> str:
    if not clue:
        return "0"
    letters = letters or {}
    return sep.join(f"{b.length}{'' if b.colour == BLACK else letters[b.colour]}" for b in clue)


def _clue_non(clue: tuple[Block, ...]) -> str:
    return ",".join(f"{b.length}{non_letter(b.colour)}" for b in clue) if clue else "0"
