"""Steve Simpson's ``.non``, with mikix's extensions (``goal``, colour letters and ``color`` lines)."""
from __future__ import annotations

import html
import re

from ..puzzle import BLACK, Block, Clue, Grid, PuzzleError
from .common import DEFAULT_PALETTE, Parsed, check_lengths, plain_clue, split_lines, split_tokens
from .writers import NON_LETTERS, non_colour

# Shown for .non colour letters used without a ``color`` line ("the interface picks").
FALLBACK_RGB = ("#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#a65628", "#f781bf")


_NON_KEY = re.compile(r"([A-Za-z_]+)(?:\s+(.*))?")
_NON_CLUE_ITEM = re.compile(r"([+-]?\d+)([a-z]?)")


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        s = s[1:-1]
    return html.unescape(s)


def parse_non(text: str) -> Parsed:
    """Simpson ``.non``: keys in any order (width/height before rows/columns/goal), unknown
    lines ignored, each section exactly height/width lines where blank or ``0`` = empty."""
    pp = Parsed()
    lines = split_lines(text)
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
        (non_colour(ch), ch, declared.get(ch, FALLBACK_RGB[k % len(FALLBACK_RGB)]))
        for k, ch in enumerate(letters))
    return pp


def _non_clue(s: str, line: int, used: set[str]) -> Clue:
    tokens = split_tokens(s)
    fast = plain_clue(tokens, line)  # black numbers only: no letters to look for
    if fast is not None:
        return fast
    blocks = []
    for tok in tokens:
        m = _NON_CLUE_ITEM.fullmatch(tok)
        if not m:
            raise PuzzleError(f"non-numeric token {tok!r} in clue", line=line)
        if m.group(2):
            used.add(m.group(2))
        blocks.append(Block(int(m.group(1)), non_colour(m.group(2)) if m.group(2) else BLACK))
    return check_lengths(blocks, tokens, line)


def _non_goal(s: str, w: int, h: int, line: int) -> Grid:
    s = "".join(s.split())
    if len(s) != w * h:
        raise PuzzleError(f"goal has {len(s)} cells, expected {w}x{h} = {w * h}", line=line)
    cell = {"0": 0, **{ch: non_colour(ch) for ch in NON_LETTERS}}
    flat = [cell.get(ch, BLACK) for ch in s]
    return tuple(tuple(flat[r * w:(r + 1) * w]) for r in range(h))
