"""The TAAI / TCGA / ICGA computer-game tournament sets: many square puzzles in one text file.

Each puzzle is a ``$N`` line (its id in the set) and then 2n clue lines, numbers separated by
tabs (or spaces): the n column clues first, then the n row clues; an empty line is an empty clue.
The sets hold 1,000 puzzles of 25x25. ``FILE::N`` names the puzzle whose id is ``N``; each puzzle
is named ``$N``.

The known solutions come in a second file of the same layout (``$N`` then n lines of n 0/1
cells, often gzipped): :func:`read_tournament_solutions`.
"""
from __future__ import annotations

import gzip
import re
from pathlib import Path
from collections.abc import Iterator

from ..puzzle import Grid, Puzzle, PuzzleError
from .common import (MAX_INPUT_BYTES, Parsed, black_clue, build, decode_text, read_bytes,
                     split_lines, split_tokens)

_ID = re.compile(r"\$\s*(\d+)\s*")


def looks_tournament(lines: list[str]) -> bool:
    """A tournament set: its first non-blank line is ``$N``."""
    first = next((x for x in lines if x.strip()), "")
    return _ID.fullmatch(first.lstrip("\ufeff")) is not None


def looks_tournament_text(text: str) -> bool:
    """:func:`looks_tournament` on a whole text (the registry's content test)."""
    return looks_tournament(text.lstrip("\ufeff \t\r\n").split("\n", 1)[:1])


def looks_tournament_bytes(data: bytes) -> bool:
    """A tournament set, from the file's bytes (its first non-blank character is ``$``)."""
    return data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"$")


def _blocks(lines: list[str]) -> Iterator[tuple[str, int, list[tuple[int, str]]]]:
    """``(id, line of the $ line, [(line, text) of its body])`` per puzzle, lines 1-based."""
    start = next((i for i, x in enumerate(lines) if x.strip()), len(lines))
    if start == len(lines):
        raise PuzzleError("file holds no puzzle")
    head: tuple[str, int] | None = None
    body: list[tuple[int, str]] = []
    seen: set[str] = set()
    for i in range(start, len(lines)):
        m = _ID.fullmatch(lines[i].lstrip("\ufeff"))
        if m:
            if head is not None:
                yield head[0], head[1], body
            key = str(int(m.group(1)))
            if key in seen:
                raise PuzzleError(f"puzzle id ${key} appears twice", line=i + 1)
            seen.add(key)
            head, body = (key, i + 1), []
        elif head is None:
            raise PuzzleError("want a '$N' line starting the first puzzle", line=i + 1)
        elif lines[i].lstrip().startswith("$"):
            raise PuzzleError(f"malformed puzzle id line {lines[i].strip()!r} (want '$N')",
                              line=i + 1)
        else:
            body.append((i + 1, lines[i]))
    if head is not None:
        yield head[0], head[1], body


def _puzzle(key: str, at: int, body: list[tuple[int, str]], n: int | None,
            last: bool) -> tuple[Puzzle, Grid | None]:
    if last:  # blank lines past the last puzzle's clues are the file's end, not clues
        while len(body) > (n or 0) * 2 and body and not body[-1][1].strip():
            body = body[:-1]
    if len(body) % 2 or not body or (n is not None and len(body) != 2 * n):
        want = "an even number of" if n is None else f"{2 * n}"
        raise PuzzleError(f"puzzle ${key} has {len(body)} clue lines, expected {want} "
                          "(the columns' clues, then the rows')", line=at)
    size = len(body) // 2
    pp = Parsed(name=f"${key}", line=at)
    for k, (ln, text) in enumerate(body):
        (pp.columns if k < size else pp.rows).append((black_clue(split_tokens(text), ln), ln))
    try:
        return build(pp)
    except PuzzleError as e:
        raise PuzzleError(f"puzzle ${key}: {e.message}",
                          line=e.line if e.line is not None else at) from None


def parse_tournament(text: str, only: str | None = None) -> list[tuple[Puzzle, Grid | None]]:
    """Every puzzle of a set (or only the one with id ``only``), each named ``$id``. Every
    puzzle must be square and the size of the first; errors name the line."""
    lines = split_lines(text)
    blocks = list(_blocks(lines))
    n: int | None = None
    out = []
    for j, (key, at, body) in enumerate(blocks):
        last = j == len(blocks) - 1
        if n is None:
            p, goal = _puzzle(key, at, body, None, last)
            n = p.width
        elif only is None or key == only:
            p, goal = _puzzle(key, at, body, n, last)
        else:
            continue
        if only is None or key == only:
            out.append((p, goal))
    if only is not None and not out:
        raise PuzzleError(f"no puzzle ${only} (ids ${blocks[0][0]} to ${blocks[-1][0]})")
    return out


def iter_tournament(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES,
                    ) -> Iterator[tuple[str, Puzzle]]:
    """``(id, puzzle)`` for each puzzle of a set file, in file order."""
    where = str(path)
    try:
        for p, _ in parse_tournament(decode_text(read_bytes(path, max_bytes), where)):
            yield p.name[1:], p
    except PuzzleError as e:
        raise e.located(where) from None


def read_tournament_solutions(path: str | Path) -> dict[str, Grid]:
    """The known solutions of a set, by id: ``$N`` then n lines of n 0/1 cells (gzip allowed)."""
    where = str(path)
    data = read_bytes(path, None)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise PuzzleError(f"broken gzip data: {e}", path=where) from None
    out: dict[str, Grid] = {}
    try:
        for key, at, body in _blocks(split_lines(decode_text(data, where))):
            rows = [split_tokens(t) for _, t in body if t.strip()]
            if not rows or any(len(r) != len(rows[0]) for r in rows):
                raise PuzzleError(f"solution ${key} is not a rectangle of cells", line=at)
            try:
                out[key] = tuple(tuple({"0": 0, "1": 1}[c] for c in r) for r in rows)
            except KeyError as e:
                raise PuzzleError(f"solution ${key} has cell {e.args[0]!r} (want 0 or 1)",
                                  line=at) from None
    except PuzzleError as e:
        raise e.located(where) from None
    return out
