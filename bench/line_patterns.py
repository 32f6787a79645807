"""CP-SAT with and without the redundant line patterns (a benchmark, not a test):

    python bench/line_patterns.py [--set survey|hard|janko] [--repeats 3] [--time-limit 60]

Per puzzle, interleaved run by run, ``solve_puzzle(p, "cpsat", unique=True)`` and the same with
``line_patterns=True`` (each line's clue automaton posted as ``AddAutomaton`` next to the order
encoding's linear constraints, ``formulations.model.patterns``), in this process after one
warm-up solve; the median wall time of each and their ratio, and the geometric mean of the
ratios over the puzzles both decide. Writes ``bench/results/line_patterns_<set>.csv``.
Sets: ``survey`` (the webpbn survey's 29 ``.non`` files), ``hard`` (its five hard ones:
#9892, #10088, #12548, #18297, #22336), ``janko`` (40 seeded janko puzzles).
"""
from __future__ import annotations

import argparse
import csv
import math
import random
import statistics
import sys
import time
from pathlib import Path

from formulations.io import iter_janko, read_puzzle
from formulations.solving import solve_puzzle

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
HARD = ("webpbn-09892", "webpbn-10088", "webpbn-12548", "webpbn-18297", "webpbn-22336")


def puzzles(name: str):
    survey = CORPUS / "webpbn-survey-non"
    if name in ("survey", "hard"):
        for path in sorted(survey.glob("*.non")):
            if name == "survey" or path.stem in HARD:
                yield path.stem, read_puzzle(path)
        return
    janko = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
    items = list(iter_janko(janko))
    random.Random(2026).shuffle(items)
    for key, puzzle, *_ in items[:40]:
        yield key, puzzle


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", default="survey", choices=["survey", "hard", "janko"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args(argv)
    out = ROOT / "bench" / "results" / f"line_patterns_{args.set}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    solve_puzzle(read_puzzle(ROOT / "puzzles" / "cat15.txt"), "cpsat", unique=True,
                 line_patterns=True)  # imports and first-call costs out of the timing
    rows, ratios = [], []
    for name, p in puzzles(args.set):
        times: dict[bool, list[float]] = {False: [], True: []}
        verdict: dict[bool, str] = {}
        for _ in range(args.repeats):
            for pat in (False, True):
                t0 = time.perf_counter()
                r = solve_puzzle(p, "cpsat", unique=True, time_limit=args.time_limit,
                                 line_patterns=pat)
                times[pat].append(time.perf_counter() - t0)
                verdict[pat] = ({True: "unique", False: "multiple"}.get(r.unique, "undecided")
                                if r.solved else r.status.value)
            if {"unknown", "undecided"} & set(verdict.values()):
                break  # a run that hit the limit is not repeated
        med = {k: statistics.median(v) for k, v in times.items()}
        both = all(v in ("unique", "multiple", "infeasible") for v in verdict.values())
        ratio = med[True] / med[False] if both else None
        if ratio:
            ratios.append(ratio)
        rows.append({"puzzle": name, "size": f"{p.height}x{p.width}", "plain_s": round(med[False], 4),
                     "plain": verdict[False], "patterns_s": round(med[True], 4),
                     "patterns": verdict[True], "ratio": None if ratio is None else round(ratio, 3)})
        print(f"{name:<16} {p.height}x{p.width:<4} plain {med[False]:8.3f} s {verdict[False]:<9} "
              f"patterns {med[True]:8.3f} s {verdict[True]:<9} ratio "
              f"{'-' if ratio is None else f'{ratio:.2f}'}", flush=True)
    with out.open("w", newline="") as f:
        w = csv.DictWriter(f, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    if ratios:
        gm = math.exp(statistics.fmean(math.log(x) for x in ratios))
        print(f"\npatterns / plain over {len(ratios)} puzzles both decide: geometric mean "
              f"{gm:.3f}, best {min(ratios):.2f}, worst {max(ratios):.2f}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
