"""Read puzzles from the file formats found in the wild into :class:`Puzzle`.

Every reader turns bad input into a one-line :class:`PuzzleError` naming the file and, where it
applies, the 1-based line, because benchmark runs load hundreds of files and a traceback from
deep inside a parser says nothing about which file or line is wrong.

Formats (``FORMATS``):

* ``txt``    the project's own text format (see :func:`parse_text`);
* ``dejoue`` picross-solver's ``GRID name / ROWS / [ a b ] ... / COLUMNS`` text (may hold several);
* ``keen``   Kyle Keen / gramcracker text: row clues, one blank line, column clues;
* ``non``    Steve Simpson's ``.non`` incl. mikix's extensions (``goal``, colour letters);
* ``xml``    webpbn XML (``<puzzleset><puzzle type="grid">``), colour included;
* ``nin``    JaCoP / Jakub Wilk ``.nin``: ``W H``, H row lines, W column lines;
* ``janko``  puzzlekit's janko JSON (many puzzles; see :func:`iter_janko`);
* ``pynogram`` pynogram's INI-like text: ``[colors]`` ``g = (0, 204, 0) %``, ``[clues]``
  ``columns =`` / ``rows =`` with clues separated by commas and/or line ends, colour suffixes
  ``2g``; ``#`` / ``;`` comments;
* ``nonogrid`` nonogrid's TOML version of the same (``[colors] defs = [...]``,
  ``[clues] columns = '''...'''`` multi-line strings);
* ``jcross`` SPOJ JCROSS input: puzzle count, then per puzzle ``M N``, M row lines and N column
  lines, each ending in ``0`` (several puzzles: use :func:`read_puzzles`).

A ``.txt`` file is one of the text variants (ours, dejoue, keen, pynogram, jcross), told apart by
content: a ``[clues]`` / ``[colors]`` section line means pynogram, a file that is exactly the
JCROSS layout means jcross.
"""
from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator
from xml.etree import ElementTree as ET
from xml.parsers import expat

from .colours import css_rgb, distinct_rgb, parse_colour
from .puzzle import BLACK, Block, Clue, Grid, Puzzle, PuzzleError, format_clue, min_length
from .writers import NON_LETTERS, non_colour, write_non, write_text

__all__ = [
    "FORMATS", "EXTENSIONS", "read_puzzle", "read_puzzle_with_goal", "read_goal", "read_puzzles",
    "parse_puzzle", "parse_puzzle_with_goal", "detect_format", "iter_janko",
    "write_text", "write_non",
]

FORMATS: tuple[str, ...] = ("txt", "dejoue", "keen", "non", "xml", "nin", "janko", "pynogram",
                             "nonogrid", "jcross")
"""Format names accepted as ``fmt`` by :func:`parse_puzzle`."""

EXTENSIONS: dict[str, str] = {
    ".txt": "text",  # one of txt / dejoue / keen / pynogram / jcross, decided by content
    ".non": "non",
    ".xml": "xml",
    ".pbn": "xml",
    ".nin": "nin",
    ".json": "janko",
    ".toml": "nonogrid",
}
"""File extension -> format ("text" = any of the text variants)."""

DEFAULT_PALETTE = ((0, "white", "#ffffff"), (1, "black", "#000000"))
# Shown for .non colour letters used without a ``color`` line ("the interface picks").
_FALLBACK_RGB = ("#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#a65628", "#f781bf")


# ----------------------------------------------------------------------------- public API


def read_puzzle(path: str | Path) -> Puzzle:
    """The single puzzle in ``path``; format by extension, else by content."""
    return read_puzzle_with_goal(path)[0]


def read_puzzle_with_goal(path: str | Path) -> tuple[Puzzle, Grid | None]:
    """The puzzle in ``path`` and the solution image the file carries, if any
    (``.non`` ``goal``, webpbn ``<solution type="goal">``, janko ``solution``)."""
    return _single(_read_all(path), str(path))


def read_goal(path: str | Path) -> Grid | None:
    """Only the embedded solution of ``path`` (None when the file has none)."""
    return read_puzzle_with_goal(path)[1]


def read_puzzles(path: str | Path) -> list[Puzzle]:
    """Every puzzle in ``path``: dejoue text and webpbn XML may hold several, janko JSON many."""
    return [p for p, _ in _read_all(path)]


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
            return _text_variant(_lines(text))
        if ext is not None:
            return ext
    return _sniff(text)


def iter_janko(path: str | Path) -> Iterator[tuple[str, Puzzle, Grid | None]]:
    """Yield ``(key, puzzle, solution)`` for each puzzle of a puzzlekit janko JSON file.

    Lazy in the puzzles (the file is one JSON document, so it is read whole), so that a caller
    sampling 50 of 2338 puzzles pays only for those."""
    where = str(path)
    data = _load_janko(_decode(_read_bytes(path), where), where)
    for key, entry in data.items():
        puzzle, goal = _janko_entry(key, entry, where)
        yield key, puzzle, goal


# ----------------------------------------------------------------------------- plumbing


@dataclass
class _Parsed:
    """A puzzle as read, before checking: each clue with the file line it came from."""
    rows: list[tuple[Clue, int | None]] = field(default_factory=list)
    columns: list[tuple[Clue, int | None]] = field(default_factory=list)
    name: str = ""
    palette: tuple[tuple[int, str, str], ...] = DEFAULT_PALETTE
    goal: Grid | None = None
    goal_line: int | None = None
    line: int | None = None  # where the puzzle starts, for whole-puzzle errors


def _read_bytes(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise PuzzleError("file not found", path=str(path)) from None
    except IsADirectoryError:
        raise PuzzleError("is a directory, not a puzzle file", path=str(path)) from None
    except OSError as e:
        raise PuzzleError(f"cannot read file: {e.strerror or e}", path=str(path)) from None


def _decode(data: bytes, where: str | None) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PuzzleError("file is not UTF-8 text", path=where,
                          line=data[:e.start].count(b"\n") + 1) from None


def _read_all(path: str | Path) -> list[tuple[Puzzle, Grid | None]]:
    where = str(path)
    data = _read_bytes(path)
    if not data.strip(b"\xef\xbb\xbf \t\r\n"):
        raise PuzzleError("empty file", path=where)
    fmt = EXTENSIONS.get(Path(path).suffix.lower())
    if fmt is None and data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        fmt = "xml"
    if fmt == "xml":
        # bytes, so that expat honours the encoding the XML declaration names
        return _guard(lambda: _parse_xml(data), where)
    return _parse_all(_decode(data, where), None if fmt is None else fmt, where)


def _parse_all(text: str, fmt: str | None, where: str | None) -> list[tuple[Puzzle, Grid | None]]:
    if fmt is not None and fmt not in FORMATS and fmt != "text":
        raise PuzzleError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})", path=where)
    if fmt is None:
        fmt = detect_format(text, where)
    elif fmt == "text":
        fmt = _text_variant(_lines(text))
    if not text.strip():
        raise PuzzleError("empty file", path=where)
    if fmt is None:
        raise PuzzleError("unknown puzzle format: neither the extension nor the content is "
                          "recognised", path=where)
    parser: Callable[[], list[tuple[Puzzle, Grid | None]]] = {
        "txt": lambda: [_build(_parse_text(text))],
        "dejoue": lambda: _parse_dejoue(text),
        "keen": lambda: [_build(_parse_keen(text))],
        "non": lambda: [_build(_parse_non(text))],
        "nin": lambda: [_build(_parse_nin(text))],
        "xml": lambda: _parse_xml(text),
        "janko": lambda: [_janko_entry(k, v, where) for k, v in _load_janko(text, where).items()],
        "pynogram": lambda: [_build(_parse_pynogram(text))],
        "nonogrid": lambda: [_build(_parse_nonogrid(text))],
        "jcross": lambda: _parse_jcross(text),
    }[fmt]
    return _guard(parser, where)


def _guard(fn: Callable[[], list[tuple[Puzzle, Grid | None]]],
           where: str | None) -> list[tuple[Puzzle, Grid | None]]:
    """Attach the path to PuzzleErrors and turn any other parser failure into one, so that
    callers need catch only PuzzleError whatever the input."""
    try:
        return fn()
    except PuzzleError as e:
        raise e.located(where) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as e:
        raise PuzzleError(f"cannot parse: {_one_line(f'{type(e).__name__}: {e}')}",
                          path=where) from e


def _single(items: list[tuple[Puzzle, Grid | None]],
            where: str | None) -> tuple[Puzzle, Grid | None]:
    if len(items) != 1:
        raise PuzzleError(f"file holds {len(items)} puzzles, expected one "
                          "(use read_puzzles or iter_janko)", path=where)
    return items[0]


def _one_line(s: str) -> str:
    return " ".join(str(s).split())


def _lines(text: str) -> list[str]:
    """Split on line ends only (str.splitlines also breaks on form feeds etc., which would
    make our line numbers disagree with editors)."""
    lines = re.split(r"\r\n|\r|\n", text.lstrip("\ufeff"))
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _build(pp: _Parsed) -> tuple[Puzzle, Grid | None]:
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
                    pp.palette)
    puzzle.validate()  # totals per colour; raises without a line, _guard adds the path
    if pp.goal is not None and (len(pp.goal) != h or any(len(r) != w for r in pp.goal)):
        raise PuzzleError(f"goal is not {h}x{w}", line=pp.goal_line)
    return puzzle, pp.goal


_INT = re.compile(r"[+-]?\d+")


def _clue(tokens: list[str], line: int | None) -> Clue:
    """Black clue from number tokens: none or a lone 0 is the empty clue; any other 0 or a
    negative number is an error, since it is almost always a typo or a broken converter."""
    lengths = []
    for tok in tokens:
        if not _INT.fullmatch(tok):
            raise PuzzleError(f"non-numeric token {tok!r} in clue", line=line)
        lengths.append(int(tok))
    return _check_lengths([Block(n) for n in lengths], tokens, line)


def _check_lengths(blocks: list[Block], tokens: list[str], line: int | None) -> Clue:
    if len(blocks) == 1 and blocks[0].length == 0:
        return ()
    for b in blocks:
        if b.length < 0:
            raise PuzzleError(f"negative block length {b.length} in clue {' '.join(tokens)}",
                              line=line)
        if b.length == 0:
            raise PuzzleError(f"zero-length block in clue {' '.join(tokens)} "
                              "(a lone 0 is the empty clue)", line=line)
    return tuple(blocks)


def _tokens(s: str) -> list[str]:
    return [t for t in re.split(r"[\s,]+", s.strip()) if t]


def _strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


# ----------------------------------------------------------------------------- sniffing

_CLUEISH = re.compile(r"[\d\s,+-]*")


def _sniff(text: str) -> str | None:
    s = text.lstrip("\ufeff \t\r\n")
    if s.startswith("<"):
        return "xml"
    if s.startswith("{"):
        return "janko"
    ini = _ini_variant(text)
    if ini is not None:
        return ini
    if (re.search(r"(?im)^[ \t]*(width|height)[ \t]+\d+[ \t]*$", text)
            and re.search(r"(?im)^[ \t]*(rows|columns)[ \t]*$", text)):
        return "non"
    lines = _lines(text)
    if _looks_nin(lines):
        return "nin"
    content = [c for c in (_strip_comment(x) for x in lines) if c]
    if not content:
        return None
    first = content[0]
    word = first.split()[0].upper().rstrip(":")
    if _CLUEISH.fullmatch(first) or first.startswith("[") or word in (
            "ROWS", "COLUMNS", "TITLE", "GRID", "COLOUR", "COLOR"):
        return _text_variant(lines)
    return None


_INI_SECTION = re.compile(r"[ \t]*\[[ \t]*(clues|colors)[ \t]*\][ \t]*(?:[#;].*)?")


def _ini_variant(text: str) -> str | None:
    """pynogram / nonogrid when a ``[clues]`` or ``[colors]`` section line is present; TOML if
    it also has a triple-quoted string or a ``defs = [`` list, which the INI form never has."""
    if not any(_INI_SECTION.fullmatch(x) for x in _lines(text)):
        return None
    if re.search(r'"""|\'\'\'|^\s*defs\s*=\s*\[', text, re.M):
        return "nonogrid"
    return "pynogram"


def _looks_nin(lines: list[str]) -> bool:
    content = [c for c in (_strip_comment(x) for x in lines) if c]
    if not content or not re.fullmatch(r"\d+\s+\d+", content[0]):
        return False
    w, h = map(int, content[0].split())
    return len(content) - 1 == w + h and all(_CLUEISH.fullmatch(c) for c in content[1:])


def _text_variant(lines: list[str]) -> str:
    """Tell the text formats apart: a ``[clues]``/``[colors]`` section line means pynogram (or
    nonogrid TOML); brackets or GRID mean dejoue; a COLUMNS line means ours; two
    blank-separated blocks of numbers are Kyle Keen's; exactly the JCROSS layout is jcross.
    Anything else is read as ours, whose parser then says what is wrong."""
    if any(_INI_SECTION.fullmatch(x) for x in lines):
        return _ini_variant("\n".join(lines)) or "pynogram"
    content = [_strip_comment(x) for x in lines]
    nonblank = [c for c in content if c]
    if any(c.startswith("[") or re.match(r"(?i)grid(\s|$)", c) for c in nonblank):
        return "dejoue"
    if any(c.upper().rstrip(":") in ("COLUMNS", "ROWS") or c.split()[0].upper() == "TITLE"
           for c in nonblank):
        return "txt"
    body = [x for x in lines if not x.strip().startswith("#")]
    while body and not body[-1].strip():
        body.pop()
    while body and not body[0].strip():
        body.pop(0)
    blanks = [i for i, x in enumerate(body) if not x.strip()]
    if len(blanks) == 1 and all(_CLUEISH.fullmatch(x.strip()) for x in body):
        return "keen"
    if _jcross_split(lines, quiet=True) is not None:
        return "jcross"
    return "txt"


# ----------------------------------------------------------------------------- text formats


def _parse_text(text: str) -> _Parsed:
    """The project format. Row clue lines, a ``COLUMNS`` line, column clue lines; numbers
    separated by spaces or commas; ``0`` or a blank line is an empty clue. Optional ``ROWS``
    line first and ``TITLE name`` line before it (the rest of that line, ``#`` included, is the
    name). ``#`` starts a comment; a comment-only line is no clue. Blank lines before the first
    clue and at the end of the file are ignored; header words are case-insensitive.

    Colour: before the clues, one ``COLOUR letter [name] [#rrggbb]`` line (``COLOR`` too) per
    colour, letter one of a-z; a block ``3r`` is then length 3 in colour ``r``, a block without a
    letter is black. Colour indices follow the declaration order (first declared = 2). On a
    COLOUR line a token of ``#`` and hex digits only is the colour code (six digits required);
    any other ``#`` starts a comment as on every other line. Without a name the letter is the
    name; without a code a CSS name gives its colour, any other name a generated one."""
    pp = _Parsed()
    lines = _lines(text)
    letters: dict[str, int] = {}  # declared colour letter -> colour index
    declared: list[tuple[str, str, str | None, int]] = []  # letter, name, rgb, line
    last = max((i for i, x in enumerate(lines)
                if x.strip() and not x.strip().startswith("#")), default=-1)
    section: str | None = None
    for i, raw in enumerate(lines[: last + 1], 1):
        if raw.strip().startswith("#"):
            continue
        content = _strip_comment(raw)
        word = content.split()[0].upper().rstrip(":") if content else ""
        if word == "TITLE":
            if section is not None:
                raise PuzzleError("TITLE must come before the clues", line=i)
            pp.name = raw.strip()[5:].lstrip(":").strip()
            continue
        if word in ("COLOUR", "COLOR"):
            if section is not None:
                raise PuzzleError("COLOUR lines must come before the clues", line=i)
            letter, name, rgb = _colour_line(raw, i)
            if letter in letters:
                raise PuzzleError(f"colour letter {letter!r} declared twice", line=i)
            letters[letter] = len(declared) + 2
            declared.append((letter, name, rgb, i))
            continue
        if word in ("ROWS", "COLUMNS") and len(content.split()) == 1:
            if word == "ROWS" and section is not None:
                raise PuzzleError("ROWS header after the row clues started", line=i)
            if word == "COLUMNS" and section == "columns":
                raise PuzzleError("second COLUMNS header", line=i)
            section = word.lower()
            continue
        if section is None:
            if not content:
                continue
            section = "rows"
        target = pp.rows if section == "rows" else pp.columns
        target.append((_text_clue(_tokens(content), i, letters), i))
    if section is None and not pp.name and not declared:
        raise PuzzleError("empty file: no clues")
    if section != "columns":
        raise PuzzleError("missing COLUMNS section (a line COLUMNS before the column clues)")
    used = {rgb for _, _, rgb, _ in declared if rgb} | {"#ffffff", "#000000"}
    entries = []
    for letter, name, rgb, _ in declared:
        if rgb is None:
            rgb = css_rgb(name) or distinct_rgb(used)
            used.add(rgb)
        entries.append((letters[letter], name, rgb))
    pp.palette = DEFAULT_PALETTE + tuple(entries)
    return pp


_TEXT_BLOCK = re.compile(r"([+-]?\d+)([a-z]?)")
_HEX_TOKEN = re.compile(r"#[0-9A-Fa-f]+")


def _colour_line(raw: str, line: int) -> tuple[str, str, str | None]:
    """``COLOUR letter [name] [#rrggbb]`` -> (letter, name, rgb or None)."""
    tokens = raw.split()[1:]
    words: list[str] = []
    rgb: str | None = None
    for tok in tokens:
        if tok.startswith("#"):
            if rgb is None and _HEX_TOKEN.fullmatch(tok):
                if len(tok) != 7:
                    raise PuzzleError(f"colour code {tok!r} needs six hex digits (#rrggbb)",
                                      line=line)
                rgb = tok.lower()
                continue
            break  # a comment
        if rgb is not None:
            raise PuzzleError(f"unexpected {tok!r} after the colour code", line=line)
        if "#" in tok:
            words.append(tok.split("#", 1)[0])
            break
        words.append(tok)
    if not words:
        raise PuzzleError("COLOUR needs a letter: COLOUR r [name] [#rrggbb]", line=line)
    letter, name = words[0], " ".join(words[1:])
    if not re.fullmatch(r"[a-z]", letter):
        raise PuzzleError(f"colour letter {letter!r} must be one lowercase letter a-z", line=line)
    return letter, name or letter, rgb


def _text_clue(tokens: list[str], line: int, letters: dict[str, int]) -> Clue:
    """A clue of the project format: numbers with an optional declared colour letter."""
    blocks = []
    for tok in tokens:
        m = _TEXT_BLOCK.fullmatch(tok)
        if not m:
            if re.match(r"[+-]?\d", tok):
                raise PuzzleError(f"bad token {tok!r} in clue (a colour suffix is one lowercase "
                                  "letter declared by a COLOUR line)", line=line)
            raise PuzzleError(f"non-numeric token {tok!r} in clue", line=line)
        colour = BLACK
        if m.group(2):
            if m.group(2) not in letters:
                raise PuzzleError(f"undeclared colour {m.group(2)!r} in token {tok!r} (declare "
                                  f"it before the clues: COLOUR {m.group(2)} name #rrggbb)",
                                  line=line)
            colour = letters[m.group(2)]
        blocks.append(Block(int(m.group(1)), colour))
    return _check_lengths(blocks, tokens, line)


def _parse_dejoue(text: str) -> list[tuple[Puzzle, Grid | None]]:
    """picross-solver's format; blank lines are separators there, empty clues are ``[ ]``.
    Grids are checked as they end, so the first bad grid in the file is the one reported."""
    puzzles: list[tuple[Puzzle, Grid | None]] = []
    cur: _Parsed | None = None
    sec: str | None = None  # "ROWS" / "COLUMNS" of the current grid

    def finish(p: _Parsed | None) -> None:
        if p is None:
            return
        if not p.rows:
            raise PuzzleError(f"grid {p.name!r}: missing ROWS section", line=p.line)
        if not p.columns:
            raise PuzzleError(f"grid {p.name!r}: missing COLUMNS section", line=p.line)
        try:
            puzzles.append(_build(p))
        except PuzzleError as e:
            raise PuzzleError(f"grid {p.name!r}: {e.message}",
                              line=e.line if e.line is not None else p.line) from None

    for i, raw in enumerate(_lines(text), 1):
        c = _strip_comment(raw)
        if not c:
            continue
        word = c.split()[0].upper()
        if word == "GRID":
            finish(cur)
            cur, sec = _Parsed(name=c[4:].strip(), line=i), None
        elif word in ("ROWS", "COLUMNS") and len(c.split()) == 1:
            if cur is None:
                cur = _Parsed(line=i)
            sec = word
        elif c.startswith("["):
            if cur is None or sec is None:
                raise PuzzleError("clue outside a ROWS or COLUMNS section", line=i)
            if not c.endswith("]"):
                raise PuzzleError(f"clue {c[:40]!r} lacks the closing ]", line=i)
            target = cur.rows if sec == "ROWS" else cur.columns
            target.append((_clue(_tokens(c[1:-1]), i), i))
        else:
            raise PuzzleError(f"unrecognised line {c[:40]!r}", line=i)
    finish(cur)
    if not puzzles:
        raise PuzzleError("no GRID in file")
    return puzzles


def _parse_keen(text: str) -> _Parsed:
    """Kyle Keen's solver format: row clues, one blank line, column clues; ``0`` = empty."""
    pp = _Parsed()
    lines = _lines(text)
    while lines and not lines[-1].strip():
        lines.pop()
    target = pp.rows
    started = False
    for i, raw in enumerate(lines, 1):
        if raw.strip().startswith("#"):
            continue
        c = raw.strip()
        if not c:
            if not started:
                continue
            if target is pp.columns:
                raise PuzzleError("second blank line: expected row clues, one blank line, "
                                  "column clues", line=i)
            target = pp.columns
            continue
        started = True
        target.append((_clue(_tokens(c), i), i))
    if target is not pp.columns:
        raise PuzzleError("no blank line between row and column clues")
    return pp


def _parse_nin(text: str) -> _Parsed:
    """``.nin``: ``W H``, then H row lines, then W column lines; ``#`` comments and blank
    lines are skipped (``0`` is the empty clue)."""
    pp = _Parsed()
    content = [(i, c) for i, c in ((i, _strip_comment(x)) for i, x in enumerate(_lines(text), 1))
               if c]
    if not content:
        raise PuzzleError("empty file: no clues")
    ln, head = content[0]
    m = re.fullmatch(r"(\d+)\s+(\d+)", head)
    if not m:
        raise PuzzleError(f"first line should be 'width height', got {head[:40]!r}", line=ln)
    w, h = int(m.group(1)), int(m.group(2))
    body = content[1:]
    if len(body) != w + h:
        at = body[w + h][0] if len(body) > w + h else None
        raise PuzzleError(f"expected {h} row lines and {w} column lines for {w}x{h}, "
                          f"found {len(body)} clue lines", line=at if at else ln)
    for k, (i, c) in enumerate(body):
        (pp.rows if k < h else pp.columns).append((_clue(_tokens(c), i), i))
    return pp


# ----------------------------------------------------------------------------- .non

_NON_KEY = re.compile(r"([A-Za-z_]+)(?:\s+(.*))?")
_NON_CLUE_ITEM = re.compile(r"([+-]?\d+)([a-z]?)")


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        s = s[1:-1]
    return html.unescape(s)


def _parse_non(text: str) -> _Parsed:
    """Simpson ``.non``: keys in any order (width/height before rows/columns/goal), unknown
    lines ignored, each section exactly height/width lines where blank or ``0`` = empty."""
    pp = _Parsed()
    lines = _lines(text)
    dims: dict[str, int] = {}
    declared: dict[str, str] = {}  # colour letter -> "#rrggbb"
    used: set[str] = set()
    goal: tuple[str, int] | None = None
    done: set[str] = set()
    i = 0
    while i < len(lines):
        ln, s = i + 1, lines[i].strip()
        i += 1
        m = _NON_KEY.fullmatch(s)
        if not m:
            if s[:1].isdigit() and re.fullmatch(r"[\d\s,a-z+-]*", s):
                raise PuzzleError("clue line outside a rows/columns section (more clue lines "
                                  "than height/width?)", line=ln)
            continue  # unknown line: the format says ignore it
        key, rest = m.group(1).lower(), (m.group(2) or "").strip()
        if key in ("width", "height"):
            if key in dims:
                raise PuzzleError(f"second '{key}' line", line=ln)
            if not re.fullmatch(r"\d+", rest):
                raise PuzzleError(f"'{key}' needs a whole number, got {rest[:40]!r}", line=ln)
            dims[key] = int(rest)
        elif key in ("rows", "columns"):
            if rest:
                raise PuzzleError(f"unexpected text after '{key}': {rest[:40]!r}", line=ln)
            dim = "height" if key == "rows" else "width"
            if dim not in dims:
                raise PuzzleError(f"'{key}' before '{dim}'", line=ln)
            if key in done:
                raise PuzzleError(f"second '{key}' section", line=ln)
            done.add(key)
            n = dims[dim]
            target = pp.rows if key == "rows" else pp.columns
            for k in range(n):
                j = i + k
                if j >= len(lines):
                    raise PuzzleError(f"'{key}' section has {k} lines but {dim} is {n} "
                                      "(file ends)", line=ln)
                c = lines[j].strip()
                if c[:1].isalpha():
                    raise PuzzleError(f"'{key}' section has {k} lines but {dim} is {n}",
                                      line=j + 1)
                target.append((_non_clue(c, j + 1, used), j + 1))
            i += n
        elif key == "goal":
            goal = (_unquote(rest), ln)
        elif key == "title":
            pp.name = _unquote(rest)
        elif key == "color":
            cm = re.fullmatch(r"([a-z])\s+#?([0-9a-fA-F]{6})", rest)
            if not cm:
                raise PuzzleError(f"bad color line {s[:40]!r} (want: color a #rrggbb)", line=ln)
            declared[cm.group(1)] = "#" + cm.group(2).lower()
    for key in ("width", "height", "rows", "columns"):
        if key not in dims and key not in done:
            raise PuzzleError(f"missing '{key}'" + (" section" if key in ("rows", "columns")
                                                    else " line"))
    if goal is not None:
        used |= {ch for ch in goal[0] if ch in NON_LETTERS}
        pp.goal, pp.goal_line = _non_goal(goal[0], dims["width"], dims["height"], goal[1]), goal[1]
    letters = sorted(set(declared) | used, key=non_colour)
    pp.palette = DEFAULT_PALETTE + tuple(
        (non_colour(ch), ch, declared.get(ch, _FALLBACK_RGB[k % len(_FALLBACK_RGB)]))
        for k, ch in enumerate(letters))
    return pp


def _non_clue(s: str, line: int, used: set[str]) -> Clue:
    tokens = _tokens(s)
    blocks = []
    for tok in tokens:
        m = _NON_CLUE_ITEM.fullmatch(tok)
        if not m:
            raise PuzzleError(f"non-numeric token {tok!r} in clue", line=line)
        if m.group(2):
            used.add(m.group(2))
        blocks.append(Block(int(m.group(1)), non_colour(m.group(2)) if m.group(2) else BLACK))
    return _check_lengths(blocks, tokens, line)


def _non_goal(s: str, w: int, h: int, line: int) -> Grid:
    s = "".join(s.split())
    if len(s) != w * h:
        raise PuzzleError(f"goal has {len(s)} cells, expected {w}x{h} = {w * h}", line=line)
    cell = {"0": 0, **{ch: non_colour(ch) for ch in NON_LETTERS}}
    flat = [cell.get(ch, BLACK) for ch in s]
    return tuple(tuple(flat[r * w:(r + 1) * w]) for r in range(h))


# ----------------------------------------------------------------------------- webpbn XML


def _xml_tree(data: str | bytes) -> tuple[ET.Element, dict[int, int]]:
    """Parse with expat directly so that each element keeps its line number."""
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate("utf-8" if isinstance(data, str) else None)
    lines: dict[int, int] = {}

    def start(tag: str, attrs: dict[str, str]) -> None:
        lines[id(builder.start(tag, attrs))] = parser.CurrentLineNumber

    def skipped(name: str, is_param: int) -> None:
        # HTML entities (&copy;) that the unread external DTD would define
        if not is_param:
            builder.data(html.unescape(f"&{name};"))

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.SkippedEntityHandler = skipped
    parser.buffer_text = True
    try:
        parser.Parse(data.encode("utf-8") if isinstance(data, str) else data, True)
    except expat.ExpatError as e:
        raise PuzzleError(f"malformed XML: {expat.ErrorString(e.code)}", line=e.lineno) from None
    return builder.close(), lines


def _norm_rgb(s: str) -> str:
    s = s.strip().lstrip("#").lower()
    if re.fullmatch(r"[0-9a-f]{3}", s):
        s = "".join(ch * 2 for ch in s)
    if not re.fullmatch(r"[0-9a-f]{6}", s):
        raise ValueError(s)
    return "#" + s


def _parse_xml(data: str | bytes) -> list[tuple[Puzzle, Grid | None]]:
    """webpbn XML. Colour indices: 0 the background colour (``backgroundcolor``, default
    white), 1 the ``defaultcolor`` (default black; if that is the background, then black,
    else the first other colour), the rest in order of their ``<color>`` definitions. So
    black-and-white puzzles always use colour 1, whatever their colour is called."""
    root, lines = _xml_tree(data)
    if root.tag == "puzzle":
        puzzles = [root]
    elif root.tag == "puzzleset":
        puzzles = root.findall("puzzle")
    else:
        raise PuzzleError(f"root element <{root.tag}> is not <puzzleset>", line=lines.get(id(root)))
    if not puzzles:
        raise PuzzleError("no <puzzle> element", line=lines.get(id(root)))
    return [_build(_xml_puzzle(pz, lines)) for pz in puzzles]


def _xml_puzzle(pz: ET.Element, lines: dict[int, int]) -> _Parsed:
    ln = lines.get(id(pz))
    kind = pz.get("type", "grid")
    if kind != "grid":
        raise PuzzleError(f"puzzle type {kind!r} is not supported (only 'grid')", line=ln)
    pp = _Parsed(name=" ".join((pz.findtext("title") or "").split()), line=ln)

    defs: dict[str, tuple[str, str]] = {}  # name -> (char, rgb), in document order
    for c in pz.findall("color"):
        name = c.get("name")
        if not name:
            raise PuzzleError("<color> without a name", line=lines.get(id(c)))
        try:
            rgb = _norm_rgb(c.text or "")
        except ValueError:
            raise PuzzleError(f"colour {name!r}: bad RGB value {(c.text or '').strip()[:20]!r}",
                              line=lines.get(id(c))) from None
        defs[name] = (c.get("char", ""), rgb)
    for name, char, rgb in (("white", ".", "#ffffff"), ("black", "X", "#000000")):
        defs.setdefault(name, (char, rgb))  # implicit in the DTD
    background = pz.get("backgroundcolor", "white")
    default = pz.get("defaultcolor", "black")
    for what, name in (("backgroundcolor", background), ("defaultcolor", default)):
        if name not in defs:
            raise PuzzleError(f"{what} {name!r} is not a defined colour", line=ln)
    order = [background]
    if default != background:
        order.append(default)
    elif "black" != background:
        order.append("black")
    order += [n for n in defs if n not in order]
    index = {n: k for k, n in enumerate(order)}
    keep = {c.get("color", default) for c in pz.iter("count")}  # referenced colours
    keep |= {c.get("name") for c in pz.findall("color")}  # and explicitly defined ones
    pp.palette = tuple((index[n], n, defs[n][1]) for n in order if index[n] <= 1 or n in keep)

    for kind_name in ("rows", "columns"):
        found = [c for c in pz.findall("clues") if c.get("type") == kind_name]
        if len(found) != 1:
            raise PuzzleError(f"expected one <clues type=\"{kind_name}\">, found {len(found)}",
                              line=ln)
        target = pp.rows if kind_name == "rows" else pp.columns
        for line_el in found[0].findall("line"):
            lno = lines.get(id(line_el))
            blocks, tokens = [], []
            for cnt in line_el.findall("count"):
                cl = lines.get(id(cnt), lno)
                tok = (cnt.text or "").strip()
                tokens.append(tok)
                if not _INT.fullmatch(tok):
                    raise PuzzleError(f"non-numeric token {tok!r} in clue", line=cl)
                colour = cnt.get("color", default)
                if colour not in index:
                    raise PuzzleError(f"unknown colour {colour!r}", line=cl)
                blocks.append(Block(int(tok), index[colour]))
            target.append((_check_lengths(blocks, tokens, lno), lno))

    chars = {ch: index[n] for n, (ch, _) in defs.items() if ch}
    for sol in pz.findall("solution"):
        if sol.get("type", "goal") == "goal":
            img = sol.find("image")
            if img is None:
                continue
            pp.goal_line = lines.get(id(img))
            pp.goal = _xml_image(img.text or "", chars, pp.goal_line)
            break
    return pp


def _xml_image(text: str, chars: dict[str, int], line: int | None) -> Grid:
    rows = []
    for k, raw in enumerate(text.split("\n")):
        s = raw.strip()
        if not s:
            continue
        if len(s) >= 2 and s[0] == "|" and s[-1] == "|":
            s = s[1:-1]
        bad = [ch for ch in s if ch not in chars]
        if bad:
            raise PuzzleError(f"solution image uses undefined colour char {bad[0]!r}",
                              line=None if line is None else line + k)
        rows.append(tuple(chars[ch] for ch in s))
    return tuple(rows)


# ----------------------------------------------------------------------------- janko JSON


def _load_janko(text: str, where: str | None) -> dict:
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


def _janko_entry(key: str, entry: dict, where: str | None) -> tuple[Puzzle, Grid | None]:
    """problem = "R C" + C column lines + R row lines; solution = "R C" + R lines of x/-."""
    try:
        pp = _Parsed(name=str(key))
        problem = entry["problem"]
        if not isinstance(problem, str):
            raise PuzzleError("'problem' is not a string")
        lines = _lines(problem)
        m = re.fullmatch(r"\s*(\d+)\s+(\d+)\s*", lines[0] if lines else "")
        if not m:
            raise PuzzleError("problem line 1: want 'rows columns'")
        r, c = int(m.group(1)), int(m.group(2))
        if len(lines) - 1 != r + c:
            raise PuzzleError(f"problem has {len(lines) - 1} clue lines, expected {c} columns "
                              f"+ {r} rows")
        for k, s in enumerate(lines[1:]):
            try:
                clue = _clue(_tokens(s), None)
            except PuzzleError as e:
                raise PuzzleError(f"problem line {k + 2}: {e.message}") from None
            (pp.columns if k < c else pp.rows).append((clue, None))
        sol = entry.get("solution") or ""
        if isinstance(sol, str) and sol.strip():
            slines = [x for x in _lines(sol) if x.strip()]
            if len(slines) != r + 1 or any(len(x.split()) != c for x in slines[1:]):
                raise PuzzleError(f"solution is not {r}x{c}")
            cell = {"x": 1, "X": 1, "#": 1, "1": 1, "-": 0, ".": 0, "0": 0}
            try:
                pp.goal = tuple(tuple(cell[t] for t in x.split()) for x in slines[1:])
            except KeyError as e:
                raise PuzzleError(f"solution has unknown cell {e.args[0]!r}") from None
        return _build(pp)
    except PuzzleError as e:
        raise PuzzleError(f"puzzle {key}: {e.message}", path=where) from None
    except (TypeError, KeyError, AttributeError) as e:
        raise PuzzleError(f"puzzle {key}: malformed entry ({_one_line(e)})", path=where) from None


# ----------------------------------------------------------------------------- pynogram / nonogrid

_INI_HEADER = re.compile(r"\s*\[\s*([^\]]*?)\s*\]\s*")
_INI_KEY = re.compile(r"\s*([A-Za-z_][\w.-]*)\s*[=:](.*)")
_COLOUR_DEF = re.compile(r"\((.*?)\)\s*(\S*)\s*")
_INI_BLOCK = re.compile(r"(\d+)(\S*)")


def _ini_strip(raw: str, anywhere: bool) -> str:
    """Drop comments: a line starting with ``#``/``;``, and from an inline ``#``/``;`` on (any
    position for nonogrid, only after whitespace for pynogram, as its configparser does)."""
    if raw.strip()[:1] in ("#", ";"):
        return ""
    m = re.search(r"[#;]" if anywhere else r"\s[#;]", raw)
    return (raw[:m.start()] if m else raw).rstrip()


def _parse_pynogram(text: str) -> _Parsed:
    """pynogram's INI-like format: sections ``[clues]`` (keys ``columns``, ``rows``) and an
    optional ``[colors]`` (``name = (description) char``); a value runs on over the following
    lines until the next key or section. Other sections and keys are ignored, like pynogram."""
    sections: dict[str, dict[str, list[tuple[int, str]]]] = {}
    values: list[tuple[int, str]] | None = None
    current: str | None = None
    for i, raw in enumerate(_lines(text), 1):
        s = _ini_strip(raw, anywhere=False)
        if not s.strip():
            continue  # blank lines inside a value only separate clues visually
        m = _INI_HEADER.fullmatch(s)
        if m:
            current = m.group(1)
            if current in sections:
                raise PuzzleError(f"second [{current}] section", line=i)
            sections[current] = {}
            values = None
            continue
        m = _INI_KEY.fullmatch(s)
        if m:
            if current is None:
                raise PuzzleError(f"{m.group(1)!r} outside a section (want [clues] first)",
                                  line=i)
            key = m.group(1).lower()
            if key in sections[current]:
                raise PuzzleError(f"second {key!r} in [{current}]", line=i)
            values = sections[current][key] = [(i, m.group(2))]
            continue
        if values is None:
            raise PuzzleError(f"line {s.strip()[:40]!r} belongs to no key (want 'rows = ...')",
                              line=i)
        values.append((i, s))
    if "clues" not in sections:
        raise PuzzleError("no [clues] section")
    defs = [(k, v[0][1].strip(), v[0][0]) for k, v in sections.get("colors", {}).items()]
    for k, v in sections.get("colors", {}).items():
        if len(v) > 1:
            raise PuzzleError(f"colour {k!r}: definition runs over several lines", line=v[1][0])
    return _ini_puzzle(sections["clues"], defs, anywhere=False)


def _parse_nonogrid(text: str) -> _Parsed:
    """nonogrid's TOML: ``[clues] rows = "..."``, ``columns = "..."`` holding pynogram clue text,
    optional ``[colors] defs = ["name = (description) char", ...]``."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+)", str(e))
        line = int(m.group(1)) if m else (len(_lines(text)) or None
                                          if "end of document" in str(e) else None)
        raise PuzzleError(f"malformed TOML: {_one_line(str(e).split(' (at ')[0])}",
                          line=line) from None
    lines = _lines(text)
    clues = data.get("clues")
    if not isinstance(clues, dict):
        raise PuzzleError("no [clues] table")
    section: dict[str, list[tuple[int, str]]] = {}
    for key in ("rows", "columns"):
        value = clues.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise PuzzleError(f"clues.{key} must be a string, not {type(value).__name__}")
        start = _toml_value_line(lines, key)
        section[key] = [(None if start is None else start + k, x)
                        for k, x in enumerate(_lines(value))]
    colours = data.get("colors", {})
    raw_defs = colours.get("defs", []) if isinstance(colours, dict) else None
    if not isinstance(raw_defs, list) or not all(isinstance(d, str) for d in raw_defs):
        raise PuzzleError("colors.defs must be a list of strings like 'r = (red) *'")
    defs = []
    for d in raw_defs:
        ln = next((k for k, x in enumerate(lines, 1) if d in x), None)
        if "=" not in d:
            raise PuzzleError(f"bad colour definition {d[:40]!r} (want 'name = (description) "
                              "char')", line=ln)
        name, desc = d.split("=", 1)
        defs.append((name.strip().lower(), desc.strip(), ln))
    return _ini_puzzle(section, defs, anywhere=True)


def _toml_value_line(lines: list[str], key: str) -> int | None:
    """File line of the first line of a TOML string value (best effort, for messages)."""
    for k, x in enumerate(lines, 1):
        m = re.match(rf"\s*{key}\s*=\s*(\"\"\"|''')?(.*)", x)
        if m:
            return k + 1 if m.group(1) and not m.group(2).strip() else k
    return None


def _ini_puzzle(clues: dict[str, list[tuple[int | None, str]]],
                defs: list[tuple[str, str, int | None]], anywhere: bool) -> _Parsed:
    """Shared by pynogram and nonogrid: palette from the colour definitions, then the clues.

    Colour indices: a block without suffix is black (1); a colour named ``black`` is that one;
    the others get 2, 3, ... in definition order. The palette name is the description when it
    is a colour name (``(blue)``), otherwise the definition's own name (``g``)."""
    pp = _Parsed()
    index: dict[str, int] = {}
    entries: dict[int, tuple[str, str]] = {0: ("white", "#ffffff"), 1: ("black", "#000000")}
    pending = []  # unknown colour names, given a generated colour once the others are known
    for name, desc, ln in defs:
        m = _COLOUR_DEF.fullmatch(desc)
        if not name or not m:
            raise PuzzleError(f"bad colour definition {name} = {desc[:40]!r} (want "
                              "'name = (description) char')", line=ln)
        if name in index:
            raise PuzzleError(f"colour {name!r} defined twice", line=ln)
        try:
            rgb = parse_colour(m.group(1))
        except ValueError as e:
            raise PuzzleError(f"colour {name!r}: {e}", line=ln) from None
        idx = {"black": 1, "white": 0}.get(name, 2 + sum(1 for n in index if n not in
                                                         ("black", "white")))
        index[name] = idx
        desc_name = m.group(1).strip()
        is_name = rgb is None or css_rgb(desc_name) is not None
        label = desc_name if is_name else name
        if label in (n for n, _ in entries.values()) and idx > 1:
            label = name
        entries[idx] = (label, rgb or "")
        if rgb is None:
            pending.append(idx)
    used = {rgb for _, rgb in entries.values() if rgb}
    for idx in pending:
        rgb = distinct_rgb(used)
        used.add(rgb)
        entries[idx] = (entries[idx][0], rgb)
    pp.palette = tuple((k, *entries[k]) for k in sorted(entries))
    for key in ("rows", "columns"):
        if key not in clues:
            raise PuzzleError(f"missing '{key} =' in the clues")
        target = pp.rows if key == "rows" else pp.columns
        for ln, raw in clues[key]:
            s = _ini_strip(raw, anywhere)
            for item in s.strip().strip(",").split(","):
                item = item.strip().strip("'\"").strip()
                if item:
                    target.append((_ini_clue(item, ln, index), ln))
    return pp


def _ini_clue(item: str, line: int | None, index: dict[str, int]) -> Clue:
    blocks, tokens = [], item.split()
    for tok in tokens:
        m = _INI_BLOCK.fullmatch(tok)
        if not m:
            raise PuzzleError(f"non-numeric token {tok!r} in clue", line=line)
        suffix = m.group(2)
        colour = BLACK
        if suffix:
            colour = index.get(suffix, index.get(suffix.lower(), -1))
            if colour < 0:
                known = ", ".join(index) or "none"
                raise PuzzleError(f"undefined colour {suffix!r} in block {tok!r} (defined in "
                                  f"[colors]: {known})", line=line)
        blocks.append(Block(int(m.group(1)), colour))
    return _check_lengths(blocks, tokens, line)


# ----------------------------------------------------------------------------- SPOJ JCROSS


def _jcross_split(lines: list[str], quiet: bool = False
                  ) -> list[tuple[int, int, int, list[tuple[int, list[str]]]]] | None:
    """JCROSS layout -> [(first line, M, N, clue lines)], or None (quiet) / PuzzleError when the
    text is not exactly that layout."""
    content = [(i, x.split()) for i, x in enumerate(lines, 1) if x.strip()]

    def fail(msg: str, line: int | None) -> None:
        if not quiet:
            raise PuzzleError(msg, line=line)

    if not content or len(content[0][1]) != 1 or not content[0][1][0].isdigit():
        fail("first line should be the number of puzzles", content[0][0] if content else None)
        return None
    count, pos, out = int(content[0][1][0]), 1, []
    for k in range(count):
        if pos >= len(content):
            fail(f"file ends before puzzle {k + 1} of {count}", None)
            return None
        ln, head = content[pos]
        if len(head) != 2 or not all(t.isdigit() for t in head):
            fail(f"puzzle {k + 1}: want 'rows columns', got {' '.join(head)[:40]!r}", ln)
            return None
        m, n = int(head[0]), int(head[1])
        body = content[pos + 1: pos + 1 + m + n]
        if len(body) != m + n:
            fail(f"puzzle {k + 1}: file ends before its {m} row and {n} column lines", ln)
            return None
        for bl, toks in body:
            if not all(_INT.fullmatch(t) for t in toks) or toks[-1] != "0":
                fail(f"puzzle {k + 1}: clue line should be numbers ending in 0", bl)
                return None
        out.append((ln, m, n, body))
        pos += 1 + m + n
    if pos != len(content) or count == 0:
        fail(f"text after the {count} puzzles the first line announces",
             content[pos][0] if pos < len(content) else None)
        return None
    return out


def _parse_jcross(text: str) -> list[tuple[Puzzle, Grid | None]]:
    """SPOJ JCROSS: each clue line ends in 0 (alone = empty line); puzzles named 1, 2, ..."""
    out = []
    for k, (ln, m, _n, body) in enumerate(_jcross_split(_lines(text)) or [], 1):
        pp = _Parsed(name=str(k), line=ln)
        for j, (bl, toks) in enumerate(body):
            (pp.rows if j < m else pp.columns).append((_clue(toks[:-1], bl), bl))
        try:
            out.append(_build(pp))
        except PuzzleError as e:
            raise PuzzleError(f"puzzle {k}: {e.message}",
                              line=e.line if e.line is not None else ln) from None
    return out
