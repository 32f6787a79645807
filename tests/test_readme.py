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
