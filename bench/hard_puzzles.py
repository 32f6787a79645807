"""The survey's two undecided puzzles, Knotty (40x40) and Faase (95x80), against the directions
of attack of issue 16 (a benchmark, not a test):

    python bench/hard_puzzles.py [--puzzles knotty,faase] [--probe-limit 600]

For each puzzle (read by path from ``../shared/corpus/wolter-survey-xml/``):

* ``lines``: the cells line solving leaves open (the fixed point every backend's presolve uses);
* ``probing``: probing to a fixed point on top of it: every open cell tried in each colour and
  propagated; a colour that fails is removed, and what every surviving colour of a cell implies
  is kept; repeated until a whole round changes nothing (or ``--probe-limit`` seconds);
* ``regions``: the open cells split into independent regions (two open cells are in the same
  region when a chain of lines with open cells joins them); the puzzle is unique exactly when
  every region is, so each region could be solved and counted alone.

With ``--cpsat SECONDS`` it also runs CP-SAT (one worker, the backend's tuned parameters) in
the directions of ``--cpsat-directions``, each on the model of what is left, and reports the
status and the seconds to it (a grid is checked against the clues):

* ``lines``: the model after line solving (what ``--backend cpsat --presolve`` solves);
* ``probed``: the model after probing to a fixed point (``reduced_from_state``);
* ``rows``: after line solving, with a fixed search that branches on the cells in row order,
  background first (CP-SAT ``AddDecisionStrategy`` + ``search_branching=FIXED_SEARCH``);
* ``rows-restart``: the same decision strategy under ``PORTFOLIO_WITH_QUICK_RESTART_SEARCH``;
* ``sa-hint``: ``sa`` on the whole model without x for ``--hint-s`` seconds (the budget mode of
  the CLI), its best sample handed to CP-SAT on the same model as a solution hint.

With ``--sat SECONDS`` it hands the same model (after line solving, without x) to a CDCL SAT
solver through PySAT (``pip install python-sat``, not a dependency of the package): every
labelled linear constraint (all coefficients +-1 in the order encoding) becomes clauses by
PySAT's cardinality encodings (``--sat-encoding``, default ``seqcounter``), the solver is
``--sat-solver`` (default ``cadical195``; ``kissat404``, ``glucose4``, ...), run in a child
process that is killed at the limit (PySAT's interrupt does not reach CaDiCaL's search).

With ``--beyond-goal SECONDS`` it asks whether the puzzle file's published goal (the XML's
``<solution type="goal">``, checked against the clues first) is the only solution: CP-SAT on the
line-solved model with the goal excluded (one clause over the open cells), then each grid it
finds excluded too, until no other grid is found, ``--beyond-goal-count`` grids, or the
seconds are spent; every grid is checked against the clues and reported with its distance
(cells) from the goal. Two distinct checked grids are a certificate that the puzzle is not
unique, however they were found; this direction does not find a first grid (the exclusion
clause carries the goal's values). ``--hint-noise Q,...`` measures how close a solution hint
must be: CP-SAT (``--cpsat`` seconds) with the goal's open cells as hints, a fraction ``Q`` of
them flipped at random (seeded).

``--puzzles`` takes knotty, faase and webpbn survey numbers (``9892``: the survey's
``webpbn-09892.non``), so the hard five can be run the same way.

Prints one table row per puzzle and direction (open cells, seconds) and writes
``bench/results/hard_puzzles.csv``.

    python bench/hard_puzzles.py --puzzles knotty,faase,9892,10088,12548,18297,22336 \
        --cpsat 600 --cpsat-directions lines,probed,rows,rows-restart
    python bench/hard_puzzles.py --puzzles knotty,faase --beyond-goal 300 --probe-limit 0
    python bench/hard_puzzles.py --puzzles knotty --cpsat 60 --cpsat-directions "" \
        --hint-noise 0,0.02,0.05 --probe-limit 0
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from formulations.harness.studies.hard_puzzles import CPSAT_DIRECTIONS, Attack, puzzle_path
from formulations.harness.study import REPO
from formulations.io import read_puzzle_with_goal


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--puzzles", default="knotty,faase")
    ap.add_argument("--probe-limit", type=float, default=600.0, help="seconds of probing at most")
    ap.add_argument("--cpsat", type=float, default=0.0,
                    help="seconds of CP-SAT per direction (default 0: no CP-SAT runs)")
    ap.add_argument("--cpsat-directions", default="lines,probed",
                    help=f"comma separated, of {', '.join(CPSAT_DIRECTIONS)}")
    ap.add_argument("--hint-s", type=float, default=60.0,
                    help="seconds of sa before the sa-hint direction's CP-SAT run (default 60)")
    ap.add_argument("--sat", type=float, default=0.0,
                    help="seconds of a SAT solver on the line-solved model (needs python-sat)")
    ap.add_argument("--sat-solver", default="cadical195")
    ap.add_argument("--sat-encoding", default="seqcounter",
                    help="PySAT cardinality encoding (seqcounter, totalizer, kmtotalizer, ...)")
    ap.add_argument("--beyond-goal", type=float, default=0.0,
                    help="seconds of CP-SAT looking for grids other than the file's goal")
    ap.add_argument("--beyond-goal-count", type=int, default=100,
                    help="stop after this many other grids (default 100)")
    ap.add_argument("--hint-noise", default="",
                    help="fractions of the goal's cells flipped in a CP-SAT hint, comma separated "
                         "(each run --cpsat seconds)")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "hard_puzzles.csv"))
    args = ap.parse_args(argv)
    directions = [d for d in args.cpsat_directions.split(",") if d]
    bad = sorted(set(directions) - set(CPSAT_DIRECTIONS))
    if bad:
        print(f"unknown CP-SAT direction {bad[0]!r} (choose from {', '.join(CPSAT_DIRECTIONS)})",
              file=sys.stderr)
        return 2
    if args.sat > 0:
        try:
            import pysat  # noqa: F401
        except ImportError:
            print("--sat needs PySAT: pip install python-sat", file=sys.stderr)
            return 2
    attack = Attack(probe_limit=args.probe_limit, directions=tuple(directions),
                    cpsat=args.cpsat, hint_s=args.hint_s, beyond_goal=args.beyond_goal,
                    beyond_goal_count=args.beyond_goal_count,
                    hint_noise=tuple(float(x) for x in args.hint_noise.split(",") if x),
                    sat=args.sat, sat_solver=args.sat_solver, sat_encoding=args.sat_encoding)
    rows = []
    for name in args.puzzles.split(","):
        path = puzzle_path(name)
        if not path.is_file():
            print(f"{path}: not found (the corpus is read by path, never copied)", file=sys.stderr)
            continue
        puzzle, goal = read_puzzle_with_goal(path)
        rows += attack.run(name, puzzle, goal)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as f:
        wr = csv.DictWriter(f, ["puzzle", "direction", "cells", "open", "seconds", "note"])
        wr.writeheader()
        wr.writerows(rows)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
