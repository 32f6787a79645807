"""Statistics of annealing runs that a paper can print: time to solution with 99 % confidence
(TTS99) and its bootstrap interval.

TTS99 (Ronnow et al., Science 345, 420, 2014): with independent reads of ``t`` seconds that each
reach a ground state with probability ``p``, the time to see one with 99 % confidence is
``t * ln(1 - 0.99) / ln(1 - p)``; it is ``t`` when ``p >= 0.99`` (one read suffices) and infinite
when ``p = 0`` (reported as null).

The interval resamples the reads with replacement (``resamples`` times, 1,000 unless asked
otherwise) and takes the 2.5 and 97.5 percentiles of the resampled TTS99; ``t`` is held fixed
(its own spread is far smaller than that of ``p`` at the read counts used here). A resample
without a success has an infinite TTS99, so the upper end is infinite (null) whenever such
resamples are more than 2.5 % of them. The resampling is seeded, so a run's interval is
reproducible.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .results import tts99

RESAMPLES = 1000
CONFIDENCE = 0.95


class Interval(NamedTuple):
    """A confidence interval; an end is ``math.inf`` when unbounded."""
    low: float
    high: float


def tts99_interval(successes: int, reads: int, t_read: float, *, resamples: int = RESAMPLES,
                   confidence: float = CONFIDENCE, seed: int = 0) -> Interval:
    """The bootstrap interval of TTS99 for ``successes`` of ``reads`` reads of ``t_read`` seconds.

    Resampling reads with replacement draws the number of successes from
    ``Binomial(reads, successes / reads)``, which is what is sampled here (the same distribution
    as resampling the list of reads, without building it)."""
    if reads <= 0 or not math.isfinite(t_read):
        return Interval(math.inf, math.inf)
    rng = np.random.default_rng(seed)
    p_star = rng.binomial(reads, successes / reads, size=resamples) / reads
    with np.errstate(divide="ignore"):
        tts = np.where(p_star >= 0.99, t_read,
                       np.where(p_star <= 0, np.inf,
                                t_read * math.log(0.01) / np.log1p(-np.minimum(p_star, 0.99))))
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(tts, [tail, 1.0 - tail], method="lower")
    return Interval(float(low), float(high))


def tts99_point(successes: int, reads: int, t_read: float) -> float:
    """TTS99 itself (infinite when no read succeeded)."""
    return tts99(t_read, successes / reads) if reads > 0 else math.inf
