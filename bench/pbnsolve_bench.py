"""The ``lines`` backend side by side with pbnsolve 1.10 (Jan Wolter's C solver, the reference of
the webpbn survey), both deciding uniqueness.

pbnsolve is built from its anchor folder (``../shared/anchors/pbnsolve/``, its ``build.sh``) into
``bench/results/pbnsolve-build/`` unless ``--pbnsolve PATH`` names a binary. Each puzzle is run
``--repeats`` times, the solvers interleaved (pbnsolve, then every ``lines`` variant, then again),
each run in a fresh process at the same niceness; a run that ends without a verdict is not
repeated. Times are medians:

* pbnsolve: the whole process (``pbnsolve -u -b FILE``): wall clock, and CPU from ``wait4``;
* ``lines``: in-process, the call ``solve_puzzle(puzzle, "lines", unique=True, time_limit=T)``
  (search, uniqueness and the clue check; reading the file and importing the package and the
  backend's module excluded),
  wall clock and the process's CPU time around it. ``--variants`` runs several guess rules
  (``probability,pbnsolve,balanced,simpson,tight``), ``--lines-option KEY=VALUE`` passes
  more options (``sprints=true``, ``backjump=true``, ``probing=false``).

Sets (``--sets``): ``survey`` (the webpbn survey: its 29 ``.non`` files plus Wolter's knotty and
faase XML), ``minizinc`` (the MiniZinc benchmarks converted to ``.non``), ``janko`` (60 puzzles of
puzzlekit's janko JSON, 10 from each size bin 10x10, 15x15, 20x20, 25x25, 30x30 and other, drawn
with ``random.Random(20240601)``, written as ``.non`` under ``bench/results/janko60/``), and
``cauldron`` (dejoue's 512x512 line-solvable ``cauldron.non``, also run through the model
backends of ``--presolve-backends`` with ``presolve=True``).

Writes ``bench/results/pbnsolve_<time>.csv`` (one row per run), ``..._medians.csv`` (one row per
puzzle and solver) and ``..._summary.txt``: per set and variant the solved counts, the geometric
mean and the worst of the ratio ``lines / pbnsolve`` over the puzzles both decide (wall and CPU),
the puzzles only one side decides, and the named hard cases.

    python bench/pbnsolve_bench.py --sets survey,minizinc,janko,cauldron --repeats 3
    python bench/pbnsolve_bench.py --sets survey --variants probability,pbnsolve,balanced,tight
    python bench/pbnsolve_bench.py --sets minizinc --only dom_08,non_med_2 --repeats 1
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path


def run_worker(spec: dict, path: Path, limit: float, nice: int) -> dict:
    """One solve in a fresh child (this script's ``--worker``), its peak memory from wait4."""
    from formulations.harness.studies.pbnsolve import run_child

    argv = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec), str(path),
            str(limit)]
    wall, cpu, rss, out, killed = run_child(argv, limit + 60, nice)
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            got = json.loads(line)
            got["rss_kb"] = rss
            return got
    return {"verdict": "none", "wall_s": wall, "cpu_s": cpu, "rss_kb": rss,
            "note": ("killed" if killed else "crashed: ") + out[-200:].replace("\n", " | ")}


def worker(spec_json: str, path: str, limit: str) -> None:
    """In a child: read the puzzle, then time one solve_puzzle call in-process."""
    from formulations.io import read_puzzle
    from formulations.lines import clear_cache
    from formulations.results import Status
    from formulations.solving import solve_puzzle

    from formulations.backends import get_backend

    spec = json.loads(spec_json)
    backend = spec.pop("backend")
    puzzle = read_puzzle(path)
    get_backend(backend).prepare({k: v for k, v in spec.items() if k != "presolve"})
    import formulations.model.presolve  # noqa: F401  (imports are not part of the solve)
    clear_cache()
    unique = backend in ("lines", "cpsat")
    t0, c0 = time.perf_counter(), time.process_time()
    res = solve_puzzle(puzzle, backend, unique=unique, time_limit=float(limit), **spec)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if res.status is Status.SOLVED:
        verdict = {True: "unique", False: "multiple"}.get(res.unique, "solved")
    elif res.status is Status.INFEASIBLE:
        verdict = "infeasible"
    else:
        verdict = "none"
    print(json.dumps({"verdict": verdict, "wall_s": wall, "cpu_s": cpu, "note": res.message or "",
                      "nodes": res.info.get("nodes"), "probes": res.info.get("probes")}))


# -- the run and its summary --------------------------------------------------------------------

def solvers(args) -> list[tuple[str, dict]]:
    """(column name, worker spec) of every ``lines`` variant asked for."""
    extra = {}
    for kv in args.lines_option:
        k, _, v = kv.partition("=")
        extra[k] = {"true": True, "false": False}.get(v.lower(), v)
    out = []
    for g in args.variants.split(","):
        name = "lines" if len(args.variants.split(",")) == 1 and not extra else f"lines[{g}]"
        out.append((name, {"backend": "lines", "guess": g, **extra}))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="survey,minizinc,janko,cauldron")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--variants", default="hybrid",
                    help="lines guess rules to run, comma separated (default hybrid, the default rule)")
    ap.add_argument("--lines-option", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--presolve-backends", default="cpsat,sa",
                    help="model backends run with presolve=True on the cauldron set")
    ap.add_argument("--only", default="", help="puzzle names (file stems), comma separated")
    ap.add_argument("--pbnsolve", default=None, help="a pbnsolve binary (default: build it)")
    ap.add_argument("--anchor", default=None, help="default: shared/anchors/pbnsolve beside the "
                    "checkout")
    ap.add_argument("--corpus", default=None, help="default: shared/corpus beside the checkout")
    ap.add_argument("--nice", type=int, default=10, help="niceness of every child (default 10)")
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return 0
    # imported only here: a worker's peak memory is its solve's, not the study's imports'
    from formulations.harness.studies.pbnsolve import (
        RESULTS,
        SHARED,
        find_pbnsolve,
        puzzle_sets,
        run_pbnsolve,
        summarise,
    )

    args.anchor = args.anchor or str(SHARED / "anchors" / "pbnsolve")
    args.corpus = args.corpus or str(SHARED / "corpus")
    RESULTS.mkdir(parents=True, exist_ok=True)
    binary = find_pbnsolve(args.pbnsolve, Path(args.anchor))
    if binary is None:
        print(f"no pbnsolve: {args.anchor}/build.sh not found and no --pbnsolve given; "
              "running lines alone", file=sys.stderr)
    puzzles = puzzle_sets(Path(args.corpus), [s.strip() for s in args.sets.split(",") if s.strip()])
    if args.only:
        keep = set(args.only.split(","))
        puzzles = [p for p in puzzles if p[1] in keep]
    ours = solvers(args)
    extra_backends = [(f"{b}+presolve", {"backend": b, "presolve": True})
                      for b in args.presolve_backends.split(",") if b]
    names = (["pbnsolve"] if binary else []) + [n for n, _ in ours] + [n for n, _ in extra_backends]
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out_csv = RESULTS / f"pbnsolve_{stamp}.csv"
    fields = ["set", "puzzle", "solver", "repeat", "verdict", "wall_s", "cpu_s", "rss_kb", "nodes",
              "probes", "note"]
    rows: list[dict] = []
    try:
        with out_csv.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            for n, (s, name, path) in enumerate(puzzles, 1):
                todo = ([("pbnsolve", None)] if binary else []) + ours
                if s == "cauldron":
                    todo += extra_backends
                done: set[str] = set()
                for rep in range(args.repeats):
                    for solver, spec in todo:
                        if solver in done:
                            continue
                        if spec is None:
                            got = run_pbnsolve(binary, path, args.time_limit, args.nice)
                        else:
                            got = run_worker(dict(spec), path, args.time_limit, args.nice)
                        row = {"set": s, "puzzle": name, "solver": solver, "repeat": rep, **got}
                        rows.append(row)
                        w.writerow(row)
                        fh.flush()
                        if got["verdict"] == "none":
                            done.add(solver)  # no verdict: a repeat would only cost the limit
                        print(f"[{n}/{len(puzzles)} {s}] {name} {solver} #{rep}: {got['verdict']} "
                              f"{got['wall_s']:.3f} s wall, {got['cpu_s']:.3f} s CPU", flush=True)
    except KeyboardInterrupt:
        print("\ninterrupted: summary of what was measured")
    med, lines = summarise(rows, names)
    med_csv = out_csv.with_name(out_csv.stem + "_medians.csv")
    with med_csv.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(med[0]) if med else ["set"])
        w.writeheader()
        w.writerows(med)
    text = "\n".join([f"pbnsolve bench {stamp}: {args.repeats} repeats, {args.time_limit:g} s "
                      f"limit, niceness {args.nice}, pbnsolve {binary}"] + lines)
    out_csv.with_name(out_csv.stem + "_summary.txt").write_text(text + "\n")
    print("\n" + text)
    print(f"\nrows: {out_csv}\nmedians: {med_csv}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
