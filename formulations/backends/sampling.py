"""The sampler pipeline: how any dimod sampler is run on the model's penalty QUBO
(``formulations.model.penalty``), in one public place that every sampler backend, the study
runner, the release and the web page use.

* :class:`SamplerPlan`: how to call one sampler (make it, its defaults, how it honours a
  deadline, its unit of anneal length, its cost per read); :func:`declare` registers a plan and
  gives its :class:`~formulations.backends.base.Backend`; the registry's ``plan_of`` finds a
  plan by name (``formulations.backends.plan_of``).
  A named sampler is one ``declare(...)`` in one module plus one line in the backend registry
  (``formulations/backends/__init__.py``); the sa/tabu/descent/exact/OpenJij declarations are in
  :mod:`.anneal`, the quantum-annealing simulators, PT and PA in :mod:`.more_samplers`.
* :func:`sample_kwargs`: backend options and native parameters mapped to the sampler's keyword
  arguments (refusing what it does not take).
* :func:`run_plan`: the run loop (batches, threads, the deadline, Ctrl-C, ``until_solved``).
* :func:`rescore`: a sample set re-scored exactly with the penalty (a sampler's energies are
  never trusted).

A sampler never decides success: every returned sample is re-scored with the exact penalty
(``QuadraticPenalty.energies``), status is SOLVED only when the best sample has energy 0, and the
package's ``verify()`` still checks the grid. Reported per run (``RawAnswer.info``):

* ``reads``: samples actually drawn (fewer than asked when the time limit cut SA short);
* ``success_probability``: fraction of reads at energy 0;
* ``time_per_read_s``: wall time of the sampler calls divided by reads (overheads included;
  with several sampling threads, ``info.threads``, the reads overlap and this is the wall
  time a read costs the run); ``cpu_per_read_s`` is the same in process CPU time, the figure
  that survives a busy machine and one read's own cost whatever the threads (the sampler calls
  alone: lowering and re-scoring are set-up); ``tts99_cpu_s`` is TTS99 of that CPU figure and
  ``spin_updates_per_read`` sweeps x variables;
* ``tts99_s``: ``t_read * ln(0.01) / ln(1 - p)``; ``t_read`` when p >= 0.99; None when p = 0;
  with several threads never less than one read's own length (``t_read`` x threads).

Time limit: ``sa`` (and any sampler accepting ``interrupt_function``) stops between reads once
the limit is spent; ``tabu`` gets ``timeout = limit / reads`` per read (the reads of one
thread), at most TABU_TIMEOUT_MS in a time budget, which samples batch after batch; other
samplers with ``num_reads`` are called in ten chunks (seed + chunk number) until the limit is
spent; ``exact`` ignores it (it only takes tiny models).

Threads: dwave-samplers' sa, tabu and descent release the GIL while they sample, so a call's
reads can be shared among threads (``workers``; thread j seeds with seed + j x
THREAD_SEED_STRIDE, so a seeded run with a fixed thread count is reproducible; ``workers=0`` and
the budget's default depend on the cores). With a time budget to use (the command line's
``until_solved``) they take every core by default; statistics runs take one unless asked.
``info.sampler_sampling_s`` (the sampler's own timing) is summed over the threads.
OpenJij's samplers run on one OpenMP thread (``openmp_threads``): its SQASampler otherwise
opens a parallel region per sweep on every core, which here cost 1.2-2.3x the CPU of one thread
for the same reads and, on a busy machine, several times the wall time (its threads spin-wait
for each other), so neither the one clock nor a time limit held.
"""
from __future__ import annotations

import importlib
import math
import os
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final, Literal

import numpy as np

from formulations.runtime.clock import FIT_SLACK_S, Deadline
from formulations.runtime.cputime import cpu_seconds
from formulations.model import NonogramModel, QuadraticPenalty, lower
from formulations.model.penalty import qubo_size
from formulations.model.words import constraint_words
from formulations.options import parse_value
from formulations.results import BackendError, RawAnswer, SamplingStats, Status, tts99
from formulations.analysis.stats import tts99_interval

from .base import Backend

EXACT_MAX_VARIABLES = 20   # ExactSolver holds all 2^n states in memory (2^20 x n bytes + energies)
TABU_MAX_VARIABLES = 6000  # TabuSampler builds two dense n x n float64 matrices
SEED_LIMIT = 2 ** 31       # SimulatedAnnealingSampler rejects seeds >= 2^31

# Defaults measured on cat15 (bench/anneal_tts.py; table in formulations/penalty.py).
SA_READS, SA_SWEEPS = 100, 150  # reads by default; sweeps when nothing else says
# sa's beta range in units of 1/min(weight): with the default weights the smallest energy step
# is 1, so beta runs from 1 (a +1 step accepted 37 % of the time) to 10 (never). dwave's own
# default range (about 0.06..11 on cat15) wastes the hot end: p 0.93 -> 0.98 at 150 sweeps.
SA_BETA = (1.0, 10.0)
SA_READ_COST = 1.2e-9  # CPU seconds of one sa read per sweep per QUBO term (AMD EPYC, one thread)
TABU_READS = 10
# tabu's per-read budget without a time limit (its reads stop at energy 0 first). dwave's own
# default, 20 ms, made the outcome depend on the machine's load.
TABU_TIMEOUT_MS = 1000
DESCENT_READS = 100
GENERIC_READS = 100
OPENJIJ_SA_READS = 100
OPENJIJ_SQA_READS, OPENJIJ_SQA_SWEEPS = 20, 1000


def tabu_tenure(n: int) -> int:
    """tabu's tenure for a QUBO of ``n`` variables: dwave's default, min(20, n / 4), up to 800
    variables, then n / 40 (more room to leave the larger local minima).
    Measured on janko puzzles: best energies on five 25x25 (1,500-2,000 variables, 3 reads of
    5 s) fall from 14-62 at 20 to 6-14 at 40-60 and rise again at 120 (14-28), 250 (50-60) and
    500 (66-96); at 20x20 (640-1,040) 20 was best. With ``bench/anneal_budget.py --per-size 5
    --time-limit 15`` this rule solved 4/5, 2/5, 1/5 of 20x20, 25x25, 30x30 against 4/5, 0/5,
    0/5 at 20; at 30 s 4/5, 1/5, 0/5, as 20 did: a small gain within five puzzles' noise."""
    return min(n // 4, max(20, n // 40))


# backend option -> sampler parameter it sets
_OPTION_PARAMETER = {"reads": "num_reads", "sweeps": "num_sweeps", "beta_range": "beta_range",
                     "beta_schedule": "beta_schedule_type", "seed": "seed"}


AUTO: Final = "auto"
# The automatic schedule's length, fitted on 22 janko puzzles of 15x15 to 40x30 (without x,
# weights 2/2/1): the number of sweeps that minimised each puzzle's TTS99 against its model's
# variables n gave log-log slope 1.835 and factor 0.0083 (best lengths ranged 100 to 30000;
# notes in bench/anneal_scaling.py). cat15 (236 variables) gets 188.
AUTO_SWEEPS_FACTOR, AUTO_SWEEPS_POWER = 0.0083, 1.835
AUTO_SWEEPS_RANGE = (100, 30000)


def auto_sweeps(n: int) -> int:
    """The automatic schedule's sweeps for a QUBO of ``n`` variables."""
    lo, hi = AUTO_SWEEPS_RANGE
    return int(min(hi, max(lo, round(AUTO_SWEEPS_FACTOR * max(1, n) ** AUTO_SWEEPS_POWER))))


def auto_reads(default: int, sweeps: int) -> int:
    """Default reads for an automatic schedule of ``sweeps``: ``default`` up to 200 sweeps, then
    fewer (about the same total work), at least 10."""
    return max(10, min(default, round(default * 200 / max(sweeps, 1))))


def default_beta_range(weights: dict[str, float],
                       base: tuple[float, float] = SA_BETA) -> tuple[float, float]:
    """sa's default beta range (or ``base``) for these family weights (scales with the
    smallest weight)."""
    w = min(weights.values())
    return base[0] / w, base[1] / w


@dataclass(frozen=True)
class SamplerPlan:
    """How to call one sampler: which parameters it takes and how to honour a time limit.
    ``length_unit``: what its anneal length counts (``sweeps``; tabu: updates per variable);
    ``cost``: CPU seconds of one read per unit of length, ``(c, base, power)`` with base
    ``terms`` (variables + 2 x interactions) or ``variables`` (:meth:`read_seconds`; measured
    here for sa, openjij-sa, openjij-sqa and tabu, the others sa's times ``read_cost``);
    ``zero_length``: the keyword that makes a call anneal not at all (its overhead alone)."""
    name: str
    make: Callable[[], Any]
    default_reads: int | None
    time_limit: str            # "interrupt", "tabu", "chunks" or "ignore"
    exhaustive: bool = False   # every state enumerated: no energy-0 state proves infeasibility
    scaled_beta: bool = False  # default beta_range = default_beta_range(weights)
    default_sweeps: int | Literal["auto"] | None = None  # unless --sweeps/--param num_sweeps; AUTO
    beta_split: bool = False   # the sampler takes beta_min / beta_max instead of beta_range
    read_cost: float = 1.0     # one read's cost relative to dwave's SA at the same sweeps
    threads: bool = False      # its sample() releases the GIL: reads can run on several threads
    beta: tuple[float, float] | None = None  # its own default beta range (units of 1/min weight)
    openmp: str | None = None  # the module whose OpenMP pool it samples on (module doc)
    length_unit: str | None = "sweeps"  # None: no anneal length to study (descent, exact)
    cost: tuple[float, str, float] | None = None
    zero_length: str | None = None

    def read_seconds(self, length: int, variables: int, interactions: int) -> float:
        """Estimated CPU seconds of one read of ``length`` units on a QUBO of that size."""
        c, base, power = self.cost or (SA_READ_COST * self.read_cost, "terms", 1.0)
        x = variables + 2 * interactions if base == "terms" else variables
        return c * length * x ** power

    def zero_length_kwargs(self, kw: dict[str, Any]) -> dict[str, Any] | None:
        """The same call with no annealing (the per-call overhead), where the sampler allows it."""
        return None if self.zero_length is None else {**kw, self.zero_length: 0}


_openmp_controller: Any = None


@contextmanager
def openmp_threads(plan: SamplerPlan, threads: int = 1):
    """While sampling, an OpenMP sampler's pool at ``threads`` (restored after). The controller
    is made once, after the sampler's module has loaded its OpenMP runtime (1 ms to make, 16 us
    to use); threadpoolctl, not an environment variable, because the runtime may already run.
    OpenMP keeps the setting per thread: enter it in the thread that calls the sampler."""
    global _openmp_controller
    if plan.openmp is None:
        yield
        return
    if _openmp_controller is None:
        from threadpoolctl import ThreadpoolController
        importlib.import_module(plan.openmp)
        _openmp_controller = ThreadpoolController()
    with _openmp_controller.limit(limits=threads, user_api="openmp"):
        yield


def sampler_parameters(sampler: Any) -> set[str] | None:
    """The keyword arguments a sampler's ``sample`` takes: dimod's ``parameters`` plus the
    explicit keywords of its signature (OpenJij lists only its own extras in ``parameters``)."""
    params = getattr(sampler, "parameters", None)
    if not isinstance(params, dict):
        return None
    names = set(params)
    try:
        import inspect
        sig = inspect.signature(sampler.sample)
        names |= {n for n, q in sig.parameters.items()
                  if q.kind in (q.POSITIONAL_OR_KEYWORD, q.KEYWORD_ONLY)} - {"self", "bqm"}
    except (TypeError, ValueError):
        pass
    return names


LONGEST_READ_SWEEPS = 100_000_000
"""The longest anneal a read may ask for (``sweeps``, or ``num_sweeps`` as a parameter): its
schedule is an array of one beta a sweep, so without a bound memory grows with the option, not
the model (10**9 sweeps would build 24 GB). The release's longest ladders stop near 10**5."""


def sample_kwargs(plan: SamplerPlan, sampler: Any, pen: QuadraticPenalty, *, seed: int | None,
                   reads: int | None, sweeps: int | None, beta_range: tuple | None,
                   beta_schedule: str | None, params: dict | None) -> dict[str, Any]:
    """Map backend options and ``params`` to the sampler's keyword arguments, refusing anything
    the sampler does not take."""
    accepted = sampler_parameters(sampler)

    def put(option: str, param: str, value: Any) -> None:
        if accepted is not None and param not in accepted:
            raise BackendError(f"backend '{plan.name}' does not take option '{option}' "
                               f"(sampler parameters: {', '.join(sorted(accepted)) or 'none'})")
        kw[param] = value

    kw: dict[str, Any] = {}
    auto = None
    if sweeps is None and plan.default_sweeps is not None and "num_sweeps" not in (params or {}) \
            and not isinstance(parse_value(beta_schedule), (list, tuple)):
        auto = sweeps = auto_sweeps(pen.num_variables) if plan.default_sweeps == AUTO \
            else plan.default_sweeps
    if reads is None and plan.default_reads is not None and "num_reads" not in (params or {}) \
            and (accepted is None or "num_reads" in accepted):
        # the default only (--param num_reads replaces it, no clash); fewer reads for the long
        # anneals of an automatic schedule, so that a default run's work stays about the same
        reads = plan.default_reads if auto is None or plan.default_sweeps != AUTO \
            else auto_reads(plan.default_reads, auto)
    if reads is not None:
        if reads < 1:
            raise BackendError(f"reads must be at least 1, got {reads}")
        put("reads", "num_reads", int(reads))
    if sweeps is not None:
        if sweeps < 1:
            raise BackendError(f"sweeps must be at least 1, got {sweeps}")
        put("sweeps", "num_sweeps", int(sweeps))
    custom = isinstance(parse_value(beta_schedule), (list, tuple))
    if beta_range is None and plan.scaled_beta and not custom:
        beta_range = default_beta_range(pen.weights, plan.beta or SA_BETA)
    if beta_range is not None:
        br = tuple(float(b) for b in beta_range)
        if len(br) != 2 or min(br) <= 0:
            raise BackendError(f"beta_range must be two positive numbers LO,HI, got {beta_range!r}")
        if br[0] > br[1]:  # annealing runs from hot (low beta) to cold: a reversed range heats
            raise BackendError(f"beta_range is LO,HI, the inverse temperature at the start and "
                               f"at the end, rising; got {br[0]:g},{br[1]:g} (did you mean "
                               f"{br[1]:g},{br[0]:g}?)")
        if plan.beta_split:
            put("beta_range", "beta_min", br[0])
            kw["beta_max"] = br[1]
        else:
            put("beta_range", "beta_range", br)
    if beta_schedule is not None:
        sched = parse_value(beta_schedule)
        if isinstance(sched, (list, tuple)):  # an explicit list of betas: a custom schedule
            put("beta_schedule", "beta_schedule_type", "custom")
            kw["beta_schedule"] = [float(b) for b in sched]
            kw.pop("num_sweeps", None)  # the schedule's length is the number of sweeps
        elif sched in ("linear", "geometric"):
            put("beta_schedule", "beta_schedule_type", sched)
        else:
            raise BackendError(f"beta_schedule must be 'linear', 'geometric' or a list of betas, "
                               f"got {beta_schedule!r}")
    if seed is not None and (accepted is None or "seed" in accepted):
        kw["seed"] = int(seed) % SEED_LIMIT
    for key, value in (params or {}).items():
        owner = next((o for o, p in _OPTION_PARAMETER.items() if p == key and p in kw), None)
        if owner is not None:
            raise BackendError(f"parameter '{key}' is already set by option '{owner}'")
        if accepted is not None and key not in accepted:
            raise BackendError(f"unknown parameter '{key}' for backend '{plan.name}' "
                               f"(sampler parameters: {', '.join(sorted(accepted)) or 'none'})")
        kw[key] = parse_value(value)
    length = kw.get("num_sweeps")
    if isinstance(length, (int, float)) and length > LONGEST_READ_SWEEPS:
        raise BackendError(f"sweeps at most {LONGEST_READ_SWEEPS:,} a read, got {int(length):,}: a read's "
                           f"beta schedule takes memory in proportion (about 24 bytes a sweep "
                           f"while dwave-samplers' sa builds it, {24 * length / 1e9:,.1f} GB here)")
    return kw


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def sampling_threads(plan: SamplerPlan, workers: int | None, until_solved: bool) -> int:
    """How many threads share a batch's reads: ``workers`` (0: every core); by default every
    core when the run has a time budget to use (the command line), else one, so that a
    statistics run's time per read is one sampler's. Samplers that hold the GIL get one."""
    if workers is not None and workers < 0:
        raise BackendError(f"workers must be 0 (all cores) or more, got {workers}")
    if not plan.threads:
        if workers not in (None, 0, 1):
            raise BackendError(f"backend '{plan.name}' samples on one thread (workers=1)")
        return 1
    if workers is None:
        return cores() if until_solved else 1
    return cores() if workers == 0 else workers


def run_plan(plan: SamplerPlan, nm: NonogramModel, *, deadline: Deadline, seed: int | None,
         unique: bool, reads: int | None = None, sweeps: int | None = None,
         beta_range: tuple | None = None, beta_schedule: str | None = None,
         weights: dict | None = None, params: dict | None = None,
         until_solved: bool = False, workers: int | None = None) -> RawAnswer:
    t0 = time.perf_counter()
    threads = sampling_threads(plan, workers, until_solved)
    clock = deadline
    try:
        pen = lower(nm, weights, deadline=clock)
    except ValueError as exc:
        raise BackendError(str(exc)) from None
    lowering_s = time.perf_counter() - t0  # reported apart from the sampling
    n = pen.num_variables
    if n == 0:  # every variable fixed (by the clues or presolve): the constants decide, no sampling
        empty = np.zeros(0, dtype=np.int8)
        info0 = {"sampler": plan.name, "weights": dict(pen.weights)}
        if nm.model.is_feasible(empty):
            return RawAnswer(Status.SOLVED, (empty,), solve_s=time.perf_counter() - t0,
                             proven_unique=True if unique else None, energy=0.0, info=info0)
        return RawAnswer(Status.INFEASIBLE, solve_s=time.perf_counter() - t0,
                         energy=pen.energy(empty), message="constant constraints fail (no "
                         "variables)", info=info0)
    sampler = plan.make()
    kw = sample_kwargs(plan, sampler, pen, seed=seed, reads=reads, sweeps=sweeps,
                        beta_range=beta_range, beta_schedule=beta_schedule, params=params)
    clock.check("QUBO lowering")
    if until_solved and sweeps is None and "num_sweeps" in kw \
            and "num_sweeps" not in (params or {}) and clock.end is not None:
        # the automatic schedule's length is a default, not a demand: with a time budget the
        # first batch anneals at most as long as lets a read take BUDGET_FIRST_READ of the time
        # left (later batches double it while time remains)
        # (halved until it fits, so that the length does not move with the clock's last digits)
        per_sweep = _read_seconds(plan, kw, pen, 1)
        cap = BUDGET_FIRST_READ * (clock.left() or 0.0) / max(per_sweep, 1e-12)
        while kw["num_sweeps"] > max(cap, MIN_BUDGET_SWEEPS):
            kw["num_sweeps"] = max(MIN_BUDGET_SWEEPS, kw["num_sweeps"] // 2)
    read_s = _fits_one_read(plan, kw, pen, clock)
    bqm = pen.to_bqm(labels="index")
    budget = until_solved and clock.end is not None and not plan.exhaustive
    if plan.time_limit == "tabu":
        kw.setdefault("tenure", tabu_tenure(n))
        # TabuSampler compares energy_threshold with the energy WITHOUT the offset.
        kw.setdefault("energy_threshold", -pen.offset + 1e-9 * max(1.0, abs(pen.offset)))
        left = clock.left()
        if "timeout" not in kw:  # per read, in ms: TABU_TIMEOUT_MS, or the time limit shared out
            per_thread = math.ceil(kw.get("num_reads", 1) / threads)  # reads one after another
            shared = None if left is None else max(1, int(1000 * left / per_thread))
            # a budget keeps the reads' length and samples batch after batch of them
            kw["timeout"] = (TABU_TIMEOUT_MS if shared is None
                             else min(TABU_TIMEOUT_MS, shared) if budget else shared)

    got = _sample(plan, sampler, bqm, kw, pen, clock, keep_zero=unique and plan.exhaustive,
                  read_s=read_s, threads=threads, stop_at_zero=budget)
    batches = [_batch_info(kw, got)]
    _observed(batches[-1], got, pen)
    if budget:
        got, kw = _until_solved(plan, sampler, bqm, kw, pen, clock, got, batches, threads)
    total = int(got.counts.sum())
    successes = int(got.counts[got.energies == 0].sum())
    p = successes / total if total else 0.0
    t_read = got.sampling_s / total if total else float("nan")
    ci = tts99_interval(successes, total, t_read, seed=seed or 0)
    # with threads t_read is the pace (reads overlap); no TTS99 is shorter than one read's own
    # length, the pace times the threads that shared the batch
    floor = t_read * min(threads, total) if total else 0.0

    def at_least_one_read(x: float) -> float | None:
        return None if math.isinf(x) else max(x, floor)

    cpu_read = got.cpu_s / total if total else float("nan")
    sweeps_done = kw.get("num_sweeps") or len(kw.get("beta_schedule") or ()) or None
    tts_cpu = tts99(cpu_read, p) if total else math.inf
    stats: SamplingStats | None = SamplingStats(
        reads=total, success_probability=p, time_per_read_s=t_read,
        cpu_per_read_s=cpu_read, sampling_s=got.sampling_s,
        tts99_s=None if plan.exhaustive else at_least_one_read(tts99(t_read, p)),
        tts99_low_s=None if plan.exhaustive else at_least_one_read(ci.low),
        tts99_high_s=None if plan.exhaustive else at_least_one_read(ci.high),
        sampling_cpu_s=got.cpu_s,
        # CPU adds up over threads: no floor, a read's CPU is its own work
        tts99_cpu_s=None if plan.exhaustive or math.isinf(tts_cpu) else tts_cpu,
        spin_updates_per_read=None if sweeps_done is None else int(sweeps_done) * n)
    info: dict[str, Any] = {
        "sampler": plan.name, "qubo_variables": n, "qubo_interactions": len(pen.qv),
        "weights": dict(pen.weights), "lowering_s": round(lowering_s, 6), "threads": threads,
        **{k: v for k, v in kw.items() if k in ("num_sweeps", "beta_schedule_type", "tenure")},
        **got.info,
    }
    if len(batches) > 1:  # the statistics above are the last batch's; the run's batches here
        info["batches"] = batches
    if plan.exhaustive:
        # an enumeration draws no samples: the share of its 2^n states at energy 0 is no
        # success probability (p=0.000 on a solved run), so it reports the counts instead
        info["states"] = total
        info["solutions"] = int((got.energies == 0).sum())
        stats = None
    if got.best is None:
        return RawAnswer(Status.UNKNOWN, solve_s=time.perf_counter() - t0,
                         message="the sampler returned no samples", sampling=stats, info=info)
    e_best = got.best_energy
    found = [got.best]
    if e_best == 0:
        proven = None
        if unique and plan.exhaustive:
            grids = {nm.decode(got.best)}
            for x in got.zero_rows:
                if nm.decode(x) not in grids:
                    found.append(x)
                    break
            proven = len(found) == 1
        return RawAnswer(Status.SOLVED, tuple(found), solve_s=time.perf_counter() - t0,
                         proven_unique=proven, energy=0.0, sampling=stats, info=info)
    if plan.exhaustive:
        return RawAnswer(Status.INFEASIBLE, solve_s=time.perf_counter() - t0, energy=e_best,
                         message=f"no state of the {n} variables has energy 0", sampling=stats,
                         info=info)
    broken = pen.violated(got.best)
    shown = "; ".join(map(constraint_words, broken[:3])) + ("; ..." if len(broken) > 3 else "")
    stopped = " (interrupted by the time limit)" if got.cut_short else ""
    # with a time budget the best sample is the run's, not the last batch's
    tally = (f"{sum(b['reads'] for b in batches)} reads in {len(batches)} batches"
             if len(batches) > 1 else f"{total} read{'' if total == 1 else 's'}")
    # the reads were a fixed number: a time budget (a limit with until_solved) keeps it going
    more = ("" if budget else "; --time-limit S with --until-solved keeps it sampling, batch "
            "after batch, until a verified grid or the limit")
    return RawAnswer(Status.UNKNOWN, tuple(found), solve_s=time.perf_counter() - t0, energy=e_best,
                     message=f"best of {tally}{stopped} has energy {e_best:g} and breaks "
                             f"{len(broken)} constraint{'' if len(broken) == 1 else 's'}: "
                             f"{shown}{more}", sampling=stats, info=info)


# Seconds per sweep and per unit of QUBO size (variables + 2 x interactions) of one simulated
# annealing read, and of one steepest descent read (which grows faster than linearly), measured
# on random 30x30 to 100x100 models here (2.2-2.7e-8; descent 2.5-2.9e-9 x size^1.5), rounded up.
SA_SECONDS_PER_SWEEP_UNIT = 3.5e-8
DESCENT_SECONDS_PER_UNIT15 = 4e-9
SAMPLE_CHUNK_BYTES = 1 << 26  # 64 MB of int8 samples per sampler call at most
READS_PER_CALL = {"chunks": 1000, "tabu": 10}  # reads of an uninterruptible call at most
# ... per thread in a time budget's batch, which stops at the first call with a ground state
# (a TabuSampler call sets up for 0.2 s and each read for 0.1 s on a 25x25's QUBO, measured)
BUDGET_READS_PER_CALL = {"tabu": 2}
CALL_BUDGET_S = 0.25  # with a time limit, an uninterruptible call's estimated length at most
# Work around a sampler call that no interrupt function reaches, per read and per QUBO term
# (variables + interactions): dimod scoring the random initial states before annealing starts
# (~5e-9 here), and this package re-scoring every read exactly (~4e-9 with scipy), rounded up.
# With a time limit a call holds at most the reads whose share of it fits CALL_SHARE of the
# time left (at least CALL_BUDGET_S), so the limit is kept on QUBOs of millions of terms.
POST_SECONDS_PER_READ_TERM = 1.5e-8
CALL_SHARE = 0.05
# ... and once per call, whatever its reads: dwave-samplers turning the BQM into its arrays
# (0.85 s a call on random100's 2.6M terms here), rounded up. A call that cannot end in the
# time left is not started; a call's reads are worth at least this overhead.
CALL_SECONDS_PER_TERM = 3.5e-7


BUDGET_FIRST_READ = 0.1   # with a time budget, the first read's share of the time left at most
MIN_BUDGET_SWEEPS = 10


def _read_seconds(plan: SamplerPlan, kw: dict[str, Any], pen: QuadraticPenalty, sweeps: int) -> float:
    """The estimated seconds of one annealing read of ``sweeps`` sweeps (SA_SECONDS_PER_SWEEP_UNIT)."""
    size = pen.num_variables + 2 * len(pen.qv)
    return plan.read_cost * (kw.get("trotter") or 1) * sweeps * size * SA_SECONDS_PER_SWEEP_UNIT


def _fits_one_read(plan: SamplerPlan, kw: dict[str, Any], pen: QuadraticPenalty, clock: Deadline) -> float:
    """A read cannot be interrupted (samplers check between reads): refuse up front when one
    read's estimated time does not fit the time left. Returns the estimate (0: unknown)."""
    size = pen.num_variables + 2 * len(pen.qv)
    if plan.name == "sa" or "num_sweeps" in kw:
        sweeps = kw.get("num_sweeps") or len(kw.get("beta_schedule") or ()) or SA_SWEEPS
        estimate = _read_seconds(plan, kw, pen, sweeps)
        clock.fits(f"first annealing read ({sweeps} sweeps over {size:.3g} couplings)", estimate)
        return estimate
    if plan.name == "descent":
        estimate = DESCENT_SECONDS_PER_UNIT15 * size ** 1.5
        clock.fits(f"first steepest descent read ({size:.3g} couplings)", estimate)
        return estimate
    return 0.0


def _batch_info(kw: dict[str, Any], got: _Samples) -> dict[str, Any]:
    reads = int(got.counts.sum())
    mean = float(np.dot(got.energies, got.counts) / reads) if reads else None
    return {"reads": reads, "num_sweeps": kw.get("num_sweeps"),
            "successes": int(got.counts[got.energies == 0].sum()),
            "sampling_s": round(got.sampling_s, 6), "best_energy": got.best_energy,
            "mean_energy": mean}


BATCH_OBSERVERS: list[Callable[[dict[str, Any], list], None]] = []
"""Called after every batch of reads with the batch's figures (``_batch_info``) and the labels of
the constraints its best sample breaks: the web solver's live view (empty: nothing is computed)."""


OBSERVED_ENERGIES = 200
"""Distinct energies of a batch's reads told to the observers at most (the lowest)."""


def _observed(batch: dict[str, Any], got: _Samples, pen: QuadraticPenalty) -> None:
    if BATCH_OBSERVERS:
        broken = pen.violated(got.best) if got.best is not None else []
        # the batch's energies and how many reads reached each (the live view's chart of a
        # run of one batch); given to the observers only, not kept in the run's record
        values, where = np.unique(np.asarray(got.energies, dtype=float), return_inverse=True)
        counts = np.bincount(where.ravel(), weights=got.counts, minlength=len(values))
        seen = {**batch, "energies": [[float(e), int(c)] for e, c in
                                      zip(values[:OBSERVED_ENERGIES], counts[:OBSERVED_ENERGIES])]}
        for observe in BATCH_OBSERVERS:
            observe(seen, broken)


SWEEP_GROWTH = 2          # each further batch anneals this many times longer
MAX_SWEEPS = 1_000_000


def _until_solved(plan: SamplerPlan, sampler: Any, bqm: Any, kw: dict[str, Any], pen: QuadraticPenalty,
                  clock: Deadline, got: _Samples, batches: list,
                  threads: int = 1) -> tuple[_Samples, dict]:
    """The command line's use of a time budget: while no read has reached energy 0, sample
    another batch, annealing SWEEP_GROWTH times longer (for samplers with sweeps; at the same
    length once a longer read would take more than half the time left) with as many reads as
    fit about half the time left on ``threads`` threads, until a ground state or the time
    limit. Returns the last batch (its reads give the statistics) with the best sample over
    all batches.

    (A calibration of the weights between batches, doubling the families the best sample
    breaks, was measured against the fixed weights on janko 20x20-40x30 at 30 s and did not
    beat them: 17 of 20 solved against 19; it is not offered.)"""
    best, best_e = got.best, got.best_energy
    asked = kw.get("num_reads", 1)  # the first batch's reads: no later batch has more
    setup = CALL_SECONDS_PER_TERM * (pen.num_variables + len(pen.qv)) * threads
    k = 0
    while best_e != 0 and not clock.expired():
        k += 1
        reads = max(1, int(got.counts.sum()))
        # one read's own length: the batch's wall time per read times the threads that shared it
        t_read = got.sampling_s / reads * min(threads, reads)
        nxt = dict(kw)
        if "num_sweeps" in nxt:
            nxt["num_sweeps"] = min(MAX_SWEEPS, nxt["num_sweeps"] * SWEEP_GROWTH)
            t_read *= nxt["num_sweeps"] / kw["num_sweeps"]
        left = clock.left() or 0.0
        if t_read > 0.5 * left and "num_sweeps" in nxt and nxt["num_sweeps"] != kw["num_sweeps"]:
            # the doubled length would take the rest of the time: more reads at this length
            t_read *= kw["num_sweeps"] / nxt["num_sweeps"]
            nxt["num_sweeps"] = kw["num_sweeps"]
        if t_read + setup > left + FIT_SLACK_S:
            break  # not even one read of the next length (and its call's set-up) fits
        if "num_reads" in nxt:
            fit = int(0.5 * left / max(t_read, 1e-9)) * threads  # one after another per thread
            # at least one read per thread when that fits: an idle thread is a core left unused
            nxt["num_reads"] = max(1, min(kw.get("num_reads", 1), fit),
                                   min(threads, asked) if t_read <= left else 1)
        if "seed" in nxt:
            nxt["seed"] = (nxt["seed"] + 7919 * k) % SEED_LIMIT
        got = _sample(plan, sampler, bqm, nxt, pen, clock, read_s=t_read, threads=threads,
                      stop_at_zero=True)
        batches.append(_batch_info(nxt, got))
        _observed(batches[-1], got, pen)
        kw = nxt
        if got.best is not None and got.best_energy < best_e:
            best, best_e = got.best, got.best_energy
    if got.best is None or got.best_energy > best_e:  # report the best sample of the run
        got = _Samples(got.energies, got.counts, best, best_e, got.zero_rows, got.sampling_s,
                       got.cpu_s, got.cut_short, got.info)
    return got, kw


@dataclass
class _Samples:
    """What the statistics need of a batch of reads, without keeping every sample: the energy
    and count of each distinct row, the best row (int8), and for an exhaustive uniqueness check
    the rows at energy 0 (up to a few)."""
    energies: np.ndarray
    counts: np.ndarray
    best: np.ndarray | None
    best_energy: float
    zero_rows: list[np.ndarray]
    sampling_s: float
    cpu_s: float
    cut_short: bool
    info: dict[str, Any]


def _calls(plan: SamplerPlan, kw: dict[str, Any], n: int, clock: Deadline,
           read_s: float = 0.0, terms: int = 0, threads: int = 1,
           split: bool = False) -> list[dict[str, Any]]:
    """The sampler calls for the reads asked: a call holds at most SAMPLE_CHUNK_BYTES of samples;
    a sampler that cannot be interrupted between reads gets at most READS_PER_CALL reads a call
    (so that Ctrl-C is heard within one call), and with a time limit ten calls or more, so the
    clock is read in between; with a time limit, also no more reads than keep the part of a
    call that no interrupt function reaches (scoring initial states, re-scoring the reads)
    within CALL_SHARE of the time left; ``split`` (a time budget's batch, which stops at the
    first call with a ground state) asks for ten calls or more from every sampler and at most
    BUDGET_READS_PER_CALL reads a thread. Calls take seed + call number; without a time limit
    the split depends only on the read count, so a seed still reproduces a run (a time-limited
    run on a QUBO of millions of terms splits by the time left)."""
    reads = kw.get("num_reads")
    if reads is None:
        return [kw]
    size = max(1, SAMPLE_CHUNK_BYTES // max(1, n))
    if clock.end is not None and terms:  # the part of a call no interrupt function reaches
        budget = max(CALL_BUDGET_S, CALL_SHARE * (clock.left() or 0.0),
                     CALL_SECONDS_PER_TERM * terms)
        size = min(size, max(1, int(budget / (POST_SECONDS_PER_READ_TERM * terms))))
    if "interrupt_function" not in kw:
        per = READS_PER_CALL.get(plan.time_limit, size)
        if split:
            per = min(per, BUDGET_READS_PER_CALL.get(plan.time_limit, per))
        size = min(size, per * threads)
        if clock.end is not None and plan.time_limit in ("interrupt", "chunks"):
            size = min(size, max(threads, math.ceil(reads / 10)))
            if read_s > 0:  # and no call much longer than CALL_BUDGET_S, as far as reads tell
                size = min(size, max(1, int(CALL_BUDGET_S / read_s)) * threads)
    elif split and clock.end is not None:  # a budget batch: a ground state ends it within a tenth
        size = min(size, max(threads, math.ceil(reads / 10)))
    if size >= reads:
        return [kw]
    out = []
    for k, start in enumerate(range(0, reads, size)):
        c = {**kw, "num_reads": min(size, reads - start)}
        if "seed" in c:
            c["seed"] = (c["seed"] + k) % SEED_LIMIT
        out.append(c)
    return out


def _sample(plan: SamplerPlan, sampler: Any, bqm: Any, kw: dict[str, Any], pen: QuadraticPenalty,
            clock: Deadline, keep_zero: bool = False, read_s: float = 0.0,
            threads: int = 1, stop_at_zero: bool = False) -> _Samples:
    """Call the sampler (in chunks of reads when memory or the time limit ask for it) and keep
    only what the statistics need. Ctrl-C stops a sampler that takes ``interrupt_function``
    between reads and is raised on as KeyboardInterrupt once it has returned. With
    ``stop_at_zero`` (a time budget's batches) no call follows one that reached energy 0."""
    accepted = sampler_parameters(sampler)
    interrupted: list[bool] = []
    abort: list[bool] = []  # a thread's call failed: the others stop too
    if plan.time_limit == "interrupt" and (accepted is None or "interrupt_function" in accepted) \
            and "interrupt_function" not in kw:
        def stop() -> bool:
            return bool(interrupted) or bool(abort) or clock.expired()
        kw = {**kw, "interrupt_function": stop}
    with _sigint_as_flag(interrupted) as listening:
        return _sample_calls(plan, sampler, bqm, kw, pen, clock, keep_zero, interrupted,
                             read_s, pool=threads > 1, threads=threads, abort=abort,
                             stop_at_zero=stop_at_zero, listening=listening)


@contextmanager
def _sigint_as_flag(flag: list[bool]):
    """While sampling, Ctrl-C sets ``flag`` instead of raising inside the sampler's callback
    (where an exception could be swallowed or raised before the callback's own guard): the
    interrupt function stops the sampler between reads, and KeyboardInterrupt is raised once
    the sampler has returned. Off the main thread nothing changes (signals do not arrive), nor
    where SIGINT is ignored (a harness worker, whose parent decides how to stop; nohup)."""
    import signal
    import threading

    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is signal.SIG_IGN):
        yield False
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: flag.append(True))
    try:
        yield True
    finally:
        signal.signal(signal.SIGINT, previous)
    if flag:
        raise KeyboardInterrupt


def _rejected(name: str, kw: dict[str, Any], exc: Exception) -> str:
    """A sampler refusing its arguments, in one line: the first line of its error (a pybind
    signature dump is kilobytes) and the arguments given as text where numbers are usual."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    first = first.split(". The following argument types")[0]  # pybind's list of signatures
    if len(first) > 200:
        first = first[:197] + "..."
    texts = [f"{k}={v!r}" for k, v in kw.items() if isinstance(v, str)
             and k not in ("beta_schedule_type", "interrupt_function")]
    hint = f" (given as text: {', '.join(texts)}; a number was expected?)" if texts else ""
    return f"backend '{name}': the sampler rejected its arguments{hint}: {first}"


CALL_POLL_S = 0.05  # how often the caller looks for Ctrl-C while a sampler call runs


def _call_all(plan: SamplerPlan, samplers: list[Any], bqm: Any, parts: list[dict[str, Any]],
              abort: list[bool], interrupted: list[bool],
              listening: bool = True) -> list[Any] | None:
    """One sampler call per part (``samplers[k]`` takes ``parts[k]``), each in a daemon thread,
    the caller waiting in steps of CALL_POLL_S: Ctrl-C (``interrupted``) is heard at once even
    in the middle of a read that no interrupt function reaches (an OpenJij call, a read of sa
    lasting minutes on a large QUBO). Returns None when interrupted: ``abort`` then stops the
    calls that take an interrupt function at their next read, and the others are left to end
    on their own (daemon threads: they do not keep the process alive; in a Python session the
    abandoned call keeps its core until its reads end). Where Ctrl-C does not reach the
    sampling (``listening`` False: a compare worker, a thread other than the main one) a
    single call runs on the caller's thread, as it always did."""
    import threading

    if not listening and len(parts) == 1:
        return [_call(plan, samplers[0], bqm, parts[0], abort)]
    results: list[Any] = [None] * len(parts)
    errors: list[BaseException] = []

    def work(k: int, sampler: Any, c: dict[str, Any]) -> None:
        try:
            results[k] = _call(plan, sampler, bqm, c, abort)
        except BaseException as exc:  # handed to the caller's thread below
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(k, s, c), daemon=True, name=f"{plan.name}-{k}")
               for k, (s, c) in enumerate(zip(samplers, parts))]
    for t in workers:
        t.start()
    for t in workers:
        while t.is_alive():
            t.join(CALL_POLL_S)
            if interrupted:
                abort.append(True)
                return None
    if errors:
        raise errors[0]
    return results


THREAD_SEED_STRIDE = 104_729  # thread j of a call samples with the call's seed + j x this


def split_reads(c: dict[str, Any], threads: int) -> list[dict[str, Any]]:
    """One call's reads shared among up to ``threads`` concurrent calls, each its own seed."""
    reads = c.get("num_reads")
    if threads <= 1 or reads is None or reads < 2:
        return [c]
    k = min(threads, reads)
    out = []
    for j in range(k):
        part = {**c, "num_reads": reads // k + (1 if j < reads % k else 0)}
        if "seed" in part:
            part["seed"] = (part["seed"] + THREAD_SEED_STRIDE * j) % SEED_LIMIT
        out.append(part)
    return out


def _call(plan: SamplerPlan, sampler: Any, bqm: Any, c: dict[str, Any],
          abort: list[bool] | None = None) -> Any:
    """One sampler call; on any error ``abort`` is set, so that the interrupt function stops
    the other threads' calls between reads."""
    try:
        with openmp_threads(plan):  # in the thread that samples: the limit is per thread
            ss = sampler.sample(bqm, **c)
            _ = ss.record  # a lazy sample set resolves here, in the calling thread
        return ss
    except (TypeError, ValueError) as exc:
        if abort is not None:
            abort.append(True)
        raise BackendError(_rejected(plan.name, c, exc)) from None
    except BaseException:
        if abort is not None:
            abort.append(True)
        raise


def _sample_calls(plan: SamplerPlan, sampler: Any, bqm: Any, kw: dict[str, Any], pen: QuadraticPenalty,
                  clock: Deadline, keep_zero: bool, interrupted: list[bool],
                  read_s: float = 0.0, pool: bool = False, threads: int = 1,
                  abort: list[bool] | None = None, stop_at_zero: bool = False,
                  listening: bool = True) -> _Samples:
    """The sampler calls of :func:`_sample` and what is kept of them. With ``pool``, each
    call's reads are shared among ``threads`` concurrent sampler calls (samplers whose
    ``sample`` releases the GIL: dwave-samplers' C++ loops), one sampler object per thread.
    Every call runs off the caller's thread (:func:`_call_all`) so that Ctrl-C is heard."""
    abort = abort if abort is not None else []
    n = pen.num_variables
    energies: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    zero_rows: list[np.ndarray] = []
    best, best_e = None, math.inf
    spent = cpu = 0.0
    cut = False
    sinfo: dict[str, Any] = {}
    terms = n + len(pen.qv)
    # per_read: the run's pace (wall seconds per read, threads overlapping); one_read: one read's
    # own length, what a call that cannot stop mid-read needs on each thread
    per_read = read_s / max(1, threads) + POST_SECONDS_PER_READ_TERM * terms
    one_read = read_s + POST_SECONDS_PER_READ_TERM * terms
    setup = CALL_SECONDS_PER_TERM * terms * (threads if pool else 1)  # per thread
    samplers = [sampler] + [plan.make() for _ in range(threads - 1)] if pool else [sampler]
    done = 0
    t_first = time.perf_counter()
    for c in _calls(plan, kw, n, clock, read_s, terms, threads if pool else 1,
                    split=stop_at_zero):
        if counts and clock.expired():
            cut = True
            break
        left = clock.left()
        if counts and left is not None and left < setup + one_read:
            cut = True  # not even one read of another call fits
            break
        if counts and left is not None and c.get("num_reads", 1) > 1:
            # the reads of this call that fit the time left, at the pace measured so far: as
            # many rounds of one read per thread as fit (a thread's reads run one after another)
            rounds = max(1, int((left - setup) / max(one_read, 1e-9)))
            fit = rounds * (threads if pool else 1)
            if fit < c["num_reads"]:
                c = {**c, "num_reads": fit}
                cut = True
        t, c0 = time.perf_counter(), cpu_seconds()
        calls = _call_all(plan, samplers, bqm, split_reads(c, threads) if pool else [c], abort,
                          interrupted, listening)
        spent += time.perf_counter() - t
        cpu += cpu_seconds() - c0
        if calls is None or interrupted:
            break  # raised on by _sigint_as_flag
        sets = calls
        for ss in sets:
            best, best_e = rescore_into(ss, pen, n, energies, counts, zero_rows, keep_zero, sinfo,
                                 best, best_e)
            done += len(ss.record)
        del sets
        if stop_at_zero and best_e == 0:
            break  # a verified ground state: the budget has done its work
        per_read = (time.perf_counter() - t_first) / max(1, done)
        one_read = per_read * (min(threads, c.get("num_reads") or 1) if pool else 1)
    if clock.expired() and "interrupt_function" in kw:
        cut = cut or int(sum(int(x.sum()) for x in counts)) < (kw.get("num_reads") or 0)
    return _Samples(np.concatenate(energies) if energies else np.zeros(0),
                    np.concatenate(counts) if counts else np.zeros(0, np.int64), best, best_e,
                    zero_rows, spent, cpu, cut, sinfo)


def rescore_into(ss: Any, pen: QuadraticPenalty, n: int, energies: list, counts: list, zero_rows: list,
          keep_zero: bool, sinfo: dict[str, Any], best: np.ndarray | None,
          best_e: float) -> tuple[np.ndarray | None, float]:
    """Re-score one sample set exactly and keep what the statistics need (appending to
    ``energies``, ``counts``, ``zero_rows``, ``sinfo``); returns the best row so far."""
    X, e, count = rescore(ss, pen)
    energies.append(e)
    counts.append(count)
    if len(e):
        k = int(np.argmin(e))
        if e[k] < best_e:
            best, best_e = X[k].copy(), float(e[k])
    if keep_zero and len(zero_rows) < 64:
        zero_rows.extend(X[i].copy() for i in np.flatnonzero(e == 0)[:64 - len(zero_rows)])
    if ss.info.get("beta_range") is not None:
        sinfo["beta_range"] = [float(b) for b in ss.info["beta_range"]]
    if isinstance(ss.info.get("beta_schedule_type"), str):
        sinfo["beta_schedule_type"] = ss.info["beta_schedule_type"]
    timing = ss.info.get("timing")
    if isinstance(timing, dict) and "sampling_ns" in timing:
        sinfo["sampler_sampling_s"] = sinfo.get("sampler_sampling_s", 0.0) + timing["sampling_ns"] * 1e-9
    return best, best_e


# -- declaring a named sampler ------------------------------------------------------------------

PLANS: dict[str, SamplerPlan] = {}
"""Every declared sampler's plan by backend name (filled as the declaring modules load)."""

WEIGHT_OPTIONS: dict[str, type] = {"weights": dict, "params": dict, "until_solved": bool}
THREAD_OPTIONS: dict[str, type] = {"workers": int}  # sampling threads (sampling_threads)
SA_OPTIONS: dict[str, type] = {"reads": int, "sweeps": int, "beta_range": tuple,
                               "beta_schedule": str, **WEIGHT_OPTIONS}
AT_LEAST_ONE: dict[str, float] = {"reads": 1, "sweeps": 1}
NO_X_SAMPLERS = False
"""The annealers get the model without the cell variables x unless the caller chooses. Measured
for sa on 25 janko puzzles of 15x15 to 40x30 (2/2/1 weights, the best of 100-30000 sweeps
each): no-x had the lower best TTS99 on every one, by 2-10x, and reached p > 0 on 22 of 25
against 16 with x; for tabu on a unique 20x20, p = 0.6 without x and 0 with it. OpenJij's SA
samples the same QUBO."""


def make_sampler(module: str, cls: str) -> Callable[[], Any]:
    """A maker of ``module.cls()`` that imports the module only when called."""
    def make() -> Any:
        return getattr(importlib.import_module(module), cls)()
    return make


def sampler_solver(plan: SamplerPlan) -> Callable[..., RawAnswer]:
    """``Backend.solve_fn`` of a sampler: :func:`run_plan` with the plan."""
    def solve(nm: NonogramModel, **kwargs: Any) -> RawAnswer:
        return run_plan(plan, nm, **kwargs)
    return solve


def param_checker(plan: SamplerPlan) -> Callable[[dict[str, Any]], None]:
    """``Backend.check_params``: native parameters the sampler does not take fail up front."""
    def check(params: dict[str, Any]) -> None:
        accepted = sampler_parameters(plan.make())
        unknown = sorted(set(params) - accepted) if accepted is not None else []
        if unknown and accepted is not None:  # (unknown is empty when accepted is None)
            raise BackendError(f"unknown parameter '{unknown[0]}' for backend '{plan.name}' "
                               f"(sampler parameters: {', '.join(sorted(accepted)) or 'none'})")
    return check


def declare(plan: SamplerPlan, description: str, *, options: dict[str, type],
            requires: tuple[str, ...], install_hint: str = "", **backend: Any) -> Backend:
    """A named sampler: its plan registered (the registry's ``plan_of`` finds it) and its
    Backend, with the
    pipeline's solver, parameter check, QUBO size and ``reads``/``sweeps`` at least 1; any other
    Backend field (``use_x``, ``refuse``, ``supports_unique``, ...) passes through."""
    PLANS[plan.name] = plan
    fields: dict[str, Any] = dict(translation=qubo_size, check_params=param_checker(plan),
                                  minimum=dict(AT_LEAST_ONE), reproducible=True)
    fields.update(backend)
    return Backend(plan.name, description, sampler_solver(plan), requires=requires,
                   install_hint=install_hint, options=options, **fields)


def rescore(ss: Any, pen: QuadraticPenalty) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A dimod sample set re-scored exactly: its rows as an int8 matrix in the model's variable
    order, their penalty energies and their occurrence counts."""
    rec = ss.record
    order = np.fromiter(ss.variables, dtype=np.int64, count=len(ss.variables))
    X = np.zeros((len(rec), pen.num_variables), dtype=np.int8)
    X[:, order] = rec.sample
    counts = np.asarray(getattr(rec, "num_occurrences", np.ones(len(rec))), dtype=np.int64)
    return X, pen.energies(X), counts
