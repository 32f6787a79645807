"""Ctrl-C in the middle of one long read: the command line ends within a few seconds, exit 130,
even when the sampler itself cannot be interrupted (OpenJij) or checks only between reads (sa),
and whether the reads run on one thread or several."""
from __future__ import annotations

import subprocess

import pytest

from formulations import backends

from helpers import ROOT, interrupt_cli
CAT = str(ROOT / "puzzles" / "cat15.txt")
INSTALLED = backends.available_backends()

# each a read far longer than the test waits: only an interruption inside the read ends them
# in time. sa's reads are 10 million sweeps (about 20 s here): dwave-samplers builds the whole
# beta schedule first, holding the GIL, and at 100 million sweeps that was an 800 MB array a
# thread, several seconds before Ctrl-C could be heard (a CI run with two threads missed the
# 10 s; the schedule is the sampler's, before any read)
ONE_LONG_READ = {
    "sa": ["--reads", "2", "--sweeps", "10000000"],
    "sa-threads": ["--reads", "2", "--sweeps", "10000000", "--workers", "2"],
    "openjij-sa": ["--reads", "2", "--sweeps", "100000000"],
    "openjij-sqa": ["--reads", "2", "--sweeps", "10000000"],
    "ladder:cell": ["--time-limit", "3600"],  # its default budget is 5 s
}
EXIT_WITHIN_S = 10.0  # it took the whole read before (minutes); a second on an idle machine


@pytest.mark.parametrize("case", [c for c in ONE_LONG_READ
                                  if c.removesuffix("-threads") in INSTALLED
                                  or c.startswith("ladder:")])
def test_ctrl_c_ends_a_long_read_at_once(case):
    backend = case.removesuffix("-threads")
    try:  # interrupted 4 s after its imports: built and sampling
        got = interrupt_cli([CAT, "--backend", backend, *ONE_LONG_READ[case]], after=4.0,
                            timeout=EXIT_WITHIN_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: still running {EXIT_WITHIN_S:g} s after Ctrl-C")
    assert got is not None, "the run ended before it could be interrupted"
    code, record, err = got
    assert record is not None, err
    assert code == 130 and record["status"] == "interrupted", err
    assert "Traceback" not in err
