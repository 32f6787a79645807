"""The backend registry as a text table: what a notebook shows as "the backends", built from the
registry itself (names, the model each gets by default, descriptions that state the defaults),
so that a committed notebook output can be compared with what the code gives now
(tests/test_notebooks.py) instead of drifting from it."""
from __future__ import annotations

from collections.abc import Sequence


def registry_rows(names: Sequence[str] | None = None) -> list[dict[str, str]]:
    """One row per registered backend, in the registry's order (or per name of ``names``, which
    may be prefixed ones such as ``ladder:cell``); nothing here depends on which solver packages
    are installed."""
    from formulations.backends import all_backends, get_backend

    def model(b) -> str:
        if not b.uses_model:
            return "puzzle"
        return "with x" if b.use_x else "without x"

    return [{"backend": b.name, "model": model(b), "unique": "yes" if b.supports_unique else "no",
             "description": b.description}
            for b in (all_backends() if names is None else map(get_backend, names))]


def registry_table(names: Sequence[str] | None = None) -> str:
    """:func:`registry_rows` as a table; for the whole registry, then the backend families named
    by a prefix."""
    from formulations.backends import prefix_forms

    from ..harness.records import format_table

    table = format_table(registry_rows(names))
    return table if names is not None else table + "\nalso: " + ", ".join(prefix_forms())
