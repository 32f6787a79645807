"""The web solver's API over HTTP (a real uvicorn on an ephemeral port): the same JSON object as
``formulations.solve --json``, the live stream, cancel, and bad input answered clearly while the
server stays up."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

httpx = pytest.importorskip("httpx", reason="the web tests need httpx (the test extra)")
pytest.importorskip("starlette", reason="the web solver needs the web extra")
pytest.importorskip("uvicorn", reason="the web solver needs the web extra")

from formulations import parse_puzzle, check_grid  # noqa: E402
from formulations.puzzle import grid_from_cells  # noqa: E402
from formulations.show.text import colour_chars  # noqa: E402

from helpers import PUZZLES, ROOT  # noqa: E402
from web_server import Server, impossible_for_samplers  # noqa: E402

CAT = (PUZZLES / "cat15.txt").read_text()


@pytest.fixture(scope="module")
def server():
    s = Server("--max-running", "2", "--max-queued", "4", "--max-time-limit", "30",
               "--max-body-kb", "256")
    yield s
    s.stop()


@pytest.fixture()
def client(server):
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def _grid(record, puzzle):
    chars = {ch: c for c, ch in colour_chars(puzzle).items()}
    return tuple(tuple(chars[ch] for ch in row) for row in record["grid"])


def test_solve_answers_the_command_lines_json_object(client, tmp_path):
    r = client.post("/api/solve", json={"puzzle": CAT, "name": "cat15.txt", "backend": "cpsat",
                                        "time_limit": 20, "options": {"unique": True}})
    assert r.status_code == 200
    got = r.json()
    path = tmp_path / "cat15.txt"
    path.write_text(CAT)
    cli = subprocess.run([sys.executable, "-m", "formulations.solve", "cat15.txt", "--json",
                          "--backend", "cpsat", "--time-limit", "20", "--unique"],
                         capture_output=True, text=True, cwd=tmp_path, check=False)
    expected = json.loads(cli.stdout)
    assert list(got) == list(expected)  # the same keys in the same order
    for key in ("puzzle", "status", "grid", "unique", "exit_code", "variables", "constraints"):
        assert got[key] == expected[key], key
    assert got["status"] == "solved" and got["unique"] is True
    puzzle = parse_puzzle(CAT)
    assert check_grid(puzzle, _grid(got, puzzle)) == []


def test_two_solutions_and_impossible(client):
    two = (PUZZLES / "two_solutions4.txt").read_text()
    r = client.post("/api/solve", json={"puzzle": two, "backend": "cpsat",
                                        "options": {"unique": True}}).json()
    puzzle = parse_puzzle(two)
    assert r["status"] == "solved" and r["unique"] is False
    first = grid_from_cells(r["grid"])
    second = grid_from_cells(r["second_grid"])
    assert first != second and check_grid(puzzle, first) == [] == check_grid(puzzle, second)
    bad = (PUZZLES / "impossible3.txt").read_text()
    r = client.post("/api/solve", json={"puzzle": bad, "backend": "lines"})
    assert r.status_code == 200 and r.json()["status"] == "infeasible"


def test_colour_puzzle_and_an_upload_by_name(client):
    flag = (PUZZLES / "flag_colour6.txt").read_text()
    r = client.post("/api/solve", json={"puzzle": flag, "backend": "cpsat"}).json()
    puzzle = parse_puzzle(flag)
    assert r["status"] == "solved" and r["title"] == "Colour flag"
    assert check_grid(puzzle, _grid(r, puzzle)) == []
    non = "width 2\nheight 2\n\nrows\n2\n1\n\ncolumns\n2\n1\n"
    r = client.post("/api/solve", json={"puzzle": non, "name": "tiny.non", "backend": "lines"})
    assert r.json()["status"] == "solved" and r.json()["puzzle"] == "tiny.non"


def test_live_stream_of_the_line_solver_and_an_annealer(client):
    r = client.post("/api/runs", json={"puzzle": CAT, "backend": "lines", "time_limit": 10})
    assert r.status_code == 202
    events = _events(client, r.json()["events"])
    kinds = [e["type"] for e in events]
    assert kinds[0] == "started" and kinds[-1] == "result" and "replay" in kinds
    steps = [x for e in events if e["type"] == "replay" for x in e["events"]]
    cells = {(i, j): c for s in steps if s["e"] == "step" for i, j, c in s["cells"]}
    final = events[-1]["record"]
    assert final["status"] == "solved"
    assert all(final["grid"][i][j] == (".#"[c]) for (i, j), c in cells.items() if not any(
        s["e"] == "guess" for s in steps))
    r = client.post("/api/runs", json={"puzzle": CAT, "backend": "sa", "time_limit": 10})
    events = _events(client, r.json()["events"])
    batches = [e for e in events if e["type"] == "batch"]
    assert batches and events[-1]["record"]["status"] in ("solved", "unknown")
    if events[-1]["record"]["status"] == "solved":
        assert batches[-1]["best_energy"] == 0 and batches[-1]["broken"] == 0


def _events(client, path):
    out = []
    with client.stream("GET", path) as s:
        for line in s.iter_lines():
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))
    return out


def test_cancel_kills_a_long_run(client):
    r = client.post("/api/runs", json={"puzzle": impossible_for_samplers(), "backend": "sa",
                                       "time_limit": 25, "options": {"reads": 100000}})
    run = r.json()["id"]
    with client.stream("GET", r.json()["events"]) as s:
        for line in s.iter_lines():
            if line.startswith("data: ") and json.loads(line[6:])["type"] == "started":
                break
    assert client.delete(f"/api/runs/{run}").json()["cancelled"] is True
    state = client.get(f"/api/runs/{run}").json()
    for _ in range(200):
        if state["state"] == "done":
            break
        time.sleep(0.05)
        state = client.get(f"/api/runs/{run}").json()
    assert state["ended"] == "cancelled" and state["record"]["status"] == "interrupted"


def test_hint_names_the_line_and_its_cells(client):
    r = client.post("/api/hint", json={"puzzle": CAT}).json()["hint"]
    puzzle = parse_puzzle(CAT)
    assert r["kind"] in ("row", "column") and r["cells"]
    # every hinted cell agrees with the (unique) solution
    solved = client.post("/api/solve", json={"puzzle": CAT, "backend": "lines"}).json()
    grid = _grid(solved, puzzle)
    assert all(grid[i][j] == c for i, j, c in r["cells"])
    known = [[-1] * 15 for _ in range(15)]
    known[0][0] = 1  # row 1 is empty: a black cell there contradicts
    r = client.post("/api/hint", json={"puzzle": CAT, "known": known}).json()
    assert r["contradiction"]["label"] in ("row 1", "column 1")


def test_exports(client):
    r = client.post("/api/export/text", json={"puzzle": CAT})
    assert r.status_code == 200 and parse_puzzle(r.text) == parse_puzzle(CAT)
    r = client.post("/api/export/non", json={"puzzle": CAT})
    assert parse_puzzle(r.text, "non").rows == parse_puzzle(CAT).rows
    pytest.importorskip("dimod")
    import dimod
    r = client.post("/api/export/bqm", json={"puzzle": CAT})
    assert r.status_code == 200
    bqm = dimod.BinaryQuadraticModel.from_file(r.content)
    assert bqm.num_variables > 0
    r = client.post("/api/export/cqm", json={"puzzle": CAT})
    assert r.status_code == 200
    assert len(dimod.ConstrainedQuadraticModel.from_file(r.content).constraints) > 0


@pytest.mark.parametrize("body, status, fragment", [
    (b"not json", 400, "not JSON"),
    (b"\xff\xfe\x00binary", 400, "not UTF-8"),
    (json.dumps({"puzzle": "ROWS\n1\nx\nCOLUMNS\n1\n1\n", "name": "bad.txt"}).encode(), 400,
     "bad.txt:3: non-numeric token 'x'"),
    (json.dumps({"puzzle": "1\x00\x01\x02"}).encode(), 400, "binary"),
    (json.dumps({"puzzle": CAT, "time_limit": 1e9}).encode(), 400, "cap of 30 s"),
    (json.dumps({"puzzle": CAT, "time_limit": -1}).encode(), 400, "time_limit"),
    (json.dumps({"puzzle": CAT, "backend": "nope"}).encode(), 400, "unknown backend 'nope'"),
    (json.dumps({"puzzle": CAT, "options": {"workers": 500}}).encode(), 400, "workers"),
    (json.dumps({"puzzle": CAT, "options": {"params": {"num_workers": 64}}}).encode(), 400,
     "threads"),
    (json.dumps({"puzzle": CAT, "options": {"frobnicate": 1}}).encode(), 400, "unknown option"),
    (json.dumps({"puzzle": CAT, "name": "../../etc/passwd"}).encode(), 200, ""),
    (json.dumps([1, 2]).encode(), 400, "JSON object"),
    (json.dumps({"puzzle": "x" * 300_000}).encode(), 413, "cap"),
    (b"[" * 100_000 + b"]" * 100_000, 400, "nested too deeply"),
    (json.dumps({"puzzle": "ROWS\n" + "1 1\n" * 5000 + "COLUMNS\n1\n"}).encode(), 400,
     "needs 3 cells but the row has 1"),
])
def test_bad_input_gets_a_clear_answer_and_the_server_stays_up(client, server, body, status,
                                                               fragment):
    r = client.post("/api/solve", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status, r.text
    data = r.json()
    text = data.get("error") or data.get("message") or ""
    assert fragment in text
    if status == 200:  # a path is only ever a bare file name in a private folder
        assert data["puzzle"] == "passwd" and data["status"] == "solved"
    assert client.get("/api/health").json()["ok"] and server.alive()


def test_only_json_bodies_and_local_host_names(client, server):
    r = client.post("/api/solve", content=json.dumps({"puzzle": CAT}),
                    headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and "application/json" in r.json()["error"]
    r = client.get("/api/health", headers={"Host": "attacker.example"})
    assert r.status_code == 400
    assert client.get("/api/health", headers={"Host": "localhost"}).status_code == 200


def test_a_large_random_puzzle_is_bounded_by_its_time_limit(client, server):
    import random
    rng = random.Random(7)
    grid = tuple(tuple(int(rng.random() < 0.5) for _ in range(120)) for _ in range(120))
    from formulations import puzzle_from_grid, write_text
    text = write_text(puzzle_from_grid(grid))
    r = client.post("/api/solve", json={"puzzle": text, "backend": "lines", "time_limit": 2})
    assert r.status_code == 200 and r.json()["status"] in ("solved", "unknown", "timeout")
    if r.json()["status"] == "solved":
        assert check_grid(puzzle_from_grid(grid), grid_from_cells(r.json()["grid"])) == []
    assert client.get("/api/health").json()["ok"] and server.alive()


def test_parse_errors_name_the_line_and_the_page_is_served(client):
    r = client.post("/api/parse", json={"puzzle": "TITLE <script>alert(1)</script>\nROWS\n1\n"
                                        "COLUMNS\n1\n", "name": "t.txt"})
    assert r.status_code == 200 and r.json()["puzzle"]["title"] == "<script>alert(1)</script>"
    r = client.post("/api/parse", json={"puzzle": "ROWS\n1 1\n2 z\nCOLUMNS\n1\n", "name": "p.txt"})
    assert r.status_code == 400 and r.json()["line"] == 3 and "p.txt:3:" in r.json()["error"]
    page = client.get("/")
    assert page.status_code == 200
    assert "script-src 'self'" in page.headers["content-security-policy"]
    for asset in ("/static/app.js", "/static/app.css"):
        assert client.get(asset).status_code == 200
    assert "cdn" not in page.text.lower()
    assert "http://" not in page.text and "https://" not in page.text
    examples = client.get("/api/examples").json()["examples"]
    assert examples["cat15.txt"] == CAT  # the page's example is the repository's puzzle


def test_it_binds_loopback_unless_told(server):
    assert server.url.startswith("http://127.0.0.1:")


def test_the_package_data_is_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"formulations.serve" = ["static/*.html", "static/*.css", "static/*.js", ' \
           '"static/examples/*.txt"]' in text
    assert 'nonogram-serve = "formulations.serve.cli:main"' in text


def test_the_page_reads_the_format_registry(client):
    from formulations.io.formats import extensions

    got = client.get("/api/examples").json()
    assert {e for f in got["formats"] for e in f["extensions"]} == set(extensions())
