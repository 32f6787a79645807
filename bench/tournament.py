"""The TAAI / TCGA / ICGA tournament sets: ``lines``, ``cpsat`` and nonosolve side by side.

Tournament rules: the first solution of each puzzle (any grid that fits the clues counts; many
puzzles have several), one core (``cpsat`` with one worker; nonosolve is single-threaded), the
puzzles of a set in order, and a cap of CPU seconds per set and solver (``--cap``: once a
solver's CPU in a set passes it, its remaining puzzles of the set are recorded ``capped``,
unsolved). ``--unique`` measures the same way whether a second solution exists (``lines``
and ``cpsat`` with ``unique=True``, nonosolve ``-n 2``).

Each puzzle is run by every solver before the next puzzle starts (the solvers' order rotating
from puzzle to puzzle), so that a change in the machine's load falls on all of them alike:

* ``lines`` and ``cpsat``: in this process, ``solve_puzzle(puzzle, backend, time_limit=T,
  unique=...)`` timed by the package's CPU clock (:mod:`formulations.runtime.cputime`) around the call
  (the model build, the search and the clue check; reading the set excluded; one untimed call
  on the first puzzle first, so that imports are not charged to a puzzle);
* nonosolve: one process per puzzle (``nonosolve -n 1|2 --timeout T --format taai FILE``),
  CPU from ``wait4`` (user + system of the whole process: its start-up, about a millisecond, is
  included; nonosolve's own wall-clock ``time=`` is recorded beside). It is built from
  ``../shared/anchors/nonosolve`` (its ``build.sh``) into ``/tmp/nonosolve-build`` unless
  ``--nonosolve PATH`` names a binary.

Every grid is checked against the clues (the package's checker; nonosolve's printed grid too).
Records are appended one JSON line per puzzle and solver to
``bench/results/tournament/{first,unique}.jsonl``; a run that is stopped resumes where it was
(records with the same label, set, puzzle, solver and time limit are not run again). ``--label``
names a version of the code (a new label measures everything again, nonosolve included, so
that ratios always come from one run); ``--table`` prints the table of the records without
running anything.

After a set's puzzles nonosolve also runs them all in one process in its own tournament mode
(``--taai``; record ``nonosolve-batch``), CPU from ``wait4``: the set's CPU without a process
start per puzzle (about 7 ms each here), the fairer total to compare with.

The table, per set and solver: puzzles solved of those run, total CPU, median, 99th percentile
and worst CPU per puzzle (an unsolved puzzle counts its CPU until the limit), and the ratio of
total CPU to nonosolve's on the same puzzles: to its per-puzzle processes, then (after ``;``)
to its batch run.

    python bench/tournament.py --sets taai2011,tcga2016,icga2017 --every 10 --time-limit 30
    python bench/tournament.py --sets taai2011 --every 10 --solvers lines,nonosolve --label step2
    python bench/tournament.py --table
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
RECORDS = ROOT / "bench" / "results" / "tournament"
SOLVERS = ("lines", "cpsat", "nonosolve")
SET_DIR = "taai-tcga-icga-tournament"


# -- the puzzles ------------------------------------------------------------------------------

def set_files(corpus: Path, names: list[str] | None) -> list[Path]:
    """The question files of the chosen sets (all present ones if ``names`` is None)."""
    folder = corpus / SET_DIR / "question"
    files = sorted(folder.glob("*.txt")) if names is None else [folder / f"{n}.txt" for n in names]
    missing = [f for f in files if not f.is_file()]
    if missing:
        raise SystemExit(f"no set {missing[0].stem!r} under {folder}")
    return files


def taai_text(key: str, puzzle) -> str:
    """One puzzle in the tournament layout (columns, then rows), for nonosolve."""
    def line(clue) -> str:
        return "\t".join(str(b.length) for b in clue)
    return "\n".join([f"${key}", *map(line, puzzle.columns), *map(line, puzzle.rows)]) + "\n"


# -- the solvers ------------------------------------------------------------------------------

def run_inprocess(backend: str, puzzle, time_limit: float, unique: bool) -> dict:
    """One in-process solve, CPU-timed by the package's clock."""
    from formulations.runtime.cputime import cpu_seconds
    from formulations.puzzle import check_grid
    from formulations.solving import solve_puzzle

    c0, w0 = cpu_seconds(), time.perf_counter()
    try:
        res = solve_puzzle(puzzle, backend, time_limit=time_limit, unique=unique)
    except Exception as e:  # noqa: BLE001 - a record, not a crash of a long run
        return {"status": "error", "cpu_s": cpu_seconds() - c0,
                "wall_s": time.perf_counter() - w0, "message": f"{type(e).__name__}: {e}"}
    cpu, wall = cpu_seconds() - c0, time.perf_counter() - w0
    status = res.status.value
    if res.grid is not None:
        if check_grid(puzzle, res.grid):  # solve_puzzle checks too: a second, independent look
            return {"status": "error", "cpu_s": cpu, "wall_s": wall,
                    "message": "the grid fails the clues"}
        if unique:
            status = ("unique" if res.unique else "multiple" if res.unique is False
                      else "solved")
    return {"status": status, "cpu_s": cpu, "wall_s": wall}


def run_nonosolve(binary: Path, key: str, puzzle, time_limit: float, unique: bool,
                  workdir: Path) -> dict:
    """nonosolve on one puzzle in its own process; CPU from wait4, grid checked."""
    from formulations.puzzle import check_grid

    f = workdir / f"p{key}.taai"
    f.write_text(taai_text(key, puzzle))
    args = [str(binary), "-n", "2" if unique else "1", "--timeout", str(time_limit),
            "--format", "taai", str(f)]
    w0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=time_limit * 3 + 30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    wall = time.perf_counter() - w0
    # communicate() reaped the child; its rusage is in RUSAGE_CHILDREN: take the difference
    cpu = _child_cpu_delta()
    lines = out.splitlines()
    head = lines[0].split() if lines else []
    word = head[2] if len(head) > 2 else "ERROR"
    own = next((float(t[5:]) for t in head if t.startswith("time=")), None)
    sat = next((int(t[4:]) for t in head if t.startswith("sat=")), None)
    rec = {"cpu_s": cpu, "wall_s": wall, "own_s": own, "sat": sat}
    grid_lines = [x for x in lines[1:] if x and set(x) <= {"#", "."}]
    if word in ("FOUND", "UNIQUE", "MULTIPLE"):
        grid = tuple(tuple(int(c == "#") for c in x) for x in grid_lines[:puzzle.height])
        if check_grid(puzzle, grid):
            return {**rec, "status": "error", "message": "nonosolve's grid fails the clues"}
        status = {"FOUND": "solved", "UNIQUE": "unique", "MULTIPLE": "multiple"}[word]
        return {**rec, "status": status if unique else "solved"}
    status = {"NONE": "infeasible", "TIMEOUT": "unknown"}.get(word, "error")
    return {**rec, "status": status, **({"message": err.strip()[-200:]} if status == "error"
                                          else {})}


def run_nonosolve_batch(binary: Path, puzzles: list, time_limit: float, unique: bool,
                        workdir: Path) -> dict:
    """nonosolve's own tournament mode on the same puzzles in one process (``--taai``): the
    set's CPU without a process start per puzzle; its solutions file is checked."""
    from formulations.io.tournament import read_tournament_solutions
    from formulations.puzzle import check_grid

    q, sol, log = workdir / "set.taai", workdir / "set.sol", workdir / "set.log"
    q.write_text("".join(taai_text(k, p) for k, p in puzzles))
    args = [str(binary), "--taai", str(q), "-o", str(sol), "--log", str(log),
            "--timeout", str(time_limit)] + (["-n", "2"] if unique else [])
    w0 = time.perf_counter()
    subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - w0
    cpu = _child_cpu_delta()
    grids = read_tournament_solutions(sol)
    valid = sum(not check_grid(p, grids[k]) for k, p in puzzles if k in grids)
    return {"status": f"{valid}/{len(puzzles)}", "cpu_s": cpu, "wall_s": wall}


_last_children = [0.0]


def _child_cpu_delta() -> float:
    import resource
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    now = ru.ru_utime + ru.ru_stime
    delta, _last_children[0] = now - _last_children[0], now
    return delta


def find_nonosolve(given: str | None) -> Path | None:
    if given:
        return Path(given)
    out = Path("/tmp/nonosolve-build")
    binary = out / "bin" / "nonosolve"
    if binary.exists():
        return binary
    script = SHARED / "anchors" / "nonosolve" / "build.sh"
    if not script.exists() or shutil.which("g++") is None:
        return None
    print(f"building nonosolve into {out} (a few minutes)", file=sys.stderr)
    done = subprocess.run([str(script), str(out)], capture_output=True, text=True)
    return binary if done.returncode == 0 and binary.exists() else None


# -- records ----------------------------------------------------------------------------------

def records_path(unique: bool, folder: Path = RECORDS) -> Path:
    return folder / ("unique.jsonl" if unique else "first.jsonl")


def load_records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by a kill: that puzzle runs again
            continue
    return out


def record_key(r: dict) -> tuple:
    return (r["label"], r["set"], r["id"], r["solver"], r["time_limit"])


# -- the run ----------------------------------------------------------------------------------

def run(args: argparse.Namespace) -> None:
    from formulations.io.tournament import iter_tournament

    solvers = args.solvers.split(",")
    unknown = [s for s in solvers if s not in SOLVERS]
    if unknown:
        raise SystemExit(f"unknown solver {unknown[0]!r}: {', '.join(SOLVERS)}")
    binary = None
    if "nonosolve" in solvers:
        binary = find_nonosolve(args.nonosolve)
        if binary is None:
            raise SystemExit("no nonosolve: give --nonosolve PATH (build it with "
                             "../shared/anchors/nonosolve/build.sh /tmp/nonosolve-build)")
    path = records_path(args.unique, Path(args.records))
    path.parent.mkdir(parents=True, exist_ok=True)
    done = {record_key(r): r for r in load_records(path)}
    workdir = Path(tempfile.mkdtemp(prefix="tournament-"))
    _child_cpu_delta()
    warm: dict[str, bool] = {}
    try:
        with path.open("a") as out:
            for f in set_files(Path(args.corpus), args.sets.split(",") if args.sets else None):
                puzzles = list(iter_tournament(f))[args.start::args.every][:args.limit]
                for solver in solvers:  # imports and first-call costs, not timed
                    if solver != "nonosolve" and not warm.get(solver):
                        run_inprocess(solver, puzzles[0][1], args.time_limit, args.unique)
                        warm[solver] = True
                spent: dict[str, float] = defaultdict(float)
                for r in done.values():
                    if r["label"] == args.label and r["set"] == f.stem:
                        spent[r["solver"]] += r["cpu_s"]
                for k, (key, puzzle) in enumerate(puzzles):
                    order = solvers[k % len(solvers):] + solvers[:k % len(solvers)]
                    for solver in order:
                        rec = {"label": args.label, "set": f.stem, "id": key, "solver": solver,
                               "time_limit": args.time_limit}
                        if record_key(rec) in done:
                            continue
                        if spent[solver] >= args.cap:
                            rec.update(status="capped", cpu_s=0.0, wall_s=0.0)
                        elif solver == "nonosolve":
                            rec.update(run_nonosolve(binary, key, puzzle, args.time_limit,
                                                     args.unique, workdir))
                        else:
                            rec.update(run_inprocess(solver, puzzle, args.time_limit,
                                                     args.unique))
                        spent[solver] += rec["cpu_s"]
                        rec["load"] = round(os.getloadavg()[0], 2)
                        rec["at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                        out.write(json.dumps(rec) + "\n")
                        out.flush()
                        done[record_key(rec)] = rec
                    if args.progress and (k + 1) % args.progress == 0:
                        print(f"{f.stem}: {k + 1}/{len(puzzles)}", file=sys.stderr, flush=True)
                rec = {"label": args.label, "set": f.stem, "id": "*", "solver": "nonosolve-batch",
                       "time_limit": args.time_limit}
                if binary is not None and record_key(rec) not in done:
                    rec.update(run_nonosolve_batch(binary, puzzles, args.time_limit, args.unique,
                                                   workdir))
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                    done[record_key(rec)] = rec
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# -- the table --------------------------------------------------------------------------------

def quantile(xs: list[float], q: float) -> float:
    """The q-quantile by the nearest-rank rule (the 99th of 100 values is the 99th smallest)."""
    s = sorted(xs)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def table(records: list[dict], unique: bool, label: str | None) -> str:
    ok = {"unique", "multiple"} if unique else {"solved"}
    by: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for r in records:
        if label is None or r["label"] == label:
            by[(r["label"], r["set"], r["time_limit"])].setdefault(r["solver"], {})[r["id"]] = r
    rows = ["| label | set | solver | solved | total CPU s | median s | 99th pct s | worst s "
            "| CPU / nonosolve |", "|---|---|---|---|---|---|---|---|---|"]
    for (lab, s, _t), per in sorted(by.items()):
        ref = per.get("nonosolve", {})
        batch = per.get("nonosolve-batch", {}).get("*")
        for solver in SOLVERS:
            got = per.get(solver)
            if not got:
                continue
            ts = [r["cpu_s"] for r in got.values() if r["status"] != "capped"]
            solved = sum(r["status"] in ok for r in got.values())
            common = [i for i in got if i in ref]
            ratio = ""
            if solver != "nonosolve" and common:
                mine = sum(got[i]["cpu_s"] for i in common)
                theirs = sum(ref[i]["cpu_s"] for i in common)
                ratio = f"{mine / theirs:.2f}" + ("" if len(common) == len(got) else
                                                  f" (on {len(common)})")
                if batch and len(common) == len(got) == len(ref):
                    ratio += f"; {sum(r['cpu_s'] for r in got.values()) / batch['cpu_s']:.2f}"
            if solver == "nonosolve" and batch:
                ratio = f"batch: {batch['cpu_s']:.2f} s, {batch['status']} valid"
            rows.append(f"| {lab} | {s} | {solver} | {solved}/{len(got)} | {sum(ts):.2f} | "
                        f"{quantile(ts, .5):.4f} | {quantile(ts, .99):.3f} | {max(ts):.3f} | "
                        f"{ratio} |" if ts else f"| {lab} | {s} | {solver} | {solved}/{len(got)} "
                        "| | | | | |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", help="comma-separated set names (default: every set present)")
    ap.add_argument("--every", type=int, default=1, help="every k-th puzzle (default 1)")
    ap.add_argument("--start", type=int, default=0, help="first puzzle's index from 0")
    ap.add_argument("--limit", type=int, default=None, help="at most this many per set")
    ap.add_argument("--solvers", default=",".join(SOLVERS))
    ap.add_argument("--time-limit", type=float, default=30.0, help="per puzzle, seconds")
    ap.add_argument("--cap", type=float, default=7200.0,
                    help="CPU seconds per set and solver (the tournaments' 2 h)")
    ap.add_argument("--unique", action="store_true", help="prove or refute a second solution")
    ap.add_argument("--label", default="default", help="the code version the records are of")
    ap.add_argument("--corpus", default=str(SHARED / "corpus"))
    ap.add_argument("--nonosolve", help="nonosolve binary (default: build from the anchor)")
    ap.add_argument("--progress", type=int, default=0, help="print progress every N puzzles")
    ap.add_argument("--records", default=str(RECORDS), help="folder of the JSONL records")
    ap.add_argument("--table", action="store_true", help="only print the table of the records")
    args = ap.parse_args(argv)
    if not args.table:
        run(args)
    path = records_path(args.unique, Path(args.records))
    print(f"load average now {os.getloadavg()[0]:.1f}; records {path}")
    print(table(load_records(path), args.unique,
                None if args.table else args.label))


if __name__ == "__main__":
    main()
