"""Any dimod sampler *object* as a backend: ``solve_puzzle(puzzle, SimulatedAnnealingSampler(),
num_reads=200)`` and ``compare(..., backends=[my_sampler, (other, {"num_reads": 50})])``.

The object is treated exactly like the registered samplers (:mod:`formulations.backends.sampling`): the same
penalty lowering, every sample re-scored with the exact penalty, the same verification,
:class:`~formulations.results.SamplingStats` and result record. What is asked of it:

* ``sample(bqm, **parameters)`` returning a dimod ``SampleSet`` (any ``dimod.Sampler``);
* ``parameters``, the dict of keyword arguments it accepts (dimod's ``Sampler.parameters``):
  those become keyword arguments of ``solve_puzzle`` and options of ``compare`` (a sampler
  without it takes its arguments as ``params={...}``); the backend options ``reads``,
  ``sweeps``, ``beta_range``, ``beta_schedule`` and ``weights`` work as for ``sa``, and 100
  reads are drawn unless ``reads`` or ``num_reads`` says otherwise;
* for ``compare``, which runs each job in a fresh worker process: the object must pickle. A
  class defined in an importable module travels by reference; one defined in a notebook or a
  script (``__main__``), or holding lambdas, travels by value with ``cloudpickle`` (installed
  with the ``compare`` extra). The worker rebuilds the object from those bytes, so each run
  starts from the state the object had when ``compare`` was called.

The time limit is honoured between reads when the sampler takes ``interrupt_function``, else
by calling it in ten chunks of reads, as for ``dimod:MODULE:CLASS``.
"""
from __future__ import annotations

import pickle
from typing import Any

from formulations.model.penalty import qubo_size
from formulations.results import BackendError

from .sampling import (GENERIC_READS, SA_OPTIONS, SamplerPlan, param_checker, run_plan,
                       sampler_parameters)
from .base import Backend

PREFIX = "sampler:"


def is_sampler(obj: Any) -> bool:
    """A dimod sampler object (anything with a ``sample`` method that is not a name)."""
    return (not isinstance(obj, (str, bytes, Backend, type))
            and callable(getattr(obj, "sample", None)))


def sampler_name(sampler: Any) -> str:
    """The backend name of a sampler object: ``sampler:`` and its class name."""
    return PREFIX + type(sampler).__name__


def sampler_backend(sampler: Any, name: str | None = None) -> Backend:
    """The Backend for ``sampler``; its accepted ``parameters`` become options by name."""
    if not is_sampler(sampler):
        raise BackendError(f"{type(sampler).__name__} is not a dimod sampler (it has no sample "
                           "method)")
    name = name or sampler_name(sampler)
    accepted = sampler_parameters(sampler)
    native = sorted(p for p in (accepted or ()) if p not in SA_OPTIONS and p != "seed")
    plan = SamplerPlan(name, lambda: sampler, GENERIC_READS,
                      "interrupt" if "interrupt_function" in (accepted or ()) else "chunks")

    def solve(nm: Any, **kwargs: Any):
        params = dict(kwargs.pop("params", None) or {})
        for key in native:  # sampler parameters given by name go to the sampler as they are
            if key in kwargs:
                if key in params:
                    raise BackendError(f"parameter '{key}' given twice (by name and in params)")
                params[key] = kwargs.pop(key)
        return run_plan(plan, nm, params=params, **kwargs)

    cls = type(sampler)
    return Backend(name, f"dimod sampler object {cls.__module__}.{cls.__qualname__} on the "
                         "penalty QUBO", solve, translation=qubo_size,
                   options={**SA_OPTIONS, **dict.fromkeys(native, object)},
                   check_params=param_checker(plan))


# -- to worker processes and back ------------------------------------------------------------------

def dumps(sampler: Any) -> bytes:
    """The sampler as bytes a fresh worker process can load (see the module's notes)."""
    cls = type(sampler)
    by_value = cls.__module__ == "__main__" or "<locals>" in cls.__qualname__
    error: Exception | None = None
    if not by_value:
        try:
            return pickle.dumps(sampler)
        except Exception as exc:  # lambdas, open handles, ...
            error = exc
    try:
        import cloudpickle
    except ImportError:
        why = (f"its class {cls.__qualname__} is defined in {cls.__module__}, which a worker "
               "process cannot import" if by_value else f"it does not pickle ({error})")
        raise BackendError(f"sampler {cls.__qualname__} cannot be sent to worker processes: "
                           f"{why}; define it in a module, or install cloudpickle "
                           '(pip install -e ".[compare]")') from None
    try:
        return cloudpickle.dumps(sampler)
    except Exception as exc:
        raise BackendError(f"sampler {cls.__qualname__} cannot be sent to worker processes: it "
                           f"does not pickle ({type(exc).__name__}: {exc})") from None


def loads(payload: bytes, name: str) -> Backend:
    """The Backend of a sampler sent by :func:`dumps`, in a worker."""
    try:
        sampler = pickle.loads(payload)
    except Exception as exc:
        raise BackendError(f"backend '{name}': the worker cannot rebuild the sampler "
                           f"({type(exc).__name__}: {exc})") from None
    return sampler_backend(sampler, name)
