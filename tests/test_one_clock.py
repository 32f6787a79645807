"""One clock (issue 29): every result carries the CPU time of the build and of the backend call
next to the wall times, samplers the CPU of the sampling alone and their spin updates; the
comparison summary's TTS99 is computed from the recorded sampling CPU per read, and a complete
backend gets its CPU to the first grid (and to the uniqueness proof) instead of a TTS99 interval."""
from __future__ import annotations

import csv
import json
import math
import subprocess
import sys

import pytest

from formulations.backends import available_backends
from formulations import harness as cmp
from formulations.harness.records import FIELDS, CsvSink, puzzle_trials
from formulations.results import tts99

from helpers import PUZZLES, ROOT


def _need(*names: str) -> None:
    missing = [n for n in names if n not in available_backends()]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")


def _json(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "formulations.solve", *args, "--json"],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    return json.loads(out.stdout)


def _within_wall(cpu: float, wall: float, threads: int) -> bool:
    # CPU adds up over threads, so it cannot exceed wall x threads (clock granularity aside)
    return cpu <= wall * threads * 1.05 + 0.005


def test_a_complete_backend_reports_its_cpu_next_to_the_wall_times():
    _need("cpsat")
    d = _json(str(PUZZLES / "cat15.txt"), "--backend", "cpsat", "--unique")
    assert d["status"] == "solved" and d["unique"] is True
    for key in ("build_s", "solve_s", "build_cpu_s", "solve_cpu_s"):  # old keys kept, CPU beside
        assert key in d
    assert d["build_cpu_s"] > 0 and d["solve_cpu_s"] > 0
    assert _within_wall(d["solve_cpu_s"], d["solve_s"], 1)  # one search worker by default
    assert d["sampling_cpu_s"] is None and d["tts99_cpu_s"] is None  # no sampling


def test_a_sampler_reports_the_cpu_of_its_sampling_and_its_spin_updates():
    _need("sa")
    d = _json(str(PUZZLES / "cat15.txt"), "--backend", "sa", "--seed", "3", "--reads", "20",
              "--sweeps", "200", "--workers", "2")
    assert d["status"] == "solved"
    threads = d["info"]["threads"]
    assert threads == 2 and d["reads"] == 20
    assert 0 < d["sampling_cpu_s"] <= d["solve_cpu_s"]  # the sampler calls are part of the call
    assert _within_wall(d["sampling_cpu_s"], d["sampling_s"], threads)
    assert _within_wall(d["solve_cpu_s"], d["solve_s"], threads)
    assert d["cpu_per_read_s"] == pytest.approx(d["sampling_cpu_s"] / d["reads"])
    assert d["tts99_cpu_s"] == pytest.approx(tts99(d["cpu_per_read_s"], d["success_probability"]))
    assert d["spin_updates_per_read"] == 200 * d["variables"]


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    _need("sa", "cpsat", "lines")
    out = tmp_path_factory.mktemp("clock") / "rows.csv"
    puzzles = [PUZZLES / "cat15.txt", PUZZLES / "heart5.txt"]
    backends = [("sa", {"reads": 30, "sweeps": 60}), "cpsat", "lines"]
    if "exact" in available_backends():
        backends.append("exact")
    rows = cmp.compare(puzzles, backends, seeds=[0, 1], time_limit=60, out=out, workers=2,
                       progress=False, unique=True)
    return rows, out


def test_rows_carry_the_cpu_figures(sweep):
    rows, _ = sweep
    for r in rows:
        if r["status"] == "error":  # exact refuses cat15 (too many variables)
            continue
        assert r["solve_cpu_s"] > 0 and r["build_cpu_s"] >= 0, r
        if r["backend"] == "sa":
            assert r["sampling_cpu_s"] > 0 and r["setup_cpu_s"] > 0
            assert r["cpu_per_read_s"] == pytest.approx(r["sampling_cpu_s"] / r["reads"])
            assert r["spin_updates_per_read"] == 60 * r["variables"]
            assert r["unique"] is None and r["unique_cpu_s"] is None  # no proof for a sampler
        else:  # complete: the uniqueness proof timed apart
            assert r["unique"] is True and r["unique_cpu_s"] > 0
            assert r["sampling_cpu_s"] is None and r["tts99_cpu_s"] is None


def test_the_summary_tts99_is_the_formula_on_the_recorded_cpu_per_read(sweep):
    rows, _ = sweep
    for puzzle in ("cat15", "heart5"):
        mine = [r for r in rows if r["backend"] == "sa" and r["puzzle"] == puzzle]
        s = cmp.summarize(mine)[0]
        k = sum(round(r["success_probability"] * r["reads"]) for r in mine)
        n = sum(r["reads"] for r in mine)
        t = sum(r["cpu_per_read_s"] * r["reads"] for r in mine) / n  # read-weighted
        assert puzzle_trials(mine)[:3] == (k, n, pytest.approx(t))
        assert s["clock"] == "cpu" and k > 0
        assert s["median_tts99_s"] == pytest.approx(tts99(t, k / n))
        assert s["tts99_low_s"] <= s["median_tts99_s"] <= s["tts99_high_s"]
        wall = [r["tts99_s"] for r in mine]  # the rows' own wall figures are not what is used
        assert s["median_tts99_s"] not in wall


def test_a_complete_backend_gets_no_sampler_interval(sweep):
    rows, _ = sweep
    summary = {s["backend"]: s for s in cmp.summarize(rows)}
    complete = [b for b in ("cpsat", "lines", "exact") if b in summary]
    for b in complete:
        s = summary[b]
        assert s["median_tts99_s"] is None and s["tts99_low_s"] is None \
            and s["tts99_high_s"] is None, s
        assert 0 < s["median_first_cpu_s"] < math.inf and 0 < s["median_unique_cpu_s"] < math.inf
    sa = next(s for name, s in summary.items() if name.startswith("sa["))
    assert sa["median_first_cpu_s"] is None and sa["median_unique_cpu_s"] is None
    assert sa["spin_updates_per_read"] > 0 and sa["median_setup_cpu_s"] > 0


def test_the_command_line_summary_has_no_interval_for_exact(sweep):
    _, out = sweep
    text = subprocess.run([sys.executable, "-m", "formulations.compare", "--summary", str(out)],
                          capture_output=True, text=True, cwd=ROOT, check=True).stdout
    rows: dict[str, dict[str, str]] = {"cpsat": {}, "lines": {}}
    for block in text.strip().split("\n\n"):  # a wide table comes in blocks of columns
        header, _, *body = block.splitlines()
        for line in body:
            if line.split()[0] in rows:
                rows[line.split()[0]].update(zip(header.split(), line.split()))
    for b in ("cpsat", "lines"):
        row = rows[b]
        assert row["median_tts99_s"] == row["tts99_low_s"] == row["tts99_high_s"] == "-"
        assert float(row["median_first_cpu_s"]) > 0


def test_a_results_file_from_before_the_cpu_columns_is_widened_and_resumed(tmp_path, sweep):
    rows, _ = sweep
    old = [k for k in FIELDS if k not in ("solve_cpu_s", "cpu_per_read_s", "unique")]
    path = tmp_path / "old.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(old)
        w.writerow(["" if rows[0][k] is None else str(rows[0][k]).lower()
                    if isinstance(rows[0][k], bool) else rows[0][k] for k in old])
    sink = CsvSink(path)  # no "columns differ" refusal: the file gains the new columns
    sink.write(rows[1])
    sink.close()
    got = cmp.read_results(path)
    assert [r["key"] for r in got] == [rows[0]["key"], rows[1]["key"]]
    assert got[0]["solve_cpu_s"] is None and got[1]["solve_cpu_s"] == rows[1]["solve_cpu_s"]
    assert path.read_text().splitlines()[0].split(",") == list(FIELDS)


def _burn(seconds: float) -> None:
    import time
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_the_cpu_clock_counts_a_finished_worker_process():
    # mip and qbpp solve in a worker process: its CPU counts once it has been waited for
    import multiprocessing as mp
    import time

    from formulations.runtime.cputime import cpu_seconds

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("needs fork")
    c0, p0 = cpu_seconds(), time.process_time()
    child = mp.get_context("fork").Process(target=_burn, args=(0.3,))
    child.start()
    child.join()
    assert child.exitcode == 0
    assert cpu_seconds() - c0 >= 0.3  # the child's own 0.3 s of CPU at least
    assert time.process_time() - p0 < cpu_seconds() - c0  # which process_time alone misses


def test_a_timed_out_seed_does_not_switch_a_puzzle_to_wall_time():
    # incomplete backends without reads: one trial per seed, timed by its CPU; a timeout row
    # carries no CPU and must not make the other seeds of its puzzle fall back to wall time
    from formulations.harness.records import puzzle_trials
    solved = {"status": "solved", "verified": True, "solve_cpu_s": 1.0, "time_s": 10.0,
              "reads": None}
    timeout = {"status": "timeout", "verified": False, "time_s": 60.0, "reads": None}
    wins, n, t, times = puzzle_trials([solved, timeout])
    assert (wins, n, t, times) == (1, 2, 1.0, [1.0])


def test_a_run_that_also_proves_uniqueness_has_room_for_both_calls(tmp_path):
    # the hard kill allowed one backend limit (plus slack) for two calls: a proof that used its
    # own limit got the run killed, and the first grid's figures went with it
    _need("lines")
    seen = []
    for unique in (False, True):
        rows = cmp.compare([PUZZLES / "heart5.txt"], ["lines"], seeds=[0], time_limit=5,
                           workers=1, progress=False, unique=unique,
                           on_start=lambda job, pid: seen.append(job.kill_after))
        assert rows[0]["status"] == "solved" and (rows[0]["unique"] is True) == unique
    plain, proving = seen
    assert proving >= plain + 5   # the second call's own time limit on top
