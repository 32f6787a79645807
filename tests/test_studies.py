"""Pieces of the studies in formulations.harness.studies that their commands rely on and no
other test reaches: the automaton yardstick's clue DFA accepts exactly the lines that fit the
clue, and its comparison agrees with the package on a small puzzle; the tournament table's
quantile is the nearest rank."""
from __future__ import annotations

import itertools

import pytest

from formulations.harness.studies import automaton_yardstick as yard
from formulations.harness.studies.tournament import quantile

from helpers import PUZZLES


def _runs(line: tuple[int, ...]) -> tuple[int, ...]:
    """The lengths of the line's runs of 1s: its clue."""
    return tuple(len(g) for g in "".join(map(str, line)).split("0") if g)


def _accepts(trans: list[tuple[int, int, int]], final: int, bits: tuple[int, ...]) -> bool:
    step = {(q, b): n for q, b, n in trans}
    q: int | None = 0
    for b in bits:
        q = step.get((q, b)) if q is not None else None
    return q == final


@pytest.mark.parametrize("length", range(0, 8))
def test_the_clue_automaton_accepts_exactly_the_lines_of_its_clue(length):
    lines = list(itertools.product((0, 1), repeat=length))
    clues = {_runs(line) for line in lines}
    assert len(clues) > 1 or length < 2   # several clues were tried
    for clue in clues:
        trans, final = yard.clue_dfa(list(clue))
        for line in lines:
            fits = _runs(line) == clue
            assert _accepts(trans, final, line) == fits, (clue, line)


def test_the_comparison_agrees_with_the_package_on_a_small_puzzle():
    pytest.importorskip("ortools")
    from formulations.io import read_puzzle

    puzzle = read_puzzle(PUZZLES / "heart5.txt")
    summ = yard.compare(puzzle, ["nox", "x_block"], timeout=30.0, repeats=2, single_above=20.0)
    assert list(summ) == [yard.AUTO, yard.AUTO_BLOCK, "ours_nox", "ours_x_block"]
    assert {d["status"] for d in summ.values()} == {"unique"}
    assert all(d["decided"] and d["runs"] == 2 for d in summ.values())
    assert summ["ours_nox"]["ratio"] > 0 and summ[yard.AUTO]["ratio"] is None
    assert not any("MISMATCH" in d["note"] for d in summ.values())


def test_the_tournament_quantile_is_the_nearest_rank():
    xs = [float(v) for v in range(1, 101)]
    assert quantile(xs, 0.99) == 99.0 and quantile(xs, 0.5) == 50.0 and quantile(xs, 1.0) == 100.0
    assert quantile([3.0], 0.99) == 3.0
