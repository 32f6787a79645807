"""Colour nonograms (issue 7): the colour readers (pynogram text, nonogrid TOML, webpbn XML, the
project text format's ``COLOUR`` lines and ``3r`` suffixes), round trips, and the model's rule
that blocks of one colour need a gap while blocks of different colours may touch."""
from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from helpers import assert_rejected, PUZZLES
from hypothesis import given, settings
from hypothesis import strategies as st

from formulations.model import build_model
from formulations.puzzle import Block, Puzzle, PuzzleError, check_grid, puzzle_from_grid
from formulations.io import (detect_format, parse_puzzle, read_puzzle, read_puzzle_with_goal,
                             read_puzzles)
from formulations.io.common import DEFAULT_PALETTE
from formulations.results import Status
from formulations.solving import solve_puzzle
from formulations.io.writers import write_text

R, B, G = 2, 3, 4  # colour indices in declaration order


def solve(puzzle: Puzzle, **kw):
    r = solve_puzzle(puzzle, "cpsat", time_limit=60, **kw)
    assert r.status is Status.SOLVED, r.message
    assert check_grid(puzzle, r.grid) == []
    return r


def touching_pairs(grid) -> int:
    """Horizontally or vertically adjacent cells of two different non-background colours."""
    h, w = len(grid), len(grid[0])
    n = 0
    for i in range(h):
        for j in range(w):
            for di, dj in ((0, 1), (1, 0)):
                if i + di < h and j + dj < w:
                    a, b = grid[i][j], grid[i + di][j + dj]
                    n += a != b and a > 0 and b > 0
    return n


# ----------------------------------------------------------------------------- pynogram / nonogrid

PYNOGRAM = """# comment; [clues] inside a comment is no section
[colors]
r = (red) *
g=(0, 204, 0) %
h = (88CC44) &
f = (fuzzywuzzy) @   ; unknown name: generated colour, name kept

[clues]
columns =
    1r 1g, "1h 1"   # two clues on one line, one quoted
    '1f',
    0
rows = 1r 1h 1f
    1g 1,           ; trailing comma
"""


def test_pynogram_format():
    p = parse_puzzle(PYNOGRAM, path="p.txt")
    assert detect_format(PYNOGRAM, "p.txt") == "pynogram"
    assert detect_format(PYNOGRAM) == "pynogram"  # no extension: by content
    assert p.rows == ((Block(1, R), Block(1, 4), Block(1, 5)), (Block(1, B), Block(1, 1)))
    assert p.columns == ((Block(1, R), Block(1, B)), (Block(1, 4), Block(1, 1)), (Block(1, 5),), ())
    pal = {idx: (name, rgb) for idx, name, rgb in p.palette}
    assert pal[0] == ("white", "#ffffff") and pal[1] == ("black", "#000000")
    assert pal[R] == ("red", "#ff0000")      # a colour name names the palette entry
    assert pal[B] == ("g", "#00cc00")        # an RGB triplet: the definition's name
    assert pal[4] == ("h", "#88cc44")        # hex
    assert pal[5][0] == "fuzzywuzzy" and pal[5][1] not in {rgb for _, rgb in
                                                          list(pal.values())[:5]}
    # the model has the puzzle's one solution
    assert solve(p).grid == ((R, 4, 5, 0), (B, 1, 0, 0))


NONOGRID = '''[colors]
defs = [
    "r = (red) *",
    'b = (0, 0, 255) %',
]

[clues]
rows = """
    2r 1b   # different colours touch
"""
columns = """1r, 1r, 1b"""
'''


def test_nonogrid_toml_format():
    p = parse_puzzle(NONOGRID, path="u.toml")
    assert detect_format(NONOGRID) == "nonogrid"
    assert p.rows == ((Block(2, R), Block(1, B)),)
    assert p.columns == ((Block(1, R),), (Block(1, R),), (Block(1, B),))
    assert p.palette == DEFAULT_PALETTE + ((R, "red", "#ff0000"), (B, "b", "#0000ff"))
    assert solve(p).grid == ((R, R, B),)


JCROSS = "2\n1 3\n1 1 0\n1 0\n0\n1 0\n2 1\n1 0\n0\n1 0\n"


def test_spoj_jcross(tmp_path):
    f = tmp_path / "spoj.txt"
    f.write_text(JCROSS)
    assert detect_format(JCROSS, f) == "jcross"
    a, b = read_puzzles(f)
    assert (a.rows, a.columns) == (((Block(1), Block(1)),), ((Block(1),), (), (Block(1),)))
    assert (b.rows, b.columns) == (((Block(1),), ()), ((Block(1),),))
    with pytest.raises(PuzzleError, match="holds 2 puzzles"):
        read_puzzle(f)


BAD = [
    # (file name, content, expected line or None, message fragment)
    ("a.txt", "COLOUR r red\nROWS\n1r 1x\nCOLUMNS\n1r\n1\n", 3,
     "undeclared colour 'x' in token '1x'"),
    ("a.txt", "ROWS\n2r\nCOLUMNS\n1\n1\n", 2, "undeclared colour 'r' in token '2r'"),
    ("a.txt", "COLOUR r red #ff00\nROWS\n1r\nCOLUMNS\n1r\n", 1, "needs six hex digits"),
    ("a.txt", "COLOUR R red\nROWS\n1\nCOLUMNS\n1\n", 1, "one lowercase letter"),
    ("a.txt", "COLOUR r red\nCOLOR r blue\nROWS\n1r\nCOLUMNS\n1r\n", 2, "declared twice"),
    ("a.txt", "ROWS\n1\nCOLOUR r red\nCOLUMNS\n1\n", 3, "must come before the clues"),
    ("a.txt", "COLOUR r red #ff0000 extra\nROWS\n1r\nCOLUMNS\n1r\n", 1, "after the colour code"),
    ("a.txt", "COLOUR r red\nROWS\n1R\nCOLUMNS\n1r\n", 3, "bad token '1R'"),
    ("a.txt", "COLOUR r red\nCOLOUR b blue\nROWS\n1r\nCOLUMNS\n1b\n", None,
     "row clues paint 1 cells of colour red but column clues paint 0"),
    ("a.txt", "COLOUR r red\nROWS\n1r 1r\nCOLUMNS\n1r\n1r\n", 3,
     "needs 3 cells but the row has 2"),  # same colour: a gap is needed
    ("p.txt", "[colors]\nr = (red) *\n[clues]\nrows = 1r\ncolumns =\n  1q\n", 6,
     "undefined colour 'q' in block '1q'"),
    ("p.txt", "[colors]\nr = red *\n[clues]\nrows = 1r\ncolumns = 1r\n", 2,
     "bad colour definition"),
    ("p.txt", "[colors]\nr = (1, 2, 300) *\n[clues]\nrows = 1r\ncolumns = 1r\n", 2, "above 255"),
    ("p.txt", "[clues]\nrows = 1\n", None, "missing 'columns ='"),
    ("p.txt", "[clues]\n  1 2\nrows = 1\ncolumns = 1\n", 2, "belongs to no key"),
    ("p.txt", "[clues]\nrows = 1 x\ncolumns = 1\n", 2, "non-numeric token 'x'"),
    ("p.toml", "[clues]\nrows = \"1\"\ncolumns = [1\n", 3, "malformed TOML"),
    ("p.toml", "[clues]\nrows = \"1\"\ncolumns = 1\n", None, "clues.columns must be a string"),
    ("p.toml", "[clues]\nrows = \"\"\"\n1\n2q\n\"\"\"\ncolumns = \"1\"\n", 4,
     "undefined colour 'q'"),
    ("j.txt", "1\n1 1\n1 0\n", 3, "zero-length block"),  # not JCROSS (short): read as ours
]


@pytest.mark.parametrize("fname,content,line,fragment", BAD,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_bad_colour_input_rejected_with_path_and_line(tmp_path, fname, content, line, fragment):
    f = tmp_path / fname
    f.write_text(content)
    assert_rejected(f, line, fragment)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("0123 ,#;'\"\n\n") + [
    "[clues]", "[colors]", "rows =", "columns =", "r = (red) *", "g = (0, 9, 300) %", "1r", "2g",
    '"""', "defs = [", "'b = (blue) *'", "]", "COLOUR r red #ff0000", "COLOR b", "ROWS",
    "COLUMNS", "1 0", "2\n1 1\n"])).map("".join),
       st.sampled_from([None, "txt", "pynogram", "nonogrid", "jcross"]))
def test_colour_garbage_gives_puzzle_or_puzzle_error(text, fmt):
    try:
        parse_puzzle(text, fmt, path="fuzz")
    except PuzzleError as e:
        assert "\n" not in str(e) and str(e).startswith("fuzz")


# ----------------------------------------------------------------------------- project text format


def test_text_colour_lines():
    text = """TITLE Touch
# COLOUR lines come before the clues; '#' + six hex digits is a colour, other '#' a comment
COLOUR r red #FF0000   # red
colour b #0000ff
COLOR g green          # CSS name, no code
COLOUR y sunny yellow  #not-a-code: a comment
ROWS
2r 1b
1g 1y 1
COLUMNS
1r 1g
1r 1y
1b 1
"""
    p = parse_puzzle(text, path="t.txt")
    assert p.rows == ((Block(2, R), Block(1, B)), (Block(1, G), Block(1, 5), Block(1, 1)))
    pal = {idx: (name, rgb) for idx, name, rgb in p.palette}
    assert pal[R] == ("red", "#ff0000") and pal[B] == ("b", "#0000ff")
    assert pal[G] == ("green", "#008000")
    assert pal[5][0] == "sunny yellow" and pal[5][1] not in ("#ff0000", "#0000ff", "#008000")
    assert parse_puzzle(text) == p  # sniffed without extension
    assert solve(p).grid == ((R, R, B), (G, 5, 1))


def test_black_and_white_text_is_written_as_before():
    p = Puzzle.from_clues([[2, 1], [0], [3]], [[1], [1, 1], [1], [1, 1]], "Small")
    assert write_text(p) == "TITLE Small\nROWS\n2 1\n0\n3\nCOLUMNS\n1\n1 1\n1\n1 1\n"
    # a palette with spare colours but black clues is still black and white on paper
    q = replace(p, palette=DEFAULT_PALETTE + ((2, "red", "#ff0000"),))
    assert write_text(q) == write_text(p)


def test_text_writer_picks_unique_letters_from_names():
    grid = ((2, 3, 4, 5),)
    q = puzzle_from_grid(grid)
    pal = DEFAULT_PALETTE + ((2, "red", "#ff0000"), (3, "rose", "#ff007f"),
                             (4, "#1 ruby", "#e0115f"), (5, "", "#00ff00"))
    p = Puzzle(q.rows, q.columns, "", pal)
    text = write_text(p)
    assert "COLOUR r red #ff0000\nCOLOUR o rose #ff007f\nCOLOUR u 1 ruby #e0115f\n" in text
    assert "1r 1o 1u 1a" in text
    got = parse_puzzle(text, "txt")
    assert (got.rows, got.columns) == (p.rows, p.columns)


def test_text_writer_fills_missing_palette_entries():
    # puzzle_from_grid gives only white and black: colours 2 and 3 get made-up entries
    p = puzzle_from_grid(((0, 3, 1),))
    got = parse_puzzle(write_text(p), "txt")
    assert (got.rows, got.columns) == (p.rows, p.columns)
    assert [idx for idx, _, _ in got.palette] == [0, 1, 2, 3]


names = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,6}( [a-z0-9]{1,4})?", fullmatch=True)
hexes = st.integers(0, 0xFFFFFF).map(lambda v: f"#{v:06x}")


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 6).flatmap(lambda h: st.integers(1, 6).flatmap(
    lambda w: st.lists(st.lists(st.integers(0, 3), min_size=w, max_size=w),
                       min_size=h, max_size=h))),
       st.lists(st.tuples(names, hexes), min_size=2, max_size=2),
       st.sampled_from(["", "Colour test", "No #1"]))
def test_text_colour_round_trip(grid, colours, title):
    grid = tuple(map(tuple, grid))
    q = puzzle_from_grid(grid)
    palette = DEFAULT_PALETTE + tuple((k + 2, n, h) for k, (n, h) in enumerate(colours))
    p = Puzzle(q.rows, q.columns, title, palette)
    got = parse_puzzle(write_text(p), "txt")
    if p.is_black_and_white:  # written without COLOUR lines, as before
        assert got == replace(p, palette=DEFAULT_PALETTE)
    else:
        assert got == p
    assert check_grid(got, grid) == []


# ----------------------------------------------------------------------------- the model


def test_blocks_of_different_colours_touch():
    text = "COLOUR r red\nCOLOUR b blue\nROWS\n2r 1b\nCOLUMNS\n1r\n1r\n1b\n"
    p = parse_puzzle(text, "txt")
    for use_x in (True, False):
        r = solve(p, use_x=use_x, unique=True)
        assert r.grid == ((R, R, B),) and r.unique is True  # three cells, no gap
    # the same lengths in one colour need a gap, so they do not fit in three cells
    with pytest.raises(PuzzleError, match="^line 3: row 1: clue 2 1 needs 4 cells"):
        parse_puzzle("COLOUR r red\nROWS\n2r 1r\nCOLUMNS\n1r\n1r\n1r\n", "txt")


def _feasible_grids(nm) -> set:
    """Decoded grids of every 0/1 assignment that satisfies every constraint (brute force)."""
    m = nm.model
    n = m.num_variables
    assert n <= 18, n
    rows, cols, vals, rhs, senses = m.matrix()
    A = np.zeros((m.num_constraints, n), dtype=np.int64)
    np.add.at(A, (rows, cols), vals)
    X = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(np.int64)
    act = X @ A.T
    ok = np.ones(len(X), dtype=bool)
    for k, s in enumerate(senses):
        ok &= (act[:, k] == rhs[k]) if s == "==" else (act[:, k] <= rhs[k]) if s == "<=" \
            else (act[:, k] >= rhs[k])
    return {nm.decode(x) for x in X[ok]}


# Rows "1r 1r" and "1r 1b"; the solution .r.r / ..rb has red and blue touching in row 2 and
# column 4. The near miss ..rr / .r.b meets every column clue and row 2, and row 1 has its two
# red 1-blocks, only touching: a model that let same-colour blocks touch would accept it.
GAP_SOLUTION = ((0, R, 0, R), (0, 0, R, B))
NEAR_MISS = ((0, 0, R, R), (0, R, 0, B))


@pytest.mark.parametrize("use_x", [True, False], ids=["x", "no-x"])
def test_same_colour_blocks_never_touch_in_the_model(use_x):
    p = puzzle_from_grid(GAP_SOLUTION)
    assert p.rows[0] == (Block(1, R), Block(1, R))
    assert check_grid(p, NEAR_MISS) == ["row 1: shows 2, clue 1 1"]
    nm = build_model(p, use_x=use_x)
    feasible = _feasible_grids(nm)
    every = {g for g in (tuple(tuple(c[i * 4:(i + 1) * 4]) for i in range(2))
                         for c in itertools.product((0, R, B), repeat=8))
             if not check_grid(p, g)}
    assert feasible == every == {GAP_SOLUTION}
    assert NEAR_MISS not in feasible
    with pytest.raises(ValueError):
        nm.encode(NEAR_MISS)


# ----------------------------------------------------------------------------- project puzzles


@pytest.mark.parametrize("name", ["flag_colour6.txt", "flower_colour8.txt"])
def test_project_colour_puzzles(name):
    p = read_puzzle(PUZZLES / name)
    assert len(p.colours) >= 3
    r = solve(p, unique=True)
    assert r.unique is True
    assert touching_pairs(r.grid) > 0
    assert parse_puzzle(write_text(p), "txt") == p


# ----------------------------------------------------------------------------- corpus

# Colour puzzles of the corpus (pynogram, nonogrid, Wolter's webpbn XML, number-loom XML).
COLOUR_FILES = {
    "pynogram-examples/apples.txt": 3, "pynogram-examples/uk.txt": 2,
    "nonogrid-examples/UK.toml": 2,
    "wolter-survey-xml/webpbn-color-00047.xml": 4, "wolter-survey-xml/webpbn-color-00220.xml": 4,
    "number-loom-puzzles/listen_left_and_right.xml": 2, "number-loom-puzzles/little_hauler.xml": 2,
    "number-loom-puzzles/look_sharp.xml": 2, "number-loom-puzzles/missing.xml": 2,
    "number-loom-puzzles/not_invented_yet_1.xml": 2,
    "number-loom-puzzles/not_invented_yet_3.xml": 2, "number-loom-puzzles/take_two.xml": 2,
}
# Black-and-white pynogram/nonogrid puzzles that cpsat solves in well under a second here; the
# bigger ones (MLP, einstein, lancaster: 2-7 s) and frans_faase (80x95, not solved by cpsat in
# 300 s) are left out to keep the suite short.
FAST_BW = ["pynogram-examples/domino.txt", "pynogram-examples/football.txt",
           "pynogram-examples/hello.txt", "pynogram-examples/p.txt", "pynogram-examples/smile.txt",
           "pynogram-examples/w.txt", "pynogram-examples/winter.txt",
           "pynogram-examples/xmas.txt", "nonogrid-examples/hello.toml",
           "nonogrid-examples/puzzles.txt"]


def test_corpus_pynogram_and_nonogrid_all_load(corpus_dir):
    files = sorted((corpus_dir / "pynogram-examples").glob("*.txt"))
    files += sorted((corpus_dir / "nonogrid-examples").glob("*.t*"))
    assert len(files) == 16 + 4
    loaded = {f.relative_to(corpus_dir).as_posix(): read_puzzles(f) for f in files}
    colour = {k for k, ps in loaded.items() if not ps[0].is_black_and_white}
    assert colour == {"pynogram-examples/apples.txt", "pynogram-examples/uk.txt",
                      "nonogrid-examples/UK.toml"}
    for a, b in (("uk.txt", "UK.toml"), ("MLP.txt", "MLP.toml"), ("hello.txt", "hello.toml")):
        assert loaded[f"pynogram-examples/{a}"] == loaded[f"nonogrid-examples/{b}"]
    uk = loaded["pynogram-examples/uk.txt"][0]
    assert (uk.height, uk.width) == (15, 31)
    assert uk.palette[2:] == ((2, "blue", "#0000ff"), (3, "red", "#ff0000"))
    assert [(p.height, p.width) for p in loaded["nonogrid-examples/puzzles.txt"]] == [
        (10, 5), (25, 25), (19, 19)]
    with pytest.raises(PuzzleError, match="unknown puzzle format"):
        read_puzzle(corpus_dir / "nonogrid-examples" / "README.md")  # not a puzzle


@pytest.mark.parametrize("rel", list(COLOUR_FILES) + FAST_BW)
def test_corpus_solves_with_cpsat(corpus_dir, rel):
    path = corpus_dir / rel
    puzzles = read_puzzles(path)
    goal = read_puzzle_with_goal(path)[1] if len(puzzles) == 1 else None
    for p in puzzles:
        assert len(p.colours) == COLOUR_FILES.get(rel, 1), rel
        r = solve(p)
        if len(p.colours) > 1:
            assert touching_pairs(r.grid) > 0, rel  # colour puzzles exercise the no-gap rule
    if goal is not None:
        assert check_grid(puzzles[0], goal) == []
