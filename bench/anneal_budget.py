"""The annealers' defaults with nothing but a time budget (a benchmark, not a test):

    python bench/anneal_budget.py [--backends sa,tabu,sa+x] [--per-size 30] [--time-limit 60]
                                  [--sizes 20x20,25x25,30x30,40x30] [--out bench/results/anneal_budget.csv]

Each run is the command line a user types, ``python -m formulations.solve FILE::KEY --backend B
--time-limit T --json``, on a seeded sample of janko puzzles per size (read by path from
``../shared/corpus``): the solved fraction per size and backend, the median time to the verified
grid, and cat15's p and TTS99 at the defaults (fixed reads, no budget). Runs interleave the
backends puzzle by puzzle (``sa+x``: sa on the model with x; ``tabu+tenure=40``: tabu with
``--param tenure=40``); rows are appended as they finish and a second run resumes.
The goal the project set: sa >= 90 % and tabu >= 80 % per size at 60 s; cat15 p >= 0.9, TTS99 < 5 ms.
"""
from __future__ import annotations

import argparse
import csv
import json
import random
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
JANKO = ROOT.parent / "shared" / "corpus" / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
VARIANT_FLAGS = {"x": ["--x"]}  # BACKEND+VARIANT on --backends: sa+x is sa with the x model
FIELDS = ["size", "puzzle", "backend", "time_limit", "status", "wall_s", "batches", "message"]


def sample(size: str, k: int, seed: int) -> list[str]:
    from formulations.io import iter_janko

    h, w = size.split("x")
    keys = [key for key, *_ in iter_janko(JANKO) if key.endswith(f"_{h}x{w}")]
    random.Random(seed).shuffle(keys)
    return sorted(keys[:k])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backends", default="sa,tabu")
    ap.add_argument("--sizes", default="20x20,25x25,30x30,40x30")
    ap.add_argument("--per-size", type=int, default=30)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "anneal_budget.csv"))
    args = ap.parse_args(argv)
    if not JANKO.is_file():
        print(f"the janko corpus is not at {JANKO}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.exists():
        done = {(r["puzzle"], r["backend"]) for r in csv.DictReader(out.open())}
    backends = [b for b in args.backends.split(",") if b]
    unknown = sorted({e for b in backends for e in b.split("+")[1:]
                      if "=" not in e} - set(VARIANT_FLAGS))
    if unknown:
        print(f"unknown variant {unknown[0]!r} (variants: {', '.join(VARIANT_FLAGS)})",
              file=sys.stderr)
        return 2
    with out.open("a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if f.tell() == 0:
            w.writeheader()
        for size in args.sizes.split(","):
            for key in sample(size, args.per_size, args.seed):
                for b in backends:  # interleaved, puzzle by puzzle
                    if (key, b) in done:
                        continue
                    name, *extra = b.split("+")  # sa+x: sa on the model with x
                    flags = [a for e in extra for a in
                             (["--param", e] if "=" in e else VARIANT_FLAGS[e])]
                    p = subprocess.run(
                        [sys.executable, "-m", "formulations.solve", f"{JANKO}::{key}",
                         "--backend", name, "--time-limit", str(args.time_limit), "--json", *flags],
                        cwd=ROOT, capture_output=True, text=True, timeout=args.time_limit * 3 + 60)
                    rec = json.loads(p.stdout)
                    row = {"size": size, "puzzle": key, "backend": b, "time_limit": args.time_limit,
                           "status": rec["status"], "wall_s": rec["build_s"] + rec["solve_s"],
                           "batches": len(rec["info"].get("batches", [])) or 1,
                           "message": rec["message"][:120]}
                    w.writerow(row)
                    f.flush()
                    print(f"{size} {key:<12} {b:<6} {row['status']:<8} {row['wall_s']:7.2f}s "
                          f"batches {row['batches']}", flush=True)
    rows = list(csv.DictReader(out.open()))
    print(f"\nsolved within {args.time_limit:g} s (median seconds to the verified grid):")
    for b in backends:
        for size in args.sizes.split(","):
            rs = [r for r in rows if r["backend"] == b and r["size"] == size]
            ok = [float(r["wall_s"]) for r in rs if r["status"] == "solved"]
            med = f"{statistics.median(ok):.2f}" if ok else "-"
            print(f"  {b:<6} {size:<6} {len(ok)}/{len(rs)} ({100 * len(ok) / max(1, len(rs)):.0f} %)"
                  f"  median {med} s")
    from formulations.io import read_puzzle
    from formulations.solving import solve_puzzle

    cat = read_puzzle(ROOT / "puzzles" / "cat15.txt")
    for b in backends:
        if "+" in b:  # the variants need a time budget; cat15's figures are the defaults'
            continue
        r = solve_puzzle(cat, b, seed=1)
        s = r.sampling
        print(f"cat15 {b}: p = {s.success_probability:.3f}, TTS99 = {1000 * (s.tts99_s or float('inf')):.2f} ms"
              f" [{1000 * (s.tts99_low_s or float('inf')):.2f}, {1000 * (s.tts99_high_s or float('inf')):.2f}]"
              f" ({s.reads} reads, default schedule)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
