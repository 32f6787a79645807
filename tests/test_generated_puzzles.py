"""The release's generated puzzles (bench/generated/unique.json, sizes 35x35 and 40x40): each has
exactly one solution (the line solver's search exhausted with one; CP-SAT agrees), the stored
solution is it, the generator reproduces them from their seeds, and the release loads them
through its own source and lists them in bench/release_puzzles.txt."""
from __future__ import annotations

import json
import random

import pytest
from formulations.harness import release

from helpers import ROOT

from formulations.backends import available_backends
from formulations.generate import (Generated, make_unique, random_grid, unique_puzzle,
                                   write_janko)
from formulations.harness.study import load
from formulations.io import iter_janko
from formulations.lines.search import solve_lines
from formulations.puzzle import check_grid, puzzle_from_grid

GENERATED = ROOT / "bench" / "generated" / "unique.json"
SIZES = {"35x35": 20, "40x40": 20}


@pytest.fixture(scope="module")
def generated():
    return {key: (p, goal) for key, p, goal in iter_janko(GENERATED)}


def test_twenty_of_each_size(generated):
    sizes = {}
    for key, (p, _) in generated.items():
        size = f"{p.height}x{p.width}"
        assert key.endswith("_" + size)
        sizes[size] = sizes.get(size, 0) + 1
    assert sizes == SIZES


def test_every_generated_puzzle_is_unique_by_lines_and_its_stored_grid_solves_it(generated):
    for key, (p, goal) in generated.items():
        r = solve_lines(p, max_solutions=2, time_limit=120)
        assert r.exhausted and not r.timed_out, key
        assert len(r.solutions) == 1, key
        assert r.solutions[0] == goal and check_grid(p, goal) == [], key


def test_cpsat_proves_every_generated_puzzle_unique(generated):
    if "cpsat" not in available_backends():
        pytest.skip("cpsat (ortools) is not installed")
    from formulations.solving import solve_puzzle

    for key, (p, goal) in generated.items():
        r = solve_puzzle(p, "cpsat", unique=True, time_limit=120)
        assert r.solved and r.unique is True and r.grid == goal, key


def test_the_generator_reproduces_the_committed_puzzles(generated):
    data = json.loads(GENERATED.read_text())["data"]
    for key in ("g01_35x35", "g02_40x40"):
        size = key.rsplit("_", 1)[-1]
        h, w = map(int, size.split("x"))
        g = unique_puzzle(h, w, int(key[1:3]), density=data[key]["density"])
        assert g.key == key and g.seed == data[key]["seed"] and g.flips == data[key]["flips"]
        assert g.grid == generated[key][1] and g.puzzle.rows == generated[key][0].rows


def test_flipping_where_two_solutions_differ_ends_unique(tmp_path):
    # at density 0.5 small random grids are often ambiguous: the method flips until unique
    flipped = 0
    for i in range(6):
        rng = random.Random(f"test-{i}")
        grid, flips = make_unique(random_grid(8, 8, 0.5, rng), rng)
        flipped += flips
        p = puzzle_from_grid(grid)
        r = solve_lines(p, max_solutions=2)
        assert r.exhausted and r.solutions == (grid,)
        path = write_janko([Generated(f"t{i}_8x8", p, grid, "s", 0.5, flips)],
                           tmp_path / f"t{i}.json")
        key, back, goal = next(iter_janko(path))
        assert back.rows == p.rows and back.columns == p.columns and goal == grid
    assert flipped > 0  # the loop was exercised, not only grids unique from the start


def test_the_release_lists_and_loads_them(generated):
    sel = release.read_selection()
    for size, count in SIZES.items():
        assert sel[size] == sorted(k for k in generated if k.endswith(size))
        assert len(sel[size]) == count
    # the janko sizes are untouched: 100 per size, 40x30 all five
    assert [len(sel[z]) for z in ("10x10", "15x15", "20x20", "25x25", "30x30", "40x30")] == \
        [100] * 5 + [5]
    for key in (sel["35x35"][0], sel["40x40"][-1]):
        planner = release.Planner({key.rsplit("_", 1)[-1]: [key]}, ["sa", "cpsat"])
        task = planner.task(key, "sa", 100, 0)
        assert task.source == f"repo:bench/generated/unique.json::{key}"
        assert task.key == f"{key}|sa|100|0"
        p = load(task.source)
        assert p.rows == generated[key][0].rows and p.columns == generated[key][0].columns
        assert planner.task(key, "cpsat", 0, 0).source == task.source
    # janko instances keep their corpus source (and so their record keys)
    assert release.source_of("221_10x10") == \
        "corpus:puzzlekit-dataset-janko/Nonogram_dataset.json::221_10x10"
