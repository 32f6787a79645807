"""Seeded random nonograms with exactly one solution, for benchmark sizes the corpus lacks.

Method: a random black-and-white grid (each cell black with probability ``density``, from
``random.Random(seed)``) gives the clues; then, while the line solver
(:func:`formulations.lines.search.solve_lines` with ``max_solutions=2``) finds two solutions,
one cell where they differ (a seeded choice among them, in row-major order) is flipped in the
grid and the clues are recomputed. It ends when the search is exhausted with one solution: the
puzzle is unique, and the grid it was made from is that solution. Each puzzle is then checked
again by CP-SAT (``solve_puzzle(p, "cpsat", unique=True)``) when OR-Tools is installed.

Reproducible: every step depends on the seed only. A line search that hits its time limit
stops the generation with an error instead of skipping the grid, so a run either writes the
same puzzles or none.

At density 0.6 random grids give order-encoding QUBOs on the trend of janko's puzzles (about
3.3 QUBO variables per cell at 30x30 to 40x40) and are decided by line solving at once; at 0.5
the QUBOs are 1.6x larger and the line search can take minutes.

    python -m formulations.generate 35x35 40x40 --count 20 --out bench/generated/unique.json
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .puzzle import Grid, Puzzle, PuzzleError, puzzle_from_grid

DENSITY = 0.6
SEARCH_LIMIT_S = 120.0   # one line search; exceeding it stops the generation (see the docstring)
MAX_FLIPS = 500


class GenerationError(RuntimeError):
    """The generation cannot finish as the seed says (a search timed out, too many flips)."""


@dataclass(frozen=True)
class Generated:
    """A unique puzzle, its solution, and how it was made (``flips`` cells changed from the
    random grid)."""
    key: str
    puzzle: Puzzle
    grid: Grid
    seed: str
    density: float
    flips: int


def random_grid(height: int, width: int, density: float, rng: random.Random) -> list[list[int]]:
    return [[1 if rng.random() < density else 0 for _ in range(width)] for _ in range(height)]


def make_unique(grid: list[list[int]], rng: random.Random, *,
                time_limit: float = SEARCH_LIMIT_S, max_flips: int = MAX_FLIPS) -> tuple[Grid, int]:
    """Flip cells of ``grid`` (in place) where two solutions differ until its clues have one
    solution; returns the final grid and the number of flips."""
    from .lines.search import solve_lines

    h, w = len(grid), len(grid[0])
    for flips in range(max_flips + 1):
        g = tuple(tuple(row) for row in grid)
        r = solve_lines(puzzle_from_grid(g), max_solutions=2, time_limit=time_limit)
        if r.timed_out:
            raise GenerationError(f"line search over {time_limit:g} s after {flips} flips")
        if r.exhausted and len(r.solutions) == 1:
            return g, flips
        if len(r.solutions) < 2:  # cannot happen: the grid itself is a solution
            raise GenerationError(f"the line search found {len(r.solutions)} solutions of a "
                                  "grid's own clues")
        a, b = r.solutions[:2]
        diff = [(i, j) for i in range(h) for j in range(w) if a[i][j] != b[i][j]]
        i, j = rng.choice(diff)
        grid[i][j] ^= 1
    raise GenerationError(f"not unique after {max_flips} flips")


def unique_puzzle(height: int, width: int, index: int, *, density: float = DENSITY,
                  base_seed: str = "nonogram-unique") -> Generated:
    """The ``index``-th generated unique puzzle of this size (key ``gNN_HxW``)."""
    size = f"{height}x{width}"
    seed = f"{base_seed}-{size}-{density:g}-{index}"
    rng = random.Random(seed)
    grid, flips = make_unique(random_grid(height, width, density, rng), rng)
    key = f"g{index:02d}_{size}"
    return Generated(key, puzzle_from_grid(grid, key), grid, seed, density, flips)


def check_unique_cpsat(puzzle: Puzzle, time_limit: float = 600.0) -> bool | None:
    """CP-SAT's verdict (None when OR-Tools is not installed)."""
    from formulations.backends import get_backend

    if not get_backend("cpsat").available():
        return None
    from .solving import solve_puzzle

    r = solve_puzzle(puzzle, "cpsat", unique=True, time_limit=time_limit)
    return bool(r.solved and r.unique)


# -- the janko JSON format (what the release's loader reads) ----------------------------------

def _clue_line(blocks) -> str:
    return " ".join(str(b.length) for b in blocks) or "0"


def janko_entry_of(g: Generated) -> dict:
    """One entry of a puzzlekit janko JSON file (``problem``, ``solution``) with how it was made."""
    p = g.puzzle
    problem = "\n".join([f"{p.height} {p.width}"] + [_clue_line(c) for c in p.columns]
                        + [_clue_line(r) for r in p.rows])
    solution = "\n".join([f"{p.height} {p.width}"]
                         + [" ".join("x" if v else "-" for v in row) for row in g.grid])
    return {"problem": problem, "solution": solution, "seed": g.seed, "density": g.density,
            "flips": g.flips, "black": sum(map(sum, g.grid))}


def write_janko(puzzles: Sequence[Generated], path: str | Path) -> Path:
    path = Path(path)
    data = {"name": "generated unique nonograms (formulations.generate)",
            "method": "random grid at the density, cells where two line-solver solutions differ "
                      "flipped until unique; checked by lines and cpsat",
            "count": len(puzzles), "data": {g.key: janko_entry_of(g) for g in puzzles}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m formulations.generate",
                                 description="Seeded random nonograms with one solution.")
    ap.add_argument("sizes", nargs="+", help="HxW, e.g. 35x35 40x40")
    ap.add_argument("--count", type=int, default=20, help="puzzles per size (default 20)")
    ap.add_argument("--density", type=float, default=DENSITY, help=f"default {DENSITY}")
    ap.add_argument("--out", required=True, help="janko JSON file to write")
    args = ap.parse_args(argv)
    out = []
    for size in args.sizes:
        try:
            h, w = (int(x) for x in size.lower().split("x"))
        except ValueError:
            print(f"error: size {size!r}: want HxW", file=sys.stderr)
            return 2
        for i in range(1, args.count + 1):
            g = unique_puzzle(h, w, i, density=args.density)
            verdict = check_unique_cpsat(g.puzzle)
            if verdict is False:
                raise PuzzleError(f"{g.key}: cpsat finds a second solution; lines found one")
            print(f"{g.key}: {g.flips} flips, {sum(map(sum, g.grid)) / (h * w):.3f} black, "
                  f"cpsat {'unique' if verdict else 'not run'}", file=sys.stderr)
            out.append(g)
    print(f"wrote {write_janko(out, args.out)} ({len(out)} puzzles)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
