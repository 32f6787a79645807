"""Statistics of annealing runs that a paper can print: time to solution with 99 % confidence
(TTS99) and a confidence interval that covers it.

TTS99 (Ronnow et al., Science 345, 420, 2014): with independent reads of ``t`` seconds that each
reach a ground state with probability ``p``, the time to see one with 99 % confidence is
``t * ln(1 - 0.99) / ln(1 - p)``; it is ``t`` when ``p >= 0.99`` (one read suffices) and infinite
when ``p = 0`` (reported as null).

The interval (:func:`tts99_interval`) is exact in ``p`` and widened by the read time's spread:

* ``p``: the Clopper-Pearson interval ``[p_lo, p_hi]`` for ``successes`` of ``reads`` (beta
  quantiles; coverage at least the confidence asked for every ``p``). TTS99 falls as ``p``
  rises, so ``[TTS(p_hi), TTS(p_lo)]`` covers TTS99 whenever ``[p_lo, p_hi]`` covers ``p``.
  With no success ``p_hi`` is still positive: the lower end is finite (the data bound TTS99
  from below), the upper end infinite. With every read a success ``p_lo < 1``: the interval
  has width (``[t, t * ln 0.01 / ln(1 - p_lo)]``).
* ``t``: the mean CPU time per read varies from call to call (1.6x between identical SA calls
  on a shared machine). Given the per-read times of the separate calls (``t_samples``), the
  Student t interval of their mean ``[t_lo, t_hi]`` is used; given instead a relative spread
  ``t_spread = s``, ``[t / (1 + s), t * (1 + s)]`` (a stated bound, not an estimate).
* Combination (Bonferroni): with ``t_samples`` the error rate ``1 - confidence`` is split in
  half between the ``p`` interval and the ``t`` interval, so both hold together with
  probability at least ``confidence``; the interval is ``[t_lo * R(p_hi), t_hi * R(p_lo)]``
  with ``R(p) = ln 0.01 / ln(1 - p)`` (1 at ``p >= 0.99``). With ``t_spread`` or no spread the
  whole error rate goes to ``p``.

``tts99_intervals`` is the same on arrays (the coverage test simulates thousands of runs).
``resamples`` and ``seed`` are accepted for older callers and ignored: nothing is resampled.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
# imported with the module, not at the first interval: a sampler backend computes its interval
# after its time limit is spent, and scipy.stats' first import (0.8 s) ran past the limit there.
# Optional: the intervals need it (the anneal, qa, hybrid and openjij extras install it); the
# registry and every backend without an interval import this module without it.
try:
    from scipy import special
except ImportError:  # pragma: no cover - exercised in a fresh install without scipy
    special = None

from ..results import tts99

RESAMPLES = 1000
CONFIDENCE = 0.95
TARGET = 0.99  # the "99" of TTS99


def _need_scipy() -> None:
    if special is None:
        raise ModuleNotFoundError("the TTS99 intervals need scipy: pip install -e \".[anneal]\" "
                                  "(or: pip install scipy)", name="scipy")


class Interval(NamedTuple):
    """A confidence interval; an end is ``math.inf`` when unbounded."""
    low: float
    high: float


def repeats_for(p: np.ndarray | float) -> np.ndarray:
    """R(p) = ln(0.01) / ln(1 - p): the reads needed for 99 % confidence at success rate ``p``
    (1 when p >= 0.99, inf when p = 0). Vectorised; falls as ``p`` rises."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(1 - TARGET) / np.log1p(-np.clip(p, 0.0, TARGET))
    return np.where(p >= TARGET, 1.0, np.where(p <= 0, np.inf, r))


def p_interval(successes, reads, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """The Clopper-Pearson (exact binomial) interval for the success probability (arrays)."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(reads, dtype=float)
    a = (1.0 - confidence) / 2
    _need_scipy()
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k > 0, special.betaincinv(np.maximum(k, 1e-300), n - k + 1, a), 0.0)
        hi = np.where(k < n, special.betaincinv(k + 1, np.maximum(n - k, 1e-300), 1 - a), 1.0)
    return np.nan_to_num(lo, nan=0.0), np.nan_to_num(hi, nan=1.0)


def t_interval(t_samples: np.ndarray | Sequence[float],
               confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Student t interval of the mean of the per-read times along the last axis (one row per
    run); with fewer than two samples the mean itself at both ends. The lower end is kept
    above zero (a tenth of the mean at least)."""
    x = np.asarray(t_samples, dtype=float)
    m = x.shape[-1]
    mean = x.mean(axis=-1)
    if m < 2:
        return mean, mean
    _need_scipy()
    half = special.stdtrit(m - 1, 0.5 + confidence / 2) * x.std(axis=-1, ddof=1) / math.sqrt(m)
    return np.maximum(mean - half, 0.1 * mean), mean + half


def tts99_intervals(successes, reads, t_read, *, confidence: float = CONFIDENCE,
                    t_samples: np.ndarray | Sequence[float] | None = None,
                    t_spread: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tts99_interval` on arrays: ``(low, high)`` arrays. ``t_samples`` has one row of
    per-call per-read times for each run (shape ``(runs, calls)``), or one row for all."""
    alpha = 1.0 - confidence
    t = np.asarray(t_read, dtype=float)
    t_lo = t_hi = t
    p_conf = confidence
    if t_samples is not None and np.asarray(t_samples).shape[-1] >= 2:
        p_conf = 1.0 - alpha / 2                      # Bonferroni: half the error to each
        t_lo, t_hi = t_interval(t_samples, 1.0 - alpha / 2)
        t_lo, t_hi = np.minimum(t_lo, t), np.maximum(t_hi, t)
    elif t_spread is not None:
        if t_spread < 0:
            raise ValueError(f"t_spread must be >= 0, got {t_spread}")
        t_lo, t_hi = t / (1.0 + t_spread), t * (1.0 + t_spread)
    lo_p, hi_p = p_interval(successes, reads, p_conf)
    with np.errstate(invalid="ignore"):
        low = t_lo * repeats_for(hi_p)
        high = t_hi * repeats_for(lo_p)
    bad = (np.asarray(reads) <= 0) | ~np.isfinite(t)
    return np.where(bad, np.inf, low), np.where(bad, np.inf, high)


def tts99_interval(successes: int, reads: int, t_read: float, *, resamples: int = RESAMPLES,
                   confidence: float = CONFIDENCE, seed: int = 0,
                   t_samples: Sequence[float] | None = None,
                   t_spread: float | None = None) -> Interval:
    """The ``confidence`` interval of TTS99 for ``successes`` of ``reads`` reads of ``t_read``
    seconds (see the module docstring): Clopper-Pearson in ``p``, widened by the spread of the
    per-read time, ``t_samples`` (per-read time of each sampler call) or ``t_spread`` (relative).
    Finite lower end at 0 successes (upper end inf). At p-hat = 1 the width comes from p only
    while the Clopper-Pearson lower end stays below 0.99 (up to 367 reads at 95 %: TTS99 is one
    read from p = 0.99 on), and from the per-read time's spread beyond, so give one of them."""
    if reads <= 0 or not math.isfinite(t_read):
        return Interval(math.inf, math.inf)
    ts = None if t_samples is None or len(t_samples) < 2 else np.asarray(t_samples, float)[None, :]
    lo, hi = tts99_intervals(np.array([successes]), np.array([reads]), np.array([t_read]),
                             confidence=confidence, t_samples=ts, t_spread=t_spread)
    return Interval(float(lo[0]), float(hi[0]))


def tts99_point(successes: int, reads: int, t_read: float) -> float:
    """TTS99 itself (infinite when no read succeeded)."""
    return tts99(t_read, successes / reads) if reads > 0 else math.inf


def total_ratio_interval(pairs: Sequence[tuple[float, float]], *, resamples: int = 2000,
                         seed: int = 1) -> tuple[float, float, float]:
    """Paired benchmarks (``bench/*_paired.py``, ``bench/engine_compare.py``): the ratio of the
    new total to the old over ``(old, new)`` pairs (one per puzzle), with the 2.5 and 97.5 %
    points of the same ratio over the puzzles resampled with replacement (``seed`` fixes the
    draws, so a table's interval reproduces from its records)."""
    import random

    if not pairs:
        return math.nan, math.nan, math.nan
    rng = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        pick = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        ratios.append(sum(n for _, n in pick) / sum(o for o, _ in pick))
    ratios.sort()
    mid = sum(n for _, n in pairs) / sum(o for o, _ in pairs)
    return ratios[int(0.025 * resamples)], mid, ratios[int(0.975 * resamples) - 1]
