"""The sampler studies of bench/ run on the one study runner: a tiny run writes its records, a
killed run resumes without measuring a task twice, and a study's summary gives the p that
counting its records gives (reads pooled over seeds, p = 0 kept)."""
from __future__ import annotations

import argparse
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("dwave.samplers")

from formulations.harness.studies import anneal_budget as budget, anneal_tts as tts
from formulations.harness.study import RecordFile, Task, measure, task_from_dict

from helpers import ROOT
BENCH = ROOT / "bench"


def records(out: Path) -> list[dict]:
    return RecordFile(out / "records.jsonl.gz").read()


TINY = ["sweeps", "--puzzle", "heart5", "--puzzle-source", "repo:puzzles/heart5.txt",
        "--sweeps", "1,20", "--reads", "30", "--budget", "2", "--seeds", "2", "--quiet"]


def test_a_tiny_anneal_tts_run_writes_one_record_per_task_and_pools_seeds(tmp_path):
    done = subprocess.run([sys.executable, str(BENCH / "anneal_tts.py"), *TINY, "--out",
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    recs = records(tmp_path)
    args = argparse.Namespace(
        sweep_list=[1, 20], seed=1, seeds=2, reads=30, batch=10, budget=2.0, puzzle="heart5",
        puzzle_source="repo:puzzles/heart5.txt", presolve=False)
    assert sorted(r["key"] for r in recs) == sorted(t.key for t in tts.plan("sweeps", args))
    assert len(recs) == 2 * 3 * 2 * 2   # x / no x, three series, two lengths, two seeds
    assert all(r["reads"] == 30 and r["study"] == "anneal_tts" for r in recs)
    # the summary's p is the count over the records of a point, every seed's reads pooled
    count: Counter = Counter()
    reads: Counter = Counter()
    for r in recs:
        k = (r["instance"], tts.series(r), r["length"])
        count[k] += r["successes"]
        reads[k] += r["reads"]
    pts = tts.points(recs)
    assert len(pts) == len(count)
    for p in pts:
        k = (p["puzzle"], p["series"], p["length"])
        assert p["reads"] == reads[k] == 60
        assert p["p"] == count[k] / reads[k]
        if p["successes"] == 0:   # kept, censored: TTS99 inf, finite lower end
            assert math.isinf(p["tts99_s"]) and 0 < p["low_s"] < math.inf
        else:
            assert p["low_s"] <= p["tts99_s"] <= p["high_s"]
    assert "best sweeps per series" in done.stdout


def test_a_killed_study_resumes_without_measuring_a_task_twice(tmp_path):
    argv = [sys.executable, str(BENCH / "anneal_tts.py"), "sweeps", "--sweeps",
            "100,200,300,400,500,600", "--reads", "100000", "--budget", "0.4", "--quiet",
            "--out", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    f = RecordFile(tmp_path / "records.jsonl.gz")
    try:
        deadline = time.monotonic() + 120
        while not f.read() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)   # the run and its worker processes
        proc.wait()
    first = [r["key"] for r in f.read()]
    total = 2 * 3 * 6
    assert 1 <= len(first) < total        # killed part-way
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "resuming" in done.stderr
    keys = [r["key"] for r in f.read()]
    assert len(keys) == len(set(keys)) == total   # every task once, none measured again
    assert keys[:len(first)] == first             # the first run's records kept as written


def test_the_budget_study_counts_its_runs(tmp_path):
    pytest.importorskip("ortools")
    t = budget.budget_task("sa+x", "heart5", "repo:puzzles/heart5.txt", 5.0)
    assert t.use_x and t.time_limit == 5.0 and t.key == "heart5|sa|0|0|order|x=1|t=5"
    rec = measure(t)
    assert rec["status"] == "solved" and rec["successes"] == 1 and rec["verified"]
    assert budget.spec_of(rec) == "sa+x"
    rows = budget.table([rec, {**rec, "key": "b", "successes": 0}])
    assert rows[0]["runs"] == 2 and rows[0]["solved"] == 1
    assert rows[0]["low_%"] < 50 < rows[0]["high_%"]


def test_variants_extend_the_key_only_when_set_and_survive_a_round_trip():
    base = Task("s", "p", "repo:puzzles/heart5.txt", "sa", 100, 2)
    assert base.key == "p|sa|100|2" and base.variant == {}    # the release's keys unchanged
    t = Task("s", "p", "repo:puzzles/heart5.txt", "pimc", 100, 2, presolve=True,
             beta_range=(0.5, 5.0), params=(("gamma", 0.5),))
    assert t.key == "p|pimc|100|2|presolve|beta=0.5:5|p=gamma:0.5"
    assert task_from_dict({**t.__dict__, "beta_range": [0.5, 5.0],
                           "params": {"gamma": 0.5}}).key == t.key
    assert Task("s", "p", "x", "sa", 0, 0, beta_range="sampler").key == "p|sa|0|0|beta=sampler"


def test_values_that_differ_past_six_digits_get_different_keys():
    # ``:g`` keeps six significant digits: these two beta ranges (and budgets) shared a key,
    # so a study measured only one of them and reported it for both
    a = Task("s", "p", "x", "sa", 100, 0, beta_range=(0.1234561, 5.0), time_limit=1.0000001)
    b = Task("s", "p", "x", "sa", 100, 0, beta_range=(0.1234564, 5.0), time_limit=1.0000002)
    assert a.key != b.key and "|t=1.0000001" in a.key
    assert task_from_dict({**a.__dict__, "beta_range": list(a.beta_range)}).key == a.key
    # values exact in six digits keep the keys of the committed records
    assert Task("s", "p", "x", "sa", 100, 0, beta_range=(0.25, 8.0), time_limit=2.0).key == \
        "p|sa|100|0|beta=0.25:8|t=2"


def test_a_study_stopped_by_sigterm_takes_its_workers_with_it(tmp_path):
    # `kill PID` on a run (not its process group) must not leave its worker processes running
    psutil = pytest.importorskip("psutil")
    argv = [sys.executable, str(BENCH / "anneal_tts.py"), "sweeps", "--sweeps",
            "100,200,300,400,500,600", "--reads", "100000", "--budget", "5", "--quiet",
            "--workers", "2", "--out", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        me = psutil.Process(proc.pid)
        deadline = time.monotonic() + 120
        workers = []
        while time.monotonic() < deadline and proc.poll() is None:
            workers = [c for c in me.children(recursive=True)
                       if "spawn_main" in " ".join(c.cmdline())]
            if len(workers) >= 2:
                break
            time.sleep(0.2)
        assert len(workers) >= 2, "the run never started its two workers"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) != 0
        gone, alive = psutil.wait_procs(workers, timeout=10)
        assert not alive, f"workers left running after SIGTERM: {[p.pid for p in alive]}"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_budget_run_applies_its_beta_range_or_refuses_it():
    from formulations.harness.study import measure_budget
    cat = str(ROOT / "puzzles" / "cat15.txt")
    r = measure_budget(Task("t", "cat15", cat, "sa", 0, 0, time_limit=10.0, beta_range=(0.5, 5.0)))
    assert r["status"] == "solved" and r["successes"] == 1
    with pytest.raises(ValueError, match="no beta range"):
        measure_budget(Task("t", "cat15", cat, "cpsat", 0, 0, time_limit=5.0, beta_range=(1, 10)))


def test_a_puzzle_presolve_decides_keeps_its_row_in_the_best_sweeps():
    # presolve (line solving) settles heart5: nothing is sampled (reads 0); the series used to
    # vanish from the report instead of saying so
    recs = [measure(Task("anneal_tts", "heart5", "repo:puzzles/heart5.txt", "sa", n, 0,
                         reads=10, presolve=True)) for n in (20, 40)]
    assert all(r["presolved"] and r["verified"] and r["reads"] == 0 for r in recs)
    rows = tts.best(recs)
    assert len(rows) == 1 and rows[0]["series"].startswith("no-x presolve")
    row = rows[0]
    assert row["solved"] == row["puzzles"] == 1 and row["best_sweeps"] is None
    assert "decided by presolve" in row["where"]
    cpu = sorted(r["setup_cpu_s"] for r in recs)
    assert row["low_s"] == cpu[0] <= row["tts99_s"] <= row["high_s"] == cpu[-1]
