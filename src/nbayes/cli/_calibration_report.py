"""The calibration part of ``nbayes report``: how far the probabilities are from the
frequencies they claim, before and after the calibration of a calibrated model (once for a
model without one).

Log-loss and the Brier score are scikit-learn's (``sklearn.metrics``; with two classes the
Brier score of the second class's probability, beyond two the sum over the classes);
:func:`expected_calibration_error` bins the top-label confidence into 15 equal-width bins.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._labels import written_label_codes
from . import _html

#: Equal-width bins of the top-label confidence for the expected calibration error.
ECE_BINS = 15


def expected_calibration_error(proba: np.ndarray, codes: np.ndarray, bins: int = ECE_BINS):
    """The row-weighted mean gap between the top-label confidence and the accuracy, over
    ``bins`` equal-width confidence bins (a confidence of 1 falls in the last bin).

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        Predicted probabilities.
    codes : ndarray of shape (n_samples,)
        The true class of each row, as a column index of ``proba``.
    bins : int, default 15
        The number of bins.

    Returns
    -------
    float
        Between 0 (each bin's confidence is its accuracy) and 1.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.cli._calibration_report import expected_calibration_error
    >>> proba = np.array([[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.4, 0.6]])  # 3 bins: 2, 1, 1 rows
    >>> round(expected_calibration_error(proba, np.array([0, 1, 1, 1])), 4)  # .5*.4+.25*.2+.25*.4
    0.35
    """
    confidence = proba.max(axis=1)
    hit = (proba.argmax(axis=1) == codes).astype(float)
    which = np.minimum((confidence * bins).astype(int), bins - 1)
    total = 0.0
    for b in np.unique(which):  # bounded by the bins
        rows = which == b
        total += rows.sum() * abs(hit[rows].mean() - confidence[rows].mean())
    return float(total / len(codes))


def metrics(y, proba: np.ndarray, classes: np.ndarray) -> dict:
    """Log-loss, Brier score and expected calibration error of ``proba`` on labels ``y``
    (rows whose label the model does not know are left out)."""
    from sklearn.metrics import brier_score_loss, log_loss

    codes = written_label_codes(pd.Series(y), classes)  # by value, as evaluate compares
    known = codes >= 0
    codes, proba = codes[known], proba[known]
    every = np.arange(classes.size)
    if classes.size == 2:
        brier = brier_score_loss(codes == 1, proba[:, 1])
    else:
        brier = brier_score_loss(codes, proba, labels=every)
    return {
        "log_loss": float(log_loss(codes, proba, labels=every)),
        "brier": float(brier),
        "ece": expected_calibration_error(proba, codes),
        "rows": int(known.sum()),
    }


def section(plan, inputs, y, proba, figure) -> list[str]:
    """HTML parts: the table of log-loss, Brier score and ECE (before and after the
    calibration of a calibrated model) and, with two classes, the reliability diagram of
    each; ``figure(fig, title)`` embeds a figure."""
    from ..plot import ReliabilityDisplay

    classes = np.asarray(plan.estimator.classes_)
    after = metrics(y, proba, classes)
    columns = {"probabilities": after}
    if plan.calibrated is not None:
        own = plan.estimator.predict_proba(inputs)
        columns = {"model's own": metrics(y, own, classes), "calibrated": after}
    names = {"log_loss": "log-loss", "brier": "Brier score", "ece": "expected calibration error"}
    table = [[label, *(m[key] for m in columns.values())] for key, label in names.items()]
    parts = ["<h3>Calibration</h3>", _html.table(table, ["metric", *columns])]
    method = "" if plan.calibrated is None else f"Calibrated by {plan.calibrated.method}. "
    parts.append(
        _html.note(
            f"{method}On {after['rows']:,} rows with known labels. Log-loss and Brier score "
            "are scikit-learn's (two classes: the Brier score of the second class's "
            "probability; more: the sum over the classes). Expected calibration error: the "
            "row-weighted mean gap between the top class's probability and the share of rows "
            f"it is right on, in {ECE_BINS} equal-width bins of that probability."
        )
    )
    if classes.size == 2 and plan.calibrated is not None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(4.2, 3.8))
        ax = fig.subplots()
        first = ReliabilityDisplay.from_predictions(y, own[:, 1], pos_label=classes[1], ax=ax)
        diagonal = len(ax.lines)
        then = ReliabilityDisplay.from_predictions(y, proba[:, 1], pos_label=classes[1], ax=ax)
        ax.lines[diagonal].remove()  # each display draws the diagonal: keep one
        first.line_.set_label("before calibration")
        then.line_.set_label("after calibration")
        ax.legend(loc="upper left")
        parts.append(figure(fig, "reliability before and after calibration"))
    return parts
