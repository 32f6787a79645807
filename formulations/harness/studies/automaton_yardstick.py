"""CP-SAT on the order-encoded model against an ``AddAutomaton`` yardstick
(``bench/cpsat_vs_automaton.py``): one run of each side (build, first grid, uniqueness, every
grid checked), the DFA of a clue, the puzzle sets, and a side's runs summarised."""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ...backends.cpsat import solve as cpsat_solve
from ...io import iter_janko, read_puzzle
from ...model import build_model
from ...puzzle import Grid, Puzzle, check_grid
from ...results import Status
from ...runtime.clock import Deadline
from ...solving import verify
from ..study import REPO

AUTO, AUTO_BLOCK = "automaton", "automaton_block"

RESULTS = REPO / "bench" / "results"


CORPUS = REPO.parent / "shared" / "corpus"   # read by path, never copied


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


def run_ours(puzzle: Puzzle, use_x: bool, timeout: float, unique_by: str = "enumerate") -> Run:
    """build_model + the package's cpsat backend with unique=True, verified by the package."""
    t0, c0 = time.perf_counter(), time.process_time()
    nm = build_model(puzzle, use_x=use_x)
    build_s, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    raw = cpsat_solve(nm, deadline=Deadline(max(0.0, timeout - build_s)), unique=True, workers=1,
                      unique_by=unique_by)
    total = build_s + raw.solve_s
    size: dict[str, Any] = dict(variables=nm.model.num_variables, constraints=nm.model.num_constraints,
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
    x = [[cp.new_bool_var(f"x{i}_{j}") for j in range(w)] for i in range(h)]
    lines = [(x[i], puzzle.rows[i]) for i in range(h)]
    lines += [([x[i][j] for i in range(h)], puzzle.columns[j]) for j in range(w)]
    for cells, clue in lines:
        trans, final = clue_dfa([b.length for b in clue])
        cp.add_automaton(cells, 0, [final], trans)
    build_s, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    size: dict[str, Any] = dict(variables=h * w, constraints=len(lines), build_cpu_s=build_cpu)
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
            cp.add_bool_or([v.Not() if g1[i][j] else v for i, row in enumerate(x) for j, v in enumerate(row)])
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


def survey_puzzles() -> Iterator[tuple[str, str, Callable[[], Puzzle]]]:
    """The webpbn survey's puzzles, each read when its turn comes."""
    for p in sorted(SURVEY.glob("*.non")):
        yield "survey", p.stem, partial(read_puzzle, p)


def wolter_puzzles() -> Iterator[tuple[str, str, Callable[[], Puzzle]]]:
    """Wolter's Knotty and Faase, where the corpus has them."""
    for p in WOLTER:
        if p.exists():
            yield "wolter", p.stem, partial(read_puzzle, p)


def _given(p: Puzzle) -> Puzzle:
    return p


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
        yield "janko", f"janko-{key}", partial(_given, p)


@dataclass
class Side:
    """One side of the comparison: how it runs a puzzle and its runs so far."""
    name: str
    fn: Callable[[Puzzle], Run]
    runs: list[Run] = field(default_factory=list)
    stopped: bool = False   # timed out or too slow: no further repeats


def median(xs: list[float | None]) -> float | None:
    """The median of the values that are there (None when none is)."""
    vals = [x for x in xs if x is not None]
    return statistics.median(vals) if vals else None


def fmt(x: float | None, nd: int = 3) -> str:
    """A number for the CSV (empty for None)."""
    return "" if x is None else f"{x:.{nd}f}"


def summarise(side: Side) -> dict:
    """A side's runs as medians (of the decided runs when all decided), status and notes."""
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


RATIOS = {"ratio": "wall (same method)", "ratio_block": "wall vs blocking-clause yardstick",
          "ratio_solver": "CP-SAT search clock only", "ratio_cpu": "cpu",
          "ratio_solve_cpu": "cpu without model build"}


def compare(puzzle: Puzzle, variants: list[str], timeout: float, repeats: int,
            single_above: float) -> dict[str, dict[str, Any]]:
    """Both yardsticks and our ``variants`` on one puzzle, ``repeats`` rounds in a rotating
    order (a side that does not decide, or takes longer than ``single_above``, is not run
    again): per side its summary and its :data:`RATIOS` to the yardsticks (None where a side
    did not decide), a verdict that differs from a yardstick's named in its note."""
    sides = [Side(AUTO, lambda p: run_automaton(p, timeout)),
             Side(AUTO_BLOCK, lambda p: run_automaton(p, timeout, "block"))]
    sides += [Side(f"ours_{v}", partial(_ours, use_x=VARIANTS[v][0], timeout=timeout,
                                        unique_by=VARIANTS[v][1])) for v in variants]
    for rep in range(repeats):
        for side in sides[rep % len(sides):] + sides[:rep % len(sides)]:  # rotate
            if side.stopped:
                continue
            c0 = time.process_time()
            r = side.fn(puzzle)
            r.cpu_s = time.process_time() - c0
            side.runs.append(r)
            if not r.decided or r.total_s > single_above:
                side.stopped = True
    summ = {s.name: summarise(s) for s in sides}
    auto, block = summ[AUTO], summ[AUTO_BLOCK]
    for name, d in summ.items():
        d.update(dict.fromkeys(RATIOS))
        if not (name.startswith("ours_") and d["decided"]):
            continue
        same = block if name.endswith("_block") else auto  # same method
        pairs = {"ratio": (d["total_s"], same["total_s"], same),
                 "ratio_block": (d["total_s"], block["total_s"], block),
                 "ratio_solver": (d["solver_s"], same["solver_s"], same),
                 "ratio_cpu": (d["cpu_s"], same["cpu_s"], same),
                 "ratio_solve_cpu": (d["solve_cpu_s"], same["solve_cpu_s"], same)}
        for key, (ours, theirs, ref) in pairs.items():
            if ref["decided"] and ours is not None and theirs:
                d[key] = ours / theirs
        for ref_name, ref in ((AUTO, auto), (AUTO_BLOCK, block)):
            if ref["decided"] and d["status"] != ref["status"]:
                d["note"] = (d["note"] + "; " if d["note"] else "") + \
                    f"VERDICT MISMATCH vs {ref_name} {ref['status']}"
    return summ


def _ours(puzzle: Puzzle, *, use_x: bool, timeout: float, unique_by: str) -> Run:
    return run_ours(puzzle, use_x, timeout, unique_by)
