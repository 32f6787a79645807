"""The web solver under hostile use (a real server on an ephemeral port): every over-cap body gets
its 413 JSON whatever the client, every cap holds whatever keys a request carries, memory for
finished work is bounded in bytes, the host check covers every loopback address, idle and
half-sent connections are closed, every worker failure is named, and Ctrl-C / SIGTERM / SIGKILL
leave no worker behind and print no traceback."""
from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

httpx = pytest.importorskip("httpx", reason="the web tests need httpx (the test extra)")
pytest.importorskip("starlette", reason="the web solver needs the web extra")
pytest.importorskip("uvicorn", reason="the web solver needs the web extra")

from helpers import PUZZLES  # noqa: E402
from web_server import Server, impossible_for_samplers, wait_until  # noqa: E402

from formulations import puzzle_from_grid, write_text  # noqa: E402

CAT = (PUZZLES / "cat15.txt").read_text()
CAP_KB = 256
KEEP_MB = 0.02  # about ten finished solves of cat15


def _random_text(n: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    grid = tuple(tuple(int(rng.random() < 0.5) for _ in range(n)) for _ in range(n))
    return write_text(puzzle_from_grid(grid))


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie is gone too
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


@pytest.fixture(scope="module")
def server():
    s = Server("--max-running", "1", "--max-queued", "2", "--max-body-kb", str(CAP_KB),
               "--max-model-mb", "1", "--request-timeout", "1.5", "--keep-finished-mb", str(KEEP_MB))
    yield s
    s.stop()


@pytest.fixture()
def client(server):
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def _over_cap_body() -> bytes:
    return json.dumps({"puzzle": "x" * (3 * CAP_KB * 1024)}).encode()


def _is_413_json(status: int, body: bytes) -> None:
    assert status == 413, body[:200]
    assert "cap of" in json.loads(body)["error"]


def test_an_over_cap_body_gets_413_json_from_urllib_httpx_and_curl(server):
    body = _over_cap_body()
    req = urllib.request.Request(server.url + "/api/solve", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:  # urllib writes it all before reading
        urllib.request.urlopen(req, timeout=30)
    _is_413_json(err.value.code, err.value.read())
    r = httpx.post(server.url + "/api/solve", content=body, timeout=30,
                   headers={"Content-Type": "application/json"})
    _is_413_json(r.status_code, r.content)
    out = subprocess.run(["curl", "-s", "-o", "-", "-w", "\n%{http_code}", "-X", "POST",
                          "-H", "Content-Type: application/json", "--data-binary", "@-",
                          server.url + "/api/solve"], input=body, capture_output=True,
                         timeout=60, check=False)
    if out.returncode == 127 or b"not found" in out.stderr:
        pytest.skip("no curl")
    text, _, code = out.stdout.rpartition(b"\n")
    _is_413_json(int(code), text)


def test_a_chunked_over_cap_body_gets_413_json_not_500(server):
    host, port = server.url.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    body = _over_cap_body()
    chunks = (body[k:k + 8192] for k in range(0, len(body), 8192))
    conn.request("POST", "/api/solve", body=chunks, encode_chunked=True,
                 headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    resp = conn.getresponse()
    _is_413_json(resp.status, resp.read())
    conn.close()

    def gen():
        yield from (body[k:k + 8192] for k in range(0, len(body), 8192))

    r = httpx.post(server.url + "/api/parse", content=gen(), timeout=30,
                   headers={"Content-Type": "application/json"})
    _is_413_json(r.status_code, r.content)
    assert not any("Traceback" in line for line in server.output)


def test_the_model_cap_holds_without_an_options_key(client):
    text = _random_text(40)
    for extra in ({}, {"options": {}}, {"options": None}):
        r = client.post("/api/solve", json={"puzzle": text, "backend": "cpsat",
                                            "time_limit": 20, **extra})
        assert r.status_code == 400, (extra, r.text[:300])
        assert "memory cap" in r.json()["message"], r.json()["message"]


def test_a_lone_surrogate_is_a_named_400_everywhere(client):
    text = CAT.replace("15", "1\ud8005", 1)
    for path in ("/api/solve", "/api/runs", "/api/parse", "/api/hint", "/api/export/bqm",
                 "/api/export/text"):
        r = client.post(path, content=json.dumps({"puzzle": text}),
                        headers={"Content-Type": "application/json"})
        assert r.status_code == 400, (path, r.text[:200])
        assert "lone surrogate" in r.json()["error"], path
    assert client.get("/api/health").json()["ok"]


def _started_pid(client, run_id: str) -> int:
    with client.stream("GET", f"/api/runs/{run_id}/events") as events:
        for line in events.iter_lines():
            if line.startswith("data: "):
                message = json.loads(line[6:])
                if message.get("type") == "started":
                    return message["pid"]
    raise AssertionError("no started event")


def _long_run(client) -> str:
    r = client.post("/api/runs", json={"puzzle": impossible_for_samplers(), "backend": "sa",
                                       "time_limit": 30, "options": {"reads": 100000}})
    assert r.status_code == 202, r.text
    return r.json()["id"]


def test_a_worker_killed_by_a_signal_is_named_and_a_queued_cancel_says_so(client):
    first = _long_run(client)
    queued = _long_run(client)
    assert client.get(f"/api/runs/{queued}").json()["state"] == "queued"
    r = client.delete(f"/api/runs/{queued}")
    assert r.json()["cancelled"] is True and r.json()["ended"] == "cancelled"
    assert client.delete(f"/api/runs/{queued}").json()["cancelled"] is False  # already ended
    pid = _started_pid(client, first)
    os.kill(pid, signal.SIGKILL)
    state = wait_until(lambda: (s := client.get(f"/api/runs/{first}").json())["state"] == "done"
                       and s)
    assert state["ended"] == "crashed"
    assert "signal SIGKILL" in state["record"]["message"], state["record"]["message"]


def test_finished_work_is_bounded_in_bytes(client, server):
    text = _random_text(300)  # about 0.09 MB of clues per request, a large parse answer
    assert len(text) < CAP_KB * 1024
    before = server.rss_mb()
    for _ in range(12):
        r = client.post("/api/parse", json={"puzzle": text})
        assert r.status_code == 200 and r.json()["puzzle"]["height"] == 300
    load = client.get("/api/health").json()
    assert load["tasks"]["kept"] == 0 and load["tasks"]["kept_bytes"] == 0
    for _ in range(25):  # each kept run holds its messages and answer, KEEP_MB in all
        r = client.post("/api/solve", json={"puzzle": CAT, "backend": "lines", "time_limit": 5})
        assert r.status_code == 200 and r.json()["status"] == "solved", r.text[:200]
    load = client.get("/api/health").json()["solves"]
    assert 0 < load["kept_bytes"] <= KEEP_MB * 2**20 and 0 < load["kept"] < 25, load
    grown = server.rss_mb() - before
    print(f"server RSS grew {grown:.1f} MB over 12 parses of 300x300 and 25 solves; {load}")
    assert grown < 150, grown


def test_idle_and_half_sent_connections_are_closed(server):
    host, port = server.url.split("//")[1].split(":")

    def answer(payload: bytes) -> bytes:
        with socket.create_connection((host, int(port)), timeout=30) as s:
            s.sendall(payload)
            got = b""
            while chunk := s.recv(65536):  # until the server closes it
                got += chunk
            return got

    assert answer(b"") .startswith(b"HTTP/1.1 408")                 # idle
    assert answer(b"GET /api/health HTTP/1.1\r\nHo").startswith(b"HTTP/1.1 408")  # half a head
    got = answer(b"POST /api/parse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                 b"application/json\r\nContent-Length: 100\r\n\r\n{\"puz")  # half a body
    assert got.startswith(b"HTTP/1.1 408") and b"did not arrive" in got


def test_the_host_check_holds_on_ipv6_loopback():
    s = Server("--host", "::1")
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            assert c.get("/api/health").status_code == 200  # Host: [::1]:PORT
            r = c.get("/api/health", headers={"Host": "evil.example"})
            assert r.status_code == 400 and "loopback" in r.json()["error"]
            r = c.get("/api/health", headers={"Host": "evil.example:80"})
            assert r.status_code == 400
            assert c.get("/api/health", headers={"Host": "localhost"}).status_code == 200
    finally:
        s.stop()


def _busy_server() -> tuple[Server, list[int], list]:
    """A server with two runs working and a blocking solve waiting, and the runs' worker pids."""
    s = Server("--max-running", "2", "--max-queued", "4")
    c = httpx.Client(base_url=s.url, timeout=60)
    pids = [_started_pid(c, _long_run(c)) for _ in range(2)]
    answers: list = []

    def blocking():
        try:
            answers.append(httpx.post(s.url + "/api/solve", timeout=60, json={
                "puzzle": impossible_for_samplers(), "backend": "sa", "time_limit": 30,
                "options": {"reads": 100000}}))
        except httpx.HTTPError as exc:
            answers.append(exc)

    import threading
    t = threading.Thread(target=blocking, daemon=True)
    t.start()
    wait_until(lambda: c.get("/api/health").json()["solves"]["queued"] == 1)
    c.close()
    return s, pids, answers


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_prints_one_line_answers_the_waiting_and_leaves_no_worker(sig):
    s, pids, answers = _busy_server()
    t0 = time.monotonic()
    os.killpg(s.proc.pid, sig)  # the whole group, as a terminal's Ctrl-C does
    s.proc.wait(30)
    took = time.monotonic() - t0
    s.stop()
    print(f"{sig.name}: stopped in {took:.2f} s")
    out = "".join(s.output)
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 2 and "stopped" in lines[1], out
    assert "Traceback" not in out and "leaked" not in out
    wait_until(lambda: answers)
    assert answers[0].status_code == 503 and "stopping" in answers[0].json()["message"]
    for pid in pids:
        wait_until(lambda pid=pid: _gone(pid), timeout=10)


def test_workers_die_with_a_killed_server():
    s, pids, _ = _busy_server()
    s.proc.kill()
    s.proc.wait(10)
    s.stop()
    for pid in pids:
        wait_until(lambda pid=pid: _gone(pid), timeout=20)
