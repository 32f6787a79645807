"""A conformance kit any backend can be run through, a registered one or a user's own, as dimod
ships ``load_sampler_bqm_tests`` for samplers.

Each check runs the backend on small puzzles built here (no files needed) and raises
:class:`ConformanceError` saying what is wrong. From a test suite::

    from formulations.testing import conformance

    @pytest.mark.parametrize("check", conformance.CHECKS)
    def test_my_backend(check):
        conformance.run(check, my_backend)

or all at once: ``conformance.check_backend(my_backend)`` returns ``{check: problem or None}``.
Every check takes ``encoding=`` (a name of ``formulations.model.encodings``; None: the default)
for the model a backend gets, so the same kit runs each backend on each encoding.

The checks:

* ``answer_shape``: a raw answer is well formed (status, assignment vectors of the model's length
  and 0/1 values, or grids for a backend that works on the puzzle; sampling figures in range),
  and a solvable puzzle is never called infeasible;
* ``status_consistency``: an impossible puzzle is never solved (a complete backend proves it
  infeasible); a complete backend refutes uniqueness on a puzzle with two solutions;
* ``time_limit_held``: a run with ``time_limit=T`` returns within ``T + max(1 s, 5 % of T)``
  (:data:`TIME_LIMIT_S`, :func:`allowed_s`) on an impossible puzzle that keeps heuristics busy,
  timed less the caller's wait for a CPU (:mod:`.stopwatch`: a loaded machine is no overrun);
* ``seed_reproduces``: two runs with the same seed give the same answer, for a backend that
  declares itself ``reproducible``;
* ``bad_options_refused``: an unknown option and an option of the wrong type are refused with a
  BackendError before any solving;
* ``no_free_variables``: a model whose every variable is fixed by its clues (none at all) is
  solved, and one whose constant constraints fail is not;
* ``liar_caught``: the same backend made to claim a wrong solution is caught by the package's
  verification (status error, no grid).

A backend may refuse a model up front (``ModelRefused``, e.g. too large for it): the checks then
move to the smallest variant (without x) and report the refusal only if no variant fits.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..puzzle import Puzzle, check_grid, puzzle_from_grid
from ..results import BackendError, ModelRefused, RawAnswer, SolveResult, Status
from ..runtime.clock import Deadline
from .stopwatch import Stopwatch

TIME_LIMIT_S = 2.0
SOLVE_LIMIT_S = 30.0
"""The time limit of the checks' solves of solvable puzzles: ample for the kit's tiny puzzles;
a heuristic that misses their solution runs this long each time (lower it for such a one)."""


def allowed_s(time_limit: float) -> float:
    """How long a run with this time limit may take: the limit plus max(1 s, 5 %)."""
    return time_limit + max(1.0, 0.05 * time_limit)


class ConformanceError(AssertionError):
    """A backend broke the contract; the message says how."""


# -- the kit's puzzles ------------------------------------------------------------------------

def tiny_puzzle() -> Puzzle:
    """3x3, unique, 4 variables without x and 13 with."""
    return puzzle_from_grid(((1, 0, 1), (0, 1, 0), (1, 0, 1)), "kit-tiny")


def two_solutions() -> Puzzle:
    """2x2 diagonal: both diagonals fit the clues."""
    return puzzle_from_grid(((1, 0), (0, 1)), "kit-two-solutions")


def impossible_tiny() -> Puzzle:
    """3x3 whose clues agree on the totals but no grid fits them."""
    return Puzzle.from_clues([[1, 1], [], []], [[], [1], [1]], "kit-impossible-3x3")


def impossible_12() -> Puzzle:
    """12x12, impossible, with 65 cells the line-solving fixed point leaves open: heuristics
    search it until their time limit (two row clues of a random picture swapped)."""
    rows = [[1, 3, 1], [1, 1, 1], [3, 1, 1, 1], [1, 2, 2, 1], [2, 1, 2], [1, 1, 3], [2, 1], [1, 1],
            [1, 1, 1, 2, 1], [2, 1, 1], [2, 2, 3], [5, 2, 2]]
    columns = [[2, 1, 1], [2, 5], [1, 1, 1, 3], [2, 1, 1, 1, 1], [2, 3], [1, 3, 1], [1, 1, 1],
               [1, 1, 1, 2], [5, 2, 1], [1, 4], [1, 1, 1], [1, 2, 1]]
    return Puzzle.from_clues(rows, columns, "kit-impossible-12x12")


def fixed_by_clues() -> Puzzle:
    """2x2 all black: every line's clue fills it, so the model without x has no variables."""
    return puzzle_from_grid(((1, 1), (1, 1)), "kit-all-fixed")


def constant_contradiction() -> Puzzle:
    """2x2 with no variables at all whose fixed lines contradict each other."""
    return Puzzle.from_clues([[2], []], [[2], []], "kit-contradiction")


# -- running a backend --------------------------------------------------------------------------

def _get(backend: Any):
    from formulations.backends import get_backend
    return get_backend(backend)


def _complete(b: Any) -> bool:
    return bool(b.supports_unique)


def solve(backend: Any, puzzle: Puzzle, encoding: str | None = None, **kwargs: Any) -> SolveResult:
    """``solve_puzzle`` with the backend's default model, else the model without x when the
    backend refuses the default (a backend made for tiny models)."""
    from ..solving import solve_puzzle

    if encoding is not None and _get(backend).uses_model:
        kwargs["encoding"] = encoding
    try:
        return solve_puzzle(puzzle, backend, **kwargs)
    except ModelRefused:
        if kwargs.get("use_x") is False or not _get(backend).uses_model:
            raise
        return solve_puzzle(puzzle, backend, **{**kwargs, "use_x": False})


def raw_answer(backend: Any, puzzle: Puzzle, encoding: str | None = None,
               time_limit: float | None = None, **kwargs: Any) -> tuple[RawAnswer, Any]:
    """The backend's raw answer and what it ran on (the model, or the puzzle)."""
    from ..model import build_model

    b = _get(backend)
    opts = b.prepare({})
    kwargs["deadline"] = Deadline(time_limit)
    if not b.uses_model:
        return b.run(puzzle, opts, **kwargs), puzzle
    for use_x in (b.model_x(), False):  # its own variant first (Backend.model_x)
        nm = build_model(puzzle, use_x=use_x, encoding=encoding)
        if b.compatibility(nm) is None:
            return b.run(nm, opts, **kwargs), nm
    raise ConformanceError(f"backend '{b.name}' refuses even the {nm.model.num_variables}-variable "
                           f"model of a 3x3 puzzle: {b.compatibility(nm)}")


def _fail(b: Any, what: str) -> None:
    raise ConformanceError(f"backend '{b.name}': {what}")


# -- the checks -----------------------------------------------------------------------------------

def check_answer_shape(backend: Any, encoding: str | None = None) -> None:
    b = _get(backend)
    raw, target = raw_answer(b, tiny_puzzle(), time_limit=SOLVE_LIMIT_S, seed=1,
                             encoding=encoding)
    if not isinstance(raw, RawAnswer) or not isinstance(raw.status, Status):
        _fail(b, f"returned {type(raw).__name__} with status {getattr(raw, 'status', None)!r}, "
                 "not a RawAnswer with a Status")
    if raw.status is Status.INFEASIBLE:
        _fail(b, "called a solvable puzzle infeasible")
    if raw.status is Status.TIMEOUT:
        _fail(b, "TIMEOUT is the harness's status, not a backend's")
    if b.uses_model:
        n = target.model.num_variables
        for a in raw.assignments:
            arr = np.asarray(a)
            if arr.shape != (n,):
                _fail(b, f"an assignment has shape {arr.shape}, the model has {n} variables")
            if not np.isin(arr, (0, 1)).all():
                _fail(b, "an assignment holds values other than 0 and 1")
        if raw.status is Status.SOLVED and not raw.assignments:
            _fail(b, "said SOLVED without an assignment")
    elif raw.status is Status.SOLVED and not raw.grids:
        _fail(b, "said SOLVED without a grid")
    if raw.proven_unique is not None:
        _fail(b, "claimed a uniqueness verdict that was not asked for")
    if raw.energy is not None and not (np.isfinite(raw.energy) and raw.energy >= 0):
        _fail(b, f"energy {raw.energy!r} is not a finite non-negative number")
    if raw.solve_s < 0:
        _fail(b, f"negative solve time {raw.solve_s}")
    s = raw.sampling
    if s is not None and not (s.reads >= 1 and 0.0 <= s.success_probability <= 1.0):
        _fail(b, f"sampling figures out of range: {s}")
    res = solve(b, tiny_puzzle(), time_limit=SOLVE_LIMIT_S, seed=1, encoding=encoding)
    if res.status is Status.SOLVED and (res.grid is None or check_grid(tiny_puzzle(), res.grid)):
        _fail(b, "a verified result carries a grid that breaks the clues")  # the pipeline's bug


def check_status_consistency(backend: Any, encoding: str | None = None) -> None:
    b = _get(backend)
    res = solve(b, impossible_tiny(), time_limit=2, seed=1, encoding=encoding)
    if res.status is Status.SOLVED or res.grid is not None:
        _fail(b, "solved an impossible puzzle")
    if _complete(b) and res.status is not Status.INFEASIBLE:
        _fail(b, f"a complete backend left an impossible puzzle {res.status.value}: {res.message}")
    if _complete(b):
        two = two_solutions()
        res = solve(b, two, unique=True, time_limit=SOLVE_LIMIT_S, seed=1, encoding=encoding)
        if res.status is not Status.SOLVED or res.unique is not False:
            _fail(b, f"on a puzzle with two solutions: {res.status.value}, unique={res.unique}")
        if res.second_grid is None or res.second_grid == res.grid or check_grid(two, res.second_grid):
            _fail(b, "refuted uniqueness without a second valid grid")


def check_time_limit_held(backend: Any, encoding: str | None = None) -> None:
    b = _get(backend)
    for puzzle in (impossible_12(), impossible_tiny()):
        try:
            with Stopwatch() as took:  # less the time spent waiting for a CPU on a loaded machine
                res = solve(b, puzzle, time_limit=TIME_LIMIT_S, seed=1, encoding=encoding)
        except ModelRefused:
            continue  # refused up front, in no time: try the smaller one
        if took.elapsed > allowed_s(TIME_LIMIT_S):
            _fail(b, f"ran {took} with time_limit={TIME_LIMIT_S:g} s on {puzzle.name} "
                     f"(allowed {allowed_s(TIME_LIMIT_S):.2f} s)")
        if res.status is Status.SOLVED:
            _fail(b, f"solved the impossible {puzzle.name}")
        return
    _fail(b, "refused every puzzle of the time-limit check")


def check_seed_reproduces(backend: Any, encoding: str | None = None) -> None:
    b = _get(backend)
    if not b.reproducible:
        return  # the backend does not promise it (time-sliced or multi-threaded search)
    first = solve(b, tiny_puzzle(), time_limit=SOLVE_LIMIT_S, seed=11, encoding=encoding)
    again = solve(b, tiny_puzzle(), time_limit=SOLVE_LIMIT_S, seed=11, encoding=encoding)
    if (first.status, first.grid, first.energy) != (again.status, again.grid, again.energy):
        _fail(b, f"seed 11 gave {first.status.value}/{first.energy} and then "
                 f"{again.status.value}/{again.energy}")
    if (first.sampling is None) != (again.sampling is None) or (
            first.sampling and again.sampling
            and first.sampling.success_probability != again.sampling.success_probability):
        _fail(b, "seed 11 gave different sampling statistics")


def check_bad_options_refused(backend: Any, encoding: str | None = None) -> None:
    b = _get(backend)
    try:
        solve(b, tiny_puzzle(), encoding=encoding, no_such_option_xyz=1)
    except BackendError as exc:
        if "no_such_option_xyz" not in str(exc):
            _fail(b, f"refused an unknown option without naming it: {exc}")
    else:
        _fail(b, "accepted an unknown option")
    for key, typ in b.options.items():
        if typ in (int, float, bool):
            try:
                b.prepare({key: "not-a-value"})
            except BackendError:
                continue
            _fail(b, f"accepted 'not-a-value' for its {typ.__name__} option '{key}'")


def check_no_free_variables(backend: Any, encoding: str | None = None) -> None:
    from ..model import build_model
    from ..solving import verify, verify_grids

    b = _get(backend)
    for puzzle, solvable in ((fixed_by_clues(), True), (constant_contradiction(), False)):
        if b.uses_model:
            nm = build_model(puzzle, use_x=False, encoding=encoding)
            if nm.model.num_variables:
                _fail(b, f"the kit's {puzzle.name} should have no variables")  # the kit's bug
            raw = b.run(nm, b.prepare({}), deadline=Deadline(10), seed=1)
            res = verify(nm, raw, b.name)
        else:
            raw = b.run(puzzle, b.prepare({}), deadline=Deadline(10), seed=1)
            res = verify_grids(puzzle, raw, b.name)
        if solvable and res.status is not Status.SOLVED:
            _fail(b, f"left a model with no free variables {res.status.value}: {res.message}")
        if not solvable and res.status is Status.SOLVED:
            _fail(b, "solved a model whose constant constraints fail")
        if not solvable and _complete(b) and res.status is not Status.INFEASIBLE:
            _fail(b, f"a complete backend left failing constant constraints {res.status.value}")


def liar(backend: Any):
    """The backend, made to claim a wrong solution: every answer becomes SOLVED with each
    assignment's bits flipped (or, on the puzzle, the grid's cells flipped)."""
    b = _get(backend)

    def lie(target: Any, **kwargs: Any) -> RawAnswer:
        raw = b.solve_fn(target, **kwargs)
        if b.uses_model:
            n = target.model.num_variables
            base = raw.assignments or (np.zeros(n, dtype=np.int8),)
            return replace(raw, status=Status.SOLVED,
                           assignments=tuple((1 - np.asarray(a)).astype(np.int8) for a in base))
        grid = raw.grids[0] if raw.grids else tuple((0,) * target.width for _ in range(target.height))
        return replace(raw, status=Status.SOLVED,
                       grids=(tuple(tuple(1 - v for v in row) for row in grid),))

    return replace(b, name=f"liar-{b.name}", solve_fn=lie)


def check_liar_caught(backend: Any, encoding: str | None = None) -> None:
    b = _get(backend)
    res = solve(liar(b), tiny_puzzle(), time_limit=SOLVE_LIMIT_S, seed=1, encoding=encoding)
    if res.status is not Status.ERROR or res.grid is not None:
        _fail(b, f"a claimed wrong solution came out {res.status.value} (grid {res.grid})")


CHECKS: dict[str, Callable[..., None]] = {  # (backend, encoding=None)
    "answer_shape": check_answer_shape,
    "status_consistency": check_status_consistency,
    "time_limit_held": check_time_limit_held,
    "seed_reproduces": check_seed_reproduces,
    "bad_options_refused": check_bad_options_refused,
    "no_free_variables": check_no_free_variables,
    "liar_caught": check_liar_caught,
}


def run(check: str, backend: Any, encoding: str | None = None) -> None:
    """Run one check by name; raises ConformanceError on a failure."""
    CHECKS[check](backend, encoding=encoding)


def check_backend(backend: Any, encoding: str | None = None) -> dict[str, str | None]:
    """Every check: ``{name: None}`` for a pass, else the problem in words."""
    out: dict[str, str | None] = {}
    for name, fn in CHECKS.items():
        try:
            fn(backend, encoding=encoding)
            out[name] = None
        except (ConformanceError, BackendError) as exc:
            out[name] = str(exc)
    return out
