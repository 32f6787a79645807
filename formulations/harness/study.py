"""Sampler studies with one record format: one record per (instance, sampler, length, seed),
measured in a worker, appended to a compressed JSON-lines file that a killed run resumes from.

What a record holds (see :func:`measure`): reads and successes (exact penalty energy 0, the
decoded grid checked against the clues), energy quantiles and the reads at or below a few
energy targets (time-to-target and residual energy), the CPU and wall time of every sampler call
(``time.process_time`` in the worker around the call itself: the sampling), the set-up (model,
penalty lowering, the sampler object: CPU and wall) apart, the CPU of one zero-length call (the
sampler's per-call overhead, for information) and the spin updates per read (length x
variables). The length is ``num_sweeps`` for sa and OpenJij; for tabu it is the number of
variable updates per variable of one simple tabu search (``coefficient_z_first``, no restarts,
no wall-clock timeout), so that a read's work does not depend on the machine's load.

A record is the harness's one record format (:mod:`formulations.harness.recordfile`: the
envelope every record starts with, kind ``study``), its measurement the study kind's own part.
The file (:class:`~formulations.harness.recordfile.RecordFile`) is a sequence of gzip members,
one per record, each written with one ``write`` on a file opened for appending: a kill leaves at
most a torn last member, which is cut off when the file is opened again. Records are keyed by
:attr:`Task.key`, so a run resumes by skipping the keys already present. Tasks run on the
package's one executor (:class:`~formulations.harness.executors.Executor`: local worker
processes or a Dask cluster), a worker's death or failure an error record.

Every sampler study in ``bench/`` is a plan of tasks over this module (:func:`run_study` with the
options of :func:`study_arguments`); a task can also ask for presolve, a beta range, sampler
parameters or a time-budget run (the command line's ``--time-limit``), each part of its key
only when set.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np

from formulations.backends import plan_of, sampler_names
from formulations.backends.sampling import rescore
from formulations.results import BackendError, Status
from formulations.runtime.cputime import cpu_seconds

from .executors import Executor
from .recordfile import RECORD_VERSION, RecordFile, canonical, study_status

SAMPLERS = tuple(sampler_names(studied=True))
"""The samplers a study measures: every declared sampler with an anneal length (the sampler
pipeline's, :mod:`formulations.backends.sampling`)."""


class _LengthUnits(Mapping[str, str]):
    """Each sampler's unit of anneal length, as its plan declares it."""

    def __getitem__(self, name: str) -> str:
        try:
            unit = plan_of(name).length_unit
        except BackendError:
            raise KeyError(name) from None
        if unit is None:
            raise KeyError(name)
        return unit

    def __iter__(self) -> Iterator[str]:
        return iter(SAMPLERS)

    def __len__(self) -> int:
        return len(SAMPLERS)


LENGTH_UNIT: Mapping[str, str] = _LengthUnits()
ENERGY_QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
TARGETS = (0, 1, 2, 4, 8, 16, 32, 64)  # energy above the ground state (0): reads at or below
TABU_TIMEOUT_MS = 10 ** 7               # never reached: the updates bound the read


def _num_key(v: float) -> str:
    """A number in a record key: ``:g`` (what every committed key uses) where that is exact,
    else the shortest repr, so that values differing past six digits get their own records."""
    short = f"{v:g}"
    return short if float(short) == float(v) else repr(float(v))


@dataclass(frozen=True)
class Task:
    """One record to measure. ``source`` loads the puzzle (``FILE::KEY``); the reads are drawn
    in calls of at most ``reads_per_call`` until ``reads`` are drawn or ``cpu_budget_s`` of
    sampling CPU is spent (at least ``min_calls`` calls, so the per-call spread is known)."""
    study: str
    instance: str
    source: str
    sampler: str
    length: int
    seed: int
    reads: int = 100
    reads_per_call: int = 10
    cpu_budget_s: float = 60.0
    min_calls: int = 2
    use_x: bool = False
    encoding: str = "order"
    weights: tuple[tuple[str, float], ...] | None = None  # penalty family weights (None: default)
    # the other studies' variants (each adds to the key only when set, so the release's keys
    # stay as they were): line solving first, only the rest to the sampler; a beta range
    # (LO, HI) or "sampler" (the sampler's own default instead of the backend's scaled one);
    # other sampler keyword arguments; a time-budget run (the command line's --time-limit:
    # until solved or the limit, one trial) instead of a fixed number of reads
    presolve: bool = False
    beta_range: tuple[float, float] | Literal["sampler"] | None = None
    params: tuple[tuple[str, Any], ...] | None = None
    time_limit: float | None = None
    # release 2's count rule (docs/benchmark.md): when ``until_successes`` is set, calls of
    # exactly ``reads_per_call`` reads until at least ``min_reads`` reads and ``until_successes``
    # successes, or ``reads`` reads (R_max): never by elapsed CPU, so a record re-runs to the
    # same reads, successes and energies from its seed. tabu then reads with no wall-clock
    # timeout and no early stop (every read makes its full ``length x variables`` updates).
    until_successes: int = 0
    min_reads: int = 0
    # a user's dimod sampler by the registry's name (``dimod:MODULE:CLASS``, see
    # :func:`sampler_class_name`; ``sampler`` is its label) and the sample() keyword that takes
    # the length (sweeps)
    sampler_class: str | None = None
    length_param: str = "num_sweeps"

    @property
    def key(self) -> str:
        key = f"{self.instance}|{self.sampler}|{self.length}|{self.seed}"
        if self.encoding != "order" or self.use_x:  # the release's keys stay as they were
            key += f"|{self.encoding}|x={int(self.use_x)}"
        if self.weights:
            key += "|w=" + ",".join(f"{k}:{_num_key(v)}" for k, v in self.weights)
        if self.presolve:
            key += "|presolve"
        if self.beta_range is not None:
            key += "|beta=" + (self.beta_range if isinstance(self.beta_range, str)
                               else ":".join(_num_key(b) for b in self.beta_range))
        if self.params:
            key += "|p=" + ",".join(f"{k}:{v}" for k, v in self.params)
        if self.time_limit is not None:
            key += f"|t={_num_key(self.time_limit)}"
        return key

    @property
    def variant(self) -> dict[str, Any]:
        """The variant fields that are set (what a study groups its records by)."""
        out: dict[str, Any] = {}
        if self.presolve:
            out["presolve"] = True
        if self.beta_range is not None:
            out["beta_range"] = (self.beta_range if isinstance(self.beta_range, str)
                                 else [float(b) for b in self.beta_range])
        if self.params:
            out["params"] = {k: v for k, v in self.params}
        if self.time_limit is not None:
            out["time_limit"] = self.time_limit
        return out


# -- puzzles, cached per process -------------------------------------------------------------

@lru_cache(maxsize=8)
def _janko(path: str) -> dict:
    from ..io import iter_janko
    return {key: p for key, p, _ in iter_janko(Path(path))}


def corpus_root() -> Path:
    """The puzzle corpus: ``$NONOGRAM_CORPUS``, else the first ``shared/corpus`` found beside
    the package's checkout or one of its parents (it is read by path, never copied)."""
    env = os.environ.get("NONOGRAM_CORPUS")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "shared" / "corpus"
        if cand.is_dir():
            return cand
    return here.parents[3] / "shared" / "corpus"


def repo_root() -> Path:
    """The checkout this package runs from (an editable install: the repository)."""
    return Path(__file__).resolve().parents[2]


REPO = repo_root()


def load(source: str):
    """A puzzle from ``FILE::KEY`` (a janko JSON file is read once per process) or a path;
    ``corpus:REL`` is REL under :func:`corpus_root` and ``repo:REL`` REL in the repository
    (:func:`repo_root`: puzzles of our own, e.g. the release's generated ones), both what
    records store, machine-independent."""
    from ..io import read_puzzle
    from .jobs import select_puzzle

    if source.startswith("corpus:"):
        source = str(corpus_root() / source[len("corpus:"):])
    elif source.startswith("repo:"):
        source = str(repo_root() / source[len("repo:"):])
    path, _, key = source.partition("::")
    if key and path.lower().endswith(".json"):
        try:
            return _janko(path)[key]
        except KeyError:
            from ..puzzle import PuzzleError
            raise PuzzleError(f"no puzzle with key {key!r}", path=path) from None
    if key:
        return select_puzzle(Path(path), key).puzzle
    return read_puzzle(path)


# -- one record ---------------------------------------------------------------------------------

def _sampler_kwargs(task: Task, sampler: Any, pen: Any, reads: int, seed: int) -> dict:
    from formulations.backends.sampling import sample_kwargs, tabu_tenure

    params = dict(task.params or ())
    if task.sampler_class:
        return _custom_kwargs(task, sampler, reads, seed, params)
    if task.sampler == "tabu" and task.until_successes:
        # count-deterministic: timeout=None (dwave-samplers: a timeout makes the same seed
        # differ with the clock's resolution), no energy threshold (a read's work is always
        # length x variables updates, the unit of its TTS99)
        return dict(num_reads=reads, seed=seed % 2 ** 31, tenure=tabu_tenure(pen.num_variables),
                    timeout=None, num_restarts=0, coefficient_z_first=task.length,
                    lower_bound_z=0) | params
    if task.sampler == "tabu":
        return dict(num_reads=reads, seed=seed % 2 ** 31, tenure=tabu_tenure(pen.num_variables),
                    timeout=TABU_TIMEOUT_MS, num_restarts=0, coefficient_z_first=task.length,
                    lower_bound_z=0,
                    energy_threshold=-pen.offset + 1e-9 * max(1.0, abs(pen.offset))) | params
    own = task.beta_range == "sampler"
    kw = sample_kwargs(plan_of(task.sampler), sampler, pen, seed=seed, reads=reads,
                        sweeps=task.length, beta_schedule=None, params=params or None,
                        beta_range=None if task.beta_range is None or task.beta_range == "sampler"
                        else task.beta_range)  # None when own
    if own:  # the sampler's own default range, not the backend's scaled one
        for k in ("beta_range", "beta_min", "beta_max"):
            kw.pop(k, None)
    return kw


@dataclass(frozen=True)
class _Prepared:
    """A puzzle's model, penalty, BQM and energy scorer, with what building them cost."""
    nm: Any
    pen: Any
    bqm: Any
    scorer: Callable[[np.ndarray], np.ndarray]
    setup_cpu: float
    setup_wall: float


@lru_cache(maxsize=64)
def _prepared(source: str, use_x: bool, encoding: str, weights: tuple | None) -> _Prepared:
    """Release 2's records of a puzzle at its many lengths share one model per worker process:
    the set-up was 3-5 % of a 15x15 record's sampling at its optimal lengths (kept in the
    record as it cost when built)."""
    from ..model import build_model
    from ..model.penalty import penalty_terms

    c0, w0 = time.process_time(), time.perf_counter()
    nm = build_model(load(source), use_x=use_x, encoding=encoding)
    terms = penalty_terms(nm)
    pen = terms.weighted({k: v for k, v in weights if k in terms.family_names}
                         if weights else None)
    bqm = pen.to_bqm(labels="index")
    scorer = exact_scorer(pen)
    return _Prepared(nm, pen, bqm, scorer, time.process_time() - c0, time.perf_counter() - w0)


def exact_scorer(pen: Any) -> Callable[[np.ndarray], np.ndarray]:
    """The reads' penalty energies: from the aggregated QUBO (one sparse product) and, for every
    read that comes out near 0, the package's exact family sums (``pen.energies``), so a success
    is exactly what :meth:`energies` calls 0. Rounded to 1e-9: the aggregated sum's float error
    is far below it, the smallest non-zero penalty far above it."""
    import scipy.sparse as sp

    n = pen.num_variables
    Q = sp.csr_matrix((np.asarray(pen.qv, float), (np.asarray(pen.qi), np.asarray(pen.qj))),
                      shape=(n, n))
    lin = np.asarray(pen.linear, float)
    tol = 1e-6 * max(1.0, abs(float(pen.offset)))

    def score(X: np.ndarray) -> np.ndarray:
        Xf = X.astype(np.float64)
        e = Xf @ lin + float(pen.offset) + np.einsum("ij,ij->i", np.asarray(Q.dot(Xf.T).T), Xf)
        near = np.flatnonzero(np.abs(e) < tol)
        if len(near):
            e[near] = pen.energies(X[near])
        return np.round(e, 9)

    return score


def _seed_modulus(task: Task) -> int:
    """The seed's range as :func:`_sampler_kwargs` maps it (tabu and a user's sampler: 2^31)."""
    from ..backends.sampling import SEED_LIMIT

    return 2 ** 31 if task.sampler_class or task.sampler == "tabu" else SEED_LIMIT


def _custom_kwargs(task: Task, sampler: Any, reads: int, seed: int, params: dict) -> dict:
    """A user's sampler: reads, seed (when it takes one), the length under ``length_param`` and
    the user's parameters (values parsed as the command line parses them)."""
    from ..backends.sampling import sampler_parameters
    from ..options import parse_value

    accepted = sampler_parameters(sampler)
    kw: dict[str, Any] = {"num_reads": reads}
    if accepted is None or "seed" in accepted:
        kw["seed"] = seed % 2 ** 31
    kw[task.length_param] = task.length
    return kw | {k: parse_value(v) if isinstance(v, str) else v for k, v in params.items()}


def sampler_class_name(name: str) -> str:
    """A user's dimod sampler class in the backend registry's notation, ``dimod:MODULE:CLASS``
    (what ``--backend`` takes); the ``MODULE:CLASS`` that records written before it hold is
    read as the same class."""
    parts = name.split(":")
    if len(parts) == 2:
        parts = ["dimod", *parts]
    if len(parts) != 3 or parts[0] != "dimod" or not parts[1] or not parts[2]:
        raise ValueError(f"a sampler class is named dimod:MODULE:CLASS, got {name!r}")
    return ":".join(parts)


def make_custom(name: str) -> Any:
    """An instance of the dimod sampler class ``dimod:MODULE:CLASS`` (no arguments)."""
    import importlib

    _, module, cls = sampler_class_name(name).split(":")
    return getattr(importlib.import_module(module), cls)()


def _zero_length(task: Task, kw: dict) -> dict | None:
    """The same call with no annealing (the per-call overhead), where the sampler allows it."""
    if task.sampler_class:
        return None
    return plan_of(task.sampler).zero_length_kwargs(kw)


EXACT = ("cpsat", "lines")  # exact baselines: one trial per record, length 0
WARM_UP_S = 2.0             # the exact baselines' untimed warm-up call stops here


def measure_exact(task: Task) -> dict[str, Any]:
    """An exact backend on one puzzle, timed as the samplers are (process CPU of the solve call
    in this worker, wall apart): after one warm-up call (``cold_cpu_s``; at most WARM_UP_S), the
    first grid (``unique=False``), then a call that also proves the grid unique (or finds a
    second one). ``cpu_budget_s`` is each call's time limit. One trial: ``successes`` 1 when
    the first grid came back verified."""
    from ..lines import clear_cache as clear_line_cache
    from ..solving import solve_puzzle
    from .runner import warm

    puzzle = load(task.source)
    warm(task.sampler)
    out: dict[str, Any] = {}
    # one untimed-for-the-statistic call first: the first solve of a freshly loaded puzzle pays
    # for cold caches (measured 0.39 ms against 0.33 ms warm, lines, 20x20), which otherwise fell
    # on the first-grid figure only; the samplers' calls are warm the same way (batches). Its CPU
    # is kept as cold_cpu_s; warming needs no full solve, so it stops at WARM_UP_S.
    for tag, unique in (("cold_", False), ("", False), ("unique_", True)):
        limit = min(task.cpu_budget_s, WARM_UP_S) if tag == "cold_" else task.cpu_budget_s
        # each call starts with no settled lines remembered: otherwise the proof reuses the first
        # call's lines and a puzzle is helped by whichever puzzles this worker ran before
        clear_line_cache()
        c, w = cpu_seconds(), time.perf_counter()  # a backend's worker process counts too
        res = solve_puzzle(puzzle, task.sampler, unique=unique, time_limit=limit, seed=task.seed)
        out[f"{tag}cpu_s"] = cpu_seconds() - c
        if tag == "cold_":
            continue
        out[f"{tag}wall_s"] = time.perf_counter() - w
        out[f"{tag}status"] = res.status.value
        out[f"{tag}build_s"] = res.build_s
        if unique:
            out["unique"] = res.unique
        else:
            out["successes"] = int(res.solved)
            out["variables"] = res.variables
    return _envelope(task, puzzle) | {
            "length": 0, "unit": "none", "reads": 1, "verified": bool(out["successes"]),
            "call_cpu_s": [round(out["cpu_s"], 6)], "call_reads": [1],
            "setup_cpu_s": 0.0, "time_limit_s": task.cpu_budget_s, **out}


def measure(task: Task) -> dict[str, Any]:
    """Measure one task in this process and return its record (see the module docstring).
    Raises when an energy-0 read decodes to a grid that breaks the clues (a broken model)."""

    if task.time_limit is not None:
        rec = measure_budget(task)
    elif task.sampler in EXACT:
        rec = measure_exact(task)
    elif task.sampler_class:
        rec = _measure_sampler(task)
    else:
        from formulations.backends.sampling import openmp_threads

        with openmp_threads(plan_of(task.sampler)):  # OpenJij on one thread, as its backend
            rec = _measure_sampler(task)
    # the envelope's status and message (recordfile): an exact or budget run's are its solve's
    return rec | {"status": study_status(rec), "message": rec.get("message", "")}


def _measure_sampler(task: Task) -> dict[str, Any]:
    from ..model import NonogramModel, build_model
    from ..model.penalty import penalty_terms
    from ..puzzle import check_grid

    puzzle = load(task.source)
    c0, w0 = time.process_time(), time.perf_counter()
    nm: ReducedModel | NonogramModel
    start_wall, start_cpu = w0, c0
    if task.presolve:  # line solving first: the sampler gets only what it leaves open
        from ..model.presolve import ReducedModel, presolve_puzzle
        nm = presolve_puzzle(puzzle, use_x=task.use_x)
        if nm.solved or nm.infeasible:
            return _head(task, puzzle) | {
                "reads": 0, "successes": 0, "verified": nm.solved, "presolved": True,
                "variables": 0, "setup_cpu_s": round(time.process_time() - c0, 6),
                "cpu_s": 0.0, "call_cpu_s": [], "call_reads": []}
    elif task.until_successes:   # release 2: the model once per puzzle and worker (cached)
        prep = _prepared(task.source, task.use_x, task.encoding, task.weights)
        nm, pen, bqm = prep.nm, prep.pen, prep.bqm
        scorer: Callable[[np.ndarray], np.ndarray] | None = prep.scorer
    else:
        nm = build_model(puzzle, use_x=task.use_x, encoding=task.encoding)
    if task.presolve or not task.until_successes:
        # a study's weights name its encoding's families; a puzzle may lack one (no line with
        # two blocks: no clash pair), whose weight then has nothing to weigh
        terms = penalty_terms(nm)
        pen = terms.weighted({k: v for k, v in task.weights if k in terms.family_names}
                             if task.weights else None)
        bqm = pen.to_bqm(labels="index")
        scorer = None
    sampler = make_custom(task.sampler_class) if task.sampler_class else \
        plan_of(task.sampler).make()
    setup_cpu, setup_wall = time.process_time() - c0, time.perf_counter() - w0
    if scorer is not None:   # the set-up as it cost when the model was built (the comparisons')
        setup_cpu, setup_wall = setup_cpu + prep.setup_cpu, setup_wall + prep.setup_wall
    n = pen.num_variables

    call_cpu: list[float] = []
    call_wall: list[float] = []
    call_reads: list[int] = []
    energies: list[np.ndarray] = []
    verified = False
    # reads per call: as many as let min_calls calls fit the budget at the estimated cost per
    # read (1 to reads_per_call), measured again after the first call
    est = read_seconds(task.sampler, task.length, n, len(pen.qv))
    fit = int(task.cpu_budget_s / max(1, task.min_calls) / max(est, 1e-9))
    per_call = max(1, min(task.reads_per_call, task.reads, fit))
    counted = task.until_successes > 0   # release 2: the count rule decides every call
    if counted:
        per_call = task.reads_per_call
    call = 0
    while sum(call_reads) < task.reads:
        want = min(per_call, task.reads - sum(call_reads))
        # release 2's calls start at seed 1: dwave-samplers' path-integral sampler draws a
        # random seed for seed=0 (four calls with seed=0 gave four sample sets; 1 and 5 repeat)
        call_seed = task.seed * 1000 + call + (1 if counted else 0)
        if not counted or call == 0:
            kw = kw0 = _sampler_kwargs(task, sampler, pen, want, call_seed)
        else:  # the same keywords but reads and seed: built once (inspecting the sampler's
            # signature on every call cost ~1 % of a 15x15 record)
            kw = kw0 | {"num_reads": want}
            if "seed" in kw0:
                kw["seed"] = call_seed % _seed_modulus(task)
        c, w = time.process_time(), time.perf_counter()
        ss = sampler.sample(bqm, **kw)
        ss.resolve()  # a lazy sample set samples here: inside the timed call
        call_cpu.append(time.process_time() - c)
        call_wall.append(time.perf_counter() - w)
        if scorer is None:
            X, e, occ = rescore(ss, pen)  # the pipeline's exact re-scoring, as the backends'
        else:   # release 2: the same energies, the aggregated QUBO first (exact_scorer)
            rec = ss.record
            X = np.zeros((len(rec), n), dtype=np.int8)
            X[:, np.fromiter(ss.variables, dtype=np.int64, count=len(ss.variables))] = rec.sample
            occ = np.asarray(getattr(rec, "num_occurrences", np.ones(len(rec))), dtype=np.int64)
            e = scorer(X)
        e = np.repeat(e, occ)
        X = np.repeat(X, occ, axis=0)
        if not verified and (e == 0).any():
            grid = nm.decode(X[int(np.argmax(e == 0))])
            broken = check_grid(puzzle, grid)
            if broken:
                raise RuntimeError(f"{task.instance}: an energy-0 read breaks the clues: {broken[0]}")
            verified = True
        energies.append(e)
        call_reads.append(len(e))
        call += 1
        if counted:
            drawn = sum(call_reads)
            if drawn >= task.min_reads and \
                    sum(int((x == 0).sum()) for x in energies) >= task.until_successes:
                break
            continue
        spent = sum(call_cpu)
        per_read = spent / sum(call_reads)
        if call == 1:
            per_call = int(max(1, min(task.reads_per_call, task.cpu_budget_s
                                      / max(1, task.min_calls) / max(per_read, 1e-9))))
        if call >= task.min_calls and spent + per_read * per_call > task.cpu_budget_s:
            break
    E = np.concatenate(energies)
    overhead = None
    # the per-call overhead, for information; release 2 measures it in its calibration instead
    zk = None if counted else \
        _zero_length(task, _sampler_kwargs(task, sampler, pen, per_call, task.seed * 1000 + 999))
    if zk is not None:
        try:
            c = time.process_time()
            _ = sampler.sample(bqm, **zk).record
            overhead = time.process_time() - c
        except Exception:
            overhead = None
    kw_shown = {k: v for k, v in kw.items() if k not in ("seed", "num_reads")}
    rule = ({"until_successes": task.until_successes, "min_reads": task.min_reads,
             "max_reads": task.reads, "reads_per_call": task.reads_per_call}
            if counted else None)
    return _head(task, puzzle) | ({"rule": rule, "energy_sha1": energy_digest(E),
                                   "task": _task_fields(task)} if counted else {}) | {
        "encoding": task.encoding, "weights": dict(pen.weights), "variables": n, "interactions": len(pen.qv),
        "reads": len(E), "successes": int((E == 0).sum()), "verified": verified,
        "energy_quantiles": [float(v) for v in np.quantile(E, ENERGY_QUANTILES)],
        "energy_mean": float(E.mean()),
        "at_most": [int((E <= t).sum()) for t in TARGETS],
        "cpu_s": float(sum(call_cpu)), "wall_s": float(sum(call_wall)),
        "call_cpu_s": [round(x, 6) for x in call_cpu],
        "call_wall_s": [round(x, 6) for x in call_wall], "call_reads": call_reads,
        "setup_cpu_s": round(setup_cpu, 6), "setup_wall_s": round(setup_wall, 6),
        "overhead_cpu_s": None if overhead is None else round(overhead, 6),
        "overhead_reads": per_call if overhead is not None else None,
        "spin_updates_per_read": int(task.length) * n,
        "load1": _load(),  # the machine's 1-minute load average: CPU times inflate under load
        "params": json.loads(json.dumps(kw_shown, default=str)),
        # the whole measurement's wall time (set-up, calls, scoring, the zero-length call): the
        # runner's overhead is this less the sampling's wall time
        "record_wall_s": round(time.perf_counter() - start_wall, 6),
        "record_cpu_s": round(time.process_time() - start_cpu, 6),
    }


def _task_fields(task: Task) -> dict[str, Any]:
    """The task as JSON (what ``verify`` re-runs: :func:`task_from_dict` reads it back)."""
    import dataclasses

    return json.loads(json.dumps(dataclasses.asdict(task), default=str))


def energy_digest(energies: np.ndarray) -> str:
    """SHA-1 of the reads' exact penalty energies in order (rounded to 1e-6): what a re-run
    from the same seed must reproduce."""
    import hashlib

    e = np.round(np.asarray(energies, dtype=float), 6) + 0.0   # -0.0 as 0.0
    return hashlib.sha1(e.astype("<f8").tobytes()).hexdigest()


def _envelope(task: Task, puzzle: Any = None) -> dict[str, Any]:
    """The envelope of a task's record (:mod:`formulations.harness.recordfile`: version, kind,
    key, what and who measured; the status and message are added by :func:`measure`), with the
    study kind's own names its readers use (``study``, ``instance``, ``sampler``)."""
    head = {"v": RECORD_VERSION, "kind": "study", "key": task.key, "study": task.study,
            "instance": task.instance, "puzzle": task.instance, "source": task.source}
    if puzzle is not None:
        head |= {"size": f"{puzzle.height}x{puzzle.width}", "cells": puzzle.height * puzzle.width}
    return head | {"sampler": task.sampler, "backend": task.sampler,
                   "options": canonical(task.variant), "length": task.length, "seed": task.seed}


def _head(task: Task, puzzle: Any) -> dict[str, Any]:
    """The fields every sampler record starts with (the variant only when one is set)."""
    head = _envelope(task, puzzle) | {"unit": LENGTH_UNIT.get(task.sampler, "sweeps"),
                                      "use_x": task.use_x}
    if task.sampler_class:
        head |= {"sampler_class": task.sampler_class, "length_param": task.length_param}
    return head | ({"variant": task.variant} if task.variant else {})


def measure_budget(task: Task) -> dict[str, Any]:
    """A time-budget run, as the command line makes it (``python -m formulations.solve FILE
    --backend B --time-limit T --until-solved``: the same options, a sampler samples batch after
    batch until a verified grid or the limit, on every core): one trial, ``successes`` 1 when it came back
    solved; process CPU (every thread) and wall of the ``solve_puzzle`` call, the backend's
    import done before the clock starts (the command line's interpreter start-up is not in it)."""
    from formulations.backends import get_backend

    from ..lines import clear_cache as clear_line_cache
    from ..solving import SolveRequest, solve
    from .runner import warm

    puzzle = load(task.source)
    warm(task.sampler)
    backend = get_backend(task.sampler)
    opts: dict[str, Any] = {}
    if task.weights:
        opts["weights"] = dict(task.weights)
    if task.beta_range is not None and task.beta_range != "sampler":
        if "beta_range" not in backend.options:
            raise ValueError(f"backend {task.sampler!r} takes no beta range")
        opts["beta_range"] = tuple(task.beta_range)
    if "until_solved" in backend.options:
        opts["until_solved"] = True
    request = SolveRequest.make(puzzle, backend, options=opts, pairs=list(task.params or ()),
                                use_x=task.use_x, presolve=task.presolve,
                                encoding=task.encoding, seed=task.seed,
                                time_limit=task.time_limit)
    clear_line_cache()  # presolve and lines start with no settled lines from earlier tasks
    c, w = cpu_seconds(), time.perf_counter()  # a backend's worker process counts too
    res = solve(request)
    cpu, wall = cpu_seconds() - c, time.perf_counter() - w
    s = res.sampling
    return _head(task, puzzle) | {
        "unit": "none", "reads": 1, "successes": int(res.solved), "verified": bool(res.solved),
        "status": res.status.value, "cpu_s": cpu, "wall_s": wall, "call_cpu_s": [round(cpu, 6)],
        "call_reads": [1], "setup_cpu_s": 0.0, "build_s": res.build_s, "solve_s": res.solve_s,
        "build_cpu_s": getattr(res, "build_cpu_s", None),
        "solve_cpu_s": getattr(res, "solve_cpu_s", None),
        "batches": len(res.info.get("batches", [])) or 1, "variables": res.variables,
        "energy": res.energy, "message": (res.message or "")[:160],
        "sampler_reads": None if s is None else s.reads,
        "success_probability": None if s is None else s.success_probability,
        "time_limit_s": task.time_limit, "load1": _load()}


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def measure_safe(task: Task) -> dict[str, Any]:
    """:func:`measure`, a failure becoming an error record (kept, so the run does not retry it
    forever; ``--retry-errors`` runs such tasks again)."""
    try:
        return measure(task)
    except Exception as exc:
        return failed_record(task, Status.ERROR, f"{type(exc).__name__}: {exc}", None)


def failed_record(task: Task, status: Status, message: str, wall_s: float | None,
                  ) -> dict[str, Any]:
    """The error record of a task: its measurement raised (:func:`measure_safe`), or the
    executor killed it or lost its worker. ``error`` holds the message, as the study's readers
    look for it."""
    return _envelope(task) | {"status": Status(status).value, "message": message,
                              "wall_s": wall_s, "error": message}


def read_seconds(sampler: str, length: int, variables: int, interactions: int) -> float:
    """Estimated CPU seconds of one read: the sampler's plan's cost model
    (:meth:`SamplerPlan.read_seconds <formulations.backends.sampling.SamplerPlan.read_seconds>`;
    sa's for a name that is no declared sampler)."""
    try:
        plan = plan_of(sampler)
    except BackendError:
        plan = plan_of("sa")
    return plan.read_seconds(length, variables, interactions)


def estimate_cost(task: Task, variables: int, interactions: int) -> float:
    """A task's expected CPU seconds (for the progress bar's ETA and the release estimate): the
    reads at :func:`read_seconds`, stopped by the budget but at least ``min_calls`` reads, plus
    a little set-up."""
    if task.time_limit is not None:
        return task.time_limit / 2  # a budget run: solved puzzles stop early
    if task.sampler in EXACT:
        return 0.5
    t = read_seconds(task.sampler, task.length, variables, interactions)
    if task.until_successes:   # the count rule: R_max reads at most (the unsolved cells)
        return task.reads * t + 0.05
    return max(min(task.reads * t, task.cpu_budget_s), task.min_calls * t) + 0.05


def run_tasks(plan: Callable[[dict[str, dict]], Sequence[Task]], out: RecordFile, *,
              workers: int = 1, scheduler: Any = None, progress: bool = True,
              cost: Callable[[Task], float] | None = None,
              log: Callable[[str], None] = print, desc: str = "study",
              stamp: dict[str, Any] | None = None) -> dict[str, dict]:
    """Run what ``plan(records_by_key)`` asks for, record by record, until it asks for nothing
    new: ``plan`` is called again whenever no task is running or waiting, and as records
    arrive, so it can extend ladders as the data come in. Returns every record by key.
    ``stamp``'s fields are added to every record this call writes (the release's ``session``:
    which manifest entry, so which commit and machine, measured it)."""
    removed = out.repair()
    if removed:
        log(f"{out.path}: cut {removed} bytes of a torn last record")
    records = out.resume()
    if records:
        log(f"resuming: {len(records)} records already in {out.path}")
    if scheduler is None:
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # the workers' samplers on one thread
    ex = Executor(measure_safe, failed_record, workers=workers, scheduler=scheduler)
    running: set[str] = set()  # submitted, not yet recorded
    cost = cost or (lambda t: 1.0)
    bar = None
    if progress:
        try:
            from tqdm.auto import tqdm
            bar = tqdm(total=0, unit="cpu-s", desc=desc, dynamic_ncols=True,
                       bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} est. cpu-s "
                                  "[{elapsed}<{remaining}] {postfix}")
        except ImportError:
            bar = None
    counted: set[str] = set()
    restore = _exit_on_sigterm()
    try:
        while True:
            # in the plan's order (smallest sizes first), whatever was planned before
            queued = [t for t in plan(records) if t.key not in records and t.key not in running]
            new = [t for t in queued if t.key not in counted]
            if bar is not None and new:
                bar.total += sum(cost(t) for t in new)
                bar.refresh()
            counted.update(t.key for t in new)
            for t in queued[:max(0, ex.free)]:
                ex.submit(t)
                running.add(t.key)
            if not ex.pending:
                break
            for task, rec in ex.finished():
                running.discard(task.key)
                if stamp:
                    rec = {**rec, **stamp}
                out.append(rec)
                records[rec["key"]] = rec
                if bar is not None:
                    bar.update(cost(task))
                    bar.set_postfix_str(f"{task.instance} {task.sampler} L={task.length} "
                                        f"{rec.get('successes', 'ERR')}/{rec.get('reads', 0)}",
                                        refresh=False)
                elif progress:
                    log(f"{task.key}: {rec.get('successes', rec.get('error'))}/{rec.get('reads')}")
    finally:
        try:
            if bar is not None:
                bar.close()
            ex.close()
        finally:
            restore()
    return records


def _exit_on_sigterm() -> Callable[[], object]:
    """SIGTERM (``kill``, a batch system's stop) leaves like Ctrl-C: through ``finally``, so that
    the worker processes are killed with the run instead of left running. Returns the undo."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def leave(signum, frame):
        raise SystemExit(128 + signum)

    old = signal.signal(signal.SIGTERM, leave)
    return lambda: signal.signal(signal.SIGTERM, old)


def pooled(records: Iterable[dict]) -> list[dict]:
    """Records without errors, for the statistics."""
    return [r for r in records if "error" not in r and r.get("reads")]


def pool_points(records: Iterable[dict], by: Callable[[dict], Any] = lambda r: r["instance"],
                ) -> list[dict[str, Any]]:
    """Per group (``by(record)``; one instance, or it mixes instances' p) and length, every read
    of the group's records pooled over seeds and batches: p, the CPU time per read (total CPU
    over total reads), TTS99 and its interval (:func:`formulations.analysis.stats.tts99_interval`:
    Clopper-Pearson in p, widened by the spread of the calls' time per read). A group never
    solved stays, with TTS99 inf (censored) and a finite lower end."""
    from formulations.analysis.stats import tts99_interval, tts99_point

    acc: dict[tuple, dict] = {}
    for r in pooled(records):
        a = acc.setdefault((by(r), r["length"]), {"reads": 0, "successes": 0, "cpu_s": 0.0,
                                                  "records": 0, "calls": [], "energy": 0.0,
                                                  "at_most": None, "first": r})
        a["reads"] += r["reads"]
        a["successes"] += r["successes"]
        a["cpu_s"] += r["cpu_s"]
        a["records"] += 1
        a["calls"] += [c / k for c, k in zip(r["call_cpu_s"], r["call_reads"]) if k]
        a["energy"] += r.get("energy_mean", math.nan) * r["reads"]
        if r.get("at_most") is not None:
            m = np.asarray(r["at_most"], dtype=np.int64)
            a["at_most"] = m if a["at_most"] is None else a["at_most"] + m
    out = []
    for (group, length), a in acc.items():
        t = a["cpu_s"] / a["reads"]
        ci = tts99_interval(a["successes"], a["reads"], t,
                            t_samples=a["calls"] if len(a["calls"]) >= 2 else None)
        out.append({"group": group, "length": length, "records": a["records"],
                    "reads": a["reads"], "successes": a["successes"],
                    "p": a["successes"] / a["reads"], "t_read_s": t,
                    "tts99_s": tts99_point(a["successes"], a["reads"], t),
                    "low_s": ci.low, "high_s": ci.high,
                    "energy_mean": a["energy"] / a["reads"],
                    "at_most": None if a["at_most"] is None else a["at_most"].tolist(),
                    "variables": a["first"].get("variables"), "size": a["first"].get("size"),
                    "cells": a["first"].get("cells")})
    return sorted(out, key=lambda x: (str(x["group"]), x["length"]))


def task_from_dict(d: dict) -> Task:
    """A Task from its fields as a dict (``Task.__dict__``, JSON-decoded: lists back to tuples).
    Not the inverse of a record: a record keeps the weights the penalty used (defaults filled
    in), which as a Task would name explicit weights and so another key."""
    kw = {k: d[k] for k in Task.__dataclass_fields__ if k in d}
    if isinstance(kw.get("weights"), dict):
        kw["weights"] = tuple(sorted(kw["weights"].items()))
    if isinstance(kw.get("params"), dict):
        kw["params"] = tuple(sorted(kw["params"].items()))
    if isinstance(kw.get("beta_range"), list):
        kw["beta_range"] = tuple(kw["beta_range"])
    if kw.get("sampler_class"):   # older records: MODULE:CLASS
        kw["sampler_class"] = sampler_class_name(kw["sampler_class"])
    return Task(**kw)


# -- the command line of a study in bench/ -------------------------------------------------

def study_arguments(ap: Any, name: str) -> None:
    """The runner's options for a study's command line: where its records go (``--out``,
    default ``bench/results/NAME``), ``--workers`` / ``--scheduler`` and ``--quiet``."""
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / name),
                    help="folder of the study's records.jsonl.gz (a second run resumes)")
    ap.add_argument("--workers", type=int, default=1,
                    help="local worker processes (default 1: CPU times are one core's)")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address (tcp://HOST:8786)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")


@lru_cache(maxsize=256)
def _qubo_size(source: str, use_x: bool, encoding: str) -> tuple[int, int]:
    from ..model import build_model
    from ..model.penalty import lower

    pen = lower(build_model(load(source), use_x=use_x, encoding=encoding))
    return pen.num_variables, len(pen.qv)


def task_cost(task: Task) -> float:
    """:func:`estimate_cost` from the task's own QUBO (built once per puzzle and variant): the
    progress bar's ETA."""
    if task.time_limit is not None or task.sampler in EXACT:
        return estimate_cost(task, 0, 0)
    try:
        return estimate_cost(task, *_qubo_size(task.source, task.use_x, task.encoding))
    except Exception:
        return 1.0


def records_of(args: Any) -> RecordFile:
    return RecordFile(Path(args.out) / "records.jsonl.gz")


def run_study(plan: Callable[[dict[str, dict]], Sequence[Task]] | Sequence[Task], args: Any, *,
              cost: Callable[[Task], float] | None = None) -> list[dict]:
    """Run a study's plan (a list of tasks, or ``plan(records)``) with the options of
    :func:`study_arguments`: skips what its records already hold, shows a progress bar with an
    ETA, returns every record of the file (in the order written)."""
    tasks = plan if callable(plan) else (lambda _r, t=list(plan): t)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    f = records_of(args)
    run_tasks(tasks, f, workers=args.workers, scheduler=args.scheduler,
              progress=not args.quiet, cost=cost or task_cost, desc=Path(args.out).name,
              log=lambda s: print(s, file=sys.stderr))
    return f.read()


def read_study(args: Any, command: str) -> list[dict]:
    """The records of a study, or exit with the command that makes them."""
    recs = records_of(args).read()
    if not recs:
        sys.exit(f"no records in {records_of(args).path}: run `{command}` first")
    return recs


__all__ = [
    "ENERGY_QUANTILES",
    "LENGTH_UNIT",
    "SAMPLERS",
    "TARGETS",
    "RecordFile",
    "Task",
    "estimate_cost",
    "failed_record",
    "load",
    "measure",
    "measure_safe",
    "pool_points",
    "pooled",
    "read_study",
    "records_of",
    "run_study",
    "run_tasks",
    "study_arguments",
]
