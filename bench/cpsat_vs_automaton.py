"""CP-SAT on the order-encoded model against a CP-SAT ``AddAutomaton`` yardstick (a benchmark, not a test).

    python3 bench/cpsat_vs_automaton.py [--repeats N] [--timeout S] [--janko-sample K]
                                        [--only PATTERN] [--out CSV] [--sets survey,janko,wolter]
                                        [--variants nox,x,nox_block,x_block]

Ours goes through the package (``build_model`` + the ``cpsat`` backend, unique=True, one
worker), with the model without x (``nox``, the backend's default) or with x (``x``), deciding
uniqueness by one search enumerating until a second grid or exhaustion (the backend's default),
or by excluding the first grid and solving again (``_block`` variants, ``unique_by=exclude``,
the method the foundation issue specifies). The yardstick is built here: one ``AddAutomaton``
per row and column over the cells' BoolVars (DFA ``0* 1^b1 0+ 1^b2 ... 0*``), one worker, run
two ways: ``automaton`` by one enumerating search stopped at the second solution,
``automaton_block`` by the method of ``../shared/corpus/baseline_timings_this_machine.tsv``
(solve, add a blocking clause on the cells, solve again). Every side gets the same per-run
time limit covering model build and search, and every grid any side returns goes through
``check_grid``.

Times are medians over the runs; ``ratio`` = our median total / the median total of the
yardstick that uses the same method (``automaton`` for ours, ``automaton_block`` for ours_*_block),
``ratio_block`` the same against ``automaton_block`` whatever our method, ``ratio_solver``
compares CP-SAT's own search clock only against the same-method yardstick (no Python model
building or translation on either side); all taken in the same run of the script and reported only when both decided uniqueness. A side
that times out is not run again on that puzzle, and a side slower than ``--single-above`` is
run once, so that hard puzzles do not eat the budget. Rows are appended to the CSV as each
puzzle finishes, so Ctrl-C keeps everything written so far. The machine is shared: absolute
times move with the load (logged per row), ratios from interleaved runs less so.
"""
from __future__ import annotations

import argparse
import csv
import fnmatch
import math
import os
import signal
from pathlib import Path

from formulations.harness.studies.automaton_yardstick import (
    AUTO,
    AUTO_BLOCK,
    FIELDS,
    RESULTS,
    VARIANTS,
    RATIOS,
    compare,
    fmt,
    janko_puzzles,
    run_automaton,
    run_ours,
    survey_puzzles,
    wolter_puzzles,
)
from formulations.puzzle import Puzzle


def _interrupt(*_) -> None:
    """SIGTERM stops like Ctrl-C: the rows already written stay."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0, help="per run, both sides (s)")
    ap.add_argument("--janko-sample", type=int, default=40)
    ap.add_argument("--only", default=None, help="fnmatch pattern (or substring) on puzzle names")
    ap.add_argument("--out", default=None, help="CSV path (default bench/results/cpsat_vs_automaton.csv)")
    ap.add_argument("--sets", default="survey,janko,wolter", help="comma list of survey,janko,wolter")
    ap.add_argument("--variants", default="nox,x,nox_block",
                    help="comma list of our sides: x / nox (model with / without x, uniqueness by "
                         "one enumerating search), x_block / nox_block (by exclude and re-solve)")
    ap.add_argument("--single-above", type=float, default=20.0,
                    help="a side whose run took longer than this is not repeated (s)")
    args = ap.parse_args(argv)

    variants = [v for v in args.variants.split(",") if v]
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v!r} ({', '.join(VARIANTS)})")
    sets = [s for s in args.sets.split(",") if s]
    out = Path(args.out) if args.out else RESULTS / "cpsat_vs_automaton.csv"
    out.parent.mkdir(parents=True, exist_ok=True)

    def wanted(name: str) -> bool:
        if not args.only:
            return True
        return fnmatch.fnmatch(name, args.only) or args.only in name

    sources = {"survey": survey_puzzles, "wolter": wolter_puzzles,
               "janko": lambda: janko_puzzles(args.janko_sample)}
    todo = [(s, n, load) for s in sets for s, n, load in sources[s]() if wanted(n)]
    print(f"{len(todo)} puzzles, repeats={args.repeats}, timeout={args.timeout}s, variants={variants}, "
          f"csv={out}", flush=True)

    signal.signal(signal.SIGTERM, _interrupt)
    warm = Puzzle.from_clues([[1], []], [[1], []])  # imports and first-call costs off the clock
    run_automaton(warm, 5.0), run_automaton(warm, 5.0, "block"), run_ours(warm, True, 5.0)
    # ratio kind -> variant -> [(puzzle, ratio)]
    kinds = dict(zip(RATIOS.values(), RATIOS))
    table: dict[str, dict[str, list[tuple[str, float]]]] = {k: {v: [] for v in variants} for k in kinds.values()}
    done: list[tuple[str, str, dict[str, dict]]] = []
    new_file = not out.exists() or out.stat().st_size == 0
    with out.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        if new_file:
            writer.writeheader()
            fh.flush()
        try:
            for set_name, name, load in todo:
                puzzle = load()
                summ = compare(puzzle, variants, args.timeout, args.repeats, args.single_above)
                auto, block = summ[AUTO], summ[AUTO_BLOCK]
                load1 = os.getloadavg()[0]
                size = f"{puzzle.height}x{puzzle.width}"
                for side, d in summ.items():
                    r = {key: d[key] for key in RATIOS}
                    for key, val in r.items():
                        if val is not None:
                            table[key][side[5:]].append((name, val))
                    writer.writerow({
                        "set": set_name, "puzzle": name, "size": size, "side": side,
                        "runs": d["runs"], "status": d["status"], "unique": d["unique"],
                        "build_s": fmt(d["build_s"], 4), "first_s": fmt(d["first_s"], 4),
                        "total_s": fmt(d["total_s"], 4), "solver_s": fmt(d["solver_s"], 4),
                        "cpu_s": fmt(d["cpu_s"], 4), "build_cpu_s": fmt(d["build_cpu_s"], 4),
                        **{key: fmt(val) for key, val in r.items()},
                        "total_all": d["total_all"], "variables": d["variables"],
                        "constraints": d["constraints"], "timeout": args.timeout,
                        "load1": f"{load1:.2f}", "note": d["note"]})
                fh.flush()
                done.append((set_name, name, summ))
                parts = [f"auto {auto['status']} {fmt(auto['total_s'], 3)}s",
                         f"block {block['status']} {fmt(block['total_s'], 3)}s"]
                for v in variants:
                    d = summ[f"ours_{v}"]
                    parts.append(f"{v} {d['status']} {fmt(d['total_s'], 3)}s r={fmt(d['ratio'], 2) or '-'} "
                                 f"r_block={fmt(d['ratio_block'], 2) or '-'} r_solver={fmt(d['ratio_solver'], 2) or '-'}")
                print(f"[{len(done)}/{len(todo)}] {set_name} {name} {size}: " + " | ".join(parts)
                      + f" (load {load1:.1f})", flush=True)
        except KeyboardInterrupt:
            print("\ninterrupted: rows of finished puzzles are in the CSV", flush=True)

    print(f"\nrows in {out}")
    for v in variants:
        for what, key in kinds.items():
            for set_name in sorted({s for s, _, _ in done}) + ["all"]:
                names = {n for s, n, _ in done if set_name in ("all", s)}
                rs = [r for n, r in table[key][v] if n in names]
                if rs:
                    gm = math.exp(sum(math.log(r) for r in rs) / len(rs))
                    print(f"ours_{v} {what} {set_name}: geometric mean ratio ours/automaton = {gm:.3f} "
                          f"over {len(rs)} puzzles (min {min(rs):.2f}, max {max(rs):.2f})")
    for set_name in sorted({s for s, _, _ in done}):
        rows = [(n, summ) for s, n, summ in done if s == set_name]
        for side in [AUTO, AUTO_BLOCK] + [f"ours_{v}" for v in variants]:
            ok = [n for n, summ in rows if summ[side]["decided"]]
            print(f"{set_name}: {side} decided uniqueness within {args.timeout:g}s on "
                  f"{len(ok)}/{len(rows)}"
                  + ("" if len(ok) == len(rows) else
                     f"; not: {', '.join(n for n, summ in rows if not summ[side]['decided'])}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
