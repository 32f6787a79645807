"""pynogram's INI-like text and nonogrid's TOML version of it (colour definitions, clue lists).

pynogram: ``[colors]`` lines ``g = (0, 204, 0) %``, ``[clues]`` ``columns =`` / ``rows =`` with
clues separated by commas and/or line ends, colour suffixes ``2g``; ``#`` / ``;`` comments.
nonogrid: ``[colors] defs = [...]``, ``[clues] columns = '''...'''`` multi-line strings.
"""
from __future__ import annotations

import re

from ..puzzle import BLACK, Block, Clue, PuzzleError
from .colours import distinct_rgb, name_rgb, parse_colour
from .common import Parsed, check_lengths, one_line, split_lines

INI_SECTION = re.compile(r"[ \t]*\[[ \t]*(clues|colors)[ \t]*\][ \t]*(?:[#;].*)?")


def ini_variant(text: str) -> str | None:
    """pynogram / nonogrid when a ``[clues]`` or ``[colors]`` section line is present; TOML if
    it also has a triple-quoted string or a ``defs = [`` list, which the INI form never has."""
    if not any(INI_SECTION.fullmatch(x) for x in split_lines(text)):
        return None
    if re.search(r'"""|\'\'\'|^\s*defs\s*=\s*\[', text, re.M):
        return "nonogrid"
    return "pynogram"


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


def parse_pynogram(text: str) -> Parsed:
    """pynogram's INI-like format: sections ``[clues]`` (keys ``columns``, ``rows``) and an
    optional ``[colors]`` (``name = (description) char``); a value runs on over the following
    lines until the next key or section. Other sections and keys are ignored, like pynogram."""
    sections: dict[str, dict[str, list[tuple[int | None, str]]]] = {}
    values: list[tuple[int | None, str]] | None = None
    current: str | None = None
    for i, raw in enumerate(split_lines(text), 1):
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


def parse_nonogrid(text: str) -> Parsed:
    """nonogrid's TOML: ``[clues] rows = "..."``, ``columns = "..."`` holding pynogram clue text,
    optional ``[colors] defs = ["name = (description) char", ...]``."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+)", str(e))
        line = int(m.group(1)) if m else (len(split_lines(text)) or None
                                          if "end of document" in str(e) else None)
        raise PuzzleError(f"malformed TOML: {one_line(str(e).split(' (at ')[0])}",
                          line=line) from None
    lines = split_lines(text)
    clues = data.get("clues")
    if not isinstance(clues, dict):
        raise PuzzleError("no [clues] table")
    section: dict[str, list[tuple[int | None, str]]] = {}
    for key in ("rows", "columns"):
        value = clues.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise PuzzleError(f"clues.{key} must be a string, not {type(value).__name__}")
        start = _toml_value_line(lines, key)
        section[key] = [(None if start is None else start + k, x)
                        for k, x in enumerate(split_lines(value))]
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
                defs: list[tuple[str, str, int | None]], anywhere: bool) -> Parsed:
    """Shared by pynogram and nonogrid: palette from the colour definitions, then the clues.

    Colour indices: a block without suffix is black (1); a colour named ``black`` is that one;
    the others get 2, 3, ... in definition order. The palette name is the description when it
    is a colour name (``(blue)``), otherwise the definition's own name (``g``)."""
    pp = Parsed()
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
        is_name = rgb is None or name_rgb(desc_name) is not None
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
    pp.letters = tuple((idx, name) for name, idx in index.items()
                       if idx > 1 and re.fullmatch(r"[a-z]", name))
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
    return check_lengths(blocks, tokens, line)
