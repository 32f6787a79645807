"""nonograms.org / nonograms.ru pages: the puzzle array ``var d=[[a,b,c,m], ...];`` they carry.

The sites store no clues. Each puzzle page holds the solved picture, obfuscated as a JavaScript
array of four-number records, and the site's own script turns it into the clues. This module
decodes that array (from a saved page, a ``var d=...`` line or the bare array) into the picture,
and the picture into a :class:`~formulations.puzzle.Puzzle` with its palette; the picture is the
reader's goal grid (``read_puzzle_with_goal``).

The encoding (learned from what public decoders do: pynogram, nonogrid, Dorifor's archive and
others; facts, no code). Every record is ``[a, b, c, m]``; small numbers are hidden with the
fourth number ``m`` as a modulus, in two ways:

* *linear*: ``a % m + b % m - c % m``;
* *square*: ``(a % m) ** 2 + 2 * (b % m) + c % m``.

======================  ===============================================================
``d[0]``                puzzle id (square)
``d[1]``, ``d[2]``      width, height (linear)
``d[3]``                ``n``, the number of colours without the background (linear; 1 for b/w)
``d[4]``                the colour key ``K``
``d[5] .. d[4+n]``      colour k: red ``rec[0] - K[1]``, green ``rec[1] - K[0]``, blue
                        ``rec[2] - K[3]``; ``rec[3] - red - K[2]`` is a flag (its meaning is not
                        known; 1 for black on the real pages seen)
``d[5+n]``              ``R``, the number of run records (square)
``d[6+n]``              the run offset ``O``
next ``R`` records      one horizontal run each: start column ``rec[0] - O[0] - 1``, length
                        ``rec[1] - O[1]``, colour ``rec[2] - O[2]`` (0 = background), row
                        ``rec[3] - O[3] - 1``; applied in order, a later run overwrites
then                    a second block (a square count, an offset and exactly that many
                        records on the real pages seen); its meaning is not known and it is
                        not needed for the picture, so it is only counted
======================  ===============================================================

What is checked against real data (saved pages when the shared corpus has them, written for
8543 and 61475; three quoted records of nonograms.ru 1039) and what only against synthetic
arrays is listed in docs/python.md ("nonograms.org puzzles"). Every malformed or
oversized input is one :class:`~formulations.puzzle.PuzzleError` line (the reader adds the file
name).
"""
from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..puzzle import Grid, Puzzle, PuzzleError, line_runs
from .colours import CSS_COLOURS
from .common import Parsed, build

MAX_SIDE = 1000              #: largest accepted width or height (the sites go up to 200)
MAX_CELLS = 1_000_000        #: largest accepted width * height
MAX_COLOURS = 256            #: largest accepted number of colours
MAX_RECORDS = 1_000_000      #: largest accepted number of records
MAX_TEXT_CHARS = 32 << 20    #: largest accepted page or array text
MAX_VALUE = 10 ** 9          #: largest accepted number in a record
_MAX_DIGITS = 10             # longer numbers are refused before JSON parsing
_MAX_CANDIDATES = 100        # at most this many "d = [" spots are tried in one page
_HEADER = 5                  # id, width, height, colours, colour key

_ASSIGN = re.compile(r"(?<![\w$.])(?:(?:var|let|const)\s+)?d\s*=\s*(?=\[)")
_ARRAY_CHARS = re.compile(r"[\[\]\d,\s]*")
_BRACKET = re.compile(r"[\[\]]")
_LONG_NUMBER = re.compile(rf"\d{{{_MAX_DIGITS + 1},}}")
_TRAILING_COMMA = re.compile(r",\s*\]")
_LOOKS = re.compile(r"(?<![\w$.])d\s*=\s*\[\s*\[\s*\d")
_TITLE = re.compile(r'id="nonogram_title"[^>]*>([^<]{1,200})<')
_SIZE = re.compile(r"Size:\s*(\d+)\s*x\s*(\d+)")


def looks_like_nonograms_org(text: str) -> bool:
    """Whether ``text`` holds a ``d = [[digit...`` assignment or is a bare ``[[digit...`` array."""
    s = text.lstrip("\ufeff \t\r\n")
    return bool(re.match(r"\[\s*\[\s*\d", s)) or bool(_LOOKS.search(text))


@dataclass(frozen=True)
class Decoded:
    """Everything one array says (:func:`decode_details`)."""
    puzzle_id: int
    width: int
    height: int
    palette: tuple[tuple[int, str], ...]   # (colour k, "#rrggbb") in the site's order, k = 1..n
    flags: tuple[int, ...]                 # per colour, the fourth number's extra (meaning unknown)
    grid: Grid                             # 0 background, k colour k
    run_records: int                       # run records applied
    trailing_records: int                  # records after the run block (not needed)
    second_block: int | None               # their count when they form one counted block

    @property
    def is_colour(self) -> bool:
        return len(self.palette) > 1


def _fail(message: str, line: int | None = None) -> PuzzleError:
    return PuzzleError(" ".join(str(message).split()), line=line)


def _residues(rec: Sequence[int], where: str) -> tuple[int, int, int]:
    m = rec[3]
    if m <= 0:
        raise _fail(f"{where}: modulus (4th number) is {m}, it must be positive")
    return rec[0] % m, rec[1] % m, rec[2] % m


def linear(rec: Sequence[int], where: str = "record") -> int:
    """``a % m + b % m - c % m``: width, height and the number of colours."""
    x, y, z = _residues(rec, where)
    return x + y - z


def square(rec: Sequence[int], where: str = "record") -> int:
    """``(a % m) ** 2 + 2 * (b % m) + c % m``: the puzzle id and the record counts."""
    x, y, z = _residues(rec, where)
    return x * x + 2 * y + z


def _check_records(d: object) -> list[list[int]]:
    if not isinstance(d, list):
        raise _fail(f"puzzle array must be a list of 4-number lists, got {type(d).__name__}")
    if len(d) > MAX_RECORDS:
        raise _fail(f"puzzle array has {len(d)} records, more than the limit {MAX_RECORDS}")
    if len(d) < _HEADER + 3:
        raise _fail(f"puzzle array has only {len(d)} records, at least {_HEADER + 3} are needed")
    for i, rec in enumerate(d):
        if not isinstance(rec, (list, tuple)):
            raise _fail(f"record d[{i}] is a {type(rec).__name__}, expected a list of 4 integers")
        if len(rec) != 4:
            raise _fail(f"record d[{i}] has {len(rec)} numbers, expected 4")
        for v in rec:
            if type(v) is not int:  # bool and float refused on purpose
                raise _fail(f"record d[{i}] holds {v!r}, expected non-negative integers")
            if v < 0 or v > MAX_VALUE:
                raise _fail(f"record d[{i}] holds {v}, outside 0..{MAX_VALUE}")
    return d


def decode_details(d: list[list[int]], *, strict: bool = True) -> Decoded:
    """Decode a puzzle array. ``strict=False`` clips runs that reach past the grid's columns (as
    the site's script effectively does) instead of refusing them; a bad row or colour is always
    refused."""
    d = _check_records(d)
    puzzle_id = square(d[0], "d[0] (puzzle id)")
    width = linear(d[1], "d[1] (width)")
    height = linear(d[2], "d[2] (height)")
    n = linear(d[3], "d[3] (number of colours)")
    if not 1 <= width <= MAX_SIDE or not 1 <= height <= MAX_SIDE:
        raise _fail(f"decoded size {width}x{height} is outside 1..{MAX_SIDE} per side")
    if width * height > MAX_CELLS:
        raise _fail(f"decoded size {width}x{height} exceeds the limit of {MAX_CELLS} cells")
    if not 1 <= n <= MAX_COLOURS:
        raise _fail(f"decoded number of colours {n} is outside 1..{MAX_COLOURS}")
    block = _HEADER + n
    if len(d) < block + 2:
        raise _fail(f"array ends inside the colour table: {len(d)} records, {n} colours need "
                    f"at least {block + 2}")
    key = d[4]
    palette, flags = [], []
    for k in range(n):
        rec = d[_HEADER + k]
        red, green, blue = rec[0] - key[1], rec[1] - key[0], rec[2] - key[3]
        for name, v in (("red", red), ("green", green), ("blue", blue)):
            if not 0 <= v <= 255:
                raise _fail(f"colour {k + 1} (d[{_HEADER + k}]) decodes to {name}={v}, "
                            "outside 0..255")
        palette.append((k + 1, f"#{red:02x}{green:02x}{blue:02x}"))
        flags.append(rec[3] - red - key[2])
    runs = square(d[block], f"d[{block}] (number of run records)")
    first = block + 2
    if first + runs > len(d):
        raise _fail(f"d[{block}] announces {runs} run records but only {len(d) - first} follow")
    off = d[block + 1]
    grid = [[0] * width for _ in range(height)]
    for i in range(first, first + runs):
        rec = d[i]
        start, length = rec[0] - off[0] - 1, rec[1] - off[1]
        colour, row = rec[2] - off[2], rec[3] - off[3] - 1
        if length <= 0:
            continue  # the site's loop paints nothing for such a record
        if not 0 <= row < height:
            raise _fail(f"run record d[{i}] points at row {row}, outside 0..{height - 1}")
        if not 0 <= colour <= n:
            raise _fail(f"run record d[{i}] uses colour {colour}, outside 0..{n}")
        stop = start + length
        if start < 0 or stop > width:
            if strict:
                raise _fail(f"run record d[{i}] covers columns {start}..{stop - 1}, outside "
                            f"0..{width - 1}")
            start, stop = max(start, 0), min(stop, width)
            if start >= stop:
                continue
        grid[row][start:stop] = [colour] * (stop - start)
    trailing = len(d) - first - runs
    second = None
    after = first + runs
    if trailing >= 2 and d[after][3] > 0 and square(d[after]) == trailing - 2:
        second = trailing - 2
    return Decoded(puzzle_id, width, height, tuple(palette), tuple(flags),
                   tuple(tuple(r) for r in grid), runs, trailing, second)


# -- finding the array in a page ----------------------------------------------------------------

def _array_at(text: str, pos: int, *, bare: bool = False) -> list:
    """The two-level integer array starting at ``text[pos] == '['`` (``bare``: only whitespace
    and one ``;`` may follow). The bracket scan is linear and refuses deep nesting at once."""
    found = _ARRAY_CHARS.match(text, pos)
    assert found is not None  # the pattern matches the empty string too
    span = found.group(0)
    depth, end, records = 0, -1, 0
    for m in _BRACKET.finditer(span):
        if m.group(0) == "[":
            depth += 1
            if depth > 2:
                raise _fail("array is nested deeper than [[...]]")
            if depth == 2:
                records += 1
                if records > MAX_RECORDS:
                    raise _fail(f"array has more than the limit of {MAX_RECORDS} records")
        else:
            depth -= 1
            if depth < 0:
                raise _fail("array has an unmatched ']'")
            if depth == 0:
                end = m.end()
                break
    if end < 0:
        nxt = text[pos + len(span):pos + len(span) + 1]
        what = f"unexpected character {nxt!r}" if nxt else "end of text"
        raise _fail(f"array is not closed: {what} after {len(span)} characters")
    body = span[:end]
    if bare:
        rest = text[pos + end:].strip()
        if rest not in ("", ";"):
            raise _fail(f"unexpected text after the array: {rest[:20]!r}")
    if _LONG_NUMBER.search(body):
        raise _fail(f"array holds a number with more than {_MAX_DIGITS} digits")
    body = _TRAILING_COMMA.sub("]", body)  # JavaScript allows [1,2,], JSON does not
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise _fail(f"array is not a valid list of integer lists ({exc})") from None
    if not isinstance(value, list) or not all(isinstance(r, list) for r in value):
        raise _fail("array must have the form [[a,b,c,m],[a,b,c,m],...]")
    return value


def extract_array(text: str | bytes) -> tuple[list[list[int]], int]:
    """The raw puzzle array in ``text`` (a whole page, ``var d=[[...]];`` or a bare ``[[...]]``)
    and the line it starts on."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_TEXT_CHARS:
            raise _fail(f"input has {len(text)} bytes, more than the limit {MAX_TEXT_CHARS}")
        text = bytes(text).decode("utf-8", errors="replace")
    if len(text) > MAX_TEXT_CHARS:
        raise _fail(f"input has {len(text)} characters, more than the limit {MAX_TEXT_CHARS}")
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("["):
        pos = len(text) - len(stripped)
        return _array_at(text, pos, bare=True), text.count("\n", 0, pos) + 1
    first_error: PuzzleError | None = None
    for k, m in enumerate(_ASSIGN.finditer(text)):
        if k >= _MAX_CANDIDATES:
            break
        line = text.count("\n", 0, m.start()) + 1
        try:
            value = _array_at(text, m.end())
        except PuzzleError as exc:
            first_error = first_error or _fail(exc.message, line)
            continue
        if value and all(r and all(type(v) is int for v in r) for r in value):
            return value, line
        first_error = first_error or _fail("array after 'd =' does not hold integer lists", line)
    if first_error is not None:
        raise _fail(f"found 'd = [' but could not read it: {first_error.message}",
                    first_error.line)
    raise _fail("no puzzle array found: expected 'var d=[[...]]' (a nonograms.org page) or a "
                "bare '[[...]]'")


# -- the puzzle ----------------------------------------------------------------------------------

def _colour_name(rgb: str, taken: set[str]) -> str:
    """The CSS name of ``rgb``, else the nearest one (the palette keeps the exact code)."""
    want = tuple(int(rgb[i:i + 2], 16) for i in (1, 3, 5))

    def dist(code: str) -> int:
        return sum((int(code[i:i + 2], 16) - w) ** 2 for i, w in zip((1, 3, 5), want))

    name = min(CSS_COLOURS, key=lambda nm: (dist(CSS_COLOURS[nm]), nm))
    base, k = name, 2
    while name in taken:
        name, k = f"{base} {k}", k + 1
    taken.add(name)
    return name


def puzzle_colours(palette: Sequence[tuple[int, str]]) -> tuple[dict[int, int],
                                                                tuple[tuple[int, str, str], ...]]:
    """The package's colour index for each of the site's colours, and the palette.

    As everywhere in the package, 1 is black: the site's black (``#000000``), when it has one,
    becomes colour 1 and the others follow in the site's order (2, 3, ...); without black the
    site's order is kept (1, 2, ...). A single black colour is plain black and white. Names are
    the nearest CSS colour's (the palette keeps the exact code)."""
    black = next((k for k, rgb in palette if rgb == "#000000"), None)
    order = ([black] if black is not None else []) + [k for k, _ in palette if k != black]
    index = {k: i + 1 for i, k in enumerate(order)}
    if len(palette) == 1 and black is not None:
        return index, ((0, "white", "#ffffff"), (1, "black", "#000000"))
    code = dict(palette)
    taken = {"white"}
    return index, ((0, "white", "#ffffff"),) + tuple(
        (index[k], _colour_name(code[k], taken), code[k]) for k in order)


def page_title(text: str) -> str:
    """The puzzle's title as the page shows it (``<span id="nonogram_title">``), or ""."""
    m = _TITLE.search(text)
    return " ".join(html.unescape(m.group(1)).split()) if m else ""


def parse_nonograms_org(text: str, *, strict: bool = True) -> tuple[Puzzle, Grid]:
    """The puzzle drawn by the array in ``text`` and its picture (the goal grid), in the
    package's colour numbering (:func:`puzzle_colours`).

    The clues are the picture's runs (the sites derive them the same way); the name is the
    page's title, else ``nonograms.org ID``. A page whose ``Size: WxH`` disagrees with the
    array is refused (the layout would have changed)."""
    d, line = extract_array(text)
    try:
        dec = decode_details(d, strict=strict)
    except PuzzleError as exc:
        raise exc.located(line=line) from None
    size = _SIZE.search(text)
    if size and sorted(map(int, size.groups())) != sorted((dec.width, dec.height)):
        raise _fail(f"the page says Size: {size.group(1)}x{size.group(2)} but the array decodes "
                    f"to {dec.width}x{dec.height}", line)
    index, palette = puzzle_colours(dec.palette)
    index[0] = 0
    grid = tuple(tuple(index[v] for v in row) for row in dec.grid)
    pp = Parsed(name=page_title(text) or f"nonograms.org {dec.puzzle_id}", palette=palette,
                goal=grid, line=line)
    pp.rows = [(line_runs(row), line) for row in grid]
    pp.columns = [(line_runs([row[j] for row in grid]), line) for j in range(dec.width)]
    puzzle, goal = build(pp)
    assert goal is not None  # pp.goal is set above
    return puzzle, goal
