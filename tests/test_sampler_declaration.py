"""A named sampler is one declaration plus one registry line, and everything that lists or
measures samplers learns it from there: solving and verification, the conformance kit, the
command line's backend list, the study's units and cost model, the web server's solver list."""
from __future__ import annotations

import pytest

pytest.importorskip("dwave.samplers")

from helpers import PUZZLES  # noqa: E402

from formulations import backends, check_grid, read_puzzle, solve_puzzle  # noqa: E402
from formulations.testing import conformance  # noqa: E402


@pytest.fixture
def toy():
    backends.register("toy-sa", "toy_sampler")
    yield "toy-sa"
    backends.unregister("toy-sa")


def test_a_declared_sampler_solves_and_is_verified(toy):
    puzzle = read_puzzle(PUZZLES / "heart5.txt")
    result = solve_puzzle(puzzle, toy, seed=3)
    assert result.backend == toy and result.use_x is False
    assert result.sampling is not None and result.sampling.reads == 50
    if result.solved:
        assert check_grid(puzzle, result.grid) == []
    for check in ("answer_shape", "status_consistency", "bad_options_refused", "liar_caught",
                  "seed_reproduces", "no_free_variables"):
        conformance.run(check, toy)


def test_the_lists_and_the_study_learn_a_declared_sampler(toy):
    from formulations.harness import study
    from formulations.serve.worker import task_backends
    from formulations.solve import backends_record, list_backends

    assert toy in backends.names()
    assert toy in list_backends()
    assert any(row["name"] == toy and row["installed"] for row in backends_record()["backends"])
    served = {row["name"]: row for row in task_backends({})["backends"]}  # the page's list
    assert served[toy]["sampler"] is True
    assert toy in backends.sampler_names(studied=True)
    assert study.LENGTH_UNIT[toy] == "sweeps"
    assert study.read_seconds(toy, 100, 10, 20) == pytest.approx(2e-9 * 100 * 50)
    assert backends.plan_of(toy).zero_length_kwargs({"num_sweeps": 9}) == {"num_sweeps": 0}


def test_an_undeclared_name_is_no_sampler():
    with pytest.raises(Exception, match="unknown backend 'toy-sa'"):
        backends.plan_of("toy-sa")
    with pytest.raises(Exception, match="not a sampler"):
        backends.plan_of("cpsat")
