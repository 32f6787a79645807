"""A request's JSON checked and turned into a job for a worker: the puzzle's text and a bare file
name, the backend, a time limit within the server's cap, the model switches and the backend
options as ``(key, value)`` pairs, each held to the server's caps here; the worker makes them a
:class:`~formulations.solving.SolveRequest`, which checks them as it checks every entry
point's."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..io.formats import TEXT_FAMILY, extensions, formats
from .settings import Settings


class RequestError(ValueError):
    """A request that cannot be run as sent: one line, answered 400."""


def format_extensions() -> dict[str, str]:
    """A request's ``format`` -> the extension of the name its text is read under (the readers
    pick the format by extension, then by content): the format registry's."""
    out = {f.name: f.extension for f in formats()}
    out[TEXT_FAMILY] = ".txt"
    return out

# option -> its JSON type
OPTIONS: dict[str, type] = {
    "presolve": bool, "unique": bool, "use_x": bool, "encoding": str, "seed": int,
    "reads": int, "sweeps": int, "workers": int, "beta_range": list, "schedule": str,
    "weights": dict, "params": dict, "max_model_mb": float,
}
SWITCHES = ("presolve", "unique", "use_x", "encoding", "seed", "max_model_mb")
"""The options that are a request's own (model switches, seed, memory cap), not the backend's."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,63}")
_WORD = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_THREAD_PARAMS = re.compile(r"(?i).*(worker|thread).*")
MAX_READS = 100_000
MAX_SWEEPS = 1_000_000


@dataclass(frozen=True)
class Job:
    """What a worker runs: see :func:`formulations.serve.worker.run_solve`. ``pairs``: the
    backend options and native parameters; ``switches``: ``use_x``, ``presolve``, ``unique``,
    ``encoding``, ``seed`` and ``max_model_mb`` (always set, at most the server's cap)."""
    text: str
    name: str
    backend: str
    time_limit: float
    pairs: tuple[tuple[str, Any], ...] = ()
    switches: dict[str, Any] = field(default_factory=dict)
    replay: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "name": self.name, "backend": self.backend,
                "time_limit": self.time_limit, "pairs": [list(p) for p in self.pairs],
                "switches": dict(self.switches), "replay": self.replay}


def file_name(name: Any, fmt: Any) -> str:
    """A bare, safe file name for the puzzle's text: the upload's name reduced to letters,
    digits, ``._-`` (never a path), its extension from ``format`` when one is given."""
    base = name if isinstance(name, str) else ""
    base = base.replace("\\", "/").rsplit("/", 1)[-1]
    base = re.sub(r"[^A-Za-z0-9._-]", "_", base).lstrip(".")[:80] or "puzzle"
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = base, ""
    ext = "." + ext.lower() if ext else ""
    if fmt is not None:
        by_format = format_extensions()
        if not isinstance(fmt, str) or fmt not in by_format:
            known = ", ".join(sorted(by_format))
            raise RequestError(f"unknown format {fmt!r} (known: {known})")
        ext = by_format[fmt]
    elif ext not in extensions():  # no hint: the readers recognise the content
        return base.replace(".", "_")
    return (stem or "puzzle") + ext


def puzzle_text(body: dict[str, Any]) -> str:
    text = body.get("puzzle")
    if not isinstance(text, str):
        raise RequestError('"puzzle" must be the puzzle\'s text (a string)')
    if "\x00" in text:
        raise RequestError("the puzzle is binary data, not text (it holds NUL bytes)")
    check_text(text, "the puzzle")
    if not text.strip():
        raise RequestError("the puzzle is empty")
    return text


def check_text(text: str, what: str) -> None:
    """Refuse a string JSON can carry but no file can hold: a lone surrogate (``\\ud800``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RequestError(f"{what} is not text: character {exc.start + 1} is a lone "
                           f"surrogate (U+{ord(text[exc.start]):04X})") from None


def time_limit(value: Any, settings: Settings) -> float:
    if value is None:
        return settings.time_limit
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value <= 0:
        raise RequestError(f'"time_limit" must be a number of seconds > 0, got {value!r}')
    if value > settings.max_time_limit:
        raise RequestError(f'"time_limit" {value:g} s is over this server\'s cap of '
                           f'{settings.max_time_limit:g} s')
    return float(value)


def _check(key: str, value: Any, typ: type) -> Any:
    if typ is bool:
        if not isinstance(value, bool):
            raise RequestError(f'option "{key}" must be true or false, got {value!r}')
    elif typ is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RequestError(f'option "{key}" must be an integer, got {value!r}')
    elif typ is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise RequestError(f'option "{key}" must be a number, got {value!r}')
    elif typ is str:
        if not isinstance(value, str) or not _WORD.fullmatch(value):
            raise RequestError(f'option "{key}" must be a short name, got {value!r}')
    elif not isinstance(value, typ):
        raise RequestError(f'option "{key}" must be a JSON {typ.__name__}')
    return value


def _number(key: str, value: Any) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RequestError(f'"{key}" must be a number, got {value!r}')
    return value


def _scalar(key: str, value: Any) -> Any:
    if isinstance(value, bool) or (isinstance(value, str) and _WORD.fullmatch(value)):
        return value
    if isinstance(value, (int, float)) and math.isfinite(value):
        return value
    raise RequestError(f'"{key}" must be a number, true/false or a short name, got {value!r}')


def solve_options(options: Any, settings: Settings
                  ) -> tuple[tuple[tuple[str, Any], ...], dict[str, Any]]:
    """``options`` as the backend's ``(key, value)`` pairs and the request's own switches, each
    value checked for its type and held to the server's caps (threads, reads, sweeps, the
    model's memory: a cap applies whatever keys the request carries)."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RequestError('"options" must be a JSON object')
    pairs: list[tuple[str, Any]] = []
    switches: dict[str, Any] = {"max_model_mb": settings.max_model_mb}
    for key, value in options.items():
        if key not in OPTIONS:
            raise RequestError(f'unknown option "{key}" (valid: {", ".join(OPTIONS)})')
        if value is None:
            continue
        _check(key, value, OPTIONS[key])
        if key == "max_model_mb":
            if not 0 < value <= settings.max_model_mb:
                raise RequestError(f'"max_model_mb" must be more than 0 and at most '
                                   f'{settings.max_model_mb:g} on this server')
            switches[key] = float(value)
        elif key in SWITCHES:
            switches[key] = value
        elif key == "workers":
            if not 1 <= value <= settings.max_threads:
                raise RequestError(f'"workers" must be 1 to {settings.max_threads} on this server')
            pairs.append((key, value))
        elif key in ("reads", "sweeps"):
            cap = MAX_READS if key == "reads" else MAX_SWEEPS
            if not 1 <= value <= cap:
                raise RequestError(f'"{key}" must be 1 to {cap:,}')
            pairs.append((key, value))
        elif key == "beta_range":
            if len(value) != 2:
                raise RequestError('"beta_range" must be [low, high]')
            pairs.append((key, (_number(key, value[0]), _number(key, value[1]))))
        elif key == "schedule":
            pairs.append(("beta_schedule", value))
        elif key == "weights":
            for k, v in value.items():
                if not _NAME.fullmatch(str(k)):
                    raise RequestError(f'bad weight name {k!r}')
                _number(key, v)
            if value:
                pairs.append((key, dict(value)))
        elif key == "params":
            for k, v in value.items():
                if not _NAME.fullmatch(str(k)):
                    raise RequestError(f'bad parameter name {k!r}')
                if _THREAD_PARAMS.fullmatch(k):
                    raise RequestError(f'parameter "{k}" is not taken here: threads are the '
                                       '"workers" option, capped by the server')
                pairs.append((k, _scalar(k, v)))
    return tuple(pairs), switches


def backend_name(value: Any) -> str:
    if not isinstance(value, str) or not _WORD.fullmatch(value):
        raise RequestError(f'"backend" must be a backend name, got {value!r}')
    return value


def solve_job(body: Any, settings: Settings, *, live: bool = False) -> Job:
    """A ``POST /api/solve`` (or ``/api/runs``) body checked and made a :class:`Job`."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    unknown = set(body) - {"puzzle", "format", "name", "backend", "time_limit", "options"}
    if unknown:
        raise RequestError(f"unknown key(s) {', '.join(sorted(map(repr, unknown)))} (valid: "
                           "puzzle, format, name, backend, time_limit, options)")
    text = puzzle_text(body)
    name = file_name(body.get("name"), body.get("format"))
    backend = backend_name(body.get("backend", "cpsat"))
    limit = time_limit(body.get("time_limit"), settings)
    pairs, switches = solve_options(body.get("options"), settings)
    if live and backend == "cpsat" and not any(k == "log" for k, _ in pairs):
        pairs += (("log", True),)  # its log lines are the live view's status
    replay = live and (backend == "lines" or backend.startswith("ladder:"))
    return Job(text, name, backend, limit, pairs, switches, replay)


def task_job(body: Any, task: str) -> dict[str, Any]:
    """A parse / hint / export request: the puzzle text, a safe name, the task's own keys."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    job: dict[str, Any] = {"task": task, "text": puzzle_text(body),
                           "name": file_name(body.get("name"), body.get("format")),
                           "format": None}
    if task == "hint":
        known = body.get("known")
        if known is not None and not (isinstance(known, list) and all(
                isinstance(r, list) and all(isinstance(v, int) and not isinstance(v, bool)
                                            for v in r) for r in known)):
            raise RequestError('"known" must be rows of colour numbers (-1: undecided)')
        job["known"] = known
    return job
