"""HiGHS (highspy) on the model as a 0-1 integer program: each variable an integer column in
[0, 1], each linear constraint one row with the same coefficients, objective 0.

With a zero objective the first integer-feasible point closes the gap, so HiGHS reports
"optimal" at its first solution and "infeasible" when its search proves there is none.
Uniqueness: a no-good cut on the variables that fix the grid (``blocking_variables``),
``sum over v with first[v] = 0 of v + sum over v with first[v] = 1 of (1 - v) >= 1``, then a
second solve: infeasible proves the grid unique.

Time limit: HiGHS's own ``time_limit`` option, set to what is left of the run, with the
worker process killed half a second past the deadline as a backstop. Ctrl-C: the solve runs in
a worker process (:mod:`formulations.backends.search_process`), killed at once.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from formulations.model import Model
from formulations.runtime.clock import NO_DEADLINE, Deadline
from formulations.options import coerce
from formulations.results import BackendError, RawAnswer

from . import search_process
from .base import Backend

INSTALL_HINT = 'pip install -e ".[mip]" (or: pip install highspy)'

TUNED: dict[str, Any] = {}
"""HiGHS options this backend changes from the defaults (``--param`` overrides them)."""


_BANNER_SILENCED = [False]


def _highs():
    """A silent Highs object. HiGHS prints a banner to the process's stdout (C level) when the
    first one is made, before any option can turn output off: that once, fd 1 points to
    /dev/null (C streams flushed on both sides), so that ``--json`` keeps stdout to one object."""
    import highspy

    if _BANNER_SILENCED[0]:
        h = highspy.Highs()
    else:
        h = _quietly(highspy.Highs)
        _BANNER_SILENCED[0] = True
    h.setOptionValue("output_flag", False)
    return h


def _quietly(make):
    import ctypes
    import os
    import sys

    try:
        libc = ctypes.CDLL(None)  # the C library of this process (POSIX)
    except (OSError, TypeError):
        return make()
    sys.stdout.flush()
    libc.fflush(None)
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        try:
            return make()
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
    finally:
        os.close(devnull)
        os.close(saved)


def _set_options(h, params: dict[str, Any]) -> None:
    """HiGHS options by name; text values converted to the option's own type."""
    import highspy

    for key, value in params.items():
        status, current = h.getOptionValue(key) if _known(h, key) else (None, None)
        if status is None:
            raise BackendError(f"unknown HiGHS option '{key}' (names as in HiGHS's options, e.g. "
                               "presolve, mip_heuristic_effort, random_seed)")
        try:
            typed = coerce(value, type(current)) if isinstance(value, str) else value
        except ValueError:
            raise BackendError(f"HiGHS option '{key}' does not take {value!r} "
                               f"(a {type(current).__name__}, currently {current!r})") from None
        if h.setOptionValue(key, typed) != highspy.HighsStatus.kOk:
            raise BackendError(f"HiGHS refused {key}={value!r} (currently {current!r})")


def _known(h, key: str) -> bool:
    import highspy

    status, _ = h.getOptionType(key)
    return status == highspy.HighsStatus.kOk


def check_params(params: dict[str, Any]) -> None:
    """``Backend.check_params``: HiGHS option names and values, tried before any build."""
    _set_options(_highs(), params)


def load(h, model: Model) -> None:
    """The model's variables and constraints into ``h`` (columns = variables, rows in order)."""
    import highspy

    n, m = model.num_variables, model.num_constraints
    inf = highspy.kHighsInf
    if n:
        h.addVars(n, np.zeros(n), np.ones(n))
        h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                                np.full(n, highspy.HighsVarType.kInteger))
    if not m:
        return
    con, var, coef, rhs, sense = model._arrays()
    lower = np.where(sense < 0, -inf, rhs)
    upper = np.where(sense > 0, inf, rhs)
    starts = np.zeros(m, dtype=np.int32)
    counts = np.bincount(con, minlength=m)
    starts[1:] = np.cumsum(counts)[:-1]
    h.addRows(m, lower, upper, len(var), starts, var.astype(np.int32), coef)


def _run(h, time_left: float | None, info: dict[str, Any]):
    """One HiGHS solve within ``time_left`` seconds: its model status."""
    h.setOptionValue("time_limit", float("inf") if time_left is None else max(time_left, 1e-3))
    h.run()
    info["highs_s"] = info.get("highs_s", 0.0) + h.getRunTime()
    info["mip_nodes"] = info.get("mip_nodes", 0) + int(h.getInfo().mip_node_count)
    return h.getModelStatus()


def _values(h, n: int) -> np.ndarray:
    col = np.asarray(h.getSolution().col_value, dtype=np.float64)[:n]
    return np.rint(col).astype(np.int8)


def _found(h) -> bool:
    import highspy

    return h.getInfo().primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible


def _search(conn, model: Model, block: list[int], unique: bool, deadline: Deadline,
            seed: int | None, params: dict[str, Any]) -> None:
    """The worker process: load, solve, send ``("first", outcome, values, info)``, then (when
    ``unique`` and solved) cut off the grid, solve again and send ``("second", ...)``.
    ``outcome``: solved, infeasible, unknown or an error text. ``deadline``: the run's (the
    system's monotonic clock, the same in both processes)."""
    import highspy

    MS = highspy.HighsModelStatus
    h = _highs()
    if seed is not None:
        h.setOptionValue("random_seed", seed % (1 << 31))
    _set_options(h, params)
    n = model.num_variables
    load(h, model)
    info: dict[str, Any] = {}

    def outcome(status) -> tuple[str, np.ndarray | None]:
        name = h.modelStatusToString(status)
        if status == MS.kInfeasible:
            return "infeasible", None
        if status == MS.kModelEmpty:  # no columns: only constant rows, kept because they fail
            return ("solved" if all(c.holds(()) for c in model.constraints) else "infeasible",
                    np.zeros(n, dtype=np.int8))
        if status == MS.kOptimal or _found(h):
            return "solved", _values(h, n)
        if status in (MS.kTimeLimit, MS.kInterrupt):
            return "unknown", None
        return f"HiGHS ended with {name}", None

    status = _run(h, deadline.left(), info)
    info["highs_status"] = h.modelStatusToString(status)
    first, values = outcome(status)
    conn.send(("first", first, values, dict(info)))
    if not (unique and first == "solved" and block):
        return
    assert values is not None  # "solved" comes with values
    idx = np.asarray(block, dtype=np.int32)
    ones = values[idx] == 1
    h.addRow(1.0 - float(ones.sum()), highspy.kHighsInf, len(idx), idx,
             np.where(ones, -1.0, 1.0))
    status = _run(h, deadline.left(), info)
    info["second_status"] = h.modelStatusToString(status)
    second, values = outcome(status)
    conn.send(("second", second, values, dict(info)))


def solve(nm: Any, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None,
          unique: bool = False, params: dict[str, Any] | None = None) -> RawAnswer:
    """Solve in a worker process and (``unique``) cut off the first grid and solve again.

    Why a process (:mod:`formulations.backends.search_process`): HiGHS's presolve (seconds to minutes on a
    60x60 survey puzzle) neither checks the user-interrupt callback nor its time limit often,
    so a thread could not be stopped within a second; a process can. On Ctrl-C it is killed
    and KeyboardInterrupt goes on; past the deadline (plus ``search_process.GRACE_S``) it is
    killed and the answer is what it had sent (a first grid without a verdict, or nothing)."""
    model = nm.model
    block = nm.blocking_variables() if unique else []
    model._arrays()  # built once here, inherited by a forked worker
    return search_process.search(
        _search, (model, block, unique, deadline, seed, {**TUNED, **(params or {})}),
        solver="HiGHS", unique=unique, block=block, deadline=deadline,
        info={"rows": model.num_constraints, "columns": model.num_variables})


BACKENDS = [
    Backend(
        name="mip",
        description="HiGHS (highspy) on the model as a 0-1 integer program, objective 0 "
                    "(complete: proves infeasible/unique)",
        solve_fn=solve,
        requires=("highspy",),
        install_hint=INSTALL_HINT,
        options={"params": dict},
        supports_unique=True,
        reproducible=True,
        check_params=check_params,
        use_x=False,
    ),
]
