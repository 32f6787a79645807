"""The TAAI / TCGA / ICGA tournament set reader: many square puzzles per file, ``FILE::N`` by id,
detected by content, bad files refused with one line naming file and line."""
from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, assert_rejected
from formulations.io import FORMATS, detect_format, read_puzzle, read_puzzles, read_selected
from formulations.io.tournament import iter_tournament, read_tournament_solutions
from formulations.puzzle import PuzzleError, check_grid

# Two 3x3 puzzles. $1 (columns then rows):   $7:
#   # . #                                      . . .
#   # # .                                      . # .
#   . # #                                      . . .
# $7's first column clue and its rows 1 and 3 are empty lines.
SET = ("$1\n2\n2\n1\t1\n"  # columns
       "1\t1\n2\n2\n"     # rows
       "$7\n\n1\n0\n"     # columns: empty line, 1, lone 0 = empty
       "\n1\n\n")         # rows


def _write(tmp_path: Path, text: str, name: str = "set.txt") -> Path:
    f = tmp_path / name
    f.write_text(text)
    return f


def test_reads_every_puzzle_in_order_named_by_id(tmp_path):
    f = _write(tmp_path, SET)
    ps = read_puzzles(f)
    assert [p.name for p in ps] == ["$1", "$7"]
    assert [(p.height, p.width) for p in ps] == [(3, 3), (3, 3)]
    assert check_grid(ps[0], ((1, 0, 1), (1, 1, 0), (0, 1, 1))) == []
    assert check_grid(ps[1], ((0, 0, 0), (0, 1, 0), (0, 0, 0))) == []
    assert check_grid(ps[1], ((0, 0, 0), (0, 0, 1), (0, 0, 0))) != []
    assert [(k, p) for k, p in iter_tournament(f)] == [("1", ps[0]), ("7", ps[1])]


def test_file_key_names_one_puzzle_by_its_id(tmp_path):
    f = _write(tmp_path, SET)
    assert read_puzzle(f"{f}::7") == read_puzzles(f)[1]
    assert read_selected(f, "1") == ("$1", read_puzzles(f)[0])
    with pytest.raises(PuzzleError, match=r"no puzzle \$2 \(ids \$1 to \$7\)"):
        read_puzzle(f"{f}::2")


def test_detected_by_content_whatever_the_name(tmp_path):
    assert "tournament" in FORMATS
    for name in ("set.txt", "set", "set.q"):
        f = _write(tmp_path, SET, name)
        assert detect_format(SET, f) == "tournament"
        assert len(read_puzzles(f)) == 2
    assert detect_format(SET) == "tournament"


def test_trailing_blank_lines_end_the_file(tmp_path):
    f = _write(tmp_path, SET + "\n\n")
    assert [p.name for p in read_puzzles(f)] == ["$1", "$7"]


@pytest.mark.parametrize("text, line, fragment", [
    ("$1\n1\n1\n1\n", 1, "3 clue lines, expected an even number"),          # odd count
    ("$1\n1\n1\n1\n1\n$2\n1\n1\n", 6, "puzzle $2 has 2 clue lines, expected 4"),  # size changes
    ("$1\n1\nx\n1\n1\n", 3, "non-numeric token 'x'"),
    ("$1\n3\n1\n1\n1\n", 2, "needs 3 cells but the column has 2"),
    ("$1\n1\n1\n1\n1\n$1\n1\n1\n1\n1\n", 6, "id $1 appears twice"),
    ("$1\n1\n1\n1\n1\n$x\n1\n1\n1\n1\n", 6, "malformed puzzle id line '$x'"),
])
def test_bad_sets_are_one_line_naming_file_and_line(tmp_path, text, line, fragment):
    f = _write(tmp_path, text)
    with pytest.raises(PuzzleError) as info:
        read_puzzles(f)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"{f}:{line}: "), msg
    assert fragment in msg, msg


def test_named_format_wants_the_id_line_first():
    from formulations.io import parse_puzzle
    with pytest.raises(PuzzleError, match=r"^x.txt:1: want a '\$N' line"):
        parse_puzzle("1\n$1\n1\n1\n", fmt="tournament", path="x.txt")


def test_a_single_puzzle_set_reads_as_one_puzzle(tmp_path):
    f = _write(tmp_path, "$3\n1\n1\n1\n1\n")
    assert read_puzzle(f).name == "$3"
    assert_rejected(_write(tmp_path, "$3\n1\n1\n1\n", "odd.txt"), 1, "expected an even number")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "formulations.solve", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=180)


def test_cli_solves_one_puzzle_and_refuses_bad_input_with_exit_2(tmp_path):
    f = _write(tmp_path, SET)
    ok = run_cli(f"{f}::1", "--backend", "lines")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.split()[:3] == ["#.#", "##.", ".##"]
    many = run_cli(str(f), "--backend", "lines")
    assert many.returncode == 2 and f"{f}::1" in many.stderr
    bad = run_cli(str(_write(tmp_path, "$1\n1\nx\n1\n1\n", "bad.txt")), "--backend", "lines")
    lines = bad.stderr.strip().splitlines()
    assert bad.returncode == 2 and len(lines) == 1 and ":3: " in lines[0], bad.stderr


def test_solutions_file_gzip_and_plain(tmp_path):
    text = "$1\n1\t0\t1\n1\t1\t0\n0\t1\t1\n$7\n0 0 0\n0 1 0\n0 0 0\n"
    plain = _write(tmp_path, text, "sol.txt")
    packed = tmp_path / "sol.txt.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    want = {"1": ((1, 0, 1), (1, 1, 0), (0, 1, 1)), "7": ((0, 0, 0), (0, 1, 0), (0, 0, 0))}
    assert read_tournament_solutions(plain) == want == read_tournament_solutions(packed)
    with pytest.raises(PuzzleError, match=r"sol2.txt:1: solution \$1 has cell '2'"):
        read_tournament_solutions(_write(tmp_path, "$1\n2 0\n0 1\n", "sol2.txt"))


TOURNAMENT = "taai-tcga-icga-tournament"


# one set of each series, and three whose files hold an empty clue line (an empty row or column)
SETS = ("taai2011", "tcga2012", "icga2016", "taai2017", "tcga2019", "icga2020")


def test_corpus_sets_read_and_their_known_solutions_fit(corpus_dir):
    """Six sets read whole (1,000 square 25x25 puzzles, ids 1..1000 in order) and every 50th
    puzzle's known solution satisfies its clues; one puzzle read by ``FILE::N`` is the same."""
    questions = [q for q in (corpus_dir / TOURNAMENT / "question" / f"{s}.txt" for s in SETS)
                 if q.is_file()]
    if not questions:
        pytest.skip("no tournament sets in the corpus")
    for q in questions:
        ps = read_puzzles(q)
        assert [p.name for p in ps] == [f"${k}" for k in range(1, 1001)], q
        assert all(p.height == p.width == 25 for p in ps), q
        sols = read_tournament_solutions(corpus_dir / TOURNAMENT / "solution" / f"{q.name}.gz")
        for p in ps[::50]:
            assert check_grid(p, sols[p.name[1:]]) == [], (q, p.name)
    q = questions[0]
    assert read_puzzle(f"{q}::1000") == read_puzzles(q)[-1]
