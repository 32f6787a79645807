"""Paired CPU of the ``lines`` backend with the Python search before the CDCL fallback
(``compiled=False``) and with the compiled search (``compiled=True``, the default): every
puzzle is solved by both variants in one process, their order alternating, CPU by
``time.process_time``, every grid checked against the clues (docs/line_core.md, "A compiled
search (issue 42, fourth step)").

    python bench/compiled_search_paired.py --sets taai2011,tcga2016,icga2017 --every 10
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from formulations.io import read_puzzles
from formulations.puzzle import check_grid
from formulations.solving import solve_puzzle

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "taai-tcga-icga-tournament" / "question"


def run(p, compiled: bool, time_limit: float, probes: int | None, unique: bool = False) -> dict:
    t = time.process_time()
    budget = {} if probes is None else {"compiled_probes": probes}
    r = solve_puzzle(p, "lines", time_limit=time_limit, compiled=compiled, unique=unique,
                     **budget)
    cpu = time.process_time() - t
    ok = r.grid is not None and not check_grid(p, r.grid)
    if unique:  # decided: a second solution found (and checked), or none proved
        ok = ok and r.unique is not None
        if r.second_grid is not None:
            ok = ok and not check_grid(p, r.second_grid)
    info = r.info if isinstance(r.info, dict) else {}
    return {"cpu": cpu, "status": r.status.name, "ok": ok, "unique": r.unique,
            "cdcl": bool(info.get("cdcl")),
            "nodes": info.get("nodes"), "probes": info.get("probes")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="taai2011,tcga2016,icga2017")
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--probes", type=int, default=None, help="compiled_probes (default: shipped)")
    ap.add_argument("--restart-base", type=int, default=None,
                    help="search.COMPILED_RESTART_BASE (default: shipped)")
    ap.add_argument("--order", type=int, default=None, help="search.COMPILED_ORDER (default: shipped)")
    ap.add_argument("--unique", action="store_true",
                    help="prove or refute a second solution (max_solutions=2)")
    ap.add_argument("--out", default=None, help="JSON lines of per-puzzle records")
    a = ap.parse_args()
    from formulations.lines import search
    if a.restart_base is not None:
        search.COMPILED_RESTART_BASE = a.restart_base
    if a.order is not None:
        search.COMPILED_ORDER = a.order
    probes = a.probes  # None: the shipped budget of the mode (first solution or uniqueness)
    warm = next(iter(read_puzzles(CORPUS / "taai2011.txt")))
    run(warm, False, a.time_limit, probes)
    run(warm, True, a.time_limit, probes)
    out = open(a.out, "w") if a.out else None
    print("| set | puzzles | old CPU s | new CPU s | new / old | old worst s | new worst s "
          "| old without SAT | new without SAT | all grids checked |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in a.sets.split(","):
        ps = list(read_puzzles(CORPUS / f"{name}.txt"))[::a.every]
        recs = []
        for k, p in enumerate(ps):
            got = {}
            for compiled in ((False, True) if k % 2 == 0 else (True, False)):
                got[compiled] = run(p, compiled, a.time_limit, probes, a.unique)
            rec = {"set": name, "index": k * a.every, "unique": a.unique, "old": got[False],
                   "new": got[True]}
            recs.append(rec)
            if out:
                out.write(json.dumps(rec) + "\n")
                out.flush()
        old = [r["old"] for r in recs]
        new = [r["new"] for r in recs]
        to, tn = sum(r["cpu"] for r in old), sum(r["cpu"] for r in new)
        wo = max(recs, key=lambda r: r["old"]["cpu"])
        wn = max(recs, key=lambda r: r["new"]["cpu"])
        if a.unique:
            assert all(r["old"]["unique"] == r["new"]["unique"] for r in recs), "verdicts differ"
        print(f"| {name} | {len(recs)} | {to:.2f} | {tn:.2f} | {tn / to:.2f} "
              f"| {wo['old']['cpu']:.2f} (#{wo['index']}) | {wn['new']['cpu']:.2f} (#{wn['index']}) "
              f"| {sum(not r['cdcl'] for r in old)} | {sum(not r['cdcl'] for r in new)} "
              f"| {all(r['ok'] for r in old + new)} |", flush=True)


if __name__ == "__main__":
    main()
