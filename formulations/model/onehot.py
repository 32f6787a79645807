"""The one-hot encoding of each block's start: the encoding that the annealing literature
compares domain-wall (order) encodings against.

Per line and block k, with ``e_k`` and ``d`` as in the order encoding (seed 001): binary
``s[k,t] = 1`` iff block k starts exactly at ``e_k + t`` (``0 <= t <= d``), and

* exactly one start per block: ``sum_t s[k,t] = 1`` (family ``exactly_one``);
* block k+1 may not start before block k ends plus its gap: since ``e_{k+1} = e_k + L_k + gap``
  that is "the shift of block k+1 is at least the shift of block k", so every pair of starts
  that clash, ``t' < t``, gets ``s[k,t] + s[k+1,t'] <= 1`` (family ``clash``);
* the cell links as in the order encoding, with the colour a line gives cell j being the sum of
  the starts that cover it: ``R_c(j) = sum over blocks k of colour c and starts t with
  e_k + t <= j < e_k + t + L_k of s[k,t]``; then ``R = x = C`` (or ``R = C`` without x).

A line without free space (``d = 0``) has no variables: its starts are constants, as in the
order encoding, so both encodings have the same x variables and the same fixed lines. The model
is linear with equalities and two-variable inequalities only, so the one slack-free penalty
lowering (:mod:`formulations.model.penalty`) takes it unchanged: a pair ``s + s' <= 1`` lowers to
``s * s'`` and the exactly-one to ``(sum - 1)^2``. Every feasible assignment is one placement per
line, so the energy-0 states are the solutions, one per grid, as in the order encoding.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..puzzle import BACKGROUND, Clue, Puzzle
from .linear import Model, Sense
from .links import block_starts, packed_starts, reachable_cells
from .order import NonogramModel, build_from_lines

ENCODING = "onehot"
FAMILIES = ("exactly_one", "clash", "link")


@dataclass(frozen=True)
class OneHotLine:
    """The one-hot encoding of one row or column (the same fields as the order encoding's
    :class:`~formulations.model.order.LineEncoding`; ``var[k][t]`` is ``s[k,t]``, ``d + 1``
    variables per block, none when ``d = 0``)."""
    kind: str
    index: int
    length: int
    clue: Clue
    starts: tuple[int, ...]       # e_k
    free: int                     # d
    var: tuple[tuple[int, ...], ...]

    def shift(self, k: int, values: np.ndarray) -> int:
        """Block k's start minus ``e_k`` in an assignment: the first start set (0 when none is,
        which only an infeasible assignment has)."""
        for t, v in enumerate(self.var[k]):
            if values[v]:
                return t
        return 0

    def cells(self, values: np.ndarray) -> list[int]:
        """The line's cell colours read from the s-variables of an assignment."""
        out = [BACKGROUND] * self.length
        for k, b in enumerate(self.clue):
            s = self.starts[k] + self.shift(k, values)
            for j in range(s, min(s + b.length, self.length)):
                out[j] = b.colour
        return out

    def encode(self, cells: Sequence[int]) -> dict[int, int]:
        """s-variable values for a line that shows exactly its clue."""
        starts = block_starts(cells, self.clue, self.kind, self.index)
        return {v: int(starts[k] == self.starts[k] + t)
                for k in range(len(self.clue)) for t, v in enumerate(self.var[k])}

    def decided(self, starts: Sequence[Sequence[int]]) -> dict[int, int]:
        """The s-variables fixed when block k can only start at one of ``starts[k]``: a start
        that is ruled out is 0, the only one left is 1."""
        out: dict[int, int] = {}
        for k, ss in enumerate(starts):
            possible = set(ss)
            for t, v in enumerate(self.var[k]):
                if self.starts[k] + t not in possible:
                    out[v] = 0
                elif len(possible) == 1:
                    out[v] = 1
        return out

    def cell_terms(self, colour: int) -> list[tuple[dict[int, int], int]]:
        """``R_c(j)`` for every cell j: ``({var: 1}, constant)``, the starts of colour-c blocks
        that cover j (a block of a line without free space is a constant)."""
        terms: list[dict[int, int]] = [{} for _ in range(self.length)]
        consts = [0] * self.length
        for k, b in enumerate(self.clue):
            if b.colour != colour:
                continue
            e, length = self.starts[k], b.length
            if not self.var[k]:
                for j in range(e, e + length):
                    consts[j] += 1
                continue
            for t, v in enumerate(self.var[k]):
                for j in range(e + t, e + t + length):
                    terms[j][v] = 1
        return list(zip(terms, consts))

    def reachable_cells(self, colour: int) -> list[bool]:
        """Whether some placement paints each cell with this colour."""
        return reachable_cells(self.clue, self.starts, self.free, colour, self.length)


def _encode_line(model: Model, kind: str, index: int, clue: Clue, n: int) -> OneHotLine:
    """Add a line's s-variables, its exactly-one and its clash constraints."""
    starts, free = packed_starts(clue, n, kind, index)
    per = free + 1 if free > 0 else 0  # no variables for a line without free space
    blocks = len(clue)
    labels: list[tuple] = [("s", kind, index, k, t) for k in range(blocks) for t in range(per)]
    base = model.add_vars(labels).start
    var = tuple(tuple(range(base + k * per, base + (k + 1) * per)) for k in range(blocks))
    with_vars = [k for k in range(blocks) if var[k]]
    model.add_sorted("exactly_one", Sense.EQ, [("exactly_one", kind, index, k) for k in with_vars],
                     [tuple((v, 1) for v in var[k]) for k in with_vars], [1] * len(with_vars))
    labels, terms = [], []
    for k in range(blocks - 1):
        for t in range(per):
            for t2 in range(t):  # block k+1 shifted less than block k: they clash
                labels.append(("clash", kind, index, k, t, t2))
                terms.append(((var[k][t], 1), (var[k + 1][t2], 1)))
    model.add_sorted("clash", Sense.LE, labels, terms, [1] * len(labels))
    return OneHotLine(kind, index, n, clue, tuple(starts), free, var)


def build_model(puzzle: Puzzle, *, use_x: bool = True, deadline=None) -> NonogramModel:
    """Build the one-hot model of ``puzzle`` (``use_x=False``: rows linked to columns directly)."""
    return build_from_lines(puzzle, use_x, _encode_line, ENCODING, deadline)


