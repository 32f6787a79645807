"""The order-encoding builder (seed 001) and its decoder.

Per line and block k: binary ``a[k,p] = 1`` iff block k starts at or before ``e_k + p``
(``0 <= p < d``), monotone ``a[k,p] <= a[k,p+1]``, ordering ``a[k+1,p] <= a[k,p]``, and the cell
links ``R[i,j] = x[i,j] = C[i,j]`` (or ``R[i,j] = C[i,j]`` without x). The gap after a block is 1
before a block of the same colour and 0 before another colour, so colour puzzles use the same
encoding; black and white is the one-colour case.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .model import Model, Sense
from .puzzle import BACKGROUND, Clue, Grid, Puzzle, gaps, line_runs

ROW, COL = "row", "col"


@dataclass(frozen=True)
class LineEncoding:
    """The order encoding of one row or column."""
    kind: str                     # "row" or "col"
    index: int
    length: int                   # n, cells in the line
    clue: Clue
    starts: tuple[int, ...]       # e_k, left-packed start of block k
    free: int                     # d, free space
    var: tuple[tuple[int, ...], ...]  # var[k][p] = model variable index of a[k,p]

    def colour_terms(self, colour: int, j: int) -> tuple[dict[int, int], int]:
        """B_c(j) = sum over blocks k of colour c of A_k(j) - A_k(j - L_k), as
        ``({var: coef}, constant)``, where A_k(j) is 0 before e_k, a[k, j - e_k] up to e_k + d - 1
        and 1 after. Only blocks that can cover j contribute."""
        coefs: dict[int, int] = {}
        const = 0
        d = self.free
        for k, b in enumerate(self.clue):
            if b.colour != colour:
                continue
            p = j - self.starts[k]
            if p < 0 or p >= d + b.length:  # A_k(j) - A_k(j - L_k) is 0 here
                continue
            if p >= d:
                const += 1
            else:
                v = self.var[k][p]
                coefs[v] = coefs.get(v, 0) + 1
            q = p - b.length
            if q >= d:
                const -= 1
            elif q >= 0:
                v = self.var[k][q]
                coefs[v] = coefs.get(v, 0) - 1
        return coefs, const

    def reachable(self, colour: int, j: int) -> bool:
        """Whether some placement paints cell j with this colour."""
        return any(b.colour == colour and self.starts[k] <= j < self.starts[k] + self.free + b.length
                   for k, b in enumerate(self.clue))

    def cells(self, values: np.ndarray) -> list[int]:
        """The line's cell colours read from the a-variables of an assignment."""
        out = [BACKGROUND] * self.length
        for k, b in enumerate(self.clue):
            shift = self.free - sum(int(values[v]) for v in self.var[k])  # zeros before the ones
            s = self.starts[k] + shift
            for j in range(s, min(s + b.length, self.length)):
                out[j] = b.colour
        return out

    def encode(self, cells: Sequence[int]) -> dict[int, int]:
        """a-variable values for a line that shows exactly its clue."""
        runs = line_runs(cells)
        if runs != self.clue:
            raise ValueError(f"{self.kind} {self.index} does not match its clue")
        out, k, j = {}, 0, 0
        n = len(cells)
        starts = []
        while j < n:
            if cells[j] != BACKGROUND and (j == 0 or cells[j - 1] != cells[j]):
                starts.append(j)
                j += self.clue[len(starts) - 1].length
                continue
            j += 1
        for k, s in enumerate(starts):
            for p, v in enumerate(self.var[k]):
                out[v] = int(s <= self.starts[k] + p)
        return out


@dataclass(frozen=True)
class NonogramModel:
    """The backend-neutral model of a puzzle plus what is needed to read a grid back."""
    puzzle: Puzzle
    model: Model
    use_x: bool
    rows: tuple[LineEncoding, ...]
    cols: tuple[LineEncoding, ...]
    cell_vars: dict = field(default_factory=dict)  # (i, j) -> {colour: var index}

    @property
    def a_variables(self) -> int:
        return sum(len(v) for line in self.rows + self.cols for v in line.var)

    @property
    def x_variables(self) -> int:
        return sum(len(c) for c in self.cell_vars.values())

    def decode(self, assignment) -> Grid:
        """Grid from an assignment: x when present, else the rows' a-variables."""
        values = self.model.as_array(assignment)
        if self.use_x:
            grid = []
            for i in range(self.puzzle.height):
                row = []
                for j in range(self.puzzle.width):
                    colour = BACKGROUND
                    for c, v in self.cell_vars.get((i, j), {}).items():
                        if values[v]:
                            colour = c
                            break
                    row.append(colour)
                grid.append(tuple(row))
            return tuple(grid)
        return tuple(tuple(line.cells(values)) for line in self.rows)

    def encode(self, grid: Grid) -> np.ndarray:
        """The assignment of a solution grid (raises ValueError if a line breaks its clue)."""
        values = np.zeros(self.model.num_variables, dtype=np.int8)
        for line in self.rows:
            for v, val in line.encode(grid[line.index]).items():
                values[v] = val
        for line in self.cols:
            for v, val in line.encode([grid[i][line.index] for i in range(self.puzzle.height)]).items():
                values[v] = val
        for (i, j), cv in self.cell_vars.items():
            for c, v in cv.items():
                values[v] = int(grid[i][j] == c)
        return values

    def blocking_variables(self) -> list[int]:
        """Variables whose values determine the grid: excluding a solution on them excludes its grid."""
        if self.use_x:
            return [v for cv in self.cell_vars.values() for v in cv.values()]
        return [v for line in self.rows for vs in line.var for v in vs]


def _encode_line(model: Model, kind: str, index: int, clue: Clue, n: int) -> LineEncoding:
    g = gaps(clue)
    starts, e = [], 0
    for k, b in enumerate(clue):
        starts.append(e)
        e += b.length + (g[k] if k < len(g) else 0)
    free = n - e if clue else 0
    if free < 0:
        raise ValueError(f"{kind} {index}: clue does not fit")
    var = tuple(tuple(model.add_var(("a", kind, index, k, p)).index for p in range(free))
                for k in range(len(clue)))
    for k in range(len(clue)):
        for p in range(free - 1):  # a[k,p] <= a[k,p+1]
            model.add_pair("monotone", ("monotone", kind, index, k, p), var[k][p], var[k][p + 1])
    for k in range(len(clue) - 1):
        for p in range(free):  # a[k+1,p] <= a[k,p]
            model.add_pair("order", ("order", kind, index, k, p), var[k + 1][p], var[k][p])
    return LineEncoding(kind, index, n, clue, tuple(starts), free, var)


def build_model(puzzle: Puzzle, *, use_x: bool = True) -> NonogramModel:
    """Build the order-encoded model of ``puzzle`` (seed 001).

    ``use_x=False`` links rows to columns directly (``R = C``), which halves the variables.
    """
    puzzle.validate()
    model = Model()
    h, w = puzzle.height, puzzle.width
    rows = tuple(_encode_line(model, ROW, i, puzzle.rows[i], w) for i in range(h))
    cols = tuple(_encode_line(model, COL, j, puzzle.columns[j], h) for j in range(w))
    bw = puzzle.is_black_and_white
    colours = puzzle.colours or (1,)
    cell_vars: dict[tuple[int, int], dict[int, int]] = {}
    for i in range(h):
        for j in range(w):
            for c in colours:
                (r_coefs, r_const) = rows[i].colour_terms(c, j)
                (c_coefs, c_const) = cols[j].colour_terms(c, i)
                tag = (i, j) if bw else (i, j, c)
                both = bw or (rows[i].reachable(c, j) and cols[j].reachable(c, i))
                if use_x and both:
                    x = model.add_var(("x",) + tag).index
                    cell_vars.setdefault((i, j), {})[c] = x
                    # R - x == 0 and C - x == 0, constants moved to the right-hand side
                    model.add_terms("link", ("link", ROW) + tag, {**r_coefs, x: -1}, Sense.EQ, -r_const)
                    model.add_terms("link", ("link", COL) + tag, {**c_coefs, x: -1}, Sense.EQ, -c_const)
                else:
                    diff = dict(r_coefs)
                    for v, a in c_coefs.items():
                        diff[v] = diff.get(v, 0) - a
                    model.add_terms("link", ("link",) + tag, diff, Sense.EQ, c_const - r_const)
    return NonogramModel(puzzle, model, use_x, rows, cols, cell_vars)
