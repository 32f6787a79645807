"""TTS99 of the samplers added in issue 31 (``pimc``, ``rotor``, ``pt``, ``pa``) against ``sa``,
on cat15 and janko puzzles (a benchmark, not a test).

    python bench/new_samplers.py tune    --backends pimc --grid gamma=0,0.5,1,2 sweeps=100,400,1600
    python bench/new_samplers.py compare --backends sa,pimc,rotor,pt,pa --sizes 20x20:3,25x25:2
    python bench/new_samplers.py report  tune|compare [the same options]   # from the records

The study is :mod:`formulations.harness.studies.new_samplers`, a thin plan over
:mod:`formulations.harness.study`: one record per (puzzle, backend, setting,
seed), measured by ``study.measure`` (the backend's own sampler and keyword translation, one
thread, reads in calls of ``--batch``, process CPU time of the sampler calls alone, every read
re-scored by the package), in ``bench/results/new_samplers/records.jsonl.gz``; a killed run
resumes. A setting is ``sweeps=400+gamma=1+beta_range=1:30`` (the length, a beta range, any
sampler parameter); without ``sweeps`` the backend's default length (its automatic sweeps for
sa, pimc and rotor). Reads per record: up to ``--max-reads`` within ``--budget`` CPU seconds
(at least two calls). Per point the reads of every seed are pooled: p, TTS99 and its 95 %
interval (Clopper-Pearson, widened by the calls' time spread; p = 0 kept as TTS99 inf).

``compare`` runs the backends on each puzzle at their defaults and gives each one's TTS99 and
its ratio to sa's on the same puzzle, with the ratio's interval from the two intervals' ends;
the geometric mean of the ratios over the puzzles both solve, and how many each solves.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from formulations.harness.studies.new_samplers import STUDY, plan, report
from formulations.harness.study import read_study, run_study, study_arguments


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("tune", "compare", "report"))
    ap.add_argument("which", nargs="?", choices=("tune", "compare"), default="compare",
                    help="report: which mode's records")
    ap.add_argument("--backends", default="sa,pimc,rotor,pt,pa")
    ap.add_argument("--sizes", default="cat15,20x20:3", help="cat15 and SIZE:N items")
    ap.add_argument("--skip", type=int, default=0, help="skip the first N janko puzzles per size")
    ap.add_argument("--grid", nargs="*", help="tune: KEY=V1,V2 axes (sweeps, beta_range or "
                    "sampler parameters)")
    ap.add_argument("--settings", nargs="*", help="tune: explicit settings, e.g. "
                    "sweeps=400+gamma=1 beta_range=1:30 (beta_range's ends joined by ':')")
    ap.add_argument("--budget", type=float, default=3.0, help="sampling CPU s per record (at most)")
    ap.add_argument("--max-reads", type=int, default=400)
    ap.add_argument("--min-reads", type=int, default=20,
                    help="at least this many reads per point, even beyond the budget")
    ap.add_argument("--probe", type=int, default=4,
                    help="ignored: the first call's time sets the reads that fit the budget")
    ap.add_argument("--batch", type=int, default=10, help="reads per sampler call")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=1, help="seeds per point (reads pooled)")
    study_arguments(ap, STUDY)
    args = ap.parse_args(argv)
    mode = args.which if args.mode == "report" else args.mode
    if args.mode == "report":
        records = read_study(args, f"python bench/new_samplers.py {mode}")
    else:
        records = run_study(plan(mode, args), args)
    report(records, mode, plan(mode, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
