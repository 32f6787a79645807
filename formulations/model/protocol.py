"""What a backend and ``verify()`` read from a built model, as one typed seam: the order
encoding's :class:`~formulations.model.order.NonogramModel`, the other encodings' models and the
presolved ones (:class:`~formulations.model.presolve.Presolved`, ``ReducedModel``) all are a
:class:`SolvableModel`, so every backend runs on any of them unchanged."""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ..puzzle import Grid, Puzzle
from .linear import Model


@runtime_checkable
class SolvableModel(Protocol):
    """A puzzle's model with what it takes to read a grid back."""

    @property
    def model(self) -> Model:
        """The binary variables and labelled linear constraints."""

    @property
    def puzzle(self) -> Puzzle: ...

    @property
    def use_x(self) -> bool:
        """Whether the model has the cell variables x."""

    @property
    def a_variables(self) -> int:
        """The line variables alone: the size of the model without x."""

    def decode(self, assignment: Any) -> Grid:
        """The grid an assignment of every model variable stands for."""

    def blocking_variables(self) -> list[int]:
        """Variables whose values fix all the others: excluding a grid means excluding these."""
