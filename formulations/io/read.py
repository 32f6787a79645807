"""Reading puzzles: the format by extension, else by content, then the one parser for it.

The formats are the registry's (:mod:`.formats`: name, extensions, content test, parser,
writer), each parser in its own module of this package: ``txt`` (ours), ``dejoue``, ``keen``,
``nin`` and ``jcross`` (:mod:`.text`), ``non`` (:mod:`.non`), ``xml`` (:mod:`.webpbn`),
``janko`` (:mod:`.janko`), ``pynogram`` / ``nonogrid`` (:mod:`.pynogram`), ``nonograms_org``
(:mod:`.nonograms_org`), ``tournament`` (:mod:`.tournament`: the TAAI / TCGA / ICGA sets,
``FILE::N`` by the puzzle's id).

Every failure is one :class:`PuzzleError` line naming the file and, where it applies, the line.
"""
from __future__ import annotations

from pathlib import Path

from ..puzzle import Grid, Puzzle, PuzzleError
from . import formats as registry
from .common import MAX_INPUT_BYTES, decode_text, guard, read_bytes
from .janko import iter_janko
from .tournament import looks_tournament_bytes, parse_tournament

FORMATS: tuple[str, ...] = registry.names()
"""Format names accepted as ``fmt`` by :func:`parse_puzzle` (the registry's, at import)."""

EXTENSIONS: dict[str, str] = {e: registry.by_extension(e) or "" for e in registry.extensions()}
"""File extension -> format ("text" = any of the text variants; the registry's, at import)."""


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
    owner = registry.get_format(registry.by_extension(path.suffix) or "")
    if owner is not None and owner.keyed:
        found = [q for k, q, _ in iter_janko(path, max_bytes) if k == key]
        if not found:
            raise PuzzleError(f"no puzzle with key {key!r}", path=str(path))
        return key, found[0]
    data = read_bytes(path, max_bytes)
    if looks_tournament_bytes(data):  # a tournament set: by the puzzle's id
        text = decode_text(data, str(path))
        one = guard(lambda: parse_tournament(text, only=key.lstrip("$")), str(path))[0][0]
        return one.name, one
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
        owner = registry.by_extension(Path(path).suffix)
        if owner == registry.TEXT_FAMILY:
            return registry.family_member(owner, text)
        if owner is not None:
            return owner
    return registry.sniff(text)


def _read_all(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES,
              ) -> list[tuple[Puzzle, Grid | None]]:
    where = str(path)
    data = read_bytes(path, max_bytes)
    if not data.strip(b"\xef\xbb\xbf \t\r\n"):
        raise PuzzleError("empty file", path=where)
    fmt = registry.by_extension(Path(path).suffix)
    if fmt is None and data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        fmt = registry.sniff(data.decode("utf-8", "replace"))
    owner = registry.get_format(fmt or "")
    if owner is not None and owner.parse_bytes is not None:
        # bytes, so that expat honours the encoding the XML declaration names
        parse_bytes = owner.parse_bytes
        return guard(lambda: parse_bytes(data, where), where)
    return _parse_all(decode_text(data, where), fmt, where)


def _parse_all(text: str, fmt: str | None, where: str | None) -> list[tuple[Puzzle, Grid | None]]:
    known = registry.names()
    if fmt is not None and fmt not in known and fmt != registry.TEXT_FAMILY:
        raise PuzzleError(f"unknown format {fmt!r} (known: {', '.join(known)})", path=where)
    if fmt is None:
        fmt = detect_format(text, where)
    elif fmt == registry.TEXT_FAMILY:
        fmt = registry.family_member(fmt, text)
    if not text.strip():
        raise PuzzleError("empty file", path=where)
    owner = registry.get_format(fmt) if fmt is not None else None
    if owner is None:
        raise PuzzleError("unknown puzzle format: neither the extension nor the content is "
                          "recognised", path=where)
    return guard(lambda: owner.parse(text, where), where)


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
    owner = registry.get_format(registry.by_extension(Path(file).suffix) or "")
    if owner is not None and owner.keyed and items[0][0].name:
        return f"name one by its key, e.g. {file}::{items[0][0].name}"
    if items[0][0].name.startswith("$"):  # a tournament set: by the puzzle's id
        return f"name one by its id, e.g. {file}::{items[0][0].name[1:]}"
    return f"name one by its number, {file}::0 to {file}::{len(items) - 1}"
