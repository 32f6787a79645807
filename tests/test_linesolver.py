"""Line solver, fixed point, probing/search and the ``lines`` backend against brute force."""
from __future__ import annotations

import itertools
import random

import pytest

from formulations.lines import UNKNOWN, Engine, fixed_point, line_starts, settle_line, solve_lines
from formulations.lines.search import GUESS_RULES
from formulations.puzzle import Block, Puzzle, check_grid, line_runs, make_clue, puzzle_from_grid
from formulations.results import Status
from formulations.solving import solve_puzzle

from helpers import ROOT
import functools
CAT_ROWS = [[], [1, 1], [2, 2], [3, 3], [13], [13], [2, 5, 2], [2, 5, 2], [13], [6, 6], [5, 5],
            [11], [9], [5], []]
CAT_COLS = [[], [10], [10], [3, 5], [2, 5], [10], [6, 3], [5, 3], [6, 3], [10], [2, 5], [3, 5],
            [10], [10], []]
BW = 0b11  # white or black


# -- brute force references ------------------------------------------------------------------------

def brute_line(clue, cells, colours):
    """Union of every line that shows ``clue`` and agrees with ``cells`` (None: no such line)."""
    out, starts, ok = [0] * len(cells), [set() for _ in clue], False
    for line in itertools.product(colours, repeat=len(cells)):
        if any(not cells[j] >> v & 1 for j, v in enumerate(line)) or line_runs(line) != clue:
            continue
        ok = True
        for j, v in enumerate(line):
            out[j] |= 1 << v
        k = 0
        for j, v in enumerate(line):
            if v and (j == 0 or line[j - 1] != v):
                starts[k].add(j)
                k += 1
    return (tuple(out), [sorted(s) for s in starts]) if ok else (None, None)


def brute_solutions(puzzle: Puzzle) -> set:
    """All solution grids, by combining every row that fits its clue."""
    colours = (0,) + (puzzle.colours or (1,))
    rows = [[r for r in itertools.product(colours, repeat=puzzle.width) if line_runs(r) == clue]
            for clue in puzzle.rows]
    return {g for g in itertools.product(*rows) if not check_grid(puzzle, g)}


def random_line(rng, n, ncol):
    colours = list(range(ncol + 1))
    sol = [rng.choice(colours[1:]) if rng.random() < 0.55 else 0 for _ in range(n)]
    clue = line_runs(sol) if rng.random() < 0.8 else line_runs([rng.choice(colours) for _ in range(n)])
    full = (1 << (ncol + 1)) - 1
    cells = []
    for _ in range(n):
        r = rng.random()
        cells.append(full if r < 0.55 else (1 << rng.choice(colours)) | (1 << rng.choice(colours)))
    return clue, cells, colours


def random_puzzle(rng, h, w, density=0.5, ncol=1) -> Puzzle:
    grid = tuple(tuple(rng.randint(1, ncol) if rng.random() < density else 0 for _ in range(w))
                 for _ in range(h))
    return puzzle_from_grid(grid)


def shuffled_rows(rng, p: Puzzle) -> Puzzle:
    """Same totals (so it validates) but usually contradictory."""
    rows = list(p.rows)
    rng.shuffle(rows)
    return Puzzle(tuple(rows), p.columns)


# -- one line ---------------------------------------------------------------------------------------

def test_overlap_examples_from_the_seeds():
    # seed 000: clue [8] on 10 cells forces columns 2..7; seed 003: [3] on 5 cells forces cell 2
    got = settle_line(make_clue([8]), [BW] * 10)
    assert [j for j, d in enumerate(got) if d == 0b10] == list(range(2, 8))
    got = settle_line(make_clue([3]), [BW] * 5)
    assert got == (BW, BW, 0b10, BW, BW)


def test_empty_clue_and_contradictions():
    assert settle_line((), [BW] * 4) == (1,) * 4
    assert settle_line((), [BW, 0b10, BW]) is None
    assert settle_line(make_clue([2]), [0b01, 0b10, 0b01]) is None
    assert settle_line(make_clue([1, 1]), [BW, BW]) is None


@pytest.mark.parametrize("ncol", [1, 2, 3])
def test_settle_line_matches_brute_force(ncol):
    rng = random.Random(ncol)
    for _ in range(400):
        clue, cells, colours = random_line(rng, rng.randint(1, (9, 7, 5)[ncol - 1]), ncol)
        want, starts = brute_line(clue, cells, colours)
        assert settle_line(clue, cells) == want, (clue, cells)
        assert line_starts(clue, cells) == starts, (clue, cells)


def reference_settle_bw(n: int, lens: tuple[int, ...], W: int, K: int):
    """settle_bw by memoised placement search, O(n^2 m): (white, black) or None."""
    w = [W >> j & 1 for j in range(n)]
    k_ = [K >> j & 1 for j in range(n)]
    m = len(lens)

    @functools.cache
    def suf(k: int, p: int) -> bool:  # blocks k.. fit in cells [p, n), the rest white
        if k == m:
            return all(w[p:])
        L = lens[k]
        for s in range(p, n - L + 1):
            if not all(w[p:s]):
                break
            if all(k_[s:s + L]) and (s + L == n or w[s + L]) and suf(k + 1, min(n, s + L + 1)):
                return True
        return False

    @functools.cache
    def pre(k: int, q: int) -> bool:  # blocks ..k-1 fit in cells [0, q), the rest white
        if k == 0:
            return all(w[:q])
        L = lens[k - 1]
        for e in range(q, L - 1, -1):  # block k-1 ends at e (cells e-L .. e-1)
            if not all(w[e:q]):
                break
            s = e - L
            if all(k_[s:e]) and (s == 0 or w[s - 1]) and pre(k - 1, max(0, s - 1)):
                return True
        return False

    if not suf(0, 0):
        return None
    white = sum(1 << j for j in range(n) if w[j] and any(pre(k, j) and suf(k, j + 1)
                                                          for k in range(m + 1)))
    black = 0
    for k, L in enumerate(lens):
        for s in range(n - L + 1):
            if all(k_[s:s + L]) and (s == 0 or w[s - 1]) and (s + L == n or w[s + L]) \
                    and pre(k, max(0, s - 1)) and suf(k + 1, min(n, s + L + 1)):
                black |= ((1 << L) - 1) << s
    return white, black


def test_long_black_and_white_lines_match_a_placement_search():
    """The bit-parallel settle on lines of up to 90 cells (long white runs: every level of the
    backward scan, and its early stop) against a plain placement search."""
    from formulations.lines.settle import settle_bw
    rng = random.Random(7)
    checked = contradictions = 0
    for _ in range(300):
        n = rng.randint(10, 90)
        sol = [0] * n
        for j in range(n):  # sparse and dense stretches: long runs of both colours
            sol[j] = int(rng.random() < (0.08 if (j // rng.randint(5, 30)) % 2 else 0.7))
        lens = tuple(b.length for b in line_runs(sol)) if rng.random() < 0.85 else \
            tuple(rng.randint(1, 6) for _ in range(rng.randint(0, 8)))
        W = K = 0
        for j in range(n):
            r = rng.random()
            if r < 0.55:  # open
                W |= 1 << j
                K |= 1 << j
            elif r < 0.97:  # as in the solution
                W |= (not sol[j]) << j
                K |= sol[j] << j
            else:  # the other colour (may contradict)
                W |= sol[j] << j
                K |= (not sol[j]) << j
        want = reference_settle_bw(n, lens, W, K)
        assert settle_bw(n, lens, W, K) == want, (n, lens, bin(W), bin(K))
        checked += 1
        contradictions += want is None
    assert 10 < contradictions < checked - 100  # both outcomes exercised


def test_colour_blocks_may_touch():
    clue = (Block(2, 1), Block(1, 2))  # different colours: no gap needed
    got = settle_line(clue, [0b111] * 3)
    assert got == (0b010, 0b010, 0b100)


# -- fixed point ------------------------------------------------------------------------------------

def test_cat15_fixed_point_is_partial_with_eight_unknown_cells():
    fp = fixed_point(Puzzle.from_clues(CAT_ROWS, CAT_COLS))
    assert fp.status is Status.UNKNOWN
    assert fp.unknown == 8
    assert fp.grid is None
    known = fp.known_grid
    assert sum(v == UNKNOWN for row in known for v in row) == 8


def test_statuses_solved_and_contradiction():
    grid = ((1, 1, 1), (1, 0, 0), (1, 1, 0))
    fp = fixed_point(puzzle_from_grid(grid))
    assert fp.status is Status.SOLVED and fp.grid == grid
    bad = Puzzle.from_clues([[2], []], [[2], []])  # row 0 fills column 1, whose clue is empty
    assert fixed_point(bad).status is Status.INFEASIBLE


def test_recorded_steps_replay_to_the_fixed_point():
    fp = fixed_point(Puzzle.from_clues(CAT_ROWS, CAT_COLS), record=True)
    assert fp.steps, "the fixed point decided cells, so steps were recorded"
    knowns = [s.known for s in fp.steps]
    assert knowns == sorted(knowns) and knowns[-1] == 225 - fp.unknown
    assert all(s.line[0] in ("row", "col") for s in fp.steps)
    assert [s.round for s in fp.steps] == sorted(s.round for s in fp.steps)
    snaps = fp.snapshots()
    assert len(snaps) == len(fp.steps) + 1
    assert all(v == UNKNOWN for row in snaps[0] for v in row)
    assert snaps[-1] == fp.known_grid


@pytest.mark.parametrize("ncol", [1, 2])
def test_fixed_point_is_sound_on_random_puzzles(ncol):
    rng = random.Random(10 + ncol)
    for t in range(60):
        p = random_puzzle(rng, rng.randint(2, 4), rng.randint(2, 4), ncol=ncol)
        if t % 3 == 0:
            p = shuffled_rows(rng, p)
        sols = brute_solutions(p)
        fp = fixed_point(p)
        if not sols:
            continue  # line solving may or may not see it; search must (tested below)
        assert fp.status is not Status.INFEASIBLE
        for g in sols:  # every solution survives in the domains
            assert all(fp.domains[i][j] >> g[i][j] & 1 for i in range(p.height) for j in range(p.width))
        if fp.status is Status.SOLVED:
            assert sols == {fp.grid}


def test_engine_domains_round_trip():
    p = Puzzle.from_clues(CAT_ROWS, CAT_COLS)
    eng = Engine(p)
    st = eng.initial_state()
    assert eng.propagate(st)
    fp = fixed_point(p)
    assert eng.domains(st) == fp.domains
    assert eng.domains(eng.state_from_domains(fp.domains)) == fp.domains


# -- search ------------------------------------------------------------------------------------------

RULES = list(GUESS_RULES)


def check_search(p: Puzzle, sols: set, r) -> None:
    """The search's answer against every solution of ``p``."""
    assert set(r.solutions) <= sols
    if not sols:
        assert r.status is Status.INFEASIBLE and r.exhausted
    elif len(sols) == 1:
        assert r.status is Status.SOLVED and r.exhausted and len(r.solutions) == 1
    else:
        assert len(r.solutions) == 2 and not r.exhausted


@pytest.mark.parametrize("guess", RULES)
@pytest.mark.parametrize("probing", [True, False])
@pytest.mark.parametrize("ncol", [1, 2])
def test_search_matches_brute_force(guess, probing, ncol):
    rng = random.Random(100 + ncol)
    kinds = set()
    for t in range(50):
        p = random_puzzle(rng, rng.randint(2, 5), rng.randint(2, 4), ncol=ncol)
        if t % 4 == 0:
            p = shuffled_rows(rng, p)
        sols = brute_solutions(p)
        check_search(p, sols, solve_lines(p, max_solutions=2, probing=probing, guess=guess))
        kinds.add(min(len(sols), 2))
    assert kinds == {0, 1, 2}  # the sample covered impossible, unique and multiple puzzles


@pytest.mark.parametrize("backjump", [True, False])
@pytest.mark.parametrize("sprints", [True, False])
def test_backjumping_and_sprints_lose_nothing(monkeypatch, backjump, sprints):
    # sprints switched on after every branch and as short as can be, so that the search changes
    # mode all the time; backjumping must never skip a child that holds a solution
    import formulations.lines.search as search

    monkeypatch.setattr(search, "PLOD_LENGTH", 1)
    monkeypatch.setattr(search, "SPRINT_LENGTH", 2)
    monkeypatch.setattr(search, "SPRINT_RATE", 0.0)
    rng = random.Random(3)
    for t in range(40):
        p = random_puzzle(rng, rng.randint(3, 5), rng.randint(3, 5), ncol=1 + t % 2)
        if t % 4 == 0:
            p = shuffled_rows(rng, p)
        sols = brute_solutions(p)
        for guess in ("probability", "pbnsolve"):
            r = solve_lines(p, max_solutions=2, guess=guess, sprints=sprints, backjump=backjump)
            check_search(p, sols, r)


def test_a_line_table_cleared_mid_search_loses_nothing(monkeypatch):
    # the memo of settled lines is emptied whenever it outgrows CACHE_SIZE, while engines use
    # it; with a tiny bound that happens at almost every propagation
    import formulations.lines.engine as engine

    monkeypatch.setattr(engine, "CACHE_SIZE", 3)
    engine.clear_cache()
    clears_before = engine.cache_info()[2]
    rng = random.Random(5)
    for t in range(30):
        p = random_puzzle(rng, rng.randint(3, 5), rng.randint(3, 5))
        sols = brute_solutions(p)
        check_search(p, sols, solve_lines(p, max_solutions=2, backjump=t % 2 == 0))
    assert engine.cache_info()[2] - clears_before > 30  # emptied again and again, mid-search
    engine.clear_cache()


def test_every_option_agrees_on_larger_random_puzzles():
    # too large for brute force: every setting must reach the verdict the default reaches, with
    # grids the checker accepts, and all solutions when asked for more than there are
    rng = random.Random(11)
    settings = [dict(guess=g) for g in RULES] + [dict(probing=False, guess="tight"),
                                                  dict(sprints=True), dict(backjump=True),
                                                  dict(guess="pbnsolve", sprints=True,
                                                       backjump=True)]
    for t in range(12):
        p = random_puzzle(rng, 8, 8, density=0.45 + 0.02 * (t % 5))
        if t % 3 == 0:
            p = shuffled_rows(rng, p)
        ref = solve_lines(p, max_solutions=50)
        assert ref.exhausted
        for kw in settings:
            r = solve_lines(p, max_solutions=50, **kw)
            assert r.exhausted and set(r.solutions) == set(ref.solutions), kw
            assert all(not check_grid(p, g) for g in r.solutions)


def test_probabilities_match_brute_force():
    from formulations.lines.search import placement_shares
    from formulations.lines.settle import line_spec, to_masks

    rng = random.Random(4)
    for _ in range(300):
        ncol = rng.randint(1, 3)
        clue, cells, colours = random_line(rng, rng.randint(1, 7), ncol)
        cindex = {c: i for i, c in enumerate(colours)}
        got = placement_shares(line_spec(clue, len(cells), cindex), to_masks(cells, colours))
        count = [[0] * len(cells) for _ in colours]
        total = 0
        for line in itertools.product(colours, repeat=len(cells)):
            if any(not cells[j] >> v & 1 for j, v in enumerate(line)) or line_runs(line) != clue:
                continue
            total += 1
            for j, v in enumerate(line):
                count[v][j] += 1
        for ci in range(len(colours)):
            for j in range(len(cells)):
                assert got[ci][j] == pytest.approx(count[ci][j] / total if total else 0.0)


@pytest.mark.parametrize("guess", RULES)
def test_every_rule_decides_uniqueness_both_ways(guess):
    cat = Puzzle.from_clues(CAT_ROWS, CAT_COLS)
    r = solve_lines(cat, max_solutions=2, guess=guess)
    assert r.exhausted and len(r.solutions) == 1 and not check_grid(cat, r.solutions[0])
    two = Puzzle.from_clues([[1], [1]], [[1], [1]])
    r = solve_lines(two, max_solutions=2, guess=guess)
    assert len(r.solutions) == 2 and not r.exhausted
    assert all(not check_grid(two, g) for g in r.solutions)


@pytest.mark.parametrize("guess", RULES)
def test_every_rule_decides_every_project_puzzle(guess):
    from formulations.io import read_puzzle

    for path in sorted((ROOT / "puzzles").glob("*.txt")):
        p = read_puzzle(path)
        r = solve_lines(p, max_solutions=2, guess=guess, time_limit=60)
        assert r.exhausted is (len(r.solutions) < 2), path.name
        if path.stem.startswith("impossible"):
            assert r.status is Status.INFEASIBLE, path.name
            continue
        assert all(not check_grid(p, g) for g in r.solutions), path.name
        assert len(r.solutions) == (2 if path.stem.startswith("two_solutions") else 1), path.name


def test_unknown_guess_rule_is_refused():
    with pytest.raises(ValueError, match="unknown guess rule 'nope'"):
        solve_lines(Puzzle.from_clues(CAT_ROWS, CAT_COLS), guess="nope")
    from formulations.results import BackendError

    with pytest.raises(BackendError, match="guess must be one of"):
        solve_puzzle(Puzzle.from_clues(CAT_ROWS, CAT_COLS), "lines", guess="nope")


def test_n_dom_puzzle_decided(corpus_dir):
    path = corpus_dir / "minizinc-benchmarks-nonogram" / "converted-non" / "dom_08.non"
    if not path.exists():
        pytest.skip("dom_08 absent")
    from formulations.io import read_puzzle

    p = read_puzzle(path)
    r = solve_lines(p, max_solutions=2, time_limit=60)
    assert r.status is Status.SOLVED and r.exhausted and not check_grid(p, r.solutions[0])


def test_zero_time_limit_gives_unknown_not_infeasible():
    # the cat needs one guess after the fixed point, and no probe is allowed
    r = solve_lines(Puzzle.from_clues(CAT_ROWS, CAT_COLS), time_limit=0.0)
    assert r.status is Status.UNKNOWN and r.timed_out and not r.solutions


# -- the backend through the common verification path --------------------------------------------

def test_lines_backend_cat15_unique():
    cat = Puzzle.from_clues(CAT_ROWS, CAT_COLS)
    res = solve_puzzle(cat, "lines", unique=True)
    assert res.status is Status.SOLVED and res.unique is True
    assert not check_grid(cat, res.grid)
    assert res.info["nodes"] >= 1 and res.info["exhausted"] is True


@pytest.mark.parametrize("guess", RULES)
def test_lines_backend_multiple_and_infeasible(guess):
    two = Puzzle.from_clues([[1], [1]], [[1], [1]])
    res = solve_puzzle(two, "lines", unique=True, guess=guess)
    assert res.status is Status.SOLVED and res.unique is False and res.second_grid is not None
    bad = Puzzle.from_clues([[2], []], [[2], []])
    assert solve_puzzle(bad, "lines", guess=guess).status is Status.INFEASIBLE
    assert solve_puzzle(two, "lines", time_limit=0.0).status is Status.UNKNOWN


def test_lines_backend_builds_no_model(monkeypatch):
    # lines works on the puzzle: no model is built, with or without presolve (which it does
    # anyway), and its grid goes straight to the clue checker
    import formulations.model.order as order
    import formulations.solving as solving

    def no_build(*args, **kwargs):
        raise AssertionError("a model was built for lines")

    monkeypatch.setattr(solving, "build_model", no_build)
    monkeypatch.setattr(order, "build_model", no_build)
    cat = Puzzle.from_clues(CAT_ROWS, CAT_COLS)
    for presolve in (False, True):
        res = solve_puzzle(cat, "lines", unique=True, presolve=presolve)
        assert res.status is Status.SOLVED and res.unique is True and not check_grid(cat, res.grid)
        assert res.variables is None and res.use_x is None and res.presolve is None


def test_lines_backend_colour_puzzle():
    grid = ((1, 1, 2, 0), (0, 2, 2, 1), (2, 0, 1, 1), (2, 2, 0, 0))
    p = puzzle_from_grid(grid)
    res = solve_puzzle(p, "lines", unique=True)
    assert res.status is Status.SOLVED and not check_grid(p, res.grid)
    assert res.unique == (len(brute_solutions(p)) == 1)


def test_janko_sample_needing_search(corpus_dir):
    from formulations.io import iter_janko

    path = corpus_dir / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
    if not path.exists():
        pytest.skip("janko dataset absent")
    done = 0
    for key, p, goal in iter_janko(path):
        if goal is None or p.height > 15 or fixed_point(p).status is Status.SOLVED:
            continue
        r = solve_lines(p, max_solutions=2)
        assert r.solutions == (goal,) and r.exhausted, key
        done += 1
        if done == 4:
            break
    assert done == 4


def test_settled_lines_are_remembered_until_the_memo_is_cleared():
    # lines of up to 64 cells (three colours at most) go to the direct-mapped slots in front of the
    # memo, longer ones to the memo itself: a second propagation of the same state settles
    # (almost) no line again (a slot may have been taken by another line since: direct-mapped),
    # and after a clear every line is settled again
    import formulations.lines.engine as engine

    rng = random.Random(17)
    for h, w in ((12, 12), (70, 9)):  # columns of 70 cells: past the slots' 64
        p = random_puzzle(rng, h, w, density=0.55)
        eng = Engine(p)
        engine.clear_cache()
        solves = []
        for _ in range(2):
            before = eng.line_solves
            eng.propagate(eng.initial_state(), eng.initial_lines())
            solves.append(eng.line_solves - before)
        assert solves[0] >= h + w and solves[1] <= solves[0] // 10, (h, w, solves)
        engine.clear_cache()
        before = eng.line_solves
        eng.propagate(eng.initial_state(), eng.initial_lines())
        assert eng.line_solves - before == solves[0], (h, w)  # the same work as the first time
