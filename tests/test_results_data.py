"""Comparison results as data: a typed pandas DataFrame when pandas is installed, the plain table
otherwise; the summary's TTS99 comes with its 95 % interval."""
from __future__ import annotations

import math
import sys

import pytest

from formulations import as_frame, load_results, summarize
from formulations.harness.records import FIELDS, CsvSink, Table
from formulations.analysis.stats import tts99_interval


def row(**kw):
    base = dict.fromkeys(FIELDS)
    base.update(key="k", puzzle="p", source="s", digest="d1", size="5x5", height=5, width=5,
                cells=25, backend="sa", options="{}", use_x=True, presolve=False, seed=0,
                time_limit=10.0, status="solved", verified=True, message="", grid="", palette="")
    base.update(kw)
    return base


ROWS = [row(key="a", seed=0, tts99_s=0.02, tts99_low_s=0.01, tts99_high_s=0.05, reads=100,
            success_probability=0.4, time_s=0.3),
        row(key="b", seed=1, tts99_s=0.04, tts99_low_s=0.02, tts99_high_s=None, reads=100,
            success_probability=0.1, time_s=0.3),
        row(key="c", seed=2, tts99_s=0.03, tts99_low_s=0.015, tts99_high_s=0.09, reads=100,
            success_probability=0.2, time_s=0.3)]


def test_the_summary_gives_tts99_with_its_interval():
    # three seeds of one puzzle: their reads pooled (70 of 300), the time per read recovered
    # from each run's TTS99 and p, averaged over the reads
    s = summarize(ROWS)[0]
    ts = [r["tts99_s"] * math.log1p(-r["success_probability"]) / math.log(0.01) for r in ROWS]
    t = sum(ts) / 3
    assert s["median_tts99_s"] == pytest.approx(t * math.log(0.01) / math.log(1 - 70 / 300))
    ci = tts99_interval(70, 300, t, t_samples=ts)
    assert (s["tts99_low_s"], s["tts99_high_s"]) == pytest.approx((ci.low, ci.high))
    one = summarize(ROWS[:1])[0]
    assert one["median_tts99_s"] == pytest.approx(0.02)
    assert one["tts99_low_s"] < 0.02 < one["tts99_high_s"] < math.inf


def test_seeds_without_a_success_are_pooled_not_dropped():
    # the example: 0, 1 and 1 successes of 200 reads of 1 ms; pooling gives 1.38 s,
    # dropping the first seed before a median gave 0.92 s
    t99 = 0.001 * math.log(0.01) / math.log(1 - 1 / 200)
    rows = [row(key=k, seed=i, reads=200, success_probability=p, tts99_s=t, time_s=0.5,
                verified=p > 0, status="solved" if p else "unknown")
            for i, (k, p, t) in enumerate([("a", 0.0, None), ("b", 0.005, t99), ("c", 0.005, t99)])]
    s = summarize(rows)[0]
    assert s["median_tts99_s"] == pytest.approx(0.001 * math.log(0.01) / math.log(1 - 2 / 600))
    assert s["median_tts99_s"] == pytest.approx(1.38, abs=0.005)
    # a puzzle no seed solved is inf in the median over puzzles, not left out
    other = [dict(r, digest="d2", key=r["key"] + "2", success_probability=0.0, tts99_s=None,
                  verified=False) for r in rows]
    third = [dict(r, digest="d3", key=r["key"] + "3", success_probability=0.0, tts99_s=None,
                  verified=False) for r in rows]
    s = summarize(rows + other + third)[0]
    assert s["puzzles"] == 3 and s["median_tts99_s"] == math.inf and s["tts99_high_s"] == math.inf
    assert 0 < s["tts99_low_s"] < math.inf


def test_a_complete_backend_gets_its_cpu_to_the_first_grid_and_no_tts99():
    # a complete backend's runs are no random trials: no TTS99 and no interval (the summary
    # once gave a complete backend "3.41 s [3.41, 620.7]"), but the median CPU of the backend
    # call to the first grid, an unsolved run as inf
    rows = [row(key=k, backend="cpsat", seed=i, time_s=t, solve_cpu_s=t, build_cpu_s=0.1,
                verified=ok, status="solved" if ok else "unknown")
            for i, (k, t, ok) in enumerate([("a", 1.0, True), ("b", 2.0, True), ("c", 3.0, False)])]
    s = summarize(rows)[0]
    assert s["median_tts99_s"] is None and s["tts99_low_s"] is None and s["tts99_high_s"] is None
    assert s["median_first_cpu_s"] == 2.0 and s["median_setup_cpu_s"] == 0.1
    assert s["median_unique_cpu_s"] is None and s["clock"] == "cpu"


def test_results_load_as_a_typed_dataframe(tmp_path):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "rows.csv"
    sink = CsvSink(path)
    for r in ROWS:
        sink.write(r)
    sink.close()
    df = load_results(path)
    assert isinstance(df, pd.DataFrame) and list(df.columns) == list(FIELDS)
    assert df["verified"].dtype == "boolean" and df["reads"].dtype == "Int64"
    assert df["tts99_high_s"].dtype == "float64" and math.isnan(df["tts99_high_s"][1])
    assert df["energy"].isna().all() and df["backend"].dtype == "string"
    assert df.groupby("backend")["tts99_s"].median()["sa"] == 0.03
    summary = as_frame(summarize(ROWS))
    assert summary.loc[0, "tts99_high_s"] == summarize(ROWS)[0]["tts99_high_s"]
    assert summary["runs"].dtype == "int64"
    assert Table(ROWS).to_dataframe().equals(as_frame(ROWS))


def test_without_pandas_the_rows_stay_a_plain_table(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if not installed
    t = load_results(ROWS)
    assert isinstance(t, Table) and t == ROWS and t.where(seed=1)[0]["key"] == "b"
    with pytest.raises(ImportError, match="needs pandas"):
        Table(ROWS).to_dataframe()


def test_a_csv_written_before_a_column_existed_is_read_whole(tmp_path):
    # an older results file without the ``encoding`` column: every row is read, encoding None;
    # a line cut short (a killed run) is still left out
    import csv

    from formulations.harness import read_results

    old = [k for k in FIELDS if k != "encoding"]
    path = tmp_path / "old.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(old)
        for r in ROWS:
            w.writerow(["" if r[k] is None else str(r[k]).lower() if isinstance(r[k], bool)
                        else r[k] for k in old])
        f.write("d,p,s\n")
    got = read_results(path)
    assert [r["key"] for r in got] == ["a", "b", "c"]
    assert all(r["encoding"] is None for r in got)
    assert got[0]["tts99_s"] == 0.02 and got[0]["verified"] is True
    assert summarize(got)[0]["runs"] == 3
