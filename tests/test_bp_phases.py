"""Belief-propagation phases (:mod:`formulations.lines.phases`): the weighted line marginals
against enumeration, and the phases of a residual name every variable once."""
from __future__ import annotations

import itertools
import math
import random

import pytest

from formulations.lines import Engine, cdcl
from formulations.lines.phases import bp_phases, line_marginals
from test_linesolver import random_puzzle


def _completions(n: int, lens: list[int], known: list[int]):
    """Every line of length n with runs ``lens`` that agrees with ``known``, and its starts."""
    for cells in itertools.product((0, 1), repeat=n):
        if any(k != -1 and k != c for k, c in zip(known, cells)):
            continue
        runs, starts, i = [], [], 0
        while i < n:
            if cells[i]:
                j = i
                while j < n and cells[j]:
                    j += 1
                runs.append(j - i)
                starts.append(i)
                i = j
            else:
                i += 1
        if runs == lens:
            yield cells, starts


def test_line_marginals_match_enumeration_with_weights():
    rng = random.Random(3)
    checked = 0
    for _ in range(400):
        n = rng.randint(1, 9)
        lens = [rng.randint(1, 3) for _ in range(rng.randint(0, 3))]
        known = [rng.choice((-1, -1, -1, 0, 1)) for _ in range(n)]
        wb = [rng.uniform(0.05, 0.95) for _ in range(n)]
        got = line_marginals(n, lens, known, wb)
        total, black = 0.0, [0.0] * n
        starts = [[0.0] * n for _ in lens]
        for cells, st in _completions(n, lens, known):
            weight = math.prod(wb[i] if c else 1 - wb[i] for i, c in enumerate(cells))
            total += weight
            for i, c in enumerate(cells):
                black[i] += weight * c
            for j, p in enumerate(st):
                starts[j][p] += weight
        if total == 0:
            assert got is None, (n, lens, known)
            continue
        assert got is not None, (n, lens, known)
        checked += 1
        assert got[0] == pytest.approx([b / total for b in black], abs=1e-9)
        for j in range(len(lens)):
            assert got[1][j] == pytest.approx([s / total for s in starts[j]], abs=1e-9)
    assert checked > 100


def test_bp_phases_give_every_variable_of_the_residual_one_literal():
    rng = random.Random(11)
    for _ in range(10):
        p = random_puzzle(rng, rng.randint(4, 8), rng.randint(4, 8), density=0.5)
        eng = Engine(p)
        state = eng.initial_state()
        assert eng.propagate(state, eng.initial_lines())
        meta: dict = {}
        res = cdcl.residual_cnf(eng, state, "order", meta)
        assert res is not None
        lits = bp_phases(eng, state, meta)
        assert sorted(abs(x) for x in lits) == list(range(1, res.variables + 1))


def test_bp_phases_stop_at_the_deadline_and_skip_large_residuals(monkeypatch):
    import time

    from formulations.lines import phases
    from formulations.runtime.clock import OutOfTime

    p = random_puzzle(random.Random(5), 12, 12, density=0.5)
    eng = Engine(p)
    state = eng.initial_state()
    assert eng.propagate(state, eng.initial_lines())
    meta: dict = {}
    assert cdcl.residual_cnf(eng, state, "order", meta) is not None
    with pytest.raises(OutOfTime):
        bp_phases(eng, state, meta, end=time.perf_counter())
    with pytest.raises(OutOfTime):  # between two of the compiled rounds
        bp_phases(eng, state, meta, rounds=10**9, end=time.perf_counter() + 0.05)
    assert bp_phases(eng, state, meta)  # within the work cap: phases
    monkeypatch.setattr(phases, "MAX_WORK", 10)
    assert bp_phases(eng, state, meta) == []  # above it: none, as before phases


def test_bp_phases_refuse_a_meta_that_names_a_missing_block():
    p = random_puzzle(random.Random(7), 6, 6, density=0.5)
    eng = Engine(p)
    state = eng.initial_state()
    assert eng.propagate(state, eng.initial_lines())
    with pytest.raises(ValueError, match="block"):
        bp_phases(eng, state, {999: ("Y", 0, 50, 0)})
