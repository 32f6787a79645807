"""Comparison results as data: a pandas ``DataFrame`` with typed columns when pandas is
installed, the plain :class:`~formulations.harness.records.Table` (a list of dicts) otherwise.

``load_results("results.csv")`` (or the rows ``compare`` returned, or ``summarize``'s) gives
booleans as ``boolean``, counts as nullable ``Int64``, times and probabilities as ``float64``
(NaN where a figure does not apply), text as ``string``; a summary keeps its ``inf`` for an
unbounded TTS99 end.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

from .records import _TYPES, Table, read_results


def _dtype(annotation: str) -> str | None:
    if annotation.startswith("bool"):
        return "boolean"
    if annotation.startswith("int"):
        return "Int64"
    if annotation.startswith("float"):
        return "float64"
    if annotation.startswith("str"):
        return "string"
    return None


def as_frame(rows: Iterable[Mapping[str, Any]]):
    """``rows`` as a typed DataFrame, or as a Table when pandas is not installed."""
    rows = list(rows)
    try:
        import pandas as pd
    except ImportError:
        return Table(rows)
    frame = pd.DataFrame(rows)
    for column in frame.columns:
        typ = _dtype(_TYPES.get(column, ""))
        if typ is None:  # a summary's or caller's own column: numbers with None become NaN
            if frame[column].map(lambda v: v is None or isinstance(v, (int, float))).all() \
                    and frame[column].map(lambda v: isinstance(v, float)).any():
                frame[column] = frame[column].astype("float64")
            continue
        frame[column] = frame[column].astype(typ)
    return frame


def load_results(source: str | Path | Iterable[Mapping[str, Any]]):
    """A results CSV (as ``compare`` writes it) or rows, as :func:`as_frame` gives them."""
    rows = read_results(source) if isinstance(source, (str, Path)) else list(source)
    return as_frame(rows)
