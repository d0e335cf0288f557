"""The fold models of a calibration and their decision values on the held-out rows, made
from fold statistics: the model of the rows outside a fold is the total minus the fold,
finalized, so the data is counted once and nothing is refitted."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from sklearn.calibration import _CalibratedClassifier, _fit_calibrator, _SigmoidCalibration
from sklearn.isotonic import IsotonicRegression
from sklearn.utils.validation import _check_response_method

from .. import base
from ..estimators._folds import take_rows
from ..exceptions import ParameterError, UnseenCategoryWarning
from ..model_selection import FoldStatistics

#: What scikit-learn's CalibratedClassifierCV asks a classifier for, in this order.
RESPONSE_METHODS = ["decision_function", "predict_proba"]


def fold_statistics(estimator, X, y, splits, sample_weight):
    """(:class:`~nbayes.model_selection.FoldStatistics` of ``splits``, the test rows of each
    split taken from X), or None where the estimator cannot make its fold models from
    statistics: it lacks the candidate-scoring capability, its set-up depends on the rows it
    learns (a learned vocabulary, a semi-naive structure), or a split does not train on all
    the rows outside its test fold. The caller then refits the estimator per fold, as
    scikit-learn does."""
    if not base.supports(estimator, base.CANDIDATE_SCORING):
        return None
    X_tests = [take_rows(X, test) for _, test in splits]  # counted, then scored
    try:
        return FoldStatistics(estimator, X, y, splits, sample_weight, X_tests), X_tests
    except ParameterError:  # the refusals above, each said in its message
        return None


def as_rows(estimator, X):
    """X as the fold statistics read it: a list of rows of numbers becomes an array (a plain
    list is read as texts by a model that takes texts only)."""
    if isinstance(X, (list, tuple)) and not base.supports(estimator, base.TEXT_INPUT):
        return np.asarray(X)
    return X


@contextmanager
def held_out() -> Iterator[None]:
    """Silence :class:`~nbayes.exceptions.UnseenCategoryWarning` while fold models score
    their held-out rows: a held-out row meeting a category its training folds did not see
    is what the folds are there to measure, scored as any unseen value is; nothing the user
    did or can fix."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        yield


def response(model, X) -> np.ndarray:
    """The decision values scikit-learn's calibration reads from a fitted classifier
    (``decision_function``, else ``predict_proba``; the positive class only for two
    classes), as an (n_samples, n_columns) array: what ``_get_response_values`` returns
    for it, without its checks of the classes, made again for every fold. The model is a
    fold model and X its held-out rows (see :func:`held_out`)."""
    method = _check_response_method(model, RESPONSE_METHODS)
    with held_out():
        values = method(X)
    if method.__name__ == "predict_proba" and len(model.classes_) == 2:
        values = values[:, 1]  # the positive class, as scikit-learn keeps it
    return values.reshape(-1, 1) if values.ndim == 1 else values


def out_of_fold(folds: FoldStatistics, X_tests: list, n_rows: int) -> np.ndarray:
    """Every row's decision value from the model of the rows outside its fold, as
    scikit-learn's ``cross_val_predict`` gives them (the test folds partition the rows)."""
    found = np.empty(0)
    for i, ((_, test), X_test) in enumerate(zip(folds.splits, X_tests)):  # bounded by folds
        values = response(folds.train_model(i), X_test)
        if i == 0:
            found = np.empty((n_rows, values.shape[1]), dtype=values.dtype)
        found[test] = values
    return found


def fit_calibrator(model, values, y, codes, classes, method: str, sample_weight=None):
    """scikit-learn's ``_fit_calibrator`` (a fitted ``_CalibratedClassifier``), with the
    one-vs-rest targets of the sigmoid and isotonic calibrators made from the class codes
    (``codes``: the index of each row's label in ``classes``) instead of label_binarize's
    checks of the labels, which sort them again for every fold. The targets, and so the
    calibrators, are those scikit-learn makes: ``model`` knows every class, in the order of
    ``classes``. Temperature scaling, which reads ``y`` as scikit-learn passes it (codes for
    string labels), is scikit-learn's own."""
    if method == "temperature":
        return _fit_calibrator(
            model, values, y, classes, method, xp=np, sample_weight=sample_weight
        )
    calibrators = []
    for k, this_pred in enumerate(values.T):  # bounded by the classes (one for two)
        # label_binarize's int columns: the second class against the first for two classes.
        target = (codes == (1 if len(classes) == 2 else k)).astype(int)
        calibrator = (
            IsotonicRegression(out_of_bounds="clip")
            if method == "isotonic"
            else _SigmoidCalibration()
        )
        calibrators.append(calibrator.fit(this_pred, target, sample_weight))
    return _CalibratedClassifier(model, calibrators, method=method, classes=classes)


def partitions(splits, n_rows: int) -> bool:
    """Whether the test folds of ``splits`` hold every row exactly once."""
    tested = np.sort(np.concatenate([np.asarray(test) for _, test in splits]))
    return np.array_equal(tested, np.arange(n_rows))


__all__ = [
    "as_rows",
    "fit_calibrator",
    "fold_statistics",
    "out_of_fold",
    "partitions",
    "response",
]
