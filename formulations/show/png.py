"""A solved grid as a PNG in the palette's real colours (matplotlib writes the file).

The picture is built as an array, cell by cell, so its size is known before anything is drawn:
the cell size shrinks to keep the longer side within a pixel budget (a 512x512 puzzle gets 8 px
cells, not an 8192-pixel-wide canvas), and the grid lines are drawn only while cells are big
enough to show them.
"""
from __future__ import annotations

from pathlib import Path

from ..puzzle import Grid, Puzzle
from .text import rgb

CELL_PX = 16
MAX_SIDE_PX = 4096
GRID_LINE = (187, 187, 187)


def cell_size(height: int, width: int, cell_px: int | None = None, max_side_px: int = MAX_SIDE_PX) -> int:
    """Pixels per cell: ``cell_px`` (default 16), less when the picture would exceed
    ``max_side_px`` on its longer side (at least 1)."""
    want = CELL_PX if cell_px is None else max(1, int(cell_px))
    return max(1, min(want, max_side_px // max(1, height, width)))


def grid_image(puzzle: Puzzle, grid: Grid, cell_px: int | None = None,
               max_side_px: int = MAX_SIDE_PX):
    """The picture as an ``(H, W, 3)`` uint8 array."""
    import numpy as np

    h, w = len(grid), len(grid[0])
    px = cell_size(h, w, cell_px, max_side_px)
    cells = np.asarray(grid, dtype=np.int64)
    colours = sorted({int(v) for v in np.unique(cells)})
    table = np.zeros((max(colours) + 1, 3), dtype=np.uint8)
    for c in colours:
        table[c] = rgb(puzzle, c)
    img = table[cells].repeat(px, axis=0).repeat(px, axis=1)
    if px >= 4:  # one-pixel grid lines between cells
        img[::px, :, :] = GRID_LINE
        img[:, ::px, :] = GRID_LINE
    return img


def save_png(puzzle: Puzzle, grid: Grid, path: str | Path, *, cell_px: int | None = None,
             max_side_px: int = MAX_SIDE_PX) -> Path:
    """Write the grid as a PNG with the palette's real colours (matplotlib, imported here)."""
    from matplotlib.image import imsave

    out = Path(path)
    imsave(out, grid_image(puzzle, grid, cell_px, max_side_px), format="png")
    return out
