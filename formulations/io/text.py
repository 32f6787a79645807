"""The plain-text formats: the project's own, picross-solver's (dejoue), Kyle Keen's, ``.nin``
(JaCoP, Jakub Wilk) and SPOJ JCROSS, and how a ``.txt`` file is told to be which.

A ``.txt`` file is one of the text variants (ours, dejoue, keen, pynogram, jcross), told apart by
content: a ``[clues]`` / ``[colors]`` section line means pynogram, a file that is exactly the
JCROSS layout means jcross (:func:`text_variant`).
"""
from __future__ import annotations

import re

from ..puzzle import BLACK, Block, Clue, Grid, Puzzle, PuzzleError
from .colours import distinct_rgb, name_rgb
from .common import (CLUEISH, DEFAULT_PALETTE, INT, Parsed, black_clue, build, check_lengths,
                     plain_clue, split_lines, split_tokens, strip_comment)
from .pynogram import INI_SECTION, ini_variant
from .tournament import looks_tournament


def text_variant(lines: list[str]) -> str:
    """Tell the text formats apart: a first line ``$N`` is a tournament set; a
    ``[clues]``/``[colors]`` section line means pynogram (or
    nonogrid TOML); brackets or GRID mean dejoue; a COLUMNS line means ours; two
    blank-separated blocks of numbers are Kyle Keen's; exactly the JCROSS layout is jcross.
    Anything else is read as ours, whose parser then says what is wrong."""
    if looks_tournament(lines):
        return "tournament"
    if any(INI_SECTION.fullmatch(x) for x in lines):
        return ini_variant("\n".join(lines)) or "pynogram"
    content = [strip_comment(x) for x in lines]
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
    if len(blanks) == 1 and all(CLUEISH.fullmatch(x.strip()) for x in body):
        return "keen"
    if jcross_split(lines, quiet=True) is not None:
        return "jcross"
    return "txt"


def looks_nin(lines: list[str]) -> bool:
    content = [c for c in (strip_comment(x) for x in lines) if c]
    if not content or not re.fullmatch(r"\d+\s+\d+", content[0]):
        return False
    w, h = map(int, content[0].split())
    return len(content) - 1 == w + h and all(CLUEISH.fullmatch(c) for c in content[1:])


def parse_text(text: str) -> Parsed:
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
    name; without a code a CSS name gives its colour, as does a name whose last words are one
    (``sunny yellow`` is yellow), any other name a generated one. The letters are kept
    (``Puzzle.letters``): output shows ``COLOUR b navy`` as ``b``."""
    pp = Parsed()
    lines = split_lines(text)
    letters: dict[str, int] = {}  # declared colour letter -> colour index
    declared: list[tuple[str, str, str | None, int]] = []  # letter, name, rgb, line
    last = max((i for i, x in enumerate(lines)
                if x.strip() and not x.strip().startswith("#")), default=-1)
    section: str | None = None
    for i, raw in enumerate(lines[: last + 1], 1):
        if raw.strip().startswith("#"):
            continue
        content = strip_comment(raw)
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
        target.append((_text_clue(split_tokens(content), i, letters), i))
    if section is None and not pp.name and not declared:
        raise PuzzleError("empty file: no clues")
    if section != "columns":
        raise PuzzleError("missing COLUMNS section (a line COLUMNS before the column clues)")
    used = {rgb for _, _, rgb, _ in declared if rgb} | {"#ffffff", "#000000"}
    entries = []
    for letter, name, rgb, _ in declared:
        if rgb is None:
            rgb = name_rgb(name) or distinct_rgb(used)
            used.add(rgb)
        entries.append((letters[letter], name, rgb))
    pp.palette = DEFAULT_PALETTE + tuple(entries)
    pp.letters = tuple((letters[letter], letter) for letter, _, _, _ in declared)
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
    fast = plain_clue(tokens, line)
    if fast is not None:
        return fast
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
    return check_lengths(blocks, tokens, line)


def parse_dejoue(text: str) -> list[tuple[Puzzle, Grid | None]]:
    """picross-solver's format; blank lines are separators there, empty clues are ``[ ]``.
    Grids are checked as they end, so the first bad grid in the file is the one reported."""
    puzzles: list[tuple[Puzzle, Grid | None]] = []
    cur: Parsed | None = None
    sec: str | None = None  # "ROWS" / "COLUMNS" of the current grid

    def finish(p: Parsed | None) -> None:
        if p is None:
            return
        if not p.rows:
            raise PuzzleError(f"grid {p.name!r}: missing ROWS section", line=p.line)
        if not p.columns:
            raise PuzzleError(f"grid {p.name!r}: missing COLUMNS section", line=p.line)
        try:
            puzzles.append(build(p))
        except PuzzleError as e:
            raise PuzzleError(f"grid {p.name!r}: {e.message}",
                              line=e.line if e.line is not None else p.line) from None

    for i, raw in enumerate(split_lines(text), 1):
        c = strip_comment(raw)
        if not c:
            continue
        word = c.split()[0].upper()
        if word == "GRID":
            finish(cur)
            cur, sec = Parsed(name=c[4:].strip(), line=i), None
        elif word in ("ROWS", "COLUMNS") and len(c.split()) == 1:
            if cur is None:
                cur = Parsed(line=i)
            sec = word
        elif c.startswith("["):
            if cur is None or sec is None:
                raise PuzzleError("clue outside a ROWS or COLUMNS section", line=i)
            if not c.endswith("]"):
                raise PuzzleError(f"clue {c[:40]!r} lacks the closing ]", line=i)
            target = cur.rows if sec == "ROWS" else cur.columns
            target.append((black_clue(split_tokens(c[1:-1]), i), i))
        else:
            raise PuzzleError(f"unrecognised line {c[:40]!r}", line=i)
    finish(cur)
    if not puzzles:
        raise PuzzleError("no GRID in file")
    return puzzles


def parse_keen(text: str) -> Parsed:
    """Kyle Keen's solver format: row clues, one blank line, column clues; ``0`` = empty."""
    pp = Parsed()
    lines = split_lines(text)
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
        target.append((black_clue(split_tokens(c), i), i))
    if target is not pp.columns:
        raise PuzzleError("no blank line between row and column clues")
    return pp


def parse_nin(text: str) -> Parsed:
    """``.nin``: ``W H``, then H row lines, then W column lines; ``#`` comments and blank
    lines are skipped (``0`` is the empty clue)."""
    pp = Parsed()
    content = [(i, c) for i, c in ((i, strip_comment(x)) for i, x in enumerate(split_lines(text), 1))
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
        (pp.rows if k < h else pp.columns).append((black_clue(split_tokens(c), i), i))
    return pp


def jcross_split(lines: list[str], quiet: bool = False
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
            if not all(INT.fullmatch(t) for t in toks) or toks[-1] != "0":
                fail(f"puzzle {k + 1}: clue line should be numbers ending in 0", bl)
                return None
        out.append((ln, m, n, body))
        pos += 1 + m + n
    if pos != len(content) or count == 0:
        fail(f"text after the {count} puzzles the first line announces",
             content[pos][0] if pos < len(content) else None)
        return None
    return out


def parse_jcross(text: str) -> list[tuple[Puzzle, Grid | None]]:
    """SPOJ JCROSS: each clue line ends in 0 (alone = empty line); puzzles named 1, 2, ..."""
    out = []
    for k, (ln, m, _n, body) in enumerate(jcross_split(split_lines(text)) or [], 1):
        pp = Parsed(name=str(k), line=ln)
        for j, (bl, toks) in enumerate(body):
            (pp.rows if j < m else pp.columns).append((black_clue(toks[:-1], bl), bl))
        try:
            out.append(build(pp))
        except PuzzleError as e:
            raise PuzzleError(f"puzzle {k}: {e.message}",
                              line=e.line if e.line is not None else ln) from None
    return out
