"""The order-encoding builder against seed 001 and against brute force on tiny puzzles."""
from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings, strategies as st

from formulations.model import build_model
from formulations.model import Model, Sense
from formulations.puzzle import Puzzle, check_grid, puzzle_from_grid

CAT_ROWS = [[], [1, 1], [2, 2], [3, 3], [13], [13], [2, 5, 2], [2, 5, 2], [13], [6, 6], [5, 5],
            [11], [9], [5], []]
CAT_COLS = [[], [10], [10], [3, 5], [2, 5], [10], [6, 3], [5, 3], [6, 3], [10], [2, 5], [3, 5],
            [10], [10], []]


def test_cat15_counts_match_seed_001():
    nm = build_model(Puzzle.from_clues(CAT_ROWS, CAT_COLS))
    assert nm.a_variables == 236
    assert nm.x_variables == 225
    assert nm.model.num_variables == 461
    fam = nm.model.families()
    assert fam["link"] == 2 * 225
    no_x = build_model(Puzzle.from_clues(CAT_ROWS, CAT_COLS), use_x=False)
    assert no_x.model.num_variables == 236
    assert no_x.x_variables == 0


def test_seed_001_line_example():
    # n = 10, clue (3, 1): e = (0, 4), d = 5; painting ..###...#. has s = (2, 8).
    nm = build_model(Puzzle.from_clues([[3, 1]], [[0]] * 2 + [[1]] * 3 + [[0]] * 3 + [[1], [0]]),
                     use_x=False)
    row = nm.rows[0]
    assert row.starts == (0, 4) and row.free == 5
    values = nm.encode(((0, 0, 1, 1, 1, 0, 0, 0, 1, 0),))
    assert [int(values[v]) for v in row.var[0]] == [0, 0, 1, 1, 1]
    assert [int(values[v]) for v in row.var[1]] == [0, 0, 0, 0, 1]
    assert nm.model.is_feasible(values)


def test_full_lines_and_empty_lines_are_constants():
    # A row with free space 0 and an empty row create no a-variables.
    nm = build_model(Puzzle.from_clues([[3], [0]], [[1], [1], [1]]), use_x=False)
    assert nm.model.num_variables == 3  # only the three columns' single block with d = 1
    assert all(len(v) == 0 for line in nm.rows for v in line.var)


def test_cat15_reference_solution_is_feasible():
    cat = Puzzle.from_clues(CAT_ROWS, CAT_COLS)
    from formulations.puzzle import grid_from_strings
    expected = grid_from_strings([
        "...............", ".#...........#.", ".##.........##.", ".###.......###.",
        ".#############.", ".#############.", ".##..#####..##.", ".##..#####..##.",
        ".#############.", ".######.######.", ".#####...#####.", "..###########..",
        "...#########...", ".....#####.....", "..............."])
    assert check_grid(cat, expected) == []
    for use_x in (True, False):
        nm = build_model(cat, use_x=use_x)
        values = nm.encode(expected)
        assert nm.model.violations(values) == []
        assert nm.decode(values) == expected


def _all_grids(h: int, w: int):
    for bits in itertools.product((0, 1), repeat=h * w):
        yield tuple(tuple(bits[i * w:(i + 1) * w]) for i in range(h))


def _feasible_assignments(nm) -> list[np.ndarray]:
    n = nm.model.num_variables
    out = []
    for bits in itertools.product((0, 1), repeat=n):
        x = np.array(bits, dtype=np.int8)
        if nm.model.is_feasible(x):
            out.append(x)
    return out


small_grids = st.integers(1, 3).flatmap(
    lambda h: st.integers(1, 3).flatmap(
        lambda w: st.lists(st.lists(st.integers(0, 1), min_size=w, max_size=w),
                           min_size=h, max_size=h)))


@settings(max_examples=60, deadline=None)
@given(small_grids, st.booleans())
def test_feasible_assignments_are_exactly_the_solutions(rows, use_x):
    """True grid's assignment satisfies every constraint; every other grid breaks one.

    Brute force over all assignments: the feasible ones decode one-to-one onto the grids that
    satisfy the clues.
    """
    grid = tuple(tuple(r) for r in rows)
    puzzle = puzzle_from_grid(grid)
    nm = build_model(puzzle, use_x=use_x)
    assert nm.model.violations(nm.encode(grid)) == []
    if nm.model.num_variables > 14:
        return
    solutions = {g for g in _all_grids(len(grid), len(grid[0])) if not check_grid(puzzle, g)}
    decoded = [nm.decode(x) for x in _feasible_assignments(nm)]
    assert len(decoded) == len(set(decoded))  # one assignment per grid
    assert set(decoded) == solutions


def test_impossible_puzzle_has_no_feasible_assignment():
    # Totals agree (2 = 2) but no grid fits: rows (1 1) on width 3 need columns 0 and 2.
    p = Puzzle.from_clues([[1, 1], [0]], [[0], [1], [1]])
    assert not any(not check_grid(p, g) for g in _all_grids(2, 3))
    for use_x in (True, False):
        assert _feasible_assignments(build_model(p, use_x=use_x)) == []


def test_model_violations_name_the_broken_constraints():
    m = Model()
    a, b = m.add_var("a"), m.add_var("b")
    m.add_constraint("order", ("ab",), a - b, Sense.LE, 0)
    m.add_constraint("link", ("eq",), a + b, Sense.EQ, 1)
    assert m.violations({"a": 1, "b": 0}) == [("ab",)]
    assert m.violations({"a": 1, "b": 1}) == [("eq",)]
    assert m.is_feasible({"a": 0, "b": 1})
    # A constant constraint that cannot hold stays in the model, always violated.
    assert m.add_constraint("link", ("const",), 1, Sense.EQ, 0) is not None
    assert ("const",) in m.violations({"a": 0, "b": 1})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=9), min_size=1, max_size=5))
def test_whole_line_terms_match_the_per_cell_formula(rows):
    """The builder's one-pass B_c(j) (position_terms) against seed 001's per-cell colour_terms."""
    grid = tuple(tuple(r + [0] * (9 - len(r))) for r in rows)
    nm = build_model(puzzle_from_grid(grid), use_x=False)
    for line in nm.rows + nm.cols:
        for colour in (1, 2, 3):
            for sign in (1, -1):
                got = line.position_terms(colour, sign)
                for j in range(line.length):
                    coefs, const = line.colour_terms(colour, j)
                    want = tuple(sorted((v, sign * a) for v, a in coefs.items() if a))
                    assert got[j] == (want, sign * const)
            assert line.reachable_cells(colour) == [line.reachable(colour, j) for j in range(line.length)]
