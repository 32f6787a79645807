"""The annealing time-to-solution study of ``bench/anneal_tts.py``: sa on cat15 against sweeps,
x or not, family weights, beta range and presolve, and on janko 20x20-30x30 against sweeps;
its plan of tasks, the series a record belongs to, the pooled points, the best sweeps per
series (the per-quantile optimum) and the printed report."""
from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any

from ...analysis.optimal import LadderData, optimal_tts
from ...model.penalty import DEFAULT_WEIGHTS
from .. import release  # the release's statistics
from ..study import Task, corpus_root, pool_points

STUDY = "anneal_tts"
CAT15 = "repo:puzzles/cat15.txt"
JANKO_REL = "puzzlekit-dataset-janko/Nonogram_dataset.json"
EXPERIMENTS = ("weights", "sweeps", "sizes")
WEIGHT_GRID = [(1, 1, 1), (2, 2, 1), (3, 3, 1), (2, 3, 1), (3, 2, 1), (1, 2, 1), (2, 1, 1),
               (4, 4, 1), (1, 1, 2)]
SWEEPS = {"weights": (50, 100, 150, 200),
          "sweeps": (10, 20, 50, 100, 150, 200, 500, 1000, 2000, 5000, 10000),
          "sizes": (100, 300, 1000, 3000, 10000, 30000)}
SIZES = ("20x20", "25x25", "30x30")


def weights_of(monotone: float, order: float, link: float) -> tuple | None:
    """The Task's weights (None for the defaults, so that equal runs share their records)."""
    w = {"monotone": monotone, "order": order, "link": link}
    return None if w == dict(DEFAULT_WEIGHTS) else tuple(sorted(w.items()))


def janko_keys(per_size: int, sizes: Sequence[str] = SIZES) -> list[str]:
    """The first ``per_size`` janko puzzles (by id) of each size."""
    from formulations.io import iter_janko

    path = corpus_root() / JANKO_REL
    if not path.is_file():
        print(f"corpus not found at {path}; skipping sizes", file=sys.stderr)
        return []
    by: dict[str, list] = {s: [] for s in sizes}
    for key, _p, _ in iter_janko(path):
        size = key.rsplit("_", 1)[-1]
        if size in by:
            by[size].append((int(key.split("_")[0]), key))
    return [k for s in sizes for _, k in sorted(by[s])[:per_size]]


def plan(experiment: str, args: argparse.Namespace) -> list[Task]:
    """The tasks of one experiment (seeds ``seed .. seed + seeds - 1``)."""
    sweeps = args.sweep_list or SWEEPS[experiment]
    seeds = range(args.seed, args.seed + args.seeds)

    def task(inst: str, src: str, n: int, s: int, **kw) -> Task:
        return Task(STUDY, inst, src, "sa", n, s, reads=args.reads, reads_per_call=args.batch,
                    cpu_budget_s=args.budget, **kw)

    out: list[Task] = []
    if experiment == "weights":
        out = [task(args.puzzle, args.puzzle_source, n, s, use_x=ux, weights=weights_of(*w))
               for ux in (True, False) for w in WEIGHT_GRID for n in sweeps for s in seeds]
    elif experiment == "sweeps":
        variants: list[dict[str, Any]] = [dict(), dict(weights=weights_of(1, 1, 1)),
                                          dict(beta_range="sampler")]
        if args.presolve:
            variants.append(dict(presolve=True))
        out = [task(args.puzzle, args.puzzle_source, n, s, use_x=ux, **v)
               for ux in (True, False) for v in variants for n in sweeps for s in seeds
               if not (ux and v.get("presolve"))]
    elif experiment == "sizes":
        out = [task(k, f"corpus:{JANKO_REL}::{k}", n, s, use_x=ux)
               for k in janko_keys(args.per_size) for ux in (True, False) for n in sweeps
               for s in seeds]
    return out


# -- the statistics ------------------------------------------------------------------------------

def series(r: dict) -> str:
    """A record's series: its puzzle (or size), x or not, weights, beta range, presolve."""
    v = r.get("variant", {})
    w = r.get("weights") or DEFAULT_WEIGHTS
    return (f"{'x' if r['use_x'] else 'no-x'}"
            f"{' presolve' if v.get('presolve') else ''} "
            f"w={w['monotone']:g},{w['order']:g},{w['link']:g}"
            f" beta={'sampler' if v.get('beta_range') == 'sampler' else 'sa'}")


def select(records: Sequence[dict], experiment: str) -> list[dict]:
    """An experiment's records, by what they are (runs with other options share them): sizes,
    the corpus puzzles; sweeps, the named puzzle at the default or equal weights (x or not, the
    sampler's beta, presolve); weights, the named puzzle without a variant at the lengths the
    weight grid was measured at."""
    ok = [r for r in records if "error" not in r]
    if experiment == "sizes":
        return [r for r in ok if r["source"].startswith("corpus:")]
    rs = [r for r in ok if not r["source"].startswith("corpus:")]
    plain = {tuple(sorted(DEFAULT_WEIGHTS.items())), weights_of(1, 1, 1)}
    grid = [r for r in rs if tuple(sorted(r["weights"].items())) not in plain]
    if experiment == "weights":
        lengths = {r["length"] for r in grid}
        return [r for r in rs if not r.get("variant") and r["length"] in lengths]
    return [r for r in rs if r not in grid]


def points(records: Sequence[dict]) -> list[dict]:
    """Per (puzzle, series) and sweeps: pooled p, TTS99 and its interval."""
    rows = pool_points(records, by=lambda r: (r["instance"], series(r)))
    for row in rows:
        row["puzzle"], row["series"] = row.pop("group")
    return rows


def best(records: Sequence[dict], by_size: bool = False, resamples: int = 1000) -> list[dict]:
    """Per (puzzle or size, series): the sweeps minimising TTS99 (the median over the size's
    puzzles when ``by_size``; unsolved as inf), with its two-level bootstrap interval; ``bound``
    when at an end of the sweeps tried."""
    groups: dict[tuple, list[dict]] = {}
    decided: dict[tuple, list[dict]] = {}  # presolve settled the puzzle: nothing was sampled
    for r in records:
        name = (r["size"] if by_size else r["instance"], series(r))
        if "error" not in r and r.get("presolved"):
            decided.setdefault(name, []).append(r)
        elif "error" not in r and r.get("reads"):
            groups.setdefault(name, []).append(r)
    out = []
    for (name, ser), rs in sorted(decided.items()):
        if (name, ser) in groups:
            continue  # noted on the sampled row below
        cpu = sorted(r["setup_cpu_s"] for r in rs)
        out.append({"puzzle" if not by_size else "size": name, "series": ser,
                    "puzzles": len({r["instance"] for r in rs}),
                    "solved": len({r["instance"] for r in rs if r["verified"]}),
                    "variables": 0, "best_sweeps": None,
                    "where": "decided by presolve (line solving), nothing sampled; "
                             "TTS99 is presolve's CPU: median [min, max] of the runs",
                    "tts99_s": cpu[len(cpu) // 2], "low_s": cpu[0], "high_s": cpu[-1],
                    "p0_at": []})
    for (name, ser), rs in sorted(groups.items()):
        o = optimal_tts(LadderData.from_records(rs), (0.5,), resamples=resamples,
                        t_spread=release.time_spread(rs))[0]
        out.append({"puzzle" if not by_size else "size": name, "series": ser,
                    "puzzles": o.instances, "solved": o.solved,
                    "variables": sorted(r["variables"] for r in rs)[len(rs) // 2],
                    "best_sweeps": o.optimal_length,
                    "where": ("interior" if o.interior else f"bound ({o.edge or 'none solved'})")
                    + (f"; {len({x['instance'] for x in decided[(name, ser)]})} more decided by "
                       "presolve, not in this TTS99" if (name, ser) in decided else ""),
                    "tts99_s": o.tts99_s, "low_s": o.low_s, "high_s": o.high_s,
                    "p0_at": sorted({r["length"] for r in rs if r["successes"] == 0
                                     and not any(x["successes"] for x in rs
                                                 if x["length"] == r["length"]
                                                 and x["instance"] == r["instance"])})})
    return out


def _ms(x: float | None) -> str:
    return "inf" if x is None or not math.isfinite(x) else f"{1e3 * x:.3g}"


def report(records: Sequence[dict], experiment: str) -> None:
    """Prints one experiment's points and the best sweeps per series (or per size)."""
    recs = select(records, experiment)
    print(f"\n== {experiment}: {len(recs)} records; TTS99 in ms of CPU [95 % interval] ==")
    if experiment != "sizes":
        print(f"{'series':<30} {'sweeps':>6} {'reads':>6} {'p':>6} {'TTS99':>9} [interval]")
        for p in points(recs):
            print(f"{p['series']:<30} {p['length']:>6} {p['reads']:>6} {p['p']:>6.3f} "
                  f"{_ms(p['tts99_s']):>9} [{_ms(p['low_s'])}, {_ms(p['high_s'])}]")
    what = "size (median over its puzzles)" if experiment == "sizes" else "series"
    print(f"\nbest sweeps per {what}:")
    for b in best(recs, by_size=experiment == "sizes"):
        name = b.get("puzzle") or b.get("size")
        print(f"{name:>12} {b['series']:<30} {b['solved']}/{b['puzzles']} solved, "
              f"{b['variables']:>6} vars, sweeps {b['best_sweeps'] or '-'} {b['where']}: "
              f"{_ms(b['tts99_s'])} [{_ms(b['low_s'])}, {_ms(b['high_s'])}]")
