"""The nonograms.org reader: real saved pages (from the shared corpus), the real header records
of nonograms.ru 1039, synthetic arrays of real published answers, and every kind of bad input.

Real data (see tests/data/nonograms_org/README.md):
* saved nonograms.org pages when the shared corpus has them (``nonograms-org-pages/*.html``;
  the checks were written for 8543 "Deer" and 61475 "Reading a book"): the array's id, size and
  title agree with what the page says elsewhere, the record layout (run block, then one counted
  block) accounts for every record, and the derived clues have exactly one solution. No saved
  page is in the corpus today (no network here, none found in public sources): these skip;
* three quoted records of nonograms.ru 1039: the id and width formulas give 1039 and 50.
No real colour array was found: colour decoding is checked on synthetic arrays only.
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from formulations import check_grid, read_puzzle, read_puzzle_with_goal, solve_lines
from formulations.io import detect_format, parse_puzzle, parse_puzzle_with_goal
from formulations.io import nonograms_org as no
from formulations.puzzle import PuzzleError, grid_to_strings, line_runs
from formulations.testing.nonograms_org import encode_grid, page

DATA = Path(__file__).resolve().parent / "data" / "nonograms_org"
KNOWN = json.loads((DATA / "known_answers_4353_4374.json").read_text())


def lengths(clues):
    return [[b.length for b in c] for c in clues]


def pairs(clues, index):
    """Clues as [length, site colour] pairs, the site's colour k at package index index[k]."""
    back = {v: k for k, v in index.items()}
    return [[[b.length, back[b.colour]] for b in c] for c in clues]


# -- real pages ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_pages(corpus_dir):
    folder = corpus_dir / "nonograms-org-pages"
    pages = sorted(folder.glob("*.html"))
    if not pages:
        pytest.skip(f"no saved nonograms.org pages in {folder}")
    return pages


def test_real_pages_decode_to_what_the_pages_say(real_pages):
    seen = set()
    for path in real_pages:
        text = path.read_text(encoding="utf-8")
        d, _ = no.extract_array(text)
        dec = no.decode_details(d)
        # the id in the array is the page's own (its print link names it)
        print_id = int(re.search(r"nonogramprint/i/(\d+)", text).group(1))
        assert dec.puzzle_id == print_id == int(path.stem)
        w, h = map(int, re.search(r"Size: (\d+)x(\d+)", text).groups())
        assert (dec.width, dec.height) == (w, h)
        assert dec.palette == ((1, "#000000"),) and not dec.is_colour
        # layout: the run block, then one counted block holds every remaining record
        assert dec.second_block == dec.trailing_records - 2 > 0
        puzzle, goal = read_puzzle_with_goal(path)
        assert puzzle.name == re.search(r'id="nonogram_title">([^<]+)<', text).group(1)
        assert check_grid(puzzle, goal) == []
        # a published puzzle: the clues derived from the picture have exactly one solution
        res = solve_lines(puzzle, max_solutions=2)
        assert res.exhausted and res.solutions == (goal,)
        seen.add(dec.puzzle_id)
    assert {8543, 61475} <= seen


def test_real_page_61475_clues(real_pages):
    path = next((p for p in real_pages if p.stem == "61475"), None)
    if path is None:
        pytest.skip("page 61475 not in the corpus")
    puzzle = read_puzzle(path)
    # as decoded here (the picture, a reader holding a book, checked by eye)
    assert lengths(puzzle.rows) == [[7], [9], [9], [2, 2], [1, 2, 2, 1], [1, 1, 1], [11],
                                    [1, 1, 1], [1, 1, 1], [4, 1, 4], [1, 1, 1, 1, 1],
                                    [1, 2, 1, 2, 1], [1, 2, 1, 2, 1], [1, 11, 1], [1, 1, 1, 1]]
    assert lengths(puzzle.columns)[:4] == [[5], [1], [4, 3], [6, 1, 3]]


def test_real_header_records_of_nonograms_ru_1039():
    fx = json.loads((DATA / "real_header_nonograms_ru_1039.json").read_text())
    rec0, rec1, rec2 = fx["records_as_quoted"]
    assert no.square(rec0) == fx["known"]["puzzle_id"] == 1039
    assert no.linear(rec1) == fx["known"]["width"] == 50
    assert no.linear(rec2) == 37 != fx["known"]["height"]  # the third quoted record is not d[2]


# -- synthetic arrays of real answers -----------------------------------------------------------

def test_bw_4353_gives_the_published_clues():
    path = DATA / "synthetic_bw_4353.js"
    k = KNOWN["4353"]
    assert detect_format(path.read_text(), path) == "nonograms_org"  # .js: by content
    puzzle, goal = read_puzzle_with_goal(path)
    assert puzzle.is_black_and_white and puzzle.palette[1] == (1, "black", "#000000")
    assert [list(r) for r in goal] == k["solution"]
    assert lengths(puzzle.rows) == k["rows"] and lengths(puzzle.columns) == k["columns"]
    dec = no.decode_details(no.extract_array(path.read_text())[0])
    assert (dec.puzzle_id, dec.width, dec.height, dec.trailing_records) == (4353, 4, 6, 4)


def test_colour_4374_gives_the_published_clues_and_palette():
    path = DATA / "synthetic_colour_4374.html"
    k = KNOWN["4374"]
    puzzle, goal = read_puzzle_with_goal(path)
    dec = no.decode_details(no.extract_array(path.read_text())[0])
    assert dec.is_colour and [rgb for _, rgb in dec.palette] == k["palette"]
    assert dec.flags == (0, 1, 0)
    # black is colour 1 in the package, the others follow in the site's order
    index, palette = no.puzzle_colours(dec.palette)
    assert index == {2: 1, 1: 2, 3: 3}
    assert puzzle.palette == palette == ((0, "white", "#ffffff"), (1, "black", "#000000"),
                                         (2, "yellow", "#fbf204"), (3, "goldenrod", "#f4951c"))
    assert pairs(puzzle.rows, index) == k["rows"] and pairs(puzzle.columns, index) == k["columns"]
    assert [[{0: 0, **{v: s for s, v in index.items()}}[c] for c in r] for r in goal] \
        == k["solution"]
    assert check_grid(puzzle, goal) == []
    assert solve_lines(puzzle, max_solutions=2).solutions == (goal,)


def _corpus_goals(corpus_dir: Path):
    out = []
    for path in sorted((corpus_dir / "picross-solver-dejoue" / "nonograms_org").glob("*.non")):
        puzzle, goal = read_puzzle_with_goal(path)
        if goal is not None:
            out.append((path, puzzle, goal))
    if not out:
        pytest.skip("no dejoue nonograms.org files with a goal")
    return out


def test_synthetic_pages_of_corpus_goals_give_the_corpus_clues(corpus_dir, tmp_path):
    for path, puzzle, goal in _corpus_goals(corpus_dir):
        pid = int(path.stem.split("-")[2])
        d = encode_grid(goal, ["#000000"], puzzle_id=pid, seed=pid, decoys=puzzle.width,
                        trailing=3)
        f = tmp_path / f"{pid}.html"
        f.write_text(page(d, title=puzzle.name))
        got, got_goal = read_puzzle_with_goal(f)
        assert (got.rows, got.columns) == (puzzle.rows, puzzle.columns), path.name
        assert got_goal == goal and no.decode_details(d).puzzle_id == pid


def test_random_colour_round_trips():
    rng = random.Random(7)
    for trial in range(40):
        w, h, k = rng.randint(1, 30), rng.randint(1, 30), rng.randint(1, 9)
        grid = [[rng.choice([0] * 3 + list(range(1, k + 1))) for _ in range(w)] for _ in range(h)]
        codes = [f"#{rng.randrange(1 << 24):06x}" for _ in range(k)]
        d = encode_grid(grid, codes, puzzle_id=rng.randrange(100000), seed=trial,
                        decoys=rng.randint(0, 20), trailing=rng.randint(0, 5))
        dec = no.decode_details(d)
        assert [list(r) for r in dec.grid] == grid
        assert dec.palette == tuple((i + 1, c) for i, c in enumerate(codes))


def test_text_forms_and_format_by_name():
    grid = [[1, 0], [1, 1]]
    arr = json.dumps(encode_grid(grid, ["#000000"], puzzle_id=12, seed=3))
    forms = [arr, "  \n" + arr + " ;\n", "var d=" + arr + ";",
             "var   d =\n" + arr.replace(",", " ,\n ") + "\n;",
             "<html><script>var x=1;var d=" + arr.replace(" ", "") + ";</script></html>",
             "let d = " + arr[:-1] + ",]",
             'var d=[["a","b"]]; var id=[[1,2,3,4]]; obj.d=[[1]]; var d=' + arr + ";"]
    for text in forms:
        puzzle, goal = parse_puzzle_with_goal(text, "nonograms_org")
        assert goal == ((1, 0), (1, 1)), text[:40]
        assert parse_puzzle(text) == puzzle  # found by content
    assert grid_to_strings(goal) == ["#.", "##"]
    assert lengths(puzzle.rows) == [[1], [2]] and puzzle.name == "nonograms.org 12"


# -- bad input: one PuzzleError line naming the file ----------------------------------------------

SMALL = encode_grid([[1, 0], [1, 1]], ["#000000"], puzzle_id=12, seed=3)


def _with(d, index, record):
    d = [list(r) for r in d]
    d[index] = record
    return d


def _refused(tmp_path, content, name="bad.html") -> str:
    f = tmp_path / name
    f.write_text(content if isinstance(content, str) else "var d=" + json.dumps(content) + ";")
    with pytest.raises(PuzzleError) as info:
        read_puzzle(f)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"{f}:"), msg
    return msg


@pytest.mark.parametrize("text", [
    "<html>no puzzle here</html>", "var d=", "var d=[[1,2,3,4]", "var d=[[1,2,3,4],[5,6",
    "[[1,2,[3]]]", "[[1,2,3,4]]]", "[[1,-2,3,4]]", "[[1.5,2,3,4]]", "var d=[[1,2,3,4],[x]];",
    "[[" + "9" * 5000 + ",1,1,1]]", "[[1,2,3,4]]", "[[]]", "[" * 100000 + "]" * 100000,
    json.dumps(SMALL) + "]", json.dumps(SMALL) + "; var x=1",
])
def test_bad_text_is_one_line(tmp_path, text):
    _refused(tmp_path, text)


def test_bad_arrays_name_the_problem(tmp_path):
    d = SMALL
    assert "modulus" in _refused(tmp_path, _with(d, 1, [1, 2, 3, 0]))
    assert "at least" in _refused(tmp_path, d[:7])
    assert "expected 4" in _refused(tmp_path, _with(d, 2, [1, 2, 3]))
    assert "size" in _refused(tmp_path, _with(d, 1, [0, 0, 0, 5]))          # width 0
    assert "1..1000" in _refused(tmp_path, _with(d, 1, [1000, 1, 0, 1002]))  # width 1001
    assert "colours" in _refused(tmp_path, _with(d, 3, [0, 0, 0, 5]))
    assert "announces" in _refused(tmp_path, d[:-1])
    assert "red=" in _refused(tmp_path, _with(d, 5, [d[5][0] + 300, *d[5][1:]]))
    off, first = d[7], 8
    assert "row" in _refused(tmp_path, _with(d, first, [1 + off[0], 1 + off[1], 1 + off[2],
                                                        10 + off[3]]))
    col_oob = [2 + off[0], 5 + off[1], 1 + off[2], 1 + off[3]]
    assert "columns" in _refused(tmp_path, _with(d, first, col_oob))
    assert "colour" in _refused(tmp_path, _with(d, first, [1 + off[0], 1 + off[1], 7 + off[2],
                                                           1 + off[3]]))
    assert no.decode_details(_with(d, first, col_oob), strict=False).width == 2
    page_text = page(d).replace("<body>", "<body><td>Size: 3x3</td>")
    assert "Size: 3x3" in _refused(tmp_path, page_text)


def test_errors_name_the_line_of_the_array(tmp_path):
    text = "<html>\n<p>\n<script>\nvar d=" + json.dumps(_with(SMALL, 1, [1, 2, 3, 0])) + ";\n"
    msg = _refused(tmp_path, text)
    assert msg.startswith(f"{tmp_path / 'bad.html'}:4: ")


def test_size_guards(tmp_path):
    big = encode_grid([[0]], ["#000000"])
    huge = _with(_with(big, 1, [1000, 0, 0, 1001]), 2, [1000, 0, 0, 1001])
    assert (no.decode_details(huge).width, no.decode_details(huge).height) == (1000, 1000)
    assert "1..1000" in _refused(tmp_path, _with(big, 2, [1001, 0, 0, 1002]))
    assert "announces" in _refused(tmp_path, _with(big, 6, [999, 0, 0, 1000]))


def test_line_runs_match_the_site_rule():
    # maximal runs of one colour; different colours may touch
    assert [(b.length, b.colour) for b in line_runs([0, 1, 1, 2, 0, 2, 2, 0])] == \
        [(2, 1), (1, 2), (2, 2)]
