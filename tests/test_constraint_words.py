"""A sampler's message names the constraints its best read breaks in words (cells and lines
counted from 1), never as tuples such as ``('link', 0, 9)``: every label of every encoding's
model has words, and they name the right cell or line."""
from __future__ import annotations

import random
import re

import pytest

from formulations import puzzle_from_grid
from formulations.model import build_model
from formulations.model.words import constraint_words


def test_a_link_names_its_cell_counted_from_one():
    assert constraint_words(("link", 0, 9)) == \
        "the cell at row 1, column 10: its row and its column disagree"
    assert constraint_words(("link", "col", 2, 3)).startswith("the cell at row 3, column 4: its column")
    assert "(colour 2)" in constraint_words(("link", 1, 1, 2))


def test_line_constraints_name_their_line_and_blocks():
    assert constraint_words(("order", "row", 4, 0, 3)) == "row 5: block 2 does not come after block 1"
    assert constraint_words(("monotone", "col", 0, 2, 1)).startswith("column 1, block 3:")
    assert constraint_words(("clash", "col", 2, 1, 0, 0)) == "column 3: blocks 2 and 3 overlap"


@pytest.mark.parametrize("encoding", ["order", "onehot", "automaton"])
@pytest.mark.parametrize("use_x", [False, True])
def test_every_label_of_a_model_has_words(encoding, use_x):
    rng = random.Random(7)
    grid = [[rng.choice([0, 1, 2]) for _ in range(6)] for _ in range(5)]
    nm = build_model(puzzle_from_grid(grid), encoding=encoding, use_x=use_x)
    labels = [c.label for c in nm.model.constraints]
    assert labels
    for label in labels:
        words = constraint_words(label)
        assert words != " ".join(map(str, label)), label  # words of its own, not the fallback
        assert "(" not in words.split(":")[0].replace("(colour", "") and "'" not in words, label
        # the first number named is the label's first index plus one
        ints = [v for v in label if isinstance(v, int)]
        if ints and label[0] != "presolve":
            assert re.search(rf"\b{ints[0] + 1}\b", words), (label, words)


def test_the_command_line_names_what_a_sampler_breaks_in_words():
    pytest.importorskip("dwave.samplers")
    from helpers import PUZZLES, run_cli

    # no time limit: one batch of the default reads (a limit would also count the imports)
    p = run_cli(str(PUZZLES / "impossible3.txt"), "--backend", "sa", "--seed", "1")
    assert p.returncode == 1, p.stderr  # clues no grid meets: never solved
    violated = [line for line in p.stdout.splitlines() if line.startswith("violated: ")]
    assert violated, p.stdout
    assert "('" not in p.stdout
    assert re.match(r"violated: (the cell at row \d+, column \d+|row \d+|column \d+)", violated[0])
