"""Line patterns: each line's clue as an automaton, a redundant constraint CP-SAT can post.
The automaton accepts exactly the lines that show the clue; posting it changes no answer."""
from __future__ import annotations

from itertools import product

import pytest

from formulations.io import read_puzzle
from formulations.model import build_model
from formulations.model.patterns import clue_automaton, line_patterns
from formulations.puzzle import Puzzle, check_grid, line_runs
from formulations.results import Status
from formulations.solving import solve_puzzle

from helpers import PUZZLES


def accepts(lengths, word) -> bool:
    start, finals, trans = clue_automaton(lengths)
    step = {(q, v): r for q, v, r in trans}
    q = start
    for v in word:
        if (q, v) not in step:
            return False
        q = step[q, v]
    return q in finals


@pytest.mark.parametrize("n", range(0, 9))
def test_the_automaton_accepts_exactly_the_lines_that_show_their_clue(n):
    words = list(product((0, 1), repeat=n))
    clues = {tuple(b.length for b in line_runs(w)) for w in words}
    clues |= {(n + 1,), (1,) * (n // 2 + 1)}  # clues no line of n cells shows
    for lengths in clues:
        for w in words:
            shows = tuple(b.length for b in line_runs(w)) == lengths
            assert accepts(list(lengths), w) is shows, (lengths, w)


def test_every_line_gets_a_pattern_over_its_own_variables():
    nm = build_model(read_puzzle(PUZZLES / "cat15.txt"), use_x=False)
    pats = line_patterns(nm)
    assert len(pats) == 30 and all(len(p.cells) == 15 for p in pats)
    n = nm.model.num_variables
    assert all(v < n for p in pats for coefs, _ in p.cells for v in coefs)
    # colour puzzles and the other encodings carry none (the backend then posts nothing)
    assert line_patterns(build_model(read_puzzle(PUZZLES / "flower_colour8.txt"))) == []
    assert line_patterns(build_model(read_puzzle(PUZZLES / "cat15.txt"), encoding="onehot")) == []


@pytest.mark.parametrize("use_x", [False, True])
@pytest.mark.parametrize("path", sorted(PUZZLES.glob("*.txt")), ids=lambda p: p.stem)
def test_cpsat_with_line_patterns_gives_the_same_verdicts(path, use_x):
    pytest.importorskip("ortools")
    puzzle = read_puzzle(path)
    plain = solve_puzzle(puzzle, "cpsat", unique=True, use_x=use_x, time_limit=60)
    r = solve_puzzle(puzzle, "cpsat", unique=True, use_x=use_x, time_limit=60, line_patterns=True)
    assert r.status is plain.status and r.unique == plain.unique
    if r.status is Status.SOLVED:
        assert check_grid(puzzle, r.grid) == []
    posted = r.info.get("line_patterns")
    assert posted == (puzzle.height + puzzle.width if puzzle.is_black_and_white else 0)


def test_line_patterns_with_several_workers_and_exclusion():
    pytest.importorskip("ortools")
    two = Puzzle.from_clues([[1], [1]], [[1], [1]])
    r = solve_puzzle(two, "cpsat", unique=True, workers=2, line_patterns=True, time_limit=30)
    assert r.status is Status.SOLVED and r.unique is False and r.second_grid is not None
