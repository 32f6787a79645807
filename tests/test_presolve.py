"""Presolve: smaller models, the same solutions, and answers without the backend when decided."""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from formulations.model import build_model

from formulations.model.presolve import presolve, presolve_puzzle
from formulations.puzzle import Puzzle, check_grid, line_runs, puzzle_from_grid
from formulations.results import Status
from formulations.solving import solve_puzzle

CAT_ROWS = [[], [1, 1], [2, 2], [3, 3], [13], [13], [2, 5, 2], [2, 5, 2], [13], [6, 6], [5, 5],
            [11], [9], [5], []]
CAT_COLS = [[], [10], [10], [3, 5], [2, 5], [10], [6, 3], [5, 3], [6, 3], [10], [2, 5], [3, 5],
            [10], [10], []]


def brute_solutions(puzzle: Puzzle) -> set:
    colours = (0,) + (puzzle.colours or (1,))
    rows = [[r for r in itertools.product(colours, repeat=puzzle.width) if line_runs(r) == clue]
            for clue in puzzle.rows]
    return {g for g in itertools.product(*rows) if not check_grid(puzzle, g)}


def model_solutions(nm) -> set | None:
    """Grids of every feasible assignment of ``nm.model`` (by enumeration; None if too many)."""
    n = nm.model.num_variables
    if n > 14:
        return None
    grids = set()
    for bits in itertools.product((0, 1), repeat=n):
        x = np.array(bits, dtype=np.int8)
        if nm.model.is_feasible(x):
            grids.add(nm.decode(x))
    return grids


def cpsat_solutions(nm) -> set:
    """Grids of every feasible assignment of ``nm.model``, enumerated by CP-SAT."""
    pytest.importorskip("ortools")
    from ortools.sat.python import cp_model

    from formulations.backends.cpsat import to_cpsat

    cp = to_cpsat(nm.model)
    grids: set = set()

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            grids.add(nm.decode(np.array(self.response_proto.solution, dtype=np.int8)))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.Solve(cp, Collect())
    return grids


def random_puzzles(seed: int, count: int, ncol: int = 1):
    rng = random.Random(seed)
    for t in range(count):
        h, w = rng.randint(2, 4), rng.randint(2, 4)
        grid = tuple(tuple(rng.randint(1, ncol) if rng.random() < 0.5 else 0 for _ in range(w))
                     for _ in range(h))
        p = puzzle_from_grid(grid)
        if t % 3 == 0:  # same totals, usually contradictory
            rows = list(p.rows)
            rng.shuffle(rows)
            p = Puzzle(tuple(rows), p.columns)
        yield p


@pytest.mark.parametrize("use_x,after", [(True, 16), (False, 8)])
def test_cat15_variable_counts(use_x, after):
    nm = build_model(Puzzle.from_clues(CAT_ROWS, CAT_COLS), use_x=use_x)
    pre = presolve(nm)
    assert pre.status is Status.UNKNOWN
    assert pre.variables_before == nm.model.num_variables
    assert pre.variables_after == after
    # every kept constraint still mentions a free variable; the labels are the original ones
    assert all(c.terms for c in pre.model.constraints)
    assert set(pre.model.labels) <= set(nm.model.labels)
    # the free part alone decides the grid: its solutions are exactly the cat
    sols = model_solutions(pre)
    if sols is None:
        sols = cpsat_solutions(pre)
    assert len(sols) == 1
    (cat,) = sols
    assert not check_grid(nm.puzzle, cat)
    assert pre.decode(pre.encode(cat)) == cat
    assert nm.model.is_feasible(pre.expand(pre.encode(cat)))


@pytest.mark.parametrize("use_x", [True, False])
@pytest.mark.parametrize("ncol", [1, 2])
def test_presolve_keeps_the_solution_set(use_x, ncol):
    kinds, statuses = set(), set()
    for p in random_puzzles(20 + ncol, 45, ncol):
        want = brute_solutions(p)
        kinds.add(min(len(want), 2))
        nm = build_model(p, use_x=use_x)
        pre = presolve(nm)
        statuses.add(pre.status)
        assert pre.variables_after <= pre.variables_before
        if pre.infeasible:
            assert not want
            continue
        if pre.solved:
            assert want == {pre.grid}
            assert pre.variables_after == 0
            continue
        for g in want:  # no solution lost: each encodes to a feasible reduced assignment
            x = pre.encode(g)
            assert pre.model.is_feasible(x) and pre.decode(x) == g
        got = model_solutions(pre)
        if got is None:
            got = cpsat_solutions(pre)
        assert got == want  # and none gained
    assert kinds == {0, 1, 2}
    assert Status.UNKNOWN in statuses and Status.SOLVED in statuses


@pytest.mark.parametrize("use_x", [True, False])
def test_presolve_with_and_without_agree_through_cpsat(use_x):
    pytest.importorskip("ortools")
    for p in random_puzzles(5, 30):
        a = solve_puzzle(p, "cpsat", use_x=use_x, unique=True)
        b = solve_puzzle(p, "cpsat", use_x=use_x, unique=True, presolve=True)
        assert a.status is b.status
        assert a.unique == b.unique
        assert b.presolve.variables_before == a.variables
        assert b.presolve.variables_after <= a.variables
        if b.solved:
            assert not check_grid(p, b.grid)


def test_fully_decided_puzzle_skips_the_backend():
    pytest.importorskip("ortools")
    grid = ((1, 1, 1), (1, 0, 0), (1, 1, 0))
    res = solve_puzzle(puzzle_from_grid(grid), "cpsat", presolve=True, unique=True)
    assert res.status is Status.SOLVED and res.grid == grid and res.unique is True
    assert res.presolve.solved is True
    assert res.presolve.variables_after == 0 and res.presolve.variables_before > 0
    assert "cpsat_status" not in res.info  # the backend never ran
    d = res.to_dict()
    assert d["variables_before"] > 0 and d["variables_after"] == 0


def test_contradiction_found_by_presolve_is_infeasible_without_backend():
    pytest.importorskip("ortools")
    bad = Puzzle.from_clues([[2], []], [[2], []])
    res = solve_puzzle(bad, "cpsat", presolve=True)
    assert res.status is Status.INFEASIBLE
    assert res.presolve.status is Status.INFEASIBLE and "cpsat_status" not in res.info


def test_presolve_through_the_pipeline_hands_over_the_reduced_model():
    pytest.importorskip("ortools")
    cat = Puzzle.from_clues(CAT_ROWS, CAT_COLS)
    res = solve_puzzle(cat, "cpsat", presolve=True, unique=True, use_x=False)
    assert res.status is Status.SOLVED and res.unique is True and not check_grid(cat, res.grid)
    assert res.presolve.variables_after == 8 and res.variables == 8
    assert res.presolve.variables_before == build_model(cat, use_x=False).model.num_variables
    # lines line-solves first anyway: presolve is accepted and changes nothing
    lines = solve_puzzle(cat, "lines", presolve=True, unique=True)
    assert lines.status is Status.SOLVED and lines.unique is True and lines.grid == res.grid


def _same_model(a, b) -> None:
    assert a.status is b.status
    assert (a.variables_before, a.variables_after) == (b.variables_before, b.variables_after)
    assert a.model.labels == b.model.labels
    assert [tuple(c) for c in a.model.constraints] == [tuple(c) for c in b.model.constraints]
    assert a.cell_vars == b.cell_vars
    assert a.blocking_variables() == b.blocking_variables()
    assert (a.a_variables, a.x_variables) == (b.a_variables, b.x_variables)


@pytest.mark.parametrize("use_x", [True, False])
@pytest.mark.parametrize("ncol", [1, 2, 3])
def test_presolve_before_the_model_is_presolve_after_it(use_x, ncol):
    # the reduced model built from the puzzle's fixed point is the one substitution into the
    # full model gives: same variables, constraints (labels, terms, right-hand sides, order),
    # cell variables, decoding and expansion
    rng = random.Random(40 + ncol)
    statuses = set()
    for p in random_puzzles(30 + ncol, 60, ncol):
        a = presolve(build_model(p, use_x=use_x))
        b = presolve_puzzle(p, use_x=use_x)
        _same_model(a, b)
        statuses.add(b.status)
        if b.solved:
            assert a.grid == b.grid and b.model.num_variables == 0
        if b.status is Status.UNKNOWN:
            for _ in range(4):
                x = np.array([rng.randint(0, 1) for _ in range(b.model.num_variables)],
                             dtype=np.int8)
                assert a.decode(x) == b.decode(x)
                assert (a.expand(x) == b.expand(x)).all()
            for g in brute_solutions(p):
                assert (a.encode(g) == b.encode(g)).all() and b.decode(b.encode(g)) == g
    assert statuses == {Status.UNKNOWN, Status.SOLVED, Status.INFEASIBLE}


def test_presolve_before_the_model_on_larger_puzzles():
    rng = random.Random(8)
    for _ in range(6):
        h, w = rng.randint(8, 14), rng.randint(8, 14)
        grid = tuple(tuple(int(rng.random() < 0.5) for _ in range(w)) for _ in range(h))
        p = puzzle_from_grid(grid)
        for use_x in (True, False):
            _same_model(presolve(build_model(p, use_x=use_x)), presolve_puzzle(p, use_x=use_x))


def test_line_solvable_puzzle_never_builds_a_model(monkeypatch):
    # a cauldron-like puzzle that line solving decides: with presolve no model is built for any
    # backend (the full one would have ~10^4 variables), the answer is verified all the same
    import formulations.model.order as order
    import formulations.solving as solving

    rng = random.Random(2)
    while True:
        grid = tuple(tuple(int(rng.random() < 0.7) for _ in range(60)) for _ in range(60))
        p = puzzle_from_grid(grid)
        if presolve_puzzle(p).solved:
            break

    def no_build(*args, **kwargs):
        raise AssertionError("a full model was built")

    monkeypatch.setattr(solving, "build_model", no_build)
    monkeypatch.setattr(order, "build_model", no_build)
    pre = presolve_puzzle(p)
    assert pre.model.num_variables == 0 and pre.model.num_constraints == 0
    assert pre.variables_before > 10_000
    from formulations.backends import available_backends

    for name in available_backends():
        res = solve_puzzle(p, name, presolve=True, unique=name in ("cpsat", "lines"))
        assert res.status is Status.SOLVED and res.grid == grid, name
        if name != "lines":
            assert res.presolve.solved and res.presolve.variables_after == 0


def test_reduced_model_is_checked_against_the_memory_cap():
    from formulations.model.size import ModelTooLarge
    from formulations.results import ModelRefused

    p = Puzzle.from_clues(CAT_ROWS, CAT_COLS)
    with pytest.raises(ModelTooLarge):
        presolve_puzzle(p, max_model_mb=1e-6)
    pytest.importorskip("ortools")
    with pytest.raises(ModelRefused):
        solve_puzzle(p, "cpsat", presolve=True, max_model_mb=1e-6)
    assert solve_puzzle(p, "cpsat", presolve=True, max_model_mb=1.0).status is Status.SOLVED


def test_blocking_variables_are_free_and_decide_the_grid():
    nm = build_model(Puzzle.from_clues([[1], [1]], [[1], [1]]))  # two solutions, nothing decided
    pre = presolve(nm)
    assert pre.status is Status.UNKNOWN
    block = pre.blocking_variables()
    assert block and all(0 <= v < pre.model.num_variables for v in block)
    sols = model_solutions(pre)
    assert len(sols) == 2
    # the blocking variables alone tell the two solutions apart
    keys = {tuple(pre.encode(g)[block]) for g in sols}
    assert len(keys) == 2


@pytest.mark.parametrize("use_x", [True, False])
@pytest.mark.parametrize("ncol", [1, 2])
def test_reduced_model_from_a_narrower_state_keeps_exactly_its_solutions(use_x, ncol):
    # the model of what a state narrower than line solving's leaves open (one open cell fixed to
    # a solution's colour, then propagated) has exactly the solutions with that colour there
    from formulations.lines.engine import Engine
    from formulations.model.presolve import reduced_from_state

    rng = random.Random(50 + ncol)
    checked = models = 0
    for _ in range(100):
        h, w = rng.randint(4, 5), rng.randint(4, 5)
        p = puzzle_from_grid(tuple(tuple(rng.randint(1, ncol) if rng.random() < 0.5 else 0
                                         for _ in range(w)) for _ in range(h)))
        want = brute_solutions(p)
        if not want:
            continue
        eng = Engine(p)
        state = eng.initial_state()
        assert eng.propagate(state, eng.initial_lines())
        open_cells = [(i, j) for i in range(p.height) for j in range(p.width)
                      if eng.unknown_mask(state, i) >> j & 1]
        if not open_cells:
            continue
        g = min(want)
        i, j = open_cells[0]
        ci = eng.cindex[g[i][j]]
        eng.assign(state, i, j, ci)
        assert eng.propagate(state, [i, p.height + j])
        red = reduced_from_state(p, eng, state, use_x=use_x)
        keep = {s for s in want if s[i][j] == g[i][j]}
        checked += 1
        if red.solved:
            assert keep == {red.grid}
            continue
        got = model_solutions(red)
        if got is None:
            got = cpsat_solutions(red)
        assert got == keep
        models += 1
    assert checked >= 10 and models >= 3
