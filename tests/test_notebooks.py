"""The notebooks run top to bottom from a fresh kernel (quick parameters), and the committed
copies carry their outputs so a reader sees the pictures without running them."""
from __future__ import annotations

from pathlib import Path

import pytest

NB_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = ["compare_backends.ipynb", "annealing_study.ipynb", "ladder.ipynb",
             "researcher.ipynb", "encodings.ipynb"]

nbformat = pytest.importorskip("nbformat")


def _outputs(nb, kind: str) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
            if o.get("output_type") == kind]


def _images(nb) -> int:
    return sum("image/png" in o.get("data", {}) for o in _outputs(nb, "display_data"))


def _text(nb) -> str:
    return "".join(o.get("text", "") for o in _outputs(nb, "stream"))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_notebook_has_outputs(name):
    nb = nbformat.read(NB_DIR / name, as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert params and "NONOGRAM_NB_QUICK" in params[0].source
    assert not _outputs(nb, "error")
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")
    assert _images(nb) >= 2
    assert "QUICK=False" in _text(nb)  # the committed outputs come from the full parameters


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_executes_from_a_fresh_kernel(name, monkeypatch):
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("NONOGRAM_NB_QUICK", "1")  # read by each notebook's parameters cell
    nb = nbformat.read(NB_DIR / name, as_version=4)
    for cell in nb.cells:
        cell.outputs = [] if cell.cell_type == "code" else cell.get("outputs")
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=240,
                                     resources={"metadata": {"path": str(NB_DIR)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    assert not _outputs(nb, "error")
    assert "QUICK=True" in _text(nb)
    assert _images(nb) >= 2  # the plots were drawn
