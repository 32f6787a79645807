"""What the deduction trace costs and what its difficulty level says (``bench/explain_bench.py``):
the corpus sets rated, the records, the CPU of one call, bootstrap intervals, Spearman's rank
correlation and the docs' tables."""
from __future__ import annotations

import gzip
import json
import math
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ...lines import clear_cache
from ...puzzle import Puzzle, make_clue
from ..study import REPO

CORPUS = REPO.parent / "shared" / "corpus"   # read by path, never copied


JANKO = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"


TOURNAMENT = CORPUS / "taai-tcga-icga-tournament" / "question"


RELEASE = REPO / "bench" / "results" / "release" / "records.jsonl.gz"


OUT = REPO / "bench" / "results" / "explain"


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


def janko(sizes: set[tuple[int, int]] | None = None) -> Iterator[tuple[str, Puzzle]]:
    """janko's puzzles (of ``sizes`` when given)."""
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
    """(set, name, puzzle) of every corpus set rated, at most ``MAX_CELLS`` cells each."""
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


def append(rows: list[dict]) -> None:
    """Add rows to the records (one JSON object a line, gzip)."""
    OUT.mkdir(parents=True, exist_ok=True)
    with gzip.open(RECORDS, "at") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def read(kind: str) -> list[dict]:
    """The records of one kind (``cost`` or ``level``)."""
    if not RECORDS.exists():
        return []
    with gzip.open(RECORDS, "rt") as f:
        return [r for r in map(json.loads, f) if r.get("kind") == kind]


def cpu(fn: Callable[[], Any]) -> float:
    """CPU seconds of one call, the memo of settled lines emptied first."""
    clear_cache()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def bootstrap(values: np.ndarray, stat, n: int = 2000, seed: int = 1) -> tuple[float, float]:
    """The 95 % percentile bootstrap interval of ``stat`` over ``values``."""
    rng = np.random.default_rng(seed)
    got = [stat(values[rng.integers(0, len(values), len(values))]) for _ in range(n)]
    return float(np.nanpercentile(got, 2.5)), float(np.nanpercentile(got, 97.5))


def report_cost(rows: list[dict]) -> list[str]:
    """Prints (and returns) the cost table's rows: the trace's CPU against ``lines``'."""
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


def spearman(x, y) -> tuple[float, float, float, int]:
    """Spearman's rho with its 95 % bootstrap interval and n (nan below ``MIN_RHO`` puzzles)."""
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
    """A correlation as the table prints it."""
    rho, lo, hi, n = r
    return "–" if math.isnan(rho) else f"{rho:+.2f} [{lo:+.2f}, {hi:+.2f}] (n={n})"


def print_tables() -> None:
    """The docs' tables from the records: levels per set with the rank correlation of level
    and ``lines``' CPU, the correlation with ``sa``'s TTS99, and the latest cost run."""
    rows = read("level")
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[r["set"]].append(r)
    order = sorted(by, key=lambda s: (s.startswith("tournament"), not s.startswith("janko"), s))
    print("| set | puzzles | level 1 | 2 | 3 | 4 | 5 | not finished | median cells beyond "
          "line logic (levels 2-5) | rank correlation of level with `lines` CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    # the tournament sets in three rows (few puzzles each): by competition, then all
    tour: dict[str, list[str]] = {}
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
