"""Downloading from nonograms.org without the network: an unreachable address, a name that does
not resolve and a server that never answers each give one FetchError line (and exit 2 with one
line from the command line); a local server stands in for the site to check the b/w-then-colour
paths, 404s and saving the page."""
from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from formulations.io.fetch import FetchError, fetch_page, fetch_puzzle, fetch_with_goal, parse_source
from formulations.io import read_puzzle
from formulations.testing.nonograms_org import encode_grid, page

from helpers import run_cli as _solve
COLOUR = encode_grid([[1, 2, 0], [0, 2, 2]], ["#ff0000", "#000000"], puzzle_id=4374, seed=1)
BW = encode_grid([[1, 1, 0], [0, 1, 1], [1, 0, 1]], ["#000000"], puzzle_id=4353, seed=2)


@pytest.fixture(scope="module")
def site():
    """A local stand-in: 4353 is black and white, 4374 colour (404 on the b/w path)."""
    pages = {"/nonograms/i/4353": page(BW, "Steps"), "/nonograms2/i/4374": page(COLOUR, "Flag"),
             "/nonograms/i/7": "<html>deleted</html>"}
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            hits.append(self.path)
            body = pages.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write((body or "not found").encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", hits
    server.shutdown()
    server.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_sources_are_parsed():
    assert parse_source("nonograms.org:4353") == ("nonograms.org", 4353,
                                                  ("nonograms", "nonograms2"))
    url = "https://www.nonograms.ru/nonograms2/i/61999"
    assert parse_source(url)[1:] == (61999, ("nonograms2",))
    with pytest.raises(FetchError, match="expected nonograms.org:ID"):
        parse_source("webpbn:12")


def test_black_and_white_and_colour_pages(site, tmp_path):
    base, hits = site
    puzzle, goal = fetch_with_goal("nonograms.org:4353", base_url=base)
    assert puzzle.name == "Steps" and goal == ((1, 1, 0), (0, 1, 1), (1, 0, 1))
    hits.clear()
    saved = tmp_path / "4374.html"
    colour = fetch_puzzle("nonograms.org:4374", base_url=base, save=saved)
    assert hits == ["/nonograms/i/4374", "/nonograms2/i/4374"]  # b/w path first, then colour
    assert not colour.is_black_and_white and colour.palette[1] == (1, "black", "#000000")
    assert read_puzzle(saved) == colour  # the saved page reads the same offline


def test_missing_and_deleted_puzzles(site):
    base, _ = site
    with pytest.raises(FetchError, match=r"no puzzle 99 on nonograms.org \(HTTP 404"):
        fetch_puzzle("nonograms.org:99", base_url=base)
    with pytest.raises(FetchError, match="cannot be read: no puzzle array found"):
        fetch_puzzle("nonograms.org:7", base_url=base)


def _offline_message(exc_info) -> str:
    msg = str(exc_info.value)
    assert "\n" not in msg and msg.startswith("nonograms.org:4353: cannot download ")
    assert "save the page in a browser" in msg
    return msg


def test_unreachable_address():
    with pytest.raises(FetchError) as info:
        fetch_page("nonograms.org:4353", base_url=f"http://127.0.0.1:{_free_port()}", timeout=5)
    assert "connection refused" in _offline_message(info)


def test_name_that_does_not_resolve():
    with pytest.raises(FetchError) as info:  # .invalid never resolves (RFC 2606)
        fetch_page("nonograms.org:4353", base_url="http://no-such-host.invalid", timeout=5)
    assert "no network" in _offline_message(info) or "timed out" in str(info.value)


def test_server_that_never_answers():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the connection, never replies
    try:
        with pytest.raises(FetchError) as info:
            port = listener.getsockname()[1]
            fetch_page("nonograms.org:4353", base_url=f"http://127.0.0.1:{port}", timeout=0.5)
        assert "no answer within 0.5 s" in _offline_message(info)
    finally:
        listener.close()


def test_command_line_offline_is_one_line():
    p = _solve("--from", "nonograms.org:4353",
               env={"NONOGRAM_FETCH_BASE": f"http://127.0.0.1:{_free_port()}"})
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("error: nonograms.org:4353: cannot download ")
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def test_command_line_solves_a_downloaded_puzzle(site):
    base, _ = site
    p = _solve("--from", "nonograms.org:4374", "--backend", "lines", "--json",
               env={"NONOGRAM_FETCH_BASE": base})
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "solved" and out["puzzle"] == "nonograms.org:4374"
    assert out["title"] == "Flag"
    both = _solve("puzzles/heart5.txt", "--from", "nonograms.org:1")
    assert both.returncode == 2 and "not both" in both.stderr
