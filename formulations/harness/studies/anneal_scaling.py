"""The scaling study of ``bench/anneal_scaling.py``: TTS99 at the optimal anneal length against
puzzle size on random unique puzzles and janko samples, next to the exact backends; its
puzzles, the ladder planner, the per-group summary (the release's statistics) and the report."""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from ...analysis.stats import tts99_interval, tts99_point
from ...puzzle import Puzzle, puzzle_from_grid
from ..study import EXACT, REPO, Task, corpus_root, estimate_cost, load, pooled

STUDY = "anneal_scaling"
JANKO_REL = "puzzlekit-dataset-janko/Nonogram_dataset.json"
LADDERS = {
    "sa": [100, 300, 1000, 3000, 10000, 30000],
    "openjij-sa": [100, 300, 1000, 3000, 10000],
    "openjij-sqa": [100, 300, 1000],
    "tabu": [800, 3200, 12800, 51200],     # updates per variable of one tabu search
}
TABU_MAX_VARIABLES = 6000  # the tabu backend's limit (a dense n x n matrix)
QBPP_RUNS, QBPP_LIMIT_S, QBPP_MAX_VARIABLES = 5, 5.0, 100
EXACT_LIMIT_S = 60.0


def random_unique(n: int, k: int, seed: int) -> list[tuple[str, Puzzle]]:
    """``k`` random NxN pictures whose clues CP-SAT proves unique."""
    from formulations.solving import solve_puzzle

    rng = random.Random(seed * 1000 + n)
    out: list[tuple[str, Puzzle]] = []
    while len(out) < k:
        grid = tuple(tuple(int(rng.random() < 0.55) for _ in range(n)) for _ in range(n))
        p = puzzle_from_grid(grid, f"random{n}-{len(out)}")
        if solve_puzzle(p, "cpsat", unique=True, time_limit=30).unique:
            out.append((p.name, p))
    return out


def source_of(path: Path) -> str:
    """``repo:REL`` inside this checkout (machine-independent), else the path."""
    try:
        return f"repo:{path.resolve().relative_to(REPO)}"
    except ValueError:
        return str(path.resolve())


def puzzles(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """``(name, group, source)``: the random unique puzzles (written once under OUT/puzzles,
    so a resumed run and the report read the same ones) and the janko sample."""
    from formulations.io import write_text

    out = []
    folder = Path(args.out) / "puzzles"
    for n in [int(x) for x in args.sizes.split(",") if x]:
        files = [folder / f"random{n}-{k}.txt" for k in range(args.per_size)]
        if not all(f.is_file() for f in files):
            folder.mkdir(parents=True, exist_ok=True)
            for f, (_name, p) in zip(files, random_unique(n, args.per_size, args.seed)):
                f.write_text(write_text(p))
        out += [(f.stem, f"random {n}x{n}", source_of(f)) for f in files]
    janko = corpus_root() / JANKO_REL
    sizes = [x for x in args.janko.split(",") if x]
    if sizes and not janko.is_file():
        print(f"corpus not found at {janko}; janko puzzles skipped", file=sys.stderr)
        sizes = []
    if sizes:
        from formulations.io import iter_janko
        keys = [key for key, *_ in iter_janko(janko)]
        for size in sizes:
            ks = [k for k in keys if k.endswith(f"_{size}")]
            random.Random(args.seed).shuffle(ks)
            out += [(k, f"janko {size}", f"corpus:{JANKO_REL}::{k}")
                    for k in sorted(ks[:args.per_size])]
    return out


class Planner:
    """``plan(records)``: per puzzle and sampler the next length of its ladder, until one
    reaches p >= 0.99 or the ladder ends; the exact baselines once per puzzle; qbpp's runs."""

    def __init__(self, items: list[tuple[str, str, str]], samplers: Sequence[str],
                 args: argparse.Namespace):
        self.items, self.samplers, self.args = items, list(samplers), args
        self.sizes: dict[str, tuple[int, int, int]] = {}

    def qubo(self, source: str) -> tuple[int, int, int]:
        """Variables and interactions without x, variables with x."""
        if source not in self.sizes:
            from formulations.model import build_model
            from formulations.model.penalty import lower
            p = load(source)
            pen = lower(build_model(p, use_x=False))
            self.sizes[source] = (pen.num_variables, len(pen.qv),
                                  build_model(p, use_x=True).model.num_variables)
        return self.sizes[source]

    def task(self, name: str, source: str, sampler: str, length: int, seed: int = 0) -> Task:
        a = self.args
        if sampler in EXACT:
            return Task(STUDY, name, source, sampler, 0, a.seed, reads=1,
                        cpu_budget_s=EXACT_LIMIT_S)
        if sampler == "qbpp":
            return Task(STUDY, name, source, sampler, 0, a.seed + seed, reads=1, use_x=True,
                        time_limit=QBPP_LIMIT_S)
        return Task(STUDY, name, source, sampler, length, a.seed, reads=a.reads,
                    reads_per_call=a.batch, cpu_budget_s=a.budget)

    def __call__(self, records: dict[str, dict]) -> list[Task]:
        out = []
        for name, _group, src in self.items:
            for e in EXACT:
                out.append(self.task(name, src, e, 0))
            for s in self.samplers:
                if s == "qbpp":
                    if self.qubo(src)[2] <= QBPP_MAX_VARIABLES:
                        out += [self.task(name, src, s, 0, k) for k in range(QBPP_RUNS)]
                    continue
                if s == "tabu" and self.qubo(src)[0] > TABU_MAX_VARIABLES:
                    continue
                for L in LADDERS[s]:
                    t = self.task(name, src, s, L)
                    r = records.get(t.key)
                    if r is None:
                        out.append(t)
                        break
                    if "error" in r or (r["reads"] and r["successes"] / r["reads"] >= 0.99):
                        break
        return out

    def cost(self, t: Task) -> float:
        n, q, _ = self.qubo(t.source)
        return estimate_cost(t, n, q)


# -- the statistics ------------------------------------------------------------------------------

def group_of(r: dict) -> str:
    """The record's group of puzzles (random or janko)."""
    return "random" if r["instance"].startswith("random") else "janko"


def summarize(records: Sequence[dict], resamples: int = 1000) -> dict:
    """The release's summary (:func:`..release.summarize`) per group of puzzles (random,
    janko), and qbpp's TTS99 per puzzle from its time-budget runs (pooled)."""
    from formulations.harness import release

    recs = pooled(records)
    out: dict = {"study": STUDY, "records": len(recs),
                 "errors": sum(1 for r in records if "error" in r), "groups": {}}
    for g in sorted({group_of(r) for r in recs}):
        rs = [r for r in recs if group_of(r) == g and r["sampler"] != "qbpp"]
        out["groups"][g] = release.summarize(rs, resamples=resamples)
    qb: dict[str, list[dict]] = {}
    for r in recs:
        if r["sampler"] == "qbpp":
            qb.setdefault(r["instance"], []).append(r)
    out["qbpp"] = {}
    for name, rs in qb.items():
        ok, n, t = sum(r["successes"] for r in rs), len(rs), sum(r["wall_s"] for r in rs) / len(rs)
        ci = tts99_interval(ok, n, t, t_samples=[r["wall_s"] for r in rs])
        out["qbpp"][name] = {"runs": n, "solved": ok, "wall_per_run_s": t,
                             "tts99_s": _num(tts99_point(ok, n, t)), "low_s": _num(ci.low),
                             "high_s": _num(ci.high)}
    return out


def _num(v: float) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def _fmt(v: float | None) -> str:
    return "inf" if v is None else f"{v:.3g}"


def report(records: Sequence[dict], out: Path) -> dict:
    """Writes ``summary.json`` and ``scaling_GROUP.png`` into ``out`` and prints the medians."""
    from formulations.harness import release
    from formulations.show.plots import save

    summary = summarize(records)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {out / 'summary.json'} ({summary['records']} records, "
          f"{summary['errors']} errors)")
    print("median TTS99 (CPU s) at the optimal length [95 % interval]; exact: uniqueness proved")
    for g, s in summary["groups"].items():
        for name, d in s["samplers"].items():
            for size, e in d["sizes"].items():
                o = e["quantiles"]["0.5"]
                where = ("" if o["interior"] is None else "interior" if o["interior"]
                         else "bound")
                print(f"{g:<7} {size:>6} {name:<12} {o['solved']:>2}/{o['instances']:<2} "
                      f"L*={str(o['optimal_length']):>6} {where:>8} {_fmt(o['tts99_s'])} "
                      f"[{_fmt(o['low_s'])}, {_fmt(o['high_s'])}]")
        save(release.plot(s), out / f"scaling_{g}.png")
    for name, q in summary["qbpp"].items():
        print(f"qbpp {name}: {q['solved']}/{q['runs']} runs solved, TTS99 {_fmt(q['tts99_s'])} s "
              f"[{_fmt(q['low_s'])}, {_fmt(q['high_s'])}]")
    return summary
