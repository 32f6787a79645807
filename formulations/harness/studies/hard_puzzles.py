"""The directions of attack on the survey's undecided puzzles (``bench/hard_puzzles.py``, issue
16): line solving and probing to a fixed point, independent regions, CP-SAT in several search
directions, an annealing hint, a CDCL SAT solver, grids other than the file's goal, and how
close a solution hint must be."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ...lines.engine import Engine
from ...puzzle import Grid, Puzzle
from ..study import REPO

CORPUS = REPO.parent / "shared" / "corpus"   # read by path, never copied
SURVEY = CORPUS / "wolter-survey-xml"
SURVEY_NON = CORPUS / "webpbn-survey-non"
CPSAT_DIRECTIONS = ("lines", "probed", "rows", "rows-restart", "sa-hint")


def line_fixed_point(eng: Engine) -> list[int] | None:
    """The state line solving reaches (None: the puzzle has no solution)."""
    state = eng.initial_state()
    return state if eng.propagate(state, None) else None


def probe_fixed_point(eng: Engine, state: list[int], limit_s: float) -> tuple[list[int] | None, int, bool]:
    """Probing to a fixed point (black and white puzzles). Returns the state (None: the puzzle
    has no solution), the number of rounds, and whether it stopped on the time limit."""
    h, w, C = eng.h, eng.w, eng.C
    end = time.perf_counter() + limit_s
    rounds = 0
    while True:
        rounds += 1
        changed = False
        for i in range(h):
            for j in range(w):
                if time.perf_counter() > end:
                    return state, rounds, True
                if not (eng.unknown_mask(state, i) >> j) & 1:
                    continue
                children = []
                for ci in range(C):
                    child = list(state)
                    eng.assign(child, i, j, ci)
                    if eng.propagate(child, [i, h + j]):
                        children.append(child)
                if not children:
                    return None, rounds, False
                if len(children) == 1:  # the other colour fails: this one is forced
                    new = children[0]
                else:  # what both colours imply (a bit left in either child stays possible)
                    new = [a | b for a, b in zip(children[0], children[1])]
                    new = [s & n for s, n in zip(state, new)]
                if new != state:
                    state = new
                    if not eng.propagate(state, None):
                        return None, rounds, False
                    changed = True
        if not changed:
            return state, rounds, False


def regions(eng: Engine, state: list[int]) -> list[int]:
    """Sizes (open cells) of the independent regions: components of the graph whose nodes are
    lines and whose edges are open cells (a cell joins its row and its column)."""
    h, w = eng.h, eng.w
    parent = list(range(h + w))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    cells = []
    for i in range(h):
        m = eng.unknown_mask(state, i)
        for j in range(w):
            if m >> j & 1:
                cells.append((i, j))
                a, b = find(i), find(h + j)
                if a != b:
                    parent[a] = b
    sizes: dict[int, int] = {}
    for i, _ in cells:
        r = find(i)
        sizes[r] = sizes.get(r, 0) + 1
    return sorted(sizes.values(), reverse=True)


def puzzle_path(name: str) -> Path:
    """knotty / faase (Wolter's XML) or a webpbn survey number."""
    if name.isdigit():
        return SURVEY_NON / f"webpbn-{int(name):05d}.non"
    return SURVEY / f"{name}.xml"


def cpsat_run(puzzle, eng: Engine, state: list[int], direction: str, seconds: float,
              reached_s: float) -> dict:
    """CP-SAT on the model of what ``state`` leaves open, in one ``direction``; the status and
    the seconds from the start (``reached_s``: the time it took to reach ``state``)."""
    from ortools.sat.python import cp_model

    from formulations.backends.cpsat import TUNED, set_params
    from formulations.puzzle import is_solution

    t0 = time.perf_counter() - reached_s
    red, cp, cells = _open_cells_model(puzzle, eng, state, reached_s)
    params: dict[str, object] = dict(TUNED, num_workers=1, max_time_in_seconds=seconds)
    if direction in ("rows", "rows-restart"):
        cp.add_decision_strategy([cp.get_bool_var_from_proto_index(v) for _, v in cells],
                                 cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE)
        params["search_branching"] = ("FIXED_SEARCH" if direction == "rows"
                                      else "PORTFOLIO_WITH_QUICK_RESTART_SEARCH")
    solver = cp_model.CpSolver()
    set_params(solver.parameters, params)
    status = solver.solve(cp)
    note = f"{solver.status_name(status)}, {red.model.num_variables} variables"
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        note += ", grid " + ("checked" if is_solution(puzzle, _grid_of(solver, cp, red))
                             else "WRONG")
    return {"open": red.unknown, "seconds": round(time.perf_counter() - t0, 3), "note": note}


def sa_hint_run(puzzle, seconds: float, hint_s: float) -> dict:
    """``sa`` for ``hint_s`` seconds, then CP-SAT on the same model (no x) from its best sample
    as a hint; the status and the seconds from the start."""
    from ortools.sat.python import cp_model

    from formulations.backends import get_backend
    from formulations.backends.cpsat import TUNED, set_params, to_cpsat
    from formulations.model import build_model
    from formulations.puzzle import is_solution

    t0 = time.perf_counter()
    nm = build_model(puzzle, use_x=False)
    raw = get_backend("sa").solve(nm, time_limit=hint_s, seed=1, until_solved=True)
    cp = to_cpsat(nm.model)
    for i, v in enumerate(raw.assignments[0] if raw.assignments else ()):
        cp.add_hint(cp.get_bool_var_from_proto_index(i), int(v))
    solver = cp_model.CpSolver()
    set_params(solver.parameters, dict(TUNED, num_workers=1, max_time_in_seconds=seconds))
    status = solver.solve(cp)
    note = (f"{solver.status_name(status)}, sa best energy {raw.energy:g} after {hint_s:g} s, "
            f"{nm.model.num_variables} variables")
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        note += ", grid " + ("checked" if is_solution(puzzle, _grid_of(solver, cp, nm))
                             else "WRONG")
    return {"open": puzzle.height * puzzle.width, "seconds": round(time.perf_counter() - t0, 3),
            "note": note}


def to_cnf(model, encoding: str = "seqcounter") -> tuple[list[list[int]], int]:
    """Clauses for a model whose coefficients are all +-1 (variable ``i`` is literal ``i + 1``):
    ``-x`` is written ``not x`` minus one, then PySAT's cardinality encoding of the sum."""
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool

    enc = getattr(EncType, encoding)
    pool = IDPool(start_from=model.num_variables + 1)
    clauses: list[list[int]] = []
    build = {"<=": CardEnc.atmost, ">=": CardEnc.atleast, "==": CardEnc.equals}
    for con in model.constraints:
        lits, rhs = [], con.rhs
        for v, c in con.terms:
            if c not in (1, -1):
                raise ValueError(f"{con.label}: coefficient {c} (this translation takes +-1)")
            lits.append(v + 1 if c == 1 else -(v + 1))
            rhs += c == -1
        if con.sense.value == "<=" and len(lits) == 2 and rhs == 1:
            clauses.append([-lits[0], -lits[1]])
            continue
        clauses.extend(build[con.sense.value](lits, bound=rhs, vpool=pool, encoding=enc).clauses)
    return clauses, pool.top


def _sat_child(clauses, solver_name, conn) -> None:
    from pysat.solvers import Solver

    with Solver(name=solver_name, bootstrap_with=clauses) as s:
        ok = s.solve()
        conn.send((ok, s.get_model() if ok else None))


def sat_run(puzzle, eng: Engine, state: list[int], seconds: float, reached_s: float,
            solver_name: str, encoding: str) -> dict:
    """A SAT solver on the CNF of the model of what ``state`` leaves open (no x)."""
    import multiprocessing as mp

    import numpy as np

    from formulations.model.presolve import reduced_from_state
    from formulations.puzzle import is_solution

    t0 = time.perf_counter() - reached_s
    red = reduced_from_state(puzzle, eng, state, use_x=False, seconds=reached_s)
    clauses, top = to_cnf(red.model, encoding)
    note = f"{solver_name}/{encoding}: {red.model.num_variables} variables, {top} with the " \
           f"encoding's, {len(clauses)} clauses"
    recv, send = mp.Pipe(duplex=False)
    child = mp.get_context("fork").Process(target=_sat_child, args=(clauses, solver_name, send))
    child.start()
    left = seconds - (time.perf_counter() - t0 - reached_s)
    if recv.poll(max(0.0, left)):
        ok, lits = recv.recv()
        child.join()
        if ok:
            values = np.zeros(red.model.num_variables, dtype=np.int8)
            for lit in lits:
                if 0 < lit <= red.model.num_variables:
                    values[lit - 1] = 1
            note += "; SAT, grid " + ("checked" if is_solution(puzzle, red.decode(values))
                                      else "WRONG")
        else:
            note += "; UNSAT"
    else:
        child.kill()
        child.join()
        note += f"; no answer in {seconds:g} s"
    return {"open": red.unknown, "seconds": round(time.perf_counter() - t0, 3), "note": note}


def _open_cells_model(puzzle, eng: Engine, state: list[int], reached_s: float):
    """The line-solved model (with x) in CP-SAT and its open cells' variables ((i, j), var)."""
    from formulations.backends.cpsat import to_cpsat
    from formulations.model.presolve import reduced_from_state

    red = reduced_from_state(puzzle, eng, state, use_x=True, seconds=reached_s)
    cells = [((i, j), v) for (i, j), cv in sorted(red.cell_vars.items()) for v in cv.values()]
    return red, to_cpsat(red.model), cells


def _grid_of(solver, cp, red):
    """The grid of CP-SAT's solution of ``red`` (a model or a reduced model: ``model``,
    ``decode``)."""
    import numpy as np

    values = np.array([solver.value(cp.get_bool_var_from_proto_index(i))
                       for i in range(red.model.num_variables)], dtype=np.int8)
    return red.decode(values)


def _distance(a, b) -> int:
    return sum(1 for ra, rb in zip(a, b) for x, y in zip(ra, rb) if (x != 0) != (y != 0))


def beyond_goal_run(puzzle, goal, eng: Engine, state: list[int], seconds: float, count: int,
                    reached_s: float) -> dict:
    """Grids other than the published goal: CP-SAT with the goal excluded, then every grid found
    excluded too; the number found, their distances from the goal, and how the search ended."""
    from ortools.sat.python import cp_model

    from formulations.backends.cpsat import TUNED, set_params
    from formulations.puzzle import is_solution

    t0 = time.perf_counter() - reached_s
    red, cp, cells = _open_cells_model(puzzle, eng, state, reached_s)

    def exclude(grid) -> None:  # at least one open cell differs from ``grid``
        clause = cp.proto.constraints.add().bool_or.literals
        clause.extend([-v - 1 if grid[i][j] else v for (i, j), v in cells])

    grids, wrong, end = [goal], 0, "count reached"
    dists: list[int] = []
    times: list[float] = []
    exclude(goal)
    solver = cp_model.CpSolver()
    while len(dists) < count:
        left = seconds - (time.perf_counter() - t0)
        if left <= 0:
            end = "time limit"
            break
        set_params(solver.parameters, dict(TUNED, num_workers=1, max_time_in_seconds=left))
        status = solver.solve(cp)
        if status == cp_model.INFEASIBLE:
            end = "no other grid (proved)"
            break
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            end = "time limit"
            break
        g = _grid_of(solver, cp, red)
        if not is_solution(puzzle, g) or g in grids:
            wrong += 1
            end = "a grid that is not a new solution (a bug)"
            break
        grids.append(g)
        dists.append(_distance(g, goal))
        times.append(round(time.perf_counter() - t0, 2))
        exclude(g)
    note = (f"{len(dists)} grids besides the goal, each checked; cells from the goal "
            f"{sorted(dists)}; found at {times[:3]}{'...' if len(times) > 3 else ''} s; "
            f"then {end}")
    return {"open": red.unknown, "seconds": round(time.perf_counter() - t0, 3), "note": note,
            "others": len(dists), "wrong": wrong}


def hint_noise_run(puzzle, goal, eng: Engine, state: list[int], noise: float, seconds: float,
                   reached_s: float, seed: int = 1) -> dict:
    """CP-SAT with the goal's open cells as solution hints, a fraction ``noise`` flipped."""
    import random

    from ortools.sat.python import cp_model

    from formulations.backends.cpsat import TUNED, set_params
    from formulations.puzzle import is_solution

    t0 = time.perf_counter() - reached_s
    red, cp, cells = _open_cells_model(puzzle, eng, state, reached_s)
    rnd = random.Random(seed)
    flipped = 0
    for (i, j), v in cells:
        want = 1 if goal[i][j] else 0
        if rnd.random() < noise:
            want, flipped = 1 - want, flipped + 1
        cp.add_hint(cp.get_bool_var_from_proto_index(v), want)
    solver = cp_model.CpSolver()
    set_params(solver.parameters, dict(TUNED, num_workers=1, max_time_in_seconds=seconds))
    status = solver.solve(cp)
    note = f"{solver.status_name(status)}, {flipped} of {len(cells)} hinted cells flipped"
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        g = _grid_of(solver, cp, red)
        note += (", grid " + ("checked" if is_solution(puzzle, g) else "WRONG")
                 + f", {_distance(g, goal)} cells from the goal")
    return {"open": red.unknown, "seconds": round(time.perf_counter() - t0, 3), "note": note}


@dataclass(frozen=True)
class Attack:
    """Which directions to run on a puzzle and for how long (the command line's options)."""
    probe_limit: float = 600.0
    directions: tuple[str, ...] = ("lines", "probed")
    cpsat: float = 0.0            # seconds of CP-SAT per direction (0: none)
    hint_s: float = 60.0          # seconds of sa before the sa-hint direction
    beyond_goal: float = 0.0      # seconds looking for grids other than the file's goal
    beyond_goal_count: int = 100
    hint_noise: tuple[float, ...] = ()
    sat: float = 0.0              # seconds of a SAT solver (0: none)
    sat_solver: str = "cadical195"
    sat_encoding: str = "seqcounter"

    def run(self, name: str, puzzle: Puzzle, goal: Grid | None) -> list[dict]:
        """One table row per direction (open cells, seconds, note), each printed as it ends."""
        rows: list[dict] = []
        eng = Engine(puzzle)
        if eng.C != 2:  # the probing below keeps what two colours imply: black and white only
            print(f"{name}: a colour puzzle; this probing is for black and white", file=sys.stderr)
            return rows
        cells = puzzle.height * puzzle.width
        t0 = time.perf_counter()
        state = line_fixed_point(eng)
        t_lines = time.perf_counter() - t0
        if state is None:
            print(f"{name}: line solving proves it has no solution")
            return rows
        open_lines = eng.unknown_count(state)
        rows.append({"puzzle": name, "direction": "lines", "cells": cells, "open": open_lines,
                     "seconds": round(t_lines, 3), "note": ""})
        t0 = time.perf_counter()
        probed, rounds, cut = probe_fixed_point(eng, state, self.probe_limit)
        t_probe = time.perf_counter() - t0
        if probed is None:
            rows.append({"puzzle": name, "direction": "probing", "cells": cells, "open": 0,
                         "seconds": round(t_probe, 3), "note": "no solution"})
            print(f"{name}: probing proves it has no solution ({t_probe:.2f} s)")
            return rows
        rows.append({"puzzle": name, "direction": "probing", "cells": cells,
                     "open": eng.unknown_count(probed), "seconds": round(t_probe, 3),
                     "note": f"{rounds} rounds" + (" (time limit)" if cut else "")})
        sizes = regions(eng, probed)
        rows.append({"puzzle": name, "direction": "regions", "cells": cells,
                     "open": sizes[0] if sizes else 0, "seconds": 0.0,
                     "note": f"{len(sizes)} regions, largest {sizes[:5]}"})
        for r in rows[-3:]:
            print(f"{r['puzzle']:<8} {r['direction']:<8} open {r['open']:>5} of {r['cells']}"
                  f"  {r['seconds']:8.2f} s  {r['note']}", flush=True)
        for d in self.directions if self.cpsat > 0 else ():
            start, reached = (probed, t_lines + t_probe) if d == "probed" else (state, t_lines)
            got = (sa_hint_run(puzzle, self.cpsat, self.hint_s) if d == "sa-hint"
                   else cpsat_run(puzzle, eng, start, d, self.cpsat, reached))
            r = {"puzzle": name, "direction": f"cpsat-{d}", "cells": cells, **got}
            rows.append(r)
            print(f"{r['puzzle']:<8} {r['direction']:<8} open {r['open']:>5} of {r['cells']}"
                  f"  {r['seconds']:8.2f} s  {r['note']}", flush=True)
        if (self.beyond_goal > 0 or self.hint_noise) and goal is None:
            print(f"{name}: the file carries no goal; --beyond-goal and --hint-noise skipped",
                  file=sys.stderr)
        elif goal is not None and (self.beyond_goal > 0 or self.hint_noise):
            from formulations.puzzle import check_grid

            bad = check_grid(puzzle, goal)
            if bad:
                print(f"{name}: the file's goal breaks its clues ({bad[0]}); skipped",
                      file=sys.stderr)
                goal = None
        more = []
        if goal is not None and self.beyond_goal > 0:
            more.append(("beyond-goal", beyond_goal_run(puzzle, goal, eng, state, self.beyond_goal,
                                                        self.beyond_goal_count, t_lines)))
        for q in self.hint_noise if goal is not None else ():
            more.append((f"hint-noise-{q:g}", hint_noise_run(puzzle, goal, eng, state, q,
                                                             self.cpsat or 60.0, t_lines)))
        for d, got in more:
            r = {"puzzle": name, "direction": d, "cells": cells,
                 **{k: v for k, v in got.items() if k in ("open", "seconds", "note")}}
            rows.append(r)
            print(f"{r['puzzle']:<8} {r['direction']:<8} open {r['open']:>5} of {r['cells']}"
                  f"  {r['seconds']:8.2f} s  {r['note']}", flush=True)
        if self.sat > 0:
            got = sat_run(puzzle, eng, state, self.sat, t_lines, self.sat_solver,
                          self.sat_encoding)
            r = {"puzzle": name, "direction": "sat", "cells": cells, **got}
            rows.append(r)
            print(f"{r['puzzle']:<8} {r['direction']:<8} open {r['open']:>5} of {r['cells']}"
                  f"  {r['seconds']:8.2f} s  {r['note']}", flush=True)
        return rows
