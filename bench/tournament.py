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
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from formulations.harness.studies.tournament import (
    RECORDS,
    SHARED,
    SOLVERS,
    child_cpu_delta,
    find_nonosolve,
    load_records,
    record_key,
    records_path,
    run_inprocess,
    run_nonosolve,
    run_nonosolve_batch,
    set_files,
    table,
)


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
    child_cpu_delta()
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
