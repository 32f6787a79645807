"""Showing a grid as text: one character per colour with a legend, ANSI colour on a terminal.

Black and white keeps the familiar ``#`` and ``.``; other colours keep the letter the file gave
them (``COLOUR b navy`` is ``b``), or get the first free letter of their name, so a legend is
short and readable.
"""
from __future__ import annotations

from ..puzzle import BACKGROUND, BLACK, Grid, Puzzle


def colour_chars(puzzle: Puzzle) -> dict[int, str]:
    """Colour index -> one display character: ``.`` background, ``#`` black, letters otherwise."""
    chars = {BACKGROUND: ".", BLACK: "#"}
    used = set(chars.values())
    for idx, letter in puzzle.letters:  # the file's own letters first
        if idx not in chars and letter.isalnum() and letter.lower() not in used:
            chars[idx] = letter.lower()
            used.add(letter.lower())
    for idx, name, _ in sorted(puzzle.palette):
        if idx in chars:
            continue
        pick = next((ch for ch in (name or "") + "abcdefghijklmnopqrstuvwxyz0123456789"
                     if ch.isalnum() and ch.lower() not in used), "?")
        chars[idx] = pick.lower()
        used.add(pick.lower())
    for c in puzzle.colours:  # colours used in clues but missing from the palette
        if c not in chars:
            chars[c] = next(ch for ch in "abcdefghijklmnopqrstuvwxyz" if ch not in used)
            used.add(chars[c])
    return chars


def rgb(puzzle: Puzzle, colour: int) -> tuple[int, int, int]:
    for idx, _, hexcode in puzzle.palette:
        if idx == colour and hexcode:
            h = hexcode.lstrip("#")
            try:
                return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
            except ValueError:
                break
    return (255, 255, 255) if colour == BACKGROUND else (0, 0, 0) if colour == BLACK else (128, 128, 128)


def grid_lines(puzzle: Puzzle, grid: Grid) -> list[str]:
    chars = colour_chars(puzzle)
    return ["".join(chars.get(v, "?") for v in row) for row in grid]


def legend(puzzle: Puzzle) -> dict[str, str]:
    """Display character -> colour name, for the colours the clues use (plus background)."""
    chars = colour_chars(puzzle)
    return {chars[c]: puzzle.colour_name(c) for c in (BACKGROUND, *puzzle.colours)}


def render_text(puzzle: Puzzle, grid: Grid, *, ansi: bool = False) -> str:
    """The grid as text; with ``ansi`` each cell is painted in its palette colour."""
    lines = grid_lines(puzzle, grid)
    if ansi:
        painted = []
        for row, text in zip(grid, lines):
            cells = []
            for v, ch in zip(row, text):
                r, g, b = rgb(puzzle, v)
                fg = "30" if r * 299 + g * 587 + b * 114 > 128000 else "97"
                cells.append(f"\x1b[48;2;{r};{g};{b}m\x1b[{fg}m{ch}\x1b[0m")
            painted.append("".join(cells))
        lines = painted
    if not puzzle.is_black_and_white:
        lines.append("legend: " + "  ".join(f"{ch} {name}" for ch, name in legend(puzzle).items()))
    return "\n".join(lines)
