"""The ``lines`` engine on the corpus (``bench/lines_bench.py``): the sets (janko, the webpbn
survey, seed 000's yardsticks), one timed and checked solve, and the per-set summary against
seed 000 and the corpus's baseline timings."""
from __future__ import annotations

import statistics
import time
from collections.abc import Iterator

from ...lines import clear_cache, solve_lines
from ...puzzle import Grid, Puzzle, check_grid
from ...results import Status
from ..study import REPO

CORPUS = REPO.parent / "shared" / "corpus"   # read by path, never copied


JANKO = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"


SURVEY = CORPUS / "webpbn-survey-non"


BASELINE = CORPUS / "baseline_timings_this_machine.tsv"


RESULTS = REPO / "bench" / "results"


SEED000_MS = {(15, 15): 8.0, (25, 25): 187.0}  # per puzzle (16 ms was for two 15x15 puzzles)


FIELDS = ["set", "name", "height", "width", "status", "solutions", "unique", "check", "time_s",
          "fixed_point", "root_unknown", "nodes", "probes", "line_solves", "max_depth"]


def janko(limit: int | None) -> Iterator[tuple[str, Puzzle, Grid | None]]:
    """janko's puzzles with their published solutions (the first ``limit``)."""
    from formulations.io import iter_janko

    for n, item in enumerate(iter_janko(JANKO)):
        if limit is not None and n >= limit:
            return
        yield item


def survey(limit: int | None) -> Iterator[tuple[str, Puzzle, Grid | None]]:
    """The webpbn survey's puzzles (the first ``limit``), without solutions."""
    from formulations.io import read_puzzle

    for n, path in enumerate(sorted(SURVEY.glob("*.non"))):
        if limit is not None and n >= limit:
            return
        yield path.stem, read_puzzle(path), None


def seed000(limit: int | None) -> Iterator[tuple[str, Puzzle, Grid | None]]:
    """janko's 15x15 and 25x25 puzzles, seed 000's yardsticks."""
    n = 0
    for key, p, goal in janko(None):
        if (p.height, p.width) in SEED000_MS:
            yield key, p, goal
            n += 1
            if limit is not None and n >= limit:
                return


def run_one(kind: str, name: str, p: Puzzle, goal: Grid | None, time_limit: float | None,
            unique: bool, repeat: int = 1) -> dict:
    """One puzzle's row: the fastest of ``repeat`` timed solves, checked against the clues and the
    goal."""
    dt = float("inf")
    for _ in range(max(1, repeat)):  # the fastest of ``repeat`` runs: the machine is shared
        clear_cache()  # each puzzle on its own: no settled lines left over from the previous ones
        t0 = time.perf_counter()
        r = solve_lines(p, max_solutions=2 if unique else 1, time_limit=time_limit)
        dt = min(dt, time.perf_counter() - t0)
        if r.timed_out:
            break
    if r.root_unknown:
        fp = Status.UNKNOWN
    else:
        fp = Status.SOLVED if r.solutions else Status.INFEASIBLE
    if not r.solutions:
        check = "n.a."
    elif any(check_grid(p, g) for g in r.solutions):
        check = "WRONG"
    elif goal is not None:
        check = "ok" if goal in r.solutions else "differs"
    else:
        check = "valid"
    uniq = ""
    if unique:
        uniq = "yes" if (r.exhausted and len(r.solutions) == 1) else ("no" if len(r.solutions) > 1 else "?")
    return {"set": kind, "name": name, "height": p.height, "width": p.width,
            "status": r.status.value + (" (time limit)" if r.timed_out and not r.solutions else ""),
            "solutions": len(r.solutions), "unique": uniq, "check": check, "time_s": round(dt, 6),
            "fixed_point": fp.value, "root_unknown": r.root_unknown, "nodes": r.nodes,
            "probes": r.probes, "line_solves": r.line_solves, "max_depth": r.max_depth}


def summarise(kind: str, rows: list[dict]) -> None:
    """Prints a set's solved counts and times (and seed 000's and the baseline's where known)."""
    if not rows:
        return
    solved = [r for r in rows if r["solutions"]]
    bad = [r for r in rows if r["check"] in ("WRONG", "differs")]
    times = [r["time_s"] for r in rows]
    print(f"\n== {kind}: {len(solved)}/{len(rows)} solved, {len(bad)} wrong/different, "
          f"total {sum(times):.1f} s, median {1000 * statistics.median(times):.2f} ms, "
          f"max {max(times):.2f} s")
    sizes: dict[tuple[int, int], list[dict]] = {}
    for r in rows:
        sizes.setdefault((r["height"], r["width"]), []).append(r)
    if kind in ("janko", "seed000"):
        print(f"{'size':>7} {'n':>5} {'line-solved':>11} {'median ms':>9} {'mean ms':>8} "
              f"{'search median ms':>16} {'search mean ms':>14} {'max s':>6}")
        for (h, w), rs in sorted(sizes.items(), key=lambda kv: (kv[0][0] * kv[0][1], kv[0])):
            ts = [r["time_s"] * 1000 for r in rs]
            srch = [r["time_s"] * 1000 for r in rs if r["fixed_point"] != Status.SOLVED.value]
            ls = len(rs) - len(srch)
            sm = f"{statistics.median(srch):16.2f} {statistics.mean(srch):14.2f}" if srch else f"{'-':>16} {'-':>14}"
            print(f"{h:>3}x{w:<3} {len(rs):>5} {ls:>11} {statistics.median(ts):9.2f} "
                  f"{statistics.mean(ts):8.2f} {sm} {max(ts) / 1000:6.2f}")
        for (h, w), ms in SEED000_MS.items():
            srch = [r["time_s"] * 1000 for r in sizes.get((h, w), [])
                    if r["fixed_point"] != Status.SOLVED.value]
            if srch:
                med = statistics.median(srch)
                print(f"seed 000 yardstick {h}x{w}: {ms:.0f} ms per puzzle; ours (needing search) "
                      f"median {med:.2f} ms = {ms / med:.0f}x faster, mean {statistics.mean(srch):.2f} ms")
    if kind == "survey":
        base = _baseline()
        for r in rows:
            if not r["solutions"] or r["status"].startswith("unknown"):
                b = base.get(r["name"], {})
                print(f"  not solved: {r['name']} {r['height']}x{r['width']}: {r['status']}, "
                      f"{r['root_unknown']} cells undecided by line solving, {r['nodes']} nodes, "
                      f"{r['probes']} probes; pbnsolve {b.get('pbnsolve_status', '?')} "
                      f"{b.get('pbnsolve_wall_s', '?')} s, CP-SAT {b.get('cpsat_first_s', '?')} s")


def _baseline() -> dict[str, dict[str, str]]:
    if not BASELINE.exists():
        return {}
    out: dict[str, dict[str, str]] = {}
    header = None
    for line in BASELINE.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            header = None if not line.strip() else header
            continue
        parts = line.split("\t")
        if parts[0] == "puzzle":
            header = parts
            continue
        if header:
            out[parts[0]] = dict(zip(header, parts))
    return out
