"""Seed 000's solver ladder, reproduced on this package's :class:`Puzzle`.

Three classical rungs, each a faithful, compact port of the seed's Java:

* ``cell``: cell-by-cell backtracking, FILLED then EMPTY, a row's runs checked when its last
  cell is set and a column's when its bottom cell is set;
* ``row``: row-by-row backtracking over each row's enumerated fills, rejecting a fill as soon
  as some column's partial runs disagree with its clue (the open-run/closed-run check);
* ``propagate``: enumerate fills of rows and columns, filter them against known cells, commit
  cells on which every remaining fill agrees (the overlap argument) to a fixed point, and
  guess the first unknown cell (FILLED, then EMPTY) on a copy of grid *and* fill lists when
  deduction stops.

They exist to be measured next to the package's backends (``notebooks/ladder.ipynb``), so each
takes a time budget like the seed's 5000 ms test budget and reports ``unknown`` past it, the
seed's "N/A". Black-and-white puzzles only, as in the seed.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..puzzle import Grid, Puzzle, PuzzleError, check_grid
from ..results import Status

UNKNOWN, EMPTY, FILLED = -1, 0, 1
Line = tuple[int, ...]
RUNGS: tuple[str, ...] = ("cell", "row", "propagate")
RUNG_TITLES = {"cell": "cell backtracking", "row": "row backtracking",
               "propagate": "propagation with search"}
_CHECK_EVERY = 2048  # nodes between clock reads


class _OutOfTime(Exception):
    pass


@dataclass(frozen=True)
class LadderResult:
    """One rung on one puzzle: ``status`` is SOLVED, INFEASIBLE (tree exhausted) or UNKNOWN
    (budget spent)."""
    rung: str
    status: Status
    grid: Grid | None
    nodes: int
    elapsed_s: float


class _Clock:
    """Counts search nodes and raises once the budget is spent (checked every few nodes)."""

    def __init__(self, time_limit: float | None):
        self.deadline = None if time_limit is None else time.perf_counter() + time_limit
        self.nodes = 0

    def tick(self) -> None:
        self.nodes += 1
        if self.deadline is not None and self.nodes % _CHECK_EVERY == 0 \
                and time.perf_counter() > self.deadline:
            raise _OutOfTime


def _lengths(puzzle: Puzzle) -> tuple[list[list[int]], list[list[int]]]:
    if not puzzle.is_black_and_white:
        raise PuzzleError("the ladder solvers of seed 000 take black-and-white puzzles only")
    return ([[b.length for b in c] for c in puzzle.rows],
            [[b.length for b in c] for c in puzzle.columns])


def runs(cells: Sequence[int]) -> list[int]:
    """``extractRuns``: lengths of the FILLED runs of a line."""
    out, n = [], 0
    for v in cells:
        if v == FILLED:
            n += 1
        elif n:
            out.append(n)
            n = 0
    if n:
        out.append(n)
    return out


def line_possibilities(clue: Sequence[int], length: int) -> list[Line]:
    """``generateLinePossibilities``: every fill of a line of ``length`` showing ``clue``."""
    if not clue:
        return [(EMPTY,) * length]
    if sum(clue) + len(clue) - 1 > length:
        return []
    out: list[Line] = []

    def place(k: int, line: list[int]) -> None:
        if k == len(clue):
            out.append(tuple(line + [EMPTY] * (length - len(line))))
            return
        latest = length - (sum(clue[k:]) + len(clue) - k - 1)
        for start in range(len(line), latest + 1):
            nxt = line + [EMPTY] * (start - len(line)) + [FILLED] * clue[k]
            if k < len(clue) - 1:
                nxt.append(EMPTY)
            place(k + 1, nxt)

    place(0, [])
    return out


# -- rung 1: cell backtracking ---------------------------------------------------------------

def cell_backtrack(puzzle: Puzzle, clock: _Clock) -> Grid | None:
    rows, cols = _lengths(puzzle)
    h, w = puzzle.height, puzzle.width
    g = [[UNKNOWN] * w for _ in range(h)]

    def rec(idx: int) -> bool:
        clock.tick()
        if idx == h * w:
            return all(runs(g[r]) == rows[r] for r in range(h)) and \
                all(runs([g[r][c] for r in range(h)]) == cols[c] for c in range(w))
        r, c = divmod(idx, w)
        for state in (FILLED, EMPTY):
            g[r][c] = state
            valid = True
            if c == w - 1 and runs(g[r]) != rows[r]:
                valid = False
            if valid and r == h - 1 and runs([g[i][c] for i in range(h)]) != cols[c]:
                valid = False
            if valid and rec(idx + 1):
                return True
        g[r][c] = UNKNOWN  # the reset on unwind
        return False

    with _recursion(h * w + 100):
        return tuple(map(tuple, g)) if rec(0) else None


# -- rung 2: row backtracking ----------------------------------------------------------------

def column_consistent(col: Sequence[int], clue: Sequence[int], filled_rows: int, height: int) -> bool:
    """``columnConsistent``: the first ``filled_rows`` cells of a column can still show ``clue``.

    A FILLED tail is an open run that may still grow; an EMPTY tail means every run so far is
    closed and must match the clue's prefix exactly.
    """
    found, length, trailing = [], 0, False
    for r in range(filled_rows):
        if col[r] == FILLED:
            length += 1
            trailing = True
        elif col[r] == EMPTY:
            if length:
                found.append(length)
                length = 0
            trailing = False
    if trailing and length:
        if len(found) >= len(clue) or length > clue[len(found)]:
            return False
    elif length:
        found.append(length)
    if any(i >= len(clue) or found[i] != clue[i] for i in range(len(found))):
        return False
    if filled_rows == height and runs(col) != list(clue):
        return False
    return True


def row_backtrack(puzzle: Puzzle, clock: _Clock) -> Grid | None:
    rows, cols = _lengths(puzzle)
    h, w = puzzle.height, puzzle.width
    poss = [line_possibilities(rows[r], w) for r in range(h)]
    g = [[UNKNOWN] * w for _ in range(h)]

    def rec(r: int) -> bool:
        if r == h:
            return not check_grid(puzzle, tuple(map(tuple, g)))  # ``isSolved``
        for fill in poss[r]:
            clock.tick()
            g[r][:] = fill
            if all(column_consistent([g[i][c] for i in range(h)], cols[c], r + 1, h)
                   for c in range(w)) and rec(r + 1):
                return True
        g[r][:] = [UNKNOWN] * w
        return False

    with _recursion(h + 100):
        return tuple(map(tuple, g)) if rec(0) else None


# -- rung 3: propagation with search ---------------------------------------------------------

def _filter(poss: list[Line], line: Sequence[int]) -> list[Line]:
    """``filterAgainst``: the fills that agree with every known cell."""
    known = [(i, v) for i, v in enumerate(line) if v != UNKNOWN]
    return [p for p in poss if all(p[i] == v for i, v in known)]


def propagate(g: list[list[int]], row_poss: list[list[Line]], col_poss: list[list[Line]],
              clock: _Clock) -> bool:
    """Overlap argument on every row then every column until a pass fixes nothing; False on a
    line with no fill left."""
    h, w = len(g), len(g[0])
    changed = True
    while changed:
        changed = False
        clock.tick()
        for r in range(h):
            row_poss[r] = f = _filter(row_poss[r], g[r])
            if not f:
                return False
            for c in range(w):
                if g[r][c] == UNKNOWN:
                    v = f[0][c]
                    if all(p[c] == v for p in f):
                        g[r][c] = v
                        changed = True
        for c in range(w):
            col_poss[c] = f = _filter(col_poss[c], [g[r][c] for r in range(h)])
            if not f:
                return False
            for r in range(h):
                if g[r][c] == UNKNOWN:
                    v = f[0][r]
                    if all(p[r] == v for p in f):
                        g[r][c] = v
                        changed = True
    return True


def propagate_search(puzzle: Puzzle, clock: _Clock) -> Grid | None:
    rows, cols = _lengths(puzzle)
    h, w = puzzle.height, puzzle.width

    def search(g, rp, cp) -> Grid | None:
        clock.tick()
        if not propagate(g, rp, cp, clock):
            return None
        unknown = next(((r, c) for r in range(h) for c in range(w) if g[r][c] == UNKNOWN), None)
        if unknown is None:
            grid = tuple(map(tuple, g))
            return grid if not check_grid(puzzle, grid) else None
        r, c = unknown
        for state in (FILLED, EMPTY):
            # copy grid AND fill lists, or the two branches corrupt each other
            ng = [row[:] for row in g]
            ng[r][c] = state
            res = search(ng, [list(x) for x in rp], [list(x) for x in cp])
            if res is not None:
                return res
        return None

    g = [[UNKNOWN] * w for _ in range(h)]
    with _recursion(h * w + 100):
        return search(g, [line_possibilities(rows[r], w) for r in range(h)],
                      [line_possibilities(cols[c], h) for c in range(w)])


def fixed_point(puzzle: Puzzle) -> tuple[bool, Grid]:
    """Rung 3 before its first guess: the overlap fixed point (cells -1 where unknown) and
    False when some line has no fill left."""
    rows, cols = _lengths(puzzle)
    g = [[UNKNOWN] * puzzle.width for _ in range(puzzle.height)]
    ok = propagate(g, [line_possibilities(c, puzzle.width) for c in rows],
                   [line_possibilities(c, puzzle.height) for c in cols], _Clock(None))
    return ok, tuple(map(tuple, g))


SOLVERS: dict[str, Callable[[Puzzle, _Clock], Grid | None]] = {
    "cell": cell_backtrack, "row": row_backtrack, "propagate": propagate_search}


def solve(puzzle: Puzzle, rung: str, time_limit: float | None = None) -> LadderResult:
    """Run one rung with a time budget; the grid, when found, has passed ``check_grid``."""
    if rung not in SOLVERS:
        raise ValueError(f"unknown ladder rung {rung!r}, choose from {', '.join(RUNGS)}")
    clock = _Clock(time_limit)
    t0 = time.perf_counter()
    try:
        grid = SOLVERS[rung](puzzle, clock)
    except _OutOfTime:
        return LadderResult(rung, Status.UNKNOWN, None, clock.nodes, time.perf_counter() - t0)
    elapsed = time.perf_counter() - t0
    if grid is None:
        return LadderResult(rung, Status.INFEASIBLE, None, clock.nodes, elapsed)
    if check_grid(puzzle, grid):
        raise AssertionError(f"ladder rung {rung} returned a grid that breaks the clues")
    return LadderResult(rung, Status.SOLVED, grid, clock.nodes, elapsed)


def timing_table(datasets: dict[str, Sequence[Puzzle]], rungs: Sequence[str] = RUNGS,
                 budget_s: float = 5.0) -> list[dict]:
    """The seed's benchmark table: per rung, total wall ms over each dataset's puzzles, or
    ``None`` (the seed's N/A) once a puzzle of the dataset exceeds the budget."""
    out = []
    for rung in rungs:
        row: dict = {"solver": RUNG_TITLES.get(rung, rung)}
        for name, puzzles in datasets.items():
            total = 0.0
            for p in puzzles:
                res = solve(p, rung, budget_s)
                if res.status is not Status.SOLVED:
                    row[name] = None
                    break
                total += res.elapsed_s * 1000
            else:
                row[name] = round(total, 1)
        out.append(row)
    return out


class _recursion:
    """Raise the recursion limit for a depth-first search as deep as the grid."""

    def __init__(self, depth: int):
        self.depth = depth

    def __enter__(self):
        self.old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.old, self.depth))

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.old)
