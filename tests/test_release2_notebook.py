"""notebooks/release2.ipynb reads release 2's committed snapshot (summary.json, manifest,
calibration): committed with its outputs, runs from a fresh kernel, and says what to run when
the summary is missing."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import ROOT

NB = ROOT / "notebooks" / "release2.ipynb"
SUMMARY = ROOT / "bench" / "results" / "release2" / "summary.json"
nbformat = pytest.importorskip("nbformat")


def _outputs(nb, kind: str) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
            if o.get("output_type") == kind]


def _run(nb_dir: Path, monkeypatch):
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("NONOGRAM_NB_QUICK", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    nb = nbformat.read(nb_dir / "release2.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=240,
                            resources={"metadata": {"path": str(nb_dir)}}).execute()
    return nb


def test_committed_notebook_has_outputs_from_the_snapshot():
    nb = nbformat.read(NB, as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert params and "NONOGRAM_NB_QUICK" in params[0].source
    assert not _outputs(nb, "error")
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")
    assert sum("image/png" in o.get("data", {}) for o in _outputs(nb, "display_data")) >= 2
    text = "".join(o.get("text", "") for o in _outputs(nb, "stream"))
    assert "QUICK=False" in text and "spin updates" in text


@pytest.mark.slow
def test_the_notebook_executes_from_a_fresh_kernel(monkeypatch):
    if not SUMMARY.is_file():
        pytest.skip("no release 2 summary in this checkout")
    nb = _run(NB.parent, monkeypatch)
    text = "".join(o.get("text", "") for o in _outputs(nb, "stream"))
    assert "QUICK=True" in text
    import json
    s = json.loads(SUMMARY.read_text())
    for name, d in s["samplers"].items():   # every sampler and size of the snapshot is shown
        for z in d["sizes"]:
            assert f"{name:<10} " in text and z in text


@pytest.mark.slow
def test_without_the_summary_it_says_what_to_run(tmp_path, monkeypatch):
    nbclient = pytest.importorskip("nbclient")
    (tmp_path / "pyproject.toml").write_text("")          # a checkout without the release
    (tmp_path / "notebooks").mkdir()
    shutil.copy(NB, tmp_path / "notebooks" / "release2.ipynb")
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="bench/release.py summary"):
        _run(tmp_path / "notebooks", monkeypatch)
