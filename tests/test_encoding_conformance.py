"""Every installed backend on every encoding other than the default, unchanged: the shipped
conformance kit and the same puzzles as tests/test_conformance.py, each answer decoded and
checked by the package. A heuristic may miss a solution; none may report a wrong grid."""
from __future__ import annotations

import importlib.util

import pytest

from formulations import backends
from formulations.io import read_puzzle
from formulations.model import ENCODINGS
from formulations.puzzle import check_grid, puzzle_from_grid
from formulations.results import ModelRefused, Status
from formulations.solving import solve_puzzle
from formulations.testing import conformance

from helpers import PUZZLES
INSTALLED = backends.available_backends()
if importlib.util.find_spec("openjij") is not None:
    INSTALLED = INSTALLED + ["dimod:openjij:SASampler"]
COMPLETE = [b.name for b in backends.all_backends() if b.supports_unique and b.name in INSTALLED]
# The backends that get a model: lines and the ladder work on the puzzle, so an encoding does
# not apply to them (solve_puzzle refuses one; the kit passes it to model backends only).
MODEL = [b for b in INSTALLED if backends.get_backend(b).uses_model]
# Backends that take only small models: they may refuse one (ModelRefused), never misreport.
SIZED = {"exact", "qbpp", "qbpp-exhaustive", "tabu"}
# Expected to find the tiny puzzles' solutions with a fixed seed on every encoding.
STRONG = {"cpsat", "lines", "tabu", "exact", "qbpp-exhaustive"}
ENCS = [e for e in ENCODINGS if e != "order"]


def limit(backend: str) -> float:
    """Ample time for the backends expected to succeed (qbpp-exhaustive enumerates 2^28 states
    in about 25 s), a few seconds for the heuristics that may stall."""
    return 60.0 if backend in STRONG else 5.0


def solve(puzzle, backend, **kwargs):
    try:
        return solve_puzzle(puzzle, backend, **kwargs)
    except ModelRefused:
        assert backend in SIZED, f"{backend} refused a model"
        pytest.skip(f"{backend} refuses this model (too large for it)")


# QUBO++'s EasySolver stalls at energy 2 on the kit's tiny puzzle in the automaton encoding
# (23 variables, every seed tried) and would spend the kit's whole 30 s per solve: a few seconds
# show the same.
SHORT = {"qbpp": 3.0}


@pytest.mark.parametrize("check", list(conformance.CHECKS))
@pytest.mark.parametrize("backend", INSTALLED)
@pytest.mark.parametrize("encoding", ENCS)
def test_conformance_kit(encoding, backend, check, monkeypatch):
    if backend in SHORT:
        monkeypatch.setattr(conformance, "SOLVE_LIMIT_S", SHORT[backend])
    conformance.run(check, backend, encoding=encoding)


@pytest.mark.parametrize("backend", MODEL)
@pytest.mark.parametrize("encoding", ENCS)
def test_tiny_puzzles_answers_are_verified(encoding, backend):
    for puzzle in (read_puzzle(PUZZLES / "heart5.txt"),
                   puzzle_from_grid(((2, 3, 0, 0), (0, 2, 3, 0), (0, 0, 2, 3)))):  # colours touch
        r = solve(puzzle, backend, use_x=False, seed=3, time_limit=limit(backend),
                  encoding=encoding)
        assert r.encoding == encoding
        if r.status is Status.SOLVED:
            assert check_grid(puzzle, r.grid) == []
        else:
            assert backend not in STRONG, f"{backend}: {r.status} {r.message}"
            assert r.status is Status.UNKNOWN and r.grid is None


@pytest.mark.parametrize("backend", MODEL)
@pytest.mark.parametrize("encoding", ENCS)
def test_impossible_puzzle_is_never_solved(encoding, backend):
    r = solve(read_puzzle(PUZZLES / "impossible3.txt"), backend, use_x=False, seed=1,
              time_limit=2, encoding=encoding)
    assert r.status is not Status.SOLVED and r.grid is None
    if backend in COMPLETE:
        assert r.status is Status.INFEASIBLE


@pytest.mark.parametrize("backend", [b for b in COMPLETE if b == "cpsat"])
@pytest.mark.parametrize("encoding", ENCS)
@pytest.mark.parametrize("path", sorted(PUZZLES.glob("*.txt")), ids=lambda p: p.stem)
def test_complete_backends_decide_every_project_puzzle(path, encoding, backend):
    puzzle = read_puzzle(path)
    r = solve_puzzle(puzzle, backend, unique=True, time_limit=60, encoding=encoding)
    if path.stem.startswith("impossible"):
        assert r.status is Status.INFEASIBLE
        return
    assert r.status is Status.SOLVED and check_grid(puzzle, r.grid) == [], r.message
    assert r.unique is (not path.stem.startswith("two_solutions"))


@pytest.mark.parametrize("backend", MODEL)
@pytest.mark.parametrize("encoding", ENCS)
def test_presolved_models_are_verified(encoding, backend):
    # flower_colour8 leaves 8 cells to the backend after line solving; heart5 none
    for name in ("flower_colour8", "heart5"):
        puzzle = read_puzzle(PUZZLES / f"{name}.txt")
        r = solve(puzzle, backend, use_x=False, presolve=True, seed=2,
                  time_limit=limit(backend), encoding=encoding)
        assert r.presolve is not None and r.encoding == encoding
        if r.status is Status.SOLVED:
            assert check_grid(puzzle, r.grid) == []
        else:
            assert backend not in STRONG, f"{backend}: {r.status} {r.message}"
