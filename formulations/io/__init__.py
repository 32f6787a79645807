"""Puzzles in and out: readers for the formats found in the wild, writers for two of them."""
from .janko import iter_janko
from .read import (EXTENSIONS, FORMATS, detect_format, parse_puzzle, parse_puzzle_with_goal,
                   read_goal, read_puzzle, read_puzzle_with_goal, read_puzzles)
from .writers import write_non, write_text

__all__ = ["EXTENSIONS", "FORMATS", "detect_format", "iter_janko", "parse_puzzle",
           "parse_puzzle_with_goal", "read_goal", "read_puzzle", "read_puzzle_with_goal",
           "read_puzzles", "write_non", "write_text"]
