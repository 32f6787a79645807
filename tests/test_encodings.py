"""Every encoding against the same invariants, exhaustively on tiny puzzles: energy 0 exactly on
the assignments that satisfy every constraint, as many energy-0 states as solutions, and each
decodes to the grids the order encoding gives; then the pieces around them (encode, presolve,
the option path, the counts reported for cat15)."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from formulations.lines import solve_lines
from formulations.model import ENCODINGS, build_model
from formulations.model.penalty import lower, penalty_terms
from formulations.model.presolve import presolve
from formulations.puzzle import Puzzle, check_grid, line_runs, puzzle_from_grid
from formulations.io import read_puzzle
from formulations.results import BackendError, Status
from formulations.solving import solve_puzzle

from helpers import PUZZLES, ROOT
OTHERS = [e for e in ENCODINGS if e != "order"]
MAX_ENUMERATED = 20  # 2^20 assignments


def brute_solutions(puzzle: Puzzle) -> set:
    """Every solution grid, from the rows' placements and the independent checker."""
    colours = (0,) + (puzzle.colours or (1,))
    rows = [[r for r in itertools.product(colours, repeat=puzzle.width) if line_runs(r) == clue]
            for clue in puzzle.rows]
    return {g for g in itertools.product(*rows) if not check_grid(puzzle, g)}


def all_assignments(n: int) -> np.ndarray:
    return ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1).astype(np.int8)


def feasible_mask(model, X: np.ndarray) -> np.ndarray:
    """Feasibility of every row of X from the model's own matrix (not from the penalty code)."""
    rows, cols, vals, rhs, senses = model.matrix()
    A = np.zeros((model.num_constraints, model.num_variables), dtype=np.int64)
    A[rows, cols] = vals
    A = A.astype(np.float64)  # small integers: exact in floating point, and a fast product
    ok = np.ones(len(X), dtype=bool)
    step = 1 << 15
    for start in range(0, len(X), step):
        act = X[start:start + step].astype(np.float64) @ A.T
        part = ok[start:start + step]
        for k, s in enumerate(senses):
            part &= {"==": act[:, k] == rhs[k], "<=": act[:, k] <= rhs[k],
                     ">=": act[:, k] >= rhs[k]}[s]
    return ok


def tiny_puzzles() -> list[tuple[str, Puzzle]]:
    """Seeded random grids up to 3x3 (black and white and two colours), plus puzzles with two,
    three and no solutions."""
    rng = np.random.default_rng(14)
    out = []
    for h, w, colours in ((2, 2, 1), (2, 3, 1), (3, 2, 1), (3, 3, 1), (3, 3, 1), (2, 4, 1),
                          (1, 4, 1), (2, 3, 2), (3, 2, 2), (2, 2, 2), (3, 3, 2)):
        grid = tuple(tuple(int(rng.integers(1, colours + 1)) if rng.random() < 0.55 else 0
                           for _ in range(w)) for _ in range(h))
        out.append((f"random{h}x{w}c{colours}", puzzle_from_grid(grid)))
    out.append(("colour-touching", puzzle_from_grid(((2, 3, 0), (0, 2, 3)))))
    out.append(("two-diagonals", Puzzle.from_clues([[1], [1]], [[1], [1]])))
    out.append(("three-solutions", Puzzle.from_clues([[1], [1], [1]], [[1], [1], [1]])))
    out.append(("impossible", Puzzle.from_clues([[1], [1, 1], [1]], [[1], [2], [1]])))
    out.append(("impossible-3x3", Puzzle.from_clues([[1, 1], [], []], [[], [1], [1]])))
    out.append(("impossible-2x3", Puzzle.from_clues([[1, 1], []], [[1], [1], []])))
    out.append(("impossible-fixed", Puzzle.from_clues([[1, 1], [1, 1], [1, 1]], [[1, 1], [2], [2]])))
    return out


TINY = tiny_puzzles()
CASES = [(name, p, enc, ux) for name, p in TINY for enc in ENCODINGS for ux in (True, False)
         if build_model(p, use_x=ux, encoding=enc).model.num_variables <= MAX_ENUMERATED]


def _id(case) -> str:
    name, _, enc, ux = case
    return f"{name}-{enc}-{'x' if ux else 'nox'}"


@pytest.mark.parametrize("name,puzzle,encoding,use_x", CASES, ids=[_id(c) for c in CASES])
def test_energy_zero_exactly_on_solutions(name, puzzle, encoding, use_x):
    nm = build_model(puzzle, use_x=use_x, encoding=encoding)
    assert nm.encoding == encoding
    X = all_assignments(nm.model.num_variables)
    feasible = feasible_mask(nm.model, X)
    solutions = brute_solutions(puzzle)
    terms = penalty_terms(nm)  # raises if a constraint needed slack variables
    n = nm.model.num_variables
    for weights in (None, {"link": 0.3}) if n <= 16 else (None,):  # a second set where cheap
        pen = terms.weighted(weights)
        E = pen.energies(X)
        assert np.array_equal(E == 0, feasible)
        assert (E[~feasible] >= min(pen.weights.values()) - 1e-12).all()
        assert int((E == 0).sum()) == len(solutions)
        for start in range(0, len(X), 1 << 15):  # what a sampler sees, in chunks
            part = slice(start, start + (1 << 15))
            assert np.allclose(pen.qubo_energies(X[part]), E[part], atol=1e-9)
    grids = [nm.decode(x) for x in X[feasible]]
    assert len(set(grids)) == len(grids) == len(solutions)  # one state per grid
    assert set(grids) == solutions
    # the same grids as the order encoding's energy-0 states
    assert set(cpsat_grids(build_model(puzzle, use_x=use_x, encoding="order"))) == set(grids)


def test_enumerated_cases_cover_every_encoding_with_many_and_no_solutions():
    for enc in ENCODINGS:
        for ux in (True, False):
            counts = [len(brute_solutions(p)) for _, p, e, u in CASES if (e, u) == (enc, ux)]
            assert len(counts) >= 8, (enc, ux)
            assert 0 in counts and max(counts) >= 2, (enc, ux)
    assert {p.is_black_and_white for _, p, e, _ in CASES if e == "automaton"} == {True, False}


def cpsat_grids(nm) -> list:
    """The grid of every feasible assignment of ``nm.model``, enumerated by CP-SAT."""
    pytest.importorskip("ortools")
    from ortools.sat.python import cp_model

    from formulations.backends.cpsat import to_cpsat

    grids: list = []

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            grids.append(nm.decode(np.array(self.response_proto.solution, dtype=np.int8)))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.cp_model_presolve = False  # keep every feasible assignment
    solver.solve(to_cpsat(nm.model), Collect())
    return grids


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_feasible_assignments_are_the_solutions_beyond_enumeration(encoding):
    # Models too large for 2^n: every feasible assignment (CP-SAT enumerates them all) is one
    # solution grid, each grid exactly once, in both variants.
    for name, p in TINY + [("heart5", read_puzzle(PUZZLES / "heart5.txt")),
                           ("two_solutions4", read_puzzle(PUZZLES / "two_solutions4.txt")),
                           ("flag_colour6", read_puzzle(PUZZLES / "flag_colour6.txt"))]:
        want = {g for g in brute_solutions(p)} if p.height * p.width <= 16 else \
            set(solve_lines(p, max_solutions=10).solutions)
        for ux in (True, False):
            grids = cpsat_grids(build_model(p, use_x=ux, encoding=encoding))
            assert len(grids) == len(set(grids)) and set(grids) == want, (name, ux)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("path", sorted(PUZZLES.glob("*.txt")), ids=lambda p: p.stem)
def test_solution_encodes_to_an_energy_zero_state_and_back(encoding, path):
    puzzle = read_puzzle(path)
    res = solve_lines(puzzle, max_solutions=2)
    for grid in res.solutions:
        for ux in (True, False):
            nm = build_model(puzzle, use_x=ux, encoding=encoding)
            pen = lower(nm)
            x = nm.encode(grid)
            assert nm.model.is_feasible(x) and pen.energy(x) == 0
            assert nm.decode(x) == grid
            # one flipped variable is never a solution: the encodings have no free variables
            some = np.unique(np.linspace(0, nm.model.num_variables - 1, 60).astype(int))
            flips = np.repeat(x[None, :], len(some), axis=0)
            flips[np.arange(len(some)), some] ^= 1
            assert (pen.energies(flips) > 0).all()


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_penalty_equals_a_plain_reading_of_the_constraints(encoding):
    nm = build_model(read_puzzle(PUZZLES / "flower_colour8.txt"), use_x=True, encoding=encoding)
    pen = lower(nm, {"link": 0.7})
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(30, nm.model.num_variables)).astype(np.int8)
    for x in X:
        ref = sum(pen.weights[c.family] * ((c.activity(x) - c.rhs) ** 2 if c.sense.value == "=="
                                           else (not c.holds(x))) for c in nm.model.constraints)
        assert abs(pen.energy(x) - ref) < 1e-9
        assert abs(pen.qubo_energies(x[None, :])[0] - ref) < 1e-7


# -- cat15: the counts docs/encodings.md reports --------------------------------------------

CAT15 = {  # encoding, use_x -> (variables, constraints, quadratic interactions)
    ("order", True): (461, 738, 965), ("order", False): (236, 495, 751),
    ("onehot", True): (503, 863, 2616), ("onehot", False): (278, 634, 3642),
    ("automaton", True): (1957, 7518, 11536), ("automaton", False): (1732, 7289, 12562),
}


@pytest.mark.parametrize("encoding,use_x", list(CAT15), ids=lambda v: str(v))
def test_cat15_counts(encoding, use_x):
    nm = build_model(read_puzzle(PUZZLES / "cat15.txt"), use_x=use_x, encoding=encoding)
    pen = lower(nm)
    assert (nm.model.num_variables, nm.model.num_constraints, len(pen.qv)) == CAT15[encoding, use_x]
    assert nm.x_variables == (225 if use_x else 0)  # the same cell variables in every encoding
    assert nm.a_variables + nm.x_variables == nm.model.num_variables


# -- presolve ------------------------------------------------------------------------------------

def small_random(seed: int, count: int, colours: int = 1):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        h, w = int(rng.integers(2, 5)), int(rng.integers(2, 5))
        grid = tuple(tuple(int(rng.integers(1, colours + 1)) if rng.random() < 0.5 else 0
                           for _ in range(w)) for _ in range(h))
        yield puzzle_from_grid(grid)


@pytest.mark.parametrize("encoding", OTHERS)
def test_presolve_keeps_every_solution(encoding):
    for p in [*small_random(5, 12), *small_random(6, 8, colours=2),
              read_puzzle(PUZZLES / "two_solutions4.txt")]:
        want = brute_solutions(p)
        for ux in (True, False):
            pre = presolve(build_model(p, use_x=ux, encoding=encoding))
            assert pre.encoding == encoding
            if pre.infeasible:
                assert not want
                continue
            grids = cpsat_grids(pre)
            assert len(grids) == len(set(grids)) and set(grids) == want


@pytest.mark.parametrize("encoding", OTHERS)
def test_presolve_fixes_start_positions(encoding):
    # boat10 is decided by line solving: every variable is fixed, to the solution's values
    puzzle = read_puzzle(PUZZLES / "boat10.txt")
    nm = build_model(puzzle, use_x=True, encoding=encoding)
    pre = presolve(nm)
    assert pre.solved and pre.variables_after == 0 and pre.a_variables == 0
    assert np.array_equal(pre.values, nm.encode(pre.grid))
    # puzzles line solving leaves open (8 cells of cat15, all of two_solutions4): fewer
    # variables, and the fixed ones as in every solution
    for name in ("cat15", "two_solutions4"):
        p = read_puzzle(PUZZLES / f"{name}.txt")
        nm = build_model(p, use_x=True, encoding=encoding)
        pre = presolve(nm)
        assert 0 < pre.variables_after <= pre.variables_before
        assert name != "cat15" or pre.variables_after < pre.variables_before
        free = set(pre.free)
        fixed = [v for v in range(nm.model.num_variables) if v not in free]
        for g in solve_lines(p, max_solutions=3).solutions:
            assert np.array_equal(nm.encode(g)[fixed], pre.values[fixed])


# -- the option path -----------------------------------------------------------------------------

def test_solve_puzzle_takes_the_encoding():
    puzzle = read_puzzle(PUZZLES / "heart5.txt")
    for enc in ENCODINGS:
        r = solve_puzzle(puzzle, "cpsat", encoding=enc, unique=True)
        assert r.status is Status.SOLVED and r.unique is True and r.encoding == enc
        assert r.to_dict()["encoding"] == enc
    assert solve_puzzle(puzzle, "cpsat").encoding == "order"  # the default
    with pytest.raises(BackendError, match="unknown encoding 'bogus'.*order, onehot"):
        solve_puzzle(puzzle, "cpsat", encoding="bogus")
    with pytest.raises(BackendError, match="encoding does not apply"):
        solve_puzzle(puzzle, "ladder:cell", encoding="onehot")


def test_solve_cli_encoding():
    def run(*args):
        return subprocess.run([sys.executable, "-m", "formulations.solve", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)

    p = run(str(PUZZLES / "heart5.txt"), "--encoding", "onehot", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["encoding"] == "onehot" and d["status"] == "solved" and d["variables"] == 28
    p = run(str(PUZZLES / "heart5.txt"), "--encoding", "automaton", "--backend", "sa",
            "--x", "--seed", "1")
    assert p.returncode == 0 and "model=x,automaton" in p.stdout, p.stdout + p.stderr
    # lines solves the puzzle itself (no model): an encoding is refused, not ignored
    p = run(str(PUZZLES / "heart5.txt"), "--encoding", "automaton", "--backend", "lines")
    assert p.returncode == 2 and "an encoding does not apply" in p.stderr
    p = run(str(PUZZLES / "heart5.txt"), "--encoding", "bogus")
    assert p.returncode == 2 and "invalid choice: 'bogus'" in p.stderr


def test_route_and_sweep_treat_the_encoding_as_a_model_switch():
    from formulations.backends import get_backend
    from formulations.harness.jobs import Job, PuzzleRef, plan_jobs, resolve_backends
    from formulations.harness.sweep import expand_options
    from formulations.options import route

    options, model = route(get_backend("sa"), [("encoding", "onehot"), ("reads", "5")])
    assert options == {"reads": "5"} and model == {"encoding": "onehot"}  # sorted, not converted
    assert get_backend("sa").prepare(options)["reads"] == 5  # converted once, by prepare
    specs, xs, ps = expand_options([], ["encoding=order,onehot"], ["sa", "ladder:cell"])
    assert specs == [("sa", {"encoding": "order"}), ("sa", {"encoding": "onehot"}),
                     ("ladder:cell", {})]
    variants = resolve_backends(specs)
    assert [v.encoding for v in variants] == ["order", "onehot", None]
    ref = PuzzleRef("heart5", "heart5.txt", read_puzzle(PUZZLES / "heart5.txt"))
    jobs = plan_jobs([ref], variants, [0], time_limit=1, kill_after=None)
    assert [j.encoding for j in jobs] == ["order", "onehot", None]
    # the default encoding keeps the job keys that results files were written with
    assert Job(ref, "sa", {}, 0, 1, None).key == \
        Job(ref, "sa", {}, 0, 1, None, encoding="order").key != \
        Job(ref, "sa", {}, 0, 1, None, encoding="onehot").key
    with pytest.raises(BackendError, match="unknown encoding 'bogus'"):
        expand_options([], ["encoding=order,bogus"], ["sa"])
    with pytest.raises(BackendError, match="unknown encoding 'bogus'"):
        resolve_backends([("sa", {"encoding": "bogus"})])
    specs, _, _ = expand_options(["sa.encoding=automaton"], [], ["sa", "cpsat"])
    assert specs == [("sa", {"encoding": "automaton"}), ("cpsat", {})]


def test_compare_sweeps_the_encoding(tmp_path):
    out = tmp_path / "rows.csv"
    p = subprocess.run([sys.executable, "-m", "formulations.compare", str(PUZZLES / "heart5.txt"),
                        str(PUZZLES / "flag_colour6.txt"), "--backends", "cpsat,lines",
                        "--sweep", "encoding=order,onehot,automaton", "--no-progress",
                        "--workers", "1", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    from formulations.harness import read_results

    rows = read_results(out)
    # cpsat once per encoding; lines works on the puzzle (no model), so once per puzzle
    assert len(rows) == 2 * (3 + 1) and all(r["verified"] for r in rows)
    assert sorted({r["encoding"] for r in rows if r["backend"] == "cpsat"}) == \
        ["automaton", "onehot", "order"]
    assert not any(r["encoding"] for r in rows if r["backend"] == "lines")
    assert "cpsat[onehot]" in p.stdout and "lines[automaton]" not in p.stdout
    got = {(r["puzzle"], r["encoding"]): r["grid"] for r in rows if r["backend"] == "cpsat"}
    for puzzle in ("heart5", "flag_colour6"):  # the same grid from every encoding
        assert len({got[puzzle, e] for e in ENCODINGS}) == 1
    p = subprocess.run([sys.executable, "-m", "formulations.compare", str(PUZZLES / "heart5.txt"),
                        "--backends", "cpsat", "--encoding", "onehot", "--no-progress",
                        "--workers", "1"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "cpsat[onehot]" in p.stdout, p.stderr


@pytest.mark.parametrize("encoding", ["onehot", "automaton"])
def test_the_other_builders_read_the_deadline_line_by_line(encoding):
    from formulations.testing.stopwatch import Stopwatch

    from formulations.runtime.clock import Deadline, OutOfTime
    from formulations.model import build_model as build

    # 80x80 lines of "1 1": one-hot has ~3,000 clash pairs a line, 460k constraints in all
    p = Puzzle.from_clues([[1, 1]] * 80, [[1, 1]] * 80)
    with Stopwatch() as sw:  # the time it would take on an idle machine (pytest -n, other jobs)
        clock = Deadline(0.05)
        with pytest.raises(OutOfTime, match=encoding):
            build(p, encoding=encoding, deadline=clock)
    assert sw.elapsed < 0.05 + 0.5, sw  # one line's build past the deadline at most


def test_presolved_order_results_name_their_encoding():
    r = solve_puzzle(read_puzzle(PUZZLES / "flower_colour8.txt"), "cpsat", presolve=True)
    assert r.presolve is not None and r.encoding == "order"


def test_a_onehot_model_over_the_memory_cap_is_refused_on_its_clash_pairs():
    from formulations.model import build_model as build
    from formulations.model.size import ModelTooLarge

    p = Puzzle.from_clues([[1, 1]] * 80, [[1, 1]] * 80)
    nm = build(p, encoding="onehot", use_x=False)  # 487k constraints: ~170 MB by the estimate
    assert nm.model.num_constraints > 400_000
    with pytest.raises(ModelTooLarge, match="5.2.e\\+05 constraints"):
        build(p, encoding="onehot", use_x=False, max_model_mb=100)
    build(p, encoding="order", use_x=False, max_model_mb=100)  # the order model is small


def test_the_automaton_estimate_bounds_the_built_model_from_above():
    import random

    from formulations.model import build_model as build
    from formulations.model.encodings import automaton_size
    from formulations.model.size import ModelTooLarge

    rng = random.Random(3)
    for t in range(12):
        h, w, ncol = rng.randint(3, 12), rng.randint(3, 12), 1 + t % 3
        p = puzzle_from_grid(tuple(tuple(rng.randint(1, ncol) if rng.random() < 0.5 else 0
                                         for _ in range(w)) for _ in range(h)))
        for use_x in (True, False):
            m, est = build(p, encoding="automaton", use_x=use_x).model, automaton_size(p, use_x)
            assert m.num_variables <= est.variables <= 2 * m.num_variables
            assert m.num_constraints <= est.constraints <= 3 * m.num_constraints
    # a random 40x40: 277k constraints built, about 176 MB by the estimate; refused under 100 MB
    # before anything is built, while its order model (18k constraints) fits
    p = puzzle_from_grid(tuple(tuple(int(rng.random() < 0.5) for _ in range(40))
                               for _ in range(40)))
    with pytest.raises(ModelTooLarge, match="automaton|constraints"):
        build(p, encoding="automaton", use_x=False, max_model_mb=100)
    build(p, encoding="order", use_x=False, max_model_mb=100)
