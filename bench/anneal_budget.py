"""The annealers' defaults with nothing but a time budget (a benchmark, not a test):

    python bench/anneal_budget.py [--backends sa,tabu,sa+x] [--per-size 30] [--time-limit 60]
                                  [--sizes 20x20,25x25,30x30,40x30] [--workers 1 | --scheduler ...]
    python bench/anneal_budget.py --report        # the tables again, from the records

Each run is what the command line a user types does, ``python -m formulations.solve FILE::KEY
--backend B --time-limit T --until-solved``: the same call (``solve`` with those options:
a sampler samples batch after batch until a verified grid or the limit, on every core), measured
in a worker by :func:`formulations.harness.study.measure` (a task with ``time_limit``: one trial,
process CPU of every thread and wall time of the call; the interpreter's start-up is not in it),
on a seeded sample of janko puzzles per size (read by path from the corpus). ``sa+x``: sa on
the model with x; ``tabu+tenure=40``: tabu with ``--param tenure=40``. Records in
``bench/results/anneal_budget/records.jsonl.gz``; a second run resumes. One worker by default:
the runs use every core themselves.

Per size and backend: the solved fraction with its 95 % Clopper-Pearson interval, the median CPU
and wall time to the verified grid; and cat15's p and TTS99 at the backends' default length with
fixed reads (no budget; tabu at the release's first length, 12,800 updates per variable).
The goal the project set: sa >= 90 % and tabu >= 80 % per size at 60 s.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # an uninstalled checkout
    sys.path.insert(0, str(ROOT))

from formulations.harness.study import (  # noqa: E402
    Task,
    corpus_root,
    pool_points,
    read_study,
    run_study,
    study_arguments,
)
from formulations.analysis.stats import p_interval  # noqa: E402

STUDY = "anneal_budget"
JANKO_REL = "puzzlekit-dataset-janko/Nonogram_dataset.json"
CAT15 = "repo:puzzles/cat15.txt"
VARIANTS = ("x",)  # BACKEND+VARIANT on --backends: sa+x is sa on the model with x


def sample(size: str, k: int, seed: int) -> list[str]:
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
    from formulations.harness import format_table

    rows = table(records)
    print("solved within the limit (95 % Clopper-Pearson interval of the fraction); median "
          "seconds to the verified grid over the solved runs:")
    print(format_table(rows))
    for p in cat15(records):
        print(f"cat15 {p['group']}: length {p['length']}, p = {p['p']:.3f} ({p['successes']}/"
              f"{p['reads']}), TTS99 = {1e3 * p['tts99_s']:.3g} ms "
              f"[{1e3 * p['low_s']:.3g}, {1e3 * p['high_s']:.3g}] (CPU)")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backends", default="sa,tabu")
    ap.add_argument("--sizes", default="20x20,25x25,30x30,40x30")
    ap.add_argument("--per-size", type=int, default=30)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--report", action="store_true", help="only the tables, from the records")
    study_arguments(ap, STUDY)
    args = ap.parse_args(argv)
    if args.report:
        report(read_study(args, "python bench/anneal_budget.py"))
        return 0
    if not (corpus_root() / JANKO_REL).is_file():
        print(f"the janko corpus is not at {corpus_root() / JANKO_REL}", file=sys.stderr)
        return 2
    unknown = sorted({e for b in args.backends.split(",") for e in b.split("+")[1:]
                      if "=" not in e} - set(VARIANTS))
    if unknown:
        print(f"unknown variant {unknown[0]!r} (variants: {', '.join(VARIANTS)})",
              file=sys.stderr)
        return 2
    report(run_study(plan(args), args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
