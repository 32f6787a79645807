"""The benchmark release: TTS99 at the per-quantile optimal anneal length against puzzle size for
sa, tabu, openjij-sa, openjij-sqa, pimc, rotor, pt and pa on janko puzzles and, at 35x35 and
40x40, generated unique ones (bench/generated/unique.json; a benchmark, not a test; docs/benchmark.md).

    python bench/release.py select              # (re)write bench/release_puzzles.txt (keys only)
    nice -n 19 python bench/release.py run [--workers 2 | --scheduler tcp://HOST:8786]
                                           [--sizes 10x10,15x15] [--samplers sa,tabu]
    python bench/release.py summary             # bench/results/release/summary.json
    python bench/release.py status              # records so far, per sampler and size
    python bench/release.py compact             # rewrite the records as one gzip stream
    python bench/release.py estimate            # CPU hours of the whole release
    python bench/release.py plot                # scaling.png from summary.json
    python bench/release.py table               # the release as markdown tables, from summary.json

Records: ``bench/results/release/records.jsonl.gz``, one per (instance, sampler, length, seed)
(:mod:`formulations.harness.study`); a killed run resumes from them. Per sampler and size the
ladder of anneal lengths (sqrt(2) steps) starts at five lengths around a guess and grows by one
step at an end while some quantile's minimum sits at that end (or is unbounded), up to the
sampler's cap (:func:`formulations.analysis.optimal.extend_ladder`). Every group's first ladder runs
before any extension (each phase smallest size first), so that a run stopped early has every size
measured, its optima at the first ladder's ends labelled bounds.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]   # the checkout (records and selection live in it)

from formulations.harness.study import (  # noqa: E402
    EXACT,
    read_seconds,
    TARGETS,
    RecordFile,
    Task,
    corpus_root,
    estimate_cost,
    pooled,
    run_tasks,
)
from formulations.harness.tuning import TUNED, calibrated_as, read_tuning, relabel, row_of  # noqa: E402
from formulations.analysis.optimal import (  # noqa: E402
    QUANTILES,
    LadderData,
    extend_ladder,
    fit_with_steps,
    ladder_index,
    ladder_length,
    optimal_tts,
    quantile,
)

CORPUS = corpus_root()
JANKO_REL = "puzzlekit-dataset-janko/Nonogram_dataset.json"
JANKO = CORPUS / JANKO_REL
OUT = ROOT / "bench" / "results" / "release"
OUT2 = ROOT / "bench" / "results" / "release2"   # release 2 (count-decided records)
PUZZLES = ROOT / "bench" / "release_puzzles.txt"
STUDY = "release-1"
# puzzles of our own at sizes janko lacks: seeded, unique (formulations.generate; lines and cpsat)
GENERATED_REL = "bench/generated/unique.json"
GENERATED = ROOT / GENERATED_REL
GENERATED_SIZES = ("35x35", "40x40")

SIZES = ("10x10", "15x15", "20x20", "25x25", "30x30", "40x30") + GENERATED_SIZES
PER_SIZE = 100          # all of a size with fewer (40x30: 5)
SELECT_SEED = 2026
SAMPLERS = ("sa", "tabu", "openjij-sa", "openjij-sqa", "pimc", "rotor", "pt", "pa")
BASELINES = ("cpsat", "lines")   # exact: first grid and uniqueness proved, CPU, one trial each
EXACT_LIMIT_S = 60.0
READS = 100             # per record (one seed per instance and length)
READS_PER_CALL = 10
CPU_BUDGET_S = 30.0     # sampling CPU per record at most (fewer reads beyond it, at least 2 calls)
MAX_LENGTH = {"sa": 32000, "openjij-sa": 16000, "openjij-sqa": 4000, "tabu": 204800,
              "pimc": 8000, "rotor": 8000, "pt": 8000, "pa": 4000}
MIN_LENGTH = {"sa": 4, "openjij-sa": 4, "openjij-sqa": 4, "tabu": 4,
              "pimc": 4, "rotor": 4, "pt": 4, "pa": 4, "sa-tuned": 4}
INITIAL_SPAN = 2        # the first ladder: the guess and two sqrt(2) steps either side
BASE = 100.0            # every ladder is a subset of 100 * sqrt(2)^k
RESAMPLES = 1000


# -- the puzzles -----------------------------------------------------------------------------------

def select(sizes: Sequence[str] = SIZES, per_size: int = PER_SIZE, seed: int = SELECT_SEED) -> dict:
    """A seeded sample of janko keys per size (sorted keys, ``random.Random(seed).sample``);
    at the generated sizes every generated puzzle (:data:`GENERATED`)."""
    from formulations.io import iter_janko

    keys: dict[str, list[str]] = defaultdict(list)
    for key, _p, _ in iter_janko(JANKO):
        keys[key.rsplit("_", 1)[-1]].append(key)
    out = {}
    for size in sizes:
        if size in GENERATED_SIZES:
            out[size] = generated_keys(size)
            continue
        ks = sorted(keys[size], key=lambda k: (int(k.split("_")[0]), k))
        out[size] = sorted(random.Random(f"{seed}-{size}").sample(ks, min(per_size, len(ks))),
                           key=lambda k: (int(k.split("_")[0]), k))
    return out


def generated_keys(size: str) -> list[str]:
    """The keys of the generated puzzles of ``size`` (``gNN_HxW``), in order."""
    data = json.loads(GENERATED.read_text())["data"]
    return sorted(k for k in data if k.rsplit("_", 1)[-1] == size)


def source_of(key: str) -> str:
    """Where a release instance is read from (what its records store): a generated puzzle
    (key ``gNN_HxW``) in the repository, a janko one in the corpus."""
    if key.startswith("g"):
        return f"repo:{GENERATED_REL}::{key}"
    return f"corpus:{JANKO_REL}::{key}"


def write_selection(sel: dict, path: Path = PUZZLES) -> None:
    lines = [f"# janko puzzle keys of the benchmark release ({JANKO.relative_to(CORPUS)} in the "
             f"corpus; keys only)", f"# per size: random.Random('{SELECT_SEED}-SIZE').sample("
             f"keys sorted by id, min({PER_SIZE}, all)); bench/release.py select",
             f"# {', '.join(GENERATED_SIZES)}: every generated unique puzzle (gNN_HxW) of "
             f"{GENERATED_REL} (python -m formulations.generate; docs/benchmark.md)"]
    for size, keys in sel.items():
        lines.append(f"# {size}: {len(keys)}")
        lines += keys
    path.write_text("\n".join(lines) + "\n")


def read_selection(path: Path = PUZZLES) -> dict[str, list[str]]:
    if not path.is_file():
        sys.exit(f"{path}: missing; run `python bench/release.py select`")
    out: dict[str, list[str]] = defaultdict(list)
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out[line.rsplit("_", 1)[-1]].append(line)
    return dict(out)


# -- the plan: ladders per sampler and size ------------------------------------------------------

def guess(sampler: str, variables: int) -> int:
    """Where a ladder starts: the sa backend's automatic sweeps for sa and OpenJij (fitted on
    optimal lengths), a fixed guess for tabu (updates per variable)."""
    from formulations.backends.sampling import auto_sweeps

    if sampler == "tabu":
        return 12800
    return auto_sweeps(variables)


class Planner:
    """``plan(records)`` for :func:`run_tasks`: per (sampler, size), every instance at every
    length of its ladder; the ladder grows once complete while a quantile's optimum is at an
    edge or unbounded. Decisions depend on the records only, so a resumed run replays them.
    Order: the first ladders of every group, then the extensions, smallest size first in each."""

    study = STUDY
    max_length: Mapping[str, int] = MAX_LENGTH
    min_length: Mapping[str, int] = MIN_LENGTH

    def __init__(self, selection: dict[str, list[str]], samplers: Sequence[str], *,
                 reads: int = READS, budget: float = CPU_BUDGET_S, seeds: Sequence[int] = (0,)):
        self.selection, self.samplers = selection, list(samplers)
        self.reads, self.budget, self.seeds = reads, budget, list(seeds)
        self.sources: dict[str, str] = {}   # puzzles outside the release's selection
        self.decided: dict[tuple, tuple[int, list[int]]] = {}
        self.variables: dict[str, int] = {}
        self.sizes: dict[str, tuple[int, int]] = {}
        self.tuned: dict[str, Any] = {}      # size: tuning.json's entry (the tuned sa row)

    def task(self, key: str, sampler: str, length: int, seed: int) -> Task:
        if sampler in EXACT:
            return Task(self.study, key, self.src(key), sampler, 0, seed, reads=1,
                        cpu_budget_s=EXACT_LIMIT_S)
        return Task(self.study, key, self.src(key), sampler, length, seed, reads=self.reads,
                    reads_per_call=READS_PER_CALL, cpu_budget_s=self.budget)

    def _vars(self, key: str) -> int:
        if key not in self.variables:
            from formulations.harness.study import load
            from formulations.model import build_model
            from formulations.model.penalty import lower
            p = load(self.src(key))
            pen = lower(build_model(p, use_x=False))
            self.variables[key] = pen.num_variables
            self.sizes[key] = (pen.num_variables, len(pen.qv))
        return self.variables[key]

    def src(self, key: str) -> str:
        return self.sources.get(key) or source_of(key)

    def initial(self, sampler: str, size: str) -> list[int]:
        if sampler in EXACT:
            return [0]  # one trial per puzzle, no anneal length
        if sampler == TUNED and size not in self.tuned:
            return []   # no beta range tuned at this size (release.py tune): no tuned row
        keys = self.selection[size]
        n = sorted(self._vars(k) for k in keys[:5])[len(keys[:5]) // 2]
        lo, hi = self.min_length[sampler], self.max_length[sampler]
        g = min(max(guess(sampler, n), lo), hi)
        k0 = ladder_index(g, BASE)
        while ladder_length(k0 + INITIAL_SPAN, BASE) > hi:
            k0 -= 1  # the whole first ladder below the cap
        return [ladder_length(k, BASE) for k in range(k0 - INITIAL_SPAN, k0 + INITIAL_SPAN + 1)
                if lo <= ladder_length(k, BASE) <= hi]

    def __call__(self, records: dict[str, dict]) -> list[Task]:
        by_group: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for r in records.values():
            by_group[(row_of(r), r["instance"].rsplit("_", 1)[-1])].append(r)
        tasks: list[tuple[tuple, Task]] = []
        order = {s: i for i, s in enumerate(self.samplers)}
        for size in sorted(self.selection, key=lambda s: math.prod(map(int, s.split("x")))):
            for sampler in self.samplers:
                recs = by_group.get((sampler, size), [])
                ladder = sorted(set(self.initial(sampler, size)) | {r["length"] for r in recs})
                have = {r["key"] for r in recs}
                missing = [t for t in (self.task(k, sampler, L, s) for L in ladder
                                       for k in self.selection[size] for s in self.seeds)
                           if t.key not in have]
                if not missing:
                    missing = self._extend(sampler, size, ladder, recs)
                cells = math.prod(map(int, size.split("x")))
                first = set(self.initial(sampler, size))
                tasks += [((t.length not in first, cells, order[sampler], t.length, t.instance), t)
                          for t in missing]
        tasks.sort(key=lambda kt: kt[0])
        return [t for _, t in tasks]

    def _extend(self, sampler: str, size: str, ladder: list[int], recs: list[dict]) -> list[Task]:
        if sampler in EXACT:
            return []
        key = (sampler, size)
        if key in self.decided and self.decided[key][0] == len(recs):
            add = self.decided[key][1]
        else:
            # the records the summary uses (complete_ends), decided as the summary decides
            rs = complete_ends(pooled(recs))[0]
            data = self._ladder_data(rs)
            optima = optimal_tts(data, QUANTILES, resamples=RESAMPLES)
            add = extend_ladder(ladder, optima, base=BASE, min_length=self.min_length[sampler],
                                max_length=self.max_length[sampler])
            self.decided[key] = (len(recs), add)
        return [self.task(k, sampler, L, s) for L in add for k in self.selection[size]
                for s in self.seeds]

    def _ladder_data(self, rs: list[dict]) -> LadderData:
        """What the ladder grows on: release 1, the records' CPU per read."""
        return LadderData.from_records(rs)

    def cost(self, t: Task) -> float:
        """The task's estimated CPU seconds, from the QUBO of the first of its size measured."""
        size = t.instance.rsplit("_", 1)[-1]
        first = next((k for k in self.selection[size] if k in self.sizes), None)
        if first is None:
            self._vars(self.selection[size][0])
            first = self.selection[size][0]
        n, q = self.sizes[first]
        return estimate_cost(t, n, q)


class CountedPlanner(Planner):
    """Release 2's plan (:mod:`formulations.harness.protocol`): the same ladders, every record
    under the count rule (until S successes and R_min reads, or R_max reads), higher caps."""
    from .protocol import MAX_LENGTH as max_length, STUDY as study  # noqa: N811

    def _ladder_data(self, rs: list[dict]) -> LadderData:
        """Release 2 grows its ladders on TTS99 in spin updates, so that which records exist
        depends on counts alone, never on the machine's clock."""
        from . import protocol as P
        d = LadderData.from_records(rs)
        W = P.work_matrix(d, {r["instance"]: int(r["variables"]) for r in rs})
        return LadderData(d.instances, d.lengths, d.successes, d.reads, W)

    def task(self, key: str, sampler: str, length: int, seed: int) -> Task:
        from . import protocol as P

        if sampler in EXACT:
            return super().task(key, sampler, length, seed)
        self._vars(key)
        beta = None
        if sampler == TUNED:   # sa with the beta range tuned for this size
            sampler, beta = "sa", tuple(self.tuned[key.rsplit("_", 1)[-1]]["beta_range"])
        return Task(self.study, key, self.src(key), sampler, length, seed, reads=P.MAX_READS,
                    reads_per_call=P.reads_per_call(sampler, length, *self.sizes[key]),
                    until_successes=P.UNTIL_SUCCESSES, min_reads=P.MIN_READS, cpu_budget_s=0.0,
                    beta_range=beta)


class SamplerPlanner(CountedPlanner):
    """A user's dimod sampler (``dimod:MODULE:CLASS``, labelled ``name``) under release 2's
    protocol: sa's ladder (its automatic sweeps as the guess), ``params`` to every sample() call."""

    def __init__(self, selection: dict[str, list[str]], name: str, sampler_class: str, *,
                 params: tuple = (), length_param: str = "num_sweeps",
                 max_length: int = 102400, sources: Mapping[str, str] | None = None):
        super().__init__(selection, [name])
        self.name, self.sampler_class = name, sampler_class
        self.params, self.length_param = tuple(params), length_param
        self.max_length = {name: max_length}
        self.min_length = {name: 4}
        self.sources = dict(sources or {})

    def task(self, key: str, sampler: str, length: int, seed: int) -> Task:
        import dataclasses
        return dataclasses.replace(super().task(key, sampler, length, seed),
                                   sampler_class=self.sampler_class,
                                   params=self.params or None, length_param=self.length_param)


# -- manifest -------------------------------------------------------------------------------------

def manifest_entry(args: argparse.Namespace) -> dict[str, Any]:
    from importlib import metadata

    def version(pkg: str) -> str | None:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return None

    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except Exception:
            return ""

    cpu = ""
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                    if line.startswith("model name")), "")
    except OSError:
        cpu = platform.processor()
    return {
        "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no", "--", ".",
                          ":(exclude)bench/results")),
        "cpu_model": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
        "platform": platform.platform(), "workers": args.workers, "scheduler": args.scheduler,
        "nice": os.nice(0), "load_average": list(os.getloadavg()),
        "versions": {p: version(p) for p in ("nonogram-formulations", "numpy", "scipy", "dimod",
                                              "dwave-samplers", "openjij", "ortools")},
        "config": {"study": STUDY, "sizes": args.sizes, "samplers": args.samplers,
                   "reads": args.reads, "reads_per_call": READS_PER_CALL,
                   "cpu_budget_s": args.budget, "max_length": MAX_LENGTH,
                   "min_length": MIN_LENGTH, "ladder": f"{BASE:g} * sqrt(2)^k",
                   "use_x": False, "time": "process CPU of the sampler calls (time.process_time)",
                   "generated": GENERATED_REL},
    }


def add_manifest(out: Path, entry: dict) -> None:
    path = out / "manifest.json"
    data: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {"study": STUDY, "sessions": []}
    data["sessions"].append(entry)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


# -- summary --------------------------------------------------------------------------------------

def _num(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def summarize(records: Sequence[dict], resamples: int = RESAMPLES,
              planned: Mapping[str, int] | None = None, *,
              calibration: Mapping[str, Any] | None = None,
              decided: Mapping[str, bool] | None = None, fit_min_instances: int = 1,
              keep_replicates: bool = False, study: str = STUDY) -> dict[str, Any]:
    """summary.json: per sampler, size and quantile the optimum and its interval; per sampler
    and quantile the scaling fits over sizes whose optimum is interior; residual energy and
    time-to-target per sampler, size and length. ``planned`` (puzzles selected per size) marks
    each size ``complete`` or not; a size measured on fewer puzzles stays out of the fits (its
    missing puzzles are not a random loss: the run goes through them in order), and so do the
    generated sizes and sizes with fewer than ``fit_min_instances`` puzzles (populations apart).

    Release 2's figures (:mod:`formulations.harness.protocol`) in every quantile entry: TTS99
    in spin updates (``*_spin_updates``) with its interval and detection limit; with a
    ``calibration`` (calibration.json) the CPU TTS99 derived from it (``*_cpu_s``) and the
    top-level ``tts99_s``/``low_s``/``high_s`` taken from it (``cpu_from``); ``decided``
    (puzzle: line propagation decides it) splits every size in two ``classes``."""
    from . import protocol as P
    import numpy as np

    recs = pooled(relabel(records))
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in recs:
        groups[(r["sampler"], r["size"])].append(r)
    out: dict[str, Any] = {"study": study, "records": len(recs),
                           "errors": sum(1 for r in records if "error" in r),
                           "quantiles": list(QUANTILES), "confidence": 0.95,
                           "median": P.MEDIAN, "samplers": {}}
    for sampler in sorted({s for s, _ in groups}):
        if sampler in EXACT:
            out["samplers"][sampler] = summarize_exact(
                {z: rs for (s, z), rs in groups.items() if s == sampler}, resamples, planned)
            continue
        sizes = sorted((z for s, z in groups if s == sampler),
                       key=lambda z: math.prod(map(int, z.split("x"))))
        per_size: dict[str, Any] = {}
        points: dict[float, list] = defaultdict(list)
        su_points: list[tuple] = []
        for z in sizes:
            rs, partial = complete_ends(groups[(sampler, z)])
            data = LadderData.from_records(rs)
            spread = time_spread(rs)
            optima = optimal_tts(data, QUANTILES, resamples=resamples, seed=0, t_spread=spread)
            cells = math.prod(map(int, z.split("x")))
            variables = sorted({r["instance"]: r["variables"] for r in rs}.values())
            nvar = variables[len(variables) // 2]
            n_inst = len(data.instances)
            per_size[z] = {
                **_completeness(n_inst, z, planned),
                "cells": cells, "median_variables": nvar, "lengths": list(data.lengths),
                "unit": rs[0]["unit"], "t_spread": round(spread, 4),
                "partial_lengths": partial,
                "quantiles": {str(o.q): {k: v for k, v in o.to_dict().items() if k != "q"}
                              for o in optima},
                "below": below_ground(rs, data.lengths),
                # set-up (model, QUBO, sampler object) apart from the sampling: per record, and
                # amortised over the record's reads (the batch size used)
                "median_setup_cpu_s": float(np.median([r["setup_cpu_s"] for r in rs])),
                "median_setup_per_read_s": float(np.median([r["setup_cpu_s"] / r["reads"]
                                                            for r in rs])),
                "runner_overhead": runner_overhead(rs),
            }
            for qd in per_size[z]["quantiles"].values():
                L = qd["optimal_length"]
                qd["spin_updates_per_read"] = None if L is None else int(L) * nvar
                qd["overhead_share"] = overhead_share([r for r in rs if r["length"] == L])
            # release 2: spin updates, detection limits, CPU from the calibration
            counted = all(r.get("rule") for r in rs)
            model = P.cost_model(calibration, f"{calibrated_as(sampler)}|{z}")
            su = P.spin_update_entries(rs, data, resamples=resamples, model=model,
                                       keep_replicates=keep_replicates)
            e = per_size[z]
            e["work_unit"] = P.work_unit(sampler, counted)
            e["count_rule"] = counted
            e["calibration"] = model
            e["sessions"] = sorted({r["session"] for r in rs if r.get("session")})
            e["setup_cpu_s_for_comparison"] = (model["setup_cpu_s"] if model
                                               else e["median_setup_cpu_s"])
            for q, qd in e["quantiles"].items():
                qd.update(su[q])
                if model is not None:   # the CPU figure is the calibrated one
                    qd.update({"tts99_s": qd["tts99_cpu_s"], "low_s": qd["low_cpu_s"],
                               "high_s": qd["high_cpu_s"],
                               "optimal_length": qd["optimal_length_cpu"],
                               "interior": qd["interior_cpu"], "edge": qd["edge_cpu"],
                               "per_length": qd["per_length_cpu"]})
            # residual energy and time to target at the median's optimum (spin updates)
            e["at_optimum"] = P.at_optimum(
                rs, e["quantiles"]["0.5"].get("optimal_length_spin_updates"),
                resamples=min(resamples, 2000))
            if decided is not None:
                e["classes"] = P.classes(rs, data, decided, resamples=resamples, model=model)
            e["seed_agreement"] = P.seed_agreement(rs, resamples=min(resamples, 2000))
            fit_ok = (per_size[z]["complete"] is not False and z not in GENERATED_SIZES
                      and n_inst >= fit_min_instances)
            for o in optima:
                if o.interior and fit_ok and model is None:
                    points[o.q].append((cells, nvar, o.tts99_s, o.replicates))
            su_opt = optimal_tts(LadderData(data.instances, data.lengths, data.successes,
                                            data.reads, P.work_matrix(data, {
                                                r["instance"]: int(r["variables"]) for r in rs})),
                                 QUANTILES, resamples=resamples, seed=0)
            for o in su_opt:
                su_points.append((z if fit_ok else f"{z} (apart)", cells,
                                  n_inst if fit_ok else 0, o.q, o.tts99_s, o.replicates,
                                  o.interior))
            if model is not None:   # CPU fits from the calibrated figures
                cpu = optimal_tts(LadderData(data.instances, data.lengths, data.successes,
                                             data.reads, model["a_s"] + model["c_s"] *
                                             P.work_matrix(data, {r["instance"]: int(r["variables"])
                                                                  for r in rs})),
                                  QUANTILES, resamples=resamples, seed=0,
                                  t_spread=model["spread"])
                for o in cpu:
                    if o.interior and fit_ok:
                        points[o.q].append((cells, nvar, o.tts99_s, o.replicates))
        fits = {}
        for q in QUANTILES:
            pts = points.get(q, [])
            fq = {}
            for form, xname, xi in (("exp", "cells", 0), ("poly", "cells", 0),
                                     ("exp", "variables", 1), ("poly", "variables", 1)):
                fq[f"{form}_{xname}"] = fit_with_steps(
                    [p[xi] for p in pts], [p[2] for p in pts], [p[3] for p in pts],
                    model=form, x=xname)
            fits[str(q)] = {"sizes_used": len(pts), **fq}
        out["samplers"][sampler] = {
            "sizes": per_size, "fits": fits,
            "fits_spin_updates": P.fits_spin_updates(su_points, generated=GENERATED_SIZES,
                                                     min_instances=fit_min_instances)}
    out["comparisons"] = P.both_ways(out)
    out["spearman"] = P.spearman(records, out, resamples=min(resamples, 1000))
    return out


def runner_overhead(rs: Sequence[dict]) -> dict[str, Any] | None:
    """The runner's CPU outside the sampler's calls (set-up actually paid: a worker builds a
    puzzle's model once; decoding, scoring, bookkeeping), over the sampling CPU, summed over the
    records that time both (``record_cpu_s``, ``cpu_s``); ``short_reads``: the same over records
    whose reads average under 0.3 ms, where a record's fixed costs weigh most."""
    def share(sel: list[dict]) -> float | None:
        den = sum(r["cpu_s"] for r in sel)
        return round(sum(r["record_cpu_s"] - r["cpu_s"] for r in sel) / den, 4) if den > 0 else None
    timed = [r for r in rs if r.get("record_cpu_s") is not None and r.get("cpu_s")]
    if not timed:
        return None
    short = [r for r in timed if r["cpu_s"] / max(1, r["reads"]) < 3e-4]
    return {"share": share(timed), "records": len(timed),
            "short_reads": share(short), "short_records": len(short)}


def overhead_share(rs: Sequence[dict]) -> float | None:
    """The median over records of the share of a read's CPU that a zero-length call with the
    same reads takes (``overhead_cpu_s``: the call's set-up and each read's start, no
    annealing), at the batch size used. None where it was not measured."""
    import numpy as np

    v = [(r["overhead_cpu_s"] / r["overhead_reads"]) / (r["cpu_s"] / r["reads"]) for r in rs
         if r.get("overhead_cpu_s") is not None and r.get("overhead_reads") and r["cpu_s"] > 0]
    return round(float(np.median(v)), 4) if v else None


def complete_ends(rs: Sequence[dict]) -> tuple[list[dict], dict[str, int]]:
    """The records without the lengths at either end of the ladder that not every instance has
    reached yet (a run stopped while extending the ladder), and those lengths with the number
    of instances measured. Kept, such a length's missing instances would count as unsolved and
    could make its neighbour look interior; a hole inside the ladder stays (inf, conservative)."""
    insts = {r["instance"] for r in rs}
    at: dict[int, set] = defaultdict(set)
    for r in rs:
        at[r["length"]].add(r["instance"])
    lengths = sorted(at)
    partial: dict[str, int] = {}
    for end in (-1, 0):
        while lengths and len(at[lengths[end]]) < len(insts):
            L = lengths.pop(end)
            partial[str(L)] = len(at[L])
    if not lengths:  # no length complete yet (a size just begun): all of it, as measured
        return list(rs), {}
    keep = set(lengths)
    return [r for r in rs if r["length"] in keep], partial


def _completeness(instances: int, size: str, planned: Mapping[str, int] | None) -> dict[str, Any]:
    """A size's ``instances`` against the puzzles ``planned`` for it: ``complete`` is None when
    the plan is not known, False when puzzles are missing."""
    want = None if planned is None else planned.get(size)
    return {"instances": instances, "planned": want,
            "complete": None if want is None else instances >= want}


def summarize_exact(by_size: dict[str, list[dict]], resamples: int,
                    planned: Mapping[str, int] | None = None) -> dict[str, Any]:
    """An exact baseline per size: the quantiles over puzzles of the CPU time to the first grid
    and to the uniqueness proof (a run that did not finish within its limit as inf), with the
    bootstrap interval over puzzles; fits over every complete size with a finite quantile.
    ``median_cold_cpu_s``: the untimed warm-up call's CPU (the first solve of a freshly loaded
    puzzle), for comparison."""
    import numpy as np

    sizes: dict[str, Any] = {}
    points: dict[tuple, list] = defaultdict(list)
    for z in sorted(by_size, key=lambda z: math.prod(map(int, z.split("x")))):
        rs = by_size[z]
        cells = math.prod(map(int, z.split("x")))
        entry: dict[str, Any] = {**_completeness(len({r["instance"] for r in rs}), z, planned),
                                 "cells": cells, "unit": "none"}
        cold = [r["cold_cpu_s"] for r in rs if r.get("cold_cpu_s") is not None]
        entry["median_cold_cpu_s"] = float(np.median(cold)) if cold else None
        for figure, cpu, ok in (("first_grid", "cpu_s", lambda r: r["successes"] > 0),
                                ("uniqueness", "unique_cpu_s", lambda r: r.get("unique") is not None)):
            recs = [{"instance": r["instance"], "length": 0, "successes": int(ok(r)),
                     "reads": 1, "cpu_s": r[cpu]} for r in rs]
            optima = optimal_tts(LadderData.from_records(recs), QUANTILES, resamples=resamples)
            entry[figure] = {str(o.q): {"instances": o.instances, "solved": o.solved,
                                        "optimal_length": None, "interior": None,
                                        "time_s": _num(o.tts99_s), "tts99_s": _num(o.tts99_s),
                                        "low_s": _num(o.low_s), "high_s": _num(o.high_s)}
                             for o in optima}
            for o in optima:
                if math.isfinite(o.tts99_s) and entry["complete"] is not False:
                    points[(figure, o.q)].append((cells, o.tts99_s, o.replicates))
        # the proof's time less the model's build (wall, the backend's own figure): the
        # comparison with set-up excluded on both sides
        excl = [{"instance": r["instance"], "length": 0, "successes": int(r.get("unique") is not None),
                 "reads": 1, "cpu_s": max(r["unique_cpu_s"] - (r.get("unique_build_s") or 0.0),
                                          0.0)} for r in rs if r.get("unique_build_s") is not None]
        if excl:
            for o in optimal_tts(LadderData.from_records(excl), QUANTILES, resamples=resamples):
                entry["uniqueness"][str(o.q)]["time_excl_build_s"] = _num(o.tts99_s)
        entry["quantiles"] = entry["uniqueness"]
        sizes[z] = entry
    fits: dict[str, Any] = {}
    for (figure, q), pts in points.items():
        fq = {}
        for model in ("exp", "poly"):
            fq[f"{model}_cells"] = fit_with_steps([p[0] for p in pts], [p[1] for p in pts],
                                                  [p[2] for p in pts], model=model, x="cells")
        fits.setdefault(figure, {})[str(q)] = {"sizes_used": len(pts), **fq}
    return {"sizes": sizes, "fits": fits}


def time_spread(rs: Sequence[dict]) -> float:
    """The relative uncertainty of a record's mean CPU time per read, from the spread of its
    calls: 1.96 x the standard deviation of (a call's time per read / the record's) over the
    group's calls of full size, over sqrt(the median number of such calls per record). Widens
    the bootstrap interval's ends (:func:`formulations.analysis.optimal.optimal_tts`, ``t_spread``)."""
    import numpy as np

    ratios, counts = [], []
    for r in rs:
        cr, cc = r.get("call_reads") or [], r.get("call_cpu_s") or []
        full = [(c / k) for c, k in zip(cc, cr) if k == max(cr, default=0) and k > 0]
        if len(full) >= 2 and r["reads"] and r["cpu_s"] > 0:
            mean = r["cpu_s"] / r["reads"]
            ratios += [x / mean for x in full]
            counts.append(len(full))
    if len(ratios) < 2:
        return 0.0
    return float(1.96 * np.std(ratios, ddof=1) / math.sqrt(float(np.median(counts))))


def below_ground(rs: Sequence[dict], lengths: Sequence[int]) -> dict[str, Any]:
    """Per length: the median over instances of the mean residual energy, and the median
    time-to-target (TTS99 of reaching energy <= target) for each target of TARGETS."""
    import numpy as np

    out = {}
    for L in lengths:
        at = [r for r in rs if r["length"] == L]
        by_inst: dict[str, list] = defaultdict(lambda: [0, 0, 0.0, 0.0, None])
        for r in at:
            a = by_inst[r["instance"]]
            a[0] += r["reads"]
            a[1] += r["cpu_s"]
            a[2] += r["energy_mean"] * r["reads"]
            counts = np.asarray(r["at_most"], dtype=float)
            a[4] = counts if a[4] is None else a[4] + counts
        if not by_inst:
            continue
        resid = np.median([a[2] / a[0] for a in by_inst.values()])
        ttt = {}
        from formulations.analysis.stats import repeats_for
        for j, target in enumerate(TARGETS):
            vals = [a[1] / a[0] * float(repeats_for(a[4][j] / a[0])) for a in by_inst.values()]
            ttt[str(target)] = _num(float(quantile(np.array(vals), 0.5, axis=0)))
        out[str(L)] = {"instances": len(by_inst), "median_residual_energy": float(resid),
                       "median_tts99_to_target_s": ttt}
    return out


# -- commands -------------------------------------------------------------------------------------

def cmd_select(args) -> None:
    sel = select(args.sizes.split(","), args.per_size)
    write_selection(sel)
    print(f"wrote {PUZZLES}: " + ", ".join(f"{z} {len(k)}" for z, k in sel.items()))


def cmd_run(args) -> None:
    _check_backends([b for b in args.baselines.split(",") if b] + args.samplers.split(","))
    if not JANKO.is_file() and set(args.sizes.split(",")) - set(GENERATED_SIZES):
        sys.exit(f"janko corpus not found at {JANKO} (set NONOGRAM_CORPUS)")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sel = read_selection()
    sel = {z: k[:args.limit] if args.limit else k for z, k in sel.items()
           if z in args.sizes.split(",")}
    out = Path(args.out)
    samplers = [b for b in args.baselines.split(",") if b] + args.samplers.split(",")
    if args.release == 2:
        entry = _session(args)
        planner: Planner = CountedPlanner(sel, samplers,
                                          seeds=[int(x) for x in args.seeds.split(",")])
        planner.tuned = read_tuning(out / "tuning.json")
        if TUNED in samplers:
            lacking = [z for z in sel if z not in planner.tuned]
            if lacking:
                print(f"{TUNED}: no beta range tuned at {', '.join(lacking)} (run `python "
                      f"bench/release.py tune --sizes ...` first); those sizes have no tuned row",
                      file=sys.stderr)
    else:
        entry = manifest_entry(args)
        planner = Planner(sel, samplers, reads=args.reads, budget=args.budget)
    out.mkdir(parents=True, exist_ok=True)
    add_manifest(out, entry)
    run_tasks(planner, RecordFile(out / "records.jsonl.gz"), workers=args.workers,
              scheduler=args.scheduler, progress=not args.quiet, cost=planner.cost,
              log=lambda s: print(s, file=sys.stderr), desc="release",
              stamp={"session": entry["started"]})
    cmd_summary(args)


def _check_backends(samplers: list[str]) -> None:
    """Exit 2 before anything is written when a sampler is unknown or its solver is not
    installed: its tasks would all become error records, which the resumed run keeps (it does
    not retry them) and which stop the sampler's ladder (a run in a fresh environment without
    the extras wrote 165 such records for pimc)."""
    from formulations.backends import get_backend
    from formulations.backends.base import BackendError

    for name in samplers:
        try:
            get_backend("sa" if name == TUNED else name).check_available()
        except BackendError as e:
            print(f"release run: {e}", file=sys.stderr)
            sys.exit(2)


def cmd_summary(args) -> None:
    out = Path(args.out)
    records = RecordFile(out / "records.jsonl.gz").read()
    if not records:
        sys.exit(f"no records in {out}; run `python bench/release.py run` first")
    limit = getattr(args, "limit", None)   # a quick look plans only the first N a size
    planned = ({z: len(k[:limit] if limit else k) for z, k in read_selection().items()}
               if PUZZLES.is_file() else None)
    extra: dict[str, Any] = {}
    if args.release == 2:
        from . import protocol as P
        cal = out / "calibration.json"
        calibration = json.loads(cal.read_text()) if cal.is_file() else None
        cpu = getattr(args, "cpu", None) or P.reference_cpu(calibration)
        if calibration and cpu not in P.cpu_models(calibration):
            sys.exit(f"--cpu {cpu!r}: no calibration session ran on it; calibrated: "
                     + ", ".join(P.cpu_models(calibration)))
        extra = {"calibration": P.for_cpu(calibration, cpu),
                 "decided": decided_classes(out, {r["instance"]: r.get("source")
                                                  for r in pooled(records)}),
                 "fit_min_instances": P.FIT_MIN_INSTANCES, "study": P.STUDY,
                 "keep_replicates": True}
    summary = summarize(records, planned=planned, **extra)
    if args.release == 2 and extra.get("calibration"):
        # CPU figures are one machine's: the sessions of the other CPUs are reported apart
        summary["calibration_cpu"] = cpu
        summary["calibration_cpus"] = P.cpu_models(calibration)
        summary["machines"] = P.machine_ratios(calibration, cpu)
    path = out / "summary.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(summary, indent=1) + "\n")
    os.replace(tmp, path)
    print(f"wrote {path} ({summary['records']} records)")
    for s, d in summary["samplers"].items():
        for z, e in d["sizes"].items():
            q = e["quantiles"]["0.5"]
            print(f"{s:<12} {z:>6} n={q['instances']:>3} solved={q['solved']:>3} "
                  f"L*={q['optimal_length']} interior={q['interior']} "
                  f"median TTS99 {q['tts99_s']} [{q['low_s']}, {q['high_s']}]")


def _session(args, **config: Any) -> dict[str, Any]:
    """Release 2's manifest session (refusing a modified tree unless --allow-dirty)."""
    from . import protocol as P
    try:
        return P.session_entry(ROOT, allow_dirty=args.allow_dirty, workers=args.workers,
                               scheduler=args.scheduler, nice=os.nice(0),
                               config={"sizes": args.sizes, "samplers": args.samplers,
                                       "generated": GENERATED_REL, **config})
    except P.DirtyTree as exc:
        sys.exit(str(exc))


def decided_classes(out: Path, sources: Mapping[str, str | None]) -> dict[str, bool]:
    """Whether line propagation decides each puzzle, cached in ``out/line_decided.json``."""
    from . import protocol as P
    path = out / "line_decided.json"
    have = json.loads(path.read_text()) if path.is_file() else {}
    todo = [k for k, src in sources.items() if k not in have and src]
    if todo:
        have |= P.line_decided(todo, lambda k: sources[k])
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(dict(sorted(have.items())), indent=0) + "\n")
        os.replace(tmp, path)
    return have


CAL_READ_S = 0.05   # the calibration's reads: about this long each by the cost model


CAL_WORK_OVER_A = 4.0   # a calibration read's work: at least this many per-read constants


def calibration_groups(sel: Mapping[str, list[str]], samplers: Sequence[str], *,
                       puzzles: int = 3, planner: Planner | None = None,
                       sources: Mapping[str, str] | None = None,
                       earlier: Mapping | None = None) -> list[dict[str, Any]]:
    """Per (sampler, size): the first ``puzzles`` puzzles of the size, at the middle of the
    ladder's first five lengths (the guess). With ``earlier`` (calibration.json) a group whose
    earlier sessions put its per-read constant a above the guessed read's work is calibrated
    longer, so that the work is CAL_WORK_OVER_A x a (else the two lengths' difference drowns in
    a's noise and the fit fails: tabu at 30x30)."""
    pl = planner or CountedPlanner(dict(sel), list(samplers))
    out = []
    for z, keys in sel.items():
        for s in samplers:
            if s in EXACT:
                continue
            init = pl.initial(s, z)
            if not init:  # sa-tuned at a size with no tuned beta range: no row
                continue
            # the guess, or shorter: a read of about CAL_READ_S by the cost model (a cost per
            # spin update does not depend on the length; tabu's full reads at 30x30 take seconds)
            pl._vars(keys[0])
            n, q = pl.sizes[keys[0]]
            per_unit = read_seconds(s if s in MAX_LENGTH else "sa", 1, n, q)
            length = max(8, min(init[len(init) // 2], int(CAL_READ_S / max(per_unit, 1e-15))))
            sessions = (earlier or {}).get("sessions", [])
            seen = [g for s_ in sessions if (g := s_["groups"].get(f"{s}|{z}"))]
            # c from this group's successful fits, else from the sampler's other sizes
            cs = [g["c_s"] for g in seen if g["c_s"] > 0] or [
                g["c_s"] for s_ in sessions for k, g in s_["groups"].items()
                if k.split("|")[0] == s and g["c_s"] > 0]
            if seen and cs:
                a = statistics.median(g["a_s"] for g in seen)
                c = statistics.median(cs)
                need = int(math.ceil(CAL_WORK_OVER_A * a / (c * n)))
                if need > length:
                    length = min(need, max(init[-1], MAX_LENGTH.get(s, need)))
            g = {"sampler": s, "size": z, "length": length,
                 "puzzles": [(k, (sources or {}).get(k) or pl.src(k)) for k in keys[:puzzles]]}
            if isinstance(pl, SamplerPlanner) and s == pl.name:
                g |= {"sampler_class": pl.sampler_class, "params": pl.params or None}
            out.append(g)
    return out


def run_calibration(out: Path, groups: list[dict], session: dict, *, rounds: int,
                    reads: int, quiet: bool = False) -> dict[str, Any]:
    from . import protocol as P
    cal = P.calibrate(groups, rounds=rounds, reads=reads,
                      log=(lambda s: None) if quiet else (lambda s: print(s, file=sys.stderr)))
    P.add_calibration(out / "calibration.json", session["started"], cal,
                      {k: session[k] for k in ("commit", "dirty", "cpu_model", "cpu_flags")})
    return cal


def cmd_calibrate(args) -> None:
    """Release 2's cost per spin update per (sampler, size), interleaved in this session and
    appended to calibration.json (three sessions or more widen the CPU intervals by their
    spread)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sel = {z: k for z, k in read_selection().items() if z in args.sizes.split(",")}
    out = Path(args.out)
    session = _session(args, calibration={"rounds": args.rounds, "reads": args.cal_reads,
                                          "puzzles": args.cal_puzzles})
    out.mkdir(parents=True, exist_ok=True)
    add_manifest(out, session)
    earlier_path = out / "calibration.json"
    earlier = json.loads(earlier_path.read_text()) if earlier_path.exists() else None
    cal = run_calibration(out, calibration_groups(sel, args.samplers.split(","),
                                                  puzzles=args.cal_puzzles, earlier=earlier),
                          session,
                          rounds=args.rounds, reads=args.cal_reads, quiet=args.quiet)
    for g, d in cal.items():
        print(f"{g:<20} c {d['c_s']:.3e} s per spin update (rounds {min(d['c_rounds']):.3e} to "
              f"{max(d['c_rounds']):.3e}), a {d['a_s']:.3e} s per read, set-up "
              f"{d['setup_cpu_s'] * 1000:.2f} ms")


def cmd_tune(args) -> None:
    """The tuned sa row's beta range per size (formulations.harness.tuning): sa on training
    puzzles outside the selection at the centre of its first ladder, every range of the grid,
    count rule; records in OUT/tuning/ (resumable), the choice in OUT/tuning.json."""
    from formulations.io import iter_janko
    from . import tuning as T

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sizes = [z for z in args.sizes.split(",") if z not in GENERATED_SIZES]
    sel = read_selection()
    everything: dict[str, list[str]] = defaultdict(list)
    for key, _p, _ in iter_janko(JANKO):
        everything[key.rsplit("_", 1)[-1]].append(key)
    out = Path(args.out)
    pl = CountedPlanner({z: sel.get(z, []) for z in sizes}, ["sa"])
    tasks: list[Task] = []
    for z in sizes:
        keys = T.training_keys(everything[z], sel.get(z, []), size=z)
        if not keys:
            print(f"{z}: no janko puzzle outside the selection: no tuned row", file=sys.stderr)
            continue
        pl.selection[z] = keys   # the ladder's centre from the training puzzles' QUBO size
        centre = pl.initial("sa", z)[INITIAL_SPAN]
        tasks += T.tuning_tasks(z, keys, source_of, centre,
                                lambda k, L: pl.task(k, "sa", L, 0))
    entry = _session(args, tuning={"sizes": sizes, "grid": [list(b) for b in T.BETA_GRID]})
    (out / "tuning").mkdir(parents=True, exist_ok=True)
    add_manifest(out, entry)
    got = run_tasks(lambda recs: tasks, RecordFile(out / "tuning" / "records.jsonl.gz"),
                    workers=args.workers, scheduler=args.scheduler, progress=not args.quiet,
                    log=lambda s: print(s, file=sys.stderr), desc="tune",
                    stamp={"session": entry["started"]})
    chosen = T.read_tuning(out / "tuning.json") | T.choose(list(got.values()))
    T.write_tuning(out / "tuning.json", chosen)
    for z, d in sorted(chosen.items(), key=lambda kv: math.prod(map(int, kv[0].split("x")))):
        print(f"{z}: beta range {d['beta_range']} (at {d['length']} sweeps on "
              f"{len(d['puzzles'])} training puzzles; median TTS99 per range, spin updates: "
              f"{d['median_tts99_spin_updates']})")


def cmd_verify(args) -> None:
    """Re-run N random count-decided records; one JSON object; exit 0 only when every count
    (and the energies' digest) matches."""
    from . import protocol as P
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    records = RecordFile(Path(args.out) / "records.jsonl.gz").read()
    res = P.verify(records, args.sample, seed=args.seed)
    if args.json:
        print(json.dumps(res))
    else:
        for r in res["records"]:
            print(f"{r['key']}: successes {r['successes_recorded']} -> {r['successes_now']}, "
                  f"reads {r['reads_recorded']} -> {r['reads_now']}, energies "
                  f"{'match' if r['energies_match'] else 'DIFFER'}, CPU per read x"
                  f"{r['cpu_per_read_ratio']}")
        print(f"{res['checked']} of {res['candidates']} count-decided records re-run: "
              f"{'all match' if res['all_match'] else 'NOT all match'}")
    sys.exit(0 if res["all_match"] else 1)


def cmd_sampler(args) -> None:
    """Any dimod sampler under release 2's protocol: its records, this session's calibration
    of it and of sa on the same sizes, a summary in the release's format and the window sticker
    against the committed baseline."""
    from . import protocol as P
    from .study import load

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    def bad(msg: str) -> None:   # bad input: one line, exit 2
        print(msg, file=sys.stderr)
        sys.exit(2)

    from .study import sampler_class_name
    try:   # the registry's dimod:MODULE:CLASS; MODULE:CLASS, as before, names the same class
        target = sampler_class_name(args.target or "")
    except ValueError:
        bad("sampler: give the class as dimod:MODULE:CLASS (e.g. dimod:my.module:MySampler)")
    name = args.name or target.rsplit(":", 1)[1]
    params = []
    for kv in args.param:
        k, eq, v = kv.partition("=")
        if not eq or not k:
            bad(f"--param {kv!r}: expected KEY=VALUE")
        params.append((k, v))
    sources: dict[str, str] = {}
    if args.puzzles:
        sel: dict[str, list[str]] = defaultdict(list)
        for src in args.puzzles.split(","):
            try:
                p = load(src)
            except Exception as exc:
                bad(f"{src}: {exc}")
            key = f"{Path(src.split('::')[0]).stem}{'-' + src.split('::')[1] if '::' in src else ''}" \
                  f"_{p.height}x{p.width}"
            sources[key] = src
            sel[f"{p.height}x{p.width}"].append(key)
        sel = {z: k[:args.limit] if args.limit else k for z, k in sel.items()}
    else:
        sel = {z: k[:args.limit] if args.limit else k for z, k in read_selection().items()
               if z in args.sizes.split(",")}
    try:
        from .study import make_custom
        make_custom(target)
    except Exception as exc:
        bad(f"sampler {target}: {type(exc).__name__}: {exc}")
    out = Path(args.out or ROOT / "bench" / "results" / f"sampler-{name}")
    session = _session(args, sampler=target, params=dict(params))
    out.mkdir(parents=True, exist_ok=True)
    add_manifest(out, session)
    pl = SamplerPlanner(sel, name, target, params=tuple(params),
                        length_param=args.length_param, max_length=args.max_length,
                        sources=sources)
    run_tasks(pl, RecordFile(out / "records.jsonl.gz"), workers=args.workers,
              scheduler=args.scheduler, progress=not args.quiet, cost=pl.cost,
              log=lambda s: print(s, file=sys.stderr), desc=name,
              stamp={"session": session["started"]})
    if not args.no_calibration:   # the user's sampler and sa, interleaved in this session
        groups = calibration_groups(sel, [name], puzzles=args.cal_puzzles, planner=pl)
        if name != "sa":
            groups += calibration_groups(sel, ["sa"], puzzles=args.cal_puzzles,
                                         planner=SamplerPlanner(sel, "sa", "", sources=sources))
        for g in groups:
            if g["sampler"] == "sa":
                g.pop("sampler_class", None)
                g.pop("params", None)
        run_calibration(out, groups, session, rounds=args.rounds, reads=args.cal_reads,
                        quiet=args.quiet)
    records = RecordFile(out / "records.jsonl.gz").read()
    cal = out / "calibration.json"
    calibration = json.loads(cal.read_text()) if cal.is_file() else None
    summary = summarize(records, calibration=calibration, study=f"{P.STUDY} ({name})",
                        decided=decided_classes(out, {r["instance"]: r.get("source")
                                                      for r in pooled(records)}),
                        keep_replicates=True, resamples=args.resamples)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    base_path = Path(args.baseline) if args.baseline else default_baseline(sel)
    baseline = json.loads(base_path.read_text())
    base_model = {z: P.cost_model(calibration, f"sa|{z}") for z in sel}
    text = P.sticker(summary, baseline, name, base_model={z: m for z, m in base_model.items()
                                                          if m})
    text += f"\n\nBaseline: {base_path.relative_to(ROOT) if base_path.is_relative_to(ROOT) else base_path}"
    (out / "sticker.md").write_text(text + "\n")
    print(text)
    print(f"wrote {out / 'summary.json'} and {out / 'sticker.md'}", file=sys.stderr)


def default_baseline(sel: Mapping[str, list[str]]) -> Path:
    """Release 2's committed summary when it holds sa at every size asked, else the baseline
    computed in release 2's format from release 1's records (bench/results/release2/
    baseline-release1.json)."""
    r2 = ROOT / "bench" / "results" / "release2" / "summary.json"
    if r2.is_file():
        sizes = json.loads(r2.read_text())["samplers"].get("sa", {}).get("sizes", {})
        if all(z in sizes for z in sel):
            return r2
    return ROOT / "bench" / "results" / "release2" / "baseline-release1.json"


def cmd_baseline(args) -> None:
    """baseline-release1.json: release 1's sa and tabu records summarised in release 2's format
    (spin updates and their replicates; CPU from the records): the window sticker's baseline
    until release 2 has its own."""
    from . import protocol as P
    recs = [r for r in RecordFile(OUT / "records.jsonl.gz").read()
            if r.get("sampler") in ("sa", "tabu") and r.get("size") in args.sizes.split(",")]
    planned = {z: len(k) for z, k in read_selection().items()}
    path = ROOT / "bench" / "results" / "release2" / "baseline-release1.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    decided = decided_classes(path.parent, {r["instance"]: r.get("source") for r in pooled(recs)})
    s = summarize(recs, planned=planned, keep_replicates=True, resamples=args.resamples,
                  fit_min_instances=P.FIT_MIN_INSTANCES, decided=decided,
                  study="release-1 (in release 2's format)")
    path.write_text(json.dumps(s, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({s['records']} records)")


def cmd_status(args) -> None:
    records = relabel(RecordFile(Path(args.out) / "records.jsonl.gz").read())
    c: dict[tuple, list] = defaultdict(lambda: [0, 0.0, set(), set()])
    for r in records:
        if "error" in r:
            continue
        a = c[(r["sampler"], r["size"])]
        a[0] += 1
        a[1] += r["cpu_s"] + r["setup_cpu_s"]
        a[2].add(r["length"])
        a[3].add(r["instance"])
    errors = sum(1 for r in records if "error" in r)
    print(f"{len(records)} records ({errors} errors)")
    for (s, z), (n, cpu, ls, insts) in sorted(c.items()):
        print(f"{s:<12} {z:>6}: {n:>5} records, {len(insts):>3} instances, lengths "
              f"{sorted(ls)}, {cpu / 3600:.2f} CPU-h")


def estimate(records: Sequence[dict], sel: dict[str, list[str]], samplers: Sequence[str], *,
             reads: int = READS, budget: float = CPU_BUDGET_S,
             planner: type | None = None) -> list[dict[str, Any]]:
    """CPU hours per size and sampler from the cost model (formulations.harness.study.READ_COST)
    summed over the size's puzzles, calibrated by ``records``: measured over modelled CPU of the
    group's records (a ratio of sums, so the long records weigh as they cost; at least 20
    records); a group not measured yet takes its sampler's ratio at the largest size measured.
    ``a``: the ladder as first planned plus two steps; ``b``: extended to the cap; ``done``: the
    CPU hours its records hold."""
    pl = (planner or Planner)(sel, samplers, reads=reads, budget=budget)
    measured: dict[tuple[str, str], float] = defaultdict(float)
    modelled: dict[tuple[str, str], float] = defaultdict(float)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for r in pooled(records):
        if r["sampler"] in EXACT or r["instance"] not in pl.selection.get(r["size"], []):
            continue
        pl._vars(r["instance"])
        t = pl.task(r["instance"], r["sampler"], r["length"], r["seed"])
        pair = (r["sampler"], r["size"])
        measured[pair] += r["cpu_s"] + r.get("setup_cpu_s", 0.0)
        if isinstance(pl, CountedPlanner):   # the record's own reads (release 1's, say)
            modelled[pair] += read_seconds(r["sampler"], r["length"],
                                          *pl.sizes[r["instance"]]) * r["reads"] + 0.05
        else:
            modelled[pair] += estimate_cost(t, *pl.sizes[r["instance"]])
        counts[pair] += 1

    def cells(z: str) -> int:
        return math.prod(map(int, z.split("x")))

    def scale(s: str, z: str) -> float:
        known = sorted((cells(k[1]), measured[k] / modelled[k]) for k in counts
                       if k[0] == s and counts[k] >= 20 and modelled[k] > 0)
        if counts.get((s, z), 0) >= 20:
            return measured[(s, z)] / modelled[(s, z)]
        return known[-1][1] if known else 1.0

    rows = []
    for z in sel:
        for key in sel[z]:
            pl._vars(key)
        for s in samplers:
            init = pl.initial(s, z)
            if not init:  # sa-tuned at a size with no tuned beta range: no row
                print(f"{z} {s}: no beta range tuned at this size, so no row "
                      f"(python bench/release.py tune --sizes {z})", file=sys.stderr)
                continue
            k0, k1 = ladder_index(init[0], BASE), ladder_index(init[-1], BASE)
            cap = max(k for k in range(k1, k1 + 40)
                      if ladder_length(k, BASE) <= pl.max_length[s])

            def cost(k: int, z: str = z, s: str = s) -> float:
                return sum(estimate_cost(pl.task(key, s, ladder_length(k, BASE), 0),
                                         *pl.sizes[key]) for key in sel[z])

            f = scale(s, z) / 3600
            rows.append({"size": z, "sampler": s, "scale": scale(s, z),
                         "a": f * sum(cost(k) for k in range(k0, min(k1 + 2, cap) + 1)),
                         "b": f * sum(cost(k) for k in range(k0, cap + 1)),
                         "done": measured[(s, z)] / 3600})
    return rows


def estimate_counted(sel: Mapping[str, list[str]], samplers: Sequence[str],
                     calibration: Mapping | None, earlier: Sequence[dict],
                     tuned: Mapping[str, Any] | None = None) -> list[dict]:
    """Release 2's CPU hours per (sampler, size), for the first ladder plus two steps (``a``)
    and to the cap (``b``): per puzzle and length the reads the count rule will draw, from
    release 1's success rate at that cell where it has one (S / p-hat, between R_min and R_max;
    R_max when p-hat is 0), else R_min (a lower bound; ``*_max`` always R_max: the upper bound),
    times the
    read's CPU from this machine's calibration (a + c x length x variables) where there is one,
    else the cost model (READ_COST). ``tuned``: tuning.json's sizes, the ``sa-tuned`` row's."""
    from . import protocol as P

    pl = CountedPlanner(dict(sel), list(samplers))
    pl.tuned = dict(tuned or {})
    p_hat: dict[tuple, tuple[int, int]] = {}
    for r in pooled(earlier):
        run = (r["sampler"], r["instance"], r["length"])
        s0, n0 = p_hat.get(run, (0, 0))
        p_hat[run] = (s0 + r["successes"], n0 + r["reads"])
    rows = []
    for z, keys in sel.items():
        for key in keys:
            pl._vars(key)
        for s in samplers:
            if s in EXACT:
                continue
            model = P.cost_model(calibration, f"{calibrated_as(s)}|{z}")
            init = pl.initial(s, z)
            if not init:  # sa-tuned at a size with no tuned beta range: no row
                print(f"{z} {s}: no beta range tuned at this size, so no row "
                      f"(python bench/release.py tune --sizes {z})", file=sys.stderr)
                continue
            k0, k1 = ladder_index(init[0], BASE), ladder_index(init[-1], BASE)
            cap = max(k for k in range(k1, k1 + 40) if ladder_length(k, BASE) <= pl.max_length[s])
            sums = {"a": 0.0, "b": 0.0, "a_max": 0.0, "b_max": 0.0}
            for k in range(k0, cap + 1):
                L = ladder_length(k, BASE)
                for key in keys:
                    n, q = pl.sizes[key]
                    t = (model["a_s"] + model["c_s"] * L * n) if model else \
                        read_seconds(s, L, n, q)
                    succ, reads = p_hat.get((s, key, L), (0, 0))
                    if reads and succ:
                        want = min(P.MAX_READS, max(P.MIN_READS, math.ceil(
                            P.UNTIL_SUCCESSES * reads / succ / 10) * 10))
                    else:   # never solved there (R_max), or not measured (R_min: a lower bound)
                        want = P.MAX_READS if reads else P.MIN_READS
                    for tag in ("a", "b"):
                        if tag == "b" or k <= min(k1 + 2, cap):
                            sums[tag] += want * t / 3600
                            sums[tag + "_max"] += P.MAX_READS * t / 3600
            rows.append({"size": z, "sampler": s, "calibrated": model is not None, **sums})
    return rows


def cmd_estimate(args) -> None:
    """The release's CPU hours (:func:`estimate`), per size and sampler and in all."""
    sel = read_selection()
    sel = {z: k for z, k in sel.items() if z in args.sizes.split(",")}
    records = RecordFile(Path(args.out) / "records.jsonl.gz").read()
    counted = args.release == 2
    if counted:
        from . import protocol as P
        cal = Path(args.out) / "calibration.json"
        calibration = json.loads(cal.read_text()) if cal.is_file() else None
        here = P.cpu_info()["cpu_model"]   # this machine's sessions, else the reference CPU's
        rows = estimate_counted(sel, args.samplers.split(","),
                                P.for_cpu(calibration, here)
                                or P.for_cpu(calibration, P.reference_cpu(calibration)),
                                RecordFile(OUT / "records.jsonl.gz").read(),
                                read_tuning(Path(args.out) / "tuning.json"))
        print(f"{'size':>6} {'sampler':<12} {'A CPU-h':>8} {'B CPU-h':>8} {'A max':>8} "
              f"{'B max':>8} calibrated")
        for r in rows:
            print(f"{r['size']:>6} {r['sampler']:<12} {r['a']:8.2f} {r['b']:8.2f} "
                  f"{r['a_max']:8.2f} {r['b_max']:8.2f} {r['calibrated']}")
        tot = {k: sum(r[k] for r in rows) for k in ("a", "b", "a_max", "b_max")}
        print(f"release 2, these groups: {tot['a']:.1f} (first ladder + 2 steps) to "
              f"{tot['b']:.1f} (to the caps) CPU-hours with reads from release 1's success rates "
              f"(R_min = {P.MIN_READS} where it has none: a lower bound there); at most "
              f"{tot['a_max']:.1f} to "
              f"{tot['b_max']:.1f} (every cell R_max). On W workers: that / W hours")
        return
    if counted:   # CPU per read calibrated by release 1's records where release 2 has none
        have = {(r["sampler"], r["size"]) for r in pooled(records)}
        records = records + [r for r in RecordFile(OUT / "records.jsonl.gz").read()
                             if (r.get("sampler"), r.get("size")) not in have]
    rows = estimate(records, sel, args.samplers.split(","), reads=args.reads, budget=args.budget,
                    planner=CountedPlanner if counted else None)
    if counted:
        from . import protocol as P
        print(f"release 2: every record at R_max = {P.MAX_READS} reads (an upper bound: a cell "
              f"stops at {P.UNTIL_SUCCESSES} successes after {P.MIN_READS} reads; at least "
              f"{P.MIN_READS / P.MAX_READS:.0%} of it); 'done' counts release 1's CPU where "
              f"release 2 has no records of a group")
    print(f"{'size':>6} {'sampler':<12} {'A CPU-h':>8} {'B CPU-h':>8} {'done':>6} {'scale':>6}")
    for r in rows:
        print(f"{r['size']:>6} {r['sampler']:<12} {r['a']:8.2f} {r['b']:8.2f} {r['done']:6.2f} "
              f"{r['scale']:6.2f}")
    a, b = sum(r["a"] for r in rows), sum(r["b"] for r in rows)
    done = sum(r["cpu_s"] + r.get("setup_cpu_s", 0.0) + (r.get("unique_cpu_s") or 0.0)
               for r in pooled(records)) / 3600
    print(f"whole release: {a:.1f} to {b:.1f} CPU-hours of sampling; {done:.2f} done. On W "
          f"dedicated workers: that / W hours (2 cores: {a / 2:.0f} to {b / 2:.0f} h)")


def plot(summary: dict, quantiles: Sequence[str] = ("0.5", "0.75", "0.9")):
    """TTS99 at each quantile's optimal length against cells, one panel per quantile: a line
    per sampler with its 95 % band; filled markers where the optimum is interior, hollow where it
    is a bound (at a ladder edge); the exact baselines' time to the uniqueness proof dashed.
    Unbounded ends are drawn to the top of the panel. Returns the figure."""
    from formulations.show.plots import figure

    fig = figure(4.2 * len(quantiles), 4.2)
    import numpy as np

    axes = np.atleast_1d(fig.subplots(1, len(quantiles), sharey=True))  # one quantile: one Axes
    for ax, q in zip(axes, quantiles):
        for k, (name, d) in enumerate(sorted(summary["samplers"].items())):
            xs, ys, lo, hi, inner = [], [], [], [], []
            for _z, e in d["sizes"].items():
                o = e["quantiles"][q]
                if o["tts99_s"] is None:
                    continue
                xs.append(e["cells"])
                ys.append(o["tts99_s"])
                lo.append(o["low_s"] if o["low_s"] is not None else o["tts99_s"])
                hi.append(o["high_s"] if o["high_s"] is not None else math.inf)
                inner.append(o["interior"] is not False)
            if not xs:
                continue
            exact = name in EXACT
            top = max([v for v in hi if math.isfinite(v)] + ys) * 10
            hi = [min(v, top) for v in hi]
            ax.plot(xs, ys, "--" if exact else "-", color=f"C{k}",
                    label=f"{name} (uniqueness)" if exact else name)
            ax.fill_between(xs, lo, hi, color=f"C{k}", alpha=0.15)
            for x, y, i in zip(xs, ys, inner):
                ax.plot([x], [y], "o", color=f"C{k}", mfc=f"C{k}" if i else "white")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("cells")
        ax.set_title(f"q = {q}", fontsize="medium")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("TTS99 at the optimal length (CPU s)")
    axes[0].legend(fontsize="x-small")
    fig.suptitle("Per-quantile optimal TTS99 over puzzles (95 % two-level bootstrap bands; "
                 "hollow: optimum at a ladder edge, a bound)", fontsize="small")
    return fig


def _series(d: Mapping[str, Any], pick) -> tuple[list, ...]:
    """(cells, value, low, high, filled) per size of a sampler's summary, sizes whose ``pick``
    gives None left out; ``pick(entry)`` returns (value, low, high, filled)."""
    xs, ys, lo, hi, fill = [], [], [], [], []
    for e in d["sizes"].values():
        got = pick(e)
        if got is None or got[0] is None:
            continue
        v, a, b, f = got
        xs.append(e["cells"])
        ys.append(v)
        lo.append(v if a is None else a)
        hi.append(math.inf if b is None else b)
        fill.append(f)
    return xs, ys, lo, hi, fill


def _draw(ax, k: int, label: str, series: tuple[list, ...], style: str = "-") -> None:
    xs, ys, lo, hi, fill = series
    if not xs:
        return
    top = max([v for v in hi if math.isfinite(v)] + ys) * 10
    ax.plot(xs, ys, style, color=f"C{k}", label=label)
    ax.fill_between(xs, lo, [min(v, top) for v in hi], color=f"C{k}", alpha=0.15)
    for x, y, f in zip(xs, ys, fill):
        ax.plot([x], [y], "o", color=f"C{k}", mfc=f"C{k}" if f else "white")


def plot_spin_updates(summary: dict, q: str = "0.5"):
    """Release 2's figure: left, each sampler's TTS99 in spin updates (its own unit of work) at
    the quantile's optimal length with the 95 % band, a detection limit drawn as a triangle
    ("> L": no length solved that quantile); right, the same in CPU seconds derived from the
    calibration, beside the exact baselines' CPU time to the uniqueness proof and to the first
    grid (set-up included), which have no spin updates. Hollow: the optimum at a ladder edge."""
    from formulations.show.plots import figure
    import numpy as np

    fig = figure(9.0, 4.4)
    left, right = np.atleast_1d(fig.subplots(1, 2))
    samplers = sorted(n for n in summary["samplers"] if n not in EXACT)
    for k, name in enumerate(samplers):
        d = summary["samplers"][name]

        def su(e, q=q):
            o = e["quantiles"].get(q) or {}
            return (o.get("tts99_spin_updates"), o.get("low_spin_updates"),
                    o.get("high_spin_updates"), o.get("interior_spin_updates") is not False)

        def cpu(e, q=q):
            o = e["quantiles"].get(q) or {}
            return (o.get("tts99_s"), o.get("low_s"), o.get("high_s"),
                    o.get("interior") is not False)

        _draw(left, k, name, _series(d, su))
        _draw(right, k, name, _series(d, cpu))
        for e in d["sizes"].values():   # unbounded: the detection limit
            o = e["quantiles"].get(q) or {}
            if o.get("tts99_spin_updates") is None and o.get("detection_limit_spin_updates"):
                left.plot([e["cells"]], [o["detection_limit_spin_updates"]], "^", color=f"C{k}")
            if o.get("tts99_s") is None and o.get("detection_limit_s"):
                right.plot([e["cells"]], [o["detection_limit_s"]], "^", color=f"C{k}")
    for j, name in enumerate(sorted(n for n in summary["samplers"] if n in EXACT)):
        d = summary["samplers"][name]
        for figure_name, style in (("uniqueness", "--"), ("first_grid", ":")):
            def ex(e, f=figure_name):
                o = (e.get(f) or {}).get(q) or {}
                return o.get("tts99_s"), o.get("low_s"), o.get("high_s"), True
            _draw(right, len(samplers) + j, f"{name} ({figure_name.replace('_', ' ')})",
                  _series(d, ex), style)
    for ax, unit in ((left, "spin updates"), (right, "CPU s")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("cells")
        ax.set_ylabel(f"TTS99 at the optimal length ({unit})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="x-small")
    left.set_title("in each sampler's unit of work (reproduces on any machine)", fontsize="small")
    right.set_title("CPU, from this machine's calibration; exact baselines", fontsize="small")
    fig.suptitle(f"Quantile {q} over puzzles, 95 % two-level bootstrap bands; triangle: "
                 "detection limit (> L); hollow: a bound", fontsize="small")
    return fig


def plot_at_optimum(summary: dict, targets: Sequence[str] = ("0", "4", "16")):
    """Residual energy (left) and time to target in spin updates (right, one line style per
    target energy) at the median's optimal length against cells, medians over puzzles with
    their 95 % intervals (:func:`formulations.harness.protocol.at_optimum`)."""
    from formulations.show.plots import figure
    import numpy as np

    fig = figure(9.0, 4.2)
    left, right = np.atleast_1d(fig.subplots(1, 2))
    styles = ("-", "--", ":", "-.")
    for k, name in enumerate(sorted(n for n in summary["samplers"] if n not in EXACT)):
        d = summary["samplers"][name]

        def res(e):
            a = e.get("at_optimum")
            if not a:
                return None
            r = a["residual_energy"]
            return r["median"], r["low"], r["high"], True
        _draw(left, k, name, _series(d, res))
        for t, style in zip(targets, styles):
            def ttt(e, t=t):
                a = e.get("at_optimum")
                o = a and a["targets"].get(t)
                if not o:
                    return None
                return o["tts99_spin_updates"], o["low_spin_updates"], o["high_spin_updates"], True
            _draw(right, k, f"{name}, energy <= {t}", _series(d, ttt), style)
    left.set_ylabel("mean residual energy of a read (median over puzzles)")
    right.set_ylabel("time to target, TTS99 (spin updates)")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("symlog" if ax is left else "log", **({"linthresh": 0.1} if ax is left else {}))
        ax.set_xlabel("cells")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.suptitle("At the median's optimal length (spin updates): 95 % bootstrap intervals",
                 fontsize="small")
    return fig


def _ms(v: float | None) -> str:
    """A time in CPU milliseconds, three significant figures; None (unbounded) as inf."""
    if v is None:
        return "inf"
    ms = 1000 * v
    return f"{ms:.3g}" if ms < 1000 else f"{ms:,.0f}"


def table(summary: dict, quantiles: Sequence[str] = ("0.5", "0.75", "0.9"),
          min_instances: int = 1) -> str:
    """The release as markdown, from summary.json alone (the closing note's and docs' table):
    per sampler and size the TTS99 quantiles over instances at each quantile's optimal length
    with the 95 % interval, the length and whether it is interior (``bound`` when the minimum
    sits at a ladder edge, or its replicates' do: the optimal TTS99 is at most that, its length
    beyond); a size short of its planned puzzles says so; the exact baselines' CPU to the first
    grid and to the uniqueness proof; the fitted exponents and the steps between sizes."""
    lines = ["| solver | size | n | solved | " +
             " | ".join(f"q={q}: TTS99 ms [95 %] (L*)" for q in quantiles) + " |",
             "|---|---|---|---|" + "---|" * len(quantiles)]

    def cell(o: dict) -> str:
        if o["tts99_s"] is None:
            low = "" if o["low_s"] is None else f" (>= {_ms(o['low_s'])})"
            return "unsolved" + low
        s = f"{_ms(o['tts99_s'])} [{_ms(o['low_s'])}, {_ms(o['high_s'])}]"
        if o.get("optimal_length") is None:
            return s
        tag = "" if o["interior"] else ", bound"
        return s + f" (L*={o['optimal_length']:,}{tag})"

    exact_rows: list[str] = []
    fit_rows: list[str] = []
    for name, d in sorted(summary["samplers"].items(), key=lambda kv: (kv[0] in EXACT, kv[0])):
        for z, e in d["sizes"].items():
            figures = ([("first grid", e["first_grid"]), ("uniqueness", e["uniqueness"])]
                       if name in EXACT else [(None, e["quantiles"])])
            for fig, qs in figures:
                first = qs[quantiles[0]]
                if first["instances"] < min_instances:
                    continue
                label = f"{name} ({fig})" if fig else name
                zl = z if e.get("complete") is not False else f"{z} (of {e['planned']})"
                (exact_rows if fig else lines).append(
                    f"| {label} | {zl} | {first['instances']} | {first['solved']} | " +
                    " | ".join(cell(qs[q]) for q in quantiles) + " |")
        fits = d["fits"]
        for fig in (("first_grid", "uniqueness") if name in EXACT else (None,)):
            per_q = fits.get(fig, {}) if fig else fits
            for q in quantiles:
                f = per_q.get(q) or {}
                exp, poly = f.get("exp_cells"), f.get("poly_cells")
                if not exp:
                    continue
                label = f"{name} ({fig.replace('_', ' ')})" if fig else name

                def iv(x: dict, digits: str) -> str:
                    hi = "inf" if x["high"] is None else format(x["high"], digits)
                    lo = "-inf" if x["low"] is None else format(x["low"], digits)
                    return f"{format(x['exponent'], digits)} [{lo}, {hi}]"

                def with_steps(x: dict | None, digits: str) -> str:
                    if not x:
                        return ""
                    out = iv(x, digits)
                    if x.get("steps_agree") is not None:   # three sizes or more: the steps
                        out += ("; steps " + ", ".join(iv(st, digits) for st in x["steps"]) +
                                ("" if x["steps_agree"] else " (disagree)"))
                    return out
                fit_rows.append(f"| {label} | {q} | {f['sizes_used']} | "
                                f"{with_steps(exp, '.4f')} | {with_steps(poly, '.2f')} |")
    out = lines + exact_rows
    if fit_rows:
        out += ["", "| solver | q | sizes | exp: b per cell [95 %] | poly: b in cells^b [95 %] |",
                "|---|---|---|---|---|"] + fit_rows + [
                "", "Steps: the exponent between successive sizes; `disagree` when one of their "
                "intervals excludes the exponent fitted over all sizes (that model does not "
                "describe them)."]
    return "\n".join(out)


def cmd_table(args) -> None:
    path = Path(args.summary) if args.summary else Path(args.out) / "summary.json"
    if not path.is_file():
        sys.exit(f"{path}: missing; run `python bench/release.py summary` first")
    summary = json.loads(path.read_text())
    print(table(summary, min_instances=args.min_instances))
    from . import protocol as P
    extra = P.table_spin_updates(summary, min_instances=args.min_instances)
    if extra:
        print("\n" + extra)


def cmd_plot(args) -> None:
    from formulations.show.plots import save

    path = Path(args.out) / "summary.json"
    if not path.is_file():
        sys.exit(f"{path}: missing; run `python bench/release.py summary` first")
    summary = json.loads(path.read_text())
    print(f"wrote {save(plot(summary), Path(args.out) / 'scaling.png')}")
    if any("at_optimum" in e for d in summary["samplers"].values() for e in d["sizes"].values()):
        # release 2: spin updates with the baselines, residual energy and time to target
        print(f"wrote {save(plot_spin_updates(summary), Path(args.out) / 'spin_updates.png')}")
        print(f"wrote {save(plot_at_optimum(summary), Path(args.out) / 'at_optimum.png')}")


def cmd_compact(args) -> None:
    f = RecordFile(Path(args.out) / "records.jsonl.gz")
    f.compact()
    print(f"compacted {f.path} ({f.path.stat().st_size} bytes)")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["select", "run", "summary", "status", "compact",
                                        "estimate", "plot", "table", "verify", "calibrate",
                                        "sampler", "baseline", "tune"])
    ap.add_argument("target", nargs="?", default=None,
                    help="sampler: the dimod sampler class, dimod:MODULE:CLASS (as --backend)")
    ap.add_argument("--release", type=int, choices=(1, 2), default=2,
                    help="2 (default): count-decided records in bench/results/release2; 1: the "
                         "first release's (bench/results/release)")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="run from a tree with modified tracked files (the session says so)")
    ap.add_argument("--sample", type=int, default=10, help="verify: records to re-run")
    ap.add_argument("--seed", type=int, default=0, help="verify: which records (seeded)")
    ap.add_argument("--json", action="store_true", help="verify: one JSON object")
    ap.add_argument("--rounds", type=int, default=3, help="calibrate: interleaved rounds")
    ap.add_argument("--cal-reads", type=int, default=20, help="calibrate: reads per measurement")
    ap.add_argument("--cal-puzzles", type=int, default=3, help="calibrate: puzzles per size")
    ap.add_argument("--param", action="append", default=[],
                    help="sampler: KEY=VALUE for every sample() call (repeatable)")
    ap.add_argument("--name", default=None, help="sampler: its label (default: the class name)")
    ap.add_argument("--length-param", default="num_sweeps",
                    help="sampler: the sample() keyword that takes the length (sweeps)")
    ap.add_argument("--max-length", type=int, default=102400, help="sampler: the ladder's cap")
    ap.add_argument("--puzzles", default=None,
                    help="sampler: puzzle files (FILE or FILE::KEY, comma-separated) instead of "
                         "the release's selection")
    ap.add_argument("--baseline", default=None, help="sampler: the summary to compare with")
    ap.add_argument("--summary", default=None,
                    help="table: a summary.json to print (default: the release's)")
    ap.add_argument("--no-calibration", action="store_true")
    ap.add_argument("--cpu", default=None,
                    help="summary: state the CPU figures for the calibration sessions of this "
                         "CPU model (as /proc/cpuinfo names it; default: the model with the "
                         "most sessions); the others are reported apart, as ratios")
    ap.add_argument("--resamples", type=int, default=RESAMPLES)
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--per-size", type=int, default=PER_SIZE)
    ap.add_argument("--samplers", default=",".join(SAMPLERS))
    ap.add_argument("--baselines", default=",".join(BASELINES),
                    help="exact backends timed on the same puzzles (empty: none)")
    ap.add_argument("--reads", type=int, default=READS)
    ap.add_argument("--seeds", default="0", help="run: seeds per cell (two: 0,1)")
    ap.add_argument("--budget", type=float, default=CPU_BUDGET_S,
                    help="sampling CPU seconds per record at most")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address (tcp://HOST:8786)")
    ap.add_argument("--out", default=None,
                    help="records folder (default bench/results/release2, or release with "
                         "--release 1; sampler: bench/results/sampler-NAME)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--limit", type=int, default=None,
                    help="only the first N puzzles of each size (a quick look, not the release)")
    ap.add_argument("--min-instances", type=int, default=1,
                    help="table: leave out sizes measured on fewer instances (partial groups)")
    args = ap.parse_args(argv)
    if args.out is None and args.command != "sampler":
        args.out = str(OUT if args.release == 1 else OUT2)
    {"verify": cmd_verify, "calibrate": cmd_calibrate, "sampler": cmd_sampler,
     "baseline": cmd_baseline, "select": cmd_select, "run": cmd_run, "summary": cmd_summary, "status": cmd_status,
     "compact": cmd_compact, "estimate": cmd_estimate,
     "plot": cmd_plot, "table": cmd_table, "tune": cmd_tune}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
