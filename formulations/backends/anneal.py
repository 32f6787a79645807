"""The dwave-samplers and OpenJij samplers, each one declaration on the sampler pipeline
(:mod:`.sampling`): sa, tabu, descent, exact, openjij-sa, openjij-sqa; and any dimod sampler
class by import path (``dimod:MODULE:CLASS``, :func:`resolve`).

The pipeline (plans, keyword mapping, the run loop, re-scoring, threads, the deadline) and the
defaults' measurements are in :mod:`.sampling`; this module only says which samplers there are.
"""
from __future__ import annotations

import importlib
from typing import Any

from formulations.results import BackendError

from .base import Backend, size_limit
from .sampling import (AUTO, DESCENT_READS, EXACT_MAX_VARIABLES, GENERIC_READS, NO_X_SAMPLERS,
                       OPENJIJ_SA_READS, OPENJIJ_SQA_READS, OPENJIJ_SQA_SWEEPS, SA_OPTIONS,
                       SA_READS, TABU_MAX_VARIABLES, TABU_READS, THREAD_OPTIONS, WEIGHT_OPTIONS,
                       SamplerPlan, declare, make_sampler, sampler_parameters)

_HINT = 'pip install -e ".[anneal]" (or: pip install dimod dwave-samplers scipy)'
_OJ_HINT = 'pip install -e ".[openjij]" (or: pip install openjij threadpoolctl scipy)'
# scipy: the TTS99 interval of every sampler's answer (formulations.analysis.stats)
_DWAVE = ("dimod", "dwave.samplers", "scipy")
_OPENJIJ = ("openjij", "threadpoolctl", "scipy")
ENUMERATORS_X = False
"""A sampler that enumerates all 2^n states takes 2^(n_x) times longer with the x variables
(heart5: 44 variables with x, 19 without, and a limit of 20), so it gets the model without x."""
_SA_OPTIONS_NO_SCHEDULE = {k: v for k, v in SA_OPTIONS.items() if k != "beta_schedule"}

BACKENDS = [
    declare(SamplerPlan("sa", make_sampler("dwave.samplers", "SimulatedAnnealingSampler"),
                        SA_READS, "interrupt", scaled_beta=True, default_sweeps=AUTO,
                        threads=True, cost=(1.2e-9, "terms", 1.0), zero_length="num_sweeps"),
            "dwave-samplers simulated annealing on the penalty QUBO (model without x; an "
            "automatic schedule: sweeps from the model's size, 188 on cat15, 30000 at most; "
            "reads 100, fewer for long anneals)",
            options={**SA_OPTIONS, **THREAD_OPTIONS}, requires=_DWAVE, install_hint=_HINT,
            use_x=NO_X_SAMPLERS),
    declare(SamplerPlan("tabu", make_sampler("dwave.samplers", "TabuSampler"), TABU_READS,
                        "tabu", threads=True, length_unit="updates_per_variable",
                        cost=(1.8e-11, "variables", 2.0), zero_length="coefficient_z_first"),
            f"dwave-samplers tabu search on the penalty QUBO (default {TABU_READS} reads, "
            "each stopping at energy 0)",
            options={"reads": int, **WEIGHT_OPTIONS, **THREAD_OPTIONS}, requires=_DWAVE,
            install_hint=_HINT, use_x=NO_X_SAMPLERS, reproducible=False,
            refuse=size_limit("tabu", TABU_MAX_VARIABLES, "it builds a dense n x n matrix")),
    declare(SamplerPlan("descent", make_sampler("dwave.samplers", "SteepestDescentSolver"),
                        DESCENT_READS, "chunks", threads=True, length_unit=None),
            f"dwave-samplers steepest descent from random states (default {DESCENT_READS} "
            "reads; a baseline, rarely solves)",
            options={"reads": int, **WEIGHT_OPTIONS, **THREAD_OPTIONS}, requires=_DWAVE,
            install_hint=_HINT),
    # OpenJij's samplers through their dimod interface; chunked reads for the time limit
    declare(SamplerPlan("openjij-sa", make_sampler("openjij", "SASampler"), OPENJIJ_SA_READS,
                        "chunks", scaled_beta=True, default_sweeps=AUTO, beta_split=True,
                        read_cost=2.0, openmp="openjij", cost=(3.5e-9, "terms", 1.0),
                        zero_length="num_sweeps"),
            "OpenJij simulated annealing (SASampler) on the penalty QUBO (model without x; the "
            "automatic schedule of sa)",
            options=_SA_OPTIONS_NO_SCHEDULE, requires=_OPENJIJ, install_hint=_OJ_HINT,
            use_x=NO_X_SAMPLERS),
    declare(SamplerPlan("openjij-sqa", make_sampler("openjij", "SQASampler"), OPENJIJ_SQA_READS,
                        "chunks", default_sweeps=OPENJIJ_SQA_SWEEPS, read_cost=8.0,
                        openmp="openjij", cost=(9.8e-10, "terms", 1.5)),
            f"OpenJij simulated quantum annealing (SQASampler, path-integral Monte Carlo; "
            f"--param gamma=, trotter=, beta=) on the penalty QUBO (default {OPENJIJ_SQA_READS} "
            f"reads x {OPENJIJ_SQA_SWEEPS} sweeps)",
            options={"reads": int, "sweeps": int, **WEIGHT_OPTIONS}, requires=_OPENJIJ,
            install_hint=_OJ_HINT, use_x=NO_X_SAMPLERS),
    declare(SamplerPlan("exact", make_sampler("dimod", "ExactSolver"), None, "ignore",
                        exhaustive=True, length_unit=None),
            f"dimod ExactSolver: all 2^n states, models of at most {EXACT_MAX_VARIABLES} "
            "variables (proves infeasible/unique)",
            options=dict(WEIGHT_OPTIONS), requires=("dimod", "scipy"), install_hint=_HINT,
            supports_unique=True, minimum={}, use_x=ENUMERATORS_X,
            refuse=size_limit("exact", EXACT_MAX_VARIABLES, "it enumerates all 2^n states")),
]


def resolve(name: str) -> Backend:
    """A backend for any dimod sampler class named ``dimod:MODULE:CLASS`` (instantiated with no
    arguments), e.g. ``dimod:openjij:SASampler``; a clear BackendError when it cannot be used."""
    parts = name.split(":")
    if len(parts) != 3 or parts[0] != "dimod" or not parts[1] or not parts[2]:
        raise BackendError(f"'{name}': dimod samplers are named dimod:MODULE:CLASS, "
                           "e.g. dimod:dwave.samplers:SimulatedAnnealingSampler")
    _, module, cls = parts
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        from .base import missing_module_hint
        hint = f": {missing_module_hint(module, exc.name)}" if isinstance(
            exc, ModuleNotFoundError) else ""
        raise BackendError(f"backend '{name}': cannot import module '{module}' ({exc}){hint}") \
            from None
    target = getattr(mod, cls, None)
    if target is None:
        raise BackendError(f"backend '{name}': module '{module}' has no attribute '{cls}'")
    if not callable(getattr(target, "sample", None)):
        raise BackendError(f"backend '{name}': '{module}.{cls}' is not a dimod sampler "
                           "(it has no sample method)")

    def make():
        try:
            return target() if isinstance(target, type) else target
        except Exception as exc:
            raise BackendError(f"backend '{name}': cannot create {cls}() ({exc})") from None

    sampler = make()
    if _enumerates(sampler):  # holds all 2^n states: the exact backend's guard and meaning
        return declare(SamplerPlan(name, make, None, "ignore", exhaustive=True, length_unit=None),
                       f"dimod sampler {module}.{cls}: all 2^n states, at most "
                       f"{EXACT_MAX_VARIABLES} variables", options=dict(WEIGHT_OPTIONS),
                       requires=(module,), supports_unique=True, minimum={},
                       use_x=ENUMERATORS_X, refuse=size_limit(
                           name, EXACT_MAX_VARIABLES, "it enumerates all 2^n states"))
    accepts_interrupt = "interrupt_function" in (sampler_parameters(sampler) or set())
    plan = SamplerPlan(name, make, GENERIC_READS, "interrupt" if accepts_interrupt else "chunks")
    return declare(plan, f"dimod sampler {module}.{cls} on the penalty QUBO",
                   options=dict(SA_OPTIONS), requires=(module,), reproducible=False)


def _enumerates(sampler: Any) -> bool:
    """Whether a dimod sampler enumerates every state (dimod's ExactSolver and its subclasses)."""
    try:
        import dimod
    except ImportError:
        return False
    return isinstance(sampler, dimod.ExactSolver)
