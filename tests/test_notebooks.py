"""The notebooks run top to bottom from a fresh kernel (quick parameters), and the committed
copies carry their outputs so a reader sees the pictures without running them."""
from __future__ import annotations


import pytest

from helpers import ROOT
NB_DIR = ROOT / "notebooks"
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


# -- committed outputs that show the code's structure stay the code's ---------------------------
# A cell tagged "registry" prints what the code says about itself (the backends, their default
# models and the defaults their descriptions state): cheap and self-contained given the
# parameters cell. Its committed output must be what it prints now, so that a backend added to
# the registry or a changed default fails here until the notebook is executed again with
# `python notebooks/execute.py notebooks/NAME.ipynb`; the heavy cells are not re-run.

def _tagged(nb, tag: str) -> list:
    return [c for c in nb.cells if c.cell_type == "code" and tag in c.metadata.get("tags", [])]


def _printed(source: str, namespace: dict) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<notebook cell>", "exec"), namespace)
    return out.getvalue()


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_registry_outputs_match_the_code(name, monkeypatch):
    nb = nbformat.read(NB_DIR / name, as_version=4)
    cells = _tagged(nb, "parameters") + _tagged(nb, "registry")
    if name in ("compare_backends.ipynb", "ladder.ipynb"):
        assert len(cells) >= 2, "the notebook shows its backends in a cell tagged 'registry'"
    monkeypatch.setenv("NONOGRAM_NB_QUICK", "0")  # the committed outputs are the full run's
    monkeypatch.chdir(NB_DIR)
    namespace: dict = {}
    for cell in cells:
        committed = "".join(o.get("text", "") for o in cell.get("outputs", [])
                            if o.get("output_type") == "stream" and o.get("name") == "stdout")
        assert _printed(cell.source, namespace) == committed, (
            f"{name}: the committed output of this cell is no longer what the code prints; "
            f"execute the notebook again: python notebooks/execute.py notebooks/{name}\n"
            f"{cell.source}")


def test_the_registry_cell_lists_every_registered_backend():
    from formulations import backends

    nb = nbformat.read(NB_DIR / "compare_backends.ipynb", as_version=4)
    shown = "".join(o.get("text", "") for c in _tagged(nb, "registry") for o in c.outputs)
    listed = [ln.split()[0] for ln in shown.splitlines()[2:] if ln and not ln.startswith("also:")]
    assert listed == backends.names()


def test_the_sa_description_states_the_code_s_default_schedule():
    # the description (shown by --list-backends and the notebooks) quotes sa's sweeps on cat15
    pytest.importorskip("dimod")
    from formulations.backends import get_backend
    from formulations.backends.sampling import auto_sweeps
    from formulations.io import read_puzzle
    from formulations.model import build_model

    cat = read_puzzle(NB_DIR.parent / "puzzles" / "cat15.txt")
    sa = get_backend("sa")
    n = len(build_model(cat, use_x=sa.use_x).model.labels)
    assert f"{auto_sweeps(n)} on cat15" in sa.description
