"""The deduction trace (issue 43) checked independently: every `line` and `probe` step is
re-derived from the state before it by enumerating the placements of a line, with code that
shares nothing with the line engine (no settle, no engine, no placement counts of its own), and
the test fails on any step that does not follow.

What is checked, per step, from the state before it (the union of the earlier steps' cells):

* line: the step's cells were open; the line's placements that agree with the decided cells
  number exactly ``placements`` and all give each of the step's cells its value;
* probe: the cell was open and its row and column together allow exactly the assumed value and
  the step's value; from the state plus the assumption every chain step follows as a line step,
  and the ``contradiction`` line then has no placement at all;
* guess: the cell was open, and line logic was exhausted before it (no line forces an open cell);
* the whole trace: every cell in exactly one step's cells, and the cells make a grid whose every
  line reads its clue.
"""
from __future__ import annotations

import random

import pytest
from helpers import ROOT
from formulations.io import iter_janko, read_puzzle
from formulations.lines.explain import GuessStep, LineStep, ProbeStep, explain
from formulations.puzzle import Puzzle, puzzle_from_grid
from formulations.results import Status

MAX_PLACEMENTS = 2_000_000  # a line with more agreeing placements than this is not enumerated


# -- the independent side: placements by enumeration ------------------------------------------

def placements(clue, n: int, known: dict[int, int]):
    """Every filling of a line of ``n`` cells that reads ``clue`` (blocks of (length, colour);
    two blocks of the same colour need an empty cell between them) and agrees with ``known``
    (position -> value), as tuples of values, 0 empty."""
    blocks = [(b.length, b.colour) for b in clue]

    def rec(k: int, pos: int, prefix: list[int]):
        if k == len(blocks):
            rest = [0] * (n - pos)
            if all(known.get(pos + q, 0) == 0 for q in range(len(rest))):
                yield tuple(prefix + rest)
            return
        length, colour = blocks[k]
        need = sum(b[0] for b in blocks[k:]) + sum(
            1 for a, b in zip(blocks[k:], blocks[k + 1:]) if a[1] == b[1])
        for start in range(pos, n - need + 1):
            # cells pos..start-1 empty, start..start+length-1 the colour
            if any(known.get(q, 0) != 0 for q in range(pos, start)):
                break  # a decided filled cell cannot be skipped
            if any(known.get(q, colour) != colour for q in range(start, start + length)):
                continue
            seg = [0] * (start - pos) + [colour] * length
            end = start + length
            if k + 1 < len(blocks) and blocks[k + 1][1] == colour:
                if known.get(end, 0) != 0:
                    continue
                seg.append(0)
                end += 1
            yield from rec(k + 1, end, prefix + seg)

    yield from rec(0, 0, [])


def line_of(puzzle: Puzzle, ref, state: dict):
    kind, idx = ref
    if kind == "row":
        return puzzle.rows[idx], puzzle.width, {j: state[(idx, j)] for j in range(puzzle.width)
                                                 if (idx, j) in state}, lambda p: (idx, p)
    assert kind == "column", ref
    return puzzle.columns[idx], puzzle.height, {i: state[(i, idx)] for i in range(puzzle.height)
                                                 if (i, idx) in state}, lambda p: (p, idx)


def agreeing(puzzle: Puzzle, ref, state: dict) -> list[tuple[int, ...]]:
    clue, n, known, _ = line_of(puzzle, ref, state)
    out = []
    for pl in placements(clue, n, known):
        out.append(pl)
        assert len(out) <= MAX_PLACEMENTS, f"{ref}: too many placements to enumerate"
    return out


def check_line_step(puzzle: Puzzle, step: LineStep, state: dict, where: str) -> None:
    clue, n, known, cell = line_of(puzzle, step.line, state)
    pls = agreeing(puzzle, step.line, state)
    assert pls, f"{where}: {step.line} has no placement, yet the step decides cells"
    assert step.cells, f"{where}: a line step without cells"
    if step.placements is not None:
        assert step.placements == len(pls), f"{where}: {len(pls)} placements, step says " \
                                            f"{step.placements}"
    for i, j, v in step.cells:
        assert (i, j) not in state, f"{where}: cell {(i, j)} was decided before"
        p = j if step.line[0] == "row" else i
        assert cell(p) == (i, j), f"{where}: cell {(i, j)} is not on {step.line}"
        got = {pl[p] for pl in pls}
        assert got == {v}, f"{where}: {step.line} allows {sorted(got)} at {(i, j)}, step says {v}"


def line_forces_something(puzzle: Puzzle, state: dict) -> str | None:
    """A line that forces an open cell in ``state`` (line logic not exhausted), or None."""
    for kind, n_lines in (("row", puzzle.height), ("column", puzzle.width)):
        for idx in range(n_lines):
            clue, n, known, cell = line_of(puzzle, (kind, idx), state)
            if len(known) == n:
                continue
            pls = agreeing(puzzle, (kind, idx), state)
            for p in range(n):
                if p not in known and len({pl[p] for pl in pls}) == 1:
                    return f"{kind} {idx} forces cell {cell(p)}"
    return None


def check_trace(puzzle: Puzzle, ex, *, exhausted_checks: bool = True) -> None:
    assert ex.status is Status.SOLVED, ex.status
    state: dict[tuple[int, int], int] = {}
    for k, step in enumerate(ex.steps):
        where = f"{puzzle.name or 'puzzle'} step {k} ({step.rule})"
        if isinstance(step, LineStep):
            check_line_step(puzzle, step, state, where)
        elif isinstance(step, ProbeStep):
            (i, j, v), = step.cells
            ai, aj, av = step.assume
            assert (ai, aj) == (i, j) and av != v, where
            assert (i, j) not in state, f"{where}: the probed cell was decided"
            row = {pl[j] for pl in agreeing(puzzle, ("row", i), state)}
            col = {pl[i] for pl in agreeing(puzzle, ("column", j), state)}
            assert row & col == {v, av}, f"{where}: the cell allows {sorted(row & col)}"
            hyp = dict(state)
            hyp[(i, j)] = av
            for n, sub in enumerate(step.chain):
                check_line_step(puzzle, sub, hyp, f"{where} chain {n}")
                hyp.update({(a, b): c for a, b, c in sub.cells})
            assert step.contradiction is not None, where
            assert not agreeing(puzzle, step.contradiction, hyp), \
                f"{where}: {step.contradiction} still has a placement"
        else:
            assert isinstance(step, GuessStep), step
            (i, j, v), = step.cells
            assert (i, j) not in state, where
            if exhausted_checks:
                forced = line_forces_something(puzzle, state)
                assert forced is None, f"{where}: guessed although {forced}"
        for i, j, v in step.cells:
            assert (i, j) not in state, f"{where}: cell {(i, j)} in two steps"
            state[(i, j)] = v
    cells = {(i, j) for i in range(puzzle.height) for j in range(puzzle.width)}
    assert set(state) == cells, f"cells in no step: {sorted(cells - set(state))[:5]}"
    for i, clue in enumerate(puzzle.rows):
        assert runs([state[(i, j)] for j in range(puzzle.width)]) == \
            [(b.length, b.colour) for b in clue], f"row {i} does not read its clue"
    for j, clue in enumerate(puzzle.columns):
        assert runs([state[(i, j)] for i in range(puzzle.height)]) == \
            [(b.length, b.colour) for b in clue], f"column {j} does not read its clue"
    assert tuple(tuple(state[(i, j)] for j in range(puzzle.width))
                 for i in range(puzzle.height)) == ex.grid


def runs(cells) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    prev = 0
    for v in cells:
        if v and v == prev:
            out[-1][0] += 1
        elif v:
            out.append([1, v])
        prev = v
    return [tuple(r) for r in out]


# -- the puzzles ----------------------------------------------------------------------------------

PUZZLES = sorted(p for p in (ROOT / "puzzles").glob("*.txt") if p.name != "impossible3.txt")


@pytest.mark.parametrize("path", PUZZLES, ids=lambda p: p.stem)
def test_shipped_puzzles_trace_follows(path):
    p = read_puzzle(path)
    check_trace(p, explain(p))


def random_puzzle(h: int, w: int, colours: int, seed: int) -> Puzzle:
    rng = random.Random(seed)
    grid = [[(rng.randint(1, colours) if rng.random() < 0.55 else 0) for _ in range(w)]
            for _ in range(h)]
    return puzzle_from_grid(tuple(map(tuple, grid)), name=f"random{h}x{w}c{colours}s{seed}")


@pytest.mark.parametrize("seed", range(30))
def test_random_black_and_white_trace_follows(seed):
    # random grids: many have several solutions, so probes and guesses both show up
    p = random_puzzle(6 + seed % 7, 6 + (seed * 3) % 7, 1, seed)
    check_trace(p, explain(p))


@pytest.mark.parametrize("seed", range(16))
def test_random_colour_trace_follows(seed):
    p = random_puzzle(5 + seed % 5, 5 + (seed * 3) % 5, 2 + seed % 2, 1000 + seed)
    check_trace(p, explain(p))


def test_probes_and_guesses_occur_in_the_random_set():
    """The checks above cover every rule (else they could pass without looking at probes)."""
    rules = set()
    for seed in range(30):
        p = random_puzzle(6 + seed % 7, 6 + (seed * 3) % 7, 1, seed)
        rules |= {s.rule for s in explain(p).steps}
    for seed in range(16):
        p = random_puzzle(5 + seed % 5, 5 + (seed * 3) % 5, 2 + seed % 2, 1000 + seed)
        rules |= {s.rule + "-colour" for s in explain(p).steps}
    assert {"line", "probe", "guess", "line-colour", "probe-colour"} <= rules, rules


def test_without_probes_the_trace_guesses_and_still_follows():
    p = read_puzzle(ROOT / "puzzles" / "cat15.txt")
    ex = explain(p, probing=False)
    assert ex.difficulty.probe_steps == 0 and ex.difficulty.guesses >= 1
    check_trace(p, ex)


def test_impossible_puzzle_is_reported_with_the_line_that_fails():
    p = read_puzzle(ROOT / "puzzles" / "impossible3.txt")
    ex = explain(p)
    assert ex.status is Status.INFEASIBLE and ex.difficulty.level is None
    state: dict = {}
    for step in ex.steps:
        check_line_step(p, step, state, "impossible3")
        state.update({(i, j): v for i, j, v in step.cells})
    assert ex.contradiction is not None and not agreeing(p, ex.contradiction, state)


def test_difficulty_counts_match_the_steps():
    p = read_puzzle(ROOT / "puzzles" / "two_solutions4.txt")
    ex = explain(p)
    d = ex.difficulty
    assert d.line_steps == sum(s.rule == "line" for s in ex.steps)
    assert d.probe_steps == sum(s.rule == "probe" for s in ex.steps)
    assert d.guesses == sum(s.rule == "guess" for s in ex.steps) >= 1  # two solutions: a guess
    assert d.level >= 4 and not d.line_solvable
    first = next(k for k, s in enumerate(ex.steps) if s.rule != "line")
    assert set(d.beyond_lines) == {(i, j) for s in ex.steps[first:] for i, j, _ in s.cells}


def test_json_has_the_issue_format():
    p = read_puzzle(ROOT / "puzzles" / "cat15.txt")
    js = explain(p).to_json()
    assert set(js) >= {"steps", "difficulty"}
    seen = set()
    for st in js["steps"]:
        assert st["rule"] in ("line", "probe", "guess")
        if st["rule"] == "line":
            assert st["line"][0] in ("row", "column") and isinstance(st["placements"], int)
        if st["rule"] == "probe":
            assert len(st["assume"]) == 3 and st["contradiction"][0] in ("row", "column")
        for i, j, v in st["cells"]:
            assert (i, j) not in seen and v in (0, 1)
            seen.add((i, j))
    assert len(seen) == p.height * p.width


# -- the corpus (skipped without it) --------------------------------------------------------------

def janko_sample(corpus, sizes, limit):
    path = corpus / "puzzlekit-dataset-janko" / "Nonogram_dataset.json"
    if not path.is_file():
        pytest.skip("janko set absent")
    out = []
    for _key, p, _ in iter_janko(path):
        if (p.height, p.width) in sizes:
            out.append(p)
    return out[:limit]


def test_janko_traces_follow(corpus_dir):
    """Janko 10x10 and 15x15: the first 25 of each, and every probe among them re-derived."""
    corpus = corpus_dir
    n = 0
    for p in janko_sample(corpus, {(10, 10)}, 25) + janko_sample(corpus, {(15, 15)}, 25):
        check_trace(p, explain(p), exhausted_checks=False)
        n += 1
    assert n == 50


def test_janko_puzzles_that_need_probes_follow(corpus_dir):
    """Janko 20x20 puzzles that line logic does not finish (the first 6 found among 80)."""
    corpus = corpus_dir
    found = 0
    for p in janko_sample(corpus, {(20, 20)}, 80):
        ex = explain(p)
        if ex.difficulty.line_solvable:
            continue
        check_trace(p, ex, exhausted_checks=False)
        found += 1
        if found == 6:
            break
    assert found >= 1


def test_colour_corpus_traces_follow(corpus_dir):
    corpus = corpus_dir
    files = sorted((corpus / "number-loom-puzzles").glob("*.xml")) + sorted(
        (corpus / "wolter-survey-xml").glob("*color*"))
    done = 0
    for f in files:
        try:
            p = read_puzzle(f)
        except Exception:  # triddlers and other shapes the readers refuse
            continue
        if p.is_black_and_white or p.height * p.width > 900:
            continue
        ex = explain(p, time_limit=60)
        if ex.status is not Status.SOLVED:
            continue
        check_trace(p, ex, exhausted_checks=False)
        done += 1
    if not done:
        pytest.skip("no colour puzzle of at most 900 cells in the corpus")


def test_the_checker_rejects_a_step_that_does_not_follow():
    """The checks can fail: a trace with one cell's value flipped, or two steps swapped so that
    a step comes before what it needs, is refused."""
    import dataclasses

    p = read_puzzle(ROOT / "puzzles" / "cat15.txt")
    ex = explain(p)
    k = next(n for n, s in enumerate(ex.steps) if s.rule == "line" and n > 3)
    st = ex.steps[k]
    (i, j, v), *rest = st.cells
    bad = dataclasses.replace(st, cells=((i, j, 1 - v), *rest))
    with pytest.raises(AssertionError):
        check_trace(p, dataclasses.replace(ex, steps=ex.steps[:k] + (bad,) + ex.steps[k + 1:]))
    probe = next(n for n, s in enumerate(ex.steps) if s.rule == "probe")
    swapped = ex.steps[probe + 1:probe + 2] + ex.steps[probe:probe + 1]
    with pytest.raises(AssertionError):
        check_trace(p, dataclasses.replace(
            ex, steps=ex.steps[:probe] + swapped + ex.steps[probe + 2:]))


def test_nf_explain_gives_typed_records():
    import formulations as nf

    p = read_puzzle(ROOT / "puzzles" / "flower_colour8.txt")
    ex = nf.explain(p)
    assert isinstance(ex, nf.Explanation) and isinstance(ex.difficulty, nf.Difficulty)
    assert all(isinstance(s, (LineStep, ProbeStep, GuessStep)) for s in ex.steps)
    assert nf.is_solution(p, ex.grid)
    assert {v for s in ex.steps for _, _, v in s.cells} == {0, *p.colours}


def test_compiled_placement_counts_equal_pythons():
    """The trace's counts (compiled, formulations/lines/_count.c) against its own Python loop,
    on random lines of 1-130 cells and 1-3 colours (the enumeration above checks both on the
    puzzles' lines; this reaches the 128-bit counts and the fallback past 127 cells)."""
    from formulations.lines import explain as mod

    if mod._count is None:
        pytest.skip("formulations/lines/_count.c is not built here (pip install -e .)")
    rng = random.Random(11)
    for trial in range(3000):
        n = rng.randint(100, 130) if trial % 10 == 0 else rng.randint(1, 30)
        lens: list[int] = []
        while rng.random() < 0.85:
            L = rng.randint(1, 8)
            if sum(lens) + len(lens) + L > n:
                break
            lens.append(L)
        C = rng.choice([2, 3, 4])
        cidx = tuple(rng.randint(1, C - 1) for _ in lens)
        spec = (n, tuple(lens), cidx, tuple(a == b for a, b in zip(cidx, cidx[1:])))
        masks = [(1 << n) - 1] * C
        for p in range(n):
            if rng.random() < 0.2:
                keep = rng.randrange(C)
                for c in range(C):
                    if c != keep:
                        masks[c] &= ~(1 << p)
        assert mod.count_placements(spec, tuple(masks)) == mod._count_py(spec, masks), spec
