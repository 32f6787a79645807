"""Command line: ``python -m formulations.solve FILE [--backend NAME] ...``.

Exit codes: 0 solved, 1 infeasible or unknown (or error result), 2 bad input or usage,
130 interrupted. With ``--json`` every outcome, errors included, is exactly one JSON object on
stdout with the same keys (null where a figure does not apply).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from . import options as opt
from .io.common import MAX_INPUT_BYTES, InputTooLarge
from .io.formats import describe as describe_formats
from .model.encodings import ENCODINGS
from .model.size import DEFAULT_MAX_MODEL_MB
from .model.words import constraint_words
from .puzzle import Puzzle, PuzzleError
from .results import BackendError, ModelRefused, RemedyWords, SolveResult, Status
from .runtime.clock import Deadline
from .show.text import grid_lines, legend, render_text

EXIT_SOLVED, EXIT_NOT_SOLVED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_MEANING = {EXIT_SOLVED: "solved", EXIT_NOT_SOLVED: "not solved (infeasible, unknown or an "
                "error result)", EXIT_BAD_INPUT: "bad input or usage", EXIT_INTERRUPTED: "interrupted"}


class UsageError(Exception):
    """A command line that cannot be run as given (exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors: one line (or a JSON object), exit 2
        raise UsageError(message)

    def parse_known_args(self, args=None, namespace=None):
        ns, rest = super().parse_known_args(args, namespace)
        trailing = ns.__dict__.pop("param_file", None)  # the word --param took (_Params)
        if trailing is not None:
            if getattr(ns, "file", None) is not None:
                self.error(f"argument --param: expected KEY=VALUE, got {trailing!r}")
            ns.file = trailing
        return ns, rest


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text!r}")
    return value


def _argtype(parse, *args):
    """An argparse type from a parser of :mod:`formulations.options` (its ValueError becomes a
    usage error)."""
    def convert(text: str):
        try:
            return parse(text, *args)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return convert


class _Params(argparse.Action):
    """``--param KEY=VALUE [KEY=VALUE ...]``: several pairs after one flag; a last word without
    ``=`` is the puzzle FILE when none was given before (``--param gamma=2 FILE``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        pairs = list(getattr(namespace, self.dest) or [])
        for k, text in enumerate(values):
            if "=" not in text and k == len(values) - 1 and k > 0:
                namespace.param_file = text  # the FILE, unless one is given elsewhere (_Parser)
                continue
            try:
                pairs.append(opt.parse_assignment(text))
            except ValueError as exc:
                parser.error(f"argument --param: {exc}")
        setattr(namespace, self.dest, pairs)


CLI_WORDS = RemedyWords(
    presolve="--presolve (fix what line solving decides and hand over a smaller model)",
    no_x="--no-x", each_backend="--backend {}", backends="{}",
    memory_cap="a higher --max-model-mb")
"""How this command line names a backend's remedies for a model it refuses."""


def x_defaults(with_x: bool) -> list[str]:
    """The registered backends that get the model with (``with_x``) or without the cell
    variables x unless told (``Backend.model_x``, the one rule every entry point asks)."""
    from .backends import get_backend, names
    out = []
    for name in names():
        try:
            b = get_backend(name)
        except Exception:  # noqa: BLE001 - a module that does not import here: not listed
            continue
        if b.uses_model and b.model_x() is with_x:
            out.append(b.name)
    return out


class _RegistryText(str):
    """A help text made from the registry when ``--help`` prints it, not when the parser is
    built: importing every backend module costs about a second that a solve need not pay."""
    make: Callable[[], str]

    def __new__(cls, make: Any) -> _RegistryText:
        text = super().__new__(cls, "(from the registry)")
        text.make = make
        return text

    def __mod__(self, params: Any) -> str:  # argparse expands help strings with %
        return self.make()


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m formulations.solve",
                description="Solve a nonogram with one of the package's backends; every answer is "
                            "checked against the clues.")
    p.add_argument("file", nargs="?", help=f"puzzle file ({describe_formats()}; see "
                   "docs/formats.md for the formats); FILE::KEY picks one puzzle of a multi-puzzle file")
    p.add_argument("--backend", default="cpsat", help="backend name (default cpsat; see --list-backends)")
    p.add_argument("--list-backends", action="store_true", help="list backends and whether they are installed")
    p.add_argument("--time-limit", type=_positive, metavar="S",
                   help="time limit in seconds for the whole run (build, presolve, solve)")
    p.add_argument("--seed", type=int, help="random seed")
    p.add_argument("--unique", action="store_true", help="also search for a second solution")
    xg = p.add_mutually_exclusive_group()
    xg.add_argument("--x", dest="use_x", action="store_true", default=None,
                    help=_RegistryText(lambda: "build with the cell variables x (R = x = C); "
                                       "the default for " + ", ".join(x_defaults(True))))
    xg.add_argument("--no-x", dest="use_x", action="store_false",
                    help=_RegistryText(lambda: "build without cell variables (R = C directly); "
                                       "the default for " + ", ".join(x_defaults(False))))
    p.add_argument("--presolve", action="store_true", help="fix what line solving decides before the backend")
    p.add_argument("--encoding", choices=ENCODINGS, help="the model's encoding (default order)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the grid")
    g = p.add_argument_group("backend options (passed only when given)")
    g.add_argument("--workers", metavar="N",
                   help="threads, 0 = every core: cpsat's search workers (default 1); sa, tabu "
                        "and descent share their reads among sampling threads (default: every "
                        "core with --until-solved, else 1)")
    g.add_argument("--reads", metavar="N", help="samples per run (annealers)")
    g.add_argument("--sweeps", metavar="N", help="sweeps per read (simulated annealing)")
    g.add_argument("--until-solved", action="store_true", default=None,
                   help="samplers: sample batch after batch, each annealing longer, until a "
                        "verified grid or --time-limit (without it a sampler takes its reads "
                        "once, within the limit)")
    g.add_argument("--beta-range", type=_argtype(opt.parse_floats, 2), metavar="LO,HI",
                   help="inverse temperature range")
    g.add_argument("--schedule", metavar="NAME", help="beta schedule (e.g. linear, geometric)")
    g.add_argument("--weights", type=_argtype(opt.parse_mapping), metavar="F=W,...",
                   help="penalty weight per constraint family: monotone, order, link (order "
                        "encoding), exactly_one, clash (onehot), one_state, transition (automaton)")
    g.add_argument("--param", nargs="+", action=_Params, default=[], metavar="KEY=VALUE",
                   help="backend/sampler-specific parameters, one or several after one --param "
                        "(--param gamma=2 trotter=8); repeatable")
    p.add_argument("--export-bqm", metavar="PATH",
                   help="write the penalty QUBO and stop; the extension picks the format: .bqm and "
                        ".json dimod, .qubo qbsolv text, .coo 'i j value' text")
    p.add_argument("--png", metavar="PATH", help="also draw the solved grid in the palette's colours")
    p.add_argument("--max-input-mb", type=_positive, default=MAX_INPUT_BYTES / 2**20, metavar="MB",
                   help=f"largest puzzle file read (default {MAX_INPUT_BYTES // 2**20})")
    p.add_argument("--max-model-mb", type=_positive, default=DEFAULT_MAX_MODEL_MB, metavar="MB",
                   help="memory cap for the model, estimated from the clues before it is built "
                        f"(default {DEFAULT_MAX_MODEL_MB:.0f})")
    # puzzles from nonograms.org, the CQM export, the solving replayed
    p.add_argument("--from", dest="source", metavar="nonograms.org:ID",
                   help="download the puzzle instead of reading FILE (nonograms.org:ID, "
                        "nonograms.ru:ID or a puzzle page's URL)")
    p.add_argument("--export-cqm", metavar="PATH",
                   help="write the model as a dimod ConstrainedQuadraticModel file and stop")
    p.add_argument("--explain", action="store_true",
                   help="also print every deduction of the line engine with its reason (rows and "
                        "columns from 1); with --json the object gains 'explanation'")
    p.add_argument("--difficulty", action="store_true",
                   help="also print the difficulty report: line-solvable or not, line steps, "
                        "probes, guesses, the cells that need more than line logic, a level 1-5")
    p.add_argument("--animate", metavar="PATH",
                   help="replay the line solving as PATH.gif or PATH.html (with the search's "
                        "guesses and backtracks for --backend lines)")
    return p


def _pairs(args: argparse.Namespace, backend) -> list[tuple[str, Any]]:
    """The backend options the flags give, then the ``--param`` pairs, as ``(key, value)``
    pairs for :meth:`SolveRequest.make <formulations.solving.SolveRequest.make>` (which
    converts and checks them, once)."""
    flags = [(name, getattr(args, flag)) for flag, name in (
        ("workers", "workers"), ("reads", "reads"), ("sweeps", "sweeps"),
        ("beta_range", "beta_range"), ("schedule", "beta_schedule"), ("weights", "weights"),
        ("until_solved", "until_solved"))
        if getattr(args, flag) is not None]
    for name, _ in flags:  # a flag names a backend option: never a native solver parameter
        if name not in backend.options:
            raise BackendError(_not_an_option(name, backend))
    return flags + list(args.param)


def _not_an_option(name: str, backend) -> str:
    """A backend-option flag given to a backend that does not take it, e.g. ``--reads`` (a
    sampler option) for cpsat, with the backends that do take it."""
    from formulations.backends import all_backends
    flag = {"beta_schedule": "schedule"}.get(name, name).replace("_", "-")
    takers = [b.name for b in all_backends() if name in b.options]
    return (f"--{flag} does not apply to backend '{backend.name}'"
            + (f": it is an option of {', '.join(takers)}" if takers else ""))


def list_backends() -> str:
    from formulations.backends import all_backends, prefix_forms
    lines = []
    for b in all_backends():
        ok = b.available()
        state = "installed" if ok else f"not installed: {b.install_hint}"
        lines.append(f"{b.name:<16} {state:<12}  {b.description}" if ok else f"{b.name:<16} {state}")
    lines.append("also: " + ", ".join(prefix_forms()))
    return "\n".join(lines)


def backends_record() -> dict[str, Any]:
    """``--list-backends --json``: every registered backend (name, installed, the model variant
    it gets, description, install hint) and the prefixed families' forms."""
    from formulations.backends import all_backends, prefix_forms
    rows = []
    for b in all_backends():
        rows.append({"name": b.name, "installed": b.available(),
                     "model": ("x" if b.model_x() else "no-x") if b.uses_model else None,
                     "description": b.description, "install_hint": b.install_hint})
    return {"backends": rows, "also": prefix_forms()}


def render(result: SolveResult, puzzle, *, ansi: bool = False) -> str:
    out = []
    if result.grid is not None:
        out.append(render_text(puzzle, result.grid, ansi=ansi))
    line = f"{result.status.value}"
    if result.unique is not None:
        line += ", unique" if result.unique else ", not unique"
    model = "" if result.use_x is None else " model=x" if result.use_x else " model=no-x"
    if result.encoding not in (None, "order"):
        model += f",{result.encoding}"
    line += f"  backend={result.backend}{model}"
    if result.variables is not None:  # a backend on the puzzle (lines, ladder) has no model
        line += f" variables={result.variables} constraints={result.constraints}"
    line += f" build={result.build_s:.3f}s solve={result.solve_s:.3f}s"
    if result.solve_cpu_s is not None:  # CPU: every thread, the statistics' clock
        line += f" cpu={result.build_cpu_s or 0.0:.3f}s+{result.solve_cpu_s:.3f}s"
    if result.energy is not None:
        line += f" energy={result.energy:g}"
    if result.sampling is not None:
        line += f" p={result.sampling.success_probability:.3f}"
        if result.sampling.tts99_cpu_s is not None:
            line += f" tts99_cpu={result.sampling.tts99_cpu_s:.3g}s"
    if result.message:
        line += f"  ({result.message})"
    out.append(line)
    if result.violations:
        shown = "; ".join(map(constraint_words, result.violations[:8]))
        more = f" and {len(result.violations) - 8} more" if len(result.violations) > 8 else ""
        out.append(f"violated: {shown}{more}")
    if result.second_grid is not None:
        out.append("another solution:")
        out.extend(grid_lines(puzzle, result.second_grid))
    return "\n".join(out)


def json_record(path: str | None, puzzle: Puzzle | None, result: SolveResult, code: int) -> dict:
    """The one JSON object of a run: the puzzle (``puzzle`` is the path, ``title`` its title),
    the result's keys (the same for every backend and every outcome), then the verdict."""
    record: dict[str, Any] = {
        "puzzle": path, "title": (puzzle.name or None) if puzzle is not None else None,
        "height": puzzle.height if puzzle is not None else None,
        "width": puzzle.width if puzzle is not None else None}
    fields = result.to_dict()
    if puzzle is not None:
        for key in ("grid", "second_grid"):
            grid = getattr(result, key)
            fields[key] = grid_lines(puzzle, grid) if grid is not None else None
    fields["legend"] = legend(puzzle) if puzzle is not None and not puzzle.is_black_and_white else None
    record.update(fields)
    record["exit_code"] = code
    record["exit_meaning"] = EXIT_MEANING[code]
    for key in ("message", "unique", "status"):  # the verdict last, where a reader looks
        record[key] = record.pop(key)
    return record


class _Out:
    """Where a run's answer goes: one JSON object or text on stdout, errors on stderr. Output to
    a closed pipe (``| head``) ends quietly."""

    def __init__(self, as_json: bool):
        self.as_json = as_json

    def write(self, text: str) -> None:
        try:
            print(text, flush=True)
        except BrokenPipeError:
            # the reader has gone: send what is left into nothing so that exiting does not fail
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

    def fail(self, code: int, message: str, *, path: str | None = None, puzzle: Puzzle | None = None,
             backend: str = "", status: str = "error", result: SolveResult | None = None) -> int:
        """Report an outcome without a solve result: one line on stderr (and with --json one
        object on stdout; ``result`` gives the figures known so far, e.g. of an interrupted
        run)."""
        print(f"error: {message}" if status == "error" else message, file=sys.stderr)
        if self.as_json:
            outcome = Outcome(code, puzzle, None, message, status, partial=result)
            self.write(json.dumps(outcome.record(path, backend)))
        return code


@dataclass(frozen=True)
class Outcome:
    """How a run ended: its exit code, the puzzle (when it was read) and the verified result,
    or, without a result, the one line that says why (``status`` "error" or "interrupted")."""
    code: int
    puzzle: Puzzle | None = None
    result: SolveResult | None = None
    message: str = ""
    status: str = "error"
    partial: SolveResult | None = None  # without a result: the figures known so far (Ctrl-C)

    def record(self, where: str | None, backend: str) -> dict[str, Any]:
        """The run's one JSON object (``--json``), the same keys whatever the outcome."""
        if self.result is not None:
            return json_record(where, self.puzzle, self.result, self.code)
        shown = self.partial or SolveResult(Status.ERROR, backend, message=self.message)
        record = json_record(where, self.puzzle, shown, self.code)
        record["status"] = self.status
        return record


def attempt(read: Callable[[], Puzzle], make: Callable[[Puzzle], Any], clock: Deadline,
            backend: str) -> Outcome:
    """Read a puzzle, make its :class:`~formulations.solving.SolveRequest` and solve it before
    ``clock``: every failure becomes an :class:`Outcome` with its exit code and one line, the
    same for the command line and the web worker."""
    from .solving import solve

    puzzle = None
    try:
        puzzle = read()
        result = solve(make(puzzle), clock)
    except BaseException as exc:  # noqa: BLE001 - each is named in failed()
        return failed(exc, puzzle, backend)
    return Outcome(EXIT_SOLVED if result.status is Status.SOLVED else EXIT_NOT_SOLVED, puzzle,
                   result)


def failed(exc: BaseException, puzzle: Puzzle | None, backend: str) -> Outcome:
    """A run that raised, in words (a solver failing inside: one line, never a traceback)."""
    if isinstance(exc, InputTooLarge):
        return Outcome(EXIT_BAD_INPUT, None, None, f"{exc} (--max-input-mb lifts it)")
    if isinstance(exc, ModelRefused):
        return Outcome(EXIT_BAD_INPUT, puzzle, None, exc.advice(CLI_WORDS))
    if isinstance(exc, (PuzzleError, BackendError)):
        return Outcome(EXIT_BAD_INPUT, puzzle, None, str(exc))
    if isinstance(exc, OSError):  # e.g. --export-bqm into a folder that does not exist
        return Outcome(EXIT_BAD_INPUT, puzzle, None,
                       f"{exc.filename or ''}: {exc.strerror or exc}")
    if isinstance(exc, KeyboardInterrupt):
        from .solving import progress
        track = progress()  # the time spent so far and the model's size
        partial = None if track is None else track.result(Status.ERROR, "interrupted")
        return Outcome(EXIT_INTERRUPTED, puzzle, None, "interrupted", status="interrupted",
                       partial=partial)
    if isinstance(exc, ModuleNotFoundError):  # a package the backend imports is missing
        from .backends.base import missing_module_hint
        return Outcome(EXIT_BAD_INPUT, puzzle, None, f"backend '{backend}' needs {exc.name}, "
                       f"which is not installed: {missing_module_hint(exc.name)}")
    if isinstance(exc, MemoryError):
        return Outcome(EXIT_NOT_SOLVED, puzzle, None, f"backend '{backend}' ran out of memory "
                       "(try --presolve, --no-x or a lower --max-model-mb)")
    if not isinstance(exc, Exception):  # SystemExit and the like go on
        raise exc
    message = f"backend '{backend}' failed: {type(exc).__name__}: {exc}".splitlines()[0]
    return Outcome(EXIT_NOT_SOLVED, puzzle, None, message)


def main(argv: Sequence[str] | None = None) -> int:
    started = time.perf_counter()  # the time limit covers reading the puzzle too
    argv_given = argv
    argv = list(sys.argv[1:] if argv is None else argv)
    out = _Out("--json" in argv)
    prog = "python -m formulations.solve"
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        return out.fail(EXIT_BAD_INPUT, f"{prog}: {exc}")
    # the run's one deadline, from the start: reading the puzzle counts too
    clock = Deadline(args.time_limit).earlier(time.perf_counter() - started)
    if args.list_backends:
        out.write(json.dumps(backends_record()) if args.json else list_backends())
        return EXIT_SOLVED
    if not args.file and not args.source:
        return out.fail(EXIT_BAD_INPUT, f"{prog}: a puzzle FILE (or --from) is required")
    if args.file and args.source:
        return out.fail(EXIT_BAD_INPUT, f"{prog}: give a puzzle FILE or --from, not both")
    where = args.file or args.source
    if args.animate:  # fail before solving
        from .show.animate import check_path
        try:
            check_path(args.animate)
        except (ValueError, ImportError) as exc:
            return out.fail(EXIT_BAD_INPUT, str(exc), path=where, backend=args.backend)
    from .io import read_puzzle
    from .solving import SolveRequest

    def read() -> Puzzle:
        if args.source:
            from formulations.io.fetch import fetch_puzzle
            return fetch_puzzle(args.source)
        return read_puzzle(args.file, max_bytes=int(args.max_input_mb * 2**20))

    if args.export_cqm or args.export_bqm:
        puzzle = None
        try:
            puzzle = read()
            return _export(args, puzzle, out)
        except BaseException as exc:  # noqa: BLE001 - reported as a solve's failures are
            outcome = failed(exc, puzzle, args.backend)
    else:
        def make(puzzle: Puzzle) -> SolveRequest:
            from formulations.backends import get_backend
            backend = get_backend(args.backend)
            return SolveRequest.make(
                puzzle, backend, pairs=_pairs(args, backend), use_x=args.use_x,
                encoding=args.encoding, presolve=args.presolve, unique=args.unique,
                seed=args.seed, time_limit=args.time_limit, max_model_mb=args.max_model_mb)

        outcome = attempt(read, make, clock, args.backend)
    puzzle, result = outcome.puzzle, outcome.result
    if result is None:
        code = out.fail(outcome.code, outcome.message, path=where, puzzle=puzzle,
                        backend=args.backend, status=outcome.status, result=outcome.partial)
        if outcome.code == EXIT_INTERRUPTED and argv_given is None:
            _leave(code)  # the command line itself: leave now
        return code
    assert puzzle is not None  # a result is always of a puzzle read
    code = outcome.code
    if args.png:
        png_problem = _draw(args.png, puzzle, result)
        if png_problem:
            return out.fail(EXIT_BAD_INPUT, png_problem, path=where, puzzle=puzzle,
                            backend=args.backend)
    explanation = None
    if args.explain or args.difficulty:
        from .lines.explain import explain
        try:  # the line engine's trace (whatever the backend), in the time the run has left
            explanation = explain(puzzle, time_limit=clock)
        except KeyboardInterrupt:
            code = out.fail(EXIT_INTERRUPTED, "interrupted", path=where, puzzle=puzzle,
                            backend=args.backend, status="interrupted")
            if argv_given is None:
                _leave(code)
            return code
    if args.json:
        record = json_record(where, puzzle, result, code)
        if explanation is not None:
            record["explanation"] = explanation.to_json()
        out.write(json.dumps(record))
    else:
        ansi = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        out.write(render(result, puzzle, ansi=ansi))
        if explanation is not None:
            from .show.explanation import difficulty_text, explanation_text
            if args.explain:
                out.write(explanation_text(puzzle, explanation))
            out.write(difficulty_text(puzzle, explanation))
    if args.animate:
        problem = _animate(args, puzzle, result, where)
        if problem:
            return out.fail(EXIT_BAD_INPUT, problem, path=where, puzzle=puzzle,
                            backend=args.backend)
    return code


def _leave(code: int) -> None:
    """End the process at once with ``code``: after Ctrl-C nothing is left to save, and the
    interpreter's teardown (a large model's memory, a sampler call still ending in its thread)
    would take a second or more of the second that Ctrl-C promises."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _export(args: argparse.Namespace, puzzle: Puzzle, out: _Out) -> int:
    """``--export-bqm PATH`` (the model's penalty QUBO in the format PATH's extension names)
    and ``--export-cqm PATH`` (its constraints as a dimod CQM file)."""
    for flag, given in (("--export-bqm", args.export_bqm), ("--export-cqm", args.export_cqm)):
        if given and args.presolve:
            raise BackendError(f"{flag} writes the full model; it cannot be combined with "
                               "--presolve")
    from .model import build_model, export_bqm

    from formulations.backends import get_backend

    # the model --backend (default cpsat) would be given, by the rule every entry point follows
    use_x = get_backend(args.backend).model_x(args.use_x)
    nm = build_model(puzzle, use_x=use_x, encoding=args.encoding,
                     max_model_mb=args.max_model_mb)
    written = []
    if args.export_cqm:  # the constraints as constraints, for constrained/hybrid solvers
        from .model.cqm import export_cqm
        written.append(str(export_cqm(nm, args.export_cqm)))
    if args.export_bqm:
        written.append(export_bqm(nm, args.export_bqm, weights=args.weights))
    print(f"wrote {', '.join(written)} (model={'x' if nm.use_x else 'no-x'} for backend "
          f"{args.backend}, {nm.model.num_variables} variables)", file=sys.stderr)
    if out.as_json:
        record = json_record(args.file or args.source, puzzle, SolveResult(
            Status.UNKNOWN, "export", use_x=nm.use_x, encoding=nm.encoding, variables=nm.model.num_variables,
            constraints=nm.model.num_constraints, message=f"wrote {', '.join(written)}"),
            EXIT_SOLVED)
        record["status"] = "exported"
        out.write(json.dumps(record))
    return EXIT_SOLVED


def _animate(args: argparse.Namespace, puzzle: Puzzle, result: SolveResult, where: str) -> str:
    """``--animate PATH``: the solving replayed; a problem as one line ('' when written)."""
    from pathlib import Path

    from .show.animate import REPLAY_TIME_LIMIT, write_replay
    try:
        name = puzzle.name or (Path(args.file).stem if args.file else args.source)
        written = write_replay(puzzle, args.animate, backend=result.backend, grid=result.grid,
                               title=f"{name} ({puzzle.height}x{puzzle.width})",
                               time_limit=args.time_limit or REPLAY_TIME_LIMIT)
    except OSError as exc:
        return f"{exc.filename or args.animate}: {exc.strerror or exc}"
    print(f"wrote {written}", file=sys.stderr)
    return ""


def _draw(path: str, puzzle: Puzzle, result: SolveResult) -> str:
    """``--png``: the solved grid as a picture; a problem as one line ('' when drawn)."""
    if result.grid is None:
        print(f"--png: nothing drawn to {path}: no verified grid ({result.status.value})",
              file=sys.stderr)
        return ""
    try:
        from .show.png import save_png
        save_png(puzzle, result.grid, path)
    except ImportError:
        return '--png needs matplotlib: pip install -e ".[notebooks]"'
    except OSError as exc:
        return f"{exc.filename or path}: {exc.strerror or exc}"
    return ""


if __name__ == "__main__":
    sys.exit(main())
