"""The comparison harness: real runs in worker processes, resume, failures cost one row each,
and a Dask LocalCluster on loopback gives the same rows as the local pool."""
from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from formulations.backends import available_backends
from formulations import harness as cmp
from formulations.show.plots import parse_grid
from formulations.puzzle import check_grid
from formulations.results import Status
from formulations.io import read_puzzle

from helpers import ROOT
TINY = [ROOT / "puzzles" / "heart5.txt", ROOT / "puzzles" / "cross5.txt"]
SEEDS = [0, 1]


def _second_backend() -> str:
    for name in ("sa", "tabu", "lines", "qbpp"):
        if name in available_backends():
            return name
    pytest.skip("no backend besides cpsat is installed")


@pytest.fixture(scope="module")
def backends() -> list[str]:
    if "cpsat" not in available_backends():
        pytest.skip("cpsat (ortools) is not installed")
    return ["cpsat", _second_backend()]


@pytest.fixture(scope="module")
def sweep(tmp_path_factory, backends):
    """One local-pool sweep shared by the tests below: (rows, csv path)."""
    out = tmp_path_factory.mktemp("compare") / "results.csv"
    rows = cmp.compare(TINY, backends, seeds=SEEDS, time_limit=20, out=out, workers=2,
                       progress=False)
    return rows, out


def _data_lines(path: Path) -> list[str]:
    return path.read_text().splitlines()[1:]


def _without_timings(rows):
    return [{k: v for k, v in r.items() if k not in cmp.TIMING_FIELDS} for r in rows]


def test_every_run_is_a_verified_row(sweep, backends):
    rows, out = sweep
    assert len(rows) == len(TINY) * len(backends) * len(SEEDS)
    assert {(r["puzzle"], r["backend"], r["seed"]) for r in rows} == {
        (p.stem, b, s) for p in TINY for b in backends for s in SEEDS}
    for r in rows:
        puzzle = read_puzzle(r["source"])
        assert r["status"] == "solved" and r["verified"], r
        grid = tuple(map(tuple, parse_grid(r["grid"])))
        assert check_grid(puzzle, grid) == []
        assert (r["height"], r["width"], r["cells"], r["size"]) == (5, 5, 25, "5x5")
        assert not r["presolve"]  # no presolve in this sweep: the model is handed over whole
        assert r["variables_before"] == r["variables_after"] == r["variables"] > 0
        assert r["time_s"] is not None and r["tts_s"] == r["time_s"]
        if r["backend"] in ("sa", "tabu"):
            assert r["energy"] == 0 and 0 < r["success_probability"] <= 1 and r["reads"] >= 1
    # the CSV holds the same rows, types restored
    assert sorted(cmp.read_results(out), key=lambda r: r["key"]) == sorted(rows, key=lambda r: r["key"])
    summary = {s["backend"]: s for s in cmp.summarize(rows)}
    for b in backends:
        assert summary[b]["solved"] == summary[b]["runs"] == len(TINY) * len(SEEDS)
        assert summary[b]["median_time_s"] > 0
    assert "cpsat" in cmp.format_table(cmp.summarize(rows))


def test_resume_runs_only_missing_rows(sweep, backends, tmp_path):
    rows, out = sweep
    partial = tmp_path / "partial.csv"
    lines = out.read_text().splitlines()
    kept = lines[:1 + 5]
    # a hard kill can leave half a line: it is cut before appending
    partial.write_text("\n".join(kept) + "\n" + lines[6][:20])
    started = []
    again = cmp.compare(TINY, backends, seeds=SEEDS, time_limit=20, out=partial, workers=2,
                        progress=False, on_start=lambda job, pid: started.append(job.key))
    kept_keys = {line.split(",")[0] for line in kept[1:]}
    assert len(started) == len(rows) - 5 and not kept_keys & set(started)
    assert len(_data_lines(partial)) == len(rows)
    assert _data_lines(partial)[:5] == kept[1:]  # rows already there were not run again
    assert _without_timings(again) == _without_timings(rows)
    # complete file: nothing left to run
    again2 = cmp.compare(TINY, backends, seeds=SEEDS, time_limit=20, out=partial, progress=False,
                         on_start=lambda job, pid: started.append(job.key))
    assert len(started) == len(rows) - 5 and again2 == again


def test_hang_crash_and_failure_each_cost_one_row(tmp_path):
    """A run past its hard limit is killed (timeout row), a worker killed from outside (as the
    OOM killer would) gives an error row, a backend option that fails gives an error row, and
    every other run completes."""
    if "cpsat" not in available_backends():
        pytest.skip("cpsat (ortools) is not installed")
    house = ROOT / "puzzles" / "house10.txt"
    smiley = ROOT / "puzzles" / "smiley25.txt"
    variants: list = ["cpsat", "ladder:cell", "ladder:row"]
    if "sa" in available_backends():
        # a value only the sampler itself can judge: every check passes, the run fails
        variants.append(("dimod:dimod:RandomSampler", {"params": {"num_reads": "-1"}}))

    def kill_row_backtracking(job, pid):
        # seed 000: row backtracking needs many seconds on a 25x25; kill its worker mid-run
        if job.backend == "ladder:row" and job.ref.name == "smiley25":
            os.kill(pid, signal.SIGKILL)

    out = tmp_path / "failures.csv"
    rows = cmp.compare([TINY[0], house, smiley], variants, seeds=[0], time_limit=None,
                       kill_after=4, out=out, workers=2, progress=False,
                       on_start=kill_row_backtracking)
    assert len(rows) == 3 * len(variants) == len(_data_lines(out))
    by = {(r["puzzle"], r["backend"], r["options"]): r for r in rows}
    # seed 000: cell backtracking does not finish a 10x10 (nor a 25x25) in minutes
    for name in ("house10", "smiley25"):
        r = by[(name, "ladder:cell", "{}")]
        assert r["status"] == "timeout" and not r["verified"] and "killed after 4s" in r["message"]
    crashed = by[("smiley25", "ladder:row", "{}")]
    assert crashed["status"] == "error" and crashed["message"] == "worker process died (signal SIGKILL)"
    if "sa" in available_backends():
        for name in ("heart5", "house10", "smiley25"):
            r = by[(name, "dimod:dimod:RandomSampler", '{"params": {"num_reads": "-1"}}')]
            assert r["status"] == "error" and "should be a positive integer" in r["message"]
    solved = [r for r in rows if r["status"] == "solved"]
    assert {(r["puzzle"], r["backend"]) for r in solved} == {
        ("heart5", "cpsat"), ("house10", "cpsat"), ("smiley25", "cpsat"),
        ("heart5", "ladder:cell"), ("heart5", "ladder:row"), ("house10", "ladder:row")}
    for r in solved:
        assert r["verified"] and not check_grid(read_puzzle(r["source"]),
                                                tuple(map(tuple, parse_grid(r["grid"]))))


def test_dask_local_cluster_gives_the_same_rows(sweep, backends):
    distributed = pytest.importorskip("distributed")
    rows, _ = sweep
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1", dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        remote = cmp.compare(TINY, backends, seeds=SEEDS, time_limit=20, progress=False,
                             scheduler=cluster.scheduler_address)
    assert _without_timings(remote) == _without_timings(rows)


def test_cli_summary_csv_plots_and_bad_input(tmp_path):
    if "cpsat" not in available_backends():
        pytest.skip("cpsat (ortools) is not installed")
    out = tmp_path / "cli.csv"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = lambda *a: subprocess.run([sys.executable, "-m", "formulations.compare", *a],  # noqa: E731
                                    capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    bad = run(str(TINY[0]), "--backends", "no-such-backend")
    assert bad.returncode == 2 and "unknown backend 'no-such-backend'" in bad.stderr
    bad = run(str(TINY[0]), "--option", "cpsat.colour=3")  # a native CP-SAT parameter: checked too
    assert bad.returncode == 2 and "unknown CP-SAT parameter 'colour'" in bad.stderr
    bad = run(str(TINY[0]), "--option", "sweeps=3")  # no chosen backend declares it
    assert bad.returncode == 2 and "unknown option 'sweeps'" in bad.stderr
    args = [str(TINY[0]), "--backends", "cpsat,ladder:propagate", "--repeats", "2", "--out", str(out),
            "--no-progress", "--workers", "1"]
    plots = pytest.importorskip("matplotlib") and tmp_path / "png"
    done = run(*args, "--plots", str(plots))
    assert done.returncode == 0, done.stderr
    assert "ladder:propagate" in done.stdout and "median_time_s" in done.stdout
    assert max(map(len, done.stdout.splitlines())) <= 100  # the summary fits a terminal
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 and {r["status"] for r in rows} == {"solved"}
    for name in ("time_vs_size.png", "solved_grids.png"):
        assert (plots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = run(*args)
    assert again.returncode == 0 and "resuming: 4 of 4 runs" in again.stderr
    assert len(_data_lines(out)) == 4


# -- seed 000's ladder, run directly (no worker processes) ---------------------------------------

def test_ladder_line_possibilities_and_partial_column_check():
    from formulations.lines import ladder

    # the seed's example: clue [2, 1] on 5 cells has three fills
    assert ladder.line_possibilities([2, 1], 5) == [(1, 1, 0, 1, 0), (1, 1, 0, 0, 1), (0, 1, 1, 0, 1)]
    assert ladder.line_possibilities([], 3) == [(0, 0, 0)]
    assert ladder.line_possibilities([3, 2], 5) == []
    # clue [4] on 5 cells: the overlap argument forces the middle three
    fills = ladder.line_possibilities([4], 5)
    assert [all(f[i] == 1 for f in fills) for i in range(5)] == [False, True, True, True, False]
    # a FILLED tail is an open run that may still grow; an EMPTY tail closes it
    assert ladder.column_consistent([1, 1, -1, -1], [3], 2, 4)
    assert not ladder.column_consistent([1, 1, 0, -1], [3], 3, 4)
    assert not ladder.column_consistent([1, 1, 1, 1], [3], 4, 4)
    assert ladder.column_consistent([0, 1, 0, 1], [1, 1], 4, 4)


@pytest.mark.parametrize("rung", ["cell", "row", "propagate"])
def test_ladder_rungs_solve_prove_and_give_up(rung):
    from formulations.lines import ladder

    for name in ("heart5", "cross5", "arrow5", "two_solutions4"):
        puzzle = read_puzzle(ROOT / "puzzles" / f"{name}.txt")
        res = ladder.solve(puzzle, rung, time_limit=30)
        assert res.status is Status.SOLVED and check_grid(puzzle, res.grid) == []
    res = ladder.solve(read_puzzle(ROOT / "puzzles" / "impossible3.txt"), rung, time_limit=30)
    assert res.status is Status.INFEASIBLE and res.grid is None
    # seed 000: cell backtracking cannot finish a 10x10 in its budget; the others can
    house = read_puzzle(ROOT / "puzzles" / "house10.txt")
    res = ladder.solve(house, rung, time_limit=0.3)
    if rung == "cell":
        assert res.status is Status.UNKNOWN and res.grid is None and res.nodes > 1000
    else:
        assert res.status is Status.SOLVED and check_grid(house, res.grid) == []


def _kill_self() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_dead_workers_exit_status_is_read_after_it_is_reaped():
    # The cause of an old flaky row ("worker process died (no exit code)"): the pool's manager
    # thread reaps a dead worker while the harness reads its status. Race them on purpose.
    import multiprocessing
    import threading

    from formulations.runtime.workers import exit_text, reaped_exit_code

    ctx = multiprocessing.get_context("fork")
    for _ in range(150):  # a plain join() left the status unknown about once in 200 here
        p = ctx.Process(target=_kill_self)
        p.start()
        other = threading.Thread(target=p.join)
        other.start()
        assert exit_text(reaped_exit_code(p)) == "signal SIGKILL"
        other.join()


def test_a_wide_summary_is_printed_in_blocks_that_fit_and_keep_every_value():
    from formulations.harness import format_table

    cols = ["backend", "runs"] + [f"a_rather_long_column_name_{k}" for k in range(12)] + ["empty"]
    rows = [{c: (None if c == "empty" else name if c == "backend" else k * 1.5)
             for k, c in enumerate(cols)} for name in ("cpsat", "sa")]
    text = format_table(rows, width=100)
    blocks = text.split("\n\n")
    assert len(blocks) > 1 and max(map(len, text.splitlines())) <= 100
    for block in blocks:  # each names its rows
        header = block.splitlines()[0].split()
        assert header[0] == "backend" and [ln.split()[0] for ln in block.splitlines()[2:]] == \
            ["cpsat", "sa"]
    shown = [h for b in blocks for h in b.splitlines()[0].split() if h != "backend"]
    assert shown == cols[1:-1]  # every column with a value, once, in order; the empty one left out
    assert len(format_table(rows).splitlines()[0]) > 100  # without a width: one wide table
