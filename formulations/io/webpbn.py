"""webpbn XML (``<puzzleset><puzzle type="grid">``), colour included; also Jan Wolter's survey files."""
from __future__ import annotations

import html
import re
from xml.etree import ElementTree as ET
from xml.parsers import expat

from ..puzzle import Block, Grid, Puzzle, PuzzleError
from .common import INT, Parsed, build, check_lengths


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


def parse_xml(data: str | bytes) -> list[tuple[Puzzle, Grid | None]]:
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
    return [build(_xml_puzzle(pz, lines)) for pz in puzzles]


def _xml_puzzle(pz: ET.Element, lines: dict[int, int]) -> Parsed:
    ln = lines.get(id(pz))
    kind = pz.get("type", "grid")
    if kind != "grid":
        raise PuzzleError(f"puzzle type {kind!r} is not supported (only 'grid')", line=ln)
    pp = Parsed(name=" ".join((pz.findtext("title") or "").split()), line=ln)

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
    keep: set[str | None] = {c.get("color", default) for c in pz.iter("count")}  # referenced
    keep |= {c.get("name") for c in pz.findall("color")}  # and explicitly defined ones
    pp.palette = tuple((index[n], n, defs[n][1]) for n in order if index[n] <= 1 or n in keep)
    pp.letters = tuple((index[n], defs[n][0]) for n in order if index[n] > 1 and n in keep
                       and re.fullmatch(r"[a-z]", defs[n][0]))

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
                if not INT.fullmatch(tok):
                    raise PuzzleError(f"non-numeric token {tok!r} in clue", line=cl)
                colour = cnt.get("color", default)
                if colour not in index:
                    raise PuzzleError(f"unknown colour {colour!r}", line=cl)
                blocks.append(Block(int(tok), index[colour]))
            target.append((check_lengths(blocks, tokens, lno), lno))

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
