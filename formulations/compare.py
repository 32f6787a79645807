"""Command line of the comparison harness (:mod:`formulations.harness`):

    python -m formulations.compare PUZZLE_OR_DIR... --backends cpsat,sa,tabu,qbpp,lines \\
        --repeats 5 --time-limit 10 --out results.csv

Runs every puzzle x backend variant x seed in worker processes, one row per run whatever
happens (error and timeout rows included), appends rows to the CSV as they finish (the same
command resumes), prints a summary per variant and optionally writes plots.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from .harness import compare, format_table, read_results, summarize
from .harness.records import one_line
from .harness.executors import serve
from .harness.sweep import DEFAULT_TIME_LIMIT, expand_options
from .model.encodings import ENCODINGS
from .puzzle import PuzzleError
from .results import BackendError

EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 2, 130


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m formulations.compare",
        description="Run puzzles x backends x seeds in worker processes; rows appended to a CSV "
                    "as they finish (re-run the same command to resume).")
    p.add_argument("puzzles", nargs="*", help="puzzle files, directories, or FILE.json::KEY")
    p.add_argument("--backends", default="cpsat",
                   help="comma-separated backend names, 'all' for every installed one, "
                        "dimod:MODULE:CLASS, or ladder:cell / ladder:row / ladder:propagate "
                        "(default cpsat)")
    p.add_argument("--repeats", type=int, default=1, help="seeds 0..N-1 per run (default 1)")
    p.add_argument("--seeds", help="explicit seeds, comma-separated (overrides --repeats)")
    p.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="S",
                   help=f"time limit of each run (default {DEFAULT_TIME_LIMIT:g})")
    p.add_argument("--kill-after", type=float, metavar="S",
                   help="hard per-run limit; the run's worker is killed "
                        "(default 2*limit+30, with --unique 3*limit+30)")
    p.add_argument("--out", metavar="FILE",
                   help="results file, .csv or .jsonl.gz (appended to; resumes)")
    p.add_argument("--workers", type=int, help="local worker processes (default: CPUs)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask distributed scheduler address (e.g. tcp://host:8786)")
    p.add_argument("--option", action="append", default=[], metavar="[BACKEND.]KEY=VALUE",
                   help="backend option (JSON value), for one backend or every backend that "
                        "declares KEY; repeatable")
    p.add_argument("--sweep", action="append", default=[], metavar="[BACKEND.]KEY=V1,V2",
                   help="one variant per value (grid over several --sweep); x=true,false, "
                        "presolve=false,true and encoding=order,onehot sweep the model; "
                        "repeatable")
    p.add_argument("--no-x", action="store_true",
                   help="build without cell variables for every backend (default: each "
                        "backend's own variant, as solve gives it; --sweep x=true,false for both)")
    p.add_argument("--presolve", action="store_true", help="presolve by line solving first")
    p.add_argument("--encoding", choices=ENCODINGS,
                   help="the model's encoding (default order; --sweep encoding=order,onehot "
                        "compares them)")
    p.add_argument("--unique", action="store_true",
                   help="complete backends also prove the grid unique, timed apart in a second "
                        "call (rows' unique, unique_cpu_s)")
    p.add_argument("--retry-errors", action="store_true", help="re-run error/timeout rows of --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--plots", metavar="DIR", help="write PNG plots of the results to DIR")
    p.add_argument("--summary", metavar="FILE",
                   help="only print the summary of an existing results file (.csv, .jsonl.gz)")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.serve:  # the child of a ChildRunner
        return serve()
    signal.signal(signal.SIGTERM, _terminate)  # stop like Ctrl-C: kill the workers, keep the rows
    try:
        if args.plots:  # fail before a long sweep, not after it
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise BackendError('--plots needs matplotlib: pip install -e ".[notebooks]"') from None
        if args.summary:
            rows = read_results(args.summary)
            _say(format_table(summarize(rows), width=SUMMARY_WIDTH))
            if args.plots:
                _write_plots(rows, args.plots)
            return EXIT_OK
        if not args.puzzles:
            print("python -m formulations.compare: error: give puzzle files or directories",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        names = [b.strip() for b in args.backends.split(",") if b.strip()]
        if "all" in names:
            from formulations.backends import available_backends
            names = [n for b in names for n in (available_backends() if b == "all" else [b])]
        specs, xs, ps = expand_options(args.option, args.sweep, names)
        if args.no_x:
            xs = [False]
        if args.presolve:
            ps = [True]
        seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else None
        table = compare(args.puzzles, specs, repeats=args.repeats, seeds=seeds,
                        time_limit=args.time_limit,
                        kill_after=args.kill_after if args.kill_after is not None else "auto",
                        use_x=xs, presolve=ps, encoding=args.encoding, unique=args.unique,
                        out=args.out,
                        workers=args.workers, scheduler=args.scheduler,
                        progress=not args.no_progress,
                        retry_errors=args.retry_errors)
    except (PuzzleError, BackendError, ValueError) as exc:
        print(f"error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        where = f"; rows so far are in {args.out}, run the same command to resume" if args.out else ""
        print(f"interrupted{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    _say(format_table(summarize(table), width=SUMMARY_WIDTH))
    if args.plots:
        _write_plots(table, args.plots)
    return EXIT_OK


SUMMARY_WIDTH = 100
"""The summary's width on the terminal: wider tables are printed in blocks of columns (the CSV
and ``--summary`` read the same rows)."""


def _say(text: str) -> None:
    """Print to stdout; a reader that has gone (``| head``) ends the output quietly."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # send what is left into nothing so that exiting does not fail on the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _terminate(signum, frame) -> None:
    raise KeyboardInterrupt


def _write_plots(rows: Sequence[Mapping[str, Any]], directory: str) -> None:
    from .show import plots

    for path in plots.save_all(rows, directory):
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
