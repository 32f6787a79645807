"""A new format is one registration: the readers, the harness's directory scan, the server's
request names, the command line's help and the page's list all learn it from the registry."""
from __future__ import annotations

import pytest
from helpers import run_cli

from formulations import check_grid, read_puzzle, solve_puzzle
from formulations.io import formats, parse_puzzle
from formulations.io.common import build
from formulations.io.common import Parsed
from formulations.puzzle import Block, PuzzleError


def _parse_clues(text: str, where: str | None):
    """A toy format: ``R:1 1;3`` and ``C:...`` lines, clues split by ``;``."""
    rows = cols = None
    for number, line in enumerate(text.splitlines(), 1):
        kind, _, body = line.partition(":")
        clues = [(tuple(Block(int(x)) for x in c.split()), number) for c in body.split(";")]
        if kind == "R":
            rows = clues
        elif kind == "C":
            cols = clues
        elif line.strip():
            raise PuzzleError(f"expected R: or C:, got {line[:20]!r}", line=number)
    if rows is None or cols is None:
        raise PuzzleError("needs an R: line and a C: line")
    return [build(Parsed(rows=rows, columns=cols, line=1))]


TOY = formats.Format("toy", "a test's clue lines", (".toy",), _parse_clues,
                     sniff=lambda text: text.startswith("R:"))


@pytest.fixture
def toy():
    formats.register(TOY)
    yield TOY
    formats.unregister(TOY.name)


def test_a_registered_format_is_read_by_extension_and_by_content(toy, tmp_path):
    path = tmp_path / "cross.toy"
    path.write_text("R:1;3;1\nC:1;3;1\n")
    puzzle = read_puzzle(path)
    assert (puzzle.height, puzzle.width) == (3, 3)
    assert parse_puzzle("R:1;3;1\nC:1;3;1\n").width == 3  # no name: sniffed
    result = solve_puzzle(puzzle, "lines")
    assert result.solved and check_grid(puzzle, result.grid) == []
    bad = tmp_path / "bad.toy"
    bad.write_text("R:1\nX:2\n")
    with pytest.raises(PuzzleError) as info:
        read_puzzle(bad)
    assert str(info.value).startswith(f"{bad}:2: ")


def test_the_harness_scan_and_the_server_names_learn_a_registered_format(toy, tmp_path):
    from formulations.harness import load_puzzles
    from formulations.serve.requests import file_name

    (tmp_path / "cross.toy").write_text("R:1;3;1\nC:1;3;1\n")
    (tmp_path / "skip.bin").write_text("R:1\nC:1\n")
    refs = load_puzzles([tmp_path])
    assert [r.name for r in refs] == ["cross"]
    assert file_name("mine", "toy") == "mine.toy"
    assert formats.by_extension(".toy") == "toy" and ".toy" in formats.extensions(scanned=True)


def test_without_registration_the_format_is_unknown(tmp_path):
    path = tmp_path / "cross.toy"
    path.write_text("R:1;3;1\nC:1;3;1\n")
    with pytest.raises(PuzzleError, match="unknown puzzle format"):
        read_puzzle(path)


def test_the_help_lists_the_registry():
    p = run_cli("--help")
    assert p.returncode == 0
    assert all(ext in " ".join(p.stdout.split()) for ext in formats.extensions())
