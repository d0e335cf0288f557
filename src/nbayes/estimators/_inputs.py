"""What the estimators are given, checked and coded: sample weights and decision thresholds
(fit, the training driver, Dask and model selection share them). Class labels have their own
module, :mod:`nbayes._labels`."""

from __future__ import annotations

import numpy as np

from .._labels import fit_classes as fit_classes
from .._labels import label_codes as label_codes
from .._validation import row_offset, show
from ..exceptions import DataError, ParameterError

THRESHOLD_SCALES = ("log_odds", "proba")


def check_sample_weight(sample_weight, n_samples: int, allow_all_zero: bool = False) -> np.ndarray:
    """Return float64 weights of shape (n_samples,); reject negative or non-finite ones.

    All-zero weights are rejected too (nothing to learn from) unless ``allow_all_zero``: one
    Dask partition may legitimately hold only zero-weight rows.
    """
    if sample_weight is None:
        return np.ones(n_samples)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(n_samples, float(w))
    if w.shape != (n_samples,):
        raise DataError(
            f"sample_weight must have one value per row ({n_samples}); got shape {w.shape}."
        )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"sample_weight must be finite and non-negative; got {show(w[row])} at row "
            f"{row + row_offset()}. Use 0 to drop a row."
        )
    if n_samples and not w.any() and not allow_all_zero:
        raise DataError(
            "sample_weight is zero for every row: there is nothing to learn from. "
            "Give at least one row a positive weight."
        )
    return w


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
