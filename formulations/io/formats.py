"""The format registry: every puzzle format the package reads (and writes), in one table that
the readers, the comparison harness's directory scans, the web server, the command line's help
and the page all read from.

A format is one :class:`Format`: its name, the extensions it owns, a content test (``sniff``),
the parser (text to puzzles, each with the solution image the file carries, if any) and, where
the package has one, a writer. Adding a format is one module with its parser and one
:func:`register` call (here for the package's own, anywhere for a plug-in: the readers ask the
registry at call time). The text variants that share ``.txt`` form the family ``text``, told
apart by content (:func:`formulations.io.text.text_variant`).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..puzzle import Grid, Puzzle
from .common import CLUEISH, build, split_lines, strip_comment
from .janko import janko_entry, load_janko
from .non import parse_non
from .nonograms_org import looks_like_nonograms_org, parse_nonograms_org
from .pynogram import ini_variant, parse_nonogrid, parse_pynogram
from .tournament import looks_tournament_text, parse_tournament
from .text import (looks_nin, parse_dejoue, parse_jcross, parse_keen, parse_nin, parse_text,
                   text_variant)
from .webpbn import parse_xml
from .writers import write_non, write_text

Puzzles = list[tuple[Puzzle, Grid | None]]
"""What a parser returns: every puzzle of the text, each with its solution image or None."""

TEXT_FAMILY = "text"
"""The family of the text variants that share ``.txt`` (told apart by content)."""


@dataclass(frozen=True)
class Format:
    """One puzzle format.

    ``parse(text, where)``: the puzzles of ``text`` (``where`` names the file in errors; a
    parser raises :class:`~formulations.puzzle.PuzzleError` naming the line). ``parse_bytes``:
    a parser that wants the file's bytes (XML honours its declared encoding). ``sniff(text)``:
    True when the content is this format (asked in registry order; None: only by extension or
    through its family). ``multi``: a file may hold several puzzles (``FILE::N`` picks one);
    ``keyed``: they are named by key (``FILE::KEY``, janko JSON). ``scanned``: a directory scan
    (``compare DIR``) reads files of this format. ``write(puzzle)``: the text of a file."""
    name: str
    title: str
    extensions: tuple[str, ...]
    parse: Callable[[str, str | None], Puzzles]
    sniff: Callable[[str], bool] | None = None
    family: str | None = None
    parse_bytes: Callable[[bytes, str | None], Puzzles] | None = None
    multi: bool = False
    keyed: bool = False
    scanned: bool = True
    write: Callable[[Puzzle], str] | None = None

    @property
    def extension(self) -> str:
        """The extension a file of this format is written with."""
        return self.extensions[0]


_REGISTRY: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Add ``fmt`` (a name taken already is replaced: a plug-in may override)."""
    _REGISTRY[fmt.name] = fmt
    return fmt


def unregister(name: str) -> None:
    """Remove a format (a plug-in's, or a test's)."""
    _REGISTRY.pop(name, None)


def formats() -> list[Format]:
    """Every registered format, in the order content is sniffed."""
    return list(_REGISTRY.values())


def get_format(name: str) -> Format | None:
    return _REGISTRY.get(name)


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def by_extension(suffix: str) -> str | None:
    """The format (or the family, ``text``) that owns a file extension such as ``.non``."""
    suffix = suffix.lower()
    for fmt in _REGISTRY.values():
        if suffix in fmt.extensions:
            return fmt.family or fmt.name
    return None


def extensions(*, scanned: bool = False) -> tuple[str, ...]:
    """The extensions of the registered formats (``scanned``: those a directory scan reads)."""
    out: list[str] = []
    for fmt in _REGISTRY.values():
        if scanned and not fmt.scanned:
            continue
        out.extend(e for e in fmt.extensions if e not in out)
    return tuple(out)


def family_member(family: str, text: str) -> str:
    """Which member of ``family`` the content is."""
    if family == TEXT_FAMILY:
        return text_variant(split_lines(text))
    raise ValueError(f"unknown format family {family!r}")


def sniff(text: str) -> str | None:
    """The format whose content test ``text`` passes first, else None."""
    for fmt in _REGISTRY.values():
        if fmt.sniff is not None and fmt.sniff(text):
            return family_member(fmt.family, text) if fmt.family else fmt.name
    return None


def describe() -> str:
    """The extensions for a help text: ``.txt, .non, .xml, ...``."""
    return ", ".join(extensions())


# -- the package's formats, in the order content is sniffed ------------------------------------

def _one(parse: Callable[[str], object]) -> Callable[[str, str | None], Puzzles]:
    return lambda text, where: [build(parse(text))]  # type: ignore[arg-type]


def _non_sniff(text: str) -> bool:
    return bool(re.search(r"(?im)^[ \t]*(width|height)[ \t]+\d+[ \t]*$", text)
                and re.search(r"(?im)^[ \t]*(rows|columns)[ \t]*$", text))


def _texty(text: str) -> bool:
    """A text variant's look: the first content line is a clue, a bracket or a keyword."""
    content = [c for c in (strip_comment(x) for x in split_lines(text)) if c]
    if not content:
        return False
    first = content[0]
    word = first.split()[0].upper().rstrip(":")
    return bool(CLUEISH.fullmatch(first) or first.startswith("[") or word in (
        "ROWS", "COLUMNS", "TITLE", "GRID", "COLOUR", "COLOR"))


register(Format("nonograms_org", "a saved nonograms.org / nonograms.ru page or its array",
                (".html", ".htm"), lambda text, where: [parse_nonograms_org(text)],
                sniff=looks_like_nonograms_org))
register(Format("xml", "webpbn XML (colour included)", (".xml", ".pbn"),
                lambda text, where: parse_xml(text),
                sniff=lambda text: text.lstrip("\ufeff \t\r\n").startswith("<"),
                parse_bytes=lambda data, where: parse_xml(data), multi=True))
register(Format("janko", "puzzlekit's janko JSON (many puzzles, by key)", (".json",),
                lambda text, where: [janko_entry(k, v, where)
                                     for k, v in load_janko(text, where).items()],
                sniff=lambda text: text.lstrip("\ufeff \t\r\n").startswith("{"),
                multi=True, keyed=True, scanned=False))
register(Format("pynogram", "pynogram's INI-like text", (".txt",), _one(parse_pynogram),
                sniff=lambda text: ini_variant(text) == "pynogram", family=TEXT_FAMILY))
register(Format("nonogrid", "nonogrid's TOML", (".toml",), _one(parse_nonogrid),
                sniff=lambda text: ini_variant(text) == "nonogrid"))
register(Format("non", "Steve Simpson's .non (with mikix's extensions)", (".non",),
                _one(parse_non), sniff=_non_sniff, write=write_non))
register(Format("nin", "JaCoP / Jakub Wilk's .nin", (".nin",), _one(parse_nin),
                sniff=lambda text: looks_nin(split_lines(text))))
register(Format("txt", "the project's own text format", (".txt",), _one(parse_text),
                sniff=_texty, family=TEXT_FAMILY, write=write_text))
register(Format("dejoue", "picross-solver's GRID / ROWS / [ a b ] text", (".txt",),
                lambda text, where: parse_dejoue(text), family=TEXT_FAMILY, multi=True))
register(Format("keen", "Kyle Keen / gramcracker text", (".txt",), _one(parse_keen),
                family=TEXT_FAMILY))
register(Format("jcross", "SPOJ JCROSS input (several puzzles)", (".txt",),
                lambda text, where: parse_jcross(text), family=TEXT_FAMILY, multi=True))
register(Format("tournament", "the TAAI / TCGA / ICGA tournament sets (many puzzles, by id)",
                (".txt",), lambda text, where: parse_tournament(text),
                sniff=looks_tournament_text, family=TEXT_FAMILY, multi=True))
