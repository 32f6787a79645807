"""The compiled line core against the previous pure-Python engine (a copy of the package kept
outside the repository, ``--old``) and pbnsolve: same verdicts and grids, and CPU time.

Each engine runs every chosen puzzle in one worker process (``solve_lines(puzzle,
max_solutions=2, time_limit=T)``, the settled-line memo cleared before each puzzle, CPU time of
the call with ``time.process_time``); the engines alternate, round after round (``--repeats``),
and pbnsolve (``pbnsolve -u -b FILE``, CPU from ``wait4``, as in ``bench/pbnsolve_bench.py``)
runs once per puzzle and round in between. Times are medians over the rounds.

Printed: every puzzle whose verdict (solved / infeasible / unknown, exhausted or not) or set of
solutions differs between the engines (none expected), then per set the geometric means of
new / old and new / pbnsolve and a table of medians.

    python bench/engine_compare.py --old /work/wt/core-old --sets survey,minizinc,janko --repeats 3
    python bench/engine_compare.py --old /work/wt/core-old --sets survey --no-pbnsolve --repeats 1
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path


def worker(tree: str, listing: str, limit: float) -> None:
    """In a child: import the package from ``tree`` and solve every listed puzzle."""
    sys.path.insert(0, tree)
    import formulations
    from formulations.io import read_puzzle
    from formulations.lines import clear_cache, solve_lines

    assert Path(formulations.__file__).resolve().is_relative_to(Path(tree).resolve())
    for path in Path(listing).read_text().splitlines():
        p = read_puzzle(path)
        clear_cache()
        t0 = time.process_time()
        r = solve_lines(p, max_solutions=2, time_limit=limit)
        cpu = time.process_time() - t0
        sols = sorted(hashlib.sha1(repr(g).encode()).hexdigest()[:16] for g in r.solutions)
        print(json.dumps({"path": path, "status": r.status.value, "exhausted": r.exhausted,
                          "timed_out": r.timed_out, "solutions": sols, "nodes": r.nodes,
                          "probes": r.probes, "cpu_s": cpu}), flush=True)


def run_engine(tree: Path, listing: Path, limit: float, nice: int) -> dict[str, dict]:
    argv = ["nice", "-n", str(nice), sys.executable, __file__, "--worker", str(tree),
            str(listing), str(limit)]
    out = subprocess.run(argv, capture_output=True, text=True, cwd="/")
    rows = {}
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            got = json.loads(line)
            rows[got["path"]] = got
    if out.returncode:
        print(f"worker {tree} failed: {out.stderr[-500:]}", file=sys.stderr)
    return rows


def verdict(row: dict | None) -> str:
    if row is None:
        return "missing"
    if row["timed_out"]:
        return "unknown"
    if row["status"] == "infeasible":
        return "infeasible"
    return "unique" if len(row["solutions"]) == 1 and row["exhausted"] else "multiple"


def gmean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", help="a tree holding the previous formulations/")
    ap.add_argument("--new", default=None, help="the tree of the new engine (default: the installed "
                    "package's checkout)")
    ap.add_argument("--sets", default="survey,minizinc,janko")
    ap.add_argument("--only", default="")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--corpus", default=None, help="default: shared/corpus beside the checkout")
    ap.add_argument("--pbnsolve", default=None)
    ap.add_argument("--no-pbnsolve", action="store_true")
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], float(args.worker[2]))
        return 0
    # imported only here: a worker must import the package from the tree it is given, not
    # this one
    from formulations.harness.studies.pbnsolve import (
        RESULTS,
        SHARED,
        find_pbnsolve,
        puzzle_sets,
        run_pbnsolve,
    )
    from formulations.harness.study import REPO

    args.new = args.new or str(REPO)
    args.corpus = args.corpus or str(SHARED / "corpus")
    if not args.old:
        ap.error("--old (the previous engine's tree) is required")
    only = set(filter(None, args.only.split(",")))
    chosen = [(s, n, f) for s, n, f in puzzle_sets(Path(args.corpus), args.sets.split(","))
              if not only or n in only]
    RESULTS.mkdir(parents=True, exist_ok=True)
    listing = RESULTS / "engine_compare_puzzles.txt"
    listing.write_text("\n".join(str(f) for _, _, f in chosen) + "\n")
    binary = None if args.no_pbnsolve else find_pbnsolve(args.pbnsolve,
                                                          SHARED / "anchors" / "pbnsolve")
    runs: dict[str, list[dict]] = defaultdict(list)
    engines = {"old": Path(args.old), "new": Path(args.new)}
    for rnd in range(args.repeats):
        order = ["old", "new"] if rnd % 2 == 0 else ["new", "old"]
        for name in order:
            t0 = time.perf_counter()
            for path, row in run_engine(engines[name], listing, args.time_limit, args.nice).items():
                runs[(name, path)].append(row)
            print(f"round {rnd + 1}: {name} engine {time.perf_counter() - t0:.1f} s",
                  file=sys.stderr)
        if binary is not None:
            for _, _, f in chosen:
                got = run_pbnsolve(binary, f, args.time_limit, args.nice)
                runs[("pbnsolve", str(f))].append({"verdict": got["verdict"], "cpu_s": got["cpu_s"]})
    bad = 0
    for s, n, f in chosen:
        a, b = runs.get(("old", str(f)), [None])[0], runs.get(("new", str(f)), [None])[0]
        if a is None or b is None or verdict(a) != verdict(b) or (a and b and a["solutions"] != b["solutions"]):
            bad += 1
            print(f"DIFFERENT {s} {n}: old {verdict(a)} {a and a['solutions']}, "
                  f"new {verdict(b)} {b and b['solutions']}")
    print(f"{len(chosen)} puzzles, {bad} with a different verdict or different solutions")

    def med(name: str, f: Path) -> float | None:
        rows = runs.get((name, str(f)), [])
        ok = [r["cpu_s"] for r in rows if (r.get("verdict") or verdict(r)) not in ("unknown", "none")]
        return statistics.median(ok) if ok and len(ok) == len(rows) else None

    print("\n| set | puzzle | old s | compiled s | pbnsolve s | compiled/old | compiled/pbnsolve |")
    print("|---|---|---|---|---|---|---|")
    per_set: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))
    for s, n, f in chosen:
        o, c, p = med("old", f), med("new", f), med("pbnsolve", f)
        r1 = c / o if c and o else None
        r2 = c / max(p, 1e-3) if c and p is not None else None
        if r1:
            per_set[s][0].append(r1)
        if r2:
            per_set[s][1].append(r2)
        fmt = lambda x, d=3: "-" if x is None else f"{x:.{d}f}"  # noqa: E731
        print(f"| {s} | {n} | {fmt(o)} | {fmt(c)} | {fmt(p)} | {fmt(r1, 2)} | {fmt(r2, 2)} |")
    print("\n| set | puzzles | geomean compiled/old | geomean compiled/pbnsolve | worst compiled/pbnsolve |")
    print("|---|---|---|---|---|")
    for s, (r1, r2) in per_set.items():
        print(f"| {s} | {len(r1)} | {gmean(r1):.2f} | {gmean(r2):.2f} | "
              f"{max(r2) if r2 else float('nan'):.2f} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
