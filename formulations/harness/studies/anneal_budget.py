"""The time-budget study of ``bench/anneal_budget.py``: what the command line's ``--time-limit``
mode does on seeded janko samples per size; its tasks (``sa+x``, ``tabu+tenure=40``), the
solved fraction with its interval per size and backend, and cat15 at the default length."""
from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Sequence

from ...analysis.stats import p_interval
from ..study import Task, corpus_root, pool_points

STUDY = "anneal_budget"
JANKO_REL = "puzzlekit-dataset-janko/Nonogram_dataset.json"
CAT15 = "repo:puzzles/cat15.txt"
VARIANTS = ("x",)  # BACKEND+VARIANT on --backends: sa+x is sa on the model with x


def sample(size: str, k: int, seed: int) -> list[str]:
    """``k`` janko keys of ``size``, drawn with ``seed`` (sorted, so a resumed run plans the
    same)."""
    from formulations.io import iter_janko

    keys = [key for key, *_ in iter_janko(corpus_root() / JANKO_REL) if key.endswith(f"_{size}")]
    random.Random(seed).shuffle(keys)
    return sorted(keys[:k])


def parse_backend(spec: str) -> tuple[str, bool, tuple | None]:
    """``sa+x+tenure=40`` -> (``sa``, use_x, params)."""
    name, *extra = spec.split("+")
    params = tuple(tuple(e.split("=", 1)) for e in extra if "=" in e)
    return name, "x" in extra, params or None


def budget_task(spec: str, key: str, source: str, time_limit: float) -> Task:
    """One time-budget run of ``spec`` (``sa+x``, ``tabu+tenure=40``) on one puzzle."""
    name, ux, params = parse_backend(spec)
    return Task(STUDY, key, source, name, 0, 0, reads=1, use_x=ux, params=params,
                time_limit=time_limit)


def cat15_task(spec: str, reads: int = 100) -> Task | None:
    """cat15 at the backend's default length, fixed reads (None for variants)."""
    from formulations.harness import release
    from formulations.harness.study import load
    from formulations.model import build_model
    from formulations.model.penalty import lower

    name, ux, params = parse_backend(spec)
    if ux or params:
        return None
    n = lower(build_model(load(CAT15), use_x=False)).num_variables
    return Task(STUDY, "cat15", CAT15, name, release.guess(name, n), 1, reads=reads,
                cpu_budget_s=10.0)


def plan(args: argparse.Namespace) -> list[Task]:
    """The budget runs of every backend on each size's sample, and cat15 at the default length."""
    backends = [b for b in args.backends.split(",") if b]
    tasks = []
    for size in args.sizes.split(","):
        for key in sample(size, args.per_size, args.seed):
            for b in backends:  # interleaved, puzzle by puzzle
                tasks.append(budget_task(b, key, f"corpus:{JANKO_REL}::{key}", args.time_limit))
    return tasks + [t for b in backends if (t := cat15_task(b)) is not None]


def spec_of(r: dict) -> str:
    """A record's backend as ``--backends`` names it."""
    v = r.get("variant", {})
    parts = [r["sampler"]] + (["x"] if r.get("use_x") else [])
    parts += [f"{k}={val}" for k, val in v.get("params", {}).items()]
    return "+".join(parts)


def table(records: Sequence[dict], time_limit: float | None = None) -> list[dict]:
    """Per backend and size: runs, solved, the solved fraction's 95 % interval, median CPU and
    wall seconds to the verified grid (over the solved runs)."""
    runs: dict[tuple, list[dict]] = {}
    for r in records:
        v = r.get("variant", {})
        if "error" in r or "time_limit" not in v:
            continue
        if time_limit is not None and v["time_limit"] != time_limit:
            continue
        runs.setdefault((spec_of(r), r["size"], v["time_limit"]), []).append(r)
    out = []
    def order(kv: tuple) -> tuple:
        return kv[0][0], [int(v) for v in kv[0][1].split("x")]

    for (b, size, t), rs in sorted(runs.items(), key=order):
        ok = [r for r in rs if r["successes"]]
        lo, hi = p_interval(len(ok), len(rs))
        out.append({"backend": b, "size": size, "time_limit_s": t, "runs": len(rs),
                    "solved": len(ok), "solved_%": round(100 * len(ok) / len(rs)),
                    "low_%": round(100 * float(lo)), "high_%": round(100 * float(hi)),
                    "median_cpu_s": _median([r["cpu_s"] for r in ok]),
                    "median_wall_s": _median([r["wall_s"] for r in ok])})
    return out


def _median(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 2) if xs else None


def cat15(records: Sequence[dict]) -> list[dict]:
    """cat15's pooled p and TTS99 with its interval, per backend, at the default length."""
    rs = [r for r in records
          if r["instance"] == "cat15" and "time_limit" not in r.get("variant", {})]
    return pool_points(rs, by=lambda r: r["sampler"])


def report(records: Sequence[dict]) -> None:
    """Prints the solved fractions with their intervals and cat15's TTS99 per backend."""
    from formulations.harness import format_table

    rows = table(records)
    print("solved within the limit (95 % Clopper-Pearson interval of the fraction); median "
          "seconds to the verified grid over the solved runs:")
    print(format_table(rows))
    for p in cat15(records):
        print(f"cat15 {p['group']}: length {p['length']}, p = {p['p']:.3f} ({p['successes']}/"
              f"{p['reads']}), TTS99 = {1e3 * p['tts99_s']:.3g} ms "
              f"[{1e3 * p['low_s']:.3g}, {1e3 * p['high_s']:.3g}] (CPU)")
