"""puzzlekit's janko JSON: one document holding many puzzles (``{"data": {key: {"problem", "solution"}}}``)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from collections.abc import Iterator

from ..puzzle import Grid, Puzzle, PuzzleError
from .common import (MAX_INPUT_BYTES, Parsed, black_clue, build, decode_text, one_line,
                     read_bytes, split_lines, split_tokens)


def iter_janko(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES,
               ) -> Iterator[tuple[str, Puzzle, Grid | None]]:
    """Yield ``(key, puzzle, solution)`` for each puzzle of a puzzlekit janko JSON file.

    Lazy in the puzzles (the file is one JSON document, so it is read whole), so that a caller
    sampling 50 of 2338 puzzles pays only for those."""
    where = str(path)
    data = load_janko(decode_text(read_bytes(path, max_bytes), where), where)
    for key, entry in data.items():
        puzzle, goal = janko_entry(key, entry, where)
        yield key, puzzle, goal


def load_janko(text: str, where: str | None) -> dict:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise PuzzleError(f"malformed JSON: {e.msg}", path=where, line=e.lineno) from None
    data = obj.get("data", obj) if isinstance(obj, dict) else None
    if not isinstance(data, dict) or not all(isinstance(v, dict) and "problem" in v
                                             for v in data.values()):
        raise PuzzleError("not a puzzlekit janko file (want {'data': {key: {'problem': ...}}})",
                          path=where)
    return data


def janko_entry(key: str, entry: dict, where: str | None) -> tuple[Puzzle, Grid | None]:
    """problem = "R C" + C column lines + R row lines; solution = "R C" + R lines of x/-."""
    try:
        pp = Parsed(name=str(key))
        problem = entry["problem"]
        if not isinstance(problem, str):
            raise PuzzleError("'problem' is not a string")
        lines = split_lines(problem)
        m = re.fullmatch(r"\s*(\d+)\s+(\d+)\s*", lines[0] if lines else "")
        if not m:
            raise PuzzleError("problem line 1: want 'rows columns'")
        r, c = int(m.group(1)), int(m.group(2))
        if len(lines) - 1 != r + c:
            raise PuzzleError(f"problem has {len(lines) - 1} clue lines, expected {c} columns "
                              f"+ {r} rows")
        for k, s in enumerate(lines[1:]):
            try:
                clue = black_clue(split_tokens(s), None)
            except PuzzleError as e:
                raise PuzzleError(f"problem line {k + 2}: {e.message}") from None
            (pp.columns if k < c else pp.rows).append((clue, None))
        sol = entry.get("solution") or ""
        if isinstance(sol, str) and sol.strip():
            slines = [x for x in split_lines(sol) if x.strip()]
            if len(slines) != r + 1 or any(len(x.split()) != c for x in slines[1:]):
                raise PuzzleError(f"solution is not {r}x{c}")
            cell = {"x": 1, "X": 1, "#": 1, "1": 1, "-": 0, ".": 0, "0": 0}
            try:
                pp.goal = tuple(tuple(cell[t] for t in x.split()) for x in slines[1:])
            except KeyError as e:
                raise PuzzleError(f"solution has unknown cell {e.args[0]!r}") from None
        return build(pp)
    except PuzzleError as e:
        raise PuzzleError(f"puzzle {key}: {e.message}", path=where) from None
    except (TypeError, KeyError, AttributeError) as e:
        raise PuzzleError(f"puzzle {key}: malformed entry ({one_line(e)})", path=where) from None
