"""The compiled line core (formulations/lines/_core.c) against a plain placement oracle: random
lines (hypothesis) of any length, black and white and colour, and lines of corpus puzzles."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formulations.lines import Engine, fixed_point, line_starts, settle_line
from formulations.lines.settle import settle_bw
from formulations.puzzle import Block, line_runs


def oracle(clue, cells):
    """(narrowed domains, sorted valid starts per block) of a line, or (None, None).

    A placement walks the cells left to right in states (next block k, cell p): a background
    cell moves to (k, p + 1), block k placed at p moves past it (and past one background cell
    when the next block has the same colour). A move is used by some valid placement when its
    source is reachable from (0, 0) and its target reaches (m, n); the answer is the union of
    the colours the used moves paint.
    """
    n, m = len(cells), len(clue)

    def allows(p, c):
        return bool(cells[p] >> c & 1)

    def moves(k, p):
        if p < n and allows(p, 0):
            yield (k, p + 1), ((p, 0),), None
        if k < m:
            L, c = clue[k].length, clue[k].colour
            if p + L <= n and all(allows(q, c) for q in range(p, p + L)):
                painted = tuple((q, c) for q in range(p, p + L))
                if k + 1 < m and clue[k + 1].colour == c:
                    if p + L < n and allows(p + L, 0):
                        yield (k + 1, p + L + 1), painted + ((p + L, 0),), p
                else:
                    yield (k + 1, p + L), painted, p

    reach = {(0, 0)}
    order = sorted(((k, p) for k in range(m + 1) for p in range(n + 1)), key=lambda s: (s[1], s[0]))
    for s in order:  # every move goes to a later cell, or the same cell never: p grows
        if s in reach:
            for t, _, _ in moves(*s):
                reach.add(t)
    co = {(m, n)}
    for s in reversed(order):
        if any(t in co for t, _, _ in moves(*s)):
            co.add(s)
    if (0, 0) not in co:
        return None, None
    out = [0] * n
    starts = [set() for _ in range(m)]
    for s in order:
        if s not in reach:
            continue
        for t, painted, start in moves(*s):
            if t in co:
                for q, c in painted:
                    out[q] |= 1 << c
                if start is not None:
                    starts[s[0]].add(start)
    return tuple(out), [sorted(x) for x in starts]


def runs_of(line):
    return line_runs(tuple(line))


@st.composite
def lines(draw, max_len=200, max_colours=3):
    """(clue, cells): a clue from a random line (or a random one), cells that mostly allow that
    line's colour plus random others (so that some lines contradict)."""
    ncol = draw(st.integers(1, max_colours))
    n = draw(st.integers(1, max_len))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    dens = rng.random()
    sol = [rng.randint(1, ncol) if rng.random() < dens else 0 for _ in range(n)]
    clue = runs_of(sol) if rng.random() < 0.85 else \
        tuple(Block(rng.randint(1, 5), rng.randint(1, ncol)) for _ in range(rng.randint(0, 6)))
    keep, extra = rng.random(), rng.random()
    cells = []
    for v in sol:
        d = (1 << v) if rng.random() < 0.98 else 0
        for c in range(ncol + 1):
            if rng.random() < extra or (c == v and rng.random() < keep):
                d |= 1 << c
        cells.append(d or (1 << rng.randint(0, ncol)))
    return clue, cells


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines())
def test_settle_matches_the_placement_oracle(line):
    clue, cells = line
    want, starts = oracle(clue, cells)
    assert settle_line(clue, cells) == want
    assert line_starts(clue, cells) == starts


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines(max_len=300, max_colours=1))
def test_black_and_white_settle_on_long_lines(line):
    clue, cells = line
    n = len(cells)
    want, _ = oracle(clue, cells)
    W = sum(1 << j for j, d in enumerate(cells) if d & 1)
    K = sum(1 << j for j, d in enumerate(cells) if d >> 1 & 1)
    got = settle_bw(n, tuple(b.length for b in clue), W, K)
    if want is None:
        assert got is None
    else:
        assert got == (sum(1 << j for j, d in enumerate(want) if d & 1),
                       sum(1 << j for j, d in enumerate(want) if d >> 1 & 1))


@pytest.mark.parametrize("n", [63, 64, 65, 127, 128, 129, 191, 192, 193, 511, 512, 513])
def test_word_boundaries(n):
    # a block ending exactly at a word's edge, a single gap, every cell open
    rng = random.Random(n)
    for _ in range(20 if n < 256 else 3):
        sol = [int(rng.random() < 0.6) for _ in range(n)]
        sol[63 % n] = 1
        clue = runs_of(sol)
        cells = [0b11 if rng.random() < 0.7 else 1 << v for v in sol]
        assert settle_line(clue, cells) == oracle(clue, cells)[0]


def test_line_of_1000_cells_and_one_block():
    clue = (Block(600, 1),)
    got = settle_line(clue, [0b11] * 1000)
    assert [j for j, d in enumerate(got) if d == 0b10] == list(range(400, 600))


def _corpus_lines(puzzle, rng, count):
    """(clue, cells) pairs: lines of the puzzle, fully open and as its fixed point leaves them."""
    fp = fixed_point(puzzle)
    colours = (0,) + (puzzle.colours or (1,))
    full = sum(1 << c for c in colours)
    out = []
    for _ in range(count):
        if rng.random() < 0.5:
            i = rng.randrange(puzzle.height)
            known = list(fp.domains[i])
            clue = puzzle.rows[i]
        else:
            j = rng.randrange(puzzle.width)
            known = [fp.domains[i][j] for i in range(puzzle.height)]
            clue = puzzle.columns[j]
        out.append((clue, [full] * len(known)))
        if all(known):
            # the fixed point's domains, a few cells opened again
            out.append((clue, [full if rng.random() < 0.2 else d for d in known]))
    return out


@pytest.mark.parametrize("rel,count", [("picross-solver-dejoue/cauldron.non", 2),
                                       ("webpbn-survey-non/webpbn-06574.non", 30),
                                       ("webpbn-survey-non/webpbn-02712.non", 30)])
def test_corpus_lines_match_the_oracle(corpus_dir, rel, count):
    from formulations.io import read_puzzle

    path = corpus_dir / rel
    if not path.exists():
        pytest.skip(f"{rel} absent")
    p = read_puzzle(path)
    for clue, cells in _corpus_lines(p, random.Random(1), count):
        assert settle_line(clue, cells) == oracle(clue, cells)[0]


def test_colour_corpus_lines_match_the_oracle(corpus_dir):
    from formulations.io import read_puzzle

    files = sorted((corpus_dir / "pynogram-examples").glob("*")) \
        + sorted((corpus_dir / "nonogrid-examples").glob("*"))
    rng = random.Random(2)
    done = 0
    for path in files:
        try:
            p = read_puzzle(path)
        except Exception:  # a file this reader does not take
            continue
        if not p.colours or len(p.colours) < 2 or p.width > 60:
            continue
        for clue, cells in _corpus_lines(p, rng, 10):
            assert settle_line(clue, cells) == oracle(clue, cells)[0], path.name
        done += 1
        if done == 5:
            break
    if not done:
        pytest.skip("no colour puzzle in the corpus")


def test_engine_on_a_wide_puzzle_matches_line_by_line_settling():
    # 3 x 150: the propagation queue over rows of three words each
    rng = random.Random(9)
    grid = tuple(tuple(int(rng.random() < 0.5) for _ in range(150)) for _ in range(3))
    from formulations.puzzle import puzzle_from_grid

    p = puzzle_from_grid(grid)
    eng = Engine(p)
    state = eng.initial_state()
    assert eng.propagate(state)
    doms = [list(r) for r in eng.domains(state)]
    # a fixed point: settling any row or column changes nothing
    for i in range(3):
        assert settle_line(p.rows[i], doms[i]) == tuple(doms[i])
    for j in range(150):
        col = [doms[i][j] for i in range(3)]
        assert settle_line(p.columns[j], col) == tuple(col)
    for i in range(3):
        for j in range(150):
            assert doms[i][j] >> grid[i][j] & 1
