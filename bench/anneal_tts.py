"""Time-to-solution of simulated annealing on the nonogram penalty QUBO (a benchmark, not a test).

    python bench/anneal_tts.py weights     # cat15: family weights x sweeps (sa, with and without x)
    python bench/anneal_tts.py sweeps      # cat15: TTS99 against sweeps, x / no x, weights, beta
    python bench/anneal_tts.py sizes       # janko 20x20, 25x25, 30x30: TTS99 against sweeps
    python bench/anneal_tts.py all
    python bench/anneal_tts.py report [weights|sweeps|sizes]   # the summaries, from the records

The study is :mod:`formulations.harness.studies.anneal_tts`, a thin plan over
:mod:`formulations.harness.study`: one record per (puzzle, variant, sweeps,
seed), measured by ``study.measure`` (CPU time of the sampler calls alone, every read re-scored
by the package), appended to ``bench/results/anneal_tts/records.jsonl.gz``; a killed run
resumes (``--workers N`` local processes or ``--scheduler tcp://HOST:8786``). Per point the
reads of every seed are pooled: p, TTS99 = t_read ln(0.01) / ln(1 - p) and its 95 % interval
(Clopper-Pearson, widened by the calls' time spread; p = 0 stays, TTS99 inf with a finite lower
end). The best sweeps per series is the per-quantile optimum of :mod:`formulations.analysis.optimal`
(a bound when at an end of the sweeps tried).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from formulations.harness.studies.anneal_tts import CAT15, EXPERIMENTS, STUDY, plan, report
from formulations.harness.study import read_study, run_study, study_arguments


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("experiment", choices=[*EXPERIMENTS, "all", "report"])
    ap.add_argument("which", nargs="?", default="all", help="report: one experiment or all")
    ap.add_argument("--reads", type=int, default=500, help="reads per record (at most)")
    ap.add_argument("--budget", type=float, default=3.0, help="sampling CPU s per record (at most)")
    ap.add_argument("--batch", type=int, default=10, help="reads per sampler call")
    ap.add_argument("--per-size", type=int, default=3, help="janko puzzles per size")
    ap.add_argument("--sweeps", dest="sweep_list", type=lambda s: [int(v) for v in s.split(",")],
                    help="comma-separated sweeps (overrides each experiment's list)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=1, help="seeds per point (reads pooled)")
    ap.add_argument("--puzzle", default="cat15", help="weights/sweeps: the puzzle's name")
    ap.add_argument("--puzzle-source", default=CAT15, help="its file (repo:REL, corpus:REL, path)")
    ap.add_argument("--presolve", action="store_true", help="sweeps: also sa after line solving")
    study_arguments(ap, STUDY)
    args = ap.parse_args(argv)
    names = list(EXPERIMENTS) if args.experiment in ("all", "report") else [args.experiment]
    if args.experiment == "report":
        names = names if args.which == "all" else [args.which]
        records = read_study(args, f"python bench/anneal_tts.py {names[0]}")
    else:
        records = run_study([t for n in names for t in plan(n, args)], args)
    for n in names:
        report(records, n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
