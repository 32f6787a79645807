"""The cell links every encoding shares: the colour each row and each column gives a cell,
tied together through the cell variables x (``R = x = C``) or directly (``R = C``).

The order encoding builds its links in bulk (:mod:`formulations.model.order`); the other
encodings call :func:`add_links` with lines that offer ``cell_terms(colour)`` (per cell,
``({var: coef}, constant)``) and ``reachable_cells(colour)``. Labels, variable order and the
choice of x variables are the order encoding's, so every encoding has the same x variables and
link labels.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..puzzle import BACKGROUND, Clue, Puzzle, gaps, line_runs
from .linear import Model, Sense

ROW, COL = "row", "col"


def packed_starts(clue: Clue, n: int, kind: str, index: int) -> tuple[list[int], int]:
    """Each block's leftmost start (the blocks packed to the left, ``e_k``) and the line's free
    space; ValueError when the clue does not fit its ``n`` cells."""
    g = gaps(clue)
    starts, e = [], 0
    for k, b in enumerate(clue):
        starts.append(e)
        e += b.length + (g[k] if k < len(g) else 0)
    free = n - e if clue else 0
    if free < 0:
        raise ValueError(f"{kind} {index}: clue does not fit")
    return starts, free


def block_starts(cells: Sequence[int], clue: Clue, kind: str, index: int) -> list[int]:
    """Where each block of a line that shows exactly its clue starts; ValueError otherwise."""
    if line_runs(cells) != clue:
        raise ValueError(f"{kind} {index} does not match its clue")
    return [j for j, v in enumerate(cells) if v != BACKGROUND and (j == 0 or cells[j - 1] != v)]


def reachable_cells(clue: Clue, starts: Sequence[int], free: int, colour: int,
                    n: int) -> list[bool]:
    """Whether some placement of the line's blocks paints each of its ``n`` cells ``colour``."""
    out = [False] * n
    for k, b in enumerate(clue):
        if b.colour == colour:
            s = starts[k]
            out[s:s + free + b.length] = [True] * (free + b.length)
    return out


def add_links(model: Model, puzzle: Puzzle, rows: Sequence[Any], cols: Sequence[Any],
              use_x: bool) -> dict[tuple[int, int], dict[int, int]]:
    """Add the x variables (after every line variable) and the link equalities; returns the
    cell variables, ``(i, j) -> {colour: x index}``."""
    h, w = puzzle.height, puzzle.width
    bw = puzzle.is_black_and_white
    colours = puzzle.colours or (1,)
    row_terms = {c: [line.cell_terms(c) for line in rows] for c in colours}
    col_terms = {c: [line.cell_terms(c) for line in cols] for c in colours}
    row_reach = {c: [line.reachable_cells(c) for line in rows] for c in colours} if not bw else {}
    col_reach = {c: [line.reachable_cells(c) for line in cols] for c in colours} if not bw else {}
    links: list[tuple[tuple, dict[int, int], int]] = []
    x_labels: list[tuple] = []
    cell_vars: dict[tuple[int, int], dict[int, int]] = {}
    next_x = model.num_variables
    for i in range(h):
        for j in range(w):
            for c in colours:
                r_terms, r_const = row_terms[c][i][j]
                c_terms, c_const = col_terms[c][j][i]
                tag = (i, j) if bw else (i, j, c)
                if use_x and (bw or (row_reach[c][i][j] and col_reach[c][j][i])):
                    x = next_x
                    next_x += 1
                    x_labels.append(("x",) + tag)
                    cell_vars.setdefault((i, j), {})[c] = x
                    links.append((("link", ROW) + tag, {**r_terms, x: -1}, -r_const))  # R - x = 0
                    links.append((("link", COL) + tag, {**c_terms, x: -1}, -c_const))  # C - x = 0
                else:  # R - C = 0
                    coefs = dict(r_terms)
                    for v, a in c_terms.items():
                        coefs[v] = coefs.get(v, 0) - a
                    links.append((("link",) + tag, coefs, c_const - r_const))
    model.add_vars(x_labels)
    for label, coefs, rhs in links:
        model.add_terms("link", label, coefs, Sense.EQ, rhs)
    return cell_vars
