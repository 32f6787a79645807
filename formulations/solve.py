"""Command line: ``python -m formulations.solve FILE [--backend NAME] ...``.

Exit codes: 0 solved, 1 infeasible or unknown (or error result), 2 bad input or usage.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from . import options as opt
from .model.encodings import ENCODINGS
from .puzzle import PuzzleError
from .results import BackendError, ModelRefused, RemedyWords, SolveResult, Status
from .show.text import grid_lines, legend, render_text

EXIT_SOLVED, EXIT_NOT_SOLVED, EXIT_BAD_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors: one line, exit 2
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _argtype(parse, *args):
    """An argparse type from a parser of :mod:`formulations.options` (its ValueError becomes a
    usage error)."""
    def convert(text: str):
        try:
            return parse(text, *args)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return convert


CLI_WORDS = RemedyWords(
    presolve="--presolve (fix what line solving decides and hand over a smaller model)",
    no_x="--no-x", each_backend="--backend {}", backends="{}")
"""How this command line names a backend's remedies for a model it refuses."""


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m formulations.solve",
                description="Solve a nonogram with one of the package's backends; every answer is "
                            "checked against the clues.")
    p.add_argument("file", nargs="?", help="puzzle file (.txt, .non, .xml, .nin, .toml; see README for the formats)")
    p.add_argument("--backend", default="cpsat", help="backend name (default cpsat; see --list-backends)")
    p.add_argument("--list-backends", action="store_true", help="list backends and whether they are installed")
    p.add_argument("--time-limit", type=float, metavar="S", help="time limit in seconds")
    p.add_argument("--seed", type=int, help="random seed")
    p.add_argument("--unique", action="store_true", help="also search for a second solution")
    xg = p.add_mutually_exclusive_group()
    xg.add_argument("--x", dest="use_x", action="store_true", default=None,
                    help="build with the cell variables x (R = x = C); the default except for cpsat")
    xg.add_argument("--no-x", dest="use_x", action="store_false",
                    help="build without cell variables (R = C directly); the default for cpsat")
    p.add_argument("--presolve", action="store_true", help="fix what line solving decides before the backend")
    p.add_argument("--encoding", choices=ENCODINGS, help="the model's encoding (default order)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the grid")
    g = p.add_argument_group("backend options (passed only when given)")
    g.add_argument("--workers", type=int, help="solver threads (cpsat)")
    g.add_argument("--reads", type=int, help="samples per run (annealers)")
    g.add_argument("--sweeps", type=int, help="sweeps per read (simulated annealing)")
    g.add_argument("--beta-range", type=_argtype(opt.parse_floats, 2), metavar="LO,HI",
                   help="inverse temperature range")
    g.add_argument("--schedule", metavar="NAME", help="beta schedule (e.g. linear, geometric)")
    g.add_argument("--weights", type=_argtype(opt.parse_mapping), metavar="F=W,...",
                   help="penalty weight per constraint family: monotone, order, link (order "
                        "encoding), exactly_one, clash (onehot), one_state, transition (automaton)")
    g.add_argument("--param", type=_argtype(opt.parse_assignment), action="append", default=[],
                   metavar="KEY=VALUE",
                   help="backend/sampler-specific parameter (repeatable)")
    p.add_argument("--export-bqm", metavar="PATH", help="write the model as a BQM/QUBO file and stop")
    p.add_argument("--png", metavar="PATH", help="also draw the solved grid in the palette's colours")
    return p


def _options(args: argparse.Namespace, backend) -> dict[str, Any]:
    """The backend options the flags give, then ``--param`` pairs, all through one path
    (:func:`formulations.options.route`)."""
    flags = [(name, getattr(args, flag)) for flag, name in (
        ("workers", "workers"), ("reads", "reads"), ("sweeps", "sweeps"),
        ("beta_range", "beta_range"), ("schedule", "beta_schedule"), ("weights", "weights"))
        if getattr(args, flag) is not None]
    try:
        options, _ = opt.route(backend, flags + list(args.param), switches=False)
    except ValueError as exc:
        raise BackendError(str(exc)) from None
    return options


def list_backends() -> str:
    from backends import all_backends, prefix_forms
    lines = []
    for b in all_backends():
        ok = b.available()
        state = "installed" if ok else f"not installed: {b.install_hint}"
        lines.append(f"{b.name:<16} {state:<12}  {b.description}" if ok else f"{b.name:<16} {state}")
    lines.append("also: " + ", ".join(prefix_forms()))
    return "\n".join(lines)


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
    line += (f"  backend={result.backend}{model} variables={result.variables} constraints={result.constraints}"
             f" build={result.build_s:.3f}s solve={result.solve_s:.3f}s")
    if result.energy is not None:
        line += f" energy={result.energy:g}"
    if result.sampling is not None:
        line += f" p={result.sampling.success_probability:.3f}"
    if result.message:
        line += f"  ({result.message})"
    out.append(line)
    if result.violations:
        shown = ", ".join(map(str, result.violations[:8]))
        more = f" and {len(result.violations) - 8} more" if len(result.violations) > 8 else ""
        out.append(f"violated: {shown}{more}")
    if result.second_grid is not None:
        out.append("another solution:")
        out.extend(grid_lines(puzzle, result.second_grid))
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.list_backends:
        print(list_backends())
        return EXIT_SOLVED
    if not args.file:
        print("python -m formulations.solve: error: a puzzle FILE is required", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        from backends import get_backend

        from .io import read_puzzle

        puzzle = read_puzzle(args.file)
        if args.export_bqm:
            if args.presolve:
                raise BackendError("--export-bqm writes the full model; it cannot be combined "
                                   "with --presolve")
            from .model import build_model, export_bqm
            nm = build_model(puzzle, use_x=args.use_x is not False, encoding=args.encoding)
            written = export_bqm(nm, args.export_bqm, weights=args.weights)
            print("wrote " + ", ".join(map(str, written)), file=sys.stderr)
            return EXIT_SOLVED
        backend = get_backend(args.backend)
        opts = _options(args, backend)
        from .solving import solve_puzzle
        result = solve_puzzle(puzzle, backend, use_x=args.use_x, time_limit=args.time_limit,
                              seed=args.seed, unique=args.unique, presolve=args.presolve,
                              encoding=args.encoding, **opts)
    except ModelRefused as exc:
        print(f"error: {exc.advice(CLI_WORDS)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (PuzzleError, BackendError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:  # e.g. --export-bqm into a folder that does not exist
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a solver failing inside: one line, never a traceback
        print(f"error: backend '{args.backend}' failed: {type(exc).__name__}: {exc}".splitlines()[0],
              file=sys.stderr)
        return EXIT_NOT_SOLVED
    if args.json:
        record = {"puzzle": puzzle.name or args.file, "height": puzzle.height, "width": puzzle.width}
        fields = result.to_dict()
        record["grid"] = grid_lines(puzzle, result.grid) if result.grid is not None else None
        fields.pop("grid")
        record.update(fields)
        if result.second_grid is not None:
            record["second_grid"] = grid_lines(puzzle, result.second_grid)
        for key in ("unique", "status"):  # the verdict last, where a reader of a long line looks
            record[key] = record.pop(key)
        if not puzzle.is_black_and_white:
            record["legend"] = legend(puzzle)
        print(json.dumps(record))
    else:
        print(render(result, puzzle, ansi=sys.stdout.isatty()))
    if args.png and result.grid is not None:
        try:
            from .show.png import save_png
            save_png(puzzle, result.grid, args.png)
        except ImportError:
            print('error: --png needs matplotlib: pip install "nonogram-formulations[notebooks]"',
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        except OSError as exc:
            print(f"error: {exc.filename or args.png}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return EXIT_SOLVED if result.status is Status.SOLVED else EXIT_NOT_SOLVED


if __name__ == "__main__":
    sys.exit(main())
