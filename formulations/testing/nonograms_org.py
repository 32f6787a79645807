"""Synthetic nonograms.org arrays for tests and examples: :func:`encode_grid` writes a picture in
the record layout that :mod:`formulations.io.nonograms_org` decodes, with random moduli and
offsets, optional decoy runs that later records overwrite and trailing records.

It is **not** the site's generator (its real arrays carry other extra records); it only makes
arrays that the same decoding rule reads back to the same picture, so that the decoder's
arithmetic, ordering and page parsing can be tested without the site's data.
"""
from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence

from ..puzzle import Grid, line_runs


def _linear(value: int, rng: random.Random) -> list[int]:
    m = rng.randint(value + 2, value + 200)
    rc = rng.randrange(m)
    ra = rng.randint(max(0, value + rc - (m - 1)), min(m - 1, value + rc))
    rb = value + rc - ra
    return [ra + m * rng.randint(0, 2), rb + m * rng.randint(0, 2), rc + m * rng.randint(0, 2), m]


def _square(value: int, rng: random.Random) -> list[int]:
    x = max(0, math.isqrt(value) - rng.randint(0, 3))
    while True:
        rest = value - x * x
        y = rng.randint(max(0, (rest - 1) // 2 - 3), rest // 2) if rest > 1 else 0
        z = rest - 2 * y
        if z >= 0:
            break
    m = max(x, y, z) + rng.randint(1, 60)
    return [x + m * rng.randint(0, 1), y, z, m]


def encode_grid(grid: Grid | Sequence[Sequence[int]], palette: Sequence[str], *,
                puzzle_id: int = 0, seed: int = 0, decoys: int = 0, trailing: int = 0,
                flags: Sequence[int] | None = None) -> list[list[int]]:
    """An array whose decoding is ``grid`` (0 background, k the k-th code of ``palette``,
    ``"#rrggbb"`` strings). ``decoys`` random runs are painted first and then wiped by a
    background run per row; ``trailing`` random records follow the run block."""
    rng = random.Random(seed)
    height, width = len(grid), len(grid[0])
    colours = [tuple(int(h.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)) for h in palette]
    flags = list(flags) if flags is not None else [0] * len(colours)
    d = [_square(puzzle_id, rng), _linear(width, rng), _linear(height, rng),
         _linear(len(colours), rng)]
    key = [rng.randint(0, 150) for _ in range(4)]
    d.append(key)
    for (r, g, b), flag in zip(colours, flags):
        d.append([r + key[1], g + key[0], b + key[3], r + key[2] + flag])
    runs: list[tuple[int, int, int, int]] = []  # (start column, length, colour, row)
    for _ in range(decoys):
        row, start = rng.randrange(height), rng.randrange(width)
        runs.append((start, rng.randint(1, width - start), rng.randint(1, len(colours)), row))
    if decoys:
        runs.extend((0, width, 0, row) for row in range(height))
    for row, line in enumerate(grid):
        col = 0
        for block in line_runs(line):
            while line[col] != block.colour:
                col += 1
            runs.append((col, block.length, block.colour, row))
            col += block.length
    d.append(_square(len(runs), rng))
    off = [rng.randint(0, 120) for _ in range(4)]
    d.append(off)
    for start, length, colour, row in runs:
        d.append([start + 1 + off[0], length + off[1], colour + off[2], row + 1 + off[3]])
    for _ in range(trailing):
        d.append([rng.randint(0, 300) for _ in range(3)] + [rng.randint(1, 300)])
    return d


def page(d: list[list[int]], title: str = "") -> str:
    """A minimal HTML page (not a copy of the site's) holding ``var d=...`` as the sites do."""
    head = f'<span style="display:none" id="nonogram_title">{title}</span>\n' if title else ""
    return (f"<!DOCTYPE html>\n<html><head><title>synthetic page</title></head><body>\n{head}"
            f'<script type="text/javascript">\nvar d={json.dumps(d, separators=(",", ":"))};\n'
            "</script>\n</body></html>\n")
