"""Shared fixtures."""
from __future__ import annotations

from pathlib import Path

import pytest

# The benchmark corpus lives beside the repo (../shared/corpus), never inside it.
CORPUS_DIR = Path(__file__).resolve().parents[2] / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """Path of the shared puzzle corpus; skips the test when it is not there."""
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"puzzle corpus not found at {CORPUS_DIR}")
    return CORPUS_DIR
