"""Readers and writers: formats parse to the right clues, round trips are lossless, every kind
of bad input is a one-line PuzzleError naming file and line, and the whole corpus loads."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import assert_rejected
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formulations.puzzle import Block, Puzzle, PuzzleError, check_grid, puzzle_from_grid
from formulations.io import (
    FORMATS, detect_format, iter_janko, parse_puzzle, parse_puzzle_with_goal, read_goal,
    read_puzzle, read_puzzle_with_goal, read_puzzles,
)
from formulations.io.writers import write_non, write_text


def bw(rows, cols, name=""):
    return Puzzle.from_clues(rows, cols, name)


# 3x4 test puzzle; its solution:
#   ##.#
#   ....
#   .###
SMALL = bw([[2, 1], [0], [3]], [[1], [1, 1], [1], [1, 1]], "Small")
SMALL_GOAL = ((1, 1, 0, 1), (0, 0, 0, 0), (0, 1, 1, 1))


# ----------------------------------------------------------------------------- formats


def test_small_puzzle_is_consistent():
    assert check_grid(SMALL, SMALL_GOAL) == []


def test_text_format_features():
    text = """# a comment line is not a clue
title Small
rows   # header words are case-insensitive
2,1    # commas or spaces

3
Columns
1
1 1
# comment between column clues
1
1, 1


"""
    assert parse_puzzle(text, "txt") == SMALL
    assert parse_puzzle(text, path="x.txt") == SMALL  # chosen by extension
    assert parse_puzzle(text) == SMALL  # chosen by content


def test_text_format_without_rows_header_and_zero_clue():
    p = parse_puzzle("2 1\n0\n3\nCOLUMNS\n1\n1 1\n1\n1 1\n", "txt")
    assert p == bw([[2, 1], [], [3]], [[1], [1, 1], [1], [1, 1]])


def test_text_blank_line_inside_columns_is_an_empty_clue():
    p = parse_puzzle("ROWS\n1\n0\nCOLUMNS\n\n1\n\n", "txt")
    assert p == bw([[1], []], [[], [1]])


def test_text_title_keeps_hash():
    p = parse_puzzle("TITLE No #1\nROWS\n1\nCOLUMNS\n1\n", "txt")
    assert p.name == "No #1"


def test_dejoue_format():
    text = """# comment
GRID Small
ROWS
[ 2 1 ]
[ ]
[ 3 ]

COLUMNS
[ 1 ]
[ 1 1 ]
[ 0 ]
[ 1 1 ]
"""
    # column 3 is [ 0 ] = empty here, so this is a different (inconsistent) puzzle: check it
    with pytest.raises(PuzzleError, match="paint"):
        parse_puzzle(text, path="d.txt")
    text = text.replace("[ 0 ]", "[ 1 ]")
    assert detect_format(text) == "dejoue"
    assert parse_puzzle(text, path="d.txt") == SMALL


def test_dejoue_several_grids(tmp_path):
    one = "GRID A\nROWS\n[ 1 ]\nCOLUMNS\n[ 1 ]\n"
    two = "GRID B\nROWS\n[ 1 1 ]\nCOLUMNS\n[ 1 ]\n[ ]\n[ 1 ]\n"
    f = tmp_path / "two.txt"
    f.write_text(one + "\n" + two)
    got = read_puzzles(f)
    assert [p.name for p in got] == ["A", "B"]
    assert got[1] == bw([[1, 1]], [[1], [], [1]], "B")
    with pytest.raises(PuzzleError, match="holds 2 puzzles"):
        read_puzzle(f)


def test_keen_format():
    text = "2 1\n0\n3\n\n1\n1 1\n1\n1 1\n\n"
    assert detect_format(text) == "keen"
    assert parse_puzzle(text, path="k.txt") == bw(*[SMALL.rows, SMALL.columns])


def test_non_format_with_goal_and_any_key_order():
    text = """catalogue "test"
height 3
width 4
license CC-BY-3.0
something unknown to ignore

columns
1
1,1
1
1,1
title "Sm&amp;all &quot;x&quot;"

rows
2,1

3
goal "110100000111"
"""
    p, goal = parse_puzzle_with_goal(text, "non")
    assert p.rows == SMALL.rows and p.columns == SMALL.columns
    assert p.name == 'Sm&all "x"'
    assert goal == SMALL_GOAL
    assert detect_format(text) == "non"


def test_non_colour_letters():
    text = "width 2\nheight 1\ncolor a #FF0000\nrows\n1a,1\ncolumns\n1a\n1\n"
    p = parse_puzzle(text, "non")
    assert p.rows == ((Block(1, 2), Block(1, 1)),)
    assert (2, "a", "#ff0000") in p.palette
    # different colours need no gap: 1a,1 fits in 2 cells


def test_xml_black_and_white():
    text = """<?xml version="1.0"?>
<!DOCTYPE pbn SYSTEM "http://webpbn.com/pbn-0.3.dtd">
<puzzleset>
<puzzle type="grid" defaultcolor="black">
<title>Small &copy;</title>
<clues type="columns">
<line><count>1</count></line>
<line><count>1</count><count>1</count></line>
<line><count>1</count></line>
<line><count>1</count><count>1</count></line>
</clues>
<clues type="rows">
<line><count>2</count><count>1</count></line>
<line></line>
<line><count>3</count></line>
</clues>
<solution type="goal"><image>
|XX.X|
|....|
|.XXX|
</image></solution>
</puzzle>
</puzzleset>
"""
    p, goal = parse_puzzle_with_goal(text)
    assert p.rows == SMALL.rows and p.columns == SMALL.columns
    assert p.name == "Small \u00a9"
    assert p.palette == Puzzle((), ()).palette
    assert goal == SMALL_GOAL


def test_xml_colours_and_default_colour():
    text = """<puzzleset><puzzle type="grid" defaultcolor="ink" backgroundcolor="paper">
<color name="paper" char=" ">FFFFFF</color>
<color name="red" char="r">F00</color>
<color name="ink" char="#">000000</color>
<clues type="rows"><line><count color="red">1</count><count>1</count></line></clues>
<clues type="columns"><line><count color="red">1</count></line><line><count>1</count></line></clues>
<solution><image>|r#|</image></solution>
</puzzle></puzzleset>"""
    p, goal = parse_puzzle_with_goal(text, "xml")
    # background -> 0, defaultcolor -> 1, others in definition order
    assert p.palette == ((0, "paper", "#ffffff"), (1, "ink", "#000000"), (2, "red", "#ff0000"))
    assert p.rows == ((Block(1, 2), Block(1, 1)),)
    assert goal == ((2, 1),)


def test_xml_non_black_default_is_black_and_white():
    text = """<puzzleset><puzzle defaultcolor="c1"><color name="c1" char="@">CCCCCC</color>
<clues type="rows"><line><count>1</count></line></clues>
<clues type="columns"><line><count>1</count></line></clues></puzzle></puzzleset>"""
    p = parse_puzzle(text, "xml")
    assert p.is_black_and_white and p.rows == ((Block(1, 1),),)


def test_nin_format():
    text = "# comment\n4 3\n2 1\n0\n3   # trailing comment\n1\n1 1\n1\n1 1\n"
    assert detect_format(text) == "nin"
    assert parse_puzzle(text, path="a.nin") == bw(SMALL.rows, SMALL.columns)


def _janko_file(tmp_path, entries):
    f = tmp_path / "j.json"
    f.write_text(json.dumps({"count": len(entries), "data": entries}))
    return f


def test_janko(tmp_path):
    # "R C", C column lines, R row lines; solution rows of x/-
    problem = "3 4\n1\n1 1\n1\n1 1\n2 1\n0\n3"
    solution = "3 4\nx x - x\n- - - -\n- x x x"
    f = _janko_file(tmp_path, {"7_3x4": {"problem": problem, "solution": solution},
                               "8_1x1": {"problem": "1 1\n1\n1", "solution": ""}})
    got = list(iter_janko(f))
    assert [k for k, _, _ in got] == ["7_3x4", "8_1x1"]
    key, p, goal = got[0]
    assert p == bw(SMALL.rows, SMALL.columns, "7_3x4")
    assert goal == SMALL_GOAL
    assert got[1][2] is None
    assert len(read_puzzles(f)) == 2


def test_read_goal_and_file_dispatch(tmp_path):
    f = tmp_path / "s.non"
    f.write_text(write_non(SMALL, SMALL_GOAL))
    assert read_goal(f) == SMALL_GOAL
    assert read_puzzle(f) == SMALL
    g = tmp_path / "no_extension"
    g.write_text(write_non(SMALL))
    assert read_puzzle_with_goal(g) == (SMALL, None)
    h = tmp_path / "s.txt"
    h.write_text(write_text(SMALL))
    assert read_puzzle(h) == SMALL and read_goal(h) is None


def test_formats_listed():
    assert {"txt", "non", "xml", "nin", "janko", "dejoue", "keen", "pynogram", "nonogrid",
            "jcross", "nonograms_org", "tournament"} == set(FORMATS)


# ----------------------------------------------------------------------------- round trips

names = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=12).filter(
    lambda s: s == s.strip())


@st.composite
def grids(draw, colours: int = 1):
    h = draw(st.integers(1, 7))
    w = draw(st.integers(1, 7))
    return tuple(tuple(draw(st.lists(st.integers(0, colours), min_size=w, max_size=w)))
                 for _ in range(h))


@settings(max_examples=150, deadline=None)
@given(grids(), names)
def test_round_trip_random_black_and_white(grid, name):
    p = puzzle_from_grid(grid, name)
    text = write_text(p)
    assert parse_puzzle(text, "txt") == p
    assert parse_puzzle(text, path="p.txt") == p
    non = write_non(p, grid)
    got, goal = parse_puzzle_with_goal(non, path="p.non")
    assert got == p and goal == grid
    assert parse_puzzle(non) == p  # sniffed


@settings(max_examples=60, deadline=None)
@given(grids(colours=3))
def test_round_trip_colour_non(grid):
    p = puzzle_from_grid(grid)
    got, goal = parse_puzzle_with_goal(write_non(p, grid), "non")
    assert (got.rows, got.columns) == (p.rows, p.columns)
    assert goal == grid
    # the text format holds colour too (COLOUR lines; see tests/test_colour.py)
    got = parse_puzzle(write_text(p), "txt")
    assert (got.rows, got.columns) == (p.rows, p.columns)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(list("0123 ,#-x\n\n[]") + [
    "ROWS", "COLUMNS", "width 2", "height 1", "rows", "columns", "<a>", "</a>", "GRID g",
    'goal "01"', '{"data": {"k": {"problem": "', '"}}}'])).map("".join),
       st.sampled_from([None, *FORMATS]))
def test_garbage_gives_puzzle_or_puzzle_error(text, fmt):
    try:
        parse_puzzle(text, fmt, path="fuzz")
    except PuzzleError as e:
        assert "\n" not in str(e) and str(e).startswith("fuzz")


# ----------------------------------------------------------------------------- bad input

GOOD_TXT = "ROWS\n1\nCOLUMNS\n1\n"
BAD = [
    # (file name, content, expected line or None, message fragment)
    ("a.dat", "hello world\n", None, "unknown puzzle format"),
    ("a.txt", "ROWS\n1\n1 x\nCOLUMNS\n1\n1\n", 3, "non-numeric token 'x'"),
    ("a.txt", "# c\nROWS\n2 -1\nCOLUMNS\n1\n1\n", 3, "negative block length -1"),
    ("a.txt", "ROWS\n1\nCOLUMNS\n3 0 2\n", 4, "zero-length block"),
    ("a.txt", "ROWS\n1 1\n1\nCOLUMNS\n1\n1\n", 2, "needs 3 cells but the row has 2"),
    ("a.txt", "ROWS\n1\n1\nCOLUMNS\n1\n0\n", None,
     "row clues paint 2 cells but column clues paint 1"),
    ("a.txt", "ROWS\n1\n1\n", None, "missing COLUMNS"),
    ("a.txt", "", None, "empty file"),
    ("a.txt", "\n\n  \n", None, "empty file"),
    ("a.txt", "# only a comment\n", None, "empty file"),
    ("a.txt", "ROWS\n1\nCOLUMNS\n1\nCOLUMNS\n", 5, "second COLUMNS"),
    ("a.non", "width 2\nheight 3\nrows\n1\n1\ncolumns\n1\n1\n", 6,
     "'rows' section has 2 lines but height is 3"),
    ("a.non", "width 1\nheight 1\nrows\n1\ncolumns\n", 5, "(file ends)"),
    ("a.non", "width 1\nheight 1\nrows\n1\n1\ncolumns\n1\n", 5, "clue line outside"),
    ("a.non", "width 1\nheight 1\nrows\n1\n", None, "missing 'columns'"),
    ("a.non", "width 1\nheight 1\nrows\n1;2\ncolumns\n1\n", 4, "non-numeric token '1;2'"),
    ("a.non", "width 1\nheight 1\nrows\nx\ncolumns\n1\n", 4, "'rows' section has 0 lines"),
    ("a.non", "width 2\nheight 1\nrows\n1,0\ncolumns\n1\n0\n", 4, "zero-length block"),
    ("a.non", "width 1\nheight 1\nrows\n1\ncolumns\n1\ngoal \"01\"\n", 7, "goal has 2 cells"),
    ("a.non", "width x\n", 1, "whole number"),
    ("a.nin", "2 2\n1\n1\n1\n", 1, "expected 2 row lines and 2 column lines"),
    ("a.nin", "1 1\n1\n1\n1\n", 4, "found 3 clue lines"),
    ("a.nin", "1 1\n2\n1\n", 2, "needs 2 cells but the row has 1"),
    ("a.xml", "<puzzleset>\n<puzzle>\n</puzzleset>\n", 3, "malformed XML"),
    ("a.xml", "<puzzleset><puzzle>\n<clues type=\"rows\"><line><count>1</count></line></clues>\n"
              "<clues type=\"columns\"><line>\n<count>one</count></line></clues>\n"
              "</puzzle></puzzleset>", 4, "non-numeric token 'one'"),
    ("a.xml", "<puzzleset><puzzle>\n<clues type=\"rows\"><line><count>1</count></line></clues>\n"
              "</puzzle></puzzleset>", 1, "expected one <clues type=\"columns\">"),
    ("a.xml", "<puzzleset><puzzle>\n<clues type=\"rows\"><line><count color=\"red\">1</count>"
              "</line></clues>\n</puzzle></puzzleset>", 2, "unknown colour 'red'"),
    ("a.xml", "<puzzleset><puzzle type=\"triddler\"/></puzzleset>", 1, "triddler"),
    ("a.xml", "", None, "empty file"),
    ("a.json", "{\"data\": {\n\"k\": [}}", 2, "malformed JSON"),
    ("a.json", "{\"data\": {\"k\": {\"problem\": \"1 1\\n1\\nx\"}}}", None,
     "puzzle k: problem line 3: non-numeric token 'x'"),
    ("a.json", "[1, 2]", None, "not a puzzlekit janko file"),
    ("d.txt", "GRID g\nROWS\n[ 1 ]\n", 1, "missing COLUMNS section"),
    ("d.txt", "GRID g\nROWS\n[ 1 ]\nCOLUMNS\n[ 1\n", 5, "lacks the closing ]"),
    ("d.txt", "GRID g\nROWS\n[ 1 ]\nCOLUMNS\n[ 1 ]\nGRILL h\n", 6, "unrecognised line 'GRILL h'"),
]


@pytest.mark.parametrize("fname,content,line,fragment", BAD,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_bad_input_rejected_with_path_and_line(tmp_path, fname, content, line, fragment):
    f = tmp_path / fname
    f.write_text(content)
    assert_rejected(f, line, fragment)


def test_missing_unreadable_and_non_utf8(tmp_path):
    missing = tmp_path / "nope.non"
    with pytest.raises(PuzzleError, match=re.escape(f"{missing}: file not found")):
        read_puzzle(missing)
    with pytest.raises(PuzzleError, match="directory"):
        read_puzzle(tmp_path)
    f = tmp_path / "latin.txt"
    f.write_bytes(b"ROWS\n1\n# caf\xe9\nCOLUMNS\n1\n")
    with pytest.raises(PuzzleError, match=re.escape(f"{f}:3: file is not UTF-8")):
        read_puzzle(f)


def test_keen_with_two_blank_lines():
    with pytest.raises(PuzzleError, match=r"^k.txt:4: second blank line"):
        parse_puzzle("1\n\n1\n\n1\n", "keen", path="k.txt")


def test_unknown_format_name():
    with pytest.raises(PuzzleError, match="unknown format 'pbm'"):
        parse_puzzle(GOOD_TXT, "pbm", path="x")


def test_parse_without_path_names_line():
    with pytest.raises(PuzzleError, match=r"^line 2: non-numeric token 'q'"):
        parse_puzzle("ROWS\nq\nCOLUMNS\n1\n", "txt")


# ----------------------------------------------------------------------------- corpus

# Present in the corpus copy but malformed: the puzzle (25x20) is repeated five times with the
# line break after each copy's last clue missing ("4" + "25 20" -> "425 20").
KNOWN_BAD = {"jacop-nonogramRepository/data142.nin": (47, "found 225 clue lines")}

CORPUS_GROUPS = {
    "webpbn-survey-non": ["webpbn-survey-non/*.non"],
    "wolter-survey-xml": ["wolter-survey-xml/*.xml"],
    "dejoue-non": ["picross-solver-dejoue/**/*.non", "picross-solver-dejoue/*.nin"],
    "dejoue-txt": ["picross-solver-dejoue/test_pattern_*.txt",
                   "picross-solver-dejoue/picross_ds/*.txt",
                   "picross-solver-dejoue/example_input.txt",
                   "picross-solver-dejoue/domino_logic.txt"],
    "mikix": ["nonogram-db-mikix/**/*.non"],
    "jacop": ["jacop-nonogramRepository/*.nin"],
    "minizinc": ["minizinc-benchmarks-nonogram/converted-non/*.non"],
    "number-loom": ["number-loom-puzzles/*.xml"],
    "gramcracker": ["gramcracker-survey/*.txt"],
}


def _is_triddler(f: Path) -> bool:
    return 'type="triddler"' in f.read_text(encoding="utf-8")


@pytest.mark.parametrize("group", list(CORPUS_GROUPS))
def test_corpus_loads(corpus_dir, group):
    files = sorted({f for pat in CORPUS_GROUPS[group] for f in corpus_dir.glob(pat)})
    assert files, f"no files for {group}"
    loaded = goals = excused = 0
    for f in files:
        rel = f.relative_to(corpus_dir).as_posix()
        if group == "number-loom" and _is_triddler(f):
            excused += 1  # not rectangular grids; see test_corpus_triddlers
            continue
        if rel in KNOWN_BAD:
            line, fragment = KNOWN_BAD[rel]
            with pytest.raises(PuzzleError, match=re.escape(f"{f}:{line}: ") + ".*" + fragment):
                read_puzzle(f)
            excused += 1
            continue
        several = read_puzzles(f)  # dejoue files may hold more than one grid
        pairs = [read_puzzle_with_goal(f)] if len(several) == 1 else [(p, None) for p in several]
        for puzzle, goal in pairs:
            assert puzzle.height > 0 and puzzle.width > 0
            if group != "number-loom" and "color" not in f.name:
                assert puzzle.is_black_and_white, rel
            if goal is not None:
                assert check_grid(puzzle, goal) == [], rel
                goals += 1
        loaded += 1
    assert loaded == len(files) - excused and excused <= 2
    if group in ("wolter-survey-xml", "mikix"):
        assert goals == loaded  # every file there carries its solution


def test_corpus_colour_files(corpus_dir):
    p, goal = read_puzzle_with_goal(corpus_dir / "wolter-survey-xml/webpbn-color-00047.xml")
    assert [name for _, name, _ in p.palette] == ["white", "black", "red", "green", "blue"]
    assert p.colours == (1, 2, 3, 4) and check_grid(p, goal) == []
    colour = [f.name for f in sorted((corpus_dir / "number-loom-puzzles").glob("*.xml"))
              if not _is_triddler(f) and not read_puzzle(f).is_black_and_white]
    assert len(colour) == 7, colour  # the grid ones with two non-white colours


def test_corpus_triddlers(corpus_dir):
    files = [f for f in sorted((corpus_dir / "number-loom-puzzles").glob("*.xml"))
             if _is_triddler(f)]
    for f in files:
        with pytest.raises(PuzzleError, match="triddler"):
            read_puzzle(f)
    pytest.skip(f"{len(files)} number-loom triddler puzzles ({', '.join(f.name for f in files)}) "
                "are triangular-grid puzzles, not supported; rejected with a clear error")


def test_corpus_janko(corpus_dir):
    path = corpus_dir / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
    items = list(iter_janko(path))  # every puzzle must load
    assert len(items) == 2338
    with_solution = [it for it in items if it[2] is not None]
    assert len(with_solution) == 2337
    for key, puzzle, goal in with_solution[:: len(with_solution) // 50][:50]:
        assert check_grid(puzzle, goal) == [], key
        r, c = map(int, key.split("_")[1].split("x"))
        assert (puzzle.height, puzzle.width) == (r, c), key
