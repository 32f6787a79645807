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


# -- the probability rule's placement shares and the probe frontier, compiled --------------------

def _one_line_core(clue, n, ncol):
    """A Core holding one row of ``n`` cells (and ``n`` one-cell columns): line 0 is the line."""
    from formulations.lines._core import Core
    from formulations.lines.settle import line_spec
    spec = line_spec(clue, n, {c: c for c in range(ncol + 1)})
    empty = (1, (), (), ())
    return Core([spec] + [empty] * n, list(range(n + 1)), ncol + 1, 1), spec


def _shares_by_enumeration(clue, cells, ncol):
    import itertools
    count = [[0] * len(cells) for _ in range(ncol + 1)]
    total = 0
    for line in itertools.product(range(ncol + 1), repeat=len(cells)):
        if any(not cells[j] >> v & 1 for j, v in enumerate(line)) or runs_of(line) != clue:
            continue
        total += 1
        for j, v in enumerate(line):
            count[v][j] += 1
    return [[c / total if total else 0.0 for c in row] for row in count]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines(max_len=9, max_colours=2))
def test_shares_match_the_enumeration(line):
    # every line of up to 9 cells and 3 colour indices enumerated: the share of the placements
    # that paint each cell each colour, exactly (both sides divide the same two integers)
    from formulations.lines.settle import to_masks
    clue, cells = line
    ncol = 2
    core, _ = _one_line_core(clue, len(cells), ncol)
    got = core.shares(0, to_masks(cells, list(range(ncol + 1))))
    assert got == _shares_by_enumeration(clue, cells, ncol)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines(max_len=127, max_colours=3))
def test_shares_equal_the_big_integer_counts(line):
    # up to 127 cells (counts up to 2^127, beyond 2^53 often): the compiled 128-bit counts give
    # the very floats of Python's exact integers, so the probability rule ranks identically
    from formulations.lines.search import placement_shares
    from formulations.lines.settle import to_masks
    clue, cells = line
    ncol = 3
    core, spec = _one_line_core(clue, len(cells), ncol)
    masks = to_masks(cells, list(range(ncol + 1)))
    assert core.shares(0, masks) == placement_shares(spec, masks)


@pytest.mark.parametrize("n,k", [(120, 20), (127, 30), (127, 1), (64, 10)])
def test_shares_with_counts_beyond_doubles(n, k):
    # every cell open: C(n - k + 1, k) placements of k ones (C(101, 20) is about 2^68)
    from formulations.lines.search import placement_shares
    from formulations.lines.settle import to_masks
    clue = tuple(Block(1, 1) for _ in range(k))
    core, spec = _one_line_core(clue, n, 1)
    masks = to_masks([0b11] * n, [0, 1])
    got = core.shares(0, masks)
    assert got == placement_shares(spec, masks)
    assert abs(sum(got[1]) - k) < 1e-9  # k cells painted per placement


def test_shares_of_a_line_past_128_cells_are_left_to_python():
    from formulations.lines.settle import to_masks
    core, _ = _one_line_core((Block(3, 1),), 128, 1)
    assert core.shares(0, to_masks([0b11] * 128, [0, 1])) is None


def _frontier_reference(C, h, w, state, ref, recent):
    """The probe frontier as the Python search computed it before it was compiled."""
    full = (1 << w) - 1

    def unknown(i):
        seen = unk = 0
        for ci in range(C):
            m = state[i * C + ci]
            unk |= seen & m
            seen |= m
        return unk

    unk = [unknown(i) for i in range(h)]
    taken = [0] * h
    out = []
    for since in ((recent, ref) if recent is not ref else (ref,)):
        ch = []
        for i in range(h):
            d = 0
            for k in range(i * C, i * C + C):
                d |= since[k] ^ state[k]
            ch.append(d)
        prev = 0
        for i in range(h):
            c = ch[i]
            m = (c << 1) | (c >> 1) | prev | (ch[i + 1] if i + 1 < h else 0)
            prev = c
            m &= unk[i] & ~taken[i]
            if m:
                taken[i] |= m
                out.append((i, m))
    top = 1 << (w - 1)
    third = False
    for i in range(h):
        u = unk[i] & ~taken[i]
        if not u:
            continue
        dec = full & ~unk[i]
        left = ((dec << 1) | 1) & full
        right = (dec >> 1) | top
        up = (full & ~unk[i - 1]) if i else full
        down = (full & ~unk[i + 1]) if i + 1 < h else full
        m = ((left & right) | ((left | right) & (up | down)) | (up & down)) & u
        if m:
            third = True
            out.append((i, m))
    if not out and not third:
        out = [(i, unk[i] & ~taken[i]) for i in range(h) if unk[i] & ~taken[i]]
    return out


@pytest.mark.parametrize("w", [5, 63, 64, 65, 130])
@pytest.mark.parametrize("ncol", [1, 3])
def test_frontier_matches_the_reference(w, ncol):
    from formulations.lines._core import Core
    rng = random.Random(w * 10 + ncol)
    h = 7
    C = ncol + 1
    specs = [(w, (), (), ())] * h + [(h, (), (), ())] * w
    core = Core(specs, list(range(h + w)), C, h)
    for _trial in range(40):
        density = rng.choice((0.05, 0.3, 0.7, 1.0))

        def domains(density=density):  # called in this iteration
            return [[(1 << C) - 1 if rng.random() < density else 1 << rng.randrange(C)
                     for _ in range(w)] for _ in range(h)]

        def as_state(dom):
            st = []
            for i in range(h):
                st += [sum(1 << j for j in range(w) if dom[i][j] >> ci & 1) for ci in range(C)]
            return st + [0] * (w * C)  # column slots: the frontier reads rows only

        now = domains()
        older = [[d | (rng.getrandbits(C) if rng.random() < 0.2 else 0) for d in row] for row in now]
        oldest = [[d | (rng.getrandbits(C) if rng.random() < 0.2 else 0) for d in row] for row in older]
        state, recent, ref = as_state(now), as_state(older), as_state(oldest)
        for r in (ref, recent):
            assert core.frontier(state, ref, r) == _frontier_reference(C, h, w, state, ref, r)


def test_a_probe_outside_the_grid_is_refused():
    # try_probe indexes the packed words by cell: a cell or colour out of range must raise,
    # not read past the buffer (ASan found the read; search.py itself passes valid cells)
    from formulations.puzzle import puzzle_from_grid

    eng = Engine(puzzle_from_grid(((1, 0, 1, 1), (0, 1, 1, 0), (1, 1, 0, 0), (0, 0, 1, 1))))
    state = eng.initial_state()
    bits = sum(bin(x).count("1") for x in state)
    for cell in ((-1, 0, 1), (0, 4, 1), (4, 0, 0), (0, 0, 2), (0, 0, -1)):
        with pytest.raises(IndexError, match="outside the 4x4 grid"):
            eng._core.try_probe(state, None, bits, {}, 2, 1, 0, None, -1, cell)
    ok, *_ = eng._core.try_probe(state, None, bits, {}, 2, 1, 0, None, -1, (0, 0, 1))
    assert ok in (True, False)
