"""Which defaults let ``qbpp`` (QUBO++ EasySolver) solve every conformance puzzle that fits its
100-variable cap (a benchmark, not a test).

    python bench/qbpp_defaults.py --weights 2,2,1 1,1,1 2,2,2 1,1,2 --seeds 1 2 3 --time-limit 4

Each (puzzle, model variant, weights, seed) is one ``solve_puzzle`` call with ``time_limit``
(EasySolver stops at energy 0; a stall runs to the limit). The puzzles: the project's own
``puzzles/*.txt`` and the conformance kit's and suite's tiny ones (the 3x3, the 2x2 diagonal,
the colour staircase), each model variant that fits pyqbpp's 100 variables without a licence
key (larger ones are listed as refused). Prints, per (variant, weights), the puzzles solved at
every seed, and the median solve time; writes ``bench/results/qbpp_defaults.csv``.
"""
from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

from formulations.io import read_puzzle
from formulations.model import build_model
from formulations.puzzle import puzzle_from_grid
from formulations.results import ModelRefused, Status
from formulations.solving import solve_puzzle
from formulations.testing import conformance

ROOT = Path(__file__).resolve().parents[1]
CAP = 100


def conformance_puzzles() -> list[tuple[str, object]]:
    out = [(p.stem, read_puzzle(p)) for p in sorted((ROOT / "puzzles").glob("*.txt"))
           if not p.stem.startswith("impossible")]
    out += [("kit-tiny", conformance.tiny_puzzle()), ("kit-two", conformance.two_solutions()),
            ("staircase", puzzle_from_grid(((2, 3, 0, 0), (0, 2, 3, 0), (0, 0, 2, 3))))]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", nargs="+", default=["2,2,1", "1,1,1", "2,2,2", "1,1,2"],
                    help="monotone,order,link triples")
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    ap.add_argument("--time-limit", type=float, default=4.0)
    ap.add_argument("--variants", nargs="+", default=["x", "no-x"])
    args = ap.parse_args(argv)
    rows = []
    for name, puzzle in conformance_puzzles():
        for variant in args.variants:
            use_x = variant == "x"
            n = build_model(puzzle, use_x=use_x).model.num_variables
            if n > CAP:
                print(f"{name:>16} {variant:>5} {n:>4} vars: over the cap, skipped", flush=True)
                continue
            for wtext in args.weights:
                m, o, lk = (float(v) for v in wtext.split(","))
                w = {"monotone": m, "order": o, "link": lk}
                for seed in args.seeds:
                    try:
                        r = solve_puzzle(puzzle, "qbpp", use_x=use_x, seed=seed,
                                         time_limit=args.time_limit, weights=w)
                    except ModelRefused as exc:
                        print(f"{name} {variant}: refused: {exc}", flush=True)
                        break
                    row = {"puzzle": name, "variant": variant, "variables": n, "weights": wtext,
                           "seed": seed, "status": r.status.value, "energy": r.energy,
                           "solve_s": round(r.solve_s, 3)}
                    rows.append(row)
                    print(f"{name:>16} {variant:>5} {n:>4} w={wtext:<7} seed={seed} "
                          f"{row['status']:>8} E={r.energy} {row['solve_s']:.2f} s", flush=True)
    print("\nper variant and weights: puzzles solved at every seed / puzzles, median solve s")
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r["variant"], r["weights"]), []).append(r)
    for (variant, wtext), rs in groups.items():
        by: dict[str, list] = {}
        for r in rs:
            by.setdefault(r["puzzle"], []).append(r)
        ok = [p for p, prs in by.items() if all(r["status"] == Status.SOLVED.value for r in prs)]
        missed = sorted(set(by) - set(ok))
        med = statistics.median(r["solve_s"] for r in rs)
        print(f"  {variant:>5} w={wtext:<7} {len(ok)}/{len(by)} median {med:.2f} s"
              + (f"  missed: {', '.join(missed)}" if missed else ""))
    out = ROOT / "bench" / "results" / "qbpp_defaults.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["puzzle"])
        wr.writeheader()
        wr.writerows(rows)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
