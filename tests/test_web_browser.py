"""The web solver's page in a real browser: Debian's Chromium driven by Playwright, headless.

Skips with the reason when Playwright or /usr/bin/chromium is missing (``.ci/run`` installs
Chromium; Playwright's own browser download is never used). One browser and one server for the
module. ``NONOGRAM_SCREENSHOTS=DIR`` also saves the screenshots the docs show.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web solver needs the web extra")
pytest.importorskip("uvicorn", reason="the web solver needs the web extra")
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the browser tests need playwright (the test extra)")

from helpers import PUZZLES  # noqa: E402
from web_server import Server, impossible_for_samplers  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium)",
                allow_module_level=True)

SHOTS = os.environ.get("NONOGRAM_SCREENSHOTS")


@pytest.fixture(scope="module")
def server():
    s = Server("--max-running", "2", "--max-time-limit", "30")
    yield s
    s.stop()


def paste(page, text: str) -> None:
    """Type ``text`` in. No sleep is needed: the status says "Reading…" from the input event
    on (never the last text's "Read ..."), so a wait for ``#parse-status.ok`` afterwards waits
    for this text's read."""
    page.fill("#clues", text)


def choose(page, *names: str) -> None:
    for box in page.query_selector_all("#backends input[type=checkbox]"):
        want = box.get_attribute("value") in names
        if box.is_enabled() and box.is_checked() != want:
            box.click()


def solve_and_wait(page, timeout: float = 30_000):
    page.click("#solve")
    page.wait_for_selector(".run .badge:not(.running)", timeout=timeout)
    page.wait_for_function("() => !document.querySelector('.run .badge.running')",
                           timeout=timeout)
    return page.query_selector_all(".run")


def shot(page, name: str) -> None:
    page.evaluate("() => { window.scrollTo(0, 0);"
                  " document.querySelector('#clues').scrollTop = 0; }")
    page.mouse.move(0, 0)
    path = Path(SHOTS) / name
    page.screenshot(path=str(path), full_page=True)
    try:  # a small PNG for the docs: the page has few colours
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=96, dither=Image.Dither.NONE)
    small.save(path, optimize=True)


def test_paste_cat15_and_solve_with_cpsat(page):
    paste(page, (PUZZLES / "cat15.txt").read_text())
    page.wait_for_selector("#parse-status.ok")
    choose(page, "cpsat")
    runs = solve_and_wait(page)
    assert len(runs) == 1
    assert runs[0].query_selector(".badge").inner_text() == "solved"
    assert "Unique solution" in runs[0].query_selector(".run-verdict").inner_text()
    assert "variables" in runs[0].query_selector(".figures").inner_text()
    if SHOTS:
        choose(page, "cpsat", "lines", "sa")
        solve_and_wait(page)
        page.wait_for_timeout(300)
        shot(page, "web-solve.png")


def test_downloads(page, tmp_path):
    paste(page, (PUZZLES / "heart5.txt").read_text())
    page.wait_for_selector("#parse-status.ok")
    choose(page, "cpsat")
    run = solve_and_wait(page)[0]
    with page.expect_download() as got:
        run.query_selector("[data-dl=png]").click()
    png = got.value.path().read_bytes()
    assert png.startswith(b"\x89PNG")
    with page.expect_download() as got:
        run.query_selector("[data-dl=svg]").click()
    svg = got.value.path().read_text()
    from formulations import parse_puzzle
    puzzle = parse_puzzle((PUZZLES / "heart5.txt").read_text())
    filled = sum(b.length for clue in puzzle.rows for b in clue)
    assert svg.count('fill="#1d2433"') == filled  # one square per black cell
    page.click("#download-menu summary")
    with page.expect_download() as got:
        page.click("[data-export=text]")
    assert parse_puzzle(got.value.path().read_text()) == puzzle


def test_upload_a_non_file(page, tmp_path):
    f = tmp_path / "tiny.non"
    f.write_text("width 3\nheight 2\n\nrows\n3\n1\n\ncolumns\n2\n1\n1\n")
    page.set_input_files("#file", str(f))
    page.wait_for_function(
        "() => document.querySelector('#parse-status').textContent.includes('3 × 2')")
    choose(page, "lines")
    runs = solve_and_wait(page)
    assert runs[0].query_selector(".badge").inner_text() == "solved"


def test_a_colour_puzzle(page):
    paste(page, (PUZZLES / "flag_colour6.txt").read_text())
    page.wait_for_function(
        "() => document.querySelector('#puzzle-title').textContent === 'Colour flag'")
    assert "red" in page.inner_text("#legend") and "yellow" in page.inner_text("#legend")
    choose(page, "cpsat")
    runs = solve_and_wait(page)
    assert runs[0].query_selector(".badge").inner_text() == "solved"
    # the card's grid is painted in the palette: some pixel is pure-ish red
    red = page.evaluate("""() => { const c = document.querySelector('.run canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let k = 0; k < d.length; k += 4)
            if (d[k] > 240 && d[k+1] < 20 && d[k+2] < 20) return true;
        return false; }""")
    assert red


def test_two_solutions_shows_the_second(page):
    paste(page, (PUZZLES / "two_solutions4.txt").read_text())
    page.wait_for_selector("#parse-status.ok")
    choose(page, "cpsat")
    runs = solve_and_wait(page)
    assert "Not unique" in runs[0].query_selector(".run-verdict").inner_text()
    assert runs[0].query_selector(".run-switch").is_visible()
    before = runs[0].query_selector("canvas").screenshot()
    runs[0].query_selector("[data-show=second]").click()
    after = runs[0].query_selector("canvas").screenshot()
    assert before != after
    runs[0].query_selector("[data-show=diff]").click()
    if SHOTS:
        choose(page, "cpsat", "lines")
        for run in solve_and_wait(page):
            run.query_selector("[data-show=diff]").click()  # the last one clicked: on the board
        page.wait_for_function("() => document.querySelector('#board-note').textContent"
                               ".includes('insets')")
        shot(page, "web-two-solutions.png")


def test_impossible_says_impossible(page):
    paste(page, (PUZZLES / "impossible3.txt").read_text())
    page.wait_for_selector("#parse-status.ok")
    choose(page, "cpsat", "lines")
    runs = solve_and_wait(page)
    for run in runs:
        assert run.query_selector(".badge").inner_text() == "impossible"
        assert "Impossible" in run.query_selector(".run-verdict").inner_text()


def test_a_bad_clue_line_shows_its_error(page):
    paste(page, "ROWS\n1 1\n2 x\nCOLUMNS\n1\n2\n")
    page.wait_for_selector("#parse-status.error")
    text = page.inner_text("#parse-status")
    assert "clues.txt:3:" in text and "'x'" in text
    page.click("#parse-status a")
    assert page.evaluate("() => { const t = document.querySelector('#clues');"
                         " return t.value.slice(t.selectionStart, t.selectionEnd); }") == "2 x"


def start_a_long_run(page) -> None:
    """A sampler on a puzzle it cannot solve, for 25 s (a cancel must end it long before)."""
    paste(page, impossible_for_samplers())
    page.wait_for_selector("#parse-status.ok")
    choose(page, "sa")
    page.fill("#reads", "100000")
    page.fill("#time-limit", "25")
    page.click("#solve")


def test_cancel_a_long_run(page):
    start_a_long_run(page)
    # the worker has said it started (the card says "starting", class running, from the click on)
    page.wait_for_function("() => document.querySelector('.run .badge').textContent === 'running'")
    page.click(".run .run-cancel")
    page.wait_for_selector(".run .badge.interrupted", timeout=10_000)
    assert page.inner_text(".run .badge") == "cancelled"


def test_a_cancel_before_the_server_has_answered_is_sent(page):
    """The cancel button is there from the click on; pressed before the server has admitted the
    run (a slow answer), the cancel is sent once it has, and the run ends cancelled."""
    held = []
    page.route("**/api/runs", lambda route: held.append(route))
    start_a_long_run(page)
    page.wait_for_function("() => document.querySelector('.run .badge').textContent === "
                           "'starting'")
    page.click(".run .run-cancel")
    end = time.monotonic() + 30
    while not held and time.monotonic() < end:
        page.wait_for_timeout(50)
    assert held, "the page never asked the server to start the run"
    for route in held:
        route.continue_()
    page.unroute("**/api/runs")
    page.wait_for_selector(".run .badge.interrupted", timeout=10_000)
    assert page.inner_text(".run .badge") == "cancelled"


def server_hints(server, text: str, name: str, steps: int) -> list[str]:
    """The notes' leading "Label (clue ...)" of the first ``steps`` hints: the first steps of
    the explanation (every one a line step on the puzzles used here), asked of the server."""
    import httpx
    p = httpx.post(f"{server.url}/api/parse", json={"puzzle": text, "name": name}, timeout=60)
    info = p.json()["puzzle"]
    d = httpx.post(f"{server.url}/api/explain", json={"puzzle": text, "name": name},
                   timeout=60).json()
    out = []
    for st in d["explanation"]["steps"][:steps]:
        assert st["rule"] == "line", st
        kind, idx = st["line"]
        clue = info["rows" if kind == "row" else "columns"][idx]
        out.append(f"{kind[0].upper()}{kind[1:]} {idx + 1} "
                   f"(clue {' '.join(str(b[0]) for b in clue) or '0'}):")
    return out


def test_the_hint_button(page, server):
    text = (PUZZLES / "cat15.txt").read_text()
    expected = server_hints(server, text, "clues.txt", 4)
    paste(page, text)
    page.wait_for_selector("#parse-status.ok")
    page.click("#hint")
    page.wait_for_selector("#board-note.hint")
    first = page.inner_text("#board-note")
    assert first.startswith(expected[0]) and "follow from this line" in first
    for _ in range(3):  # clicks queue: three more steps, whatever order the answers come in
        page.click("#hint")
    page.wait_for_function("t => document.querySelector('#board-note').textContent.startsWith(t)",
                           arg=expected[3])


def test_a_hint_waits_for_the_text_being_read(page, server):
    """Pasting a new puzzle and asking for a hint before its read has come back: the status
    must not keep saying the last puzzle was read, and the hint is the new puzzle's (the read
    coming back afterwards no longer wipes it)."""
    text = (PUZZLES / "heart5.txt").read_text()
    expected = server_hints(server, text, "clues.txt", 1)[0]
    held = []
    page.route("**/api/parse", lambda route: held.append(route))
    paste(page, text)
    page.click("#hint")
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page never asked to read the pasted text"
    assert "ok" not in page.get_attribute("#parse-status", "class").split()
    assert "hint" not in page.get_attribute("#board-note", "class").split()
    for route in held:
        route.continue_()
    page.unroute("**/api/parse")
    page.wait_for_selector("#board-note.hint")
    assert page.inner_text("#board-note").startswith(expected)
    page.wait_for_selector("#parse-status.ok")
    page.wait_for_timeout(300)
    assert page.inner_text("#board-note").startswith(expected)


def test_a_title_with_markup_stays_text(page):
    title = "<script>window.pwned=1</script><img src=x onerror='window.pwned=2'>"
    paste(page, f"TITLE {title}\nROWS\n1\nCOLUMNS\n1\n")
    page.wait_for_function("() => document.querySelector('#parse-status.ok')")
    page.wait_for_function("t => document.querySelector('#puzzle-title').textContent === t",
                           arg=title)
    assert page.evaluate("() => window.pwned === undefined")
    assert page.query_selector("#puzzle-title img") is None


def test_the_share_link_carries_the_clues(page, server, browser):
    text = (PUZZLES / "heart5.txt").read_text()
    paste(page, text)
    page.wait_for_selector("#parse-status.ok")
    page.click("#share")
    url = page.input_value("#share-url")
    other = browser.new_page()
    other.goto(url)
    other.wait_for_selector("body[data-ready='1']")
    assert other.input_value("#clues") == text
    other.close()


def draw_a_diagonal(page) -> None:
    page.click("#tab-btn-draw")
    page.fill("#draw-w", "3")
    page.fill("#draw-h", "3")
    page.click("#draw-new")
    box = page.query_selector("#board").bounding_box()
    geom = json.loads(page.get_attribute("#board", "data-geom"))
    # a diagonal of a 3x3 is ambiguous (the anti-diagonal has the same clues)
    for k in range(3):
        page.mouse.click(box["x"] + geom["x0"] + (k + 0.5) * geom["cs"],
                         box["y"] + geom["y0"] + (k + 0.5) * geom["cs"])
    assert "1\n1\n1\nCOLUMNS" in page.input_value("#clues")


def test_a_check_clicked_again_is_not_answered_by_the_first(page):
    """Two clicks on "check uniqueness" before the server has admitted the first check (a slow
    answer): the first is cancelled once admitted, and its end does not overwrite the second's
    verdict."""
    held = []
    page.route("**/api/runs", lambda route: held.append(route))
    draw_a_diagonal(page)
    page.click("#draw-unique")
    first = page.query_selector(".run")  # its card leaves the page at the second click
    page.click("#draw-unique")
    end = time.monotonic() + 30
    while len(held) < 2 and time.monotonic() < end:
        page.wait_for_timeout(50)
    assert len(held) == 2, "the page did not ask for both checks"
    held[1].continue_()
    page.wait_for_selector("#board-note.error, #board-note.ok", timeout=30_000)
    assert "Not unique" in page.inner_text("#board-note")
    held[0].continue_()
    page.unroute("**/api/runs")
    page.wait_for_function("c => !c.querySelector('.badge').classList.contains('running')",
                           arg=first, timeout=30_000)
    assert first.query_selector(".badge").inner_text() == "cancelled"
    assert "Not unique" in page.inner_text("#board-note")


def test_draw_a_picture_and_check_uniqueness(page):
    draw_a_diagonal(page)
    page.click("#draw-unique")
    page.wait_for_selector("#board-note.error, #board-note.ok", timeout=30_000)
    assert "Not unique" in page.inner_text("#board-note")
    if SHOTS:
        shot(page, "web-draw.png")
