"""The rows of a comparison: one typed record per run (the ``run`` kind of the harness's one
record format, :mod:`formulations.harness.recordfile`), built from the verified result, written
as runs finish (a CSV, compare's default layout, or the JSON layout) and read back with their
types; tables and the summary per variant."""
from __future__ import annotations

import functools
import json
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ..puzzle import grid_to_strings
from ..results import SolveResult, Status, tts99
from .jobs import Job
from .recordfile import Columns, ColumnsSink, RecordFile, kind_of, read_csv


@dataclass(frozen=True)
class RunRecord:
    """One row of the comparison table (see ``TIMING_FIELDS`` for what varies between runs)."""
    key: str
    puzzle: str
    source: str
    digest: str
    size: str                    # "HxW"
    height: int
    width: int
    cells: int
    backend: str
    options: str                 # canonical JSON
    use_x: bool | None           # None: the backend works on the puzzle (no model)
    encoding: str | None         # the model's encoding (None: no model)
    presolve: bool
    seed: int
    time_limit: float | None
    status: str                  # a Status value
    verified: bool               # the grid passes check_grid
    energy: float | None
    success_probability: float | None
    time_s: float | None         # build (+ presolve) + solve, as the package measured it
    tts_s: float | None          # time to solution: time_s when verified
    tts99_s: float | None        # as reported by sampling backends
    tts99_low_s: float | None    # its 95 % bootstrap interval (None: unbounded or not sampled)
    tts99_high_s: float | None
    reads: int | None
    variables: int | None
    constraints: int | None
    variables_before: int | None  # presolve: model size before and after (equal without)
    variables_after: int | None
    wall_s: float | None         # whole run in the worker (build, solve, verify)
    message: str
    grid: str                    # rows joined by "/" (one character per cell), "" when none
    palette: str                 # JSON {colour index: "#rrggbb"} of a colour puzzle, "" otherwise
    # CPU time (formulations.runtime.cputime: every thread, waited-for worker processes), the clock of
    # the summary's statistics; None in rows written before these columns existed
    build_cpu_s: float | None = None     # model build (+ presolve): set-up
    solve_cpu_s: float | None = None     # the backend call (complete backends: to the first grid)
    sampling_cpu_s: float | None = None  # samplers: the sampler calls alone
    setup_cpu_s: float | None = None     # samplers: all but the sampling (build, lowering, scoring)
    cpu_per_read_s: float | None = None  # samplers: sampling_cpu_s / reads
    tts99_cpu_s: float | None = None     # samplers: TTS99 of cpu_per_read_s
    spin_updates_per_read: int | None = None  # samplers with sweeps: sweeps x variables
    unique: bool | None = None           # --unique: the uniqueness run's verdict
    unique_cpu_s: float | None = None    # --unique: CPU of the backend call that proved it

    def to_row(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_result(cls, job: Job, res: SolveResult, wall_s: float) -> RunRecord:
        """The row of a finished run: every figure from the result's fields."""
        from ..puzzle import check_grid

        verified = res.grid is not None and not check_grid(job.ref.puzzle, res.grid)
        t = res.total_s
        s, pre = res.sampling, res.presolve
        sampling_cpu = s.sampling_cpu_s if s else None
        setup_cpu = None
        if res.solve_cpu_s is not None:
            setup_cpu = (res.build_cpu_s or 0.0) + (
                max(0.0, res.solve_cpu_s - sampling_cpu) if sampling_cpu is not None else 0.0)
        return record(
            job, res.status, message=res.message, verified=verified, energy=res.energy,
            success_probability=s.success_probability if s else None, time_s=t,
            tts_s=t if verified else None, tts99_s=s.tts99_s if s else None,
            tts99_low_s=s.tts99_low_s if s else None, tts99_high_s=s.tts99_high_s if s else None,
            reads=s.reads if s else None, variables=res.variables, constraints=res.constraints,
            variables_before=pre.variables_before if pre else res.variables,
            variables_after=pre.variables_after if pre else res.variables, wall_s=wall_s,
            grid="/".join(grid_to_strings(res.grid)) if res.grid is not None else "",
            build_cpu_s=res.build_cpu_s, solve_cpu_s=res.solve_cpu_s,
            sampling_cpu_s=sampling_cpu, setup_cpu_s=setup_cpu,
            cpu_per_read_s=_finite(s.cpu_per_read_s) if s else None,
            tts99_cpu_s=s.tts99_cpu_s if s else None,
            spin_updates_per_read=s.spin_updates_per_read if s else None)


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(RunRecord))
TIMING_FIELDS: tuple[str, ...] = ("time_s", "tts_s", "tts99_s", "tts99_low_s", "tts99_high_s",
                                   "wall_s", "build_cpu_s", "solve_cpu_s", "sampling_cpu_s",
                                   "setup_cpu_s", "cpu_per_read_s", "tts99_cpu_s", "unique_cpu_s")
_TYPES = {f.name: str(f.type) for f in fields(RunRecord)}  # str already: postponed annotations


def record(job: Job, status: Status | str, *, message: str = "", **values: Any) -> RunRecord:
    """A row for ``job``: the job's own fields, then ``values`` (a failed run gives only a few)."""
    p = job.ref.puzzle
    palette = "" if p.is_black_and_white else json.dumps(
        {str(idx): rgb for idx, _name, rgb in p.palette}, sort_keys=True)
    base: dict[str, Any] = dict(
        key=job.key, puzzle=job.ref.name, source=job.ref.source, digest=job.ref.digest,
        size=f"{p.height}x{p.width}", height=p.height, width=p.width, cells=p.height * p.width,
        backend=job.backend, options=job.options_text, use_x=job.use_x, encoding=job.encoding,
        presolve=job.presolve,
        seed=job.seed, time_limit=job.time_limit, status=Status(status).value, verified=False,
        energy=None, success_probability=None, time_s=None, tts_s=None, tts99_s=None,
        tts99_low_s=None, tts99_high_s=None, reads=None,
        variables=None, constraints=None, variables_before=None, variables_after=None,
        wall_s=None, message=one_line(message), grid="", palette=palette)
    base.update(dict.fromkeys(CPU_FIELDS))
    base.update(values)
    return RunRecord(**base)


CPU_FIELDS = ("build_cpu_s", "solve_cpu_s", "sampling_cpu_s", "setup_cpu_s", "cpu_per_read_s",
              "tts99_cpu_s", "spin_updates_per_read", "unique", "unique_cpu_s")


def _finite(v: float | None) -> float | None:
    return v if v is not None and math.isfinite(v) else None


def one_line(text: str, limit: int = 300) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[:limit - 3] + "..."


# -- CSV: the run kind's columns in the one writer's CSV layout ---------------------------------

RUN_COLUMNS = Columns(FIELDS, _TYPES, kind="run")
"""A comparison CSV's columns (:class:`~formulations.harness.recordfile.RecordFile`'s CSV
layout): one per :class:`RunRecord` field, typed as it is."""


class CsvSink(ColumnsSink):
    """Appends runs to a CSV (header written once), flushing each so an interrupted run keeps
    every finished row; a partial last line left by a hard kill is cut before appending, a file
    written before some columns existed is widened."""

    def __init__(self, path: str | Path):
        super().__init__(path, RUN_COLUMNS)


def read_results(path: str | Path) -> Table:
    """Rows of a results file with their types restored: a CSV (a file written before a column
    existed, no ``encoding`` column say, is read with that column None in every row) or the
    JSON layout of :class:`~formulations.harness.recordfile.RecordFile` (its runs, each as
    :meth:`RunRecord.to_row` gives it: the envelope's ``v`` and ``kind`` are the file's)."""
    if Path(path).suffix.lower() == ".csv":
        return Table(read_csv(path, RUN_COLUMNS))
    return Table(run_row(r) for r in RecordFile(path).read() if kind_of(r) == "run")


def run_row(record: Mapping[str, Any]) -> dict[str, Any]:
    """A run as :meth:`RunRecord.to_row` gives it, from either layout of a results file: the
    JSON layout's envelope ``v`` and ``kind`` left to the file (as a CSV's header holds them),
    a column the record lacks None."""
    row = {k: v for k, v in record.items() if k not in ("v", "kind")}
    return {**dict.fromkeys(k for k in FIELDS if k not in row), **row}


# -- tables and the summary ------------------------------------------------------------------

class Table(list):
    """A list of row dicts with a few conveniences; pandas stays optional."""

    def where(self, **equal: Any) -> Table:
        return Table(r for r in self if all(r.get(k) == v for k, v in equal.items()))

    def column(self, name: str) -> list:
        return [r.get(name) for r in self]

    def to_dataframe(self):
        """The rows as a pandas DataFrame with typed columns (:func:`as_frame`)."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise ImportError("to_dataframe() needs pandas (pip install pandas); the table "
                              "itself is a plain list of dicts") from None
        return as_frame(self)

    def summary(self) -> Table:
        return summarize(self)

    def format(self, columns: Sequence[str] | None = None) -> str:
        return format_table(self, columns)

    def __str__(self) -> str:
        return self.format()


def _dtype(annotation: str) -> str | None:
    if annotation.startswith("bool"):
        return "boolean"
    if annotation.startswith("int"):
        return "Int64"
    if annotation.startswith("float"):
        return "float64"
    if annotation.startswith("str"):
        return "string"
    return None


def as_frame(rows: Iterable[Mapping[str, Any]]):
    """``rows`` as a typed DataFrame, or as a Table when pandas is not installed."""
    rows = list(rows)
    try:
        import pandas as pd
    except ImportError:
        return Table(rows)
    frame = pd.DataFrame(rows)
    for column in frame.columns:
        typ = _dtype(_TYPES.get(column, ""))
        if typ is None:  # a summary's or caller's own column: numbers with None become NaN
            if frame[column].map(lambda v: v is None or isinstance(v, (int, float))).all() \
                    and frame[column].map(lambda v: isinstance(v, float)).any():
                frame[column] = frame[column].astype("float64")
            continue
        frame[column] = frame[column].astype(typ)
    return frame


def variant_label(row: Mapping[str, Any]) -> str:
    """Backend name plus what distinguishes its variant: options, a model variant other than
    the backend's own (``x`` or ``no-x``, :meth:`formulations.backends.base.Backend.model_x`), presolve, an
    encoding other than the default."""
    name = row["backend"]
    opts = json.loads(row.get("options") or "{}")
    extra = [f"{k}={json.dumps(v, separators=(',', ':')) if not isinstance(v, (int, float, str)) else v}"
             for k, v in opts.items()]
    use_x = row.get("use_x")
    if use_x is not None and use_x != _own_x(name):
        extra.append("x" if use_x else "no-x")
    if row.get("presolve"):
        extra.append("presolve")
    if row.get("encoding") not in (None, "order"):
        extra.append(row["encoding"])
    return name + (f"[{', '.join(extra)}]" if extra else "")


@functools.cache
def _own_x(backend: str) -> bool:
    """The variant ``backend`` gets when none is chosen (with x for a name not in the registry,
    e.g. a sampler object's)."""
    from formulations.backends import get_backend

    try:
        return get_backend(backend).model_x(None)
    except Exception:
        return True


@functools.cache
def complete_backend(backend: str) -> bool:
    """A backend that decides (proves a grid unique or the clues contradictory): its runs are
    no random trials, so the summary gives it no TTS99 but its CPU to the first grid and to
    the uniqueness proof. Known by ``supports_unique`` or a description saying ``(complete``."""
    from formulations.backends import get_backend

    try:
        b = get_backend(backend)
    except Exception:
        return False
    return bool(b.supports_unique) or "(complete" in b.description


def summarize(rows: Iterable[Mapping[str, Any]]) -> Table:
    """Per backend variant (in order of first appearance): runs, solved (verified), other
    statuses, median time of solved runs (wall, build + solve), and the statistics, all in CPU
    time (:mod:`formulations.runtime.cputime`; ``clock`` says ``wall`` for rows written before the CPU
    columns existed):

    Samplers (runs with reads): per puzzle, the reads of all its seeds are pooled
    (:func:`puzzle_trials`): successes and reads summed over its runs, a run without a success
    included (it is censored, not dropped), the CPU per read of the sampler calls alone
    (set-up apart: ``median_setup_cpu_s``, and amortised over the run's reads,
    ``setup_cpu_per_read_s``). TTS99 is then that of the pooled success rate, inf when none
    succeeded. Over puzzles: the median TTS99 (an order statistic, the lower middle one for an
    even count; unsolved puzzles as inf) and, with one puzzle, that puzzle's exact interval
    (:func:`formulations.analysis.stats.tts99_interval`), with several the two-level bootstrap interval
    of the median (puzzles, then reads; :mod:`formulations.analysis.optimal`). ``spin_updates_per_read``:
    the median sweeps x variables.

    Complete backends (:func:`complete_backend`): no TTS99 and no interval (a run is no random
    trial); ``median_first_cpu_s`` is the median over runs of the backend call's CPU to the
    first grid (an unsolved run as inf), ``median_unique_cpu_s`` the same for the uniqueness
    proof (runs of a sweep with ``unique=True``), the model build apart in
    ``median_setup_cpu_s``.

    Other backends (an incomplete solver without reads, e.g. qbpp): each seed is one trial
    (solved or not) of its mean CPU, TTS99 and interval as for a sampler's reads."""
    import numpy as np

    from formulations.analysis.optimal import LadderData, optimal_tts
    from formulations.analysis.stats import tts99_interval

    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[variant_label(r)].append(r)
    out = Table()
    for name, rs in groups.items():  # in order of first appearance (the sweep's plan order)
        solved = [r for r in rs if r["verified"]]
        per_puzzle: dict[str, list] = defaultdict(list)
        for r in rs:
            per_puzzle[r["digest"]].append(r)
        sampled = any(_sampled(r) for r in rs)
        complete = not sampled and complete_backend(rs[0]["backend"])
        median = low = high = None
        clock = "cpu" if all(r.get("solve_cpu_s") is not None for r in rs
                             if r["status"] not in ("error", "timeout")) else "wall"
        if not complete:
            trials = [puzzle_trials(prs) for prs in per_puzzle.values()]
            tts = [tts99(t, k / n) if n and math.isfinite(t) else math.inf
                   for k, n, t, _ in trials]
            if len(trials) == 1:
                k, n, t, ts = trials[0]
                median = tts[0]
                low, high = tts99_interval(k, n, t, t_samples=ts if len(ts) >= 2 else None)
            elif trials:
                data = LadderData(tuple(per_puzzle), (0,), np.array([[k] for k, *_ in trials]),
                                  np.array([[n] for _, n, *_ in trials]),
                                  np.array([[t] for _, _, t, _ in trials], dtype=float))
                med = optimal_tts(data, [0.5])[0]
                median, low, high = med.tts99_s, med.low_s, med.high_s
        counts = {s.value: sum(1 for r in rs if r["status"] == s.value) for s in Status}
        setup = [r["setup_cpu_s"] if sampled else r["build_cpu_s"] for r in rs
                 if (r.get("setup_cpu_s") if sampled else r.get("build_cpu_s")) is not None]
        amortised = [r["setup_cpu_s"] / r["reads"] for r in rs
                     if sampled and r.get("setup_cpu_s") is not None and r.get("reads")]
        updates = [r["spin_updates_per_read"] for r in rs if r.get("spin_updates_per_read")]
        out.append({
            "backend": name, "runs": len(rs), "solved": len(solved),
            "puzzles": len(per_puzzle),
            "unsolved": counts["unknown"], "infeasible": counts["infeasible"],
            "errors": counts["error"], "timeouts": counts["timeout"],
            "median_time_s": statistics.median([r["time_s"] for r in solved]) if solved else None,
            "median_tts99_s": median,
            "tts99_low_s": low,
            "tts99_high_s": high,
            "clock": clock,
            "median_setup_cpu_s": statistics.median(setup) if setup else None,
            "setup_cpu_per_read_s": statistics.median(amortised) if amortised else None,
            "spin_updates_per_read": statistics.median_low(updates) if updates else None,
            "median_first_cpu_s": _median_cpu(rs, "solve_cpu_s", "verified") if complete else None,
            "median_unique_cpu_s": _median_cpu(rs, "unique_cpu_s", "unique") if complete else None,
        })
    return out


def _sampled(r: Mapping[str, Any]) -> bool:
    return bool(r.get("reads")) and r.get("success_probability") is not None


def _median_cpu(rs: Sequence[Mapping[str, Any]], column: str, done: str) -> float | None:
    """The median over runs (error rows left out) of ``column`` where ``done`` holds (a
    verified grid; a uniqueness verdict, either way), inf for a run without it; None when no
    run has the figure."""
    if not any(r.get(column) is not None for r in rs):
        return None
    def reached(r: Mapping[str, Any]) -> bool:
        if r.get(column) is None:
            return False
        return r.get(done) is not None if done == "unique" else bool(r.get(done))

    vals = [r[column] if reached(r) else math.inf for r in rs if r["status"] != "error"]
    return statistics.median(vals) if vals else None


def puzzle_trials(prs: Sequence[Mapping[str, Any]]) -> tuple[int, int, float, list[float]]:
    """One puzzle's runs pooled: ``(successes, trials, seconds per trial, per-run seconds per
    trial)``. Sampler runs (with reads): successes and reads summed over the runs; the time per
    read of a run is its CPU per read of the sampling (``cpu_per_read_s``); for a row written
    before that column existed it is recovered from its (wall) TTS99 and p
    (``t = TTS99 * ln(1 - p) / ln 0.01``, the TTS99 itself at p >= 0.99), or when no run
    succeeded the run's time over its reads (it includes set-up: an overestimate). The pooled
    time is the runs' read-weighted mean. Other backends: one trial per run, solved or not, of
    the runs' mean CPU of the backend call (wall time of build and solve in an older row)."""
    sampled = [r for r in prs if _sampled(r)]
    if sampled:
        k = sum(round(r["success_probability"] * r["reads"]) for r in sampled)
        n = sum(r["reads"] for r in sampled)
        per_run = [(_t_read(r), r["reads"]) for r in sampled]
        known = [(t, w) for t, w in per_run if t is not None]
        if not known:
            known = [(r["time_s"] / r["reads"], r["reads"]) for r in sampled
                     if r.get("time_s") is not None]
        t = sum(t * w for t, w in known) / sum(w for _, w in known) if known else math.inf
        return k, n, t, [t for t, _ in known]
    cpu = all(r.get("solve_cpu_s") is not None for r in prs  # an error or timeout row has no
              if r["status"] not in ("error", "timeout"))  # CPU: it must not switch clocks
    times = [r["solve_cpu_s"] if cpu else r["time_s"] for r in prs
             if (r.get("solve_cpu_s") if cpu else r.get("time_s")) is not None]
    wins = sum(1 for r in prs if r["verified"])
    return wins, len(prs), statistics.fmean(times) if times else math.inf, times


def _t_read(r: Mapping[str, Any]) -> float | None:
    """A sampler run's time per read: its sampling CPU per read, else (an older row) the wall
    figure recovered from its TTS99 and p (None when p = 0)."""
    if r.get("cpu_per_read_s") is not None:
        return r["cpu_per_read_s"]
    p, t99 = r.get("success_probability"), r.get("tts99_s")
    if not p or t99 is None or not math.isfinite(t99):
        return None
    return t99 if p >= 0.99 else t99 * math.log1p(-p) / math.log(0.01)


def format_value(v: Any, digits: int = 4) -> str:
    """A table cell: ``-`` for None, ``inf``, floats to ``digits`` significant digits."""
    if v is None:
        return "-"
    if isinstance(v, float):
        if math.isinf(v):
            return "inf"
        return f"{v:.{digits}g}"
    return str(v)


def format_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None,
                 width: int | None = None) -> str:
    """Plain-text table with aligned columns. With ``width`` (a terminal's, e.g. 100) columns
    that no row has a value for are left out and a wider table is printed in blocks of columns,
    each repeating the columns that name a row (those before ``runs``, else the first)."""
    if not rows:
        return "(no rows)"
    cols = list(columns or rows[0].keys())
    if width is not None:
        cols = [c for c in cols if any(r.get(c) is not None for r in rows)]
    body = [[format_value(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(b[i]) for b in body)) for i, c in enumerate(cols)]
    numeric = [all(isinstance(r.get(c), (int, float)) or r.get(c) is None for r in rows)
               for c in cols]

    def block(idx: list[int]) -> str:
        def line(vals: list[str]) -> str:
            return "  ".join(vals[i].rjust(widths[i]) if numeric[i] else vals[i].ljust(widths[i])
                             for i in idx).rstrip()
        return "\n".join([line(cols), line(["-" * w for w in widths])] + [line(b) for b in body])

    every = list(range(len(cols)))
    if width is None or sum(widths) + 2 * (len(cols) - 1) <= width:
        return block(every)
    keys = list(range(cols.index("runs"))) if "runs" in cols[1:] else [0]
    blocks, current = [], list(keys)
    for i in every[len(keys):]:
        if len(current) > len(keys) and sum(widths[j] + 2 for j in current) + widths[i] > width:
            blocks.append(current)
            current = list(keys)
        current.append(i)
    blocks.append(current)
    return "\n\n".join(block(b) for b in blocks)
