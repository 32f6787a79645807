"""``formulations.backends.sampling.BATCH_OBSERVERS``: every batch of a time-budget run is reported with the
constraints its best sample breaks (the web solver's live view), and nothing when no one listens."""
from __future__ import annotations


import pytest

pytest.importorskip("dimod")
pytest.importorskip("dwave.samplers")

from formulations.backends import sampling as anneal  # noqa: E402
from formulations import read_puzzle, solve_puzzle  # noqa: E402

from helpers import PUZZLES


def test_batches_are_observed_with_their_broken_constraints():
    seen = []
    anneal.BATCH_OBSERVERS.append(lambda batch, broken: seen.append((dict(batch), list(broken))))
    try:
        result = solve_puzzle(read_puzzle(PUZZLES / "cat15.txt"), "sa", time_limit=5, seed=1,
                              until_solved=True)
    finally:
        anneal.BATCH_OBSERVERS.clear()
    assert seen
    for batch, broken in seen:
        assert batch["reads"] >= 1
        assert (batch["best_energy"] == 0) == (broken == [])  # energy 0 exactly when valid
        # the batch's energies, each with the reads that reached it (the live chart's data)
        energies = batch["energies"]
        assert sum(c for _, c in energies) == batch["reads"]
        assert energies[0][0] == batch["best_energy"]
        assert [e for e, _ in energies] == sorted({e for e, _ in energies})
    best = min(b["best_energy"] for b, _ in seen)
    assert result.energy == best
    if result.solved:
        assert seen[-1][0]["best_energy"] == 0


def test_a_sampler_that_misses_reports_the_lines_it_breaks():
    seen = []
    anneal.BATCH_OBSERVERS.append(lambda batch, broken: seen.append(broken))
    try:
        result = solve_puzzle(read_puzzle(PUZZLES / "impossible3.txt"), "sa", time_limit=1,
                              seed=1, until_solved=True)
    finally:
        anneal.BATCH_OBSERVERS.clear()
    assert not result.solved and seen and all(seen)  # no sample can satisfy impossible clues
    assert all(isinstance(label, tuple) for broken in seen for label in broken)
