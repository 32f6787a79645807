"""Ways of solving a first solution's CDCL residual (``formulations.lines.cdcl.NAMED_MODES``)
compared on the residuals themselves, paired: each tournament puzzle that reaches the CDCL
fallback is taken as far as ``solve_lines`` takes it (line solving, the compiled search to its
probe budget), and every mode solves the residual of that same state in this process, the
modes' order rotating from puzzle to puzzle: the input each mode builds (its encoding, probe
clauses and phases, ``cdcl.residual_problem``, not timed), then ``cdcl._turns``, what the forked
worker runs, timed by ``time.process_time``. The search before the fallback is the same for every
mode, so it is left out: the figures are CDCL CPU only (the phases' few milliseconds excluded).

Puzzles: every ``--every``-th of ``--sets`` (an unbiased sample of the residuals), and/or the
``--slowest N`` puzzles of tournament records (``bench/tournament.py``'s JSONL: the tail, chosen
by one mode's luck, so a mode that was unlucky there looks worse than it is on average).
Records (one JSON line per puzzle and mode: CPU, conflicts, answer) are appended to ``--out``;
puzzles already there are not run again. The table: per group, for each mode, the total, the
worst, the residuals over 3 s and 5 s, and the total's ratio to the first mode with a bootstrap
95 % interval over the residuals.

    python bench/cdcl_turns.py --every 10 --out bench/results/cdcl_turns/every10.jsonl
    python bench/cdcl_turns.py --slowest bench/results/tournament/whole14-budget300k.jsonl:40 \\
        --out bench/results/cdcl_turns/slowest40.jsonl
"""
from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from formulations.analysis.stats import total_ratio_interval
from formulations.io.tournament import iter_tournament
from formulations.lines import cdcl, search

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "taai-tcga-icga-tournament" / "question"
DEFAULT_MODES = "order-cadical-stable-all-worker-bp,order-cadical-stable-all-worker-bp-turns"


class _Reached(Exception):
    """The search handed its residual to the CDCL fallback: here is its engine and state."""

    def __init__(self, eng, state):
        self.eng, self.state = eng, list(state)


def residual_of(puzzle):
    """The engine and the state the first-solution fallback gets for ``puzzle``; "settled" when
    the search settles it first, "timeout" when it does not within 60 s."""
    def grab(eng, state, known, max_solutions, end, mode_name=None):
        raise _Reached(eng, state)

    real = cdcl.solve_residual
    cdcl.solve_residual = grab  # solve_lines imports it at the fallback
    try:
        r = search.solve_lines(puzzle, time_limit=60)
    except _Reached as got:
        return got.eng, got.state
    finally:
        cdcl.solve_residual = real
    return "timeout" if r.timed_out else "settled"


def puzzles(args) -> list[tuple[str, str, object]]:
    """(group, "set:id", puzzle) in order."""
    want: dict[str, set[str]] = defaultdict(set)
    group: dict[str, str] = {}
    if args.slowest:
        path, n = args.slowest.rsplit(":", 1)
        cpu = {}
        for line in open(path):
            r = json.loads(line)
            if r["solver"] == "lines":
                cpu[f"{r['set']}:{r['id']}"] = r["cpu_s"]
        for key in sorted(cpu, key=cpu.__getitem__, reverse=True)[:int(n)]:
            s, i = key.split(":")
            want[s].add(i)
            group[key] = f"slowest {n}"
    sets = args.sets.split(",") if args.sets else sorted(p.stem for p in CORPUS.glob("*.txt"))
    out = []
    for f in sorted(CORPUS.glob("*.txt")):
        every = set()
        if args.every and f.stem in sets:
            every = {k for k, _ in list(iter_tournament(f))[args.start::args.every]}
        if not every and f.stem not in want:
            continue
        for k, p in iter_tournament(f):
            key = f"{f.stem}:{k}"
            if k in every:
                out.append((f"every {args.every}", key, p))
            if k in want[f.stem]:
                out.append((group[key], key, p))
    return out


def solve(reached, mode: cdcl.Mode) -> dict:
    """``mode`` on its own input for the state (its encoding, probe clauses and phases; built
    before the clock starts)."""
    from pysat.solvers import Solver

    problem = cdcl.residual_problem(*reached, mode)
    if problem is None:
        return {"cpu": 0.0, "sat": False, "conflicts": 0}
    clauses, cells, phases = problem
    t = time.process_time()
    s, sat, others = cdcl._turns(Solver, [list(c) for c in clauses], mode, phases)
    cpu = time.process_time() - t
    conflicts = others + cdcl._conflicts(s)
    s.delete()
    return {"cpu": cpu, "sat": sat, "conflicts": conflicts}


def table(records: list[dict], modes: list[str]) -> None:
    by: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for r in records:
        if r["mode"] != "search":  # settled before the fallback
            by[(r["group"], r["puzzle"])][r["mode"]] = r["cpu"]
    for g in sorted({g for g, _ in by}):
        rows = [v for (gg, _), v in by.items() if gg == g and all(m in v for m in modes)]
        print(f"{g}: {len(rows)} residuals, CDCL CPU s")
        print("| mode | total | worst | over 3 s | over 5 s | total / first mode (95 %) |")
        print("|---|---|---|---|---|---|")
        for m in modes:
            xs = [v[m] for v in rows]
            if not xs:
                continue
            lo, mid, hi = total_ratio_interval([(v[modes[0]], v[m]) for v in rows])
            print(f"| {m} | {sum(xs):.1f} | {max(xs):.2f} | {sum(x > 3 for x in xs)} | "
                  f"{sum(x > 5 for x in xs)} | {mid:.3f} ({lo:.3f}-{hi:.3f}) |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modes", default=DEFAULT_MODES, help="NAMED_MODES names, the first the baseline")
    ap.add_argument("--sets", default="", help="comma-separated set names (default: all 28)")
    ap.add_argument("--every", type=int, default=0, help="every k-th puzzle of --sets")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--slowest", default="", help="RECORDS.jsonl:N, the N slowest for lines")
    ap.add_argument("--out", required=True, help="JSON lines of records (appended, resumed)")
    ap.add_argument("--table", action="store_true", help="only print the table of --out")
    args = ap.parse_args()
    modes = args.modes.split(",")
    unknown = [m for m in modes if m not in cdcl.NAMED_MODES]
    if unknown:
        raise SystemExit(f"unknown mode {unknown[0]!r}: {', '.join(sorted(cdcl.NAMED_MODES))}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    records = [json.loads(x) for x in out.open()] if out.exists() else []
    if not args.table:
        done = {(r["group"], r["puzzle"], r["mode"]) for r in records}
        with out.open("a") as f:
            for n, (g, key, p) in enumerate(puzzles(args)):
                todo = [m for m in modes if (g, key, m) not in done]
                if not todo or (g, key, "search") in done:
                    continue
                reached = residual_of(p)
                if isinstance(reached, str):  # recorded so as not to run again
                    f.write(json.dumps({"group": g, "puzzle": key, "mode": "search",
                                        "outcome": reached}) + "\n")
                    continue
                k = n % len(todo)
                for m in todo[k:] + todo[:k]:
                    rec = {"group": g, "puzzle": key, "mode": m, **solve(reached, cdcl.NAMED_MODES[m])}
                    f.write(json.dumps(rec) + "\n")
                    f.flush()
                    records.append(rec)
    table(records, modes)


if __name__ == "__main__":
    main()
