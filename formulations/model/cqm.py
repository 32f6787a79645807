"""The model as a dimod ``ConstrainedQuadraticModel``: for constrained and hybrid solvers, which
take the constraints as constraints instead of penalties.

Every variable becomes a BINARY variable with the model's label; every constraint becomes a
labelled linear constraint (``sum coef * var  <=|==|>=  rhs``) with the model's label, so the
CQM's ``violations()`` names the same constraints as :meth:`Model.violations
<formulations.model.linear.Model.violations>`. The objective is empty: a nonogram is a
feasibility problem, and a feasible sample is a solution.

``export_cqm(nm, PATH)`` writes dimod's CQM file format (``cqm.to_file()``), and nothing else;
load it back with ``dimod.ConstrainedQuadraticModel.from_file(open(PATH, "rb"))``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .linear import Model


def _model_of(obj: Any) -> Model:
    return obj.model if isinstance(getattr(obj, "model", None), Model) else obj


def to_cqm(model_or_nm: Any):
    """The model's constraints as a ``dimod.ConstrainedQuadraticModel`` (labels kept)."""
    try:
        import dimod
    except ImportError:
        from ..results import BackendError
        raise BackendError('a CQM needs dimod, which is not installed: '
                           'pip install -e ".[anneal]"') from None
    model = _model_of(model_or_nm)
    labels = model.labels
    cqm = dimod.ConstrainedQuadraticModel()
    cqm.add_variables(dimod.BINARY, labels)
    add = cqm.add_constraint_from_iterable
    for c in model.constraints:
        add([(labels[v], a) for v, a in c.terms], c.sense.value, rhs=c.rhs, label=c.label)
    return cqm


def export_cqm(model_or_nm: Any, path: str | Path) -> str:
    """Write the CQM to ``path`` in dimod's CQM file format; returns the path."""
    cqm = to_cqm(model_or_nm)
    path = Path(path)
    with cqm.to_file() as f:
        f.seek(0)
        path.write_bytes(f.read())
    return str(path)
