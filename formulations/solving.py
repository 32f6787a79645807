"""Build, (presolve,) hand to a backend, decode, verify: the one path every backend's answer takes."""
from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from formulations.runtime.clock import Deadline, OutOfTime
from formulations.runtime.cputime import cpu_seconds
from .model.encodings import build_model, check_encoding
from .model.protocol import SolvableModel
from .model.size import DEFAULT_MAX_MODEL_MB, ModelTooLarge
from .puzzle import Grid, Puzzle, check_grid
from .options import PARAMS, route
from .results import BackendError, ModelRefused, PresolveStats, RawAnswer, Remedy, SolveResult, Status

if TYPE_CHECKING:  # presolve is imported when a solve asks for it
    from .backends.base import Backend, BackendRef
    from .model.presolve import Presolved, ReducedModel


MODEL_CHECK_MAX_CONSTRAINTS = 1_000_000
"""Up to this size a solution's assignment is also checked against every model constraint."""


def verify(nm: SolvableModel, raw: RawAnswer, backend: str, *, build_s: float = 0.0,
           wall_s: float | None = None, unique_asked: bool = False,
           presolve: PresolveStats | None = None, build_cpu_s: float | None = None,
           solve_cpu_s: float | None = None) -> SolveResult:
    """Turn a backend's raw answer on the model ``nm`` into a result the package vouches for.

    A grid is reported only when the independent clue checker accepts the decoded grid (and,
    for models up to :data:`MODEL_CHECK_MAX_CONSTRAINTS`, the assignment satisfies the model);
    the solver's own claim is never trusted.
    ``wall_s`` is the wall time of the backend call (default: the backend's own figure);
    ``build_cpu_s``/``solve_cpu_s`` the CPU time of the build and of the backend call.
    """
    common: dict[str, Any]  # SolveResult's keywords, shared by every outcome
    common = dict(backend=backend, use_x=nm.use_x, encoding=getattr(nm, "encoding", None),
                  variables=nm.model.num_variables,
                  constraints=nm.model.num_constraints, build_s=build_s,
                  solve_s=raw.solve_s if wall_s is None else wall_s, solver_s=raw.solve_s,
                  energy=raw.energy, presolve=presolve, sampling=raw.sampling, info=dict(raw.info),
                  build_cpu_s=build_cpu_s, solve_cpu_s=solve_cpu_s)
    if raw.status is Status.INFEASIBLE:
        return SolveResult(Status.INFEASIBLE, message=raw.message, **common)
    if not raw.assignments:
        return SolveResult(_no_grid_status(raw), message=raw.message, **common)
    best = raw.assignments[0]
    grid = nm.decode(best)
    problems = check_grid(nm.puzzle, grid)
    # The grid is what is verified, always (linear in the grid). The assignment's feasibility in
    # the model is checked as well when the model is small enough for it to stay cheap, and
    # whenever the grid fails, to name the broken constraints.
    check_model = problems or nm.model.num_constraints <= MODEL_CHECK_MAX_CONSTRAINTS
    broken = nm.model.violations(best) if check_model else []
    if broken or problems:
        if raw.status is Status.SOLVED and not broken:
            # The model accepted it but the clues do not: a bug in the formulation, never hidden.
            return SolveResult(Status.ERROR, message="model-feasible assignment breaks the clues: "
                               + "; ".join(problems[:3]), **common)
        msg = raw.message or f"best assignment breaks {len(broken)} constraints"
        status = Status.ERROR if raw.status is Status.SOLVED else Status.UNKNOWN
        if raw.status is Status.SOLVED:
            msg = f"backend claimed a solution that breaks {len(broken)} constraints"
        return SolveResult(status, violations=tuple(broken), message=msg, **common)
    others = [nm.decode(a) for a in raw.assignments[1:]]
    unique, second = _uniqueness(nm.puzzle, grid, others, raw.proven_unique, unique_asked)
    return SolveResult(Status.SOLVED, grid=grid, unique=unique, second_grid=second,
                       message=raw.message, **common)


def verify_grids(puzzle: Puzzle, raw: RawAnswer, backend: str, *, wall_s: float | None = None,
                 unique_asked: bool = False, solve_cpu_s: float | None = None) -> SolveResult:
    """:func:`verify` for a backend that works on the puzzle and answers with grids."""
    common: dict[str, Any]  # SolveResult's keywords, shared by every outcome
    common = dict(backend=backend, use_x=None, solve_s=raw.solve_s if wall_s is None else wall_s,
                  solver_s=raw.solve_s, energy=raw.energy, sampling=raw.sampling,
                  info=dict(raw.info), build_cpu_s=0.0 if solve_cpu_s is not None else None,
                  solve_cpu_s=solve_cpu_s)
    if raw.status is Status.INFEASIBLE:
        return SolveResult(Status.INFEASIBLE, message=raw.message, **common)
    if not raw.grids:
        return SolveResult(_no_grid_status(raw), message=raw.message, **common)
    grid = tuple(tuple(row) for row in raw.grids[0])
    problems = check_grid(puzzle, grid)
    if problems:
        status = Status.ERROR if raw.status is Status.SOLVED else Status.UNKNOWN
        return SolveResult(status, violations=tuple(problems), message="backend claimed a grid "
                           "that breaks the clues: " + "; ".join(problems[:3]), **common)
    others = [tuple(tuple(row) for row in g) for g in raw.grids[1:]]
    unique, second = _uniqueness(puzzle, grid, others, raw.proven_unique, unique_asked)
    return SolveResult(Status.SOLVED, grid=grid, unique=unique, second_grid=second,
                       message=raw.message, **common)


def _no_grid_status(raw: RawAnswer) -> Status:
    return raw.status if raw.status in (Status.UNKNOWN, Status.ERROR) else Status.UNKNOWN


def _uniqueness(puzzle: Puzzle, grid: Grid, others: list[Grid], proven: bool | None,
                asked: bool) -> tuple[bool | None, Grid | None]:
    """The verdict from a verified grid and the other grids a backend sent: a second grid that
    passes the checker refutes uniqueness; only the backend's proof confirms it."""
    if not asked:
        return None, None
    second = next((g for g in others if g != grid and not check_grid(puzzle, g)), None)
    if second is not None:
        return False, second
    return (True if proven else None), None


@dataclass
class Progress:
    """How far the current solve got: what a run interrupted mid-way (Ctrl-C) reports."""
    backend: str = ""
    use_x: bool | None = None
    encoding: str | None = None
    variables: int | None = None
    constraints: int | None = None
    started: float = field(default_factory=time.perf_counter)
    build_s: float | None = None      # set once the model is built
    solve_started: float | None = None

    def result(self, status: Any, message: str) -> SolveResult:
        """A result with the figures known so far: the build's time (or the time spent
        building), the model's size and the backend's time until now."""
        now = time.perf_counter()
        build_s = self.build_s if self.build_s is not None else \
            (now - self.started if self.solve_started is None else 0.0)
        solve_s = 0.0 if self.solve_started is None else now - self.solve_started
        return SolveResult(status, self.backend, use_x=self.use_x, encoding=self.encoding,
                           variables=self.variables, constraints=self.constraints,
                           build_s=build_s, solve_s=solve_s, message=message)


_PROGRESS: ContextVar[Progress | None] = ContextVar("solve_progress", default=None)


def progress() -> Progress | None:
    """The :class:`Progress` of the latest :func:`solve` in this context (None before
    any), read by the command line when a run is interrupted."""
    return _PROGRESS.get()


@dataclass(frozen=True)
class SolveRequest:
    """One solve, checked once: the puzzle, the backend, its options (converted and checked by
    :meth:`Backend.prepare <formulations.backends.base.Backend.prepare>`, defaults filled), the
    model switches, the seed and the limits. Every entry point (``solve_puzzle``, the command
    line, a comparison job, the study runner, the web worker) builds one with :meth:`make` and
    hands it to :func:`solve`; nothing checks or converts an option again after that."""
    puzzle: Puzzle
    backend: Backend
    options: Mapping[str, Any] = field(default_factory=dict)
    use_x: bool | None = None
    encoding: str | None = None
    presolve: bool = False
    unique: bool = False
    seed: int | None = None
    time_limit: float | None = None
    max_model_mb: float | None = DEFAULT_MAX_MODEL_MB

    @classmethod
    def make(cls, puzzle: Puzzle, backend: BackendRef = "cpsat", *,
             options: Mapping[str, Any] | None = None,
             pairs: Iterable[tuple[str, Any]] = (), use_x: bool | None = None,
             encoding: str | None = None, presolve: bool = False, unique: bool = False,
             seed: int | None = None, time_limit: float | None = None,
             max_model_mb: float | None = DEFAULT_MAX_MODEL_MB) -> SolveRequest:
        """A checked request; BackendError (or ModelRefused's parent) names what is wrong,
        before any work. ``backend``: a registry name, a ``Backend`` or a dimod sampler object.
        ``options``: backend options as Python values (``reads=100``); ``pairs``: ``(key,
        value)`` pairs as a command line or a web form gives them (text values converted here;
        a key the backend does not declare is a native parameter, or the model switch ``x``,
        ``presolve`` or ``encoding``: :func:`formulations.options.route`)."""
        from .backends import get_backend

        if time_limit is not None and not (isinstance(time_limit, (int, float))
                                           and time_limit >= 0):
            raise BackendError(f"time_limit must be a number of seconds >= 0, got {time_limit!r}")
        b = get_backend(backend)
        given = dict(options or {})
        if pairs:
            try:
                routed, switches = route(b, pairs)
            except ValueError as exc:
                raise BackendError(str(exc)) from None
            for key in routed:
                if key in given and key != PARAMS:
                    raise BackendError(f"option '{key}' given twice")
            if PARAMS in routed and PARAMS in given:
                routed[PARAMS] = {**dict(given.pop(PARAMS)), **routed[PARAMS]}
            given.update(routed)
            use_x = _switch("x", use_x, switches, None)
            presolve = bool(_switch("presolve", presolve, switches, False))
            encoding = _switch("encoding", encoding, switches, None)
        opts = b.prepare(given)  # install and option errors before any work
        if encoding is not None:
            try:
                check_encoding(encoding)
            except ValueError as exc:
                raise BackendError(str(exc)) from None
        if unique and not b.supports_unique:
            raise BackendError(f"backend '{b.name}' cannot prove uniqueness; use cpsat or lines")
        if not b.uses_model:
            if presolve and not b.presolves:
                raise BackendError(f"backend '{b.name}' works on the puzzle itself; presolve "
                                   "does not apply")
            if encoding is not None:
                raise BackendError(f"backend '{b.name}' works on the puzzle itself; an "
                                   "encoding does not apply")
        return cls(puzzle, b, opts, use_x, encoding, presolve, unique, seed,
                   None if time_limit is None else float(time_limit), max_model_mb)


def _switch(key: str, given: Any, switches: Mapping[str, Any], default: Any) -> Any:
    """A model switch given both as a keyword and among the pairs must agree."""
    if key not in switches:
        return given
    if given != default and given != switches[key]:
        raise BackendError(f"{key} given twice ({given!r} and {switches[key]!r})")
    return switches[key]


def solve(request: SolveRequest, deadline: Deadline | None = None) -> SolveResult:
    """Solve a checked request and return a verified result. ``deadline``: the run's one
    deadline when the caller's clock started earlier (the command line's reads the puzzle
    too); by default ``request.time_limit`` from now. Every stage (the model build, presolve,
    the backend's translation and search) reads it; when it runs out the result is UNKNOWN and
    its message names the stage (a stage whose size says it cannot end in time is not
    started)."""
    clock = Deadline(request.time_limit) if deadline is None else deadline
    b, puzzle, opts = request.backend, request.puzzle, dict(request.options)
    seed, unique, max_model_mb = request.seed, request.unique, request.max_model_mb
    track = Progress(backend=b.name)  # what an interrupted run reports (progress())
    _PROGRESS.set(track)
    if not b.uses_model:
        try:
            raw, wall, cpu = _timed_solve(b, puzzle, opts, deadline=clock, seed=seed,
                                          unique=unique)
        except OutOfTime as exc:
            return SolveResult(Status.UNKNOWN, b.name, message=str(exc))
        return verify_grids(puzzle, raw, b.name, wall_s=wall, unique_asked=unique,
                            solve_cpu_s=cpu)
    ux = b.model_x(request.use_x)
    track.use_x, track.encoding = ux, request.encoding or "order"
    if request.presolve:
        return _solve_presolved(puzzle, b, ux, clock, seed=seed, unique=unique, opts=opts,
                                max_model_mb=max_model_mb, encoding=request.encoding)
    t0, c0 = time.perf_counter(), cpu_seconds()
    try:
        nm = build_model(puzzle, use_x=ux, encoding=request.encoding, deadline=clock,
                         max_model_mb=max_model_mb)
    except ModelTooLarge as exc:
        remedies = (Remedy("no_x"),) if ux else ()
        raise ModelRefused(b.name, str(exc), remedies + (Remedy("memory_cap"),)) from None
    except OutOfTime as exc:
        return SolveResult(Status.UNKNOWN, b.name, use_x=ux, build_s=time.perf_counter() - t0,
                           build_cpu_s=cpu_seconds() - c0, message=str(exc))
    build_s, build_cpu = time.perf_counter() - t0, cpu_seconds() - c0
    _check_translation(b, nm, max_model_mb)
    return _run_and_verify(b, nm, opts, clock, build_s=build_s, seed=seed, unique=unique,
                           build_cpu_s=build_cpu)


def solve_puzzle(puzzle: Puzzle, backend: BackendRef = "cpsat", *, use_x: bool | None = None,
                 time_limit: float | None = None, seed: int | None = None, unique: bool = False,
                 presolve: bool = False, encoding: str | None = None,
                 max_model_mb: float | None = DEFAULT_MAX_MODEL_MB,
                 **options: Any) -> SolveResult:
    """Solve ``puzzle`` with a backend (a registry name, a ``Backend``, or a dimod sampler
    object, whose ``parameters`` are then keyword arguments here:
    ``solve_puzzle(p, SimulatedAnnealingSampler(), num_reads=200)``) and return a verified
    result: :func:`solve` of a :class:`SolveRequest`.

    ``use_x`` builds the model with (True) or without (False) the cell variables; None gives
    the backend the variant it solves faster (``Backend.use_x``: without x for cpsat).
    ``encoding`` names the model's encoding (``formulations.model.encodings``; None: ``order``).

    ``time_limit`` (seconds) covers the whole solve: the model build, presolve, the backend's
    translation and search all read one deadline; when it runs out the result is UNKNOWN and
    its message names the stage (a stage whose size says it cannot end in time is not started).
    A sampler samples its reads within it; with ``until_solved=True`` it samples batch after
    batch until a verified grid or the limit.

    ``presolve=True`` line-solves the puzzle first and builds only the model of what is left,
    every decided variable fixed (``formulations.model.presolve.presolve_puzzle``; the same
    model as presolving the full one); the grid is rebuilt from the fixed part plus the
    backend's answer and checked as usual. A fixed point that decides every cell, or proves the
    clues contradictory, answers without any model or backend (``result.presolve.solved``). A
    backend that line-solves the puzzle itself (``Backend.presolves``: ``lines``) takes
    ``presolve=True`` as what it does anyway.

    A model the backend cannot take, or one over ``max_model_mb`` (estimated from the clues
    before building), raises :class:`~formulations.results.ModelRefused`.
    """
    started = time.perf_counter()
    request = SolveRequest.make(puzzle, backend, options=options, use_x=use_x, encoding=encoding,
                                presolve=presolve, unique=unique, seed=seed,
                                time_limit=time_limit, max_model_mb=max_model_mb)
    # the deadline from the start: importing a solver (Backend.prepare) counts too
    return solve(request, Deadline(request.time_limit).earlier(time.perf_counter() - started))


def _check_translation(b: Backend, nm: SolvableModel, max_model_mb: float | None) -> None:
    """The backend's own form of the model (a sampler's QUBO) is held to the model's memory cap:
    ModelRefused, before any solving, when it would not fit."""
    refused = b.translation_refused(nm, max_model_mb)
    if refused is not None:
        raise refused


def _timed_solve(b: Backend, target: SolvableModel | Puzzle, opts: dict[str, Any],
                 **kwargs: Any) -> tuple[RawAnswer, float, float]:
    """Call the backend and time it the same way for every backend: the wall time and the CPU
    time (:func:`~formulations.runtime.cputime.cpu_seconds`) of the whole call (translation, worker
    start, solving, uniqueness search), so backends are compared on equal terms; the backend's
    own figure stays ``raw.solve_s``."""
    t0, c0 = time.perf_counter(), cpu_seconds()
    track = _PROGRESS.get()
    if track is not None:
        track.solve_started = t0
    raw = b.run(target, opts, **kwargs)
    return raw, time.perf_counter() - t0, cpu_seconds() - c0


# Decoding and checking an answer (the clues, and the model's constraints up to a million),
# per model constraint: about 1.3 us on random100's 215k constraints here, rounded up. The
# backend gets the time limit less this (at most a tenth of it).
VERIFY_SECONDS_PER_CONSTRAINT = 2e-6


def _run_and_verify(b: Backend, nm: SolvableModel, opts: dict[str, Any], clock: Deadline, *,
                    build_s: float,
                    seed: int | None, unique: bool, presolve: PresolveStats | None = None,
                    build_cpu_s: float | None = None) -> SolveResult:
    """The backend on ``nm`` with the time left, then verification; a backend stage that runs out
    of time (its translation, a lowering) gives an UNKNOWN result naming it."""
    t0, c0 = time.perf_counter(), cpu_seconds()
    track = _PROGRESS.get()
    if track is not None:
        track.build_s = build_s
        track.variables, track.constraints = nm.model.num_variables, nm.model.num_constraints
    left = clock.left()
    if left is not None:  # the check after the backend belongs to the same time limit
        clock = clock.earlier(min(VERIFY_SECONDS_PER_CONSTRAINT * nm.model.num_constraints,
                                  0.1 * left))
    try:
        raw, wall, cpu = _timed_solve(b, nm, opts, deadline=clock, seed=seed, unique=unique)
    except OutOfTime as exc:
        raw, wall, cpu = (RawAnswer(Status.UNKNOWN, message=str(exc)), time.perf_counter() - t0,
                          cpu_seconds() - c0)
    return verify(nm, raw, b.name, build_s=build_s, wall_s=wall, unique_asked=unique,
                  presolve=presolve, build_cpu_s=build_cpu_s, solve_cpu_s=cpu)


def _solve_presolved(puzzle: Puzzle, b: Backend, use_x: bool, clock: Deadline, *,
                     seed: int | None,
                     unique: bool, opts: dict[str, Any], max_model_mb: float | None,
                     encoding: str | None = None) -> SolveResult:
    """The presolve path of :func:`solve_puzzle`: line solving on the puzzle first, then only the
    model of what is left (``formulations.model.presolve.presolve_puzzle``); a puzzle that line
    solving decides never gets a model. The other encodings build their full model and fix
    what the fixed point decides in it (``formulations.model.presolve.presolve``)."""
    from .model.presolve import presolve as presolve_model, presolve_puzzle

    t0, c0 = time.perf_counter(), cpu_seconds()
    pre: ReducedModel | Presolved
    try:
        if encoding in (None, "order"):
            pre = presolve_puzzle(puzzle, use_x=use_x, deadline=clock, max_model_mb=max_model_mb)
            build_s, stats = pre.build_s, pre.stats()
        else:
            full = build_model(puzzle, use_x=use_x, encoding=encoding, deadline=clock,
                               max_model_mb=max_model_mb)
            build_s = time.perf_counter() - t0
            t1 = time.perf_counter()
            pre = presolve_model(full, deadline=clock)
            stats = pre.stats(time.perf_counter() - t1)
    except ModelTooLarge as exc:
        remedies = (Remedy("no_x"),) if use_x else ()
        raise ModelRefused(b.name, str(exc), remedies + (Remedy("memory_cap"),)) from None
    except OutOfTime as exc:
        return SolveResult(Status.UNKNOWN, b.name, use_x=use_x, message=str(exc))
    build_cpu = cpu_seconds() - c0  # the build with presolve: set-up
    if pre.infeasible:
        raw = RawAnswer(Status.INFEASIBLE, message="line solving proves the clues contradictory")
    elif pre.solved:
        # line logic decided every cell, so this grid is the only solution
        raw = RawAnswer(Status.SOLVED, (np.zeros(0, dtype=np.int8),), proven_unique=True,
                        message="presolve decided every cell; backend not called")
    else:
        _check_translation(b, pre, max_model_mb)
        return _run_and_verify(b, pre, opts, clock, build_s=build_s, seed=seed,
                               unique=unique, presolve=stats, build_cpu_s=build_cpu)
    return verify(pre, raw, b.name, build_s=build_s, wall_s=None, unique_asked=unique,
                  presolve=stats, build_cpu_s=build_cpu, solve_cpu_s=0.0)
