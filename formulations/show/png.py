"""A solved grid as a PNG in the palette's real colours (matplotlib, imported when drawing)."""
from __future__ import annotations

from pathlib import Path

from ..puzzle import Grid, Puzzle
from .text import rgb


def save_png(puzzle: Puzzle, grid: Grid, path: str | Path, *, cell_px: int = 16) -> Path:
    """Draw the grid with the palette's real colours (matplotlib, imported here)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    h, w = len(grid), len(grid[0])
    img = np.array([[rgb(puzzle, v) for v in row] for row in grid], dtype=np.uint8)
    fig = plt.figure(figsize=(max(1.0, w * cell_px / 100), max(1.0, h * cell_px / 100)), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.imshow(img, interpolation="nearest")
    ax.set_xticks(np.arange(-0.5, w, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, h, 1), minor=True)
    ax.grid(which="minor", color="#bbbbbb", linewidth=0.3)
    ax.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out
