"""A deduction trace: every cell of a puzzle with the reason it takes its value, in an order a
person can follow (issue 43).

The *state* of the trace is the set of cells decided so far, nothing else: before a step it is
the union of the cells of all earlier steps. Each step is one of

* :class:`LineStep`: one line, given the decided cells, admits only placements that agree on
  the step's cells (``placements``: how many of its placements remain);
* :class:`ProbeStep`: assuming one cell takes a value leads, by line steps alone (``chain``), to
  a line with no placement at all (``contradiction``), so the cell takes its only other value
  (a cell is probed only when its row and its column together leave it two values);
* :class:`GuessStep`: line steps and probes are exhausted; the trace sets one cell to its value
  in a solution found by the ``lines`` search and follows that branch (``reason`` says so).

Line steps are taken to a fixed point first, then one probe, then line steps again, and so on;
a guess only when a whole pass of probes found no contradiction. Every cell is in exactly one
step's ``cells``.

Black-and-white puzzles run on the line engine itself (:class:`~formulations.lines.engine.
Engine`: its states hold exactly the decided cells, and its recorded line updates are the
steps); colour puzzles on the decided cells alone (:class:`_GridBoard`), because the engine
also keeps colours a line has ruled out of a cell that is not decided yet, which the trace's
state does not show. Both settle a line with the compiled ``settle_masks``.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence

from ..runtime.clock import Deadline, OutOfTime
from ..puzzle import Grid, Puzzle
from ..results import Status
from .engine import Engine
from .settle import LineSpec, colour_table, line_spec, settle_masks

Cell = tuple[int, int, int]  # (row, column, value): value 0 empty, else the colour id (1 black)
LineRef = tuple[str, int]    # ("row" | "column", index from 0)


@dataclass(frozen=True)
class LineStep:
    """``line``, given the cells decided before this step, admits only ``placements`` placements
    and they all agree on ``cells``."""
    line: LineRef
    cells: tuple[Cell, ...]
    placements: int | None = None  # None when counting was turned off

    rule = "line"

    def to_json(self) -> dict:
        out: dict[str, object] = {"rule": "line", "line": list(self.line),
                                  "cells": [list(c) for c in self.cells]}
        if self.placements is not None:
            out["placements"] = self.placements
        return out


@dataclass(frozen=True)
class ProbeStep:
    """Assuming ``assume`` leads by the line steps of ``chain`` to ``contradiction``, a line with
    no placement; so the cell takes the value in ``cells``, its only other one."""
    assume: Cell
    contradiction: LineRef
    chain: tuple[LineStep, ...]
    cells: tuple[Cell, ...]

    rule = "probe"

    @property
    def chain_length(self) -> int:
        """Line steps from the assumption to the contradiction, the line that fails included."""
        return len(self.chain) + 1

    def to_json(self) -> dict:
        return {"rule": "probe", "assume": list(self.assume),
                "contradiction": list(self.contradiction),
                "chain": [s.to_json() for s in self.chain],
                "cells": [list(c) for c in self.cells]}


@dataclass(frozen=True)
class GuessStep:
    """Nothing else is left: the cell takes its value in the solution the trace follows."""
    cells: tuple[Cell, ...]
    reason: str = ("line steps and probes are exhausted: this is the cell's value in a "
                   "solution, and the trace follows that branch")

    rule = "guess"

    def to_json(self) -> dict:
        return {"rule": "guess", "cells": [list(c) for c in self.cells], "reason": self.reason}


Step = LineStep | ProbeStep | GuessStep

LEVELS = {
    1: "line logic alone",
    2: "a few short probes (at most 5, each chain at most 5 line steps)",
    3: "probes (more than 5, or a chain longer than 5 line steps)",
    4: "one guess after line logic and probes",
    5: "several guesses",
}
"""The difficulty scale: the level is the first that fits the counts, from 1 up."""
SHORT_PROBES = 5   # probe steps (and chain length) that still count as level 2


@dataclass(frozen=True)
class Difficulty:
    """How hard a puzzle is for a person who reasons as the trace does."""
    line_solvable: bool
    line_steps: int
    probe_steps: int
    max_chain: int        # longest probe chain (line steps to the contradiction, that one included)
    guesses: int
    beyond_lines: tuple[tuple[int, int], ...]  # cells decided after line logic first ran out
    by_probe: tuple[tuple[int, int], ...]      # cells a probe decided
    by_guess: tuple[tuple[int, int], ...]      # cells a guess decided
    level: int | None     # 1..5 on :data:`LEVELS` (None: the trace did not finish)

    @property
    def label(self) -> str:
        unrated = "not rated: the trace did not finish"
        return LEVELS.get(self.level, unrated) if self.level is not None else unrated

    def to_json(self) -> dict:
        return {"line_solvable": self.line_solvable, "line_steps": self.line_steps,
                "probe_steps": self.probe_steps, "max_chain": self.max_chain,
                "guesses": self.guesses, "level": self.level, "label": self.label,
                "scale": {str(k): v for k, v in LEVELS.items()},
                "beyond_lines": [list(c) for c in self.beyond_lines],
                "by_probe": [list(c) for c in self.by_probe],
                "by_guess": [list(c) for c in self.by_guess]}


@dataclass(frozen=True)
class Explanation:
    """The trace of one puzzle. ``status``: SOLVED (every cell explained), INFEASIBLE (the line
    ``contradiction`` has no placement after the steps: no solution) or UNKNOWN (time ran out)."""
    puzzle: Puzzle
    status: Status
    steps: tuple[Step, ...]
    difficulty: Difficulty
    grid: Grid | None = None
    contradiction: LineRef | None = None
    elapsed_s: float = 0.0

    def step_of(self) -> dict[tuple[int, int], int]:
        """Cell -> index of the step that decided it."""
        out = {}
        for k, st in enumerate(self.steps):
            for i, j, _ in st.cells:
                out[(i, j)] = k
        return out

    def to_json(self) -> dict:
        out: dict[str, object] = {"steps": [s.to_json() for s in self.steps],
                                  "difficulty": self.difficulty.to_json(), "status": self.status.value}
        if self.contradiction is not None:
            out["contradiction"] = list(self.contradiction)
        return out


# -- placement counts ----------------------------------------------------------------------------

try:  # compiled (formulations/lines/_count.c, lines of up to 127 cells); else Python's loop
    from ._count import count as _count
except ImportError:  # a tree built before _count.c existed: the same counts, slower
    _count = None


def count_placements(spec: LineSpec, masks: Sequence[int]) -> int:
    """Placements of a line's clue that agree with its masks (one position bit set per colour
    index, bit ``p`` set while cell ``p`` may take that colour), counted exactly."""
    if _count is not None:
        got = _count(spec, masks)
        if got is not None:
            return got
    return _count_py(spec, masks)


def _count_py(spec: LineSpec, masks: Sequence[int]) -> int:
    """:func:`count_placements` with Python's integers (any length)."""
    n, lens, cidx, gaps = spec
    W = masks[0]
    m = len(lens)
    # nxt[p]: placements of the blocks after the current one on cells p..n-1 (index n + 1: 0)
    nxt = [0] * (n + 2)
    nxt[n] = 1
    for p in range(n - 1, -1, -1):
        nxt[p] = nxt[p + 1] if W >> p & 1 else 0
    for k in range(m - 1, -1, -1):
        L, M = lens[k], masks[cidx[k]]
        full = (1 << L) - 1
        gap = k < m - 1 and gaps[k]
        cur = [0] * (n + 2)
        for p in range(n - L, -1, -1):
            total = cur[p + 1] if W >> p & 1 else 0
            if (M >> p) & full == full:
                e = p + L
                if not gap:
                    total += nxt[e]
                elif e < n and W >> e & 1:
                    total += nxt[e + 1]
            cur[p] = total
        nxt = cur
    return nxt[0]


# -- boards: the two ways of keeping the decided cells ------------------------------------------

def _bits(x: int) -> Iterable[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class _TraceEngine(Engine):
    """The engine, its recorded line updates kept raw (the trace turns them into steps)."""

    def _record(self, steps, lid, rnd, old, res, changed, known):
        steps.append((lid, old, res, changed))
        return known


class _EngineBoard:
    """Black and white on the line engine: a state is the engine's (each cell decided or open)."""

    def __init__(self, puzzle: Puzzle, clock: Deadline):
        self.eng = eng = _TraceEngine(puzzle)
        eng.deadline = clock if clock.end is not None else None
        self.h, self.w = eng.h, eng.w
        self.black = eng.colours[1]
        self.specs = eng.specs

    def initial(self) -> list[int]:
        return self.eng.initial_state()

    def initial_lines(self) -> list[int]:
        return self.eng.initial_lines()

    def copy(self, state: list[int]) -> list[int]:
        return state.copy()

    def assign(self, state: list[int], i: int, j: int, v: int) -> None:
        self.eng.assign(state, i, j, 1 if v == self.black else 0)

    def propagate(self, state: list[int], lines, raw: list | None) -> bool:
        return self.eng.propagate(state, lines, raw)

    def steps(self, raw: list) -> list[tuple[int, tuple[Cell, ...], tuple[int, ...]]]:
        """(line id, cells decided, the line's masks before) per recorded update."""
        h, black = self.h, self.black
        out = []
        for lid, old, res, changed in raw:
            K = res[1]
            bits = enumerate(format(changed, "b")[::-1])
            if lid < h:
                cells = tuple([(lid, p, black if K >> p & 1 else 0)
                               for p, ch in bits if ch == "1"])
            else:
                j = lid - h
                cells = tuple([(p, j, black if K >> p & 1 else 0)
                               for p, ch in bits if ch == "1"])
            out.append((lid, cells, old))
        return out

    def line_masks(self, state: list[int], lid: int) -> tuple[int, ...]:
        return (state[2 * lid], state[2 * lid + 1])

    def open_cells(self, state: list[int]) -> Iterable[tuple[int, int]]:
        for i in range(self.h):
            for j in _bits(state[2 * i] & state[2 * i + 1]):
                yield i, j

    def open_counts(self, state: list[int]) -> list[int]:
        return [(state[2 * ln] & state[2 * ln + 1]).bit_count() for ln in range(self.h + self.w)]

    def candidates(self, state: list[int], i: int, j: int) -> list[int]:
        return [0, self.black]

    def complete(self, state: list[int]) -> bool:
        return self.eng.is_complete(state)

    def grid(self, state: list[int]) -> Grid:
        return self.eng.grid(state)

    # the grid board skips the (cell, value)s an earlier probe of a pass implied; here a probe
    # (compiled propagation) costs less than keeping track of them in Python
    def implied_reset(self) -> None:
        pass

    def implied_add(self, child: list[int]) -> None:
        pass

    def implied(self, i: int, j: int, v: int) -> bool:
        return False


class _GridBoard:
    """Any number of colours on the decided cells alone: a state is the grid, row by row, -1
    where open; a line is settled from its decided cells (every open cell may take any colour)."""

    def __init__(self, puzzle: Puzzle, clock: Deadline):
        self.clock = clock
        self.h, self.w = h, w = puzzle.height, puzzle.width
        self.colours = colour_table(puzzle)
        self.C = len(self.colours)
        self.cindex = {c: k for k, c in enumerate(self.colours)}
        self.specs = ([line_spec(c, w, self.cindex) for c in puzzle.rows]
                      + [line_spec(c, h, self.cindex) for c in puzzle.columns])
        self.cells_of = ([[i * w + j for j in range(w)] for i in range(h)]
                         + [[i * w + j for i in range(h)] for j in range(w)])
        self.failed: int | None = None  # the line that failed in the last propagate

    def initial(self) -> list[int]:
        return [-1] * (self.h * self.w)

    def initial_lines(self) -> list[int]:
        return list(range(self.h + self.w))

    def copy(self, state: list[int]) -> list[int]:
        return state.copy()

    def assign(self, state: list[int], i: int, j: int, v: int) -> None:
        state[i * self.w + j] = v

    def line_masks(self, state: list[int], lid: int) -> tuple[int, ...]:
        idx = self.cells_of[lid]
        n = len(idx)
        full = (1 << n) - 1
        masks = [full] * self.C
        cindex = self.cindex
        for p, k in enumerate(idx):
            v = state[k]
            if v >= 0:
                bit = 1 << p
                ci = cindex[v]
                for c in range(self.C):
                    if c != ci:
                        masks[c] &= ~bit
        return tuple(masks)

    def settle(self, state: list[int], lid: int):
        return settle_masks(self.specs[lid], list(self.line_masks(state, lid)))

    def propagate(self, state: list[int], lines, raw: list | None) -> bool:
        h, C, colours = self.h, self.C, self.colours
        queue = list(dict.fromkeys(lines))
        inq = set(queue)
        head = 0
        tick = 0
        while head < len(queue):
            tick += 1
            if not tick & 63:
                self.clock.check("explaining")
            lid = queue[head]
            head += 1
            inq.discard(lid)
            old = self.line_masks(state, lid)
            res = settle_masks(self.specs[lid], list(old))
            if res is None:
                self.failed = lid
                return False
            once = twice = 0
            for m in res:
                twice |= once & m
                once |= m
            idx = self.cells_of[lid]
            opened = 0
            for p, k in enumerate(idx):
                if state[k] < 0:
                    opened |= 1 << p
            newly = once & ~twice & opened
            if not newly:
                continue
            cells = []
            for p in _bits(newly):
                ci = next(c for c in range(C) if res[c] >> p & 1)
                state[idx[p]] = colours[ci]
                if lid < h:
                    i, j = lid, p
                    other = h + j
                else:
                    i, j = p, lid - h
                    other = i
                cells.append((i, j, colours[ci]))
                if other not in inq:
                    inq.add(other)
                    queue.append(other)
            if raw is not None:
                raw.append((lid, tuple(cells), old))
        return True

    def steps(self, raw: list) -> list:
        return raw

    def open_cells(self, state: list[int]) -> Iterable[tuple[int, int]]:
        w = self.w
        for k, v in enumerate(state):
            if v < 0:
                yield divmod(k, w)

    def open_counts(self, state: list[int]) -> list[int]:
        return [sum(1 for k in idx if state[k] < 0) for idx in self.cells_of]

    def candidates(self, state: list[int], i: int, j: int) -> list[int]:
        """The values the row and the column both leave the cell (settled from decided cells)."""
        r = self.settle(state, i)
        c = self.settle(state, self.h + j)
        if r is None or c is None:
            return []
        return [self.colours[ci] for ci in range(self.C) if r[ci] >> j & 1 and c[ci] >> i & 1]

    def complete(self, state: list[int]) -> bool:
        return min(state) >= 0

    def grid(self, state: list[int]) -> Grid:
        w = self.w
        return tuple(tuple(state[i * w:(i + 1) * w]) for i in range(self.h))

    def implied_reset(self) -> None:
        self._imp: set[tuple[int, int]] = set()

    def implied_add(self, child: list[int]) -> None:
        self._imp.update((k, v) for k, v in enumerate(child) if v >= 0)

    def implied(self, i: int, j: int, v: int) -> bool:
        return (i * self.w + j, v) in self._imp


# -- the trace -------------------------------------------------------------------------------------

@dataclass
class _Run:
    board: _EngineBoard | _GridBoard
    counts: bool
    h: int
    steps: list = field(default_factory=list)
    probe_from: tuple[int, int] = (0, 0)  # where the next pass of probes starts

    def ref(self, lid: int) -> LineRef:
        return ("row", lid) if lid < self.h else ("column", lid - self.h)

    def line_steps(self, raw: list) -> list[LineStep]:
        b = self.board
        specs, refs = b.specs, self.refs
        if self.counts:
            return [LineStep(refs[lid], cells, count_placements(specs[lid], old))
                    for lid, cells, old in b.steps(raw)]
        return [LineStep(refs[lid], cells) for lid, cells, old in b.steps(raw)]

    def __post_init__(self) -> None:
        self.refs = [self.ref(lid) for lid in range(self.board.h + self.board.w)]


def _failing_line(board, state: list[int], near: Sequence[int]) -> int | None:
    """A line with no placement in ``state`` (those in ``near`` first)."""
    seen = set()
    for lid in list(near) + list(range(board.h + board.w)):
        if lid in seen:
            continue
        seen.add(lid)
        if settle_masks(board.specs[lid], list(board.line_masks(state, lid))) is None:
            return lid
    return None


def _replayed(board, state: list[int], steps: Sequence[LineStep], assume: Cell | None) -> list[int]:
    s = board.copy(state)
    if assume is not None:
        board.assign(s, *assume)
    for st in steps:
        for i, j, v in st.cells:
            board.assign(s, i, j, v)
    return s


def _contradiction(run: _Run, state: list[int], raw: list, assume: Cell | None):
    """The line steps recorded before a failed propagation and the line that has no placement."""
    board = run.board
    chain = run.line_steps(raw)
    after = _replayed(board, state, chain, assume)
    h = board.h
    last = chain[-1].cells if chain else ((assume,) if assume else ())
    near = []
    for i, j, _ in last:
        near += [i, h + j]
    failed = getattr(board, "failed", None)
    if failed is not None:
        near.insert(0, failed)
    lid = _failing_line(board, after, near)
    return chain, (run.ref(lid) if lid is not None else None)


def _probe(run: _Run, state: list[int], clock: Deadline):
    """One pass of probes over the open cells; the first that contradicts, as a ProbeStep, or
    None when none does."""
    board = run.board
    h = board.h
    board.implied_reset()
    cells = list(board.open_cells(state))
    start = bisect_left(cells, run.probe_from)  # round robin: on from the last probe taken
    for n, (i, j) in enumerate(cells[start:] + cells[:start]):
        if not n & 31:
            clock.check("explaining (probes)")
        cands = board.candidates(state, i, j)
        if len(cands) != 2:
            continue
        for k, v in enumerate(cands):
            if board.implied(i, j, v):
                continue
            child = board.copy(state)
            board.assign(child, i, j, v)
            if board.propagate(child, (i, h + j), None):
                board.implied_add(child)
                continue
            # contradiction: record the chain (the same fixed point, so the same failure)
            child = board.copy(state)
            board.assign(child, i, j, v)
            raw: list = []
            ok = board.propagate(child, (i, h + j), raw)
            assert not ok, "a probe's propagation changed its outcome when recorded"
            chain, line = _contradiction(run, state, raw, (i, j, v))
            run.probe_from = (i, j)
            return ProbeStep((i, j, v), line, tuple(chain), ((i, j, cands[1 - k]),))
    return None


def _guess_cell(board, state: list[int]) -> tuple[int, int]:
    """An open cell of the line with the fewest open cells."""
    counts = board.open_counts(state)
    h = board.h
    best, key = None, None
    for i, j in board.open_cells(state):
        k = min(counts[i], counts[h + j])
        if key is None or k < key:
            best, key = (i, j), k
    assert best is not None  # a guess is asked for only while a cell is open
    return best


def explain(puzzle: Puzzle, *, probing: bool = True, counts: bool = True,
            time_limit: Deadline | float | None = None) -> Explanation:
    """The deduction trace of ``puzzle`` (see the module docstring).

    ``probing=False`` goes from line logic straight to guesses; ``counts=False`` leaves out the
    placement counts of line steps (the part of the trace that costs most on easy puzzles).
    On the time limit the trace so far is returned with status UNKNOWN."""
    import time
    t0 = time.perf_counter()
    clock = Deadline.of(time_limit)
    board = _EngineBoard(puzzle, clock) if puzzle.is_black_and_white else _GridBoard(puzzle, clock)
    run = _Run(board, counts, puzzle.height)
    steps = run.steps
    state = board.initial()
    status, contradiction = Status.UNKNOWN, None
    first_beyond: int | None = None  # index of the first step that is not line logic
    solution = None
    h = board.h
    try:
        raw: list = []
        ok = board.propagate(state, board.initial_lines(), raw)
        if not ok:
            chain, contradiction = _contradiction(run, board.initial(), raw, None)
            steps.extend(chain)
            status = Status.INFEASIBLE
        else:
            steps.extend(run.line_steps(raw))
        while status is Status.UNKNOWN and not board.complete(state):
            clock.check("explaining")
            step = _probe(run, state, clock) if probing else None
            if step is None:
                if solution is None:
                    solution = _solution(puzzle, clock)
                    if solution is None:
                        status = Status.INFEASIBLE
                        break
                i, j = _guess_cell(board, state)
                step = GuessStep(((i, j, solution[i][j]),))
            if first_beyond is None:
                first_beyond = len(steps)
            steps.append(step)
            i, j, v = step.cells[0]
            board.assign(state, i, j, v)
            before = board.copy(state)
            raw = []
            ok = board.propagate(state, (i, h + j), raw)
            if not ok:  # both values of a probed cell fail: no solution
                chain, contradiction = _contradiction(run, before, raw, None)
                steps.extend(chain)
                status = Status.INFEASIBLE
                break
            steps.extend(run.line_steps(raw))
        else:
            if status is Status.UNKNOWN:
                status = Status.SOLVED
    except OutOfTime:
        status = Status.UNKNOWN
    grid = board.grid(state) if status is Status.SOLVED else None
    diff = _difficulty(steps, first_beyond, status)
    return Explanation(puzzle, status, tuple(steps), diff, grid, contradiction,
                       time.perf_counter() - t0)


def _solution(puzzle: Puzzle, clock: Deadline) -> Grid | None:
    from .search import solve_lines

    got = solve_lines(puzzle, time_limit=clock)
    if got.timed_out:
        raise OutOfTime("explaining (the solution a guess follows)")
    return got.solutions[0] if got.solutions else None


def _difficulty(steps: Sequence[Step], first_beyond: int | None, status: Status) -> Difficulty:
    lines = sum(isinstance(s, LineStep) for s in steps)
    probes = [s for s in steps if isinstance(s, ProbeStep)]
    guesses = [s for s in steps if isinstance(s, GuessStep)]
    chain = max((p.chain_length for p in probes), default=0)
    beyond = () if first_beyond is None else tuple(
        (i, j) for s in steps[first_beyond:] for i, j, _ in s.cells)
    level = None
    if status is Status.SOLVED:
        if len(guesses) > 1:
            level = 5
        elif guesses:
            level = 4
        elif len(probes) > SHORT_PROBES or chain > SHORT_PROBES:
            level = 3
        elif probes:
            level = 2
        else:
            level = 1
    return Difficulty(not probes and not guesses and status is Status.SOLVED, lines,
                      len(probes), chain, len(guesses), beyond,
                      tuple((i, j) for p in probes for i, j, _ in p.cells),
                      tuple((i, j) for g in guesses for i, j, _ in g.cells), level)
