"""The line solver's guess rules read the clock while they score the open cells: on a
1000x1000 puzzle of ones that scoring is a million cells, and a time limit of 5 s ended at
6.6-12 s on a loaded machine. The clock is replaced by a counter (one tick a read), so the test
says where the clock is read, not how fast anything runs."""
from __future__ import annotations

import itertools

import pytest

from formulations.runtime.clock import Deadline, OutOfTime
from formulations.lines import search
from formulations.puzzle import Puzzle

N = 200  # 40,000 open cells: no line logic decides any of them


@pytest.fixture()
def ticking(monkeypatch):
    ticks = itertools.count()

    class Clock:
        @staticmethod
        def perf_counter() -> float:
            return float(next(ticks))

    monkeypatch.setattr(search, "time", Clock)
    return ticks


def _root():
    p = Puzzle.from_clues([[1]] * N, [[1]] * N)
    eng = search.Engine(p)
    root = eng.initial_state()
    assert eng.propagate(root, eng.initial_lines())
    assert eng.unknown_count(root) == N * N
    return eng, root


@pytest.mark.parametrize("rule, reads_before", [
    ("_by_probability", 2 * N),  # one read per line's placement counts, then the cells
    ("_guess_tight", 0),
    ("_guess_simpson", 0),
])
def test_scoring_the_open_cells_stops_at_the_deadline(ticking, rule, reads_before):
    eng, root = _root()
    s = search._Search(eng, 1, Deadline(None), "hybrid", True, False, False)
    s.end = reads_before - 0.5  # every read before the scoring is in time, the next is late
    method = getattr(s, rule)
    with pytest.raises(OutOfTime, match="scoring the open cells"):
        method(root, 6) if rule == "_by_probability" else method(root)


def test_without_a_deadline_the_scoring_ranks_the_cells():
    eng, root = _root()
    s = search._Search(eng, 1, Deadline(None), "hybrid", True, False, False)
    ranked = s._by_probability(root, 6)
    assert len(ranked) == 6 and all(0 <= i < N and 0 <= j < N for i, j, _ in ranked)
