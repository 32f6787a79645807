"""The solving replayed as an animation (seed 003's step visualiser): the grid filling in, one
frame per line update, guess or backtrack of a :class:`~formulations.lines.replay.Replay`, or
several per frame to keep within a frame budget, with the line being solved outlined and the
cells in the palette's colours.

* :func:`frames` groups the events into at most ``max_frames`` frames;
* :func:`render` draws one frame as a Pillow image; the cell size follows a pixel budget
  (``max_px`` for the grid's longer side), so a 512x512 puzzle draws one pixel per cell;
* :func:`animate` writes ``.gif`` (Pillow) or ``.html`` (the frames as PNGs with a slider and a
  play button, no other files), or returns the GIF's bytes for a notebook;
* :func:`filmstrip` puts a few frames side by side in one picture (a PNG for pages that do not
  play GIFs).

Pictures: undecided cells are grey, decided empty cells white with a dot, the line of the
frame's last update outlined in orange, a guessed cell outlined in magenta; a caption says what
happened and how many cells are known. Pillow is imported when drawing (it comes with
matplotlib, in the ``notebooks`` extra).
"""
from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

import numpy as np

from ..puzzle import Grid, Puzzle
from ..lines.engine import UNKNOWN, Step
from ..lines.replay import Backtrack, Guess, Replay, replay as record
from .text import rgb

MAX_FRAMES = 300
MAX_PX = 600            # the grid's longer side at most, in pixels
MAX_TOTAL_PX = 30_000_000  # pixels over all frames: large grids get fewer frames
MAX_CELL_PX = 24
MIN_WIDTH_PX = 360      # room for the caption under small grids
REPLAY_TIME_LIMIT = 60.0  # seconds the replay of a run without --time-limit may search
TOTAL_MS = 12_000       # the whole animation, frames permitting
UNKNOWN_RGB = (200, 200, 200)
UNKNOWN_DARK = (184, 184, 184)
GRID_RGB = (150, 150, 150)
GRID5_RGB = (80, 80, 80)
LINE_RGB = (255, 106, 0)
GUESS_RGB = (230, 0, 200)
BACK_RGB = (200, 0, 0)
TEXT_RGB = (20, 20, 20)


@dataclass(frozen=True)
class Frame:
    """One picture: the partial grid (a numpy array, -1 undecided), the line to outline, the
    guessed cell to outline, and the caption's two lines."""
    grid: np.ndarray | Grid  # rendered through np.asarray
    line: tuple[str, int] | None
    guess: tuple[int, int] | None
    caption: str
    detail: str
    backtrack: bool = False
    hold: float = 1.0   # relative duration


def _known(grid) -> int:
    return int((np.asarray(grid) != UNKNOWN).sum())


def _where(kind: str, idx: int) -> str:
    return f"{'row' if kind == 'row' else 'column'} {idx + 1}"


def frames(puzzle: Puzzle, trace: Replay, *, max_frames: int = MAX_FRAMES,
           final: Grid | None = None, final_caption: str = "") -> list[Frame]:
    """The frames of ``trace``: the empty grid, then one per event or per group of consecutive
    events (at most ``max_frames`` in all), then ``final`` (a grid found otherwise, e.g. by the
    backend after line solving) when given and different from the last frame."""
    max_frames = max(3, max_frames)
    cells = puzzle.height * puzzle.width
    player = trace.play()
    empty = next(player)[1].copy()
    events = trace.events
    reserve = 2 + (final is not None)
    size = max(1, math.ceil(len(events) / max(1, max_frames - reserve)))
    out = [Frame(empty, None, None, "start: every cell undecided", f"0/{cells} cells known",
                 hold=3)]
    n_steps = trace.steps
    done = depth = 0
    for start in range(0, len(events), size):
        chunk = [(e, None) for e in events[start:start + size]]
        for _ in chunk:
            cur = next(player)[1]
        grid = cur.copy()
        lines = [e for e, _ in chunk if isinstance(e, Step)]
        guesses = [e for e, _ in chunk if isinstance(e, Guess)]
        backs = [e for e, _ in chunk if isinstance(e, Backtrack)]
        first_step = done + 1
        done += len(lines)
        for e, _ in chunk:
            if isinstance(e, (Guess, Backtrack)):
                depth = e.depth
        last = chunk[-1][0]
        known = f"{_known(grid)}/{cells} cells known"
        if depth:
            known += f", {depth} guess{'es' * (depth != 1)} in force"
        if len(chunk) == 1:
            if isinstance(last, Step):
                caption = (f"line update {done} of {n_steps}: {_where(*last.line)} decides "
                           f"{len(last.fixed)} cell{'s' * (len(last.fixed) != 1)}")
                detail = (f"round {last.round + 1}, " if not depth else "") + known
            elif isinstance(last, Guess):
                colour = "empty" if last.colour == 0 else puzzle.colour_name(last.colour)
                caption = (f"guess: row {last.cell[0] + 1}, column {last.cell[1] + 1} is "
                           f"{colour}")
                detail = known
            else:
                caption = (f"contradiction: undo the guess at row {last.cell[0] + 1}, "
                           f"column {last.cell[1] + 1}")
                detail = known
        else:
            what = (f"line updates {first_step}-{done} of {n_steps}" if len(lines) > 1 else
                    f"line update {done} of {n_steps}" if lines else "search")
            extra = [f"{len(guesses)} guess{'es' * (len(guesses) != 1)}" if guesses else "",
                     f"{len(backs)} backtrack{'s' * (len(backs) != 1)}" if backs else ""]
            caption = ", ".join([what, *[x for x in extra if x]])
            detail = known
        line = lines[-1].line if lines else None
        guess = guesses[-1].cell if guesses and not isinstance(last, Backtrack) else None
        out.append(Frame(grid, line, guess, caption, detail, backtrack=isinstance(last, Backtrack)))
    end = out[-1].grid
    status = {"solved": "solved", "infeasible": "contradiction: no solution",
              "unknown": "line solving stops here"}[trace.status.value]
    if trace.truncated:
        status = "recording stopped (event or time budget)"
    out.append(Frame(end, None, None, status, f"{_known(end)}/{cells} cells known", hold=8))
    if final is not None and not np.array_equal(np.asarray(final), end):
        out.append(Frame(final, None, None, final_caption or "the verified solution",
                         f"{cells}/{cells} cells known", hold=10))
    return out


def cell_px(puzzle: Puzzle, max_px: int = MAX_PX) -> int:
    """Pixels per cell: the grid's longer side within ``max_px`` (at least 1, at most 24)."""
    return max(1, min(MAX_CELL_PX, max_px // max(puzzle.height, puzzle.width)))


_PAD = 6


def _layout(puzzle: Puzzle, max_px: int) -> tuple[int, int, int, int]:
    """(cell px, grid width px, grid height px, caption font px) of a frame."""
    c = cell_px(puzzle, max_px)
    gw, gh = puzzle.width * c, puzzle.height * c
    return c, gw, gh, (13 if gw >= 300 or c >= 16 else 12)


def _frame_size(puzzle: Puzzle, max_px: int) -> tuple[int, int]:
    """(width, height) of a rendered frame in pixels."""
    _, gw, gh, font_px = _layout(puzzle, max_px)
    return max(gw + 2 * _PAD, MIN_WIDTH_PX), gh + 3 * _PAD + 3 * (font_px + 4)


def _font(size: int):
    from PIL import ImageFont
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: the fixed bitmap font
        return ImageFont.load_default()


def render(puzzle: Puzzle, frame: Frame, *, max_px: int = MAX_PX, title: str | None = None):
    """One frame as an RGB Pillow image."""
    from PIL import Image, ImageDraw

    h, w = puzzle.height, puzzle.width
    c, gw, gh, font_px = _layout(puzzle, max_px)
    colours = {k: rgb(puzzle, k) for k, _, _ in puzzle.palette}
    for k in puzzle.colours:
        colours.setdefault(k, rgb(puzzle, k))
    g = np.asarray(frame.grid, dtype=np.int64).reshape(h, w)
    img = np.empty((h, w, 3), dtype=np.uint8)
    img[:] = UNKNOWN_RGB
    for k, col in colours.items():
        img[g == k] = col
    big = np.repeat(np.repeat(img, c, axis=0), c, axis=1)
    if c >= 6:  # undecided cells hatched, decided empty cells dotted, as on paper
        unk = np.repeat(np.repeat(g == UNKNOWN, c, axis=0), c, axis=1)
        yy, xx = np.indices(big.shape[:2])
        big[unk & (((yy + xx) // 3) % 2 == 0)] = UNKNOWN_DARK
        if c >= 8:
            dot = max(2, c // 7)
            lo = (c - dot + 1) // 2
            for i, j in np.argwhere(g == 0):
                big[i * c + lo:i * c + lo + dot, j * c + lo:j * c + lo + dot] = (120, 120, 120)
    if c >= 4:  # grid lines, every fifth darker
        for k in range(1, h):
            big[k * c, :] = GRID5_RGB if k % 5 == 0 else GRID_RGB
        for k in range(1, w):
            big[:, k * c] = GRID5_RGB if k % 5 == 0 else GRID_RGB
    font = _font(font_px)
    pad = _PAD
    head = (title if title is not None else f"{puzzle.name or 'puzzle'} ({h}x{w})")
    width, height = _frame_size(puzzle, max_px)
    canvas = Image.new("RGB", (width, height), (255, 255, 255))
    x0, y0 = (width - gw) // 2, pad
    canvas.paste(Image.fromarray(big), (x0, y0))
    d = ImageDraw.Draw(canvas)
    d.rectangle((x0 - 1, y0 - 1, x0 + gw, y0 + gh), outline=(0, 0, 0))
    t = max(1, min(3, c // 5))
    if frame.line is not None:
        kind, idx = frame.line
        if kind == "row":
            box = (x0 - t, y0 + idx * c - t, x0 + gw + t - 1, y0 + (idx + 1) * c + t - 1)
        else:
            box = (x0 + idx * c - t, y0 - t, x0 + (idx + 1) * c + t - 1, y0 + gh + t - 1)
        d.rectangle(box, outline=LINE_RGB, width=t)
    if frame.guess is not None:
        i, j = frame.guess
        m = max(t, 2)
        d.rectangle((x0 + j * c - m, y0 + i * c - m, x0 + (j + 1) * c + m - 1,
                     y0 + (i + 1) * c + m - 1), outline=GUESS_RGB, width=m)
    if frame.backtrack:
        d.rectangle((x0 - 3, y0 - 3, x0 + gw + 2, y0 + gh + 2), outline=BACK_RGB, width=2)
    ty = y0 + gh + pad + 2
    lines = [(head, TEXT_RGB), (frame.caption, BACK_RGB if frame.backtrack else TEXT_RGB),
             (frame.detail, (90, 90, 90))]
    for text, colour in lines:
        d.text((pad, ty), _fit(d, text, font, width - 2 * pad), fill=colour, font=font)
        ty += font_px + 4
    return canvas


def _fit(draw, text: str, font, width: int) -> str:
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "...", font=font) > width:
        text = text[:-1]
    return text + "..."


def _palette_image(puzzle: Puzzle):
    """One fixed GIF palette for every frame (no flicker): the puzzle's colours, the drawing's
    colours and a grey ramp for the caption's anti-aliased text."""
    from PIL import Image

    cols: set[tuple[int, ...]]  # RGB
    cols = {rgb(puzzle, k) for k, _, _ in puzzle.palette} | {rgb(puzzle, k) for k in puzzle.colours}
    cols |= {UNKNOWN_RGB, UNKNOWN_DARK, GRID_RGB, GRID5_RGB, LINE_RGB, GUESS_RGB, BACK_RGB,
             TEXT_RGB, (120, 120, 120), (90, 90, 90), (0, 0, 0), (255, 255, 255)}
    cols |= {(v, v, v) for v in range(0, 256, 17)}
    cols |= {tuple(int(a + (b - a) * f) for a, b in zip((255, 255, 255), col))
             for col in (BACK_RGB, LINE_RGB) for f in (0.33, 0.66)}
    flat = [v for col in sorted(cols)[:256] for v in col]
    pal = Image.new("P", (1, 1))
    pal.putpalette(flat + [0] * (768 - len(flat)))
    return pal


def _durations(fs: Sequence[Frame]) -> list[int]:
    base = min(400, max(40, TOTAL_MS // max(1, sum(f.hold for f in fs))))
    return [int(base * f.hold) for f in fs]


def animate(puzzle: Puzzle, path: str | Path | None = None, *, trace: Replay | None = None,
            search: bool = True, final: Grid | None = None, final_caption: str = "",
            max_frames: int = MAX_FRAMES, max_px: int = MAX_PX, title: str | None = None):
    """Write the replay of ``puzzle`` to ``path`` (``.gif`` or ``.html``) and return the path;
    without ``path``, return the GIF's bytes (``IPython.display.Image(data=..., format="gif")``).

    ``trace`` defaults to :func:`~formulations.lines.replay.replay` of the puzzle (with the
    search when ``search``); ``final`` adds a last frame with a grid found otherwise."""
    trace = trace if trace is not None else record(puzzle, search=search)
    per_frame = _frame_size(puzzle, max_px)
    budget = min(max_frames, max(30, MAX_TOTAL_PX // (per_frame[0] * per_frame[1])))
    fs = frames(puzzle, trace, max_frames=budget, final=final, final_caption=final_caption)
    images = [render(puzzle, f, max_px=max_px, title=title) for f in fs]
    suffix = Path(path).suffix.lower() if path is not None else ".gif"
    if suffix == ".html" and path is not None:  # a suffix other than .gif comes from a path
        Path(path).write_text(_html(puzzle, images, _durations(fs), title), encoding="utf-8")
        return Path(path)
    if suffix != ".gif":
        raise ValueError(f"an animation is written as .gif or .html, not {suffix or 'no suffix'}")
    pal = _palette_image(puzzle)
    frames_p = [im.quantize(palette=pal, dither=0) for im in images]
    buf = io.BytesIO()
    frames_p[0].save(buf, format="GIF", save_all=True, append_images=frames_p[1:],
                     duration=_durations(fs), loop=0)  # Pillow stores each frame's changed box
    if path is None:
        return buf.getvalue()
    Path(path).write_bytes(buf.getvalue())
    return Path(path)


def _html(puzzle: Puzzle, images, durations: list[int], title: str | None) -> str:
    """One self-contained page: the frames as PNG data, a slider and a play button."""
    pngs = []
    for im in images:
        buf = io.BytesIO()
        im.save(buf, format="PNG", optimize=True)
        pngs.append("data:image/png;base64," + base64.b64encode(buf.getvalue()).decode())
    name = title or f"{puzzle.name or 'puzzle'} ({puzzle.height}x{puzzle.width})"
    import json
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{_escape(name)}: the solving replayed</title>
<style>body{{font-family:sans-serif;margin:1em}} #f{{image-rendering:pixelated}}
input[type=range]{{width:{max(images[0].width, 300)}px}}</style></head>
<body><div><img id="f" alt="frame"></div>
<div><button id="p">play</button> <input id="s" type="range" min="0" max="{len(pngs) - 1}"
value="0"> <span id="n"></span></div>
<script>
const F={json.dumps(pngs)};
const D={json.dumps(durations)};
const img=document.getElementById("f"), s=document.getElementById("s"),
      n=document.getElementById("n"), p=document.getElementById("p");
let timer=null;
function show(k){{s.value=k; img.src=F[k]; n.textContent=(+k+1)+" / "+F.length;}}
function tick(){{let k=+s.value+1; if(k>=F.length){{stop(); return;}} show(k);
  timer=setTimeout(tick, D[k]);}}
function stop(){{clearTimeout(timer); timer=null; p.textContent="play";}}
p.onclick=()=>{{if(timer){{stop();}} else {{if(+s.value>=F.length-1) show(0);
  p.textContent="pause"; timer=setTimeout(tick, D[+s.value]);}}}};
s.oninput=()=>{{stop(); show(s.value);}};
show(0);
</script></body></html>
"""


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def filmstrip(puzzle: Puzzle, trace: Replay | None = None, *, count: int = 6,
              max_px: int = 240, final: Grid | None = None, columns: int = 3,
              title: str | None = None):
    """``count`` frames spread over the replay, side by side (a Pillow image)."""
    from PIL import Image

    trace = trace if trace is not None else record(puzzle)
    fs = frames(puzzle, trace, final=final)
    picks = sorted({round(k * (len(fs) - 1) / max(1, count - 1)) for k in range(count)})
    images = [render(puzzle, fs[k], max_px=max_px, title=title) for k in picks]
    cols = min(columns, len(images))
    rows = math.ceil(len(images) / cols)
    cw = max(im.width for im in images)
    ch = max(im.height for im in images)
    sheet = Image.new("RGB", (cols * cw + (cols - 1) * 8, rows * ch + (rows - 1) * 8),
                      (255, 255, 255))
    for k, im in enumerate(images):
        sheet.paste(im, ((k % cols) * (cw + 8), (k // cols) * (ch + 8)))
    return sheet


SUFFIXES = (".gif", ".html")


def check_path(path: str | Path) -> None:
    """Refuse, before any work, a path the animation cannot be written to (ValueError), and
    say how to install Pillow when it is missing (ImportError)."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"--animate writes .gif or .html, not {suffix or 'a path without suffix'}")
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise ImportError('an animation needs Pillow: pip install '
                          '-e ".[notebooks]" (or: pip install pillow)') from None


def write_replay(puzzle: Puzzle, path: str | Path, *, backend: str = "lines",
                 grid: Grid | None = None, title: str | None = None,
                 time_limit: float | None = REPLAY_TIME_LIMIT) -> Path:
    """The command line's ``--animate``: the line solving of ``puzzle`` replayed (with the search's
    guesses and backtracks when the backend is ``lines``), ending on the backend's verified
    ``grid`` when line solving did not reach it."""
    trace = record(puzzle, search=backend == "lines", time_limit=time_limit)
    final = None
    if grid is not None and (trace.grid is None or trace.grid != grid):
        final = grid
    return animate(puzzle, path, trace=trace, final=final, title=title,
                   final_caption=f"{backend}'s verified solution")
