"""The encodings study (bench/encodings_tts.py, formulations.harness.studies.encodings_tts): training and test puzzles never overlap, a killed
run resumes without measuring a task twice, settings tuned on training puzzles are what the
test phase measures, and the paired ratio's interval behaves."""
from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT

pytest.importorskip("dwave.samplers")

from formulations.harness.study import RecordFile, Task, measure  # noqa: E402
from formulations.analysis.optimal import LadderData  # noqa: E402
from formulations.harness.studies import encodings_tts as enc  # noqa: E402

SCRIPT = ROOT / "bench" / "encodings_tts.py"
TINY = ["--encodings", "order,onehot", "--samplers", "sa", "--scales", "1,2",
        "--betas", "1:10,0.3:10", "--reads", "10", "--budget", "0.2", "--tune-reads", "10",
        "--tune-budget", "0.2", "--tune-steps", "0", "--test-steps", "0"]


def _tiny_puzzles(tmp_path: Path) -> Path:
    p = tmp_path / "puzzles.txt"
    p.write_text("# a tiny study\ntrain puzzles/heart5.txt\ntrain puzzles/arrow5.txt\n"
                 "test puzzles/cross5.txt\n")
    return p


def test_the_committed_training_and_test_puzzles_are_disjoint():
    sel = enc.read_selection()
    train = [k for ks in sel.train.values() for k in ks]
    test = [k for ks in sel.test.values() for k in ks]
    assert train and test and not set(train) & set(test)
    assert len(set(train)) == len(train) and len(set(test)) == len(test)
    assert {z: len(k) for z, k in sel.test.items()} == enc.TEST_PER_SIZE


def test_missing_records_name_the_command_that_makes_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="python bench/encodings_tts.py run"):
        enc.read_records(tmp_path / "records.jsonl.gz")


def test_an_overlapping_list_is_refused(tmp_path):
    p = tmp_path / "p.txt"
    p.write_text("train puzzles/heart5.txt\ntest puzzles/heart5.txt\n")
    with pytest.raises(SystemExit, match="overlap"):
        enc.read_selection(p)
    p.write_text("train puzzles/heart5.txt\nvalidate puzzles/cross5.txt\n")
    with pytest.raises(SystemExit, match=r"p\.txt:2: expected"):
        enc.read_selection(p)


def test_a_beta_range_reaches_the_sampler_and_the_weights_a_puzzle_lacks_are_ignored():
    plain = Task("t", "h", "x", "sa", 100, 0)
    assert plain.key == "h|sa|100|0"                      # the release's keys stay as they were
    # weights of families the order model lacks (clash) weigh nothing; the beta range is passed
    rec = measure(Task("t", "heart5", str(ROOT / "puzzles" / "heart5.txt"), "sa", 50, 0,
                       reads=10, beta_range=(0.25, 10.0), weights=(("clash", 4.0), ("link", 2.0))))
    assert rec["params"]["beta_range"] == [0.25, 10.0] and rec["weights"]["link"] == 2.0
    assert "clash" not in rec["weights"]
    # the study's beta ranges are per unit of the configuration's smallest weight
    assert enc.Config("onehot", "sa", False, 0.5, (1.0, 10.0)).beta_range() == (2.0, 20.0)
    assert enc.Config("order", "sa", False, 2.0, (0.3, 10.0)).beta_range() == (0.3, 10.0)
    assert enc.Config("order", "sa").beta_range() is None


def _run(args: list[str], **kw) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, str(SCRIPT), *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, **kw)


def test_a_killed_run_resumes_without_repeating_a_task(tmp_path):
    puzzles, out = _tiny_puzzles(tmp_path), tmp_path / "out"
    args = ["run", "--puzzles", str(puzzles), "--out", str(out), "--quiet", *TINY]
    f = RecordFile(out / "records.jsonl.gz")
    proc = _run(args)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and len(f.read()) < 6:
        time.sleep(0.05)
    assert proc.poll() is None, "the tiny run finished before it could be killed:\n" + \
        proc.communicate()[0]
    os.killpg(proc.pid, signal.SIGKILL)     # the runner and its workers, mid-run
    proc.wait()
    before = {r["key"]: r for r in f.read()}
    assert before
    again = _run(args)
    log = again.communicate(timeout=300)[0]
    assert again.returncode == 0, log
    assert f"resuming: {len(before)} records" in log
    after = f.read()
    keys = [r["key"] for r in after]
    assert len(keys) == len(set(keys))                      # no task measured twice
    for r in after:
        if r["key"] in before:                              # the earlier records kept as they were
            assert r == before[r["key"]]
    assert not [r for r in after if "error" in r]
    # the run is complete: the plan asks for nothing more
    planner = enc.Planner(enc.read_selection(puzzles), ["order", "onehot"], ["sa"],
                          scales=[1.0, 2.0], betas=[(1.0, 10.0), (0.3, 10.0)],
                          tune=enc.Phase("tune", 10, 0.2, 1, 0, (0.5,)),
                          test=enc.Phase("test", 10, 0.2, 2, 0, enc.QUANTILES))
    by_key = {r["key"]: r for r in after}
    assert planner(by_key) == []
    # tuned on the training puzzles; the test records use exactly those settings
    tuned = json.loads((out / "tuned.json").read_text())["settings"]
    assert set(tuned) == {"order/sa", "onehot/sa"}
    for name, s in tuned.items():
        e = name.split("/")[0]
        test = [r for r in after if r["instance"] == "cross5" and r["encoding"] == e]
        train = [r for r in after if r["instance"] == "heart5" and r["encoding"] == e]
        assert test and train and {r["study"] for r in test} == {"encodings-2-test"}
        assert {r["use_x"] for r in test} == {s["use_x"]}
        assert all(r["weights"][k] == v for r in test for k, v in s["weights"].items()
                   if k in r["weights"])
        assert {tuple(r.get("variant", {}).get("beta_range", (1.0, 10.0))) for r in test} == \
            {tuple(s["beta_range_per_min_weight"])}
        # stage B tried the other beta range at stage A's best variant and weights only
        assert len({(r["use_x"], tuple(sorted(r["weights"].items())),
                     tuple(r.get("variant", {}).get("beta_range", ())))
                    for r in train}) == s["configurations_tried"] == 5


def _ladder(successes, reads=100, t=1e-3) -> LadderData:
    S = np.asarray(successes, dtype=np.int64)
    R = np.full_like(S, reads)
    return LadderData(tuple(f"i{k}" for k in range(S.shape[0])), tuple(range(1, S.shape[1] + 1)),
                      S, R, np.full(S.shape, t))


def test_the_paired_ratio_of_an_encoding_with_itself_is_one():
    d = _ladder([[10, 30, 20], [5, 12, 8], [40, 60, 50], [2, 9, 3]])
    r = enc.paired_ratio(d, d, 0.5, resamples=300)
    assert r["ratio"] == 1.0 and r["low"] <= 1.0 <= r["high"]


def test_a_worse_encoding_has_a_ratio_above_one_and_an_unsolved_one_no_upper_end():
    base = _ladder([[40, 60, 50]] * 12)
    worse = _ladder([[2, 3, 2]] * 12)
    r = enc.paired_ratio(base, worse, 0.5, resamples=300)
    assert r["low"] > 1 and r["ratio"] > r["low"] and math.isfinite(r["high"])
    never = _ladder([[0, 0, 0]] * 12)
    r = enc.paired_ratio(base, never, 0.5, resamples=300)
    assert math.isinf(r["ratio"]) and math.isinf(r["high"]) and math.isinf(r["low"])
    with pytest.raises(ValueError):
        enc.paired_ratio(base, _ladder([[1, 1, 1]] * 3), 0.5)


def test_replicates_where_the_base_never_solves_leave_the_ratio_unbounded_above():
    # the base solves one of three puzzles never: at q = 0.9 most replicates have the base at
    # inf; other / inf is undefined (not 0), so the upper end is inf and those count as undefined
    base = _ladder([[40, 60, 50], [30, 50, 40], [0, 0, 0]])
    other = _ladder([[4, 6, 5], [3, 5, 4], [1, 2, 1]])
    r = enc.paired_ratio(base, other, 0.9, resamples=2000)
    assert math.isinf(r["high"])
    assert r["undefined_replicates"] > 1000
