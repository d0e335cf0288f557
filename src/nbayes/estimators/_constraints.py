"""What the parameters that many estimators share accept, declared once (see nbayes._params).

Each estimator's ``_parameter_constraints`` is built from these blocks plus its own
parameters; a range that depends on the data (one alpha per feature, one prior probability
per class) is checked by the family or the engine that knows the data's shape.
"""

from __future__ import annotations

from numbers import Real

from .._params import Interval, StrOptions
from ..distributions._estimates import ESTIMATES
from ._base import THRESHOLD_SCALES

#: The class prior: learned (``fit_prior``), fixed, or smoothed by ``prior_alpha``.
CLASS_PRIOR = {
    "fit_prior": ["boolean"],
    "class_prior": ["array-like", None],
    "prior_alpha": [Interval(Real, 0, None, closed="left")],
}

#: The Dirichlet smoothing of the discrete models, written out in each such model.
SMOOTHING = {
    "alpha": [Real, "array-like", StrOptions({"auto", "cv"})],
    "estimate": [StrOptions(set(ESTIMATES))],
}

#: Two classes only: the decision threshold and its scale.
THRESHOLD = {
    "decision_threshold": [Real, None],
    "threshold_scale": [StrOptions(set(THRESHOLD_SCALES))],
}

#: ``alpha`` in words: a number or one per feature (their range is checked per feature),
#: "auto" (evidence), or "cv" (cross-validation inside fit).
ALPHA_MESSAGE = (
    "Parameter 'alpha' must be 'cv' (chosen by cross-validation), a number, an array or "
    "'auto'; got {value}."
)


def fixed_alpha_message(value) -> str:
    """``alpha`` of the models that do not choose it: a number or one per feature."""
    text = f"Parameter 'alpha' must be a non-negative number or one per feature; got {value!r}."
    if isinstance(value, str) and value in ("auto", "cv"):
        text += (
            " This model does not choose alpha itself ('auto' and 'cv' are for the naive Bayes "
            "estimators); compare values with sklearn.model_selection.GridSearchCV."
        )
    return text


#: ``var_smoothing`` in words, for the models that can choose it by cross-validation.
VAR_SMOOTHING_MESSAGE = (
    "Parameter 'var_smoothing' must be a non-negative number or 'auto' ('cv': chosen by "
    "cross-validation); got {value}."
)
