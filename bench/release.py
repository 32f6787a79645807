"""The benchmark release's command (docs/benchmark.md); the library is
:mod:`formulations.harness.release` (planner, summary, tables) and
:mod:`formulations.harness.protocol` (release 2: count-decided records, sessions, calibration,
spin updates, any sampler).

    python bench/release.py --help
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from formulations.harness import release as _lib  # noqa: E402
from formulations.harness.release import *  # noqa: E402,F401,F403  (scripts and tests use these)


def __getattr__(name: str):
    """Everything else of the library (private helpers too), as when the script held it."""
    return getattr(_lib, name)


if __name__ == "__main__":
    sys.exit(_lib.main())
