"""OR-Tools CP-SAT: the model's binary variables and linear constraints posted as they are."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from formulations.builder import NonogramModel
from formulations.model import Model, Sense
from formulations.results import RawAnswer, Status

from .base import Backend


def to_cpsat(model: Model):
    """Translate the model to a ``cp_model.CpModel``; returns (cp model, list of BoolVars)."""
    from ortools.sat.python import cp_model

    cp = cp_model.CpModel()
    xs = [cp.NewBoolVar(str(label)) for label in model.labels]
    for c in model.constraints:
        expr = sum(coef * xs[v] for v, coef in c.terms)
        if c.sense is Sense.EQ:
            cp.Add(expr == c.rhs)
        elif c.sense is Sense.LE:
            cp.Add(expr <= c.rhs)
        else:
            cp.Add(expr >= c.rhs)
    return cp, xs


def solve(nm: NonogramModel, *, time_limit: float | None = None, seed: int | None = None,
          unique: bool = False, workers: int = 1, log: bool = False) -> RawAnswer:
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    cp, xs = to_cpsat(nm.model)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    if seed is not None:
        solver.parameters.random_seed = seed
    solver.parameters.log_search_progress = log

    def run() -> int:
        if time_limit is not None:
            solver.parameters.max_time_in_seconds = max(0.0, time_limit - (time.perf_counter() - t0))
        return solver.Solve(cp)

    status = run()
    info: dict[str, Any] = {"cpsat_status": solver.StatusName(status)}
    if status == cp_model.INFEASIBLE:
        return RawAnswer(Status.INFEASIBLE, solve_s=time.perf_counter() - t0, info=info)
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
        options={"workers": int, "log": bool},
        supports_unique=True,
    ),
]
