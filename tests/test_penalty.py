"""The penalty lowering: energy 0 exactly on feasible assignments, one energy-0 state per
solution grid, and every evaluation path (exact, aggregated QUBO, dimod BQM, exported files)
agreeing with a plain re-reading of the model's constraints."""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from formulations.model import build_model
from formulations.model import LinExpr, Model, Sense
from formulations.model.penalty import (DEFAULT_WEIGHTS, FAMILIES, check_weights, export_bqm, lower,
                                  penalty_terms, to_bqm)
from formulations.puzzle import Puzzle, check_grid, grid_from_strings, puzzle_from_grid

ODD_WEIGHTS = {"monotone": 1.5, "order": 2.75, "link": 0.3}  # non-dyadic on purpose
CAT_ROWS = [[], [1, 1], [2, 2], [3, 3], [13], [13], [2, 5, 2], [2, 5, 2],
            [13], [6, 6], [5, 5], [11], [9], [5], []]
CAT_COLS = [[], [10], [10], [3, 5], [2, 5], [10], [6, 3], [5, 3],
            [6, 3], [10], [2, 5], [3, 5], [10], [10], []]

# the picture printed in seed 001 (input data here; check_grid confirms it before use)
CAT_SOLUTION = grid_from_strings([
    "...............", ".#...........#.", ".##.........##.", ".###.......###.",
    ".#############.", ".#############.", ".##..#####..##.", ".##..#####..##.",
    ".#############.", ".######.######.", ".#####...#####.", "..###########..",
    "...#########...", ".....#####.....", "..............."])


def cat15() -> Puzzle:
    return Puzzle.from_clues(CAT_ROWS, CAT_COLS, name="cat15")


def all_grids(h: int, w: int):
    for bits in range(1 << (h * w)):
        yield tuple(tuple((bits >> (i * w + j)) & 1 for j in range(w)) for i in range(h))


def count_solutions(puzzle: Puzzle) -> int:
    """Brute force over every grid with the independent clue checker."""
    return sum(1 for g in all_grids(puzzle.height, puzzle.width) if not check_grid(puzzle, g))


def all_assignments(n: int) -> np.ndarray:
    return ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1).astype(np.int8)


def feasible_mask(model: Model, X: np.ndarray) -> np.ndarray:
    """Feasibility of every row of X from the model's own matrix (not from the penalty code)."""
    rows, cols, vals, rhs, senses = model.matrix()
    A = np.zeros((model.num_constraints, model.num_variables), dtype=np.int64)
    A[rows, cols] = vals
    ok = np.ones(len(X), dtype=bool)
    for start in range(0, len(X), 1 << 15):
        act = X[start:start + (1 << 15)].astype(np.int64) @ A.T
        part = ok[start:start + (1 << 15)]
        for k, s in enumerate(senses):
            part &= {"==": act[:, k] == rhs[k], "<=": act[:, k] <= rhs[k],
                     ">=": act[:, k] >= rhs[k]}[s]
    return ok


def reference_energy(model: Model, x, weights: dict) -> float:
    """The penalty as the issue states it, one constraint at a time in plain Python."""
    e = 0.0
    for c in model.constraints:
        if c.sense is Sense.EQ:
            e += weights[c.family] * (c.activity(x) - c.rhs) ** 2
        else:
            e += weights[c.family] * (not c.holds(x))
    return e


def tiny_puzzles() -> list[tuple[str, Puzzle]]:
    """Seeded random grids up to 3x3 / 2x4 plus hand-picked multi-solution and impossible ones."""
    rng = np.random.default_rng(2024)
    out = []
    for h, w in ((2, 2), (2, 3), (3, 2), (3, 3), (3, 3), (3, 3), (2, 4), (2, 4), (3, 3), (1, 4)):
        grid = tuple(tuple(int(v) for v in row) for row in (rng.random((h, w)) < 0.55))
        out.append((f"random{h}x{w}", puzzle_from_grid(grid)))
    out.append(("two-diagonals", Puzzle.from_clues([[1], [1]], [[1], [1]])))
    out.append(("three-solutions", Puzzle.from_clues([[1], [1], [1]], [[1], [1], [1]])))
    # totals agree (4 = 4) yet no grid fits: the middle column would need a block of 2
    out.append(("impossible", Puzzle.from_clues([[1], [1, 1], [1]], [[1], [2], [1]])))
    # every line fixed: the no-x model has no variables, only constant (violated) links
    out.append(("impossible-fixed", Puzzle.from_clues([[1, 1], [1, 1], [1, 1]], [[1, 1], [2], [2]])))
    return out


MAX_ENUMERATED = 20  # 2^20 assignments
CASES = [(name, p, ux) for name, p in tiny_puzzles() for ux in (True, False)
         if build_model(p, use_x=ux).model.num_variables <= MAX_ENUMERATED]


@pytest.mark.parametrize("name,puzzle,use_x", CASES, ids=[f"{n}-{'x' if u else 'nox'}" for n, _, u in CASES])
def test_energy_zero_exactly_on_solutions(name, puzzle, use_x):
    nm = build_model(puzzle, use_x=use_x)
    X = all_assignments(nm.model.num_variables)
    feasible = feasible_mask(nm.model, X)
    solutions = count_solutions(puzzle)
    terms = penalty_terms(nm)
    for weights in (None, ODD_WEIGHTS):
        pen = terms.weighted(weights)
        E = pen.energies(X)
        assert np.array_equal(E == 0, feasible)
        assert (E[~feasible] >= min(pen.weights.values()) - 1e-12).all()  # strictly positive
        assert int((E == 0).sum()) == solutions
        # the aggregated float QUBO (what a sampler sees) agrees up to rounding
        assert np.allclose(pen.qubo_energies(X), E, atol=1e-9)
    if solutions:  # every energy-0 state decodes to a distinct solution grid
        grids = {nm.decode(x) for x in X[feasible]}
        assert len(grids) == solutions and all(not check_grid(puzzle, g) for g in grids)


def test_tiny_cases_cover_multi_and_no_solution():
    """The enumerated cases include both encodings, several solutions and none."""
    counts = {(name, ux): count_solutions(p) for name, p, ux in CASES}
    assert len(CASES) >= 20
    for ux in (True, False):
        got = [c for (_, u), c in counts.items() if u == ux]
        assert 0 in got and max(got) >= 2


@pytest.mark.parametrize("use_x", [True, False])
def test_bqm_energy_equals_model_penalty_on_random_assignments(use_x):
    import dimod

    nm = build_model(cat15(), use_x=use_x)
    model = nm.model
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(40, model.num_variables)).astype(np.int8)
    # near-solutions too: the solution with a few flips, so that small energies are covered
    assert check_grid(cat15(), CAT_SOLUTION) == []
    sol = nm.encode(CAT_SOLUTION)
    near = np.repeat(sol[None, :], 10, axis=0)
    for k in range(10):
        near[k, rng.choice(model.num_variables, size=k, replace=False)] ^= 1
    X = np.vstack([X, near])
    for weights in (DEFAULT_WEIGHTS, ODD_WEIGHTS):
        ref = np.array([reference_energy(model, x, weights) for x in X])
        bqm = to_bqm(nm, weights)
        assert bqm.vartype is dimod.BINARY
        assert list(bqm.variables) == list(model.labels)
        got = bqm.energies((X, list(model.labels)))
        assert np.allclose(got, ref, rtol=1e-12, atol=1e-9)
        pen = lower(nm, weights)
        assert np.allclose(pen.energies(X), ref, rtol=1e-12, atol=1e-9)
        assert pen.energy(sol) == 0.0 and ref[40] == 0.0 and (ref[41:] > 0).all()
        for x in X[::7]:
            assert set(pen.violated(x)) == set(model.violations(x))


def test_index_labels_follow_model_order():
    nm = build_model(cat15())
    bqm = to_bqm(nm, labels="index")
    assert list(bqm.variables) == list(range(nm.model.num_variables))
    with pytest.raises(ValueError):
        to_bqm(nm, labels="names")


def test_mixed_senses_and_constants_lower_exactly():
    """Inequalities in both directions over 1 and 2 variables with odd coefficients, and
    constant constraints, on a hand-built model: still energy 0 iff feasible."""
    m = Model()
    a, b, c, d = (m.add_var(s).index for s in "abcd")
    m.add_constraint("order", "ge2", LinExpr({a: 2, b: -3}), Sense.GE, -3)
    m.add_constraint("order", "le2", LinExpr({c: 1, d: 1}), Sense.LE, 1)
    m.add_constraint("monotone", "le1", LinExpr({a: 3}), Sense.LE, 2)
    m.add_constraint("monotone", "ge1", LinExpr({d: 1}), Sense.GE, 1)
    m.add_constraint("link", "eq", LinExpr({a: 1, b: 1, c: -1, d: -2}), Sense.EQ, -1)
    m.add_constraint("extra", "eq-other-family", LinExpr({a: 1, c: 1, d: 1}), Sense.EQ, 1)
    X = all_assignments(4)
    feasible = feasible_mask(m, X)
    assert 0 < feasible.sum() < len(X)
    for weights in (None, {"link": 3.0, "extra": 0.5}):
        pen = lower(m, weights)
        E = pen.energies(X)
        assert np.array_equal(E == 0, feasible)
        w = check_weights(weights, penalty_terms(m).family_names)
        ref = np.array([reference_energy(m, x, w) for x in X])
        assert np.allclose(E, ref) and np.allclose(pen.qubo_energies(X), ref)
    # constant constraints that fail stay visible as a constant energy
    m2 = Model()
    m2.add_var("z")
    m2.add_constraint("link", "never", 0, Sense.EQ, 2)
    m2.add_constraint("order", "never-le", 0, Sense.LE, -1)
    pen = lower(m2)
    assert (pen.energies(all_assignments(1)) > 0).all()
    assert pen.offset == DEFAULT_WEIGHTS["link"] * 4 + DEFAULT_WEIGHTS["order"] * 1


def test_wide_inequality_is_refused():
    m = Model()
    a, b, c = (m.add_var(s) for s in "abc")
    m.add_constraint("order", "wide", a + b + c, Sense.LE, 1)
    with pytest.raises(ValueError, match="slack"):
        lower(m)


def test_weights_validation():
    assert check_weights(None) == DEFAULT_WEIGHTS
    assert check_weights({"link": 3}) == {**DEFAULT_WEIGHTS, "link": 3.0}
    assert tuple(check_weights({})) == FAMILIES
    for bad in ({"links": 1}, {"link": 0}, {"order": -1}, {"monotone": math.nan},
                {"monotone": math.inf}, {"link": "heavy"}):
        with pytest.raises(ValueError):
            check_weights(bad)


def test_weights_change_energy_per_family():
    nm = build_model(cat15(), use_x=False)
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(5, nm.model.num_variables)).astype(np.int8)
    terms = penalty_terms(nm)
    base = terms.weighted({"monotone": 1, "order": 1, "link": 1})
    fam = base.family_energies(X)
    for w in ({"monotone": 2, "order": 5, "link": 1}, ODD_WEIGHTS):
        wv = np.array([check_weights(w)[f] for f in terms.family_names])
        assert np.allclose(terms.weighted(w).energies(X), fam @ wv)


@pytest.mark.parametrize("use_x", [True, False])
def test_export_writes_the_format_the_extension_names(tmp_path, use_x):
    import json

    import dimod

    nm = build_model(cat15(), use_x=use_x)
    pen = lower(nm, {"link": 1.5})
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(20, nm.model.num_variables)).astype(np.int8)
    written = {ext: export_bqm(nm, tmp_path / f"cat{ext}", weights={"link": 1.5})
               for ext in (".bqm", ".json", ".qubo", ".coo")}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat.bqm", "cat.coo", "cat.json", "cat.qubo"]
    with open(written[".bqm"], "rb") as f:
        bqm = dimod.BinaryQuadraticModel.from_file(f)
    from_json = dimod.BinaryQuadraticModel.from_serializable(
        json.loads(Path(written[".json"]).read_text()))
    for b in (bqm, from_json):
        assert set(map(str, b.variables)) == set(map(str, nm.model.labels))
    assert np.allclose(bqm.energies((X, list(nm.model.labels))), pen.energies(X))
    # the text files, read back with nothing but their own format descriptions
    for ext, offset_prefix, n_prefix in ((".qubo", "c offset ", "p qubo"),
                                         (".coo", "# offset ", "# variables")):
        offset, lin, quad, n = 0.0, {}, {}, None
        for line in Path(written[ext]).read_text().splitlines():
            if line.startswith(offset_prefix):
                offset = float(line.split()[2])
            elif line.startswith(n_prefix):
                n = int(line.split()[3 if ext == ".qubo" else 2])
            elif line and not line.startswith(("c", "#")):
                i, j, v = line.split()
                (lin if i == j else quad)[(int(i), int(j))] = float(v)
        assert n == nm.model.num_variables
        h = np.zeros(n)
        for (i, _), v in lin.items():
            h[i] = v
        text_e = np.array([offset + h @ x + sum(v * x[i] * x[j] for (i, j), v in quad.items())
                           for x in X])
        assert np.allclose(text_e, pen.energies(X)), ext


def test_export_refuses_an_extension_it_cannot_tell(tmp_path):
    from formulations.results import BackendError

    with pytest.raises(BackendError, match="cannot tell the export format.*\\.bqm"):
        export_bqm(build_model(cat15()), tmp_path / "x.txt")
    assert not (tmp_path / "x.txt").exists()


def test_export_rejects_bad_weights(tmp_path):
    from formulations.results import BackendError

    with pytest.raises(BackendError, match="link"):
        export_bqm(build_model(cat15()), tmp_path / "x.bqm", weights={"link": 0})


def colour_tiny_puzzles() -> list[tuple[str, Puzzle]]:
    """Tiny two-colour puzzles from seeded random grids, plus touching different colours."""
    rng = np.random.default_rng(7)
    out = []
    for h, w in ((2, 2), (2, 3), (3, 2), (2, 3)):
        grid = tuple(tuple(int(v) for v in row) for row in rng.integers(0, 3, size=(h, w)))
        out.append((f"colour{h}x{w}", puzzle_from_grid(grid)))
    out.append(("touching", puzzle_from_grid(((1, 2, 2), (2, 1, 0)))))
    return out


def colour_grids(puzzle: Puzzle):
    values = (0,) + puzzle.colours
    h, w = puzzle.height, puzzle.width
    for cells in itertools.product(values, repeat=h * w):
        yield tuple(tuple(cells[i * w:(i + 1) * w]) for i in range(h))


COLOUR_CASES = [(name, p, ux) for name, p in colour_tiny_puzzles() for ux in (True, False)
                if build_model(p, use_x=ux).model.num_variables <= MAX_ENUMERATED]


@pytest.mark.parametrize("name,puzzle,use_x", COLOUR_CASES,
                         ids=[f"{n}-{'x' if u else 'nox'}" for n, _, u in COLOUR_CASES])
def test_colour_energy_zero_exactly_on_solutions(name, puzzle, use_x):
    """The same invariant for colour puzzles: one lowering, any number of colours."""
    assert not puzzle.is_black_and_white
    nm = build_model(puzzle, use_x=use_x)
    X = all_assignments(nm.model.num_variables)
    feasible = feasible_mask(nm.model, X)
    solutions = {g for g in colour_grids(puzzle) if not check_grid(puzzle, g)}
    E = penalty_terms(nm).weighted(None).energies(X)
    assert np.array_equal(E == 0, feasible)
    assert (E[~feasible] > 0).all()
    assert int((E == 0).sum()) == len(solutions)
    assert {nm.decode(x) for x in X[feasible]} == solutions


def test_colour_cases_are_enumerated():
    assert len(COLOUR_CASES) >= 6
