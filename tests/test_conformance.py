"""One conformance suite applied to every installed backend.

Each backend gets the same puzzles through the same verified path; a backend may fail to find a
solution (heuristics) but must never report a wrong grid or call an impossible puzzle solved.
"""
from __future__ import annotations


import pytest

from formulations import backends
from formulations.puzzle import check_grid, puzzle_from_grid
from formulations.io import read_puzzle
from formulations.results import Status
from formulations.solving import solve_puzzle
from formulations.testing import conformance

from helpers import PUZZLES
INSTALLED = backends.available_backends()
COMPLETE = [b.name for b in backends.all_backends() if b.supports_unique and b.name in INSTALLED]
# Heuristics that are expected to find the tiny puzzles' solutions with a fixed seed.
STRONG = {"cpsat", "lines", "sa", "tabu", "exact", "qbpp", "qbpp-exhaustive"}


def load(name: str):
    return read_puzzle(PUZZLES / name)


def test_the_usual_backends_are_installed_here():
    # The project's own install ([all,test]) brings every backend; a missing one is a packaging bug.
    assert {"cpsat", "lines", "sa", "tabu", "qbpp"} <= set(INSTALLED)


@pytest.mark.parametrize("backend", INSTALLED)
def test_tiny_puzzle_answer_is_verified(backend):
    puzzle = load("heart5.txt")
    r = solve_puzzle(puzzle, backend, use_x=False, seed=3, time_limit=30)
    if r.status is Status.SOLVED:
        assert check_grid(puzzle, r.grid) == []
    else:
        assert backend not in STRONG, f"{backend}: {r.status} {r.message}"
        assert r.status is Status.UNKNOWN and r.grid is None


@pytest.mark.parametrize("backend", INSTALLED)
def test_tiny_colour_puzzle_touching_blocks(backend):
    # Colours 2 and 3 touch in every row (a diagonal staircase): 34 variables, 20 without x.
    # (Without x, qbpp's EasySolver stalls at energy 2 on this one for every seed tried.)
    puzzle = puzzle_from_grid(((2, 3, 0, 0), (0, 2, 3, 0), (0, 0, 2, 3)))
    use_x = backend not in ("exact", "qbpp-exhaustive")  # those enumerate: keep them tiny
    r = solve_puzzle(puzzle, backend, use_x=use_x, seed=5, time_limit=30)
    if r.status is Status.SOLVED:
        assert check_grid(puzzle, r.grid) == []
    else:
        assert backend not in STRONG, f"{backend}: {r.status} {r.message}"


@pytest.mark.parametrize("backend", INSTALLED)
def test_impossible_puzzle_is_never_solved(backend):
    # Heuristics search until their time limit on an impossible puzzle: keep it short.
    r = solve_puzzle(load("impossible3.txt"), backend, use_x=False, seed=1, time_limit=2)
    assert r.status is not Status.SOLVED and r.grid is None
    if backend in COMPLETE:
        assert r.status is Status.INFEASIBLE


@pytest.mark.parametrize("backend", COMPLETE)
def test_two_solutions_are_not_unique(backend):
    puzzle = load("two_solutions4.txt")
    r = solve_puzzle(puzzle, backend, use_x=False, unique=True, time_limit=30)
    assert r.status is Status.SOLVED and check_grid(puzzle, r.grid) == []
    assert r.unique is False


@pytest.mark.parametrize("backend", [b for b in COMPLETE if b in ("cpsat", "lines", "sat", "mip")])
@pytest.mark.parametrize("path", sorted(PUZZLES.glob("*.txt")), ids=lambda p: p.stem)
def test_complete_backends_decide_every_project_puzzle(backend, path):
    puzzle = read_puzzle(path)
    r = solve_puzzle(puzzle, backend, unique=True, time_limit=60)
    if path.stem.startswith("impossible"):
        assert r.status is Status.INFEASIBLE
        return
    assert r.status is Status.SOLVED, r.message
    assert check_grid(puzzle, r.grid) == []
    assert r.unique is (not path.stem.startswith("two_solutions"))


@pytest.mark.parametrize("backend", [b for b in ("sa", "tabu") if b in INSTALLED])
@pytest.mark.parametrize("use_x", [True, False], ids=["x", "no-x"])
def test_annealers_solve_cat15_with_a_fixed_seed(backend, use_x):
    puzzle = load("cat15.txt")
    r = solve_puzzle(puzzle, backend, use_x=use_x, seed=7)
    assert r.status is Status.SOLVED, r.message
    assert check_grid(puzzle, r.grid) == []
    assert r.energy == 0


# -- the shipped conformance kit, over every installed backend and a ladder rung ---------------

KIT_BACKENDS = INSTALLED + ["ladder:propagate"]


@pytest.mark.parametrize("check", list(conformance.CHECKS))
@pytest.mark.parametrize("backend", KIT_BACKENDS)
def test_conformance_kit(backend, check):
    conformance.run(check, backend)


def test_the_kit_catches_a_backend_that_breaks_the_contract():
    # A user's own backend that ignores its time limit and calls a solvable puzzle infeasible:
    # the kit must say so, not pass it.
    import time as _time

    from formulations.backends.base import Backend
    from formulations.results import RawAnswer

    def slow_and_wrong(nm, *, deadline, seed=None, unique=False):
        left = deadline.left()
        if left is not None and left <= conformance.TIME_LIMIT_S:
            _time.sleep(left + 1.5)  # overruns the short limits the kit sets
        return RawAnswer(Status.INFEASIBLE)

    bad = Backend("slow-and-wrong", "a broken backend", slow_and_wrong)
    report = conformance.check_backend(bad)
    assert "called a solvable puzzle infeasible" in report["answer_shape"]
    assert "allowed" in report["time_limit_held"]
    assert report["liar_caught"] is None  # verification still catches its lies
    assert "accepted" not in (report["bad_options_refused"] or "")


def test_the_kit_puzzles_are_what_they_claim():
    from formulations.lines import fixed_point, solve_lines
    from formulations.model import build_model

    assert solve_lines(conformance.impossible_12(), time_limit=30).status is Status.INFEASIBLE
    assert fixed_point(conformance.impossible_12()).unknown == 65
    assert solve_lines(conformance.impossible_tiny()).status is Status.INFEASIBLE
    assert len(solve_lines(conformance.two_solutions(), max_solutions=3).solutions) == 2
    assert build_model(conformance.fixed_by_clues(), use_x=False).model.num_variables == 0
    assert build_model(conformance.constant_contradiction(), use_x=False).model.num_variables == 0
