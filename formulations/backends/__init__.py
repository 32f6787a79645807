"""The backend registry: names to lazily imported adapter modules.

Adding a backend is one module with a ``BACKENDS`` list plus one line here (a named dimod
sampler: one ``sampling.declare(...)`` in that list); a family of backends named by a prefix
(``dimod:MODULE:CLASS``, ``ladder:RUNG``) is one module with ``resolve(name)``.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from formulations.results import BackendError

from .base import Backend, BackendRef

if TYPE_CHECKING:
    from .sampling import SamplerPlan

# backend name -> module that defines it (in its BACKENDS list)
_REGISTRY: dict[str, str] = {
    "cpsat": "formulations.backends.cpsat",
    "lines": "formulations.backends.lines",
    "sa": "formulations.backends.anneal",
    "tabu": "formulations.backends.anneal",
    "descent": "formulations.backends.anneal",
    "exact": "formulations.backends.anneal",
    "openjij-sa": "formulations.backends.anneal",
    "openjij-sqa": "formulations.backends.anneal",
    "pimc": "formulations.backends.more_samplers",
    "rotor": "formulations.backends.more_samplers",
    "pt": "formulations.backends.more_samplers",
    "pa": "formulations.backends.more_samplers",
    "qbpp": "formulations.backends.qbpp_easy",
    "qbpp-exhaustive": "formulations.backends.qbpp_easy",
    "sat": "formulations.backends.sat",
    "mip": "formulations.backends.mip",
}

# name prefixes resolved by a module's ``resolve(name)``, with the form shown in messages
_PREFIXES: dict[str, tuple[str, str]] = {
    "dimod": ("formulations.backends.anneal", "dimod:MODULE:CLASS"),
    "ladder": ("formulations.backends.ladder", "ladder:cell|row|propagate"),
}


def register(name: str, module: str) -> None:
    """Name a backend defined in ``module`` (in its ``BACKENDS`` list): a plug-in's, or a test's.
    The package's own are the lines of the table above."""
    _REGISTRY[name] = module


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def names() -> list[str]:
    return list(_REGISTRY)


def prefix_forms() -> list[str]:
    """How the prefixed families are named, e.g. ``dimod:MODULE:CLASS``."""
    return [form for _, form in _PREFIXES.values()]


def get_backend(name: BackendRef | object) -> Backend:
    """The backend called ``name`` (a Backend is returned as it is, a dimod sampler object
    becomes one: :mod:`formulations.backends.sampler_object`); an unknown name lists the valid ones."""
    if isinstance(name, Backend):
        return name
    if not isinstance(name, str):
        from .sampler_object import is_sampler, sampler_backend
        if is_sampler(name):
            return sampler_backend(name)
        if isinstance(name, type) and callable(getattr(name, "sample", None)):
            raise BackendError(f"{name.__name__} is a sampler class: pass an object, "
                               f"{name.__name__}(), or the name dimod:{name.__module__}:"
                               f"{name.__name__}")
        raise BackendError(f"a backend is a registry name, a Backend or a dimod sampler object "
                           f"(with a sample method), not a {type(name).__name__}")
    if name in _REGISTRY:
        mod = importlib.import_module(_REGISTRY[name])  # adapter modules import solvers lazily
        for b in mod.BACKENDS:
            if b.name == name:
                return b
    prefix = name.split(":", 1)[0]
    if ":" in name and prefix in _PREFIXES:
        return importlib.import_module(_PREFIXES[prefix][0]).resolve(name)
    raise BackendError(f"unknown backend '{name}', choose from {', '.join(_REGISTRY)}, "
                       + ", ".join(prefix_forms()))


def all_backends() -> list[Backend]:
    return [get_backend(n) for n in _REGISTRY]


def available_backends() -> list[str]:
    return [b.name for b in all_backends() if b.available()]


def plan_of(name: str) -> SamplerPlan:
    """The plan of the sampler backend ``name`` (its declaring module loaded through the backend
    registry); BackendError when ``name`` is no sampler."""
    from .sampling import PLANS

    get_backend(name)
    if name not in PLANS:
        raise BackendError(f"backend '{name}' is not a sampler")
    return PLANS[name]


def sampler_names(*, studied: bool = False) -> list[str]:
    """The registry's sampler backends (every declaring module loaded), in registry order;
    ``studied``: those with an anneal length (what the studies and the release measure)."""
    from .sampling import PLANS

    out = []
    for name in names():
        try:
            plan_of(name)
        except BackendError:
            continue
        if not studied or PLANS[name].length_unit is not None:
            out.append(name)
    return out
