"""Belief-propagation phases for the CDCL fallback's residual: a preferred value for every
variable of the order encoding, as nonosolve gives CaDiCaL (its ``encodePuzzle``).

Why: on the tournament sets' hardest residuals the solver's first guesses decide its time.
nonosolve without its phases (``--no-sat-phase``) took 2-11x longer on them; here, the six slowest
residuals of issue 42's eighth step took 15.4 s of CaDiCaL with a phase on every variable
against 45.3 s without (three seeds each), and every 10th puzzle of all 28 tournament sets
0.844 of the CPU (docs/line_core.md, ninth step). The rounds run compiled (``_bp.c``): 4 ms on
a 25x25 tournament residual where the first, pure-Python version took 0.155-0.22 s, paid on
every puzzle that reaches the fallback (tenth step); its results are the same to the bit.

How: rows and columns exchange messages, each cell's probability of being black as the other
direction sees it. A line's message is its weighted forward-backward marginal (completions of
the clue consistent with the decided cells, each cell weighted by the incoming message) with
the incoming message divided out, damped by half; :data:`ROUNDS` rounds. Then a cell prefers
black when the two messages together say so, block ``j`` "starts at or before ``p``" when the
block's start marginal up to ``p`` is at least one half, and a cover variable when the block
covers its cell with probability at least one half. Phases only steer the search: every
model is still a solution and every solution a model.
"""
from __future__ import annotations

import time
from collections.abc import Sequence

from ..runtime.clock import OutOfTime
from ._bp import line_marginals as _line_marginals
from ._bp import phases as _phases

ROUNDS = 20  # nonosolve's; 5 rounds gave 28.0 s on the six against 15.4 s with 20
MAX_WORK = 200_000
"""At most this much work a round (cells times blocks, summed over the lines; a 25x25 tournament
puzzle has about 7,000, 4 ms for its 20 rounds, so about 0.1 s here): a larger residual gets no
phases, as before them, rather than seconds before its solve."""


def line_marginals(n: int, lens: Sequence[int], known: Sequence[int], wb: Sequence[float]
                   ) -> tuple[list[float], list[list[float]]] | None:
    """Each cell's probability of being black and each block's start probabilities over the
    completions of clue ``lens`` consistent with ``known`` (1 black, 0 white, -1 open), a
    completion weighted by the product of ``wb[i]`` over its black cells and ``1 - wb[i]``
    over its white ones; None when no completion is left (the compiled forward-backward
    pass that :func:`bp_phases` runs, for tests and inspection)."""
    return _line_marginals(n, list(lens), list(known), list(wb))


def bp_phases(eng, state: Sequence[int], meta: dict[int, tuple[str, int, int, int]],
              rounds: int = ROUNDS, end: float | None = None) -> list[int]:
    """Preferred literals for the cells (variable ``i * w + j + 1``) and for the variables
    ``meta`` describes (``("Y", line, block, p)``: the block starts at or before ``p``;
    ``("C", line, block, c)``: the block covers cell ``c``), on ``state`` of ``eng``; none
    above :data:`MAX_WORK`. Raises :class:`OutOfTime` at ``end`` (perf_counter)."""
    h, w = eng.h, eng.w
    if sum(spec[0] * max(1, len(spec[1])) for spec in eng.specs) > MAX_WORK:
        return []
    known = bytearray(b"\x02" * (h * w))  # 2 open
    for i in range(h):
        white, black = state[2 * i], state[2 * i + 1]
        decided = white ^ black
        while decided:
            low = decided & -decided
            j = low.bit_length() - 1
            known[i * w + j] = 1 if black & low else 0
            decided ^= low
    left = -1.0 if end is None else end - time.perf_counter()
    if end is not None and left <= 0:
        raise OutOfTime("cdcl")
    got = _phases(h, w, [spec[1] for spec in eng.specs], bytes(known), meta, rounds, left)
    if got is None:
        raise OutOfTime("cdcl")
    return got
