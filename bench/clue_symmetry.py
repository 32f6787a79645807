"""CP-SAT with and without the clue-symmetry phase (a benchmark, not a test):

    python bench/clue_symmetry.py [--set symmetric|hard|survey] [--repeats 3] [--time-limit 60]

The ``cpsat`` backend's ``clue_symmetry`` (on by default) first looks for a solution invariant
under the flips and rotations that map the clues onto themselves (``formulations.model.symmetry``),
then decides uniqueness on the full model with it excluded. This measures what it costs and
what it gains: per puzzle, interleaved run by run, ``solve_puzzle(p, "cpsat", unique=True)``
with ``clue_symmetry=True`` and ``False``, in this process after one warm-up solve; the median
wall time of each, the verdicts, and their ratio (on / off), with the geometric mean over the
puzzles both decide. Writes ``bench/results/clue_symmetry_<set>.csv``.

Sets (read by path from ``../shared/corpus``, never copied): ``symmetric``: every webpbn survey
puzzle, every janko puzzle and Wolter's Knotty whose clues have a symmetry (the others run
exactly as before: the phase is skipped); ``hard``: the survey's hard five (#9892, #10088,
#12548, #18297, #22336; #12548 has symmetric clues); ``survey``: all 29 survey ``.non`` files.
"""
from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import time
from pathlib import Path

from formulations.io import iter_janko, read_puzzle
from formulations.model.symmetry import clue_symmetries
from formulations.solving import solve_puzzle

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
HARD = ("webpbn-09892", "webpbn-10088", "webpbn-12548", "webpbn-18297", "webpbn-22336")


def puzzles(name: str):
    survey = sorted((CORPUS / "webpbn-survey-non").glob("*.non"))
    if name in ("survey", "hard"):
        for path in survey:
            if name == "survey" or path.stem in HARD:
                yield path.stem, read_puzzle(path)
        return
    for path in survey:
        p = read_puzzle(path)
        if clue_symmetries(p):
            yield path.stem, p
    knotty = CORPUS / "wolter-survey-xml" / "knotty.xml"
    if knotty.is_file():
        yield "knotty", read_puzzle(knotty)
    janko = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
    if janko.is_file():
        for key, p, *_ in iter_janko(janko):
            if clue_symmetries(p):
                yield key, p


def verdict_of(r) -> str:
    if r.solved:
        return {True: "unique", False: "multiple"}.get(r.unique, "undecided")
    return r.status.value


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", default="symmetric", choices=["symmetric", "hard", "survey"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args(argv)
    out = ROOT / "bench" / "results" / f"clue_symmetry_{args.set}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    solve_puzzle(read_puzzle(ROOT / "puzzles" / "cat15.txt"), "cpsat", unique=True)  # warm-up
    rows, ratios = [], []
    for name, p in puzzles(args.set):
        syms = [s.name for s in clue_symmetries(p)]
        times: dict[bool, list[float]] = {True: [], False: []}
        verdict: dict[bool, str] = {}
        found: dict[bool, object] = {}
        for _ in range(args.repeats):
            for on in (True, False):
                t0 = time.perf_counter()
                r = solve_puzzle(p, "cpsat", unique=True, time_limit=args.time_limit,
                                 clue_symmetry=on)
                times[on].append(time.perf_counter() - t0)
                verdict[on] = verdict_of(r)
                found[on] = (r.info.get("clue_symmetry") or {}).get("status")
            if {"unknown", "undecided"} & set(verdict.values()):
                break  # a run that hit the limit is not repeated
        med = {k: statistics.median(v) for k, v in times.items()}
        both = all(v in ("unique", "multiple", "infeasible") for v in verdict.values())
        ratio = med[True] / med[False] if both else None
        if ratio:
            ratios.append(ratio)
        rows.append({"puzzle": name, "size": f"{p.height}x{p.width}", "symmetries": "+".join(syms),
                     "invariant_search": found[True], "on_s": round(med[True], 4),
                     "on": verdict[True], "off_s": round(med[False], 4), "off": verdict[False],
                     "ratio": None if ratio is None else round(ratio, 3)})
        print(f"{name:<16} {p.height}x{p.width:<4} {'+'.join(syms) or '-':<28} "
              f"on {med[True]:8.3f} s {verdict[True]:<9} ({found[True]}) "
              f"off {med[False]:8.3f} s {verdict[False]:<9} ratio "
              f"{'-' if ratio is None else f'{ratio:.2f}'}", flush=True)
    if not rows:
        print("no puzzles (is ../shared/corpus there?)", file=sys.stderr)
        return 2
    with out.open("w", newline="") as f:
        w = csv.DictWriter(f, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    if ratios:
        gm = math.exp(statistics.fmean(math.log(x) for x in ratios))
        print(f"\non / off over {len(ratios)} puzzles both decide: geometric mean {gm:.3f}, "
              f"best {min(ratios):.2f}, worst {max(ratios):.2f}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
