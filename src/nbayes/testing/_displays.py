"""How the ecosystem suite runs scikit-learn's displays around a classifier: each is drawn
on a figure that is closed afterwards, checked against the model's own predictions, and
scored by the metric it shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import (
    average_precision_score,
    brier_score_loss,
    confusion_matrix,
    roc_auc_score,
)

from ._compare import Outcome, _scored
from ._data import Split, _dense
from ._runners import Runner


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise ImportError(
            "The displays of the ecosystem suite need matplotlib: pip install 'nbayes[plot]'"
        ) from exc
    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo", "template"):
        matplotlib.use("Agg")  # no window
    import matplotlib.pyplot as plt

    return plt


def _display(draw: Callable[[Any, Split, Any], dict[str, float]], name: str) -> Runner:
    def run(estimator, split: Split, cv: int, seed: int) -> Outcome:
        plt = _pyplot()
        model = clone(estimator).fit(split.X_train, split.y_train)
        fig, ax = plt.subplots()
        try:
            return Outcome(name, draw(model, split, ax))
        finally:
            plt.close(fig)

    return run


def _confusion_matrix(model, split: Split, ax) -> dict[str, float]:
    from sklearn.metrics import ConfusionMatrixDisplay

    display = ConfusionMatrixDisplay.from_estimator(model, split.X_test, split.y_test, ax=ax)
    expected = confusion_matrix(split.y_test, model.predict(split.X_test), labels=model.classes_)
    np.testing.assert_array_equal(display.confusion_matrix, expected)
    return {"accuracy": float(np.trace(expected) / expected.sum())}


def _scores_by_class(model, X) -> np.ndarray:
    """One score column per class, as a user ranks rows for a one-vs-rest curve:
    ``decision_function`` where the model has it (the tools' own preference), else
    ``predict_proba``."""
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X))
    return np.asarray(model.predict_proba(X))


def _curve(kind: str) -> Callable:
    """ROC or precision-recall display: from_estimator for two classes; for more, one curve
    per class from its score column (from_predictions, one-vs-rest)."""

    def draw(model, split: Split, ax) -> dict[str, float]:
        from sklearn.metrics import PrecisionRecallDisplay, RocCurveDisplay

        Display = RocCurveDisplay if kind == "roc_auc" else PrecisionRecallDisplay
        metric = roc_auc_score if kind == "roc_auc" else average_precision_score
        y = np.asarray(split.y_test)
        if split.n_classes == 2:
            display = Display.from_estimator(model, split.X_test, y, ax=ax)
            got = display.roc_auc if kind == "roc_auc" else display.average_precision
            return {kind: float(got)}
        scores = _scores_by_class(model, split.X_test)
        values = []
        for k, label in enumerate(model.classes_):  # one curve per class: bounded by K
            if not np.any(y == label):
                continue
            Display.from_predictions(y == label, scores[:, k], ax=ax, name=str(label))
            values.append(metric(y == label, scores[:, k]))
        return {kind: float(np.mean(values))}

    return draw


def _calibration(model, split: Split, ax) -> dict[str, float]:
    from sklearn.calibration import CalibrationDisplay

    display = CalibrationDisplay.from_estimator(model, split.X_test, split.y_test, ax=ax)
    proba = model.predict_proba(split.X_test)[:, 1]
    if not np.all(np.isfinite(display.prob_pred)):
        raise AssertionError("CalibrationDisplay drew non-finite points")
    positive = np.asarray(split.y_test) == model.classes_[1]
    return {"brier": float(brier_score_loss(positive, proba))}


def _two_numeric_columns(X) -> list:
    """The first two numeric columns of X: a DataFrame's by name, else positions 0 and 1."""
    if isinstance(X, pd.DataFrame):
        return [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])][:2]
    return [0, 1]


def _decision_boundary(estimator, split: Split, cv: int, seed: int) -> Outcome:
    """DecisionBoundaryDisplay of the model fitted on two numeric columns; the drawn
    response must be the model's own ``predict`` on the grid. Scored: that model's
    accuracy."""
    from sklearn.inspection import DecisionBoundaryDisplay

    plt = _pyplot()
    columns = _two_numeric_columns(split.X_train)
    if isinstance(split.X_train, pd.DataFrame):
        X_train, X_test = split.X_train[columns], split.X_test[columns]
        X_train = X_train.fillna(X_train.median())
        X_test = X_test.fillna(X_train.median())
    else:
        X_train = np.asarray(_dense(split.X_train[:, columns]), dtype=float)
        X_test = np.asarray(_dense(split.X_test[:, columns]), dtype=float)
    model = clone(estimator).fit(X_train, split.y_train)
    fig, ax = plt.subplots()
    try:
        display = DecisionBoundaryDisplay.from_estimator(
            model, X_train, response_method="predict", grid_resolution=20, ax=ax
        )
        grid = np.column_stack([display.xx0.ravel(), display.xx1.ravel()])
        if isinstance(X_train, pd.DataFrame):
            grid = pd.DataFrame(grid, columns=X_train.columns)
        codes = np.searchsorted(model.classes_, model.predict(grid))
        np.testing.assert_array_equal(display.response.ravel(), codes)
    finally:
        plt.close(fig)
    return _scored("display-decision_boundary", split.y_test, model.predict(X_test))
