"""Colour descriptions found in puzzle files -> ``"#rrggbb"``.

Readers meet colours as CSS/SVG names (``red``), RGB triplets (``(89, 11, 255)``) and hex codes
(``88CC44``). The palette stores one normalised form so that rendering and writers need not care
where a colour came from. The name table holds the common CSS names only; a name that ends in one
(``sunny yellow``) gets that colour (:func:`name_rgb`), and any other name a distinct generated
colour (see :func:`distinct_rgb`) and keeps its name, because a puzzle is still solvable when its
colours are only approximately right.
"""
from __future__ import annotations

import colorsys
import re
from collections.abc import Iterable

CSS_COLOURS: dict[str, str] = {
    "black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#008000",
    "blue": "#0000ff", "yellow": "#ffff00", "orange": "#ffa500", "pink": "#ffc0cb",
    "purple": "#800080", "brown": "#a52a2a", "gray": "#808080", "grey": "#808080",
    "cyan": "#00ffff", "aqua": "#00ffff", "magenta": "#ff00ff", "fuchsia": "#ff00ff",
    "lime": "#00ff00", "navy": "#000080", "teal": "#008080", "olive": "#808000",
    "maroon": "#800000", "silver": "#c0c0c0", "gold": "#ffd700", "beige": "#f5f5dc",
    "tan": "#d2b48c", "violet": "#ee82ee", "indigo": "#4b0082", "crimson": "#dc143c",
    "coral": "#ff7f50", "salmon": "#fa8072", "khaki": "#f0e68c", "turquoise": "#40e0d0",
    "lavender": "#e6e6fa", "skyblue": "#87ceeb", "darkgreen": "#006400", "darkblue": "#00008b",
    "darkred": "#8b0000", "lightblue": "#add8e6", "lightgreen": "#90ee90",
    "lightgray": "#d3d3d3", "lightgrey": "#d3d3d3", "darkgray": "#a9a9a9", "darkgrey": "#a9a9a9",
    "chocolate": "#d2691e", "orchid": "#da70d6", "plum": "#dda0dd", "peru": "#cd853f",
    "sienna": "#a0522d", "ivory": "#fffff0", "azure": "#f0ffff", "wheat": "#f5deb3",
    "tomato": "#ff6347", "forestgreen": "#228b22", "royalblue": "#4169e1",
    "steelblue": "#4682b4", "slategray": "#708090", "slategrey": "#708090",
    "hotpink": "#ff69b4", "deeppink": "#ff1493", "darkorange": "#ff8c00",
    "orangered": "#ff4500", "yellowgreen": "#9acd32", "seagreen": "#2e8b57",
    "limegreen": "#32cd32", "springgreen": "#00ff7f", "aquamarine": "#7fffd4",
    "cornflowerblue": "#6495ed", "dodgerblue": "#1e90ff", "midnightblue": "#191970",
    "firebrick": "#b22222", "goldenrod": "#daa520", "darkviolet": "#9400d3",
    "mediumpurple": "#9370db", "rosybrown": "#bc8f8f", "saddlebrown": "#8b4513",
    "lightyellow": "#ffffe0", "lightpink": "#ffb6c1", "darkgoldenrod": "#b8860b",
    "darkslategray": "#2f4f4f", "darkslategrey": "#2f4f4f", "dimgray": "#696969",
    "dimgrey": "#696969",
}

# Generated colours for unknown names: well apart from each other and from black and white.
_DISTINCT = ("#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#a65628", "#f781bf",
             "#999999", "#66c2a5", "#fc8d62", "#8da0cb", "#e78ac3", "#a6d854", "#ffd92f")


def _key(name: str) -> str:
    return re.sub(r"[\s_-]+", "", name).lower()


def css_rgb(name: str) -> str | None:
    """``"#rrggbb"`` for a CSS colour name (spaces, ``_``, ``-`` and case ignored), else None."""
    return CSS_COLOURS.get(_key(name))


def name_rgb(name: str) -> str | None:
    """``"#rrggbb"`` for a colour name: a CSS name (:func:`css_rgb`), else the longest run of
    its last words that is one (``sunny yellow`` is yellow, ``very dark green`` dark green),
    so that a described colour is drawn as what it says; None otherwise."""
    words = name.split()
    for k in range(len(words)):
        rgb = css_rgb(" ".join(words[k:]))
        if rgb is not None:
            return rgb
    return None


def distinct_rgb(used: Iterable[str]) -> str:
    """A colour not in ``used``: the fixed list first, then hues around the circle."""
    taken = {u.lower() for u in used}
    for rgb in _DISTINCT:
        if rgb not in taken:
            return rgb
    k = 0
    while True:
        r, g, b = colorsys.hsv_to_rgb((k * 0.618033988749895) % 1.0, 0.65, 0.85)
        rgb = f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"
        if rgb not in taken:
            return rgb
        k += 1


def parse_colour(desc: str) -> str | None:
    """``"#rrggbb"`` for ``(r, g, b)`` / ``r, g, b`` triplets, hex ``88CC44`` / ``#8c4`` or a CSS
    name; None when ``desc`` is none of these (an unknown name). Raises ValueError for a
    triplet out of 0..255."""
    s = desc.strip()
    if s.startswith("(") and s.endswith(")"):
        s = s[1:-1].strip()
    m = re.fullmatch(r"(\d+)\s*,\s*(\d+)\s*,\s*(\d+)", s)
    if m:
        parts = [int(x) for x in m.groups()]
        if any(v > 255 for v in parts):
            raise ValueError(f"RGB triplet {desc.strip()!r} has a value above 255")
        return "#" + "".join(f"{v:02x}" for v in parts)
    named = name_rgb(s)
    if named is not None:
        return named
    m = re.fullmatch(r"#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})", s)
    if m:
        h = m.group(1).lower()
        return "#" + (h if len(h) == 6 else "".join(ch * 2 for ch in h))
    return None
