"""A web solver started as its own process on an ephemeral port, for the web tests (not a test
module: imported by test_web_*.py)."""
from __future__ import annotations

import collections
import os
import re
import signal
import subprocess
import sys
import threading
import time

from helpers import ROOT


class Server:
    """``python -m formulations.serve --port 0`` in a subprocess; ``url`` from its first line.
    A thread reads its output from then on (kept, the last lines, in ``output``), so that a
    server that writes much never blocks on a full pipe, and a server that never says where it
    listens fails the test after START_TIMEOUT_S instead of hanging it."""

    START_TIMEOUT_S = 60.0

    def __init__(self, *args: str):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "formulations.serve", "--port", "0",
                                      *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=env, cwd=ROOT, start_new_session=True)
        self.output: collections.deque[str] = collections.deque(maxlen=200)
        first = threading.Event()

        def drain() -> None:
            for line in self.proc.stdout:
                self.output.append(line)
                first.set()
            first.set()  # the server ended

        self._drain = threading.Thread(target=drain, daemon=True, name="server-output")
        self._drain.start()
        first.wait(self.START_TIMEOUT_S)
        line = self.output[0] if self.output else ""
        m = re.search(r"http://(?:[\d.]+|\[[0-9a-fA-F:]+\]):\d+/", line)
        if not m:
            self.stop()
            raise RuntimeError(f"the server did not start within {self.START_TIMEOUT_S:g} s: "
                               f"{''.join(self.output)!r}")
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
        self._drain.join(5)  # the output's end follows the process's
        if not self._drain.is_alive() and self.proc.stdout:
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
