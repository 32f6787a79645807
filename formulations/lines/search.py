"""Probing and depth-first search on top of the line-solving fixed point (seeds 000 and 004,
and the way Jan Wolter's pbnsolve searches).

One depth-first search; every node is a propagated state. At a node the search

1. **probes** (``probing=True``): sets one undecided cell to one of its colours, propagates, and
   looks at what happens. Cells are probed in pbnsolve's order: the neighbours of the cells that
   changed most recently, then of every cell changed since the node's parent, then every
   undecided cell with at least two decided neighbours (the grid's edge counts as decided). A
   (cell, colour) that an earlier probe of the same sequence implied is skipped: its
   consequences are a subset of that probe's. The *first* probe that contradicts ends the
   sequence: its colour is removed from the cell (a failed literal), the node propagates that
   and starts a new sequence. A probe that completes the grid is a solution, and its colour is
   then removed the same way (that branch has been explored). A probe made again after a
   failed literal starts from its earlier result narrowed by the node's new state (the same
   fixed point, reached from the few lines that changed);
2. **branches** when a whole sequence finds no contradiction (or at once without probing): on a
   cell and colour chosen by the ``guess`` rule (:data:`GUESS_RULES`); the first child is the
   cell with that colour (a probe's propagated state when there is one), the second the cell
   without it.

The guess rules:

* ``probability`` (seed 004's): every line's valid placements are counted per cell
  (exactly, by prefix and suffix counts), the row's and the column's shares of placements that
  give the cell each colour are multiplied and normalised, and the cell whose likeliest colour
  is nearest to one half is guessed (the further from 50 %, the more it is penalised), that
  colour first;
* ``hybrid`` (the default): the probability rule's :data:`HYBRID_CANDIDATES` first cells are
  probed both ways and the one whose two probes cut the most (the larger smaller cut) is
  guessed, the colour whose probe cut less first. Against ``probability`` on the MiniZinc set
  (``bench/pbnsolve_bench.py --variants probability,hybrid``, 15 s): geometric-mean ratio to
  pbnsolve 2.27 against 3.06, and no heavy tail (non_fast_6 0.4 s against 12.8 s, non_fast_5
  0.25 s against none in 15 s); on the survey 0.93 against 0.98, #2712 2.9 s against 9.6 s;
* ``pbnsolve``: pbnsolve's: the best probe of the sequence (the fewest colour bits left), and in
  sprints (below) Simpson's rule;
* ``balanced``: the cell whose two colours were both probed and both cut the most (the larger
  smaller reduction, then the larger larger one), else the best probe;
* ``simpson``: pbnsolve's heuristic guess (its rule G4, after Steve Simpson): a line scores
  ``(slack + 1) * (blocks + 1) - length - 2`` minus its decided cells, the cell with the smallest
  row + column score is guessed, with the colour that has the most cells still to place in its
  row and column;
* ``tight``: a cell of the line with the fewest undecided cells (this package's earlier cheap
  search), the colour with the most cells still to place.

``sprints=True`` adds pbnsolve's plod/sprint switch: every :data:`PLOD_LENGTH` branches the
search looks at the share of probe sequences since the last look that ended in a branch rather
than a contradiction; at :data:`SPRINT_RATE` or more, probing is not paying and the next
:data:`SPRINT_LENGTH` branches are guessed without probing (by the rule; ``pbnsolve`` uses
Simpson's there).

``backjump=True`` tracks, per line, the set of decisions its narrowed cells follow from (a line
update passes its line's set on to the lines it narrows) and backjumps on it: a branch whose
first child fails for reasons that do not include the branch's own decision fails at once,
without trying the second child. A failed literal is recorded as following from the probe's
conflict minus the probe itself, as in conflict-directed backjumping.

The search is complete: it proves infeasibility and, asked for two solutions, uniqueness (the
same depth-first search goes on after the first solution, as pbnsolve's ``-u`` does).

``cdcl_after=N`` (black-and-white puzzles; :data:`CDCL_AFTER` by default, None: never): when
the depth-first search has made ``N`` nodes without settling the question, the rest is handed to
a clause-learning SAT solver (:mod:`.cdcl`) on the root's propagated state, with the solutions
found so far excluded: it finds the remaining ones up to ``max_solutions`` or proves there are
none, as the search would have. Puzzles the search settles within ``N`` nodes are solved exactly
as without it (same nodes, same grids); random puzzles (the tournament sets), where the search
can take seconds, take milliseconds to a second this way.
"""
from __future__ import annotations

import functools
import gc
import sys
import time
from dataclasses import dataclass

from formulations.runtime.clock import Deadline, OutOfTime
from ..puzzle import Grid, Puzzle
from ..results import Status
from . import engine as _engine
from .engine import Engine

State = list[int]

GUESS_RULES = ("probability", "hybrid", "pbnsolve", "balanced", "simpson", "tight")
DEFAULT_GUESS = "hybrid"

PLOD_LENGTH = 40      # branches between two looks at how well probing pays
SPRINT_RATE = 0.12    # share of probe sequences ending in a branch from which probing stops paying
SPRINT_LENGTH = 4000  # branches guessed without probing in one sprint
CDCL_AFTER = 50     # search nodes before the rest goes to the CDCL solver (cdcl_after)
# the compiled search's probes before the CDCL fallback: for uniqueness (max_solutions > 1) and
# for a first solution (with restarts, below). A first solution's was 400,000 (nonosolve's
# 200,000 probe pairs) until the CDCL fallback's phases were compiled; since, 300,000 took 0.957
# of its CPU (95 % interval 0.943-0.973) and 200,000 0.962 (0.932-0.994), every 10th puzzle of
# all 28 tournament sets (docs/line_core.md, tenth step)
COMPILED_PROBES = 200_000
COMPILED_PROBES_FIRST = 300_000
COMPILED_INCREMENTAL = True  # compiled: a cell's probes made again only when their lines changed
# compiled, first solution: Luby restarts of this many nodes a unit (0: none). With 400,000
# probes (then the budget), paired against none and 200,000 on every 10th puzzle of all 28 tournament sets, twice:
# 0.918 of the CPU (95 % interval 0.86-0.98), CDCL reached 190-200 times instead of 340-348
# (docs/line_core.md, seventh step)
COMPILED_RESTART_BASE = 300
COMPILED_ORDER = 3  # compiled: the first colour (0 white, 1 black, 2 larger cut, 3 smaller cut)
# compiled: skip a colour an earlier probe of the pass implied (off: both colours of every cell
# probed, so every cell has both cuts for the branching score and for incremental reuse)
COMPILED_SKIP_IMPLIED = False
CDCL_FIRST_FROM_NARROWED = False  # a first solution's CDCL from the root as the search narrowed it
HYBRID_CANDIDATES = 6  # cells the hybrid rule takes from the probability rule and probes
CELLS_PER_CLOCK_READ = 4096  # open cells scored between two reads of the clock (~5 ms here)


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
    failed_literals: int = 0    # probes that contradicted (their colour removed from the cell)
    sequences: int = 0          # probe sequences
    guesses: int = 0            # branches made without probing (sprints, probing off)
    sprints: int = 0
    backjumps: int = 0          # second children skipped by backjumping
    reused: int = 0             # probes answered by an earlier probe's state unchanged
    cdcl: bool = False          # the CDCL fallback settled the rest (cdcl_after)
    compiled: bool = False      # the compiled search (Core.dfs) ran instead of _Search
    agreed: int = 0             # compiled: cells both colours' probes agreed on (applications)

    def info(self) -> dict:
        """Counters for a result record."""
        return {"nodes": self.nodes, "probes": self.probes, "line_solves": self.line_solves,
                "max_depth": self.max_depth, "root_unknown": self.root_unknown,
                "exhausted": self.exhausted, "timed_out": self.timed_out,
                "failed_literals": self.failed_literals, "probe_sequences": self.sequences,
                "guesses": self.guesses, "sprints": self.sprints, "backjumps": self.backjumps,
                "probes_reused": self.reused, "cdcl": self.cdcl, "compiled": self.compiled,
                "agreed": self.agreed}


class _Enough(Exception):
    pass


class _Budget(Exception):
    """The search made ``cdcl_after`` nodes: the rest goes to the CDCL solver."""


_NARROWED, _BRANCH = "narrowed", "branch"  # what a probe sequence ended with


class _Search:
    """The depth-first search of one solve (see the module docstring)."""

    def __init__(self, eng: Engine, max_solutions: int, clock: Deadline, guess: str,
                 probing: bool, sprints: bool, backjump: bool, cdcl_after: int | None = None):
        self.eng = eng
        self.cdcl_after = cdcl_after
        self.solutions: dict[Grid, None] = {}
        self.max_solutions = max_solutions
        self.end = clock.end
        self.probing = probing
        self.sprints = sprints and probing
        self.backjump = backjump
        self.rule = guess
        static = {"probability": self._guess_probability, "simpson": self._guess_simpson,
                  "tight": self._guess_tight, "hybrid": self._guess_probability}
        self.guess_rule = static.get(guess, self._guess_simpson)  # pbnsolve, balanced: Simpson
        self.by_probe = guess in ("pbnsolve", "balanced", "hybrid")
        self.nodes = self.probes = self.max_depth = 0
        self.failed = self.sequences = self.guesses = self.nsprints = 0
        self.reused = self.jumps = 0
        self.agreed = 0  # the compiled search's both-colours agreements (_run_compiled)
        self.done = eng.h * eng.w  # colour bits left in a fully decided grid
        # per line: (slack + 1) * (blocks + 1) - length - 2 (Simpson's score before solved cells)
        self.simpson = [(n - sum(lens) - max(len(lens) - 1, 0) + 1) * (len(lens) + 1) - n - 2
                        for n, lens, _, _ in eng.specs]
        # per line and colour index: cells of that colour the clue paints
        C = eng.C
        self.paint = []
        for n, lens, cidx, _ in eng.specs:
            counts = [0] * C
            for L, ci in zip(lens, cidx):
                counts[ci] += L
            counts[0] = n - sum(lens)
            self.paint.append(counts)
        self._plod_clock = PLOD_LENGTH
        self._sprint_left = 0
        self._seq_mark = self._best_mark = 0
        self._best_seqs = 0  # sequences that ended in a branch
        self._prob_cache: dict = {}

    # -- bookkeeping -------------------------------------------------------------------------
    def tick(self) -> None:
        if self.end is not None and time.perf_counter() > self.end:
            raise OutOfTime("search")

    def found(self, state: State) -> None:
        self.solutions.setdefault(self.eng.grid(state), None)
        if len(self.solutions) >= self.max_solutions:
            raise _Enough

    def colours_at(self, state: State, i: int, j: int) -> list[int]:
        C = self.eng.C
        return [ci for ci in range(C) if state[i * C + ci] >> j & 1]

    def remove(self, state: State, i: int, j: int, ci: int) -> int:
        """Remove colour index ``ci`` from cell (i, j) in place (no propagation); bits removed."""
        eng = self.eng
        C, h = eng.C, eng.h
        bit = 1 << j
        if not state[i * C + ci] & bit:
            return 0
        state[i * C + ci] &= ~bit
        state[(h + j) * C + ci] &= ~(1 << i)
        return 1

    # -- the tree ----------------------------------------------------------------------------
    def run(self, root: State) -> bool:
        """Search from the propagated ``root``; True when the tree was exhausted (False when
        enough solutions were found). Raises OutOfTime at the deadline."""
        eng = self.eng
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, eng.h * eng.w + 1000))  # one frame per search level
        deps = [0] * eng.nlines if self.backjump else None
        # the search makes no reference cycles, but its probes make hundreds of thousands of
        # lists and tuples, on which the cyclic collector spent about a sixth of the search's
        # CPU (issue 42): it is off during the search, back on (if it was) afterwards
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._node(root, deps, eng.bits(root), None, eng.initial_state(), 0)
        except _Enough:
            return False
        finally:
            sys.setrecursionlimit(limit)
            if collecting:
                gc.enable()
        return True

    def _node(self, state: State, deps: list[int] | None, bits: int, lines, ref: State,
              depth: int) -> int:
        """The subtree of one node (``state``, to be propagated from ``lines`` unless None;
        ``ref`` its parent's state). With ``deps`` (backjumping), ``deps[line]`` is the set of
        decision levels (bit ``d`` for the branch made at depth ``d - 1``) the line's narrowed
        cells follow from, and the answer is the set of levels the subtree's failure follows
        from, or every level up to ``depth`` when it held a solution."""
        eng = self.eng
        h = eng.h
        self.tick()
        if self.cdcl_after is not None and self.nodes >= self.cdcl_after:
            if _has_sat_solver():
                raise _Budget
            self.cdcl_after = None  # python-sat is not installed: the search goes on alone
        self.nodes += 1
        if depth > self.max_depth:
            self.max_depth = depth
        everything = (1 << (depth + 1)) - 1
        if lines is not None:
            if not eng.propagate(state, lines, deps=deps):
                return eng.conflict if deps is not None else everything
            bits -= eng.removed
        B = 1 << (depth + 1)  # the level of this node's probes and branch
        found = False
        memo: dict = {}
        recent = ref
        while True:
            if bits == self.done:
                self.found(state)
                return everything
            if self.probing and self._sprint_left <= 0:
                got = self.probe(state, deps, bits, ref, recent, memo, B)
                if got is None:
                    return everything if found or deps is None else eng.conflict
                if got[0] is _NARROWED:
                    recent, bits = got[1], got[2]
                    if recent is None:  # a probe found a solution, then its colour was removed
                        found, recent = True, ref
                    continue
                if self.rule == "hybrid":
                    got = self._hybrid(state, deps, bits, memo, B, self.sequences)
                    if got is None:
                        return everything if found or deps is None else eng.conflict
                    if got[0] is _NARROWED:
                        recent, bits = got[1], got[2]
                        if recent is None:
                            found, recent = True, ref
                        continue
                self._after_probed_branch()
                if self.by_probe and got[2] is not None:
                    i, j, ci, child, cdeps, cbits = got[2]
                else:
                    i, j, ci = self.guess_rule(state)
                    old = memo.get((i, j, ci))
                    if old is not None and old[3] == self.sequences:  # probed on this state
                        child, cdeps, cbits = eng._core.unpack(old[0]), old[1], old[2]
                    else:
                        child = None
            else:
                i, j, ci = self.guess_rule(state)
                self.guesses += 1
                if self._sprint_left > 0:
                    self._sprint_left -= 1
                    if self._sprint_left == 0:
                        self._plod_clock = PLOD_LENGTH
                child = None
            if child is None:
                child = state.copy()
                cbits = bits - eng.assign(child, i, j, ci)
                if deps is not None:
                    cdeps = deps.copy()
                    cdeps[i] |= B
                    cdeps[h + j] |= B
                else:
                    cdeps = None
                first = self._node(child, cdeps, cbits, (i, h + j), state, depth + 1)
            else:
                first = self._node(child, cdeps, cbits, None, state, depth + 1)
            if deps is None:
                why = 0
            else:
                if not first & B:
                    self.jumps += 1
                    return everything if found else first
                why = first & ~B
                deps[i] |= why
                deps[h + j] |= why
            before = state.copy()
            sbits = bits - self.remove(state, i, j, ci)
            second = self._node(state, deps, sbits, (i, h + j), before, depth + 1)
            return everything if found or deps is None else why | second

    def _after_probed_branch(self) -> None:
        """pbnsolve's plod/sprint switch, looked at every PLOD_LENGTH probed branches."""
        self._best_seqs += 1
        if not self.sprints:
            return
        self._plod_clock -= 1
        if self._plod_clock > 0:
            return
        seqs = self.sequences - self._seq_mark
        best = self._best_seqs - self._best_mark
        self._seq_mark, self._best_mark = self.sequences, self._best_seqs
        if seqs and best / seqs >= SPRINT_RATE:
            self._sprint_left = SPRINT_LENGTH
            self.nsprints += 1
        else:
            self._plod_clock = PLOD_LENGTH

    # -- probing -----------------------------------------------------------------------------
    def probe(self, state: State, deps: list[int] | None, bits: int, ref: State, recent: State,
              memo: dict, B: int):
        """One probe sequence at a node. Returns None (the node is dead; with ``deps``,
        ``eng.conflict`` says why), ``(_NARROWED, before, bits)`` after a failed literal was
        applied (``before``: the state before it; None when the probe found a solution
        instead), or ``(_BRANCH, best, choice)``: the best probe and the one the guess rule
        would branch on (the same but for ``balanced``), each ``(i, j, ci, child state, child
        deps, child bits)``.

        ``memo`` maps (i, j, ci) to an earlier probe's result at this node, ``(state, deps,
        bits, sequence)`` (without ``deps`` the state is packed: ``eng._core.unpack`` makes it a
        list): a probe made again narrows that state by the node's and propagates
        from the lines the narrowing changed; when nothing changed it is that state as it is.
        ``B`` is the probes' decision level (with ``deps``)."""
        eng = self.eng
        C = eng.C
        self.sequences += 1
        seq = self.sequences
        # compiled (Core.probe_seq): the frontier's cells (neighbours of the cells changed since
        # ``recent``, then since ``ref``, then undecided cells with two or more decided
        # neighbours, edges counting as decided), colour by colour, each skipped when an
        # earlier probe of the sequence implied the colour (C == 2: the AND of the probes'
        # states has the other colour cleared there; more colours: some probe's state leaves
        # only this colour); the first probe that contradicts or completes the grid ends it
        tick = self.tick if self.end is not None else None
        narrowed, got, probes, reused = eng._core.probe_seq(
            state, deps, bits, memo, B, seq, self.done, eng.deadline, _engine.CACHE_SIZE,
            (ref, recent, tick, self.end - time.perf_counter()
             if tick is not None and self.end is not None else 0.0))
        self.probes += probes
        self.reused += reused
        eng.removed = eng._core.removed
        if narrowed:
            i, j, ci, child = got
            if child is None and deps is not None:
                eng.conflict = eng._core.conflict
            return self._narrow(state, deps, bits, i, j, ci, child, memo, B, seq)
        best = got
        if self.rule == "balanced" and C == 2:
            return _BRANCH, best, self._balanced(state, bits, memo, seq) or best
        return _BRANCH, best, best

    def _try(self, state: State, deps: list[int] | None, bits: int, i: int, j: int, ci: int,
             memo: dict, B: int, seq: int):
        """One probe: (propagated without contradiction, its state, deps and colour bits)."""
        eng = self.eng
        if self.end is not None and time.perf_counter() > self.end:
            raise OutOfTime("search")
        # compiled (Core.try_probe): ``memo[(i, j, ci)]`` from this sequence is the answer;
        # from an earlier one, its state narrowed by this one and propagated from the lines
        # that changed (unchanged: reused as it is); else a copy of the state with the cell set,
        # propagated from its row and column; kept in ``memo`` unless it failed or completed
        ok, child, cdeps, left, probes, reused = eng._core.try_probe(
            state, deps, bits, memo, B, seq, self.done, eng.deadline, _engine.CACHE_SIZE, (i, j, ci))
        self.probes += probes
        self.reused += reused
        eng.removed = eng._core.removed
        if not ok and deps is not None:
            eng.conflict = eng._core.conflict
        return ok, child, cdeps, left

    def _narrow(self, state: State, deps: list[int] | None, bits: int, i: int, j: int, ci: int,
                child: State | None, memo: dict, B: int, seq: int):
        """Remove colour ``ci`` from cell (i, j) of the node after its probe contradicted (or,
        given the probe's complete ``child``, found a solution, which is recorded) and
        propagate: the probe sequence's ``_NARROWED`` answer, or None when the node is dead."""
        eng = self.eng
        C, h = eng.C, eng.h
        if child is not None:
            self.found(child)  # this branch is one solution, now explored
            why = B - 1  # every level: the node is not a failure
            before = None
        else:
            self.failed += 1
            why = eng.conflict & ~B if deps is not None else 0
            before = state.copy()
        other = memo.get((i, j, 1 - ci)) if C == 2 else None
        if other is not None and other[3] == seq:
            # the other colour was probed on this very state: that probe's fixed point is the
            # node's now (its facts follow from ``why`` instead of from level B)
            state[:] = eng._core.unpack(other[0])
            if deps is not None:
                deps[:] = [(d & ~B) | why if d & B else d for d in other[1]]
            del memo[(i, j, 1 - ci)]
            self.reused += 1
            return _NARROWED, before, other[2]
        if deps is not None:
            deps[i] |= why
            deps[h + j] |= why
        nbits = bits - self.remove(state, i, j, ci)
        if not eng.propagate(state, (i, h + j), deps=deps):
            return None
        return _NARROWED, before, nbits - eng.removed

    def _balanced(self, state: State, bits: int, memo: dict, seq: int):
        """The cell whose two colours were both probed on this state with the largest smaller
        reduction (then larger one); its better colour first."""
        pick = None
        score = None
        for (i, j, ci), (child, cdeps, left, s) in memo.items():
            if ci or s != seq:
                continue
            other = memo.get((i, j, 1))
            if other is None or other[3] != seq:
                continue
            a, b = bits - left, bits - other[2]
            sc = (min(a, b), max(a, b))
            if score is None or sc > score:
                score = sc
                pick = (i, j, 0, child, cdeps, left) if a >= b else \
                    (i, j, 1, other[0], other[1], other[2])
        if pick is not None:
            pick = pick[:3] + (self.eng._core.unpack(pick[3]),) + pick[4:]
        return pick

    # -- guess rules ---------------------------------------------------------------------------
    def _open_cells(self, state: State):
        eng = self.eng
        for i in range(eng.h):
            u = eng.unknown_mask(state, i)
            while u:
                low = u & -u
                u ^= low
                yield i, low.bit_length() - 1

    def _likely_colour(self, state: State, i: int, j: int) -> int:
        """pbnsolve's colour rule: the colour with the most cells still to place in the row and
        the column (ties: the lowest colour index, i.e. the background)."""
        eng = self.eng
        C, h = eng.C, eng.h
        best, best_n = -1, None
        for ci in self.colours_at(state, i, j):
            n = 0
            for line in (i, h + j):
                base = line * C
                others = 0
                for k in range(C):
                    if k != ci:
                        others |= state[base + k]
                n += self.paint[line][ci] - (state[base + ci] & ~others).bit_count()
            if best_n is None or n > best_n:
                best, best_n = ci, n
        return best

    def _guess_simpson(self, state: State) -> tuple[int, int, int]:
        eng = self.eng
        h = eng.h
        score = [s - (eng.length(line) - eng.unknown_mask(state, line).bit_count())
                 for line, s in enumerate(self.simpson)]
        col = score[h:]
        best = None
        best_s = None
        for i in range(h):
            if self.end is not None and time.perf_counter() > self.end:  # a row at a time
                raise OutOfTime("choosing a guess (scoring the open cells)")
            u = eng.unknown_mask(state, i)
            if not u:
                continue
            rs = score[i]
            while u:
                low = u & -u
                u ^= low
                j = low.bit_length() - 1
                s = rs + col[j]
                # pbnsolve scans column by column: ties go to the smaller (column, row)
                if best_s is None or s < best_s or (s == best_s and best is not None
                                                    and (j, i) < (best[1], best[0])):
                    best_s, best = s, (i, j)
        assert best is not None  # a guess is asked for only while a cell is open
        i, j = best
        return i, j, self._likely_colour(state, i, j)

    def _guess_tight(self, state: State) -> tuple[int, int, int]:
        eng = self.eng
        h = eng.h
        cnt = [eng.unknown_mask(state, line).bit_count() for line in range(eng.nlines)]
        best = None
        best_s = None
        for n, (i, j) in enumerate(self._open_cells(state)):
            if self.end is not None and not n % CELLS_PER_CLOCK_READ \
                    and time.perf_counter() > self.end:
                raise OutOfTime("choosing a guess (scoring the open cells)")
            s = min(cnt[i], cnt[h + j])
            if best_s is None or s < best_s:
                best_s, best = s, (i, j)
        assert best is not None  # a guess is asked for only while a cell is open
        i, j = best
        return i, j, self._likely_colour(state, i, j)

    def _guess_probability(self, state: State) -> tuple[int, int, int]:
        ranked = self._by_probability(state, 1)
        if not ranked:  # no count reached a cell (cannot happen on a consistent state)
            i, j = next(self._open_cells(state))
            return i, j, self._likely_colour(state, i, j)
        return ranked[0]

    def _by_probability(self, state: State, k: int) -> list[tuple[int, int, int]]:
        """The ``k`` open cells whose likeliest colour is nearest to 50 %, nearest first, each
        with that colour."""
        eng = self.eng
        end = self.end
        probs = []
        for line in range(eng.nlines):  # O(cells x blocks) a line: the clock is read per line
            if end is not None and time.perf_counter() > end:
                raise OutOfTime("choosing a guess (line placement counts)")
            probs.append(self._line_probabilities(state, line))
        # per open cell and colour index: the row's and the column's shares, combined as
        # independent evidence, normalised over the colours still possible; the k cells whose
        # likeliest colour is nearest to 50 % (compiled: Core.rank)
        ranked = eng._core.rank(state, probs, k)  # a million cells in milliseconds: one read
        if end is not None and time.perf_counter() > end:
            raise OutOfTime("choosing a guess (scoring the open cells)")
        return ranked

    def _hybrid(self, state: State, deps, bits: int, memo: dict, B: int, seq: int):
        """The ``hybrid`` rule: probe both colours of the :data:`HYBRID_CANDIDATES` cells the
        probability rule ranks first and branch on the one whose two probes cut the most (the
        larger smaller reduction, then the larger larger one), the colour whose probe cut less
        first. A candidate probe that contradicts narrows the node instead (the ``_NARROWED`` answer of :meth:`probe`)."""
        C = self.eng.C
        pick, score = None, None
        for i, j, _ in self._by_probability(state, HYBRID_CANDIDATES):
            got = []
            for ci in range(C):
                if not state[i * C + ci] >> j & 1:
                    continue
                ok, child, cdeps, left = self._try(state, deps, bits, i, j, ci, memo, B, seq)
                if not ok or left == self.done:
                    return self._narrow(state, deps, bits, i, j, ci, child if ok else None,
                                        memo, B, seq)
                got.append((bits - left, ci, child, cdeps, left))
            cuts = sorted(g[0] for g in got)
            sc = (cuts[0], cuts[-1])
            if score is None or sc > score:
                score = sc
                # the colour whose probe cut less first: the less constrained child is the
                # likelier to hold a solution (#2712, two solutions: 96 nodes and 3.1 s, against
                # 1,465 nodes and 11.7 s with the larger cut first); a unique puzzle explores
                # both children anyway
                g = min(got, key=lambda t: t[0])
                pick = (i, j, g[1], g[2], g[3], g[4])
        return _BRANCH, pick, pick

    def _line_probabilities(self, state: State, line: int) -> list[list[float]]:
        """Per colour index and cell of ``line``: the share of the line's valid placements (given
        the state) that give the cell that colour. Cached by line state."""
        eng = self.eng
        C = eng.C
        masks = tuple(state[line * C:(line + 1) * C])
        key = (eng.sids[line], masks)
        got = self._prob_cache.get(key)
        if got is None:
            if len(self._prob_cache) > 200_000:
                self._prob_cache.clear()
            got = eng._core.shares(line, masks)  # compiled: exact counts in 128 bits
            if got is None:  # a line of more than 127 cells: Python's integers
                got = placement_shares(eng.specs[line], masks)
            self._prob_cache[key] = got
        return got


def placement_shares(spec, masks) -> list[list[float]]:
    """Seed 004's probabilities for one line (lines of more than 127 cells; shorter ones are
    counted by the compiled ``Core.shares``, which the tests check against this): per colour index and cell, the share of the valid
    placements (blocks in order on cells that allow their colour, every other cell on one that
    allows the background) that paint the cell that colour. The counts are exact: prefix and
    suffix counts of placements per block and start, turned into shares at the end."""
    n, lens, cidx, gaps = spec
    C = len(masks)
    W = masks[0]
    m = len(lens)
    white = [W >> p & 1 for p in range(n)]
    fits = []
    for k in range(m):
        L = lens[k]
        M, full = masks[cidx[k]], (1 << L) - 1
        fits.append([s + L <= n and (M >> s) & full == full for s in range(n)])
    gap = [bool(gaps[k]) if k < m - 1 else False for k in range(m)]  # background after block k
    # suffix: S[k][p] = placements of blocks k.. on cells p..n-1
    S = [[0] * (n + 2) for _ in range(m + 1)]
    S[m][n] = 1
    for p in range(n - 1, -1, -1):
        S[m][p] = S[m][p + 1] if white[p] else 0
    for k in range(m - 1, -1, -1):
        L, row, nxt, fk, g = lens[k], S[k], S[k + 1], fits[k], gap[k]
        for p in range(n - 1, -1, -1):
            total = row[p + 1] if white[p] else 0
            if fk[p]:
                e = p + L
                if not g:
                    total += nxt[e]
                elif e < n and white[e]:
                    total += nxt[e + 1]
            row[p] = total
    total = S[0][0]
    shares = [[0.0] * n for _ in range(C)]
    if not total:
        return shares
    # prefix: A[p] = placements of blocks 0..k-1 on cells 0..p-1 (for the current k)
    A = [0] * (n + 1)
    A[0] = 1
    for p in range(1, n + 1):
        A[p] = A[p - 1] if white[p - 1] else 0
    paint = [[0] * (n + 1) for _ in range(C)]  # difference arrays of painting counts
    for k in range(m):
        L, ci, fk, g = lens[k], cidx[k], fits[k], gap[k]
        before_gap = k > 0 and gap[k - 1]
        nxt = S[k + 1]
        ends = [0] * (n + 1)  # placements of blocks 0..k with block k ending at e
        diff = paint[ci]
        for s in range(n):
            if not fk[s]:
                continue
            if before_gap:
                pre = A[s - 1] if s >= 1 and white[s - 1] else 0
            else:
                pre = A[s]
            if not pre:
                continue
            e = s + L
            ends[e] += pre
            if not g:
                post = nxt[e]
            else:
                post = nxt[e + 1] if e < n and white[e] else 0
            ways = pre * post
            if ways:
                diff[s] += ways
                diff[e] -= ways
        A = [0] * (n + 1)
        acc = 0
        for p in range(n + 1):
            acc = ends[p] + (acc if p and white[p - 1] else 0)
            A[p] = acc
    coloured = [0] * n
    for ci in range(1, C):
        acc = 0
        diff, out = paint[ci], shares[ci]
        for p in range(n):
            acc += diff[p]
            coloured[p] += acc
            out[p] = acc / total
    out = shares[0]
    for p in range(n):
        out[p] = (total - coloured[p]) / total
    return shares


def _run_compiled(search: _Search, root: State, max_probes: int) -> bool:
    """The compiled search (``Core.dfs``) from the propagated ``root`` (left as it is): the
    solutions go to ``search.solutions``, its counts to ``search``. True when the tree was
    explored; raises OutOfTime at the deadline and _Budget when the rest is the
    CDCL fallback's (after ``max_probes`` probes; no budget without ``search.cdcl_after`` or
    python-sat)."""
    eng = search.eng
    budget = -1
    if search.cdcl_after is not None and _sat_solver_installed():
        budget = max(0, max_probes)
    left = 0.0
    if search.end is not None:  # the C side reads a monotonic clock: it is given the time left
        left = max(search.end - time.perf_counter(), 1e-9)
    code, sols, nodes, probes, failed, agreed, depth = eng._core.dfs(
        root, search.max_solutions, -1, budget, left, _engine.CACHE_SIZE, COMPILED_RESTART_BASE,
        COMPILED_ORDER, 0.5, COMPILED_INCREMENTAL, COMPILED_SKIP_IMPLIED)
    search.nodes, search.probes, search.failed, search.max_depth = nodes, probes, failed, depth
    search.agreed = agreed
    for packed in sols:
        search.solutions.setdefault(eng.grid(eng._core.unpack(packed)), None)
    if code == 2:
        if not _has_sat_solver():  # found but not importable: the search goes on alone
            search.cdcl_after = None
            search.solutions.clear()
            return _run_compiled(search, root, max_probes)
        raise _Budget
    if code == 3:
        raise OutOfTime("search (compiled)")
    return code == 0


@functools.lru_cache(maxsize=1)
def _sat_solver_installed() -> bool:
    """python-sat is installed, asked without importing it: the compiled search decides its
    probe budget before it starts, and importing pysat.solvers costs about 7 ms, more than most
    puzzles take (measured: janko 10x10 in a fresh process, 7.8 ms against 0.8 ms); the import
    comes with the fallback, when a search reaches it."""
    import importlib.util

    return importlib.util.find_spec("pysat") is not None


@functools.lru_cache(maxsize=1)
def _has_sat_solver() -> bool:
    """python-sat is there for the CDCL fallback (the ``sat`` extra; without it the search goes
    on alone). Asked only when a search reaches ``cdcl_after`` nodes: easy puzzles never pay
    the import."""
    try:
        import pysat.solvers  # noqa: F401
    except ImportError:
        return False
    return True


def solve_lines(puzzle: Puzzle, *, max_solutions: int = 1,
                time_limit: Deadline | float | None = None, probing: bool = True,
                guess: str = DEFAULT_GUESS, sprints: bool = False,
                backjump: bool = False, cdcl_after: int | None = CDCL_AFTER,
                compiled: bool = True, compiled_probes: int | None = None,
                residual: str | None = None) -> SearchResult:
    """Find up to ``max_solutions`` distinct solutions by line solving, probing and search.

    ``exhausted`` in the result means the search proved there are no others (so with
    ``max_solutions=2`` and one solution found, that solution is unique; with none found, the
    puzzle is infeasible). On the time limit the solutions found so far are returned.
    ``guess`` is one of :data:`GUESS_RULES`; ``probing``, ``sprints``, ``backjump`` and
    ``cdcl_after`` as in the module docstring.

    ``compiled`` (black-and-white puzzles, the default rule, probing, no sprints, no
    backjumping): the depth-first search runs compiled (``Core.dfs`` in formulations/lines/_core.c,
    docs/line_core.md "A compiled search"), with ``compiled_probes`` probes before the CDCL
    fallback instead of ``cdcl_after`` nodes (none: the search alone, to the end; by default
    :data:`COMPILED_PROBES_FIRST` for a first solution, :data:`COMPILED_PROBES` otherwise).
    ``residual`` names how the CDCL fallback solves what is left (a key of
    :data:`.cdcl.NAMED_MODES`; by default :data:`.cdcl.MODES` by whether a second solution is
    asked for).
    """
    if guess not in GUESS_RULES:
        raise ValueError(f"unknown guess rule {guess!r}, choose from {', '.join(GUESS_RULES)}")
    if residual is not None:
        from .cdcl import NAMED_MODES
        if residual not in NAMED_MODES:
            raise ValueError(f"unknown residual mode {residual!r}, choose from "
                             f"{', '.join(sorted(NAMED_MODES))}")
    t0 = time.perf_counter()
    clock = Deadline.of(time_limit)
    eng = Engine(puzzle)
    if cdcl_after is not None and (eng.C != 2 or cdcl_after < 0):
        cdcl_after = None  # the CDCL encoding is black-and-white only
    search = _Search(eng, max(1, max_solutions), clock, guess, probing, sprints, backjump,
                     cdcl_after)
    used_cdcl = False
    use_compiled = (compiled and eng.C == 2 and probing and not sprints and not backjump
                    and guess == DEFAULT_GUESS and hasattr(eng._core, "dfs"))

    def result(status: Status, exhausted: bool, timed_out: bool, root_unknown: int):
        s = search
        return SearchResult(status, tuple(s.solutions), exhausted, s.nodes, s.probes,
                            eng.line_solves, s.max_depth, root_unknown,
                            time.perf_counter() - t0, timed_out, s.failed, s.sequences,
                            s.guesses, s.nsprints, s.jumps, s.reused, used_cdcl, use_compiled,
                            s.agreed)

    root = eng.initial_state()
    eng.deadline = clock if clock.end is not None else None
    try:
        ok = eng.propagate(root, eng.initial_lines())
    except OutOfTime:
        return result(Status.UNKNOWN, False, True, eng.unknown_count(eng.initial_state()))
    if not ok:
        return result(Status.INFEASIBLE, True, False, 0)
    root_unknown = eng.unknown_count(root)
    timed_out = False
    # a first solution is looked for from the root as line solving left it, as before (nothing
    # measured faster on the tournament sets; CDCL_FIRST_FROM_NARROWED, with CaDiCaL, took 1.12
    # of its CPU, docs/line_core.md sixth step); a further one from the root as the search
    # narrowed it in place: only by failed literals and by colours whose first child was
    # explored (their solutions are in ``solutions``, excluded again), so it holds every
    # solution not found yet
    start = root.copy() if (cdcl_after is not None and max_solutions <= 1
                            and not CDCL_FIRST_FROM_NARROWED) else root
    try:
        if use_compiled:
            if compiled_probes is None:
                compiled_probes = COMPILED_PROBES_FIRST if max_solutions <= 1 else COMPILED_PROBES
            exhausted = _run_compiled(search, root, compiled_probes)
        else:
            exhausted = search.run(root)
    except OutOfTime:
        exhausted, timed_out = False, True
    except _Budget:
        from .cdcl import solve_residual
        used_cdcl = True
        try:
            got = solve_residual(eng, start, list(search.solutions), search.max_solutions,
                                 clock.end, residual)
            for g in got.solutions:
                search.solutions.setdefault(g, None)
            exhausted = got.exhausted
        except OutOfTime:
            exhausted, timed_out = False, True
    finally:
        eng.deadline = None
    if search.solutions:
        status = Status.SOLVED
    elif exhausted:
        status = Status.INFEASIBLE
    else:
        status = Status.UNKNOWN
    return result(status, exhausted, timed_out, root_unknown)
