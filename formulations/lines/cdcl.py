"""The CDCL fallback of the line search: the residual puzzle of a propagated state as CNF for a
clause-learning SAT solver (python-sat's Glucose 4), solved when depth-first search has spent its budget.

Random puzzles (the TAAI / TCGA / ICGA tournament sets) leave large undecided regions after
line solving and probing, where a depth-first search with chronological backtracking can take
seconds to minutes; a clause-learning solver on what is left takes milliseconds (nonosolve, the
strongest public solver, falls back the same way). Black-and-white puzzles only.

The encoding works on the state, not the clues: per line and block, one variable per *valid
start* the compiled core leaves (``valid_starts``: starts consistent with every decided cell);
exactly one start per block; a block's start implies the next block starts past it and its
gap, and the previous block before it; a start paints its cells and clears the cells just
before and after it; a black cell is covered by some start of its line. Decided cells are unit
clauses. Every model is a grid whose rows and columns are placements of their clues, i.e. a
solution, and every solution within the state is a model.

Time limit and Ctrl-C: python-sat's solvers, on the main thread, swap Python's SIGINT handler
for one that ``longjmp``s out of the C++ solver and can leave the process hung
(``backends/sat.py``), and CaDiCaL cannot be interrupted from another thread. So the search runs in slices bounded by a conflict budget, with
``expect_interrupt=True`` (pysat then leaves Python's handler in place: with its own, a Ctrl-C
crashed the process, SIGSEGV in 2 of 2 runs) and SIGINT blocked (where the platform lets us), the
deadline and a pending Ctrl-C looked at between slices. A slice's length is aimed at :data:`SLICE_S` by the rate the previous one showed.
"""
from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass
from collections.abc import Sequence

from ..runtime.clock import OutOfTime
from ..puzzle import Grid
from .settle import valid_starts

SOLVER = "glucose4"  # on 8 hard taai2011 puzzles about twice as fast as cadical195 here
SLICE_S = 0.05         # aimed length of one slice of CaDiCaL's search
FIRST_BUDGET = 200     # conflicts in the first slice
MIN_BUDGET = 20
PROBE_CLAUSES = True  # 50 of taai2011's second half: 14.6 s CPU with them, 17.3 s without


@dataclass(frozen=True)
class Residual:
    """The CNF of a state: cell (i, j) black is variable ``i * w + j + 1``."""
    clauses: list[list[int]]
    variables: int
    h: int
    w: int


def residual_cnf(eng, state: Sequence[int]) -> Residual | None:
    """The residual puzzle of a black-and-white ``state`` as CNF, or None when some line has no
    placement left (the state is contradictory)."""
    h, w = eng.h, eng.w
    if eng.C != 2:
        raise ValueError("the CDCL fallback handles black-and-white puzzles only")
    clauses: list[list[int]] = []
    top = h * w

    def cell(line: int, p: int) -> int:
        return line * w + p + 1 if line < h else p * w + (line - h) + 1

    for i in range(h):  # decided cells (rows carry every cell)
        W, K = state[2 * i], state[2 * i + 1]
        for j in range(w):
            white, black = W >> j & 1, K >> j & 1
            if not (white or black):
                return None
            if white != black:
                clauses.append([i * w + j + 1] if black else [-(i * w + j + 1)])
    for line, spec in enumerate(eng.specs):
        n, lens = spec[0], spec[1]
        masks = [state[2 * line], state[2 * line + 1]]
        if not lens:
            clauses.extend([-cell(line, p)] for p in range(n))
            continue
        found = valid_starts(spec, masks)
        if found is None:
            return None
        starts = [[p for p in range(n) if v >> p & 1] for v in found]
        svar: list[dict[int, int]] = []
        for ps in starts:
            d = {}
            for p in ps:
                top += 1
                d[p] = top
            svar.append(d)
            clauses.append(list(d.values()))             # at least one start
            vs = list(d.values())
            for a in range(len(vs)):                     # at most one
                for b in range(a + 1, len(vs)):
                    clauses.append([-vs[a], -vs[b]])
        cover: list[list[int]] = [[] for _ in range(n)]
        for k, d in enumerate(svar):
            L = lens[k]
            for p, v in d.items():
                for c in range(p, p + L):
                    clauses.append([-v, cell(line, c)])
                    cover[c].append(v)
                if p > 0:
                    clauses.append([-v, -cell(line, p - 1)])
                if p + L < n:
                    clauses.append([-v, -cell(line, p + L)])
                if k + 1 < len(svar):                    # the next block starts past the gap
                    clauses.append([-v] + [u for q, u in svar[k + 1].items() if q >= p + L + 1])
                if k > 0:                                # the previous one ends before it
                    Lp = lens[k - 1]
                    clauses.append([-v] + [u for q, u in svar[k - 1].items() if q + Lp + 1 <= p])
        for c in range(n):                               # a black cell is covered by a block
            clauses.append([-cell(line, c)] + cover[c])
    return Residual(clauses, top, h, w)


def probe_clauses(eng, state: Sequence[int], limit: int = 200_000) -> list[list[int]] | None:
    """Binary clauses ``cell literal -> implied cell literal`` from probing every undecided cell
    both ways on ``state`` (line solving's reach, which unit propagation in the CNF lacks; as
    nonosolve adds them), units for probes that contradict; at most ``limit`` literals. None
    when both colours of a cell contradict (the state has no solution)."""
    h, w = eng.h, eng.w
    out: list[list[int]] = []
    lits = 0
    for i in range(h):
        W, K = state[2 * i], state[2 * i + 1]
        open_ = W & K
        while open_:
            j = (open_ & -open_).bit_length() - 1
            open_ &= open_ - 1
            v = i * w + j + 1
            failed = 0
            for ci, lit in ((1, v), (0, -v)):
                child = list(state)
                eng.assign(child, i, j, ci)
                if not eng.propagate(child, (i, h + j)):
                    out.append([-lit])
                    failed += 1
                    continue
                for r in range(h):
                    dW, dK = state[2 * r] & ~child[2 * r], state[2 * r + 1] & ~child[2 * r + 1]
                    # a cell that lost white became black, one that lost black became white
                    while dW:
                        c = (dW & -dW).bit_length() - 1
                        dW &= dW - 1
                        if r * w + c + 1 != v:
                            out.append([-lit, r * w + c + 1])
                    while dK:
                        c = (dK & -dK).bit_length() - 1
                        dK &= dK - 1
                        if r * w + c + 1 != v:
                            out.append([-lit, -(r * w + c + 1)])
                lits += 2 * len(out)
                if lits > limit:
                    return out
            if failed == 2:
                return None
    return out


def _grid(eng, model: set[int], res: Residual) -> Grid:
    black, white = eng.colours[1], eng.colours[0]
    w = res.w
    return tuple(tuple(black if (i * w + j + 1) in model else white for j in range(w))
                 for i in range(res.h))


@dataclass(frozen=True)
class CdclResult:
    solutions: tuple[Grid, ...]  # new solutions (not among those given)
    exhausted: bool              # no other solution in the state
    conflicts: int


def solve_residual(eng, state: Sequence[int], known: Sequence[Grid], max_solutions: int,
                   end: float | None) -> CdclResult:
    """Solutions within ``state`` other than ``known``, until ``len(known) + new`` reaches
    ``max_solutions`` or none is left. Raises :class:`OutOfTime` at ``end`` (perf_counter)."""
    from pysat.solvers import Solver

    res = residual_cnf(eng, state)
    extra = probe_clauses(eng, state) if res is not None and PROBE_CLAUSES else []
    if res is None or extra is None:
        return CdclResult((), True, 0)
    cells = res.h * res.w
    black = eng.colours[1]

    def block(g: Grid) -> list[int]:
        return [-(i * res.w + j + 1) if v == black else i * res.w + j + 1
                for i, row in enumerate(g) for j, v in enumerate(row)]

    new: list[Grid] = []
    with Solver(name=SOLVER, bootstrap_with=res.clauses + extra) as s:
        for g in known:
            s.add_clause(block(g))
        while len(known) + len(new) < max_solutions:
            got = _search(s, end)
            if not got:
                return CdclResult(tuple(new), True, _conflicts(s))
            model = set(x for x in s.get_model()[:cells] if x > 0)
            g = _grid(eng, model, res)
            new.append(g)
            s.add_clause(block(g))
        return CdclResult(tuple(new), False, _conflicts(s))


def _conflicts(s) -> int:
    try:
        return int(s.accum_stats().get("conflicts", 0))
    except Exception:  # noqa: BLE001 - statistics are optional
        return 0


def _search(s, end: float | None) -> bool:
    """True (a model) or False (none); slices with SIGINT blocked, OutOfTime at ``end``."""
    budget = FIRST_BUDGET
    while True:
        if end is not None and time.perf_counter() >= end:
            raise OutOfTime("cdcl")
        s.conf_budget(budget)
        t = time.perf_counter()
        got = _blocked(lambda: s.solve_limited(expect_interrupt=True))
        took = time.perf_counter() - t
        if got is not None:
            return got
        rate = budget / max(took, 1e-4)
        budget = int(max(MIN_BUDGET, min(rate * SLICE_S, 4 * budget)))


def _blocked(call):
    """``call()`` with SIGINT blocked on the main thread (so that pysat's handler never runs);
    a Ctrl-C that came meanwhile is delivered, as KeyboardInterrupt, when it is unblocked."""
    main = threading.current_thread() is threading.main_thread()
    if not main or not hasattr(signal, "pthread_sigmask"):
        return call()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return call()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
