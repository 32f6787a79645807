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
import math
import os
import random
import resource
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from formulations.backends import get_backend
from formulations.io import iter_janko, read_puzzle
from formulations.puzzle import Puzzle, check_grid
from formulations.results import BackendError, Status
from formulations.solving import solve_puzzle

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("NONOGRAM_CORPUS", ROOT.parent / "shared" / "corpus"))
if not CORPUS.exists():
    CORPUS = Path("/work/shared/corpus")
RESULTS = ROOT / "bench" / "results"
FIELDS = ["set", "puzzle", "size", "side", "mode", "repeat", "status", "unique", "cpu_s",
          "wall_s", "solver_s", "timeout", "load1", "note"]
MODES = ("first", "unique")


def puzzles(sets: list[str], janko: int, seed: int) -> Iterator[tuple[str, str, Puzzle]]:
    for s in sets:
        if s == "survey":
            for f in sorted((CORPUS / "webpbn-survey-non").glob("*.non")):
                yield s, f.stem, read_puzzle(f)
        elif s == "minizinc":
            for f in sorted((CORPUS / "minizinc-benchmarks-nonogram" / "converted-non").glob("*.non")):
                yield s, f.stem, read_puzzle(f)
        elif s == "janko":
            path = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
            if not path.exists():
                continue
            found = {key: p for key, p, _ in iter_janko(path)}
            for key in sorted(random.Random(seed).sample(sorted(found), min(janko, len(found)))):
                yield s, key, found[key]
        else:
            raise SystemExit(f"unknown set {s!r}: survey, minizinc, janko")


def parse_side(spec: str) -> tuple[str, bool | None, dict[str, Any]]:
    """``NAME[/x|/nox][:key=value]...`` as (backend, use_x, options)."""
    head, *pairs = spec.split(":")
    name, _, variant = head.partition("/")
    use_x = {"": None, "x": True, "nox": False}.get(variant)
    if variant and use_x is None:
        raise SystemExit(f"side {spec!r}: the variant after / is x or nox")
    opts = dict(p.split("=", 1) for p in pairs)
    get_backend(name).prepare(opts)  # unknown backend, option or value: fail now
    return name, use_x, opts


def cpu_now() -> float:
    """CPU seconds of this process and of its ended children (``mip`` solves in a worker)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def run_one(puzzle: Puzzle, spec: str, mode: str, timeout: float) -> dict[str, Any]:
    name, use_x, opts = parse_side(spec)
    c0, w0 = cpu_now(), time.perf_counter()
    note = ""
    try:
        r = solve_puzzle(puzzle, name, use_x=use_x, unique=(mode == "unique"),
                         time_limit=timeout, **opts)
        status, unique, solver_s, note = r.status.value, r.unique, r.solve_s, r.message[:80]
        if r.status is Status.SOLVED and check_grid(puzzle, r.grid):
            status, note = "error", "grid breaks the clues"
    except BackendError as exc:
        status, unique, solver_s, note = "refused", None, None, str(exc)[:80]
    except Exception as exc:  # a backend's bug: recorded, the run goes on
        status, unique, solver_s, note = "error", None, None, f"{type(exc).__name__}: {exc}"[:80]
    cpu, wall = cpu_now() - c0, time.perf_counter() - w0
    return {"status": status, "unique": unique, "cpu_s": round(cpu, 4), "wall_s": round(wall, 4),
            "solver_s": None if solver_s is None else round(solver_s, 4), "note": note}


def decided(row: dict[str, Any]) -> bool:
    if row["status"] == "infeasible":
        return True
    if row["status"] != "solved":
        return False
    return row["mode"] == "first" or row["unique"] not in ("", "None", None)


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


def summary(path: Path, sides: list[str]) -> int:
    """Per set and mode: each side's runs decided and its geometric-mean CPU ratio to cpsat
    (over the puzzles both decided), with the median CPU time of the puzzles both decided."""
    with path.open() as f:
        rows = list(csv.DictReader(f))
    base = "cpsat"
    med: dict[tuple[str, str, str, str], tuple[float, bool]] = {}
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["set"], r["puzzle"], r["side"], r["mode"]), []).append(r)
    for key, rs in groups.items():
        ok = [float(r["cpu_s"]) for r in rs if decided(r)]
        med[key] = (statistics.median(ok), True) if ok else (float("nan"), False)
    all_sides = [s for s in sides if any(k[2] == s for k in med)] or sorted({k[2] for k in med})
    print(f"\n{'set':9}{'mode':7}{'side':26}{'decided':>9}{'both':>6}{'geomean ratio':>15}"
          f"{'median cpu s':>14}{'cpsat median':>14}")
    for set_name in ("survey", "minizinc", "janko"):
        for mode in MODES:
            names = sorted({k[1] for k in med if k[0] == set_name and k[3] == mode})
            if not names:
                continue
            for side in all_sides:
                have = [n for n in names if (set_name, n, side, mode) in med]
                dec = sum(med[(set_name, n, side, mode)][1] for n in have)
                both = [n for n in have if med[(set_name, n, side, mode)][1]
                        and med.get((set_name, n, base, mode), (0, False))[1]]
                ratios = [max(med[(set_name, n, side, mode)][0], 1e-4)
                          / max(med[(set_name, n, base, mode)][0], 1e-4) for n in both]
                gm = math.exp(statistics.fmean(map(math.log, ratios))) if ratios else float("nan")
                ms = statistics.median([med[(set_name, n, side, mode)][0] for n in both]) if both else float("nan")
                mb = statistics.median([med[(set_name, n, base, mode)][0] for n in both]) if both else float("nan")
                print(f"{set_name:9}{mode:7}{side:26}{dec:>5}/{len(have):<3}{len(both):>6}"
                      f"{gm:>15.2f}{ms:>14.3f}{mb:>14.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
