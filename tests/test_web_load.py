"""The web solver under load on loopback: 50 solves from 10 clients, sent all at once (a burst:
5 each in parallel) or one after another per client (steady: 10 in flight), each answered 200
or 429 (never lost, never a 5xx), every 200 a verified solution, the server's memory steady
over the rounds."""
from __future__ import annotations

import asyncio
import time

import pytest

httpx = pytest.importorskip("httpx", reason="the web tests need httpx (the test extra)")
pytest.importorskip("starlette", reason="the web solver needs the web extra")
pytest.importorskip("uvicorn", reason="the web solver needs the web extra")

from formulations import check_grid, parse_puzzle  # noqa: E402
from formulations.puzzle import grid_from_cells  # noqa: E402

from helpers import PUZZLES  # noqa: E402
from web_server import Server  # noqa: E402

CLIENTS, PER_CLIENT = 10, 5
ROUNDS = ("burst", "steady", "burst", "steady")


async def _client(url: str, texts: list[str], out: list, mode: str):
    async def one(c, text):
        t0 = time.perf_counter()
        r = await c.post("/api/solve", json={"puzzle": text, "backend": "lines",
                                             "time_limit": 10})
        out.append((r.status_code, r.json(), text, time.perf_counter() - t0))

    limits = httpx.Limits(max_connections=PER_CLIENT)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as c:
        if mode == "burst":
            await asyncio.gather(*(one(c, texts[k % len(texts)]) for k in range(PER_CLIENT)))
        else:
            for k in range(PER_CLIENT):
                await one(c, texts[k % len(texts)])


async def _round(url: str, texts: list[str], mode: str) -> list:
    out: list = []
    await asyncio.gather(*(_client(url, texts, out, mode) for _ in range(CLIENTS)))
    return out


def test_fifty_concurrent_solves_all_answered_memory_steady():
    texts = [(PUZZLES / n).read_text() for n in ("cat15.txt", "heart5.txt", "house10.txt",
                                                  "boat10.txt")]
    server = Server("--max-running", "2", "--max-queued", "6")
    try:
        rss, figures = [], []
        for mode in ROUNDS:
            t0 = time.perf_counter()
            out = asyncio.run(_round(server.url, texts, mode))
            wall = time.perf_counter() - t0
            assert len(out) == CLIENTS * PER_CLIENT  # none lost
            codes = [c for c, *_ in out]
            assert set(codes) <= {200, 429}, codes
            for code, body, text, _ in out:
                if code == 200:
                    assert body["status"] == "solved"
                    assert check_grid(parse_puzzle(text), grid_from_cells(body["grid"])) == []
                else:
                    assert "busy" in body["error"]
            assert codes.count(200) >= 8  # the slots and the queue were filled, not only refused
            rss.append(server.rss_mb())
            slowest = max(t for *_, t in out)
            figures.append((mode, codes.count(200), codes.count(429), round(wall, 2),
                            round(slowest, 2), round(rss[-1], 1)))
        print("\nload (mode, 200s, 429s, wall s, slowest answer s, server RSS MB) per round:",
              figures)
        assert server.alive()
        assert rss[-1] - rss[0] < 15, rss  # steady: no growth per round worth the name
    finally:
        server.stop()
