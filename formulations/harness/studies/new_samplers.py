"""The study of ``bench/new_samplers.py``: pimc, rotor, pt and pa tuned over a grid of settings
and compared with sa on the same puzzles; its puzzles, settings, plan of tasks, pooled points,
ratios to sa and the printed report."""
from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence

from ..study import Task, corpus_root, load, plan_of, pool_points

STUDY = "new_samplers"
CAT15 = "repo:puzzles/cat15.txt"
JANKO_REL = "puzzlekit-dataset-janko/Nonogram_dataset.json"


def puzzles(spec: str, skip: int = 0) -> list[tuple[str, str]]:
    """``cat15`` and/or ``SIZE:N`` items (the first N janko puzzles of that size by id, after
    ``skip``), comma separated: ``[(name, source)]``."""
    out = []
    want: dict[str, int] = {}
    for item in spec.split(","):
        item = item.strip()
        if item == "cat15":
            out.append(("cat15", CAT15))
        elif item:
            size, _, n = item.partition(":")
            want[size] = int(n or 3)
    if want:
        from formulations.io import iter_janko
        path = corpus_root() / JANKO_REL
        if not path.is_file():
            print(f"corpus not found at {path}; janko puzzles skipped", file=sys.stderr)
            return out
        by: dict[str, list] = {s: [] for s in want}
        for key, _p, _ in iter_janko(path):
            size = key.rsplit("_", 1)[-1]
            if size in by:
                by[size].append((int(key.split("_")[0]), key))
        for size, items in by.items():
            out += [(k, f"corpus:{JANKO_REL}::{k}")
                    for _, k in sorted(items)[skip:skip + want[size]]]
    return out


def grid_settings(grid: list[str]) -> list[str]:
    """``gamma=0,1 sweeps=100,400`` -> every combination as ``gamma=0+sweeps=100`` ..."""
    combos = [""]
    for axis in grid:
        k, _, vs = axis.partition("=")
        combos = [f"{c}+{k}={v}" if c else f"{k}={v}" for c in combos for v in vs.split(",")]
    return combos


_VARIABLES: dict[str, int] = {}


def default_length(backend: str, source: str) -> int:
    """The backend's default anneal length on this puzzle (automatic sweeps, or its number)."""
    from formulations.backends.sampling import AUTO, auto_sweeps

    d = plan_of(backend).default_sweeps
    if d != AUTO:
        return int(d)  # type: ignore[arg-type]  # a sampler without automatic sweeps has a number
    if source not in _VARIABLES:
        from formulations.model import build_model
        from formulations.model.penalty import lower
        _VARIABLES[source] = lower(build_model(load(source), use_x=False)).num_variables
    return auto_sweeps(_VARIABLES[source])


def task_of(name: str, source: str, backend: str, setting: str, seed: int,
            args: argparse.Namespace) -> Task:
    """``sweeps=400+gamma=1+beta_range=1:30`` as a Task."""
    length, beta, params = None, None, []
    for part in filter(None, setting.split("+")):
        k, _, v = part.partition("=")
        if k == "sweeps":
            length = int(v)
        elif k == "beta_range":
            lo, hi = (float(b) for b in v.replace(":", ",").split(","))
            beta = (lo, hi)
        else:
            params.append((k, float(v) if _number(v) else v))
    return Task(STUDY, name, source, backend,
                length if length is not None else default_length(backend, source), seed,
                reads=args.max_reads, reads_per_call=args.batch, cpu_budget_s=args.budget,
                min_calls=max(2, math.ceil(args.min_reads / args.batch)),
                beta_range=beta, params=tuple(params) or None)


def _number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


def plan(mode: str, args: argparse.Namespace) -> list[Task]:
    """The tasks of ``tune`` (every setting of the grid) or ``compare`` (each backend at its
    defaults)."""
    backends = args.backends.split(",")
    if mode == "compare":
        backends = ["sa"] + [b for b in backends if b != "sa"]
        settings = [""]
    else:
        settings = (args.settings or []) + (grid_settings(args.grid) if args.grid else []) or [""]
    seeds = range(args.seed, args.seed + args.seeds)
    return [task_of(name, src, b, s, seed, args) for name, src in puzzles(args.sizes, args.skip)
            for b in backends for s in settings for seed in seeds]  # interleaved per puzzle


# -- the statistics ------------------------------------------------------------------------------

def setting_of(r: dict) -> str:
    """A record's setting as the command line writes it (``sweeps=400+gamma=1``)."""
    v = r.get("variant", {})
    parts = [f"sweeps={r['length']}"]
    if "beta_range" in v:
        parts.append("beta_range=" + (v["beta_range"] if isinstance(v["beta_range"], str)
                                      else ":".join(f"{b:g}" for b in v["beta_range"])))
    parts += [f"{k}={val:g}" if isinstance(val, float) else f"{k}={val}"
              for k, val in v.get("params", {}).items()]
    return "+".join(parts)


def points(records: Sequence[dict]) -> list[dict]:
    """Per (puzzle, backend, setting): pooled p, TTS99 and its interval."""
    rows = pool_points(records, by=lambda r: (r["instance"], r["sampler"], setting_of(r)))
    for row in rows:
        row["puzzle"], row["backend"], row["setting"] = row.pop("group")
    return rows


def geomean(xs: Sequence[float]) -> float:
    """The geometric mean (nan of nothing)."""
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else math.nan


def ratios(records: Sequence[dict]) -> list[dict]:
    """Per puzzle and backend: TTS99 / sa's on the same puzzle, with the interval
    [low / sa's high, high / sa's low] (both intervals hold together with 90 % at least)."""
    pts = points(records)
    sa = {p["puzzle"]: p for p in pts if p["backend"] == "sa"}
    out = []
    for p in pts:
        base = sa.get(p["puzzle"])
        r = {**p, "ratio": math.nan, "ratio_low": math.nan, "ratio_high": math.nan}
        if base and math.isfinite(base["tts99_s"]):
            r["ratio"] = p["tts99_s"] / base["tts99_s"]
            r["ratio_low"] = p["low_s"] / base["high_s"] if math.isfinite(base["high_s"]) else 0.0
            r["ratio_high"] = p["high_s"] / base["low_s"]
        out.append(r)
    return out


def _ms(x: float) -> str:
    return "inf" if not math.isfinite(x) else f"{1e3 * x:.3g}"


def report(records: Sequence[dict], mode: str, tasks: Sequence[Task]) -> None:
    """Prints the points of the tasks asked for: the best setting per puzzle, or the ratios to
    sa."""
    keys = {t.key for t in tasks}
    recs = [r for r in records if r["key"] in keys]
    print(f"{len(recs)} records; TTS99 in ms of CPU [95 % interval]")
    if mode == "tune":
        pts = points(recs)
        for p in pts:
            print(f"{p['puzzle']:>14} {p['backend']:>6} {p['setting']:<36} {p['successes']:>4}/"
                  f"{p['reads']:<4} p={p['p']:.3f} TTS99 {_ms(p['tts99_s'])} "
                  f"[{_ms(p['low_s'])}, {_ms(p['high_s'])}]")
        print("\nbest setting per puzzle and backend (TTS99 point; the intervals above say "
              "which others it is not distinguishable from):")
        best: dict[tuple, dict] = {}
        for p in pts:
            k = (p["puzzle"], p["backend"])
            if k not in best or p["tts99_s"] < best[k]["tts99_s"]:
                best[k] = p
        for (pz, b), p in best.items():
            print(f"  {pz:>14} {b:>6} {p['setting']:<36} {_ms(p['tts99_s'])} "
                  f"[{_ms(p['low_s'])}, {_ms(p['high_s'])}]")
        return
    rows = ratios(recs)
    for r in rows:
        ratio = (f"{r['ratio']:.3g}x [{r['ratio_low']:.3g}, {r['ratio_high']:.3g}]"
                 if math.isfinite(r["ratio"]) else "-")
        print(f"{r['puzzle']:>14} {r['backend']:>6} {r['setting']:<14} p={r['p']:.3f} TTS99 "
              f"{_ms(r['tts99_s'])} [{_ms(r['low_s'])}, {_ms(r['high_s'])}]  vs sa {ratio}")
    print("\ngeometric mean of TTS99 / sa's over the puzzles both solve; puzzles solved:")
    for b in dict.fromkeys(r["backend"] for r in rows):
        rs = [r for r in rows if r["backend"] == b]
        fin = [r for r in rs if math.isfinite(r["ratio"]) and r["ratio"] > 0]
        print(f"  {b:>6}: {geomean([r['ratio'] for r in fin]):.3g}x over {len(fin)} puzzles; "
              f"p > 0 on {sum(r['successes'] > 0 for r in rs)}/{len(rs)}")
