"""Presolve: fix in the model whatever line solving decides, for every backend alike.

The fixed point of :mod:`formulations.lines.engine` gives each cell a domain and each block of
each line the set of start positions some valid placement uses. Those fix

* ``x[i,j,c]`` to 1 when cell (i, j) is known to be ``c``, to 0 when ``c`` is ruled out, and
* ``a[k,p]`` (block ``k`` started by ``e_k + p``) to 1 when every possible start is at or before
  ``e_k + p`` and to 0 when every possible start is after it; in the one-hot encoding
  ``s[k,t]`` (block ``k`` starts at ``e_k + t``) to 0 when that start is ruled out and to 1 when
  it is the only one left (each line's encoding says which: ``decided(starts)``).

Both are sound: every solution agrees with the fixed point, so no solution is lost. The reduced
model keeps the free variables (same labels, original order) and every constraint with the fixed
values substituted; a constraint left without variables is dropped when it holds and kept when it
fails, so infeasibility stays visible. :class:`Presolved` duck-types ``NonogramModel`` (``model``,
``puzzle``, ``use_x``, ``encoding``, ``cell_vars``, ``decode``, ``encode``, ``blocking_variables``,
``a_variables``, ``x_variables``), so every backend runs on it unchanged and the common
``verify()`` checks the full grid rebuilt from the fixed part plus the backend's answer.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from formulations.runtime.clock import Deadline
from ..lines.engine import FixedPoint, fixed_point
from ..lines.settle import line_starts, start_windows
from ..puzzle import BACKGROUND, Grid, Puzzle, gaps, min_length
from ..results import PresolveStats, Status
from .linear import Constraint, LinExpr, Model, Sense
from .links import block_starts
from .order import NonogramModel


@dataclass(frozen=True, eq=False)
class Presolved:
    """A model with the line-solving consequences substituted in (see the module docstring)."""
    original: NonogramModel
    fixed: FixedPoint
    model: Model                    # free variables only, original labels
    free: tuple[int, ...]           # original index of each reduced variable
    values: np.ndarray              # original-length vector: fixed values (free slots 0)
    cell_vars: dict = field(default_factory=dict)  # (i, j) -> {colour: reduced index}, free x only

    # -- NonogramModel look-alike -------------------------------------------------------------
    @property
    def puzzle(self):
        return self.original.puzzle

    @property
    def use_x(self) -> bool:
        return self.original.use_x

    @property
    def status(self) -> Status:
        return self.fixed.status

    @property
    def solved(self) -> bool:
        return self.fixed.status is Status.SOLVED

    @property
    def infeasible(self) -> bool:
        return self.fixed.status is Status.INFEASIBLE

    @property
    def grid(self) -> Grid | None:
        return self.fixed.grid

    @property
    def variables_before(self) -> int:
        return self.original.model.num_variables

    @property
    def variables_after(self) -> int:
        return self.model.num_variables

    @property
    def a_variables(self) -> int:
        """The free line variables (every variable that is not a cell's x)."""
        labels = self.original.model.labels  # tuples: ("x", ...) for a cell variable
        return sum(1 for v in self.free if cast(tuple, labels[v])[0] != "x")

    @property
    def encoding(self) -> str:
        return self.original.encoding

    @property
    def x_variables(self) -> int:
        return sum(len(c) for c in self.cell_vars.values())

    def expand(self, assignment: Any) -> np.ndarray:
        """The original model's assignment: fixed values plus the reduced ``assignment``."""
        full = self.values.copy()
        full[list(self.free)] = self.model.as_array(assignment)
        return full

    def decode(self, assignment: Any) -> Grid:
        return self.original.decode(self.expand(assignment))

    def encode(self, grid: Grid) -> np.ndarray:
        return self.original.encode(grid)[list(self.free)].astype(np.int8)

    def blocking_variables(self) -> list[int]:
        """Free variables that determine the grid (the fixed ones are equal in every solution)."""
        back = {v: r for r, v in enumerate(self.free)}
        return [back[v] for v in self.original.blocking_variables() if v in back]

    def stats(self, seconds: float) -> PresolveStats:
        """The figures a result reports, with the time presolve took."""
        return PresolveStats(self.variables_before, self.variables_after, self.status,
                             self.fixed.unknown, seconds)


def fixed_values(nm: NonogramModel, fp: FixedPoint) -> dict[int, int]:
    """Variable index -> value for every variable the fixed point's domains decide."""
    out: dict[int, int] = {}
    doms = fp.domains
    h = nm.puzzle.height
    for line in nm.rows + nm.cols:
        cells = (doms[line.index] if line.kind == "row"
                 else tuple(doms[i][line.index] for i in range(h)))
        starts = line_starts(line.clue, cells)
        if starts is None:  # cannot happen after a consistent fixed point
            raise ValueError(f"{line.kind} {line.index}: no placement left after the fixed point")
        out.update(line.decided(starts))
    for (i, j), cv in nm.cell_vars.items():
        d = doms[i][j]
        for c, v in cv.items():
            if not d >> c & 1:
                out[v] = 0
            elif d == 1 << c:
                out[v] = 1
    return out


def _always_holds(coefs: dict[int, int], sense: Sense, rhs: int) -> bool:
    """Whether ``sum coefs * x (sense) rhs`` holds for every 0/1 ``x``."""
    lo = sum(a for a in coefs.values() if a < 0)
    hi = sum(a for a in coefs.values() if a > 0)
    if sense is Sense.LE:
        return hi <= rhs
    if sense is Sense.GE:
        return lo >= rhs
    return False


def _contradiction_model() -> Model:
    m = Model()
    m.add_constraint("presolve", ("presolve", "contradiction"), LinExpr(), "==", 1)
    return m


def presolve(nm: NonogramModel, deadline: Deadline | float | None = None) -> Presolved:
    """Line-solve ``nm.puzzle`` and return the model reduced by what the fixed point decides.
    ``deadline`` stops it with OutOfTime (stage "line solving" or "presolve")."""
    clock = Deadline.of(deadline)
    fp = fixed_point(nm.puzzle, deadline=clock)
    clock.check("presolve")
    n = nm.model.num_variables
    values = np.zeros(n, dtype=np.int8)
    if fp.status is Status.INFEASIBLE:
        return Presolved(nm, fp, _contradiction_model(), (), values, {})
    fixed = fixed_values(nm, fp)
    for v, val in fixed.items():
        values[v] = val
    free = tuple(v for v in range(n) if v not in fixed)
    back = {v: r for r, v in enumerate(free)}
    model = Model()
    model.add_vars([nm.model.labels[v] for v in free])
    for k, c in enumerate(nm.model.constraints):
        if not k & 4095:
            clock.check("presolve")
        coefs: dict[int, int] = {}
        const = 0
        for v, a in c.terms:
            if v in back:
                coefs[back[v]] = coefs.get(back[v], 0) + a
            else:
                const += a * int(values[v])
        coefs = {k: a for k, a in coefs.items() if a}
        if coefs and _always_holds(coefs, c.sense, c.rhs - const):
            continue  # e.g. a <= 1 after substituting a fixed 1: true for every 0/1 value
        model.add_constraint(c.family, c.label, LinExpr(coefs, const), c.sense, c.rhs)
    cell_vars = {}
    for cell, cv in nm.cell_vars.items():
        kept = {c: back[v] for c, v in cv.items() if v in back}
        if kept:
            cell_vars[cell] = kept
    return Presolved(nm, fp, model, free, values, cell_vars)


# -- presolve before the model -------------------------------------------------------------------

@dataclass(frozen=True)
class _Line:
    """One line of the reduced model: per block, the left-packed start ``e``, the smallest and
    largest valid start after line solving, and the reduced index of its first free
    a-variable (the free ones are ``a[k, p]`` for ``lo - e <= p < hi - e``, consecutive)."""
    kind: str
    index: int
    length: int
    clue: tuple
    e: tuple[int, ...]
    lo: tuple[int, ...]
    hi: tuple[int, ...]
    base: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class ReducedModel:
    """The presolved model built straight from the puzzle's line-solving fixed point, without
    building the full model first (:func:`presolve_puzzle`).

    It is the model :func:`presolve` would make from the full one, variable for variable and
    constraint for constraint (same labels, same order, same terms), and it duck-types
    :class:`Presolved` and ``NonogramModel`` for the backends and ``verify()``: a grid is decoded
    from the fixed cells plus the reduced assignment. ``original`` (the full model) is built
    only when asked for (``expand`` needs it)."""
    puzzle: Puzzle
    use_x: bool
    status: Status
    unknown: int                    # cells line solving left undecided
    known: Grid                     # cell colours, -1 where undecided
    model: Model
    variables_before: int           # of the full model
    rows: tuple[_Line, ...]
    cols: tuple[_Line, ...]
    cell_vars: dict                 # (i, j) -> {colour: reduced index}, free x only
    free_x: tuple[int, ...]         # reduced indices of the free x, in order
    seconds: float = 0.0            # line solving
    build_s: float = 0.0            # building this model

    @property
    def encoding(self) -> str:
        return "order"  # presolve_puzzle builds the order encoding

    @property
    def solved(self) -> bool:
        return self.status is Status.SOLVED

    @property
    def infeasible(self) -> bool:
        return self.status is Status.INFEASIBLE

    @property
    def grid(self) -> Grid | None:
        return self.known if self.solved else None

    @property
    def variables_after(self) -> int:
        return self.model.num_variables

    @property
    def a_variables(self) -> int:
        return self.model.num_variables - len(self.free_x)

    @property
    def x_variables(self) -> int:
        return len(self.free_x)

    def stats(self, seconds: float | None = None) -> PresolveStats:
        return PresolveStats(self.variables_before, self.variables_after, self.status,
                             self.unknown, self.seconds if seconds is None else seconds)

    def decode(self, assignment: Any) -> Grid:
        """The grid: the fixed cells, and the undecided ones read from the reduced assignment
        (the x when present, else the rows' a-variables), exactly as the full model's decoder
        reads the expanded assignment."""
        values = self.model.as_array(assignment) if self.model.num_variables else ()
        if self.status is not Status.UNKNOWN:
            return self.known
        if self.use_x:
            grid = [list(row) for row in self.known]
            for (i, j), cv in self.cell_vars.items():
                if grid[i][j] != -1:
                    continue
                colour = BACKGROUND
                for c, v in cv.items():  # colours in increasing order, as the full decoder
                    if values[v]:
                        colour = c
                        break
                grid[i][j] = colour
            for row in grid:
                for j, v in enumerate(row):
                    if v == -1:
                        row[j] = BACKGROUND  # no free x left for it: every colour was ruled out
            return tuple(tuple(r) for r in grid)
        out = []
        for line in self.rows:
            cells = [BACKGROUND] * line.length
            for k, b in enumerate(line.clue):
                free = line.hi[k] - line.lo[k]
                ones = sum(int(values[v]) for v in range(line.base[k], line.base[k] + free))
                s = line.hi[k] - ones
                for j in range(s, min(s + b.length, line.length)):
                    cells[j] = b.colour
            out.append(tuple(cells))
        return tuple(out)

    def encode(self, grid: Grid) -> np.ndarray:
        """The reduced assignment of a solution grid (ValueError if a line breaks its clue)."""
        values = np.zeros(self.model.num_variables, dtype=np.int8)
        h = self.puzzle.height
        for line in self.rows + self.cols:
            cells = grid[line.index] if line.kind == "row" else [grid[i][line.index] for i in range(h)]
            starts = block_starts(cells, line.clue, line.kind, line.index)
            for k, s in enumerate(starts):
                for t in range(line.hi[k] - line.lo[k]):
                    values[line.base[k] + t] = int(s <= line.lo[k] + t)
        for (i, j), cv in self.cell_vars.items():
            for c, v in cv.items():
                values[v] = int(grid[i][j] == c)
        return values

    def blocking_variables(self) -> list[int]:
        """Free variables that determine the grid (the fixed ones are equal in every solution)."""
        if self.use_x:
            return list(self.free_x)
        return [v for line in self.rows for k in range(len(line.clue))
                for v in range(line.base[k], line.base[k] + line.hi[k] - line.lo[k])]

    @property
    def original(self) -> NonogramModel:
        """The full model (built on first use; nothing in the solve path needs it)."""
        got = self.__dict__.get("_original")
        if got is None:
            from .order import build_model
            got = build_model(self.puzzle, use_x=self.use_x, max_model_mb=None)
            object.__setattr__(self, "_original", got)
        return got

    def expand(self, assignment: Any) -> np.ndarray:
        """The full model's assignment: the reduced one plus the values line solving fixed."""
        nm = self.original
        full = nm.encode(self.decode(assignment)) if self.solved else None
        values = np.zeros(nm.model.num_variables, dtype=np.int8)
        if full is not None:
            return full
        grid_free = self.model.as_array(assignment)
        fixed = _fixed_from_windows(nm, self)
        for v, val in fixed.items():
            values[v] = val
        index = nm.model.index
        for r, label in enumerate(self.model.labels):
            values[index[label]] = grid_free[r]
        return values


def _fixed_from_windows(nm: NonogramModel, red: ReducedModel) -> dict[int, int]:
    """The full model's fixed values implied by the reduced model's windows and known cells."""
    out: dict[int, int] = {}
    for line, rl in zip(nm.rows + nm.cols, red.rows + red.cols):
        for k, vk in enumerate(line.var):
            lo, hi = rl.lo[k] - rl.e[k], rl.hi[k] - rl.e[k]
            for p, v in enumerate(vk):
                if p >= hi:
                    out[v] = 1
                elif p < lo:
                    out[v] = 0
    for (i, j), cv in nm.cell_vars.items():
        known = red.known[i][j]
        free = red.cell_vars.get((i, j), {})
        for c, v in cv.items():
            if c not in free:
                out[v] = int(known == c)
    return out


def presolve_puzzle(puzzle: Puzzle, *, use_x: bool = True, deadline: Deadline | float | None = None,
                    max_model_mb: float | None = None) -> ReducedModel:
    """Line-solve ``puzzle`` and build only the model of what is left (see :class:`ReducedModel`).

    A puzzle that line solving decides, or proves contradictory, gets no model at all. The
    reduced model is checked against ``max_model_mb`` before it is built (ModelTooLarge), and
    ``deadline`` stops line solving and the build with OutOfTime."""
    from ..lines.engine import Engine

    puzzle.validate()
    clock = Deadline.of(deadline)
    t0 = time.perf_counter()
    eng = Engine(puzzle)
    eng.deadline = clock if clock.end is not None else None
    state = eng.initial_state()
    try:
        ok = eng.propagate(state, eng.initial_lines())
    finally:
        eng.deadline = None
    before = _full_variables(puzzle, use_x)
    h, w = puzzle.height, puzzle.width
    if not ok:
        t1 = time.perf_counter()
        return ReducedModel(puzzle, use_x, Status.INFEASIBLE, h * w,
                            tuple((-1,) * w for _ in range(h)), _contradiction_model(), before,
                            (), (), {}, (), t1 - t0, 0.0)
    return reduced_from_state(puzzle, eng, state, use_x=use_x, deadline=clock,
                              max_model_mb=max_model_mb, seconds=time.perf_counter() - t0)


def reduced_from_state(puzzle: Puzzle, eng, state: list[int], *, use_x: bool = True,
                       deadline: Deadline | float | None = None,
                       max_model_mb: float | None = None, seconds: float = 0.0) -> ReducedModel:
    """The model of what a consistent propagated ``state`` of ``eng`` (a
    :class:`formulations.lines.engine.Engine` of ``puzzle``) leaves open: what
    :func:`presolve_puzzle` builds after line solving, for any state at least as narrow (after
    probing, say). ``seconds`` is reported as the time it took to reach the state."""
    from .size import check_fits

    clock = Deadline.of(deadline)
    t0 = time.perf_counter() - seconds
    before = _full_variables(puzzle, use_x)
    unknown = eng.unknown_count(state)
    known = eng.grid(state)
    if not unknown:
        t1 = time.perf_counter()
        return ReducedModel(puzzle, use_x, Status.SOLVED, 0, known, Model(), before, (), (), {},
                            (), t1 - t0, 0.0)
    clock.check("presolve")
    C = eng.C
    windows = []
    for lid, spec in enumerate(eng.specs):
        win = start_windows(spec, state[lid * C:(lid + 1) * C])
        if win is None:  # cannot happen after a consistent fixed point
            raise ValueError(f"line {lid}: no placement left after the fixed point")
        windows.append(win)
    t1 = time.perf_counter()
    size = _reduced_size(puzzle, windows, known, use_x)
    check_fits(size, max_model_mb)
    clock.fits("model build", size.build_seconds)
    model, rows, cols, cell_vars, free_x = _build_reduced(puzzle, eng, state, windows, known, use_x,
                                                          clock)
    return ReducedModel(puzzle, use_x, Status.UNKNOWN, unknown, known, model, before, rows, cols,
                        cell_vars, free_x, t1 - t0, time.perf_counter() - t1)


def _packed_starts(clue) -> tuple[list[int], int]:
    """Left-packed starts of a clue's blocks and the packed length (the order encoding's e_k)."""
    g = gaps(clue)
    starts, e = [], 0
    for k, b in enumerate(clue):
        starts.append(e)
        e += b.length + (g[k] if k < len(g) else 0)
    return starts, e


def _reachable(clue, n: int) -> dict[int, int]:
    """Per colour, the cells (a bit mask) some placement of the clue could paint."""
    starts, e = _packed_starts(clue)
    free = n - e if clue else 0
    out: dict[int, int] = {}
    for k, b in enumerate(clue):
        span = free + b.length
        out[b.colour] = out.get(b.colour, 0) | (((1 << span) - 1) << starts[k])
    return out


def _full_variables(puzzle: Puzzle, use_x: bool) -> int:
    """How many variables the full model has (without building it)."""
    total = 0
    for clues, n in ((puzzle.rows, puzzle.width), (puzzle.columns, puzzle.height)):
        for clue in clues:
            total += len(clue) * (n - min_length(clue)) if clue else 0
    if use_x:
        if puzzle.is_black_and_white:
            total += puzzle.height * puzzle.width
        else:
            rows = [_reachable(c, puzzle.width) for c in puzzle.rows]
            cols = [_reachable(c, puzzle.height) for c in puzzle.columns]
            for c in puzzle.colours:
                for i, rr in enumerate(rows):
                    m = rr.get(c, 0)
                    while m:
                        low = m & -m
                        m ^= low
                        j = low.bit_length() - 1
                        total += cols[j].get(c, 0) >> i & 1
    return total


def _reduced_size(puzzle: Puzzle, windows, known: Grid, use_x: bool):
    """An upper bound on the reduced model's size, for the memory cap and the time check."""
    from .size import ModelSize

    a = sum(hi - lo for win in windows for lo, hi in win)
    open_cells = sum(1 for row in known for v in row if v == -1)
    colours = max(1, len(puzzle.colours))
    links = open_cells * colours * (2 if use_x else 1) + 2 * a
    variables = a + (open_cells * colours if use_x else 0)
    constraints = 2 * a + links
    return ModelSize(variables, constraints, 4 * a + 4 * links)


def _build_reduced(puzzle: Puzzle, eng, state, windows, known: Grid, use_x: bool,
                   clock: Deadline):
    """The reduced model itself (see :class:`ReducedModel`), in the full model's order."""
    model = Model()
    h, w = puzzle.height, puzzle.width
    labels: list[tuple] = []
    lines: list[_Line] = []
    specs = [("row", i, w, puzzle.rows[i]) for i in range(h)] + \
            [("col", j, h, puzzle.columns[j]) for j in range(w)]
    for lid, (kind, idx, n, clue) in enumerate(specs):
        e, _ = _packed_starts(clue)
        win = windows[lid]
        lo = tuple(a for a, _ in win)
        hi = tuple(b for _, b in win)
        base = []
        for k in range(len(clue)):
            base.append(len(labels))
            labels.extend(("a", kind, idx, k, p) for p in range(lo[k] - e[k], hi[k] - e[k]))
        lines.append(_Line(kind, idx, n, clue, tuple(e), lo, hi, tuple(base)))
    model.add_vars(labels)
    cons = model.constraints
    LE = Sense.LE
    for line in lines:
        clock.check("model build")
        kind, idx = line.kind, line.index
        m = len(line.clue)
        for k in range(m):  # a[k,p] <= a[k,p+1] between free neighbours
            p0 = line.lo[k] - line.e[k]
            for t in range(line.hi[k] - line.lo[k] - 1):
                v = line.base[k] + t
                cons.append(Constraint(("monotone", kind, idx, k, p0 + t), "monotone",
                                       ((v, 1), (v + 1, -1)), LE, 0))
        for k in range(m - 1):  # a[k+1,p] <= a[k,p] where both are free
            a0, a1 = line.lo[k] - line.e[k], line.hi[k] - line.e[k]
            b0, b1 = line.lo[k + 1] - line.e[k + 1], line.hi[k + 1] - line.e[k + 1]
            for p in range(max(a0, b0), min(a1, b1)):
                v, u = line.base[k] + p - a0, line.base[k + 1] + p - b0
                cons.append(Constraint(("order", kind, idx, k, p), "order", ((v, -1), (u, 1)),
                                       LE, 0))
    rows, cols = tuple(lines[:h]), tuple(lines[h:])
    bw = puzzle.is_black_and_white
    colours = puzzle.colours or (1,)
    # per colour and line, B_c at every cell: free terms and the constant the fixed part gives
    row_b = {c: [_line_sums(line, c) for line in rows] for c in colours}
    col_b = {c: [_line_sums(line, c) for line in cols] for c in colours}
    if not bw:
        row_reach = [_reachable(c, w) for c in puzzle.rows]
        col_reach = [_reachable(c, h) for c in puzzle.columns]
    x_labels: list[tuple] = []
    C, cindex = eng.C, eng.cindex
    cell_vars: dict = {}
    nvars = model.num_variables
    for i in range(h):
        clock.check("model build")
        krow = known[i]
        for j in range(w):
            kv = krow[j]
            for c in colours:
                r_terms, r_const = row_b[c][i][0][j], row_b[c][i][1][j]
                c_terms, c_const = col_b[c][j][0][i], col_b[c][j][1][i]
                tag = (i, j) if bw else (i, j, c)
                both = bw or (row_reach[i].get(c, 0) >> j & 1 and col_reach[j].get(c, 0) >> i & 1)
                xt: tuple[tuple[int, int], ...]
                if use_x and both:
                    if kv == -1 and state[i * C + cindex[c]] >> j & 1:
                        x = nvars + len(x_labels)
                        x_labels.append(("x",) + tag)
                        cell_vars.setdefault((i, j), {})[c] = x
                        xt, xval = ((x, -1),), 0
                    else:
                        xt, xval = (), int(kv == c)
                    _link(cons, ("link", "row") + tag, r_terms + xt, xval - r_const)
                    _link(cons, ("link", "col") + tag, c_terms + xt, xval - c_const)
                else:
                    terms = r_terms + tuple((v, -a) for v, a in c_terms)
                    _link(cons, ("link",) + tag, terms, c_const - r_const)
    model.add_vars(x_labels)
    free_x = tuple(range(nvars, nvars + len(x_labels)))
    return model, rows, cols, cell_vars, free_x


def _link(cons: list, label: tuple, terms: tuple, rhs: int) -> None:
    """A link equality ``sum terms == rhs``; without terms it is kept only when it fails."""
    if terms:
        cons.append(Constraint(label, "link", tuple(sorted(terms)), Sense.EQ, rhs))
    elif rhs != 0:
        cons.append(Constraint(label, "link", (), Sense.EQ, rhs))


def _line_sums(line: _Line, colour: int) -> tuple[list[tuple], list[int]]:
    """``B_c(j)`` of a reduced line at every cell: the free a-variable terms (+1 for block k
    started by j, -1 for block k started by j - L_k) and the constant from the fixed ones."""
    n = line.length
    terms: list[list] = [[] for _ in range(n)]
    const = [0] * n
    for k, b in enumerate(line.clue):
        if b.colour != colour:
            continue
        lo, hi, L, base = line.lo[k], line.hi[k], b.length, line.base[k]
        for j in range(lo, hi):          # A_k(j) free: block k started by j
            terms[j].append((base + j - lo, 1))
        for j in range(hi, n):           # A_k(j) fixed 1
            const[j] += 1
        for j in range(lo + L, min(hi + L, n)):  # A_k(j - L) free
            terms[j].append((base + j - L - lo, -1))
        for j in range(hi + L, n):       # A_k(j - L) fixed 1
            const[j] -= 1
    return [tuple(t) for t in terms], const
