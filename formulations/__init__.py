"""Nonogram formulations: one order-encoded constraint model of a nonogram, handed unchanged to
very different solvers, every answer checked against the clues.

The names a notebook needs, by the pipeline's stages::

    import formulations as nf
    puzzle = nf.read_puzzle("puzzles/cat15.txt")       # io: many formats
    nm = nf.build_model(puzzle, use_x=False)            # model: the order encoding (seed 001)
    bqm = nf.to_bqm(nm)                                 # its slack-free penalty as a dimod BQM
    result = nf.solve_puzzle(puzzle, "cpsat")           # any backend, verified
    nf.check_grid(puzzle, result.grid)                  # [] : the independent checker
    rows = nf.compare(["puzzles/"], "cpsat,sa,lines")   # the comparison harness
    nf.load_results(rows)                               # a DataFrame (pandas) or the table

A dimod sampler object works wherever a backend name does (``nf.solve_puzzle(puzzle,
SimulatedAnnealingSampler(), num_reads=200)``); ``nf.to_cqm(nm)`` gives the model as a dimod
CQM; ``nf.animate(puzzle, "cat.gif")`` replays the line solving; ``nf.explain(puzzle)`` gives every
deduction with its reason and the puzzle's difficulty; ``nf.fetch_puzzle(
"nonograms.org:4353")`` downloads a puzzle. Solver packages are imported only when a backend runs.
"""
from formulations.io.fetch import FetchError, fetch_puzzle
from .harness import Table, as_frame, compare, format_table, load_results, read_results, summarize
from .io import (detect_format, iter_janko, parse_puzzle, read_goal, read_puzzle,
                 read_puzzle_with_goal, read_puzzles, write_non, write_text)
from .lines import fixed_point, solve_lines
from .lines.explain import Difficulty, Explanation, explain
from .lines.replay import Replay, replay
from .model import (DEFAULT_WEIGHTS, Model, NonogramModel, Sense, build_model, export_bqm,
                    export_cqm, lower, to_bqm, to_cqm)
from .model.presolve import presolve
from .puzzle import (Block, Grid, Puzzle, PuzzleError, check_grid, grid_to_strings, is_solution,
                     puzzle_from_grid)
from .results import (BackendError, ModelRefused, PresolveStats, RawAnswer, SamplingStats,
                      SolveResult, Status, tts99)
from .show import render_text
from .show.animate import animate
from .solving import solve_puzzle, verify

__all__ = [
    # puzzles in and out
    "Block", "Grid", "Puzzle", "PuzzleError", "puzzle_from_grid", "read_puzzle",
    "read_puzzle_with_goal", "read_puzzles", "read_goal", "parse_puzzle", "detect_format",
    "iter_janko", "write_text", "write_non", "render_text", "grid_to_strings", "fetch_puzzle",
    "FetchError",
    # the model
    "Model", "Sense", "NonogramModel", "build_model", "lower", "to_bqm", "export_bqm", "to_cqm",
    "export_cqm", "DEFAULT_WEIGHTS", "presolve",
    # solving and verifying
    "solve_puzzle", "verify", "check_grid", "is_solution", "fixed_point", "solve_lines",
    "Status", "SolveResult", "RawAnswer", "SamplingStats", "PresolveStats", "BackendError",
    "ModelRefused", "tts99", "installed_backends", "replay", "Replay", "animate",
    # explaining: every deduction with its reason, and the difficulty report
    "explain", "Explanation", "Difficulty",
    # comparing
    "compare", "summarize", "format_table", "read_results", "Table", "load_results", "as_frame",
]


def installed_backends() -> list[str]:
    """The registered backend names that are installed here."""
    from formulations.backends import available_backends

    return available_backends()
