"""Presolve: fix in the model whatever line solving decides, for every backend alike.

The fixed point of :mod:`formulations.lines.engine` gives each cell a domain and each block of
each line the set of start positions some valid placement uses. Those fix

* ``x[i,j,c]`` to 1 when cell (i, j) is known to be ``c``, to 0 when ``c`` is ruled out, and
* ``a[k,p]`` (block ``k`` started by ``e_k + p``) to 1 when every possible start is at or before
  ``e_k + p`` and to 0 when every possible start is after it; in the one-hot encoding
  ``s[k,t]`` (block ``k`` starts at ``e_k + t``) to 0 when that start is ruled out and to 1 when
  it is the only one left (each line's encoding says which: ``decided(starts)``).

Both are sound: every solution agrees with the fixed point, so no solution is lost. The reduced
model keeps the free variables (same labels, original order) and every constraint with the fixed
values substituted; a constraint left without variables is dropped when it holds and kept when it
fails, so infeasibility stays visible. :class:`Presolved` duck-types ``NonogramModel`` (``model``,
``puzzle``, ``use_x``, ``encoding``, ``cell_vars``, ``decode``, ``encode``, ``blocking_variables``,
``a_variables``, ``x_variables``), so every backend runs on it unchanged and the common
``verify()`` checks the full grid rebuilt from the fixed part plus the backend's answer.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..lines.engine import FixedPoint, fixed_point
from ..lines.settle import line_starts
from ..puzzle import Grid
from ..results import PresolveStats, Status
from .linear import LinExpr, Model, Sense
from .order import NonogramModel


@dataclass(frozen=True, eq=False)
class Presolved:
    """A model with the line-solving consequences substituted in (see the module docstring)."""
    original: NonogramModel
    fixed: FixedPoint
    model: Model                    # free variables only, original labels
    free: tuple[int, ...]           # original index of each reduced variable
    values: np.ndarray              # original-length vector: fixed values (free slots 0)
    cell_vars: dict = field(default_factory=dict)  # (i, j) -> {colour: reduced index}, free x only

    # -- NonogramModel look-alike -------------------------------------------------------------
    @property
    def puzzle(self):
        return self.original.puzzle

    @property
    def use_x(self) -> bool:
        return self.original.use_x

    @property
    def status(self) -> Status:
        return self.fixed.status

    @property
    def solved(self) -> bool:
        return self.fixed.status is Status.SOLVED

    @property
    def infeasible(self) -> bool:
        return self.fixed.status is Status.INFEASIBLE

    @property
    def grid(self) -> Grid | None:
        return self.fixed.grid

    @property
    def variables_before(self) -> int:
        return self.original.model.num_variables

    @property
    def variables_after(self) -> int:
        return self.model.num_variables

    @property
    def a_variables(self) -> int:
        """The free line variables (every variable that is not a cell's x)."""
        return sum(1 for v in self.free if self.original.model.labels[v][0] != "x")

    @property
    def encoding(self) -> str:
        return self.original.encoding

    @property
    def x_variables(self) -> int:
        return sum(len(c) for c in self.cell_vars.values())

    def expand(self, assignment: Any) -> np.ndarray:
        """The original model's assignment: fixed values plus the reduced ``assignment``."""
        full = self.values.copy()
        full[list(self.free)] = self.model.as_array(assignment)
        return full

    def decode(self, assignment: Any) -> Grid:
        return self.original.decode(self.expand(assignment))

    def encode(self, grid: Grid) -> np.ndarray:
        return self.original.encode(grid)[list(self.free)].astype(np.int8)

    def blocking_variables(self) -> list[int]:
        """Free variables that determine the grid (the fixed ones are equal in every solution)."""
        back = {v: r for r, v in enumerate(self.free)}
        return [back[v] for v in self.original.blocking_variables() if v in back]

    def stats(self, seconds: float) -> PresolveStats:
        """The figures a result reports, with the time presolve took."""
        return PresolveStats(self.variables_before, self.variables_after, self.status,
                             self.fixed.unknown, seconds)


def fixed_values(nm: NonogramModel, fp: FixedPoint) -> dict[int, int]:
    """Variable index -> value for every variable the fixed point's domains decide."""
    out: dict[int, int] = {}
    doms = fp.domains
    h = nm.puzzle.height
    for line in nm.rows + nm.cols:
        cells = (doms[line.index] if line.kind == "row"
                 else tuple(doms[i][line.index] for i in range(h)))
        starts = line_starts(line.clue, cells)
        if starts is None:  # cannot happen after a consistent fixed point
            raise ValueError(f"{line.kind} {line.index}: no placement left after the fixed point")
        out.update(line.decided(starts))
    for (i, j), cv in nm.cell_vars.items():
        d = doms[i][j]
        for c, v in cv.items():
            if not d >> c & 1:
                out[v] = 0
            elif d == 1 << c:
                out[v] = 1
    return out


def _always_holds(coefs: dict[int, int], sense: Sense, rhs: int) -> bool:
    """Whether ``sum coefs * x (sense) rhs`` holds for every 0/1 ``x``."""
    lo = sum(a for a in coefs.values() if a < 0)
    hi = sum(a for a in coefs.values() if a > 0)
    if sense is Sense.LE:
        return hi <= rhs
    if sense is Sense.GE:
        return lo >= rhs
    return False


def _contradiction_model() -> Model:
    m = Model()
    m.add_constraint("presolve", ("presolve", "contradiction"), LinExpr(), "==", 1)
    return m


def presolve(nm: NonogramModel) -> Presolved:
    """Line-solve ``nm.puzzle`` and return the model reduced by what the fixed point decides."""
    fp = fixed_point(nm.puzzle)
    n = nm.model.num_variables
    values = np.zeros(n, dtype=np.int8)
    if fp.status is Status.INFEASIBLE:
        return Presolved(nm, fp, _contradiction_model(), (), values, {})
    fixed = fixed_values(nm, fp)
    for v, val in fixed.items():
        values[v] = val
    free = tuple(v for v in range(n) if v not in fixed)
    back = {v: r for r, v in enumerate(free)}
    model = Model()
    for v in free:
        model.add_var(nm.model.labels[v])
    for c in nm.model.constraints:
        coefs: dict[int, int] = {}
        const = 0
        for v, a in c.terms:
            if v in back:
                coefs[back[v]] = coefs.get(back[v], 0) + a
            else:
                const += a * int(values[v])
        coefs = {k: a for k, a in coefs.items() if a}
        if coefs and _always_holds(coefs, c.sense, c.rhs - const):
            continue  # e.g. a <= 1 after substituting a fixed 1: true for every 0/1 value
        model.add_constraint(c.family, c.label, LinExpr(coefs, const), c.sense, c.rhs)
    cell_vars = {}
    for cell, cv in nm.cell_vars.items():
        kept = {c: back[v] for c, v in cv.items() if v in back}
        if kept:
            cell_vars[cell] = kept
    return Presolved(nm, fp, model, free, values, cell_vars)
