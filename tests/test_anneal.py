"""The dimod backends: real samplers on the penalty QUBO, answers verified by the checker."""
from __future__ import annotations

import math

import pytest

pytest.importorskip("dimod")
pytest.importorskip("dwave.samplers")

from formulations.backends import get_backend  # noqa: E402
from formulations.backends.sampling import EXACT_MAX_VARIABLES  # noqa: E402
from formulations.results import tts99  # noqa: E402
from formulations.model import build_model  # noqa: E402
from formulations.model.penalty import lower  # noqa: E402
from formulations.puzzle import Puzzle, check_grid  # noqa: E402
from formulations.results import BackendError, Status  # noqa: E402
from formulations.solving import solve_puzzle  # noqa: E402

CAT_ROWS = [[], [1, 1], [2, 2], [3, 3], [13], [13], [2, 5, 2], [2, 5, 2],
            [13], [6, 6], [5, 5], [11], [9], [5], []]
CAT_COLS = [[], [10], [10], [3, 5], [2, 5], [10], [6, 3], [5, 3],
            [6, 3], [10], [2, 5], [3, 5], [10], [10], []]
CAT = Puzzle.from_clues(CAT_ROWS, CAT_COLS, name="cat15")
HEART = Puzzle.from_clues([[1, 1], [5], [5], [3], [1]], [[2], [4], [4], [4], [2]], name="heart5")
TWO = Puzzle.from_clues([[1], [1]], [[1], [1]])                    # two diagonal solutions
ONE = Puzzle.from_clues([[2], [1]], [[2], [1]])                    # one solution
IMPOSSIBLE = Puzzle.from_clues([[1], [1, 1], [1]], [[1], [2], [1]])  # totals agree, no grid


def assert_solved(r, puzzle):
    assert r.status is Status.SOLVED, r.message
    assert r.grid is not None and check_grid(puzzle, r.grid) == []
    assert r.energy == 0.0


@pytest.mark.parametrize("backend", ["sa", "tabu"])
@pytest.mark.parametrize("use_x", [True, False])
def test_sa_and_tabu_solve_cat15_with_fixed_seed(backend, use_x):
    r = solve_puzzle(CAT, backend, use_x=use_x, seed=1)
    assert_solved(r, CAT)
    p, reads = r.sampling.success_probability, r.sampling.reads
    assert 0 < p <= 1 and reads >= 1
    assert math.isclose(r.sampling.tts99_s, tts99(r.sampling.time_per_read_s, p))
    d = r.to_dict()
    for key in ("energy", "success_probability", "tts99_s", "reads"):
        assert key in d


def test_sa_is_reproducible_with_a_seed():
    a = solve_puzzle(CAT, "sa", seed=5, reads=20)
    b = solve_puzzle(CAT, "sa", seed=5, reads=20)
    assert a.sampling.success_probability == b.sampling.success_probability
    assert a.sampling.reads == b.sampling.reads == 20


@pytest.mark.parametrize("backend", ["sa", "tabu", "descent"])
def test_threads_share_the_reads_and_each_read_is_rescored(backend):
    # two threads draw the asked reads between them; every read is re-scored from the model
    r = solve_puzzle(CAT, backend, seed=5, reads=9, workers=2, use_x=False)
    assert r.info["threads"] == 2 and r.sampling.reads == 9
    if r.status is Status.SOLVED:
        assert_solved(r, CAT)
    else:  # the best read's energy is the exact penalty of what it breaks
        assert r.energy > 0 and r.violations
    one = solve_puzzle(CAT, backend, seed=5, reads=9, use_x=False)
    assert one.info["threads"] == 1 and one.sampling.reads == 9


def test_a_call_split_among_threads_keeps_its_reads_and_seeds_each_part_apart():
    from formulations.backends.sampling import split_reads

    parts = split_reads({"num_reads": 9, "seed": 5, "num_sweeps": 10}, 4)
    assert [c["num_reads"] for c in parts] == [3, 2, 2, 2]
    assert len({c["seed"] for c in parts}) == 4 and parts[0]["seed"] == 5
    assert all(c["num_sweeps"] == 10 for c in parts)
    assert split_reads({"num_reads": 1, "seed": 5}, 4) == [{"num_reads": 1, "seed": 5}]
    assert [c["num_reads"] for c in split_reads({"num_reads": 3}, 8)] == [1, 1, 1]


def test_threaded_tts99_is_never_shorter_than_one_read():
    r = solve_puzzle(CAT, "sa", seed=2, reads=8, workers=2, use_x=False)
    s = r.sampling
    assert s.success_probability > 0
    assert s.tts99_s >= s.time_per_read_s * 2 * (1 - 1e-12)
    assert s.tts99_low_s is None or s.tts99_low_s >= s.time_per_read_s * 2 * (1 - 1e-12)


def test_threaded_sa_is_reproducible_with_a_seed():
    a = solve_puzzle(CAT, "sa", seed=6, reads=12, workers=2, sweeps=50)
    b = solve_puzzle(CAT, "sa", seed=6, reads=12, workers=2, sweeps=50)
    assert a.sampling.success_probability == b.sampling.success_probability
    assert a.grid == b.grid and a.energy == b.energy


def test_a_time_budget_samples_on_every_core_unless_told():
    from formulations.backends.sampling import cores

    r = solve_puzzle(CAT, "sa", seed=1, time_limit=20, until_solved=True)
    assert_solved(r, CAT)
    assert r.info["threads"] == cores()
    r = solve_puzzle(CAT, "sa", seed=1, time_limit=20, until_solved=True, workers=1)
    assert_solved(r, CAT)
    assert r.info["threads"] == 1
    assert solve_puzzle(CAT, "sa", seed=1, reads=3).info["threads"] == 1  # statistics: one


def test_bad_thread_counts_are_clear_errors():
    with pytest.raises(BackendError, match="workers must be 0"):
        solve_puzzle(CAT, "sa", workers=-1)


def test_an_ignored_sigint_stays_ignored_while_sampling():
    # a compare worker ignores SIGINT (its parent decides how to stop) and so does a run under
    # nohup: sampling must not put its own Ctrl-C handler in place of that
    import os
    import signal
    import threading
    import time

    fired = []

    def interrupt() -> None:
        fired.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        timer = threading.Timer(0.2, interrupt)
        timer.start()
        r = solve_puzzle(CAT, "sa", seed=3, reads=100, sweeps=2000, use_x=False)
        ended = time.perf_counter()
        timer.join()
        assert fired and fired[0] < ended, "the signal came after the sampling (make it longer)"
        assert_solved(r, CAT)
        assert r.sampling.reads == 100
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_sa_options_reach_the_sampler():
    r = solve_puzzle(CAT, "sa", seed=2, reads=7, sweeps=300, beta_range=(0.5, 8.0),
                     beta_schedule="linear", weights={"link": 1.5}, params={"randomize_order": "true"})
    assert r.sampling.reads == 7 and r.info["num_sweeps"] == 300
    assert r.info["beta_range"] == [0.5, 8.0] and r.info["beta_schedule_type"] == "linear"
    assert r.info["weights"]["link"] == 1.5
    # an explicit list of betas is a custom schedule (its length is the number of sweeps)
    r = solve_puzzle(HEART, "sa", seed=2, reads=5, beta_schedule="[0.5, 1, 2, 4, 8, 16]")
    assert r.info["beta_schedule_type"] == "custom" and r.sampling.reads == 5


def test_default_beta_range_scales_with_weights():
    a = solve_puzzle(HEART, "sa", seed=3, reads=3)
    b = solve_puzzle(HEART, "sa", seed=3, reads=3, weights={"monotone": 4, "order": 4, "link": 2})
    assert b.info["beta_range"] == [x / 2 for x in a.info["beta_range"]]


def test_unsolved_best_sample_reports_energy_and_violations():
    # an impossible puzzle: no read can reach energy 0, whatever the sampler does
    r = solve_puzzle(IMPOSSIBLE, "sa", seed=1, reads=10)
    assert r.status is Status.UNKNOWN and r.grid is None
    assert r.energy > 0 and r.violations
    assert r.sampling.success_probability == 0 and r.sampling.tts99_s is None
    assert r.to_dict()["tts99_s"] is None
    nm = build_model(IMPOSSIBLE, use_x=r.use_x)  # the model the backend got
    assert set(r.violations) <= {c.label for c in nm.model.constraints}


def test_descent_result_is_consistent():
    r = solve_puzzle(CAT, "descent", seed=1, reads=50)
    assert r.sampling.reads == 50
    if r.status is Status.SOLVED:
        assert_solved(r, CAT)
    else:
        assert r.status is Status.UNKNOWN and r.energy > 0 and r.violations


def test_descent_solves_a_tiny_puzzle():
    r = solve_puzzle(ONE, "descent", seed=1, reads=50)
    assert_solved(r, ONE)


def test_exact_counts_solutions_and_proves():
    r = solve_puzzle(TWO, "exact", use_x=False, unique=True)
    assert_solved(r, TWO)
    assert r.unique is False and r.info["solutions"] == 2
    r = solve_puzzle(ONE, "exact", use_x=False, unique=True)
    assert_solved(r, ONE)
    assert r.unique is True and r.info["solutions"] == 1
    r = solve_puzzle(IMPOSSIBLE, "exact", use_x=False)
    assert r.status is Status.INFEASIBLE and r.energy > 0


def test_exact_refuses_large_models():
    n = build_model(CAT, use_x=False).model.num_variables  # exact's own variant: without x
    with pytest.raises(BackendError) as exc:
        solve_puzzle(CAT, "exact")
    assert str(n) in str(exc.value) and str(EXACT_MAX_VARIABLES) in str(exc.value)


def test_tabu_threshold_stops_reads_at_energy_zero():
    # with the offset-corrected threshold each read stops at a solution instead of running on;
    # a per-read timeout far above the time a read needs (tabu's own default, 20 ms, is not on
    # a loaded machine), so that the outcome does not depend on the load
    r = solve_puzzle(CAT, "tabu", seed=4, reads=5, use_x=False, params={"timeout": 5000})
    assert_solved(r, CAT)
    assert r.sampling.success_probability == 1.0


def test_time_limit_cuts_sa_reads():
    # 100,000 reads of 2,000 sweeps take minutes (a read ~7 ms here); the limit leaves ample
    # time for the model's build, which a 0.05 s limit did not on a starved machine (the run
    # then ended, rightly, before its first read)
    r = solve_puzzle(CAT, "sa", seed=1, reads=100_000, sweeps=2000, time_limit=2.0)
    assert 1 <= r.sampling.reads < 100_000


def test_any_dimod_sampler_by_import_path():
    r = solve_puzzle(HEART, "dimod:dwave.samplers:SimulatedAnnealingSampler", seed=1, reads=20,
                     sweeps=500)
    assert_solved(r, HEART)
    assert r.backend == "dimod:dwave.samplers:SimulatedAnnealingSampler" and r.sampling.reads == 20
    r = solve_puzzle(ONE, "dimod:dimod:ExactSolver", use_x=False)
    assert_solved(r, ONE)


@pytest.mark.parametrize("name,fragment", [
    ("dimod:no_such_module_xyz:Sampler", "cannot import module 'no_such_module_xyz'"),
    ("dimod:dimod:NoSuchSampler", "has no attribute 'NoSuchSampler'"),
    ("dimod:math:pi", "not a dimod sampler"),
    ("dimod:just-one-part", "dimod:MODULE:CLASS"),
])
def test_bad_sampler_path_is_a_clear_error(name, fragment):
    with pytest.raises(BackendError, match=fragment.replace("(", r"\(")):
        get_backend(name)


def test_unknown_options_and_parameters_are_errors():
    with pytest.raises(BackendError, match="unknown option 'sweeps'"):
        solve_puzzle(CAT, "tabu", sweeps=10)
    with pytest.raises(BackendError, match="unknown parameter 'bogus'"):
        solve_puzzle(HEART, "sa", params={"bogus": "1"})
    with pytest.raises(BackendError, match="already set by option 'reads'"):
        solve_puzzle(HEART, "sa", reads=5, params={"num_reads": "3"})
    # the default read count is no option given: the sampler's own num_reads replaces it
    assert solve_puzzle(HEART, "sa", seed=1, params={"num_reads": "3"}).sampling.reads == 3
    with pytest.raises(BackendError, match="unknown constraint family"):
        solve_puzzle(HEART, "sa", weights={"links": 2})
    with pytest.raises(BackendError, match="beta_schedule"):
        solve_puzzle(HEART, "sa", beta_schedule="cubic")
    with pytest.raises(BackendError, match="does not take option 'sweeps'"):
        solve_puzzle(HEART, "dimod:dwave.samplers:TabuSampler", sweeps=10)


def test_sampler_specific_parameters_pass_through():
    r = solve_puzzle(HEART, "tabu", seed=1, reads=2, params={"tenure": "3", "num_restarts": "5"})
    assert_solved(r, HEART)


def test_reported_energy_is_recomputed_from_the_penalty():
    nm = build_model(CAT)
    pen = lower(nm)
    for sweeps in (3, 150):  # too few sweeps (usually unsolved) and the default
        raw = get_backend("sa").solve(nm, seed=1, reads=5, sweeps=sweeps)
        best = raw.assignments[0]
        assert raw.energy == pen.energy(best)
        assert (raw.status is Status.SOLVED) == (raw.energy == 0) == nm.model.is_feasible(best)
        if raw.status is Status.UNKNOWN:
            assert str(len(nm.model.violations(best))) in raw.message


def test_tts99_formula():
    assert math.isinf(tts99(2.0, 0.0))
    assert tts99(2.0, 0.995) == 2.0
    assert math.isclose(tts99(1.0, 0.5), math.log(0.01) / math.log(0.5))


def test_sampler_parameter_overrides_the_default_sweeps():
    # --param num_sweeps=... is the sampler's own name for --sweeps; it replaces the default.
    r = solve_puzzle(CAT, "sa", seed=1, reads=20, params={"num_sweeps": "400"})
    assert_solved(r, CAT)
    with pytest.raises(BackendError, match="already set by option 'sweeps'"):
        solve_puzzle(CAT, "sa", seed=1, reads=2, sweeps=10, params={"num_sweeps": "400"})


def test_tts99_interval_brackets_the_estimate_and_follows_the_definition():
    from formulations.analysis.stats import tts99_interval, tts99_point

    low0, high0 = tts99_interval(0, 50, 0.01)                # no success: bounded below only
    assert 0.01 < low0 < math.inf and high0 == math.inf
    low1, high1 = tts99_interval(50, 50, 0.01)                # p-hat = 1: one read, with width
    assert low1 == pytest.approx(0.01) and high1 > low1
    for succ, reads in ((5, 50), (20, 50), (40, 50), (200, 1000)):
        low, high = tts99_interval(succ, reads, 0.01)
        assert low <= tts99_point(succ, reads, 0.01) <= high
        assert tts99_interval(succ, reads, 0.01) == (low, high)  # seeded: reproducible
    narrow = tts99_interval(200, 1000, 0.01)
    wide = tts99_interval(10, 50, 0.01)
    assert narrow.high - narrow.low < wide.high - wide.low  # more reads, tighter interval
    assert math.isfinite(tts99_interval(2, 50, 0.01).high)  # exact: one success bounds p above 0


def test_sa_reports_tts99_with_its_interval():
    r = solve_puzzle(CAT, "sa", seed=3, reads=40)
    s = r.sampling
    assert s.reads == 40 and s.tts99_low_s <= s.tts99_s <= s.tts99_high_s
    d = r.to_dict()
    assert d["tts99_low_s"] == s.tts99_low_s and d["tts99_high_s"] == s.tts99_high_s


def test_a_time_budget_samples_batch_after_batch_until_a_verified_grid():
    # one sweep cannot anneal cat15: the budget mode goes on with longer anneals until it has one
    r = solve_puzzle(CAT, "sa", use_x=False, sweeps=1, reads=10, seed=1, time_limit=30,
                     until_solved=True)
    assert r.status is Status.SOLVED and check_grid(CAT, r.grid) == []
    batches = r.info["batches"]
    assert len(batches) >= 2 and batches[-1]["successes"] > 0
    assert all(b["successes"] == 0 for b in batches[:-1])
    sweeps = [b["num_sweeps"] for b in batches]
    assert sweeps == sorted(sweeps) and sweeps[1] == 2 * sweeps[0]
    # without the budget mode the same call reports what one batch found
    r1 = solve_puzzle(CAT, "sa", use_x=False, sweeps=1, reads=10, seed=1, time_limit=30)
    assert r1.status is Status.UNKNOWN and "batches" not in r1.info


@pytest.mark.parametrize("backend", ["sa", "tabu"])
def test_a_time_budget_stops_at_the_first_call_with_a_ground_state(backend):
    # the command line's budget wants one verified grid: once a sampler call has one, no
    # further call of the batch runs (sa's calls are a tenth of a budget batch, tabu's ten
    # reads per thread); a statistics run keeps every read it was asked for
    r = solve_puzzle(CAT, backend, use_x=False, reads=400, seed=1, time_limit=60,
                     until_solved=True, workers=1)
    assert_solved(r, CAT)
    assert "batches" not in r.info  # the first batch had it
    assert 1 <= r.sampling.reads <= 40 and r.sampling.success_probability > 0
    r = solve_puzzle(CAT, backend, use_x=False, reads=60, seed=1, workers=1)
    assert_solved(r, CAT)
    assert r.sampling.reads == 60


def test_a_tabu_budget_keeps_its_read_length_and_samples_batch_after_batch():
    # with a time budget tabu's reads keep their length (at most 1 s) and batches follow one
    # another; sharing the whole limit among one batch's reads made every read of a solved run
    # last until the limit (on janko 25x25 at 60 s: 4/10 solved, median 58 s, against 6/10,
    # median 11 s with 1 s reads)
    from formulations.backends.sampling import TABU_TIMEOUT_MS

    r = solve_puzzle(IMPOSSIBLE, "tabu", reads=2, seed=1, time_limit=4, until_solved=True,
                     workers=1)
    assert r.status is Status.UNKNOWN and r.energy > 0
    batches = r.info["batches"]
    assert len(batches) >= 2 and all(b["successes"] == 0 for b in batches)
    assert r.sampling.time_per_read_s < 1.5 * TABU_TIMEOUT_MS / 1000
    assert r.solve_s < 4 + 1


def test_an_unsolved_budget_run_reports_the_best_of_all_its_batches():
    # steepest descent (x model) does not solve cat15: every batch ends above energy 0, and the
    # answer is the best sample of the whole run, counted over every batch's reads
    r = solve_puzzle(CAT, "descent", seed=2, time_limit=1.5, until_solved=True, workers=1)
    assert r.status is Status.UNKNOWN
    batches = r.info["batches"]
    assert len(batches) >= 2 and all(b["successes"] == 0 for b in batches)
    assert r.energy == min(b["best_energy"] for b in batches) > 0
    assert f"best of {sum(b['reads'] for b in batches)} reads in {len(batches)} batches" in r.message


def test_tabu_tenure_follows_the_model_size_unless_given():
    from formulations.backends.sampling import tabu_tenure

    assert [tabu_tenure(n) for n in (8, 80, 800, 1600, 4000)] == [2, 20, 20, 40, 100]
    r = solve_puzzle(CAT, "tabu", seed=4, reads=2, use_x=False, params={"timeout": 5000})
    n = r.info["qubo_variables"]
    assert_solved(r, CAT)
    assert r.info["tenure"] == tabu_tenure(n) == min(20, n // 4)
    r = solve_puzzle(CAT, "tabu", seed=4, reads=2, use_x=False,
                     params={"timeout": 5000, "tenure": 7})
    assert_solved(r, CAT)
    assert r.info["tenure"] == 7


def test_the_qubo_is_held_to_the_memory_cap_before_any_sampling():
    import random

    from formulations.model.penalty import qubo_size
    from formulations.puzzle import puzzle_from_grid
    from formulations.results import ModelRefused

    rng = random.Random(2)
    for s in (6, 12, 30):
        p = puzzle_from_grid(tuple(tuple(int(rng.random() < 0.5) for _ in range(s))
                                   for _ in range(s)))
        for use_x in (True, False):
            nm = build_model(p, use_x=use_x)
            est, got = qubo_size(nm).pairs, len(lower(nm).qv)
            assert got <= est <= 1.3 * got + 10
    # a random 30x30's QUBO (about 7 MB by the estimate) is refused under a 5 MB cap, with
    # the ways out, while its model (about 3.5 MB) fits and cpsat takes it
    nm = build_model(p, use_x=False)
    assert qubo_size(nm).megabytes > 5
    with pytest.raises(ModelRefused, match="penalty QUBO would have about .* over the memory cap"):
        solve_puzzle(p, "sa", max_model_mb=5, seed=1)
    assert solve_puzzle(p, "cpsat", max_model_mb=5).status is Status.SOLVED


def test_a_failed_run_without_a_time_limit_suggests_one():
    # one short read cannot solve cat15: the reads were a fixed number, and the message says
    # that a time budget keeps the sampler going; a run that had one does not say so
    r = solve_puzzle(CAT, "sa", reads=1, sweeps=1, seed=3)
    assert r.status is Status.UNKNOWN and "--until-solved" in r.message, r.message
    r = solve_puzzle(CAT, "sa", reads=1, sweeps=1, seed=3, time_limit=0.5, until_solved=True)
    assert "--until-solved" not in r.message
