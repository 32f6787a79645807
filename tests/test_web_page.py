"""What a user sees on the web solver's page (issue 44), measured in a real browser: clue
numbers that never run together up to 100x100 (from the rendered elements' boxes), a card's
grid on the main board, a parse error that clears the puzzle and stops Solve, the loading
state, every solver in view, downloads named after the puzzle, one account of the reads on a
card, a legend for its terms.

Same browser and server set-up as test_web_browser.py (its fixtures); every wait is for a state
of the page, never a fixed time.
"""
from __future__ import annotations

import json
import random
import re

import pytest

from test_web_browser import choose, paste, server, solve_and_wait  # noqa: F401
from helpers import PUZZLES
from web_server import impossible_for_samplers

from formulations import parse_puzzle, puzzle_from_grid
from formulations.io.writers import write_text


# A sampler's time limit here: it covers the worker's imports too, which took up to 2 s of a
# 2 s limit on a loaded machine (the run then ended "time limit reached during the model build").
SAMPLER_LIMIT_S = 8


def random_text(n: int, seed: int, density: float = 0.72, title: str = "",
                colours: int = 1) -> str:
    """A random n x n picture's clues (dense enough for two-digit clues in rows and columns);
    ``colours`` > 1: a colour puzzle of 12x12 patches of one colour each."""
    rng = random.Random(seed)
    grid = [[(1 + (i // 12 + j // 12) % colours) if rng.random() < density else 0
             for j in range(n)] for i in range(n)]
    return write_text(puzzle_from_grid(grid, title))


# Every clue number's box, its line and its text, with the scroll box's geometry and the cells'
# canvas, all in the scroll box's content coordinates (what scrolling can bring into view).
MEASURE = """() => {
  const wrap = document.querySelector('#board-wrap'), w = wrap.getBoundingClientRect();
  const at = r => ({ left: r.left - w.left + wrap.scrollLeft, top: r.top - w.top + wrap.scrollTop,
                     right: r.right - w.left + wrap.scrollLeft, bottom: r.bottom - w.top + wrap.scrollTop });
  const nums = [];
  for (const [sel, kind] of [['#row-clues .rc', 'row'], ['#col-clues .cc', 'column']])
    document.querySelectorAll(sel).forEach((line, k) => line.querySelectorAll('.clue-num').forEach(e => {
      nums.push({ kind, k, text: e.textContent, box: at(e.getBoundingClientRect()),
                  font: parseFloat(getComputedStyle(e).fontSize), clipped: e.scrollWidth > e.clientWidth + 1 });
    }));
  return { nums, board: at(document.querySelector('#board').getBoundingClientRect()),
           geom: JSON.parse(document.querySelector('#board').dataset.geom),
           scroll: { width: wrap.scrollWidth, height: wrap.scrollHeight } };
}"""

OVERLAPS = """(boxes) => {
  // pairs of boxes that overlap (a sweep along x: boxes sorted by their left edge)
  const order = boxes.map((b, k) => k).sort((a, b) => boxes[a].left - boxes[b].left), bad = [];
  for (let a = 0; a < order.length; a++) {
    const p = boxes[order[a]];
    for (let b = a + 1; b < order.length; b++) {
      const q = boxes[order[b]];
      if (q.left >= p.right) break;
      if (q.top < p.bottom && p.top < q.bottom) bad.push([order[a], order[b]]);
    }
  }
  return bad;
}"""


@pytest.mark.parametrize("n, seed, colours", [(40, 1, 1), (60, 2, 1), (100, 3, 1), (40, 4, 3)])
def test_every_clue_number_is_shown_apart_from_its_neighbours(page, n, seed, colours):
    text = random_text(n, seed, density=0.72 if colours == 1 else 0.85, colours=colours)
    puzzle = parse_puzzle(text)
    assert puzzle.is_black_and_white == (colours == 1)
    assert max(b.length for c in puzzle.rows for b in c) >= 10  # two-digit clues in the rows
    assert max(b.length for c in puzzle.columns for b in c) >= 10  # ... and in the columns
    paste(page, text)
    page.wait_for_function("n => document.querySelectorAll('#row-clues .rc').length === n", arg=n)
    page.wait_for_selector("#parse-status.ok")
    m = page.evaluate(MEASURE)
    nums = m["nums"]
    # every number of every clue is there, in order, as its own element
    for kind, clues in (("row", puzzle.rows), ("column", puzzle.columns)):
        for k, clue in enumerate(clues):
            shown = [x["text"] for x in nums if x["kind"] == kind and x["k"] == k]
            assert shown == [str(b.length) for b in clue], (kind, k)
    # no two numbers' boxes overlap, and none is cut off
    boxes = [x["box"] for x in nums]
    overlaps = page.evaluate(OVERLAPS, boxes)
    assert not overlaps, [(nums[a]["text"], nums[b]["text"], nums[a]["box"], nums[b]["box"])
                          for a, b in overlaps[:5]]
    assert not [x for x in nums if x["clipped"]]
    assert min(x["font"] for x in nums) >= 10  # legible: 10 px or more
    # inside the scrollable area (scrolling brings each one into view)
    for x in nums:
        b = x["box"]
        assert b["left"] >= 0 and b["top"] >= 0, x
        assert b["right"] <= m["scroll"]["width"] + 0.5 and b["bottom"] <= m["scroll"]["height"] + 0.5, x
    # each number sits beside its line: a row's left of the board within its row, a column's
    # above the board within its column (so a number is read as its line's)
    board, cs = m["board"], m["geom"]["cs"]
    y0, x0 = board["top"] + m["geom"]["y0"], board["left"] + m["geom"]["x0"]
    for x in nums:
        b = x["box"]
        if x["kind"] == "row":
            assert b["right"] <= board["left"] + 0.5
            assert y0 + x["k"] * cs - 0.5 <= b["top"] and b["bottom"] <= y0 + (x["k"] + 1) * cs + 0.5, x
        else:
            assert b["bottom"] <= board["top"] + 0.5
            assert x0 + x["k"] * cs - 0.5 <= b["left"] and b["right"] <= x0 + (x["k"] + 1) * cs + 0.5, x


def test_a_large_board_keeps_its_clues_in_view_when_scrolled(page):
    paste(page, random_text(100, 3))
    page.wait_for_function("() => document.querySelectorAll('#row-clues .rc').length === 100")
    scrolls = page.evaluate("() => { const w = document.querySelector('#board-wrap');"
                            " return [w.scrollWidth > w.clientWidth, w.scrollHeight > w.clientHeight]; }")
    assert scrolls == [True, True]  # 100x100 does not fit here: it scrolls (not shrunk to dots)
    page.evaluate("() => { const w = document.querySelector('#board-wrap');"
                  " w.scrollTo(w.scrollWidth, w.scrollHeight); }")
    page.wait_for_function("() => { const w = document.querySelector('#board-wrap');"
                           " return w.scrollTop > 0 && w.scrollLeft > 0; }")
    # the last column's clue and the last row's clue are in the scroll box's view
    seen = page.evaluate("""() => {
      const w = document.querySelector('#board-wrap').getBoundingClientRect();
      const inside = e => { const r = e.getBoundingClientRect();
        return r.left >= w.left - 0.5 && r.right <= w.right + 0.5 && r.top >= w.top - 0.5 && r.bottom <= w.bottom + 0.5; };
      const col = document.querySelector('#col-clues .cc:last-child .clue-num:last-child');
      const row = document.querySelector('#row-clues .rc:last-child .clue-num:last-child');
      return [inside(col), inside(row)]; }""")
    assert seen == [True, True]


def board_cells(page) -> list[list[str]]:
    """The main board's cells as drawn: '#' dark, '.' light, from the canvas's pixels at each
    cell's centre, and 'm' added where the cell carries the orange (#f07000) edge of a
    difference (the hint's line is another orange, #ff8a00)."""
    return page.evaluate("""() => {
      const c = document.querySelector('#board'), g = JSON.parse(c.dataset.geom);
      const k = c.width / parseFloat(c.style.width), d = c.getContext('2d');
      const px = (x, y) => d.getImageData(Math.round(x * k), Math.round(y * k), 1, 1).data;
      const h = document.querySelectorAll('#row-clues .rc').length, w = document.querySelectorAll('#col-clues .cc').length;
      const out = [];
      for (let i = 0; i < h; i++) { const row = [];
        for (let j = 0; j < w; j++) {
          const x = g.x0 + j * g.cs, y = g.y0 + i * g.cs, p = px(x + g.cs / 2, y + g.cs / 2);
          let mark = false;  // the mark's orange edge, anywhere on the cell's diagonal
          for (let t = 2; t < g.cs - 2 && !mark; t++) { const q = px(x + t, y + t); mark = Math.abs(q[0] - 240) < 13 && Math.abs(q[1] - 112) < 13 && q[2] < 40; }
          row.push((p[0] + p[1] + p[2] < 300 ? '#' : '.') + (mark ? 'm' : ''));
        }
        out.push(row); }
      return out; }""")


def test_the_chosen_cards_grid_is_on_the_board_with_its_differences(page, server):
    import httpx
    text = (PUZZLES / "two_solutions4.txt").read_text()
    paste(page, text)
    page.wait_for_selector("#parse-status.ok")
    empty = board_cells(page)
    assert all(c == "." for row in empty for c in row)
    choose(page, "cpsat")
    run = solve_and_wait(page)[0]
    page.wait_for_selector(".run.selected")
    assert "cpsat's solution on the board" in page.inner_text("#board-note")
    first = board_cells(page)
    # the board is one of the two solutions, and the cells where they differ are marked
    rec = httpx.post(f"{server.url}/api/solve", json={"puzzle": text, "backend": "cpsat",
                                                      "options": {"unique": True}}, timeout=60).json()
    sols = [[list(r) for r in rec["grid"]], [list(r) for r in rec["second_grid"]]]
    drawn = [[c[0] for c in row] for row in first]
    assert drawn in sols
    differ = {(i, j) for i, row in enumerate(sols[0]) for j, v in enumerate(row) if v != sols[1][i][j]}
    assert differ
    assert {(i, j) for i, row in enumerate(first) for j, c in enumerate(row) if "m" in c} == differ
    # "Another" on the card puts the other solution on the board
    run.query_selector("[data-show=second]").click()
    page.wait_for_function("() => document.querySelector('#board-note').textContent.includes('second solution')")
    second = [[c[0] for c in row] for row in board_cells(page)]
    assert second in sols and second != drawn
    # Hint goes back to the cells the hints decide: no card is on the board any more, and the
    # cells marked are the hint's step's (the explanation's first step), not the differences
    page.click("#hint")
    page.wait_for_function("() => !document.querySelector('.run.selected')")
    page.wait_for_selector("#board-note.hint")  # this 4x4 of swappable corners: a guess
    trace = httpx.post(f"{server.url}/api/explain", json={"puzzle": text, "name": "clues.txt"},
                       timeout=60).json()["explanation"]
    step = {(i, j) for i, j, _ in trace["steps"][0]["cells"]}
    marked = {(i, j) for i, row in enumerate(board_cells(page)) for j, c in enumerate(row)
              if "m" in c}
    assert marked == step and marked != differ


def test_a_click_on_a_card_puts_its_grid_on_the_board(page):
    paste(page, (PUZZLES / "heart5.txt").read_text())
    page.wait_for_selector("#parse-status.ok")
    choose(page, "cpsat", "lines")
    runs = solve_and_wait(page)
    page.wait_for_selector(".run.selected")
    other = next(r for r in runs if "selected" not in r.get_attribute("class"))
    other.query_selector(".run-board").click()
    page.wait_for_function("c => c.classList.contains('selected')", arg=other)
    assert len(page.query_selector_all(".run.selected")) == 1
    name = other.get_attribute("data-backend")
    assert page.inner_text("#board-note").startswith(f"{name}'s solution on the board")
    puzzle = parse_puzzle((PUZZLES / "heart5.txt").read_text())
    drawn = board_cells(page)
    # the drawn grid meets the clues: its rows' runs are the row clues
    for i, clue in enumerate(puzzle.rows):
        runs_ = [len(m) for m in re.findall(r"#+", "".join(c[0] for c in drawn[i]))]
        assert runs_ == [b.length for b in clue]


def test_a_parse_error_clears_the_puzzle_and_solve_waits_for_clues_that_read(page):
    paste(page, (PUZZLES / "heart5.txt").read_text())
    page.wait_for_selector("#parse-status.ok")
    page.click("#hint")
    page.wait_for_selector("#board-note.hint")
    assert page.inner_text("#puzzle-size") == "5 × 5"
    # bad clues typed and Solve pressed before the page has read them (the read held back)
    held = []
    page.route("**/api/parse", lambda route: held.append(route))
    paste(page, "ROWS\n1 1\n2 x\nCOLUMNS\n1\n2\n")
    assert page.is_enabled("#solve")
    page.click("#solve")
    page.wait_for_function("() => document.querySelector('#parse-status').textContent === 'Reading…'")
    for _ in range(600):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page never asked to read the text"
    for route in held:
        route.continue_()
    page.unroute("**/api/parse")
    page.wait_for_selector("#parse-status.error")
    page.wait_for_function("() => document.querySelector('#board-note').textContent.startsWith('Cannot solve')")
    assert page.query_selector(".run") is None  # no card, no "Error" on the old grid
    # nothing of the last puzzle is left: board, title, size, hint
    assert page.inner_text("#puzzle-title") == "Puzzle"
    assert page.inner_text("#puzzle-size") == ""
    assert page.query_selector_all(".clue-num") == []
    assert page.evaluate("() => document.querySelector('#board').width") == 0
    assert not page.is_visible("#board-grid")
    assert page.is_disabled("#solve")
    # clues that read bring the board and Solve back
    paste(page, "ROWS\n1 1\n3\nCOLUMNS\n2\n1\n2\n")
    page.wait_for_selector("#parse-status.ok")
    page.wait_for_function("() => !document.querySelector('#solve').disabled")
    assert page.inner_text("#puzzle-size") == "3 × 2"
    choose(page, "lines")
    runs = solve_and_wait(page)
    assert runs[0].query_selector(".badge").inner_text() == "solved"


def test_the_first_visit_shows_that_it_is_loading(browser, server):
    held = []
    p = browser.new_page()
    try:
        p.route("**/api/backends", lambda route: held.append(route))
        p.goto(server.url + "/")
        p.wait_for_selector("#backends .loading")
        assert "Loading the solvers" in p.inner_text("#backends")
        assert p.is_disabled("#solve")
        # the example does not wait for the solvers
        p.wait_for_selector("#parse-status.ok")
        p.wait_for_selector("#row-clues .rc")
        assert p.get_attribute("body", "data-ready") is None
        for _ in range(600):
            if held:
                break
            p.wait_for_timeout(50)
        assert held
        for route in held:
            route.continue_()
        p.wait_for_selector("body[data-ready='1']")
        assert p.query_selector("#backends .loading") is None
        assert p.is_enabled("#solve")
    finally:
        p.close()


def test_every_solver_is_in_view_and_a_missing_one_says_how_to_install_it(browser, server):
    import httpx
    listed = httpx.get(f"{server.url}/api/backends", timeout=120).json()["backends"]
    gone = listed[2]["name"]  # one reported missing, as a lean install would

    def missing(route):
        body = route.fetch().json()
        for b in body["backends"]:
            if b["name"] == gone:
                b["available"], b["install_hint"] = False, 'pip install "example[extra]"'
        route.fulfill(json=body)

    p = browser.new_page()
    try:
        p.route("**/api/backends", missing)
        p.goto(server.url + "/")
        p.wait_for_selector("body[data-ready='1']")
        labels = p.query_selector_all("#backends label.backend")
        assert len(labels) == len(listed)
        # no scroll box: the list is as tall as its content, and every row is drawn in full
        assert p.evaluate("() => { const b = document.querySelector('#backends');"
                          " return b.scrollHeight <= b.clientHeight + 1; }")
        for label in labels:
            label.scroll_into_view_if_needed()
            assert label.is_visible()
        off = ["off" in lab.get_attribute("class").split() for lab in labels]
        assert off == sorted(off)  # the installed ones first, then the missing ones
        names = [lab.query_selector(".name").inner_text() for lab in labels]
        missing = [n for n, o in zip(names, off) if o]
        assert gone in missing and len(missing) == sum(not b["available"] for b in listed) + 1
        shown = labels[names.index(gone)]
        assert 'pip install "example[extra]"' in shown.inner_text()
        assert shown.query_selector("input").is_disabled()
        assert f"not installed here ({len(missing)})" in p.inner_text("#backends").lower()
        # every checked one stays in view of the page (checked at the bottom too)
        for label in [lab for lab, o in zip(labels, off) if not o][-3:]:
            label.query_selector("input").check()
        for box in p.query_selector_all("#backends input:checked"):
            box.scroll_into_view_if_needed()
            assert box.is_visible()
    finally:
        p.close()


def test_downloads_are_named_after_the_puzzle(page):
    paste(page, "TITLE Small heart\n" + (PUZZLES / "heart5.txt").read_text())
    page.wait_for_function("() => document.querySelector('#puzzle-title').textContent === 'Small heart'")
    names = {}
    for kind in ("text", "non", "bqm"):
        page.click("#download-menu summary")
        with page.expect_download() as got:
            page.click(f"[data-export={kind}]")
        names[kind] = got.value.suggested_filename
    assert names == {"text": "Small-heart.txt", "non": "Small-heart.non", "bqm": "Small-heart.bqm"}
    choose(page, "cpsat")
    run = solve_and_wait(page)[0]
    with page.expect_download() as got:
        run.query_selector("[data-dl=png]").click()
    assert got.value.suggested_filename == "Small-heart-cpsat.png"
    # an example is named after its file
    page.select_option("#example", "cat15.txt")
    page.wait_for_function("() => document.querySelector('#parse-status').textContent.includes('15 × 15')")
    page.click("#download-menu summary")
    with page.expect_download() as got:
        page.click("[data-export=text]")
    assert got.value.suggested_filename == "cat15.txt"


def card_text(run) -> str:
    return run.inner_text()


def test_a_samplers_card_counts_its_reads_one_way_and_speaks_in_words(page):
    paste(page, impossible_for_samplers())
    page.wait_for_selector("#parse-status.ok")
    choose(page, "sa")
    page.fill("#time-limit", str(SAMPLER_LIMIT_S))
    run = solve_and_wait(page, timeout=60_000)[0]
    text = card_text(run)
    figures = dict(zip([e.inner_text() for e in run.query_selector_all(".figures dt")],
                       [e.inner_text() for e in run.query_selector_all(".figures dd")]))
    message = run.query_selector(".run-message").inner_text()
    # the reads row and the message count the same reads
    m = re.match(r"best of ([\d,]+ reads?(?: in \d+ batches)?)", message)
    assert m, message
    assert figures["reads"].replace(",", "") == m.group(1).replace(",", "")
    total = int(m.group(1).split()[0].replace(",", ""))
    pm = re.match(r"0\.000: 0 of ([\d,]+) reads?( in the last batch)? reached energy 0", figures["p"])
    assert pm, figures["p"]
    assert int(pm.group(1).replace(",", "")) <= total
    assert bool(pm.group(2)) == ("batches" in figures["reads"])
    # people's words: no "1 reads", no tuple such as ('link', 0, 9)
    assert not re.search(r"\b1 (reads|batches|cells|constraints|guesses)\b", text)
    assert "('" not in text and "(\"" not in text
    assert "its row and its column disagree" in message or "block" in message
    # the terms are explained: tooltips on the card and the legend under the cards
    for term in ("p", "TTS99", "energy"):
        dt = run.query_selector(f".figures dt:text-is('{term}')")
        assert dt.get_attribute("title")
    assert page.is_visible("#terms")
    legend = page.inner_text("#terms")
    assert "TTS99" in legend and "99" in legend and "share of reads" in legend


def test_the_energy_chart_is_more_than_a_dot(page):
    """Short reads (10 sweeps) of a random 20x20 end at many energies: a run of one batch
    charts how many reads reached each, a run of several the best and mean energy per batch."""
    paste(page, random_text(20, 5, density=0.5))
    page.wait_for_selector("#parse-status.ok")
    choose(page, "sa")
    page.fill("#time-limit", str(SAMPLER_LIMIT_S))
    page.fill("#reads", "40")
    page.fill("#sweeps", "10")
    run = solve_and_wait(page, timeout=60_000)[0]
    spark = run.query_selector("canvas.spark")
    assert spark.is_visible(), run.inner_text()
    assert int(spark.get_attribute("data-points")) >= 2
    # what it draws spreads over the chart: blue from its left part to its right part
    xs = page.evaluate("""c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, xs = new Set();
      for (let k = 0; k < d.length; k += 4) if (d[k + 2] > 180 && d[k] < 120) xs.add((k / 4) % c.width);
      return [Math.min(...xs) / c.width, Math.max(...xs) / c.width]; }""", spark)
    assert xs[1] - xs[0] > 0.3, xs


def test_the_draw_tab_has_no_empty_band_and_a_stroke_does_not_move_the_board(page):
    page.click("#tab-btn-draw")
    page.fill("#draw-w", "12")
    page.fill("#draw-h", "12")
    page.click("#draw-new")
    page.wait_for_function("() => document.querySelectorAll('#col-clues .cc').length === 12")
    gap = page.evaluate("() => document.querySelector('#board').getBoundingClientRect().top -"
                        " document.querySelector('#board-grid').getBoundingClientRect().top")
    lh = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.clue-num')).lineHeight)")
    assert gap <= 2 * lh + 12  # one line of "0"s above the grid, not room for six
    # a stroke that paints every other cell of the first column (the pointer jumps from one to
    # the next) grows that column's clue to six numbers: the board stays put under the pointer
    # until the stroke ends, and then the clue strip fits the clues
    box = page.query_selector("#board").bounding_box()
    geom = json.loads(page.get_attribute("#board", "data-geom"))
    x = box["x"] + geom["x0"] + 0.5 * geom["cs"]
    page.mouse.move(x, box["y"] + geom["y0"] + 0.5 * geom["cs"])
    page.mouse.down()
    for i in range(2, 12, 2):
        page.mouse.move(x, box["y"] + geom["y0"] + (i + 0.5) * geom["cs"])
    page.wait_for_function("() => document.querySelectorAll('#col-clues .cc:first-child .clue-num').length === 6")
    during = page.query_selector("#board").bounding_box()
    page.mouse.up()
    assert (during["x"], during["y"]) == (box["x"], box["y"])
    clue = page.input_value("#clues").split("COLUMNS\n")[1].splitlines()[0]
    assert clue == "1 1 1 1 1 1"
    page.wait_for_function("y => document.querySelector('#board').getBoundingClientRect().top > y + 1",
                           arg=box["y"])


def marked_lines(page, cls: str) -> list[list]:
    """The clue lines marked with ``cls``, as [kind, index] (their place among their strip's)."""
    return page.evaluate("""cls => [...document.querySelectorAll('.rc' + cls + ', .cc' + cls)].map(e =>
      [e.classList.contains('rc') ? 'row' : 'column', [...e.parentNode.children].indexOf(e)])""", cls)


def test_the_clue_of_the_hints_line_and_of_a_contradiction_is_marked(page):
    paste(page, (PUZZLES / "cat15.txt").read_text())
    page.wait_for_selector("#parse-status.ok")
    page.click("#hint")
    page.wait_for_selector("#board-note.hint")
    label = page.inner_text("#board-note").split(" (")[0].lower()  # "row 4" or "column 2"
    kind, index = label.split()
    assert marked_lines(page, ".hl") == [[kind, int(index) - 1]]
    # an impossible puzzle: the line where line solving meets the contradiction, in red
    paste(page, (PUZZLES / "impossible3.txt").read_text())
    page.wait_for_selector("#parse-status.ok")
    choose(page, "lines")
    run = solve_and_wait(page)[0]
    verdict = run.query_selector(".run-verdict").inner_text()
    m = re.search(r"contradicts at (row|column) (\d+)", verdict)
    assert m, verdict
    page.wait_for_selector(".run.selected")
    assert marked_lines(page, ".hl.bad") == [[m.group(1), int(m.group(2)) - 1]]
