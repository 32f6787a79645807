"""The benchmark release's command (docs/benchmark.md); the library is
:mod:`formulations.harness.release` (planner, summary, tables) and
:mod:`formulations.harness.protocol` (release 2: count-decided records, sessions, calibration,
spin updates, any sampler).

    python bench/release.py --help
"""
from __future__ import annotations

import sys

from formulations.harness.release import main

if __name__ == "__main__":
    sys.exit(main())
