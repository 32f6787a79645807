"""The CP-SAT translation and its two ways of deciding uniqueness."""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from formulations.model import build_model
from formulations.model import Model, Sense
from formulations.puzzle import check_grid, puzzle_from_grid
from formulations.io import read_puzzle
from formulations.results import Status
from formulations.solving import solve_puzzle

pytest.importorskip("ortools")
from ortools.sat.python import cp_model  # noqa: E402

from formulations.backends.cpsat import to_cpsat  # noqa: E402

from helpers import PUZZLES


def all_solutions(model: Model) -> set[tuple[int, ...]]:
    """Every assignment CP-SAT accepts for the translated model."""
    cp = to_cpsat(model)
    out: set[tuple[int, ...]] = set()

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            out.add(tuple(int(v) for v in self.response_proto.solution))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.solve(cp, Collect())
    return out


def brute_force(model: Model) -> set[tuple[int, ...]]:
    return {bits for bits in itertools.product((0, 1), repeat=model.num_variables)
            if model.is_feasible(np.array(bits, dtype=np.int8))}


def test_translation_keeps_every_sense_and_coefficient():
    m = Model()
    a, b, c, d = (m.add_var(n) for n in "abcd")
    m.add_constraint("t", "le", a + b + c, "<=", 1)
    m.add_constraint("t", "ge", a + d, ">=", 1)
    m.add_constraint("t", "imp", a - c, "<=", 0)            # a => c
    m.add_constraint("t", "imp-ge", d - b, ">=", 0)         # b => d, written the other way
    m.add_constraint("t", "mixed", a - b - b + c, ">=", -1)
    m.add_constraint("t", "eq", b + c + d, "==", 2)
    assert all_solutions(m) == brute_force(m) != set()


def test_a_constant_false_constraint_makes_the_translation_infeasible():
    m = Model()
    m.add_var("a")
    assert m.add_constraint("t", "never", 0, Sense.EQ, 1) is not None
    solver = cp_model.CpSolver()
    assert solver.solve(to_cpsat(m)) == cp_model.INFEASIBLE


@pytest.mark.parametrize("use_x", [True, False])
def test_translated_models_have_exactly_the_model_solutions(use_x):
    rng = random.Random(11)
    checked = 0
    for _ in range(12):
        h, w = rng.randint(2, 3), rng.randint(2, 3)
        grid = tuple(tuple(rng.randint(1, 2) if rng.random() < 0.5 else 0 for _ in range(w))
                     for _ in range(h))
        nm = build_model(puzzle_from_grid(grid), use_x=use_x)
        if nm.model.num_variables > 16:
            continue
        assert all_solutions(nm.model) == brute_force(nm.model)
        checked += 1
    assert checked >= 8  # the size filter must not empty the test


@pytest.mark.parametrize("workers, unique_by", [(1, "enumerate"), (1, "exclude"), (2, "exclude")])
@pytest.mark.parametrize("use_x", [True, False])
def test_uniqueness_verdicts_agree_between_methods(workers, unique_by, use_x):
    for name, unique in [("cat15.txt", True), ("two_solutions4.txt", False),
                         ("flower_colour8.txt", True)]:
        puzzle = read_puzzle(PUZZLES / name)
        r = solve_puzzle(puzzle, "cpsat", use_x=use_x, unique=True, workers=workers,
                         unique_by=unique_by, time_limit=60)
        assert r.status is Status.SOLVED and check_grid(puzzle, r.grid) == []
        assert r.unique is unique, name
        if r.unique is False:
            second = r.second_grid
            assert second != r.grid and check_grid(puzzle, second) == []


def test_unique_verdict_matches_the_line_solver_on_random_puzzles():
    rng = random.Random(5)
    for _ in range(15):
        h, w = rng.randint(3, 6), rng.randint(3, 6)
        grid = tuple(tuple(int(rng.random() < 0.55) for _ in range(w)) for _ in range(h))
        puzzle = puzzle_from_grid(grid)
        a = solve_puzzle(puzzle, "cpsat", use_x=False, unique=True, time_limit=30)
        b = solve_puzzle(puzzle, "lines", unique=True, time_limit=30)
        assert a.status is b.status is Status.SOLVED
        assert a.unique is b.unique is not None


def test_cpsat_parameters_pass_through_and_bad_ones_are_refused():
    from formulations.results import BackendError

    puzzle = read_puzzle(PUZZLES / "heart5.txt")
    r = solve_puzzle(puzzle, "cpsat", params={"symmetry_level": "2", "use_phase_saving": "true",
                                              "search_branching": "fixed_search"})
    assert r.status is Status.SOLVED and check_grid(puzzle, r.grid) == []
    with pytest.raises(BackendError, match="unknown CP-SAT parameter 'no_such_thing'"):
        solve_puzzle(puzzle, "cpsat", params={"no_such_thing": 1})
    with pytest.raises(BackendError, match="does not take 'maybe'"):
        solve_puzzle(puzzle, "cpsat", params={"use_phase_saving": "maybe"})
    with pytest.raises(BackendError, match="unique_by must be one of enumerate, exclude"):
        solve_puzzle(puzzle, "cpsat", unique=True, unique_by="guess")
    with pytest.raises(BackendError, match="needs one worker"):
        solve_puzzle(puzzle, "cpsat", unique=True, unique_by="enumerate", workers=2)


def test_cpsat_gets_the_model_without_x_unless_the_caller_chooses():
    from formulations.backends.base import Backend
    from formulations.results import RawAnswer

    cat = read_puzzle(PUZZLES / "cat15.txt")
    default = solve_puzzle(cat, "cpsat", unique=True)
    with_x = solve_puzzle(cat, "cpsat", use_x=True, unique=True)
    # a backend without a preference keeps x (it answers with the cat, encoded in its model)
    keeps_x = Backend("keeps-x", "answers the known grid",
                      lambda nm, **kw: RawAnswer(Status.SOLVED, (nm.encode(default.grid),)))
    other = solve_puzzle(cat, keeps_x)
    assert (default.variables, with_x.variables, other.variables) == (236, 461, 461)
    assert (default.use_x, with_x.use_x, other.use_x) == (False, True, True)
    for r in (default, with_x, other):
        assert r.status is Status.SOLVED and check_grid(cat, r.grid) == []
    assert default.grid == with_x.grid and default.unique is with_x.unique is True


def test_parameters_cpsat_refuses_are_reported_in_its_own_words():
    # --param num_search_workers=2 next to the num_workers that --workers sets: CP-SAT answers
    # MODEL_INVALID with an empty validate(); its reason is in the response
    puzzle = read_puzzle(PUZZLES / "cat15.txt")
    result = solve_puzzle(puzzle, "cpsat", params={"num_search_workers": 2})
    assert result.status is Status.ERROR
    assert "num_search_workers and num_workers" in result.message, result.message
    assert "--workers" in result.message
