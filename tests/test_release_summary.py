"""bench/release.py's summary.json from records: per sampler, size and quantile the optimum with
its interval and whether it is interior; the fits; the figures below the solved regime. Built
on synthetic records with a known optimum and a known exponential growth."""
from __future__ import annotations

import math

import numpy as np
import pytest
from formulations.harness import release

from helpers import ROOT

LADDER = [50, 71, 100, 141, 200, 283, 400, 566, 800]
RATE = 0.004   # TTS99 grows as exp(RATE * cells)


def records(rng: np.random.Generator) -> list[dict]:
    out = []
    for side in (10, 15, 20):
        cells = side * side
        for i in range(30):
            h = rng.uniform(2, 6) * math.exp(RATE * cells)
            for L in LADDER:
                reps = h * (283 ** 2 / L + L) / L
                p = 1 - 0.01 ** (1 / reps)
                k = int(rng.binomial(1000, p))
                unsolved = i == 0 and side == 20   # one instance never solved
                k = 0 if unsolved else k
                out.append({"key": f"{i}_{side}|sa|{L}|0", "instance": f"{i}_{side}x{side}",
                            "sampler": "sa", "size": f"{side}x{side}", "cells": cells,
                            "length": L, "unit": "sweeps", "seed": 0, "reads": 1000,
                            "successes": k, "cpu_s": 1000 * 1e-5 * L, "variables": 2 * cells,
                            "setup_cpu_s": 0.5,
                            "energy_mean": 0.5 if k else 3.0,
                            "at_most": [k, k, 1000, 1000, 1000, 1000, 1000, 1000]})
    out.append({"key": "x", "instance": "9_10x10", "sampler": "sa", "length": 50, "seed": 1,
                "error": "RuntimeError: kept, not counted"})
    return out


def test_summary_holds_each_quantile_optimum_and_the_fits():
    s = release.summarize(records(np.random.default_rng(1)), resamples=300)
    assert s["errors"] == 1 and s["records"] == 3 * 30 * len(LADDER)
    sa = s["samplers"]["sa"]
    for size in ("10x10", "15x15", "20x20"):
        e = sa["sizes"][size]
        assert e["lengths"] == LADDER and e["unit"] == "sweeps"
        for q in ("0.5", "0.75", "0.9"):
            o = e["quantiles"][q]
            assert o["instances"] == 30
            assert o["optimal_length"] in (200, 283, 400) and o["interior"] is True  # 283 +- noise
            assert o["low_s"] <= o["tts99_s"]
            assert o["high_s"] is None or o["tts99_s"] <= o["high_s"]   # None: unbounded
        assert e["quantiles"]["0.5"]["solved"] == (29 if size == "20x20" else 30)
        assert e["median_setup_cpu_s"] == 0.5 and e["median_setup_per_read_s"] == 0.5 / 1000
        o = e["quantiles"]["0.5"]
        assert o["spin_updates_per_read"] == o["optimal_length"] * 2 * int(size[:2]) ** 2
        below = e["below"]["283"]
        assert below["instances"] == 30 and below["median_tts99_to_target_s"]["2"] == \
            pytest.approx(283e-5)   # every read reaches energy 2: one read
    fit = sa["fits"]["0.5"]
    assert fit["sizes_used"] == 3
    exp = fit["exp_cells"]
    assert exp["low"] <= RATE <= exp["high"] and exp["exponent"] == pytest.approx(RATE, rel=0.3)
    assert fit["poly_variables"]["exponent"] > 0


def test_a_minimum_at_the_edge_is_reported_as_a_bound():
    recs = [r for r in records(np.random.default_rng(2)) if r.get("length", 0) <= 200]
    s = release.summarize(recs, resamples=100)
    o = s["samplers"]["sa"]["sizes"]["10x10"]["quantiles"]["0.5"]
    assert o["optimal_length"] == 200 and o["interior"] is False and o["edge"] == "high"
    assert s["samplers"]["sa"]["fits"]["0.5"]["sizes_used"] == 0   # bounds are not fitted
    assert s["samplers"]["sa"]["fits"]["0.5"]["exp_cells"] is None


def test_exact_baselines_give_time_quantiles_and_fits():
    rng = np.random.default_rng(4)
    recs = []
    for side in (10, 15, 20):
        for i in range(20):
            t = rng.uniform(0.5, 1.5) * 1e-3 * side ** 2
            recs.append({"key": f"{i}_{side}|cpsat|0|0", "instance": f"{i}_{side}x{side}",
                         "sampler": "cpsat", "size": f"{side}x{side}", "length": 0, "reads": 1,
                         "successes": 1, "cpu_s": t, "unique_cpu_s": 2 * t,
                         "unique": None if (i, side) == (0, 20) else True})  # one proof unfinished
    s = release.summarize(recs, resamples=200)["samplers"]["cpsat"]
    first = s["sizes"]["15x15"]["first_grid"]["0.5"]
    assert first["instances"] == 20 and first["optimal_length"] is None
    assert first["low_s"] <= first["time_s"] <= first["high_s"]
    assert first["time_s"] == pytest.approx(0.225, rel=0.3)
    assert s["sizes"]["20x20"]["uniqueness"]["0.5"]["solved"] == 19
    fit = s["fits"]["first_grid"]["0.5"]["poly_cells"]
    assert fit["low"] <= 1.0 <= fit["high"]     # time grows as cells^1 here


@pytest.mark.parametrize("quantiles", [("0.5",), ("0.5", "0.75", "0.9")])
def test_the_scaling_plot_has_one_panel_per_quantile(quantiles):
    pytest.importorskip("matplotlib")
    import json
    path = ROOT / "bench" / "results" / "release" / "summary.json"
    if not path.is_file():
        pytest.skip("no release summary in this checkout")
    fig = release.plot(json.loads(path.read_text()), quantiles=quantiles)
    assert len(fig.axes) == len(quantiles)
    assert all(ax.lines for ax in fig.axes)  # every panel draws the samplers' curves


def test_the_table_labels_bounds_and_shows_intervals_fits_and_baselines():
    rng = np.random.default_rng(5)
    recs = [r for r in records(rng) if not (r.get("size") == "10x10" and r["length"] > 200)]
    recs += [{"key": f"{i}_10|lines|0|0", "instance": f"{i}_10x10", "sampler": "lines",
              "size": "10x10", "length": 0, "reads": 1, "successes": 1, "cpu_s": 1e-3,
              "unique_cpu_s": 2e-3, "unique": True} for i in range(10)]
    s = release.summarize(recs, resamples=100)
    text = release.table(s)
    rows = {tuple(c.strip() for c in line.split("|")[1:3]): line for line in text.splitlines()}
    o10 = s["samplers"]["sa"]["sizes"]["10x10"]["quantiles"]["0.5"]
    assert o10["interior"] is False                      # the 10x10 ladder stops at 200
    assert "(L*=200, bound)" in rows[("sa", "10x10")]
    o20 = s["samplers"]["sa"]["sizes"]["20x20"]["quantiles"]["0.5"]
    assert o20["interior"] is True
    ms = f"{1000 * o20['tts99_s']:.3g} [{1000 * o20['low_s']:.3g}, "
    assert ms in rows[("sa", "20x20")] and "bound" not in rows[("sa", "20x20")]
    assert rows[("sa", "20x20")].split("|")[3:5] == [" 30 ", " 29 "]   # n and solved
    assert "| lines (uniqueness) | 10x10 | 10 | 10 | 2 [2, 2] |" in text
    fit = s["samplers"]["sa"]["fits"]["0.5"]
    assert fit["sizes_used"] == 2                         # the bound at 10x10 is not fitted
    assert f"| sa | 0.5 | 2 | {fit['exp_cells']['exponent']:.4f} [" in text


def test_a_length_not_every_instance_has_reached_is_left_out_and_listed():
    # a run stopped while extending the ladder: 400 measured on 10 of 30 instances at 10x10.
    # Counted, its 20 missing instances would be unsolved there and 283 would look interior.
    recs = [r for r in records(np.random.default_rng(6)) if r.get("size") == "10x10"
            and r["length"] <= 283]
    s_before = release.summarize(recs, resamples=50)["samplers"]["sa"]["sizes"]["10x10"]
    assert s_before["quantiles"]["0.5"]["interior"] is False     # 283 is the ladder's end
    top = [r for r in records(np.random.default_rng(6)) if r.get("size") == "10x10"
           and r["length"] == 400 and int(r["instance"].split("_")[0]) < 10]
    s = release.summarize(recs + top, resamples=50)["samplers"]["sa"]["sizes"]["10x10"]
    assert s["partial_lengths"] == {"400": 10} and 400 not in s["lengths"]
    assert s["quantiles"]["0.5"]["interior"] is False and s["quantiles"]["0.5"]["edge"] == "high"
    assert s["quantiles"]["0.5"]["instances"] == 30


def test_a_size_short_of_its_planned_puzzles_is_marked_and_left_out_of_the_fits():
    """A run goes through a size's puzzles in order, so a size cut short is not a random sample
    of its puzzles: it says so, and the fits use only complete sizes."""
    recs = [r for r in records(np.random.default_rng(1))
            if not (r.get("size") == "20x20" and int(r["instance"].split("_")[0]) >= 20)]
    s = release.summarize(recs, resamples=200, planned={"10x10": 30, "15x15": 30, "20x20": 30})
    sizes = s["samplers"]["sa"]["sizes"]
    assert [sizes[z]["complete"] for z in ("10x10", "15x15", "20x20")] == [True, True, False]
    assert sizes["20x20"]["instances"] == 20 and sizes["20x20"]["planned"] == 30
    fit = s["samplers"]["sa"]["fits"]["0.5"]
    assert fit["sizes_used"] == 2 and fit["exp_cells"]["points"] == 2
    # without a plan nothing is known to be missing: every size is fitted
    s = release.summarize(recs, resamples=200)
    assert s["samplers"]["sa"]["sizes"]["20x20"]["complete"] is None
    assert s["samplers"]["sa"]["fits"]["0.5"]["sizes_used"] == 3


def test_the_per_call_overhead_share_is_reported_at_each_optimum():
    """At short anneals a call's fixed cost is much of a read (the figure depends on the batch
    size): the summary says how much, from the zero-length call each record makes."""
    recs = records(np.random.default_rng(1))
    s = release.summarize(recs, resamples=100)
    assert s["samplers"]["sa"]["sizes"]["10x10"]["quantiles"]["0.5"]["overhead_share"] is None
    for r in recs:
        if "error" not in r:   # a fixed 2 ms per call of 10 reads: 0.2 ms a read
            r["overhead_cpu_s"], r["overhead_reads"] = 2e-3, 10
    s = release.summarize(recs, resamples=100)
    for _z, e in s["samplers"]["sa"]["sizes"].items():
        for q in e["quantiles"].values():
            L = q["optimal_length"]
            assert q["overhead_share"] == pytest.approx(2e-4 / (1e-5 * L), rel=1e-3)


def test_the_estimate_is_calibrated_by_each_groups_records():
    # generated puzzles (in the repository): records costing twice the model at 35x35 make its
    # scale 2 and double its hours; 40x40, not measured, takes the largest measured size's scale
    from formulations.harness.study import estimate_cost
    sel = {z: release.read_selection()[z][:3] for z in ("35x35", "40x40")}
    plain = {(r["size"], r["sampler"]): r for r in release.estimate([], sel, ["sa"])}
    assert all(r["scale"] == 1.0 and r["done"] == 0 and 0 < r["a"] <= r["b"]
               for r in plain.values())
    pl = release.Planner(sel, ["sa"])
    recs = []
    for key in sel["35x35"]:
        pl._vars(key)
        for k in range(7):
            L = release.ladder_length(k + 20, release.BASE)
            cost = estimate_cost(pl.task(key, "sa", L, 0), *pl.sizes[key])
            recs.append({"key": f"{key}|sa|{L}|0", "instance": key, "sampler": "sa",
                         "size": "35x35", "length": L, "seed": 0, "reads": 100,
                         "successes": 1, "cpu_s": 2 * cost - 0.1, "setup_cpu_s": 0.1})
    got = {(r["size"], r["sampler"]): r for r in release.estimate(recs, sel, ["sa"])}
    for z in ("35x35", "40x40"):
        r, p = got[(z, "sa")], plain[(z, "sa")]
        assert r["scale"] == pytest.approx(2.0)
        assert r["b"] == pytest.approx(2 * p["b"]) and r["a"] == pytest.approx(2 * p["a"])
    assert got[("35x35", "sa")]["done"] == pytest.approx(sum(
        x["cpu_s"] + x["setup_cpu_s"] for x in recs) / 3600)
    assert got[("40x40", "sa")]["done"] == 0


def test_every_first_ladder_runs_before_any_extension():
    # generated puzzles (in the repository), two per size, tabu (whose cap is above both first
    # ladders): with 35x35's first ladder measured and its optimum at the long end (p grows
    # with the length faster than the read's cost), the plan asks for 40x40's first ladder
    # before 35x35's next length
    sel = {z: release.read_selection()[z][:2] for z in ("35x35", "40x40")}
    pl = release.Planner(sel, ["tabu"])
    first = {z: pl.initial("tabu", z) for z in sel}
    plan = pl({})
    assert [(t.instance.rsplit("_", 1)[-1], t.length) for t in plan] == \
        [(z, L) for z in ("35x35", "40x40") for L in first[z] for _ in sel[z]]
    recs = {}
    for key in sel["35x35"]:
        for L in first["35x35"]:
            k = min(100, int(100 * (L / first["35x35"][-1]) ** 3))  # TTS falls with L
            recs[f"{key}|tabu|{L}|0"] = {
                "key": f"{key}|tabu|{L}|0", "instance": key, "sampler": "tabu", "size": "35x35",
                "length": L, "seed": 0, "reads": 100, "successes": k, "cpu_s": 1e-5 * L * 100}
    plan = pl(recs)
    longer = release.ladder_length(release.ladder_index(first["35x35"][-1], release.BASE) + 1,
                                   release.BASE)
    assert [(t.instance.rsplit("_", 1)[-1], t.length) for t in plan] == \
        [("40x40", L) for L in first["40x40"] for _ in sel["40x40"]] + \
        [("35x35", longer)] * 2
