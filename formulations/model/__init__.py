"""The backend-neutral model (binary variables, labelled linear constraints), the encodings
that build it from a puzzle and decode its answers (the order encoding of seed 001, the default;
one-hot; the per-cell automaton state), its slack-free quadratic penalty for the QUBO backends,
the same constraints as a dimod CQM, and presolve by line solving."""
from .encodings import DEFAULT_ENCODING, ENCODINGS, build_model, check_encoding
from .linear import Constraint, LinExpr, Model, Sense, Var
from .order import LineEncoding, NonogramModel
from .penalty import (DEFAULT_WEIGHTS, FAMILIES, QuadraticPenalty, export_bqm, lower, penalty_terms,
                      to_bqm)
from .presolve import Presolved
from .cqm import export_cqm, to_cqm

__all__ = ["Constraint", "LinExpr", "Model", "Sense", "Var", "LineEncoding", "NonogramModel",
           "build_model", "DEFAULT_ENCODING", "ENCODINGS", "check_encoding", "DEFAULT_WEIGHTS",
           "FAMILIES", "QuadraticPenalty", "export_bqm", "lower", "penalty_terms", "to_bqm",
           "Presolved", "to_cqm", "export_cqm"]
# ``presolve()`` itself: formulations.model.presolve.presolve (or formulations.presolve); not
# re-exported here, where the name is the submodule's.
