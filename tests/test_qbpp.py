"""The pyqbpp backends: real solves in worker processes, the licence refusal, crash handling.

pyqbpp is only ever driven in worker processes here; this pytest process imports nothing of it
beyond ``import pyqbpp`` (no native code), so an abort can never take the test run down.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from formulations.model import build_model
from formulations.model import Sense
from formulations.puzzle import Puzzle, check_grid, puzzle_from_grid
from formulations.results import BackendError, Status
from formulations.solving import solve_puzzle

pytest.importorskip("pyqbpp")

from formulations.backends import get_backend  # noqa: E402
from formulations.backends.qbpp_easy import (  # noqa: E402
    EXHAUSTIVE_MAX_VARIABLES, failure_answer, integer_weights, pyqbpp_energies,
    run_worker)

from helpers import ROOT
HEART = ROOT / "puzzles" / "heart5.txt"
CAT = ROOT / "puzzles" / "cat15.txt"
# Row and column clues each paint 2 cells, yet row 1 "2" needs column 2 which must stay empty.
INFEASIBLE = Puzzle.from_clues([[2], [0]], [[2], [0]])


def _read(path: Path) -> Puzzle:
    from formulations.io import read_puzzle
    return read_puzzle(path)


def _random_puzzle(seed: int, h: int = 5, w: int = 5) -> Puzzle:
    rng = np.random.default_rng(seed)
    grid = tuple(tuple(int(v) for v in row) for row in rng.random((h, w)) < 0.55)
    return puzzle_from_grid(grid, f"random{seed}")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "formulations.solve", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_heart5_solves_with_easysolver():
    puzzle = _read(HEART)
    res = solve_puzzle(puzzle, "qbpp", use_x=True, time_limit=10, seed=1)
    assert res.status is Status.SOLVED, res.message
    assert res.variables < 100
    assert check_grid(puzzle, res.grid) == []
    assert res.energy == 0
    assert res.info["tts"] >= 0 and res.info["qbpp_max_var_count"] >= 100
    assert res.info["weights"] == {"monotone": 1.0, "order": 1.0, "link": 1.0}  # QBPP_WEIGHTS


def test_random_puzzles_solve_with_and_without_x():
    for seed, use_x in ((3, True), (4, False)):
        puzzle = _random_puzzle(seed)
        res = solve_puzzle(puzzle, "qbpp", use_x=use_x, time_limit=10, seed=seed)
        assert res.status is Status.SOLVED, res.message
        assert check_grid(puzzle, res.grid) == []


def test_two_solves_in_one_process_exceed_one_budget_together():
    # Three 44-variable solves: 132 variables in all, more than one process may create without a
    # licence, so each must run in its own worker and this process must stay untouched.
    # Each worker reports pyqbpp's own count of variables already used in its process before it
    # builds: 0 every time shows that every solve got a process of its own.
    puzzle = _read(HEART)
    for seed in (1, 2, 3):
        res = solve_puzzle(puzzle, "qbpp", use_x=True, time_limit=10, seed=seed)
        assert res.status is Status.SOLVED and check_grid(puzzle, res.grid) == []
        assert res.info["qbpp_used_var_count"] == 0
        assert res.variables == 44
    # and this process never loaded pyqbpp's native part (only its lazy package face)
    assert [m for m in sys.modules if m.startswith("pyqbpp.")] == []


def test_energies_agree_with_the_shared_penalty_lowering():
    from formulations.model.penalty import lower

    rng = np.random.default_rng(7)
    cases = [(_read(HEART), True, None), (_random_puzzle(11), True, {"monotone": 3, "order": 1.5}),
             (_random_puzzle(12, 6, 6), False, {"link": 2.5})]
    for puzzle, use_x, weights in cases:
        nm = build_model(puzzle, use_x=use_x)
        n = nm.model.num_variables
        assert n <= 100
        X = rng.integers(0, 2, size=(40, n))
        solution = nm.encode(_solution_grid(puzzle, nm))
        X = np.vstack([X, solution[None, :]])
        got = pyqbpp_energies(nm, X, weights)
        want = lower(nm, weights).energies(X)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
        feasible = np.array([nm.model.is_feasible(x) for x in X])
        assert np.array_equal(got == 0, feasible)
        assert got[-1] == 0 and (got[:-1] > 0).any()


def _solution_grid(puzzle: Puzzle, nm):
    res = solve_puzzle(puzzle, "cpsat", use_x=nm.use_x)
    assert res.solved
    return res.grid


def test_native_inequality_penalty_is_the_indicator_for_the_order_encoding():
    # pyqbpp charges w*d^2 for a constraint d away from its range; the builder's inequalities are
    # all x_a - x_b <= 0 over binaries, where d^2 = x_a*(1 - x_b) (the penalty module's form).
    nm = build_model(_read(HEART), use_x=True)
    for c in nm.model.constraints:
        if c.sense is not Sense.EQ:
            assert c.sense is Sense.LE and c.rhs == 0 and sorted(a for _, a in c.terms) == [-1, 1]


def test_cat15_is_refused_cleanly_by_the_cli_and_this_process_lives_on():
    proc = _cli(str(CAT), "--backend", "qbpp", "--json")
    assert proc.returncode == 2
    record = json.loads(proc.stdout)  # with --json the refusal too is one JSON object
    assert record["status"] == "error" and record["exit_code"] == 2 and record["grid"] is None
    assert "461 binary variables" in record["message"]
    err = proc.stderr
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    for needle in ("461 binary variables", "100 binary variables", "--presolve", "--backend sa",
                   "qbpp-license -k", "QBPP_LICENSE_KEY"):
        assert needle in err, needle
    # In this process too: a refusal, not an abort, and the next qbpp solve still works.
    with pytest.raises(BackendError, match="461 binary variables"):
        solve_puzzle(_read(CAT), "qbpp", time_limit=5)
    res = solve_puzzle(_read(HEART), "qbpp", time_limit=10, seed=5)
    assert res.status is Status.SOLVED and check_grid(_read(HEART), res.grid) == []


def test_cli_json_stdout_is_one_object_without_the_licence_banner():
    proc = _cli(str(HEART), "--backend", "qbpp", "--json", "--seed", "2")
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["status"] == "solved" and record["energy"] == 0 and "tts" in record["info"]
    assert "QUBO++" not in proc.stdout and "license" not in proc.stdout.lower()


def test_exhaustive_solves_and_proves_infeasibility():
    puzzle = _read(HEART)
    res = solve_puzzle(puzzle, "qbpp-exhaustive", use_x=False)
    assert res.status is Status.SOLVED and check_grid(puzzle, res.grid) == []
    bad = solve_puzzle(INFEASIBLE, "qbpp-exhaustive", use_x=True)
    assert bad.status is Status.INFEASIBLE and bad.energy > 0
    assert solve_puzzle(INFEASIBLE, "cpsat").status is Status.INFEASIBLE  # and CP-SAT agrees
    with pytest.raises(BackendError, match=f"at most {EXHAUSTIVE_MAX_VARIABLES}"):
        solve_puzzle(puzzle, "qbpp-exhaustive", use_x=True)


def test_easysolver_on_an_infeasible_puzzle_reports_unknown_with_its_best_sample():
    res = solve_puzzle(INFEASIBLE, "qbpp", time_limit=8, seed=1)  # the worker start counts too
    assert res.status is Status.UNKNOWN and res.energy > 0 and res.violations


def test_a_crashing_worker_becomes_an_error_result():
    # An unknown search keyword makes pyqbpp abort its process: a real SIGABRT in the worker.
    nm = build_model(_read(HEART), use_x=False)
    from formulations.backends.qbpp_easy import model_payload
    payload, _ = model_payload(nm.model, {"monotone": 2.0, "order": 2.0, "link": 1.0})
    reply, problem = run_worker({"op": "solve", "solver": "easy", **payload,
                                 "params": {"no_such_keyword": 1}}, timeout=60)
    assert reply is None and problem.startswith("pyqbpp worker died (signal SIGABRT)")
    assert "no_such_keyword" in problem
    raw = failure_answer(problem)
    assert raw.status is Status.ERROR and not raw.assignments


def test_parent_side_timeout_kills_the_worker():
    nm = build_model(INFEASIBLE, use_x=True)
    from formulations.backends.qbpp_easy import model_payload
    payload, _ = model_payload(nm.model, {"monotone": 2.0, "order": 2.0, "link": 1.0})
    reply, problem = run_worker({"op": "solve", "solver": "easy", **payload,
                                 "params": {"target_energy": 0, "time_limit": 60}}, timeout=1.5)
    assert reply is None and problem.startswith("timeout")
    assert failure_answer(problem).status is Status.UNKNOWN


def test_options_are_checked_before_any_worker_runs():
    puzzle = _read(HEART)
    with pytest.raises(BackendError, match="unknown option"):
        solve_puzzle(puzzle, "qbpp", params={"bogus": "1"})
    with pytest.raises(BackendError, match="unknown constraint family"):
        solve_puzzle(puzzle, "qbpp", weights={"cells": 1.0})
    with pytest.raises(BackendError, match="positive"):
        solve_puzzle(puzzle, "qbpp", weights={"link": 0})
    res = solve_puzzle(puzzle, "qbpp", weights={"monotone": 1.5, "order": 1.5, "link": 1},
                       thread_count=2, seed=3, time_limit=10)
    assert res.status is Status.SOLVED and res.info["weight_scale"] == 2


def test_integer_weights():
    assert integer_weights({"a": 2.0, "b": 1.0}) == ({"a": 2, "b": 1}, 1)
    assert integer_weights({"a": 1.5, "b": 1 / 3}) == ({"a": 9, "b": 2}, 6)
    with pytest.raises(BackendError):
        integer_weights({"a": 2 ** 0.5})


def test_listed_as_unavailable_with_install_hint_without_pyqbpp(monkeypatch):
    from formulations.solve import list_backends

    monkeypatch.setitem(sys.modules, "pyqbpp", None)  # makes `import pyqbpp` fail like a missing one
    b = get_backend("qbpp")
    assert not b.available()
    listing = {line.split()[0]: line for line in list_backends().splitlines()}
    for name in ("qbpp", "qbpp-exhaustive"):
        assert "not installed" in listing[name] and "pyqbpp==2026.10.6" in listing[name]
    with pytest.raises(BackendError, match=r"pip install -e \"\.\[qbpp\]\""):
        solve_puzzle(_read(HEART), "qbpp")


def test_cat15_solves_with_presolve():
    proc = _cli(str(CAT), "--backend", "qbpp", "--presolve", "--json", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["status"] == "solved"
    assert check_grid(_read(CAT), tuple(tuple(int(c == "#") for c in r) for r in record["grid"])) == []


def test_cat15_fits_after_presolve():
    presolve = pytest.importorskip("formulations.model.presolve").presolve
    from formulations.solving import verify

    puzzle = _read(CAT)
    pn = presolve(build_model(puzzle, use_x=True))
    assert pn.variables_after <= 100 < pn.variables_before
    for name in ("qbpp", "qbpp-exhaustive"):
        if name == "qbpp-exhaustive" and pn.variables_after > EXHAUSTIVE_MAX_VARIABLES:
            continue
        res = verify(pn, get_backend(name).solve(pn, time_limit=10, seed=1), name)
        assert res.status is Status.SOLVED, (name, res.message)
        assert check_grid(puzzle, res.grid) == []


def test_two_solutions4_solves_at_the_defaults():
    # at the samplers' 2/2/1 weights EasySolver stalled at energy 2 on this 4x4 (36 variables
    # with x) for every seed; qbpp's own defaults (QBPP_WEIGHTS) solve it, from the command line
    p = _cli(str(ROOT / "puzzles" / "two_solutions4.txt"), "--backend", "qbpp", "--seed", "1",
             "--time-limit", "60", "--json")
    record = json.loads(p.stdout)
    assert p.returncode == 0 and record["status"] == "solved", record["message"]
    assert record["energy"] == 0 and record["use_x"] is True
    grid = tuple(tuple(int(c == "#") for c in row) for row in record["grid"])
    assert check_grid(_read(ROOT / "puzzles" / "two_solutions4.txt"), grid) == []


def test_given_weights_override_the_backends_own():
    res = solve_puzzle(_read(HEART), "qbpp", use_x=True, time_limit=30, seed=1,
                       weights={"link": 2})
    assert res.info["weights"] == {"monotone": 1.0, "order": 1.0, "link": 2.0}
