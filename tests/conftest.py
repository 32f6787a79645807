"""Shared fixtures."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

# The benchmark corpus lives beside the repo (../shared/corpus), never inside it;
# NONOGRAM_CORPUS names another place (a worktree one level deeper, say).
CORPUS_DIR = Path(os.environ.get("NONOGRAM_CORPUS")
                  or Path(__file__).resolve().parents[2] / "shared" / "corpus")


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """Path of the shared puzzle corpus; skips the test when it is not there."""
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"puzzle corpus not found at {CORPUS_DIR}")
    return CORPUS_DIR


def assert_rejected(path: Path, line: int | None, fragment: str) -> None:
    """Reading ``path`` fails with one PuzzleError line naming the file, the line and the problem."""
    from formulations.puzzle import PuzzleError
    from formulations.io import read_puzzle

    with pytest.raises(PuzzleError) as info:
        read_puzzle(path)
    msg = str(info.value)
    assert "\n" not in msg
    prefix = f"{path}:{line}: " if line is not None else f"{path}: "
    assert msg.startswith(prefix), msg
    assert fragment in msg, msg


def load_bench(name: str, alias: str | None = None):
    """A script of ``bench/`` as a module (registered in sys.modules first: its dataclasses look
    their module up), loaded once per process."""
    import importlib.util
    import sys
    alias = alias or name
    if alias not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "bench" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(alias, path)
        sys.modules[alias] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[alias])
    return sys.modules[alias]
