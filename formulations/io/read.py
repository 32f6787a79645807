"""Reading puzzles: the format by extension, else by content, then the one parser for it.

Formats (``FORMATS``), each in its own module of this package:

* ``txt``    the project's own text format; ``dejoue`` picross-solver's ``GRID / ROWS / [ a b ]``
  text (may hold several); ``keen`` Kyle Keen / gramcracker text; ``nin`` JaCoP / Jakub Wilk;
  ``jcross`` SPOJ JCROSS input (several puzzles): :mod:`.text`;
* ``non``    Steve Simpson's ``.non`` incl. mikix's extensions: :mod:`.non`;
* ``xml``    webpbn XML, colour included: :mod:`.webpbn`;
* ``janko``  puzzlekit's janko JSON (many puzzles; :func:`iter_janko`): :mod:`.janko`;
* ``pynogram`` / ``nonogrid`` pynogram's INI-like text and nonogrid's TOML: :mod:`.pynogram`;
* ``nonograms_org`` a saved nonograms.org / nonograms.ru page (``.html``) or its ``var d=[[...]]``
  array: :mod:`.nonograms_org` (the picture is the goal);
* ``tournament`` the TAAI / TCGA / ICGA tournament sets (``$N`` then column and row clue lines;
  many puzzles, ``FILE::N`` by id): :mod:`.tournament`.

Every failure is one :class:`PuzzleError` line naming the file and, where it applies, the line.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from ..puzzle import Grid, Puzzle, PuzzleError
from .common import (CLUEISH, MAX_INPUT_BYTES, build, decode_text, guard, read_bytes, split_lines,
                     strip_comment)
from .janko import iter_janko, janko_entry, load_janko
from .non import parse_non
from .nonograms_org import looks_like_nonograms_org, parse_nonograms_org
from .pynogram import ini_variant, parse_nonogrid, parse_pynogram
from .text import (looks_nin, parse_dejoue, parse_jcross, parse_keen, parse_nin, parse_text,
                   text_variant)
from .tournament import looks_tournament, parse_tournament
from .webpbn import parse_xml

FORMATS: tuple[str, ...] = ("txt", "dejoue", "keen", "non", "xml", "nin", "janko", "pynogram",
                             "nonogrid", "jcross", "nonograms_org", "tournament")
"""Format names accepted as ``fmt`` by :func:`parse_puzzle`."""

EXTENSIONS: dict[str, str] = {
    ".txt": "text",  # one of txt / dejoue / keen / pynogram / jcross, decided by content
    ".non": "non",
    ".xml": "xml",
    ".pbn": "xml",
    ".nin": "nin",
    ".json": "janko",
    ".toml": "nonogrid",
    ".html": "nonograms_org",
    ".htm": "nonograms_org",
}
"""File extension -> format ("text" = any of the text variants)."""


def read_puzzle(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES) -> Puzzle:
    """The single puzzle in ``path``; format by extension, else by content. Only regular files
    of at most ``max_bytes`` are read (None lifts the cap); ``FILE::KEY`` selects one puzzle of
    a multi-puzzle file (:func:`read_selected`)."""
    path_text, _, key = str(path).partition("::")
    if key:
        return read_selected(path_text, key, max_bytes)[1]
    return read_puzzle_with_goal(path, max_bytes)[0]


def read_puzzle_with_goal(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES,
                          ) -> tuple[Puzzle, Grid | None]:
    """The puzzle in ``path`` and the solution image the file carries, if any
    (``.non`` ``goal``, webpbn ``<solution type="goal">``, janko ``solution``)."""
    return _single(_read_all(path, max_bytes), str(path))


def read_goal(path: str | Path) -> Grid | None:
    """Only the embedded solution of ``path`` (None when the file has none)."""
    return read_puzzle_with_goal(path)[1]


def read_puzzles(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES) -> list[Puzzle]:
    """Every puzzle in ``path``: dejoue text and webpbn XML may hold several, janko JSON many."""
    return [p for p, _ in _read_all(path, max_bytes)]


def read_selected(path: str | Path, key: str, max_bytes: int | None = MAX_INPUT_BYTES,
                  ) -> tuple[str, Puzzle]:
    """One puzzle of a multi-puzzle file, ``(name, puzzle)``: by key in a janko JSON file, by
    id in a tournament set, else the ``key``-th (from 0) of the file's puzzles."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        found = [q for k, q, _ in iter_janko(path, max_bytes) if k == key]
        if not found:
            raise PuzzleError(f"no puzzle with key {key!r}", path=str(path))
        return key, found[0]
    data = read_bytes(path, max_bytes)
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"$"):  # a tournament set: by id
        text = decode_text(data, str(path))
        found = guard(lambda: parse_tournament(text, only=key.lstrip("$")), str(path))[0][0]
        return found.name, found
    all_ = read_puzzles(path, max_bytes)
    if not key.isdigit() or int(key) >= len(all_):
        raise PuzzleError(f"no puzzle number {key!r} (file holds {len(all_)})", path=str(path))
    return all_[int(key)].name or f"{path.stem}#{key}", all_[int(key)]


def parse_puzzle(text: str, fmt: str | None = None, path: str | Path | None = None) -> Puzzle:
    """Parse ``text``; ``fmt`` one of :data:`FORMATS` (or ``"text"``: whichever text variant
    the content is), else guessed from ``path``'s extension and then the content. ``path`` is
    also named in error messages."""
    return parse_puzzle_with_goal(text, fmt, path)[0]


def parse_puzzle_with_goal(text: str, fmt: str | None = None,
                           path: str | Path | None = None) -> tuple[Puzzle, Grid | None]:
    """Like :func:`parse_puzzle`, also returning the embedded solution if there is one."""
    where = None if path is None else str(path)
    return _single(_parse_all(text, fmt, where), where)


def detect_format(text: str, path: str | Path | None = None) -> str | None:
    """The format name for ``text`` (extension of ``path`` first), or None if unrecognised."""
    if path is not None:
        ext = EXTENSIONS.get(Path(path).suffix.lower())
        if ext == "text":
            lines = split_lines(text)
            return "tournament" if looks_tournament(lines) else text_variant(lines)
        if ext is not None:
            return ext
    return _sniff(text)


def _read_all(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES,
              ) -> list[tuple[Puzzle, Grid | None]]:
    where = str(path)
    data = read_bytes(path, max_bytes)
    if not data.strip(b"\xef\xbb\xbf \t\r\n"):
        raise PuzzleError("empty file", path=where)
    fmt = EXTENSIONS.get(Path(path).suffix.lower())
    if fmt is None and data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        page = looks_like_nonograms_org(data.decode("utf-8", "replace"))
        fmt = "nonograms_org" if page else "xml"
    if fmt == "xml":
        # bytes, so that expat honours the encoding the XML declaration names
        return guard(lambda: parse_xml(data), where)
    return _parse_all(decode_text(data, where), None if fmt is None else fmt, where)


def _parse_all(text: str, fmt: str | None, where: str | None) -> list[tuple[Puzzle, Grid | None]]:
    if fmt is not None and fmt not in FORMATS and fmt != "text":
        raise PuzzleError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})", path=where)
    if fmt is None:
        fmt = detect_format(text, where)
    elif fmt == "text":
        lines = split_lines(text)
        fmt = "tournament" if looks_tournament(lines) else text_variant(lines)
    if not text.strip():
        raise PuzzleError("empty file", path=where)
    if fmt is None:
        raise PuzzleError("unknown puzzle format: neither the extension nor the content is "
                          "recognised", path=where)
    parser: Callable[[], list[tuple[Puzzle, Grid | None]]] = {
        "txt": lambda: [build(parse_text(text))],
        "dejoue": lambda: parse_dejoue(text),
        "keen": lambda: [build(parse_keen(text))],
        "non": lambda: [build(parse_non(text))],
        "nin": lambda: [build(parse_nin(text))],
        "xml": lambda: parse_xml(text),
        "janko": lambda: [janko_entry(k, v, where) for k, v in load_janko(text, where).items()],
        "pynogram": lambda: [build(parse_pynogram(text))],
        "nonogrid": lambda: [build(parse_nonogrid(text))],
        "jcross": lambda: parse_jcross(text),
        "nonograms_org": lambda: [parse_nonograms_org(text)],
        "tournament": lambda: parse_tournament(text),
    }[fmt]
    return guard(parser, where)


def _single(items: list[tuple[Puzzle, Grid | None]],
            where: str | None) -> tuple[Puzzle, Grid | None]:
    if not items:
        raise PuzzleError("file holds no puzzle", path=where)
    if len(items) > 1:
        raise PuzzleError(f"file holds {len(items)} puzzles, expected one: "
                          + _pick_one(items, where), path=where)
    return items[0]


def _pick_one(items: list[tuple[Puzzle, Grid | None]], where: str | None) -> str:
    """How to name one puzzle of a multi-puzzle file (``FILE::N``, or ``FILE::KEY`` for janko
    JSON), which the command lines, ``compare`` and ``read_puzzle`` all take."""
    file = where or "FILE"
    if file.lower().endswith(".json") and items[0][0].name:
        return f"name one by its key, e.g. {file}::{items[0][0].name}"
    if items[0][0].name.startswith("$"):  # a tournament set: by the puzzle's id
        return f"name one by its id, e.g. {file}::{items[0][0].name[1:]}"
    return f"name one by its number, {file}::0 to {file}::{len(items) - 1}"


def _sniff(text: str) -> str | None:
    s = text.lstrip("\ufeff \t\r\n")
    if looks_like_nonograms_org(text):
        return "nonograms_org"
    if s.startswith("<"):
        return "xml"
    if s.startswith("{"):
        return "janko"
    ini = ini_variant(text)
    if ini is not None:
        return ini
    if (re.search(r"(?im)^[ \t]*(width|height)[ \t]+\d+[ \t]*$", text)
            and re.search(r"(?im)^[ \t]*(rows|columns)[ \t]*$", text)):
        return "non"
    lines = split_lines(text)
    if looks_tournament(lines):
        return "tournament"
    if looks_nin(lines):
        return "nin"
    content = [c for c in (strip_comment(x) for x in lines) if c]
    if not content:
        return None
    first = content[0]
    word = first.split()[0].upper().rstrip(":")
    if CLUEISH.fullmatch(first) or first.startswith("[") or word in (
            "ROWS", "COLUMNS", "TITLE", "GRID", "COLOUR", "COLOR"):
        return text_variant(lines)
    return None
