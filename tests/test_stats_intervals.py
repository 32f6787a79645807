"""TTS99's interval covers the true TTS99 (simulated runs, seeded), has a finite lower end at 0
successes and width at p-hat = 1, and is widened by the read time's spread."""
from __future__ import annotations

import math

import numpy as np
import pytest

from formulations.analysis.stats import repeats_for, tts99_interval, tts99_intervals, tts99_point

READS, CALLS = 100, 10          # 100 reads in 10 sampler calls of 10
TRIALS = 4000
SIGMA = 0.15                    # lognormal spread of a call's time per read: ~1.6x over 10 calls
T_MEDIAN = 0.01


@pytest.mark.parametrize("p", [0.003, 0.01, 0.03, 0.1, 0.3, 0.7, 1.0])
def test_interval_covers_the_true_tts99_at_least_93_percent(p):
    rng = np.random.default_rng(20260 + int(p * 1000))
    successes = rng.binomial(READS, p, size=TRIALS)
    per_call = T_MEDIAN * np.exp(SIGMA * rng.standard_normal((TRIALS, CALLS)))
    t_read = per_call.mean(axis=1)
    true_t = T_MEDIAN * math.exp(SIGMA ** 2 / 2)   # the mean of the lognormal
    truth = true_t * float(repeats_for(p))
    low, high = tts99_intervals(successes, np.full(TRIALS, READS), t_read, t_samples=per_call)
    coverage = float(np.mean((low <= truth) & (truth <= high)))
    assert coverage >= 0.93, f"coverage {coverage:.3f} at p = {p}"
    # the scalar function is the same computation
    k = int(np.argmax(successes))
    one = tts99_interval(int(successes[k]), READS, float(t_read[k]), t_samples=per_call[k])
    assert one == pytest.approx((low[k], high[k]))


def test_a_fixed_read_time_keeps_the_binomial_coverage():
    rng = np.random.default_rng(7)
    for p in (0.003, 0.05, 0.5):
        successes = rng.binomial(READS, p, size=TRIALS)
        low, high = tts99_intervals(successes, np.full(TRIALS, READS), np.full(TRIALS, 1.0))
        truth = float(repeats_for(p))
        assert np.mean((low <= truth) & (truth <= high)) >= 0.95


def test_no_success_bounds_tts99_from_below_and_every_success_gives_width():
    low, high = tts99_interval(0, 100, 0.01)
    assert math.isfinite(low) and low > 0.01 and high == math.inf
    # rule of three: p < ~3.7 / 100 at 95 %, so TTS99 > t * ln(0.01) / ln(1 - 0.037)
    assert low == pytest.approx(0.01 * math.log(0.01) / math.log(1 - 0.0362), rel=0.02)
    low, high = tts99_interval(100, 100, 0.01)
    assert low == pytest.approx(0.01) and high > 0.0101
    more = tts99_interval(0, 1000, 0.01)
    assert more.low > tts99_interval(0, 100, 0.01).low   # more failures, a higher bound


def test_interval_brackets_the_estimate_and_narrows_with_reads():
    for succ, reads in ((1, 50), (5, 50), (20, 50), (49, 50), (200, 1000)):
        low, high = tts99_interval(succ, reads, 0.01)
        assert low <= tts99_point(succ, reads, 0.01) <= high
    narrow = tts99_interval(200, 1000, 0.01)
    wide = tts99_interval(10, 50, 0.01)
    assert narrow.high - narrow.low < wide.high - wide.low


def test_the_read_time_spread_widens_the_interval():
    base = tts99_interval(20, 100, 0.01)
    spread = tts99_interval(20, 100, 0.01, t_spread=0.3)
    samples = tts99_interval(20, 100, 0.01, t_samples=[0.007, 0.013, 0.009, 0.011])
    assert spread.low < base.low and spread.high > base.high
    assert samples.low < base.low and samples.high > base.high
    assert tts99_interval(0, 0, 0.01) == (math.inf, math.inf)


def test_total_ratio_interval_covers_the_ratio_and_shrinks_to_it_when_every_pair_agrees():
    import random

    from formulations.analysis.stats import total_ratio_interval

    lo, mid, hi = total_ratio_interval([(t, 0.9 * t) for t in (0.1, 2.0, 0.5, 7.0)])
    assert lo == pytest.approx(0.9) and mid == pytest.approx(0.9) and hi == pytest.approx(0.9)
    rng = random.Random(4)
    pairs = [(t, t * rng.uniform(0.5, 1.5)) for t in (rng.expovariate(1.0) for _ in range(200))]
    lo, mid, hi = total_ratio_interval(pairs)
    assert lo < mid < hi and hi - lo > 0.02  # noisy pairs: an interval with width around the ratio
    assert mid == pytest.approx(sum(n for _, n in pairs) / sum(o for o, _ in pairs))
