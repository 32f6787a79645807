"""Puzzles in and out: readers for the formats found in the wild, writers for two of them."""
from .janko import iter_janko
from .common import MAX_INPUT_BYTES, InputTooLarge
from .read import (EXTENSIONS, FORMATS, detect_format, parse_puzzle, parse_puzzle_with_goal,
                   read_goal, read_puzzle, read_puzzle_with_goal, read_puzzles, read_selected)
from .writers import write_non, write_text

__all__ = ["EXTENSIONS", "FORMATS", "detect_format", "iter_janko", "parse_puzzle",
           "parse_puzzle_with_goal", "read_goal", "read_puzzle", "read_puzzle_with_goal",
           "read_puzzles", "read_selected", "write_non", "write_text", "MAX_INPUT_BYTES",
           "InputTooLarge"]
