"""Two builds of the line engine (``--old``: a copy of the package kept outside the repository,
or ``--old-rev REV``: the package at a git revision, its C extensions compiled here) against
each other and pbnsolve: same verdicts and grids, and CPU time.

Each engine runs every chosen puzzle in one worker process (``solve_lines(puzzle,
max_solutions=2, time_limit=T)``, or ``max_solutions=1`` with ``--first``; the settled-line
memo cleared before each puzzle, CPU time of the call: this process and its waited-for
children, the CDCL fallback's worker included); the engines alternate, round after round
(``--repeats``),
and pbnsolve (``pbnsolve -u -b FILE``, CPU from ``wait4``, as in ``bench/pbnsolve_bench.py``)
runs once per puzzle and round in between. Times are medians over the rounds.

Printed: every puzzle whose verdict (solved / infeasible / unknown, exhausted or not) or set of
solutions differs between the engines (none expected), then per set the geometric means of
new / old and new / pbnsolve and a table of medians.

    python bench/engine_compare.py --old /work/wt/core-old --sets survey,minizinc,janko --repeats 3
    python bench/engine_compare.py --old /work/wt/core-old --sets survey --no-pbnsolve --repeats 1
    python bench/engine_compare.py --old-rev HEAD~1 [--new-rev HEAD] --sets tournament:20 --first \
        --no-pbnsolve

``tournament:N`` is every Nth puzzle of each TAAI / TCGA / ICGA tournament set (issue 42).
With ``--first`` a differing grid is no fault in itself (many tournament puzzles have several
solutions); the search counters (nodes, probes) are compared instead, and a build change that
only makes the same search faster keeps them equal.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import io
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path


def cpu_now() -> float:
    """CPU of this process and its waited-for children (the package's clock, which an old tree
    may not have)."""
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ru.ru_utime + ru.ru_stime


def worker(tree: str, listing: str, limit: float, max_solutions: int) -> None:
    """In a child: import the package from ``tree`` and solve every listed puzzle."""
    sys.path.insert(0, tree)
    import formulations
    from formulations.io import read_puzzle
    from formulations.lines import clear_cache, solve_lines

    assert Path(formulations.__file__).resolve().is_relative_to(Path(tree).resolve())
    for path in Path(listing).read_text().splitlines():
        p = read_puzzle(path)
        clear_cache()
        t0 = cpu_now()
        r = solve_lines(p, max_solutions=max_solutions, time_limit=limit)
        cpu = cpu_now() - t0
        sols = sorted(hashlib.sha1(repr(g).encode()).hexdigest()[:16] for g in r.solutions)
        print(json.dumps({"path": path, "status": r.status.value, "exhausted": r.exhausted,
                          "timed_out": r.timed_out, "solutions": sols, "nodes": r.nodes,
                          "probes": r.probes, "cpu_s": cpu}), flush=True)


def build_tree(rev: str, repo: Path) -> Path:
    """The package at git revision ``rev`` in a temporary folder, its C extensions compiled
    with setup.py's flags (the installed setuptools may be too old to build it)."""
    tree = Path(tempfile.mkdtemp(prefix="engine-old-"))
    archive = subprocess.run(["git", "-C", str(repo), "archive", rev, "formulations"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    include = sysconfig.get_paths()["include"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    cc = shutil.which("gcc") or shutil.which("cc") or "cc"
    # the interpreter's own flags, as setuptools passes them (-fwrapv, -O3, ...), then
    # setup.py's extra ones, so that both sides of a comparison are compiled alike
    base = (sysconfig.get_config_var("CFLAGS") or "").split()
    base += (sysconfig.get_config_var("CCSHARED") or "-fPIC").split()
    extra = {"_core": ["-O3", "-mpopcnt"], "_bp": ["-O3", "-ffp-contract=off"]}
    for src in sorted((tree / "formulations" / "lines").glob("*.c")):
        flags = base + extra.get(src.stem, ["-O3"])
        subprocess.run([cc, *flags, "-shared", f"-I{include}", str(src), "-o",
                        str(src.with_name(src.stem + suffix))], check=True)
    return tree


def tournament_files(corpus: Path, every: int) -> list[tuple[str, str, str]]:
    """(set, puzzle, ``FILE::KEY``) for every ``every``-th puzzle of each tournament set."""
    from formulations.io.tournament import iter_tournament

    out = []
    for f in sorted((corpus / "taai-tcga-icga-tournament" / "question").glob("*.txt")):
        for key, _ in list(iter_tournament(f))[::every]:
            out.append((f.stem, key, f"{f}::{key}"))
    return out


def run_engine(tree: Path, listing: Path, limit: float, nice: int,
               max_solutions: int) -> dict[str, dict]:
    argv = ["nice", "-n", str(nice), sys.executable, __file__, "--worker", str(tree),
            str(listing), str(limit), str(max_solutions)]
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
    ap.add_argument("--old-rev", help="or a git revision of this checkout, built here")
    ap.add_argument("--new-rev", help="the new engine at a git revision too, built alike")
    ap.add_argument("--first", action="store_true",
                    help="a first solution (max_solutions=1) instead of uniqueness")
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
    ap.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], float(args.worker[2]), int(args.worker[3]))
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
    built = []
    if args.old_rev:
        args.old = str(build_tree(args.old_rev, REPO))
        built.append(Path(args.old))
    if args.new_rev:
        args.new = str(build_tree(args.new_rev, REPO))
        built.append(Path(args.new))
    if not args.old:
        ap.error("--old (the previous engine's tree) or --old-rev is required")
    max_solutions = 1 if args.first else 2
    only = set(filter(None, args.only.split(",")))
    names = args.sets.split(",")
    chosen: list = []
    for name in [n for n in names if n.startswith("tournament")]:
        chosen += tournament_files(Path(args.corpus), int(name.partition(":")[2] or 10))
    chosen += puzzle_sets(Path(args.corpus), [n for n in names if not n.startswith("tournament")])
    chosen = [(s, n, f) for s, n, f in chosen if not only or n in only]
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
            for path, row in run_engine(engines[name], listing, args.time_limit, args.nice,
                                        max_solutions).items():
                runs[(name, path)].append(row)
            print(f"round {rnd + 1}: {name} engine {time.perf_counter() - t0:.1f} s",
                  file=sys.stderr)
        if binary is not None:
            for _, _, f in chosen:
                if "::" in str(f):
                    continue
                got = run_pbnsolve(binary, f, args.time_limit, args.nice)
                runs[("pbnsolve", str(f))].append({"verdict": got["verdict"], "cpu_s": got["cpu_s"]})
    def med(name: str, f: Path) -> float | None:
        rows = runs.get((name, str(f)), [])
        ok = [r["cpu_s"] for r in rows if (r.get("verdict") or verdict(r)) not in ("unknown", "none")]
        return statistics.median(ok) if ok and len(ok) == len(rows) else None

    bad = 0
    for s, n, f in chosen:
        a, b = runs.get(("old", str(f)), [None])[0], runs.get(("new", str(f)), [None])[0]
        same = (a and b and (a["solutions"] == b["solutions"] if not args.first
                             else (a["nodes"], a["probes"]) == (b["nodes"], b["probes"])))
        if a is None or b is None or verdict(a) != verdict(b) or not same:
            bad += 1
            key = ("nodes", "probes") if args.first else ("solutions",)
            print(f"DIFFERENT {s} {n}: old {verdict(a)} {a and [a[k] for k in key]}, "
                  f"new {verdict(b)} {b and [b[k] for k in key]}")
    print(f"{len(chosen)} puzzles, {bad} with a different verdict or different "
          f"{'search counters' if args.first else 'solutions'}")
    complete = [f for _, _, f in chosen  # puzzles every round of both engines reported
                if all(len(runs.get((name, str(f)), [])) == args.repeats for name in ("old", "new"))]
    totals = {name: [sum(runs[(name, str(f))][k]["cpu_s"] for f in complete)
                     for k in range(args.repeats)] for name in ("old", "new")}
    print(f"{len(complete)} of {len(chosen)} puzzles reported by every round")
    print("total CPU s per round: old " + ", ".join(f"{x:.2f}" for x in totals["old"])
          + "; new " + ", ".join(f"{x:.2f}" for x in totals["new"]))
    from formulations.analysis.stats import total_ratio_interval

    lo, mid, hi = total_ratio_interval([(o, n) for o, n in ((med("old", f), med("new", f))
                                                            for _, _, f in chosen)
                                        if o is not None and n is not None])
    print(f"new / old, total of the per-puzzle medians: {mid:.3f} (95 % bootstrap interval "
          f"over puzzles {lo:.3f}-{hi:.3f})")

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
    for tree in built:
        shutil.rmtree(tree, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
