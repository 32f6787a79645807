"""A dimod sampler object goes wherever a backend name goes: solve_puzzle and compare treat it like
the registered samplers (one lowering, re-scored energies, verification, SamplingStats, the same
record), and it passes the same conformance kit."""
from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np
import pytest

dimod = pytest.importorskip("dimod")
samplers = pytest.importorskip("dwave.samplers")

from formulations.backends.sampler_object import dumps, is_sampler, sampler_backend  # noqa: E402
from formulations import compare, read_puzzle, solve_lines, solve_puzzle  # noqa: E402
from formulations.model import build_model  # noqa: E402
from formulations.results import BackendError, Status  # noqa: E402
from formulations.testing import conformance  # noqa: E402

HEART = "puzzles/heart5.txt"


class Oracle(dimod.Sampler):
    """A user's own sampler: answers with the assignment it was given, claiming energy -100, and
    records the parameters it was called with."""
    parameters = {"num_reads": [], "note": []}
    properties: dict = {}

    def __init__(self, sample=None):
        self.answer = sample
        self.calls: list[dict] = []

    def sample(self, bqm, num_reads=1, note=None, **kw):
        self.calls.append({"num_reads": num_reads, "note": note})
        order = sorted(bqm.variables)
        x = np.tile(np.asarray(self.answer, dtype=np.int8)[order], (num_reads, 1))
        return dimod.SampleSet.from_samples((x, order), dimod.BINARY, energy=[-100.0] * num_reads)


def test_the_readmes_notebook_cell_just_works():
    puzzle = read_puzzle("puzzles/cat15.txt")
    r = solve_puzzle(puzzle, samplers.SimulatedAnnealingSampler(), num_reads=200, seed=1)
    assert r.status is Status.SOLVED and r.energy == 0
    assert r.backend == "sampler:SimulatedAnnealingSampler"
    assert r.sampling.reads == 200 and 0 < r.sampling.success_probability <= 1
    assert r.sampling.tts99_low_s <= r.sampling.tts99_s <= r.sampling.tts99_high_s
    named = solve_puzzle(puzzle, "sa", seed=1, reads=10)
    # the same record as a registered sampler (then what only this sampler reports)
    assert list(replace(r, info={}).to_dict()) == list(replace(named, info={}).to_dict())
    assert {"sampler", "qubo_variables", "weights"} <= set(r.info) & set(named.info)


def test_parameters_by_name_and_the_backend_options():
    p = read_puzzle(HEART)
    sa = samplers.SimulatedAnnealingSampler()
    r = solve_puzzle(p, sa, reads=7, num_sweeps=50, seed=2)
    assert r.sampling.reads == 7 and r.info["num_sweeps"] == 50
    with pytest.raises(BackendError, match="unknown option 'num_raeds'.*num_reads"):
        solve_puzzle(p, sa, num_raeds=5)
    with pytest.raises(BackendError, match="already set by option 'reads'"):
        solve_puzzle(p, sa, reads=5, num_reads=6)
    with pytest.raises(BackendError,
                       match=r"sampler class: pass an object, SimulatedAnnealingSampler\(\)"):
        solve_puzzle(p, samplers.SimulatedAnnealingSampler)  # the class, not an object


def test_energies_are_rescored_and_answers_verified():
    p = read_puzzle(HEART)
    nm = build_model(p)
    truth = nm.encode(solve_lines(p).solutions[0])
    honest = Oracle(truth)
    r = solve_puzzle(p, honest, num_reads=3, note="hi")
    assert r.status is Status.SOLVED and r.energy == 0  # not the -100 it claimed
    assert honest.calls == [{"num_reads": 3, "note": "hi"}]
    assert r.sampling.success_probability == 1.0
    wrong = truth.copy()
    wrong[0] ^= 1
    r = solve_puzzle(p, Oracle(wrong))
    assert r.status is Status.UNKNOWN and r.grid is None and r.energy > 0
    assert "breaks" in r.message


@pytest.mark.parametrize("check", list(conformance.CHECKS))
def test_a_sampler_object_passes_the_conformance_kit(check):
    conformance.run(check, sampler_backend(samplers.SimulatedAnnealingSampler()))


class Lambdas(samplers.SimulatedAnnealingSampler):
    def __init__(self):
        super().__init__()
        self.hook = lambda: None  # plain pickle refuses this


def test_compare_takes_sampler_objects_and_resumes(tmp_path):
    class Local(samplers.SteepestDescentSolver):  # defined here: travels by value
        pass

    two = samplers.SimulatedAnnealingSampler()
    two.note = "another state"
    specs = [samplers.SimulatedAnnealingSampler(), (two, {"num_reads": 5}),
             (Local(), {"reads": 3}), (Lambdas(), {"num_reads": 4, "num_sweeps": 100}),
             ("sa", {"reads": 5})]
    out = tmp_path / "rows.csv"
    rows = compare([HEART], specs, seeds=[0], workers=2, progress=False, out=out)
    by = {r["backend"]: r for r in rows}
    assert list(by) == ["sampler:SimulatedAnnealingSampler", "sampler:SimulatedAnnealingSampler-2",
                        "sampler:Local", "sampler:Lambdas", "sa"]
    for name in ("sampler:SimulatedAnnealingSampler", "sampler:SimulatedAnnealingSampler-2",
                 "sampler:Lambdas", "sa"):
        assert by[name]["status"] == "solved" and by[name]["verified"], by[name]["message"]
    assert [by[n]["reads"] for n in by] == [100, 5, 3, 4, 5]
    assert by["sampler:Local"]["status"] in ("solved", "unknown")  # descent may miss; never errs
    logs: list[str] = []
    again = compare([HEART], specs, seeds=[0], workers=2, progress=False, out=out, log=logs.append)
    assert [r["key"] for r in again] == [r["key"] for r in rows]
    assert logs == [f"resuming: 5 of 5 runs already in {out}"]  # the same keys: nothing re-run


def test_a_sampler_that_cannot_travel_says_why(monkeypatch):
    assert is_sampler(Lambdas()) and not is_sampler("sa")
    monkeypatch.setitem(sys.modules, "cloudpickle", None)  # as if not installed
    with pytest.raises(BackendError, match="cannot be sent to worker processes: it does not "
                                           "pickle.*install cloudpickle"):
        dumps(Lambdas())
    with pytest.raises(BackendError, match="define it in a module"):
        compare([HEART], [Lambdas()], progress=False)
