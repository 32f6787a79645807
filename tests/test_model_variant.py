"""One rule decides the model variant (with or without the cell variables x) a backend gets,
whichever entry point hands it the puzzle: ``solve_puzzle``, the command line, ``compare`` and
``--export-bqm`` (``Backend.model_x``)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import formulations as nf
from formulations.backends import get_backend
from formulations.harness import plan_jobs, resolve_backends, load_puzzles

from helpers import ROOT
HEART = ROOT / "puzzles" / "heart5.txt"

pytest.importorskip("dimod")
pytest.importorskip("ortools")


def test_compare_and_solve_hand_each_backend_the_same_model():
    puzzle = nf.read_puzzle(HEART)
    with_x = nf.build_model(puzzle, use_x=True).model.num_variables
    rows = nf.compare([HEART], "exact,sa,cpsat", workers=1, time_limit=60, progress=False,
                      log=lambda s: None)
    assert [r["backend"] for r in rows] == ["exact", "sa", "cpsat"]
    for row in rows:
        solved = nf.solve_puzzle(puzzle, row["backend"], seed=0, time_limit=60)
        assert solved.status is nf.Status.SOLVED and row["status"] == "solved", row["message"]
        assert (row["use_x"], row["variables"]) == (solved.use_x, solved.variables), row["backend"]
    exact = rows[0]
    # exact enumerates 2^n states: it gets the smaller model (19 variables; 44 with x is refused)
    assert exact["use_x"] is False and exact["variables"] < with_x


def test_a_chosen_variant_overrides_every_backends_own():
    refs = load_puzzles([HEART])
    variants = resolve_backends("exact,sa,cpsat,lines")
    default = plan_jobs(refs, variants, [0], time_limit=1, kill_after=None)
    assert [(j.backend, j.use_x) for j in default] == [
        (b, get_backend(b).model_x() if get_backend(b).uses_model else None)
        for b in ("exact", "sa", "cpsat", "lines")]
    both = plan_jobs(refs, variants, [0], time_limit=1, kill_after=None, use_x=[True, False])
    assert [(j.backend, j.use_x) for j in both] == [
        ("exact", True), ("exact", False), ("sa", True), ("sa", False),
        ("cpsat", True), ("cpsat", False), ("lines", None)]


def test_summary_labels_name_only_a_variant_other_than_the_backends_own():
    from formulations.harness import variant_label

    assert variant_label({"backend": "sa", "options": "{}", "use_x": False}) == "sa"
    assert variant_label({"backend": "sa", "options": "{}", "use_x": True}) == "sa[x]"
    assert variant_label({"backend": "descent", "options": "{}", "use_x": False}) == "descent[no-x]"


@pytest.mark.parametrize("backend", ["sa", "exact", "descent"])
def test_export_bqm_writes_the_model_the_backend_would_solve(tmp_path, backend):
    import dimod

    out = tmp_path / "m.bqm"
    p = subprocess.run([sys.executable, "-m", "formulations.solve", str(HEART), "--backend",
                        backend, "--export-bqm", str(out), "--json"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)
    solved = nf.solve_puzzle(nf.read_puzzle(HEART), backend, seed=0)
    assert (record["use_x"], record["variables"]) == (solved.use_x, solved.variables)
    with open(out, "rb") as f:
        assert dimod.BinaryQuadraticModel.from_file(f).num_variables == solved.variables
