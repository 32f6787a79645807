"""The linter and the type checker that ``.ci/run`` runs, run from the suite as well, so that a
developer sees a new finding before CI does. The rules are pyproject.toml's ``[tool.ruff.lint]``
(E4, E7, E9, F, W, B, UP) and ``[tool.mypy]`` (default strictness plus ``check_untyped_defs``,
``warn_unused_ignores``, ``warn_redundant_casts``); both must report nothing.
Each test skips when its tool is not installed (the ``test`` extra pins both)."""
from __future__ import annotations

import hashlib
import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from helpers import ROOT


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed: pip install -e \".[test]\"")


def test_ruff_finds_nothing():
    _require("ruff")
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                        "--output-format", "concise", "."],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


def test_ruff_rules_are_on():
    """The configuration is live: a bugbear and a pyupgrade finding are reported."""
    _require("ruff")
    bad = "from typing import List\n\n\ndef f(x: List[int] = []) -> None:\n    pass\n"
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format",
                        "concise", "--stdin-filename", "formulations/probe.py", "-"],
                       cwd=ROOT, input=bad, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1
    assert "B006" in p.stdout and "UP035" in p.stdout, p.stdout


@pytest.mark.slow
def test_mypy_finds_nothing_in_the_package():
    _require("mypy")
    # a cache that outlives the run (mypy is incremental: a second run takes seconds, not a
    # minute), under the temp directory and one per checkout, never inside the repository
    key = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / f"nonogram-formulations-mypy-{key}"
    p = subprocess.run([sys.executable, "-m", "mypy", "formulations", "--cache-dir", str(cache)],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    # every module of the package was checked (none skipped by an exclude or a bad path)
    checked = re.search(r"no issues found in (\d+) source files", p.stdout)
    assert checked, p.stdout
    assert int(checked.group(1)) == len(list((ROOT / "formulations").rglob("*.py")))
