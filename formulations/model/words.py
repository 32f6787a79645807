"""A model constraint's label (a tuple such as ``("link", 0, 9)``) in words, for messages people
read: a sampler's "breaks 3 constraints: ..." names cells and lines, not tuples."""
from __future__ import annotations

from collections.abc import Hashable

_KIND = {"row": "row", "col": "column", "column": "column"}


def _line(kind: object, index: object) -> str:
    return f"{_KIND.get(str(kind), str(kind))} {index + 1 if isinstance(index, int) else index}"


def _cell(i: int, j: int) -> str:
    return f"the cell at row {i + 1}, column {j + 1}"


def constraint_words(label: Hashable) -> str:
    """``label`` in words; a label of a shape this does not know is its parts joined by spaces
    (never a tuple's repr)."""
    if not isinstance(label, tuple) or not label:
        return str(label)
    family, rest = label[0], label[1:]
    ints = [v for v in rest if isinstance(v, int)]
    if family == "link" and len(ints) >= 2:
        colour = f" (colour {ints[2]})" if len(ints) > 2 else ""
        if rest and rest[0] in ("row", "col"):
            return f"{_cell(ints[0], ints[1])}{colour}: its {_KIND[rest[0]]} and its cell " \
                   f"variable disagree"
        return f"{_cell(ints[0], ints[1])}{colour}: its row and its column disagree"
    if len(rest) >= 3 and rest[0] in _KIND and all(isinstance(v, int) for v in rest[1:3]):
        line, k = _line(rest[0], rest[1]), rest[2]
        if family == "monotone":
            return f"{line}, block {k + 1}: its position variables contradict each other"
        if family == "order":
            return f"{line}: block {k + 2} does not come after block {k + 1}"
        if family == "exactly_one":
            return f"{line}: block {k + 1} is not placed exactly once"
        if family == "clash":
            return f"{line}: blocks {k + 1} and {k + 2} overlap"
        if family == "one_state":
            return f"{line}, cell {k + 1}: not in exactly one state"
        if family == "transition":
            return f"{line}, cells {k + 1}-{k + 2}: the clue does not allow this step"
    return " ".join(str(v) for v in label)
