"""The solving, recorded step by step for replaying it (seed 003's step visualiser).

:func:`replay` runs the line-solving fixed point with every deciding line update recorded (the
engine's :class:`~formulations.lines.engine.Step`), and, when cells stay open, a depth-first
search on top that records its guesses and backtracks: it branches on an undecided cell of the
line with the fewest undecided cells, tries its colours in order, propagates each guess (those
line updates are recorded too) and backs up on a contradiction. That is the branching rule of
the ``lines`` backend's cheap search (without probing, so that every step is a line update, a
guess or a backtrack a picture can show); the backend's own run is not recorded.

:meth:`Replay.grids` rebuilds the partial grid after every event, for the animation in
:mod:`formulations.show.animate`.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..puzzle import Grid, Puzzle
from ..results import Status
from .engine import UNKNOWN, Engine, Step


@dataclass(frozen=True)
class Guess:
    """The search sets ``cell`` to ``colour``; ``depth`` counts the guesses now in force."""
    cell: tuple[int, int]
    colour: int
    depth: int


@dataclass(frozen=True)
class Backtrack:
    """The guess at ``cell`` (depth ``depth + 1``) led to a contradiction: back to ``depth``."""
    cell: tuple[int, int]
    depth: int


Event = Step | Guess | Backtrack


@dataclass(frozen=True)
class Replay:
    """What :func:`replay` recorded. ``grid`` is the solution when one was found; ``truncated``
    says the recording stopped at its event or time budget before the end."""
    puzzle: Puzzle
    events: tuple[Event, ...]
    status: Status
    grid: Grid | None
    truncated: bool = False

    @property
    def steps(self) -> int:
        return sum(isinstance(e, Step) for e in self.events)

    @property
    def guesses(self) -> int:
        return sum(isinstance(e, Guess) for e in self.events)

    @property
    def backtracks(self) -> int:
        return sum(isinstance(e, Backtrack) for e in self.events)

    def play(self) -> Iterator[tuple[Event | None, np.ndarray]]:
        """``(None, empty grid)``, then ``(event, partial grid after it)`` for every event, the
        grid a live ``numpy`` array (``-1`` = undecided; copy it to keep it); a backtrack
        restores the grid as it was before its guess."""
        cur = np.full((self.puzzle.height, self.puzzle.width), UNKNOWN, dtype=np.int16)
        before: dict[int, np.ndarray] = {}  # depth of a guess -> the grid before it
        yield None, cur
        for ev in self.events:
            if isinstance(ev, Step):
                for i, j, c in ev.fixed:
                    cur[i, j] = c
            elif isinstance(ev, Guess):
                before[ev.depth] = cur.copy()
                for d in [d for d in before if d > ev.depth]:
                    del before[d]
                cur[ev.cell] = ev.colour
            else:
                cur[:] = before[ev.depth + 1]
            yield ev, cur

    def grids(self) -> Iterator[tuple[Event | None, Grid]]:
        """:meth:`play` with each grid as a tuple of rows."""
        for ev, cur in self.play():
            yield ev, tuple(map(tuple, cur.tolist()))


def replay(puzzle: Puzzle, *, search: bool = True, max_events: int = 200_000,
           time_limit: float | None = 60.0) -> Replay:
    """Record the line solving of ``puzzle`` (and with ``search`` the search after it) until
    solved, proven infeasible, or ``max_events`` events / ``time_limit`` seconds."""
    t0 = time.perf_counter()
    eng = Engine(puzzle)
    events: list[Event] = []
    state = eng.initial_state()
    steps: list[Step] = []
    ok = eng.propagate(state, eng.initial_lines(), steps)
    events.extend(steps)
    if not ok:
        return Replay(puzzle, tuple(events), Status.INFEASIBLE, None)
    if eng.is_complete(state):
        return Replay(puzzle, tuple(events), Status.SOLVED, eng.grid(state))
    if not search:
        return Replay(puzzle, tuple(events), Status.UNKNOWN, None)

    h, C, colours = eng.h, eng.C, eng.colours

    def branch_cell(s: list[int]) -> tuple[int, int]:
        counts = [eng.unknown_mask(s, line).bit_count() for line in range(eng.nlines)]
        best, key = None, None
        for i in range(h):
            u = eng.unknown_mask(s, i)
            while u:
                low = u & -u
                u ^= low
                j = low.bit_length() - 1
                k = min(counts[i], counts[h + j])
                if key is None or k < key:
                    best, key = (i, j), k
        assert best is not None  # branched on only while a cell is open
        return best

    def options(s: list[int], cell: tuple[int, int]) -> Iterator[int]:
        i, j = cell
        return iter([ci for ci in range(C) if s[i * C + ci] >> j & 1])

    cell = branch_cell(state)
    stack = [(state, 0, cell, options(state, cell))]
    while stack:
        if len(events) >= max_events or (time_limit is not None
                                         and time.perf_counter() - t0 > time_limit):
            return Replay(puzzle, tuple(events), Status.UNKNOWN, None, truncated=True)
        node, depth, (i, j), todo = stack[-1]
        ci = next(todo, None)
        if ci is None:  # every colour of this cell failed: the guess that led here was wrong
            stack.pop()
            if stack:
                events.append(Backtrack(stack[-1][2], stack[-1][1]))
            continue
        events.append(Guess((i, j), colours[ci], depth + 1))
        child = node.copy()
        eng.assign(child, i, j, ci)
        steps = []
        ok = eng.propagate(child, (i, h + j), steps)
        events.extend(steps)
        if not ok:
            events.append(Backtrack((i, j), depth))
            continue
        if eng.is_complete(child):
            return Replay(puzzle, tuple(events), Status.SOLVED, eng.grid(child))
        cell = branch_cell(child)
        stack.append((child, depth + 1, cell, options(child, cell)))
    return Replay(puzzle, tuple(events), Status.INFEASIBLE, None)
