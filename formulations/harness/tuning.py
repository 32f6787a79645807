"""Release 2's second sa row: a beta range tuned per size on training puzzles and measured on
others (issue 41, item 6; docs/benchmark.md, "The tuned sa row").

Why: release 1 ran sa with the beta range [1, 10] at every size, so its scaling mixes the
sampler with a schedule chosen for none of them. Tuning on the release's own puzzles would
flatter it; here the training puzzles are janko puzzles of the size that are *not* in the
release's selection (a seeded sample), each measured under release 2's count rule at the centre
of sa's first ladder, and the range with the smallest median TTS99 in spin updates is kept.
Every choice depends on counts only, so a re-run makes the same choice from the same seeds.
"""
from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.optimal import quantile
from ..analysis.stats import repeats_for
from .study import Task, pooled

TUNED = "sa-tuned"       # the row's name in summaries (its records: sampler "sa", a beta range)
TRAINING_PUZZLES = 8     # per size
TRAINING_SEED = 41
# (beta at the start, beta at the end) of sa's geometric schedule; (1, 10) is the default
BETA_GRID: tuple[tuple[float, float], ...] = tuple(
    (lo, hi) for lo in (0.1, 0.3, 1.0) for hi in (3.0, 10.0, 30.0, 100.0))
STUDY = "release-2-tuning"


def row_of(record: Mapping[str, Any]) -> str:
    """The row a release record belongs to: sa with an explicit beta range is the tuned row."""
    variant = record.get("variant") or {}
    if record.get("sampler") == "sa" and isinstance(variant.get("beta_range"), list):
        return TUNED
    return str(record["sampler"])


def calibrated_as(row: str) -> str:
    """The sampler whose calibration a row's CPU figures use (the tuned row is sa)."""
    return "sa" if row == TUNED else row


def relabel(records: Sequence[dict]) -> list[dict]:
    """The records with the tuned row's named as such (what the summary groups by)."""
    return [r if row_of(r) == r.get("sampler") else {**r, "sampler": row_of(r)}
            for r in records]


def training_keys(all_keys: Sequence[str], selected: Sequence[str], n: int = TRAINING_PUZZLES,
                  seed: int = TRAINING_SEED, size: str = "") -> list[str]:
    """A seeded sample of ``n`` puzzles of a size outside the release's selection (sorted by
    id); fewer when the size has fewer left (none: no tuned row at that size)."""
    rest = sorted(set(all_keys) - set(selected), key=lambda k: (int(k.split("_")[0]), k))
    picked = random.Random(f"{seed}-{size}").sample(rest, min(n, len(rest)))
    return sorted(picked, key=lambda k: (int(k.split("_")[0]), k))


def tuning_tasks(size: str, keys: Sequence[str], source_of, length: int,
                 task_for) -> list[Task]:
    """Every training puzzle at ``length`` for every beta range of the grid, under the count
    rule (``task_for(key, length)`` builds the release-2 sa task, the range set here)."""
    import dataclasses

    return [dataclasses.replace(task_for(k, length), study=STUDY, beta_range=br)
            for br in BETA_GRID for k in keys]


def choose(records: Sequence[dict]) -> dict[str, Any]:
    """Per size: each beta range's median over the training puzzles of TTS99 in spin updates
    (never solved: inf, kept), the range with the smallest (ties: the default (1, 10), then
    the lower start), and the training puzzles and length it was chosen on."""
    by: dict[str, dict[tuple[float, float], list[float]]] = defaultdict(lambda: defaultdict(list))
    meta: dict[str, dict[str, Any]] = {}
    for r in pooled(records):
        br = tuple(float(b) for b in (r.get("variant") or {}).get("beta_range") or ())
        if len(br) != 2:
            continue
        work = float(r["length"]) * int(r["variables"])
        tts = float(repeats_for(r["successes"] / r["reads"])) * work
        by[r["size"]][(br[0], br[1])].append(tts)
        m = meta.setdefault(r["size"], {"length": int(r["length"]), "puzzles": set()})
        m["puzzles"].add(r["instance"])
    out: dict[str, Any] = {}
    for size, grid in by.items():
        n = len(meta[size]["puzzles"])
        medians = {br: float(quantile(np.array(v), 0.5, axis=0)) for br, v in grid.items()
                   if len(v) == n}
        if not medians:
            continue
        best = min(medians, key=lambda br: (medians[br], br != (1.0, 10.0), br))
        out[size] = {"beta_range": list(best), "length": meta[size]["length"],
                     "puzzles": sorted(meta[size]["puzzles"]),
                     "median_tts99_spin_updates": {f"{a:g},{b:g}": (v if math.isfinite(v) else None)
                                                   for (a, b), v in sorted(medians.items())},
                     "complete": len(medians) == len(BETA_GRID)}
    return out


def read_tuning(path: Path) -> dict[str, Any]:
    """tuning.json's sizes ({} when absent)."""
    return json.loads(path.read_text())["sizes"] if path.is_file() else {}


def write_tuning(path: Path, sizes: Mapping[str, Any]) -> None:
    path.write_text(json.dumps({
        "about": ("sa's beta range per size, chosen on training puzzles outside the release's "
                  "selection (median TTS99 in spin updates at the centre of sa's first ladder, "
                  "count rule); formulations/harness/tuning.py"),
        "grid": [list(b) for b in BETA_GRID], "sizes": dict(sizes)}, indent=1) + "\n")
