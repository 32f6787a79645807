"""The per-cell automaton-state one-hot encoding, after Fixstars Amplify's picross example.

Each line's clue is an automaton that reads the line cell by cell. Its states, numbered as in
that example: the white state ``W_k`` before block k (``W_0`` before the first block, ``W_m``
after the last) and the block states ``B_{k,t}`` for the t-th cell of block k, ``q(W_k) =
sum_{l<k} (L_l + 1)`` and ``q(B_{k,t}) = q(W_k) + t``. Moves: ``W_k -> W_k`` (another white
cell), ``W_k -> B_{k,1}``, ``B_{k,t} -> B_{k,t+1}``, ``B_{k,L_k} -> W_{k+1}`` and, when block
k+1 has another colour (no gap needed), ``B_{k,L_k} -> B_{k+1,1}``.

Per line and cell j, binary ``y[j,q] = 1`` iff cell j is in state q, for the states some
placement of the clue puts there (a window of about ``d + 1`` states; the windows also fix the
first cell to ``W_0`` or ``B_{0,1}`` and the last to ``W_m`` or the last block's last cell), and

* exactly one state per cell: ``sum_q y[j,q] = 1`` (family ``one_state``);
* every two consecutive cells make a move: ``y[j,q] + y[j+1,q'] <= 1`` for each pair of
  states that is no move (family ``transition``);
* the cell links as in the order encoding, the colour a line gives cell j being the sum of its
  block states of that colour; then ``R = x = C`` (or ``R = C`` without x).

Every feasible assignment is one accepted run per line, that is one placement, so the energy-0
states are the solutions, one per grid. The example writes its moves as three-variable range
constraints; as pairwise exclusions they are two-variable inequalities, which the slack-free
penalty lowers to ``y * y'`` (and the exactly-one to ``(sum - 1)^2``). A cell whose state is
the same in every placement (a line without free space) has no variable.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..puzzle import BACKGROUND, Clue, Puzzle, gaps
from .linear import Model, Sense
from .links import block_starts, packed_starts
from .order import NonogramModel, build_from_lines

ENCODING = "automaton"
FAMILIES = ("one_state", "transition", "link")
State = tuple[int, int]  # (k, t): block k's t-th cell for t >= 1, the white state W_k for t == 0


@dataclass(frozen=True)
class AutomatonLine:
    """The automaton-state encoding of one row or column. ``var[j]`` holds cell j's state
    variables (``states[j]`` the states they stand for, in the same order); a cell with a
    single possible state has none, its state is ``fixed[j]``."""
    kind: str
    index: int
    length: int
    clue: Clue
    starts: tuple[int, ...]                 # e_k
    free: int                               # d
    states: tuple[tuple[State, ...], ...]   # per cell, the states of its variables
    var: tuple[tuple[int, ...], ...]        # per cell, the variable indices
    fixed: tuple[State | None, ...]         # per cell, its only state (None: it has variables)

    def colour_of(self, state: State) -> int:
        k, t = state
        return BACKGROUND if t == 0 else self.clue[k].colour

    def state_id(self, state: State) -> int:
        """The state's number q in the example's numbering."""
        k, t = state
        return sum(b.length + 1 for b in self.clue[:k]) + t

    def cells(self, values: np.ndarray) -> list[int]:
        """Cell colours from the state variables (per cell the first state set; an infeasible
        assignment may set none, read as the background)."""
        out = []
        for j in range(self.length):
            state = self.fixed[j]
            if state is None:
                state = next((q for q, v in zip(self.states[j], self.var[j]) if values[v]), (0, 0))
            out.append(self.colour_of(state))
        return out

    def run(self, block_starts: Sequence[int]) -> list[State]:
        """The state of every cell for blocks starting at ``block_starts``."""
        out: list[State] = []
        k = 0
        for j in range(self.length):
            if k < len(self.clue) and j >= block_starts[k] + self.clue[k].length:
                k += 1
            if k < len(self.clue) and j >= block_starts[k]:
                out.append((k, j - block_starts[k] + 1))
            else:
                out.append((k, 0))
        return out

    def encode(self, cells: Sequence[int]) -> dict[int, int]:
        """State-variable values for a line that shows exactly its clue."""
        starts = block_starts(cells, self.clue, self.kind, self.index)
        run = self.run(starts)
        return {v: int(q == run[j]) for j in range(self.length)
                for q, v in zip(self.states[j], self.var[j])}

    def decided(self, starts: Sequence[Sequence[int]]) -> dict[int, int]:
        """The state variables fixed when block k can only start at one of ``starts[k]``:
        a state no such start puts on the cell is 0, one that every such start puts there 1."""
        m = len(self.clue)
        out: dict[int, int] = {}
        for j in range(self.length):
            for (k, t), v in zip(self.states[j], self.var[j]):
                if t:  # block k's t-th cell is j: block k starts at j - t + 1
                    ss = starts[k]
                    possible = j - t + 1 in ss
                    certain = possible and len(ss) == 1
                else:  # white between block k-1 (ended by j) and block k (not started by j)
                    before = (min(s + self.clue[k - 1].length for s in starts[k - 1]) <= j,
                              max(s + self.clue[k - 1].length for s in starts[k - 1]) <= j) \
                        if k > 0 else (True, True)
                    after = (max(starts[k]) > j, min(starts[k]) > j) if k < m else (True, True)
                    possible, certain = before[0] and after[0], before[1] and after[1]
                if not possible:
                    out[v] = 0
                elif certain:
                    out[v] = 1
        return out

    def cell_terms(self, colour: int) -> list[tuple[dict[int, int], int]]:
        """``R_c(j)`` for every cell j as ``({var: 1}, constant)``."""
        out: list[tuple[dict[int, int], int]] = []
        for j in range(self.length):
            fixed = self.fixed[j]
            if fixed is not None:
                out.append(({}, int(self.colour_of(fixed) == colour)))
                continue
            out.append(({v: 1 for q, v in zip(self.states[j], self.var[j])
                         if self.colour_of(q) == colour}, 0))
        return out

    def reachable_cells(self, colour: int) -> list[bool]:
        """Whether some placement paints each cell with this colour."""
        return [any(self.colour_of(q) == colour for q in self.possible(j))
                for j in range(self.length)]

    def possible(self, j: int) -> tuple[State, ...]:
        fixed = self.fixed[j]
        return (fixed,) if fixed is not None else self.states[j]


def moves(clue: Clue) -> set[tuple[State, State]]:
    """The automaton's moves between consecutive cells."""
    g = gaps(clue)
    m = len(clue)
    out: set[tuple[State, State]] = set()
    for k in range(m + 1):
        out.add(((k, 0), (k, 0)))
        if k < m:
            out.add(((k, 0), (k, 1)))
            for t in range(1, clue[k].length):
                out.add(((k, t), (k, t + 1)))
            out.add(((k, clue[k].length), (k + 1, 0)))
            if k < m - 1 and g[k] == 0:
                out.add(((k, clue[k].length), (k + 1, 1)))
    return out


def reachable_states(clue: Clue, n: int, starts: Sequence[int], free: int) -> list[list[State]]:
    """Per cell, the states some placement puts on it (in state-number order)."""
    m = len(clue)
    out: list[list[State]] = [[] for _ in range(n)]
    for k in range(m + 1):
        # white W_k: after block k-1 can have ended and before block k must have started
        lo = starts[k - 1] + clue[k - 1].length if k > 0 else 0
        hi = starts[k] + free - 1 if k < m else n - 1
        for j in range(lo, hi + 1):
            out[j].append((k, 0))
        if k < m:
            for t in range(1, clue[k].length + 1):
                for j in range(starts[k] + t - 1, starts[k] + t - 1 + free + 1):
                    out[j].append((k, t))
    return out


def _encode_line(model: Model, kind: str, index: int, clue: Clue, n: int) -> AutomatonLine:
    """Add a line's state variables, its exactly-one and its transition constraints."""
    starts, free = packed_starts(clue, n, kind, index)
    reach = reachable_states(clue, n, starts, free)
    q: State | None  # None (in the transitions): a fixed cell's placeholder, never with a variable
    v: int | None
    labels, where = [], []
    for j, qs in enumerate(reach):
        if len(qs) > 1:
            for q in qs:
                labels.append(("y", kind, index, j, q[0], q[1]))
                where.append((j, q))
    base = model.add_vars(labels).start
    states: list[list[State]] = [[] for _ in range(n)]
    var: list[list[int]] = [[] for _ in range(n)]
    for v, (j, q) in enumerate(where, start=base):
        states[j].append(q)
        var[j].append(v)
    fixed = tuple(qs[0] if len(qs) == 1 else None for qs in reach)
    cells = [j for j in range(n) if var[j]]
    model.add_sorted("one_state", Sense.EQ, [("one_state", kind, index, j) for j in cells],
                     [tuple((v, 1) for v in var[j]) for j in cells], [1] * len(cells))
    allowed = moves(clue)
    t_labels, t_terms = [], []
    q2: State | None
    v2: int | None
    for j in range(n - 1):
        if not var[j] and not var[j + 1]:
            continue
        for q, v in zip(states[j], var[j]) if var[j] else [(fixed[j], None)]:
            for q2, v2 in zip(states[j + 1], var[j + 1]) if var[j + 1] else [(fixed[j + 1], None)]:
                if (q, q2) in allowed:
                    continue
                if v is None or v2 is None:  # cannot happen: the windows are exact
                    raise RuntimeError(f"{kind} {index}: a fixed cell next to a state it "
                                       "cannot reach")
                assert q is not None and q2 is not None  # a variable's state is never None
                t_labels.append(("transition", kind, index, j, q[0], q[1], q2[0], q2[1]))
                t_terms.append(((v, 1), (v2, 1)))
    model.add_sorted("transition", Sense.LE, t_labels, t_terms, [1] * len(t_labels))
    return AutomatonLine(kind, index, n, clue, tuple(starts), free, tuple(map(tuple, states)),
                         tuple(map(tuple, var)), fixed)


def build_model(puzzle: Puzzle, *, use_x: bool = True, deadline=None) -> NonogramModel:
    """Build the automaton-state model of ``puzzle`` (``use_x=False``: ``R = C``)."""
    return build_from_lines(puzzle, use_x, _encode_line, ENCODING, deadline)


