"""python-sat's CDCL solvers (CaDiCaL 1.9.5 by default) on the model translated to CNF.

The translation is mechanical, one constraint at a time, and knows nothing of nonograms. Every
constraint of the model has coefficients +1 or -1 (the builder makes no others), so it is a
cardinality constraint over literals: a term ``+v`` is the literal ``v``, a term ``-v`` is
``not v`` with the right-hand side raised by one, and ``sum(terms) <=|==|>= rhs`` becomes
``at most / exactly / at least K of these literals``. Each one is then written either

* **directly**, without auxiliary variables: "at most K of n" as one clause ``(not l1 or ... or
  not l_{K+1})`` per (K+1)-subset, "at least K" as one clause per (n-K+1)-subset. The monotone
  and order constraints ``a - b <= 0`` are one binary clause each this way, a two-variable link
  ``x - a == 0`` two, a line's fixed cell one unit; or
* through **pysat.card** (a sequential counter by default), when the direct form would take
  more than ``direct_max`` clauses: the wide links of cells that several blocks can cover.

Both choices were measured (``docs/sat_mip.md``; ``DIRECT_MAX`` and ``CARD``). A coefficient
other than +-1 would need pysat.pb (and pypblib); the backend refuses such a model up front.

Uniqueness: the first model's values on the variables that fix the grid
(``blocking_variables``) are excluded by one clause and the same solver (incremental, its
learnt clauses kept) is asked again. UNSAT then proves the grid unique.

Time limit and Ctrl-C: pysat offers ``interrupt()`` for the MiniSat family only (CaDiCaL and
Kissat raise NotImplementedError) and CaDiCaL's solve holds the GIL, so no timer thread could
run. With a time limit the search runs in slices bounded by a conflict budget
(``conf_budget``), each aimed at :data:`SLICE_S` seconds by the rate the previous slice showed,
and the deadline is checked between slices; the solver keeps its learnt clauses from one slice
to the next. Ctrl-C: on the main thread pysat catches SIGINT during a solve and raises its own
error, turned here into KeyboardInterrupt (a signal between slices reaches Python directly).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from formulations.clock import Deadline
from formulations.model import Model, Sense
from formulations.options import coerce
from formulations.results import BackendError, ModelRefused, RawAnswer, Remedy, Status

from .base import Backend

INSTALL_HINT = 'pip install "nonogram-formulations[sat]" (or: pip install python-sat)'
SOLVER = "cadical195"
"""pysat's name of the default solver (CaDiCaL 1.9.5); ``solver=`` takes any name or alias
pysat's ``SolverNames`` knows (``g4``, ``cd19``, ``mcb``, ...)."""
CARD = "seqcounter"
"""pysat.card encoding of the constraints too wide for direct clauses (measured against
totalizer, sortnetwrk, cardnetwrk, kmtotalizer and mtotalizer: ``docs/sat_mip.md``)."""
DIRECT_MAX = 64
"""Most clauses a constraint may take in the direct form before it goes through pysat.card."""
SLICE_S = 0.2
"""Seconds one slice of a time-limited search aims at (the deadline is checked between)."""
FIRST_BUDGET = 2000
"""Conflicts of the first slice (a deterministic start: small puzzles end within it)."""
MIN_BUDGET = 100


@dataclass(frozen=True)
class Cnf:
    """The model in CNF: variable ``i`` of the model is SAT variable ``i + 1``, auxiliary
    variables of the cardinality encodings come after them."""
    clauses: list[list[int]]
    model_variables: int
    variables: int
    direct: int = 0      # constraints written as direct clauses
    encoded: int = 0     # constraints written through pysat.card
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
           deadline: Deadline | float | None = None) -> Cnf:
    """Translate ``model`` (coefficients +-1) to CNF, constraint by constraint."""
    from pysat.card import CardEnc

    enc = _card_type(card)
    clock = Deadline.of(deadline)
    n_model = model.num_variables
    top = n_model
    clauses: list[list[int]] = []
    add = clauses.append
    direct = encoded = 0
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
                    add([-l for l in sub])
            if lower > 0:
                for sub in combinations(lits, n - lower + 1):
                    add(list(sub))
            direct += 1
            continue
        if lower == upper:
            got = CardEnc.equals(lits, bound=upper, top_id=top, encoding=enc)
        elif lower == 0:
            got = CardEnc.atmost(lits, bound=upper, top_id=top, encoding=enc)
        else:
            got = CardEnc.atmost(lits, bound=upper, top_id=top, encoding=enc)
            top = max(top, got.nv)
            clauses.extend(got.clauses)
            got = CardEnc.atleast(lits, bound=lower, top_id=top, encoding=enc)
        top = max(top, got.nv)
        clauses.extend(got.clauses)
        encoded += 1
    return Cnf(clauses, n_model, top, direct, encoded)


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
    """A pysat call whose SIGINT (pysat's own handler on the main thread) is KeyboardInterrupt."""
    import pysolvers

    try:
        return call()
    except pysolvers.error as exc:
        if "interrupt" in str(exc):
            raise KeyboardInterrupt from None
        raise


def _search(s, clock: Deadline, stats: dict[str, Any]) -> bool | None:
    """True (SAT), False (UNSAT) or None (the deadline came first)."""
    if clock.end is None:
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
        budget = int(max(MIN_BUDGET, min(rate * min(SLICE_S, left), 4 * budget)))


def _values(s, n: int) -> np.ndarray:
    model = s.get_model() or []
    values = np.zeros(n, dtype=np.int8)
    lits = np.asarray(model[:n], dtype=np.int64)
    lits = lits[np.abs(lits) <= n]
    values[lits[lits > 0] - 1] = 1
    return values


def solve(nm: Any, *, time_limit: float | None = None, seed: int | None = None,
          unique: bool = False, solver: str = SOLVER, card: str = CARD,
          direct_max: int = DIRECT_MAX, params: dict[str, Any] | None = None) -> RawAnswer:
    """Translate, solve, and (``unique``) exclude the first grid and solve again."""
    t0 = time.perf_counter()
    clock = Deadline.of(time_limit)
    name = solver_name(solver)
    if direct_max < 0:
        raise BackendError(f"direct_max must be 0 or more clauses, got {direct_max}")
    cnf = to_cnf(nm.model, card=card, direct_max=direct_max, deadline=clock)
    translate_s = time.perf_counter() - t0
    n = nm.model.num_variables
    info: dict[str, Any] = {"sat_solver": name, "clauses": len(cnf.clauses),
                            "sat_variables": cnf.variables, "direct": cnf.direct,
                            "card_encoded": cnf.encoded, "translate_s": round(translate_s, 6)}
    s = _new_solver(name, params or {}, seed)
    try:
        clock.check("loading the CNF")
        s.append_formula(cnf.clauses)
        got = _search(s, clock, info)
        if got is None:
            return RawAnswer(Status.UNKNOWN, solve_s=time.perf_counter() - t0, info=info,
                             message="time limit reached before a solution")
        if not got:
            return RawAnswer(Status.INFEASIBLE, solve_s=time.perf_counter() - t0, info=info)
        first = _values(s, n)
        info["first_s"] = time.perf_counter() - t0
        found, proven = [first], None
        if unique:
            block = nm.blocking_variables()
            if not block:  # nothing free: the grid is the only one
                proven = True
            else:
                s.add_clause([-(v + 1) if first[v] else v + 1 for v in block])
                again = _search(s, clock, info)
                if again is False:
                    proven = True
                elif again:
                    found.append(_values(s, n))
                    proven = False
        return RawAnswer(Status.SOLVED, tuple(found), solve_s=time.perf_counter() - t0,
                         proven_unique=proven, info=info)
    finally:
        s.delete()


BACKENDS = [
    Backend(
        name="sat",
        description="python-sat CDCL solver (CaDiCaL 1.9.5 by default, --param solver=NAME) on "
                    "the model in CNF (complete: proves infeasible/unique)",
        solve_fn=solve,
        requires=("pysat.solvers", "pysat.card"),
        install_hint=INSTALL_HINT,
        options={"solver": str, "card": str, "direct_max": int, "params": dict},
        supports_unique=True,
        reproducible=True,
        refuse=refuse,
        check_params=check_params,
        minimum={"direct_max": 0},
        use_x=False,
    ),
]
