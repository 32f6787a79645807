"""The compiled depth-first search (``Core.dfs``, ``solve_lines(compiled=True)``, issue 42,
fourth step) against the Python search (``compiled=False``), the reference: the same verdicts,
every grid accepted by the clue checker, the same solution sets whenever both explore the whole
tree; the deadline and Ctrl-C honoured inside the compiled loop."""
from __future__ import annotations

import random
import signal
import time

import pytest

from formulations.io import read_puzzle, read_puzzles
from formulations.lines import Engine, solve_lines
from formulations.lines import engine as _engine
from formulations.puzzle import check_grid
from formulations.results import Status
from helpers import CORPUS_DIR, PUZZLES
from test_linesolver import brute_solutions, check_search, random_puzzle, shuffled_rows

TOURNAMENT = CORPUS_DIR / "taai-tcga-icga-tournament" / "question"
needs_corpus = pytest.mark.skipif(not (TOURNAMENT / "taai2011.txt").exists(),
                                  reason="the tournament corpus (../shared/corpus) is absent")


@pytest.fixture(autouse=True, params=[(True, False), (False, False), (True, True)],
                ids=["incremental", "every-probe", "incremental-skip-implied"])
def incremental(request, monkeypatch):
    """Every test with the compiled search as shipped (incremental probing, both colours of
    every cell probed), without incremental probing, and with implied colours skipped."""
    from formulations.lines import search
    monkeypatch.setattr(search, "COMPILED_INCREMENTAL", request.param[0])
    monkeypatch.setattr(search, "COMPILED_SKIP_IMPLIED", request.param[1])
    return request.param


def both(p, **kw):
    """The Python and the compiled search on ``p``, every grid checked."""
    old = solve_lines(p, compiled=False, **kw)
    new = solve_lines(p, compiled=True, **kw)
    for r in (old, new):
        assert all(check_grid(p, g) == [] for g in r.solutions)
    return old, new


def agree(old, new) -> None:
    assert new.status is old.status
    assert new.exhausted == old.exhausted
    assert len(new.solutions) == len(old.solutions)
    if old.exhausted:  # both explored everything: the same solutions
        assert set(new.solutions) == set(old.solutions)


def test_the_compiled_search_runs_only_where_it_applies():
    bw = read_puzzle(PUZZLES / "house10.txt")
    colour = read_puzzle(PUZZLES / "flag_colour6.txt")
    assert solve_lines(bw, cdcl_after=None).compiled
    assert not solve_lines(bw, compiled=False).compiled
    assert not solve_lines(bw, guess="simpson").compiled  # another rule: the Python search
    assert not solve_lines(bw, backjump=True).compiled
    r = solve_lines(colour)
    assert not r.compiled and r.status is Status.SOLVED


@pytest.mark.parametrize("path", sorted(PUZZLES.glob("*.txt")), ids=lambda p: p.stem)
@pytest.mark.parametrize("max_solutions", [1, 2])
def test_the_repository_puzzles(path, max_solutions):
    p = read_puzzle(path)
    old, new = both(p, max_solutions=max_solutions, cdcl_after=None, time_limit=60)
    agree(old, new)


@pytest.mark.parametrize("max_solutions", [1, 2, 5])
def test_random_small_puzzles_against_brute_force(max_solutions):
    rng = random.Random(4200 + max_solutions)
    kinds = set()
    for t in range(150):
        p = random_puzzle(rng, rng.randint(2, 6), rng.randint(2, 5), density=rng.random())
        if t % 3 == 0:
            p = shuffled_rows(rng, p)  # usually contradictory
        sols = brute_solutions(p)
        old, new = both(p, max_solutions=max_solutions, cdcl_after=None)
        agree(old, new)
        assert set(new.solutions) <= sols
        if max_solutions == 2:
            check_search(p, sols, new)
        if new.exhausted:
            assert set(new.solutions) == sols
        else:
            assert len(new.solutions) == max_solutions <= len(sols)
        kinds.add(min(len(sols), 2))
    assert kinds == {0, 1, 2}


def test_random_larger_puzzles_with_several_solutions():
    # 12x12 to 16x16 random grids (many have several solutions): every verdict, and with every
    # solution wanted (the whole tree explored), the same solution sets
    rng = random.Random(99)
    for _ in range(12):
        n = rng.randint(12, 16)
        p = random_puzzle(rng, n, n, density=0.5)
        old, new = both(p, max_solutions=50, cdcl_after=None, time_limit=60)
        agree(old, new)
        assert new.status is Status.SOLVED


def test_the_cdcl_fallback_after_the_compiled_budget():
    # a budget of no probe at all: every undecided puzzle goes to the CDCL fallback from the
    # root, with the same verdicts
    rng = random.Random(5)
    went = 0
    for t in range(40):
        p = random_puzzle(rng, 8, 8, density=0.5)
        if t % 2:
            p = shuffled_rows(rng, p)
        ref = solve_lines(p, max_solutions=2, compiled=False, cdcl_after=None)
        for ms in (1, 2):
            r = solve_lines(p, max_solutions=ms, compiled_probes=0)
            assert all(check_grid(p, g) == [] for g in r.solutions)
            assert r.status is ref.status
            if ms == 2:
                assert len(r.solutions) == len(ref.solutions) and r.exhausted == ref.exhausted
            went += r.cdcl
    assert went > 0


def test_core_dfs_codes_and_counts(incremental):
    p = read_puzzle(PUZZLES / "two_solutions4.txt")
    eng = Engine(p)
    root = eng.initial_state()
    assert eng.propagate(root, eng.initial_lines())
    code, sols, nodes, probes, failed, agreed, depth = eng._core.dfs(
        root, 10, -1, -1, 0.0, _engine.CACHE_SIZE, 0, 3, 0.5, *incremental)
    assert code == 0 and len(sols) == 2  # explored: both solutions
    grids = {eng.grid(eng._core.unpack(s)) for s in sols}
    assert len(grids) == 2 and all(check_grid(p, g) == [] for g in grids)
    code, sols, *_ = eng._core.dfs(root, 1, -1, -1, 0.0, _engine.CACHE_SIZE, 300, 0, 0.5,
                                   *incremental)  # with restarts
    assert code == 1 and len(sols) == 1
    code, sols, nodes, probes, *_ = eng._core.dfs(root, 1, -1, 0, 0.0, _engine.CACHE_SIZE)
    assert code == 2 and not sols and probes == 0  # the probe budget
    with pytest.raises(ValueError):
        Engine(read_puzzle(PUZZLES / "flag_colour6.txt"))._core.dfs(
            [0] * 4, 1, -1, -1, 0.0, _engine.CACHE_SIZE)


@needs_corpus
@pytest.mark.parametrize("name,index", [("taai2011", 0), ("taai2011", 10), ("tcga2016", 20),
                                        ("icga2017", 30), ("taai2011", 830)])
def test_tournament_puzzles(name, index):
    p = list(read_puzzles(TOURNAMENT / f"{name}.txt"))[index]
    old, new = both(p, time_limit=60)
    assert old.status is new.status is Status.SOLVED
    assert new.compiled and not old.compiled


@needs_corpus
@pytest.mark.parametrize("a,b", [(3, 4), (5, 16), (8, 11)])
def test_tournament_puzzle_with_two_rows_swapped(a, b):
    # taai2011 #10 with two rows of as many black cells swapped: line solving leaves it open,
    # the Python search refutes it by probing, and so must the compiled search
    p = list(read_puzzles(TOURNAMENT / "taai2011.txt"))[10]
    rows = list(p.rows)
    rows[a], rows[b] = rows[b], rows[a]
    q = type(p)(tuple(rows), p.columns)
    eng = Engine(q)
    assert eng.propagate(eng.initial_state(), eng.initial_lines())
    old, new = both(q, cdcl_after=None, time_limit=60)
    assert old.status is new.status is Status.INFEASIBLE
    assert old.exhausted and new.exhausted


@needs_corpus
def test_the_deadline_inside_the_compiled_search():
    # taai2011 #590 takes the compiled search alone seconds: a 0.5 s limit ends it promptly
    p = list(read_puzzles(TOURNAMENT / "taai2011.txt"))[590]
    t = time.perf_counter()
    r = solve_lines(p, cdcl_after=None, time_limit=0.5)
    took = time.perf_counter() - t
    assert r.compiled and r.timed_out and r.status is Status.UNKNOWN
    assert took < 2.0


@needs_corpus
def test_ctrl_c_inside_the_compiled_search():
    p = list(read_puzzles(TOURNAMENT / "taai2011.txt"))[590]

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        t = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            solve_lines(p, cdcl_after=None, time_limit=60)
        assert time.perf_counter() - t < 2.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_an_easy_puzzle_does_not_import_the_sat_solver():
    """The compiled search sets its probe budget without importing python-sat (about 7 ms, more
    than an easy puzzle takes); the import comes with the fallback, when a search reaches it."""
    import subprocess
    import sys

    pytest.importorskip("pysat")
    code = ("import sys\nfrom formulations.io import read_puzzle\n"
            "from formulations.lines import solve_lines\n"
            f"r = solve_lines(read_puzzle({str(PUZZLES / 'cat15.txt')!r}), max_solutions=2)\n"
            "print(r.status.value, 'pysat.solvers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["solved", "False"]


def test_core_dfs_refuses_a_decided_state_with_a_cell_left_without_colour():
    """A complete state with one cell's both colours removed (row and column): no open cell,
    no complete grid. The node is dead (exhausted, no solution), not a probe of cell -1
    (AddressSanitizer found that read past the line specs)."""
    p = read_puzzle(PUZZLES / "house10.txt")
    eng = Engine(p)
    root = eng.initial_state()
    assert eng.propagate(root, eng.initial_lines())
    assert eng.unknown_count(root) == 0
    h, C = eng.h, eng.C
    for ci in range(C):  # cell (0, 0): no colour left, in its row and in its column
        root[0 * C + ci] &= ~1
        root[h * C + ci] &= ~1
    code, sols, *_ = eng._core.dfs(root, 1, -1, -1, 0.0, _engine.CACHE_SIZE)
    assert code == 0 and sols == []
