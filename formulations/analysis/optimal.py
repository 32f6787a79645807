"""TTS99 at the optimal anneal length per quantile over instances, and its scaling with size
(Ronnow et al., Science 345, 420, 2014; Albash & Lidar, PRX 8, 031016, 2018).

For one sampler and one size, every instance is measured at every length of a ladder (sweeps,
or tabu's updates per variable) in steps of sqrt(2). Per length, the q-quantile over instances
of TTS99 (unsolved instances count as inf, so a quantile is inf when more than 1 - q of the
instances were never solved at that length) is taken; the optimal length for q is the one that
minimises it. It is ``interior`` only when it is neither the shortest nor the longest length
measured, and the bootstrap agrees (at most ``EDGE_SHARE_MAX`` of the replicates have their
minimum at an end: on a flat stretch the argmin is noise): at an edge the true optimum may lie
beyond, and the figure is a bound (an upper bound on the optimal TTS99 and on where its length
lies), never a value.

The interval is a two-level bootstrap: resample the instances with replacement, then each
instance's successes from Binomial(reads, successes / reads) at every length, recompute the
quantile per length and its minimum over lengths; the percentiles of that minimum give the
interval (an unsolved instance stays unsolved in every resample, so its inf is kept). The time
per read of an instance is its measured mean CPU time per read, held fixed in the resamples;
``t_spread`` widens the ends by a stated relative spread.

Quantiles are order statistics (numpy's ``inverted_cdf``: the smallest value with at least a
fraction q of the instances at or below it), so inf never enters an interpolation.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .stats import CONFIDENCE, repeats_for

QUANTILES = (0.5, 0.75, 0.9)
RESAMPLES = 1000
EDGE_SHARE_MAX = 0.05
"""An optimum is called interior only when at most this share of the bootstrap replicates has
its minimum at an end of the ladder: otherwise the lower end of its interval rests on
replicates that only bound their optimum, and the minimum may lie beyond (a flat stretch)."""
STEP = math.sqrt(2.0)


def ladder_length(k: int, base: float = 100.0) -> int:
    """The k-th length of a sqrt(2) ladder through ``base`` (k may be negative)."""
    return max(1, int(round(base * STEP ** k)))


def ladder_index(length: float, base: float = 100.0) -> int:
    """The k with ``ladder_length(k, base) == length`` (nearest)."""
    return int(round(math.log(length / base) / math.log(STEP)))


@dataclass(frozen=True)
class LadderData:
    """Per instance (rows) and length (columns, ascending): pooled successes, reads and mean
    CPU time per read. ``reads == 0`` where an instance was not measured at a length."""
    instances: tuple[str, ...]
    lengths: tuple[int, ...]
    successes: np.ndarray
    reads: np.ndarray
    t_read: np.ndarray

    @classmethod
    def from_records(cls, records: Iterable[Mapping]) -> LadderData:
        """Pool records (``instance``, ``length``, ``successes``, ``reads``, ``cpu_s``: the
        sampling CPU time of those reads) over seeds and batches: successes and reads are
        summed, the time per read is total CPU over total reads."""
        acc: dict[tuple[str, int], list[float]] = {}
        for r in records:
            a = acc.setdefault((str(r["instance"]), int(r["length"])), [0, 0, 0.0])
            a[0] += int(r["successes"])
            a[1] += int(r["reads"])
            a[2] += float(r["cpu_s"])
        insts = tuple(sorted({i for i, _ in acc}))
        lens = tuple(sorted({n for _, n in acc}))
        S = np.zeros((len(insts), len(lens)), dtype=np.int64)
        R = np.zeros_like(S)
        T = np.full(S.shape, np.nan)
        ii = {x: k for k, x in enumerate(insts)}
        ll = {x: k for k, x in enumerate(lens)}
        for (i, n), (s, rd, c) in acc.items():
            S[ii[i], ll[n]], R[ii[i], ll[n]] = s, rd
            T[ii[i], ll[n]] = c / rd if rd else np.nan
        return cls(insts, lens, S, R, T)

    def tts(self, successes: np.ndarray | None = None) -> np.ndarray:
        """TTS99 per instance and length (inf where unsolved or not measured)."""
        S = self.successes if successes is None else successes
        R = np.maximum(self.reads, 1)
        with np.errstate(invalid="ignore"):
            out = np.asarray(self.t_read) * repeats_for(S / R)
        return np.where((self.reads > 0) & np.isfinite(out), out, np.inf)


def quantile(values: np.ndarray, q: float, axis: int) -> np.ndarray:
    """The q-quantile as an order statistic (inf-safe)."""
    return np.quantile(values, q, axis=axis, method="inverted_cdf")


@dataclass(frozen=True)
class QuantileOptimum:
    """The optimal length for one quantile and TTS99 there with its interval (seconds; inf
    when unbounded). ``edge`` is ``"low"``/``"high"`` when the minimum sits at that end of the
    ladder, or (the data's minimum inside) more than ``EDGE_SHARE_MAX`` of the replicates put
    theirs at an end, that one most (a bound either way); None when interior or when no length
    gives a finite quantile."""
    q: float
    instances: int
    solved: int
    optimal_length: int | None
    interior: bool
    edge: str | None
    tts99_s: float
    low_s: float
    high_s: float
    per_length: tuple[float, ...]     # the quantile at each length of the ladder
    replicates: np.ndarray | None = field(repr=False, compare=False, default=None)
    edge_share: float = 0.0           # share of bootstrap replicates with their minimum at an end
    grow: tuple[str, ...] = ()        # a bound by the replicates: every end some of them sit at

    def to_dict(self) -> dict:
        def num(x: float):
            return None if x is None or not math.isfinite(x) else float(x)
        return {"q": self.q, "instances": self.instances, "solved": self.solved,
                "optimal_length": self.optimal_length, "interior": self.interior,
                "edge": self.edge, "tts99_s": num(self.tts99_s), "low_s": num(self.low_s),
                "high_s": num(self.high_s), "edge_share": self.edge_share,
                "per_length": [num(v) for v in self.per_length]}


def percentile_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Order-statistic percentile interval of bootstrap replicates (inf-safe)."""
    v = np.sort(np.asarray(values, dtype=float))
    if not len(v):
        return math.inf, math.inf
    a = (1 - confidence) / 2
    lo = v[max(0, int(math.floor(a * len(v))))]
    hi = v[min(len(v) - 1, int(math.ceil((1 - a) * len(v))) - 1)]
    return float(lo), float(hi)


def resampled_tts(data: LadderData, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The bootstrap's second level: per replicate (rows of ``idx``, resampled instances),
    instance and length, TTS99 after drawing each instance's successes binomially from its
    reads (inf where no read was made or none succeeded)."""
    R = data.reads[idx]
    p = np.where(data.reads > 0, data.successes / np.maximum(data.reads, 1), 0.0)[idx]
    S = rng.binomial(R, p)
    with np.errstate(invalid="ignore"):
        t = np.asarray(data.t_read)[idx] * repeats_for(S / np.maximum(R, 1))
    return np.where((R > 0) & np.isfinite(t), t, np.inf)


def optimal_tts(data: LadderData, quantiles: Sequence[float] = QUANTILES, *,
                resamples: int = RESAMPLES, confidence: float = CONFIDENCE, seed: int = 0,
                t_spread: float = 0.0, edge_share_max: float = EDGE_SHARE_MAX,
                ) -> list[QuantileOptimum]:
    """Per quantile, the length minimising that quantile of TTS99 over instances, with the
    two-level bootstrap interval of the minimum (see the module docstring). An optimum is
    interior only when the data's minimum is inside the ladder and at most ``edge_share_max``
    of the replicates put theirs at an end."""
    tts = data.tts()
    n_inst, n_len = tts.shape
    solved = int(np.sum((data.successes > 0).any(axis=1))) if n_inst else 0
    if n_inst == 0 or n_len == 0:
        return [QuantileOptimum(q, 0, 0, None, False, None, math.inf, math.inf, math.inf, ())
                for q in quantiles]
    rng = np.random.default_rng(seed)
    idx = rng.integers(n_inst, size=(resamples, n_inst))
    tts_b = resampled_tts(data, idx, rng)
    out = []
    for q in quantiles:
        per_len = quantile(tts, q, axis=0)
        k = int(np.argmin(per_len))
        best = float(per_len[k])
        per_rep = quantile(tts_b, q, axis=1)            # (resamples, lengths)
        reps = per_rep.min(axis=1)
        lo, hi = percentile_interval(reps, confidence)
        lo, hi = lo / (1 + t_spread), hi * (1 + t_spread)
        finite = math.isfinite(best)
        # where each replicate's minimum sits: on a flat stretch the point estimate's argmin is
        # noise, and a replicate whose minimum is at an end only bounds its optimum
        # (a replicate unbounded at every length counts at the high end: longer anneals may
        # solve what it lost, as extend_ladder assumes)
        kb = np.argmin(per_rep, axis=1)
        ok = np.isfinite(reps)
        share = {"low": float(np.mean(ok & (kb == 0))),
                 "high": float(np.mean(~ok | ((kb == n_len - 1) & (n_len > 1))))}
        edge = None if not finite else "low" if k == 0 else "high" if k == n_len - 1 else None
        from_shares = finite and edge is None and share["low"] + share["high"] > edge_share_max
        if from_shares:
            edge = max(share, key=share.__getitem__)   # interior in the data, not in the resamples
        interior = finite and n_len >= 3 and edge is None
        out.append(QuantileOptimum(q, n_inst, solved, data.lengths[k] if finite else None,
                                   interior, edge, best, min(lo, best), max(hi, best),
                                   tuple(float(v) for v in per_len), reps,
                                   edge_share=round(share["low"] + share["high"], 4),
                                   grow=tuple(e for e in ("low", "high")
                                              if share[e] > 0) if from_shares else ()))
    return out


def extend_ladder(lengths: Sequence[int], optima: Sequence[QuantileOptimum], *,
                  base: float = 100.0, min_length: int = 1,
                  max_length: int | None = None) -> list[int]:
    """The lengths to add so that every quantile's minimum can become interior: one sqrt(2)
    step beyond the high end when some optimum sits there or no quantile is finite yet (longer
    anneals may solve more instances), one below the low end when some optimum sits there."""
    ks = sorted(ladder_index(n, base) for n in lengths)
    add: list[int] = []
    if not ks:
        return add
    # a bound by the replicates grows every end some of them sit at: the end with most may be
    # capped while growing the other is what makes the minimum interior
    if any(o.edge == "low" or "low" in o.grow for o in optima):
        n = ladder_length(ks[0] - 1, base)
        if n >= min_length and n not in lengths:
            add.append(n)
    if any(o.edge == "high" or "high" in o.grow or not math.isfinite(o.tts99_s)
           for o in optima):
        n = ladder_length(ks[-1] + 1, base)
        if (max_length is None or n <= max_length) and n not in lengths:
            add.append(n)
    return add


# -- scaling fits ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScalingFit:
    """log TTS99 = a + b * x (``model="exp"``) or a + b * log x (``"poly"``), with the bootstrap
    interval of b; ``x`` names the size measure (cells, variables). ``points``: sizes used."""
    model: str
    x: str
    exponent: float
    low: float
    high: float
    prefactor: float
    points: int

    def to_dict(self) -> dict:
        def num(v):
            return None if v is None or not math.isfinite(v) else float(v)
        return {"model": self.model, "x": self.x, "exponent": num(self.exponent),
                "low": num(self.low), "high": num(self.high), "prefactor": num(self.prefactor),
                "points": self.points}


def _slope(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope and intercept of log y on x; inf slope when some y is inf."""
    if not np.all(np.isfinite(y)):
        return math.inf, math.nan
    b, a = np.polyfit(x, np.log(y), 1)
    return float(b), float(a)


def fit_scaling(sizes: Sequence[float], tts: Sequence[float],
                replicates: Sequence[np.ndarray] | None = None, *, model: str = "exp",
                x: str = "cells", confidence: float = CONFIDENCE) -> ScalingFit | None:
    """Fit TTS99 against size over the points given (the caller passes only interior, finite
    optima), with the percentile interval of the exponent over paired bootstrap replicates
    (``replicates[i]``: the replicates of point i, equal length). A replicate with an inf
    point gives an inf exponent (the growth is unbounded in that resample). None with fewer
    than two points."""
    if model not in ("exp", "poly"):
        raise ValueError(f"model must be 'exp' or 'poly', got {model!r}")
    xs = np.asarray(sizes, dtype=float)
    ys = np.asarray(tts, dtype=float)
    if len(xs) < 2 or len(set(xs.tolist())) < 2:
        return None
    xx = xs if model == "exp" else np.log(xs)
    b, a = _slope(xx, ys)
    lo = hi = b
    if replicates is not None:
        reps = np.asarray([np.asarray(r, dtype=float) for r in replicates])  # (points, B)
        with np.errstate(divide="ignore", invalid="ignore"):
            logy = np.log(reps)
        finite = np.all(np.isfinite(logy), axis=0)
        bs = np.full(reps.shape[1], np.inf)
        if finite.any():
            xc = xx - xx.mean()
            ly = logy[:, finite]
            bs[finite] = (xc[:, None] * (ly - ly.mean(axis=0))).sum(axis=0) / (xc ** 2).sum()
        lo, hi = percentile_interval(bs, confidence)
    return ScalingFit(model, x, b, min(lo, b), max(hi, b), math.exp(a) if math.isfinite(a) else math.nan,
                      len(xs))


def step_fits(sizes: Sequence[float], tts: Sequence[float],
              replicates: Sequence[np.ndarray] | None = None, *, model: str = "exp",
              x: str = "cells", confidence: float = CONFIDENCE) -> list[dict]:
    """The exponent between each pair of successive sizes (sorted), with its interval from the
    same paired replicates: a fit over three or more sizes has no residual degrees of freedom
    to speak of, and these say whether one exponent describes them all."""
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    out = []
    for i, j in zip(order, order[1:]):
        f = fit_scaling([sizes[i], sizes[j]], [tts[i], tts[j]],
                        None if replicates is None else [replicates[i], replicates[j]],
                        model=model, x=x, confidence=confidence)
        if f is not None:
            d = f.to_dict()
            out.append({"from": float(sizes[i]), "to": float(sizes[j]), "exponent": d["exponent"],
                        "low": d["low"], "high": d["high"]})
    return out


def fit_with_steps(sizes: Sequence[float], tts: Sequence[float],
                   replicates: Sequence[np.ndarray] | None = None, *, model: str = "exp",
                   x: str = "cells") -> dict | None:
    """:func:`fit_scaling` as a dict, with :func:`step_fits` (``steps``) and ``steps_agree``:
    with three or more sizes, False when some step's interval excludes the overall exponent
    (that model does not describe the sizes: read the steps, not the one exponent); None with
    two sizes (nothing to check)."""
    f = fit_scaling(sizes, tts, replicates, model=model, x=x)
    if f is None:
        return None
    steps = step_fits(sizes, tts, replicates, model=model, x=x)
    agree = None
    if len(steps) >= 2:
        agree = all(s["low"] is not None and s["low"] <= f.exponent
                    and (s["high"] is None or f.exponent <= s["high"]) for s in steps)
    return {**f.to_dict(), "steps": steps, "steps_agree": agree}
