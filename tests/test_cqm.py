"""The model as a dimod CQM: its constraints as labelled constraints (not penalties). A solution
satisfies every one; a broken grid violates exactly the ones the model's violations() names; the
file written by --export-cqm loads back with ConstrainedQuadraticModel.from_file."""
from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

dimod = pytest.importorskip("dimod")

from formulations import build_model, read_puzzle, solve_lines  # noqa: E402
from formulations.model import export_cqm, to_cqm  # noqa: E402
from formulations.puzzle import puzzle_from_grid  # noqa: E402

from helpers import ROOT  # noqa: E402

PUZZLES = ["cat15", "flag_colour6", "flower_colour8"]


def _sample(nm, values) -> dict:
    return dict(zip(nm.model.labels, (int(v) for v in values)))


def _violated(cqm, sample) -> set:
    return {label for label, v in cqm.iter_violations(sample, skip_satisfied=True)}


@pytest.mark.parametrize("use_x", [True, False], ids=["x", "no-x"])
@pytest.mark.parametrize("name", PUZZLES)
def test_constraints_are_the_models(name, use_x):
    nm = build_model(read_puzzle(ROOT / "puzzles" / f"{name}.txt"), use_x=use_x)
    cqm = to_cqm(nm)
    assert list(cqm.variables) == nm.model.labels
    assert all(cqm.vartype(v) is dimod.BINARY for v in cqm.variables)
    assert list(cqm.constraints) == [c.label for c in nm.model.constraints]
    assert cqm.objective.is_linear() and cqm.objective.num_variables == 0  # feasibility only
    for c in nm.model.constraints[::37]:
        got = cqm.constraints[c.label]
        assert got.sense.value == c.sense.value and got.rhs == c.rhs
        assert {v: got.lhs.get_linear(v) for v in got.lhs.variables} == \
            {nm.model.labels[v]: a for v, a in c.terms}


@pytest.mark.parametrize("use_x", [True, False], ids=["x", "no-x"])
@pytest.mark.parametrize("name", PUZZLES)
def test_a_solution_satisfies_every_constraint_and_broken_grids_the_named_ones(name, use_x):
    puzzle = read_puzzle(ROOT / "puzzles" / f"{name}.txt")
    nm = build_model(puzzle, use_x=use_x)
    cqm = to_cqm(nm)
    truth = nm.encode(solve_lines(puzzle).solutions[0])
    assert cqm.check_feasible(_sample(nm, truth)) and _violated(cqm, _sample(nm, truth)) == set()
    rng = random.Random(hash(name) % 1000 + use_x)
    for _trial in range(12):
        broken = truth.copy()
        for v in rng.sample(range(len(broken)), rng.randint(1, 6)):
            broken[v] ^= 1
        named = set(nm.model.violations(broken))
        assert named, "a flipped bit must break something"
        assert _violated(cqm, _sample(nm, broken)) == named
        assert not cqm.check_feasible(_sample(nm, broken))


def test_a_broken_grid_breaks_the_links_at_its_cells():
    puzzle = read_puzzle(ROOT / "puzzles" / "cat15.txt")
    nm = build_model(puzzle, use_x=True)
    grid = [list(r) for r in solve_lines(puzzle).solutions[0]]
    values = nm.encode(tuple(map(tuple, grid)))
    i, j = 4, 7
    x = nm.cell_vars[(i, j)][1]
    values[x] ^= 1  # the grid shows cell (4, 7) flipped; the lines' a-variables do not
    assert _violated(to_cqm(nm), _sample(nm, values)) == {("link", "row", i, j),
                                                          ("link", "col", i, j)}


def test_a_constrained_solver_finds_exactly_the_solutions():
    puzzle = puzzle_from_grid(((1, 0, 1), (0, 1, 1), (1, 1, 0)))
    nm = build_model(puzzle, use_x=False)
    assert nm.model.num_variables <= 14  # ExactCQMSolver enumerates every state
    feasible = dimod.ExactCQMSolver().sample_cqm(to_cqm(nm)).filter(lambda d: d.is_feasible)
    grids = {nm.decode(s) for s in feasible.samples()}
    assert grids == set(solve_lines(puzzle, max_solutions=10).solutions)


def test_export_loads_back(tmp_path):
    nm = build_model(read_puzzle(ROOT / "puzzles" / "flag_colour6.txt"))
    path = tmp_path / "flag.cqm"
    assert export_cqm(nm, path) == str(path)
    with open(path, "rb") as f:
        back = dimod.ConstrainedQuadraticModel.from_file(f)
    assert back.is_equal(to_cqm(nm))
    labels = [c.label for c in nm.model.constraints]
    assert len(back.constraints) == len(labels) and set(back.constraints) == set(labels)


def test_command_line_export(tmp_path):
    path = tmp_path / "cat.cqm"
    p = subprocess.run([sys.executable, "-m", "formulations.solve", "puzzles/cat15.txt",
                        "--export-cqm", str(path), "--no-x"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    nm = build_model(read_puzzle(ROOT / "puzzles" / "cat15.txt"), use_x=False)
    # the message names the model written: the variant asked for, its size
    assert p.stderr.strip() == (f"wrote {path} (model=no-x for backend cpsat, "
                                f"{nm.model.num_variables} variables)") and p.stdout == ""
    assert [f.name for f in tmp_path.iterdir()] == ["cat.cqm"]  # that file and nothing else
    with open(path, "rb") as f:
        back = dimod.ConstrainedQuadraticModel.from_file(f)
    assert len(back.constraints) == nm.model.num_constraints
    assert len(back.variables) == nm.model.num_variables
    truth = nm.encode(solve_lines(nm.puzzle).solutions[0])
    assert back.check_feasible(_sample(nm, truth))
    bad = subprocess.run([sys.executable, "-m", "formulations.solve", "puzzles/cat15.txt",
                          "--export-cqm", str(path), "--presolve"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "cannot be combined with --presolve" in bad.stderr


def test_values_are_plain_integers():
    nm = build_model(read_puzzle(ROOT / "puzzles" / "heart5.txt"))
    cqm = to_cqm(nm)
    rhs = np.array([cqm.constraints[c.label].rhs for c in nm.model.constraints])
    assert np.array_equal(rhs, [c.rhs for c in nm.model.constraints])
