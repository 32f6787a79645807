"""Paired CPU of the ``lines`` backend with two settings of the compiled search (Luby restart
base, probe budget before the CDCL fallback, first colour, whether a first solution's CDCL
starts from the root as the search narrowed it; ``formulations.lines.search``):
every puzzle is solved with both in one process, their order alternating, CPU by the
package's clock (``cpu_seconds``: the CDCL fallback's worker process included), every grid checked against the clues, and whether the CDCL fallback was
reached recorded (docs/line_core.md, "Stable mode, and where the time still goes").

    python bench/search_params_paired.py --old 0:200000:3 --new 300:200000:3 --every 10 \\
        --out records.jsonl    # all tournament sets; RESTART_BASE:PROBES:ORDER[:NARROWED]

Resumes: puzzles already in ``--out`` with the same two settings are not solved again.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from formulations.analysis.stats import total_ratio_interval
from formulations.io.tournament import iter_tournament
from formulations.lines import search
from formulations.puzzle import check_grid
from formulations.runtime.cputime import cpu_seconds

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "taai-tcga-icga-tournament" / "question"


def parse_setting(text: str) -> tuple[int, int, int, int]:
    """``RESTART_BASE:PROBES:ORDER[:NARROWED]`` (search.COMPILED_RESTART_BASE, compiled_probes,
    search.COMPILED_ORDER, search.CDCL_FIRST_FROM_NARROWED; 0 when left out)."""
    fields = [int(x) for x in text.split(":")]
    if len(fields) not in (3, 4):
        raise SystemExit(f"a setting is RESTART_BASE:PROBES:ORDER[:NARROWED], not {text!r}")
    base, probes, order, narrowed = (fields + [0])[:4]
    return base, probes, order, narrowed


def run(p, setting: tuple[int, int, int, int], time_limit: float) -> dict:
    base, probes, order, narrowed = setting
    search.COMPILED_RESTART_BASE, search.COMPILED_ORDER = base, order
    search.CDCL_FIRST_FROM_NARROWED = bool(narrowed)
    t = cpu_seconds()
    r = search.solve_lines(p, time_limit=time_limit, compiled_probes=probes)
    cpu = cpu_seconds() - t
    ok = bool(r.solutions) and not check_grid(p, r.solutions[0])
    return {"cpu": cpu, "status": r.status.name, "ok": ok, "cdcl": r.cdcl, "nodes": r.nodes,
            "probes": r.probes}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="0:200000:3")
    ap.add_argument("--new", default="300:200000:3")
    ap.add_argument("--sets", default=None, help="comma-separated set names (default: all)")
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--out", required=True, help="JSON lines of per-puzzle records (appended)")
    a = ap.parse_args()
    old, new = parse_setting(a.old), parse_setting(a.new)
    names = a.sets.split(",") if a.sets else sorted(f.stem for f in CORPUS.glob("*.txt"))
    out_path = Path(a.out)
    done = set()
    if out_path.exists():
        for line in out_path.read_text().splitlines():
            r = json.loads(line)
            if r["old_setting"] == a.old and r["new_setting"] == a.new:
                done.add((r["set"], r["id"]))
    first = next(iter(iter_tournament(CORPUS / f"{names[0]}.txt")))[1]
    run(first, old, a.time_limit)  # imports and first-call costs, not timed
    run(first, new, a.time_limit)
    with out_path.open("a") as out:
        for name in names:
            for k, (key, p) in enumerate(list(iter_tournament(CORPUS / f"{name}.txt"))[::a.every]):
                if (name, key) in done:
                    continue
                got = {}
                for which in (("old", "new") if k % 2 == 0 else ("new", "old")):
                    got[which] = run(p, old if which == "old" else new, a.time_limit)
                out.write(json.dumps({"set": name, "id": key, "old_setting": a.old,
                                      "new_setting": a.new, **got}) + "\n")
                out.flush()
    recs = [json.loads(x) for x in out_path.read_text().splitlines()]
    recs = [r for r in recs if r["old_setting"] == a.old and r["new_setting"] == a.new
            and r["set"] in names]
    print(f"old {a.old}, new {a.new}: RESTART_BASE:PROBES:ORDER[:NARROWED]")
    print("| set | puzzles | old CPU s | new CPU s | new / old | old worst s | new worst s "
          "| old / new reach CDCL | all grids checked |")
    print("|---|---|---|---|---|---|---|---|---|")
    grand = [0.0, 0.0]
    for name in names:
        rs = [r for r in recs if r["set"] == name]
        if not rs:
            continue
        to, tn = sum(r["old"]["cpu"] for r in rs), sum(r["new"]["cpu"] for r in rs)
        grand[0] += to
        grand[1] += tn
        print(f"| {name} | {len(rs)} | {to:.2f} | {tn:.2f} | {tn / to:.2f} "
              f"| {max(r['old']['cpu'] for r in rs):.2f} | {max(r['new']['cpu'] for r in rs):.2f} "
              f"| {sum(r['old']['cdcl'] for r in rs)} / {sum(r['new']['cdcl'] for r in rs)} "
              f"| {all(r['old']['ok'] and r['new']['ok'] for r in rs)} |")
    lo, _, hi = total_ratio_interval([(r["old"]["cpu"], r["new"]["cpu"]) for r in recs])
    print(f"all: old {grand[0]:.2f} s, new {grand[1]:.2f} s, new / old {grand[1] / grand[0]:.3f} "
          f"(95 % bootstrap interval over puzzles {lo:.3f}-{hi:.3f})")



if __name__ == "__main__":
    main()
