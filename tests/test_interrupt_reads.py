"""Ctrl-C in the middle of one long read: the command line ends within a few seconds, exit 130,
even when the sampler itself cannot be interrupted (OpenJij) or checks only between reads (sa),
and whether the reads run on one thread or several."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from formulations import backends

from helpers import ROOT
CAT = str(ROOT / "puzzles" / "cat15.txt")
INSTALLED = backends.available_backends()

# each a read of hours: only an interruption inside the read ends them in time
ONE_LONG_READ = {
    "sa": ["--reads", "2", "--sweeps", "100000000"],
    "sa-threads": ["--reads", "2", "--sweeps", "100000000", "--workers", "2"],
    "openjij-sa": ["--reads", "2", "--sweeps", "100000000"],
    "openjij-sqa": ["--reads", "2", "--sweeps", "10000000"],
    "ladder:cell": ["--time-limit", "3600"],  # its default budget is 5 s
}
EXIT_WITHIN_S = 10.0  # it took the whole read before (minutes); a second on an idle machine


def _default_sigint() -> None:
    # a suite started in the background passes SIGINT on ignored: give the child the default
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("case", [c for c in ONE_LONG_READ
                                  if c.removesuffix("-threads") in INSTALLED
                                  or c.startswith("ladder:")])
def test_ctrl_c_ends_a_long_read_at_once(case):
    backend = case.removesuffix("-threads")
    proc = subprocess.Popen([sys.executable, "-m", "formulations.solve", CAT, "--backend",
                             backend, *ONE_LONG_READ[case], "--json"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)
    try:
        time.sleep(5.0)  # imported, built and sampling
        assert proc.poll() is None, "the run ended before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        try:
            out, err = proc.communicate(timeout=EXIT_WITHIN_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{case}: still running {EXIT_WITHIN_S:g} s after Ctrl-C")
        took = time.monotonic() - sent
    finally:  # never leave a long run behind
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    record = json.loads(out)
    assert proc.returncode == 130 and record["status"] == "interrupted", (took, err)
    assert "Traceback" not in err
