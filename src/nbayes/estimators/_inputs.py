"""What the estimators are given, checked and coded: decision thresholds, and (re-exported)
sample weights and class labels (fit, the training driver, Dask and model selection share
them; their homes are :mod:`nbayes._validation` and :mod:`nbayes._labels`)."""

from __future__ import annotations

import numpy as np

from .._validation import check_sample_weight as check_sample_weight
from ..exceptions import ParameterError

THRESHOLD_SCALES = ("log_odds", "proba")


def log_odds_threshold(
    threshold, scale: str = "log_odds", n_classes: int | None = None
) -> float | None:
    """A ``decision_threshold`` in log-odds, validated; None for the plain argmax rule.

    Parameters
    ----------
    threshold : float or None
        The estimators' ``decision_threshold``.
    scale : {"log_odds", "proba"}
        Its ``threshold_scale``: log-odds, or a probability of ``classes_[1]``.
    n_classes : int, optional
        The model's number of classes (a threshold needs two).

    Examples
    --------
    >>> round(log_odds_threshold(0.8, "proba"), 4)
    1.3863
    """
    if threshold is None:
        return None
    if scale not in THRESHOLD_SCALES:
        raise ParameterError(
            f"Parameter 'threshold_scale' must be one of {THRESHOLD_SCALES}; got {scale!r}."
        )
    value = float(threshold)
    if scale == "proba":
        if not 0.0 < value < 1.0:
            raise ParameterError(
                "With threshold_scale='proba', decision_threshold is a probability of "
                f"classes_[1] and must lie strictly between 0 and 1; got {threshold!r}."
            )
        value = float(np.log(value) - np.log1p(-value))
    elif np.isnan(value):
        raise ParameterError("Parameter 'decision_threshold' must not be NaN.")
    if n_classes is not None and n_classes != 2:
        raise ParameterError(
            f"decision_threshold applies to two classes; this model has "
            f"{n_classes}. Set decision_threshold=None."
        )
    return value
