"""Time-to-solution of simulated annealing on the nonogram penalty QUBO (a benchmark, not a test).

    python3 bench/anneal_tts.py weights     # cat15: family weights x sweeps (sa, with x)
    python3 bench/anneal_tts.py sweeps      # cat15: TTS99 against sweeps, with and without x
    python3 bench/anneal_tts.py sizes       # corpus 20x20, 25x25, 30x30: TTS99 against sweeps
    python3 bench/anneal_tts.py all
    python3 bench/anneal_tts.py report      # summaries and plots again from the CSVs

Each row: p = fraction of reads whose exact penalty is 0, t_read = CPU time of the sampler call
/ reads (wall time is in ``t_read_wall_s``; SA runs on one core and the machine is shared, so CPU
time is the reproducible one), TTS99 = t_read * ln(0.01) / ln(1 - p) (t_read when p >= 0.99,
inf when p = 0).
Writes ``bench/results/anneal_<experiment>.csv`` and ``.png`` and prints a summary table.
The machine is shared: absolute times move with the load, ratios less so.
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from backends.anneal import default_beta_range, tts99  # noqa: E402
from formulations.model import build_model  # noqa: E402
from formulations.model.penalty import DEFAULT_WEIGHTS, penalty_terms  # noqa: E402
from formulations.io import iter_janko, read_puzzle  # noqa: E402

RESULTS = ROOT / "bench" / "results"
CORPUS = ROOT.parent / "shared" / "corpus"
JANKO = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
FIELDS = ["experiment", "puzzle", "size", "use_x", "beta", "variables", "interactions", "monotone",
          "order", "link", "sweeps", "beta_lo", "beta_hi", "reads", "successes", "p", "t_read_s",
          "t_read_wall_s", "tts99_s"]
WEIGHT_GRID = [(1, 1, 1), (2, 2, 1), (3, 3, 1), (2, 3, 1), (3, 2, 1), (1, 2, 1), (2, 1, 1),
               (4, 4, 1), (1, 1, 2)]


def measure(terms, weights: dict, sweeps: int, reads: int, seed: int,
            budget_s: float | None = None, beta: str = "sa") -> dict:
    """One (weights, sweeps) point; with ``budget_s`` the reads shrink to fit the budget.

    ``beta="sa"`` uses the sa backend's default range (scaled by the weights), ``"dwave"`` the
    sampler's own default."""
    from dwave.samplers import SimulatedAnnealingSampler

    pen = terms.weighted(weights)
    bqm = pen.to_bqm(labels="index")
    sampler = SimulatedAnnealingSampler()
    br = default_beta_range(pen.weights) if beta == "sa" else None
    if budget_s is not None:  # two probe reads set the number of reads that fit the budget
        t = time.process_time()
        sampler.sample(bqm, num_reads=2, num_sweeps=sweeps, seed=seed, beta_range=br)
        probe = (time.process_time() - t) / 2
        reads = max(8, min(reads, int(budget_s / max(probe, 1e-6))))
    t, c = time.perf_counter(), time.process_time()
    ss = sampler.sample(bqm, num_reads=reads, num_sweeps=sweeps, seed=seed, beta_range=br)
    spent, cpu = time.perf_counter() - t, time.process_time() - c
    X = np.zeros((len(ss.record), pen.num_variables), dtype=np.int8)
    X[:, np.fromiter(ss.variables, dtype=np.int64)] = ss.record.sample
    ok = int((pen.energies(X) == 0).sum())
    p = ok / reads
    t_read = cpu / reads  # CPU time: SA is single-threaded and the machine is shared
    tts = tts99(t_read, p)
    lo, hi = ss.info["beta_range"]
    return {"beta": beta, "variables": pen.num_variables, "interactions": len(pen.qv),
            "monotone": weights["monotone"], "order": weights["order"], "link": weights["link"],
            "sweeps": sweeps, "beta_lo": float(lo), "beta_hi": float(hi), "reads": reads,
            "successes": ok, "p": p, "t_read_s": t_read, "t_read_wall_s": spent / reads,
            "tts99_s": math.inf if tts is None else tts}


def cat15():
    return read_puzzle(ROOT / "puzzles" / "cat15.txt")


def corpus_puzzles(per_size: int) -> list[tuple[str, object]]:
    """The first ``per_size`` janko puzzles (by id) of each square size 20, 25, 30."""
    if not JANKO.is_file():
        print(f"corpus not found at {JANKO}; skipping sizes", file=sys.stderr)
        return []
    by_size: dict[str, list] = {"20x20": [], "25x25": [], "30x30": []}
    for key, puzzle, _ in iter_janko(JANKO):
        size = key.rsplit("_", 1)[-1]
        if size in by_size:
            by_size[size].append((int(key.split("_")[0]), key, puzzle))
    out = []
    for size, items in by_size.items():
        out += [(key, p) for _, key, p in sorted(items, key=lambda t: t[0])[:per_size]]
    return out


def run_weights(args) -> list[dict]:
    rows = []
    for use_x in (True, False):
        terms = penalty_terms(build_model(cat15(), use_x=use_x))
        for m, o, l in WEIGHT_GRID:
            for sweeps in args.sweep_list or (50, 100, 150, 200):
                r = measure(terms, {"monotone": m, "order": o, "link": l}, sweeps, args.reads,
                            args.seed)
                rows.append({"experiment": "weights", "puzzle": "cat15", "size": "15x15",
                             "use_x": use_x, **r})
                _echo(rows[-1])
    return rows


def run_sweeps(args) -> list[dict]:
    puzzle = cat15()
    rows = []
    for use_x in (True, False):
        terms = penalty_terms(build_model(puzzle, use_x=use_x))
        equal = {"monotone": 1, "order": 1, "link": 1}
        for weights, beta in ((dict(DEFAULT_WEIGHTS), "sa"), (equal, "sa"),
                              (dict(DEFAULT_WEIGHTS), "dwave")):
            for sweeps in args.sweep_list or (10, 20, 50, 100, 150, 200, 500, 1000, 2000, 5000, 10000):
                r = measure(terms, weights, sweeps, args.reads, args.seed, budget_s=args.budget,
                            beta=beta)
                rows.append({"experiment": "sweeps", "puzzle": "cat15", "size": "15x15",
                             "use_x": use_x, **r})
                _echo(rows[-1])
    return rows


def run_sizes(args) -> list[dict]:
    rows = []
    for key, puzzle in corpus_puzzles(args.per_size):
        size = key.rsplit("_", 1)[-1]
        for use_x in (True, False):
            terms = penalty_terms(build_model(puzzle, use_x=use_x))
            for sweeps in args.sweep_list or (100, 300, 1000, 3000, 10000, 30000):
                r = measure(terms, dict(DEFAULT_WEIGHTS), sweeps, args.reads, args.seed,
                            budget_s=args.budget)
                rows.append({"experiment": "sizes", "puzzle": key, "size": size, "use_x": use_x, **r})
                _echo(rows[-1])
    return rows


def _echo(r: dict) -> None:
    tts = r["tts99_s"]
    print(f"{r['puzzle']:>14} x={int(r['use_x'])} w={r['monotone']:g},{r['order']:g},{r['link']:g} "
          f"sweeps={r['sweeps']:>6} reads={r['reads']:>4} p={r['p']:.3f} "
          f"t_read={1e3 * r['t_read_s']:8.3f} ms TTS99={'inf' if math.isinf(tts) else f'{1e3 * tts:.3f} ms'}",
          flush=True)


def write(rows: list[dict], name: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"anneal_{name}.csv"
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in FIELDS})
    return path


def plot(rows: list[dict], name: str) -> Path | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    series: dict[str, list[dict]] = {}
    for r in rows:
        label = (f"{r['puzzle'] if name != 'sizes' else r['size']} "
                 f"{'x' if r['use_x'] else 'no-x'} w={r['monotone']:g},{r['order']:g},{r['link']:g}"
                 f" beta={r['beta']}")
        series.setdefault(label, []).append(r)
    for label, rs in series.items():
        if name == "sizes":  # median over the puzzles of a size
            by = {}
            for r in rs:
                by.setdefault(r["sweeps"], []).append(r)
            xs = sorted(by)
            ps = [float(np.median([r["p"] for r in by[s]])) for s in xs]
            tt = [float(np.median([r["tts99_s"] for r in by[s]])) for s in xs]
        else:
            rs = sorted(rs, key=lambda r: r["sweeps"])
            xs, ps, tt = [r["sweeps"] for r in rs], [r["p"] for r in rs], [r["tts99_s"] for r in rs]
        ax1.plot(xs, [t if math.isfinite(t) else np.nan for t in tt], "o-", label=label)
        ax2.plot(xs, ps, "o-", label=label)
    ax1.set(xscale="log", yscale="log", xlabel="sweeps", ylabel="TTS99 (s)",
            title=f"sa TTS99 ({name}{', median over puzzles' if name == 'sizes' else ''})")
    ax2.set(xscale="log", xlabel="sweeps", ylabel="success probability p", ylim=(-0.02, 1.02))
    ax1.legend(fontsize=7)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    path = RESULTS / f"anneal_{name}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def summary(rows: list[dict], name: str) -> None:
    """Best TTS99 per (puzzle, x, weights) and the sweeps where p first reaches 0."""
    print(f"\n== {name}: best TTS99 per series ==")
    print(f"{'puzzle':>14} {'x':>4} {'weights':>9} {'beta':>5} {'vars':>6} {'best sweeps':>11} "
          f"{'p':>6} {'TTS99 ms':>10}  p=0 at sweeps")
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        key = (r["puzzle"], r["use_x"], r["monotone"], r["order"], r["link"], r["beta"])
        groups.setdefault(key, []).append(r)
    for (pz, ux, m, o, l, beta), rs in groups.items():
        best = min(rs, key=lambda r: r["tts99_s"])
        zero = sorted(r["sweeps"] for r in rs if r["p"] == 0)
        tts = best["tts99_s"]
        print(f"{pz:>14} {'x' if ux else 'no-x':>4} {f'{m:g},{o:g},{l:g}':>9} {beta:>5} "
              f"{best['variables']:>6} "
              f"{best['sweeps']:>11} {best['p']:>6.3f} "
              f"{'inf' if math.isinf(tts) else f'{1e3 * tts:.3f}':>10}  {zero or '-'}")


def size_summary(rows: list[dict]) -> None:
    """How TTS99 grows with size: medians over the puzzles of a size, and p = 0 counts."""
    print("\n== sizes: median over puzzles of the best TTS99 (each puzzle at its best sweeps) ==")
    sweeps_all = sorted({r["sweeps"] for r in rows})
    print(f"{'size':>6} {'x':>4} {'puzzles':>7} {'vars':>6} {'best TTS99 ms (min/median/max)':>32}  "
          "puzzles with p=0 at sweeps " + " ".join(str(s) for s in sweeps_all))
    groups: dict[tuple, dict[str, list[dict]]] = {}
    for r in rows:
        groups.setdefault((r["size"], r["use_x"]), {}).setdefault(r["puzzle"], []).append(r)
    for (size, ux), puzzles in sorted(groups.items(), key=lambda kv: (kv[0][0], not kv[0][1])):
        best = [min(rs, key=lambda r: r["tts99_s"]) for rs in puzzles.values()]
        tts = sorted(1e3 * b["tts99_s"] for b in best)
        nvars = int(np.median([b["variables"] for b in best]))
        zeros = [sum(1 for rs in puzzles.values() for r in rs if r["sweeps"] == s and r["p"] == 0)
                 for s in sweeps_all]
        med = float(np.median(tts))
        print(f"{size:>6} {'x' if ux else 'no-x':>4} {len(puzzles):>7} {nvars:>6} "
              f"{f'{tts[0]:.1f} / {med:.1f} / {tts[-1]:.1f}':>32}  "
              + " ".join(f"{z}/{len(puzzles)}" for z in zeros))


def read_rows(name: str) -> list[dict]:
    """Rows of an earlier run, typed back from the CSV."""
    out = []
    with (RESULTS / f"anneal_{name}.csv").open() as f:
        for r in csv.DictReader(f):
            for k in ("variables", "interactions", "sweeps", "reads", "successes"):
                r[k] = int(r[k])
            for k in ("monotone", "order", "link", "beta_lo", "beta_hi", "p", "t_read_s",
                      "t_read_wall_s", "tts99_s"):
                r[k] = float(r[k])
            r["use_x"] = r["use_x"] == "True"
            out.append(r)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("experiment", choices=["weights", "sweeps", "sizes", "all", "report"],
                    help="'report' re-prints the summaries and plots from the CSVs of earlier runs")
    ap.add_argument("--reads", type=int, default=500, help="reads per point (upper bound with --budget)")
    ap.add_argument("--budget", type=float, default=3.0, help="seconds of sampling per point (sweeps, sizes)")
    ap.add_argument("--per-size", type=int, default=3, help="corpus puzzles per size")
    ap.add_argument("--sweeps", dest="sweep_list", type=lambda s: [int(v) for v in s.split(",")],
                    help="comma-separated sweeps to try (overrides each experiment's list)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.experiment == "report":
        for name in ("weights", "sweeps", "sizes"):
            if (RESULTS / f"anneal_{name}.csv").is_file():
                rows = read_rows(name)
                plot(rows, name)
                summary(rows, name)
                if name == "sizes":
                    size_summary(rows)
        return 0
    todo = ["weights", "sweeps", "sizes"] if args.experiment == "all" else [args.experiment]
    for name in todo:
        rows = {"weights": run_weights, "sweeps": run_sweeps, "sizes": run_sizes}[name](args)
        if not rows:
            continue
        csv_path = write(rows, name)
        png = plot(rows, name)
        summary(rows, name)
        if name == "sizes":
            size_summary(rows)
        print(f"wrote {csv_path}" + (f" and {png}" if png else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
