"""OR-Tools CP-SAT: the model's binary variables and linear constraints posted as they are."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from formulations.builder import NonogramModel
from formulations.model import Model, Sense
from formulations.results import BackendError, RawAnswer, Status

from .base import Backend


def _implication(terms: tuple[tuple[int, int], ...], sense: Sense, rhs: int) -> tuple[int, int] | None:
    """``(u, v)`` when the constraint says exactly ``u <= v`` over two binaries (u implies v)."""
    if len(terms) != 2 or rhs != 0 or sense is Sense.EQ:
        return None
    (u, a), (v, b) = terms
    if sense is Sense.GE:
        a, b = -a, -b
    if (a, b) == (1, -1):
        return u, v
    if (a, b) == (-1, 1):
        return v, u
    return None


def to_cpsat(model: Model, *, names: bool = False):
    """Translate the model to a ``cp_model.CpModel``; returns (cp model, list of BoolVars).

    Constraint by constraint: a two-variable ``u - v <= 0`` (the monotone and order families)
    is posted as the implication ``u => v`` it is, everything else as the linear constraint it
    is, from a weighted sum rather than a Python ``sum`` of terms. Same solutions; this halves
    the translation time and spares CP-SAT's presolve from rediscovering the clauses
    (bench/cpsat_vs_automaton.py). ``names`` labels the BoolVars (for logs and debugging).
    """
    from ortools.sat.python import cp_model

    cp = cp_model.CpModel()
    xs = [cp.new_bool_var(str(label) if names else "") for label in model.labels]
    weighted_sum = cp_model.LinearExpr.weighted_sum
    for c in model.constraints:
        imp = _implication(c.terms, c.sense, c.rhs)
        if imp is not None:
            cp.add_implication(xs[imp[0]], xs[imp[1]])
            continue
        expr = weighted_sum([xs[v] for v, _ in c.terms], [coef for _, coef in c.terms])
        if c.sense is Sense.EQ:
            cp.add(expr == c.rhs)
        elif c.sense is Sense.LE:
            cp.add(expr <= c.rhs)
        else:
            cp.add(expr >= c.rhs)
    return cp, xs


def solve(nm: NonogramModel, *, time_limit: float | None = None, seed: int | None = None,
          unique: bool = False, workers: int = 1, log: bool = False,
          cp_presolve: bool = False) -> RawAnswer:
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    cp, xs = to_cpsat(nm.model, names=log)
    solver = cp_model.CpSolver()
    if workers < 0:
        raise BackendError(f"workers must be 0 (all cores) or more, got {workers}")
    solver.parameters.num_workers = workers
    # No LP relaxation: the model is pure 0/1 feasibility, where the LP only slows each search
    # node (webpbn #9892, one worker: first solution in 4.8 s CPU instead of none within 42 s;
    # #2712 1.4 s instead of 11.4 s; bench/cpsat_vs_automaton.py).
    solver.parameters.linearization_level = 0
    # No CP-SAT presolve by default: the model is already small and clean, and presolve ran twice
    # with --unique. Measured one worker, CPU s, no x (base -> off): #16 0.31 -> 0.22,
    # #2712 2.2 -> 1.1, #9892 5.1 -> 1.6, #18297 4.4 -> 1.9, #12548 14.3 -> 9.4.
    solver.parameters.cp_model_presolve = cp_presolve
    if seed is not None:
        solver.parameters.random_seed = seed % (1 << 31)  # CP-SAT takes a 32-bit seed
    solver.parameters.log_search_progress = log
    if log:  # the log goes to stderr so that --json keeps stdout to one object
        import sys
        solver.parameters.log_to_stdout = False
        solver.log_callback = lambda line: print(line, file=sys.stderr)

    def run() -> int:
        if time_limit is not None:
            solver.parameters.max_time_in_seconds = max(0.0, time_limit - (time.perf_counter() - t0))
        return solver.Solve(cp)

    status = run()
    info: dict[str, Any] = {"cpsat_status": solver.StatusName(status)}
    if status == cp_model.INFEASIBLE:
        return RawAnswer(Status.INFEASIBLE, solve_s=time.perf_counter() - t0, info=info)
    if status == cp_model.MODEL_INVALID:
        return RawAnswer(Status.ERROR, solve_s=time.perf_counter() - t0, info=info,
                         message="CP-SAT rejected the model: " + cp.validate())
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return RawAnswer(Status.UNKNOWN, solve_s=time.perf_counter() - t0,
                         message="time limit reached before a solution", info=info)
    first = np.array([solver.Value(x) for x in xs], dtype=np.int8)
    found = [first]
    proven = None
    info["first_s"] = time.perf_counter() - t0
    if unique:
        # Exclude this grid (the cell variables determine every other variable) and search again.
        block = nm.blocking_variables()
        cp.AddBoolOr([xs[v].Not() if first[v] else xs[v] for v in block])
        status2 = run()
        info["second_status"] = solver.StatusName(status2)
        if status2 == cp_model.INFEASIBLE:
            proven = True
        elif status2 in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            found.append(np.array([solver.Value(x) for x in xs], dtype=np.int8))
            proven = False
    return RawAnswer(Status.SOLVED, tuple(found), solve_s=time.perf_counter() - t0,
                     proven_unique=proven, info=info)


BACKENDS = [
    Backend(
        name="cpsat",
        description="OR-Tools CP-SAT on the model's linear constraints (complete: proves infeasible/unique)",
        solve_fn=solve,
        requires=("ortools.sat.python.cp_model",),
        install_hint='pip install "nonogram-formulations[cpsat]" (or: pip install ortools)',
        options={"workers": int, "log": bool, "cp_presolve": bool},
        supports_unique=True,
    ),
]
