"""Benchmark of the ``lines`` backend's engine (fixed point, probing, search) on the corpus.

Sets (``--set``, default ``all``):

* ``janko``   every puzzle of puzzlekit's janko JSON, each answer checked against its solution;
* ``survey``  the webpbn survey ``.non`` files, ``--time-limit`` (default 60 s) each;
* ``seed000`` the yardsticks of seed 000 (its Python ``propagate_bt``: ~16 ms for two 15x15
  puzzles, ~187 ms for a 25x25): janko's 15x15 and 25x25 puzzles that line solving alone does
  not finish (seed 000's needed "a handful of guesses"), plus all 15x15 and 25x25 for context.

One progress line per puzzle; Ctrl-C stops cleanly and keeps what was measured. Rows go to
``bench/results/lines_<set>_<time>.csv`` (git-ignored) as they are produced.

    python bench/lines_bench.py --set survey --time-limit 60
    python bench/lines_bench.py --set janko --limit 200 --unique
"""
from __future__ import annotations

import argparse
import csv
import time

from formulations.harness.studies.line_engine import (
    FIELDS,
    JANKO,
    RESULTS,
    SURVEY,
    janko,
    run_one,
    seed000,
    summarise,
    survey,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", choices=["janko", "survey", "seed000", "all"], default="all")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per puzzle (default 60)")
    ap.add_argument("--limit", type=int, default=None, help="first N puzzles of each set")
    ap.add_argument("--unique", action="store_true", help="also prove uniqueness (search for a second)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each puzzle N times and keep the fastest (noisy shared machines)")
    ap.add_argument("--quiet", action="store_true", help="no progress line per puzzle")
    args = ap.parse_args(argv)
    sets = ["seed000", "janko", "survey"] if args.set == "all" else [args.set]
    sources = {"janko": janko, "survey": survey, "seed000": seed000}
    needs = {"janko": JANKO, "survey": SURVEY, "seed000": JANKO}
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out_path = RESULTS / f"lines_{args.set}_{stamp}.csv"
    all_rows: dict[str, list[dict]] = {}
    try:
        with out_path.open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=FIELDS)
            writer.writeheader()
            for kind in sets:
                if not needs[kind].exists():
                    print(f"skip {kind}: {needs[kind]} not found")
                    continue
                rows = all_rows.setdefault(kind, [])
                for n, (name, p, goal) in enumerate(sources[kind](args.limit), 1):
                    row = run_one(kind, name, p, goal, args.time_limit, args.unique, args.repeat)
                    rows.append(row)
                    writer.writerow(row)
                    fh.flush()
                    if not args.quiet:
                        print(f"[{kind} {n}] {name} {p.height}x{p.width}: {row['status']} "
                              f"{row['check']} {1000 * row['time_s']:.1f} ms "
                              f"(fp {row['fixed_point']}, nodes {row['nodes']}, probes {row['probes']})",
                              flush=True)
    except KeyboardInterrupt:
        print("\ninterrupted: summary of what was measured")
    for kind, rows in all_rows.items():
        summarise(kind, rows)
    print(f"\nrows written to {out_path}")
    wrong = sum(r["check"] in ("WRONG", "differs") for rows in all_rows.values() for r in rows)
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
