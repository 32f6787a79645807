"""OR-Tools CP-SAT: the model's binary variables and linear constraints posted as they are."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from formulations.runtime.clock import NO_DEADLINE, Deadline
from formulations.model import Constraint, Model, NonogramModel, Sense
from formulations.options import coerce
from formulations.results import BackendError, RawAnswer, Status

from .base import Backend


def _split(model: Model, clock: Deadline = NO_DEADLINE) -> tuple[dict[int, list[int]], list[Constraint]]:
    """The two-variable ``u - v <= 0`` constraints as implications grouped by antecedent
    (``{u: [v, ...]}``), and every other constraint as it is.

    Inlined rather than a call per constraint: this loop runs over every constraint of the
    model and is a visible share of the translation time on small puzzles.
    """
    then: dict[int, list[int]] = {}
    linear: list[Constraint] = []
    eq, ge = Sense.EQ, Sense.GE
    for k, c in enumerate(model.constraints):
        if not k & 16383:
            clock.check("CP-SAT translation")
        terms = c.terms
        if len(terms) != 2 or c.rhs != 0 or c.sense is eq:
            linear.append(c)
            continue
        (u, a), (v, b) = terms
        if c.sense is ge:
            a, b = -a, -b
        if a == -1 and b == 1:
            u, v = v, u
        elif a != 1 or b != -1:
            linear.append(c)
            continue
        consequents = then.get(u)
        if consequents is None:
            then[u] = [v]
        else:
            consequents.append(v)
    return then, linear


def to_cpsat(model: Model, *, names: bool = False, deadline: Deadline | float | None = None):
    """Translate the model to a ``cp_model.CpModel`` whose variable i is the model's variable i.

    Written straight into the CP-SAT proto (every call into OR-Tools costs microseconds, and a
    20x20 puzzle has thousands of constraints). A two-variable ``u - v <= 0`` (the monotone and
    order families) is the implication ``u => v``; implications that share ``u`` are posted as
    one ``bool_and`` enforced by ``u``, which CP-SAT loads as the same binary clauses. Everything
    else is posted as the linear constraint it is. ``names`` labels the variables (for logs).
    """
    from ortools.sat.python import cp_model

    cp = cp_model.CpModel()
    proto = cp.proto
    if names:
        for label in model.labels:
            var = proto.variables.add()
            var.domain.extend((0, 1))
            var.name = str(label)
    else:
        _add_binaries(proto, model.num_variables)
    clock = Deadline.of(deadline)
    then, linear = _split(model, clock)
    add_con = proto.constraints.add
    for k, (u, vs) in enumerate(then.items()):
        if not k & 16383:
            clock.check("CP-SAT translation")
        con = add_con()
        con.enforcement_literal.append(u)
        con.bool_and.literals.extend(vs)
    for k, c in enumerate(linear):
        if not k & 16383:
            clock.check("CP-SAT translation")
        if not c.terms:  # a constant constraint kept because it fails: post "false"
            add_con().bool_or.literals.extend(())
            continue
        coefs = [a for _, a in c.terms]
        lin = add_con().linear
        lin.vars.extend([v for v, _ in c.terms])
        lin.coeffs.extend(coefs)
        if c.sense is Sense.EQ:
            lin.domain.extend((c.rhs, c.rhs))
        elif c.sense is Sense.LE:  # the domain's far end: the activity bound over binaries
            lin.domain.extend((min(sum(a for a in coefs if a < 0), c.rhs), c.rhs))
        else:
            lin.domain.extend((c.rhs, max(sum(a for a in coefs if a > 0), c.rhs)))
    return cp


def _add_binaries(proto, n: int) -> None:
    """Append ``n`` unnamed 0/1 variables by doubling a block of them (protobuf's merge appends
    repeated fields): about 2 log2(n) calls into OR-Tools instead of 2n."""
    from ortools.sat.python.cp_model_helper import CpModelProto

    block = CpModelProto()
    block.variables.add().domain.extend((0, 1))
    while n:
        if n & 1:
            proto.merge_from(block)
        n >>= 1
        if n:
            twice = CpModelProto()
            twice.copy_from(block)
            block.merge_from(twice)


def _solve(solver, cp, callback=None):
    """``solver.solve`` that Ctrl-C interrupts like every other backend: CP-SAT's own SIGINT
    handler is off (``catch_sigint_signal``, which would end the search as if on time), a
    watcher thread reads the signal from Python's wakeup fd and stops the search, and Python's
    own handler then raises KeyboardInterrupt as the solve returns. Off the main thread (a Dask
    worker) signals do not arrive, so the plain solve runs."""
    import select
    import signal
    import threading

    solver.parameters.catch_sigint_signal = False
    args = (cp,) if callback is None else (cp, callback)
    if threading.current_thread() is not threading.main_thread():
        return solver.solve(*args)
    import os

    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    previous = signal.set_wakeup_fd(write_fd)
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if select.select([read_fd], [], [], 0.1)[0] and signal.SIGINT in os.read(read_fd, 64):
                solver.stop_search()
                return

    watcher = threading.Thread(target=watch, name="cp-sat-sigint", daemon=True)
    watcher.start()
    try:
        return solver.solve(*args)
    finally:
        done.set()
        try:  # wake the watcher now rather than at its next 0.1 s poll (every solve waited it)
            os.write(write_fd, b"\0")
        except BlockingIOError:  # the pipe is full of signal bytes: the watcher wakes anyway
            pass
        signal.set_wakeup_fd(previous)
        watcher.join()
        os.close(read_fd)
        os.close(write_fd)


def _values(response, n: int | None = None) -> np.ndarray:
    """The model's variables of a solution (the first ``n``; the line patterns' cell literals
    come after them)."""
    values = np.array(response.solution, dtype=np.int8)
    return values if n is None else values[:n]


def _post_patterns(cp, nm: NonogramModel, clock: Deadline = NO_DEADLINE) -> int:
    """Post the model's line patterns (:mod:`formulations.model.patterns`) as CP-SAT automaton
    constraints over each line's cells: a cell that is one model variable is that variable, any
    other cell expression gets a literal equal to it (shared by equal expressions). Returns how
    many were posted (0 when the model carries none)."""
    from formulations.model.patterns import line_patterns

    pats = line_patterns(nm)
    var = cp.get_int_var_from_proto_index
    lits: dict[tuple, Any] = {}
    for pat in pats:
        clock.check("posting the line patterns")
        seq = []
        for coefs, const in pat.cells:
            if const == 0 and len(coefs) == 1 and next(iter(coefs.values())) == 1:
                seq.append(var(next(iter(coefs))))
                continue
            key = (tuple(sorted(coefs.items())), const)
            lit = lits.get(key)
            if lit is None:
                lit = lits[key] = cp.new_bool_var("")
                cp.add(lit == sum(c * var(v) for v, c in coefs.items()) + const)
            seq.append(lit)
        cp.add_automaton(seq, pat.start, list(pat.finals), list(pat.transitions))
    return len(pats)


# CP-SAT parameters this backend changes from OR-Tools' defaults, each measured with one worker
# on the webpbn survey and janko puzzles (bench/cpsat_vs_automaton.py); ``--param`` overrides them.
TUNED = {
    # No LP relaxation: the model is pure 0/1 feasibility, where the LP only slows each search
    # node (#9892: first solution in 4.8 s CPU instead of none within 42 s; #2712 1.4 s, not 11.4).
    "linearization_level": 0,
    # No CP-SAT presolve (option cp_presolve): the model is already small and clean. CPU s, no x,
    # on -> off: #16 0.31 -> 0.22, #2712 2.2 -> 1.1, #9892 5.1 -> 1.6, #12548 14.3 -> 9.4.
    "cp_model_presolve": False,
    # No symmetry detection: it costs 25-30% of the search on 15x15-30x30 janko puzzles and
    # changed nothing measurable on the hard survey ones.
    "symmetry_level": 0,
    # No phase saving: #22336 (59x99, the hardest survey puzzle) took 51.7, >60, 22.9 s with it
    # (seeds 1-3) and 34.5, 27.8, 21.6, 35.7 s without (seeds 1-4). The price: #12548 went from
    # 7.6-10 s to 8.2-18.9 s; the other hard survey puzzles moved within their noise.
    "use_phase_saving": False,
}


UNIQUE_BY = ("enumerate", "exclude")


def set_params(parameters, params: dict[str, Any]) -> None:
    """Set CP-SAT parameters by their sat_parameters.proto names; values may be strings (CLI)."""
    for key, value in params.items():
        if key.startswith("_") or not hasattr(parameters, key):
            raise BackendError(f"unknown CP-SAT parameter '{key}' (names as in OR-Tools' "
                               "sat_parameters.proto, e.g. symmetry_level, use_phase_saving)")
        current = getattr(parameters, key)
        try:
            setattr(parameters, key, _param_value(current, value))
        except (TypeError, ValueError, KeyError):
            raise BackendError(f"CP-SAT parameter '{key}' does not take {value!r} "
                               f"(a {type(current).__name__}, currently {current})") from None


def _param_value(current: Any, value: Any) -> Any:
    """A parameter value for a field whose current value is ``current``: text is converted to
    the field's type (enums take their names)."""
    if not isinstance(value, str):
        return value
    if isinstance(current, (bool, int, float, str)):
        return coerce(value, type(current))
    members = getattr(type(current), "__members__", None)  # enums take their names
    if members is not None:
        return members[value.upper()]
    raise TypeError(value)


def _invalid_reason(cp, solver: Any) -> str:
    """Why CP-SAT answered MODEL_INVALID, in its own words: the model's fault
    (``validate()``) or its parameters' (the response's ``solution_info``), e.g. both
    num_search_workers and num_workers set (the latter comes from ``--workers``)."""
    model = cp.validate()
    if model:
        return f"CP-SAT rejected the model: {model}"
    reason = (solver.solution_info() if solver is not None else "") or "no reason given"
    if "num_search_workers" in reason:
        reason += " (num_workers comes from --workers, the \"workers\" option: set threads there)"
    return f"CP-SAT rejected the parameters: {reason}"


def check_params(params: dict[str, Any]) -> None:
    """``Backend.check_params``: CP-SAT parameter names and values checked before any solve."""
    from ortools.sat.python import cp_model

    set_params(cp_model.CpSolver().parameters, params)


def solve(nm: NonogramModel, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None,
          unique: bool = False, workers: int = 1, log: bool = False,
          cp_presolve: bool = False, params: dict[str, Any] | None = None,
          unique_by: str | None = None, line_patterns: bool = False,
          clue_symmetry: bool = True, symmetry_after: float | None = None) -> RawAnswer:
    """``unique_by`` picks how ``unique=True`` is decided: "enumerate" (one search stopped at the
    second grid; the default with one worker) or "exclude" (exclude the first grid and solve
    again; the default, and the only way, with several workers). ``line_patterns`` adds each
    line's clue automaton (``formulations.model.patterns``) as a redundant ``AddAutomaton``
    next to the linear constraints (black-and-white order-encoded models; ``info.line_patterns``
    says how many were posted).

    ``clue_symmetry`` (on by default): when the clues map onto themselves under a flip or a
    rotation of the grid (:mod:`formulations.model.symmetry`) and the plain search has not found
    a grid within ``symmetry_after`` seconds (default :data:`SYMMETRY_AFTER_S`; 0: at once), look for a solution that is invariant too, on the
    model plus the equalities of each orbit's cells, for at most half the time left
    (:data:`SYMMETRY_FIRST_S` without a time limit); a grid found so is the first one and
    uniqueness is then decided on the full model with it excluded. When there is no invariant
    solution (or the share runs out) the full model is solved as without the option.
    ``info.clue_symmetry`` says what was tried and how it ended."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    if workers < 0:
        raise BackendError(f"workers must be 0 (all cores) or more, got {workers}")
    if unique_by is None:
        unique_by = "enumerate" if workers == 1 else "exclude"
    if unique_by not in UNIQUE_BY:
        raise BackendError(f"unique_by must be one of {', '.join(UNIQUE_BY)}, got {unique_by!r}")
    if unique_by == "enumerate" and workers != 1:
        raise BackendError("unique_by=enumerate needs one worker (several workers' enumeration "
                           "can end without a verdict); use unique_by=exclude")
    solver = cp_model.CpSolver()
    parameters = solver.parameters
    set_params(parameters, {**TUNED, "cp_model_presolve": cp_presolve, "num_workers": workers,
                             **(params or {})})
    clock = deadline
    cp = to_cpsat(nm.model, names=log, deadline=clock)
    posted = _post_patterns(cp, nm, clock) if line_patterns else None
    if seed is not None:
        parameters.random_seed = seed % (1 << 31)  # CP-SAT takes a 32-bit seed
    parameters.log_search_progress = log
    if log:  # the log goes to stderr so that --json keeps stdout to one object
        import sys
        parameters.log_to_stdout = False
        solver.log_callback = lambda line: print(line, file=sys.stderr)
    parameters.max_time_in_seconds = _time_left(clock)
    n = nm.model.num_variables
    extra: dict[str, Any] = {} if posted is None else {"line_patterns": posted}
    sym = _clue_symmetry(nm, clock) if clue_symmetry else None
    if sym is None:
        return _plain(nm, cp, solver, unique, unique_by, clock, t0, extra)
    # Symmetric clues: the plain search first, for a slice (most puzzles are decided in it and
    # pay nothing more), then a solution invariant under the symmetries, then the full model.
    syms = sym
    info_sym: dict[str, Any] = {"symmetries": [x.name for x in syms]}
    left = clock.left()
    if symmetry_after is None:
        symmetry_after = SYMMETRY_AFTER_S if left is None else min(SYMMETRY_AFTER_S, left / 4)
    if symmetry_after < 0:
        raise BackendError(f"symmetry_after must be 0 or more seconds, got {symmetry_after}")
    raw = (_plain(nm, cp, solver, unique, unique_by, clock.within(symmetry_after), t0, extra)
           if symmetry_after > 0 else None)
    spent = raw.info.get("cpsat_wall_s", 0.0) if raw is not None else 0.0
    undecided = (raw is not None and unique and raw.status is Status.SOLVED
                 and raw.proven_unique is None)
    if raw is not None and raw.status is not Status.UNKNOWN and not undecided:
        raw.info["clue_symmetry"] = {**info_sym, "tried": False}
        return raw
    excluded = False
    first: np.ndarray | None  # the first grid's assignment
    if undecided and raw is not None:  # a grid, no verdict in the slice: the full model's verdict
        first, info = raw.assignments[0], dict(raw.info)
        excluded = "second_status" in info  # unique_by=exclude: its clause is posted already
        info_sym["tried"] = False
    else:
        from formulations.model.symmetry import symmetry_equalities

        eqs = symmetry_equalities(nm, syms)
        info_sym["equalities"] = len(eqs)
        first, got = _symmetric_first(cp, eqs, solver, clock, n)
        info_sym.update(got, tried=True)
        spent += got["cpsat_wall_s"]
        if first is None:  # no invariant solution (or the share ran out): the full model
            raw = _plain(nm, cp, solver, unique, unique_by, clock, t0, extra)
            raw.info["clue_symmetry"] = info_sym
            raw.info["cpsat_wall_s"] = raw.info.get("cpsat_wall_s", 0.0) + spent
            return raw
        info = {"cpsat_status": got["status"], "cpsat_wall_s": spent,
                "first_s": time.perf_counter() - t0, **extra}
    info["clue_symmetry"] = info_sym
    found, proven = [first], None
    if unique:
        found, proven = _exclude_and_solve(nm, cp, solver, first, clock, info,
                                           post=not excluded)
    return RawAnswer(Status.SOLVED, tuple(found), solve_s=time.perf_counter() - t0,
                     proven_unique=proven, info=info)


def _time_left(clock: Deadline) -> float:
    """``max_time_in_seconds`` for a solve now: what is left until the deadline, else no limit
    (set every time: the solvers of one run share their parameters, and an earlier phase's
    share must not stay behind)."""
    left = clock.left()
    return float("inf") if left is None else left


def _plain(nm: NonogramModel, cp, solver, unique: bool, unique_by: str,
           clock: Deadline, t0: float, extra: dict[str, Any]) -> RawAnswer:
    """The model as it is, until ``clock``: one search (``unique_by=enumerate``), or a solve
    and, for uniqueness, a second with the first grid excluded; times are counted from ``t0``."""

    parameters = solver.parameters
    parameters.max_time_in_seconds = _time_left(clock)
    n = nm.model.num_variables
    if unique and unique_by == "enumerate":
        raw = _solve_unique(nm, cp, solver, t0)
        raw.info.update(extra)
        return raw
    parameters.enumerate_all_solutions = False
    status = _solve(solver, cp)
    info: dict[str, Any] = {"cpsat_status": solver.status_name(status),
                            "cpsat_wall_s": solver.wall_time, **extra}  # CP-SAT's own clock
    early = _no_solution(cp, status, t0, info, solver)
    if early is not None:
        return early
    first = _values(solver.response_proto, n)
    info["first_s"] = time.perf_counter() - t0
    found, proven = [first], None
    if unique:
        found, proven = _exclude_and_solve(nm, cp, solver, first, clock, info)
    return RawAnswer(Status.SOLVED, tuple(found), solve_s=time.perf_counter() - t0,
                     proven_unique=proven, info=info)


def _solver_like(solver):
    """A new CP-SAT solver with ``solver``'s parameters and log callback."""
    from ortools.sat.python import cp_model

    new = cp_model.CpSolver()
    new.parameters.copy_from(solver.parameters)
    new.parameters.enumerate_all_solutions = False
    callback = getattr(solver, "log_callback", None)
    if callback is not None:
        new.log_callback = callback
    return new


def _exclude_and_solve(nm: NonogramModel, cp, base, first: np.ndarray,
                       clock: Deadline, info: dict[str, Any],
                       post: bool = True) -> tuple[list[np.ndarray], bool | None]:
    """Uniqueness by exclusion (unique_by=exclude, the only way with several workers: their
    enumeration sometimes ends FEASIBLE without a verdict, seen on cat15): exclude the first
    grid (the cells fix every other variable) and search again. Returns the grids and the
    verdict (None: the time ran out). ``post=False``: the clause is in ``cp`` already."""
    from ortools.sat.python import cp_model

    if post:
        clause = cp.proto.constraints.add().bool_or.literals
        clause.extend([-v - 1 if first[v] else v for v in nm.blocking_variables()])
    solver = _solver_like(base)
    solver.parameters.max_time_in_seconds = _time_left(clock)
    status = _solve(solver, cp)
    info["second_status"] = solver.status_name(status)
    info["cpsat_wall_s"] = info.get("cpsat_wall_s", 0.0) + solver.wall_time
    if status == cp_model.INFEASIBLE:
        return [first], True
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return [first, _values(solver.response_proto, nm.model.num_variables)], False
    return [first], None


SYMMETRY_AFTER_S = 1.0
"""Seconds of the plain search before a symmetric-clue puzzle tries an invariant solution (a
quarter of the time limit when that is shorter; option ``symmetry_after``): puzzles decided in
it pay nothing more. Always-first made the 87 symmetric-clue puzzles of the survey, janko and
Knotty 1.8x slower (geometric mean; two solves instead of one on millisecond puzzles) while
#12548 went from 13.2 s to 1.5 s (``bench/clue_symmetry.py``)."""
SYMMETRY_FIRST_S = 60.0
"""Seconds the invariant-solution search may take when the run has no time limit."""


def _clue_symmetry(nm: NonogramModel, clock: Deadline):
    """The clues' symmetries, or None (no symmetry, or a model whose cells this cannot tie:
    another encoding, a presolved model)."""
    from formulations.model.symmetry import can_tie, clue_symmetries

    syms = clue_symmetries(nm.puzzle) if can_tie(nm) else ()
    clock.check("finding the clue symmetry")
    return syms or None


def _symmetric_first(cp, eqs, base, clock: Deadline, n: int
                     ) -> tuple[np.ndarray | None, dict[str, Any]]:
    """A solution invariant under the clues' symmetries, searched on a copy of ``cp`` with each
    orbit's cells tied equal, for half the time left (:data:`SYMMETRY_FIRST_S` without a time
    limit): its values (None when there is none or the share ran out) and how it ended."""
    from ortools.sat.python import cp_model

    sub = cp.clone()
    add_con = sub.proto.constraints.add  # straight into the proto, as in to_cpsat
    for _, (ca, ka), (cb, kb) in eqs:
        coefs = dict(ca)
        for v, c in cb.items():
            coefs[v] = coefs.get(v, 0) - c
        coefs = {v: c for v, c in coefs.items() if c}
        if not coefs:
            if ka != kb:  # two constant cells that differ: no invariant solution
                add_con().bool_or.literals.extend(())
            continue
        lin = add_con().linear  # left - right == 0
        lin.vars.extend(list(coefs))
        lin.coeffs.extend(list(coefs.values()))
        lin.domain.extend((kb - ka, kb - ka))
    solver = _solver_like(base)
    left = clock.left()
    solver.parameters.max_time_in_seconds = SYMMETRY_FIRST_S if left is None else left / 2
    t1 = time.perf_counter()
    status = _solve(solver, sub)
    info = {"status": solver.status_name(status), "cpsat_wall_s": solver.wall_time,
            "search_s": round(time.perf_counter() - t1, 6)}
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return _values(solver.response_proto, n), {**info, "found": True}
    return None, {**info, "found": False}  # INFEASIBLE: none is invariant; else out of time


def _no_solution(cp, status, t0: float, info: dict, solver: Any = None) -> RawAnswer | None:
    """The answer when CP-SAT found no solution, else None."""
    from ortools.sat.python import cp_model

    if status == cp_model.INFEASIBLE:
        return RawAnswer(Status.INFEASIBLE, solve_s=time.perf_counter() - t0, info=info)
    if status == cp_model.MODEL_INVALID:
        return RawAnswer(Status.ERROR, solve_s=time.perf_counter() - t0, info=info,
                         message=_invalid_reason(cp, solver))
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return RawAnswer(Status.UNKNOWN, solve_s=time.perf_counter() - t0,
                         message="time limit reached before a solution", info=info)
    return None


def _solve_unique(nm: NonogramModel, cp, solver, t0: float) -> RawAnswer:
    """One search that stops at the second grid: finding it, or finishing with one, decides
    uniqueness without a second solve (half the time of solve + exclude + solve on small puzzles).
    One worker only (see :func:`solve`).
    """
    from ortools.sat.python import cp_model

    block = np.array(nm.blocking_variables(), dtype=np.int64)
    n = nm.model.num_variables
    found: list[np.ndarray] = []
    times: list[float] = []

    class FirstTwo(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            values = _values(self.response_proto, n)
            if found and np.array_equal(values[block], found[0][block]):
                return  # the same grid (cannot happen while the cells fix every variable)
            found.append(values)
            times.append(time.perf_counter() - t0)
            if len(found) == 2:
                self.stop_search()

    solver.parameters.enumerate_all_solutions = True
    if solver.parameters.cp_model_presolve:
        solver.parameters.keep_all_feasible_solutions_in_presolve = True
    status = _solve(solver, cp, FirstTwo())
    info: dict[str, Any] = {"cpsat_status": solver.status_name(status),
                            "cpsat_wall_s": solver.wall_time}
    if not found:
        early = _no_solution(cp, status, t0, info, solver)
        if early is not None:
            return early
        return RawAnswer(Status.ERROR, solve_s=time.perf_counter() - t0, info=info,
                         message="CP-SAT reported a solution but passed none")
    info["first_s"] = times[0]
    if len(found) == 2:
        proven: bool | None = False
    else:  # OPTIMAL after enumerating: the search space held exactly one grid
        proven = True if status == cp_model.OPTIMAL else None
    return RawAnswer(Status.SOLVED, tuple(found), solve_s=time.perf_counter() - t0,
                     proven_unique=proven, info=info)


BACKENDS = [
    Backend(
        name="cpsat",
        description="OR-Tools CP-SAT on the model's linear constraints (complete: proves infeasible/unique)",
        solve_fn=solve,
        requires=("ortools.sat.python.cp_model",),
        install_hint='pip install -e ".[cpsat]" (or: pip install ortools)',
        options={"workers": int, "log": bool, "cp_presolve": bool, "params": dict,
                 "unique_by": str, "line_patterns": bool, "clue_symmetry": bool,
                 "symmetry_after": float},
        supports_unique=True,
        reproducible=True,
        check_params=check_params,
        minimum={"workers": 0},
        # Without x by default: the same search with half the variables and fewer links to
        # translate. Measured (uniqueness proofs, one worker): 40 janko puzzles 12.8 ms against
        # 18.6 ms geomean per puzzle; the 29 webpbn survey puzzles about 1.3x faster.
        use_x=False,
    ),
]
