"""The samplers of issue 31 (pimc, rotor, pt, pa): real samplers on the one penalty QUBO, every
answer re-scored and verified by the package; the conformance kit over each."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("dimod")
pytest.importorskip("dwave.samplers.sqa")

from formulations import backends  # noqa: E402
from formulations.io import read_puzzle  # noqa: E402
from formulations.model import build_model  # noqa: E402
from formulations.model.penalty import lower  # noqa: E402
from formulations.puzzle import check_grid  # noqa: E402
from formulations.results import BackendError, Status  # noqa: E402
from formulations.solving import solve_puzzle  # noqa: E402
from formulations.testing import conformance  # noqa: E402

from helpers import ROOT, interrupt_cli
CAT = ROOT / "puzzles" / "cat15.txt"
HEART = read_puzzle(ROOT / "puzzles" / "heart5.txt")
IMPOSSIBLE = read_puzzle(ROOT / "puzzles" / "impossible3.txt")
NEW = ["pimc", "rotor", "pt", "pa"]
INSTALLED = [b for b in NEW if b in backends.available_backends()]
HYBRID = [b for b in ("pt", "pa") if b in INSTALLED]


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "formulations.solve", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_the_new_samplers_are_registered_and_listed():
    assert set(NEW) <= set(backends.names())
    p = _cli("--list-backends")
    assert p.returncode == 0
    listed = {line.split()[0] for line in p.stdout.splitlines() if line.strip()}
    assert set(NEW) <= listed


@pytest.mark.parametrize("backend", INSTALLED)
def test_cat15_solves_at_the_defaults_from_the_command_line(backend):
    # the command line's time budget, nothing else asked: a verified grid, exit 0
    p = _cli(str(CAT), "--backend", backend, "--time-limit", "60", "--seed", "1", "--json")
    record = json.loads(p.stdout)
    assert p.returncode == 0 and record["status"] == "solved", record["message"]
    assert record["energy"] == 0 and record["backend"] == backend
    assert check_grid(read_puzzle(CAT), tuple(tuple(int(c == "#") for c in row)
                                              for row in record["grid"])) == []


# The conformance kit runs over these backends in tests/test_conformance.py (its
# test_conformance_kit is parametrised over every installed backend); this checks they are there.
def test_the_conformance_suite_covers_the_new_samplers():
    import test_conformance

    assert set(INSTALLED) <= set(test_conformance.KIT_BACKENDS)
    assert conformance.check_backend(INSTALLED[0])["liar_caught"] is None


@pytest.mark.parametrize("backend", INSTALLED)
def test_statistics_come_from_the_exact_penalty_of_every_read(backend):
    r = solve_puzzle(HEART, backend, seed=4, reads=12)
    s = r.sampling
    assert s.reads == 12 and 0 <= s.success_probability <= 1 and s.cpu_per_read_s > 0
    if r.status is Status.SOLVED:
        assert check_grid(HEART, r.grid) == [] and r.energy == 0 and s.success_probability > 0
        assert s.tts99_low_s <= s.tts99_s <= s.tts99_high_s
    else:  # the best read's energy is the exact penalty of what it breaks
        assert r.energy > 0 and r.violations and s.tts99_s is None


@pytest.mark.parametrize("backend", INSTALLED)
def test_a_seed_reproduces_the_statistics(backend):
    a = solve_puzzle(HEART, backend, seed=9, reads=8, sweeps=30)
    b = solve_puzzle(HEART, backend, seed=9, reads=8, sweeps=30)
    assert a.sampling.success_probability == b.sampling.success_probability
    assert (a.status, a.grid, a.energy) == (b.status, b.grid, b.energy)


@pytest.mark.parametrize("backend", INSTALLED)
def test_an_impossible_puzzle_is_never_solved_and_the_budget_keeps_its_limit(backend):
    r = solve_puzzle(IMPOSSIBLE, backend, seed=1, time_limit=2, until_solved=True)
    assert r.status is Status.UNKNOWN and r.grid is None and r.energy > 0
    assert all(b["successes"] == 0 for b in r.info.get("batches", []))


@pytest.mark.parametrize("backend", INSTALLED)
def test_a_time_budget_doubles_the_length_until_a_verified_grid(backend):
    # too short to solve at first: the budget goes on with longer runs until it has one
    puzzle = read_puzzle(CAT)
    r = solve_puzzle(puzzle, backend, sweeps=2, reads=4, seed=1, time_limit=60,
                     until_solved=True)
    assert r.status is Status.SOLVED and check_grid(puzzle, r.grid) == []
    batches = r.info.get("batches", [])
    if batches:
        sweeps = [b["num_sweeps"] for b in batches]
        assert sweeps == sorted(sweeps) and batches[-1]["successes"] > 0


def test_the_transverse_field_reaches_the_simulator_and_is_checked():
    from formulations.backends.more_samplers import FieldAnnealingSampler

    pen = lower(build_model(HEART, use_x=False))
    bqm = pen.to_bqm(labels="index")
    s = FieldAnnealingSampler("pimc")
    ss = s.sample(bqm, num_reads=3, num_sweeps=20, beta_range=(1, 10), gamma=2.0, seed=1)
    assert len(ss) == 3 and ss.info["beta_range"] == [1.0, 10.0]
    with pytest.raises(ValueError, match="gamma"):
        s.sample(bqm, num_reads=1, num_sweeps=20, gamma=-1)
    r = solve_puzzle(HEART, "pimc", seed=2, reads=5, params={"gamma": 0.5, "fixed_beta": True})
    assert r.sampling.reads == 5
    with pytest.raises(BackendError, match="no_such"):
        solve_puzzle(HEART, "pimc", params={"no_such": 1})


@pytest.mark.parametrize("backend", HYBRID)
def test_replicas_and_population_are_parameters(backend):
    key = {"pt": "num_replicas", "pa": "population"}[backend]
    r = solve_puzzle(HEART, backend, seed=3, reads=3, params={key: 3})
    assert r.sampling.reads == 3
    with pytest.raises(BackendError):
        solve_puzzle(HEART, backend, seed=3, reads=1, params={key: 0})


def test_a_missing_hybrid_names_its_extra(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_hybrid(name, *args, **kwargs):
        if name == "hybrid" or name.startswith("hybrid."):
            raise ImportError("No module named 'hybrid'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_hybrid)
    monkeypatch.delitem(sys.modules, "hybrid", raising=False)
    b = backends.get_backend("pt")
    assert not b.available()
    with pytest.raises(BackendError, match=r"pip install -e \"\.\[hybrid\]\""):
        b.check_available()


@pytest.mark.parametrize("backend", INSTALLED)
def test_ctrl_c_ends_a_long_run_as_interrupted(backend):
    # dwave-hybrid's import (dwave-system, dwave-cloud-client) happens when pt and pa start and
    # took 3-5 s on a loaded machine; a Ctrl-C during an import is that import's business:
    # interrupt them once they sample
    got = interrupt_cli([str(CAT), "--backend", backend, "--reads", "100000", "--sweeps",
                         "2000"], after=8.0 if backend in ("pt", "pa") else 3.0, timeout=60)
    assert got is not None, "the run ended before it could be interrupted"
    code, record, err = got
    assert code == 130 and record is not None and record["status"] == "interrupted", err
    assert "Traceback" not in err
