"""Each line's clue as a finite automaton over its cells: a redundant constraint (the line
pattern) that a model carries beside its linear constraints, for the backends that can post a
regular constraint natively (CP-SAT's ``AddAutomaton``); the others ignore it.

Built once, here, from the model's own line encodings: a cell of a line is the line's own
expression for it (seed 001's ``R(j)``, :meth:`~formulations.model.order.LineEncoding.colour_terms`),
so a backend translates the pattern mechanically and re-derives nothing. Every solution of the
linear constraints satisfies every pattern (a line that shows its clue is a word of its
automaton), so the patterns change what a solver propagates, never the solutions.

Black-and-white puzzles in the order encoding (the automaton reads 0 = background, 1 = black).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Expr = tuple[dict[int, int], int]  # ({var: coef}, constant)


@dataclass(frozen=True)
class LinePattern:
    """One line's automaton: ``cells[j]`` is cell j's 0/1 expression over model variables; the
    cell sequence must take ``transitions`` (state, value, next state) from ``start`` to one
    of ``finals``."""
    label: tuple
    cells: tuple[Expr, ...]
    start: int
    finals: tuple[int, ...]
    transitions: tuple[tuple[int, int, int], ...]


def clue_automaton(lengths: Sequence[int]) -> tuple[int, tuple[int, ...], tuple[tuple[int, int, int], ...]]:
    """The deterministic automaton of a black-and-white clue: state 0 reads the leading
    background; then, per block, one state per black cell placed and one for the background
    after it (at least one cell between blocks). Returns (start, finals, transitions)."""
    if not lengths:
        return 0, (0,), ((0, 0, 0),)
    trans = [(0, 0, 0)]
    state = 0        # the state that reads the next block's first black cell
    nxt = 1
    finals: tuple[int, ...] = ()
    for k, length in enumerate(lengths):
        prev = state
        for _ in range(length):  # black cells of block k
            trans.append((prev, 1, nxt))
            prev, nxt = nxt, nxt + 1
        gap = nxt        # background after block k (loops on background)
        nxt += 1
        trans += [(prev, 0, gap), (gap, 0, gap)]
        if k == len(lengths) - 1:
            finals = (prev, gap)
        state = gap
    return 0, finals, tuple(trans)


def line_patterns(nm: Any) -> list[LinePattern]:
    """The patterns of every row and column of ``nm``; empty when the model cannot carry them
    (a colour puzzle, another encoding, a presolved model whose lines are not its own)."""
    from .order import LineEncoding, NonogramModel

    if type(nm) is not NonogramModel or getattr(nm, "encoding", "order") != "order" \
            or not nm.puzzle.is_black_and_white:
        return []
    out = []
    for line in nm.rows + nm.cols:
        if not isinstance(line, LineEncoding):
            return []
        start, finals, trans = clue_automaton([b.length for b in line.clue])
        cells = tuple(line.colour_terms(1, j) for j in range(line.length))
        out.append(LinePattern(("pattern", line.kind, line.index), cells, start, finals, trans))
    return out
