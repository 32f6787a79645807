"""Line solving (seed 003's Settle) and its fixed point over rows and columns (FullSettle).

Every cell has a domain: a bit set over colours, bit ``c`` set while colour ``c`` is still
possible (bit 0 is the background), exactly as in seed 003. Inside the solver the same
information is stored transposed, one *position* bit set per line and colour (bit ``j`` of a
row's colour-``c`` mask says cell ``j`` of that row may still be ``c``), so that a whole line is
settled with a few integer operations per block instead of a loop per cell:

* forward: the set of start positions of block ``k`` that leave a consistent prefix, built from
  the previous block's end positions by a carry trick that extends them over runs of cells that
  may be background (``((W + (E & W)) ^ W) | E``); "the block fits at ``s``" is a shifted AND of
  the colour mask, so a placement check is O(1) per block rather than O(length);
* backward: the same from the right (a Kogge-Stone scan, since carries only run one way),
  intersected with the forward sets, which leaves exactly the starts used by some valid
  placement;
* the cells each block may cover and the cells that may be background are then unions of
  shifted copies of those sets.

That is the O(n * k) dynamic programme of seed 003 with bit-parallel positions. The fixed point
is driven by a queue of lines whose cells changed, detects contradictions at the line and at the
cell level, can record its progress line update by line update, and tells solved, partial and
contradiction apart.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Iterable, Sequence

from .puzzle import BACKGROUND, Clue, Grid, Puzzle

LineSpec = tuple[int, tuple[int, ...], tuple[int, ...], tuple[bool, ...]]
"""(length, block lengths, block colour indices, gap-after-block flags) of one line."""

UNKNOWN = -1


class FixStatus(Enum):
    SOLVED = "solved"                 # every cell has one colour, and every line fits its clue
    PARTIAL = "partial"               # fixed point reached with cells still undecided
    CONTRADICTION = "contradiction"   # some line (or cell) has no value left: no solution


# -- one line ------------------------------------------------------------------------------------

def _fit(mask: int, length: int) -> int:
    """Positions ``s`` with cells ``s .. s+length-1`` all in ``mask`` (doubling AND)."""
    r, cover = mask, 1
    while cover * 2 <= length:
        r &= r >> cover
        cover *= 2
    if length > cover:
        r &= r >> (length - cover)
    return r


def _smear(starts: int, length: int) -> int:
    """Cells covered by a block of ``length`` starting at any position in ``starts``."""
    r, cover = starts, 1
    while cover * 2 <= length:
        r |= r << cover
        cover *= 2
    if length > cover:
        r |= r << (length - cover)
    return r


def _valid_starts(n: int, lens: Sequence[int], cidx: Sequence[int], gaps: Sequence[bool],
                  masks: Sequence[int]):
    """Forward/backward pass; returns (valid starts per block, forward F, backward B) or None.

    Positions run 0..n (position ``p`` is the boundary before cell ``p``). ``F[k]``: positions
    ``p`` such that blocks ``0..k-1`` fit in cells ``[0, p)``; ``B[k]``: positions ``p`` such
    that blocks ``k..`` fit in ``[p, n)`` with block ``k`` at a start valid on both sides.
    """
    W = masks[0]
    m = len(lens)
    fits = []
    seen: dict[tuple[int, int], int] = {}
    for k in range(m):
        key = (lens[k], cidx[k])
        f = seen.get(key)
        if f is None:
            f = seen[key] = _fit(masks[cidx[k]], lens[k])
        fits.append(f)
    # forward: S[k] = starts of block k with a consistent prefix
    F = [0] * (m + 1)
    S = [0] * m
    e = 1
    fk = ((W + (e & W)) ^ W) | e
    F[0] = starts = fk
    for k in range(m):
        s = starts & fits[k]
        if not s:
            return None
        S[k] = s
        e = s << lens[k]
        fk = ((W + (e & W)) ^ W) | e
        F[k + 1] = fk
        starts = ((fk & W) << 1) if (k < m - 1 and gaps[k]) else fk
    if not (F[m] >> n) & 1:
        return None
    # backward, Kogge-Stone over runs of cells that may be background
    levels = []
    g, sh = W, 1
    while g and sh <= n:
        levels.append((sh, g))
        g &= g >> sh
        sh <<= 1

    def down(x: int) -> int:
        for step, gl in levels:
            x |= (x >> step) & gl
        return x

    B = [0] * (m + 1)
    V = [0] * m
    ends = B[m] = down(1 << n)
    for k in range(m - 1, -1, -1):
        v = (ends >> lens[k]) & S[k]
        if not v:
            return None
        V[k] = v
        bk = B[k] = down(v)
        if k:
            ends = ((bk >> 1) & W) if gaps[k - 1] else bk
    return V, F, B


def _settle_bw(n: int, lens: Sequence[int], W: int, K: int) -> tuple[int, int] | None:
    """:func:`settle_masks` for one colour (``W`` background, ``K`` black), inlined for speed.

    The same passes as ``_valid_starts`` with every gap 1, the backward closure folded into the
    loop that collects the black cover and the background cells.
    """
    full = (1 << n) - 1
    m = len(lens)
    if not m:
        return (full, 0) if W == full else None
    F = [0] * (m + 1)
    S = [0] * m
    f = ((W + (W & 1)) ^ W) | 1
    F[0] = starts = f
    k = 0
    for L in lens:
        if L == 1:
            s = starts & K
        else:
            r, c = K, 1
            while c + c <= L:
                r &= r >> c
                c += c
            if L > c:
                r &= r >> (L - c)
            s = starts & r
        if not s:
            return None
        S[k] = s
        e = s << L
        f = ((W + (e & W)) ^ W) | e
        k += 1
        F[k] = f
        starts = (f & W) << 1
    if not f >> n & 1:
        return None
    x = 1 << n
    g, sh = W, 1
    levels = []
    while g and sh <= n:
        levels.append((sh, g))
        x |= (x >> sh) & g
        g &= g >> sh
        sh += sh
    white = f & (x >> 1)
    black = 0
    ends = x
    for k in range(m - 1, -1, -1):
        L = lens[k]
        v = (ends >> L) & S[k]
        if not v:
            return None
        if L == 1:
            black |= v
        else:
            r, c = v, 1
            while c + c <= L:
                r |= r << c
                c += c
            if L > c:
                r |= r << (L - c)
            black |= r
        for sh, g in levels:
            v |= (v >> sh) & g
        white |= F[k] & (v >> 1)
        ends = (v >> 1) & W
    white &= W
    if (white | black) != full:
        return None
    return (white, black)


def settle_masks(spec: LineSpec, masks: Sequence[int]) -> tuple[int, ...] | None:
    """Narrow one line's per-colour position masks to the union of its valid placements.

    Returns the new masks (same length and order as ``masks``, index 0 = background), or None
    when no placement fits (a contradiction).
    """
    n, lens, cidx, gaps = spec
    if len(masks) == 2:  # one colour: every block is colour index 1 with a gap after it
        return _settle_bw(n, lens, masks[0], masks[1])
    full = (1 << n) - 1
    ncol = len(masks)
    if not lens:
        if masks[0] != full:
            return None
        return (full,) + (0,) * (ncol - 1)
    found = _valid_starts(n, lens, cidx, gaps, masks)
    if found is None:
        return None
    V, F, B = found
    out = [0] * ncol
    W = masks[0]
    white = 0
    for k in range(len(lens) + 1):
        white |= F[k] & (B[k] >> 1)
    out[0] = white & W
    for k, L in enumerate(lens):
        out[cidx[k]] |= _smear(V[k], L)
    union = 0
    for x in out:
        union |= x
    if union != full:  # a cell with no colour left: cannot happen after a fit, checked anyway
        return None
    return tuple(out)


def _colour_table(puzzle: Puzzle) -> tuple[int, ...]:
    """Colour ids by colour index: index 0 is the background."""
    return (BACKGROUND,) + (puzzle.colours or (1,))


def _spec(clue: Clue, n: int, cindex: dict[int, int]) -> LineSpec:
    lens = tuple(b.length for b in clue)
    cidx = tuple(cindex[b.colour] for b in clue)
    gaps = tuple(a.colour == b.colour for a, b in zip(clue, clue[1:]))
    return (n, lens, cidx, gaps)


def _to_masks(cells: Sequence[int], colours: Sequence[int]) -> list[int]:
    masks = [0] * len(colours)
    for j, dom in enumerate(cells):
        for ci, c in enumerate(colours):
            if dom >> c & 1:
                masks[ci] |= 1 << j
    return masks


def _from_masks(masks: Sequence[int], colours: Sequence[int], n: int) -> tuple[int, ...]:
    return tuple(sum(1 << c for ci, c in enumerate(colours) if masks[ci] >> j & 1)
                 for j in range(n))


def settle_line(clue: Clue, cells: Sequence[int]) -> tuple[int, ...] | None:
    """Settle one line given as cell domains (bit ``c`` = colour ``c`` possible).

    Returns the narrowed domains (every colour used by some valid placement that agrees with the
    domains) or None when no placement agrees. Domains may mention colours the clue lacks.
    """
    colours = sorted({BACKGROUND} | {b.colour for b in clue}
                     | {c for d in cells for c in range(d.bit_length()) if d >> c & 1})
    cindex = {c: i for i, c in enumerate(colours)}
    res = settle_masks(_spec(clue, len(cells), cindex), _to_masks(cells, colours))
    if res is None:
        return None
    return _from_masks(res, colours, len(cells))


def line_starts(clue: Clue, cells: Sequence[int]) -> list[list[int]] | None:
    """Per block, the sorted start positions used by some valid placement (None: contradiction)."""
    colours = sorted({BACKGROUND} | {b.colour for b in clue}
                     | {c for d in cells for c in range(d.bit_length()) if d >> c & 1})
    cindex = {c: i for i, c in enumerate(colours)}
    n, lens, cidx, gaps = _spec(clue, len(cells), cindex)
    masks = _to_masks(cells, colours)
    if not lens:
        return [] if masks[0] == (1 << n) - 1 else None
    found = _valid_starts(n, lens, cidx, gaps, masks)
    if found is None:
        return None
    return [[p for p in range(n) if v >> p & 1] for v in found[0]]


# -- the board and its fixed point ----------------------------------------------------------------

_SPEC_IDS: dict[LineSpec, int] = {}
_CACHE: dict = {}
CACHE_SIZE = 300_000
"""Settled lines are shared by every engine (same clue and length, same masks, same answer):
search and probing revisit line states constantly, and puzzles share fully unknown lines."""


def clear_cache() -> None:
    """Forget settled lines (benchmarks call this so that puzzles do not help each other)."""
    _CACHE.clear()


def _spec_id(spec: LineSpec) -> int:
    sid = _SPEC_IDS.get(spec)
    if sid is None:
        sid = _SPEC_IDS[spec] = len(_SPEC_IDS)
    return sid


@dataclass(frozen=True)
class Step:
    """One line update of the fixed point that decided cells (for step-by-step pictures)."""
    line: tuple[str, int]                   # ("row", i) or ("col", j)
    round: int                              # 0 for the first visit of every line, then +1 per wave
    fixed: tuple[tuple[int, int, int], ...]  # (i, j, colour) of cells decided by this update
    known: int                              # cells decided after this update


class Engine:
    """A puzzle compiled for propagation.

    A *state* is a flat list of position masks, ``state[line * C + ci]`` for colour index ``ci``;
    rows are lines ``0..h-1`` and columns ``h..h+w-1``. States are plain lists so that search can
    copy them cheaply. Settled lines are memoised in a module-level table shared by all engines
    (``clear_cache()`` empties it), so probing and search rarely settle the same line twice.
    """

    def __init__(self, puzzle: Puzzle):
        self.puzzle = puzzle
        self.h, self.w = puzzle.height, puzzle.width
        self.colours = _colour_table(puzzle)
        self.C = len(self.colours)
        self.cindex = {c: i for i, c in enumerate(self.colours)}
        self.specs: list[LineSpec] = ([_spec(c, self.w, self.cindex) for c in puzzle.rows]
                                      + [_spec(c, self.h, self.cindex) for c in puzzle.columns])
        self.nlines = self.h + self.w
        self.sids = [_spec_id(sp) for sp in self.specs]
        self.line_solves = 0
        self.removed = 0

    # -- states --------------------------------------------------------------------------------
    def initial_state(self) -> list[int]:
        """Every cell may be background or any colour of the puzzle.

        (Clues narrow this by line updates only, so that every decision, even "this row is
        empty", is made by a line update and shows up in recorded steps.)
        """
        n = self.nlines * self.C
        h, w = self.h, self.w
        return [((1 << w) - 1) if k < h * self.C else ((1 << h) - 1) for k in range(n)]

    def initial_lines(self) -> list[int]:
        """Lines whose settling can change the initial state (the first queue of the fixed point).

        A fully undecided black-and-white line decides nothing unless its clue is empty, does not
        fit, or has a block longer than its free space (the overlap rule); the others are settled
        as soon as a crossing cell changes. Colour puzzles settle every line first (a clue may
        rule out colours).
        """
        if self.C != 2:
            return list(range(self.nlines))
        out = []
        for lid, (n, lens, _, _) in enumerate(self.specs):
            free = n - sum(lens) - len(lens) + 1
            if not lens or free < 0 or max(lens) > free:
                out.append(lid)
        return out

    def state_from_domains(self, domains: Sequence[Sequence[int]]) -> list[int]:
        """State from cell domains (bit ``c`` = colour id ``c``); an empty domain is a contradiction."""
        h, C = self.h, self.C
        state = self.initial_state()
        for i, row in enumerate(domains):
            for j, dom in enumerate(row):
                for ci, c in enumerate(self.colours):
                    if not dom >> c & 1:
                        state[i * C + ci] &= ~(1 << j)
                        state[(h + j) * C + ci] &= ~(1 << i)
        return state

    def domains(self, state: Sequence[int]) -> tuple[tuple[int, ...], ...]:
        """Cell domains (bit ``c`` set = colour id ``c`` still possible) from a state."""
        C, cols = self.C, self.colours
        return tuple(_from_masks(state[i * C:(i + 1) * C], cols, self.w) for i in range(self.h))

    def unknown_mask(self, state: Sequence[int], line: int) -> int:
        """Cells of a line with two or more colours left."""
        C = self.C
        base = line * C
        if C == 2:
            return state[base] & state[base + 1]
        seen = unk = 0
        for ci in range(C):
            m = state[base + ci]
            unk |= seen & m
            seen |= m
        return unk

    def unknown_count(self, state: Sequence[int]) -> int:
        return sum(self.unknown_mask(state, i).bit_count() for i in range(self.h))

    def is_complete(self, state: Sequence[int]) -> bool:
        return self.bits(state) == self.h * self.w

    def grid(self, state: Sequence[int]) -> Grid:
        """The grid of a complete state (undecided cells read as -1)."""
        C, cols, w = self.C, self.colours, self.w
        if C == 2:
            val = (cols[0], cols[1])
            return tuple(tuple(UNKNOWN if (W >> j) & (K >> j) & 1 else val[(K >> j) & 1]
                               for j in range(w))
                         for W, K in zip(state[0:2 * self.h:2], state[1:2 * self.h:2]))
        out = []
        for i in range(self.h):
            masks = state[i * C:(i + 1) * C]
            row = []
            for j in range(self.w):
                got = [cols[ci] for ci in range(C) if masks[ci] >> j & 1]
                row.append(got[0] if len(got) == 1 else UNKNOWN)
            out.append(tuple(row))
        return tuple(out)

    def bits(self, state: Sequence[int]) -> int:
        """Colour bits left over all cells: ``h * w`` exactly when every cell is decided."""
        return sum(m.bit_count() for m in state[:self.h * self.C])

    def assign(self, state: list[int], i: int, j: int, ci: int) -> int:
        """Set cell (i, j) to colour index ``ci`` in place (no propagation); bits removed."""
        h, C = self.h, self.C
        rb, cb = 1 << j, 1 << i
        removed = 0
        for k in range(C):
            if k != ci and state[i * C + k] & rb:
                removed += 1
                state[i * C + k] &= ~rb
                state[(h + j) * C + k] &= ~cb
        return removed

    # -- propagation ---------------------------------------------------------------------------
    def propagate(self, state: list[int], lines: Iterable[int] | None = None,
                  steps: list[Step] | None = None) -> bool:
        """Settle lines until nothing changes, starting from ``lines`` (default: all).

        Works in place; returns False on a contradiction (the state is then garbage). Only lines
        whose cells changed are settled again; ``self.removed`` counts the colour bits removed.
        With ``steps`` every deciding update is recorded.
        """
        if len(_CACHE) > CACHE_SIZE:
            _CACHE.clear()
        if self.C == 2 and steps is None:
            return self._propagate_bw(state, lines)
        C, h = self.C, self.h
        specs, sids, cache = self.specs, self.sids, _CACHE
        inq = bytearray(self.nlines)
        rnd = [0] * self.nlines if steps is not None else None
        dq: deque[int] = deque()
        for lid in (range(self.nlines) if lines is None else lines):
            if not inq[lid]:
                inq[lid] = 1
                dq.append(lid)
        known = (self.h * self.w - self.unknown_count(state)) if steps is not None else 0
        settle = settle_masks
        solves = removed = 0
        pop, push = dq.popleft, dq.append
        try:
            while dq:
                lid = pop()
                inq[lid] = 0
                base = lid * C
                old = tuple(state[base:base + C])
                key = (sids[lid], old)
                res = cache.get(key, False)
                if res is False:
                    solves += 1
                    res = cache[key] = settle(specs[lid], old)
                if res is None:
                    return False
                if res == old:
                    continue
                if lid < h:
                    other, bit = h, 1 << lid
                else:
                    other, bit = 0, 1 << (lid - h)
                nbit = ~bit
                changed = 0
                for ci in range(C):
                    d = old[ci] ^ res[ci]
                    if d:
                        changed |= d
                        removed += d.bit_count()
                        state[base + ci] = res[ci]
                        while d:
                            low = d & -d
                            d ^= low
                            ol = other + low.bit_length() - 1
                            state[ol * C + ci] &= nbit
                            if not inq[ol]:
                                inq[ol] = 1
                                push(ol)
                                if rnd is not None:
                                    rnd[ol] = rnd[lid] + 1
                if steps is not None:
                    known = self._record(steps, lid, rnd[lid], old, res, changed, known)
            return True
        finally:
            self.line_solves += solves
            self.removed = removed

    def _propagate_bw(self, state: list[int], lines: Iterable[int] | None) -> bool:
        """:meth:`propagate` for black and white (two masks per line), without recording."""
        h = self.h
        specs, sids, cache = self.specs, self.sids, _CACHE
        inq = bytearray(self.nlines)
        dq: deque[int] = deque()
        for lid in (range(self.nlines) if lines is None else lines):
            if not inq[lid]:
                inq[lid] = 1
                dq.append(lid)
        settle = _settle_bw
        solves = removed = 0
        pop, push = dq.popleft, dq.append
        try:
            while dq:
                lid = pop()
                inq[lid] = 0
                b = lid + lid
                W = state[b]
                K = state[b + 1]
                key = (sids[lid], W, K)
                res = cache.get(key, False)
                if res is False:
                    solves += 1
                    n, lens, _, _ = specs[lid]
                    res = cache[key] = settle(n, lens, W, K)
                if res is None:
                    return False
                nW, nK = res
                if nW == W and nK == K:
                    continue
                if lid < h:
                    other, bit = h, 1 << lid
                else:
                    other, bit = 0, 1 << (lid - h)
                nbit = ~bit
                for d, off in ((W ^ nW, 0), (K ^ nK, 1)):
                    if not d:
                        continue
                    state[b + off] ^= d
                    removed += d.bit_count()
                    while d:
                        low = d & -d
                        d ^= low
                        ol = other + low.bit_length() - 1
                        state[ol + ol + off] &= nbit
                        if not inq[ol]:
                            inq[ol] = 1
                            push(ol)
            return True
        finally:
            self.line_solves += solves
            self.removed = removed

    def _record(self, steps: list[Step], lid: int, rnd: int, old, res, changed: int,
                known: int) -> int:
        C = self.C

        def single(masks, p):
            got = [ci for ci in range(C) if masks[ci] >> p & 1]
            return got[0] if len(got) == 1 else None

        fixed = []
        p = 0
        while changed >> p:
            if changed >> p & 1:
                now, before = single(res, p), single(old, p)
                if now is not None and before is None:
                    i, j = (lid, p) if lid < self.h else (p, lid - self.h)
                    fixed.append((i, j, self.colours[now]))
            p += 1
        if fixed:
            known += len(fixed)
            kind, idx = ("row", lid) if lid < self.h else ("col", lid - self.h)
            steps.append(Step((kind, idx), rnd, tuple(fixed), known))
        return known


# -- public fixed point ----------------------------------------------------------------------------

@dataclass(frozen=True)
class FixedPoint:
    """The outcome of line solving to a fixed point."""
    status: FixStatus
    puzzle: Puzzle
    domains: tuple[tuple[int, ...], ...]   # per cell: bit c set = colour c possible (empty on contradiction)
    steps: tuple[Step, ...] = ()
    line_solves: int = 0

    @property
    def known_grid(self) -> Grid:
        """Cell colours, -1 where undecided."""
        return tuple(tuple(_single(d) for d in row) for row in self.domains)

    @property
    def grid(self) -> Grid | None:
        """The solution when the fixed point decided every cell."""
        return self.known_grid if self.status is FixStatus.SOLVED else None

    @property
    def unknown(self) -> int:
        return sum(1 for row in self.domains for d in row if d & (d - 1))

    def snapshots(self) -> list[Grid]:
        """Partial grids (-1 = unknown) after each recorded step, starting from the empty grid."""
        h, w = self.puzzle.height, self.puzzle.width
        cur = [[UNKNOWN] * w for _ in range(h)]
        out = [tuple(tuple(r) for r in cur)]
        for st in self.steps:
            for i, j, c in st.fixed:
                cur[i][j] = c
            out.append(tuple(tuple(r) for r in cur))
        return out


def _single(d: int) -> int:
    return d.bit_length() - 1 if d and not d & (d - 1) else UNKNOWN


def fixed_point(puzzle: Puzzle, domains: Sequence[Sequence[int]] | None = None, *,
                record: bool = False, engine: Engine | None = None) -> FixedPoint:
    """Line-solve ``puzzle`` (optionally from given cell domains) until nothing changes.

    ``record=True`` keeps every line update that decided cells, in order, so that a notebook
    can replay the picture filling in (``FixedPoint.snapshots()``).
    """
    eng = engine or Engine(puzzle)
    if domains is None:
        state, lines = eng.initial_state(), eng.initial_lines()
    else:
        state, lines = eng.state_from_domains(domains), None
    steps: list[Step] | None = [] if record else None
    before = eng.line_solves
    ok = eng.propagate(state, lines, steps)
    solves = eng.line_solves - before
    if not ok:
        empty = tuple((0,) * puzzle.width for _ in range(puzzle.height))
        return FixedPoint(FixStatus.CONTRADICTION, puzzle, empty, tuple(steps or ()), solves)
    status = FixStatus.SOLVED if eng.is_complete(state) else FixStatus.PARTIAL
    return FixedPoint(status, puzzle, eng.domains(state), tuple(steps or ()), solves)
