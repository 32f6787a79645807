"""Backend comparison harness: every puzzle x backend variant x seed, one row per run.

    python -m formulations.compare PUZZLE_OR_DIR... --backends cpsat,sa,tabu,qbpp,lines \\
        --repeats 5 --time-limit 10 --out results.csv

Why it is built this way:

* **One run, one row, whatever happens.** Runs execute in worker processes. A run that raises
  becomes a row with status ``error``; a run still going ``kill_after`` seconds after it started
  has its worker killed and becomes a row with status ``timeout``; a worker that dies (a crash,
  the OOM killer) becomes an ``error`` row. The other runs carry on.
* **Resumable.** Rows are appended to the CSV as they finish, each with a ``key`` (digest of
  puzzle clues, backend, options, x/presolve, seed, time limit). Re-running the same command
  skips keys already present, so an interrupted sweep continues where it stopped.
* **Scale-out through an existing engine.** Locally, a ``ProcessPoolExecutor`` (spawn) per
  worker slot, so a hung run can be killed without losing the others. With ``scheduler=ADDRESS``
  the jobs go to a Dask ``distributed`` cluster; there each run executes in a long-lived child
  process of the Dask worker thread (:class:`ChildRunner`), which the hard time limit can kill.
  Both paths produce the same rows (apart from timings).
* Every grid was verified by the package (``formulations.solving.verify``); ``verified`` re-runs
  ``check_grid`` on the row's grid.

Backends are registry names (``backends.available_backends()``) or seed 000's ladder rungs
``ladder:cell``, ``ladder:row``, ``ladder:propagate`` (see :mod:`formulations.ladder`).
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import itertools
import json
import math
import os
import pickle
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, fields
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from .puzzle import Puzzle, PuzzleError, check_grid, grid_to_strings
from .results import BackendError, tts99

LADDER_PREFIX = "ladder:"
PUZZLE_SUFFIXES = (".txt", ".non", ".xml", ".pbn", ".nin", ".toml")  # directory scans (not janko .json)
EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 2, 130


class RunStatus(str, Enum):
    SOLVED = "solved"
    INFEASIBLE = "infeasible"
    UNKNOWN = "unknown"
    ERROR = "error"
    TIMEOUT = "timeout"  # killed by the harness after ``kill_after`` seconds


# --------------------------------------------------------------------------------------------
# Puzzles and jobs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PuzzleRef:
    """A puzzle with the name shown in tables, where it came from and a digest of its clues."""
    name: str
    source: str
    puzzle: Puzzle

    @property
    def digest(self) -> str:
        clues = [[[b.length, b.colour] for b in c] for c in (self.puzzle.rows + self.puzzle.columns)]
        text = json.dumps([self.puzzle.height, self.puzzle.width, clues], separators=(",", ":"))
        return hashlib.sha1(text.encode()).hexdigest()[:12]


def load_puzzles(specs: Iterable[str | Path | Puzzle | PuzzleRef],
                 warn: Callable[[str], None] | None = None) -> list[PuzzleRef]:
    """Puzzles from files, directories (searched recursively), ``FILE::KEY`` (one puzzle of a
    janko JSON file, or ``FILE::N`` the N-th of a multi-puzzle file) or Puzzle objects.

    A bad file met while scanning a directory is reported through ``warn`` and skipped; a bad
    file named directly raises PuzzleError."""
    from .readers import iter_janko, read_puzzles

    out: list[PuzzleRef] = []
    for k, spec in enumerate(specs):
        if isinstance(spec, PuzzleRef):
            out.append(spec)
            continue
        if isinstance(spec, Puzzle):
            out.append(PuzzleRef(spec.name or f"puzzle{k}", "<memory>", spec))
            continue
        text = str(spec)
        path, _, key = text.partition("::")
        p = Path(path)
        if key:
            if p.suffix.lower() == ".json":
                found = [q for kk, q, _ in iter_janko(p) if kk == key]
                if not found:
                    raise PuzzleError(f"no puzzle with key {key!r}", path=path)
                out.append(PuzzleRef(key, text, found[0]))
            else:
                all_ = read_puzzles(p)
                if not key.isdigit() or int(key) >= len(all_):
                    raise PuzzleError(f"no puzzle number {key!r} (file holds {len(all_)})", path=path)
                out.append(PuzzleRef(all_[int(key)].name or f"{p.stem}#{key}", text, all_[int(key)]))
            continue
        if p.is_dir():
            for f in sorted(q for q in p.rglob("*") if q.is_file()
                            and q.suffix.lower() in PUZZLE_SUFFIXES):
                try:
                    out.extend(_file_refs(f, read_puzzles(f)))
                except PuzzleError as exc:
                    if warn:
                        warn(f"skipping {exc}")
            continue
        out.extend(_file_refs(p, read_puzzles(p)))
    return out


def _file_refs(path: Path, puzzles: list[Puzzle]) -> list[PuzzleRef]:
    if len(puzzles) == 1:
        return [PuzzleRef(path.stem, str(path), puzzles[0])]
    return [PuzzleRef(q.name or f"{path.stem}#{i}", f"{path}::{i}", q) for i, q in enumerate(puzzles)]


@dataclass(frozen=True)
class Job:
    """One run: a puzzle, a backend with its options, a seed and the limits."""
    ref: PuzzleRef
    backend: str
    options: str               # canonical JSON of the backend options
    seed: int
    time_limit: float | None   # handed to the backend
    kill_after: float | None   # the harness kills the run after this many seconds
    use_x: bool = True
    presolve: bool = False

    @property
    def key(self) -> str:
        parts = [self.ref.digest, self.backend, self.options, self.use_x, self.presolve,
                 self.seed, self.time_limit]
        return hashlib.sha1(json.dumps(parts).encode()).hexdigest()[:16]


def canonical_options(options: Mapping[str, Any] | None) -> str:
    return json.dumps(dict(sorted((options or {}).items())), sort_keys=True, default=list)


# --------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------


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
    use_x: bool
    presolve: bool
    seed: int
    time_limit: float | None
    status: str                  # RunStatus value
    verified: bool               # the grid passes check_grid
    energy: float | None
    success_probability: float | None
    time_s: float | None         # build (+ presolve) + solve, as the package measured it
    tts_s: float | None          # time to solution: time_s when verified
    tts99_s: float | None        # as reported by sampling backends
    reads: int | None
    variables: int | None
    constraints: int | None
    variables_before: int | None  # presolve: model size before and after
    variables_after: int | None
    wall_s: float | None         # whole run in the worker (build, solve, verify)
    message: str
    grid: str                    # rows joined by "/", "" when none

    def to_row(self) -> dict[str, Any]:
        return asdict(self)


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(RunRecord))
TIMING_FIELDS: tuple[str, ...] = ("time_s", "tts_s", "tts99_s", "wall_s")
_TYPES = {f.name: f.type for f in fields(RunRecord)}


def _record(job: Job, status: RunStatus | str, *, message: str = "", **values: Any) -> RunRecord:
    p = job.ref.puzzle
    base: dict[str, Any] = dict(
        key=job.key, puzzle=job.ref.name, source=job.ref.source, digest=job.ref.digest,
        size=f"{p.height}x{p.width}", height=p.height, width=p.width, cells=p.height * p.width,
        backend=job.backend, options=job.options, use_x=job.use_x, presolve=job.presolve,
        seed=job.seed, time_limit=job.time_limit, status=RunStatus(status).value, verified=False,
        energy=None, success_probability=None, time_s=None, tts_s=None, tts99_s=None, reads=None,
        variables=None, constraints=None, variables_before=None, variables_after=None,
        wall_s=None, message=_one_line(message), grid="")
    base.update(values)
    return RunRecord(**base)


def _one_line(text: str, limit: int = 300) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[:limit - 3] + "..."


def _num(v: Any) -> float | None:
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


# --------------------------------------------------------------------------------------------
# Running one job (in a worker)
# --------------------------------------------------------------------------------------------


def _warm(backend: str) -> None:
    """Import what a backend needs before the clock starts (the first solve in a process
    would otherwise pay the solver's import, e.g. ~0.5 s for OR-Tools)."""
    if backend.startswith(LADDER_PREFIX):
        return
    try:
        from backends import get_backend
        get_backend(backend).available()
    except Exception:
        pass  # the run itself reports the problem


def run_job(job: Job) -> dict[str, Any]:
    """Run one job and return its row; never raises for a failing run."""
    _warm(job.backend)
    t0 = time.perf_counter()
    try:
        rec = _run_ladder(job, t0) if job.backend.startswith(LADDER_PREFIX) else _run_backend(job, t0)
    except (BackendError, PuzzleError) as exc:
        rec = _record(job, RunStatus.ERROR, message=str(exc), wall_s=time.perf_counter() - t0)
    except Exception as exc:  # a failing run is a row, not the end of the sweep
        rec = _record(job, RunStatus.ERROR, message=f"{type(exc).__name__}: {exc}",
                      wall_s=time.perf_counter() - t0)
    return rec.to_row()


def _run_backend(job: Job, t0: float) -> RunRecord:
    from .solving import solve_puzzle

    kwargs: dict[str, Any] = dict(json.loads(job.options))
    if job.presolve:
        kwargs["presolve"] = True
    res = solve_puzzle(job.ref.puzzle, job.backend, use_x=job.use_x, time_limit=job.time_limit,
                       seed=job.seed, **kwargs)
    wall = time.perf_counter() - t0
    info = res.info
    verified = res.grid is not None and not check_grid(job.ref.puzzle, res.grid)
    t = res.build_s + res.solve_s + (_num(info.get("presolve_s")) or 0.0)
    return _record(
        job, res.status.value, message=res.message, verified=verified, energy=_num(res.energy),
        success_probability=_num(info.get("success_probability")), time_s=t,
        tts_s=t if verified else None, tts99_s=_num(info.get("tts99_s")),
        reads=None if info.get("reads") is None else int(info["reads"]),
        variables=res.variables, constraints=res.constraints,
        variables_before=int(info.get("variables_before", res.variables)),
        variables_after=int(info.get("variables_after", res.variables)), wall_s=wall,
        grid="/".join(grid_to_strings(res.grid)) if res.grid is not None else "")


def _run_ladder(job: Job, t0: float) -> RunRecord:
    from . import ladder

    rung = job.backend[len(LADDER_PREFIX):]
    if json.loads(job.options):
        raise BackendError(f"backend '{job.backend}' takes no options")
    res = ladder.solve(job.ref.puzzle, rung, job.time_limit)
    verified = res.grid is not None and not check_grid(job.ref.puzzle, res.grid)
    return _record(job, res.status, verified=verified, time_s=res.elapsed_s,
                   tts_s=res.elapsed_s if verified else None, wall_s=time.perf_counter() - t0,
                   message=f"{res.nodes} nodes" + (", budget spent" if res.status == "unknown" else ""),
                   grid="/".join(grid_to_strings(res.grid)) if res.grid is not None else "")


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group; the parent decides how to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ping(backends: Sequence[str]) -> int:
    for b in backends:
        _warm(b)
    return os.getpid()


class ChildRunner:
    """A long-lived child Python process (``python -m formulations.compare --serve``) that runs
    jobs one at a time and is killed, and replaced on the next job, when one overruns.

    Used on Dask workers: their processes may be daemonic (no multiprocessing children) and the
    harness cannot kill a Dask task, but it can kill a subprocess. Keeping the child between
    jobs keeps solver imports warm, so a sweep of thousands of small runs does not pay a Python
    start-up per run. Protocol: the parent writes a length-prefixed pickled Job to the child's
    stdin; the child answers ``started`` once the backend is imported, then the row as JSON."""

    START_TIMEOUT = 300.0  # start-up and solver imports, not charged to the run

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self._buf = b""

    def _spawn(self) -> subprocess.Popen:
        self.proc = subprocess.Popen([sys.executable, "-m", "formulations.compare", "--serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=_child_env())
        self._buf = b""
        return self.proc

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _line(self, timeout: float | None) -> bytes | None:
        """One line from the child, None on timeout; b"" when the child died."""
        import selectors

        assert self.proc is not None and self.proc.stdout is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                if not sel.select(left):
                    return None
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return b""
                self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def run(self, job: Job) -> dict[str, Any]:
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._spawn()
        data = pickle.dumps(job)
        t0 = time.perf_counter()
        try:
            assert proc.stdin is not None
            proc.stdin.write(len(data).to_bytes(8, "little") + data)
            proc.stdin.flush()
            started = self._line(self.START_TIMEOUT)
            t0 = time.perf_counter()
            row = self._line(job.kill_after) if started == b"started" else started
        except (BrokenPipeError, OSError):
            row = b""
        if row is None:
            self.close()
            return _record(job, RunStatus.TIMEOUT, wall_s=time.perf_counter() - t0,
                           message=f"killed after {job.kill_after:g}s").to_row()
        if row:
            try:
                return json.loads(row)
            except ValueError:
                pass
        if proc.poll() is None:  # alive but answering nonsense: replace it
            proc.kill()
        code = proc.wait()
        self.proc = None
        return _record(job, RunStatus.ERROR, wall_s=time.perf_counter() - t0,
                       message=f"worker process died ({_exit_text(code)})").to_row()


_RUNNERS = threading.local()


def run_job_isolated(job: Job) -> dict[str, Any]:
    """Run ``job`` in this thread's :class:`ChildRunner` (the Dask task function)."""
    runner = getattr(_RUNNERS, "runner", None)
    if runner is None:  # the child exits by itself when this thread or process goes (stdin EOF)
        runner = _RUNNERS.runner = ChildRunner()
    return runner.run(job)


def _serve() -> int:
    """The child side of :class:`ChildRunner`."""
    _worker_init()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything a solver prints goes to stderr, never into the protocol
    inp = sys.stdin.buffer
    while True:
        head = inp.read(8)
        if len(head) < 8:
            return EXIT_OK
        job = pickle.loads(inp.read(int.from_bytes(head, "little")))
        _warm(job.backend)
        out.write(b"started\n")
        out.flush()
        out.write(json.dumps(run_job(job)).encode() + b"\n")
        out.flush()


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _exit_text(code: int | None) -> str:
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


# --------------------------------------------------------------------------------------------
# Executors
# --------------------------------------------------------------------------------------------


class _Slot:
    """One single-process pool: its one worker runs one job at a time, so a job that overruns
    can be killed (with its process) without touching the runs in other slots."""

    def __init__(self, backends: Sequence[str]):
        import multiprocessing

        self.ex = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=_worker_init)
        self.future: Future | None = self.ex.submit(_ping, list(backends))
        self.job: Job | None = None
        self.started = 0.0
        self.pid: int | None = None  # the worker's, once it has answered the ping
        self.procs: list = []

    @property
    def idle(self) -> bool:
        return self.future is None

    def start(self, job: Job) -> None:
        self.job, self.started = job, time.perf_counter()
        self.future = self.ex.submit(run_job, job)

    def overdue(self, now: float) -> bool:
        return (self.job is not None and self.job.kill_after is not None
                and now - self.started > self.job.kill_after)

    def deadline(self) -> float | None:
        if self.job is None or self.job.kill_after is None:
            return None
        return self.started + self.job.kill_after

    def kill(self) -> None:
        procs = list((getattr(self.ex, "_processes", None) or {}).values())
        for p in procs:
            try:
                p.kill()
            except Exception:
                pass
        self.ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            p.join(timeout=5)


def _run_local(jobs: Sequence[Job], workers: int, emit: Callable[[dict], None],
               on_start: Callable[[Job, int | None], None] | None = None) -> None:
    backends = sorted({j.backend for j in jobs})
    pending = list(reversed(jobs))
    slots = [_Slot(backends) for _ in range(max(1, min(workers, len(jobs))))]
    try:
        while pending or any(s.job is not None for s in slots):
            for s in slots:
                if s.idle and pending:
                    s.start(pending.pop())
                    if on_start is not None:
                        on_start(s.job, s.pid)
            active = [s.future for s in slots if s.future is not None]
            now = time.perf_counter()
            deadlines = [d for d in (s.deadline() for s in slots) if d is not None]
            timeout = max(0.0, min(deadlines) - now) + 0.01 if deadlines else None
            wait(active, timeout=timeout, return_when=FIRST_COMPLETED)
            now = time.perf_counter()
            for i, s in enumerate(slots):
                if s.future is not None and s.future.done():
                    fut, job = s.future, s.job
                    s.future, s.job = None, None
                    try:
                        row = fut.result()
                    except Exception as exc:  # the worker died (BrokenProcessPool) or pickling
                        if job is None:
                            raise RuntimeError(f"worker process failed to start: {exc}") from exc
                        emit(_record(job, RunStatus.ERROR, wall_s=now - s.started,
                                     message=_death_message(s, exc)).to_row())
                        s.kill()
                        slots[i] = _Slot(backends)
                        continue
                    if job is not None:
                        emit(row)
                    else:  # the ping's answer: the worker is up
                        s.pid = row
                        s.procs = list((getattr(s.ex, "_processes", None) or {}).values())
                elif s.overdue(now):
                    job = s.job
                    s.kill()
                    emit(_record(job, RunStatus.TIMEOUT, wall_s=now - s.started,
                                 message=f"killed after {job.kill_after:g}s").to_row())
                    slots[i] = _Slot(backends)
    finally:
        for s in slots:
            s.kill()


def _death_message(slot: _Slot, exc: BaseException) -> str:
    from concurrent.futures.process import BrokenProcessPool

    if not isinstance(exc, BrokenProcessPool):
        return f"{type(exc).__name__}: {exc}"  # e.g. a result that cannot be pickled
    for p in slot.procs:
        p.join(timeout=5)
    codes = [p.exitcode for p in slot.procs if p.exitcode is not None]
    return f"worker process died ({_exit_text(codes[0]) if codes else 'no exit code'})"


def _run_dask(jobs: Sequence[Job], scheduler: Any, emit: Callable[[dict], None]) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise BackendError('--scheduler needs Dask distributed: pip install '
                           '"nonogram-formulations[compare]" (or: pip install distributed)') from None
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    futures = []
    try:
        tag = os.urandom(4).hex()  # task keys unique to this sweep
        futures = [client.submit(run_job_isolated, job, pure=False,
                                 key=f"nonogram-run-{job.key}-{tag}") for job in jobs]
        by_key = {f.key: j for f, j in zip(futures, jobs)}
        for fut in as_completed(futures):
            try:
                row = fut.result()
            except Exception as exc:
                row = _record(by_key[fut.key], RunStatus.ERROR,
                              message=f"dask task failed: {type(exc).__name__}: {exc}").to_row()
            emit(row)
    finally:
        for f in futures:
            if not f.done():
                f.cancel()
        if own:
            client.close()


# --------------------------------------------------------------------------------------------
# CSV (append as rows finish, resume by key)
# --------------------------------------------------------------------------------------------


def _to_cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _from_cell(name: str, s: str) -> Any:
    typ = _TYPES.get(name, "str")
    if s == "" and "None" in typ:
        return None
    if typ.startswith("bool"):
        return s == "true"
    if typ.startswith("int"):
        return int(s)
    if typ.startswith("float"):
        return float(s)
    return s


class CsvSink:
    """Appends rows to a CSV (header written once), flushing each so an interrupted run keeps
    every finished row; a partial last line left by a hard kill is cut before appending."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size:
            data = self.path.read_bytes()
            if not data.endswith(b"\n"):
                self.path.write_bytes(data[:data.rfind(b"\n") + 1])
            with self.path.open(newline="") as f:
                header = next(csv.reader(f), None)
            if header and tuple(header) != FIELDS:
                raise BackendError(f"{self.path}: columns differ from this version's "
                                   f"({len(header)} vs {len(FIELDS)}); write to a new file")
        new = not self.path.exists() or self.path.stat().st_size == 0
        self.f = self.path.open("a", newline="")
        self.w = csv.writer(self.f)
        if new:
            self.w.writerow(FIELDS)
            self.f.flush()

    def write(self, row: Mapping[str, Any]) -> None:
        self.w.writerow([_to_cell(row.get(k)) for k in FIELDS])
        self.f.flush()

    def close(self) -> None:
        self.f.close()


def read_results(path: str | Path) -> "Table":
    """Rows of a results CSV with their types restored."""
    out = Table()
    with Path(path).open(newline="") as f:
        for row in csv.DictReader(f):
            if None in row.values() or len(row) != len(FIELDS):
                continue  # a truncated line
            out.append({k: _from_cell(k, v) for k, v in row.items()})
    return out


# --------------------------------------------------------------------------------------------
# Tables and the summary
# --------------------------------------------------------------------------------------------


class Table(list):
    """A list of row dicts with a few conveniences; pandas stays optional."""

    def where(self, **equal: Any) -> "Table":
        return Table(r for r in self if all(r.get(k) == v for k, v in equal.items()))

    def column(self, name: str) -> list:
        return [r.get(name) for r in self]

    def to_dataframe(self):
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_dataframe() needs pandas (pip install pandas); the table "
                              "itself is a plain list of dicts") from None
        return pd.DataFrame(list(self))

    def summary(self) -> "Table":
        return summarize(self)

    def format(self, columns: Sequence[str] | None = None) -> str:
        return format_table(self, columns)

    def __str__(self) -> str:
        return self.format()


def variant_label(row: Mapping[str, Any]) -> str:
    """Backend name plus what distinguishes its variant: options, no x, presolve."""
    name = row["backend"]
    opts = json.loads(row.get("options") or "{}")
    extra = [f"{k}={json.dumps(v, separators=(',', ':')) if not isinstance(v, (int, float, str)) else v}"
             for k, v in opts.items()]
    if row.get("use_x") is False:
        extra.append("no-x")
    if row.get("presolve"):
        extra.append("presolve")
    return name + (f"[{', '.join(extra)}]" if extra else "")


def summarize(rows: Iterable[Mapping[str, Any]]) -> Table:
    """Per backend variant (in order of first appearance): runs, solved (verified), other
    statuses, median time of solved runs and TTS99 (median over puzzles: the backend's own
    TTS99 where it reports one, else from the fraction of seeds that solved the puzzle and
    their mean time)."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[variant_label(r)].append(r)
    out = Table()
    for name, rs in groups.items():  # in order of first appearance (the sweep's plan order)
        solved = [r for r in rs if r["verified"]]
        per_puzzle: dict[str, list] = defaultdict(list)
        for r in rs:
            per_puzzle[r["digest"]].append(r)
        tts = []
        for prs in per_puzzle.values():
            reported = [r["tts99_s"] for r in prs if r.get("tts99_s") is not None]
            if reported:
                tts.append(statistics.median(reported))
                continue
            times = [r["time_s"] for r in prs if r.get("time_s") is not None]
            p = sum(1 for r in prs if r["verified"]) / len(prs)
            tts.append(tts99(statistics.fmean(times), p) if times and p > 0 else math.inf)
        counts = {s.value: sum(1 for r in rs if r["status"] == s.value) for s in RunStatus}
        out.append({
            "backend": name, "runs": len(rs), "solved": len(solved),
            "puzzles": len(per_puzzle),
            "unsolved": counts["unknown"], "infeasible": counts["infeasible"],
            "errors": counts["error"], "timeouts": counts["timeout"],
            "median_time_s": statistics.median([r["time_s"] for r in solved]) if solved else None,
            "median_tts99_s": statistics.median(tts) if tts else None,
        })
    return out


def format_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> str:
    """Plain-text table with aligned columns."""
    if not rows:
        return "(no rows)"
    cols = list(columns or rows[0].keys())

    def cell(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            if math.isinf(v):
                return "inf"
            return f"{v:.4g}"
        return str(v)

    body = [[cell(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(b[i]) for b in body)) for i, c in enumerate(cols)]
    numeric = [all(isinstance(r.get(c), (int, float)) or r.get(c) is None for r in rows)
               for c in cols]

    def line(vals: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(vals, widths, numeric)).rstrip()

    return "\n".join([line(cols), line(["-" * w for w in widths])] + [line(b) for b in body])


# --------------------------------------------------------------------------------------------
# Planning and the entry point
# --------------------------------------------------------------------------------------------

BackendSpec = str | tuple[str, Mapping[str, Any]]


def lookup_backend(name: str):
    """The registry's Backend (an unknown name raises BackendError listing the valid ones)."""
    from backends import get_backend

    return get_backend(name)


@dataclass(frozen=True)
class Variant:
    """A backend with its options; ``use_x``/``presolve`` None = the sweep's default."""
    backend: str
    options: str               # canonical JSON
    use_x: bool | None = None
    presolve: bool | None = None


_MODEL_KEYS = ("x", "presolve")  # option keys that choose the model, not the backend


def resolve_backends(backends: str | Sequence[BackendSpec],
                     options: Mapping[str, Mapping[str, Any]] | None = None,
                     warn: Callable[[str], None] | None = None) -> list[Variant]:
    """The variants to run; unavailable backends are skipped with a warning.

    ``backends``: ``"cpsat,sa"``, ``"all"`` (every installed backend), or a list of names and
    ``(name, options)`` pairs, where options may also hold ``x`` (False: build without cell
    variables) and ``presolve`` (True). ``options``: per backend name, plus ``"*"`` for options
    given to every backend that declares them. Unknown names and options raise BackendError."""
    from backends import available_backends

    if isinstance(backends, str):
        names: list[BackendSpec] = [b.strip() for b in backends.split(",") if b.strip()]
    else:
        names = list(backends)
    expanded: list[BackendSpec] = []
    for b in names:
        expanded.extend(available_backends() if b == "all" else [b])
    options = options or {}
    out: list[Variant] = []
    for spec in expanded:
        name, opts = (spec, {}) if isinstance(spec, str) else (spec[0], dict(spec[1]))
        if name.startswith(LADDER_PREFIX):
            from .ladder import RUNGS
            if name[len(LADDER_PREFIX):] not in RUNGS:
                raise BackendError(f"unknown ladder rung '{name}', choose from "
                                   + ", ".join(LADDER_PREFIX + r for r in RUNGS))
            if opts:
                raise BackendError(f"backend '{name}' takes no options")
            out.append(Variant(name, canonical_options({})))
            continue
        b = lookup_backend(name)
        if not b.available():
            if warn:
                warn(f"skipping backend '{name}': not installed ({b.install_hint})")
            continue
        merged = {k: v for k, v in options.get("*", {}).items()
                  if k in b.options or k in _MODEL_KEYS}
        merged.update(options.get(name, {}))
        merged.update(opts)
        model = {k: _as_bool(merged.pop(k)) for k in _MODEL_KEYS if k in merged}
        b.check_options(merged)  # unknown options / wrong types fail before any run
        out.append(Variant(name, canonical_options(merged), model.get("x"), model.get("presolve")))
    return out


def _as_bool(v: Any) -> bool:
    return v if isinstance(v, bool) else _bool(str(v))


def plan_jobs(refs: Sequence[PuzzleRef], variants: Sequence[Variant], seeds: Sequence[int],
              *, time_limit: float | None, kill_after: float | None,
              use_x: bool | Sequence[bool] = True,
              presolve: bool | Sequence[bool] = False) -> list[Job]:
    """puzzle x variant x model choice x seed, in that order, without duplicates. The ladder
    has no model, so it runs once per seed whatever x and presolve say."""
    xs = [use_x] if isinstance(use_x, bool) else list(use_x)
    ps = [presolve] if isinstance(presolve, bool) else list(presolve)
    jobs, seen = [], set()
    for ref, v in itertools.product(refs, variants):
        ladder = v.backend.startswith(LADDER_PREFIX)
        vx = [True] if ladder else [v.use_x] if v.use_x is not None else xs
        vp = [False] if ladder else [v.presolve] if v.presolve is not None else ps
        for x, pre, seed in itertools.product(vx, vp, seeds):
            job = Job(ref, v.backend, v.options, seed, time_limit, kill_after, x, pre)
            if job.key not in seen:
                seen.add(job.key)
                jobs.append(job)
    return jobs


def default_kill_after(time_limit: float | None) -> float | None:
    """Hard limit: the backend's own limit plus room for building, presolve and verification."""
    return None if time_limit is None else 2 * time_limit + 30


def compare(puzzles: Iterable[str | Path | Puzzle | PuzzleRef],
            backends: str | Sequence[BackendSpec] = "cpsat", *, repeats: int = 1,
            seeds: Sequence[int] | None = None, time_limit: float | None = 10.0,
            kill_after: float | None | str = "auto",
            options: Mapping[str, Mapping[str, Any]] | None = None,
            use_x: bool | Sequence[bool] = True, presolve: bool | Sequence[bool] = False,
            out: str | Path | None = None, workers: int | None = None, scheduler: Any = None,
            progress: bool = True, retry_errors: bool = False, as_dataframe: bool = False,
            log: Callable[[str], None] | None = None,
            on_start: Callable[[Job, int | None], None] | None = None):
    """Run every puzzle x backend variant x seed and return the rows (a :class:`Table`, or a
    pandas DataFrame with ``as_dataframe=True``) in plan order: puzzle, variant, x/presolve, seed.

    With ``out``, rows are appended to that CSV as they finish and rows already there (same
    key) are not run again but are part of the returned table (``retry_errors`` re-runs error
    and timeout rows; the newer row wins on reading). ``kill_after`` (default
    ``2 * time_limit + 30``) is the hard per-run limit. ``scheduler``: a Dask scheduler address
    or ``distributed.Client``; default a local pool of ``workers`` processes (default: CPUs).
    KeyboardInterrupt stops the sweep after killing the workers; written rows stay.
    ``on_start(job, worker_pid)`` is called as each local run starts (for monitoring).
    """
    log = log or (lambda s: print(s, file=sys.stderr))
    refs = load_puzzles(puzzles, warn=log)
    variants = resolve_backends(backends, options, warn=log)
    seeds = list(seeds) if seeds is not None else list(range(repeats))
    ka = default_kill_after(time_limit) if kill_after == "auto" else kill_after
    jobs = plan_jobs(refs, variants, seeds, time_limit=time_limit, kill_after=ka,
                     use_x=use_x, presolve=presolve)
    wanted = {j.key for j in jobs}
    rows: dict[str, dict] = {}
    sink = None
    if out is not None:
        sink = CsvSink(out)
        for r in read_results(out):
            if r["key"] in wanted and not (retry_errors and r["status"] in ("error", "timeout")):
                rows[r["key"]] = r
    todo = [j for j in jobs if j.key not in rows]
    if rows:
        log(f"resuming: {len(rows)} of {len(jobs)} runs already in {out}")
    bar = _Progress(len(todo), enabled=progress, log=log)

    def emit(row: dict) -> None:
        rows[row["key"]] = row
        if sink is not None:
            sink.write(row)
        bar.update(row)

    try:
        if todo:
            if scheduler is not None:
                _run_dask(todo, scheduler, emit)
            else:
                _run_local(todo, workers or os.cpu_count() or 1, emit, on_start)
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


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise BackendError(f"expected true or false, got {text!r}")


def _option_args(opts: Sequence[str], sweeps: Sequence[str], backend_names: list[str]):
    """--option [BACKEND.]KEY=VALUE and --sweep [BACKEND.]KEY=V1,V2,... -> backend variants,
    and the x / presolve values swept."""
    fixed: dict[str, dict[str, Any]] = defaultdict(dict)
    grid: dict[str, dict[str, list]] = defaultdict(dict)
    xs, ps = [True], [False]
    for text, is_sweep in [(o, False) for o in opts] + [(s, True) for s in sweeps]:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise BackendError(f"expected [BACKEND.]KEY=VALUE, got {text!r}")
        target, _, name = key.rpartition(".")
        target = target or "*"
        values = [_value(v) for v in value.split(",")] if is_sweep else [_value(value)]
        if name in _MODEL_KEYS and target == "*":
            vals = [v if isinstance(v, bool) else _bool(str(v)) for v in values]
            if name == "x":
                xs = vals
            else:
                ps = vals
            continue
        if is_sweep:
            grid[target][name] = values
        else:
            fixed[target][name] = values[0]
    specs: list[BackendSpec] = []
    for b in backend_names:
        backend = None if b.startswith(LADDER_PREFIX) else lookup_backend(b)
        declared = (set(backend.options) | set(_MODEL_KEYS)) if backend is not None else set()
        base = {k: v for k, v in fixed.get("*", {}).items() if k in declared}
        base.update(fixed.get(b, {}))
        axes = {k: v for k, v in grid.get("*", {}).items() if k in declared}
        axes.update(grid.get(b, {}))
        if not axes:
            specs.append((b, base))
            continue
        keys = sorted(axes)
        for combo in itertools.product(*(axes[k] for k in keys)):
            specs.append((b, {**base, **dict(zip(keys, combo))}))
    return specs, xs, ps


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m formulations.compare",
        description="Run puzzles x backends x seeds in worker processes; rows appended to a CSV "
                    "as they finish (re-run the same command to resume).")
    p.add_argument("puzzles", nargs="*", help="puzzle files, directories, or FILE.json::KEY")
    p.add_argument("--backends", default="cpsat",
                   help="comma-separated backend names, 'all' for every installed one, or "
                        "ladder:cell / ladder:row / ladder:propagate (default cpsat)")
    p.add_argument("--repeats", type=int, default=1, help="seeds 0..N-1 per run (default 1)")
    p.add_argument("--seeds", help="explicit seeds, comma-separated (overrides --repeats)")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="S",
                   help="time limit handed to each backend (default 10)")
    p.add_argument("--kill-after", type=float, metavar="S",
                   help="hard per-run limit; the run's worker is killed (default 2*limit+30)")
    p.add_argument("--out", metavar="CSV", help="results file (appended to; resumes)")
    p.add_argument("--workers", type=int, help="local worker processes (default: CPUs)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask distributed scheduler address (e.g. tcp://host:8786)")
    p.add_argument("--option", action="append", default=[], metavar="[BACKEND.]KEY=VALUE",
                   help="backend option (JSON value), for one backend or every backend that "
                        "declares KEY; repeatable")
    p.add_argument("--sweep", action="append", default=[], metavar="[BACKEND.]KEY=V1,V2",
                   help="one variant per value (grid over several --sweep); x=true,false and "
                        "presolve=false,true sweep the model; repeatable")
    p.add_argument("--no-x", action="store_true", help="build without cell variables")
    p.add_argument("--presolve", action="store_true", help="presolve by line solving first")
    p.add_argument("--retry-errors", action="store_true", help="re-run error/timeout rows of --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--plots", metavar="DIR", help="write PNG plots of the results to DIR")
    p.add_argument("--summary", metavar="CSV", help="only print the summary of an existing CSV")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.serve:  # the child of a ChildRunner
        return _serve()
    signal.signal(signal.SIGTERM, _terminate)  # stop like Ctrl-C: kill the workers, keep the rows
    try:
        if args.plots:  # fail before a long sweep, not after it
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise BackendError('--plots needs matplotlib: pip install "nonogram-formulations[notebooks]"') from None
        if args.summary:
            rows = read_results(args.summary)
            print(format_table(summarize(rows)))
            if args.plots:
                _write_plots(rows, args.plots)
            return EXIT_OK
        if not args.puzzles:
            print("python -m formulations.compare: error: give puzzle files or directories",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        names = [b.strip() for b in args.backends.split(",") if b.strip()]
        if "all" in names:
            from backends import available_backends
            names = [n for b in names for n in (available_backends() if b == "all" else [b])]
        specs, xs, ps = _option_args(args.option, args.sweep, names)
        if args.no_x:
            xs = [False]
        if args.presolve:
            ps = [True]
        seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else None
        table = compare(args.puzzles, specs, repeats=args.repeats, seeds=seeds,
                        time_limit=args.time_limit,
                        kill_after=args.kill_after if args.kill_after is not None else "auto",
                        use_x=xs, presolve=ps, out=args.out, workers=args.workers,
                        scheduler=args.scheduler, progress=not args.no_progress,
                        retry_errors=args.retry_errors)
    except (PuzzleError, BackendError, ValueError) as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        where = f"; rows so far are in {args.out}, run the same command to resume" if args.out else ""
        print(f"interrupted{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(format_table(summarize(table)))
    if args.plots:
        _write_plots(table, args.plots)
    return EXIT_OK


def _terminate(signum, frame) -> None:
    raise KeyboardInterrupt


def _write_plots(rows: Sequence[Mapping[str, Any]], directory: str) -> None:
    from . import plots

    for path in plots.save_all(rows, directory):
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
