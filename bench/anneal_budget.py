"""The annealers' defaults with nothing but a time budget (a benchmark, not a test):

    python bench/anneal_budget.py [--backends sa,tabu,sa+x] [--per-size 30] [--time-limit 60]
                                  [--sizes 20x20,25x25,30x30,40x30] [--workers 1 | --scheduler ...]
    python bench/anneal_budget.py --report        # the tables again, from the records

Each run is what the command line a user types does, ``python -m formulations.solve FILE::KEY
--backend B --time-limit T --until-solved``: the same call (``solve`` with those options:
a sampler samples batch after batch until a verified grid or the limit, on every core), measured
in a worker by :func:`formulations.harness.study.measure` (a task with ``time_limit``: one trial,
process CPU of every thread and wall time of the call; the interpreter's start-up is not in it),
on a seeded sample of janko puzzles per size (read by path from the corpus). ``sa+x``: sa on
the model with x; ``tabu+tenure=40``: tabu with ``--param tenure=40``. Records in
``bench/results/anneal_budget/records.jsonl.gz`` (the study: :mod:`formulations.harness.studies.anneal_budget`); a second run resumes. One worker by default:
the runs use every core themselves.

Per size and backend: the solved fraction with its 95 % Clopper-Pearson interval, the median CPU
and wall time to the verified grid; and cat15's p and TTS99 at the backends' default length with
fixed reads (no budget; tabu at the release's first length, 12,800 updates per variable).
The goal the project set: sa >= 90 % and tabu >= 80 % per size at 60 s.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from formulations.harness.studies.anneal_budget import JANKO_REL, STUDY, VARIANTS, plan, report
from formulations.harness.study import corpus_root, read_study, run_study, study_arguments


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backends", default="sa,tabu")
    ap.add_argument("--sizes", default="20x20,25x25,30x30,40x30")
    ap.add_argument("--per-size", type=int, default=30)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--report", action="store_true", help="only the tables, from the records")
    study_arguments(ap, STUDY)
    args = ap.parse_args(argv)
    if args.report:
        report(read_study(args, "python bench/anneal_budget.py"))
        return 0
    if not (corpus_root() / JANKO_REL).is_file():
        print(f"the janko corpus is not at {corpus_root() / JANKO_REL}", file=sys.stderr)
        return 2
    unknown = sorted({e for b in args.backends.split(",") for e in b.split("+")[1:]
                      if "=" not in e} - set(VARIANTS))
    if unknown:
        print(f"unknown variant {unknown[0]!r} (variants: {', '.join(VARIANTS)})",
              file=sys.stderr)
        return 2
    report(run_study(plan(args), args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
