"""The small contract every backend follows."""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from formulations.model.protocol import SolvableModel
from formulations.options import coerce_option
from formulations.puzzle import Puzzle
from formulations.runtime.clock import NO_DEADLINE, Deadline
from formulations.results import BackendError, ModelRefused, RawAnswer, Remedy


EXTRAS: dict[str, tuple[str, str]] = {
    "ortools": ("cpsat", "ortools"), "dimod": ("anneal", "dimod"),
    "dwave.samplers": ("anneal", "dwave-samplers"), "scipy": ("anneal", "scipy"),
    "dwave.samplers.sqa": ("qa", "dwave-samplers>=1.5"), "openjij": ("openjij", "openjij"),
    "threadpoolctl": ("openjij", "threadpoolctl"), "hybrid": ("hybrid", "dwave-hybrid"),
    "pyqbpp": ("qbpp", "pyqbpp"), "pysat": ("sat", "python-sat"), "highspy": ("mip", "highspy"),
    "matplotlib": ("notebooks", "matplotlib"), "PIL": ("notebooks", "pillow"),
    "pandas": ("notebooks", "pandas"), "distributed": ("compare", "distributed"),
    "tqdm": ("compare", "tqdm"), "starlette": ("web", "starlette"), "uvicorn": ("web", "uvicorn"),
}
"""An imported module (its longest known prefix) -> (the extra of pyproject.toml that installs
it, its pip name): the install hint of a module found missing at run time."""


def missing_module_hint(*modules: str | None) -> str:
    """``pip install -e ".[EXTRA]"`` for a missing module (from the checkout, as README installs;
    the first of ``modules`` that an extra holds), else a plain ``pip install``."""
    for module in modules:
        name = module or ""
        while name and name not in EXTRAS:
            name = name.rpartition(".")[0]
        if name:
            extra, pip_name = EXTRAS[name]
            return f'pip install -e ".[{extra}]" (or: pip install {pip_name})'
    first = next((m for m in modules if m), "")
    return f"pip install {first.split('.')[0]}".strip()


@dataclass(frozen=True)
class Backend:
    """A named solver adapter.

    ``solve_fn(nm, *, deadline, seed, unique, **options)`` translates the model, runs the solver
    and returns a RawAnswer; the package decodes and verifies it. A backend with
    ``uses_model=False`` works on the puzzle itself (``solve_fn(puzzle, ...)``) and returns grids.
    ``requires`` lists the Python modules it imports lazily; ``options`` maps each accepted
    option to its type (an option ``params`` takes the solver's native parameters).
    ``use_x`` is the model variant the backend gets when the caller does not choose one: with
    the cell variables x, or without them (``R = C``), whichever the backend was measured to
    solve faster (every entry point asks :meth:`model_x`, the one rule). ``refuse(nm)``
    returns a :class:`ModelRefused` saying why the backend cannot take a model (too large for
    it), or None; it is asked before any solving.
    ``presolves``: a backend on the puzzle that line-solves it first itself, so that
    ``presolve=True`` asks for nothing more (for any other puzzle backend it is refused).
    ``reproducible``: the same seed gives the same answer (checked by the conformance kit).
    ``translation(nm)`` gives the size of the backend's own form of a model (an object with
    ``megabytes`` and ``describe()``, e.g. the penalty QUBO of the samplers), held to the same
    memory cap as the model before any solving.
    ``check_params(params)`` raises BackendError for native parameters the solver would refuse,
    so that a misspelt one fails before any model is built; ``minimum`` gives the smallest
    value of a numeric option (``reads``: 1).
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
    uses_model: bool = True
    presolves: bool = False
    refuse: Callable[[SolvableModel], ModelRefused | None] | None = None
    translation: Callable[[SolvableModel], Any] | None = None
    reproducible: bool = False
    check_params: Callable[[dict[str, Any]], None] | None = None
    minimum: dict[str, float] = field(default_factory=dict)

    def missing(self) -> list[str]:
        """The modules of :attr:`requires` that do not import here."""
        out = []
        for mod in self.requires:
            try:
                importlib.import_module(mod)
            except Exception:
                out.append(mod)
        return out

    def available(self) -> bool:
        return not self.missing()

    def model_x(self, use_x: bool | None = None) -> bool:
        """The one rule for the model variant this backend gets, used by every entry point
        (``solve_puzzle``, the command line, ``compare``, ``--export-bqm``): the caller's choice
        when given, else :attr:`use_x`, the variant the backend was measured to solve faster."""
        return self.use_x if use_x is None else bool(use_x)

    def check_available(self) -> None:
        missing = self.missing()
        if missing:
            verb = "is" if len(missing) == 1 else "are"
            raise BackendError(f"backend '{self.name}' needs {', '.join(missing)}, which {verb} "
                               f"not installed: {self.install_hint}")

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Options converted to their types; an unknown option is an error naming the valid ones."""
        out = {}
        for key, value in options.items():
            if key not in self.options:
                valid = ", ".join(sorted(self.options)) or "none"
                raise BackendError(f"unknown option '{key}' for backend '{self.name}' (valid: {valid})")
            try:
                out[key] = coerce_option(self, key, value)
            except ValueError as exc:
                raise BackendError(str(exc)) from None
            low = self.minimum.get(key)
            if low is not None and out[key] < low:
                raise BackendError(f"{key} must be at least {low:g}, got {out[key]!r}")
        return out

    def prepare(self, options: dict[str, Any]) -> dict[str, Any]:
        """Check installation and options once, before any model is built; returns the options
        to pass to :meth:`run` (defaults filled in)."""
        self.check_available()
        opts = {**self.default_options, **self.check_options(options)}
        if self.check_params is not None and opts.get("params"):
            self.check_params(opts["params"])
        return opts

    def compatibility(self, nm: SolvableModel) -> ModelRefused | None:
        """Why this backend cannot take ``nm`` (None when it can)."""
        return self.refuse(nm) if self.refuse is not None else None

    def translation_refused(self, nm: SolvableModel,
                            max_model_mb: float | None) -> ModelRefused | None:
        """Why this backend's own form of ``nm`` (:attr:`translation`) is over ``max_model_mb``,
        or None when it fits (or the backend keeps none worth counting)."""
        if self.translation is None or max_model_mb is None:
            return None
        size = self.translation(nm)
        if size.megabytes <= max_model_mb:
            return None
        remedies = []
        if getattr(nm, "variables_before", None) is None:  # not presolved yet
            remedies.append(Remedy("presolve"))
        remedies += [Remedy("memory_cap"), Remedy("other_backend", "cpsat,lines")]
        return ModelRefused(self.name, f"{size.describe()}, over the memory cap of "
                            f"{max_model_mb:,.0f} MB", tuple(remedies))

    def run(self, nm: SolvableModel | Puzzle, opts: dict[str, Any], *,
            deadline: Deadline = NO_DEADLINE,
            seed: int | None = None, unique: bool = False) -> RawAnswer:
        """Solve with options already checked by :meth:`prepare` (``nm`` is the puzzle for a
        backend with ``uses_model=False``) until ``deadline``, the run's one deadline. A model
        the backend refuses raises ModelRefused."""
        if self.uses_model and not isinstance(nm, Puzzle):
            refused = self.compatibility(nm)
            if refused is not None:
                raise refused
        return self.solve_fn(nm, deadline=deadline, seed=seed, unique=unique, **opts)

    def solve(self, nm: SolvableModel | Puzzle, *, time_limit: float | None = None,
              seed: int | None = None,
              unique: bool = False, **options: Any) -> RawAnswer:
        """:meth:`prepare` and :meth:`run` in one call, for Python users: ``time_limit`` in
        seconds from now."""
        return self.run(nm, self.prepare(options), deadline=Deadline(time_limit), seed=seed,
                        unique=unique)


def size_limit(backend: str, limit: int,
               why: str) -> Callable[[SolvableModel], ModelRefused | None]:
    """A ``Backend.refuse`` for a sampler that cannot hold more than ``limit`` variables (the
    QUBO has exactly the model's variables: the lowering adds no slack)."""
    def refuse(nm: SolvableModel) -> ModelRefused | None:
        n = nm.model.num_variables
        if n <= limit:
            return None
        remedies = []
        if nm.use_x and 0 < nm.a_variables <= limit:
            remedies.append(Remedy("no_x", f"{nm.a_variables} variables"))
        if getattr(nm, "variables_before", None) is None:  # not presolved yet
            remedies.append(Remedy("presolve"))
        remedies.append(Remedy("other_backend", "sa,cpsat"))
        return ModelRefused(backend, f"{why}: it takes at most {limit} variables, this model has "
                            f"{n}", tuple(remedies))
    return refuse


class SamplerLike(Protocol):
    """A dimod-style sampler object (duck-typed, as dimod's own ``Sampler`` contract is):
    anything with ``sample(bqm, **parameters)``; :mod:`formulations.backends.sampler_object`
    wraps one as a :class:`Backend`."""

    def sample(self, bqm: Any, **parameters: Any) -> Any: ...


#: What every entry point accepts as "the backend": a registry name, a Backend, or a sampler.
BackendRef: TypeAlias = "str | Backend | SamplerLike"
