"""Where the CPU of a ``lines`` run goes on tournament puzzles: the depth-first search (probing
included), the residual CNF, the probe clauses and the CDCL solver (``sat``), per puzzle and in all.

    python bench/tournament_phases.py taai2011:every10/400 tcga2016:601 [cdcl_after=500]

``SET:N`` is one puzzle, ``SET:everyK/FROM`` every K-th puzzle from index FROM; ``KEY=VALUE``
arguments go to ``solve_lines`` (first solution). CPU by ``time.process_time``; every grid is
checked against the clues. A measurement aid (the figures in docs/line_core.md), not a test.
"""
from __future__ import annotations

import argparse
import ast
import time
from pathlib import Path

from formulations.io.tournament import iter_tournament
from formulations.lines import cdcl, search
from formulations.puzzle import check_grid

SETS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "taai-tcga-icga-tournament"

PHASES: dict[str, float] = {}


def timed(owner, name: str, label: str) -> None:
    """Charge the CPU of ``owner.name`` to ``PHASES[label]``."""
    f = getattr(owner, name)

    def g(*a, **k):
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            PHASES[label] = PHASES.get(label, 0.0) + time.process_time() - t
    setattr(owner, name, g)


def chosen(spec: str, corpus: Path):
    name, which = spec.split(":")
    puzzles = list(iter_tournament(corpus / "question" / f"{name}.txt"))
    if which.startswith("every"):
        k, start = (int(x) for x in which[5:].split("/"))
        return [(name, key, p) for i, (key, p) in enumerate(puzzles) if i >= start and i % k == 0]
    return [(name, key, p) for key, p in puzzles if key == which]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="+", help="SET:N, SET:everyK/FROM or KEY=VALUE for solve_lines")
    ap.add_argument("--corpus", type=Path, default=SETS, help="the tournament sets' folder")
    args = ap.parse_args()
    argv = args.what
    timed(search._Search, "run", "search")
    timed(cdcl, "residual_cnf", "cnf")
    timed(cdcl, "probe_clauses", "probe_clauses")
    timed(cdcl._Portfolio, "solve", "sat")
    kw = {}
    for a in argv:
        if "=" in a:
            key, value = a.split("=", 1)
            kw[key] = ast.literal_eval(value)
    total: dict[str, float] = {}
    for name, key, p in [t for a in argv if "=" not in a for t in chosen(a, args.corpus)]:
        PHASES.clear()
        t = time.process_time()
        r = search.solve_lines(p, **kw)
        PHASES["total"] = time.process_time() - t
        assert all(not check_grid(p, g) for g in r.solutions), (name, key)
        print(f"{name}:{key} {r.status.name} nodes={r.nodes} cdcl={r.cdcl} "
              + " ".join(f"{k}={v:.3f}" for k, v in PHASES.items()), flush=True)
        for k, v in PHASES.items():
            total[k] = total.get(k, 0.0) + v
    print("all " + " ".join(f"{k}={v:.2f}" for k, v in total.items()))


if __name__ == "__main__":
    main()
