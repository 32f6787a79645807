"""TTS99 at the optimal anneal length against puzzle size, with 95 % intervals, for every
annealer-style backend, next to the exact backends on the same puzzles (a benchmark, not a test).

Superseded for published figures by ``bench/release.py`` (docs/benchmark.md): per-quantile
optima over about 100 puzzles a size with a two-level bootstrap. Here the per-size "interval" is
the median of the puzzles' interval ends, a summary of them, not an interval of the median.

    python bench/anneal_scaling.py run [--sizes 10,15,20,25,30,40] [--janko 15x15,20x20,...]
                                      [--per-size 3] [--samplers sa,tabu,openjij-sa,openjij-sqa,qbpp]
                                      [--budget 5] [--out bench/results/anneal_scaling.csv]
    python bench/anneal_scaling.py report [--out ...]     # summary table and the plot

Puzzles: random unique NxN pictures (density 0.55, seeded, kept when CP-SAT proves them unique)
and a seeded sample of janko puzzles per size (from ``../shared/corpus``, read by path).

Per puzzle and sampler, every anneal length of the sampler's ladder (sweeps for sa / openjij,
the per-read timeout in ms for tabu) is sampled until ``--budget`` seconds of CPU or 1000
reads (at least 8 reads): successes (exact penalty energy 0), time per read (CPU), TTS99 with
its bootstrap interval (:func:`formulations.stats.tts99_interval`). The optimal length is the one
with the lowest TTS99; its TTS99 and interval are the puzzle's figure. The exact side: CP-SAT's
and the line solver's time to decide uniqueness. Each sampler runs on its default model (the
package's defaults: without x for sa, tabu and OpenJij; qbpp with x, only where the model fits
its 100 variables). Rows are appended as they finish; running again resumes.

What the automatic schedule (``backends/anneal.py``, ``auto_sweeps``) was fitted on is this
measure: the optimal sweeps of 22 janko puzzles against their variables, slope 1.835 on log-log.
"""
from __future__ import annotations

import argparse
import csv
import math
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus"
JANKO = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
RESULTS = ROOT / "bench" / "results"

from formulations.model import build_model  # noqa: E402
from formulations.model.penalty import lower  # noqa: E402
from formulations.puzzle import Puzzle, puzzle_from_grid  # noqa: E402
from formulations.results import ModelRefused  # noqa: E402
from formulations.solving import solve_puzzle  # noqa: E402
from formulations.stats import tts99_interval, tts99_point  # noqa: E402

LADDERS = {
    "sa": [100, 300, 1000, 3000, 10000, 30000],
    "openjij-sa": [100, 300, 1000, 3000, 10000],
    "openjij-sqa": [100, 300, 1000],
    "tabu": [20, 100, 500, 2000],          # per-read timeout, ms
}
FIELDS = ["puzzle", "group", "cells", "sampler", "use_x", "variables", "interactions", "length",
          "reads", "successes", "p", "t_read_s", "tts99_s", "tts99_low_s", "tts99_high_s"]
EXACT_FIELDS = ["puzzle", "group", "cells", "backend", "status", "unique", "time_s"]


def random_unique(n: int, k: int, seed: int) -> list[tuple[str, Puzzle]]:
    """``k`` random NxN pictures whose clues CP-SAT proves unique."""
    rng = random.Random(seed * 1000 + n)
    out = []
    while len(out) < k:
        grid = tuple(tuple(int(rng.random() < 0.55) for _ in range(n)) for _ in range(n))
        p = puzzle_from_grid(grid, f"random{n}-{len(out)}")
        r = solve_puzzle(p, "cpsat", unique=True, time_limit=30)
        if r.unique:
            out.append((p.name, p))
    return out


def janko_sample(size: str, k: int, seed: int) -> list[tuple[str, Puzzle]]:
    from formulations.io import iter_janko

    if not JANKO.is_file():
        return []
    h, w = size.split("x")
    keys = [key for key, *_ in iter_janko(JANKO) if key.endswith(f"_{h}x{w}")]
    random.Random(seed).shuffle(keys)
    chosen = set(keys[:k])
    return [(key, p) for key, p, _ in iter_janko(JANKO) if key in chosen]


def measure(sampler: str, puzzle: Puzzle, length: int, budget: float, seed: int) -> dict:
    """Reads at one anneal length until the CPU budget: successes and time per read."""
    from backends import get_backend

    b = get_backend(sampler)
    use_x = b.use_x
    opts: dict = {}
    if sampler == "tabu":
        opts["params"] = {"timeout": length}
    elif sampler in LADDERS:
        opts["sweeps"] = length
    reads = successes = 0
    cpu = 0.0
    batch = 1
    while reads < 1000 and (cpu < budget or reads < 8):
        r = solve_puzzle(puzzle, sampler, use_x=use_x, seed=seed + reads, reads=batch, **opts)
        s = r.sampling
        reads += s.reads
        successes += round(s.success_probability * s.reads)
        cpu += s.cpu_per_read_s * s.reads
        batch = min(64, batch * 2)
    t_read = cpu / reads
    ci = tts99_interval(successes, reads, t_read, seed=seed)
    return {"reads": reads, "successes": successes, "p": successes / reads, "t_read_s": t_read,
            "tts99_s": tts99_point(successes, reads, t_read), "tts99_low_s": ci.low,
            "tts99_high_s": ci.high, "use_x": use_x}


def run(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    exact_out = out.with_name(out.stem + "_exact.csv")
    done = set()
    if out.exists():
        done = {(r["puzzle"], r["sampler"], int(r["length"])) for r in csv.DictReader(out.open())}
    puzzles: list[tuple[str, str, Puzzle]] = []
    for n in [int(x) for x in args.sizes.split(",") if x]:
        puzzles += [(name, f"random {n}x{n}", p) for name, p in random_unique(n, args.per_size, args.seed)]
    for size in [x for x in args.janko.split(",") if x]:
        puzzles += [(name, f"janko {size}", p) for name, p in janko_sample(size, args.per_size, args.seed)]
    samplers = [s for s in args.samplers.split(",") if s]
    new = not out.exists()
    with out.open("a", newline="") as f, exact_out.open("a", newline="") as fe:
        w = csv.DictWriter(f, FIELDS)
        we = csv.DictWriter(fe, EXACT_FIELDS)
        if new:
            w.writeheader()
        if fe.tell() == 0:
            we.writeheader()
        for name, group, p in puzzles:
            cells = p.height * p.width
            for exact in ("cpsat", "lines"):
                t0 = time.perf_counter()
                r = solve_puzzle(p, exact, unique=True, time_limit=60)
                we.writerow({"puzzle": name, "group": group, "cells": cells, "backend": exact,
                             "status": r.status.value, "unique": r.unique,
                             "time_s": time.perf_counter() - t0})
                fe.flush()
            for sampler in samplers:
                ladder = [0] if sampler == "qbpp" else LADDERS[sampler]
                for length in ladder:
                    if (name, sampler, length) in done:
                        continue
                    row = {"puzzle": name, "group": group, "cells": cells, "sampler": sampler,
                           "length": length}
                    if sampler == "qbpp":
                        row.update(_qbpp(p, args.seed))
                    else:
                        nm = build_model(p, use_x=False if sampler != "qbpp" else True)
                        pen = lower(nm)
                        row.update(variables=pen.num_variables, interactions=len(pen.qv))
                        try:
                            row.update(measure(sampler, p, length, args.budget, args.seed))
                        except ModelRefused as exc:  # too large for it (tabu: 6000 variables)
                            print(f"{name:<14} {sampler:<12}: {exc}", flush=True)
                            w.writerow({**row, "reads": 0, "successes": 0})
                            f.flush()
                            break
                    w.writerow(row)
                    f.flush()
                    print(f"{name:<14} {sampler:<12} {length:>6}: {row.get('successes')}/"
                          f"{row.get('reads')} TTS99 {row.get('tts99_s')}", flush=True)
                    if (row.get("p") or 0) >= 0.99:
                        break  # longer anneals only cost more


def _qbpp(p: Puzzle, seed: int) -> dict:
    """QUBO++'s EasySolver where the model fits the unlicensed 100 variables: TTS from its runs."""
    nm = build_model(p, use_x=True)
    if nm.model.num_variables > 100:
        return {"variables": nm.model.num_variables, "reads": 0, "successes": 0, "p": None}
    runs = [solve_puzzle(p, "qbpp", time_limit=5, seed=seed + k) for k in range(5)]
    ok = [r for r in runs if r.solved]
    t = statistics.fmean(r.solve_s for r in runs)
    ci = tts99_interval(len(ok), len(runs), t, seed=seed)
    return {"variables": nm.model.num_variables, "use_x": True, "reads": len(runs),
            "successes": len(ok), "p": len(ok) / len(runs), "t_read_s": t,
            "tts99_s": tts99_point(len(ok), len(runs), t), "tts99_low_s": ci.low,
            "tts99_high_s": ci.high}


def best_lengths(rows: list[dict]) -> dict[tuple[str, str], dict]:
    """Per (puzzle, sampler) the row of the anneal length with the lowest TTS99."""
    best: dict[tuple[str, str], dict] = {}
    for r in rows:
        if not r["tts99_s"]:
            continue
        key = (r["puzzle"], r["sampler"])
        if key not in best or float(r["tts99_s"]) < float(best[key]["tts99_s"]):
            best[key] = r
    return best


def _groups(rows: list[dict]) -> list[str]:
    return sorted({r["group"] for r in rows},
                  key=lambda g: (g.split()[0], int(g.split()[1].split("x")[0])))


def summary(rows: list[dict], exact: list[dict]) -> list[dict]:
    """One row per group (random NxN, janko size): per sampler the median over the group's
    puzzles of TTS99 at the optimal length, with the medians of the interval ends and how many
    puzzles reached p > 0 at some length; per exact backend the median time to decide."""
    best = best_lengths(rows)
    samplers = sorted({r["sampler"] for r in rows})
    table = []
    for g in _groups(rows):
        line = {"group": g}
        for s in samplers:
            bs = [b for (pz, ss), b in best.items() if ss == s and b["group"] == g]
            finite = [b for b in bs if math.isfinite(float(b["tts99_s"]))]
            if not bs:
                line[s] = "-"
                continue
            med = statistics.median(float(b["tts99_s"]) for b in bs)
            lo = statistics.median(float(b["tts99_low_s"]) for b in bs)
            hi = statistics.median(float(b["tts99_high_s"]) for b in bs)
            line[s] = f"{med:.3g} [{lo:.3g}, {hi:.3g}] p>0 {len(finite)}/{len(bs)}"
        for e in ("cpsat", "lines"):
            ts = [float(x["time_s"]) for x in exact if x["group"] == g and x["backend"] == e]
            line[e] = f"{statistics.median(ts):.3g}" if ts else "-"
        table.append(line)
    return table


def read(out: Path) -> tuple[list[dict], list[dict]]:
    """The sampler rows and the exact rows of a run."""
    exact_path = out.with_name(out.stem + "_exact.csv")
    rows = list(csv.DictReader(out.open())) if out.exists() else []
    exact = list(csv.DictReader(exact_path.open())) if exact_path.exists() else []
    return rows, exact


def report(args: argparse.Namespace) -> None:
    rows, exact = read(Path(args.out))
    print("TTS99 at the optimal anneal length (seconds): median over the group's puzzles "
          "[median of the 95 % interval ends]; p>0 = puzzles solved at some length")
    table = summary(rows, exact)
    cols = list(table[0]) if table else []
    print(" | ".join(cols))
    for line in table:
        print(" | ".join(str(line.get(c, "-")) for c in cols))
    fig = plot(rows, exact)
    from formulations.show.plots import save

    path = Path(args.out).with_suffix(".png")
    save(fig, path)
    print(f"wrote {path}")


def plot(rows: list[dict], exact: list[dict], ax=None):
    """TTS99 at the optimal length against cells, one line per sampler (median over the group's
    puzzles solved at some length, the medians of the interval ends shaded), and the exact
    backends' time to decide. Returns the figure."""
    from formulations.show.plots import figure

    best = best_lengths(rows)
    groups = _groups(rows)
    samplers = sorted({r["sampler"] for r in rows})
    if ax is None:
        fig = figure(8, 4.8)
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    for k, s in enumerate(samplers + ["cpsat", "lines"]):
        exact_side = s in ("cpsat", "lines")
        for kind in ("random", "janko"):  # a line through the random sizes, squares for janko
            xs, ys, lo, hi = [], [], [], []
            for g in (g for g in groups if g.split()[0] == kind):
                if exact_side:
                    ts = [float(x["time_s"]) for x in exact if x["group"] == g and x["backend"] == s]
                    if ts:
                        xs.append(int(next(x["cells"] for x in exact if x["group"] == g)))
                        ys.append(statistics.median(ts))
                        lo.append(min(ts))
                        hi.append(max(ts))
                    continue
                bs = [b for (pz, ss), b in best.items() if ss == s and b["group"] == g]
                # unsolved puzzles stay in the median as inf (as in the table); a size whose
                # median is unbounded gets no point
                med = statistics.median(float(b["tts99_s"]) for b in bs) if bs else math.inf
                if bs and math.isfinite(med):
                    xs.append(int(bs[0]["cells"]))
                    ys.append(med)
                    lo.append(statistics.median(float(b["tts99_low_s"]) for b in bs))
                    hi.append(min(1e4, statistics.median(float(b["tts99_high_s"]) for b in bs)))
            if not xs:
                continue
            order = np.argsort(xs)
            xs, ys = np.array(xs)[order], np.array(ys)[order]
            lo, hi = np.array(lo)[order], np.array(hi)[order]
            name = f"{s} (time to decide)" if exact_side else f"{s} TTS99"
            if kind == "random":
                ax.plot(xs, ys, "--" if exact_side else "-", marker="o", color=f"C{k}",
                        label=f"{name}, random")
                ax.fill_between(xs, lo, hi, color=f"C{k}", alpha=0.12)
            else:
                ax.errorbar(xs, ys, yerr=[ys - lo, hi - ys], fmt="s", color=f"C{k}",
                            mfc="white", capsize=3, label=f"{name}, janko")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cells")
    ax.set_ylabel("seconds")
    ax.set_title("TTS99 at the optimal anneal length (median over puzzles, unsolved as inf;\n"
                 "95 % interval: shaded for random puzzles, bars for janko)", fontsize="medium")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="x-small", ncol=2, loc="upper left")
    return fig


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["run", "report"])
    ap.add_argument("--sizes", default="10,15,20,25,30,40", help="random unique NxN sizes")
    ap.add_argument("--janko", default="15x15,20x20,25x25,30x30,40x30")
    ap.add_argument("--per-size", type=int, default=3)
    ap.add_argument("--samplers", default="sa,tabu,openjij-sa,openjij-sqa,qbpp")
    ap.add_argument("--budget", type=float, default=5.0, help="CPU seconds per length")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=str(RESULTS / "anneal_scaling.csv"))
    args = ap.parse_args(argv)
    (run if args.command == "run" else report)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
