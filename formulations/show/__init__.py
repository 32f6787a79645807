"""Showing grids and results: text with colour (:mod:`.text`), PNG pictures (:mod:`.png`) and
plots of comparison rows (:mod:`.plots`; matplotlib is imported only when drawing)."""
from .text import colour_chars, grid_lines, legend, render_text, rgb

__all__ = ["colour_chars", "grid_lines", "legend", "render_text", "rgb"]
