"""One path for options: backend options, native solver parameters and model switches, from
both command lines and from Python, with one string-to-value conversion.

* A **backend option** is declared by the backend with its type (``Backend.options``, e.g.
  ``reads: int``); values given as text are converted by :func:`coerce`.
* A **native parameter** is any other key, handed to the solver itself (CP-SAT's parameter
  names, a dimod sampler's keyword arguments) when the backend takes them (an option ``params``);
  the backend converts text with :func:`coerce` to the type the solver expects.
* A **model switch** chooses the model, not the backend: ``x`` (cell variables),
  ``presolve`` and ``encoding`` (``order``, the default, ``onehot`` or ``automaton``; the name
  is checked where the model is built, ``formulations.model.encodings``).

An unknown key is refused with the valid ones listed, wherever it comes from.
"""
from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping
from typing import Any

MODEL_SWITCHES: dict[str, type] = {"x": bool, "presolve": bool, "encoding": str}
PARAMS = "params"  # the option under which a backend takes native parameters

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def parse_value(text: object) -> Any:
    """A value given as text: JSON first (``3``, ``[1, 2]``, ``true``), then a Python literal
    (``(1, 2)``, ``True``), else the text itself."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def coerce(value: Any, typ: type) -> Any:
    """``value`` as a ``typ`` (bool, int, float, str, list, tuple, dict, or object for anything);
    text is parsed with :func:`parse_value` first. Raises ValueError naming what was expected."""
    if typ is object:
        return parse_value(value) if isinstance(value, str) else value
    if typ is str:
        return value if isinstance(value, str) else str(value)
    if typ is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise ValueError(f"expected true or false, got {value!r}")
    v = parse_value(value) if isinstance(value, str) else value
    if typ is int:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v:
            raise ValueError(f"expected a whole number, got {value!r}")
        return int(v)
    if typ is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"expected a number, got {value!r}")
        return float(v)
    if typ in (list, tuple):
        if not isinstance(v, (list, tuple)):
            raise ValueError(f"expected a list, got {value!r}")
        return typ(v)
    if typ is dict:
        if not isinstance(v, Mapping):
            raise ValueError(f"expected a mapping, got {value!r}")
        return dict(v)
    return typ(v)


def parse_assignment(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` as ``(key, value text)``."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value


def parse_mapping(text: str, typ: type = float) -> dict[str, Any]:
    """``a=1,b=2`` as ``{"a": 1.0, "b": 2.0}`` (each value a ``typ``)."""
    out: dict[str, Any] = {}
    for part in text.split(","):
        key, value = parse_assignment(part)
        try:
            out[key] = coerce(value.strip(), typ)
        except ValueError:
            raise ValueError(f"value of {key!r} is not a {typ.__name__}: {value!r}") from None
    return out


def parse_floats(text: str, count: int) -> tuple[float, ...]:
    """``"1,10"`` as ``(1.0, 10.0)``: exactly ``count`` numbers separated by commas."""
    parts = text.split(",")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != count:
        raise ValueError(f"expected {count} numbers separated by commas, got {text!r}")
    return values


def route(backend: Any, pairs: Iterable[tuple[str, Any]], *, switches: bool = True,
          ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Sort ``(key, value)`` pairs given for ``backend`` into ``(backend options, model
    switches)``: a key the backend declares is an option, ``x``/``presolve``/``encoding`` a
    model switch, any other key a native parameter (under ``options["params"]``) when the
    backend takes them. Model switches are converted here; options are converted and checked
    once, by ``Backend.prepare``. An unknown key raises ValueError naming the valid ones. ``switches=False``: the caller has flags of its own for the model switches, so
    ``x``/``presolve`` are no keys here."""
    options: dict[str, Any] = {}
    model: dict[str, Any] = {}
    declared = backend.options
    allowed = MODEL_SWITCHES if switches else {}
    for key, value in pairs:
        if key == PARAMS and PARAMS in declared:  # native parameters given as one mapping
            options.setdefault(PARAMS, {}).update(coerce(value, dict))
        elif key in allowed:
            model[key] = coerce(value, allowed[key])
        elif key in declared and key != PARAMS:
            options[key] = value
        elif PARAMS in declared:
            options.setdefault(PARAMS, {})[key] = value
        else:
            valid = ", ".join(sorted([*declared, *allowed])) or "none"
            raise ValueError(f"unknown option '{key}' for backend '{backend.name}' (valid: {valid})")
    return options, model


def coerce_option(backend: Any, key: str, value: Any) -> Any:
    """One declared option of ``backend``, converted to its type."""
    typ = backend.options[key]
    try:
        return coerce(value, typ)
    except ValueError:
        raise ValueError(f"option '{key}' of backend '{backend.name}' expects "
                         f"{typ.__name__}, got {value!r}") from None
