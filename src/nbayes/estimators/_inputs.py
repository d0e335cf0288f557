"""What the estimators are given, checked and coded: sample weights, class labels and
decision thresholds (fit, the training driver, Dask and model selection share them)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets

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


def fit_classes(y: np.ndarray) -> np.ndarray:
    """The sorted distinct labels of ``y``, after scikit-learn's check that they are classes.

    Integer labels are always valid classes; when their range is small (the usual 0..K-1),
    a bincount finds them in one pass, where ``np.unique`` and the check hash them three
    times.
    """
    if y.dtype.kind in "iu" and y.size:
        low, high = int(y.min()), int(y.max())
        if high - low <= 2 * y.size:
            wide = y if y.dtype.itemsize == 8 else y.astype(np.int64)
            # Exact: the difference fits even where the subtraction wraps around.
            present = np.bincount((wide - wide.dtype.type(low)).astype(np.intp)) > 0
            return (np.flatnonzero(present).astype(wide.dtype) + wide.dtype.type(low)).astype(
                y.dtype
            )
    if y.dtype.kind in "Of":
        missing = pd.isna(y)
        if missing.any():
            row = int(np.argmax(missing))
            raise DataError(
                f"The label at row {row + row_offset()} is missing ({show(y[row])}): every "
                "row a model learns from needs a label. Drop the rows without one, or train "
                "with nbayes.SemiSupervisedNB, which learns from unlabeled rows too (marked "
                "-1, None or NaN)."
            )
    check_classification_targets(y)
    return np.unique(y)


def label_codes(y, classes) -> tuple[np.ndarray, int | None]:
    """Index of each label in ``classes``, and the first row whose label is not there (or None)."""
    classes, y = np.asarray(classes), np.asarray(y)
    if classes.dtype.kind in "US" and y.dtype.kind in "US" and classes.size:
        # Binary search in the sorted classes: pandas would build an index of Arrow strings,
        # which for a few classes costs more than the search (partial_fit does this on every
        # batch). Numbers and objects go to pandas' hash table, faster for long y.
        order = np.argsort(classes, kind="stable")
        ranked = classes[order]
        pos = np.minimum(np.searchsorted(ranked, y), classes.size - 1)
        codes = np.where(ranked[pos] == y, order[pos], -1)
    elif classes.dtype.kind in "iu" and y.dtype.kind in "iu" and classes.size:
        codes = _integer_codes(y, classes)
    else:
        codes = pd.Index(classes).get_indexer(y)
    unknown = np.flatnonzero(codes < 0)
    return codes, (int(unknown[0]) if unknown.size else None)


def _integer_codes(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """:func:`label_codes` of integer labels: a lookup table over the classes' range when
    every label falls inside it (two fast passes to check), else pandas' hash table."""
    low, high = int(classes.min()), int(classes.max())
    if (
        y.size
        and high - low <= 2 * y.size
        and high < 2**63
        and int(y.min()) >= low
        and int(y.max()) <= high
    ):
        table = np.full(high - low + 1, -1, dtype=np.intp)
        table[classes.astype(np.int64) - low] = np.arange(classes.size)
        # Inside [low, high] the difference is exact in int64 whatever y's own width.
        return table.take(y.astype(np.int64, copy=False) - low)
    return pd.Index(classes).get_indexer(y)


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
