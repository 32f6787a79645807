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
import subprocess
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from formulations.harness.study import (  # noqa: E402
    EXACT,
    TARGETS,
    RecordFile,
    Task,
    corpus_root,
    estimate_cost,
    pooled,
    run_tasks,
)
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
              "pimc": 4, "rotor": 4, "pt": 4, "pa": 4}
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

    def __init__(self, selection: dict[str, list[str]], samplers: Sequence[str], *,
                 reads: int = READS, budget: float = CPU_BUDGET_S, seeds: Sequence[int] = (0,)):
        self.selection, self.samplers = selection, list(samplers)
        self.reads, self.budget, self.seeds = reads, budget, list(seeds)
        self.decided: dict[tuple, tuple[int, list[int]]] = {}
        self.variables: dict[str, int] = {}
        self.sizes: dict[str, tuple[int, int]] = {}

    def task(self, key: str, sampler: str, length: int, seed: int) -> Task:
        if sampler in EXACT:
            return Task(STUDY, key, source_of(key), sampler, 0, seed, reads=1,
                        cpu_budget_s=EXACT_LIMIT_S)
        return Task(STUDY, key, source_of(key), sampler, length, seed, reads=self.reads,
                    reads_per_call=READS_PER_CALL, cpu_budget_s=self.budget)

    def _vars(self, key: str) -> int:
        if key not in self.variables:
            from formulations.harness.study import load
            from formulations.model import build_model
            from formulations.model.penalty import lower
            p = load(source_of(key))
            pen = lower(build_model(p, use_x=False))
            self.variables[key] = pen.num_variables
            self.sizes[key] = (pen.num_variables, len(pen.qv))
        return self.variables[key]

    def initial(self, sampler: str, size: str) -> list[int]:
        if sampler in EXACT:
            return [0]  # one trial per puzzle, no anneal length
        keys = self.selection[size]
        n = sorted(self._vars(k) for k in keys[:5])[len(keys[:5]) // 2]
        g = min(max(guess(sampler, n), MIN_LENGTH[sampler]), MAX_LENGTH[sampler])
        k0 = ladder_index(g, BASE)
        while ladder_length(k0 + INITIAL_SPAN, BASE) > MAX_LENGTH[sampler]:
            k0 -= 1  # the whole first ladder below the cap
        return [ladder_length(k, BASE) for k in range(k0 - INITIAL_SPAN, k0 + INITIAL_SPAN + 1)
                if MIN_LENGTH[sampler] <= ladder_length(k, BASE) <= MAX_LENGTH[sampler]]

    def __call__(self, records: dict[str, dict]) -> list[Task]:
        by_group: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for r in records.values():
            by_group[(r["sampler"], r["instance"].rsplit("_", 1)[-1])].append(r)
        tasks: list[tuple[tuple, Task]] = []
        order = {s: i for i, s in enumerate(self.samplers)}
        for size in sorted(self.selection, key=lambda s: math.prod(map(int, s.split("x")))):
            for sampler in self.samplers:
                recs = by_group.get((sampler, size), [])
                ladder = sorted(set(self.initial(sampler, size)) | {r["length"] for r in recs})
                have = {r["key"] for r in recs}
                missing = [self.task(k, sampler, L, s) for L in ladder
                           for k in self.selection[size] for s in self.seeds
                           if f"{k}|{sampler}|{L}|{s}" not in have]
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
            data = LadderData.from_records(complete_ends(pooled(recs))[0])
            optima = optimal_tts(data, QUANTILES, resamples=RESAMPLES)
            add = extend_ladder(ladder, optima, base=BASE, min_length=MIN_LENGTH[sampler],
                                max_length=MAX_LENGTH[sampler])
            self.decided[key] = (len(recs), add)
        return [self.task(k, sampler, L, s) for L in add for k in self.selection[size]
                for s in self.seeds]

    def cost(self, t: Task) -> float:
        """The task's estimated CPU seconds, from the QUBO of the first of its size measured."""
        size = t.instance.rsplit("_", 1)[-1]
        first = next((k for k in self.selection[size] if k in self.sizes), None)
        if first is None:
            self._vars(self.selection[size][0])
            first = self.selection[size][0]
        n, q = self.sizes[first]
        return estimate_cost(t, n, q)


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
    data = json.loads(path.read_text()) if path.exists() else {"study": STUDY, "sessions": []}
    data["sessions"].append(entry)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


# -- summary --------------------------------------------------------------------------------------

def _num(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def summarize(records: Sequence[dict], resamples: int = RESAMPLES,
              planned: Mapping[str, int] | None = None) -> dict[str, Any]:
    """summary.json: per sampler, size and quantile the optimum and its interval; per sampler
    and quantile the scaling fits over sizes whose optimum is interior; residual energy and
    time-to-target per sampler, size and length. ``planned`` (puzzles selected per size) marks
    each size ``complete`` or not; a size measured on fewer puzzles stays out of the fits (its
    missing puzzles are not a random loss: the run goes through them in order)."""
    import numpy as np

    recs = pooled(records)
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in recs:
        groups[(r["sampler"], r["size"])].append(r)
    out: dict[str, Any] = {"study": STUDY, "records": len(recs),
                           "errors": sum(1 for r in records if "error" in r),
                           "quantiles": list(QUANTILES), "confidence": 0.95, "samplers": {}}
    for sampler in sorted({s for s, _ in groups}):
        if sampler in EXACT:
            out["samplers"][sampler] = summarize_exact(
                {z: rs for (s, z), rs in groups.items() if s == sampler}, resamples, planned)
            continue
        sizes = sorted((z for s, z in groups if s == sampler),
                       key=lambda z: math.prod(map(int, z.split("x"))))
        per_size: dict[str, Any] = {}
        points: dict[float, list] = defaultdict(list)
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
            }
            for qd in per_size[z]["quantiles"].values():
                L = qd["optimal_length"]
                qd["spin_updates_per_read"] = None if L is None else int(L) * nvar
                qd["overhead_share"] = overhead_share([r for r in rs if r["length"] == L])
            for o in optima:
                if o.interior and per_size[z]["complete"] is not False:
                    points[o.q].append((cells, nvar, o.tts99_s, o.replicates))
        fits = {}
        for q in QUANTILES:
            pts = points.get(q, [])
            fq = {}
            for model, xname, xi in (("exp", "cells", 0), ("poly", "cells", 0),
                                     ("exp", "variables", 1), ("poly", "variables", 1)):
                fq[f"{model}_{xname}"] = fit_with_steps(
                    [p[xi] for p in pts], [p[2] for p in pts], [p[3] for p in pts],
                    model=model, x=xname)
            fits[str(q)] = {"sizes_used": len(pts), **fq}
        out["samplers"][sampler] = {"sizes": per_size, "fits": fits}
    return out


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
    if not JANKO.is_file() and set(args.sizes.split(",")) - set(GENERATED_SIZES):
        sys.exit(f"janko corpus not found at {JANKO} (set NONOGRAM_CORPUS)")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sel = read_selection()
    sel = {z: k[:args.limit] if args.limit else k for z, k in sel.items()
           if z in args.sizes.split(",")}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    entry = manifest_entry(args)
    add_manifest(out, entry)
    planner = Planner(sel, [b for b in args.baselines.split(",") if b] + args.samplers.split(","),
                      reads=args.reads, budget=args.budget)
    run_tasks(planner, RecordFile(out / "records.jsonl.gz"), workers=args.workers,
              scheduler=args.scheduler, progress=not args.quiet, cost=planner.cost,
              log=lambda s: print(s, file=sys.stderr), desc="release",
              stamp={"session": entry["started"]})
    cmd_summary(args)


def cmd_summary(args) -> None:
    out = Path(args.out)
    records = RecordFile(out / "records.jsonl.gz").read()
    if not records:
        sys.exit(f"no records in {out}; run `python bench/release.py run` first")
    limit = getattr(args, "limit", None)   # a quick look plans only the first N a size
    planned = ({z: len(k[:limit] if limit else k) for z, k in read_selection().items()}
               if PUZZLES.is_file() else None)
    summary = summarize(records, planned=planned)
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


def cmd_status(args) -> None:
    records = RecordFile(Path(args.out) / "records.jsonl.gz").read()
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
             reads: int = READS, budget: float = CPU_BUDGET_S) -> list[dict[str, Any]]:
    """CPU hours per size and sampler from the cost model (formulations.harness.study.READ_COST)
    summed over the size's puzzles, calibrated by ``records``: measured over modelled CPU of the
    group's records (a ratio of sums, so the long records weigh as they cost; at least 20
    records); a group not measured yet takes its sampler's ratio at the largest size measured.
    ``a``: the ladder as first planned plus two steps; ``b``: extended to the cap; ``done``: the
    CPU hours its records hold."""
    pl = Planner(sel, samplers, reads=reads, budget=budget)
    measured: dict[tuple[str, str], float] = defaultdict(float)
    modelled: dict[tuple[str, str], float] = defaultdict(float)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for r in pooled(records):
        if r["sampler"] in EXACT or r["instance"] not in pl.selection.get(r["size"], []):
            continue
        pl._vars(r["instance"])
        t = pl.task(r["instance"], r["sampler"], r["length"], r["seed"])
        key = (r["sampler"], r["size"])
        measured[key] += r["cpu_s"] + r.get("setup_cpu_s", 0.0)
        modelled[key] += estimate_cost(t, *pl.sizes[r["instance"]])
        counts[key] += 1

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
            k0, k1 = ladder_index(init[0], BASE), ladder_index(init[-1], BASE)
            cap = max(k for k in range(k1, k1 + 40) if ladder_length(k, BASE) <= MAX_LENGTH[s])

            def cost(k: int, z: str = z, s: str = s) -> float:
                return sum(estimate_cost(pl.task(key, s, ladder_length(k, BASE), 0),
                                         *pl.sizes[key]) for key in sel[z])

            f = scale(s, z) / 3600
            rows.append({"size": z, "sampler": s, "scale": scale(s, z),
                         "a": f * sum(cost(k) for k in range(k0, min(k1 + 2, cap) + 1)),
                         "b": f * sum(cost(k) for k in range(k0, cap + 1)),
                         "done": measured[(s, z)] / 3600})
    return rows


def cmd_estimate(args) -> None:
    """The release's CPU hours (:func:`estimate`), per size and sampler and in all."""
    sel = read_selection()
    sel = {z: k for z, k in sel.items() if z in args.sizes.split(",")}
    records = RecordFile(Path(args.out) / "records.jsonl.gz").read()
    rows = estimate(records, sel, args.samplers.split(","), reads=args.reads, budget=args.budget)
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

    exact_rows, fit_rows = [], []
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
    path = Path(args.out) / "summary.json"
    if not path.is_file():
        sys.exit(f"{path}: missing; run `python bench/release.py summary` first")
    print(table(json.loads(path.read_text()), min_instances=args.min_instances))


def cmd_plot(args) -> None:
    from formulations.show.plots import save

    path = Path(args.out) / "summary.json"
    if not path.is_file():
        sys.exit(f"{path}: missing; run `python bench/release.py summary` first")
    out = save(plot(json.loads(path.read_text())), Path(args.out) / "scaling.png")
    print(f"wrote {out}")


def cmd_compact(args) -> None:
    f = RecordFile(Path(args.out) / "records.jsonl.gz")
    f.compact()
    print(f"compacted {f.path} ({f.path.stat().st_size} bytes)")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["select", "run", "summary", "status", "compact",
                                        "estimate", "plot", "table"])
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--per-size", type=int, default=PER_SIZE)
    ap.add_argument("--samplers", default=",".join(SAMPLERS))
    ap.add_argument("--baselines", default=",".join(BASELINES),
                    help="exact backends timed on the same puzzles (empty: none)")
    ap.add_argument("--reads", type=int, default=READS)
    ap.add_argument("--budget", type=float, default=CPU_BUDGET_S,
                    help="sampling CPU seconds per record at most")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address (tcp://HOST:8786)")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--limit", type=int, default=None,
                    help="only the first N puzzles of each size (a quick look, not the release)")
    ap.add_argument("--min-instances", type=int, default=1,
                    help="table: leave out sizes measured on fewer instances (partial groups)")
    args = ap.parse_args(argv)
    {"select": cmd_select, "run": cmd_run, "summary": cmd_summary, "status": cmd_status,
     "compact": cmd_compact, "estimate": cmd_estimate,
     "plot": cmd_plot, "table": cmd_table}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
