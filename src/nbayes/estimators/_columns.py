"""Column handling shared by the estimators that encode category values (CategoricalNB,
MixedNB): what a value outside the vocabulary means, by mode.

The mode (see :mod:`._protocol`) is an argument, never a flag on the estimator.
"""

from __future__ import annotations

from .._validation import show
from ..exceptions import DataError
from ._protocol import Mode, check_mode


def refuses_unseen(mode: Mode, unseen: str) -> bool:
    """Whether a value outside the vocabulary is an error: always when counting against a
    fixed set-up or unlearning, at scoring time when the ``unseen`` policy is "error", never
    when learning (the vocabulary grows)."""
    check_mode(mode)
    return mode in ("count", "unlearn") or (mode == "score" and unseen == "error")


def unseen_error(where: str, value, row: int, mode: Mode, hint: str) -> DataError:
    """The error for ``value`` at ``row`` of ``where`` (a column label), outside the
    vocabulary; ``hint`` says how to fix it at scoring time."""
    if mode == "unlearn":
        why = "so these rows cannot have been learned and cannot be unlearned"
    elif mode == "count":
        why = (
            "but the model was set up to count a fixed vocabulary (a survey of all the data "
            "should have found it); survey the same data that is counted"
        )
    else:
        why = hint
    return DataError(
        f"{where.capitalize()} has the category {show(value)} at row {row}, which no "
        f"training batch contained; {why}."
    )
