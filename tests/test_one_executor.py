"""One executor and one record format for compare and the studies: a study's worker that dies
costs one error record (the other tasks run, the run resumes without it); compare's rows and a
study's records share the envelope and the writer (CSV or gzip JSON lines, resumed the same
way); every committed study record, written before the envelope existed, reads with one."""
from __future__ import annotations

import pytest

from formulations import harness as cmp
from formulations.harness.recordfile import ENVELOPE, RecordFile, envelope
from formulations.results import Status

from helpers import ROOT
HOUSE = str(ROOT / "puzzles" / "house10.txt")
HEART = ROOT / "puzzles" / "heart5.txt"


def test_a_study_worker_that_dies_is_one_error_record_and_the_others_run(tmp_path):
    pytest.importorskip("dwave.samplers")
    from formulations.harness.study import Task, run_tasks

    dying = Task("t", "house10", HOUSE, "dying", 10, 0, reads=4, reads_per_call=2,
                 sampler_class="dying_sampler:Dying")
    tasks = [Task("t", "house10", HOUSE, "sa", 50, s, reads=4, reads_per_call=2) for s in (0, 1)]
    f = RecordFile(tmp_path / "r.jsonl.gz")
    got = run_tasks(lambda r: [tasks[0], dying, tasks[1]], f, workers=1, progress=False,
                    log=lambda s: None)
    assert set(got) == {t.key for t in [*tasks, dying]} and len(f.read()) == 3
    dead = got[dying.key]
    assert dead["error"] == dead["message"] == "worker process died (signal SIGKILL)"
    assert envelope(dead).status == Status.ERROR.value and dead["kind"] == "study"
    for t in tasks:   # the slot was replaced: the task after the death ran
        rec = got[t.key]
        assert "error" not in rec and rec["reads"] == 4
        assert rec["status"] == ("solved" if rec["verified"] else "unknown")
    again = run_tasks(lambda r: [tasks[0], dying, tasks[1]], f, workers=1, progress=False,
                      log=lambda s: None)
    assert set(again) == set(got) and len(f.read()) == 3   # the error record is kept, not retried


def test_compare_rows_and_study_records_share_the_envelope_and_the_writer(tmp_path):
    from formulations.backends import available_backends
    from formulations.harness.study import Task, measure

    if "lines" not in available_backends():
        pytest.skip("the line solver is not available")
    out = tmp_path / "runs.jsonl.gz"
    rows = cmp.compare([HEART], "lines", seeds=[0, 1], time_limit=20, out=out, workers=1,
                       progress=False)
    assert [r["status"] for r in rows] == ["solved", "solved"]
    stored = RecordFile(out).read()
    assert [(r["v"], r["kind"]) for r in stored] == [(2, "run"), (2, "run")]
    assert sorted(cmp.read_results(out), key=lambda r: r["key"]) == \
        sorted(rows, key=lambda r: r["key"])          # the rows as compare returned them
    started: list = []
    again = cmp.compare([HEART], "lines", seeds=[0, 1], time_limit=20, out=out, workers=1,
                        progress=False, on_start=lambda job, pid: started.append(job))
    assert started == [] and again == rows            # resumed: nothing ran again

    rec = measure(Task("t", "heart5", str(HEART), "lines", 0, 0, reads=1, cpu_budget_s=20))
    run, study = envelope(rows[0]), envelope(rec)
    assert (run.kind, study.kind) == ("run", "study")
    for e in (run, study):
        assert (e.puzzle, e.backend, e.size, e.cells, e.status) == \
            ("heart5", "lines", "5x5", 25, "solved")
        assert e.source.endswith("heart5.txt") and e.message == "" and e.wall_s > 0
    assert set(ENVELOPE) <= set(rec) and set(ENVELOPE) - {"v", "kind"} <= set(rows[0])
    with pytest.raises(ValueError, match="this CSV holds run records"):
        RecordFile(tmp_path / "runs.csv", cmp.RUN_COLUMNS).append(rec)


def test_on_dask_a_run_past_its_hard_limit_is_killed_in_its_child_and_the_next_one_runs():
    distributed = pytest.importorskip("distributed")
    house, cross = ROOT / "puzzles" / "house10.txt", ROOT / "puzzles" / "cross5.txt"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        # seed 000: cell backtracking does not finish a 10x10 in minutes
        rows = cmp.compare([HEART, house, cross], "ladder:cell", seeds=[0], time_limit=None,
                           kill_after=3, progress=False, scheduler=cluster.scheduler_address)
    by = {r["puzzle"]: r for r in rows}
    assert by["house10"]["status"] == "timeout" and by["house10"]["message"] == "killed after 3s"
    for name in ("heart5", "cross5"):   # before the kill, and in the child that replaced it
        assert by[name]["status"] == "solved" and by[name]["verified"]


STUDIES = ("anneal_budget", "anneal_scaling", "anneal_tts", "encodings", "new_samplers",
           "release", "release2")


@pytest.mark.parametrize("study", STUDIES)
def test_every_committed_study_record_reads_with_an_envelope(study):
    path = ROOT / "bench" / "results" / study / "records.jsonl.gz"
    if not path.is_file():
        pytest.skip(f"{path} is not committed")
    records = RecordFile(path).read()
    assert records
    statuses = {s.value for s in Status}
    for r in records:
        e = envelope(r)
        assert e.kind == "study" and e.key == r["key"] and e.puzzle == r["instance"]
        assert e.backend == r["sampler"] and e.status in statuses
        assert (e.status == "error") == ("error" in r)
        if "error" not in r and r.get("sampler") not in ("cpsat", "lines") and "status" not in r:
            assert e.status == ("solved" if r["verified"] else
                                "infeasible" if r.get("presolved") else "unknown")
