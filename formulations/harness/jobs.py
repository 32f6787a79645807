"""What a comparison runs: puzzles (with the names shown in tables), backend variants, and the
jobs planned from them, each with a key that a results file can be resumed by."""
from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model.encodings import DEFAULT_ENCODING, check_encoding
from ..options import MODEL_SWITCHES, route
from ..puzzle import Puzzle, PuzzleError
from ..results import BackendError



@dataclass(frozen=True)
class PuzzleRef:
    """A puzzle with the name shown in tables, where it came from and a digest of its clues."""
    name: str
    source: str
    puzzle: Puzzle

    @property
    def digest(self) -> str:
        clues = [[[b.length, b.colour] for b in c] for c in (self.puzzle.rows + self.puzzle.columns)]
        text = json.dumps([self.puzzle.height, self.puzzle.width, clues], separators=(",", ":"))
        return hashlib.sha1(text.encode()).hexdigest()[:12]


def load_puzzles(specs: Iterable[str | Path | Puzzle | PuzzleRef],
                 warn: Callable[[str], None] | None = None) -> list[PuzzleRef]:
    """Puzzles from files, directories (searched recursively), ``FILE::KEY`` (one puzzle of a
    janko JSON file, or ``FILE::N`` the N-th of a multi-puzzle file) or Puzzle objects.

    A bad file met while scanning a directory is reported through ``warn`` and skipped; a bad
    file named directly raises PuzzleError."""
    from ..io import read_puzzles
    from ..io.formats import extensions

    out: list[PuzzleRef] = []
    for k, spec in enumerate(specs):
        if isinstance(spec, PuzzleRef):
            out.append(spec)
            continue
        if isinstance(spec, Puzzle):
            out.append(PuzzleRef(spec.name or f"puzzle{k}", "<memory>", spec))
            continue
        text = str(spec)
        path, _, key = text.partition("::")
        p = Path(path)
        if key:
            out.append(select_puzzle(p, key))
            continue
        if p.is_dir():
            scanned = extensions(scanned=True)  # the format registry's (not janko .json)
            for f in sorted(q for q in p.rglob("*") if q.is_file()
                            and q.suffix.lower() in scanned):
                try:
                    out.extend(_file_refs(f, read_puzzles(f)))
                except PuzzleError as exc:
                    if warn:
                        warn(f"skipping {exc}")
            continue
        out.extend(_file_refs(p, read_puzzles(p)))
    return out


def select_puzzle(path: Path, key: str) -> PuzzleRef:
    """One puzzle of a multi-puzzle file: by key in a janko JSON file, else by number."""
    from ..io import read_selected

    name, puzzle = read_selected(path, key)
    return PuzzleRef(name, f"{path}::{key}", puzzle)


def _file_refs(path: Path, puzzles: list[Puzzle]) -> list[PuzzleRef]:
    if len(puzzles) == 1:
        return [PuzzleRef(path.stem, str(path), puzzles[0])]
    return [PuzzleRef(q.name or f"{path.stem}#{i}", f"{path}::{i}", q) for i, q in enumerate(puzzles)]


@dataclass(frozen=True)
class Job:
    """One run: a puzzle, a backend with its options, a seed and the limits. ``use_x`` and
    ``encoding`` are None for a backend that works on the puzzle (no model)."""
    ref: PuzzleRef
    backend: str
    options: Mapping[str, Any]  # the backend options, converted (SolveRequest.make checks them)
    seed: int
    time_limit: float | None   # handed to the backend
    kill_after: float | None   # the harness kills the run after this many seconds
    use_x: bool | None = True
    presolve: bool = False
    encoding: str | None = DEFAULT_ENCODING
    sampler: bytes | None = None  # a pickled sampler object (formulations.backends.sampler_object), named backend
    unique: bool = False       # also time a uniqueness proof (a second call, complete backends)

    @property
    def key(self) -> str:
        parts = [self.ref.digest, self.backend, self.options_text, self.use_x, self.presolve,
                 self.seed, self.time_limit]
        if self.encoding not in (None, DEFAULT_ENCODING):  # the default keeps the keys it had
            parts.append(self.encoding)
        if self.sampler is not None:  # the object's state, so two differently made ones differ
            parts.append(hashlib.sha1(self.sampler).hexdigest())
        if self.unique:  # without it the keys stay as they were
            parts.append("unique")
        return hashlib.sha1(json.dumps(parts).encode()).hexdigest()[:16]

    @property
    def options_text(self) -> str:
        """The options as canonical JSON: the job's key and the record's ``options`` column."""
        return canonical_options(self.options)


def canonical_options(options: Mapping[str, Any] | None) -> str:
    return json.dumps(dict(sorted((options or {}).items())), sort_keys=True, default=list)


BackendSpec = str | tuple[str, Mapping[str, Any]] | Any
"""A registry name, ``(name, options)``, a dimod sampler object, or ``(sampler, options)``."""


def lookup_backend(name: str):
    """The registry's Backend (an unknown name raises BackendError listing the valid ones)."""
    from formulations.backends import get_backend

    return get_backend(name)


@dataclass(frozen=True)
class Variant:
    """A backend with its options; ``use_x``/``presolve``/``encoding`` None = the sweep's default.
    ``uses_model`` is False for a backend that works on the puzzle (x and presolve do not apply)."""
    backend: str
    options: Mapping[str, Any]  # converted by Backend.prepare
    use_x: bool | None = None
    presolve: bool | None = None
    uses_model: bool = True
    encoding: str | None = None
    sampler: bytes | None = None  # a sampler object's pickle (``backend`` is then its name)
    default_x: bool = True     # the backend's own variant (``Backend.model_x``) when none is chosen
    supports_unique: bool = False  # the backend can prove a grid unique


def resolve_backends(backends: str | Sequence[BackendSpec],
                     options: Mapping[str, Mapping[str, Any]] | None = None,
                     warn: Callable[[str], None] | None = None) -> list[Variant]:
    """The variants to run; unavailable backends are skipped with a warning.

    ``backends``: ``"cpsat,sa"``, ``"all"`` (every installed backend), or a list of names and
    ``(name, options)`` pairs, where options may also hold the model switches ``x`` (False:
    build without cell variables), ``presolve`` (True) and ``encoding`` (a name). ``options``:
    per backend name, plus ``"*"`` for options given to every backend that declares them.
    Options go through :func:`formulations.options.route` (declared options, native parameters,
    model switches); unknown names and options raise BackendError before any run."""
    from formulations.backends import available_backends
    from formulations.backends.sampler_object import is_sampler

    if isinstance(backends, str):
        names: list[BackendSpec] = [b.strip() for b in backends.split(",") if b.strip()]
    elif is_sampler(backends):
        names = [backends]
    else:
        names = list(backends)
    expanded: list[BackendSpec] = []
    for b in names:
        expanded.extend(available_backends() if b == "all" else [b])
    options = options or {}
    out: list[Variant] = []
    objects = _SamplerNames()
    for spec in expanded:
        name: Any  # a registry name or a sampler object
        opts: dict[str, Any]
        if isinstance(spec, str) or is_sampler(spec):
            name, opts = spec, {}
        else:
            name, opts = spec[0], dict(spec[1])
        payload = None
        if is_sampler(name):  # a sampler object: sent to the workers pickled, named by its class
            name, payload, b = objects.add(name)
        else:
            b = lookup_backend(name)
        if not b.available():
            if warn:
                warn(f"skipping backend '{name}': not installed ({b.install_hint})")
            continue
        merged = {k: v for k, v in options.get("*", {}).items()
                  if k in b.options or k in MODEL_SWITCHES}
        merged.update(options.get(name, {}))
        merged.update(opts)
        try:
            routed, model = route(b, merged.items())
            if "encoding" in model:
                check_encoding(model["encoding"])
        except ValueError as exc:
            raise BackendError(str(exc)) from None
        prepared = b.prepare(routed)  # wrong types and bad native parameters fail before any run
        routed = {k: prepared[k] for k in routed}  # converted once, as the job will carry them
        if not b.uses_model:
            if model:
                raise BackendError(f"backend '{name}' works on the puzzle; "
                                   f"{', '.join(model)} do not apply")
            out.append(Variant(name, routed, uses_model=False,
                               supports_unique=b.supports_unique))
            continue
        out.append(Variant(name, routed, model.get("x"), model.get("presolve"),
                           encoding=model.get("encoding"), sampler=payload,
                           default_x=b.model_x(None), supports_unique=b.supports_unique))
    return out


class _SamplerNames:
    """Names for the sampler objects of one sweep: ``sampler:Class``, then ``sampler:Class-2``
    for a second object of the same class in another state."""

    def __init__(self) -> None:
        self.names: dict[bytes, str] = {}

    def add(self, sampler: Any):
        from formulations.backends.sampler_object import dumps, sampler_backend, sampler_name

        payload = dumps(sampler)
        if payload not in self.names:
            base = sampler_name(sampler)
            taken = set(self.names.values())
            name, k = base, 2
            while name in taken:
                name, k = f"{base}-{k}", k + 1
            self.names[payload] = name
        name = self.names[payload]
        return name, payload, sampler_backend(sampler, name)


def plan_jobs(refs: Sequence[PuzzleRef], variants: Sequence[Variant], seeds: Sequence[int],
              *, time_limit: float | None, kill_after: float | None,
              use_x: bool | None | Sequence[bool | None] = None,
              presolve: bool | Sequence[bool] = False,
              encoding: str | Sequence[str] | None = None, unique: bool = False) -> list[Job]:
    """puzzle x variant x model choice x seed, in that order, without duplicates. A backend
    that works on the puzzle has no model, so it runs once per seed whatever x, presolve and
    the encoding (None: ``order``) say. ``use_x`` None gives each backend the variant
    ``solve_puzzle`` gives it (``Backend.model_x``), and the job records which. ``unique``
    asks the backends that can prove a grid unique to time that proof too (the others ignore
    it)."""
    xs = [use_x] if use_x is None or isinstance(use_x, bool) else list(use_x)
    ps = [presolve] if isinstance(presolve, bool) else list(presolve)
    es: list[str | None] = [encoding or DEFAULT_ENCODING] \
        if encoding is None or isinstance(encoding, str) else list(encoding)
    jobs, seen = [], set()
    for ref, v in itertools.product(refs, variants):
        vx: list[bool | None] = [None] if not v.uses_model else [v.use_x] if v.use_x is not None else xs
        vp = [False] if not v.uses_model else [v.presolve] if v.presolve is not None else ps
        ve: list[str | None] = [None] if not v.uses_model else \
            [v.encoding] if v.encoding is not None else es
        for enc, x, pre, seed in itertools.product(ve, vx, vp, seeds):
            if v.uses_model and x is None:
                x = v.default_x
            job = Job(ref, v.backend, v.options, seed, time_limit, kill_after, x, pre, enc,
                      v.sampler, unique=unique and v.supports_unique)
            if job.key not in seen:
                seen.add(job.key)
                jobs.append(job)
    return jobs


def default_kill_after(time_limit: float | None, unique: bool = False) -> float | None:
    """Hard limit: the backend's own limit plus room for building, presolve and verification;
    with ``unique`` a second call (the uniqueness proof, its own ``time_limit``) fits too, so
    that a slow proof does not take the first grid's result with it."""
    return None if time_limit is None else (3 if unique else 2) * time_limit + 30
