"""The CDCL fallback of the line search: the residual puzzle of a propagated state as CNF for a
clause-learning SAT solver (python-sat's CaDiCaL 1.9.5 or Glucose 4, :data:`MODES`), solved
when depth-first search has spent its budget.

Random puzzles (the TAAI / TCGA / ICGA tournament sets) leave large undecided regions after
line solving and probing, where a depth-first search with chronological backtracking can take
seconds to minutes; a clause-learning solver on what is left takes milliseconds (nonosolve, the
strongest public solver, falls back the same way). Black-and-white puzzles only.

The encoding works on the state, not the clues (:func:`residual_cnf`: nonosolve's order
encoding over the valid starts the compiled core leaves), plus binary clauses from probing
every open cell both ways (:func:`probe_clauses`). Decided cells are unit clauses. Every model
is a grid whose rows and columns are placements of their clues, i.e. a solution, and every
solution within the state is a model.

Time limit and Ctrl-C: python-sat's solvers, on the main thread, swap Python's SIGINT handler
for one that ``longjmp``s out of the C++ solver and can leave the process hung
(``backends/sat.py``), and CaDiCaL cannot be interrupted from another thread. So the search runs in slices bounded by a conflict budget, with
``expect_interrupt=True`` (pysat then leaves Python's handler in place: with its own, a Ctrl-C
crashed the process, SIGSEGV in 2 of 2 runs) and SIGINT blocked (where the platform lets us), the
deadline and a pending Ctrl-C looked at between slices. A slice's length is aimed at the mode's ``slice_s`` (:data:`MODES`) by the rate
the previous one showed. A first solution's mode (since the eighth step) instead makes one
uninterrupted solve call in a forked worker process, killed at the deadline or on Ctrl-C
(:class:`_Worker`): slices cost CaDiCaL its schedule, and their budgets, set from a measured
rate, made the same puzzle take 1.2-12 s from run to run.
"""
from __future__ import annotations

import functools
import signal
import threading
import time
from dataclasses import dataclass
from collections.abc import Sequence

from ..runtime.clock import OutOfTime
from ..puzzle import Grid
from .engine import CACHE_SIZE
from .settle import valid_starts

SECOND_AFTER_S = 1.0   # CPU of the first solver before the second one joins (_Portfolio)
FIRST_BUDGET = 200     # conflicts in the first slice
MIN_BUDGET = 20


@dataclass(frozen=True)
class Mode:
    """How the residual is solved: ``encoding`` (:func:`residual_cnf`), the solver that joins
    ``solver`` after :data:`SECOND_AFTER_S` ("" none), the aimed CPU of one slice, and at
    most how many literals of probe clauses."""
    encoding: str
    second: str
    slice_s: float
    probe_literals: int
    running: bool  # probe_clauses' running count
    solver: str = "glucose4"  # pysat's name of the first solver
    options: tuple[tuple[str, int], ...] = ()  # the solver's own options (CaDiCaL's configure)
    worker: bool = False  # one solve call in a forked worker (:class:`_Worker`), not slices
    phases: bool = False  # belief-propagation phases on every variable (:mod:`.phases`)
    # further CaDiCaL configurations that take turns with the first in the worker (:func:`_turns`):
    # each its own options and whether it takes the phases; ``turn`` conflicts in a first turn.
    # Only in the worker: where there is none (:meth:`_Worker.possible`) the first runs alone.
    others: tuple[tuple[tuple[tuple[str, int], ...], bool], ...] = ()
    turn: int = 0

# By whether a further solution is asked for (``max_solutions`` > 1, uniqueness). For a first
# solution (the tournament rules) the order encoding and CaDiCaL 1.9.5 in slices of about half a
# second (in stable mode since the sixth step, below): paired against the earlier valid-starts
# encoding with Glucose on every 10th puzzle of seven tournament sets, 0.765 of its CPU
# (0.61-0.92 per set; docs/line_core.md, fifth step).
# CaDiCaL needs long slices: with 50 ms slices it took 42 s on six hard residuals against 15 s
# with half a second. For uniqueness, proving that no other solution exists, the order
# encoding with Glucose, which decided more of the survey and MiniZinc puzzles, faster.
# Two solvers side by side crashed the process on Ctrl-C (SIGSEGV in Glucose's destructor after
# the interrupt, webpbn #22336 with uniqueness, 2 of 3 runs): one solver per mode.
NAMED_MODES = {
    "starts-glucose": Mode("starts", "", 0.05, 200_000, True),  # first solutions, until 2026-12
    "order-cadical": Mode("order", "", 0.5, 200_000, True, "cadical195"),
    "order-glucose": Mode("order", "", 0.25, 2_000_000, False),  # uniqueness
    "order-cadical-all": Mode("order", "", 0.5, 2_000_000, False, "cadical195"),
    "order-cadical-stable": Mode("order", "", 0.5, 200_000, True, "cadical195",
                                 (("stabilizeonly", 1),)),
    # every probe clause in stable mode: 261.4 s against 264.0 s (0.990) on every 10th puzzle of
    # all 28 sets, not switched (docs/line_core.md, eighth step)
    "order-cadical-stable-all": Mode("order", "", 0.5, 2_000_000, False, "cadical195",
                                     (("stabilizeonly", 1),)),
    "order-cadical-stable-all-worker": Mode("order", "", 0.5, 2_000_000, False, "cadical195",
                                            (("stabilizeonly", 1),), worker=True),
    "order-cadical-stable-all-worker-bp": Mode("order", "", 0.5, 2_000_000, False, "cadical195",
                                               (("stabilizeonly", 1),), worker=True,
                                               phases=True),
    # the same, taking turns (:func:`_turns`) with another seed and with no phases
    "order-cadical-stable-all-worker-bp-turns": Mode(
        "order", "", 0.5, 2_000_000, False, "cadical195", (("stabilizeonly", 1),), worker=True,
        phases=True, others=(((("stabilizeonly", 1), ("seed", 1)), True),
                             ((("stabilizeonly", 1),), False)), turn=40_000),
}
# CaDiCaL's ``stabilizeonly`` (stable mode throughout: target phases and reluctant doubling
# restarts, as its ``--sat`` configuration sets for satisfiable formulas, which a first
# solution's residual is) paired against its default on every 10th puzzle of all 28 sets:
# 271.3 s against 312.2 s CPU, 0.869 (bootstrap 95 % interval 0.80-0.95; docs/line_core.md).
# Since the eighth step, with every probe clause and one solve call in a worker (:class:`_Worker`):
# 256.7 s against 272.0 s, 0.944 (0.87-1.01), and the same work on every run (the slices' budgets
# follow the measured rate, so a hard residual took 1.2-12 s from run to run). Since the ninth,
# with belief-propagation phases on every variable (:mod:`.phases`): 206.8 s against 245.0 s,
# 0.844 (0.78-0.90), no puzzle over 5 s (two before). Since the eleventh, taking turns with
# another seed and with no phases (:func:`_turns`, from 40,000 conflicts): on the 225 residuals
# of every 10th puzzle of the 28 sets 48.1 s against 47.1 s of CDCL CPU; on the 40 puzzles that
# took longest in the whole-set runs 65.8 s against 80.1 s, the worst 5.2 s instead of 13.6 s.
MODES = {False: NAMED_MODES["order-cadical-stable-all-worker-bp-turns"],
         True: NAMED_MODES["order-glucose"]}
PROBE_CLAUSES = True  # 50 of taai2011's second half: 14.6 s CPU with them, 17.3 s without


@dataclass(frozen=True)
class Residual:
    """The CNF of a state: cell (i, j) black is variable ``i * w + j + 1``."""
    clauses: list[list[int]]
    variables: int
    h: int
    w: int


_TRUE, _FALSE = True, False  # constant literals while a clause is built (dropped or satisfied)


ENCODINGS = ("order", "starts")


def residual_cnf(eng, state: Sequence[int], encoding: str = "order",
                 meta: dict[int, tuple[str, int, int, int]] | None = None) -> Residual | None:
    """The residual puzzle of a black-and-white ``state`` as CNF, or None when some line has no
    placement left (the state is contradictory). ``encoding``: ``order`` (:func:`_order_cnf`) or
    ``starts`` (:func:`_starts_cnf`); both have exactly the solutions within the state.
    ``meta`` (``order`` only) receives what each variable past the cells means: ``("Y", line,
    block, p)`` the block starts at or before ``p``, ``("C", line, block, c)`` it covers ``c``."""
    if eng.C != 2:
        raise ValueError("the CDCL fallback handles black-and-white puzzles only")
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}: {', '.join(ENCODINGS)}")
    return _order_cnf(eng, state, meta) if encoding == "order" else _starts_cnf(eng, state)


def _order_cnf(eng, state: Sequence[int],
               meta: dict[int, tuple[str, int, int, int]] | None = None) -> Residual | None:
    """The ``order`` encoding of :func:`residual_cnf`, compiled (``Core.order_cnf``: the clauses
    of :func:`_order_cnf_py` in the same order; about 3 ms of a tournament residual where the
    Python version took 13-30 ms, most of it the garbage collector's passes over the clause lists,
    which the compiled version leaves untracked). The Python version where the core lacks it."""
    order_cnf = getattr(eng._core, "order_cnf", None)
    if order_cnf is None:
        return _order_cnf_py(eng, state, meta)
    got = order_cnf(list(state), meta)
    if got is None:
        return None
    clauses, top = got
    return Residual(clauses, top, eng.h, eng.w)


def _order_cnf_py(eng, state: Sequence[int],
                  meta: dict[int, tuple[str, int, int, int]] | None = None) -> Residual | None:
    """The ``order`` encoding of :func:`residual_cnf` in Python (the reference the compiled
    ``Core.order_cnf`` is tested against).

    Per line and block ``j``, *order* variables "block ``j`` starts at or before ``p``" for
    ``p`` between the block's first and last valid start (as the compiled core leaves them:
    starts consistent with every decided cell; below the first one false, from the last one on
    true); a start that is not valid is excluded by one binary clause; block ``j + 1`` at or
    before ``p`` puts block ``j`` at or before ``p - len_j - 1``; a *cover* variable per block
    and cell it can reach is "starts at or before the cell and not at or before ``len_j``
    cells earlier", paints the cell, and a black cell is covered by one of its line's blocks.
    This is nonosolve's default encoding. It proves the absence of another solution faster than
    ``starts`` (survey and MiniZinc: dom_14 decided in 4 s, not in 20 s; #2712 0.9 s against
    2.5 s; #18297 1.0 against 3.9; non_fast_9 slower, 3.3 against 1.3). On the tournament sets'
    first solutions it was not faster with Glucose (three puzzles of 300 left at the 30 s
    limit), but with CaDiCaL in half-second slices it takes 0.765 of the CPU of ``starts`` with
    Glucose (docs/line_core.md): both modes of :data:`MODES` use it."""
    h, w = eng.h, eng.w
    clauses: list[list[int]] = []
    top = h * w

    def cell(line: int, p: int) -> int:
        return line * w + p + 1 if line < h else p * w + (line - h) + 1

    def add(clause: list) -> None:  # literals, or _TRUE / _FALSE
        if _TRUE in clause:
            return
        clauses.append([x for x in clause if x is not _FALSE])

    def neg(x):
        return _FALSE if x is _TRUE else _TRUE if x is _FALSE else -x

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
        if not lens:
            clauses.extend([-cell(line, p)] for p in range(n))
            continue
        found = valid_starts(spec, [state[2 * line], state[2 * line + 1]])
        if found is None or not all(found):
            return None
        order: list[tuple[int, int, dict[int, int]]] = []  # first, last valid start, variables
        for v in found:
            lo, hi = (v & -v).bit_length() - 1, v.bit_length() - 1
            var = {}
            for p in range(lo, hi):
                top += 1
                var[p] = top
                if meta is not None:
                    meta[top] = ("Y", line, len(order), p)
            order.append((lo, hi, var))

        def at_or_before(k: int, p: int, order=order):
            lo, hi, var = order[k]
            return _FALSE if p < lo else _TRUE if p >= hi else var[p]

        for k, v in enumerate(found):
            lo, hi, var = order[k]
            for p in range(lo, hi - 1):
                clauses.append([-var[p], var[p + 1]])
            for p in range(lo + 1, hi + 1):
                if not v >> p & 1:  # not a valid start: at or before p means before p
                    add([neg(at_or_before(k, p)), at_or_before(k, p - 1)])
            if k + 1 < len(found):
                lo1, hi1, _ = order[k + 1]
                for p in range(lo1, hi1 + 1):
                    add([neg(at_or_before(k + 1, p)), at_or_before(k, p - lens[k] - 1)])
        cover: list[list[int]] = [[] for _ in range(n)]
        forced = [False] * n
        for k, (lo, hi, _) in enumerate(order):
            L = lens[k]
            for c in range(lo, hi + L):
                a, b = at_or_before(k, c), neg(at_or_before(k, c - L))
                if a is _FALSE or b is _FALSE:
                    continue
                if a is _TRUE and b is _TRUE:
                    forced[c] = True
                    continue
                top += 1
                if meta is not None:
                    meta[top] = ("C", line, k, c)
                add([-top, a])
                add([-top, b])
                add([top, neg(a), neg(b)])
                clauses.append([-top, cell(line, c)])
                cover[c].append(top)
        for c in range(n):                               # a black cell is covered by a block
            if forced[c]:
                clauses.append([cell(line, c)])
            else:
                clauses.append([-cell(line, c)] + cover[c])
    return Residual(clauses, top, h, w)


def _starts_cnf(eng, state: Sequence[int]) -> Residual | None:
    """The ``starts`` encoding of :func:`residual_cnf`: per line and block, one variable per
    valid start; exactly one start per block (pairwise); a start implies the next block starts
    past it and its gap, and the previous block before it; a start paints its cells and clears
    the cells just before and after it; a black cell is covered by some start of its line."""
    h, w = eng.h, eng.w
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


def probe_clauses(eng, state: Sequence[int], limit: int = 2_000_000,
                  running: bool = False) -> list[list[int]] | None:
    """:func:`_probe_clauses_py`, compiled (``Core.probe_clauses``: the same clauses in the same
    order, about 1 ms of a tournament residual instead of 7-11 ms); the Python version where the
    core lacks it."""
    compiled = getattr(eng._core, "probe_clauses", None)
    if compiled is None:
        return _probe_clauses_py(eng, state, limit, running)
    return compiled(list(state), limit, running, eng.deadline, CACHE_SIZE)


def _probe_clauses_py(eng, state: Sequence[int], limit: int = 2_000_000,
                      running: bool = False) -> list[list[int]] | None:
    """Binary clauses ``cell literal -> implied cell literal`` from probing every undecided cell
    both ways on ``state`` (line solving's reach, which unit propagation in the CNF lacks; as
    nonosolve adds them), units for probes that contradict; at most ``limit`` literals. None
    when both colours of a cell contradict (the state has no solution).

    ``running``: the first step's accounting, which adds after every probe all the literals so far again (so 200,000 stops after a few dozen
    probes: 800-2,200 literals on taai2011 #591, #731, #511, #901 against 1,900-4,800 for all);
    kept for a first solution, where all of them measured slower (icga2017 #631: 30 s of CPU
    against 8 s, docs/line_core.md)."""
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
                before = len(out)
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
                lits += 2 * (len(out) if running else len(out) - before)
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
                   end: float | None, mode_name: str | None = None) -> CdclResult:
    """Solutions within ``state`` other than ``known``, until ``len(known) + new`` reaches
    ``max_solutions`` or none is left, by the mode ``mode_name`` (:data:`NAMED_MODES`; by
    default :data:`MODES` by whether more than one is asked for). Raises :class:`OutOfTime` at
    ``end`` (perf_counter)."""
    mode = MODES[max_solutions > 1] if mode_name is None else NAMED_MODES[mode_name]
    problem = _problem(eng, state, mode, end)
    if problem is None:
        return CdclResult((), True, 0)
    res, extra, phases = problem
    cells = res.h * res.w
    black = eng.colours[1]

    def block(g: Grid) -> list[int]:
        return [-(i * res.w + j + 1) if v == black else i * res.w + j + 1
                for i, row in enumerate(g) for j, v in enumerate(row)]

    new: list[Grid] = []
    if mode.worker and _Worker.possible():
        models, exhausted, conflicts = _Worker.solve(
            res.clauses + extra + [block(g) for g in known], mode,
            max_solutions - len(known), cells, end, phases)
        new = [_grid(eng, set(x for x in m if x > 0), res) for m in models]
        return CdclResult(tuple(new), exhausted, conflicts)
    with _Portfolio(res.clauses + extra + [block(g) for g in known], mode, phases) as port:
        while len(known) + len(new) < max_solutions:
            model = port.solve(end)
            if model is None:
                return CdclResult(tuple(new), True, port.conflicts())
            g = _grid(eng, set(x for x in model[:cells] if x > 0), res)
            new.append(g)
            port.add_clause(block(g))
        return CdclResult(tuple(new), False, port.conflicts())


def _problem(eng, state: Sequence[int], mode: Mode, end: float | None):
    """What ``mode`` solves for ``state``: its residual CNF, the probe clauses and the phases
    (empty unless the mode takes them); None when the state is contradictory."""
    meta: dict[int, tuple[str, int, int, int]] | None = \
        {} if mode.phases and mode.encoding == "order" else None
    res = residual_cnf(eng, state, mode.encoding, meta)
    extra = probe_clauses(eng, state, mode.probe_literals, mode.running) \
        if res is not None and PROBE_CLAUSES else []
    if res is None or extra is None:
        return None
    phases: list[int] = []
    if meta is not None:
        from .phases import bp_phases
        phases = bp_phases(eng, state, meta, end=end)
    return res, extra, phases


def residual_problem(eng, state: Sequence[int], mode: Mode, end: float | None = None
                     ) -> tuple[list[list[int]], int, list[int]] | None:
    """The input a first solution's worker gets for ``state`` under ``mode`` (clauses, the
    number of cell variables, phases), or None when the state is contradictory: for
    ``bench/cdcl_turns.py``, which solves the same input under several modes."""
    problem = _problem(eng, state, mode, end)
    if problem is None:
        return None
    res, extra, phases = problem
    return res.clauses + extra, res.h * res.w, phases


class _Portfolio:
    """The mode's ``solver`` alone, then, once it has spent :data:`SECOND_AFTER_S` of CPU on the
    residual, the mode's second solver beside it on the same clauses, the two in turns of about
    the mode's slice (each the one that has had less CPU so far): a random puzzle's run time under
    one CDCL solver is heavy-tailed, and two solvers are seldom unlucky on the same puzzle
    (one uninterrupted solve of the root's residual, CPU on the loaded machine: tcga2016 #601
    Glucose 27 s, CaDiCaL 3.4 s; taai2011 #721 1.4 s against 0.2 s; #571 0.85 s against 2.3 s).
    Every clause added later (a found solution excluded) goes to both."""

    def __init__(self, clauses: list[list[int]], mode: Mode, phases: Sequence[int] = ()):
        from pysat.solvers import Solver

        self.mode = mode
        self._make = Solver
        self.clauses = clauses
        self.solvers = [_blocked(functools.partial(_new_solver, Solver, mode.solver, clauses,
                                                   mode.options, phases))]
        self.cpu = [0.0]
        self.budget = [FIRST_BUDGET]

    def __enter__(self) -> _Portfolio:
        return self

    def __exit__(self, *exc) -> None:
        for s in self.solvers:
            s.delete()

    def add_clause(self, clause: list[int]) -> None:
        self.clauses.append(clause)
        for s in self.solvers:
            s.add_clause(clause)

    def conflicts(self) -> int:
        return sum(_conflicts(s) for s in self.solvers)

    def solve(self, end: float | None) -> list[int] | None:
        """A model, or None when there is none; OutOfTime at ``end``."""
        while True:
            if end is not None and time.perf_counter() >= end:
                raise OutOfTime("cdcl")
            if len(self.solvers) == 1 and self.mode.second and self.cpu[0] >= SECOND_AFTER_S:
                # built with SIGINT blocked and Python's handler put back (see _blocked)
                self.solvers.append(_blocked(functools.partial(
                    self._make, name=self.mode.second, bootstrap_with=self.clauses)))
                self.cpu.append(0.0)
                self.budget.append(FIRST_BUDGET)
            k = min(range(len(self.solvers)), key=self.cpu.__getitem__)
            s = self.solvers[k]
            s.conf_budget(self.budget[k])
            t, c = time.perf_counter(), time.process_time()
            got = _blocked(functools.partial(_solve_limited, s))
            took = time.perf_counter() - t
            self.cpu[k] += time.process_time() - c
            if got is not None:
                return s.get_model() if got else None
            rate = self.budget[k] / max(took, 1e-4)
            self.budget[k] = int(max(MIN_BUDGET, min(rate * self.mode.slice_s, 4 * self.budget[k])))


class _Worker:
    """The residual solved by one uninterrupted ``solve`` call per model in a forked worker
    process, killed at once at the deadline or on Ctrl-C (as the ``sat`` backend's search,
    :mod:`formulations.backends.search_process`). In this process a solve can only be stopped
    between conflict-bounded slices, and each slice's call starts CaDiCaL's restart and
    inprocessing schedule again: on the eight hardest residuals of the tournament sets, three
    seeds each, one call took 48.4 s of CPU against 62.8 s in half-second slices, the worst 3.8 s
    against 7.2 s (docs/line_core.md, eighth step). The worker's CPU counts in
    :func:`~formulations.runtime.cputime.cpu_seconds` once it is joined. Not where there is no
    ``fork`` or in a daemonic process (a web solver's run, a Dask worker), which may have no
    children: there the slices run in place."""

    @staticmethod
    def possible() -> bool:
        import multiprocessing

        return ("fork" in multiprocessing.get_all_start_methods()
                and not multiprocessing.current_process().daemon)

    @staticmethod
    def solve(clauses: list[list[int]], mode: Mode, want: int, cells: int,
              end: float | None, phases: Sequence[int] = ()) -> tuple[list[list[int]], bool, int]:
        """Up to ``want`` models (their first ``cells`` literals), whether no other is left,
        and the conflicts; OutOfTime at ``end`` (perf_counter)."""
        import multiprocessing

        import pysat.solvers  # noqa: F401 - imported once here, inherited by every worker

        from ..runtime.workers import exit_text, forked_worker

        models: list[list[int]] = []
        # the deadline, Ctrl-C, an error: forked_worker kills and joins the worker
        with forked_worker(multiprocessing.get_context("fork"), _worker_main,
                           (clauses, mode, want, cells, phases), "cdcl-worker") as (worker, recv):
            while True:
                if end is not None and time.perf_counter() >= end:
                    raise OutOfTime("cdcl")
                wait = 0.05 if end is None else max(0.0, min(0.05, end - time.perf_counter()))
                if recv.poll(wait):
                    try:
                        kind, value, conflicts = recv.recv()
                    except EOFError:
                        kind = "lost"
                    if kind == "model":
                        models.append(value)
                        continue
                    if kind == "end":
                        return models, bool(value), conflicts
                    if kind == "error":
                        raise RuntimeError(f"the CDCL worker failed: {value}")
                    raise RuntimeError("the CDCL worker ended without an answer "
                                       f"({exit_text(worker.exitcode)})")
                if not worker.is_alive() and not recv.poll(0):
                    worker.join()
                    raise RuntimeError("the CDCL worker ended without an answer "
                                       f"({exit_text(worker.exitcode)})")


def _worker_main(conn, clauses: list[list[int]], mode: Mode, want: int, cells: int,
                 phases: Sequence[int] = ()) -> None:
    """:class:`_Worker`'s process: SIGINT stays blocked (its caller decides how a Ctrl-C ends;
    pysat's own handler never runs), and it dies with its caller."""
    from ..runtime.workers import die_with_parent

    die_with_parent()
    try:
        from pysat.solvers import Solver

        if want <= 0:
            conn.send(("end", False, 0))
            return
        s, sat, conflicts = _turns(Solver, clauses, mode, phases)
        found = 0
        while sat and found < want:
            model = s.get_model()[:cells]
            conn.send(("model", model, 0))
            found += 1
            s.add_clause([-x for x in model])
            if found < want:  # the next solution looked for near this one, as nonosolve does
                s.set_phases(model)
                sat = s.solve()
        conn.send(("end", not sat, conflicts + _conflicts(s)))
        s.delete()
    except Exception as exc:  # noqa: BLE001 - reported to the caller in words
        conn.send(("error", f"{type(exc).__name__}: {exc}", 0))
    finally:
        conn.close()


def _turns(make, clauses: list[list[int]], mode: Mode, phases: Sequence[int] = ()):
    """The first answer on ``clauses``: (the solver that gave it, satisfiable, the conflicts of
    the others). With ``mode.others``, the mode's own configuration and the others take turns
    on the same clauses, each resumed where it stopped, the k-th round allowing each one
    ``mode.turn * 2**k`` conflicts in all (a random residual's run time under one configuration
    is heavy-tailed, and the configurations are seldom slow on the same residual:
    docs/line_core.md, eleventh step); the first to answer is kept, the others are deleted
    (all of them if the search is interrupted)."""
    configs = [(mode.options, mode.phases)] + list(mode.others)
    if len(configs) == 1:
        s = _new_solver(make, mode.solver, clauses, mode.options, phases)
        return s, s.solve(), 0
    solvers: list = [None] * len(configs)
    spent = [0] * len(configs)
    limit = max(1, mode.turn)
    won = -1
    try:
        while True:
            for k, (options, with_phases) in enumerate(configs):
                if solvers[k] is None:
                    solvers[k] = _new_solver(make, mode.solver, clauses, options,
                                             phases if with_phases else ())
                s = solvers[k]
                # pysat passes the budget on as a C int, and 0 would mean none
                s.conf_budget(min(max(1, limit - spent[k]), 2**31 - 1))
                got = _solve_limited(s)
                spent[k] = _conflicts(s)
                if got is not None:
                    won = k
                    others = sum(_conflicts(t) for j, t in enumerate(solvers)
                                 if t is not None and j != k)
                    return s, got, others
            limit *= 2
    finally:
        for j, t in enumerate(solvers):
            if t is not None and j != won:
                t.delete()


def _new_solver(make, name: str, clauses: list[list[int]], options: tuple[tuple[str, int], ...],
                phases: Sequence[int] = ()):
    """pysat's solver ``name`` on ``clauses``, given the solver's own ``options`` and preferred
    literals ``phases``."""
    s = make(name=name, bootstrap_with=clauses)
    if options:
        s.configure(dict(options))
    if phases:
        s.set_phases(list(phases))
    return s


def _solve_limited(s) -> bool | None:
    """``s.solve_limited()`` within its budget, with no signal handler of pysat's: for the
    MiniSat family ``expect_interrupt=True`` says so; pysat's CaDiCaL classes ignore it and
    install their own SIGINT handler on the main thread, so for them the call pysat makes is
    made with that flag off (a precaution: a Ctrl-C with CaDiCaL beside Glucose crashed the
    process, SIGSEGV, docs/line_core.md). The caller blocks SIGINT meanwhile (:func:`_blocked`)."""
    native = getattr(s, "solver", s)
    lim = _cadical_solve_lim(type(native).__name__)
    if lim is None:
        return s.solve_limited(expect_interrupt=True)
    status = lim(native.cadical, [], 0)
    native.status = None if status == 0 else status > 0
    return native.status


def _cadical_solve_lim(cls: str):
    """pysat's C entry for a CaDiCaL class's limited solve, or None (not CaDiCaL, or a pysat
    without it: then its public call)."""
    if not cls.startswith("Cadical"):
        return None
    from pysat.solvers import pysolvers

    return getattr(pysolvers, f"{cls.lower()}_solve_lim", None)


def _conflicts(s) -> int:
    try:
        return int(s.accum_stats().get("conflicts", 0))
    except Exception:  # noqa: BLE001 - statistics are optional
        return 0


def _blocked(call):
    """``call()`` with SIGINT blocked on the main thread (so that pysat's handler never runs);
    a Ctrl-C that came meanwhile is delivered, as KeyboardInterrupt, when it is unblocked."""
    main = threading.current_thread() is threading.main_thread()
    if not main or not hasattr(signal, "pthread_sigmask"):
        return call()
    handler = signal.getsignal(signal.SIGINT)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return call()
    finally:
        # Python's handler put back before unblocking, should the call have set another
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
