"""Encodings side by side, each tuned fairly: does the order encoding anneal better than one-hot
and the automaton-state encoding? (a benchmark, not a test; docs/encodings.md)

    python bench/encodings_tts.py select        # (re)write bench/encodings_puzzles.txt
    nice -n 19 python bench/encodings_tts.py run [--workers 2 | --scheduler tcp://HOST:8786]
    python bench/encodings_tts.py tuned         # bench/results/encodings/tuned.json again
    python bench/encodings_tts.py report        # the tables from the records
    python bench/encodings_tts.py status        # records so far, per phase, encoding, sampler
    python bench/encodings_tts.py compact       # rewrite the records as one gzip stream

The study is :mod:`formulations.harness.studies.encodings_tts`. Two phases, one record file (``bench/results/encodings/records.jsonl.gz``, records of
:mod:`formulations.harness.study`, one per instance, configuration, anneal length and seed; a
killed run resumes from it):

1. **tune**, on the TRAINING puzzles of ``bench/encodings_puzzles.txt``: for every encoding and
   sampler, stage A tries each variant (with or without the cell variables x) and each scale of
   the encoding's structural penalty weights (:data:`SCALES` x their defaults, links at 1); for
   ``sa``, stage B then tries the other beta ranges (:data:`BETAS`, in units of 1 / smallest
   weight) at stage A's best variant and weights. A configuration's score is the median over
   the training puzzles of TTS99 at the length that minimises that median
   (:mod:`formulations.analysis.optimal`) on a sqrt(2) ladder of anneal lengths, extended at an edge
   (:data:`TUNE`); the lowest score wins (ties: the default first).
2. **test**, on the disjoint TEST puzzles: each encoding and sampler at its tuned settings, on
   a ladder centred on the tuned length and extended until each quantile's optimum is interior
   (up to :data:`TEST` ``steps`` extensions; otherwise reported as a bound). Per size and
   quantile (0.5, 0.75, 0.9) the optimal TTS99 with its two-level bootstrap interval (instances,
   then reads; unsolved instances are inf), and the ratio other / order with a paired bootstrap
   interval (the same resampled instances for both encodings).

Reads are pooled over seeds and calls, no record is dropped for p = 0. Times are the sampler
calls' process CPU time in the worker (:func:`formulations.harness.study.measure`). The
chosen settings go to ``bench/results/encodings/tuned.json``. The corpus is read by path
(``$NONOGRAM_CORPUS`` or ``shared/corpus`` beside the checkout), never copied.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from formulations.harness.studies.encodings_tts import (
    BETAS,
    ENCODINGS,
    OUT,
    PUZZLES,
    SAMPLERS,
    SCALES,
    TEST,
    TUNE,
    Phase,
    Planner,
    ratio_table,
    read_records,
    read_selection,
    select,
    status_lines,
    test_summary,
    tuned_settings,
    tuning_table,
    write_json,
    write_selection,
)
from formulations.harness.study import RecordFile, run_tasks


def planner_of(args: argparse.Namespace) -> Planner:
    """The study's planner with the command line's puzzles, phases and grids."""
    puzzles = read_selection(Path(args.puzzles))
    tune = Phase("tune", args.tune_reads, args.tune_budget, TUNE.span, args.tune_steps, TUNE.quantiles)
    test = Phase("test", args.reads, args.budget, TEST.span, args.test_steps, TEST.quantiles)
    betas = [(float(lo), float(hi)) for lo, _, hi in (b.partition(":") for b in args.betas.split(","))]
    return Planner(puzzles, args.encodings.split(","), args.samplers.split(","),
                   scales=[float(s) for s in args.scales.split(",")], betas=betas,
                   tune=tune, test=test)


def cmd_select(args) -> None:
    sel = select()
    write_selection(sel, Path(args.puzzles))
    print(f"wrote {args.puzzles}: " + ", ".join(
        f"{ph} {z} {len(k)}" for ph in ("train", "test") for z, k in sel[ph].items()))


def cmd_run(args) -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    planner = planner_of(args)
    out = Path(args.out)
    run_tasks(planner, RecordFile(out / "records.jsonl.gz"), workers=args.workers,
              scheduler=args.scheduler, progress=not args.quiet, cost=planner.cost,
              log=lambda s: print(s, file=sys.stderr), desc="encodings")
    cmd_tuned(args)


def cmd_tuned(args) -> None:
    planner = planner_of(args)
    out = Path(args.out)
    records = {r["key"]: r for r in read_records(out / "records.jsonl.gz")}
    data = tuned_settings(planner, records)
    write_json(out / "tuned.json", data)
    print(f"wrote {out / 'tuned.json'} ({len(data['settings'])} encodings x samplers)")


def cmd_report(args) -> None:
    from formulations.harness import format_table

    planner = planner_of(args)
    records = {r["key"]: r for r in read_records(Path(args.out) / "records.jsonl.gz")}
    print("tuning (training puzzles, median over puzzles)")
    print(format_table(tuning_table(planner, records)))
    print("\ntest puzzles: per-quantile optimal TTS99 (ms, 95 % two-level bootstrap)")
    print(format_table(test_summary(planner, records)))
    print("\nother / order on the test puzzles (paired bootstrap)")
    print(format_table(ratio_table(planner, records)))


def cmd_status(args) -> None:
    print("\n".join(status_lines(RecordFile(Path(args.out) / "records.jsonl.gz").read())))


def cmd_compact(args) -> None:
    f = RecordFile(Path(args.out) / "records.jsonl.gz")
    f.compact()
    print(f"compacted {f.path} ({f.path.stat().st_size} bytes)")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["select", "run", "tuned", "report", "status", "compact"])
    ap.add_argument("--puzzles", default=str(PUZZLES), help="the train/test list")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--encodings", default=",".join(ENCODINGS))
    ap.add_argument("--samplers", default=",".join(SAMPLERS))
    ap.add_argument("--scales", default=",".join(f"{s:g}" for s in SCALES),
                    help="structural weight scales tried (the first is the default)")
    ap.add_argument("--betas", default=",".join(f"{a:g}:{b:g}" for a, b in BETAS),
                    help="sa beta ranges tried, LO:HI per 1/min weight (the first: default)")
    ap.add_argument("--reads", type=int, default=TEST.reads, help="test reads per record")
    ap.add_argument("--budget", type=float, default=TEST.budget,
                    help="test sampling CPU seconds per record at most")
    ap.add_argument("--tune-reads", type=int, default=TUNE.reads)
    ap.add_argument("--tune-budget", type=float, default=TUNE.budget)
    ap.add_argument("--tune-steps", type=int, default=TUNE.steps,
                    help="ladder extensions at most while tuning")
    ap.add_argument("--test-steps", type=int, default=TEST.steps,
                    help="ladder extensions at most on the test puzzles")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address (tcp://HOST:8786)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    {"select": cmd_select, "run": cmd_run, "tuned": cmd_tuned, "report": cmd_report,
     "status": cmd_status, "compact": cmd_compact}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
