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

The passes are compiled (``formulations/lines/_core.c``, built by ``pip install -e .``; see
docs/line_core.md) and work on multi-word bit sets, so lines of any length; this module keeps the
Python side: clues to line specs, cell domains to position masks and back. ``settle_bw(n, lens,
W, K)`` (one colour: ``W`` may be background, ``K`` may be black), ``settle_masks(spec, masks)``
(any number of colours) and ``valid_starts(spec, masks)`` (per block, its valid starts) are the
compiled functions. The board and its fixed point over rows and columns are in
:mod:`formulations.lines.engine`.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..puzzle import BACKGROUND, Clue, Puzzle
try:
    from ._core import settle_bw, settle_masks, valid_starts
except ImportError as exc:  # a source tree without the build step
    raise ImportError("the compiled line core (formulations/lines/_core.c) is not built: run "
                      "`pip install -e .` (needs a C compiler and Python's headers)") from exc

__all__ = ["LineSpec", "settle_bw", "settle_masks", "valid_starts", "colour_table", "line_spec",
           "to_masks", "from_masks", "settle_line", "start_windows", "line_starts"]

LineSpec = tuple[int, tuple[int, ...], tuple[int, ...], tuple[bool, ...]]
"""(length, block lengths, block colour indices, gap-after-block flags) of one line."""


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
    found = valid_starts(spec, masks)
    if found is None:
        return None
    return [((v & -v).bit_length() - 1, v.bit_length() - 1) for v in found]


def line_starts(clue: Clue, cells: Sequence[int]) -> list[list[int]] | None:
    """Per block, the sorted start positions used by some valid placement (None: contradiction)."""
    colours = sorted({BACKGROUND} | {b.colour for b in clue}
                     | {c for d in cells for c in range(d.bit_length()) if d >> c & 1})
    cindex = {c: i for i, c in enumerate(colours)}
    spec = line_spec(clue, len(cells), cindex)
    n, lens = spec[0], spec[1]
    masks = to_masks(cells, colours)
    if not lens:
        return [] if masks[0] == (1 << n) - 1 else None
    found = valid_starts(spec, masks)
    if found is None:
        return None
    return [[p for p in range(n) if v >> p & 1] for v in found]
