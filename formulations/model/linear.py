"""A small backend-neutral model: binary variables with structured labels and labelled linear
constraints. Backends translate it mechanically; feasibility is decided here, not by a solver."""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import chain, repeat
from operator import attrgetter
from typing import NamedTuple

import numpy as np

Label = Hashable


class Sense(Enum):
    LE = "<="
    EQ = "=="
    GE = ">="


class Constraint(NamedTuple):
    """``sum(coef * var) sense rhs`` over variable indices, with a family for weighting.

    A NamedTuple (immutable like a frozen dataclass) because large puzzles create hundreds of
    thousands of them and tuple construction is several times cheaper.
    """
    label: Label
    family: str
    terms: tuple[tuple[int, int], ...]  # (variable index, integer coefficient), sorted by index
    sense: Sense
    rhs: int

    def activity(self, values: Sequence[int] | np.ndarray) -> int:
        return sum(c * int(values[v]) for v, c in self.terms)

    def holds(self, values: Sequence[int] | np.ndarray) -> bool:
        lhs = self.activity(values)
        if self.sense is Sense.EQ:
            return lhs == self.rhs
        if self.sense is Sense.LE:
            return lhs <= self.rhs
        return lhs >= self.rhs


class LinExpr:
    """Integer linear expression over variable indices plus a constant, for building."""
    __slots__ = ("coefs", "const")

    def __init__(self, coefs: dict[int, int] | None = None, const: int = 0):
        self.coefs = dict(coefs or {})
        self.const = const

    @classmethod
    def of(cls, x: int | LinExpr | Var) -> LinExpr:
        if isinstance(x, LinExpr):
            return x
        if isinstance(x, Var):
            return cls({x.index: 1})
        return cls(const=int(x))

    def __add__(self, other) -> LinExpr:
        o = LinExpr.of(other)
        out = LinExpr(self.coefs, self.const + o.const)
        for v, c in o.coefs.items():
            out.coefs[v] = out.coefs.get(v, 0) + c
        out.coefs = {v: c for v, c in out.coefs.items() if c}
        return out

    __radd__ = __add__

    def __neg__(self) -> LinExpr:
        return LinExpr({v: -c for v, c in self.coefs.items()}, -self.const)

    def __sub__(self, other) -> LinExpr:
        return self + (-LinExpr.of(other))

    def __rsub__(self, other) -> LinExpr:
        return LinExpr.of(other) - self


@dataclass(frozen=True)
class Var:
    index: int

    def __add__(self, o):
        return LinExpr.of(self) + o

    __radd__ = __add__

    def __sub__(self, o):
        return LinExpr.of(self) - o

    def __rsub__(self, o):
        return LinExpr.of(o) - self

    def __neg__(self):
        return -LinExpr.of(self)


class Model:
    """Binary variables and linear constraints; nothing solver- or nonogram-specific."""

    def __init__(self) -> None:
        self.labels: list[Label] = []
        self.index: dict[Label, int] = {}
        self.constraints: list[Constraint] = []

    # -- building -----------------------------------------------------------------------------
    def add_var(self, label: Label) -> Var:
        if label in self.index:
            raise ValueError(f"duplicate variable label {label!r}")
        self.index[label] = len(self.labels)
        self.labels.append(label)
        return Var(len(self.labels) - 1)

    def var(self, label: Label) -> Var:
        return Var(self.index[label])

    def add_constraint(self, family: str, label: Label, lhs, sense: Sense | str, rhs=0) -> Constraint | None:
        """Add ``lhs sense rhs``; constants move to the right-hand side.

        A constraint left with no variables is dropped when it holds and kept (always violated)
        when it does not, so an impossible puzzle stays visibly impossible.
        """
        expr = LinExpr.of(lhs) - LinExpr.of(rhs)
        sense = Sense(sense) if not isinstance(sense, Sense) else sense
        terms = tuple(sorted(expr.coefs.items()))
        con = Constraint(label, family, terms, sense, -expr.const)
        if not terms and con.holds(()):
            return None
        self.constraints.append(con)
        return con

    def add_terms(self, family: str, label: Label, coefs: dict[int, int], sense: Sense, rhs: int) -> Constraint | None:
        """Fast path of :meth:`add_constraint` for a ready ``{var index: coef}`` map."""
        terms = tuple(sorted((v, c) for v, c in coefs.items() if c))
        con = Constraint(label, family, terms, sense, rhs)
        if not terms and con.holds(()):
            return None
        self.constraints.append(con)
        return con

    # Bulk fast paths. Large puzzles add ~10^5 variables and constraints, so these avoid a Python
    # call per item: ``tuple.__new__(Constraint, fields)`` builds the same Constraint as
    # ``Constraint(*fields)`` without the NamedTuple's Python-level ``__new__``.

    def add_vars(self, labels: Sequence[Label]) -> range:
        """Bulk :meth:`add_var`: the new variables' indices, in the order of ``labels``.

        A duplicate label (already in the model or repeated in ``labels``) raises ValueError and
        leaves the model unchanged."""
        start = len(self.labels)
        stop = start + len(labels)
        self.index.update(zip(labels, range(start, stop)))
        if len(self.index) != stop:  # some label was not new: undo, then report the first one
            self.index.clear()
            self.index.update(zip(self.labels, range(start)))
            seen = set(self.index)
            for label in labels:
                if label in seen:
                    raise ValueError(f"duplicate variable label {label!r}")
                seen.add(label)
        self.labels.extend(labels)
        return range(start, stop)

    def add_sorted(self, family: str, sense: Sense, labels: Iterable[Label],
                   terms: Iterable[tuple[tuple[int, int], ...]], rhs: Iterable[int]) -> None:
        """Bulk :meth:`add_terms`, zipping labels, terms and right-hand sides, for terms the
        caller already has as tuples sorted by index with nonzero coefficients (so no dict,
        filter or sort here). As there, a constraint without terms is kept only when violated."""
        fields = zip(labels, repeat(family), terms, repeat(sense), rhs)
        made = list(map(tuple.__new__, repeat(Constraint), fields))
        if not all(map(attrgetter("terms"), made)):  # rare: some have no terms
            made = [c for c in made if c.terms or not c.holds(())]
        self.constraints.extend(made)

    # -- inspection ---------------------------------------------------------------------------
    @property
    def num_variables(self) -> int:
        return len(self.labels)

    @property
    def num_constraints(self) -> int:
        return len(self.constraints)

    def families(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.constraints:
            out[c.family] = out.get(c.family, 0) + 1
        return out

    def as_array(self, assignment: Mapping[Label, int] | Sequence[int] | np.ndarray) -> np.ndarray:
        """Assignment (by label or by index) as a 0/1 vector in variable order."""
        if isinstance(assignment, Mapping):
            return np.array([int(assignment[lab]) for lab in self.labels], dtype=np.int8)
        arr = np.asarray(assignment, dtype=np.int8)
        if arr.shape != (self.num_variables,):
            raise ValueError(f"assignment has {arr.shape} values, model has {self.num_variables} variables")
        return arr

    def violations(self, assignment) -> list[Label]:
        """Labels of the constraints the assignment breaks (vectorised: linear in the terms)."""
        x = self.as_array(assignment).astype(np.int64)
        con, var, coef, rhs, sense = self._arrays()
        activity = np.bincount(con, weights=coef * x[var], minlength=len(rhs))
        broken = np.where(sense == 0, activity != rhs,
                          np.where(sense < 0, activity > rhs, activity < rhs))
        return [self.constraints[k].label for k in np.flatnonzero(broken)]

    def _arrays(self) -> tuple[np.ndarray, ...]:
        """The constraints as flat arrays (constraint, variable, coefficient per term; rhs and
        sense -1/0/1 for <=, ==, >= per constraint), built once per model size."""
        m = len(self.constraints)
        cached = getattr(self, "_flat", None)
        if cached is not None and cached[0] == m:
            return cached[1]
        cons = self.constraints
        counts = np.fromiter(map(len, map(attrgetter("terms"), cons)), dtype=np.int64, count=m)
        flat = np.fromiter(chain.from_iterable(chain.from_iterable(map(attrgetter("terms"), cons))),
                           dtype=np.int64, count=2 * int(counts.sum())).reshape(-1, 2)
        code = {Sense.LE: -1, Sense.EQ: 0, Sense.GE: 1}
        arrays = (np.repeat(np.arange(m), counts), flat[:, 0], flat[:, 1].astype(np.float64),
                  np.fromiter(map(attrgetter("rhs"), cons), dtype=np.float64, count=m),
                  np.fromiter((code[c.sense] for c in cons), dtype=np.int8, count=m))
        self._flat = (m, arrays)
        return arrays

    def is_feasible(self, assignment) -> bool:
        return not self.violations(assignment)

    def matrix(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
        """COO arrays (row, col, coef), rhs vector, and per-constraint sense as ``"<=" "==" ">="``
        plus families, for vectorised backends."""
        rows, cols, vals = [], [], []
        for r, c in enumerate(self.constraints):
            for v, a in c.terms:
                rows.append(r)
                cols.append(v)
                vals.append(a)
        rhs = np.array([c.rhs for c in self.constraints], dtype=np.int64)
        coo = (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), np.array(vals, dtype=np.int64))
        return coo[0], coo[1], coo[2], rhs, [c.sense.value for c in self.constraints]
