"""python-sat's CDCL solvers (CaDiCaL 1.9.5 by default) on the model translated to CNF.

The translation is mechanical, one constraint at a time, and knows nothing of nonograms. Every
constraint of the model has coefficients +1 or -1 (the builder makes no others), so it is a
cardinality constraint over literals: a term ``+v`` is the literal ``v``, a term ``-v`` is
``not v`` with the right-hand side raised by one, and ``sum(terms) <=|==|>= rhs`` becomes
``at most / exactly / at least K of these literals``. Each one is then written

* **directly**, without auxiliary variables: "at most K of n" as one clause ``(not l1 or ... or
  not l_{K+1})`` per (K+1)-subset, "at least K" as one clause per (n-K+1)-subset. The monotone
  and order constraints ``a - b <= 0`` are one binary clause each this way, a two-variable link
  ``x - a == 0`` two, a line's fixed cell one unit;
* an equality wider than that (a cell's link) **as pairs** (``links="pairs"``, the default):
  a term ``-lo`` and a term ``+hi`` where the model's ``lo - hi <= 0`` chain says ``lo``
  implies ``hi`` are one 0/1 literal ``hi and not lo`` (block k covers the cell: started by
  the cell, not ended before it); when the same chains show each side's literals mutually
  exclusive, the equality is ``OR(left) <=> OR(right)``: a clause per literal (:class:`_Pairs`);
* otherwise through **pysat.card** (a sequential counter by default) when the direct form would
  take more than ``direct_max`` clauses.

The choices were measured (``docs/sat_mip.md``; ``LINKS``, ``DIRECT_MAX``, ``CARD``). A
coefficient other than +-1 would need pysat.pb (and pypblib); the backend refuses such a model
up front.

Uniqueness: the first model's values on the variables that fix the grid
(``blocking_variables``) are excluded by one clause and the same solver (incremental, its
learnt clauses kept) is asked again. UNSAT then proves the grid unique.

Time limit and Ctrl-C: the translation and the search run in a worker process
(:mod:`formulations.backends.search_process`), killed at once on Ctrl-C and half a second past the deadline.
A thread could not do it: pysat offers ``interrupt()`` for the MiniSat family only (CaDiCaL and
Kissat raise NotImplementedError), CaDiCaL's solve holds the GIL, and on the main thread pysat
swaps Python's SIGINT handler for one that ``longjmp``s out of the C++ solver, skipping
destructors and lock releases: a Ctrl-C that landed while CaDiCaL was in malloc left the run
hung in ``free`` for good (webpbn #22336: 2 of 16 runs here, and one in CI). The worker blocks
SIGINT, so that handler never runs. Without a time limit the search is one ``solve`` call, the
same on every run. With one it runs in slices bounded by a conflict budget (``conf_budget``),
each aimed at :data:`SLICE_S` seconds by the rate the previous slice showed, the deadline
checked between them (the solver keeps its learnt clauses from one slice to the next), so that
the run ends with "unknown" rather than being killed; the kill is the backstop for CaDiCaL's
inprocessing, which the conflict budget does not bound (one slice of 55 conflicts took 11 s on
#22336).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from formulations.runtime.clock import NO_DEADLINE, Deadline
from formulations.model import Model, Sense
from formulations.options import coerce
from formulations.results import BackendError, ModelRefused, RawAnswer, Remedy

from . import search_process
from .base import Backend

INSTALL_HINT = 'pip install -e ".[sat]" (or: pip install python-sat)'
SOLVER = "cadical195"
"""pysat's name of the default solver (CaDiCaL 1.9.5); ``solver=`` takes any name or alias
pysat's ``SolverNames`` knows (``g4``, ``cd19``, ``mcb``, ...)."""
CARD = "seqcounter"
"""pysat.card encoding of the constraints too wide for direct clauses (measured against
totalizer, sortnetwrk, cardnetwrk, kmtotalizer and mtotalizer: ``docs/sat_mip.md``)."""
LINKS = "pairs"
"""How an equality wider than two terms is written: ``pairs`` (as ``OR(left) <=> OR(right)``
over literals that the model's implications show to be 0/1 and exclusive, :class:`_Pairs`;
the cardinality form where they do not) or ``card`` (always the cardinality form)."""
DIRECT_MAX = 64
"""Most clauses a constraint may take in the direct form before it goes through pysat.card."""
SLICE_S = 0.2
"""Seconds one slice of a time-limited search aims at (the deadline is checked between)."""
FIRST_BUDGET = 100
"""Conflicts of the first slice of a time-limited search. Each next one doubles while slices
are quick, so the start is deterministic (small puzzles end in it, the same way on every run);
on a large CNF 2,000 conflicts took 9 s (webpbn #22336 under load)."""
MIN_BUDGET = 10
LOAD_CHUNK = 65536
"""Clauses handed to the solver between two checks of the deadline."""
UNSLICEABLE = frozenset({"lingeling"})
"""pysat solvers without ``solve_limited`` (NotImplementedError): one ``solve`` call even with a
time limit, ended by the worker's kill at the deadline."""


@dataclass(frozen=True)
class Cnf:
    """The model in CNF: variable ``i`` of the model is SAT variable ``i + 1``, auxiliary
    variables of the cardinality encodings come after them."""
    clauses: list[list[int]]
    model_variables: int
    variables: int
    direct: int = 0      # constraints written as direct clauses
    encoded: int = 0     # constraints written through pysat.card
    paired: int = 0      # equalities written as pairs (counted in ``direct`` too)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def auxiliary(self) -> int:
        return self.variables - self.model_variables

    def describe(self) -> str:
        return (f"{len(self.clauses):,} clauses over {self.variables:,} variables "
                f"({self.auxiliary:,} auxiliary; {self.direct:,} constraints direct, "
                f"{self.encoded:,} through pysat.card)")


def _card_type(card: str) -> int:
    from pysat.card import EncType

    if card.startswith("_") or card in ("native", "ladder", "pairwise", "bitwise") \
            or not hasattr(EncType, card):
        raise BackendError(f"unknown card encoding '{card}' (choose from seqcounter, totalizer, "
                           "sortnetwrk, cardnetwrk, kmtotalizer, mtotalizer)")
    return getattr(EncType, card)


def unit_coefficients(model: Model) -> bool:
    """Every coefficient is +1 or -1 (what the translation takes)."""
    return all(a == 1 or a == -1 for c in model.constraints for _, a in c.terms)


def refuse(nm: Any) -> ModelRefused | None:
    """``Backend.refuse``: a model with another coefficient would need pseudo-Boolean encodings."""
    for c in nm.model.constraints:
        for _, a in c.terms:
            if a != 1 and a != -1:
                return ModelRefused("sat", f"constraint {c.label!r} has the coefficient {a}; the "
                                    "CNF translation takes only +1 and -1 (cardinality)",
                                    (Remedy("other_backend", "cpsat,mip"),))
    return None


def to_cnf(model: Model, *, card: str = CARD, direct_max: int = DIRECT_MAX,
           links: str = LINKS, deadline: Deadline | float | None = None) -> Cnf:
    """Translate ``model`` (coefficients +-1) to CNF, constraint by constraint (``links``:
    :data:`LINKS`)."""
    from pysat.card import CardEnc

    enc = _card_type(card)
    if links not in ("pairs", "card"):
        raise BackendError(f"links must be pairs or card, got {links!r}")
    clock = Deadline.of(deadline)
    n_model = model.num_variables
    fresh = [n_model]  # the last SAT variable in use
    pairs = _Pairs(model, fresh) if links == "pairs" else None
    clauses: list[list[int]] = []
    add = clauses.append
    direct = encoded = paired = 0
    le, eq = Sense.LE, Sense.EQ
    for k, c in enumerate(model.constraints):
        if not k & 8191:
            clock.check("CNF translation")
        terms = c.terms
        if len(terms) == 2 and c.rhs == 0 and c.sense is le:  # the monotone/order a - b <= 0
            (u, a), (v, b) = terms
            if a == 1 and b == -1:
                add([-u - 1, v + 1])
                direct += 1
                continue
            if a == -1 and b == 1:
                add([u + 1, -v - 1])
                direct += 1
                continue
        if pairs is not None and c.sense is eq and len(terms) > 2:
            got = pairs.clauses(terms, c.rhs)
            if got is not None:
                clauses.extend(got)
                direct += 1
                paired += 1
                continue
        lits = []
        k_ = c.rhs
        for v, a in terms:
            if a == 1:
                lits.append(v + 1)
            elif a == -1:
                lits.append(-v - 1)
                k_ += 1
            else:
                raise BackendError(f"constraint {c.label!r}: coefficient {a} (only +-1 in CNF)")
        n = len(lits)
        upper = k_ if c.sense is le or c.sense is eq else n      # at most `upper` true
        lower = k_ if c.sense is not le else 0                   # at least `lower` true
        if upper < 0 or lower > n or lower > upper:
            add([])  # cannot hold: the empty clause
            direct += 1
            continue
        upper = min(upper, n)
        lower = max(lower, 0)
        cost = (comb(n, upper + 1) if upper < n else 0) + (comb(n, n - lower + 1) if lower > 0 else 0)
        if cost <= direct_max:
            if upper < n:
                for sub in combinations(lits, upper + 1):
                    add([-lit for lit in sub])
            if lower > 0:
                for sub in combinations(lits, n - lower + 1):
                    add(list(sub))
            direct += 1
            continue
        if lower == upper:
            parts = [CardEnc.equals(lits, bound=upper, top_id=fresh[0], encoding=enc)]
        elif lower == 0:
            parts = [CardEnc.atmost(lits, bound=upper, top_id=fresh[0], encoding=enc)]
        else:
            parts = [CardEnc.atmost(lits, bound=upper, top_id=fresh[0], encoding=enc)]
            fresh[0] = max(fresh[0], parts[0].nv)
            parts.append(CardEnc.atleast(lits, bound=lower, top_id=fresh[0], encoding=enc))
        for got in parts:
            fresh[0] = max(fresh[0], got.nv)
            clauses.extend(got.clauses)
        encoded += 1
    return Cnf(clauses, n_model, fresh[0], direct, encoded, paired)


class _Pairs:
    """The ``links="pairs"`` form of an equality: its terms read as literals that the model's
    two-variable constraints ``u - v <= 0`` (``u`` implies ``v``) show to be 0/1-valued and
    mutually exclusive, so that each side of the equality is an at-most-one sum and the
    equality is ``OR(left) <=> OR(right)`` (or one side true and the other false).

    A negative term ``-lo`` and a positive one ``+hi`` with ``lo`` implying ``hi`` (through a
    chain of those constraints) make one item ``hi and not lo`` (a Tseitin literal, three
    clauses, shared by every equality that has the pair); a term left alone is the literal
    itself (``+hi``) or its negation (``-lo`` = ``not lo`` - 1). Two items with the same sign
    are exclusive when one's ``hi`` implies the other's ``lo``. Any equality whose items do
    not all pass falls back to the cardinality form: the result has exactly the model's
    solutions either way, since every fact used follows from clauses also in the CNF.
    Reachability is computed per connected group of implications (a line, in the order
    encoding) as bitsets, on first use."""

    def __init__(self, model: Model, fresh: list[int]):
        self.fresh = fresh
        self.succ: dict[int, list[int]] = {}
        for c in model.constraints:
            t = c.terms
            if len(t) != 2 or c.rhs != 0 or c.sense is Sense.EQ:
                continue
            (u, a), (v, b) = t
            if c.sense is Sense.GE:
                a, b = -a, -b
            if a == 1 and b == -1:
                self.succ.setdefault(u, []).append(v)
            elif a == -1 and b == 1:
                self.succ.setdefault(v, []).append(u)
        self.reach: dict[int, int] = {}   # variable -> bitset of the variables it implies
        self.slot: dict[int, int] = {}    # variable -> its bit
        self.items: dict[tuple[int, int], int] = {}  # (hi, lo) -> its Tseitin variable
        self.aux = 0

    def implies(self, u: int, v: int) -> bool:
        if u == v:
            return True
        if u not in self.succ:
            return False
        bits = self.reach.get(u)
        if bits is None:
            bits = self._close(u)
        bit = self.slot.get(v)
        return bit is not None and bool(bits >> bit & 1)

    def _close(self, root: int) -> int:
        """Bitsets of everything reachable, for ``root`` and all it reaches (iterative DFS;
        a cycle, which the builders never make, only leaves some reachability out)."""
        succ, reach, slot = self.succ, self.reach, self.slot
        stack = [(root, 0)]
        on_path = {root}
        while stack:
            u, i = stack[-1]
            nxt = succ.get(u, ())
            if i < len(nxt):
                stack[-1] = (u, i + 1)
                v = nxt[i]
                if v not in reach and v not in on_path:
                    on_path.add(v)
                    stack.append((v, 0))
                continue
            stack.pop()
            on_path.discard(u)
            bit = slot.setdefault(u, len(slot))
            bits = 1 << bit
            for v in nxt:
                bits |= reach.get(v, 1 << slot.setdefault(v, len(slot)))
            reach[u] = bits
        return reach[root]

    def _literal(self, hi: int | None, lo: int | None, out: list[list[int]]) -> int:
        if lo is None:
            assert hi is not None  # an item is never (None, None)
            return hi + 1
        if hi is None:
            return -lo - 1
        d = self.items.get((hi, lo))
        if d is None:
            self.fresh[0] += 1
            self.aux += 1
            d = self.items[(hi, lo)] = self.fresh[0]
            out += [[-d, hi + 1], [-d, -lo - 1], [d, -hi - 1, lo + 1]]
        return d

    def _exclusive(self, x: tuple, y: tuple) -> bool:
        (hx, lx), (hy, ly) = x, y
        return ((hx is not None and ly is not None and self.implies(hx, ly))
                or (hy is not None and lx is not None and self.implies(hy, lx)))

    def clauses(self, terms, rhs: int) -> list[list[int]] | None:
        """The clauses of ``sum(terms) == rhs``, or None when the items do not all pass."""
        pos = [v for v, a in terms if a == 1]
        neg = [v for v, a in terms if a == -1]
        if len(pos) + len(neg) != len(terms):
            return None
        sides: dict[int, list[tuple]] = {1: [], -1: []}
        for group, other, sign in ((neg, pos, 1), (pos, neg, -1)):
            # each `lo` (in `group`) takes the strongest `hi` of the other sign it implies
            for lo in list(group):
                cands = [hi for hi in other if self.implies(lo, hi)]
                if not cands:
                    continue
                best = next((h for h in cands if all(self.implies(h, g) for g in cands)), None)
                if best is None:
                    return None
                other.remove(best)
                group.remove(lo)
                sides[sign].append((best, lo))
        sides[1] += [(v, None) for v in pos]    # alone: +v is the literal v on the left
        sides[-1] += [(v, None) for v in neg]   # and -v the literal v on the right
        for items in sides.values():
            for i in range(len(items)):
                for j in range(i):
                    if not self._exclusive(items[i], items[j]):
                        return None
        if rhs not in (-1, 0, 1):
            return [[]]
        out: list[list[int]] = []
        left = [self._literal(hi, lo, out) for hi, lo in sides[1]]
        right = [self._literal(hi, lo, out) for hi, lo in sides[-1]]
        if rhs == 1:    # left true, right false
            out.append(left[:])
            out += [[-b] for b in right]
        elif rhs == -1:
            out.append(right[:])
            out += [[-a] for a in left]
        else:
            out += [[-a, *right] for a in left]
            out += [[-b, *left] for b in right]
        return out


def solver_name(name: str) -> str:
    """pysat's canonical name for ``name`` (any alias), or a BackendError listing them."""
    from pysat.solvers import SolverNames

    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_") and isinstance(aliases, tuple) and name in aliases:
            return canonical
    known = sorted(k for k in vars(SolverNames) if not k.startswith("_"))
    raise BackendError(f"unknown SAT solver '{name}' (pysat names: {', '.join(known)})")


def _configurable(name: str) -> bool:
    """Solvers whose native options pysat passes through (``configure``): the CaDiCaLs 1.5.3+."""
    return name in ("cadical153", "cadical195", "cadical300")


def _new_solver(name: str, params: dict[str, Any], seed: int | None):
    from pysat.solvers import Solver

    s = Solver(name=name)
    opts = {k: int(coerce(v, int)) if isinstance(v, str) else int(v) for k, v in params.items()}
    if seed is not None and _configurable(name):
        opts.setdefault("seed", seed % (1 << 31))
    if opts:
        if not _configurable(name):
            s.delete()
            raise BackendError(f"SAT solver '{name}' takes no native parameters through pysat "
                               f"(got {', '.join(params)}); CaDiCaL does")
        inner = getattr(s, "solver", s)
        try:
            inner.configure(opts)
        except Exception as exc:  # pysat reports an option CaDiCaL refuses
            s.delete()
            raise BackendError(f"CaDiCaL refused the parameters {opts}: {exc}") from None
    return s


def check_params(params: dict[str, Any]) -> None:
    """``Backend.check_params``: native parameters are CaDiCaL options with integer values,
    tried on a fresh solver before any model is built."""
    for key, value in params.items():
        try:
            int(coerce(value, int)) if isinstance(value, str) else int(value)
        except (TypeError, ValueError):
            raise BackendError(f"SAT parameter '{key}' needs an integer value, got {value!r}") from None
    _new_solver(SOLVER, params, None).delete()


def _guarded(call):
    """A pysat call whose SIGINT is KeyboardInterrupt. Only in place (a daemonic process, see
    :mod:`formulations.backends.search_process`) can pysat's own handler run; it ends the solve with its own
    error, which would otherwise read as a failure."""
    import pysolvers

    try:
        return call()
    except pysolvers.error as exc:
        if "interrupt" in str(exc):
            raise KeyboardInterrupt from None
        raise


def _search(s, clock: Deadline, stats: dict[str, Any], sliced: bool = True) -> bool | None:
    """True (SAT), False (UNSAT) or None (the deadline came first)."""
    if clock.end is None or not sliced:  # one call: the same search on every run
        stats["slices"] = stats.get("slices", 0) + 1
        return _guarded(s.solve)
    budget = FIRST_BUDGET
    while True:
        left = clock.left()
        if not left:
            return None
        s.conf_budget(budget)
        t = time.perf_counter()
        got = _guarded(s.solve_limited)
        took = time.perf_counter() - t
        stats["slices"] = stats.get("slices", 0) + 1
        if got is not None:
            return got
        rate = budget / max(took, 1e-4)  # conflicts per second in this slice
        left = clock.left() or 0.0
        budget = int(max(MIN_BUDGET, min(rate * min(SLICE_S, left), 2 * budget)))


def _values(s, n: int) -> np.ndarray:
    model = s.get_model() or []
    values = np.zeros(n, dtype=np.int8)
    lits = np.asarray(model[:n], dtype=np.int64)
    lits = lits[np.abs(lits) <= n]
    values[lits[lits > 0] - 1] = 1
    return values


def solve(nm: Any, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None,
          unique: bool = False, solver: str = SOLVER, card: str = CARD,
          direct_max: int = DIRECT_MAX, links: str = LINKS,
          params: dict[str, Any] | None = None) -> RawAnswer:
    """Translate, solve, and (``unique``) exclude the first grid and solve again, all in a
    worker process (:mod:`formulations.backends.search_process`; module docstring: why)."""
    name = solver_name(solver)
    if direct_max < 0:
        raise BackendError(f"direct_max must be 0 or more clauses, got {direct_max}")
    _card_type(card)  # refused here, before a worker starts
    if links not in ("pairs", "card"):
        raise BackendError(f"links must be pairs or card, got {links!r}")
    if name in UNSLICEABLE and deadline.end is not None and search_process.runs_in_place():
        raise BackendError(f"SAT solver '{solver}' cannot keep a time limit in a daemonic process "
                           f"(one solve call, no worker to stop): pick another, e.g. {SOLVER}")
    model = nm.model
    block = nm.blocking_variables() if unique else []
    model._arrays()  # built once here, inherited by a forked worker
    return search_process.search(
        _worker, (model, block, unique, deadline, seed, name, card, direct_max, links,
                  params or {}),
        solver="SAT", unique=unique, block=block, deadline=deadline, info={})


def _worker(conn: Any, model: Model, block: list[int], unique: bool, deadline: Deadline,
            seed: int | None, name: str, card: str, direct_max: int, links: str,
            params: dict[str, Any]) -> None:
    """The worker: translate, load, search; send ``first`` (and ``second``) as
    :mod:`formulations.backends.search_process` expects."""
    t0 = time.perf_counter()
    clock = deadline
    cnf = to_cnf(model, card=card, direct_max=direct_max, links=links, deadline=clock)
    n = model.num_variables
    info: dict[str, Any] = {"sat_solver": name, "clauses": len(cnf.clauses),
                            "sat_variables": cnf.variables, "direct": cnf.direct,
                            "card_encoded": cnf.encoded, "paired": cnf.paired,
                            "translate_s": round(time.perf_counter() - t0, 6)}
    s = _new_solver(name, params, seed)
    try:
        for at in range(0, len(cnf.clauses), LOAD_CHUNK):  # 1.5 s for 1.2M clauses
            clock.check("loading the CNF")
            s.append_formula(cnf.clauses[at:at + LOAD_CHUNK])
        got = _search(s, clock, info, name not in UNSLICEABLE)
        first = _values(s, n) if got else None
        if got:
            info["first_s"] = round(time.perf_counter() - t0, 6)
        conn.send(("first", _OUTCOME[got], first, dict(info)))
        if not (got and unique and block):
            return
        assert first is not None  # got: the values were read
        s.add_clause([-(v + 1) if first[v] else v + 1 for v in block])
        again = _search(s, clock, info, name not in UNSLICEABLE)
        conn.send(("second", _OUTCOME[again], _values(s, n) if again else None, dict(info)))
    finally:
        s.delete()


_OUTCOME = {True: "solved", False: "infeasible", None: "unknown"}


BACKENDS = [
    Backend(
        name="sat",
        description="python-sat CDCL solver (CaDiCaL 1.9.5 by default, --param solver=NAME) on "
                    "the model in CNF (complete: proves infeasible/unique)",
        solve_fn=solve,
        requires=("pysat.solvers", "pysat.card"),
        install_hint=INSTALL_HINT,
        options={"solver": str, "card": str, "direct_max": int, "links": str, "params": dict},
        supports_unique=True,
        reproducible=True,
        refuse=refuse,
        check_params=check_params,
        minimum={"direct_max": 0},
        # With x by default: each link is then one cell expression against one literal, so a
        # third fewer clauses and auxiliaries. Measured (CPU s: translation + load + solve,
        # one run, seqcounter, direct_max 64): webpbn #1611 1.30 with x against 2.02 without,
        # #10810 1.82 against 2.32, #2712 3.02 against 7.09.
        use_x=True,
    ),
]
