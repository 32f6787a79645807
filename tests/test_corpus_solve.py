"""A sample of the real corpus solves with cpsat and the checker accepts every answer.

Skipped when ../shared/corpus is absent (it is never copied into the repo).
"""
from __future__ import annotations

import random

import pytest

from formulations.puzzle import check_grid
from formulations.io import iter_janko, read_puzzle_with_goal
from formulations.results import Status
from formulations.solving import solve_puzzle

pytest.importorskip("ortools")

SURVEY = ["webpbn-00001", "webpbn-00006", "webpbn-00016", "webpbn-00021", "webpbn-00023",
          "webpbn-00027", "webpbn-00529", "webpbn-02413", "webpbn-02556"]


@pytest.mark.parametrize("name", SURVEY)
def test_survey_sample_solves_and_checks(corpus_dir, name):
    puzzle, goal = read_puzzle_with_goal(corpus_dir / "webpbn-survey-non" / f"{name}.non")
    r = solve_puzzle(puzzle, "cpsat", unique=True, time_limit=60)
    assert r.status is Status.SOLVED
    assert check_grid(puzzle, r.grid) == []
    assert r.unique is not None
    if goal is not None and r.unique:
        assert r.grid == goal


def test_janko_sample_matches_published_solutions(corpus_dir):
    entries = [e for e in iter_janko(corpus_dir / "puzzlekit-dataset-janko" / "Nonogram_dataset.json")
               if e[2] is not None]
    rng = random.Random(2026)
    for key, puzzle, solution in rng.sample(entries, 12):
        r = solve_puzzle(puzzle, "cpsat", use_x=False, unique=True, time_limit=60)
        assert r.status is Status.SOLVED, key
        assert check_grid(puzzle, r.grid) == [], key
        if r.unique:
            assert r.grid == solution, key


def test_nin_and_xml_samples_solve(corpus_dir):
    from formulations.io import read_puzzle
    for rel in ("jacop-nonogramRepository/data000.nin", "jacop-nonogramRepository/data010.nin",
                "wolter-survey-xml/webpbn-00803.xml"):
        path = corpus_dir / rel
        assert path.exists(), f"corpus file {rel} is gone"
        puzzle = read_puzzle(path)
        r = solve_puzzle(puzzle, "cpsat", time_limit=60)
        assert r.status is Status.SOLVED, rel
        assert check_grid(puzzle, r.grid) == []
