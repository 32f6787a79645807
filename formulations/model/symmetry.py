"""Symmetries of the clues: the flips and rotations of the grid that map every clue onto a clue.

When the clues are invariant under a symmetry of the grid, that symmetry maps solutions to
solutions, and a designed picture is often invariant itself. Asking first for a solution that
is invariant too (the cells of each orbit equal) is a much smaller problem: Knotty (Wolter's
survey, 40x40), which no published solver and no plain CP-SAT run here decided, has clues
invariant under the rotation by 90 degrees, and CP-SAT finds a grid of it in seconds once the
rotation's equalities are posted (``formulations/backends/cpsat.py``, option ``clue_symmetry``). A grid so
found is a solution of the puzzle like any other (the clues hold, every answer is checked); when
no invariant solution exists the restricted problem is infeasible and the search goes on without
it.

Symmetries act on the *clued box*: the rows and columns between the first and the last line
with a non-empty clue (empty outer lines are background in every solution), so that a picture
drawn off-centre in its grid still counts. Rotations by 90 degrees and the two transposes need
a square box. Colour clues must map block by block, colours included.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..puzzle import Clue, Puzzle

Expr = tuple[dict[int, int], int]  # ({var: coef}, constant)

NAMES = ("flip rows", "flip columns", "rotate 180", "transpose", "anti-transpose", "rotate 90")
"""The symmetries looked for (``rotate 90`` stands for its group: 90, 180 and 270 degrees)."""


@dataclass(frozen=True)
class Symmetry:
    """One symmetry of the clued box ``rows [r0, r1) x columns [c0, c1)``."""
    name: str
    box: tuple[int, int, int, int]

    def image(self, i: int, j: int) -> tuple[int, int]:
        """The cell that (i, j) of the box is mapped to."""
        r0, r1, c0, c1 = self.box
        t, u = i - r0, j - c0
        h, w = r1 - r0, c1 - c0
        t, u = {
            "flip rows": lambda: (h - 1 - t, u),
            "flip columns": lambda: (t, w - 1 - u),
            "rotate 180": lambda: (h - 1 - t, w - 1 - u),
            "transpose": lambda: (u, t),
            "anti-transpose": lambda: (w - 1 - u, h - 1 - t),
            "rotate 90": lambda: (u, w - 1 - t),  # clockwise
        }[self.name]()
        return t + r0, u + c0


def _box(puzzle: Puzzle) -> tuple[int, int, int, int] | None:
    rows = [i for i, c in enumerate(puzzle.rows) if c]
    cols = [j for j, c in enumerate(puzzle.columns) if c]
    if not rows or not cols:
        return None
    return rows[0], rows[-1] + 1, cols[0], cols[-1] + 1


def _rev(clue: Clue) -> Clue:
    return tuple(reversed(clue))


def clue_symmetries(puzzle: Puzzle) -> tuple[Symmetry, ...]:
    """Every symmetry of :data:`NAMES` under which the clues map onto themselves."""
    box = _box(puzzle)
    if box is None:
        return ()
    r0, r1, c0, c1 = box
    R = [tuple(c) for c in puzzle.rows[r0:r1]]
    C = [tuple(c) for c in puzzle.columns[c0:c1]]
    h, w = len(R), len(C)
    holds = {
        # a flip of the rows keeps each column's reading order reversed and swaps the rows
        "flip rows": R == R[::-1] and all(c == _rev(c) for c in C),
        "flip columns": C == C[::-1] and all(r == _rev(r) for r in R),
        "rotate 180": all(R[t] == _rev(R[h - 1 - t]) for t in range(h))
        and all(C[u] == _rev(C[w - 1 - u]) for u in range(w)),
    }
    if h == w:
        holds["transpose"] = R == C
        holds["anti-transpose"] = all(R[t] == _rev(C[w - 1 - t]) for t in range(h))
        # rotated clockwise, row u is column u read upwards and column v is row h-1-v
        holds["rotate 90"] = all(R[u] == _rev(C[u]) for u in range(h)) \
            and all(C[v] == R[h - 1 - v] for v in range(w))
    return tuple(Symmetry(n, box) for n in NAMES if holds.get(n))


def orbit_pairs(syms: Sequence[Symmetry]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Cell pairs ``(a, b)``, ``a < b``, whose equality makes a grid invariant under every
    symmetry of ``syms``: one pair per cell and symmetry that moves it.

    Redundant on purpose (a rotation by 90 degrees and by 180 both tie a 4-cell orbit, six pairs
    where three would do): on Knotty CP-SAT found an invariant grid in 8 and 18 s (seeds 1, 2)
    with these 2,280 equalities, and none within 75 s with 1,140 (each cell tied to its orbit's
    first) or with the 1,520 of the rotation by 90 alone; a linear equality between two cells'
    expressions propagates little, so more of them propagate more."""
    out = set()
    for s in syms:
        r0, r1, c0, c1 = s.box
        for i in range(r0, r1):
            for j in range(c0, c1):
                b = s.image(i, j)
                if b != (i, j):
                    out.add(((i, j), b) if (i, j) < b else (b, (i, j)))
    return sorted(out)


def can_tie(nm: Any) -> bool:
    """Whether :func:`symmetry_equalities` can express ``nm``'s cells: the order encoding's own
    full model (not another encoding, not a presolved model)."""
    from .order import LineEncoding, NonogramModel

    return type(nm) is NonogramModel and getattr(nm, "encoding", "order") == "order" \
        and all(isinstance(line, LineEncoding) for line in nm.rows)


def symmetry_equalities(nm: Any, syms: Sequence[Symmetry] | None = None
                        ) -> list[tuple[tuple, Expr, Expr]]:
    """``(label, left, right)``: per orbit pair and colour, the two cells' colour indicators as
    the rows' own expressions (seed 001's ``R(j)``), to be posted ``left == right``. Empty when
    the clues have no symmetry or the model's lines are not the order encoding's own (another
    encoding, a presolved model)."""
    if not can_tie(nm):
        return []
    puzzle = nm.puzzle
    if syms is None:
        syms = clue_symmetries(puzzle)
    colours = puzzle.colours or (1,)
    out = []
    for (a, b) in orbit_pairs(syms):
        for c in colours:
            out.append((("symmetry", a, b, c), nm.rows[a[0]].colour_terms(c, a[1]),
                        nm.rows[b[0]].colour_terms(c, b[1])))
    return out
