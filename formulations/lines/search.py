"""Probing and depth-first search on top of the line-solving fixed point (seed 004).

Each search node is a propagated state. Probing tries every undecided cell with each of its
colours and propagates: a colour whose branch contradicts is removed, cells on which all
surviving branches agree are fixed, and this repeats until a full sweep changes nothing. The
node then branches on the probed cell whose branches decided the most cells (best worst case,
then best best case), reusing the probe states as children so that no child is propagated twice,
and tries the least decided child first (the value that constrains the rest least is the likelier
to lead to a solution). The search is complete: it proves infeasibility and, asked for two
solutions, uniqueness.

A second, cheap search runs beside it, time-sliced (one part in ``CHEAP_SHARE``): no probing, it
branches on a cell of the line with the fewest undecided cells. Each node costs one propagation
instead of a sweep of probes, which wins on puzzles where probing learns little (the n-Dom
family: 9-Dom is found in milliseconds this way and not in a minute with probing). Both share the
solutions found; either one exhausting its tree settles the question.

``probing=False`` runs the cheap search alone; ``probe_limit=N`` stops a sweep after N probes in
a row that changed nothing (cells of nearly decided lines are probed first).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from operator import or_

from ..clock import Deadline, OutOfTime
from ..puzzle import Grid, Puzzle
from ..results import Status
from .engine import Engine

State = list[int]
Node = tuple[State, int]  # a propagated state and its number of colour bits left


@dataclass(frozen=True)
class SearchResult:
    status: Status              # SOLVED (a solution found), INFEASIBLE (tree exhausted) or UNKNOWN
    solutions: tuple[Grid, ...]
    exhausted: bool             # the tree was explored completely: ``solutions`` are all there are
    nodes: int = 0
    probes: int = 0
    line_solves: int = 0
    max_depth: int = 0
    root_unknown: int = 0       # undecided cells after the first fixed point
    elapsed_s: float = 0.0
    timed_out: bool = False

    def info(self) -> dict:
        """Counters for a result record."""
        return {"nodes": self.nodes, "probes": self.probes, "line_solves": self.line_solves,
                "max_depth": self.max_depth, "root_unknown": self.root_unknown,
                "exhausted": self.exhausted, "timed_out": self.timed_out}


class _Timeout(Exception):
    pass


class _Enough(Exception):
    pass


CHEAP_SHARE = 0.25   # the cheap search's time relative to the probing search's
FIRST_SLICE = 0.05   # seconds of the probing search before the cheap one first runs; doubles


class _Search:
    """One resumable depth-first search; ``run_until`` advances it to a deadline."""

    def __init__(self, eng: Engine, solutions: dict[Grid, None], max_solutions: int,
                 probing: bool, probe_limit: int):
        self.eng = eng
        self.solutions = solutions  # shared between the searches of one solve
        self.max_solutions = max_solutions
        self.deadline: float | None = None
        self.probing = probing
        self.limit = probe_limit
        self.nodes = self.probes = self.max_depth = 0
        self.done = eng.h * eng.w  # colour bits left in a fully decided grid
        self.stack: list[tuple[State, int, int]] | None = None

    def tick(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Timeout

    def found(self, state: State) -> None:
        self.solutions.setdefault(self.eng.grid(state), None)
        if len(self.solutions) >= self.max_solutions:
            raise _Enough

    # -- cells ---------------------------------------------------------------------------------
    def unknown_cells(self, state: State) -> list[tuple[int, int]]:
        eng = self.eng
        out = []
        for i in range(eng.h):
            u = eng.unknown_mask(state, i)
            while u:
                low = u & -u
                u ^= low
                out.append((i, low.bit_length() - 1))
        return out

    def line_counts(self, state: State) -> list[int]:
        eng = self.eng
        return [eng.unknown_mask(state, line).bit_count() for line in range(eng.nlines)]

    def by_tight_lines(self, state: State, cells: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Cells of the lines with the fewest undecided cells first."""
        cnt, h = self.line_counts(state), self.eng.h
        return sorted(cells, key=lambda c: min(cnt[c[0]], cnt[h + c[1]]))

    def colours_at(self, state: State, i: int, j: int) -> list[int]:
        C = self.eng.C
        return [ci for ci in range(C) if state[i * C + ci] >> j & 1]

    # -- nodes ---------------------------------------------------------------------------------
    def branch(self, state: State, bits: int, i: int, j: int) -> list[Node]:
        """Propagated children of ``state``, one per surviving colour of cell (i, j)."""
        eng = self.eng
        out = []
        for ci in self.colours_at(state, i, j):
            self.tick()
            child = state.copy()
            cbits = bits - eng.assign(child, i, j, ci)
            self.probes += 1
            if eng.propagate(child, (i, eng.h + j)):
                cbits -= eng.removed
                if cbits == self.done:
                    self.found(child)
                out.append((child, cbits))
        return out

    def expand(self, state: State, bits: int) -> list[Node]:
        """Probe ``state`` to its own fixed point and return the children to search."""
        eng = self.eng
        while True:
            if bits == self.done:
                self.found(state)
                return []
            cells = self.unknown_cells(state)
            if not self.probing:
                i, j = self.by_tight_lines(state, cells)[0]
                return self.branch(state, bits, i, j)
            if self.limit:
                cells = self.by_tight_lines(state, cells)
            changed = False
            best, best_score = None, None
            idle = 0
            for i, j in cells:
                if len(self.colours_at(state, i, j)) < 2:
                    continue  # decided earlier in this sweep
                if self.limit and best is not None and idle >= self.limit:
                    break
                idle += 1
                kids = self.branch(state, bits, i, j)
                if not kids:
                    return []
                if len(kids) == 1:  # every other colour contradicts
                    state, bits = kids[0]
                    changed, idle = True, 0
                    continue
                merged = kids[0][0]
                for kid, _ in kids[1:]:
                    merged = list(map(or_, merged, kid))
                if merged != state:  # all branches agree on some cells
                    C = eng.C
                    lines = sorted({k // C for k, (a, b) in enumerate(zip(merged, state)) if a != b})
                    state = merged
                    if not eng.propagate(state, lines):
                        return []
                    bits = eng.bits(state)
                    changed, idle = True, 0
                    continue
                if changed:
                    continue  # scores from a stale state are not worth keeping
                reductions = sorted(bits - b for _, b in kids)
                score = (reductions[0], reductions[-1])
                if best_score is None or score > best_score:
                    best_score, best = score, kids
            if not changed:
                # least decided branch first ("succeed first"): the value that constrains the
                # rest least is the likelier one to lead to a solution
                return sorted(best, key=lambda kb: -kb[1])

    def start(self, root: State) -> None:
        self.stack = [(root, self.eng.bits(root), 0)]

    def run_until(self, deadline: float | None) -> str:
        """Search until ``deadline``: "exhausted", "enough" (solutions) or "paused".

        A node interrupted by the deadline goes back on the stack and is expanded again on the
        next call, so pausing loses time but never part of the tree.
        """
        self.deadline = deadline
        stack = self.stack
        while stack:  # every probe checks the clock (see ``branch``)
            state, bits, depth = stack.pop()
            self.nodes += 1
            self.max_depth = max(self.max_depth, depth)
            try:
                kids = self.expand(state, bits)
            except _Timeout:
                self.nodes -= 1  # counted again when it is expanded for real
                stack.append((state, bits, depth))
                return "paused"
            except _Enough:
                return "enough"
            for kid, kbits in reversed(kids):
                stack.append((kid, kbits, depth + 1))
        return "exhausted"


def solve_lines(puzzle: Puzzle, *, max_solutions: int = 1, time_limit: float | None = None,
                probing: bool = True, probe_limit: int = 0) -> SearchResult:
    """Find up to ``max_solutions`` distinct solutions by line solving, probing and search.

    ``exhausted`` in the result means the search proved there are no others (so with
    ``max_solutions=2`` and one solution found, that solution is unique; with none found, the
    puzzle is infeasible). On the time limit the solutions found so far are returned.
    """
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    eng = Engine(puzzle)
    solutions: dict[Grid, None] = {}
    limit = max(1, max_solutions)
    main = _Search(eng, solutions, limit, probing, max(0, probe_limit))
    cheap = _Search(eng, solutions, limit, False, 0) if probing else None
    searches = [s for s in (main, cheap) if s is not None]

    def result(status: Status, exhausted: bool, timed_out: bool, root_unknown: int):
        return SearchResult(status, tuple(solutions), exhausted,
                            sum(s.nodes for s in searches), sum(s.probes for s in searches),
                            eng.line_solves, max(s.max_depth for s in searches), root_unknown,
                            time.perf_counter() - t0, timed_out)

    root = eng.initial_state()
    eng.deadline = None if deadline is None else Deadline(deadline - time.perf_counter())
    try:  # the first fixed point reads the clock too: on a huge puzzle it is most of the work
        ok = eng.propagate(root, eng.initial_lines())
    except OutOfTime:
        return result(Status.UNKNOWN, False, True, eng.unknown_count(eng.initial_state()))
    finally:
        eng.deadline = None  # the searches check their own deadline at every probe
    if not ok:
        return result(Status.INFEASIBLE, True, False, 0)
    root_unknown = eng.unknown_count(root)
    for s in searches:
        s.start(root.copy())
    slice_s, outcome = FIRST_SLICE, "paused"
    while outcome == "paused":
        for s, share in ((main, 1.0), (cheap, CHEAP_SHARE)):
            if s is None:
                continue
            until = time.perf_counter() + slice_s * share
            if deadline is not None:
                until = min(until, deadline)
            outcome = s.run_until(until)
            if outcome != "paused":
                break
        if deadline is not None and time.perf_counter() >= deadline:
            break
        slice_s *= 2
    exhausted = outcome == "exhausted"
    timed_out = outcome == "paused"
    if solutions:
        status = Status.SOLVED
    elif exhausted:
        status = Status.INFEASIBLE
    else:
        status = Status.UNKNOWN
    return result(status, exhausted, timed_out, root_unknown)
