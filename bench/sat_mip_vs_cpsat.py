"""``sat`` and ``mip`` against ``cpsat`` on the same puzzles, in one interleaved run (a benchmark,
not a test).

    nice python bench/sat_mip_vs_cpsat.py [--sets survey,minizinc,janko] [--janko N]
        [--janko-seed S] [--timeout S] [--repeats R] [--sides cpsat,sat,mip] [--only PATTERN]
        [--out CSV] [--summary]

Each side is a backend through the package (``solve_puzzle``: model build, the backend's
translation and search, the package's check of every grid), at the backend's defaults unless
the side says otherwise: ``NAME[/x|/nox][:key=value]...`` (``sat/x``,
``sat:card=totalizer:direct_max=8``), so the same script measures a backend's own choices.
Per puzzle, per repeat, the sides run in turn, their order rotated each repeat, each twice:
``first`` (a grid, ``unique=False``) and ``unique`` (the uniqueness verdict, ``unique=True``),
separate runs so that each has its own CPU time (process CPU of the whole call: the figure
that survives a busy machine; a worker process's CPU, ``mip``'s, counted in). Every run has the same time limit (``--timeout``), covering build
and search. ``ratio`` = the side's median CPU time / cpsat's on the same puzzle and mode, only when
both decided (a grid for ``first``; a verdict, or a proof of infeasibility, for ``unique``).

Sets: ``survey`` (the 29 webpbn puzzles of Wolter's survey, ``webpbn-survey-non``), ``minizinc``
(the MiniZinc benchmarks converted to ``.non``, 26), ``janko`` (``--janko`` puzzles drawn from
puzzlekit's janko JSON with ``random.Random(--janko-seed)``). Rows are appended to the CSV as each
(puzzle, side, mode) finishes and a rerun skips what the CSV holds, so Ctrl-C or a killed run
keeps everything written and resumes. ``--summary`` prints the table from the CSV: per set, mode
and side, the geometric mean of the ratios, and how many runs each side decided.
"""
from __future__ import annotations

import argparse
import csv
import fnmatch
import os
import sys
from pathlib import Path

from formulations.harness.studies.sat_mip import (
    FIELDS,
    RESULTS,
    parse_side,
    puzzles,
    run_one,
    summary,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="survey,minizinc,janko")
    ap.add_argument("--janko", type=int, default=20, help="janko puzzles drawn (default 20)")
    ap.add_argument("--janko-seed", type=int, default=20261203)
    ap.add_argument("--timeout", type=float, default=30.0, help="time limit per run, s")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--sides", default="cpsat,sat,mip")
    ap.add_argument("--modes", default="first,unique")
    ap.add_argument("--only", help="puzzle name pattern (fnmatch)")
    ap.add_argument("--out", type=Path, default=RESULTS / "sat_mip_vs_cpsat.csv")
    ap.add_argument("--summary", action="store_true", help="print the table from --out and stop")
    args = ap.parse_args(argv)
    sides = args.sides.split(",")
    modes = args.modes.split(",")
    if args.summary:
        return summary(args.out, sides)
    for spec in sides:
        parse_side(spec)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done: set[tuple[str, str, str, str, str]] = set()
    if args.out.exists():
        with args.out.open() as f:
            done = {(r["set"], r["puzzle"], r["side"], r["mode"], r["repeat"]) for r in csv.DictReader(f)}
    new = not args.out.exists()
    with args.out.open("a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        for set_name, name, p in puzzles(args.sets.split(","), args.janko, args.janko_seed):
            if args.only and not fnmatch.fnmatch(name, args.only):
                continue
            for rep in range(args.repeats):
                order = sides[rep % len(sides):] + sides[:rep % len(sides)]
                for mode in modes:
                    for spec in order:
                        if (set_name, name, spec, mode, str(rep)) in done:
                            continue
                        row = run_one(p, spec, mode, args.timeout)
                        row.update({"set": set_name, "puzzle": name, "size": f"{p.height}x{p.width}",
                                    "side": spec, "mode": mode, "repeat": rep,
                                    "timeout": args.timeout, "load1": round(os.getloadavg()[0], 2)})
                        w.writerow(row)
                        f.flush()
                        print(f"{set_name:8} {name:28} {mode:6} {spec:24} {row['status']:10} "
                              f"{row['cpu_s']:8.3f}s", flush=True)
    return summary(args.out, sides)


if __name__ == "__main__":
    sys.exit(main())
