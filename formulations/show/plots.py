"""Plots of comparison rows (:mod:`formulations.harness`): each function returns a matplotlib
``Figure`` built without pyplot (no GUI, no global state, safe in worker threads), and
:func:`save` writes it as PNG. matplotlib is imported only when a plot is made.
"""
from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

Row = Mapping[str, Any]
_MARKERS = "osD^v<>pPX*h"


def figure(width: float = 6.4, height: float = 4.2, **kw):
    """A pyplot-free Figure (constrained layout) of the given size in inches."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError('plots need matplotlib: pip install -e ".[notebooks]" '
                          "(or: pip install matplotlib)") from None
    return Figure(figsize=(width, height), layout="constrained", **kw)


def save(fig, path: str | Path, dpi: int = 110) -> Path:
    """Write ``fig`` as PNG (parent directories created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=dpi)
    return path


def to_png(fig, dpi: int = 110) -> bytes:
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def show(fig, dpi: int = 90) -> None:
    """Display a figure in a notebook (as a PNG, whatever the kernel's matplotlib backend)."""
    from IPython.display import Image, display

    display(Image(to_png(fig, dpi)))


def _variant(row: Row) -> str:
    from ..harness.records import variant_label
    return variant_label(row)


def decided(row: Row) -> bool:
    """A verdict: a verified grid, or infeasibility proven by a complete backend."""
    return bool(row.get("verified")) or row.get("status") == "infeasible"


def _style(k: int) -> dict:
    return {"marker": _MARKERS[k % len(_MARKERS)], "color": f"C{k % 10}"}


# -- time against size -------------------------------------------------------------------------

def time_vs_size(rows: Iterable[Row], metric: str = "time_s", title: str | None = None):
    """Per backend variant: each decided run's time (points: a verified grid, or a proof that
    there is none) and the median per puzzle size (line) against the number of cells, log
    scale; undecided runs are crosses drawn at their time limit."""
    rows = list(rows)
    fig = figure()
    ax = fig.add_subplot()
    groups: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        groups[_variant(r)].append(r)
    for k, (name, rs) in enumerate(sorted(groups.items())):
        st = _style(k)
        ok = [r for r in rs if decided(r) and r.get(metric) is not None]
        ax.scatter([r["cells"] for r in ok], [max(r[metric], 1e-6) for r in ok], s=14, alpha=0.35,
                   color=st["color"], marker=st["marker"])
        by_size: dict[int, list[float]] = defaultdict(list)
        for r in ok:
            by_size[r["cells"]].append(max(r[metric], 1e-6))
        xs = sorted(by_size)
        failed = [r for r in rs if not decided(r)]
        label = name + (f" ({len(failed)} undecided)" if failed else "")
        ax.plot(xs, [statistics.median(by_size[x]) for x in xs], label=label, **st)
        if failed:
            ax.scatter([r["cells"] for r in failed],
                       [r.get("time_limit") or r.get("wall_s") or 1.0 for r in failed],
                       marker="x", color=st["color"], s=40)
    ax.set_xscale("log")
    ax.set_yscale("log")
    sizes = {r["cells"]: r["size"] for r in rows}
    if sizes:  # one tick per puzzle size present, labelled HxW
        from matplotlib.ticker import NullFormatter
        ax.set_xticks(sorted(sizes), [sizes[c] for c in sorted(sizes)])
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("puzzle size (cells, log scale)")
    ax.set_ylabel({"time_s": "time to solve (s)", "tts99_s": "TTS99 (s)"}.get(metric, metric))
    ax.set_title(title or "time against puzzle size")
    ax.grid(True, which="both", alpha=0.3)
    if groups:
        ax.legend(fontsize="small")
    return fig


# -- success probability and TTS99 against a parameter -----------------------------------------

def success_vs_param(rows: Iterable[Row], param: str = "sweeps", title: str | None = None):
    """Two panels against a backend option (default ``sweeps``): mean success probability
    (fraction of reads at energy 0) and median TTS99, one line per puzzle and remaining variant
    (gaps where no run reported them)."""
    rows = [r for r in rows if param in json.loads(r.get("options") or "{}")]
    fig = figure(10, 4)
    ax_p, ax_t = fig.subplots(1, 2)
    groups: dict[str, dict[float, list[Row]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        opts = json.loads(r["options"])
        value = opts.pop(param)
        rest = {**r, "options": json.dumps(opts, sort_keys=True)}
        groups[f"{r['puzzle']} {_variant(rest)}"][float(value)].append(r)
    for k, (name, by_value) in enumerate(sorted(groups.items())):
        xs = sorted(by_value)
        ps = []  # runs that never called the sampler (presolve decided the grid) have no p
        for x in xs:
            vals = [r["success_probability"] for r in by_value[x]
                    if r.get("success_probability") is not None]
            ps.append(statistics.fmean(vals) if vals else math.nan)
        tts = []
        for x in xs:
            vals = [r["tts99_s"] for r in by_value[x] if r.get("tts99_s") is not None]
            tts.append(statistics.median(vals) if vals else math.nan)
        st = _style(k)
        ax_p.plot(xs, ps, label=name, **st)
        ax_t.plot(xs, tts, label=name, **st)
    for ax in (ax_p, ax_t):
        ax.set_xscale("log")
        ax.set_xlabel(param)
        ax.grid(True, which="both", alpha=0.3)
    ax_p.set_ylabel("success probability per read")
    ax_p.set_ylim(-0.03, 1.03)
    ax_t.set_yscale("log")
    ax_t.set_ylabel("TTS99 (s)")
    if groups:
        ax_p.legend(fontsize="small")
    fig.suptitle(title or f"success probability and TTS99 against {param}")
    return fig


# -- energies ----------------------------------------------------------------------------------

def energy_histogram(data: Iterable[Row] | Mapping[str, Sequence[float]], title: str | None = None):
    """Histogram of energies: a mapping label -> energies (e.g. every read of a sampler), or
    rows (the best energy of each run, grouped by backend variant). Energy 0 = solved."""
    if isinstance(data, Mapping):
        groups = {k: [float(e) for e in v] for k, v in data.items()}
    else:
        groups = defaultdict(list)
        for r in data:
            if r.get("energy") is not None:
                groups[_variant(r)].append(float(r["energy"]))
    fig = figure()
    ax = fig.add_subplot()
    names = sorted(k for k, v in groups.items() if v)
    values = [e for k in names for e in groups[k]]
    if values:
        hi = max(max(values), 4.0)
        step = 1.0 if hi <= 60 else float(math.ceil(hi / 60))
        bins = [i * step - step / 2 for i in range(int(hi / step) + 2)]
        labels = []
        for name in names:
            es = groups[name]
            p0 = sum(1 for e in es if e == 0) / len(es)
            labels.append(f"{name} (n={len(es)}, p(E=0)={p0:.2f})")
        # side-by-side bars per bin, so identical distributions stay visible
        ax.hist([groups[k] for k in names], bins=bins, label=labels,
                color=[f"C{k % 10}" for k in range(len(names))])
        ax.legend(fontsize="small")
        ax.set_xlim(bins[0], bins[-1])
    ax.set_xlabel("penalty energy (0 = all constraints hold)")
    ax.set_ylabel("count")
    ax.set_title(title or "energy histogram")
    return fig


# -- grids -------------------------------------------------------------------------------------

def parse_grid(text: str) -> list[list[int]]:
    """A row's ``grid`` field ("/"-joined lines, one character per cell as
    :func:`formulations.puzzle.grid_to_strings` writes them) as cell colours."""
    from ..puzzle import grid_from_cells

    return [list(row) for row in grid_from_cells([line for line in text.split("/") if line])]


def row_palette(row: Row) -> list[tuple[int, str, str]] | None:
    """The palette a comparison row carries (colour puzzles), as ``(index, name, "#rrggbb")``."""
    text = row.get("palette") or ""
    if not text:
        return None
    return [(int(k), "", v) for k, v in json.loads(text).items()]


def draw_grid(ax, grid: Sequence[Sequence[int]], title: str = "",
              palette: Sequence[tuple[int, str, str]] | None = None) -> None:
    """Draw a grid of colour indices on ``ax`` (white background, black 1, palette or C0.. else)."""
    from matplotlib.colors import ListedColormap

    top = max((max(r) for r in grid if r), default=1)
    rgb = {0: "#ffffff", 1: "#000000"}
    for idx, _name, hexrgb in palette or ():
        rgb[idx] = hexrgb
    colours = [rgb.get(c, f"C{c % 10}") for c in range(max(top, 1) + 1)]
    ax.imshow(grid, cmap=ListedColormap(colours), vmin=0, vmax=len(colours) - 1,
              interpolation="nearest")
    h, w = len(grid), len(grid[0]) if grid else 0
    ax.set_xticks([x - 0.5 for x in range(w + 1)], minor=True)
    ax.set_yticks([y - 0.5 for y in range(h + 1)], minor=True)
    ax.grid(which="minor", color="#bbbbbb", linewidth=0.3 if max(h, w) > 30 else 0.6)
    ax.tick_params(which="both", bottom=False, left=False, labelbottom=False, labelleft=False)
    if title:
        ax.set_title(title, fontsize="small")


def grid_figure(grid: Sequence[Sequence[int]], title: str = "", size: float = 3.0):
    fig = figure(size, size)
    draw_grid(fig.add_subplot(), grid, title)
    return fig


def solved_grids(rows: Iterable[Row], ncols: int = 4, size: float = 2.4):
    """One picture per puzzle: the first verified grid among the rows."""
    first: dict[str, Row] = {}
    for r in rows:
        if r.get("verified") and r.get("grid") and r["digest"] not in first:
            first[r["digest"]] = r
    items = list(first.values())
    n = max(1, len(items))
    cols = min(ncols, n)
    nrows = math.ceil(n / cols)
    fig = figure(size * cols, size * nrows + 0.3)
    axes = fig.subplots(nrows, cols, squeeze=False)
    for ax in axes.flat:
        ax.set_axis_off()
    for ax, r in zip(axes.flat, items):
        ax.set_axis_on()
        draw_grid(ax, parse_grid(r["grid"]), f"{r['puzzle']} ({r['size']}, {r['backend']})",
                  palette=row_palette(r))
    if not items:
        axes.flat[0].text(0.5, 0.5, "no solved grid", ha="center", va="center")
    return fig


def save_all(rows: Iterable[Row], directory: str | Path) -> list[Path]:
    """The standard set of PNGs for a results table; returns the files written."""
    rows = list(rows)
    d = Path(directory)
    out = [save(time_vs_size(rows), d / "time_vs_size.png"),
           save(solved_grids(rows), d / "solved_grids.png")]
    if any(r.get("energy") is not None for r in rows):
        out.append(save(energy_histogram(rows), d / "energy_histogram.png"))
    swept = {json.loads(r["options"]).get("sweeps") for r in rows if r.get("options")}
    if len(swept - {None}) > 1:
        out.append(save(success_vs_param(rows, "sweeps"), d / "success_vs_sweeps.png"))
    return out
