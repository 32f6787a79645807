"""Per-quantile optimal anneal length and the scaling fits, on synthetic data with a known
optimum and exponent."""
from __future__ import annotations

import math

import numpy as np
import pytest

from formulations.analysis.optimal import (
    LadderData,
    extend_ladder,
    fit_scaling,
    fit_with_steps,
    ladder_length,
    optimal_tts,
)
from formulations.analysis.stats import repeats_for

T_SWEEP = 1e-5   # CPU seconds per sweep of one read


def synthetic(lengths, best: int, hardness, reads: int, unsolved: int = 0,
              rng: np.random.Generator | None = None) -> LadderData:
    """Instances whose TTS99 at length L is h * T_SWEEP * (best^2 / L + L): minimal at ``best``.
    The success probability follows; successes are drawn (``rng``) or the expected count."""
    lengths = tuple(sorted(lengths))
    S, R, T = [], [], []
    for i, h in enumerate(hardness):
        row_s = []
        for L in lengths:
            reps = h * (best ** 2 / L + L) / L       # TTS / t_read
            p = 0.0 if i < unsolved else 1 - 0.01 ** (1 / reps)
            row_s.append(rng.binomial(reads, p) if rng is not None else round(p * reads))
        S.append(row_s)
        R.append([reads] * len(lengths))
        T.append([T_SWEEP * L for L in lengths])
    names = tuple(f"i{k}" for k in range(len(hardness)))
    return LadderData(names, lengths, np.array(S), np.array(R), np.array(T, dtype=float))


LADDER = [ladder_length(k) for k in range(-2, 7)]   # 50 .. 800 in sqrt(2) steps
HARD = np.linspace(2.0, 6.0, 41)


def true_tts(h: float, best: int) -> float:
    return h * T_SWEEP * 2 * best


def test_the_ladder_is_sqrt2_steps():
    assert LADDER == [50, 71, 100, 141, 200, 283, 400, 566, 800]


def test_each_quantile_finds_the_known_interior_optimum():
    data = synthetic(LADDER, 283, HARD, reads=10 ** 6)
    for o in optimal_tts(data, resamples=300):
        assert o.optimal_length == 283 and o.interior and o.edge is None
        h_q = np.quantile(HARD, o.q, method="inverted_cdf")
        assert o.tts99_s == pytest.approx(true_tts(h_q, 283), rel=0.02)
        assert o.low_s <= o.tts99_s <= o.high_s
        assert o.instances == 41 and o.solved == 41


def test_a_minimum_at_the_ladder_edge_is_a_bound_and_the_ladder_grows():
    short = [n for n in LADDER if n <= 200]
    optima = optimal_tts(synthetic(short, 283, HARD, reads=10 ** 6), resamples=100)
    assert all(o.optimal_length == 200 and not o.interior and o.edge == "high" for o in optima)
    assert extend_ladder(short, optima) == [283]
    long = [n for n in LADDER if n >= 400]
    optima = optimal_tts(synthetic(long, 283, HARD, reads=10 ** 6), resamples=100)
    assert all(o.edge == "low" and not o.interior for o in optima)
    assert extend_ladder(long, optima) == [283]
    inner = optimal_tts(synthetic(LADDER, 283, HARD, reads=10 ** 6), resamples=100)
    assert extend_ladder(LADDER, inner) == []


def test_unsolved_instances_count_as_inf():
    # 12 of 41 never solved (29 %): the median is finite, the 75th and 90th percentiles are not
    data = synthetic(LADDER, 283, HARD, reads=10 ** 6, unsolved=12)
    med, q75, q90 = optimal_tts(data, resamples=200)
    assert med.solved == 29 and med.instances == 41
    assert math.isfinite(med.tts99_s) and med.interior
    # the median over all 41 is the 21st smallest, the unsolved (inf) last: the 21st solved
    assert med.tts99_s == pytest.approx(true_tts(HARD[12:][20], 283), rel=0.02)
    for o in (q75, q90):
        assert o.tts99_s == math.inf and o.optimal_length is None and not o.interior
    assert extend_ladder(LADDER, [med, q75, q90]) == [1131]


def test_the_two_level_bootstrap_covers_the_optimum_with_few_reads():
    rng = np.random.default_rng(3)
    hits = 0
    for trial in range(20):
        hard = rng.uniform(2.0, 6.0, 41)
        data = synthetic(LADDER, 283, hard, reads=100, rng=rng)
        med = optimal_tts(data, [0.5], resamples=400, seed=trial)[0]
        truth = true_tts(2.0 + 4.0 * 0.5, 283)   # the population median's TTS99
        assert med.low_s < med.high_s
        hits += med.low_s <= truth <= med.high_s
    assert hits >= 16


def test_a_flat_stretch_is_a_bound_even_when_the_data_dip_inside_it():
    """Tabu reads stop at the ground state, so past some length TTS99 no longer moves: the
    data's argmin is then noise, and replicates put theirs at the ends. Such a minimum is
    not a value (its interval's lower end rests on replicates that only bound theirs)."""
    lengths = tuple(LADDER[:5])
    S = np.full((40, 5), 100)
    S[:, 2] = 101                                  # the data dip by one success in the middle
    data = LadderData(tuple(f"i{k}" for k in range(40)), lengths, S, np.full((40, 5), 200),
                      np.full((40, 5), 1e-3))
    for o in optimal_tts(data, resamples=400):
        assert o.optimal_length == 100             # inside the ladder in the data
        assert o.edge_share > 0.05 and not o.interior and o.edge in ("low", "high")
    # the ladder grows towards where the replicates' minima sit
    assert extend_ladder(lengths, optimal_tts(data, resamples=400)) != []
    # a clear minimum stays interior, with (almost) no replicate at an end
    for o in optimal_tts(synthetic(LADDER, 283, HARD, reads=10 ** 6), resamples=300):
        assert o.interior and o.edge_share <= 0.05


def test_steps_between_sizes_say_when_one_exponent_does_not_describe_them():
    rng = np.random.default_rng(3)
    cells = [100, 225, 400, 625]
    poly_tts = [1e-6 * c ** 3.0 for c in cells]
    reps = [y * np.exp(0.05 * rng.standard_normal(400)) for y in poly_tts]
    poly = fit_with_steps(cells, poly_tts, reps, model="poly")
    assert poly["steps_agree"] is True and len(poly["steps"]) == 3
    assert all(s["low"] <= 3.0 <= s["high"] for s in poly["steps"])
    exp = fit_with_steps(cells, poly_tts, reps, model="exp")   # the wrong model: steps fall
    assert exp["steps_agree"] is False
    assert exp["steps"][0]["exponent"] > exp["steps"][-1]["exponent"]
    assert fit_with_steps(cells[:2], poly_tts[:2], reps[:2])["steps_agree"] is None


def test_records_are_pooled_over_seeds():
    recs = [dict(instance="a", length=100, successes=s, reads=200, cpu_s=2.0) for s in (0, 1, 1)]
    data = LadderData.from_records(recs)
    assert data.successes.tolist() == [[2]] and data.reads.tolist() == [[600]]
    t = 6.0 / 600
    assert data.tts()[0, 0] == pytest.approx(t * float(repeats_for(2 / 600)))


def test_exponential_and_polynomial_exponents_are_recovered_with_intervals():
    rng = np.random.default_rng(11)
    cells = np.array([100, 225, 400, 625, 900])
    exp_tts = 1e-3 * np.exp(0.01 * cells)
    reps = [y * np.exp(0.1 * rng.standard_normal(500)) for y in exp_tts]
    fit = fit_scaling(cells, exp_tts, reps, model="exp")
    assert fit.exponent == pytest.approx(0.01)
    assert fit.low < 0.01 < fit.high and fit.points == 5
    poly_tts = 1e-6 * cells ** 3.0
    reps = [y * np.exp(0.1 * rng.standard_normal(500)) for y in poly_tts]
    fit = fit_scaling(cells, poly_tts, reps, model="poly", x="variables")
    assert fit.exponent == pytest.approx(3.0) and fit.low < 3.0 < fit.high
    # a resample with an unbounded point makes the upper end unbounded when it is common
    reps[-1][:100] = np.inf
    assert fit_scaling(cells, poly_tts, reps, model="poly").high == math.inf
    assert fit_scaling([100], [1.0]) is None


def test_optimum_replicates_feed_the_fit():
    rng = np.random.default_rng(5)
    sizes, meds, reps = [], [], []
    for n in (100, 225, 400):
        scale = math.exp(0.004 * n)
        data = synthetic(LADDER, 283, HARD * scale, reads=2000, rng=rng)
        med = optimal_tts(data, [0.5], resamples=300, seed=n)[0]
        assert med.interior
        sizes.append(n)
        meds.append(med.tts99_s)
        reps.append(med.replicates)
    fit = fit_scaling(sizes, meds, reps)
    assert fit.low <= 0.004 <= fit.high


def test_a_bound_by_the_replicates_grows_the_end_that_is_not_capped():
    """The end where most replicates' minima sit may be at the sampler's cap: the ladder then
    grows at the other end they sit at, or it would stop with the optimum still a bound."""
    lengths = tuple(LADDER[:5])                         # 50 .. 200
    S = np.full((40, 5), 100)
    S[:, 2] = 101
    data = LadderData(tuple(f"i{k}" for k in range(40)), lengths, S, np.full((40, 5), 200),
                      np.full((40, 5), 1e-3))
    optima = optimal_tts(data, [0.5], resamples=400)
    assert not optima[0].interior and set(optima[0].grow) == {"low", "high"}
    assert extend_ladder(lengths, optima, min_length=50) == [283]      # low end capped
    assert extend_ladder(lengths, optima, max_length=200) == [35]      # high end capped
