"""The model's constraints lowered to one quadratic penalty, with no slack variables.

This is the single lowering every QUBO backend uses (dimod samplers, QUBO++), so a weight or a
formula changes in one place only.

Per constraint (weighted by its family's weight ``w``):

* an equality ``sum c_i x_i = r`` costs ``w * (sum c_i x_i - r)^2``;
* an inequality over at most two binaries costs ``w`` times the indicator of its violation,
  written exactly as a quadratic (``a <= b`` gives ``a*(1 - b)``); ``>=`` is negated first.
  Inequalities over more variables would need slack variables and are refused (ValueError):
  the order encoding never produces them.

Every constraint's unweighted penalty is a non-negative integer that is 0 exactly when the
constraint holds, so with positive weights the energy is 0 iff the assignment is feasible and the
energy-0 states are the model's solutions (one per grid). ``energy()`` evaluates the family sums
in exact integer arithmetic and only then applies the (float) weights, so "energy == 0" is an
exact test even when the aggregated QUBO coefficients carry rounding.

Default weights, measured with ``python3 bench/anneal_tts.py weights`` on cat15, ``sa``, 500
reads per cell, seed 1, beta range 1..10 per unit of the smallest weight (the sa default).
Cells: p (fraction of reads at energy 0) / TTS99 in ms of CPU time, at 50 / 100 / 150 / 200
sweeps (the machine was shared: wall times ran 2-4x higher; p does not depend on the load)::

    with x (461 vars)   50          100         150         200
    mono order link
     1    1    1     0.43/3.2    0.71/3.1    0.74/4.2    0.81/5.0
     2    2    1     0.66/2.0    0.92/1.7    0.96/1.7    0.99/1.5   <- default
     3    3    1     0.56/2.5    0.89/1.7    0.92/2.1    0.95/3.1
     2    3    1     0.68/2.3    0.92/2.2    0.96/2.5    0.97/3.0
     3    2    1     0.63/2.9    0.93/2.1    0.96/2.5    0.97/2.8
     1    1    2     0.08/30     0.16/25     0.13/43     0.19/38
    without x (236 vars)
     1    1    1     0.46/2.0    0.61/2.3    0.65/3.0    0.72/3.2
     2    2    1     0.94/0.40   0.98/0.52   0.99/0.63   0.99/0.89  <- default
     3    3    1     0.93/0.46   0.98/0.47   0.99/0.60   0.98/0.90
     3    2    1     0.95/0.36   0.99/0.40   1.00/0.57   1.00/0.73
     1    1    2     0.06/18     0.08/23     0.07/36     0.09/35

Structural weights 2-3 with link weight 1 beat equal weights by about 2x (with x) and 5x
(without x) in best TTS99, and heavier links are 10x worse; (2, 2, 1) is best or within noise
of the best in both encodings. (4,4,1), (2,1,1) and (1,2,1) were measured too and are worse;
the full grid is ``bench/results/anneal_weights.csv``.

Export (``export_bqm(nm, PATH)``) writes the format PATH's extension names:

* ``.bqm``: dimod's own serialization (``bqm.to_file()``, load with
  ``dimod.BinaryQuadraticModel.from_file(open(PATH, "rb"))``), labelled with the model's labels;
* ``.json``: dimod's serializable form as JSON (``BinaryQuadraticModel.from_serializable``);
* ``.qubo``: plain text in the qbsolv format: ``c`` comment lines (the offset, the weights and
  one ``c var INDEX LABEL`` line per variable), a ``p qubo 0 N NDIAG NCOUPLERS`` line, then
  ``i i h_i`` for each non-zero linear bias and ``i j J_ij`` (``i < j``) for each coupler.
  Energy = offset + sum h_i x_i + sum J_ij x_i x_j;
* ``.coo``: ``i j value`` lines (``i == j`` linear), the offset in a ``#`` comment line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from operator import attrgetter
from pathlib import Path
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from formulations.runtime.clock import Deadline
from .linear import Model, Sense

FAMILIES: tuple[str, ...] = ("monotone", "order", "link")
ENERGY_CHUNK_BYTES = 1 << 27  # 128 MB: the largest temporary array an energy evaluation makes
LOWERING_SECONDS_PER_CONSTRAINT = 8e-6  # measured ~6 us on this machine class, rounded up
# Peak resident bytes per pair of terms of one constraint while the QUBO is lowered and handed to
# a sampler (a random 200x200 without x: 6.6 GB for 36M interactions; 100x100: 0.84 GB for
# 4.0M pairs, the model included). Pairs are 1.06x the merged interactions there.
QUBO_BYTES_PER_PAIR = 180


@dataclass(frozen=True)
class QuboSize:
    """The penalty QUBO's size known from the model before lowering: ``pairs`` term pairs
    (an upper bound on its interactions; equal pairs of different constraints merge)."""
    pairs: int

    @property
    def megabytes(self) -> float:
        return self.pairs * QUBO_BYTES_PER_PAIR / 2**20

    def describe(self) -> str:
        return (f"its penalty QUBO would have about {self.pairs:.3g} interactions "
                f"(~{self.megabytes:,.0f} MB while lowered)")


def qubo_size(model_or_nm: Any) -> QuboSize:
    """:class:`QuboSize` of the model's penalty: t (t - 1) / 2 pairs per equality of t terms,
    one per two-variable inequality."""
    pairs = 0
    for c in _model_of(model_or_nm).constraints:
        t = len(c.terms)
        pairs += t * (t - 1) // 2 if c.sense is Sense.EQ else (1 if t == 2 else 0)
    return QuboSize(pairs)
# Measured on cat15 (table above): structural constraints weigh twice the cell links.
DEFAULT_WEIGHTS: dict[str, float] = {"monotone": 2.0, "order": 2.0, "link": 1.0}
# The default of every family, the other encodings' too (formulations.model.onehot, .automaton),
# measured with the encodings study's former ``weights`` sweep (heart5, boat10, house10; sa, 1000
# sweeps, 50 reads, each weight 0.5-4 against link 1, beta ranges 0.1..3 to 1..30): the
# exactly-one at the link weight and the pair exclusions at twice it were best or within noise
# of the best in both encodings; an exactly-one above 2 was clearly worse. A family not listed
# weighs 1. The study now tunes 0.5, 1 and 2 x these per encoding and sampler on training
# puzzles (bench/results/encodings/tuned.json); no other scale was separated from them by its
# interval, so they stay.
FAMILY_WEIGHTS: dict[str, float] = {**DEFAULT_WEIGHTS,
                                    "exactly_one": 1.0, "clash": 2.0,      # onehot
                                    "one_state": 1.0, "transition": 2.0}   # automaton


def check_weights(weights: Mapping[str, Any] | None = None,
                  families: Sequence[str] = FAMILIES) -> dict[str, float]:
    """Defaults overridden by ``weights``; unknown families and non-positive or non-finite
    weights raise ValueError (a zero weight would make violated states look solved)."""
    out = {f: FAMILY_WEIGHTS.get(f, 1.0) for f in families}
    for key, value in (weights or {}).items():
        if key not in out:
            raise ValueError(f"unknown constraint family '{key}' in weights "
                             f"(families: {', '.join(out)})")
        try:
            w = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"weight of '{key}' must be a number, got {value!r}") from None
        if not math.isfinite(w) or w <= 0:
            raise ValueError(f"weight of '{key}' must be a positive finite number, got {value!r}")
        out[key] = w
    return out


def _model_of(obj: Any) -> Model:
    return obj.model if hasattr(obj, "model") and isinstance(obj.model, Model) else obj


@dataclass(frozen=True)
class FamilyQubos:
    """The unweighted penalty summed per family as integer QUBOs (stored as float64 holding
    integers): ``E_f(x) = const[f] + lin[f].x + sum_t qcoef[t, f] x[qi[t]] x[qj[t]]``.

    The weighted QUBO is ``sum_f w_f E_f``, so changing weights costs three small products.
    """
    const: np.ndarray          # (F,)
    lin: np.ndarray            # (F, n)
    qi: np.ndarray             # (nq,), qi < qj, each pair once
    qj: np.ndarray
    qcoef: np.ndarray          # (nq, F)

    @cached_property
    def sparse(self) -> list | None:
        """Per family the quadratic part as a scipy CSR matrix (n x n, upper triangle), for
        energies at sparse-product speed; None without scipy (the dense path is used)."""
        try:
            from scipy import sparse
        except ImportError:
            return None
        n = self.lin.shape[1]
        out = []
        for f in range(self.qcoef.shape[1]):
            keep = self.qcoef[:, f] != 0  # a family's own pairs only
            out.append(sparse.csr_matrix((self.qcoef[keep, f], (self.qi[keep], self.qj[keep])),
                                         shape=(n, n)))
        return out


@dataclass(frozen=True)
class PenaltyTerms:
    """Every constraint's unweighted penalty as flat integer arrays (the vectorised lowering).

    Constraint ``c`` costs ``const[c] + sum lin_coef[t] x[lin_var[t]]`` over ``lin_con[t] == c``
    ``+ sum quad_coef[t] x[quad_i[t]] x[quad_j[t]]`` over ``quad_con[t] == c`` (``quad_i < quad_j``,
    a pair may repeat across constraints but not within one). ``family[c]`` indexes
    ``family_names``. A backend that wants one expression per constraint (QUBO++) groups by
    ``*_con``; one that wants a single QUBO calls ``weighted()``.
    """
    num_variables: int
    labels: tuple[Hashable, ...]
    constraint_labels: tuple[Hashable, ...]
    family_names: tuple[str, ...]
    family: np.ndarray
    const: np.ndarray
    lin_con: np.ndarray
    lin_var: np.ndarray
    lin_coef: np.ndarray
    quad_con: np.ndarray
    quad_i: np.ndarray
    quad_j: np.ndarray
    quad_coef: np.ndarray
    families: FamilyQubos = field(repr=False)

    @property
    def num_constraints(self) -> int:
        return len(self.constraint_labels)

    def constraint_penalties(self, assignment: np.ndarray) -> np.ndarray:
        """Unweighted penalty of each constraint for one 0/1 assignment (0 = the constraint holds)."""
        x = np.asarray(assignment, dtype=np.int64)
        m = self.num_constraints
        out = self.const.astype(np.float64)
        out += np.bincount(self.lin_con, weights=self.lin_coef * x[self.lin_var], minlength=m)
        out += np.bincount(self.quad_con, weights=self.quad_coef * (x[self.quad_i] * x[self.quad_j]),
                           minlength=m)
        return np.rint(out).astype(np.int64)

    def violated(self, assignment: np.ndarray) -> list[Hashable]:
        """Labels of the constraints with a positive penalty (= the ones the assignment breaks)."""
        pen = self.constraint_penalties(assignment)
        return [self.constraint_labels[c] for c in np.flatnonzero(pen)]

    def weighted(self, weights: Mapping[str, Any] | None = None) -> QuadraticPenalty:
        """The aggregated QUBO ``offset + h.x + sum J_ij x_i x_j`` for these family weights."""
        w = check_weights(weights, self.family_names)
        wv = np.array([w[f] for f in self.family_names], dtype=np.float64)
        fq = self.families
        qv = fq.qcoef @ wv
        keep = qv != 0  # pairs whose terms cancel for these weights
        return QuadraticPenalty(self.labels, wv @ fq.lin, fq.qi[keep], fq.qj[keep], qv[keep],
                                float(fq.const @ wv), w, self)


def _family_qubos(n: int, F: int, family: np.ndarray, const: np.ndarray,
                  lin_con, lin_var, lin_coef, quad_con, quad_i, quad_j, quad_coef) -> FamilyQubos:
    """Sum the per-constraint terms per family (bincount, no Python loop over terms)."""
    fconst = np.bincount(family, weights=const, minlength=F)
    lin = np.bincount(family[lin_con] * n + lin_var, weights=lin_coef,
                      minlength=F * n).reshape(F, n)
    qcoef: np.ndarray  # bincount with weights: float64 (the stub says integers)
    if len(quad_i):
        uniq, inv = np.unique(quad_i.astype(np.int64) * n + quad_j, return_inverse=True)
        qcoef = np.bincount(inv * F + family[quad_con], weights=quad_coef,
                            minlength=len(uniq) * F).reshape(len(uniq), F)
        qi, qj = uniq // n, uniq % n
    else:
        qi = qj = np.zeros(0, np.int64)
        qcoef = np.zeros((0, F))
    return FamilyQubos(fconst, lin, qi, qj, qcoef)


@dataclass(frozen=True)
class QuadraticPenalty:
    """The weighted penalty as one QUBO: ``offset + linear.x + sum qv x[qi] x[qj]`` (qi < qj).

    ``energy``/``energies`` are exact (integer family sums times weights); ``qubo_energies``
    evaluates the aggregated float coefficients, i.e. what a sampler sees.
    """
    labels: tuple[Hashable, ...]
    linear: np.ndarray
    qi: np.ndarray
    qj: np.ndarray
    qv: np.ndarray
    offset: float
    weights: dict[str, float]
    terms: PenaltyTerms = field(repr=False)

    @property
    def num_variables(self) -> int:
        return len(self.linear)

    def family_energies(self, samples: np.ndarray, chunk: int | None = None) -> np.ndarray:
        """Unweighted penalty per family, shape (S, F) (exact integers), for a (S, n) 0/1 array.

        Rows are taken ``chunk`` at a time, by default as many as keep each temporary array
        (rows x interactions, float64) near :data:`ENERGY_CHUNK_BYTES`."""
        X = np.atleast_2d(np.asarray(samples))
        fq = self.terms.families
        mats = fq.sparse if len(fq.qi) and X.shape[0] > 1 else None
        if chunk is None:  # the sparse path's temporaries are rows x n, the dense one's x pairs
            width = X.shape[1] if mats is not None else max(X.shape[1], len(fq.qi))
            chunk = max(1, ENERGY_CHUNK_BYTES // (8 * max(1, width)))
        out = np.empty((X.shape[0], len(fq.const)))
        for s in range(0, X.shape[0], chunk):
            Xc = X[s:s + chunk].astype(np.float64)
            e = Xc @ fq.lin.T + fq.const
            if mats is not None:  # x^T Q_f x per row: (X Q_f) * X summed, O(rows x pairs) in C
                for f, Q in enumerate(mats):
                    e[:, f] += np.einsum("ij,ij->i", np.asarray(Q.T.dot(Xc.T).T), Xc)
            elif len(fq.qi):
                e += (Xc[:, fq.qi] * Xc[:, fq.qj]) @ fq.qcoef
            out[s:s + chunk] = e
        return np.rint(out)

    def energies(self, samples: np.ndarray) -> np.ndarray:
        """Weighted energy of each row of a (S, n) 0/1 array; exactly 0.0 iff feasible."""
        w = np.array([self.weights[f] for f in self.terms.family_names])
        return self.family_energies(samples) @ w  # 0.0 exactly when every family sum is 0

    def energy(self, assignment: np.ndarray) -> float:
        return float(self.energies(np.asarray(assignment)[None, :])[0])

    def qubo_energies(self, samples: np.ndarray) -> np.ndarray:
        """Energy from the aggregated coefficients (what a sampler computes, up to rounding)."""
        X = np.atleast_2d(np.asarray(samples)).astype(np.float64)
        e = X @ self.linear + self.offset
        if len(self.qi):
            e += (X[:, self.qi] * X[:, self.qj]) @ self.qv
        return e

    def violated(self, assignment: np.ndarray) -> list[Hashable]:
        return self.terms.violated(assignment)

    def to_bqm(self, *, labels: str = "model"):
        """A dimod BINARY BQM; ``labels="model"`` uses the model's labels, ``"index"`` 0..n-1."""
        try:
            import dimod
        except ImportError:
            from ..results import BackendError
            raise BackendError('a BQM needs dimod, which is not installed: '
                               'pip install -e ".[anneal]"') from None

        if labels not in ("model", "index"):
            raise ValueError("labels must be 'model' or 'index'")
        order = list(self.labels) if labels == "model" else None
        return dimod.BinaryQuadraticModel.from_numpy_vectors(
            self.linear, (self.qi, self.qj, self.qv), self.offset, dimod.BINARY,
            variable_order=order)  # type: ignore[arg-type]  # dimod's `Iterable = None`


def penalty_terms(model_or_nm: Any, deadline: Deadline | float | None = None) -> PenaltyTerms:
    """Lower every constraint of the model to its unweighted quadratic penalty (vectorised).

    ``deadline``: refused up front (OutOfTime) when the estimated time does not fit, else
    checked between the vectorised steps."""
    model = _model_of(model_or_nm)
    cons = model.constraints
    m, n = len(cons), model.num_variables
    clock = Deadline.of(deadline)
    clock.fits("QUBO lowering", m * LOWERING_SECONDS_PER_CONSTRAINT)
    fam_names = list(FAMILIES)
    fam_names += sorted({c.family for c in cons} - set(FAMILIES))
    fam_idx = {f: k for k, f in enumerate(fam_names)}
    family = np.fromiter(map(fam_idx.__getitem__, map(attrgetter("family"), cons)),
                         dtype=np.int64, count=m)
    terms = list(map(attrgetter("terms"), cons))
    counts = np.fromiter(map(len, terms), dtype=np.int64, count=m)
    rhs = np.fromiter(map(attrgetter("rhs"), cons), dtype=np.int64, count=m)
    senses = np.empty(m, dtype=object)
    senses[:] = list(map(attrgetter("sense"), cons))
    is_eq = senses == Sense.EQ  # object comparison in C; hashing Enums would be Python calls
    sign = np.where(senses == Sense.GE, -1, 1)
    clock.check("QUBO lowering")
    flat = np.fromiter(chain.from_iterable(chain.from_iterable(terms)),
                       dtype=np.int64, count=2 * int(counts.sum())).reshape(-1, 2)
    clock.check("QUBO lowering")
    var, coef = flat[:, 0], flat[:, 1]
    con = np.repeat(np.arange(m), counts)
    start = np.cumsum(counts) - counts
    # ">=" becomes "<=" by negation; equalities are squared so their sign does not matter.
    coef = coef * sign[con]
    rhs = rhs * sign

    too_long = ~is_eq & (counts > 2)
    if too_long.any():
        c = cons[int(np.flatnonzero(too_long)[0])]
        raise ValueError(f"constraint {c.label!r} is an inequality over {len(c.terms)} variables; "
                         "it cannot be lowered without slack variables")

    const = np.zeros(m, np.int64)
    lin_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    quad_parts: list[tuple[np.ndarray, ...]] = []

    # Equalities: (sum c x - r)^2 = r^2 + sum (c^2 - 2 r c) x + sum_{a<b} 2 c_a c_b x_a x_b.
    const[is_eq] = rhs[is_eq] ** 2
    t_eq = is_eq[con]
    lin_parts.append((con[t_eq], var[t_eq], coef[t_eq] ** 2 - 2 * rhs[con[t_eq]] * coef[t_eq]))
    # pairs (a, b) of term positions a < b inside one row: each a pairs with the rest of its row
    end = (start + counts)[con]
    pos = np.arange(len(con))
    npair = np.where(t_eq, end - pos - 1, 0)
    a = np.repeat(pos, npair)
    b = a + 1 + (np.arange(int(npair.sum())) - np.repeat(np.cumsum(npair) - npair, npair))
    va, vb = var[a], var[b]
    quad_parts.append((con[a], np.minimum(va, vb), np.maximum(va, vb), 2 * coef[a] * coef[b]))

    # Inequalities over <= 2 variables: the violation indicator, exact as a quadratic.
    le = ~is_eq
    r = rhs
    rows0 = np.flatnonzero(le & (counts == 0))
    const[rows0] = (0 > r[rows0]).astype(np.int64)
    rows1 = np.flatnonzero(le & (counts == 1))
    s1 = start[rows1]
    v0 = (0 > r[rows1]).astype(np.int64)
    v1 = (coef[s1] > r[rows1]).astype(np.int64)
    const[rows1] = v0
    lin_parts.append((rows1, var[s1], v1 - v0))
    rows2 = np.flatnonzero(le & (counts == 2))
    s2 = start[rows2]
    ca, cb, rr = coef[s2], coef[s2 + 1], r[rows2]
    v00 = (0 > rr).astype(np.int64)
    v10 = (ca > rr).astype(np.int64)
    v01 = (cb > rr).astype(np.int64)
    v11 = (ca + cb > rr).astype(np.int64)
    const[rows2] = v00
    lin_parts.append((rows2, var[s2], v10 - v00))
    lin_parts.append((rows2, var[s2 + 1], v01 - v00))
    va, vb = var[s2], var[s2 + 1]
    quad_parts.append((rows2, np.minimum(va, vb), np.maximum(va, vb), v11 - v10 - v01 + v00))

    lc, lv, lk = (np.concatenate(p) for p in zip(*lin_parts))
    qc, qa, qb, qk = (np.concatenate(p) for p in zip(*quad_parts))
    kl, kq = lk != 0, qk != 0
    if not kl.all():
        lc, lv, lk = lc[kl], lv[kl], lk[kl]
    if not kq.all():
        qc, qa, qb, qk = qc[kq], qa[kq], qb[kq], qk[kq]
    clock.check("QUBO lowering")
    fq = _family_qubos(n, len(fam_names), family, const, lc, lv, lk, qc, qa, qb, qk)
    return PenaltyTerms(n, tuple(model.labels), tuple(map(attrgetter("label"), cons)),
                        tuple(fam_names), family, const, lc, lv, lk, qc, qa, qb, qk, fq)


def lower(model_or_nm: Any, weights: Mapping[str, Any] | None = None,
          deadline: Deadline | float | None = None) -> QuadraticPenalty:
    """The model's weighted quadratic penalty (defaults: ``DEFAULT_WEIGHTS``)."""
    return penalty_terms(model_or_nm, deadline).weighted(weights)


def to_bqm(model_or_nm: Any, weights: Mapping[str, Any] | None = None, *, labels: str = "model"):
    """The penalty as a ``dimod.BinaryQuadraticModel`` (BINARY), labelled with the model's labels."""
    return lower(model_or_nm, weights).to_bqm(labels=labels)


def qubo_text(pen: QuadraticPenalty, title: str = "") -> str:
    """The penalty in the qbsolv ``.qubo`` text format, labels and offset in comment lines."""
    n = pen.num_variables
    diag = np.flatnonzero(pen.linear)
    out = [f"c nonogram QUBO{': ' + title if title else ''}",
           "c energy = offset + sum_i h_i x_i + sum_{i<j} J_ij x_i x_j, x binary; 0 iff solved",
           f"c offset {pen.offset!r}",
           "c weights " + " ".join(f"{k}={v!r}" for k, v in pen.weights.items())]
    out += [f"c var {i} {label!r}" for i, label in enumerate(pen.labels)]
    out.append(f"p qubo 0 {n} {len(diag)} {len(pen.qi)}")
    out += [f"{i} {i} {v!r}" for i, v in zip(diag.tolist(), pen.linear[diag].tolist())]
    out += [f"{i} {j} {v!r}" for i, j, v in zip(pen.qi.tolist(), pen.qj.tolist(), pen.qv.tolist())]
    return "\n".join(out) + "\n"


EXPORT_FORMATS: dict[str, str] = {
    ".bqm": "dimod's binary BQM file (dimod.BinaryQuadraticModel.from_file)",
    ".json": "dimod's serializable BQM as JSON (dimod.BinaryQuadraticModel.from_serializable)",
    ".qubo": "qbsolv .qubo text (labels and offset in comment lines)",
    ".coo": "plain 'i j value' lines, i <= j (i == j: linear), offset in a comment line",
}
"""The formats :func:`export_bqm` writes, chosen by the file's extension."""


def coo_text(pen: QuadraticPenalty, title: str = "") -> str:
    """The penalty as plain COO lines ``i j value`` (``i == j`` linear, ``i < j`` quadratic)."""
    diag = np.flatnonzero(pen.linear)
    out = [f"# nonogram QUBO{': ' + title if title else ''}; energy = offset + sum value x_i x_j",
           f"# offset {pen.offset!r}", f"# variables {pen.num_variables}"]
    out += [f"{i} {i} {v!r}" for i, v in zip(diag.tolist(), pen.linear[diag].tolist())]
    out += [f"{i} {j} {v!r}" for i, j, v in zip(pen.qi.tolist(), pen.qj.tolist(), pen.qv.tolist())]
    return "\n".join(out) + "\n"


def export_bqm(nm: Any, path: str | Path, weights: Mapping[str, Any] | None = None) -> str:
    """Write the penalty QUBO to ``path`` in the format its extension names
    (:data:`EXPORT_FORMATS`: ``.bqm`` and ``.json`` dimod, ``.qubo`` and ``.coo`` text) and
    return the path. dimod's files keep the model's labels; the text files number the
    variables in model order (``.qubo`` lists the labels in comments). An unknown extension or
    bad weights raise BackendError (the CLI's exit code 2)."""
    from ..results import BackendError

    path = Path(path)
    ext = path.suffix.lower()
    if ext not in EXPORT_FORMATS:
        raise BackendError(f"{path}: cannot tell the export format from the extension "
                           f"{ext or '(none)'}; use one of "
                           + "; ".join(f"{e} {d}" for e, d in EXPORT_FORMATS.items()))
    try:
        pen = lower(nm, weights)
    except ValueError as exc:
        raise BackendError(str(exc)) from None
    puzzle = getattr(nm, "puzzle", None)
    title = ""
    if puzzle is not None:
        title = f"{puzzle.name or 'puzzle'} {puzzle.height}x{puzzle.width}" + \
                ("" if getattr(nm, "use_x", True) else " (no x)")
        if getattr(nm, "encoding", "order") != "order":
            title += f", {nm.encoding} encoding"
    if ext == ".qubo":
        path.write_text(qubo_text(pen, title))
    elif ext == ".coo":
        path.write_text(coo_text(pen, title))
    elif ext == ".json":
        import json

        bqm = pen.to_bqm(labels="model")
        path.write_text(json.dumps(bqm.to_serializable(), default=str))
    else:
        bqm = pen.to_bqm(labels="model")
        with bqm.to_file() as f:
            f.seek(0)
            path.write_bytes(f.read())
    return str(path)
