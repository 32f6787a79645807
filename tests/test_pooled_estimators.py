"""p is estimated from every read drawn: the studies (bench/encodings_tts.py, bench/release.py)
pool every record of an instance and length, over seeds and calls, and never drop one for
having no success (the old encodings study replaced a first batch without success, biasing p
high)."""
from __future__ import annotations

import math

import pytest

from formulations.harness.study import pooled
from formulations.analysis.optimal import LadderData, optimal_tts


def _rec(inst, length, successes, reads, cpu, seed=0):
    return {"key": f"{inst}|sa|{length}|{seed}", "instance": inst, "length": length,
            "successes": successes, "reads": reads, "cpu_s": cpu}


def test_records_at_one_length_pool_their_reads_successes_and_time():
    recs = [_rec("a", 100, 0, 20, 0.02, seed=0), _rec("a", 100, 1, 200, 0.4, seed=1)]
    assert pooled(recs) == recs                      # a record with p = 0 is kept
    d = LadderData.from_records(pooled(recs))
    assert (d.successes.tolist(), d.reads.tolist()) == ([[1]], [[220]])
    t = 0.42 / 220
    assert d.t_read[0, 0] == pytest.approx(t)
    assert d.tts()[0, 0] == pytest.approx(t * math.log(0.01) / math.log(1 - 1 / 220))


def test_an_instance_never_solved_counts_as_inf_in_the_quantiles():
    recs = [_rec(i, 100, s, 100, 0.1) for i, s in (("a", 50), ("b", 40), ("c", 0))]
    d = LadderData.from_records(pooled(recs))
    q50, q90 = optimal_tts(d, (0.5, 0.9), resamples=50)
    assert math.isfinite(q50.tts99_s) and q50.solved == 2 and q50.instances == 3
    assert math.isinf(q90.tts99_s)                   # the unsolved third is above the 0.9 quantile
