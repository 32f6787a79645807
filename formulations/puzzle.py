"""The puzzle value: clues per line, each block a length and a colour.

Colour 1 is black; 0 is always the background. Colour is part of the data from the start so
that colour nonograms need no change of representation, only of the builder and readers.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter, eq

BACKGROUND = 0
BLACK = 1


class PuzzleError(ValueError):
    """Bad puzzle input. ``str()`` is one line naming the file and, where known, the line."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        self.message = message
        self.path = path
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line is not None else f"{self.path}: "
        elif self.line is not None:
            where = f"line {self.line}: "
        return where + self.message

    def located(self, path: str | None = None, line: int | None = None) -> PuzzleError:
        """Return a copy that also names the file (and line) where the problem is."""
        return type(self)(self.message, path=self.path or path,
                          line=self.line if self.line is not None else line)


@dataclass(frozen=True)
class Block:
    length: int
    colour: int = BLACK


Clue = tuple[Block, ...]


def make_clue(items: Iterable[int | Block | tuple[int, int]]) -> Clue:
    """Build a clue from lengths, ``(length, colour)`` pairs or blocks; zero lengths are dropped
    only when the clue is the single ``0`` meaning an empty line."""
    blocks = []
    for it in items:
        if isinstance(it, Block):
            blocks.append(it)
        elif isinstance(it, tuple):
            blocks.append(Block(int(it[0]), int(it[1])))
        else:
            blocks.append(Block(int(it)))
    if len(blocks) == 1 and blocks[0].length == 0:
        return ()
    return tuple(blocks)


_BLOCKS: dict[tuple[int, int], Block] = {}


def block(length: int, colour: int = BLACK) -> Block:
    """The block of this length and colour, shared (blocks are immutable; a big puzzle file has
    hundreds of thousands of them and a handful of distinct ones)."""
    key = (length, colour)
    b = _BLOCKS.get(key)
    if b is None:
        b = Block(length, colour)
        if len(_BLOCKS) < 100_000:
            _BLOCKS[key] = b
    return b


def min_length(clue: Clue) -> int:
    """Cells a clue needs when packed: blocks plus one gap between same-coloured neighbours."""
    colours = list(map(attrgetter("colour"), clue))
    return sum(map(attrgetter("length"), clue)) + sum(map(eq, colours, colours[1:]))


def gaps(clue: Clue) -> list[int]:
    """Minimum gap after each block but the last: 1 between same colours, 0 otherwise."""
    return [1 if a.colour == b.colour else 0 for a, b in zip(clue, clue[1:])]


@dataclass(frozen=True)
class Puzzle:
    rows: tuple[Clue, ...]
    columns: tuple[Clue, ...]
    name: str = ""
    # colour index -> (name, "#rrggbb"); index 0 is the background.
    palette: tuple[tuple[int, str, str], ...] = field(
        default=((0, "white", "#ffffff"), (1, "black", "#000000")))
    # colour index -> the letter the file gave it (COLOUR b navy: b), kept for showing and
    # writing the puzzle; not part of what the puzzle is (equality, hashing)
    letters: tuple[tuple[int, str], ...] = field(default=(), compare=False)

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.columns)

    @property
    def colours(self) -> tuple[int, ...]:
        """Non-background colours used by any clue, sorted."""
        return tuple(sorted({b.colour for clue in self.rows + self.columns for b in clue}))

    @property
    def is_black_and_white(self) -> bool:
        return set(self.colours) <= {BLACK}

    @classmethod
    def from_clues(cls, rows: Sequence[Iterable], columns: Sequence[Iterable], name: str = "",
                   palette=None, validate: bool = True) -> Puzzle:
        p = cls(tuple(make_clue(c) for c in rows), tuple(make_clue(c) for c in columns), name,
                **({"palette": tuple(palette)} if palette is not None else {}))
        if validate:
            p.validate()
        return p

    def validate(self) -> None:
        """Raise PuzzleError for input no grid could satisfy for structural reasons."""
        if self.height == 0 or self.width == 0:
            raise PuzzleError(f"puzzle has {self.height} rows and {self.width} columns")
        for kind, clues, n in (("row", self.rows, self.width), ("column", self.columns, self.height)):
            for i, clue in enumerate(clues):
                for b in clue:
                    if b.length <= 0:
                        raise PuzzleError(f"{kind} {i + 1}: block of length {b.length} in clue "
                                          f"{format_clue(clue)}")
                    if b.colour <= 0:
                        raise PuzzleError(f"{kind} {i + 1}: block with background colour")
                if min_length(clue) > n:
                    raise PuzzleError(f"{kind} {i + 1}: clue {format_clue(clue)} needs "
                                      f"{min_length(clue)} cells but the {kind} has {n}")
        for c in self.colours:
            r = sum(b.length for clue in self.rows for b in clue if b.colour == c)
            k = sum(b.length for clue in self.columns for b in clue if b.colour == c)
            if r != k:
                what = "" if self.is_black_and_white else f" of colour {self.colour_name(c)}"
                raise PuzzleError(f"row clues paint {r} cells{what} but column clues paint {k}")

    def colour_name(self, c: int) -> str:
        for idx, name, _ in self.palette:
            if idx == c:
                return name
        return str(c)


def format_clue(clue: Clue, max_blocks: int | None = 12) -> str:
    """Clue as text: ``3 1`` for black, ``3r 1b`` style suffixes are left to writers. A clue of
    more than ``max_blocks`` blocks is shortened (messages stay one readable line)."""
    if not clue:
        return "0"
    if max_blocks is not None and len(clue) > max_blocks:
        head = " ".join(str(b.length) for b in clue[:max_blocks])
        return f"{head} ... ({len(clue)} blocks)"
    return " ".join(str(b.length) for b in clue)


Grid = tuple[tuple[int, ...], ...]
"""Cell colours by row; 0 background, 1 black, other indices from the palette."""


CELL_CHARS = ".#23456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""One character per colour index in plain grid text: ``.`` background, ``#`` black, then digits
and letters, so that a row is always one character per cell (colour 10 is ``a``, not ``10``)."""


def grid_to_strings(grid: Grid, chars: str = CELL_CHARS) -> list[str]:
    """Rows as text, one character per cell (``?`` for an index beyond ``chars``)."""
    return ["".join(chars[v] if 0 <= v < len(chars) else "?" for v in row) for row in grid]


def grid_from_strings(lines: Sequence[str], filled: str = "#") -> Grid:
    """A black-and-white grid from rows of text: characters in ``filled`` are black."""
    return tuple(tuple(1 if ch in filled else 0 for ch in line) for line in lines)


def grid_from_cells(lines: Sequence[str], chars: str = CELL_CHARS) -> Grid:
    """The inverse of :func:`grid_to_strings` (raises ValueError on a character not in ``chars``)."""
    index = {ch: k for k, ch in enumerate(chars)}
    try:
        return tuple(tuple(index[ch] for ch in line) for line in lines)
    except KeyError as exc:
        raise ValueError(f"cell character {exc.args[0]!r} is not one of {chars!r}") from None


def line_runs(cells: Sequence[int]) -> Clue:
    """The clue a line of cell colours shows."""
    out: list[Block] = []
    prev, run = BACKGROUND, 0
    for v in list(cells) + [BACKGROUND]:
        if v == prev:
            run += v != BACKGROUND
            continue
        if prev != BACKGROUND:
            out.append(Block(run, prev))
        prev, run = v, (1 if v != BACKGROUND else 0)
    return tuple(out)


def puzzle_from_grid(grid: Grid, name: str = "") -> Puzzle:
    """The puzzle whose solution (one of them) is ``grid``."""
    h, w = len(grid), len(grid[0])
    rows = tuple(line_runs(grid[i]) for i in range(h))
    cols = tuple(line_runs([grid[i][j] for i in range(h)]) for j in range(w))
    return Puzzle(rows, cols, name)


def check_grid(puzzle: Puzzle, grid: Grid) -> list[str]:
    """Every way ``grid`` fails the clues, as short messages; empty means it is a solution.

    This is the independent checker every backend's answer goes through.
    """
    problems = []
    if len(grid) != puzzle.height or any(len(r) != puzzle.width for r in grid):
        return [f"grid is not {puzzle.height}x{puzzle.width}"]
    # linear in the grid: one transpose for the columns, runs by splitting bytes (black and
    # white) or by groupby, compared with the clue as lengths or (colour, length) pairs
    bw = puzzle.is_black_and_white and all(min(r, default=0) >= 0 and max(r, default=0) <= 1
                                           for r in grid)
    for kind, lines, clues in (("row", grid, puzzle.rows), ("column", zip(*grid), puzzle.columns)):
        for i, (cells, clue) in enumerate(zip(lines, clues)):
            if bw:
                ok = [len(r) for r in bytes(cells).split(b"\0") if r] == [b.length for b in clue]
            else:
                ok = ([(v, len(list(g))) for v, g in groupby(cells) if v != BACKGROUND]
                      == [(b.colour, b.length) for b in clue])
            if not ok:
                problems.append(f"{kind} {i + 1}: shows {format_clue(line_runs(cells))}, "
                                f"clue {format_clue(clue)}")
    return problems


def is_solution(puzzle: Puzzle, grid: Grid | None) -> bool:
    return grid is not None and not check_grid(puzzle, grid)
