"""The board and its fixed point over rows and columns (seed 003's FullSettle).

Every cell has a domain: a bit set over colours, bit ``c`` set while colour ``c`` is still
possible (bit 0 is the background), exactly as in seed 003. Inside the engine the same
information is stored transposed, one position bit set per line and colour, so that each line is
settled by :mod:`formulations.lines.settle` in a few integer operations per block.

The fixed point is driven by a queue of lines whose cells changed, detects contradictions at the
line and at the cell level, can record its progress line update by line update, and ends solved
(every cell decided), unknown (cells still open) or infeasible (a contradiction): the package's
one :class:`~formulations.results.Status`. The queue, the line settling and the memo of settled
lines run compiled (``formulations/lines/_core.c``, docs/line_core.md); states stay Python lists
of ints, narrowed in place.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable, Sequence

from formulations.runtime.clock import Deadline
from ..puzzle import Grid, Puzzle
from ..results import Status
from . import _core
from .settle import LineSpec, colour_table, line_spec

UNKNOWN = -1
"""A cell not decided yet, in partial grids."""


_SPEC_IDS: dict[LineSpec, int] = {}
CACHE_SIZE = 300_000
"""Settled lines are shared by every engine (same clue and length, same masks, same answer):
search and probing revisit line states constantly, and puzzles share fully unknown lines. The
compiled memo is emptied when it holds more than this many lines at the start of a propagation
(or more than 256 MB)."""


def clear_cache() -> None:
    """Forget settled lines (benchmarks call this so that puzzles do not help each other)."""
    _core.clear_cache()


def cache_info() -> tuple[int, int, int]:
    """(lines, bytes, times emptied) of the memo of settled lines."""
    return _core.cache_info()


def _spec_id(spec: LineSpec) -> int:
    sid = _SPEC_IDS.get(spec)
    if sid is None:
        sid = _SPEC_IDS[spec] = len(_SPEC_IDS)
    return sid


@dataclass(frozen=True)
class Step:
    """One line update of the fixed point that decided cells (for step-by-step pictures)."""
    line: tuple[str, int]                   # ("row", i) or ("col", j)
    round: int                              # 0 for the first visit of every line, then +1 per wave
    fixed: tuple[tuple[int, int, int], ...]  # (i, j, colour) of cells decided by this update
    known: int                              # cells decided after this update


class Engine:
    """A puzzle compiled for propagation.

    A *state* is a flat list of position masks, ``state[line * C + ci]`` for colour index ``ci``;
    rows are lines ``0..h-1`` and columns ``h..h+w-1``. States are plain lists so that search can
    copy them cheaply. Settled lines are memoised in a module-level table shared by all engines
    (``clear_cache()`` empties it), so probing and search rarely settle the same line twice.
    """

    def __init__(self, puzzle: Puzzle):
        self.puzzle = puzzle
        self.h, self.w = puzzle.height, puzzle.width
        self.colours = colour_table(puzzle)
        self.C = len(self.colours)
        self.cindex = {c: i for i, c in enumerate(self.colours)}
        self.specs: list[LineSpec] = ([line_spec(c, self.w, self.cindex) for c in puzzle.rows]
                                      + [line_spec(c, self.h, self.cindex) for c in puzzle.columns])
        self.nlines = self.h + self.w
        self.sids = [_spec_id(sp) for sp in self.specs]
        self._core = _core.Core(self.specs, self.sids, self.C, self.h)
        self.removed = 0
        self.deadline: Deadline | None = None  # checked every few hundred line updates
        self.conflict = 0  # after a failed propagate with deps: the decisions that failed

    @property
    def line_solves(self) -> int:
        """Lines settled so far (memo hits not counted)."""
        return self._core.solves

    # -- states --------------------------------------------------------------------------------
    def initial_state(self) -> list[int]:
        """Every cell may be background or any colour of the puzzle.

        (Clues narrow this by line updates only, so that every decision, even "this row is
        empty", is made by a line update and shows up in recorded steps.)
        """
        n = self.nlines * self.C
        h, w = self.h, self.w
        return [((1 << w) - 1) if k < h * self.C else ((1 << h) - 1) for k in range(n)]

    def initial_lines(self) -> list[int]:
        """Lines whose settling can change the initial state (the first queue of the fixed point).

        A fully undecided black-and-white line decides nothing unless its clue is empty, does not
        fit, or has a block longer than its free space (the overlap rule); the others are settled
        as soon as a crossing cell changes. Colour puzzles settle every line first (a clue may
        rule out colours).
        """
        if self.C != 2:
            return list(range(self.nlines))
        out = []
        for lid, (n, lens, _, _) in enumerate(self.specs):
            free = n - sum(lens) - len(lens) + 1
            if not lens or free < 0 or max(lens) > free:
                out.append(lid)
        return out

    def state_from_domains(self, domains: Sequence[Sequence[int]]) -> list[int]:
        """State from cell domains (bit ``c`` = colour id ``c``); an empty domain is a contradiction."""
        h, C = self.h, self.C
        state = self.initial_state()
        for i, row in enumerate(domains):
            for j, dom in enumerate(row):
                for ci, c in enumerate(self.colours):
                    if not dom >> c & 1:
                        state[i * C + ci] &= ~(1 << j)
                        state[(h + j) * C + ci] &= ~(1 << i)
        return state

    def domains(self, state: Sequence[int]) -> tuple[tuple[int, ...], ...]:
        """Cell domains (bit ``c`` set = colour id ``c`` still possible) from a state."""
        return self._core.domains(state, self.colours)

    def unknown_mask(self, state: Sequence[int], line: int) -> int:
        """Cells of a line with two or more colours left."""
        C = self.C
        base = line * C
        if C == 2:
            return state[base] & state[base + 1]
        seen = unk = 0
        for ci in range(C):
            m = state[base + ci]
            unk |= seen & m
            seen |= m
        return unk

    def length(self, line: int) -> int:
        """Cells in a line."""
        return self.w if line < self.h else self.h

    def unknown_count(self, state: Sequence[int]) -> int:
        return sum(self.unknown_mask(state, i).bit_count() for i in range(self.h))

    def is_complete(self, state: Sequence[int]) -> bool:
        return self.bits(state) == self.h * self.w

    def grid(self, state: Sequence[int]) -> Grid:
        """The grid of a complete state (undecided cells read as -1)."""
        C, cols, w = self.C, self.colours, self.w
        if C == 2:
            val = (cols[0], cols[1])
            fast = max(val) < 256 and min(val) >= 0
            table = bytes.maketrans(b"01", bytes(val)) if fast else None
            rows = []
            for W, K in zip(state[0:2 * self.h:2], state[1:2 * self.h:2]):
                if fast and not W & K:  # every cell decided: the row's bits as text, reversed
                    rows.append(tuple(format(K, f"0{w}b")[::-1].encode().translate(table)))
                else:
                    rows.append(tuple(UNKNOWN if (W >> j) & (K >> j) & 1 else val[(K >> j) & 1]
                                      for j in range(w)))
            return tuple(rows)
        out = []
        for i in range(self.h):
            masks = state[i * C:(i + 1) * C]
            row = []
            for j in range(self.w):
                got = [cols[ci] for ci in range(C) if masks[ci] >> j & 1]
                row.append(got[0] if len(got) == 1 else UNKNOWN)
            out.append(tuple(row))
        return tuple(out)

    def bits(self, state: Sequence[int]) -> int:
        """Colour bits left over all cells: ``h * w`` exactly when every cell is decided."""
        return sum(m.bit_count() for m in state[:self.h * self.C])

    def assign(self, state: list[int], i: int, j: int, ci: int) -> int:
        """Set cell (i, j) to colour index ``ci`` in place (no propagation); bits removed."""
        h, C = self.h, self.C
        rb, cb = 1 << j, 1 << i
        removed = 0
        for k in range(C):
            if k != ci and state[i * C + k] & rb:
                removed += 1
                state[i * C + k] &= ~rb
                state[(h + j) * C + k] &= ~cb
        return removed

    # -- propagation ---------------------------------------------------------------------------
    def propagate(self, state: list[int], lines: Iterable[int] | None = None,
                  steps: list[Step] | None = None, deps: list[int] | None = None) -> bool:
        """Settle lines until nothing changes, starting from ``lines`` (default: all).

        Works in place; returns False on a contradiction (the state is then garbage). Only lines
        whose cells changed are settled again; ``self.removed`` counts the colour bits removed.
        With ``steps`` every deciding update is recorded.

        ``deps`` (one int per line, updated in place) tracks what the state depends on: each
        line's entry is a bit set of the search's decisions that the line's narrowed cells follow
        from. A line update that narrows cells adds its line's set to the crossing lines'; on a
        contradiction ``self.conflict`` is the set of the line that failed (the decisions that
        together cannot hold).

        The loop is compiled: lines are taken first in, first out, a settled line's narrowed
        cells queue their crossing lines (colour by colour, cell by cell), a line already
        settled in the same state is answered by the memo, and the deadline and pending signals
        (Ctrl-C) are checked every 256 line updates.
        """
        core = self._core
        record: list | None = [] if steps is not None else None
        known = (self.h * self.w - self.unknown_count(state)) if steps is not None else 0
        try:
            ok = core.propagate(state, lines, deps, record, self.deadline, CACHE_SIZE)
        finally:
            self.removed = core.removed
            if record and steps is not None:  # record is kept only with steps
                for lid, rnd, old, res, changed in record:
                    known = self._record(steps, lid, rnd, old, res, changed, known)
        if not ok and deps is not None:
            self.conflict = core.conflict
        return ok

    def reprobe(self, prev: list[int], state: Sequence[int], deps: list[int] | None = None):
        """An earlier probe's propagated state ``prev`` narrowed by the current ``state``: None
        when that changes nothing, else ``(ok, child, cut)``: the narrowed copy propagated from
        the lines it changed (as :meth:`propagate`, ``self.removed`` set) and the colour bits the
        narrowing itself removed."""
        core = self._core
        try:
            got = core.reprobe(prev, state, deps, self.deadline, CACHE_SIZE)
        finally:
            self.removed = core.removed
        if got is not None and not got[0] and deps is not None:
            self.conflict = core.conflict
        return got

    def _record(self, steps: list[Step], lid: int, rnd: int, old, res, changed: int,
                known: int) -> int:
        C = self.C

        def single(masks, p):
            got = [ci for ci in range(C) if masks[ci] >> p & 1]
            return got[0] if len(got) == 1 else None

        fixed = []
        p = 0
        while changed >> p:
            if changed >> p & 1:
                now, before = single(res, p), single(old, p)
                if now is not None and before is None:
                    i, j = (lid, p) if lid < self.h else (p, lid - self.h)
                    fixed.append((i, j, self.colours[now]))
            p += 1
        if fixed:
            known += len(fixed)
            kind, idx = ("row", lid) if lid < self.h else ("col", lid - self.h)
            steps.append(Step((kind, idx), rnd, tuple(fixed), known))
        return known


# -- public fixed point ----------------------------------------------------------------------------

@dataclass(frozen=True)
class FixedPoint:
    """The outcome of line solving to a fixed point."""
    status: Status                         # SOLVED, UNKNOWN (cells left open) or INFEASIBLE
    puzzle: Puzzle
    domains: tuple[tuple[int, ...], ...]   # per cell: bit c set = colour c possible (empty on contradiction)
    steps: tuple[Step, ...] = ()
    line_solves: int = 0

    @property
    def known_grid(self) -> Grid:
        """Cell colours, -1 where undecided."""
        return tuple(tuple(_single(d) for d in row) for row in self.domains)

    @property
    def grid(self) -> Grid | None:
        """The solution when the fixed point decided every cell."""
        return self.known_grid if self.status is Status.SOLVED else None

    @property
    def unknown(self) -> int:
        return sum(1 for row in self.domains for d in row if d & (d - 1))

    def snapshots(self) -> list[Grid]:
        """Partial grids (-1 = unknown) after each recorded step, starting from the empty grid."""
        h, w = self.puzzle.height, self.puzzle.width
        cur = [[UNKNOWN] * w for _ in range(h)]
        out = [tuple(tuple(r) for r in cur)]
        for st in self.steps:
            for i, j, c in st.fixed:
                cur[i][j] = c
            out.append(tuple(tuple(r) for r in cur))
        return out


def _single(d: int) -> int:
    return d.bit_length() - 1 if d and not d & (d - 1) else UNKNOWN


def fixed_point(puzzle: Puzzle, domains: Sequence[Sequence[int]] | None = None, *,
                record: bool = False, engine: Engine | None = None,
                deadline: Deadline | float | None = None) -> FixedPoint:
    """Line-solve ``puzzle`` (optionally from given cell domains) until nothing changes.

    ``record=True`` keeps every line update that decided cells, in order, so that a notebook
    can replay the picture filling in (``FixedPoint.snapshots()``). ``deadline`` stops it with
    OutOfTime("line solving").
    """
    eng = engine or Engine(puzzle)
    if deadline is not None:
        eng.deadline = Deadline.of(deadline)
    if domains is None:
        state, lines = eng.initial_state(), eng.initial_lines()
    else:
        state, lines = eng.state_from_domains(domains), None
    steps: list[Step] | None = [] if record else None
    before = eng.line_solves
    ok = eng.propagate(state, lines, steps)
    solves = eng.line_solves - before
    if not ok:
        empty = tuple((0,) * puzzle.width for _ in range(puzzle.height))
        return FixedPoint(Status.INFEASIBLE, puzzle, empty, tuple(steps or ()), solves)
    status = Status.SOLVED if eng.is_complete(state) else Status.UNKNOWN
    return FixedPoint(status, puzzle, eng.domains(state), tuple(steps or ()), solves)
