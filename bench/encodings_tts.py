"""Encodings side by side: does the order encoding anneal better than one-hot? (a benchmark, not
a test)

    python bench/encodings_tts.py weights   # tune the other encodings' family weights (sa)
    python bench/encodings_tts.py study     # models, CP-SAT, TTS99: puzzle x encoding x sampler
    python bench/encodings_tts.py report    # the summary, ratios and plot again from the CSVs

For the same puzzles (the project's 5x5, 10x10, 15x15 and 25x25 puzzles, cat15 among them, and the
first ``--per-size`` janko puzzles by id of each size 10x10 to 30x30), each encoding and each
sampler (dwave-samplers ``sa``, OpenJij ``SASampler``, dwave-samplers ``tabu``), this records

* the model: variables, constraints, quadratic interactions, coupling range (the largest over
  the smallest nonzero coefficient of the QUBO, linear ones included), build time;
* CP-SAT's time for the exact side (``solve_puzzle(..., "cpsat", unique=True)``, median of
  ``--cpsat-repeats``);
* per anneal length (sweeps for the annealers, the per-read timeout in ms for tabu): reads, the
  fraction p of reads whose exact penalty is 0, CPU time per read and TTS99 with its 95 %
  bootstrap interval (``formulations.stats.tts99_interval``).

TTS99 at the optimal anneal length is the minimum over the lengths measured, per puzzle, as the
issue defines it; its interval is the one measured at that length. Lengths grow by about 3x and
stop once p >= 0.99 (longer reads only cost more), once TTS99 is 10x the best so far (past the
optimum), or when ``--min-reads`` reads would take more than ``--point-budget`` seconds of CPU.
When no read at any length succeeded, TTS99 is unbounded; the report then gives the lower bound
``t_read * ln(0.01) / ln(1 - 3 / reads)`` (the rule of three: with no success in R reads, p < 3/R
at 95 % confidence), the smallest over the lengths measured, so it holds for those lengths only.

Times are CPU seconds of this process (SA runs on one core and the machine is shared, so CPU time
is the reproducible figure); wall times are in the CSV too. Models are built without the cell
variables x unless ``--x`` says otherwise (the order encoding's faster variant for ``sa``).
Writes ``bench/results/encodings_{weights,models,study,summary}.csv`` and ``encodings_tts.png``
and prints the tables; rows already in ``encodings_study.csv`` are not measured again (run the
same command to resume). The corpus is read by path (``--corpus``, default ``../shared/corpus``
beside the repository, or ``$NONOGRAM_CORPUS``), never copied.
"""
from __future__ import annotations

import argparse
import csv
import itertools
import math
import os
import statistics
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from backends.anneal import TABU_MAX_VARIABLES, default_beta_range  # noqa: E402
from formulations.io import iter_janko, read_puzzle  # noqa: E402
from formulations.model import ENCODINGS, build_model  # noqa: E402
from formulations.model.penalty import penalty_terms  # noqa: E402
from formulations.puzzle import check_grid  # noqa: E402
from formulations.results import tts99  # noqa: E402
from formulations.stats import tts99_interval  # noqa: E402

RESULTS = ROOT / "bench" / "results"
DEFAULT_CORPUS = Path(os.environ.get("NONOGRAM_CORPUS", ROOT.parent / "shared" / "corpus"))
JANKO = Path("puzzlekit-dataset-janko") / "Nonogram_dataset.json"
PROJECT = {"5x5": ["heart5", "arrow5", "cross5"], "10x10": ["boat10", "house10"],
           "15x15": ["cat15", "tree15"], "25x25": ["smiley25"]}
SIZES = ("10x10", "15x15", "20x20", "25x25", "30x30")
SAMPLERS = ("sa", "openjij", "tabu")
LENGTHS = {"sa": (10, 30, 100, 300, 1000, 3000, 10000, 30000),
           "openjij": (10, 30, 100, 300, 1000, 3000, 10000, 30000),
           "tabu": (1, 3, 10, 30, 100, 300, 1000, 3000)}  # ms per read
LENGTH_UNIT = {"sa": "sweeps", "openjij": "sweeps", "tabu": "timeout_ms"}
VERBOSE = True  # one line per measurement on stdout

MODEL_FIELDS = ["puzzle", "size", "cells", "encoding", "use_x", "variables", "constraints",
                "interactions", "j_min", "j_max", "h_max", "coupling_range", "build_s",
                "cpsat_status", "cpsat_unique", "cpsat_s", "cpsat_search_s"]
STUDY_FIELDS = ["puzzle", "size", "cells", "encoding", "use_x", "sampler", "length", "unit",
                "variables", "interactions", "reads", "successes", "p", "t_read_s",
                "t_read_wall_s", "tts99_s", "tts99_low_s", "tts99_high_s", "best_energy", "seed",
                "note"]
SUMMARY_FIELDS = ["puzzle", "size", "cells", "encoding", "use_x", "sampler", "best_length", "unit",
                  "p", "reads", "tts99_s", "tts99_low_s", "tts99_high_s", "tts99_bound_s",
                  "lengths_measured", "variables", "interactions", "coupling_range", "cpsat_s"]


# -- puzzles and models -------------------------------------------------------------------------

def study_puzzles(per_size: int, sizes: Sequence[str], corpus: Path,
                  project: bool = True) -> list[tuple[str, str, Any]]:
    """``(name, size, puzzle)``: the project's puzzles, then the first ``per_size`` janko
    puzzles by id of each size (none when the corpus is absent)."""
    out = []
    if project:
        for size, names in PROJECT.items():
            out += [(n, size, read_puzzle(ROOT / "puzzles" / f"{n}.txt")) for n in names]
    path = corpus / JANKO
    if per_size and not path.is_file():
        print(f"janko corpus not found at {path}; project puzzles only", file=sys.stderr)
        return out
    by_size: dict[str, list] = {s: [] for s in sizes}
    if per_size:
        for key, puzzle, _ in iter_janko(path):
            size = key.rsplit("_", 1)[-1]
            if size in by_size:
                by_size[size].append((int(key.split("_")[0]), key, puzzle))
    for size in sizes:
        first = sorted(by_size[size], key=lambda t: t[0])[:per_size]
        out += [(key, size, p) for _, key, p in first]
    return out


def model_stats(puzzle, encoding: str, use_x: bool) -> tuple[dict, Any, Any]:
    """The model's figures, its penalty terms and the model itself."""
    t = time.perf_counter()
    nm = build_model(puzzle, use_x=use_x, encoding=encoding)
    build_s = time.perf_counter() - t
    terms = penalty_terms(nm)
    pen = terms.weighted(None)
    qv = np.abs(pen.qv)
    h = np.abs(pen.linear[pen.linear != 0])
    coefs = np.concatenate([qv, h])
    return ({"variables": nm.model.num_variables, "constraints": nm.model.num_constraints,
             "interactions": len(pen.qv),
             "j_min": float(qv.min()) if len(qv) else None,
             "j_max": float(qv.max()) if len(qv) else None,
             "h_max": float(h.max()) if len(h) else None,
             "coupling_range": float(coefs.max() / coefs.min()) if len(coefs) else None,
             "build_s": build_s}, terms, nm)


def cpsat_time(puzzle, encoding: str, repeats: int) -> dict:
    """CP-SAT deciding the puzzle (a solution and its uniqueness), median of ``repeats``."""
    from formulations.solving import solve_puzzle

    runs = [solve_puzzle(puzzle, "cpsat", encoding=encoding, unique=True, seed=k, time_limit=120)
            for k in range(repeats)]
    return {"cpsat_status": runs[0].status.value, "cpsat_unique": runs[0].unique,
            "cpsat_s": statistics.median(r.total_s for r in runs),
            "cpsat_search_s": statistics.median(r.info.get("cpsat_wall_s", math.nan) for r in runs)}


# -- sampling ------------------------------------------------------------------------------------

def make_sampler(name: str):
    if name == "sa":
        from dwave.samplers import SimulatedAnnealingSampler
        return SimulatedAnnealingSampler()
    if name == "openjij":
        import openjij
        return openjij.SASampler()
    if name == "tabu":
        from dwave.samplers import TabuSampler
        return TabuSampler()
    raise ValueError(f"unknown sampler {name!r} (choose from {', '.join(SAMPLERS)})")


def available(name: str) -> bool:
    try:
        make_sampler(name)
        return True
    except ImportError:
        return False


def sample(sampler_name: str, sampler, bqm, pen, length: int, reads: int, seed: int):
    """One call of the sampler: its samples in model order, CPU and wall seconds."""
    lo, hi = default_beta_range(pen.weights)  # the sa backend's range, for both annealers
    if sampler_name == "sa":
        kw = dict(num_reads=reads, num_sweeps=length, seed=seed, beta_range=(lo, hi))
    elif sampler_name == "openjij":
        kw = dict(num_reads=reads, num_sweeps=length, seed=seed, beta_min=lo, beta_max=hi)
    else:  # tabu: each read stops at energy 0 (the offset is not in its energies) or at timeout
        kw = dict(num_reads=reads, timeout=length, seed=seed,
                  energy_threshold=-pen.offset + 1e-9 * max(1.0, abs(pen.offset)))
    t, c = time.perf_counter(), time.process_time()
    ss = sampler.sample(bqm, **kw)
    rec = ss.record
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    X = np.zeros((len(rec), pen.num_variables), dtype=np.int8)
    X[:, np.fromiter(ss.variables, dtype=np.int64, count=len(ss.variables))] = rec.sample
    counts = np.asarray(rec.num_occurrences, dtype=np.int64)
    return np.repeat(X, counts, axis=0), cpu, wall


def point_seed(*parts: Any) -> int:
    return zlib.crc32(repr(parts).encode()) % (2 ** 31)


MAX_SAMPLE_BYTES = 5e7  # one call's samples (reads x variables int8) stay below this


def measure(sampler_name: str, sampler, bqm, pen, nm, puzzle, length: int, reads: int,
            seed: int, budget_s: float, min_reads: int) -> dict:
    """One anneal length: two probe reads size the run to the budget, then ``reads`` reads (or
    as many as fit, at least ``min_reads``; none when even those would not fit). When none of
    them succeeded, a further batch that fills the budget is drawn and pooled with the first
    (see :func:`extend`)."""
    _, probe, _ = sample(sampler_name, sampler, bqm, pen, length, 2, seed + 1)
    per_read = max(probe / 2, 1e-7)
    if min_reads * per_read > budget_s:
        return {"reads": 0, "note": f"over budget: {min_reads} reads would take "
                                    f"{min_reads * per_read:.1f} s CPU"}
    n = max(min_reads, min(reads, int(budget_s / per_read)))
    row = _batch(sampler_name, sampler, bqm, pen, nm, puzzle, length, n, seed)
    if row["successes"] == 0:
        row = extend(sampler_name, sampler, bqm, pen, nm, puzzle, length, row, seed, budget_s)
    return row


def extend(sampler_name: str, sampler, bqm, pen, nm, puzzle, length: int, row: dict, seed: int,
           budget_s: float) -> dict:
    """A length whose reads all failed gets a further batch that fills the budget (at least
    twice as many reads), pooled with the first: p is estimated from every read drawn, so a
    batch is never kept or thrown away for its outcome (keeping a first batch with a success
    and replacing one without biased p high, up to 1.9x at p = 0.001). Without it the
    rule-of-three bound of a cheap short length would be the weakest and decide the bound."""
    r0, per_read = int(row["reads"]), max(_num(row["t_read_s"]), 1e-7)
    cap = int(MAX_SAMPLE_BYTES / max(1, pen.num_variables))
    n = min(cap, int(budget_s / per_read))
    if n < 2 * r0:
        return row
    fresh = _batch(sampler_name, sampler, bqm, pen, nm, puzzle, length, n, seed + 2)
    pooled = pool_batches(row, fresh, seed)
    pooled["note"] = f"pooled: {n} more reads after 0 of {r0}"
    return pooled


def pool_batches(a: dict, b: dict, seed: int = 0) -> dict:
    """Two batches' rows at the same length as one: reads and successes summed, CPU and wall
    time per read averaged over the reads, TTS99 and its interval from the pooled figures (the
    two batches' times per read as the time spread)."""
    ra, rb = int(a["reads"]), int(b["reads"])
    n = ra + rb
    k = int(a["successes"]) + int(b["successes"])
    ta, tb = _num(a["t_read_s"]), _num(b["t_read_s"])
    t_read = (ta * ra + tb * rb) / n
    wall = (_num(a["t_read_wall_s"]) * ra + _num(b["t_read_wall_s"]) * rb) / n
    ci = tts99_interval(k, n, t_read, seed=seed, t_samples=[ta, tb])
    return {"reads": n, "successes": k, "p": k / n, "t_read_s": t_read, "t_read_wall_s": wall,
            "tts99_s": tts99(t_read, k / n), "tts99_low_s": ci.low, "tts99_high_s": ci.high,
            "best_energy": min(_num(a["best_energy"]), _num(b["best_energy"])), "note": ""}


def _batch(sampler_name: str, sampler, bqm, pen, nm, puzzle, length: int, n: int,
           seed: int) -> dict:
    X, cpu, wall = sample(sampler_name, sampler, bqm, pen, length, n, seed)
    E = pen.energies(X)
    ok = E == 0
    if ok.any():  # the package's decoder and checker agree with the penalty
        grid = nm.decode(X[int(np.argmax(ok))])
        if check_grid(puzzle, grid):
            raise RuntimeError("an energy-0 read decodes to a grid that breaks the clues")
    successes, t_read = int(ok.sum()), cpu / len(X)
    ci = tts99_interval(successes, len(X), t_read, seed=seed)
    return {"reads": len(X), "successes": successes, "p": successes / len(X), "t_read_s": t_read,
            "t_read_wall_s": wall / len(X), "tts99_s": tts99(t_read, successes / len(X)),
            "tts99_low_s": ci.low, "tts99_high_s": ci.high, "best_energy": float(E.min()),
            "note": ""}


def sweep_lengths(sampler_name: str, sampler, bqm, pen, nm, puzzle, base: dict, done: dict,
                  cfg: "Config") -> Iterable[dict]:
    """Rows for increasing anneal lengths until p >= 0.99, TTS99 is 10x the best so far, or the
    budget is spent (``done``: rows already measured, by length)."""
    best = math.inf
    for length in LENGTHS[sampler_name]:
        if cfg.max_length and length > cfg.max_length:
            return
        row = done.get(length)
        if row is None:
            seed = point_seed(base["puzzle"], base["encoding"], base["use_x"], sampler_name, length)
            row = {**base, "sampler": sampler_name, "length": length,
                   "unit": LENGTH_UNIT[sampler_name], "seed": seed,
                   **measure(sampler_name, sampler, bqm, pen, nm, puzzle, length, cfg.reads, seed,
                             cfg.point_budget, cfg.min_reads)}
            _echo(row)
            yield row
        if not int(row["reads"] or 0):
            return
        tts = _num(row["tts99_s"])
        if _num(row["p"]) >= 0.99 or (math.isfinite(best) and tts > 10 * best):
            return
        best = min(best, tts)


# -- the experiments -----------------------------------------------------------------------------

@dataclass
class Config:
    """How much each anneal length gets (the command line's options of the same names)."""
    reads: int = 100
    min_reads: int = 20
    point_budget: float = 10.0
    max_length: int | None = None
    cpsat_repeats: int = 3


def measure_puzzle(name: str, size: str, puzzle, encoding: str, use_x: bool,
                   samplers: Sequence[str], cfg: Config, model_done: bool = False,
                   done: dict | None = None) -> Iterable[tuple[str, dict]]:
    """``("model", row)`` (unless ``model_done``), then ``("study", row)`` for every anneal
    length measured of every sampler (``done``: rows already measured, by sampler and length)."""
    stats, terms, nm = model_stats(puzzle, encoding, use_x)
    base = {"puzzle": name, "size": size, "cells": puzzle.height * puzzle.width,
            "encoding": encoding, "use_x": use_x, "variables": stats["variables"],
            "interactions": stats["interactions"]}
    if not model_done:
        row = {**base, **stats, **cpsat_time(puzzle, encoding, cfg.cpsat_repeats)}
        if VERBOSE:
            print(f"{name:>12} {encoding:>9} x={int(use_x)} n={stats['variables']:>6} "
                  f"q={stats['interactions']:>7} range={stats['coupling_range']:g} "
                  f"cpsat={row['cpsat_s']:.3f}s", flush=True)
        yield "model", row
    pen = terms.weighted(None)
    bqm = pen.to_bqm(labels="index")
    for s in samplers:
        if s == "tabu" and stats["variables"] > TABU_MAX_VARIABLES:
            continue  # TabuSampler builds two dense n x n matrices
        for row in sweep_lengths(s, make_sampler(s), bqm, pen, nm, puzzle, base,
                                 (done or {}).get(s, {}), cfg):
            yield "study", row


def installed(samplers: Sequence[str]) -> list[str]:
    out = [s for s in samplers if available(s)]
    for s in [s for s in samplers if s not in out]:
        print(f"sampler {s} is not installed; skipped", file=sys.stderr)
    return out


def run_study(args) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    models_path, study_path = RESULTS / "encodings_models.csv", RESULTS / "encodings_study.csv"
    models = {(r["puzzle"], r["encoding"], r["use_x"]) for r in read_csv(models_path)}
    done: dict[tuple, dict] = {}
    for r in read_csv(study_path):
        done.setdefault((r["puzzle"], r["encoding"], r["use_x"]), {}).setdefault(
            r["sampler"], {})[int(r["length"])] = r
    samplers = installed(args.samplers)
    cfg = Config(args.reads, args.min_reads, args.point_budget, args.max_length,
                 args.cpsat_repeats)
    puzzles = study_puzzles(args.per_size, args.sizes, args.corpus, project=not args.no_project)
    with open_csv(models_path, MODEL_FIELDS) as mw, open_csv(study_path, STUDY_FIELDS) as sw:
        for (name, size, puzzle), enc, use_x in itertools.product(puzzles, args.encodings, args.x):
            key = (name, enc, str(use_x).lower())
            for kind, row in measure_puzzle(name, size, puzzle, enc, use_x, samplers, cfg,
                                            key in models, done.get(key)):
                (mw if kind == "model" else sw).write(row)
    report()


def run_extend(args) -> None:
    """Rows of ``encodings_study.csv`` measured before :func:`extend` existed: every length
    whose reads all failed, in a group that never succeeded or where that length's bound is
    below the group's best TTS99 (elsewhere a fresh batch could not change the optimum), gets
    its further batch, pooled with it; the file is rewritten with those rows replaced."""
    path = RESULTS / "encodings_study.csv"
    rows = read_csv(path)
    groups: dict[tuple, list[int]] = {}
    for k, r in enumerate(rows):
        groups.setdefault((r["puzzle"], r["encoding"], r["use_x"], r["sampler"]), []).append(k)
    todo: dict[tuple, list[int]] = {}
    for (puzzle, enc, ux, s), ks in groups.items():
        measured = [k for k in ks if int(rows[k]["reads"] or 0)]
        finite = [_num(rows[k]["tts99_s"]) for k in measured
                  if math.isfinite(_num(rows[k]["tts99_s"]))]
        best = min(finite, default=math.inf)
        for k in measured:
            r = rows[k]
            if int(r["successes"]) == 0 and not r["note"] and bound(r) < best:
                todo.setdefault((puzzle, enc, ux), []).append(k)
    print(f"{sum(map(len, todo.values()))} lengths to extend in {len(todo)} models", flush=True)
    puzzles = {name: (size, p) for name, size, p in
               study_puzzles(args.per_size, args.sizes, args.corpus, project=not args.no_project)}
    for (name, enc, ux), ks in todo.items():
        if name not in puzzles:
            continue
        size, puzzle = puzzles[name]
        _, terms, nm = model_stats(puzzle, enc, ux == "true")
        pen = terms.weighted(None)
        bqm = pen.to_bqm(labels="index")
        for k in ks:
            r = rows[k]
            s = r["sampler"]
            new = extend(s, make_sampler(s), bqm, pen, nm, puzzle, int(r["length"]),
                         r, int(r["seed"]), args.point_budget)
            if new is not r:
                rows[k] = {**r, **{f: _cell(v) for f, v in new.items()}}
                _echo({**r, **new, "length": int(r["length"])})
                write_csv(path, STUDY_FIELDS, rows)  # after each, so an interruption keeps them
    report()


def run_rows(puzzles: Sequence[tuple[str, str, Any]], encodings: Sequence[str],
             samplers: Sequence[str], cfg: Config, use_x: bool = False) -> tuple[list, list]:
    """The study in memory (for a notebook): ``(model rows, study rows)`` as the CSVs hold
    them after reading back."""
    models, study = [], []
    for (name, size, puzzle), enc in itertools.product(puzzles, encodings):
        for kind, row in measure_puzzle(name, size, puzzle, enc, use_x, installed(samplers), cfg):
            (models if kind == "model" else study).append({k: _cell(v) for k, v in row.items()})
    return models, study


def run_weights(args) -> None:
    """The other encodings' family weights: sa at one anneal length on small puzzles, each
    pair of weights 0.5-4 against link 1 and four beta ranges (per unit of the smallest weight)."""
    from dwave.samplers import SimulatedAnnealingSampler

    names = ["heart5", "boat10", "house10"]
    families = {"onehot": ("exactly_one", "clash"), "automaton": ("one_state", "transition")}
    sampler = SimulatedAnnealingSampler()
    rows = []
    for enc in [e for e in args.encodings if e in families]:
        fa, fb = families[enc]
        terms = {(n, ux): penalty_terms(build_model(read_puzzle(ROOT / "puzzles" / f"{n}.txt"),
                                                    use_x=ux, encoding=enc))
                 for n in names for ux in (True, False)}
        for wa, wb, beta in itertools.product((0.5, 1, 2, 4), (0.5, 1, 2, 4),
                                              ((1, 10), (0.3, 10), (0.1, 3), (1, 30))):
            w = {fa: wa, fb: wb, "link": 1.0}
            m = min(w.values())
            for (n, ux), t in terms.items():
                pen = t.weighted(w)
                ss = sampler.sample(pen.to_bqm(labels="index"), num_reads=args.reads,
                                    num_sweeps=args.weight_sweeps, seed=1,
                                    beta_range=(beta[0] / m, beta[1] / m))
                X = np.zeros((len(ss.record), pen.num_variables), dtype=np.int8)
                X[:, np.fromiter(ss.variables, dtype=np.int64)] = ss.record.sample
                broken = pen.family_energies(X).sum(axis=1)  # unweighted penalty
                rows.append({"encoding": enc, "puzzle": n, "use_x": ux, fa: wa, fb: wb,
                             "beta_lo": beta[0], "beta_hi": beta[1],
                             "sweeps": args.weight_sweeps, "reads": len(X),
                             "p": float((broken == 0).mean()),
                             "mean_penalty": float(broken.mean())})
    path = RESULTS / "encodings_weights.csv"
    RESULTS.mkdir(parents=True, exist_ok=True)
    fields = sorted({k for r in rows for k in r}, key=lambda k: list(rows[0]).index(k)
                    if k in rows[0] else 99)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    # per encoding and weights: mean p and mean unweighted penalty over puzzles and variants
    for enc in families:
        fa, fb = families[enc]
        group: dict[tuple, list] = {}
        for r in rows:
            if r["encoding"] == enc:
                group.setdefault((r[fa], r[fb], r["beta_lo"], r["beta_hi"]), []).append(r)
        ranked = sorted(group.items(),
                        key=lambda kv: statistics.fmean(r["mean_penalty"] for r in kv[1]))
        print(f"\n{enc}: best 8 of {len(ranked)} by mean unweighted penalty")
        for (a, b, lo, hi), rs in ranked[:8]:
            p = statistics.fmean(r["p"] for r in rs)
            penalty = statistics.fmean(r["mean_penalty"] for r in rs)
            print(f"  {fa}={a:g} {fb}={b:g} beta={lo:g}..{hi:g}: p={p:.3f} penalty={penalty:.2f}")
    print(f"wrote {path}")


# -- the summary ---------------------------------------------------------------------------------

def bound(row: dict) -> float:
    """With no success in R reads, TTS99 exceeds this at 95 % confidence (rule of three)."""
    r = int(row["reads"])
    t = _num(row["t_read_s"])
    if r <= 3:
        return t
    return t * math.log(0.01) / math.log(1 - 3 / r)


def summarize(study_rows: Sequence[dict], model_rows: Sequence[dict]) -> list[dict]:
    """Per puzzle x encoding x variant x sampler: TTS99 at the optimal anneal length."""
    models = {(r["puzzle"], r["encoding"], str(r["use_x"]).lower()): r for r in model_rows}
    groups: dict[tuple, list] = {}
    for r in study_rows:
        if int(r["reads"] or 0):
            groups.setdefault((r["puzzle"], r["encoding"], str(r["use_x"]).lower(), r["sampler"]),
                              []).append(r)
    out = []
    for (puzzle, enc, ux, s), rs in groups.items():
        finite = [r for r in rs if math.isfinite(_num(r["tts99_s"]))]
        m = models.get((puzzle, enc, ux), {})
        common = {"puzzle": puzzle, "size": rs[0]["size"], "cells": int(rs[0]["cells"]),
                  "encoding": enc, "use_x": ux == "true", "sampler": s, "unit": rs[0]["unit"],
                  "lengths_measured": len(rs), "variables": int(rs[0]["variables"]),
                  "interactions": int(rs[0]["interactions"]),
                  "coupling_range": _num(m.get("coupling_range")),
                  "cpsat_s": _num(m.get("cpsat_s"))}
        if finite:
            b = min(finite, key=lambda r: _num(r["tts99_s"]))
            out.append({**common, "best_length": int(b["length"]), "p": _num(b["p"]),
                        "reads": int(b["reads"]), "tts99_s": _num(b["tts99_s"]),
                        "tts99_low_s": _num(b["tts99_low_s"]),
                        "tts99_high_s": _num(b["tts99_high_s"]),
                        "tts99_bound_s": None})
        else:
            b = min(rs, key=bound)
            out.append({**common, "best_length": None, "p": 0.0, "reads": int(b["reads"]),
                        "tts99_s": math.inf, "tts99_low_s": bound(b), "tts99_high_s": math.inf,
                        "tts99_bound_s": bound(b)})
    return sorted(out, key=lambda r: (r["cells"], r["puzzle"], r["sampler"], r["encoding"]))


def ratios(summary: Sequence[dict], base: str = "order", other: str = "onehot") -> list[dict]:
    """Per puzzle and sampler: other / base TTS99 with the interval ``[other_low / base_high,
    other_high / base_low]``; a lower bound only when ``other`` never succeeded."""
    by = {(r["puzzle"], r["use_x"], r["sampler"], r["encoding"]): r for r in summary}
    out = []
    for (puzzle, ux, s, enc), b in by.items():
        o = by.get((puzzle, ux, s, other))
        if enc != base or o is None:
            continue
        finite_b = math.isfinite(b["tts99_s"])
        row = {"puzzle": puzzle, "size": b["size"], "cells": b["cells"], "use_x": ux, "sampler": s,
               "base": base, "other": other,
               "base_tts99_s": b["tts99_s"], "base_low_s": b["tts99_low_s"],
               "base_high_s": b["tts99_high_s"],
               "other_tts99_s": o["tts99_s"], "other_low_s": o["tts99_low_s"],
               "other_high_s": o["tts99_high_s"]}
        if not finite_b:
            row.update(ratio=None, ratio_low=None, ratio_high=None, kind="base unsolved")
        elif math.isfinite(o["tts99_s"]):
            hi = b["tts99_high_s"]
            row.update(ratio=o["tts99_s"] / b["tts99_s"],
                       ratio_low=o["tts99_low_s"] / hi if math.isfinite(hi) else 0.0,
                       ratio_high=o["tts99_high_s"] / b["tts99_low_s"], kind="measured")
        else:
            hi = b["tts99_high_s"]
            row.update(ratio=None, ratio_low=o["tts99_bound_s"] / hi if math.isfinite(hi) else None,
                       ratio_high=math.inf, kind="lower bound")
        out.append(row)
    return sorted(out, key=lambda r: (r["cells"], r["puzzle"], r["sampler"]))


def by_size(rat: Sequence[dict]) -> list[dict]:
    """Per size and sampler: geometric means over puzzles of the ratio and its interval ends
    where measured, and how many puzzles only bound it from below (with their smallest bound)."""
    groups: dict[tuple, list] = {}
    for r in rat:
        groups.setdefault((r["cells"], r["size"], r["sampler"]), []).append(r)
    out = []
    for (cells, size, s), rs in sorted(groups.items()):
        meas = [r for r in rs if r["kind"] == "measured"]
        lower = [r for r in rs if r["kind"] == "lower bound" and r["ratio_low"]]
        gm = (lambda xs: math.exp(statistics.fmean(math.log(x) for x in xs)) if xs and min(xs) > 0
              else None)
        out.append({"size": size, "sampler": s, "puzzles": len(rs), "measured": len(meas),
                    "ratio_geomean": gm([r["ratio"] for r in meas]),
                    "ratio_low": gm([r["ratio_low"] for r in meas]),
                    "ratio_high": gm([r["ratio_high"] for r in meas]) if all(
                        math.isfinite(r["ratio_high"]) for r in meas) else math.inf,
                    "base_tts99_ms": gm([1e3 * r["base_tts99_s"] for r in rs
                                         if math.isfinite(r["base_tts99_s"])]),
                    "other_unsolved": len(lower),
                    "ratio_at_least": min((r["ratio_low"] for r in lower), default=None),
                    "base_unsolved": sum(r["kind"] == "base unsolved" for r in rs)})
    return out


def _fmt(v: float | None, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if math.isinf(v):
        return "inf"
    return f"{v:.{digits}g}"


def markdown_by_size(summary: Sequence[dict], other: str = "onehot",
                     samplers: Sequence[str] = SAMPLERS) -> str:
    """The per-size table of the README and the notebook: per size and sampler, TTS99 in ms
    (geometric means over the size's puzzles of the value and of the interval ends), the ratio
    other / order where both were measured, and the smallest lower bound of the ratio over the
    puzzles where ``other`` never succeeded."""
    def gm(xs):
        return math.exp(statistics.fmean(math.log(x) for x in xs)) if xs else None

    by = {(r["puzzle"], r["sampler"], r["encoding"]): r for r in summary}
    rat = ratios(summary, other=other)
    lines = [f"| size | sampler | puzzles | order TTS99 ms [95 %] | {other} TTS99 ms [95 %] "
             f"| {other} / order [95 %] |", "|---|---|---|---|---|---|"]
    for cells, size in sorted({(r["cells"], r["size"]) for r in rat}):
        for s in samplers:
            rs = [r for r in rat if r["size"] == size and r["sampler"] == s]
            if not rs:
                continue
            base = [by[r["puzzle"], s, "order"] for r in rs]
            oth = [by[r["puzzle"], s, other] for r in rs]

            def cell(group):
                if not all(math.isfinite(g["tts99_s"]) for g in group):
                    return None
                lo = gm([max(g["tts99_low_s"], 1e-12) for g in group])
                his = [g["tts99_high_s"] for g in group]
                hi = gm(his) if all(math.isfinite(h) for h in his) else math.inf
                return (f"{_fmt(1e3 * gm([g['tts99_s'] for g in group]))} "
                        f"[{_fmt(1e3 * lo)}, {_fmt(1e3 * hi)}]")

            base_cell = cell(base) or "not all solved"
            unsolved = [g for g in oth if not math.isfinite(g["tts99_s"])]
            other_cell = cell(oth) or (f"{len(unsolved)} of {len(oth)} never solved, "
                                       f"> {_fmt(1e3 * min(g['tts99_bound_s'] for g in unsolved))}")
            meas = [r for r in rs if r["kind"] == "measured"]
            lower = [r["ratio_low"] for r in rs if r["kind"] == "lower bound" and r["ratio_low"]]
            parts = []
            if meas:
                his = [r["ratio_high"] for r in meas]
                hi = gm(his) if all(math.isfinite(h) for h in his) else math.inf
                parts.append(f"{_fmt(gm([r['ratio'] for r in meas]))} "
                             f"[{_fmt(gm([max(r['ratio_low'], 1e-12) for r in meas]))}, {_fmt(hi)}]"
                             + (f" ({len(meas)} measured)" if len(meas) < len(rs) else ""))
            if lower:
                parts.append(f">= {_fmt(min(lower))} ({len(lower)} never solved)")
            lines.append(f"| {size} | {s} | {len(rs)} | {base_cell} | {other_cell} | "
                         f"{'; '.join(parts) or '-'} |")
    return "\n".join(lines)


def report(results: Path = RESULTS) -> None:
    study = read_csv(results / "encodings_study.csv")
    models = read_csv(results / "encodings_models.csv")
    if not study:
        print("no study rows yet: python bench/encodings_tts.py study")
        return
    summary = summarize(study, models)
    write_csv(results / "encodings_summary.csv", SUMMARY_FIELDS, summary)
    print(format_rows(models, ["puzzle", "size", "encoding", "use_x", "variables", "interactions",
                               "coupling_range", "cpsat_s"]))
    print()
    print(format_rows(summary, ["puzzle", "size", "encoding", "sampler", "best_length", "p",
                                "tts99_s", "tts99_low_s", "tts99_high_s", "tts99_bound_s"]))
    others = [e for e in ENCODINGS if e != "order" and any(r["encoding"] == e for r in summary)]
    for other in others:
        rat = ratios(summary, other=other)
        print(f"\n{other} / order TTS99 per puzzle")
        print(format_rows(rat, ["puzzle", "size", "sampler", "base_tts99_s", "other_tts99_s",
                                "ratio", "ratio_low", "ratio_high", "kind"]))
        print(f"\n{other} / order TTS99 per size (geometric means over puzzles)")
        print(format_rows(by_size(rat), None))
        print()
        print(markdown_by_size(summary, other))
    path = plot(summary, results / "encodings_tts.png")
    if path:
        print(f"\nwrote {path}")


def size_side(size: str) -> int:
    h, w = (int(v) for v in size.split("x"))
    return int(round(math.sqrt(h * w)))


def plot(summary: Sequence[dict], path: Path | None = None, ax=None):
    """TTS99 against puzzle size, one line per encoding and sampler: the geometric mean over
    the size's puzzles where every one was solved, its interval ends (geometric means) shaded;
    a size where some puzzle was not solved is drawn as its smallest lower bound (a triangle)."""
    try:
        import matplotlib
        if ax is None and path is not None:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(8, 5))
    styles = {"order": "-", "onehot": "--", "automaton": ":"}
    colours = {"sa": "C0", "openjij": "C1", "tabu": "C2"}
    groups: dict[tuple, dict[int, list]] = {}
    for r in summary:
        groups.setdefault((r["encoding"], r["sampler"]), {}).setdefault(
            size_side(r["size"]), []).append(r)
    gm = lambda xs: math.exp(statistics.fmean(math.log(x) for x in xs))  # noqa: E731
    for (enc, s), sizes in sorted(groups.items()):
        xs, ys, lo, hi, bx, by_ = [], [], [], [], [], []
        for side in sorted(sizes):
            rs = sizes[side]
            if all(math.isfinite(r["tts99_s"]) for r in rs):
                xs.append(side)
                ys.append(gm([r["tts99_s"] for r in rs]))
                lo.append(gm([max(r["tts99_low_s"], 1e-9) for r in rs]))
                his = [r["tts99_high_s"] for r in rs]
                hi.append(gm(his) if all(math.isfinite(h) for h in his) else np.nan)
            else:
                bx.append(side)
                by_.append(min(r["tts99_bound_s"] or r["tts99_low_s"] for r in rs
                               if not math.isfinite(r["tts99_s"])))
        c, ls = colours.get(s, "k"), styles.get(enc, "-")
        if xs:
            ax.plot(xs, ys, ls, color=c, marker="o", label=f"{enc} / {s}")
            ax.fill_between(xs, lo, np.where(np.isnan(hi), np.nanmax(ys) * 1e3, hi), color=c,
                            alpha=0.12 if enc == "order" else 0.06, linestyle=ls)
        if bx:
            ax.plot(bx, by_, "^", color=c, markerfacecolor="none" if enc != "order" else c,
                    label=f"{enc} / {s}: none solved, TTS99 above" if not xs else None)
    ax.set(xscale="linear", yscale="log", xlabel="puzzle side (sqrt of cells)",
           ylabel="TTS99 at the optimal anneal length (CPU s)",
           title="TTS99 against size: order (solid), onehot (dashed), automaton (dotted)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    if own:
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=110)
            plt.close(fig)
            return path
        return fig
    return ax


# -- small helpers -------------------------------------------------------------------------------

def _num(v: Any) -> float:
    if v is None or v == "":
        return math.nan
    return float(v)


def _echo(r: dict) -> None:
    if not VERBOSE:
        return
    if not r["reads"]:
        print(f"{r['puzzle']:>12} {r['encoding']:>9} {r['sampler']:>7} "
              f"{r['unit']}={r['length']:>6}: {r['note']}", flush=True)
        return
    t = r["tts99_s"]
    print(f"{r['puzzle']:>12} {r['encoding']:>9} {r['sampler']:>7} {r['unit']}={r['length']:>6} "
          f"reads={r['reads']:>4} p={r['p']:.3f} t_read={1e3 * r['t_read_s']:9.3f} ms TTS99="
          f"{'inf' if math.isinf(t) else f'{1e3 * t:.3f} ms'}", flush=True)


def read_csv(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with path.open(newline="") as f:
        return [dict(r) for r in csv.DictReader(f)]


def write_csv(path: Path, fields: Sequence[str], rows: Iterable[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: _cell(r.get(k)) for k in fields})


class open_csv:
    """Append rows to a CSV as they are measured (header once), flushed row by row."""

    def __init__(self, path: Path, fields: Sequence[str]):
        self.path, self.fields = path, list(fields)

    def __enter__(self):
        new = not self.path.is_file() or self.path.stat().st_size == 0
        self.f = self.path.open("a", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=self.fields, extrasaction="ignore")
        if new:
            self.w.writeheader()
        return self

    def write(self, row: dict) -> None:
        self.w.writerow({k: _cell(row.get(k)) for k in self.fields})
        self.f.flush()

    def __exit__(self, *exc):
        self.f.close()


def _cell(v: Any) -> Any:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return "" if v is None else v


def format_rows(rows: Sequence[dict], columns: Sequence[str] | None) -> str:
    from formulations.harness.records import format_table
    conv = [{k: (_maybe_num(v)) for k, v in r.items()} for r in rows]
    return format_table(conv, columns)


def _maybe_num(v: Any) -> Any:
    """A CSV cell as the number it holds (text stays text)."""
    if not isinstance(v, str):
        return v
    for typ in (int, float):
        try:
            return typ(v)
        except ValueError:
            pass
    return v


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("experiment", choices=("study", "weights", "report", "extend"))
    p.add_argument("--per-size", type=int, default=2, help="janko puzzles per size (default 2)")
    p.add_argument("--sizes", type=lambda s: s.split(","), default=list(SIZES))
    p.add_argument("--no-project", action="store_true", help="without the project's puzzles")
    p.add_argument("--encodings", type=lambda s: s.split(","), default=list(ENCODINGS))
    p.add_argument("--samplers", type=lambda s: s.split(","), default=list(SAMPLERS))
    p.add_argument("--x", type=lambda s: [v.strip().lower() in ("1", "true", "yes")
                                          for v in s.split(",")],
                   default=[False], help="model variants: false (default), true, or true,false")
    p.add_argument("--reads", type=int, default=100, help="reads per anneal length (default 100)")
    p.add_argument("--min-reads", type=int, default=20)
    p.add_argument("--point-budget", type=float, default=10.0,
                   help="CPU seconds per anneal length (default 10)")
    p.add_argument("--max-length", type=int, help="longest anneal length to measure")
    p.add_argument("--cpsat-repeats", type=int, default=3)
    p.add_argument("--weight-sweeps", type=int, default=1000)
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = p.parse_args(argv)
    if args.experiment == "weights":
        args.reads = min(args.reads, 50)
        run_weights(args)
    elif args.experiment == "study":
        run_study(args)
    elif args.experiment == "extend":
        run_extend(args)
    else:
        report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
