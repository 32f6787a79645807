"""Re-execute notebooks in place with their full parameters, so that the committed outputs are
the code's of today: ``python notebooks/execute.py notebooks/compare_backends.ipynb ...``.

Each notebook runs top to bottom in a fresh kernel from ``notebooks/`` (as the test suite runs
it, but with ``NONOGRAM_NB_QUICK=0``), and is written back only when every cell ran; the
figures land in ``notebooks/figures/``. ``tests/test_notebooks.py`` fails when the output of a
cell tagged ``registry`` no longer matches what the code gives: this is the command it names.
Run it on an otherwise idle machine where the notebook shows timings (``nice`` is fine).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

NB_DIR = Path(__file__).resolve().parent


def execute(path: Path, timeout: float) -> float:
    """Runs ``path`` in place; returns its wall time in seconds."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    os.environ["NONOGRAM_NB_QUICK"] = "0"  # the kernel inherits it: the full parameters
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=timeout,
                            resources={"metadata": {"path": str(NB_DIR)}}).execute()
    nbformat.write(nb, path)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("notebooks", nargs="+", type=Path, help="notebook files (.ipynb)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per cell (default 3600)")
    args = p.parse_args(argv)
    for path in args.notebooks:
        if path.suffix != ".ipynb" or not path.is_file():
            print(f"error: {path}: not a notebook file", file=sys.stderr)
            return 2
    for path in args.notebooks:
        print(f"{path}: executed in {execute(path, args.timeout):.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
