"""TTS99 at the optimal anneal length against puzzle size, with 95 % intervals, for the
annealer-style samplers, next to the exact backends on the same puzzles (a benchmark, not a test).

The published figures are the release's (``bench/release.py``, docs/benchmark.md: about 100
janko puzzles a size). This study adds random unique puzzles of sizes the corpus lacks, at a
few puzzles a size, with the same records and statistics.

    python bench/anneal_scaling.py run [--sizes 10,15,20,25,30,40] [--janko 15x15,20x20,...]
                                      [--per-size 3] [--samplers sa,tabu,openjij-sa,...,qbpp]
                                      [--budget 5] [--workers 2 | --scheduler tcp://HOST:8786]
    python bench/anneal_scaling.py report       # summary.json, the table and scaling.png again

Puzzles: random unique NxN pictures (density 0.55, seeded, kept when CP-SAT proves them unique;
written once to ``OUT/puzzles/``) and a seeded sample of janko puzzles per size (read by path
from the corpus). The study is :mod:`formulations.harness.studies.anneal_scaling`, a thin plan
over :mod:`formulations.harness.study`: per puzzle and sampler the
ladder of anneal lengths (sweeps; tabu: updates per variable) is measured from the shortest up
and stops at the first length with p >= 0.99 (longer anneals only cost more); one record per
(puzzle, sampler, length, seed) in ``OUT/records.jsonl.gz``, resumable. Exact baselines
(``cpsat``, ``lines``): CPU time to the first grid and to the uniqueness proof. ``qbpp``: five
time-budget runs of 5 s with the model with x, where it fits QUBO++'s 100 unlicensed variables.

The statistics are the release's (``formulations.harness.release.summarize``, one summary per group: random
puzzles, janko puzzles): per size and quantile of the instances the optimal length (interior or
a bound), TTS99 there with its two-level bootstrap interval, unsolved puzzles as inf; exponent
fits over sizes with an interior optimum.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from formulations.harness.studies.anneal_scaling import LADDERS, STUDY, Planner, puzzles, report
from formulations.harness.study import read_study, run_study, study_arguments


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["run", "report"])
    ap.add_argument("--sizes", default="10,15,20,25,30,40", help="random unique NxN sizes")
    ap.add_argument("--janko", default="15x15,20x20,25x25,30x30,40x30")
    ap.add_argument("--per-size", type=int, default=3)
    ap.add_argument("--samplers", default="sa,tabu,openjij-sa,openjij-sqa,qbpp")
    ap.add_argument("--budget", type=float, default=5.0, help="sampling CPU s per record (at most)")
    ap.add_argument("--reads", type=int, default=1000, help="reads per record (at most)")
    ap.add_argument("--batch", type=int, default=10, help="reads per sampler call")
    ap.add_argument("--seed", type=int, default=2026)
    study_arguments(ap, STUDY)
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.command == "run":
        samplers = [s for s in args.samplers.split(",") if s]
        unknown = [s for s in samplers if s not in LADDERS and s != "qbpp"]
        if unknown:
            ap.error(f"no ladder for {unknown[0]!r} (samplers: {', '.join([*LADDERS, 'qbpp'])})")
        planner = Planner(puzzles(args), samplers, args)
        records = run_study(planner, args, cost=planner.cost)
    else:
        records = read_study(args, "python bench/anneal_scaling.py run")
    report(records, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
