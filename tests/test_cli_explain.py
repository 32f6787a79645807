"""``--explain`` and ``--difficulty`` on the command line: real subprocesses, the text a person
reads and the JSON a program reads (issue 43)."""
from __future__ import annotations

import json
import re

from helpers import ROOT
from helpers import run_cli as run

from formulations.io import read_puzzle
from formulations.puzzle import check_grid


def test_explain_prints_every_step_numbered_from_one():
    r = run("puzzles/cat15.txt", "--backend", "lines", "--explain")
    assert r.returncode == 0, r.stderr
    steps = re.findall(r"^ *(\d+)\. (row|column|probe|guess)", r.stdout, re.M)
    assert [int(n) for n, _ in steps] == list(range(1, len(steps) + 1))
    # cat15 needs one probe: its text names the cell from 1, the assumption and the line that fails
    probe = re.search(r"probe r(\d+)c(\d+): if it were (empty|filled), .* would leave "
                      r"(row|column) (\d+) \[[\d ]+\] no placement, so r\1c\2 is (empty|filled)",
                      r.stdout)
    assert probe and probe.group(3) != probe.group(6)
    assert "row 1 [0]: its only placement that fits gives columns 1-15 empty" in r.stdout


def test_json_explanation_covers_every_cell_once():
    r = run("puzzles/flower_colour8.txt", "--backend", "lines", "--explain", "--json")
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    ex = rec["explanation"]
    p = read_puzzle(ROOT / "puzzles" / "flower_colour8.txt")
    cells = [tuple(c[:2]) for st in ex["steps"] for c in st["cells"]]
    assert sorted(cells) == [(i, j) for i in range(p.height) for j in range(p.width)]
    # the cells' values make a grid that reads the clues (colour ids, 0 empty)
    got = {(i, j): v for st in ex["steps"] for i, j, v in st["cells"]}
    grid = tuple(tuple(got[(i, j)] for j in range(p.width)) for i in range(p.height))
    assert check_grid(p, grid) == []
    assert ex["difficulty"]["level"] in range(1, 6)
    assert {st["rule"] for st in ex["steps"]} <= {"line", "probe", "guess"}


def test_difficulty_reports_the_level_and_the_picture():
    r = run("puzzles/two_solutions4.txt", "--backend", "lines", "--difficulty")
    assert r.returncode == 0, r.stderr
    assert re.search(r"difficulty: level [45] of 5", r.stdout)
    assert "line-solvable: no" in r.stdout
    report = r.stdout.split("difficulty:")[1]
    pic = [ln for ln in report.splitlines() if re.fullmatch(r"[#.@:PG]{4}", ln)]
    assert len(pic) == 4 and "G" in "".join(pic)  # two solutions: at least one guess
    r = run("puzzles/heart5.txt", "--backend", "lines", "--difficulty", "--json")
    d = json.loads(r.stdout)["explanation"]["difficulty"]
    assert d["level"] == 1 and d["line_solvable"] and d["beyond_lines"] == []


def test_impossible_puzzle_explained_to_its_contradiction():
    r = run("puzzles/impossible3.txt", "--backend", "lines", "--explain")
    assert r.returncode == 1
    assert "has no placement: the puzzle has no solution" in r.stdout


def test_without_the_flags_the_json_has_no_explanation():
    r = run("puzzles/heart5.txt", "--backend", "lines", "--json")
    assert "explanation" not in json.loads(r.stdout)


def test_a_cut_explanation_says_so(corpus_dir):
    """faase (Wolter's survey) takes the line engine more than 20 s here (knotty, used before,
    now ends in about 2.5 s): with --time-limit the trace gets what the solve left, stops, and
    is not rated."""
    path = corpus_dir / "wolter-survey-xml" / "faase.xml"
    if not path.is_file():
        import pytest
        pytest.skip("faase.xml absent")
    r = run(str(path), "--backend", "lines", "--time-limit", "2", "--difficulty", "--json")
    assert r.returncode == 1
    ex = json.loads(r.stdout)["explanation"]
    assert ex["status"] == "unknown" and ex["difficulty"]["level"] is None
    r = run(str(path), "--backend", "lines", "--time-limit", "2", "--difficulty")
    assert "difficulty: not rated (the explanation stopped at the time limit" in r.stdout
