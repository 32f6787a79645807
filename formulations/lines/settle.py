"""Settling one line (seed 003's Settle): the O(n * k) dynamic programme, bit-parallel.

A line is given as one *position* bit set per colour index (bit ``j`` of the colour-``c`` mask
says cell ``j`` may still be ``c``; index 0 is the background), so that a whole line is settled
with a few integer operations per block instead of a loop per cell:

* forward: the set of start positions of block ``k`` that leave a consistent prefix, built from
  the previous block's end positions by a carry trick that extends them over runs of cells that
  may be background (``((W + (E & W)) ^ W) | E``); "the block fits at ``s``" is a shifted AND of
  the colour mask, so a placement check is O(1) per block rather than O(length);
* backward: the same from the right (a Kogge-Stone scan, since carries only run one way;
  it stops at the first doubling that adds nothing, after which no longer one can),
  intersected with the forward sets, which leaves exactly the starts used by some valid
  placement;
* the cells each block may cover and the cells that may be background are then unions of
  shifted copies of those sets.

The board and its fixed point over rows and columns are in :mod:`formulations.lines.engine`.
"""
from __future__ import annotations

from typing import Sequence

from ..puzzle import BACKGROUND, Clue, Puzzle

LineSpec = tuple[int, tuple[int, ...], tuple[int, ...], tuple[bool, ...]]
"""(length, block lengths, block colour indices, gap-after-block flags) of one line."""


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


def settle_bw(n: int, lens: Sequence[int], W: int, K: int) -> tuple[int, int] | None:
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
        for sh, g in levels:  # Kogge-Stone, stopped at the first level that adds nothing
            y = v | (v >> sh) & g  # (then every run below a start is covered already)
            if y == v:
                break
            v = y
        v >>= 1
        white |= F[k] & v
        ends = v & W
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
        return settle_bw(n, lens, masks[0], masks[1])
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


def colour_table(puzzle: Puzzle) -> tuple[int, ...]:
    """Colour ids by colour index: index 0 is the background."""
    return (BACKGROUND,) + (puzzle.colours or (1,))


def line_spec(clue: Clue, n: int, cindex: dict[int, int]) -> LineSpec:
    lens = tuple(b.length for b in clue)
    cidx = tuple(cindex[b.colour] for b in clue)
    gaps = tuple(a.colour == b.colour for a, b in zip(clue, clue[1:]))
    return (n, lens, cidx, gaps)


def to_masks(cells: Sequence[int], colours: Sequence[int]) -> list[int]:
    masks = [0] * len(colours)
    for j, dom in enumerate(cells):
        for ci, c in enumerate(colours):
            if dom >> c & 1:
                masks[ci] |= 1 << j
    return masks


def from_masks(masks: Sequence[int], colours: Sequence[int], n: int) -> tuple[int, ...]:
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
    res = settle_masks(line_spec(clue, len(cells), cindex), to_masks(cells, colours))
    if res is None:
        return None
    return from_masks(res, colours, len(cells))


def start_windows(spec: LineSpec, masks: Sequence[int]) -> list[tuple[int, int]] | None:
    """Per block, the smallest and the largest start used by some valid placement of the line
    (given as per-colour position masks), or None when no placement fits."""
    n, lens, cidx, gaps = spec
    if not lens:
        return [] if masks[0] == (1 << n) - 1 else None
    found = _valid_starts(n, lens, cidx, gaps, masks)
    if found is None:
        return None
    return [((v & -v).bit_length() - 1, v.bit_length() - 1) for v in found[0]]


def line_starts(clue: Clue, cells: Sequence[int]) -> list[list[int]] | None:
    """Per block, the sorted start positions used by some valid placement (None: contradiction)."""
    colours = sorted({BACKGROUND} | {b.colour for b in clue}
                     | {c for d in cells for c in range(d.bit_length()) if d >> c & 1})
    cindex = {c: i for i, c in enumerate(colours)}
    n, lens, cidx, gaps = line_spec(clue, len(cells), cindex)
    masks = to_masks(cells, colours)
    if not lens:
        return [] if masks[0] == (1 << n) - 1 else None
    found = _valid_starts(n, lens, cidx, gaps, masks)
    if found is None:
        return None
    return [[p for p in range(n) if v >> p & 1] for v in found[0]]
