"""The explanation on the web page (issue 43): ``POST /api/explain`` and, in Debian's Chromium
driven by Playwright (headless), the step-through, "Why?" on a cell, the Hint from the trace and
the Draw view's difficulty report. Skips without httpx / starlette / playwright / chromium."""
from __future__ import annotations

import json

import pytest

httpx = pytest.importorskip("httpx", reason="the web tests need httpx (the test extra)")
pytest.importorskip("starlette", reason="the web solver needs the web extra")
pytest.importorskip("uvicorn", reason="the web solver needs the web extra")

from formulations import check_grid, parse_puzzle  # noqa: E402
from helpers import PUZZLES  # noqa: E402
from test_web_browser import draw_a_diagonal  # noqa: E402
from web_server import Server  # noqa: E402

VIEWPORT_HEIGHT = 900  # the page tests' browser (conftest.browser)
CAT = (PUZZLES / "cat15.txt").read_text()


@pytest.fixture(scope="module")
def server():
    s = Server("--max-running", "1")
    yield s
    s.stop()


def explanation(server, text: str) -> dict:
    r = httpx.post(f"{server.url}/api/explain", json={"puzzle": text, "name": "clues.txt"},
                   timeout=60)
    assert r.status_code == 200, r.text
    return r.json()["explanation"]


def grid_of(steps, h: int, w: int):
    got = {(i, j): v for st in steps for i, j, v in st["cells"]}
    return tuple(tuple(got.get((i, j), -1) for j in range(w)) for i in range(h))


# -- the API ---------------------------------------------------------------------------------------

def test_api_explain_gives_the_steps_and_the_difficulty(server):
    ex = explanation(server, CAT)
    puzzle = parse_puzzle(CAT)
    assert ex["status"] == "solved"
    assert check_grid(puzzle, grid_of(ex["steps"], 15, 15)) == []
    cells = [tuple(c[:2]) for st in ex["steps"] for c in st["cells"]]
    assert len(cells) == len(set(cells)) == 225
    assert ex["difficulty"]["probe_steps"] >= 1 and ex["difficulty"]["level"] in (2, 3)


def test_api_explain_refuses_bad_input_with_one_line(server):
    r = httpx.post(f"{server.url}/api/explain", json={"puzzle": "ROWS\n1 x\nCOLUMNS\n1\n"},
                   timeout=60)
    assert r.status_code == 400 and "x" in r.json()["error"]
    r = httpx.post(f"{server.url}/api/explain", content=b"{}", timeout=60,
                   headers={"Content-Type": "text/plain"})
    assert r.status_code == 415


def test_api_explain_of_an_impossible_puzzle_names_the_line(server):
    ex = explanation(server, (PUZZLES / "impossible3.txt").read_text())
    assert ex["status"] == "infeasible" and ex["contradiction"][0] in ("row", "column")
    assert ex["difficulty"]["level"] is None


# -- the page --------------------------------------------------------------------------------------

def load(page, text: str) -> None:
    page.fill("#clues", text)
    page.wait_for_selector("#parse-status.ok")


def board(page):
    return page.evaluate("() => state.hintKnown")


def wait_pos(page, k: int, n: int) -> None:
    page.wait_for_function("t => document.querySelector('#explain-pos').textContent === t",
                           arg=f"step {k} of {n}")


def click_cell(page, i: int, j: int) -> None:
    geom = json.loads(page.get_attribute("#board", "data-geom"))
    page.click("#board", position={"x": geom["x0"] + (j + 0.5) * geom["cs"],
                                   "y": geom["y0"] + (i + 0.5) * geom["cs"]})


def test_step_through_next_and_previous(page, server):
    ex = explanation(server, CAT)
    steps, n = ex["steps"], len(ex["steps"])
    load(page, CAT)
    for k in (1, 2, 3):
        page.click("#explain-next")
        wait_pos(page, k, n)
    # the board is the union of the first three steps' cells, the third's cells outlined
    assert tuple(map(tuple, board(page))) == grid_of(steps[:3], 15, 15)
    marks = page.evaluate("() => [...state.boardMarks]")
    assert sorted(marks) == sorted(f"{i},{j}" for i, j, _ in steps[2]["cells"])
    kind, idx = steps[2]["line"]
    assert page.inner_text("#explain-text").startswith(f"{kind.capitalize()} {idx + 1} (clue ")
    assert page.query_selector("#explain-placements") is not None  # the line's placements drawn
    page.click("#explain-prev")
    wait_pos(page, 2, n)
    assert tuple(map(tuple, board(page))) == grid_of(steps[:2], 15, 15)


def test_why_on_a_cell_of_the_solved_board(page, server):
    ex = explanation(server, CAT)
    steps, n = ex["steps"], len(ex["steps"])
    load(page, CAT)
    page.click("#explain-all")
    wait_pos(page, n, n)
    solved = tuple(map(tuple, board(page)))
    assert check_grid(parse_puzzle(CAT), solved) == []  # "Show all": the solved board
    k = next(t for t, st in enumerate(steps) if st["rule"] == "probe")
    (i, j, v), = steps[k]["cells"]
    click_cell(page, i, j)
    wait_pos(page, k + 1, n)
    text = page.inner_text("#explain-text")
    assert text.startswith(f"Why is r{i + 1}c{j + 1} {'filled' if v else 'empty'}? "
                           f"Step {k + 1}: Probe r{i + 1}c{j + 1}: if it were")
    kind, idx = steps[k]["contradiction"]
    assert f"would leave {kind} {idx + 1} (clue" in text
    chain = page.query_selector_all(".explain-chain li")
    assert len(chain) == len(steps[k]["chain"]) + 2  # the assumption, the chain, the failure
    # a cell a line step decided: that step, with its line's placements drawn
    t = 5
    (i, j, v), *_ = steps[t]["cells"]
    click_cell(page, i, j)
    wait_pos(page, t + 1, n)
    assert page.inner_text("#explain-text").startswith(f"Why is r{i + 1}c{j + 1}")
    assert page.query_selector("#explain-placements") is not None


def test_hint_gives_the_first_step_the_board_lacks_with_its_reason(page, server):
    text = (PUZZLES / "two_solutions4.txt").read_text()
    ex = explanation(server, text)
    steps = ex["steps"]
    load(page, text)
    page.click("#explain-next")
    page.click("#explain-next")
    wait_pos(page, 2, len(steps))
    # the board shows steps 1-2: the hint is step 3, a probe or a line step, with its reason
    page.click("#hint")
    page.wait_for_selector("#board-note.hint")
    note = page.inner_text("#board-note")
    want = steps[2]
    if want["rule"] == "probe":
        i, j, _ = want["cells"][0]
        assert note.startswith(f"Probe r{i + 1}c{j + 1}: if it were") and "no placement" in note
    else:
        assert "follow from this line" in note
    assert tuple(map(tuple, board(page))) == grid_of(steps[:3], 4, 4)
    # hints to the end: a guess says so, and the board ends solved
    notes = []
    for _ in range(len(steps) - 3):
        page.click("#hint")
        page.wait_for_function("n => document.querySelector('#board-note').textContent !== n",
                               arg=note)
        note = page.inner_text("#board-note")
        notes.append(note)
    assert any(x.startswith("Guess ") and "follows that branch" in x for x in notes)
    assert check_grid(parse_puzzle(text), tuple(map(tuple, board(page)))) == []
    page.click("#hint")
    page.wait_for_selector("#board-note.ok")
    assert "solved" in page.inner_text("#board-note")


def test_draw_view_reports_the_difficulty(page, server):
    draw_a_diagonal(page)  # the anti-diagonal has the same clues: a guess is needed
    page.click("#draw-difficulty")
    page.wait_for_selector("#draw-report.ok, #draw-report.error")
    report = page.inner_text("#draw-report")
    text = page.input_value("#clues")
    ex = explanation(server, text)
    d = ex["difficulty"]
    assert report.startswith(f"Level {d['level']} of 5: ")
    assert d["guesses"] >= 1 and "Line-solvable: no" in report
    marks = page.evaluate("() => [...state.boardMarks]")
    assert sorted(marks) == sorted(f"{i},{j}" for i, j in d["beyond_lines"])
    assert f"{len(d['beyond_lines'])} marked cell" in report
    # a line-solvable drawing: level 1, nothing marked
    box = page.query_selector("#board").bounding_box()
    geom = json.loads(page.get_attribute("#board", "data-geom"))
    for k in range(3):
        page.mouse.click(box["x"] + geom["x0"] + (k + 0.5) * geom["cs"],
                         box["y"] + geom["y0"] + 0.5 * geom["cs"])
    page.click("#draw-difficulty")
    page.wait_for_function("() => document.querySelector('#draw-report').textContent"
                           ".startsWith('Level 1 of 5')")
    assert page.evaluate("() => state.boardMarks") is None


def test_why_on_the_board_a_solver_solved(page, server):
    """A solve's grid on the main board (the page shows the first card's): a click on a cell
    answers with the step that decided it."""
    ex = explanation(server, CAT)
    steps, n = ex["steps"], len(ex["steps"])
    load(page, CAT)
    for box in page.query_selector_all("#backends input[type=checkbox]"):
        if box.is_enabled() and box.is_checked() != (box.get_attribute("value") == "lines"):
            box.click()
    page.click("#solve")
    page.wait_for_function("() => document.querySelector('.run .badge') && "
                           "!document.querySelector('.run .badge.running')", timeout=60_000)
    page.wait_for_function("() => state.shown && state.shown.first")  # the solved grid shown
    t = next(k for k, st in enumerate(steps) if st["rule"] == "line" and k > 10)
    i, j, v = steps[t]["cells"][0]
    click_cell(page, i, j)
    wait_pos(page, t + 1, n)
    assert page.inner_text("#explain-text").startswith(
        f"Why is r{i + 1}c{j + 1} {'filled' if v else 'empty'}? Step {t + 1}: ")
