"""The classical solver: one line settled at a time (seed 003), the fixed point over rows and
columns, probing and depth-first search on top of it (seed 004), and seed 000's solver ladder."""
from .engine import UNKNOWN, Engine, FixedPoint, Step, clear_cache, fixed_point
from .search import SearchResult, solve_lines
from .settle import line_starts, settle_line

__all__ = ["UNKNOWN", "Engine", "FixedPoint", "Step", "clear_cache", "fixed_point",
           "SearchResult", "solve_lines", "line_starts", "settle_line"]
