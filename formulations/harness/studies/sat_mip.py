"""The SAT and MIP backends against CP-SAT (``bench/sat_mip_vs_cpsat.py``): the corpus sets, a
side (``NAME[/x|/nox][:key=value]...``) checked before the run, one timed solve (CPU of this
process and its ended children) and the per-set summary of a run's CSV."""
from __future__ import annotations

import csv
import math
import random
import resource
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...backends import get_backend
from ...io import iter_janko, read_puzzle
from ...puzzle import Puzzle, check_grid
from ...results import BackendError, Status
from ...solving import solve_puzzle
from ..study import REPO, corpus_root

CORPUS = corpus_root()   # $NONOGRAM_CORPUS or shared/corpus beside the checkout


RESULTS = REPO / "bench" / "results"


FIELDS = ["set", "puzzle", "size", "side", "mode", "repeat", "status", "unique", "cpu_s",
          "wall_s", "solver_s", "timeout", "load1", "note"]


MODES = ("first", "unique")


def puzzles(sets: list[str], janko: int, seed: int) -> Iterator[tuple[str, str, Puzzle]]:
    """(set, name, puzzle) of the chosen sets; ``janko`` puzzles drawn with ``seed``."""
    for s in sets:
        if s == "survey":
            for f in sorted((CORPUS / "webpbn-survey-non").glob("*.non")):
                yield s, f.stem, read_puzzle(f)
        elif s == "minizinc":
            for f in sorted((CORPUS / "minizinc-benchmarks-nonogram" / "converted-non").glob("*.non")):
                yield s, f.stem, read_puzzle(f)
        elif s == "janko":
            path = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
            if not path.exists():
                continue
            found = {key: p for key, p, _ in iter_janko(path)}
            for key in sorted(random.Random(seed).sample(sorted(found), min(janko, len(found)))):
                yield s, key, found[key]
        else:
            raise SystemExit(f"unknown set {s!r}: survey, minizinc, janko")


def parse_side(spec: str) -> tuple[str, bool | None, dict[str, Any]]:
    """``NAME[/x|/nox][:key=value]...`` as (backend, use_x, options)."""
    head, *pairs = spec.split(":")
    name, _, variant = head.partition("/")
    use_x = {"": None, "x": True, "nox": False}.get(variant)
    if variant and use_x is None:
        raise SystemExit(f"side {spec!r}: the variant after / is x or nox")
    opts = dict(p.split("=", 1) for p in pairs)
    get_backend(name).prepare(opts)  # unknown backend, option or value: fail now
    return name, use_x, opts


def cpu_now() -> float:
    """CPU seconds of this process and of its ended children (``mip`` solves in a worker)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def run_one(puzzle: Puzzle, spec: str, mode: str, timeout: float) -> dict[str, Any]:
    """One solve of a side in ``mode`` (first grid or uniqueness): status, CPU, wall, note."""
    name, use_x, opts = parse_side(spec)
    c0, w0 = cpu_now(), time.perf_counter()
    note = ""
    try:
        r = solve_puzzle(puzzle, name, use_x=use_x, unique=(mode == "unique"),
                         time_limit=timeout, **opts)
        status, unique, solver_s, note = r.status.value, r.unique, r.solve_s, r.message[:80]
        if r.status is Status.SOLVED and r.grid is not None and check_grid(puzzle, r.grid):
            status, note = "error", "grid breaks the clues"
    except BackendError as exc:
        status, unique, solver_s, note = "refused", None, None, str(exc)[:80]
    except Exception as exc:  # a backend's bug: recorded, the run goes on
        status, unique, solver_s, note = "error", None, None, f"{type(exc).__name__}: {exc}"[:80]
    cpu, wall = cpu_now() - c0, time.perf_counter() - w0
    return {"status": status, "unique": unique, "cpu_s": round(cpu, 4), "wall_s": round(wall, 4),
            "solver_s": None if solver_s is None else round(solver_s, 4), "note": note}


def decided(row: dict[str, Any]) -> bool:
    """A CSV row that settled its question (a grid, uniqueness when asked, or infeasible)."""
    if row["status"] == "infeasible":
        return True
    if row["status"] != "solved":
        return False
    return row["mode"] == "first" or row["unique"] not in ("", "None", None)


def summary(path: Path, sides: list[str]) -> int:
    """Per set and mode: each side's runs decided and its geometric-mean CPU ratio to cpsat
    (over the puzzles both decided), with the median CPU time of the puzzles both decided."""
    with path.open() as f:
        rows = list(csv.DictReader(f))
    base = "cpsat"
    med: dict[tuple[str, str, str, str], tuple[float, bool]] = {}
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["set"], r["puzzle"], r["side"], r["mode"]), []).append(r)
    for key, rs in groups.items():
        ok = [float(r["cpu_s"]) for r in rs if decided(r)]
        med[key] = (statistics.median(ok), True) if ok else (float("nan"), False)
    all_sides = [s for s in sides if any(k[2] == s for k in med)] or sorted({k[2] for k in med})
    print(f"\n{'set':9}{'mode':7}{'side':26}{'decided':>9}{'both':>6}{'geomean ratio':>15}"
          f"{'median cpu s':>14}{'cpsat median':>14}")
    for set_name in ("survey", "minizinc", "janko"):
        for mode in MODES:
            names = sorted({k[1] for k in med if k[0] == set_name and k[3] == mode})
            if not names:
                continue
            for side in all_sides:
                have = [n for n in names if (set_name, n, side, mode) in med]
                dec = sum(med[(set_name, n, side, mode)][1] for n in have)
                both = [n for n in have if med[(set_name, n, side, mode)][1]
                        and med.get((set_name, n, base, mode), (0, False))[1]]
                ratios = [max(med[(set_name, n, side, mode)][0], 1e-4)
                          / max(med[(set_name, n, base, mode)][0], 1e-4) for n in both]
                gm = math.exp(statistics.fmean(map(math.log, ratios))) if ratios else float("nan")
                ms = statistics.median([med[(set_name, n, side, mode)][0] for n in both]) if both else float("nan")
                mb = statistics.median([med[(set_name, n, base, mode)][0] for n in both]) if both else float("nan")
                print(f"{set_name:9}{mode:7}{side:26}{dec:>5}/{len(have):<3}{len(both):>6}"
                      f"{gm:>15.2f}{ms:>14.3f}{mb:>14.3f}")
    return 0
