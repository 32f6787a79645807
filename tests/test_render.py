"""What a person sees: characters per colour with a legend, ANSI colours, PNG in real colours."""
from __future__ import annotations

import subprocess
import sys

import pytest

from formulations.io import read_puzzle
from formulations.show.png import save_png
from formulations.show.text import colour_chars, legend, render_text, rgb
from formulations.solving import solve_puzzle

from helpers import ROOT
FLAG = ROOT / "puzzles" / "flag_colour6.txt"


def test_colour_grid_uses_one_character_per_colour_and_a_legend():
    puzzle = read_puzzle(FLAG)
    r = solve_puzzle(puzzle, "cpsat")
    text = render_text(puzzle, r.grid)
    chars = colour_chars(puzzle)
    assert len(set(chars.values())) == len(chars)  # no two colours share a character
    lines = text.splitlines()
    for row, line in zip(r.grid, lines):
        assert line == "".join(chars[v] for v in row)
    assert lines[-1].startswith("legend:")
    for ch, name in legend(puzzle).items():
        assert f"{ch} {name}" in lines[-1]


def test_black_and_white_output_has_no_legend():
    puzzle = read_puzzle(ROOT / "puzzles" / "cat15.txt")
    r = solve_puzzle(puzzle, "cpsat")
    assert render_text(puzzle, r.grid).splitlines()[4] == ".#############."
    assert "legend" not in render_text(puzzle, r.grid)


def test_ansi_paints_each_cell_in_its_palette_colour():
    puzzle = read_puzzle(FLAG)
    r = solve_puzzle(puzzle, "cpsat")
    text = render_text(puzzle, r.grid, ansi=True)
    first = r.grid[0][0]
    red, green, blue = rgb(puzzle, first)
    assert text.startswith(f"\x1b[48;2;{red};{green};{blue}m")
    assert text.count("\x1b[0m") == puzzle.height * puzzle.width


def test_png_shows_the_palette_colours(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.image as mpimg

    puzzle = read_puzzle(FLAG)
    r = solve_puzzle(puzzle, "cpsat")
    out = save_png(puzzle, r.grid, tmp_path / "flag.png", cell_px=20)
    img = mpimg.imread(out)
    h, w = img.shape[:2]
    # Sample the centre of every cell: it has the cell's palette colour.
    for i, row in enumerate(r.grid):
        for j, v in enumerate(row):
            y = int((i + 0.5) * h / puzzle.height)
            x = int((j + 0.5) * w / puzzle.width)
            got = tuple(int(round(c * 255)) for c in img[y, x, :3])
            assert max(abs(a - b) for a, b in zip(got, rgb(puzzle, v))) <= 8, (i, j, got)


def test_cli_png_flag_writes_a_picture(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "cat.png"
    p = subprocess.run([sys.executable, "-m", "formulations.solve", "puzzles/cat15.txt", "--png", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- grids in comparison rows and their plots ---------------------------------------------------

def test_grid_text_keeps_one_character_per_cell_for_ten_colours_and_more():
    from formulations.puzzle import grid_from_cells, grid_to_strings
    from formulations.show.plots import parse_grid

    grid = ((0, 1, 10, 11), (12, 2, 9, 35), (36, 61, 0, 1))
    text = grid_to_strings(grid)
    assert [len(line) for line in text] == [4, 4, 4]
    assert text[0] == ".#ab"
    assert grid_from_cells(text) == grid
    assert parse_grid("/".join(text)) == [list(r) for r in grid]


def _rows_of(puzzle, backends=("cpsat",)):
    from formulations.harness import compare

    return compare([puzzle], list(backends), seeds=[0], time_limit=30, workers=1, progress=False)


def test_solved_grids_are_drawn_in_the_puzzles_palette():
    pytest.importorskip("matplotlib")
    from matplotlib.colors import to_hex

    from formulations.show import plots

    puzzle = read_puzzle(FLAG)
    rows = _rows_of(puzzle)
    assert rows[0]["verified"] and rows[0]["palette"]
    fig = plots.solved_grids(rows)
    cmap = fig.axes[0].images[0].cmap
    drawn = {to_hex(cmap(k)) for k in range(cmap.N)}
    for idx, _name, hexrgb in puzzle.palette:
        if idx in puzzle.colours:
            assert hexrgb.lower() in drawn, (idx, hexrgb, drawn)


def test_time_plot_counts_a_proven_infeasible_run_as_decided():
    pytest.importorskip("matplotlib")
    from formulations.show import plots

    rows = _rows_of(read_puzzle(ROOT / "puzzles" / "impossible3.txt"), ("cpsat",))
    assert rows[0]["status"] == "infeasible" and not rows[0]["verified"]
    fig = plots.time_vs_size(rows)
    _, labels = fig.axes[0].get_legend_handles_labels()
    assert labels == ["cpsat"]  # not "cpsat (1 undecided)"
    undecided = plots.time_vs_size([{**rows[0], "status": "unknown"}])
    assert undecided.axes[0].get_legend_handles_labels()[1] == ["cpsat (1 undecided)"]
