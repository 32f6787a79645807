"""The CDCL fallback's input built by the compiled core (``Core.order_cnf``,
``Core.probe_clauses``) is the Python reference's, clause for clause and in the same order (so the
solver sees the same formula and the fallback's search is unchanged), on line-solved states,
states narrowed by hand (some contradictory), lines of more than 64 cells and lines without
blocks; and the probe loop stops on Ctrl-C and at the deadline. That the compiled CNF's models are
exactly a puzzle's solutions is checked where ``residual_cnf`` and ``probe_clauses`` always were
(tests/test_cdcl_fallback.py), which now run the compiled path."""
from __future__ import annotations

import random

import pytest

from formulations.lines import Engine, cdcl
from formulations.lines.engine import CACHE_SIZE
from formulations.puzzle import Puzzle
from test_linesolver import random_puzzle, shuffled_rows


def _states(rng, p, extra=3):
    """The state line solving leaves and ``extra`` states narrowed from it by random
    assignments, each also propagated (a propagation that contradicts is skipped)."""
    eng = Engine(p)
    root = eng.initial_state()
    eng.propagate(root, eng.initial_lines())  # contradictory or not: both are inputs
    out = [root]
    for _ in range(extra):
        st = list(root)
        for _ in range(rng.randint(1, 2 + p.height * p.width // 10)):
            eng.assign(st, rng.randrange(p.height), rng.randrange(p.width), rng.randrange(2))
        out.append(st)
        settled = list(st)
        if eng.propagate(settled, None):
            out.append(settled)
    return eng, out


def _same_input(eng, state) -> str:
    """Asserts that compiled and Python input agree on ``state``; "none" when the encoding
    finds it contradictory, else "cnf"."""
    m_py: dict = {}
    m_c: dict = {}
    m_w: dict = {}
    ref = cdcl._order_cnf_py(eng, state, m_py)
    got = eng._core.order_cnf(list(state), m_c)
    wrapped = cdcl._order_cnf(eng, state, m_w)  # what residual_cnf calls
    if ref is None:
        assert got is None and wrapped is None
    else:
        assert got is not None and wrapped is not None
        assert got[0] == ref.clauses and got[1] == ref.variables
        assert (wrapped.clauses, wrapped.variables) == (ref.clauses, ref.variables)
        # the belief-propagation phases read the variables' meaning in its order
        assert list(m_c.items()) == list(m_py.items()) == list(m_w.items())
        # and without the meaning of the variables asked for
        assert eng._core.order_cnf(list(state), None) == (ref.clauses, ref.variables)
    for limit, running in ((2_000_000, False), (200_000, True), (500, False), (40, True)):
        want = cdcl._probe_clauses_py(eng, state, limit, running)
        assert eng._core.probe_clauses(list(state), limit, running, None, CACHE_SIZE) == want
        assert cdcl.probe_clauses(eng, state, limit, running) == want
    return "none" if ref is None else "cnf"


def test_compiled_input_is_the_python_reference_on_random_puzzles():
    rng = random.Random(23)
    kinds = set()
    for t in range(40):
        p = random_puzzle(rng, rng.randint(3, 14), rng.randint(3, 14),
                          density=rng.choice([0.35, 0.5, 0.65]))
        if t % 5 == 0:
            p = shuffled_rows(rng, p)
        eng, states = _states(rng, p)
        for st in states:
            kinds.add(_same_input(eng, st))
    assert kinds == {"none", "cnf"}


def test_compiled_input_on_lines_of_more_than_64_cells_and_empty_lines():
    # line solving decides most of a random long-lined puzzle, so the states here also include
    # the state before any line solving (every cell open): cells, starts and cover variables
    # past the first 64-bit word, whose words the compiled versions index
    rng = random.Random(5)
    far_meta = far_open = 0
    for h, w in ((3, 70), (66, 4), (2, 130), (5, 65)):
        for density in (0.45, 0.2):
            p = random_puzzle(rng, h, w, density=density)
            eng, states = _states(rng, p, extra=2)
            for st in states + [eng.initial_state()]:
                _same_input(eng, st)
                meta: dict = {}
                if eng._core.order_cnf(list(st), meta) is not None:
                    far_meta += any(v[3] >= 64 for v in meta.values())
                far_open += any((st[2 * i] & st[2 * i + 1]) >> 64 for i in range(h)) or any(
                    (st[2 * (h + j)] & st[2 * (h + j) + 1]) >> 64 for j in range(w))
        blank = Puzzle(tuple(() for _ in range(h)), tuple(() for _ in range(w)))
        eng, states = _states(rng, blank, extra=2)  # no line has a block
        for st in states + [eng.initial_state()]:
            _same_input(eng, st)
    assert far_meta and far_open


def test_the_compiled_probes_stop_on_ctrl_c():
    import os
    import signal

    class Interrupting:
        """A clock that sends this process SIGINT at its third look: the loop must then
        raise KeyboardInterrupt within a few cells (it checks signals every 16)."""
        looks = 0

        def check(self, stage):
            self.looks += 1
            if self.looks == 3:
                os.kill(os.getpid(), signal.SIGINT)

    rng = random.Random(3)
    p = random_puzzle(rng, 40, 40, density=0.5)
    eng = Engine(p)
    state = eng.initial_state()
    assert eng.propagate(state, eng.initial_lines())
    clock = Interrupting()
    # Python's own handler, whatever the runner installed (a pytest-xdist worker ignores SIGINT)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            eng._core.probe_clauses(list(state), 10**9, False, clock, CACHE_SIZE)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert clock.looks <= 4
    # the core is usable afterwards (its packed-state pointer was reset)
    again = list(state)
    assert eng.propagate(again, None)


def test_the_compiled_probes_stop_at_the_deadline():
    from formulations.runtime.clock import Deadline, OutOfTime

    rng = random.Random(3)
    p = random_puzzle(rng, 40, 40, density=0.5)
    eng = Engine(p)
    state = eng.initial_state()
    assert eng.propagate(state, eng.initial_lines())
    with pytest.raises(OutOfTime):
        eng._core.probe_clauses(list(state), 10**9, False, Deadline.of(1e-9), CACHE_SIZE)
