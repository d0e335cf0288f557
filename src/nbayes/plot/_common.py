"""What the displays share: matplotlib on demand, axes, and the odds of one class."""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from ..exceptions import ParameterError, UnknownLabelError

INSTALL_HINT = 'nbayes.plot needs matplotlib; install it with: pip install "nbayes[plot]"'


def matplotlib_axes(ax=None):
    """``ax``, or the axes of a new pyplot figure (importing matplotlib only now, so that
    ``import nbayes.plot`` works without it)."""
    if ax is not None:
        return ax
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
    return plt.subplots()[1]


def require_matplotlib() -> None:
    """Fail early, with the install hint, where matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(INSTALL_HINT) from None


def positive_class(classes: np.ndarray, pos_label) -> int:
    """Index of the class whose odds are shown: ``pos_label``, or the second of two."""
    if pos_label is None:
        if len(classes) != 2:
            raise ParameterError(
                f"pos_label is needed with {len(classes)} classes: name the class whose odds "
                f"against the rest are shown, one of {classes.tolist()!r}."
            )
        return 1
    found = np.flatnonzero(classes == pos_label)
    if not found.size:
        raise UnknownLabelError(
            f"pos_label={pos_label!r} is not among the classes {classes.tolist()!r}."
        )
    return int(found[0])


def positive_log_odds(estimator, X, pos_label) -> tuple[np.ndarray, object]:
    """log P(pos | x) - log P(not pos | x) for every row, and the positive label.

    Computed in log space from ``predict_log_proba``, so confident rows keep finite odds
    where ``predict_proba`` would round to 0 or 1.
    """
    classes = np.asarray(estimator.classes_)
    k = positive_class(classes, pos_label)
    log_proba = np.asarray(estimator.predict_log_proba(X))
    rest = logsumexp(np.delete(log_proba, k, axis=1), axis=1)
    return log_proba[:, k] - rest, classes[k]


def model_log_odds_threshold(estimator, pos_index: int) -> float:
    """The log-odds threshold ``predict`` applies to the positive class (0 for argmax)."""
    params = estimator.get_params(deep=False) if hasattr(estimator, "get_params") else {}
    threshold = params.get("decision_threshold")
    if threshold is None or len(estimator.classes_) != 2:
        return 0.0
    threshold = float(threshold)
    if params.get("threshold_scale") == "proba":
        threshold = float(np.log(threshold) - np.log1p(-threshold))
    return threshold if pos_index == 1 else -threshold
