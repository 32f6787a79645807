"""What a new user meets at the command line, README in hand: several --param pairs after one
flag, options given to a backend that does not take them, JSON and closed pipes, messages that
name what to do, and a budget for the ladder's exponential rungs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from formulations import backends

from helpers import ROOT, one_line_error
from helpers import run_cli as run
HEART = str(ROOT / "puzzles" / "heart5.txt")
CAT = str(ROOT / "puzzles" / "cat15.txt")
INSTALLED = backends.available_backends()


# -- --param and backend options ----------------------------------------------------------------

def test_several_params_after_one_flag_reach_the_sampler():
    if "openjij-sqa" not in INSTALLED:
        pytest.skip("openjij is not installed")
    # README's own line: gamma, trotter and beta after one --param, the FILE last
    p = run("--backend", "openjij-sqa", "--reads", "2", "--sweeps", "50", "--seed", "1",
            "--param", "gamma=2", "trotter=8", "beta=5", HEART, "--json")
    assert p.returncode in (0, 1), p.stderr
    assert json.loads(p.stdout)["backend"] == "openjij-sqa"


def test_param_pairs_and_file_in_any_order():
    from formulations.solve import build_parser

    parse = build_parser().parse_args
    for argv in (["--param", "a=1", "b=2", "F"], ["F", "--param", "a=1", "b=2"],
                 ["--param", "a=1", "--param", "b=2", "--", "F"],
                 ["--param", "a=1", "b=2", "F", "--seed", "1"]):
        args = parse(argv)
        assert (args.file, args.param) == ("F", [("a", "1"), ("b", "2")]), argv
    p = run(HEART, "--param", "a=1", "stray")  # the FILE was given: the stray word is an error
    assert p.returncode == 2 and "expected KEY=VALUE, got 'stray'" in one_line_error(p)


def test_a_bad_native_value_is_one_line():
    if "openjij-sqa" not in INSTALLED:
        pytest.skip("openjij is not installed")
    p = run(HEART, "--backend", "openjij-sqa", "--reads", "1", "--sweeps", "5",
            "--param", "gamma=abc")
    line = one_line_error(p)
    assert p.returncode == 2 and "gamma='abc'" in line and len(line) < 400


@pytest.mark.parametrize("backend, flag, value, takers", [
    ("cpsat", "--reads", "10", "sa, tabu"),
    ("lines", "--sweeps", "10", "sa"),
])
def test_a_sampler_option_given_to_another_backend_says_so(backend, flag, value, takers):
    p = run(HEART, "--backend", backend, flag, value)
    line = one_line_error(p)
    assert p.returncode == 2
    assert f"{flag} does not apply to backend '{backend}'" in line and takers in line
    assert "parameter" not in line  # not "unknown CP-SAT parameter 'reads'"


@pytest.mark.parametrize("backend", [b for b in ("sa", "openjij-sa") if b in INSTALLED])
def test_a_reversed_beta_range_is_refused(backend):
    p = run(HEART, "--backend", backend, "--beta-range", "10,1")
    assert p.returncode == 2 and "did you mean 1,10?" in one_line_error(p)
    assert run(HEART, "--backend", backend, "--beta-range", "1,10", "--seed", "1").returncode == 0


# -- JSON and pipes -------------------------------------------------------------------------------

def test_list_backends_json_is_one_object():
    p = run("--list-backends", "--json")
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)
    names = {b["name"]: b for b in record["backends"]}
    assert set(names) == set(backends.names())
    assert names["cpsat"]["model"] == "no-x" and names["lines"]["model"] is None
    assert {b for b, r in names.items() if r["installed"]} == set(INSTALLED)


def _into_closed_pipe(args: list[str], module: str) -> subprocess.CompletedProcess:
    # `... | head -0`: the reader has gone before the answer is written
    reader = subprocess.Popen(["head", "-0"], stdin=subprocess.PIPE)
    reader.wait()
    try:
        return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT,
                              stdout=reader.stdin, stderr=subprocess.PIPE, text=True,
                              timeout=180)
    finally:
        reader.stdin.close()


@pytest.mark.parametrize("args, module", [
    (["--summary", "CSV"], "formulations.compare"),
    ([HEART, "--backends", "lines", "--no-progress", "--workers", "1"], "formulations.compare"),
    ([CAT, "--backend", "lines"], "formulations.solve"),
    ([CAT, "--backend", "lines", "--json"], "formulations.solve"),
    (["--list-backends"], "formulations.solve"),
])
def test_output_into_a_closed_pipe_ends_quietly(tmp_path, args, module):
    if "CSV" in args:
        csv = tmp_path / "r.csv"
        assert run(HEART, "--backends", "lines", "--no-progress", "--workers", "1", "--out",
                   str(csv), module="formulations.compare").returncode == 0
        args = [str(csv) if a == "CSV" else a for a in args]
    p = _into_closed_pipe(args, module)
    assert p.returncode == 0, p.stderr
    assert "Broken pipe" not in p.stderr and "Traceback" not in p.stderr


# -- messages -------------------------------------------------------------------------------------

def test_a_multi_puzzle_file_names_the_file_key_form(tmp_path):
    two = tmp_path / "two.txt"
    two.write_text("GRID first\nROWS\n[ 1 ]\nCOLUMNS\n[ 1 ]\n"
                   "GRID second\nROWS\n[ 2 ]\n[ 0 ]\nCOLUMNS\n[ 1 ]\n[ 1 ]\n")
    line = one_line_error(run(str(two)))
    assert f"{two}::0 to {two}::1" in line and "read_puzzles" not in line


@pytest.mark.parametrize("backend", ["lines", "ladder:row"])
def test_a_backend_without_a_model_shows_no_model_size(backend):
    p = run(HEART, "--backend", backend)
    assert p.returncode == 0, p.stderr
    status = p.stdout.strip().splitlines()[-1]
    assert status.startswith("solved") and "None" not in status and "variables" not in status


def test_an_enumeration_reports_no_success_probability():
    if "exact" not in INSTALLED:
        pytest.skip("dimod is not installed")
    p = run(CAT, "--backend", "exact", "--presolve", "--json")
    record = json.loads(p.stdout)
    assert record["status"] == "solved" and record["success_probability"] is None
    assert record["info"]["solutions"] == 1 and record["info"]["states"] == 2 ** record["variables"]
    text = run(CAT, "--backend", "exact", "--presolve").stdout.strip().splitlines()[-1]
    assert text.startswith("solved") and " p=" not in text


def test_the_input_cap_is_shown_in_bytes_when_small():
    line = one_line_error(run(CAT, "--max-input-mb", "0.0001"))
    size = Path(CAT).stat().st_size
    assert f"file is {size:,} bytes, over the input cap of 104 bytes" in line


# -- the ladder's budget --------------------------------------------------------------------------

def test_ladder_cell_has_a_default_budget():
    from formulations.backends.ladder import DEFAULT_BUDGET_S

    p = run(CAT, "--backend", "ladder:cell", "--json")  # cell backtracking: minutes on the cat
    record = json.loads(p.stdout)
    assert p.returncode == 1 and record["status"] == "unknown"
    assert f"default of {DEFAULT_BUDGET_S:g} s" in record["message"]
    assert record["info"]["budget_s"] == DEFAULT_BUDGET_S
