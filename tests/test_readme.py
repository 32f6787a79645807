"""The README's commands and its Python API example stay true."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _block_after(heading: str, lang: str) -> str:
    section = README.split(heading, 1)[1]
    return re.search(rf"```{lang}\n(.*?)```", section, re.S).group(1)


def test_python_api_example_runs_and_solves_cat15():
    pytest.importorskip("dwave.samplers")
    code = _block_after("## Python API", "python")
    assert len(code.strip().splitlines()) <= 10
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    rows = p.stdout.splitlines()
    assert len(rows) == 15 and rows[4] == ".#############."


def test_ci_runs_the_readmes_install_and_test_command():
    test_command = _block_after("Install everything and run the tests", "bash").strip()
    assert test_command in (ROOT / ".ci" / "run").read_text()
    assert "python -m formulations.solve puzzles/cat15.txt" in _block_after("## Try it", "bash")


# -- "From a notebook": every block runs and says what the README says -------------------------

SECTION = README.split("## From a notebook", 1)[1].split("\n## ", 1)[0]
BLOCKS = {
    "Any sampler object": (("dwave.samplers",),
                           ["sampler:SimulatedAnnealingSampler solved 200 True",
                            "('sampler:SimulatedAnnealingSampler', 'solved'), ('sa', 'solved')"]),
    "The model as a CQM": (("dimod",), []),
    "The solving replayed": (("PIL",), ["solved 51 line updates, 2 guesses, 1 backtrack"]),
    "nonograms.org puzzles": ((), ["5 5 ['white', 'black', 'yellow', 'goldenrod']",
                                   "nonograms.org:4374: cannot download "]),
    "Results as data": (("pandas", "dwave.samplers"), ["tts99_low_s", "median_tts99_s"]),
}


@pytest.mark.parametrize("title", list(BLOCKS))
def test_notebook_section_blocks_run(title, tmp_path):
    import os
    import socket

    needs, expected = BLOCKS[title]
    for module in needs:
        pytest.importorskip(module)
    part = SECTION.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0]
    code = re.search(r"```python\n(.*?)```", part, re.S).group(1).replace("/tmp/", f"{tmp_path}/")
    with socket.socket() as s:  # a port nothing listens on: the download fails as offline
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "NONOGRAM_FETCH_BASE": f"http://127.0.0.1:{port}"}
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    for text in expected:
        assert text in p.stdout, p.stdout
