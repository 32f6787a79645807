"""What the deduction trace (``nf.explain``, issue 43) costs, and what its difficulty level says.

Subcommands (records in ``bench/results/explain/records.jsonl.gz``, one JSON object a line):

* ``cost``    janko's 30x30 puzzles: CPU time of ``lines`` (``solve_lines``, the backend's
  search), of the trace (``explain``) and of the trace without placement counts
  (``explain(counts=False)``), interleaved puzzle by puzzle, each the median of ``--repeats``
  runs with the memo of settled lines emptied before every run; the per-puzzle ratios, their
  median with a bootstrap interval, and the ratio of the totals;
* ``levels``  the difficulty of every puzzle of the corpus sets (janko by size, the other
  folders) and of a sample of each tournament set (``--per-set`` puzzles, spread over the set),
  each with one ``lines`` run's CPU time (for the rank correlation; not a speed figure);
* ``table``   the docs' tables from the records: the level distribution per set, and
  Spearman's rank correlation of the level with ``lines``' CPU time per set and with ``sa``'s
  TTS99 (from the release's records, janko 10x10-30x30), each with a 95 % bootstrap interval.

    python bench/explain_bench.py cost --repeats 3
    python bench/explain_bench.py levels --per-set 25 --time-limit 10
    python bench/explain_bench.py table

The machine is shared: times are CPU (``time.process_time``), ratios are taken within one
puzzle's interleaved runs.
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from collections.abc import Iterator

import numpy as np

from formulations.lines import clear_cache, solve_lines
from formulations.lines.explain import explain
from formulations.puzzle import Puzzle, make_clue

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
JANKO = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
TOURNAMENT = CORPUS / "taai-tcga-icga-tournament" / "question"
RELEASE = ROOT / "bench" / "results" / "release" / "records.jsonl.gz"
OUT = ROOT / "bench" / "results" / "explain"
RECORDS = OUT / "records.jsonl.gz"
MIN_RHO = 15  # fewer puzzles than this: no correlation reported (its bootstrap is meaningless)
MAX_CELLS = 10_000  # larger puzzles (a 512x512) are left out of the level study
FOLDERS = {  # set name -> (folder, glob)
    "webpbn-survey": ("webpbn-survey-non", "*.non"),
    "jacop": ("jacop-nonogramRepository", "*.nin"),
    "minizinc": ("minizinc-benchmarks-nonogram/converted-non", "*.non"),
    "dejoue": ("picross-solver-dejoue", "**/*.non"),
    "mikix": ("nonogram-db-mikix", "**/*.non"),
    "number-loom": ("number-loom-puzzles", "*.xml"),
    "wolter-xml": ("wolter-survey-xml", "*.xml"),
    "pynogram": ("pynogram-examples", "*.txt"),
}


# -- puzzles ------------------------------------------------------------------------------------

def janko(sizes: set[tuple[int, int]] | None = None) -> Iterator[tuple[str, Puzzle]]:
    from formulations.io import iter_janko
    for key, p, _ in iter_janko(JANKO):
        if sizes is None or (p.height, p.width) in sizes:
            yield key, p


def tournament_set(path: Path) -> list[Puzzle]:
    """One tournament file: ``$N`` then 50 tab-separated clue lines, the 25 column clues first,
    then the 25 row clues (an empty line or ``0``: an empty clue)."""
    out: list[Puzzle] = []
    lines = path.read_text().splitlines()
    k = 0
    while k < len(lines):
        head = lines[k].strip()
        if not head.startswith("$"):
            k += 1
            continue
        clues = [[int(t) for t in ln.split() if t.strip() and t.strip() != "0"]
                 for ln in lines[k + 1:k + 51]]
        cols, rows = clues[:25], clues[25:]
        out.append(Puzzle(tuple(make_clue(c) for c in rows), tuple(make_clue(c) for c in cols),
                          name=f"{path.stem}#{head[1:]}"))
        k += 51
    return out


def corpus_sets(per_set: int) -> Iterator[tuple[str, str, Puzzle]]:
    from formulations.io import read_puzzle
    for key, p in janko():
        size = f"{p.height}x{p.width}"
        group = size if size in ("10x10", "15x15", "20x20", "25x25", "30x30") else "other"
        yield f"janko {group}", key, p
    for name, (folder, pattern) in FOLDERS.items():
        for path in sorted((CORPUS / folder).glob(pattern)):
            try:
                p = read_puzzle(path)
            except Exception:  # noqa: BLE001 - shapes the readers refuse (triddlers)
                continue
            if p.height * p.width <= MAX_CELLS:
                yield name, str(path.relative_to(CORPUS)), p
    if TOURNAMENT.is_dir():
        for path in sorted(TOURNAMENT.glob("*.txt")):
            ps = tournament_set(path)
            step = max(1, len(ps) // per_set)
            for p in ps[::step][:per_set]:  # spread over the set (its density falls)
                yield f"tournament {path.stem}", p.name, p


# -- records ------------------------------------------------------------------------------------

def append(rows: list[dict]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with gzip.open(RECORDS, "at") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def read(kind: str) -> list[dict]:
    if not RECORDS.exists():
        return []
    with gzip.open(RECORDS, "rt") as f:
        return [r for r in map(json.loads, f) if r.get("kind") == kind]


def cpu(fn) -> float:
    clear_cache()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def bootstrap(values: np.ndarray, stat, n: int = 2000, seed: int = 1) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    got = [stat(values[rng.integers(0, len(values), len(values))]) for _ in range(n)]
    return float(np.nanpercentile(got, 2.5)), float(np.nanpercentile(got, 97.5))


# -- cost -----------------------------------------------------------------------------------------

def cmd_cost(args) -> None:
    rows = []
    run = time.strftime("%Y-%m-%dT%H:%M:%S")  # the table shows the latest run's rows
    puzzles = list(janko({(30, 30)}))[:args.limit]
    for n, (key, p) in enumerate(puzzles, 1):
        t = defaultdict(list)
        for _ in range(args.repeats):  # interleaved: each round runs all three
            t["lines"].append(cpu(lambda p=p: solve_lines(p, time_limit=args.time_limit)))
            t["explain"].append(cpu(lambda p=p: explain(p, time_limit=args.time_limit)))
            t["nocounts"].append(cpu(lambda p=p: explain(p, counts=False,
                                                     time_limit=args.time_limit)))
        row = {"kind": "cost", "run": run, "name": key,
               **{k: statistics.median(v) for k, v in t.items()}}
        rows.append(row)
        print(f"{n:>4}/{len(puzzles)} {key:<14} lines {row['lines'] * 1e3:8.2f} ms  explain "
              f"{row['explain'] / row['lines']:6.2f}x  without counts "
              f"{row['nocounts'] / row['lines']:6.2f}x", flush=True)
    append(rows)
    report_cost(rows)


def report_cost(rows: list[dict]) -> list[str]:
    out = []
    L = np.array([r["lines"] for r in rows])
    for key, what in (("explain", "trace with placement counts"),
                      ("nocounts", "trace without placement counts")):
        E = np.array([r[key] for r in rows])
        ratio = E / L
        lo, hi = bootstrap(ratio, np.median)
        out.append(f"| {what} | {len(rows)} | {np.median(ratio):.2f} [{lo:.2f}, {hi:.2f}] | "
                   f"{np.exp(np.mean(np.log(ratio))):.2f} | {E.sum() / L.sum():.2f} | "
                   f"{np.percentile(ratio, 90):.1f} | {np.mean(ratio <= 3) * 100:.0f} % |")
    print("\n".join(out))
    return out


# -- levels ---------------------------------------------------------------------------------------

def cmd_levels(args) -> None:
    done = {(r["set"], r["name"]) for r in read("level")}
    batch: list[dict] = []
    n = 0
    for set_name, name, p in corpus_sets(args.per_set):
        if (set_name, name) in done:
            continue
        t0 = time.process_time()
        ex = explain(p, time_limit=args.time_limit)
        ecpu = time.process_time() - t0
        clear_cache()
        t0 = time.process_time()
        r = solve_lines(p, time_limit=args.time_limit)
        lcpu = time.process_time() - t0
        d = ex.difficulty
        batch.append({"kind": "level", "set": set_name, "name": name, "height": p.height,
                      "width": p.width, "colour": not p.is_black_and_white,
                      "status": ex.status.value, "level": d.level, "line_steps": d.line_steps,
                      "probe_steps": d.probe_steps, "max_chain": d.max_chain,
                      "guesses": d.guesses, "beyond_lines": len(d.beyond_lines),
                      "explain_cpu_s": ecpu, "lines_cpu_s": lcpu,
                      "lines_status": r.status.value, "lines_timed_out": r.timed_out})
        n += 1
        if n % 10 == 0:
            append(batch)
            batch = []
            print(f"{n} puzzles; last: {set_name} {name} level {d.level}", flush=True)
    append(batch)
    print(f"{n} puzzles rated")


# -- table ----------------------------------------------------------------------------------------

def spearman(x, y) -> tuple[float, float, float, int]:
    from scipy.stats import spearmanr
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < MIN_RHO or len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan, math.nan, math.nan, len(x)
    rho = spearmanr(x, y).statistic
    idx = np.arange(len(x))
    rng = np.random.default_rng(2)
    got = []
    for _ in range(2000):
        s = idx[rng.integers(0, len(x), len(x))]
        if len(set(x[s])) > 1 and len(set(y[s])) > 1:
            got.append(spearmanr(x[s], y[s]).statistic)
    return float(rho), float(np.percentile(got, 2.5)), float(np.percentile(got, 97.5)), len(x)


def sa_tts() -> dict[str, float]:
    """Per janko instance of the release: sa's TTS99 (CPU s) at its best length (pooled over
    seeds); inf when no length solved it."""
    if not RELEASE.exists():
        return {}
    agg: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0, 0, 0.0])
    with gzip.open(RELEASE, "rt") as f:
        for r in map(json.loads, f):
            if r.get("sampler") != "sa" or not r.get("reads"):
                continue
            a = agg[(r["instance"], r["length"])]
            a[0] += r["successes"] if r.get("verified", True) else 0
            a[1] += r["reads"]
            a[2] += r["cpu_s"]
    best: dict[str, float] = {}
    for (inst, _), (s, n, c) in agg.items():
        p = s / n
        if p <= 0:
            t = math.inf
        elif p >= 1:
            t = c / n
        else:
            t = c / n * max(1.0, math.log(0.01) / math.log(1 - p))
        best[inst] = min(best.get(inst, math.inf), t)
    return best


def fmt_rho(r) -> str:
    rho, lo, hi, n = r
    return "–" if math.isnan(rho) else f"{rho:+.2f} [{lo:+.2f}, {hi:+.2f}] (n={n})"


def cmd_table(args) -> None:
    rows = read("level")
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[r["set"]].append(r)
    order = sorted(by, key=lambda s: (s.startswith("tournament"), not s.startswith("janko"), s))
    print("| set | puzzles | level 1 | 2 | 3 | 4 | 5 | not finished | median cells beyond "
          "line logic (levels 2-5) | rank correlation of level with `lines` CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    # the tournament sets in three rows (few puzzles each): by competition, then all
    tour = {}
    for s in order:
        if s.startswith("tournament"):
            comp = s.split()[1].rstrip("0123456789")
            tour.setdefault(f"tournament {comp.upper()} ({{}} sets)", []).append(s)
    groups = [(s, by[s]) for s in order if not s.startswith("tournament")]
    groups += [(name.format(len(sets)), [r for s in sets for r in by[s]])
               for name, sets in tour.items()]
    if tour:
        groups.append(("all tournament sets", [r for s in order if s.startswith("tournament")
                                               for r in by[s]]))
    for s, rs in groups:
        counts = [sum(r["level"] == k for r in rs) for k in range(1, 6)]
        unfinished = sum(r["level"] is None for r in rs)
        beyond = [r["beyond_lines"] for r in rs if r["level"] and r["level"] > 1]
        ok = [r for r in rs if r["level"] is not None and not r["lines_timed_out"]]
        rho = spearman([r["level"] for r in ok], [r["lines_cpu_s"] for r in ok])
        print(f"| {s} | {len(rs)} | " + " | ".join(map(str, counts)) + f" | {unfinished} | "
              f"{statistics.median(beyond) if beyond else '–'} | {fmt_rho(rho)} |")
    tts = sa_tts()
    if tts:
        print()
        print("| janko size | puzzles in the release | rank correlation of level with `sa` TTS99 |")
        print("|---|---|---|")
        for size in ("10x10", "15x15", "20x20", "25x25", "30x30"):
            rs = [r for r in by.get(f"janko {size}", []) if r["name"] in tts
                  and r["level"] is not None]
            rho = spearman([r["level"] for r in rs], [tts[r["name"]] for r in rs])
            print(f"| {size} | {len(rs)} | {fmt_rho(rho)} |")
    cost = read("cost")
    latest = max((r.get("run", "") for r in cost), default="")
    cost = [r for r in cost if r.get("run", "") == latest]
    if cost:
        print()
        print("| janko 30x30 | puzzles | median ratio to `lines` [95 %] | geometric mean | "
              "ratio of totals | 90th percentile | puzzles at most 3x |")
        print("|---|---|---|---|---|---|---|")
        report_cost(cost)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("cost")
    c.add_argument("--limit", type=int, default=None)
    c.add_argument("--repeats", type=int, default=3)
    c.add_argument("--time-limit", type=float, default=60.0)
    lv = sub.add_parser("levels")
    lv.add_argument("--per-set", type=int, default=25)
    lv.add_argument("--time-limit", type=float, default=10.0)
    sub.add_parser("table")
    args = ap.parse_args(argv)
    {"cost": cmd_cost, "levels": cmd_levels, "table": cmd_table}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
