"""CP-SAT on the order-encoded model against a CP-SAT ``AddAutomaton`` yardstick (a benchmark, not a test).

    python3 bench/cpsat_vs_automaton.py [--repeats N] [--timeout S] [--janko-sample K]
                                        [--only PATTERN] [--out CSV] [--sets survey,janko,wolter]
                                        [--variants nox,x,nox_block,x_block]

Ours goes through the package (``build_model`` + the ``cpsat`` backend, unique=True, one
worker), with the model without x (``nox``, the backend's default) or with x (``x``), deciding
uniqueness by one search enumerating until a second grid or exhaustion (the backend's default),
or by excluding the first grid and solving again (``_block`` variants, ``unique_by=exclude``,
the method the foundation issue specifies). The yardstick is built here: one ``AddAutomaton``
per row and column over the cells' BoolVars (DFA ``0* 1^b1 0+ 1^b2 ... 0*``), one worker, run
two ways: ``automaton`` by one enumerating search stopped at the second solution,
``automaton_block`` by the method of ``../shared/corpus/baseline_timings_this_machine.tsv``
(solve, add a blocking clause on the cells, solve again). Every side gets the same per-run
time limit covering model build and search, and every grid any side returns goes through
``check_grid``.

Times are medians over the runs; ``ratio`` = our median total / the median total of the
yardstick that uses the same method (``automaton`` for ours, ``automaton_block`` for ours_*_block),
``ratio_block`` the same against ``automaton_block`` whatever our method, ``ratio_solver``
compares CP-SAT's own search clock only against the same-method yardstick (no Python model
building or translation on either side); all taken in the same run of the script and reported only when both decided uniqueness. A side
that times out is not run again on that puzzle, and a side slower than ``--single-above`` is
run once, so that hard puzzles do not eat the budget. Rows are appended to the CSV as each
puzzle finishes, so Ctrl-C keeps everything written so far. The machine is shared: absolute
times move with the load (logged per row), ratios from interleaved runs less so.
"""
from __future__ import annotations

import argparse
import csv
import fnmatch
import math
import os
import signal
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from formulations.backends.cpsat import solve as cpsat_solve
from formulations.model import build_model
from formulations.puzzle import Grid, Puzzle, check_grid
from formulations.io import iter_janko, read_puzzle
from formulations.results import Status
from formulations.solving import verify

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CORPUS = ROOT.parent / "shared" / "corpus"
SURVEY = CORPUS / "webpbn-survey-non"
JANKO = CORPUS / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
WOLTER = [CORPUS / "wolter-survey-xml" / "knotty.xml", CORPUS / "wolter-survey-xml" / "faase.xml"]
# our variants: model with/without x, uniqueness by one enumerating search (the backend's
# default with one worker) or by excluding the first grid and solving again ("_block")
VARIANTS = {"x": (True, "enumerate"), "nox": (False, "enumerate"),
            "x_block": (True, "exclude"), "nox_block": (False, "exclude")}
FIELDS = ["set", "puzzle", "size", "side", "runs", "status", "unique", "build_s", "first_s",
          "total_s", "ratio", "ratio_block", "solver_s", "ratio_solver", "cpu_s", "ratio_cpu",
          "build_cpu_s", "ratio_solve_cpu", "total_all", "variables", "constraints", "timeout",
          "load1", "note"]
AUTO, AUTO_BLOCK = "automaton", "automaton_block"


@dataclass
class Run:
    """One build + solve + uniqueness attempt."""
    status: str              # "unique", "multiple", "timeout", "infeasible", "error"
    build_s: float
    first_s: float | None    # from start to the first solution (build included)
    total_s: float           # from start to the uniqueness verdict (or the time limit)
    cpu_s: float = 0.0       # process CPU time of the whole run: steadier than wall on a busy box
    build_cpu_s: float = 0.0  # CPU time of the model build alone (Python side)
    solver_s: float | None = None  # CP-SAT's own wall clock over its searches
    variables: int = 0
    constraints: int = 0
    note: str = ""

    @property
    def decided(self) -> bool:
        return self.status in ("unique", "multiple", "infeasible")


# ----------------------------------------------------------------------------- our side


def run_ours(puzzle: Puzzle, use_x: bool, timeout: float, unique_by: str = "enumerate") -> Run:
    """build_model + the package's cpsat backend with unique=True, verified by the package."""
    t0, c0 = time.perf_counter(), time.process_time()
    nm = build_model(puzzle, use_x=use_x)
    build_s, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    raw = cpsat_solve(nm, time_limit=max(0.0, timeout - build_s), unique=True, workers=1,
                      unique_by=unique_by)
    total = build_s + raw.solve_s
    size = dict(variables=nm.model.num_variables, constraints=nm.model.num_constraints,
                build_cpu_s=build_cpu, solver_s=raw.info.get("cpsat_wall_s"))
    if raw.status is Status.INFEASIBLE:
        return Run("infeasible", build_s, None, total, **size)
    res = verify(nm, raw, "cpsat", build_s=build_s, unique_asked=True)
    first = raw.info.get("first_s")
    first = None if first is None else build_s + first
    if res.status is Status.ERROR:
        return Run("error", build_s, first, total, note=res.message, **size)
    if res.grid is None:
        return Run("timeout", build_s, first, total, **size)
    bad = check_grid(puzzle, res.grid)
    if bad:  # verify() already checked; kept so that the bench asserts it itself
        return Run("error", build_s, first, total, note="; ".join(bad[:2]), **size)
    if res.unique is True:
        return Run("unique", build_s, first, total, **size)
    if res.unique is False:
        return Run("multiple", build_s, first, total, **size)
    if len(raw.assignments) > 1:  # a second assignment that verify() did not accept as a grid
        return Run("error", build_s, first, total, note="second solution rejected", **size)
    return Run("timeout", build_s, first, total, note="first solution only", **size)


# ----------------------------------------------------------------------------- the yardstick


def clue_dfa(lengths: list[int]) -> tuple[list[tuple[int, int, int]], int]:
    """Transitions (state, bit, next) and the final state of ``0* 1^b1 0+ 1^b2 ... 1^bm 0*``.

    State q = q characters of the pattern ``1^b1 0 1^b2 0 ... 1^bm`` consumed; a 0 loops on
    the start, after each separating 0 and at the end.
    """
    pattern: list[int] = []
    for k, b in enumerate(lengths):
        if k:
            pattern.append(0)
        pattern += [1] * b
    trans = []
    for q in range(len(pattern) + 1):
        if q < len(pattern):
            trans.append((q, pattern[q], q + 1))
        if q == 0 or q == len(pattern) or pattern[q - 1] == 0:
            trans.append((q, 0, q))
    return trans, len(pattern)


def run_automaton(puzzle: Puzzle, timeout: float, method: str = "enumerate") -> Run:
    """One AddAutomaton per line over BoolVars. Uniqueness by ``method``: "enumerate" (one
    search stopped at the second solution, as ours) or "block" (blocking clause and a re-solve,
    as the corpus baseline)."""
    from ortools.sat.python import cp_model

    if not puzzle.is_black_and_white:
        return Run("error", 0.0, None, 0.0, note="yardstick is black-and-white only")
    t0, c0 = time.perf_counter(), time.process_time()
    h, w = puzzle.height, puzzle.width
    cp = cp_model.CpModel()
    x = [[cp.NewBoolVar(f"x{i}_{j}") for j in range(w)] for i in range(h)]
    lines = [(x[i], puzzle.rows[i]) for i in range(h)]
    lines += [([x[i][j] for i in range(h)], puzzle.columns[j]) for j in range(w)]
    for cells, clue in lines:
        trans, final = clue_dfa([b.length for b in clue])
        cp.AddAutomaton(cells, 0, [final], trans)
    build_s, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    size = dict(variables=h * w, constraints=len(lines), build_cpu_s=build_cpu)
    grids: list[Grid] = []
    times: list[float] = []
    searched = 0.0

    def solve(callback=None) -> int:
        nonlocal searched
        solver.parameters.max_time_in_seconds = max(0.0, timeout - (time.perf_counter() - t0))
        st = solver.Solve(cp, callback) if callback else solver.Solve(cp)
        searched += solver.WallTime()
        return st

    def grid(read) -> Grid:
        return tuple(tuple(int(read(v)) for v in row) for row in x)

    if method == "enumerate":
        class FirstTwo(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                grids.append(grid(self.Value))
                times.append(time.perf_counter() - t0)
                if len(grids) == 2:
                    self.StopSearch()

        solver.parameters.enumerate_all_solutions = True
        st = solve(FirstTwo())
        exhausted = st == cp_model.OPTIMAL and len(grids) == 1
    else:
        st = solve()
        if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            grids.append(grid(solver.Value))
            times.append(time.perf_counter() - t0)
            g1 = grids[0]
            cp.AddBoolOr([v.Not() if g1[i][j] else v for i, row in enumerate(x) for j, v in enumerate(row)])
            st2 = solve()
            exhausted = st2 == cp_model.INFEASIBLE
            if st2 in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                grids.append(grid(solver.Value))
    total = time.perf_counter() - t0
    size["solver_s"] = searched
    if not grids:
        status = "infeasible" if st == cp_model.INFEASIBLE else "timeout"
        return Run(status, build_s, None, total, **size)
    first_s = times[0]
    if any(check_grid(puzzle, g) for g in grids) or len(set(grids)) != len(grids):
        return Run("error", build_s, first_s, total, note="a returned grid breaks its clues", **size)
    if len(grids) == 2:
        return Run("multiple", build_s, first_s, total, **size)
    if exhausted:
        return Run("unique", build_s, first_s, total, **size)
    return Run("timeout", build_s, first_s, total, note="first solution only", **size)


# ----------------------------------------------------------------------------- puzzles


def survey_puzzles() -> Iterator[tuple[str, str, Callable[[], Puzzle]]]:
    for p in sorted(SURVEY.glob("*.non")):
        yield "survey", p.stem, (lambda p=p: read_puzzle(p))


def wolter_puzzles() -> Iterator[tuple[str, str, Callable[[], Puzzle]]]:
    for p in WOLTER:
        if p.exists():
            yield "wolter", p.stem, (lambda p=p: read_puzzle(p))


def janko_puzzles(k: int) -> Iterator[tuple[str, str, Callable[[], Puzzle]]]:
    """``k`` puzzles evenly spaced through the set sorted by area: small to large."""
    if k <= 0 or not JANKO.exists():
        return
    items = sorted(((p.height * p.width, key, p) for key, p, _ in iter_janko(JANKO)),
                   key=lambda t: (t[0], t[1]))
    k = min(k, len(items))
    picks = sorted({round(i * (len(items) - 1) / max(k - 1, 1)) for i in range(k)})
    for i in picks:
        _, key, p = items[i]
        yield "janko", f"janko-{key}", (lambda p=p: p)


# ----------------------------------------------------------------------------- driver


@dataclass
class Side:
    name: str
    fn: Callable[[Puzzle], Run]
    runs: list[Run] = field(default_factory=list)
    stopped: bool = False   # timed out or too slow: no further repeats


def median(xs: list[float | None]) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x: float | None, nd: int = 3) -> str:
    return "" if x is None else f"{x:.{nd}f}"


def summarise(side: Side) -> dict:
    runs = side.runs
    statuses = sorted({r.status for r in runs})
    status = statuses[0] if len(statuses) == 1 else "/".join(statuses)
    decided = [r for r in runs if r.decided]
    use = decided if len(decided) == len(runs) else runs
    return dict(
        runs=len(runs), status=status,
        unique={"unique": True, "multiple": False}.get(status, ""),
        build_s=median([r.build_s for r in use]), first_s=median([r.first_s for r in use]),
        total_s=median([r.total_s for r in use]), cpu_s=median([r.cpu_s for r in use]),
        build_cpu_s=median([r.build_cpu_s for r in use]),
        solve_cpu_s=median([r.cpu_s - r.build_cpu_s for r in use]),
        solver_s=median([r.solver_s for r in use]),
        total_all=" ".join(f"{r.total_s:.3f}" for r in runs),
        variables=runs[0].variables, constraints=runs[0].constraints,
        decided=len(decided) == len(runs) and bool(runs),
        note="; ".join(sorted({r.note for r in runs if r.note})),
    )


def _interrupt(*_) -> None:
    """SIGTERM stops like Ctrl-C: the rows already written stay."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0, help="per run, both sides (s)")
    ap.add_argument("--janko-sample", type=int, default=40)
    ap.add_argument("--only", default=None, help="fnmatch pattern (or substring) on puzzle names")
    ap.add_argument("--out", default=None, help="CSV path (default bench/results/cpsat_vs_automaton.csv)")
    ap.add_argument("--sets", default="survey,janko,wolter", help="comma list of survey,janko,wolter")
    ap.add_argument("--variants", default="nox,x,nox_block",
                    help="comma list of our sides: x / nox (model with / without x, uniqueness by "
                         "one enumerating search), x_block / nox_block (by exclude and re-solve)")
    ap.add_argument("--single-above", type=float, default=20.0,
                    help="a side whose run took longer than this is not repeated (s)")
    args = ap.parse_args(argv)

    variants = [v for v in args.variants.split(",") if v]
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v!r} ({', '.join(VARIANTS)})")
    sets = [s for s in args.sets.split(",") if s]
    out = Path(args.out) if args.out else RESULTS / "cpsat_vs_automaton.csv"
    out.parent.mkdir(parents=True, exist_ok=True)

    def wanted(name: str) -> bool:
        if not args.only:
            return True
        return fnmatch.fnmatch(name, args.only) or args.only in name

    sources = {"survey": survey_puzzles, "wolter": wolter_puzzles,
               "janko": lambda: janko_puzzles(args.janko_sample)}
    todo = [(s, n, load) for s in sets for s, n, load in sources[s]() if wanted(n)]
    print(f"{len(todo)} puzzles, repeats={args.repeats}, timeout={args.timeout}s, variants={variants}, "
          f"csv={out}", flush=True)

    signal.signal(signal.SIGTERM, _interrupt)
    warm = Puzzle.from_clues([[1], []], [[1], []])  # imports and first-call costs off the clock
    run_automaton(warm, 5.0), run_automaton(warm, 5.0, "block"), run_ours(warm, True, 5.0)
    # ratio kind -> variant -> [(puzzle, ratio)]
    kinds = {"wall (same method)": "ratio", "wall vs blocking-clause yardstick": "ratio_block",
             "CP-SAT search clock only": "ratio_solver", "cpu": "ratio_cpu",
             "cpu without model build": "ratio_solve_cpu"}
    table: dict[str, dict[str, list[tuple[str, float]]]] = {k: {v: [] for v in variants} for k in kinds.values()}
    done: list[tuple[str, str, dict[str, dict]]] = []
    new_file = not out.exists() or out.stat().st_size == 0
    with out.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        if new_file:
            writer.writeheader()
            fh.flush()
        try:
            for set_name, name, load in todo:
                puzzle = load()
                sides = [Side(AUTO, lambda p: run_automaton(p, args.timeout)),
                         Side(AUTO_BLOCK, lambda p: run_automaton(p, args.timeout, "block"))]
                sides += [Side(f"ours_{v}", (lambda p, ux=VARIANTS[v]: run_ours(p, ux[0], args.timeout, ux[1])))
                          for v in variants]
                for rep in range(args.repeats):
                    order = sides[rep % len(sides):] + sides[:rep % len(sides)]  # rotate
                    for side in order:
                        if side.stopped:
                            continue
                        c0 = time.process_time()
                        r = side.fn(puzzle)
                        r.cpu_s = time.process_time() - c0
                        side.runs.append(r)
                        if not r.decided or r.total_s > args.single_above:
                            side.stopped = True
                summ = {s.name: summarise(s) for s in sides}
                auto, block = summ[AUTO], summ[AUTO_BLOCK]
                load1 = os.getloadavg()[0]
                size = f"{puzzle.height}x{puzzle.width}"
                for s in sides:
                    d = summ[s.name]
                    r = dict.fromkeys(kinds.values())
                    if s.name.startswith("ours_") and d["decided"]:
                        same = block if s.name.endswith("_block") else auto  # same method
                        pairs = {"ratio": (d["total_s"], same["total_s"], same),
                                 "ratio_block": (d["total_s"], block["total_s"], block),
                                 "ratio_solver": (d["solver_s"], same["solver_s"], same),
                                 "ratio_cpu": (d["cpu_s"], same["cpu_s"], same),
                                 "ratio_solve_cpu": (d["solve_cpu_s"], same["solve_cpu_s"], same)}
                        for key, (ours, theirs, ref) in pairs.items():
                            if ref["decided"] and ours is not None and theirs:
                                r[key] = ours / theirs
                                table[key][s.name[5:]].append((name, r[key]))
                        if auto["decided"] and d["status"] != auto["status"]:
                            d["note"] = (d["note"] + "; " if d["note"] else "") + \
                                f"VERDICT MISMATCH vs automaton {auto['status']}"
                        if block["decided"] and d["status"] != block["status"]:
                            d["note"] = (d["note"] + "; " if d["note"] else "") + \
                                f"VERDICT MISMATCH vs automaton_block {block['status']}"
                    writer.writerow({
                        "set": set_name, "puzzle": name, "size": size, "side": s.name,
                        "runs": d["runs"], "status": d["status"], "unique": d["unique"],
                        "build_s": fmt(d["build_s"], 4), "first_s": fmt(d["first_s"], 4),
                        "total_s": fmt(d["total_s"], 4), "solver_s": fmt(d["solver_s"], 4),
                        "cpu_s": fmt(d["cpu_s"], 4), "build_cpu_s": fmt(d["build_cpu_s"], 4),
                        **{key: fmt(val) for key, val in r.items()},
                        "total_all": d["total_all"], "variables": d["variables"],
                        "constraints": d["constraints"], "timeout": args.timeout,
                        "load1": f"{load1:.2f}", "note": d["note"]})
                    d.update(r)
                fh.flush()
                done.append((set_name, name, summ))
                parts = [f"auto {auto['status']} {fmt(auto['total_s'], 3)}s",
                         f"block {block['status']} {fmt(block['total_s'], 3)}s"]
                for v in variants:
                    d = summ[f"ours_{v}"]
                    parts.append(f"{v} {d['status']} {fmt(d['total_s'], 3)}s r={fmt(d['ratio'], 2) or '-'} "
                                 f"r_block={fmt(d['ratio_block'], 2) or '-'} r_solver={fmt(d['ratio_solver'], 2) or '-'}")
                print(f"[{len(done)}/{len(todo)}] {set_name} {name} {size}: " + " | ".join(parts)
                      + f" (load {load1:.1f})", flush=True)
        except KeyboardInterrupt:
            print("\ninterrupted: rows of finished puzzles are in the CSV", flush=True)

    print(f"\nrows in {out}")
    for v in variants:
        for what, key in kinds.items():
            for set_name in sorted({s for s, _, _ in done}) + ["all"]:
                names = {n for s, n, _ in done if set_name in ("all", s)}
                rs = [r for n, r in table[key][v] if n in names]
                if rs:
                    gm = math.exp(sum(math.log(r) for r in rs) / len(rs))
                    print(f"ours_{v} {what} {set_name}: geometric mean ratio ours/automaton = {gm:.3f} "
                          f"over {len(rs)} puzzles (min {min(rs):.2f}, max {max(rs):.2f})")
    for set_name in sorted({s for s, _, _ in done}):
        rows = [(n, summ) for s, n, summ in done if s == set_name]
        for side in [AUTO, AUTO_BLOCK] + [f"ours_{v}" for v in variants]:
            ok = [n for n, summ in rows if summ[side]["decided"]]
            print(f"{set_name}: {side} decided uniqueness within {args.timeout:g}s on "
                  f"{len(ok)}/{len(rows)}"
                  + ("" if len(ok) == len(rows) else
                     f"; not: {', '.join(n for n, summ in rows if not summ[side]['decided'])}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
