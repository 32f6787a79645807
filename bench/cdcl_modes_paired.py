"""Paired CPU of the ``lines`` backend with two ways of solving the residual puzzle that the
compiled search hands to the CDCL fallback (``formulations.lines.cdcl.NAMED_MODES``): every
puzzle is solved with both in one process, their order alternating, CPU by the package's
clock (:func:`formulations.runtime.cputime.cpu_seconds`: this process and its joined workers,
so that a mode solving in a worker is timed like one solving in place), every grid checked
against the clues (docs/line_core.md, "The residual solver (issue 42, fifth step)").

    python bench/cdcl_modes_paired.py --old starts-glucose --new order-cadical \\
        --sets taai2011,tcga2016,icga2017 --every 10 --out records.jsonl
    python bench/cdcl_modes_paired.py --unique --old order-glucose \\
        --new order-cadical-stable-all-worker-bp-turns --time-limit 30 \\
        --files ../shared/corpus/wolter-survey-xml/knotty.xml,...

With ``--files`` each row is one puzzle and names both verdicts (old / new: True unique,
False not, None undecided within the limit).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from formulations.io import read_puzzles
from formulations.lines import cdcl
from formulations.puzzle import check_grid
from formulations.runtime.cputime import cpu_seconds
from formulations.solving import solve_puzzle

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "taai-tcga-icga-tournament" / "question"


def run(p, mode: cdcl.Mode, unique: bool, time_limit: float) -> dict:
    cdcl.MODES[unique] = mode
    t = cpu_seconds()
    r = solve_puzzle(p, "lines", time_limit=time_limit, unique=unique)
    cpu = cpu_seconds() - t
    ok = r.grid is not None and not check_grid(p, r.grid)
    if unique:  # every grid found checks (whether it was decided is ``unique``: None if not)
        ok = (r.grid is None or ok) and (r.second_grid is None or not check_grid(p, r.second_grid))
    info = r.info if isinstance(r.info, dict) else {}
    return {"cpu": cpu, "status": r.status.name, "ok": ok, "unique": r.unique,
            "cdcl": bool(info.get("cdcl"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="starts-glucose", choices=sorted(cdcl.NAMED_MODES))
    ap.add_argument("--new", default="order-cadical", choices=sorted(cdcl.NAMED_MODES))
    ap.add_argument("--new-slice", type=float, default=None,
                    help="the new mode's aimed CPU per slice (default: the mode's)")
    ap.add_argument("--sets", default="taai2011,tcga2016,icga2017")
    ap.add_argument("--files", default="",
                    help="comma-separated puzzle files, each a row of its own, instead of --sets "
                         "(say Knotty, Faase and the MiniZinc puzzles, with --unique)")
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--unique", action="store_true",
                    help="prove or refute a second solution (max_solutions=2)")
    ap.add_argument("--out", default=None, help="JSON lines of per-puzzle records (appended)")
    a = ap.parse_args()
    old, new = cdcl.NAMED_MODES[a.old], cdcl.NAMED_MODES[a.new]
    if a.new_slice is not None:
        new = dataclasses.replace(new, slice_s=a.new_slice)
    warm = next(iter(read_puzzles(CORPUS / "taai2011.txt")))
    run(warm, old, a.unique, a.time_limit)
    run(warm, new, a.unique, a.time_limit)
    out = open(a.out, "a") if a.out else None
    print(f"old {a.old}, new {a.new}{'' if a.new_slice is None else f' (slice {a.new_slice} s)'}"
          f"{', uniqueness' if a.unique else ''}")
    print("| set | puzzles | old CPU s | new CPU s | new / old | old worst s | new worst s "
          "| reach CDCL | all grids checked |")
    print("|---|---|---|---|---|---|---|---|---|")
    grand = [0.0, 0.0]
    rows = ([(Path(f).stem, Path(f), 1) for f in a.files.split(",")] if a.files else
            [(name, CORPUS / f"{name}.txt", a.every) for name in a.sets.split(",")])
    for name, path, every in rows:
        ps = list(read_puzzles(path))[::every]
        recs = []
        for k, p in enumerate(ps):
            got = {}
            for which in (("old", "new") if k % 2 == 0 else ("new", "old")):
                got[which] = run(p, old if which == "old" else new, a.unique, a.time_limit)
            rec = {"set": name, "index": k * every, "unique": a.unique, "old_mode": a.old,
                   "new_mode": a.new, "new_slice": a.new_slice, **got}
            recs.append(rec)
            if out:
                out.write(json.dumps(rec) + "\n")
                out.flush()
        to = sum(r["old"]["cpu"] for r in recs)
        tn = sum(r["new"]["cpu"] for r in recs)
        grand[0] += to
        grand[1] += tn
        wo = max(recs, key=lambda r: r["old"]["cpu"])
        wn = max(recs, key=lambda r: r["new"]["cpu"])
        if a.unique:  # where both decided (one may have met the time limit)
            assert all(r["old"]["unique"] == r["new"]["unique"] for r in recs
                       if None not in (r["old"]["unique"], r["new"]["unique"])), "verdicts differ"
        verdicts = "" if not a.files else f" ({recs[0]['old']['unique']} / {recs[0]['new']['unique']})"
        print(f"| {name}{verdicts} | {len(recs)} | {to:.2f} | {tn:.2f} | {tn / to:.2f} "
              f"| {wo['old']['cpu']:.2f} (#{wo['index'] + 1}) | {wn['new']['cpu']:.2f} "
              f"(#{wn['index'] + 1}) | {sum(r['new']['cdcl'] for r in recs)} "
              f"| {all(r['old']['ok'] and r['new']['ok'] for r in recs)} |", flush=True)
    print(f"all: old {grand[0]:.2f} s, new {grand[1]:.2f} s, new / old {grand[1] / grand[0]:.3f}")


if __name__ == "__main__":
    main()
