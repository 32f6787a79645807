"""The encodings a puzzle can be built with, by name. Each builds the same kind of
backend-neutral model (binary variables, labelled linear constraints: equalities and
inequalities over at most two variables, so the slack-free penalty takes every one) and returns a
:class:`~formulations.model.order.NonogramModel` that decodes, encodes and presolves the same
way, so every backend runs on every encoding unchanged.

* ``order`` (the default everywhere): ``a[k,p] = 1`` iff block k starts at or before ``e_k + p``
  (seed 001; a domain-wall encoding of each block's start), :mod:`formulations.model.order`;
* ``onehot``: ``s[k,t] = 1`` iff block k starts exactly at ``e_k + t``,
  :mod:`formulations.model.onehot`;
* ``automaton``: per cell the one-hot state of the line's automaton (the encoding of Fixstars
  Amplify's picross example), :mod:`formulations.model.automaton`.
"""
from __future__ import annotations

from collections.abc import Callable

from formulations.runtime.clock import Deadline
from ..puzzle import Puzzle, min_length
from .order import NonogramModel
from .size import DEFAULT_MAX_MODEL_MB, ModelSize, check_fits, estimate_size

DEFAULT_ENCODING = "order"


def _builders() -> dict[str, Callable[..., NonogramModel]]:
    from . import automaton, onehot, order
    return {"order": order.build_model, "onehot": onehot.build_model,
            "automaton": automaton.build_model}


ENCODINGS: tuple[str, ...] = ("order", "onehot", "automaton")


def check_encoding(name: object) -> str:
    """``name`` when it is an encoding's name, else ValueError naming the valid ones."""
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r} (choose from {', '.join(ENCODINGS)})")
    return str(name)


def build_model(puzzle: Puzzle, *, use_x: bool = True,
                encoding: str | None = DEFAULT_ENCODING,
                deadline: Deadline | float | None = None,
                max_model_mb: float | None = DEFAULT_MAX_MODEL_MB) -> NonogramModel:
    """The model of ``puzzle`` in the named encoding (None: the default, ``order``);
    ``use_x=False`` links rows to columns directly (``R = C``).

    ``deadline`` and ``max_model_mb`` bound the build as in the order builder
    (:func:`formulations.model.order.build_model`). One-hot is refused on the order estimate
    plus its clash pairs ((blocks - 1) d (d + 1) / 2 a line), the automaton on its own upper
    bound (:func:`automaton_size`); their builders read the deadline line by line."""
    name = check_encoding(DEFAULT_ENCODING if encoding is None else encoding)
    if name == "order":
        from .order import build_model as build_order
        return build_order(puzzle, use_x=use_x, deadline=deadline, max_model_mb=max_model_mb)
    clock = Deadline.of(deadline)
    puzzle.validate()
    size = estimate_size(puzzle, use_x)
    if name == "onehot":  # plus its clash pairs: d (d + 1) / 2 per pair of neighbouring blocks
        pairs = sum(max(len(c) - 1, 0) * d * (d + 1) // 2
                    for clues, n in ((puzzle.rows, puzzle.width), (puzzle.columns, puzzle.height))
                    for c in clues for d in [n - min_length(c) if c else 0])
        size = ModelSize(size.variables, size.constraints + pairs, size.terms + 2 * pairs)
    elif name == "automaton":
        size = automaton_size(puzzle, use_x)
    check_fits(size, max_model_mb)
    clock.check("building the model")
    nm = _builders()[name](puzzle, use_x=use_x, deadline=clock)
    clock.check(f"building the {name} model")
    return nm


def automaton_size(puzzle: Puzzle, use_x: bool = True) -> ModelSize:
    """An upper bound on the automaton encoding's size from the clues: a cell of a line with
    free space ``d`` is in one of at most ``q = min(d + 1, states of the clue's automaton)``
    states (a variable each, one exactly-one constraint), and each two neighbouring cells
    exclude at most ``q^2`` state pairs (two-term constraints); the cell links as in the order estimate. On cat15, a colour 8x8, an
    80x80 of "1 1" and random 20x20 to 40x40 puzzles it is 1.0-1.5x the built variables and
    1.4-2.0x the built constraints (the order estimate, used before, was 4-20x too small)."""
    variables = constraints = terms = 0
    for clues, n in ((puzzle.rows, puzzle.width), (puzzle.columns, puzzle.height)):
        for clue in clues:
            d = n - min_length(clue) if clue else 0
            q = min(d + 1, sum(b.length + 1 for b in clue) + 1)  # states a cell can be in
            variables += n * q
            constraints += n + max(n - 1, 0) * q * q
            terms += n * q + 2 * max(n - 1, 0) * q * q
    # the links, one equality per cell and colour (two with x, which adds a variable each):
    # every state variable is a term of at most one of them, each x of two
    cells = puzzle.height * puzzle.width * max(1, len(puzzle.colours))
    terms += variables + (2 * cells if use_x else 0)
    constraints += 2 * cells if use_x else cells
    variables += cells if use_x else 0
    return ModelSize(variables, constraints, terms)
