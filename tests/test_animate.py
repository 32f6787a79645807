"""The solving replayed: the recorded line updates, guesses and backtracks rebuild the grids the
solver saw; the animation keeps to its frame and pixel budgets, draws the palette's colours and
outlines the line being solved; GIF, HTML (with a working slider) and the command line."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from formulations import fixed_point, read_puzzle, solve_lines
from formulations.lines.engine import UNKNOWN, Step
from formulations.lines.replay import Backtrack, Guess, replay
from formulations.puzzle import puzzle_from_grid
from formulations.results import Status
from formulations.testing import conformance

PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

from formulations.show import animate as anim  # noqa: E402

from helpers import ROOT  # noqa: E402


def load(name):
    return read_puzzle(ROOT / "puzzles" / f"{name}.txt")


# -- the recording ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["cat15", "flower_colour8", "smiley25", "two_solutions4"])
def test_replayed_grids_are_what_the_solver_saw(name):
    puzzle = load(name)
    tr = replay(puzzle)
    assert tr.status is Status.SOLVED
    assert tr.grid in set(solve_lines(puzzle, max_solutions=2).solutions)
    truth = np.array(tr.grid)
    prev = None
    depth = 0
    stack = {}
    for ev, grid in tr.grids():
        g = np.array(grid)
        if isinstance(ev, Guess):
            stack[ev.depth] = prev
            depth = ev.depth
            assert g[ev.cell] == ev.colour
        elif isinstance(ev, Backtrack):
            assert np.array_equal(g, stack[ev.depth + 1])  # exactly the grid before the guess
            depth = ev.depth
        elif isinstance(ev, Step):
            changed = {(int(i), int(j)) for i, j in np.argwhere(g != prev)}
            assert changed == {(i, j) for i, j, _ in ev.fixed}  # only the cells it decided
            assert all(g[i, j] == c for i, j, c in ev.fixed)
        if depth == 0:  # line logic alone is sound: what it decides is the solution
            known = g != UNKNOWN
            assert np.array_equal(g[known], truth[known]) or name == "two_solutions4"
        prev = g
    assert np.array_equal(prev, truth)


def test_without_search_it_is_the_fixed_point():
    puzzle = load("cat15")
    tr = replay(puzzle, search=False)
    assert tr.events == fixed_point(puzzle, record=True).steps
    assert tr.status is Status.UNKNOWN and tr.guesses == 0


def test_cat15_needs_a_guess_and_a_backtrack():
    tr = replay(load("cat15"))
    assert (tr.guesses, tr.backtracks) == (2, 1)
    kinds = [type(e).__name__ for e in tr.events if not isinstance(e, Step)]
    assert kinds == ["Guess", "Backtrack", "Guess"]


def test_infeasible_and_truncated():
    tr = replay(conformance.impossible_12())  # needs search to prove it
    assert tr.status is Status.INFEASIBLE and tr.grid is None and tr.backtracks > 0
    cut = replay(conformance.impossible_12(), max_events=len(tr.events) // 2)
    assert cut.truncated and cut.status is Status.UNKNOWN and len(cut.events) < len(tr.events)


# -- frames and pictures -------------------------------------------------------------------------

def test_frames_keep_to_the_budget_and_end_on_the_solution():
    puzzle = load("smiley25")
    tr = replay(puzzle)
    everything = anim.frames(puzzle, tr, max_frames=1000)
    assert len(everything) == len(tr.events) + 2  # start, one per event, the verdict
    few = anim.frames(puzzle, tr, max_frames=20)
    assert len(few) <= 20
    assert (few[0].grid == UNKNOWN).all() and np.array_equal(few[-1].grid, np.array(tr.grid))
    assert few[-1].caption == "solved"
    assert re.fullmatch(r"line updates \d+-\d+ of 111", few[3].caption)


def test_a_final_grid_found_elsewhere_is_the_last_frame():
    puzzle = load("cat15")
    tr = replay(puzzle, search=False)
    grid = solve_lines(puzzle).solutions[0]
    fs = anim.frames(puzzle, tr, final=grid, final_caption="cpsat's verified solution")
    assert fs[-2].caption == "line solving stops here"
    assert np.array_equal(fs[-1].grid, np.array(grid)) and fs[-1].caption.startswith("cpsat")


def _rgb(image, i, j, c, x0, y0=anim._PAD):
    return image.getpixel((x0 + j * c + c // 4, y0 + i * c + c // 4))


def test_pictures_show_the_palette_the_line_and_the_guess():
    puzzle = load("flower_colour8")
    tr = replay(puzzle)
    fs = anim.frames(puzzle, tr)
    k = next(n for n, f in enumerate(fs) if f.line is not None and (f.grid == 2).any())
    im = anim.render(puzzle, fs[k])
    c = anim.cell_px(puzzle)
    x0 = (im.width - puzzle.width * c) // 2
    codes = {idx: tuple(int(code[i:i + 2], 16) for i in (1, 3, 5))
             for idx, _, code in puzzle.palette}
    g = fs[k].grid
    for (i, j), v in np.ndenumerate(g):
        got = _rgb(im, i, j, c, x0)
        if v == UNKNOWN:
            assert got in (anim.UNKNOWN_RGB, anim.UNKNOWN_DARK)
        elif v == 0:
            assert got == (255, 255, 255)
        else:
            assert got == codes[v], (i, j, v, got)
    kind, idx = fs[k].line
    edge = ((x0 - 1, anim._PAD + idx * c + c // 2) if kind == "row"
            else (x0 + idx * c + c // 2, anim._PAD - 1))
    assert im.getpixel(edge) == anim.LINE_RGB
    guess = next(f for f in fs if f.guess is not None)
    i, j = guess.guess
    im = anim.render(puzzle, guess)
    assert im.getpixel((x0 + j * c - 1, anim._PAD + i * c + c // 2)) == anim.GUESS_RGB


def test_the_pixel_budget():
    assert anim.cell_px(load("heart5")) == anim.MAX_CELL_PX
    big = puzzle_from_grid(tuple(tuple(int((i // 7 + j // 5) % 2 == 0) for j in range(512))
                                 for i in range(512)))
    assert anim.cell_px(big) == 1 and anim._frame_size(big, anim.MAX_PX)[0] <= 530


def test_a_large_puzzle_makes_a_small_gif(tmp_path):
    # 512 x 511, every row decided by its clue alone (blocks of 3 filling the row, or one block)
    h, n = 512, 511
    picture = tuple(tuple(int(i % 4 == 0 or j % 4 != 3) for j in range(n)) for i in range(h))
    puzzle = puzzle_from_grid(picture, name="blocks")
    path = anim.animate(puzzle, tmp_path / "blocks.gif")
    im = Image.open(path)
    assert im.size == anim._frame_size(puzzle, anim.MAX_PX) and im.size[0] <= anim.MAX_PX + 12
    assert im.n_frames * im.size[0] * im.size[1] <= anim.MAX_TOTAL_PX + im.size[0] * im.size[1]
    assert path.stat().st_size < 3_000_000
    im.seek(im.n_frames - 1)
    last = np.array(im.convert("RGB"))
    c = anim.cell_px(puzzle)
    x0 = (im.size[0] - n * c) // 2
    cells = last[anim._PAD:anim._PAD + h * c:c, x0:x0 + n * c:c]
    assert np.array_equal((cells.sum(axis=2) == 0), np.array(picture, dtype=bool))


def test_gif_frames_and_bytes(tmp_path):
    puzzle = load("cat15")
    tr = replay(puzzle)
    data = anim.animate(puzzle, trace=tr)
    assert data[:6] == b"GIF89a"
    path = anim.animate(puzzle, tmp_path / "cat.gif", trace=tr)
    assert path.read_bytes() == data
    assert Image.open(path).n_frames == len(anim.frames(puzzle, tr))
    with pytest.raises(ValueError, match=".gif or .html"):
        anim.animate(puzzle, tmp_path / "cat.mp4", trace=tr)


def test_html_has_every_frame_and_a_working_slider(tmp_path):
    puzzle = load("cat15")
    tr = replay(puzzle)
    path = anim.animate(puzzle, tmp_path / "cat.html", trace=tr)
    text = path.read_text()
    n = len(anim.frames(puzzle, tr))
    assert text.count("data:image/png;base64,") == n and f'max="{n - 1}"' in text
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not installed: the page's script is not run")
    script = text.split("<script>", 1)[1].split("</script>", 1)[0]
    harness = """
const el = {}; const pending = [];
global.document = {getElementById: id => (el[id] = el[id] || {value: "0", textContent: ""})};
global.setTimeout = (f, ms) => { pending.push(f); return pending.length; };
global.clearTimeout = () => { pending.length = 0; };
""" + script + """
el.p.onclick();                       // play
for (let k = 0; k < 5 && pending.length; k++) pending.shift()();
const afterPlay = +el.s.value;
el.s.value = "3"; el.s.oninput();     // drag the slider
console.log(JSON.stringify({afterPlay, shown: el.n.textContent, src: el.f.src.slice(0, 22),
                            frames: F.length, button: el.p.textContent}));
"""
    js = tmp_path / "run.js"
    js.write_text(harness)
    out = subprocess.run([node, str(js)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got == {"afterPlay": 5, "shown": f"4 / {n}", "src": "data:image/png;base64,",
                   "frames": n, "button": "play"}


def test_filmstrip():
    sheet = anim.filmstrip(load("cat15"), count=6, title="cat15")
    one = anim._frame_size(load("cat15"), 240)
    assert sheet.size == (3 * one[0] + 16, 2 * one[1] + 8)


def test_command_line(tmp_path):
    out = tmp_path / "cat.gif"
    p = subprocess.run([sys.executable, "-m", "formulations.solve", "puzzles/cat15.txt",
                        "--backend", "lines", "--animate", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == f"wrote {out}"
    assert Image.open(out).n_frames == len(replay(load("cat15")).events) + 2
    bad = subprocess.run([sys.executable, "-m", "formulations.solve", "puzzles/cat15.txt",
                          "--animate", str(tmp_path / "cat.avi")], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == "" and ".gif or .html" in bad.stderr
