"""The core stays light: solver packages are imported only when a backend runs."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("ortools", "dimod", "dwave", "pyqbpp", "matplotlib", "distributed")


def test_importing_the_package_and_registry_loads_no_solver():
    code = ("import sys, formulations.solve, formulations.solving, formulations.io, "
            "formulations.model, formulations.model.presolve, formulations.compare, backends\n"
            "backends.all_backends()\n"
            f"print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r}])")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_no_module_is_named_after_a_package_it_wraps():
    names = {f.stem for d in ("formulations", "backends") for f in (ROOT / d).glob("*.py")}
    assert not names & {"ortools", "dimod", "dwave", "pyqbpp", "qbpp", "matplotlib", "distributed"}
