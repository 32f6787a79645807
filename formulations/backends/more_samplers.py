"""More samplers on the one penalty QUBO: dwave-samplers' quantum-annealing simulators
(``pimc``: path-integral Monte Carlo, ``rotor``: the rotor (spin-vector) model) and
dwave-hybrid's parallel tempering (``pt``) and population annealing (``pa``).

Each is a small dimod-style sampler class here (``sample(bqm, num_reads=, num_sweeps=,
beta_range=, seed=, interrupt_function=, ...)``) run through the one sampler pipeline (``formulations.backends.sampling``):
the same lowering (``formulations.model.penalty``), exact re-scoring of every read, statistics
(p, TTS99 and its interval), time budget (batches that double the length until a verified
ground state, ``until_solved``), Ctrl-C between reads (and between PT/PA rounds), and seeds.

What a read is:

* ``pimc`` / ``rotor``: one anneal of ``num_sweeps`` sweeps. The problem's inverse temperature
  rises along sa's geometric ``beta_range`` while a transverse field ``gamma`` (in units of the
  smallest weight, like beta) falls linearly to 0: at step s of S the sampler gets
  ``Hp = beta(s)`` and ``Hd = beta(s) * gamma * (1 - s/(S-1))``; with ``fixed_beta=true``
  beta stays at the range's cold end (simulated quantum annealing at a fixed temperature, as
  Ronnow et al. and Isakov et al. ran it: only the field anneals). ``gamma=0`` is classical
  annealing in the simulator (dwave's own default leaves the driver field at 0, i.e. no quantum
  fluctuations at all, which is why a schedule is built here).
* ``pt``: one parallel tempering run of ``num_sweeps`` sweeps per replica: ``num_replicas``
  replicas at betas spaced geometrically over ``beta_range`` sample at fixed temperature
  (hybrid's ``FixedTemperatureSampler``) ``sweeps_per_swap`` sweeps at a time, then adjacent
  replicas swap (hybrid's ``SwapReplicasDownsweep``); the read is the best replica at the end,
  and it ends early once a replica reaches the target energy (0, verified afterwards).
* ``pa``: one population annealing run: a population of ``population`` states goes through
  ``num_sweeps / sweeps_per_step`` temperatures along ``beta_range`` (geometric), each step
  ``sweeps_per_step`` fixed-temperature sweeps (hybrid's ``FixedTemperatureSampler``) then a
  resampling weighted by ``exp(-delta_beta * energy)`` (hybrid's ``EnergyWeightedResampler``);
  the read is the best member at the end (or at the first member at energy 0).

So a PT read costs ``num_replicas`` x ``num_sweeps`` sweeps and a PA read ``population`` x
``num_sweeps``; TTS99 counts reads as they are (a read's wall or CPU time, overheads included).

Defaults, measured (``bench/new_samplers.py tune``, TTS99 in CPU time on cat15 and janko
11_20x20 / 12_20x20; docs/samplers.md has the tables):

* ``pimc``: gamma 0.25, sa's beta range and automatic length. gamma 0 and 0.25 tied on cat15
  (44-54 ms); on 11_20x20 at 1600 sweeps 0.25 gave 1.3 s (p 0.70) against 2.7 s (p 0.40) at
  0; gamma 1 and 4 were 2-10x worse everywhere (and a read costs more: the path integral grows
  with beta x gamma). Fixed-temperature SQA (``fixed_beta``) was worse (cat15 240 ms at best).
* ``rotor``: beta 1..300, no field. At sa's 1..10 p stayed at 0.003-0.03 on cat15; a colder end
  lifted it (TTS99 66 ms at 30, 17 ms at 100, 14 ms at 300, 400 sweeps); the field did not help.
  On the 20x20s p was 0 at every setting but one (p 0.026): the weakest of the four.
* ``pt``: 4 replicas, a swap sweep every 100 sweeps, 4000 sweeps per replica: cat15 11 ms
  (8 replicas 27-43 ms), 11_20x20 197 ms (1000 sweeps 446 ms; swaps every 10 sweeps 3.9 s,
  hybrid's Python per round dominating).
* ``pa``: population 10, 10 sweeps per temperature, 500 sweeps: cat15 47 ms, 11_20x20 133 ms
  (population 50: 78 ms on cat15; 2 sweeps per temperature 163-556 ms).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .base import Backend
from .sampling import AUTO, NO_X_SAMPLERS, SamplerPlan, declare

# -- defaults (measured; see the module docstring and docs/samplers.md) -----------------------
PIMC_GAMMA = 0.25          # initial transverse field, units of the smallest weight
ROTOR_GAMMA = 0.0
ROTOR_BETA = (1.0, 300.0)  # rotor's beta range (units of 1/min weight): colder than sa's 1..10
QA_READS = 100             # like sa; fewer for long anneals (auto_reads)
PT_REPLICAS = 4
PT_SWEEPS_PER_SWAP = 100
PT_READS = 10
PT_SWEEPS = 4000           # per replica (a run ends at its first ground state)
PA_POPULATION = 10
PA_SWEEPS_PER_STEP = 10
PA_READS = 10
PA_SWEEPS = 500            # per member
SEED_LIMIT = 2 ** 31
TARGET = 1e-9              # a read at or below this energy (the exact 0, offset included) is done


def _rng(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(seed)


def _seed_stream(rng: np.random.Generator) -> Callable[[], int]:
    return lambda: int(rng.integers(SEED_LIMIT))



def _betas(beta_range, steps: int, kind: str) -> np.ndarray:
    """``steps`` inverse temperatures from the range's low end to its high end, spaced
    ``linear`` or ``geometric`` (the schedule both the simulators and population annealing use)."""
    lo, hi = sorted(float(b) for b in beta_range)
    if kind == "linear":
        return np.linspace(lo, hi, steps)
    if kind == "geometric":
        return np.geomspace(lo, hi, steps)
    raise ValueError(f"beta_schedule_type must be linear or geometric, got {kind!r}")

class FieldAnnealingSampler:
    """dwave-samplers' PathIntegralAnnealingSampler or RotorModelAnnealingSampler with sa's beta
    schedule and a transverse field that falls to 0 (``gamma``, in units of beta); a dimod-style
    sampler (``parameters``, ``sample``)."""

    def __init__(self, kind: str):
        from dwave.samplers import PathIntegralAnnealingSampler, RotorModelAnnealingSampler
        self.kind = kind
        self._inner = (PathIntegralAnnealingSampler() if kind == "pimc"
                       else RotorModelAnnealingSampler())
        self.parameters: dict[str, list[str]]  # dimod's: parameter name to its relevant properties
        self.parameters = {"num_reads": [], "num_sweeps": [], "beta_range": [],
                           "beta_schedule_type": [], "gamma": [], "fixed_beta": [], "seed": [],
                           "interrupt_function": []}
        # the simulator's own knobs that make sense with this schedule, passed through
        self._own = ({"qubits_per_update"} if kind == "pimc"
                     else {"randomize_order", "proposal_acceptance_criteria"})
        self.parameters.update({k: [] for k in self._own})
        self.properties: dict[str, Any] = {}

    def sample(self, bqm: Any, *, num_reads: int = 1, num_sweeps: int = 100,
               beta_range: tuple[float, float] = (1.0, 10.0), beta_schedule_type: str = "geometric",
               gamma: float | None = None, fixed_beta: bool = False, seed: int | None = None,
               interrupt_function: Callable[[], bool] | None = None, **own: Any) -> Any:
        unknown = set(own) - self._own
        if unknown:
            raise ValueError(f"unknown parameter {sorted(unknown)[0]!r}")
        gamma = (PIMC_GAMMA if self.kind == "pimc" else ROTOR_GAMMA) if gamma is None else gamma
        if gamma < 0:
            raise ValueError(f"gamma must be 0 or more, got {gamma}")
        steps = max(2, int(num_sweeps))
        hp = _betas(beta_range, steps, beta_schedule_type)
        lo, hi = float(hp[0]), float(hp[-1])
        if fixed_beta:  # quantum annealing at the cold end's temperature throughout
            hp = np.full(steps, hi)
        hd = hp * float(gamma) * np.linspace(1.0, 0.0, steps)
        ss = self._inner.sample(bqm, num_reads=num_reads, beta_schedule_type="custom",
                                Hp_field=hp, Hd_field=hd, seed=seed,
                                interrupt_function=interrupt_function, **own)
        ss.info["beta_range"] = [lo, hi]
        ss.info["beta_schedule_type"] = beta_schedule_type
        return ss


def _random_states(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    return rng.integers(0, 2, size=(k, n), dtype=np.int8)


def _stopper(interrupt_function: Callable[[], bool] | None) -> Callable[[Any], bool]:
    def terminate(best: float) -> bool:
        return best <= TARGET or bool(interrupt_function and interrupt_function())
    return terminate


def _fixed_temperature_sampler(**kwargs: Any):
    """hybrid's FixedTemperatureSampler that draws each call's seed from its state (so that
    replicas running on hybrid's threads stay reproducible) and passes the next one on."""
    import hybrid

    class Seeded(hybrid.FixedTemperatureSampler):
        def next(self, state, **runopts):
            rng = np.random.default_rng(state.seed)
            out = super().next(state, seed=int(rng.integers(SEED_LIMIT)), **runopts)
            return out.updated(seed=int(rng.integers(SEED_LIMIT)))

    return Seeded(**kwargs)


class ParallelTemperingSampler:
    """Parallel tempering built from dwave-hybrid's runnables (``hybrid.reference.pt``'s
    FixedTemperatureSampler and SwapReplicasDownsweep in a ``hybrid.Loop``), with the betas,
    seeds, early stop and interrupt this package needs; one read = one PT run."""

    def __init__(self) -> None:
        import hybrid  # noqa: F401  (fails early with an ImportError when absent)
        self.parameters: dict[str, list[str]]  # dimod's: parameter name to its relevant properties
        self.parameters = {"num_reads": [], "num_sweeps": [], "beta_range": [],
                           "num_replicas": [], "sweeps_per_swap": [], "seed": [],
                           "interrupt_function": []}
        self.properties: dict[str, Any] = {}

    def sample(self, bqm: Any, *, num_reads: int = 1, num_sweeps: int = PT_SWEEPS,
               beta_range: tuple[float, float] = (1.0, 10.0), num_replicas: int = PT_REPLICAS,
               sweeps_per_swap: int = PT_SWEEPS_PER_SWAP, seed: int | None = None,
               interrupt_function: Callable[[], bool] | None = None) -> Any:
        import dimod
        import hybrid
        from hybrid.reference.pt import SwapReplicasDownsweep

        if num_replicas < 2 or sweeps_per_swap < 1:
            raise ValueError("num_replicas must be at least 2 and sweeps_per_swap at least 1")
        lo, hi = sorted(float(b) for b in beta_range)
        betas = np.geomspace(lo, hi, int(num_replicas))
        rounds = max(1, math.ceil(int(num_sweeps) / int(sweeps_per_swap)))
        rng = _rng(seed)
        labels = list(bqm.variables)
        rows: list[list[int]] = []
        energies: list[float] = []
        terminate = _stopper(interrupt_function)
        for _ in range(int(num_reads)):
            if rows and interrupt_function and interrupt_function():
                break
            init = _random_states(rng, int(num_replicas), len(labels))
            states = hybrid.States(*[
                hybrid.State.from_sample(dict(zip(labels, init[r])), bqm).updated(
                    beta=float(b), seed=int(rng.integers(SEED_LIMIT)))
                for r, b in enumerate(betas)])
            loop = hybrid.Loop(
                hybrid.Map(_fixed_temperature_sampler(num_sweeps=int(sweeps_per_swap)))
                | SwapReplicasDownsweep(seed=int(rng.integers(SEED_LIMIT))),
                max_iter=rounds, key=lambda ss: min(s.samples.first.energy for s in ss),
                terminate=terminate)
            out = loop.run(states, executor=hybrid.immediate_executor).result()  # in this thread
            best = min(out, key=lambda s: s.samples.first.energy).samples.first
            rows.append([best.sample[v] for v in labels])
            energies.append(best.energy)
        return dimod.SampleSet.from_samples((np.asarray(rows, dtype=np.int8).reshape(-1, len(labels)),
                                             labels), dimod.BINARY, energy=energies,
                                            info={"beta_range": [lo, hi]})


class PopulationAnnealingSampler:
    """Population annealing built from dwave-hybrid's runnables (``hybrid.reference.pa``'s
    ProgressBetaAlongSchedule, FixedTemperatureSampler and EnergyWeightedResampler in a
    ``hybrid.Loop``); one read = one PA run of a population."""

    def __init__(self) -> None:
        import hybrid  # noqa: F401
        self.parameters: dict[str, list[str]]  # dimod's: parameter name to its relevant properties
        self.parameters = {"num_reads": [], "num_sweeps": [], "beta_range": [],
                           "beta_schedule_type": [], "population": [], "sweeps_per_step": [],
                           "seed": [], "interrupt_function": []}
        self.properties: dict[str, Any] = {}

    def sample(self, bqm: Any, *, num_reads: int = 1, num_sweeps: int = PA_SWEEPS,
               beta_range: tuple[float, float] = (1.0, 10.0), beta_schedule_type: str = "geometric",
               population: int = PA_POPULATION, sweeps_per_step: int = PA_SWEEPS_PER_STEP,
               seed: int | None = None,
               interrupt_function: Callable[[], bool] | None = None) -> Any:
        import dimod
        import hybrid
        from hybrid.reference.pa import EnergyWeightedResampler, ProgressBetaAlongSchedule

        if population < 1 or sweeps_per_step < 1:
            raise ValueError("population and sweeps_per_step must be at least 1")
        steps = max(2, math.ceil(int(num_sweeps) / int(sweeps_per_step)))
        betas = _betas(beta_range, steps, beta_schedule_type)
        lo, hi = float(betas[0]), float(betas[-1])
        rng = _rng(seed)
        labels = list(bqm.variables)
        rows: list[list[int]] = []
        energies: list[float] = []
        terminate = _stopper(interrupt_function)
        for _ in range(int(num_reads)):
            if rows and interrupt_function and interrupt_function():
                break
            init = dimod.SampleSet.from_samples_bqm(
                (_random_states(rng, int(population), len(labels)), labels), bqm)
            state = hybrid.State(problem=bqm, samples=init, seed=int(rng.integers(SEED_LIMIT)))
            loop = hybrid.Loop(
                ProgressBetaAlongSchedule(beta_schedule=[float(b) for b in betas])
                | _fixed_temperature_sampler(num_sweeps=int(sweeps_per_step),
                                             num_reads=int(population))
                | EnergyWeightedResampler(seed=int(rng.integers(SEED_LIMIT))),
                max_iter=steps, terminate=terminate)
            out = loop.run(state, executor=hybrid.immediate_executor).result()  # in this thread
            best = out.samples.first
            rows.append([best.sample[v] for v in labels])
            energies.append(best.energy)
        return dimod.SampleSet.from_samples((np.asarray(rows, dtype=np.int8).reshape(-1, len(labels)),
                                             labels), dimod.BINARY, energy=energies,
                                            info={"beta_range": [lo, hi],
                                                  "beta_schedule_type": beta_schedule_type})


# -- the backends -------------------------------------------------------------------------------

def _make(kind: str) -> Callable[[], Any]:
    def make() -> Any:
        if kind in ("pimc", "rotor"):
            return FieldAnnealingSampler(kind)
        return ParallelTemperingSampler() if kind == "pt" else PopulationAnnealingSampler()
    return make


# read_cost: one read's time relative to dwave's SA at the same sweeps (the time-limit's
# estimate of a first read; measured on cat15 and janko 20x20 here, rounded up); the study's
# cost per read is sa's times it (not calibrated)
_PLANS = {
    "pimc": SamplerPlan("pimc", _make("pimc"), QA_READS, "interrupt", scaled_beta=True,
                        default_sweeps=AUTO, read_cost=6.0, threads=True),
    "rotor": SamplerPlan("rotor", _make("rotor"), QA_READS, "interrupt", scaled_beta=True,
                         default_sweeps=AUTO, read_cost=4.0, threads=True, beta=ROTOR_BETA),
    "pt": SamplerPlan("pt", _make("pt"), PT_READS, "interrupt", scaled_beta=True,
                      default_sweeps=PT_SWEEPS, read_cost=2.0 * PT_REPLICAS,
                      length_unit="sweeps per replica"),
    "pa": SamplerPlan("pa", _make("pa"), PA_READS, "interrupt", scaled_beta=True,
                      default_sweeps=PA_SWEEPS, read_cost=2.0 * PA_POPULATION,
                      length_unit="sweeps per member"),
}

_HINT = 'pip install -e ".[qa]" (or: pip install dimod "dwave-samplers>=1.5" scipy)'
_HYBRID_HINT = 'pip install -e ".[hybrid]" (or: pip install dimod dwave-samplers dwave-hybrid scipy)'
_QA_OPTIONS = {"reads": int, "sweeps": int, "beta_range": tuple, "beta_schedule": str,
               "weights": dict, "params": dict, "until_solved": bool, "workers": int}
_PT_OPTIONS = {"reads": int, "sweeps": int, "beta_range": tuple, "weights": dict,
               "params": dict, "until_solved": bool}
_PA_OPTIONS = {**_PT_OPTIONS, "beta_schedule": str}


def _backend(name: str, description: str, options: dict, requires: tuple, hint: str) -> Backend:
    return declare(_PLANS[name], description, options=options, requires=requires,
                   install_hint=hint, use_x=NO_X_SAMPLERS)


BACKENDS = [
    _backend("pimc", f"dwave-samplers path-integral Monte Carlo (simulated quantum annealing) "
                     f"on the penalty QUBO: sa's schedule with a transverse field falling from "
                     f"--param gamma={PIMC_GAMMA:g} to 0", _QA_OPTIONS,
             ("dimod", "dwave.samplers.sqa", "scipy"), _HINT),
    _backend("rotor", f"dwave-samplers rotor-model (spin-vector) annealing on the penalty QUBO: "
                      f"sa's length, beta {ROTOR_BETA[0]:g}..{ROTOR_BETA[1]:g}, a transverse "
                      f"field from --param gamma= (default {ROTOR_GAMMA:g}) falling to 0",
             _QA_OPTIONS,
             ("dimod", "dwave.samplers.sqa", "scipy"), _HINT),
    _backend("pt", f"dwave-hybrid parallel tempering on the penalty QUBO ({PT_REPLICAS} replicas "
                   f"over sa's beta range, a swap sweep every {PT_SWEEPS_PER_SWAP} sweeps; a read "
                   f"is a run of {PT_SWEEPS} sweeps per replica, {PT_READS} reads)", _PT_OPTIONS,
             ("dimod", "dwave.samplers", "hybrid", "scipy"), _HYBRID_HINT),
    _backend("pa", f"dwave-hybrid population annealing on the penalty QUBO (population "
                   f"{PA_POPULATION}, {PA_SWEEPS_PER_STEP} sweeps per temperature; a read is a "
                   f"run of {PA_SWEEPS} sweeps per member, {PA_READS} reads)", _PA_OPTIONS,
             ("dimod", "dwave.samplers", "hybrid", "scipy"), _HYBRID_HINT),
]
