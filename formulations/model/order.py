"""The order-encoding builder (seed 001) and its decoder.

Per line and block k: binary ``a[k,p] = 1`` iff block k starts at or before ``e_k + p``
(``0 <= p < d``), monotone ``a[k,p] <= a[k,p+1]``, ordering ``a[k+1,p] <= a[k,p]``, and the cell
links ``R[i,j] = x[i,j] = C[i,j]`` (or ``R[i,j] = C[i,j]`` without x). The gap after a block is 1
before a block of the same colour and 0 before another colour, so colour puzzles use the same
encoding; black and white is the one-colour case.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import repeat
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from ..puzzle import BACKGROUND, Clue, Grid, Puzzle, line_runs
from formulations.runtime.clock import NO_DEADLINE, Deadline
from .linear import Model, Sense
from .links import packed_starts, reachable_cells
from .size import DEFAULT_MAX_MODEL_MB, check_fits, estimate_size

ROW, COL = "row", "col"
Term = tuple[int, int]  # (variable index, coefficient)


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
        and 1 after. Only blocks that can cover j contribute.

        Seed 001's formula one cell at a time, kept as the readable reference: the builder uses
        :meth:`position_terms`, which tests check against this."""
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

    def position_terms(self, colour: int, sign: int = 1,
                       unit_terms: tuple[Sequence[Term] | Mapping[int, Term],
                                         Sequence[Term] | Mapping[int, Term]] | None = None,
                       ) -> list[tuple[tuple[Term, ...], int]]:
        """``sign * B_c(j)`` for every cell j of the line at once, as ``(terms, constant)`` with
        the terms sorted by variable index: the same values as :meth:`colour_terms`, in one pass
        over the blocks instead of one per cell.

        Block k adds ``+a[k, j - e_k]`` on ``[e_k, e_k + d)``, ``+1`` on ``[e_k + d, e_k + d + L_k)``
        and ``-a[k, j - e_k - L_k]`` on ``[e_k + L_k, e_k + L_k + d)``. Per cell, block k's minus
        term is on a smaller index than its plus term and all of block k's variables come before
        block k + 1's, so appending minus terms, then plus terms, block by block keeps each cell
        sorted. Nothing cancels: a variable enters each cell's terms at most once.

        ``unit_terms = (up, down)``, where ``up[v] == (v, 1)`` and ``down[v] == (v, -1)``, lets
        the cells share those tuples with other constraints instead of making new ones."""
        if unit_terms is None:
            line_vars = [v for vk in self.var for v in vk]
            unit_terms = {v: (v, 1) for v in line_vars}, {v: (v, -1) for v in line_vars}
        plus, minus = unit_terms if sign == 1 else unit_terms[::-1]
        terms: list[list[Term]] = [[] for _ in range(self.length)]
        const = [0] * self.length
        d = self.free
        for k, b in enumerate(self.clue):
            if b.colour != colour:
                continue
            s, length, vk = self.starts[k], b.length, self.var[k]
            for cell, v in zip(terms[s + length:s + length + d], vk):
                cell.append(minus[v])
            for cell, v in zip(terms[s:s + d], vk):
                cell.append(plus[v])
            for j in range(s + d, s + d + length):
                const[j] += sign
        return [(tuple(t), c) for t, c in zip(terms, const)]

    def decided(self, starts: Sequence[Sequence[int]]) -> dict[int, int]:
        """The a-variables fixed when block k can only start at one of ``starts[k]`` (sorted
        absolute positions, as line solving reports them): ``a[k,p]`` is 1 when every possible
        start is at or before ``e_k + p`` and 0 when every one is after it."""
        out: dict[int, int] = {}
        for k, ss in enumerate(starts):
            lo, hi = ss[0] - self.starts[k], ss[-1] - self.starts[k]
            for p, v in enumerate(self.var[k]):
                if p >= hi:
                    out[v] = 1
                elif p < lo:
                    out[v] = 0
        return out

    def reachable_cells(self, colour: int) -> list[bool]:
        """:meth:`reachable` for every cell of the line."""
        return reachable_cells(self.clue, self.starts, self.free, colour, self.length)

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
    """The backend-neutral model of a puzzle plus what is needed to read a grid back.

    ``rows`` and ``cols`` hold one encoded line each: a :class:`LineEncoding` for the order
    encoding, the line class of another encoding (``formulations.model.onehot``) otherwise.
    Every line class offers ``kind``, ``index``, ``clue``, ``starts``, ``free``, ``var``
    (``var[k]``: block k's variable indices), ``cells(values)``, ``encode(cells)`` and
    ``decided(starts)``, which is all this class and presolve use."""
    puzzle: Puzzle
    model: Model
    use_x: bool
    rows: tuple[LineEncoding, ...]
    cols: tuple[LineEncoding, ...]
    cell_vars: dict = field(default_factory=dict)  # (i, j) -> {colour: var index}
    encoding: str = "order"                        # a name of formulations.model.encodings

    @property
    def a_variables(self) -> int:
        """The line variables (``a`` here, ``s`` of the one-hot encoding): the model without x."""
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


def _encode_line(model: Model, kind: str, index: int, clue: Clue, n: int,
                 up: list[Term], down: list[Term]) -> LineEncoding:
    """Add a line's variables and its monotone and order constraints. ``up`` and ``down`` hold
    every variable's terms ``(v, 1)`` and ``(v, -1)`` so far and get this line's appended: built
    once, they are shared by all the constraints of a variable."""
    starts, free = packed_starts(clue, n, kind, index)
    # a line's variables are consecutive, block by block: a[k,p] is base + k * free + p
    blocks = len(clue)
    base = model.add_vars([("a", kind, index, k, p) for k in range(blocks) for p in range(free)]).start
    var = tuple(tuple(range(base + k * free, base + (k + 1) * free)) for k in range(blocks))
    # with v = base + k * free + p, a[k,p] - a[k,p+1] <= 0 has terms (up[v], down[v + 1]) and
    # a[k+1,p] - a[k,p] <= 0 has (down[v], up[v + free]), both sorted by index
    up += [(v, 1) for v in range(base, base + blocks * free)]
    down += [(v, -1) for v in range(base, base + blocks * free)]
    model.add_sorted("monotone", Sense.LE,  # a[k,p] <= a[k,p+1]
                     [("monotone", kind, index, k, p) for k in range(blocks) for p in range(free - 1)],
                     [(up[v], down[v + 1]) for k in range(blocks)
                      for v in range(base + k * free, base + (k + 1) * free - 1)],
                     repeat(0))
    model.add_sorted("order", Sense.LE,  # a[k+1,p] <= a[k,p] for every v < base + (blocks - 1) * free
                     [("order", kind, index, k, p) for k in range(blocks - 1) for p in range(free)],
                     zip(down[base:], up[base + free:]), repeat(0))
    return LineEncoding(kind, index, n, clue, tuple(starts), free, var)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (process-wide) during a build. A build allocates ~10^5
    long-lived tuples, none in a reference cycle, and the full collections they trigger cost
    about a third of the build time on large puzzles. The previous state is restored, so nested
    use and callers that keep the collector disabled are unaffected."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def build_from_lines(puzzle: Puzzle, use_x: bool, encode_line, encoding: str,
                     deadline: Deadline | float | None = None) -> NonogramModel:
    """The model of an encoding whose lines are built one by one (``encode_line(model, kind,
    index, clue, n)``) and tied by the shared cell links (:func:`.links.add_links`); the
    deadline is read before every line."""
    from .links import COL, ROW, add_links

    puzzle.validate()
    clock = Deadline.of(deadline)

    def line(kind: str, index: int, clue, n: int):
        clock.check(f"building the {encoding} model")
        return encode_line(model, kind, index, clue, n)

    with _gc_paused():
        model = Model()
        h, w = puzzle.height, puzzle.width
        rows = tuple(line(ROW, i, puzzle.rows[i], w) for i in range(h))
        cols = tuple(line(COL, j, puzzle.columns[j], h) for j in range(w))
        cell_vars = add_links(model, puzzle, rows, cols, use_x)
        return NonogramModel(puzzle, model, use_x, rows, cols, cell_vars, encoding)


def build_model(puzzle: Puzzle, *, use_x: bool = True, deadline: Deadline | float | None = None,
                max_model_mb: float | None = DEFAULT_MAX_MODEL_MB) -> NonogramModel:
    """Build the order-encoded model of ``puzzle`` (seed 001).

    ``use_x=False`` links rows to columns directly (``R = C``), which halves the variables.
    ``deadline`` (a :class:`~formulations.runtime.clock.Deadline` or seconds) bounds the build: it stops
    with OutOfTime, or is refused up front when its size says it cannot end in time; a model
    over ``max_model_mb`` (estimated from the clues, :mod:`.size`) is refused with
    ModelTooLarge before any of it is built.
    """
    puzzle.validate()
    clock = Deadline.of(deadline)
    size = estimate_size(puzzle, use_x)
    check_fits(size, max_model_mb)
    clock.fits("model build", size.build_seconds)
    with _gc_paused():
        return _build(puzzle, use_x, clock)


def _build(puzzle: Puzzle, use_x: bool, clock: Deadline = NO_DEADLINE) -> NonogramModel:
    """:func:`build_model` for a validated puzzle."""
    model = Model()
    h, w = puzzle.height, puzzle.width
    up: list[Term] = []  # up[v] == (v, 1) and down[v] == (v, -1), see _encode_line
    down: list[Term] = []
    rows_, cols_ = [], []
    for i in range(h):
        clock.check("model build")
        rows_.append(_encode_line(model, ROW, i, puzzle.rows[i], w, up, down))
    for j in range(w):
        clock.check("model build")
        cols_.append(_encode_line(model, COL, j, puzzle.columns[j], h, up, down))
    rows, cols = tuple(rows_), tuple(cols_)
    clock.check("model build")
    bw = puzzle.is_black_and_white
    colours = puzzle.colours or (1,)
    # per colour and line, B_c at every cell (see LineEncoding.position_terms); the column side
    # is also kept negated for the R - C links
    units = (up, down)
    row_terms = {c: [line.position_terms(c, 1, units) for line in rows] for c in colours}
    col_terms = {c: [line.position_terms(c, 1, units) for line in cols] for c in colours} if use_x else {}
    col_minus = {c: [line.position_terms(c, -1, units) for line in cols] for c in colours} \
        if not (use_x and bw) else {}
    row_reach = {c: [line.reachable_cells(c) for line in rows] for c in colours} if not bw else {}
    col_reach = {c: [line.reachable_cells(c) for line in cols] for c in colours} if not bw else {}
    # x variables and links are collected in the order the one-cell-at-a-time loop made them;
    # x indices follow the a-variables, and every term list stays sorted (row a-variables <
    # column a-variables < x)
    x_labels: list[tuple] = []
    link_labels: list[tuple] = []
    link_terms: list[tuple[Term, ...]] = []
    link_rhs: list[int] = []
    cell_vars: dict[tuple[int, int], dict[int, int]] = {}
    next_x = model.num_variables
    clock.check("model build")
    for i in range(h):
        clock.check("model build")
        for j in range(w):
            for c in colours:
                r_terms, r_const = row_terms[c][i][j]
                tag = (i, j) if bw else (i, j, c)
                both = bw or (row_reach[c][i][j] and col_reach[c][j][i])
                if use_x and both:
                    x = next_x
                    next_x += 1
                    x_labels.append(("x",) + tag)
                    cell_vars.setdefault((i, j), {})[c] = x
                    # R - x == 0 and C - x == 0, constants moved to the right-hand side
                    c_terms, c_const = col_terms[c][j][i]
                    minus_x = ((x, -1),)
                    link_labels += (("link", ROW) + tag, ("link", COL) + tag)
                    link_terms += (r_terms + minus_x, c_terms + minus_x)
                    link_rhs += (-r_const, -c_const)
                else:  # R - C == 0
                    c_terms, c_const = col_minus[c][j][i]
                    link_labels.append(("link",) + tag)
                    link_terms.append(r_terms + c_terms)
                    link_rhs.append(-r_const - c_const)
    model.add_vars(x_labels)
    model.add_sorted("link", Sense.EQ, link_labels, link_terms, link_rhs)
    return NonogramModel(puzzle, model, use_x, rows, cols, cell_vars)
