"""Belief-propagation phases for the CDCL fallback's residual: a preferred value for every
variable of the order encoding, as nonosolve gives CaDiCaL (its ``encodePuzzle``).

Why: on the tournament sets' hardest residuals the solver's first guesses decide its time.
nonosolve without its phases (``--no-sat-phase``) took 2-11x longer on them; here, the six slowest
residuals of issue 42's eighth step took 15.4 s of CaDiCaL with a phase on every variable
against 45.3 s without (three seeds each), and every 10th puzzle of all 28 tournament sets
0.844 of the CPU (docs/line_core.md, ninth step). The rounds cost about 0.15 s on a 25x25
residual in Python: a compiled version would pay on more puzzles.

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

import math
import time
from collections.abc import Sequence

from ..runtime.clock import OutOfTime

ROUNDS = 20  # nonosolve's; 5 rounds gave 28.0 s on the six against 15.4 s with 20
MAX_WORK = 40_000
"""At most this much work a round (cells times blocks, summed over the lines; a 25x25 tournament
puzzle has about 7,000, 0.155 s for its 20 rounds): a larger residual gets no phases, as before
them, rather than seconds of Python before its solve."""
_EPS = 1e-6


def line_marginals(n: int, lens: Sequence[int], known: Sequence[int], wb: Sequence[float]
                   ) -> tuple[list[float], list[list[float]]] | None:
    """Each cell's probability of being black and each block's start probabilities over the
    completions of clue ``lens`` consistent with ``known`` (1 black, 0 white, -1 open), a
    completion weighted by the product of ``wb[i]`` over its black cells and ``1 - wb[i]``
    over its white ones; None when no completion is left."""
    k = len(lens)
    if k == 0:
        return ([0.0] * n, []) if all(x != 1 for x in known) else None
    kw = [0] * (n + 1)       # known-white cells before i
    lw = [0.0] * (n + 1)     # log of the black weights before i
    for i in range(n):
        kw[i + 1] = kw[i] + (known[i] == 0)
        lw[i + 1] = lw[i] + math.log(wb[i])
    white = [1.0 - wb[i] if known[i] != 1 else 0.0 for i in range(n)]
    # fit[j][i]: weight of block j on [i, i + len) with a white cell (or the end) after it
    fit = []
    for L in lens:
        row = [0.0] * n
        for i in range(n - L + 1):
            e = i + L
            if kw[e] == kw[i] and (e >= n or known[e] != 1):
                row[i] = math.exp(lw[e] - lw[i]) * (white[e] if e < n else 1.0)
        fit.append(row)
    end = n + 1
    f = [[0.0] * (n + 2) for _ in range(k + 1)]  # f[j][i]: j blocks placed before i, i free
    f[0][0] = 1.0
    for i in range(n):
        wi = white[i]
        for j in range(k + 1):
            v = f[j][i]
            if v == 0.0:
                continue
            if wi:
                f[j][i + 1] += v * wi
            if j < k and fit[j][i]:
                f[j + 1][min(i + lens[j] + 1, end)] += v * fit[j][i]
    b = [[0.0] * (n + 2) for _ in range(k + 1)]  # b[j][i]: blocks j.. placed from i on
    b[k][end] = b[k][n] = 1.0
    for i in range(n - 1, -1, -1):
        wi = white[i]
        for j in range(k, -1, -1):
            v = b[j][i + 1] * wi if wi else 0.0
            if j < k and fit[j][i]:
                v += b[j + 1][min(i + lens[j] + 1, end)] * fit[j][i]
            b[j][i] = v
    total = b[0][0]
    if not total > 0 or not math.isfinite(total):
        return None
    starts = [[0.0] * n for _ in range(k)]
    diff = [0.0] * (n + 1)
    for j, L in enumerate(lens):
        fj, bj, fitj, sj = f[j], b[j + 1], fit[j], starts[j]
        for p in range(n - L + 1):
            if fj[p] and fitj[p]:
                pr = fj[p] * fitj[p] * bj[min(p + L + 1, end)] / total
                sj[p] = pr
                diff[p] += pr
                diff[p + L] -= pr
    black, s = [0.0] * n, 0.0
    for i in range(n):
        s += diff[i]
        black[i] = s
    return black, starts


def _message(post: float, prior: float) -> float:
    """The extrinsic message: the posterior with the incoming prior divided out."""
    post = min(1 - 1e-9, max(1e-9, post))
    y, z = post * (1 - prior), (1 - post) * prior
    return min(1 - _EPS, max(_EPS, y / (y + z)))


def bp_phases(eng, state: Sequence[int], meta: dict[int, tuple[str, int, int, int]],
              rounds: int = ROUNDS, end: float | None = None) -> list[int]:
    """Preferred literals for the cells (variable ``i * w + j + 1``) and for the variables
    ``meta`` describes (``("Y", line, block, p)``: the block starts at or before ``p``;
    ``("C", line, block, c)``: the block covers cell ``c``), on ``state`` of ``eng``; none
    above :data:`MAX_WORK`. Raises :class:`OutOfTime` at ``end`` (perf_counter)."""
    h, w = eng.h, eng.w
    if sum(spec[0] * max(1, len(spec[1])) for spec in eng.specs) > MAX_WORK:
        return []
    known = [[-1] * w for _ in range(h)]
    for i in range(h):
        W, K = state[2 * i], state[2 * i + 1]
        for j in range(w):
            white, black = W >> j & 1, K >> j & 1
            if white != black:
                known[i][j] = 1 if black else 0
    lens = [list(spec[1]) for spec in eng.specs]  # rows, then columns
    to_row = [[0.5] * w for _ in range(h)]   # the row's message to each cell
    to_col = [[0.5] * w for _ in range(h)]   # the column's
    for _ in range(rounds):
        if end is not None and time.perf_counter() >= end:
            raise OutOfTime("cdcl")
        for i in range(h):
            wb = to_col[i]
            got = line_marginals(w, lens[i], known[i], wb)
            if got is not None:
                row = to_row[i]
                for j in range(w):
                    row[j] = 0.5 * row[j] + 0.5 * _message(got[0][j], wb[j])
        for j in range(w):
            wb = [to_row[i][j] for i in range(h)]
            got = line_marginals(h, lens[h + j], [known[i][j] for i in range(h)], wb)
            if got is not None:
                for i in range(h):
                    to_col[i][j] = 0.5 * to_col[i][j] + 0.5 * _message(got[0][i], wb[i])
    out = []
    for i in range(h):
        for j in range(w):
            a, c = to_row[i][j], to_col[i][j]
            v = i * w + j + 1
            out.append(v if a * c >= (1 - a) * (1 - c) else -v)
    starts: dict[int, list[list[float]] | None] = {}
    for i in range(h):
        got = line_marginals(w, lens[i], known[i], to_col[i])
        starts[i] = got[1] if got else None
    for j in range(w):
        got = line_marginals(h, lens[h + j], [known[i][j] for i in range(h)],
                             [to_row[i][j] for i in range(h)])
        starts[h + j] = got[1] if got else None
    for var, (kind, line, k, p) in meta.items():
        s = starts[line]
        if s is None:
            continue
        if kind == "Y":
            val = sum(s[k][:p + 1]) >= 0.5
        else:
            L = lens[line][k]
            val = sum(s[k][max(0, p - L + 1):p + 1]) >= 0.5
        out.append(var if val else -var)
    return out
