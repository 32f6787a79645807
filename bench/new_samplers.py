"""TTS99 of the samplers added in issue 31 (``pimc``, ``rotor``, ``pt``, ``pa``) against ``sa``,
on cat15 and janko puzzles (a benchmark, not a test).

    python bench/new_samplers.py tune    --backends pimc --grid gamma=0,0.5,1,2 sweeps=100,400,1600
    python bench/new_samplers.py compare --backends sa,pimc,rotor,pt,pa --sizes 20x20:3,25x25:2

Every point goes through ``solve_puzzle`` with a fixed read count (a statistics run: one
thread, no time budget), so that p is the package's own (every read re-scored from the model)
and the time per read is the package's ``cpu_per_read_s`` (process CPU time: every thread of a
read counted, which is what survives a shared machine). TTS99 = t ln(0.01) / ln(1 - p) with
``formulations.stats.tts99_point``, its 95 % interval with ``tts99_interval`` (both through
their plain signatures). Reads per point: a probe of ``--probe`` reads sets how many fit
``--budget`` CPU seconds (between ``--min-reads`` and ``--max-reads``).

``compare`` runs the backends interleaved, puzzle by puzzle (sa, then each other backend, on the
same puzzle before the next), and prints each backend's TTS99 and its ratio to sa's in the same
run; the geometric mean of the ratios over the puzzles both solve, and how many each solves.
Writes ``bench/results/new_samplers_<mode>.csv``.
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from formulations.io import iter_janko, read_puzzle  # noqa: E402
from formulations.solving import solve_puzzle  # noqa: E402
from formulations.stats import tts99_interval, tts99_point  # noqa: E402

RESULTS = ROOT / "bench" / "results"
CORPUS = ROOT.parent / "shared" / "corpus"
for _up in (ROOT.parent, ROOT.parent.parent):  # a worktree sits one level deeper
    if (_up / "shared" / "corpus").is_dir():
        CORPUS = _up / "shared" / "corpus"
        break
JANKO = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
FIELDS = ["mode", "puzzle", "size", "backend", "setting", "variables", "reads", "successes", "p",
          "cpu_per_read_s", "wall_per_read_s", "tts99_s", "tts99_low_s", "tts99_high_s",
          "best_energy", "sweeps"]
OPTION_KEYS = {"sweeps", "reads", "beta_range", "beta_schedule"}


def puzzles(spec: str, skip: int = 0) -> list[tuple[str, str, object]]:
    """``cat15`` and/or ``SIZE:N`` items (the first N janko puzzles of that size by id, after
    ``skip``), comma separated: ``[(name, size, puzzle)]``."""
    out = []
    want: dict[str, int] = {}
    for item in spec.split(","):
        item = item.strip()
        if item == "cat15":
            out.append(("cat15", "15x15", read_puzzle(ROOT / "puzzles" / "cat15.txt")))
        elif item:
            size, _, n = item.partition(":")
            want[size] = int(n or 3)
    if want:
        if not JANKO.is_file():
            print(f"corpus not found at {JANKO}; janko puzzles skipped", file=sys.stderr)
            return out
        by: dict[str, list] = {s: [] for s in want}
        for key, puzzle, _ in iter_janko(JANKO):
            size = key.rsplit("_", 1)[-1]
            if size in by:
                by[size].append((int(key.split("_")[0]), key, puzzle))
        for size, items in by.items():
            chosen = sorted(items, key=lambda t: t[0])[skip:skip + want[size]]
            out += [(key, size, p) for _, key, p in chosen]
    return out


def parse_setting(text: str) -> dict:
    """``sweeps=400+gamma=1`` -> options and params for solve_puzzle."""
    opts: dict = {}
    params: dict = {}
    for part in filter(None, text.split("+")):
        k, _, v = part.partition("=")
        if k in OPTION_KEYS:
            opts[k] = tuple(float(b) for b in v.replace(":", ",").split(",")) if k == "beta_range" else (
                v if k == "beta_schedule" else int(v))
        else:
            params[k] = v
    if params:
        opts["params"] = params
    return opts


def run_point(puzzle, backend: str, setting: str, args) -> dict:
    opts = parse_setting(setting)
    explicit = "reads" in opts
    if not explicit:  # a probe sets the reads that fit the budget
        probe = solve_puzzle(puzzle, backend, seed=args.seed, **{**opts, "reads": args.probe})
        per = max(probe.sampling.cpu_per_read_s, 1e-6)
        opts["reads"] = int(max(args.min_reads, min(args.max_reads, args.budget / per)))
    r = solve_puzzle(puzzle, backend, seed=args.seed + 1, **opts)
    s = r.sampling
    ok = round(s.success_probability * s.reads)
    t = s.cpu_per_read_s
    ci = tts99_interval(ok, s.reads, t)
    return {"backend": backend, "setting": setting or "defaults", "variables": r.variables,
            "reads": s.reads, "successes": ok, "p": s.success_probability,
            "cpu_per_read_s": t, "wall_per_read_s": s.time_per_read_s,
            "tts99_s": tts99_point(ok, s.reads, t), "tts99_low_s": ci.low, "tts99_high_s": ci.high,
            "best_energy": r.energy, "sweeps": r.info.get("num_sweeps")}


def _ms(x: float) -> str:
    return "inf" if not math.isfinite(x) else f"{1e3 * x:.2f}"


def echo(row: dict) -> None:
    print(f"{row['puzzle']:>14} {row['backend']:>6} {row['setting']:<34} reads={row['reads']:>5} "
          f"p={row['p']:.3f} cpu/read={_ms(row['cpu_per_read_s']):>8} ms "
          f"TTS99={_ms(row['tts99_s']):>9} ms [{_ms(row['tts99_low_s'])}, "
          f"{_ms(row['tts99_high_s'])}] best={row['best_energy']}", flush=True)


def write(rows: list[dict], mode: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"new_samplers_{mode}.csv"
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k) for k in FIELDS})
    return path


def grid_settings(grid: list[str]) -> list[str]:
    """``gamma=0,1 sweeps=100,400`` -> every combination as ``gamma=0+sweeps=100`` ..."""
    combos = [""]
    for axis in grid:
        k, _, vs = axis.partition("=")
        combos = [f"{c}+{k}={v}" if c else f"{k}={v}" for c in combos for v in vs.split(",")]
    return combos


def tune(args) -> list[dict]:
    rows = []
    settings = (args.settings or []) + (grid_settings(args.grid) if args.grid else [])
    settings = settings or [""]
    for name, size, puzzle in puzzles(args.sizes, args.skip):
        for backend in args.backends.split(","):
            for setting in settings:  # interleaved: every setting on a puzzle before the next
                row = {"mode": "tune", "puzzle": name, "size": size,
                       **run_point(puzzle, backend, setting, args)}
                rows.append(row)
                echo(row)
    best: dict[tuple, dict] = {}
    for r in rows:
        k = (r["puzzle"], r["backend"])
        if k not in best or r["tts99_s"] < best[k]["tts99_s"]:
            best[k] = r
    print("\nbest setting per puzzle:")
    for (pz, b), r in best.items():
        print(f"  {pz:>14} {b:>6} {r['setting']:<34} TTS99 {_ms(r['tts99_s'])} ms")
    # geometric mean of TTS99 per setting over the puzzles where every setting of it solved
    print("\ngeometric mean TTS99 per setting (puzzles all settings solve), puzzles solved:")
    by = {}
    for r in rows:
        by.setdefault((r["backend"], r["setting"]), []).append(r)
    solved_by_all = set(r["puzzle"] for r in rows)
    for rs in by.values():
        solved_by_all &= {r["puzzle"] for r in rs if math.isfinite(r["tts99_s"])}
    for (b, s), rs in by.items():
        fin = [r["tts99_s"] for r in rs if r["puzzle"] in solved_by_all]
        g = math.exp(sum(map(math.log, fin)) / len(fin)) if fin else math.inf
        n = sum(math.isfinite(r["tts99_s"]) for r in rs)
        print(f"  {b:>6} {s:<34} {_ms(g):>9} ms  solved {n}/{len(rs)}")
    return rows


def compare(args) -> list[dict]:
    rows = []
    backends = args.backends.split(",")
    if backends[0] != "sa":
        backends = ["sa"] + [b for b in backends if b != "sa"]
    for name, size, puzzle in puzzles(args.sizes, args.skip):
        base = None
        for backend in backends:
            t0 = time.process_time()
            row = {"mode": "compare", "puzzle": name, "size": size,
                   **run_point(puzzle, backend, "", args)}
            row["cpu_s"] = time.process_time() - t0
            if backend == "sa":
                base = row["tts99_s"]
            row["ratio"] = row["tts99_s"] / base if base and math.isfinite(base) else math.nan
            rows.append(row)
            echo(row)
    print("\n| puzzle | " + " | ".join(f"{b} TTS99 ms (ratio)" for b in backends) + " |")
    print("|---|" + "---|" * len(backends))
    for name in dict.fromkeys(r["puzzle"] for r in rows):
        rs = {r["backend"]: r for r in rows if r["puzzle"] == name}
        cells = []
        for b in backends:
            r = rs[b]
            cell = f"{_ms(r['tts99_s'])} (p {r['p']:.2f})"
            if b != "sa":
                cell += f", {r['ratio']:.2g}x" if math.isfinite(r["ratio"]) else ", -"
            cells.append(cell)
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\ngeometric mean of TTS99 / sa's over the puzzles both solve; puzzles solved:")
    for b in backends:
        rs = [r for r in rows if r["backend"] == b]
        ratios = [r["ratio"] for r in rs if math.isfinite(r["ratio"]) and r["ratio"] > 0]
        g = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else math.nan
        n = sum(math.isfinite(r["tts99_s"]) for r in rs)
        print(f"  {b:>6}: {g:.3g}x over {len(ratios)} puzzles; p > 0 on {n}/{len(rs)}")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("tune", "compare"))
    ap.add_argument("--backends", default="sa,pimc,rotor,pt,pa")
    ap.add_argument("--sizes", default="cat15,20x20:3", help="cat15 and SIZE:N items")
    ap.add_argument("--skip", type=int, default=0, help="skip the first N janko puzzles per size")
    ap.add_argument("--grid", nargs="*", help="tune: KEY=V1,V2 axes (options or --param keys)")
    ap.add_argument("--settings", nargs="*", help="tune: explicit settings, e.g. "
                    "sweeps=400+gamma=1 beta_range=1:30 (beta_range's ends joined by ':')")
    ap.add_argument("--budget", type=float, default=3.0, help="CPU seconds per point (about)")
    ap.add_argument("--probe", type=int, default=4)
    ap.add_argument("--min-reads", type=int, default=20)
    ap.add_argument("--max-reads", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rows = tune(args) if args.mode == "tune" else compare(args)
    print(f"\nwrote {write(rows, args.mode)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
