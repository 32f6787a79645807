"""The study runner's records: what one record holds (measured on a real sampler), the record
file surviving a torn last write, and a run resuming without measuring a record twice."""
from __future__ import annotations

import gzip
import json

import pytest

pytest.importorskip("dwave.samplers")

from formulations.harness.study import RecordFile, Task, measure, run_tasks
from formulations.io import read_puzzle
from formulations.analysis.optimal import LadderData

from helpers import ROOT
HOUSE = str(ROOT / "puzzles" / "house10.txt")


@pytest.mark.parametrize("sampler", ["sa", "tabu"])
def test_a_record_holds_reads_successes_energies_and_times(sampler):
    rec = measure(Task("t", "house10", HOUSE, sampler, 200, 3, reads=30, reads_per_call=10,
                       cpu_budget_s=20))
    assert rec["reads"] == sum(rec["call_reads"]) == 30 and len(rec["call_cpu_s"]) == 3
    assert 0 <= rec["successes"] <= rec["reads"]
    assert rec["verified"] == (rec["successes"] > 0)   # an energy-0 read decoded and checked
    assert rec["at_most"][0] == rec["successes"]
    assert rec["at_most"] == sorted(rec["at_most"]) and rec["at_most"][-1] <= rec["reads"]
    q = rec["energy_quantiles"]
    assert q == sorted(q) and (q[0] == 0) == (rec["successes"] > 0)
    assert rec["cpu_s"] == pytest.approx(sum(rec["call_cpu_s"]), abs=1e-5)
    assert rec["setup_cpu_s"] >= 0 and rec["wall_s"] > 0
    assert rec["spin_updates_per_read"] == 200 * rec["variables"]
    p = read_puzzle(HOUSE)
    assert rec["cells"] == p.height * p.width and rec["key"] == f"house10|{sampler}|200|3"
    json.dumps(rec)  # plain JSON


def test_the_budget_cuts_reads_but_keeps_two_calls():
    rec = measure(Task("t", "house10", HOUSE, "sa", 400, 0, reads=1000, reads_per_call=500,
                       cpu_budget_s=1e-4))
    assert len(rec["call_reads"]) == 2 and rec["reads"] == 2


def test_a_torn_last_record_is_cut_and_the_rest_kept(tmp_path):
    f = RecordFile(tmp_path / "r.jsonl.gz")
    for k in range(3):
        f.append({"key": str(k), "x": k})
    whole = gzip.compress(b'{"key":"3"}\n')
    with f.path.open("ab") as h:
        h.write(whole[: len(whole) // 2])   # a kill in the middle of a write
    assert [r["key"] for r in f.read()] == ["0", "1", "2"]
    assert f.repair() == len(whole) // 2
    f.append({"key": "3"})
    assert [r["key"] for r in f.read()] == ["0", "1", "2", "3"]
    f.compact()
    assert [r["key"] for r in f.read()] == ["0", "1", "2", "3"]
    with gzip.open(f.path, "rt") as h:       # an ordinary gzip file for other tools
        assert len(h.read().splitlines()) == 4


def test_a_run_resumes_without_measuring_twice_and_pools_its_records(tmp_path):
    f = RecordFile(tmp_path / "r.jsonl.gz")
    tasks = [Task("t", "house10", HOUSE, "sa", L, s, reads=10, reads_per_call=5)
             for L in (50, 100) for s in (0, 1)]
    calls = []

    def plan(records):
        calls.append(len(records))
        return tasks[:2] if len(calls) < 3 else tasks   # the plan grows as records arrive

    got = run_tasks(plan, f, workers=1, progress=False, log=lambda s: None,
                    stamp={"session": "first"})
    assert set(got) == {t.key for t in tasks} and len(f.read()) == 4
    again = run_tasks(lambda r: tasks, f, workers=1, progress=False, log=lambda s: None,
                      stamp={"session": "second"})
    assert len(f.read()) == 4 and set(again) == set(got)   # nothing measured again
    assert {r["session"] for r in f.read()} == {"first"}   # which run measured each record
    data = LadderData.from_records(f.read())
    assert data.lengths == (50, 100) and data.reads.tolist() == [[20, 20]]


def test_a_dask_cluster_gives_the_same_records_and_resumes(tmp_path):
    distributed = pytest.importorskip("distributed")
    f = RecordFile(tmp_path / "r.jsonl.gz")
    tasks = [Task("t", "house10", HOUSE, "sa", L, 0, reads=10, reads_per_call=5) for L in (50, 100)]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        got = run_tasks(lambda r: tasks, f, scheduler=client, progress=False, log=lambda s: None)
        assert set(got) == {t.key for t in tasks}
        again = run_tasks(lambda r: tasks, f, scheduler=cluster.scheduler_address,
                          progress=False, log=lambda s: None)
    assert set(again) == set(got) and len(f.read()) == 2
    for r in f.read():
        assert r["reads"] == 10 and r["verified"] == (r["successes"] > 0)


@pytest.mark.parametrize("backend", ["cpsat", "lines"])
def test_an_exact_baseline_is_timed_to_the_first_grid_and_to_uniqueness(backend):
    pytest.importorskip("ortools") if backend == "cpsat" else None
    rec = measure(Task("t", "house10", HOUSE, backend, 0, 0, reads=1, cpu_budget_s=30))
    assert rec["successes"] == 1 and rec["verified"] and rec["unique"] is True
    assert rec["status"] == "solved" and rec["unique_status"] == "solved"
    assert rec["cpu_s"] >= 0 and rec["unique_cpu_s"] >= 0 and rec["reads"] == 1
    assert rec["cold_cpu_s"] > 0   # the warm-up call, kept apart from the two figures


@pytest.mark.parametrize("through", ["study", "budget", "harness"])
def test_every_timed_line_solver_call_starts_with_no_remembered_lines(monkeypatch, through):
    """The line solver's settled-line memo is process-wide: without clearing it the uniqueness
    call reused the first call's lines (measured 2x faster than the first grid at 10x10) and a
    puzzle was helped by whatever its worker had solved before. A spy (the real solve is run)
    reads the memo's size as each timed call starts."""
    import formulations.solving as solving
    from formulations.harness.jobs import Job, PuzzleRef
    from formulations.harness.runner import run_job
    from formulations.lines.engine import cache_info

    real, seen = solving.solve, []

    def spy(*args, **kwargs):  # every entry point solves through solving.solve
        seen.append(cache_info()[0])
        return real(*args, **kwargs)

    solving.solve_puzzle(read_puzzle(HOUSE), "lines")  # a worker that has solved a puzzle before
    monkeypatch.setattr(solving, "solve", spy)
    assert cache_info()[0] > 0
    if through == "study":
        rec = measure(Task("t", "house10", HOUSE, "lines", 0, 0, reads=1, cpu_budget_s=30))
        assert rec["successes"] == 1 and rec["unique"] is True
        assert seen == [0, 0, 0]   # the warm-up, the first grid and the proof: each from clear
        return
    elif through == "budget":   # a time-budget run after line solving: one call
        rec = measure(Task("t", "house10", HOUSE, "sa", 0, 0, reads=1, presolve=True,
                           time_limit=5.0))
        assert rec["successes"] == 1
        assert seen == [0]
        return
    else:
        row = run_job(Job(PuzzleRef("house10", HOUSE, read_puzzle(HOUSE)), "lines", {}, 0,
                          30.0, None, use_x=None, encoding=None, unique=True))
        assert row["status"] == "solved" and row["unique"] is True
    assert seen == [0, 0]   # the first grid and the uniqueness proof, each from a clear memo


def test_other_encodings_and_weights_get_their_own_records():
    t = Task("t", "house10", HOUSE, "sa", 200, 0, reads=10, encoding="onehot",
             weights=(("link", 2.0),))
    assert t.key == "house10|sa|200|0|onehot|x=0|w=link:2"
    rec = measure(t)
    assert rec["encoding"] == "onehot" and rec["weights"]["link"] == 2.0
    assert rec["verified"] == (rec["successes"] > 0) and rec["reads"] == 10
    order = measure(Task("t", "house10", HOUSE, "sa", 200, 0, reads=10))
    assert order["key"] == "house10|sa|200|0" and order["variables"] != rec["variables"]
