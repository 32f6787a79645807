"""A web solver started as its own process on an ephemeral port, for the web tests (not a test
module: imported by test_web_*.py)."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUZZLES = ROOT / "puzzles"


class Server:
    """``python -m formulations.serve --port 0`` in a subprocess; ``url`` from its first line."""

    def __init__(self, *args: str):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "formulations.serve", "--port", "0",
                                      *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=env, cwd=ROOT, start_new_session=True)
        line = self.proc.stdout.readline()
        m = re.search(r"http://[\d.]+:\d+/", line)
        if not m:
            self.stop()
            raise RuntimeError(f"the server did not start: {line!r}")
        self.url = m.group(0).rstrip("/")

    def rss_mb(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        if self.proc.stdout:
            self.proc.stdout.close()


def wait_until(predicate, timeout: float = 30.0, step: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("timed out waiting")


def impossible_for_samplers(n: int = 20) -> str:
    """A puzzle no sample can satisfy (rows ask for two separated cells, columns 2 and 3 fill
    the same rows side by side), so a sampler works until it is stopped."""
    half = n // 2
    rows = ["1 1"] * half + ["0"] * (n - half)
    cols = ["0", str(half), str(half)] + ["0"] * (n - 3)
    return "ROWS\n" + "\n".join(rows) + "\nCOLUMNS\n" + "\n".join(cols) + "\n"


def stubborn_worker(conn, job):
    """A worker that ignores every limit (for the runner's kill test): it says where it is,
    starts a child of its own, and sleeps."""
    import subprocess as sp
    os.setsid()
    child = sp.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    conn.send({"type": "started", "pid": os.getpid(), "child": child.pid})
    time.sleep(600)
