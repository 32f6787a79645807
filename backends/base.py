"""The small contract every backend follows."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from formulations.builder import NonogramModel
from formulations.results import BackendError, RawAnswer


@dataclass(frozen=True)
class Backend:
    """A named solver adapter.

    ``solve(nm, *, time_limit, seed, unique, **options)`` translates the model, runs the solver
    and returns a RawAnswer; the package decodes and verifies it. ``requires`` lists the Python
    modules it imports lazily; ``options`` maps each accepted option to its type.
    ``use_x`` is the model variant the backend gets when the caller does not choose one: with
    the cell variables x, or without them (``R = C``), whichever the backend was measured to
    solve faster.
    """
    name: str
    description: str
    solve_fn: Callable[..., RawAnswer]
    requires: tuple[str, ...] = ()
    install_hint: str = ""
    options: dict[str, type] = field(default_factory=dict)
    supports_unique: bool = False
    default_options: dict[str, Any] = field(default_factory=dict)
    use_x: bool = True

    def available(self) -> bool:
        for mod in self.requires:
            try:
                importlib.import_module(mod)
            except Exception:
                return False
        return True

    def check_available(self) -> None:
        if not self.available():
            raise BackendError(f"backend '{self.name}' needs {', '.join(self.requires)}, which is not "
                               f"installed: {self.install_hint}")

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Options converted to their types; an unknown option is an error naming the valid ones."""
        out = {}
        for key, value in options.items():
            if key not in self.options:
                valid = ", ".join(sorted(self.options)) or "none"
                raise BackendError(f"unknown option '{key}' for backend '{self.name}' (valid: {valid})")
            typ = self.options[key]
            try:
                out[key] = _convert(value, typ)
            except (TypeError, ValueError):
                raise BackendError(f"option '{key}' of backend '{self.name}' expects {typ.__name__}, "
                                   f"got {value!r}") from None
        return out

    def prepare(self, options: dict[str, Any]) -> dict[str, Any]:
        """Check installation and options once, before any model is built; returns the options
        to pass to :meth:`run` (defaults filled in)."""
        self.check_available()
        return {**self.default_options, **self.check_options(options)}

    def run(self, nm: NonogramModel, opts: dict[str, Any], *, time_limit: float | None = None,
            seed: int | None = None, unique: bool = False) -> RawAnswer:
        """Solve with options already checked by :meth:`prepare`."""
        return self.solve_fn(nm, time_limit=time_limit, seed=seed, unique=unique, **opts)

    def solve(self, nm: NonogramModel, *, time_limit: float | None = None, seed: int | None = None,
              unique: bool = False, **options: Any) -> RawAnswer:
        return self.run(nm, self.prepare(options), time_limit=time_limit, seed=seed, unique=unique)


def _convert(value: Any, typ: type) -> Any:
    if typ is bool and isinstance(value, str):
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(value)
    if typ is object:
        return value
    if isinstance(value, str) and typ in (list, tuple, dict):
        import json
        return typ(json.loads(value))
    return typ(value)
