"""The command line as a user runs it: real subprocesses, exit codes, one-line errors."""
from __future__ import annotations

import json
import re

import pytest

from formulations.puzzle import check_grid, grid_from_strings
from formulations.io import read_puzzle

from helpers import ROOT
from helpers import run_cli as run


def test_cat15_json_is_one_object_with_the_documented_keys():
    p = run("puzzles/cat15.txt", "--backend", "cpsat", "--json", "--unique")
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)  # exactly one JSON object on stdout
    for key in ("status", "grid", "unique", "backend", "variables", "constraints", "build_s", "solve_s"):
        assert key in record
    assert record["status"] == "solved" and record["unique"] is True
    # cpsat gets the model without x unless asked (Backend.use_x): 236 a-variables for cat15
    assert record["variables"] == 236 and record["use_x"] is False and record["backend"] == "cpsat"
    assert check_grid(read_puzzle(ROOT / "puzzles/cat15.txt"), grid_from_strings(record["grid"])) == []


@pytest.mark.parametrize("flag, use_x, variables", [("--x", True, 461), ("--no-x", False, 236)])
def test_x_flags_choose_the_model_variant(flag, use_x, variables):
    p = run("puzzles/cat15.txt", "--backend", "cpsat", flag, "--json", "--unique")
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)
    assert (record["use_x"], record["variables"], record["unique"]) == (use_x, variables, True)
    assert check_grid(read_puzzle(ROOT / "puzzles/cat15.txt"), grid_from_strings(record["grid"])) == []


def test_x_and_no_x_together_are_a_usage_error():
    p = run("puzzles/cat15.txt", "--x", "--no-x")
    assert p.returncode == 2 and "not allowed with" in p.stderr and p.stdout == ""


def test_human_output_shows_the_grid_and_a_status_line():
    p = run("puzzles/cat15.txt", "--no-x")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    assert lines[4] == ".#############."
    assert lines[15].startswith("solved") and "variables=236" in lines[15]


def test_impossible_exits_1_and_says_infeasible():
    p = run("puzzles/impossible3.txt", "--json")
    assert p.returncode == 1
    assert json.loads(p.stdout)["status"] == "infeasible"


def test_two_solutions_are_reported_not_unique():
    p = run("puzzles/two_solutions4.txt", "--unique", "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout)["unique"] is False


BAD_INPUTS = {
    "token.txt": ("1\n2 x\nCOLUMNS\n1\n", "token.txt:2:", "non-numeric"),
    "zero.txt": ("3 0 2\nCOLUMNS\n1\n1\n", "zero.txt:1:", "zero-length"),
    "negative.txt": ("-1\nCOLUMNS\n1\n", "negative.txt:1:", "negative"),
    "fit.txt": ("1 1\nCOLUMNS\n1\n1\n", "fit.txt:1:", "needs 3 cells"),
    "totals.txt": ("1\n1\nCOLUMNS\n1\n0\n", "totals.txt", "row clues paint 2"),
    "nocolumns.txt": ("1\n2\n", "nocolumns.txt", "COLUMNS"),
    "empty.txt": ("", "empty.txt", "empty"),
    "puzzle.xyz": ("\x00\x01 binary", "puzzle.xyz", "format"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_gives_one_line_and_exit_2(tmp_path, name):
    text, where, what = BAD_INPUTS[name]
    (tmp_path / name).write_text(text)
    p = run(str(tmp_path / name))
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert where in p.stderr and what.lower() in p.stderr.lower(), p.stderr


@pytest.mark.parametrize("args, message", [
    (("puzzles/cat15.txt", "--backend", "nope"), "choose from cpsat"),
    (("puzzles/cat15.txt", "--backend", "lines", "--param", "foo=1"), "unknown option 'foo' for backend 'lines'"),
    (("puzzles/cat15.txt", "--param", "foo=1"), "unknown CP-SAT parameter 'foo'"),
    (("puzzles/missing.txt",), "not found"),
    (("puzzles/cat15.txt", "--bogus"), "unrecognized arguments"),
    (("puzzles/cat15.txt", "--export-bqm", "/nonexistent-dir/x.bqm"), "No such file"),
    (("puzzles/cat15.txt", "--png", "/nonexistent-dir/x.png"), "No such file"),
    (("puzzles/cat15.txt", "--workers", "-1"), "workers must be"),
    (("puzzles/cat15.txt", "--export-bqm", "x.bqm", "--presolve"), "cannot be combined"),
    (("puzzles/cat15.txt", "--backend", "qbpp"), "100 binary variables per process"),
])
def test_usage_errors_exit_2_without_traceback(args, message):
    p = run(*args)
    assert p.returncode == 2
    assert message in p.stderr and "Traceback" not in p.stderr


def test_large_seed_and_solver_log_keep_the_contract():
    p = run("puzzles/heart5.txt", "--seed", "99999999999", "--param", "log=true", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["status"] == "solved"  # the CP-SAT log went to stderr


def test_presolve_reports_variables_before_and_after():
    p = run("puzzles/cat15.txt", "--presolve", "--json", "--no-x")
    record = json.loads(p.stdout)
    assert p.returncode == 0 and record["status"] == "solved"
    assert record["variables_before"] == 236 and 0 < record["variables_after"] < 236


def test_export_bqm_writes_files_that_dimod_reads(tmp_path):
    dimod = pytest.importorskip("dimod")
    out = tmp_path / "cat.bqm"
    p = run("puzzles/cat15.txt", "--export-bqm", str(out), "--no-x")
    assert p.returncode == 0, p.stderr
    with open(out, "rb") as f:
        bqm = dimod.BinaryQuadraticModel.from_file(f)
    assert bqm.num_variables == 236
    assert sorted(q.name for q in tmp_path.iterdir()) == ["cat.bqm"]  # one file, as named
    p = run("puzzles/cat15.txt", "--export-bqm", str(tmp_path / "cat.qubo"), "--no-x")
    assert p.returncode == 0 and (tmp_path / "cat.qubo").read_text().startswith("c nonogram QUBO")


def test_list_backends_names_every_registered_backend():
    p = run("--list-backends")
    assert p.returncode == 0
    from formulations import backends
    for name in backends.names():
        assert name in p.stdout


def test_help_and_readme_name_the_registrys_model_variants():
    # --help's --x / --no-x defaults come from the registry (Backend.model_x); README's sentence
    # lists the same backends with x
    from formulations.backends import all_backends
    from formulations.solve import build_parser

    text = " ".join(build_parser().format_help().split())
    for with_x, flag in ((True, "--x build with"), (False, "--no-x build without")):
        names = [b.name for b in all_backends() if b.uses_model and b.model_x() is with_x]
        assert names
        part = text.split(flag, 1)[1].split(" --", 1)[0]
        listed = part.split("the default for ", 1)[1].replace(",", " ").split()
        assert sorted(listed) == sorted(names), (flag, listed)
    readme = " ".join((ROOT / "README.md").read_text().split())
    with_x = readme.split("with x for ", 1)[1].split(".", 1)[0]
    named = set(re.findall(r"`([\w-]+)`", with_x))
    assert named == {b.name for b in all_backends() if b.uses_model and b.model_x()}, with_x
