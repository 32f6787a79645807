"""Comparison results as data: a pandas ``DataFrame`` with typed columns when pandas is
installed, the plain :class:`~formulations.harness.records.Table` (a list of dicts) otherwise.

``load_results("results.csv")`` (or the rows ``compare`` returned, or ``summarize``'s) gives
booleans as ``boolean``, counts as nullable ``Int64``, times and probabilities as ``float64``
(NaN where a figure does not apply), text as ``string``; a summary keeps its ``inf`` for an
unbounded TTS99 end.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .records import as_frame, read_results

__all__ = ["as_frame", "load_results"]  # as_frame lives with the rows' types (records)


def load_results(source: str | Path | Iterable[Mapping[str, Any]]):
    """A results CSV (as ``compare`` writes it) or rows, as :func:`as_frame` gives them."""
    rows = read_results(source) if isinstance(source, (str, Path)) else list(source)
    return as_frame(rows)
