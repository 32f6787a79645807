"""Shared fixtures (shared values and functions are in helpers.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import CORPUS_DIR


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """Path of the shared puzzle corpus; skips the test when it is not there."""
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"puzzle corpus not found at {CORPUS_DIR}")
    return CORPUS_DIR
