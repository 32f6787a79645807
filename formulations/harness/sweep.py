"""A comparison sweep: every puzzle x backend variant x model choice x seed, one row per run,
run on the harness's one executor and appended to a results file (a CSV, or the JSON-lines
layout) as runs finish (run the same sweep again to resume), with progress shown."""
from __future__ import annotations

import itertools
import os
import sys
from collections import defaultdict
from pathlib import Path
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from ..model.encodings import check_encoding
from ..options import MODEL_SWITCHES, coerce, parse_assignment
from ..puzzle import Puzzle
from ..results import BackendError
from .executors import Executor, run_all
from .jobs import (BackendSpec, Job, PuzzleRef, default_kill_after, load_puzzles, lookup_backend,
                   plan_jobs, resolve_backends)
from .recordfile import RecordFile
from .records import RUN_COLUMNS, Table, run_row
from .runner import failed_row, run_job, warm_all, warm_job


def expand_options(option_texts: Sequence[str], sweep_texts: Sequence[str],
                   backend_names: Sequence[str],
                   ) -> tuple[list[BackendSpec], list[bool | None], list[bool]]:
    """``--option [BACKEND.]KEY=VALUE`` and ``--sweep [BACKEND.]KEY=V1,V2,...`` as backend
    variants (one per combination of swept values), plus the x / presolve values swept for
    every backend; ``encoding`` becomes a variant of every backend that builds a model (a model
    switch in the variant's options). A key without ``BACKEND.`` goes to every backend that
    declares it; one that no chosen backend declares (and that is no model switch) is refused.
    Values stay text here: :func:`formulations.options.route` converts them with each backend's
    declared types."""
    fixed: dict[str, dict[str, Any]] = defaultdict(dict)
    grid: dict[str, dict[str, list]] = defaultdict(dict)
    xs: list[bool | None] = [None]  # None: each backend's own variant (Backend.model_x)
    ps: list[bool] = [False]
    backends = {b: lookup_backend(b) for b in backend_names}
    for text, is_sweep in [(o, False) for o in option_texts] + [(s, True) for s in sweep_texts]:
        try:
            key, value = parse_assignment(text)
        except ValueError:
            raise BackendError(f"expected [BACKEND.]KEY=VALUE, got {text!r}") from None
        target, _, name = key.rpartition(".")
        target = target or "*"
        values = value.split(",") if is_sweep else [value]
        if target == "*" and name in MODEL_SWITCHES:
            try:
                vals = [coerce(v, MODEL_SWITCHES[name]) for v in values]
            except ValueError as exc:
                raise BackendError(f"{name}: {exc}") from None
            if name == "x":
                xs = vals
            elif name == "presolve":
                ps = vals
            else:  # encoding: checked here, a variant of each backend that builds a model
                try:
                    vals = [check_encoding(v) for v in vals]
                except ValueError as exc:
                    raise BackendError(str(exc)) from None
                for bname, b in backends.items():
                    if b.uses_model:
                        (grid if is_sweep else fixed)[bname][name] = vals if is_sweep else vals[0]
            continue
        if target == "*" and not any(name in b.options for b in backends.values()):
            raise BackendError(f"unknown option '{name}': no chosen backend declares it (give "
                               "BACKEND.KEY for a backend's native parameter)")
        if target != "*" and target not in backends:
            raise BackendError(f"option {text!r} names backend '{target}', which is not among "
                               f"the chosen backends ({', '.join(backends)})")
        if is_sweep:
            grid[target][name] = values
        else:
            fixed[target][name] = values[0]
    specs: list[BackendSpec] = []
    for name, b in backends.items():
        declared = set(b.options)
        base = {k: v for k, v in fixed.get("*", {}).items() if k in declared}
        base.update(fixed.get(name, {}))
        axes = {k: v for k, v in grid.get("*", {}).items() if k in declared}
        axes.update(grid.get(name, {}))
        if not axes:
            specs.append((name, base))
            continue
        keys = sorted(axes)
        for combo in itertools.product(*(axes[k] for k in keys)):
            specs.append((name, {**base, **dict(zip(keys, combo))}))
    return specs, xs, ps


DEFAULT_TIME_LIMIT = 10.0
"""Seconds each run of a comparison gets unless told (``compare()`` and ``python -m
formulations.compare``)."""


def compare(puzzles: Iterable[str | Path | Puzzle | PuzzleRef],
            backends: str | Sequence[BackendSpec] = "cpsat", *, repeats: int = 1,
            seeds: Sequence[int] | None = None, time_limit: float | None = DEFAULT_TIME_LIMIT,
            kill_after: float | None | Literal["auto"] = "auto",
            options: Mapping[str, Mapping[str, Any]] | None = None,
            use_x: bool | None | Sequence[bool | None] = None,
            presolve: bool | Sequence[bool] = False,
            encoding: str | Sequence[str] | None = None, unique: bool = False,
            out: str | Path | None = None,
            workers: int | None = None, scheduler: Any = None,
            progress: bool = True, retry_errors: bool = False, as_dataframe: bool = False,
            log: Callable[[str], None] | None = None,
            on_start: Callable[[Job, int | None], None] | None = None):
    """Run every puzzle x backend variant x seed and return the rows (a :class:`Table`, or a
    pandas DataFrame with ``as_dataframe=True``) in plan order: puzzle, variant, encoding,
    x/presolve, seed. ``use_x``: with or without the cell variables x, or both ``[True, False]``;
    None gives each backend the variant ``solve_puzzle`` gives it (``Backend.model_x``), and each
    row's ``use_x`` says which. ``encoding``: the model's encoding or encodings (None:
    ``order``) for every backend that builds a model, unless its variant names one.
    ``unique``: each backend that can prove a grid unique also times that proof, in a second
    call after the first grid (rows' ``unique`` and ``unique_cpu_s``).

    With ``out``, rows are appended to that CSV as they finish and rows already there (same
    key) are not run again but are part of the returned table (``retry_errors`` re-runs error
    and timeout rows; the newer row wins on reading). ``kill_after`` (default
    ``2 * time_limit + 30``, ``3 * time_limit + 30`` with ``unique``) is the hard per-run limit. ``scheduler``: a Dask scheduler address
    or ``distributed.Client``; default a local pool of ``workers`` processes (default: CPUs).
    KeyboardInterrupt stops the sweep after killing the workers; written rows stay.
    ``on_start(job, worker_pid)`` is called as each local run starts (for monitoring).
    """
    log = log or (lambda s: print(s, file=sys.stderr))
    refs = load_puzzles(puzzles, warn=log)
    variants = resolve_backends(backends, options, warn=log)
    seeds = list(seeds) if seeds is not None else list(range(repeats))
    ka = default_kill_after(time_limit, unique) if kill_after == "auto" else kill_after
    jobs = plan_jobs(refs, variants, seeds, time_limit=time_limit, kill_after=ka,
                     use_x=use_x, presolve=presolve, encoding=encoding, unique=unique)
    wanted = {j.key for j in jobs}
    rows: dict[str, dict] = {}
    sink = None
    if out is not None:
        sink = RecordFile(out, RUN_COLUMNS)  # a .csv (the default layout) or a .jsonl.gz: one writer
        for key, stored in sink.resume().items():
            r = run_row(stored)
            if key in wanted and not (retry_errors and r["status"] in ("error", "timeout")):
                rows[key] = r
    todo = [j for j in jobs if j.key not in rows]
    if rows:
        log(f"resuming: {len(rows)} of {len(jobs)} runs already in {out}")
    bar = _Progress(len(todo), enabled=progress, log=log)

    def emit(job: Job, row: dict) -> None:
        rows[row["key"]] = row
        if sink is not None:
            sink.append(row)
        bar.update(row)

    try:
        if todo:
            with Executor(run_job, failed_row, workers=workers or os.cpu_count() or 1,
                          scheduler=scheduler, kill_after=lambda job: job.kill_after,
                          setup=(warm_all, (sorted({j.backend for j in todo}),)),
                          warm=warm_job, on_start=on_start, isolate=True,
                          label=lambda job: f"nonogram-run-{job.key}") as executor:
                run_all(todo, executor, emit)
    finally:
        bar.close()
        if sink is not None:
            sink.close()
    order = {j.key: i for i, j in enumerate(jobs)}
    table = Table(sorted((r for r in rows.values() if r["key"] in order), key=lambda r: order[r["key"]]))
    return table.to_dataframe() if as_dataframe else table


class _Progress:
    """tqdm when installed, else one line per finished run on stderr."""

    def __init__(self, total: int, enabled: bool, log: Callable[[str], None]):
        self.total, self.done, self.enabled, self.log = total, 0, enabled and total > 0, log
        self.bar = None
        if self.enabled:
            try:
                from tqdm.auto import tqdm
                self.bar = tqdm(total=total, unit="run", desc="compare", file=sys.stderr)
            except ImportError:
                pass

    def update(self, row: Mapping[str, Any]) -> None:
        self.done += 1
        if not self.enabled:
            return
        text = f"{row['puzzle']} {row['backend']} seed={row['seed']}: {row['status']}"
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(1)
        else:
            t = row.get("wall_s")
            self.log(f"[{self.done}/{self.total}] {text}" + (f" {t:.3f}s" if t is not None else ""))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
