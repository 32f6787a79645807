"""What every puzzle reader shares: the parsed-but-unchecked puzzle, the checks that turn it into
a :class:`Puzzle` with errors naming the clue's line, and the small tokenising helpers.

Every reader turns bad input into a one-line :class:`PuzzleError` naming the file and, where it
applies, the 1-based line, because benchmark runs load hundreds of files and a traceback from
deep inside a parser says nothing about which file or line is wrong.
"""
from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..puzzle import Block, Clue, Grid, Puzzle, PuzzleError, block, format_clue, min_length

DEFAULT_PALETTE = ((0, "white", "#ffffff"), (1, "black", "#000000"))


@dataclass
class Parsed:
    """A puzzle as read, before checking: each clue with the file line it came from."""
    rows: list[tuple[Clue, int | None]] = field(default_factory=list)
    columns: list[tuple[Clue, int | None]] = field(default_factory=list)
    name: str = ""
    palette: tuple[tuple[int, str, str], ...] = DEFAULT_PALETTE
    letters: tuple[tuple[int, str], ...] = ()  # colour index -> the file's letter for it
    goal: Grid | None = None
    goal_line: int | None = None
    line: int | None = None  # where the puzzle starts, for whole-puzzle errors


MAX_INPUT_BYTES = 64 * 2**20
"""The largest puzzle file read by default (64 MB: the largest real puzzle files are a few MB);
``max_bytes`` lifts it."""


class InputTooLarge(PuzzleError):
    """A file over the input size cap (``max_bytes``)."""


def read_bytes(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES) -> bytes:
    """A puzzle file's bytes. Only regular files are read (a FIFO would block, a device such as
    ``/dev/zero`` never end), and at most ``max_bytes`` of them (None: no cap)."""
    where = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise PuzzleError("file not found", path=where) from None
    except OSError as e:
        raise PuzzleError(f"cannot read file: {e.strerror or e}", path=where) from None
    if stat.S_ISDIR(st.st_mode):
        raise PuzzleError("is a directory, not a puzzle file", path=where)
    if not stat.S_ISREG(st.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device"
                if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise PuzzleError(f"is {kind}, not a regular puzzle file", path=where)
    if max_bytes is not None and st.st_size > max_bytes:
        raise InputTooLarge(f"file is {size_text(st.st_size)}, over the input cap of "
                            f"{size_text(max_bytes)}", path=where)
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1) if max_bytes is not None else f.read()
    except OSError as e:
        raise PuzzleError(f"cannot read file: {e.strerror or e}", path=where) from None
    if max_bytes is not None and len(data) > max_bytes:  # it grew while being read
        raise InputTooLarge(f"file is over the input cap of {size_text(max_bytes)}",
                            path=where)
    return data


def size_text(n_bytes: int) -> str:
    """A file size for a message: bytes below a megabyte (a cap of 0.0001 MB is 104 bytes, not
    "0 MB"), else megabytes to three figures."""
    if n_bytes < 2**20:
        return f"{n_bytes:,} bytes"
    mb = n_bytes / 2**20
    return f"{mb:,.0f} MB" if mb >= 100 else f"{mb:.3g} MB"


def decode_text(data: bytes, where: str | None) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PuzzleError("file is not UTF-8 text", path=where,
                          line=data[:e.start].count(b"\n") + 1) from None


def guard(fn: Callable[[], list[tuple[Puzzle, Grid | None]]],
           where: str | None) -> list[tuple[Puzzle, Grid | None]]:
    """Attach the path to PuzzleErrors and turn any other parser failure into one, so that
    callers need catch only PuzzleError whatever the input."""
    try:
        return fn()
    except PuzzleError as e:
        raise e.located(where) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as e:
        raise PuzzleError(f"cannot parse: {one_line(f'{type(e).__name__}: {e}')}",
                          path=where) from e


def one_line(s: object) -> str:
    return " ".join(str(s).split())


def split_lines(text: str) -> list[str]:
    """Split on line ends only (str.splitlines also breaks on form feeds etc., which would
    make our line numbers disagree with editors)."""
    lines = re.split(r"\r\n|\r|\n", text.lstrip("\ufeff"))
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def build(pp: Parsed) -> tuple[Puzzle, Grid | None]:
    """Check clue by clue (so errors name the clue's line), then the whole puzzle."""
    h, w = len(pp.rows), len(pp.columns)
    if h == 0 or w == 0:
        raise PuzzleError(f"puzzle has {h} rows and {w} columns", line=pp.line)
    for kind, items, n in (("row", pp.rows, w), ("column", pp.columns, h)):
        for i, (clue, line) in enumerate(items):
            for b in clue:
                if b.length <= 0:
                    raise PuzzleError(f"{kind} {i + 1}: block of length {b.length}", line=line)
                if b.colour <= 0:
                    raise PuzzleError(f"{kind} {i + 1}: block of the background colour",
                                      line=line)
            if min_length(clue) > n:
                raise PuzzleError(f"{kind} {i + 1}: clue {format_clue(clue)} needs "
                                  f"{min_length(clue)} cells but the {kind} has {n}", line=line)
    puzzle = Puzzle(tuple(c for c, _ in pp.rows), tuple(c for c, _ in pp.columns), pp.name,
                    pp.palette, pp.letters)
    puzzle.validate()  # totals per colour; raises without a line, guard adds the path
    if pp.goal is not None and (len(pp.goal) != h or any(len(r) != w for r in pp.goal)):
        raise PuzzleError(f"goal is not {h}x{w}", line=pp.goal_line)
    return puzzle, pp.goal


INT = re.compile(r"[+-]?\d+")
CLUEISH = re.compile(r"[\d\s,+-]*")


def black_clue(tokens: list[str], line: int | None) -> Clue:
    """Black clue from number tokens: none or a lone 0 is the empty clue; any other 0 or a
    negative number is an error, since it is almost always a typo or a broken converter."""
    fast = plain_clue(tokens, line)
    if fast is not None:
        return fast
    lengths = []
    for tok in tokens:
        if not INT.fullmatch(tok):
            raise PuzzleError(f"non-numeric token {tok!r} in clue", line=line)
        lengths.append(int(tok))
    return check_lengths([Block(n) for n in lengths], tokens, line)


def check_lengths(blocks: list[Block], tokens: list[str], line: int | None) -> Clue:
    if len(blocks) == 1 and blocks[0].length == 0:
        return ()
    for b in blocks:
        if b.length < 0:
            raise PuzzleError(f"negative block length {b.length} in clue {_shown(tokens)}",
                              line=line)
        if b.length == 0:
            raise PuzzleError(f"zero-length block in clue {_shown(tokens)} "
                              "(a lone 0 is the empty clue)", line=line)
    return tuple(blocks)


def _shown(tokens: list[str], most: int = 12) -> str:
    """A clue's tokens for a message, shortened past ``most``."""
    if len(tokens) <= most:
        return " ".join(tokens)
    return " ".join(tokens[:most]) + f" ... ({len(tokens)} tokens)"


def plain_clue(tokens: list[str], line: int | None) -> Clue | None:
    """The black clue of tokens that are all plain numbers (the common case, read fast), or
    None when some token is anything else (the format's own parser then reads the line)."""
    if not all(t.isdigit() and t.isascii() for t in tokens):
        return None
    lengths = list(map(int, tokens))
    if lengths == [0]:
        return ()
    if 0 in lengths:
        raise PuzzleError(f"zero-length block in clue {_shown(tokens)} (a lone 0 is the empty "
                          "clue)", line=line)
    return tuple(map(block, lengths))


def split_tokens(s: str) -> list[str]:
    return [t for t in re.split(r"[\s,]+", s.strip()) if t]


def strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()
