"""Running one job, inside a worker process: the verified solve becomes one row, whatever
happens (a run that raises is an ``error`` row; only the executor can add ``timeout``)."""
from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..puzzle import PuzzleError
from ..results import BackendError, ModelRefused, RemedyWords, Status
from .jobs import Job
from .records import RunRecord, record

if TYPE_CHECKING:
    from ..backends.base import BackendRef


def warm(backend: str) -> None:
    """Import what a backend needs before the clock starts (the first solve in a process
    would otherwise pay the solver's import, e.g. ~0.5 s for OR-Tools)."""
    try:
        from formulations.backends import get_backend
        get_backend(backend).available()
    except Exception:
        pass  # the run itself reports the problem


def run_job(job: Job) -> dict[str, Any]:
    """Run one job and return its row; never raises for a failing run."""
    from ..lines import clear_cache as clear_line_cache
    from ..solving import SolveRequest, solve

    warm(job.backend)
    t0 = time.perf_counter()
    try:
        backend: BackendRef = job.backend
        if job.sampler is not None:  # a sampler object, rebuilt here from its pickle
            from formulations.backends.sampler_object import loads
            backend = loads(job.sampler, job.backend)
        request = SolveRequest.make(job.ref.puzzle, backend, options=job.options,
                                    use_x=job.use_x, presolve=job.presolve,
                                    encoding=job.encoding, seed=job.seed,
                                    time_limit=job.time_limit)
        clear_line_cache()  # no puzzle helped by the settled lines of the worker's earlier jobs
        res = solve(request)
        rec = RunRecord.from_result(job, res, time.perf_counter() - t0)
        if job.unique and res.solved:
            # the uniqueness proof timed apart, as the release times its exact baselines: a
            # second call that finds a grid and proves it unique (or finds another)
            clear_line_cache()  # the proof does not reuse the first call's settled lines
            proof = solve(replace(request, unique=True))
            rec = replace(rec, unique=proof.unique, unique_cpu_s=proof.solve_cpu_s)
    except ModelRefused as exc:
        rec = record(job, Status.ERROR, message=exc.advice(SWEEP_WORDS),
                     wall_s=time.perf_counter() - t0)
    except (BackendError, PuzzleError) as exc:
        rec = record(job, Status.ERROR, message=str(exc), wall_s=time.perf_counter() - t0)
    except Exception as exc:  # a failing run is a row, not the end of the sweep
        rec = record(job, Status.ERROR, message=f"{type(exc).__name__}: {exc}",
                     wall_s=time.perf_counter() - t0)
    return rec.to_row()


SWEEP_WORDS = RemedyWords("presolve=true", "x=false", memory_cap="a higher max_model_mb")
"""A refused model's remedies in the words of a sweep's options (``--sweep x=false``)."""


def warm_job(job: Job) -> None:
    """Before a run's clock starts in a Dask child: its backend's imports."""
    warm(job.backend)


def warm_all(backends: list[str]) -> None:
    """A new local worker's set-up: every backend of the sweep imported once."""
    for b in backends:
        warm(b)


def failed_row(job: Job, status: Status, message: str, wall_s: float | None) -> dict[str, Any]:
    """The row of a run that gave none (killed at its hard limit, its worker died): what the
    executor (:class:`~formulations.harness.executors.Executor`) records instead."""
    return record(job, status, message=message, wall_s=wall_s).to_row()
