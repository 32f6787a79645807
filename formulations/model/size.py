"""The size of a puzzle's order-encoded model, known from its clues before any of it is built.

Per line of ``n`` cells with ``k`` blocks and free space ``d`` (``n`` minus the packed length):
``k * d`` variables ``a[k,p]``, ``k * (d - 1)`` monotone and ``(k - 1) * d`` order constraints of
two terms each; over a line the cell sums ``B_c(j)`` hold ``2 k d`` terms. The links add one
equality per cell and colour (two with the cell variables x, which add one variable each). For
colour puzzles the link count is an upper bound (a colour no line can place in a cell gets none).

The build, the lowering to a QUBO and the solvers' translations all take time and memory in
proportion to these counts, so a run can be refused up front, with the figures, when they cannot
fit its time limit or memory cap (:func:`check_fits`).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..puzzle import Puzzle, min_length

# Measured on this project's builder (python 3.11, 64-bit): resident bytes per variable,
# constraint and term of a built model (labels, index, NamedTuple constraints, term tuples),
# fitted on random 50x50 to 200x200 puzzles, rounded up.
BYTES_PER_VARIABLE = 260
BYTES_PER_CONSTRAINT = 320
BYTES_PER_TERM = 16
# Build time per constraint on this machine class (4.5 s for 1.7 M constraints at 200x200),
# rounded up; used only to refuse a build that cannot fit the time left.
BUILD_SECONDS_PER_CONSTRAINT = 3.5e-6

DEFAULT_MAX_MODEL_MB = 8192.0
"""The default memory cap for a model (``--max-model-mb``): a bigger one is refused up front."""


@dataclass(frozen=True)
class ModelSize:
    variables: int
    constraints: int
    terms: int

    @property
    def megabytes(self) -> float:
        """The built model's estimated resident size."""
        return (self.variables * BYTES_PER_VARIABLE + self.constraints * BYTES_PER_CONSTRAINT
                + self.terms * BYTES_PER_TERM) / 2**20

    @property
    def build_seconds(self) -> float:
        return self.constraints * BUILD_SECONDS_PER_CONSTRAINT

    def describe(self) -> str:
        return (f"about {self.variables:.3g} variables and {self.constraints:.3g} constraints "
                f"(~{self.megabytes:,.0f} MB)")


def estimate_size(puzzle: Puzzle, use_x: bool = True) -> ModelSize:
    """The model's size from the clues alone (exact for black and white)."""
    variables = constraints = terms = 0
    line_terms = 0
    for clues, n in ((puzzle.rows, puzzle.width), (puzzle.columns, puzzle.height)):
        for clue in clues:
            k = len(clue)
            d = n - min_length(clue) if clue else 0
            a = k * d
            mono = k * max(d - 1, 0)
            order = max(k - 1, 0) * d
            variables += a
            constraints += mono + order
            terms += 2 * (mono + order)
            line_terms += 2 * a
    colours = max(1, len(puzzle.colours))
    cells = puzzle.height * puzzle.width * colours
    if use_x:
        variables += cells
        constraints += 2 * cells
        terms += line_terms + 2 * cells
    else:
        constraints += cells
        terms += line_terms
    return ModelSize(variables, constraints, terms)


class ModelTooLarge(ValueError):
    """The model would not fit the memory cap."""


def check_fits(size: ModelSize, max_model_mb: float | None = DEFAULT_MAX_MODEL_MB) -> None:
    """Raise ModelTooLarge when the model would need more than ``max_model_mb``."""
    if max_model_mb is not None and size.megabytes > max_model_mb:
        raise ModelTooLarge(f"the model would have {size.describe()}, over the memory cap of "
                            f"{max_model_mb:,.0f} MB")
