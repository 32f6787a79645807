"""Release 2's protocol (formulations.harness.protocol, docs/benchmark.md "Release 2"): records
decided by counts re-run to the same counts, summaries in spin updates with detection limits,
sessions that refuse a modified tree, and a user's sampler measured the same way."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("dwave.samplers")

from formulations.analysis.stats import repeats_for  # noqa: E402
from formulations.harness import protocol as P  # noqa: E402
from formulations.harness.study import Task, measure, task_from_dict  # noqa: E402
from helpers import ROOT  # noqa: E402

PUZZLES = ["puzzles/heart5.txt", "puzzles/cross5.txt"]


def counted(sampler: str, length: int, path: str = "puzzles/heart5.txt", **kw) -> Task:
    return Task("release-2", "heart5_5x5", f"repo:{path}", sampler, length, 0,
                reads=kw.pop("reads", 200), reads_per_call=10,
                until_successes=kw.pop("until", 10), min_reads=kw.pop("min_reads", 30), **kw)


@pytest.mark.parametrize("sampler,length", [("sa", 20), ("tabu", 30), ("pimc", 30)])
def test_a_counted_record_re_runs_to_the_same_reads_successes_and_energies(sampler, length):
    a = measure(counted(sampler, length))
    b = measure(task_from_dict(a["task"]))
    assert a["rule"] == {"until_successes": 10, "min_reads": 30, "max_reads": 200,
                         "reads_per_call": 10}
    assert (a["reads"], a["successes"], a["energy_sha1"]) == \
        (b["reads"], b["successes"], b["energy_sha1"])
    # the rule: whole calls, stopped by counts only
    assert all(k == 10 for k in a["call_reads"])
    assert a["reads"] == 200 or (a["reads"] >= 30 and a["successes"] >= 10)
    if a["reads"] > 30:   # the call before the last had not met the rule yet
        assert a["reads"] - 10 < 30 or a["successes"] >= 10


def test_the_summary_reports_the_runners_overhead_from_measured_records():
    from formulations.harness.release import summarize
    recs = [measure(counted("sa", L)) for L in (20, 40)]
    for r in recs:   # the worker times the whole record and the sampler's calls apart
        assert r["record_cpu_s"] >= r["cpu_s"] == pytest.approx(sum(r["call_cpu_s"]), abs=1e-5)
    o = summarize(recs, resamples=50)["samplers"]["sa"]["sizes"]["5x5"]["runner_overhead"]
    want = sum(r["record_cpu_s"] - r["cpu_s"] for r in recs) / sum(r["cpu_s"] for r in recs)
    assert o["records"] == 2 and o["share"] == pytest.approx(want, abs=1e-4)


def test_tabu_counted_reads_make_their_full_cutoff_with_no_clock():
    rec = measure(counted("tabu", 30))
    assert rec["params"]["timeout"] is None and "energy_threshold" not in rec["params"]


def test_a_cell_that_never_succeeds_stops_at_r_max():
    # one sweep of sa rarely solves heart5: the rule must stop at R_max, not earlier
    rec = measure(counted("sa", 1, reads=40, until=1000, min_reads=10))
    assert rec["reads"] == 40


def _record_file(tmp: Path, recs: list[dict]) -> Path:
    from formulations.harness.study import RecordFile
    f = RecordFile(tmp / "records.jsonl.gz")
    for r in recs:
        f.append(r)
    return tmp


def _cli(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}",
           "OMP_NUM_THREADS": "1", **(env_extra or {})}
    return subprocess.run([sys.executable, str(ROOT / "bench" / "release.py"), *args],
                          capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)


def test_verify_reports_each_record_and_fails_on_a_changed_count(tmp_path):
    recs = [measure(counted("sa", L)) for L in (10, 20)]
    out = _record_file(tmp_path / "good", recs)
    res = _cli("verify", "--sample", "2", "--json", "--out", str(out))
    got = json.loads(res.stdout)
    assert res.returncode == 0, res.stderr
    assert {r["key"] for r in got["records"]} == {r["key"] for r in recs}
    for row in got["records"]:
        assert row["successes_recorded"] == row["successes_now"]
        assert row["cpu_per_read_ratio"] > 0
    bad = dict(recs[0], successes=recs[0]["successes"] + 1)
    out = _record_file(tmp_path / "bad", [bad])
    res = _cli("verify", "--sample", "1", "--json", "--out", str(out))
    assert res.returncode == 1
    row = json.loads(res.stdout)["records"][0]
    assert row["successes_recorded"] == row["successes_now"] + 1


def _synthetic(rng: np.random.Generator, unsolved: int = 0) -> list[dict]:
    """Counted records of 40 instances at five lengths: p rises with the length."""
    out = []
    for i in range(40):
        h = rng.uniform(20, 60)
        for L in (10, 14, 20, 28, 40):
            p = 0.0 if i < unsolved else 1 - math.exp(-L / h) * 0.9
            k = int(rng.binomial(300, p))
            out.append({"key": f"{i}|sa|{L}|0", "instance": f"p{i}_10x10", "sampler": "sa",
                        "size": "10x10", "cells": 100, "length": L, "unit": "sweeps",
                        "seed": 0, "reads": 300, "successes": k, "cpu_s": 300 * 1e-6 * L,
                        "variables": 100 + i, "setup_cpu_s": 0.001, "energy_mean": 1.0,
                        "at_most": [k] * 8, "call_cpu_s": [1e-5 * L] * 30,
                        "call_reads": [10] * 30,
                        "rule": {"until_successes": 10, "min_reads": 100, "max_reads": 300,
                                 "reads_per_call": 10}})
    return out


def test_the_summary_gives_spin_updates_with_intervals_and_cpu_from_the_calibration():
    from formulations.harness import release
    recs = _synthetic(np.random.default_rng(3))
    cal = {"sessions": [{"session": s, "groups": {"sa|10x10": {
        "c_s": c, "a_s": 1e-6, "c_rounds": [c, c * 1.02], "setup_cpu_s": 0.001}}}
        for s, c in (("s1", 1e-9), ("s2", 1.3e-9), ("s3", 1.1e-9))]}
    s = release.summarize(recs, resamples=200, calibration=cal)
    e = s["samplers"]["sa"]["sizes"]["10x10"]
    assert e["calibration"]["sessions"] == 3 and e["calibration"]["spread"] == pytest.approx(0.3)
    for q, o in e["quantiles"].items():
        assert o["low_spin_updates"] <= o["tts99_spin_updates"] <= o["high_spin_updates"]
        L = o["optimal_length_spin_updates"]
        # the spin-update figure is the quantile over puzzles of R(p) x L x variables
        vals = []
        for i in range(40):
            r = next(x for x in recs if x["instance"] == f"p{i}_10x10" and x["length"] == L)
            vals.append(float(repeats_for(r["successes"] / r["reads"])) * L * r["variables"])
        want = np.quantile(vals, float(q), method="inverted_cdf")
        assert o["tts99_spin_updates"] == pytest.approx(want)
        assert o["cpu_from"] == "calibration" and o["tts99_s"] == o["tts99_cpu_s"]
        # CPU from the median session's cost, widened by the sessions' spread
        assert o["low_s"] <= o["tts99_s"] <= o["high_s"]
        assert o["high_s"] >= o["tts99_s"] * 1.3 - 1e-12
    assert "order statistic" in s["median"]


def test_an_unsolved_quantile_reads_above_its_detection_limit():
    from formulations.harness import release
    recs = _synthetic(np.random.default_rng(5), unsolved=25)   # more than half never solved
    o = release.summarize(recs, resamples=100)["samplers"]["sa"]["sizes"]["10x10"][
        "quantiles"]["0.5"]
    assert o["tts99_spin_updates"] is None
    limit = float(repeats_for(1 / 300)) * 40 * np.median([100 + i for i in range(40)])
    assert o["detection_limit_spin_updates"] == pytest.approx(limit)
    assert o["text_spin_updates"].startswith("> ")


def test_fits_keep_populations_apart_and_report_with_and_without_10x10():
    pts = []
    rng = np.random.default_rng(0)
    for z, cells, n in (("10x10", 100, 100), ("15x15", 225, 100), ("20x20", 400, 100),
                        ("25x25", 625, 100), ("40x30", 1200, 5), ("35x35", 1225, 20)):
        t = 10.0 * cells ** 3
        pts.append((z, cells, n, 0.5, t, t * rng.uniform(0.8, 1.2, 200), True))
    f = P.fits_spin_updates(pts, generated=("35x35",))
    assert f["0.5"]["with_10x10"]["sizes"] == ["10x10", "15x15", "20x20", "25x25"]
    assert f["0.5"]["without_10x10"]["sizes"] == ["15x15", "20x20", "25x25"]
    assert f["apart"] == ["35x35", "40x30"]
    fit = f["0.5"]["with_10x10"]["poly_cells"]
    assert fit["low"] <= 3.0 <= fit["high"]
    assert "not an asymptotic law" in f["description"]


def test_line_propagation_splits_the_puzzles():
    from formulations.harness.study import load
    got = P.line_decided(["heart5_5x5"], lambda k: "repo:puzzles/heart5.txt")
    from formulations.lines import fixed_point
    assert got["heart5_5x5"] == (fixed_point(load("repo:puzzles/heart5.txt")).status.value
                                 == "solved")


def test_a_session_refuses_a_modified_tree(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    run = lambda *a: subprocess.run(["git", "-C", str(repo), *a], capture_output=True,  # noqa
                                    check=True)
    run("init", "-q")
    (repo / "f.txt").write_text("a\n")
    run("add", "f.txt")
    run("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x")
    e = P.session_entry(repo)
    assert e["dirty"] is False and len(e["commit"]) == 40 and e["cpu_model"] is not None
    assert isinstance(e["cpu_flags"], list)
    (repo / "f.txt").write_text("b\n")
    with pytest.raises(P.DirtyTree):
        P.session_entry(repo)
    assert P.session_entry(repo, allow_dirty=True)["dirty"] is True


def test_any_sampler_runs_the_protocol_and_gets_a_window_sticker(tmp_path):
    common = ["--puzzles", ",".join(PUZZLES), "--workers", "1", "--rounds", "1",
              "--cal-reads", "10", "--cal-puzzles", "1", "--resamples", "100",
              "--allow-dirty", "--quiet"]
    base = _cli("sampler", "dwave.samplers:SimulatedAnnealingSampler", "--name", "sa",
                "--out", str(tmp_path / "sa"), "--no-calibration",
                "--baseline", str(ROOT / "bench/results/release2/baseline-release1.json"),
                *common)
    assert base.returncode == 0, base.stderr
    res = _cli("sampler", "dimod:release2_sampler:TinyAnnealer", "--param", "beta_max=4",
               "--out", str(tmp_path / "tiny"), "--baseline",
               str(tmp_path / "sa" / "summary.json"), *common)
    assert res.returncode == 0, res.stderr
    s = json.loads((tmp_path / "tiny" / "summary.json").read_text())
    e = s["samplers"]["TinyAnnealer"]["sizes"]["5x5"]
    assert e["instances"] == 2 and e["count_rule"] and e["calibration"]["sessions"] == 1
    q = e["quantiles"]["0.5"]
    assert q["low_spin_updates"] <= q["tts99_spin_updates"] <= q["high_spin_updates"]
    assert q["cpu_from"] == "calibration"
    rows = [ln for ln in res.stdout.splitlines() if ln.startswith("| 5x5 |")]
    assert len(rows) == 3   # one per quantile
    base_q = json.loads((tmp_path / "sa" / "summary.json").read_text())[
        "samplers"]["sa"]["sizes"]["5x5"]["quantiles"]["0.5"]
    ratio = q["tts99_spin_updates"] / base_q["tts99_spin_updates"]
    assert f"| {ratio:.3g} [" in rows[0]
    # its records name it as the registry does (the base's MODULE:CLASS is read as the same)
    from formulations.harness.study import RecordFile
    tiny = RecordFile(tmp_path / "tiny" / "records.jsonl.gz").read()
    assert {r["sampler_class"] for r in tiny} == {"dimod:release2_sampler:TinyAnnealer"}
    assert {r["sampler_class"] for r in RecordFile(tmp_path / "sa" / "records.jsonl.gz").read()} \
        == {"dimod:dwave.samplers:SimulatedAnnealingSampler"}
    # every record of the user's sampler names its session and re-runs to its counts
    ver = _cli("verify", "--sample", "3", "--json", "--out", str(tmp_path / "tiny"))
    assert ver.returncode == 0, ver.stdout + ver.stderr
    assert json.loads(ver.stdout)["checked"] == 3


def test_a_user_sampler_has_the_registrys_name_and_older_records_read_as_the_same():
    from formulations.backends import get_backend
    from formulations.harness.study import make_custom, sampler_class_name

    new = "dimod:dwave.samplers:SimulatedAnnealingSampler"
    assert sampler_class_name(new) == sampler_class_name(new.removeprefix("dimod:")) == new
    assert get_backend(new).name == new          # the name --backend takes
    for bad in ("", "Sampler", "other:dwave.samplers:X", "dimod::X", "dimod:a:b:c"):
        with pytest.raises(ValueError, match="dimod:MODULE:CLASS"):
            sampler_class_name(bad)
    # a record written with MODULE:CLASS re-runs as the same task, to the same counts
    old = counted("user", 20, sampler_class=new.removeprefix("dimod:"))
    rec = measure(old)
    again = task_from_dict(json.loads(json.dumps(old.__dict__)))
    assert again.sampler_class == new and again.key == old.key
    assert type(make_custom(again.sampler_class)) is type(make_custom(old.sampler_class))
    rerun = measure(again)
    assert (rerun["reads"], rerun["successes"]) == (rec["reads"], rec["successes"]) and \
        rec["successes"] > 0
    assert rerun["sampler_class"] == new


def test_a_bad_sampler_path_is_one_clear_line():
    res = _cli("sampler", "no_such_module:Nope", "--puzzles", PUZZLES[0], "--allow-dirty",
               "--quiet", "--out", "/tmp/unused-release2-test")
    assert res.returncode == 2
    assert "no_such_module" in res.stderr and "Traceback" not in res.stderr


def test_spearman_ranks_the_puzzles_of_two_samplers_alike_or_reversed():
    from formulations.harness import release
    recs = _synthetic(np.random.default_rng(7))
    # a second sampler whose per-puzzle success falls where the first's rises: reversed ranks
    twin = []
    for r in recs:
        i = int(r["instance"][1:].split("_")[0])
        k = int(r["reads"] * (0.05 + 0.9 * i / 40))
        twin.append(dict(r, sampler="other", key=r["key"].replace("|sa|", "|other|"),
                         successes=k, variables=100))
    plain = [dict(r, variables=100) for r in recs]
    s = release.summarize(plain + twin, resamples=100)
    (row,) = [x for x in s["spearman"] if x["size"] == "10x10"]
    assert (row["a"], row["b"], row["instances"]) == ("other", "sa", 40)
    assert -1.0 <= row["low"] <= row["rho"] <= row["high"] <= 1.0
    # the twin's TTS99 falls with i; sa's has no order in i: reversing the twin agrees with -rho
    mirror = [dict(r, successes=int(r["reads"] * (0.05 + 0.9 * (39 - int(r["instance"][1:]
                   .split("_")[0])) / 40))) for r in twin]
    s2 = release.summarize(plain + mirror, resamples=100)
    (row2,) = [x for x in s2["spearman"] if x["size"] == "10x10"]
    assert row2["rho"] == pytest.approx(-row["rho"], abs=0.05)


def test_the_fast_scorer_gives_the_package_energies():
    from formulations.harness.study import exact_scorer, load
    from formulations.model import build_model
    from formulations.model.penalty import penalty_terms
    pen = penalty_terms(build_model(load("repo:puzzles/heart5.txt"), use_x=False)).weighted(None)
    X = np.random.default_rng(0).integers(0, 2, (200, pen.num_variables)).astype(np.int8)
    # and some solutions: reads that sa finds at energy 0
    rec = measure(counted("sa", 50, reads=40, until=1000, min_reads=40))
    assert rec["successes"] > 0
    score = exact_scorer(pen)
    np.testing.assert_allclose(score(X), pen.energies(X), atol=1e-9)
    assert (score(X) == 0).sum() == (pen.energies(X) == 0).sum()


def test_comparisons_with_set_up_excluded_and_included_say_whether_they_agree():
    from formulations.harness import release
    recs = _synthetic(np.random.default_rng(11))
    for i in range(40):   # an exact baseline whose proof takes 5 ms, 4 of them the build
        recs.append({"key": f"{i}|cpsat|0|0", "instance": f"p{i}_10x10", "sampler": "cpsat",
                     "size": "10x10", "length": 0, "reads": 1, "successes": 1, "cpu_s": 0.005,
                     "unique_cpu_s": 0.005, "unique_build_s": 0.004, "unique": True})
    s = release.summarize(recs, resamples=100)
    sa = s["samplers"]["sa"]["sizes"]["10x10"]
    rows = [c for c in s["comparisons"] if c["baseline"] == "cpsat" and c["q"] == "0.5"]
    (row,) = rows
    t = sa["quantiles"]["0.5"]["tts99_s"]
    assert row["ratio_setup_excluded"] == pytest.approx(t / 0.001, rel=1e-3)
    assert row["ratio_setup_included"] == pytest.approx((t + 0.001) / 0.005, rel=1e-3)
    assert row["holds_both_ways"] == ((t / 0.001 > 1) == ((t + 0.001) / 0.005 > 1))


def _target_records(rng: np.random.Generator, n: int, p0: np.ndarray, reads: int = 400,
                    length: int = 50) -> list[dict]:
    """One record per puzzle at one length: per target energy (0, 1, 2, 4, ...) the count of
    reads at or below it, drawn from rates that grow with the target."""
    from formulations.harness.study import TARGETS
    recs = []
    for i in range(n):
        rates = np.minimum(1.0, p0[i] * np.array([1.0 + t for t in TARGETS]))
        u = rng.random(reads)
        at_most = [int((u < r).sum()) for r in rates]
        recs.append({"instance": f"p{i}", "length": length, "reads": reads, "variables": 100,
                     "energy_mean": float(3.0 * (1 - p0[i])), "at_most": at_most,
                     "successes": at_most[0]})
    return recs


def test_time_to_target_at_the_optimum_is_the_median_of_each_puzzles_tts():
    from formulations.harness.study import TARGETS
    rng = np.random.default_rng(11)
    p0 = rng.uniform(0.01, 0.2, 31)
    recs = _target_records(rng, 31, p0)
    a = P.at_optimum(recs, 50, resamples=300)
    assert a["instances"] == 31 and a["length"] == 50
    for j, t in enumerate(TARGETS):
        want = np.quantile([float(repeats_for(r["at_most"][j] / r["reads"])) * 50 * 100
                            for r in recs], 0.5, method="inverted_cdf")
        o = a["targets"][str(t)]
        assert o["tts99_spin_updates"] == pytest.approx(want)
        assert o["low_spin_updates"] <= o["tts99_spin_updates"] <= o["high_spin_updates"]
    # a looser target is reached no later; target 0 is the ground state (the TTS99 itself)
    tts = [a["targets"][str(t)]["tts99_spin_updates"] for t in TARGETS]
    assert all(x >= y for x, y in zip(tts, tts[1:]))
    r = a["residual_energy"]
    assert r["low"] <= r["median"] <= r["high"]
    assert r["median"] == pytest.approx(np.quantile([x["energy_mean"] for x in recs], 0.5,
                                                    method="inverted_cdf"))
    assert P.at_optimum(recs, 71, resamples=10) is None    # nothing at that length


def test_the_time_to_target_interval_covers_the_true_median_about_95_percent():
    # 120 seeded studies of 41 puzzles: the true median TTS99 of the ground state (from the
    # rates the counts were drawn from) inside the interval in at least 85 % of them
    rng = np.random.default_rng(2026)
    covered = 0
    trials = 120
    for _ in range(trials):
        p0 = rng.uniform(0.005, 0.1, 41)
        recs = _target_records(rng, 41, p0, reads=300)
        true = float(np.quantile(repeats_for(p0) * 50 * 100, 0.5, method="inverted_cdf"))
        o = P.at_optimum(recs, 50, resamples=400, seed=int(rng.integers(1 << 30)))["targets"]["0"]
        covered += o["low_spin_updates"] <= true <= o["high_spin_updates"]
    assert covered / trials >= 0.85, covered


def test_the_release_2_plots_draw_from_a_summary(tmp_path):
    from formulations.harness.release import plot_at_optimum, plot_spin_updates, summarize
    from formulations.show.plots import save
    s = summarize(_synthetic(np.random.default_rng(3)), resamples=100)
    e = s["samplers"]["sa"]["sizes"]["10x10"]
    assert e["at_optimum"]["length"] == e["quantiles"]["0.5"]["optimal_length_spin_updates"]
    for fig, name in ((plot_spin_updates(s), "su.png"), (plot_at_optimum(s), "ao.png")):
        assert save(fig, tmp_path / name).stat().st_size > 10_000


def test_the_tuned_row_takes_the_range_with_the_smallest_median_and_is_its_own_row():
    from formulations.harness import tuning as T
    from formulations.harness.release import CountedPlanner, summarize

    rng = np.random.default_rng(7)
    recs = []
    for br, p in (((1.0, 10.0), 0.05), ((0.3, 30.0), 0.2), ((0.1, 3.0), 0.0)):
        for i in range(5):
            k = int(rng.binomial(400, p))
            recs.append({"instance": f"t{i}_10x10", "size": "10x10", "sampler": "sa",
                         "length": 100, "reads": 400, "successes": k, "variables": 120,
                         "variant": {"beta_range": list(br)}})
    got = T.choose(recs)["10x10"]
    assert got["beta_range"] == [0.3, 30.0] and got["length"] == 100 and len(got["puzzles"]) == 5
    assert got["median_tts99_spin_updates"]["0.1,3"] is None       # never solved: infinite
    # a tie goes to the default range
    best = [r for r in recs if r["variant"]["beta_range"] == [0.3, 30.0]]
    tie = best + [dict(r, variant={"beta_range": [1.0, 10.0]}) for r in best]
    assert T.choose(tie)["10x10"]["beta_range"] == [1.0, 10.0]
    # the planner's tuned tasks are sa with that range; their records form the row "sa-tuned"
    pl = CountedPlanner({"5x5": ["heart_5x5"]}, ["sa", T.TUNED])
    pl.sources = {"heart_5x5": "repo:puzzles/heart5.txt"}
    pl.tuned = {"5x5": {"beta_range": [0.3, 30.0]}}
    t = pl.task("heart_5x5", T.TUNED, 20, 0)
    assert t.sampler == "sa" and t.beta_range == (0.3, 30.0) and t.key.endswith("|beta=0.3:30")
    rec = measure(t)
    assert T.row_of(rec) == T.TUNED and T.row_of(measure(pl.task("heart_5x5", "sa", 20, 0))) == "sa"
    s = summarize([dict(r, size="10x10", sampler="sa", variant={"beta_range": [0.3, 30.0]},
                        key=r["key"] + "|beta=0.3:30") for r in _synthetic(np.random.default_rng(3))]
                  + _synthetic(np.random.default_rng(3)), resamples=50)
    assert set(s["samplers"]) == {"sa", T.TUNED}
    assert s["samplers"]["sa"]["sizes"]["10x10"]["instances"] == 40


def test_the_estimate_has_a_tuned_row_where_a_range_was_tuned_and_says_where_not(capsys):
    # estimate_counted once crashed on sa-tuned (an empty first ladder): it now reads the tuned
    # sizes it is given, costs the row with sa's calibration, and names a size with no tuning
    from formulations.harness import tuning as T
    from formulations.harness.release import estimate_counted, read_selection
    sel = {"10x10": read_selection()["10x10"][:2]}
    cal = {"sessions": [{"groups": {"sa|10x10": {"a_s": 1e-4, "c_s": 1e-8, "setup_cpu_s": 0.0,
                                                 "c_rounds": [1e-8] * 3}}}]}
    rows = estimate_counted(sel, ["sa", T.TUNED], cal, [])
    assert [r["sampler"] for r in rows] == ["sa"]
    assert "10x10 sa-tuned: no beta range tuned" in capsys.readouterr().err
    rows = estimate_counted(sel, ["sa", T.TUNED], cal, [],
                            tuned={"10x10": {"beta_range": [1.0, 10.0]}})
    got = {r["sampler"]: r for r in rows}
    assert set(got) == {"sa", T.TUNED} and got[T.TUNED]["calibrated"]
    assert 0 < got[T.TUNED]["a"] <= got[T.TUNED]["b"] <= got[T.TUNED]["b_max"]


@pytest.mark.parametrize("proof_s,want", [(10.0, "faster"), (1e-7, "slower"), (None, "not resolved")])
def test_a_comparison_is_claimed_only_when_the_intervals_part_both_ways(proof_s, want):
    from formulations.harness.release import summarize
    recs = _synthetic(np.random.default_rng(11))
    base = summarize(recs, resamples=100)["samplers"]["sa"]["sizes"]["10x10"]["quantiles"]["0.5"]
    proof = base["tts99_s"] + 0.001 if proof_s is None else proof_s   # inside: the point plus set-up
    for i in range(40):
        recs.append({"key": f"{i}|cpsat|0|0", "instance": f"p{i}_10x10", "sampler": "cpsat",
                     "size": "10x10", "length": 0, "reads": 1, "successes": 1, "cpu_s": proof,
                     "unique_cpu_s": proof, "unique_build_s": 0.0, "unique": True})
    s = summarize(recs, resamples=100)
    (row,) = [c for c in s["comparisons"] if c["q"] == "0.5"]
    assert row["verdict"] == want


def test_a_failed_calibration_session_is_left_out_not_read_as_no_spread():
    ok = {"c_s": 1e-8, "a_s": 1e-4, "c_rounds": [1e-8, 1.2e-8, 0.9e-8], "setup_cpu_s": 0.001}
    bad = {"c_s": 0.0, "a_s": 0.08, "c_rounds": [0.0, 1.5e-9, 0.0], "setup_cpu_s": 0.001}
    cal = {"sessions": [{"session": "s1", "groups": {"tabu|30x30": ok}},
                        {"session": "s2", "groups": {"tabu|30x30": bad}}]}
    m = P.cost_model(cal, "tabu|30x30")
    assert m["sessions"] == 1 and m["failed_sessions"] == 1 and m["c_s"] == 1e-8
    assert m["spread"] == pytest.approx(1.2 / 0.9 - 1, rel=1e-3)
    assert P.cost_model({"sessions": [{"session": "s2", "groups": {"tabu|30x30": bad}}]},
                        "tabu|30x30") is None
    # one round (a quick study's calibration) counts when its fit succeeded
    one = {"c_s": 2e-8, "a_s": 1e-4, "c_rounds": [2e-8], "setup_cpu_s": 0.001}
    m1 = P.cost_model({"sessions": [{"session": "q", "groups": {"g": one}}]}, "g")
    assert m1["sessions"] == 1 and m1["failed_sessions"] == 0 and m1["spread"] == 0.0
    # rounds that disagree by more than 2x (noise, or reads that stop at the ground state)
    scattered = {**one, "c_s": 1.5e-8, "c_rounds": [1e-8, 3e-8, 1.5e-8]}
    assert P.cost_model({"sessions": [{"session": "q", "groups": {"g": scattered}},
                                      {"session": "r", "groups": {"g": one}}]},
                        "g")["failed_sessions"] == 1
    zero = {**one, "c_s": 0.0, "c_rounds": [0.0]}
    assert P.cost_model({"sessions": [{"session": "q", "groups": {"g": zero}}]}, "g") is None


def test_cpu_figures_come_from_one_machine_and_the_others_are_ratios():
    def g(c: float) -> dict:
        return {"c_s": c, "a_s": 1e-4, "c_rounds": [c, c * 1.05], "setup_cpu_s": 0.001}
    cal = {"sessions": [{"session": "e1", "cpu_model": "AMD EPYC", "groups": {"sa|10x10": g(1e-8)}},
                        {"session": "x1", "cpu_model": "Xeon", "groups": {"sa|10x10": g(3e-8)}},
                        {"session": "e2", "cpu_model": "AMD EPYC", "groups": {"sa|10x10": g(1.1e-8)}}]}
    assert P.cpu_models(cal) == {"AMD EPYC": 2, "Xeon": 1}
    assert P.reference_cpu(cal) == "AMD EPYC"
    epyc = P.cost_model(P.for_cpu(cal, "AMD EPYC"), "sa|10x10")
    # the Xeon's 3x is not read as the clock's noise: the spread is the EPYC sessions' own
    assert epyc["sessions"] == 2 and epyc["between_sessions"] == pytest.approx(0.1)
    assert P.cost_model(cal, "sa|10x10")["between_sessions"] == pytest.approx(2.0)
    ratios = P.machine_ratios(cal, "AMD EPYC")
    assert list(ratios) == ["Xeon"]
    assert ratios["Xeon"]["groups"]["sa|10x10"]["c_ratio"] == pytest.approx(3e-8 / 1.05e-8, rel=1e-3)
    assert P.for_cpu(cal, "Ryzen") is None and P.reference_cpu(None) is None


def test_calibration_reads_outweigh_the_per_read_constant_seen_before():
    """A group whose earlier sessions measured a large per-read constant a is calibrated at a
    length whose work is several a (else c's fit drowns in a's noise: tabu 30x30, session 2)."""
    from formulations.harness.release import CAL_WORK_OVER_A, calibration_groups, read_selection
    sel = {"10x10": read_selection()["10x10"][:1]}
    (plain,) = calibration_groups(sel, ["sa"], puzzles=1)
    c = 1e-8
    failed = {"c_s": 0.0, "a_s": 0.001, "c_rounds": [0.0, 0.0, 1e-10], "setup_cpu_s": 0.0}
    other_size = {"c_s": c, "a_s": 1e-4, "c_rounds": [c] * 3, "setup_cpu_s": 0.0}
    earlier = {"sessions": [{"groups": {"sa|10x10": failed, "sa|20x20": other_size}}]}
    (longer,) = calibration_groups(sel, ["sa"], puzzles=1, earlier=earlier)
    (key, _src), = longer["puzzles"]
    n = measure(P.calibration_task("sa", key, _src, 8, 1))["variables"]
    assert longer["length"] > plain["length"]
    assert longer["length"] * n * c >= CAL_WORK_OVER_A * 0.001 * 0.999


def test_two_seeds_are_compared_and_a_seed_that_moves_the_figure_shows():
    same0 = _synthetic(np.random.default_rng(5))
    rng = np.random.default_rng(6)   # the same instances, their reads drawn again
    same1 = [{**r, "seed": 1, "key": r["key"][:-1] + "1",
              "successes": int(rng.binomial(r["reads"], r["successes"] / r["reads"]))}
             for r in same0]
    a = P.seed_agreement(same0 + same1, resamples=300)
    assert a is not None and a["instances"] == 40 and set(a["seeds"]) == {"0", "1"}
    for v in a["seeds"].values():
        assert v["low_spin_updates"] <= v["tts99_spin_updates"] <= v["high_spin_updates"]
    assert a["intervals_overlap"]
    # a "seed" whose reads succeed ten times less often is told apart
    moved = [{**r, "successes": r["successes"] // 10} for r in same1]
    assert not P.seed_agreement(same0 + moved, resamples=300)["intervals_overlap"]
    assert P.seed_agreement(same0, resamples=300) is None
    from formulations.harness import release
    e = release.summarize(same0 + same1, resamples=200)["samplers"]["sa"]["sizes"]["10x10"]
    assert e["seed_agreement"]["intervals_overlap"]


def test_a_run_whose_sampler_is_not_installed_stops_before_writing_anything(tmp_path):
    # dimod and dwave-samplers made unimportable in the child, as on a machine without the extras:
    # the run must say what to install and write no manifest and no (error) records
    script = tmp_path / "without_dimod.py"
    script.write_text("import runpy, sys\n"
                      "for m in ('dimod', 'dwave', 'dwave.samplers'):\n"
                      "    sys.modules[m] = None\n"
                      f"sys.argv = [{str(ROOT / 'bench' / 'release.py')!r}] + sys.argv[1:]\n"
                      "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, str(script), "run", "--samplers", "pimc",
                          "--baselines", "", "--out", str(out), "--quiet"],
                         capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert res.returncode == 2, res.stderr
    assert "pimc" in res.stderr and "pip install" in res.stderr
    assert not (out / "records.jsonl.gz").exists() and not (out / "manifest.json").exists()
    res = _cli("run", "--samplers", "no-such-sampler", "--baselines", "", "--out", str(out))
    assert res.returncode == 2 and "no-such-sampler" in res.stderr
    assert not out.exists()
