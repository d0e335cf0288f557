"""``nbayes train --calibration``: a calibrator fitted on out-of-fold scores, from fold
statistics, in bounded memory.

After the training pass (and any ``--alpha cv``), two more passes over DATA on the hashed
folds of ``--alpha cv`` (:mod:`._cv`: the row hash of the row number picks one of 5 folds,
whatever the chunking): one counts each fold's rows, one scores each fold's rows by the model
of the other folds' statistics (the total minus the fold, finalized, never refitted). One
scikit-learn calibrator is fitted on all the out-of-fold scores, over the model of all rows,
as :class:`nbayes.calibration.CalibratedClassifierCV` does with ``ensemble=False``. Memory
holds a chunk, the fold statistics and one score (per class beyond two) and one class code per
row; the rows themselves are never held.
"""

from __future__ import annotations

from functools import reduce

import numpy as np
import pandas as pd

from .. import base
from .._labels import written_label_codes
from .._rowhash import hash_folds
from ..distributions import Labels
from ..estimators._base import CV_FOLDS
from ..estimators._folds import take_rows
from ..exceptions import DataError
from ._common import UsageError
from ._models import class_labels, inner

#: The methods of ``--calibration`` (scikit-learn's, plus temperature scaling).
METHODS = ("sigmoid", "isotonic", "temperature")


def add_argument(parser) -> None:
    """``--calibration`` of ``nbayes train``."""
    parser.add_argument(
        "--calibration",
        choices=METHODS,
        help="calibrate the probabilities: Platt's sigmoid, isotonic regression or one "
        "temperature, fitted on the out-of-fold scores of 5 hashed folds (two more passes "
        "over DATA); predict, evaluate, explain and report then use them",
    )


def check(method: str | None, dask: str | None, unlabeled_value: str | None) -> None:
    """Refuse, before any row is read, a calibration that the training cannot make."""
    if method is None:
        return
    if method not in METHODS:
        raise UsageError(f"--calibration must be one of {METHODS}; got {method!r}.")
    if dask is not None or unlabeled_value is not None:
        other = "--dask" if dask is not None else "--unlabeled-value"
        raise UsageError(
            f"--calibration reads DATA in chunks in this process; it does not combine with "
            f"{other}. Train without it, or calibrate in Python with "
            "nbayes.calibration.CalibratedClassifierCV."
        )


def calibrate(table, plan, target: str, dtypes: dict, method: str | None):
    """The plan's fitted model wrapped in a :class:`~nbayes.calibration.CalibratedClassifierCV`
    by ``method``, fitted on the out-of-fold scores of 5 hashed folds, with a note on the
    plan; without a method, the plan's model itself."""
    if method is None:
        return plan.estimator
    # scikit-learn's calibration is imported only by a training that calibrates.
    from sklearn.calibration import _fit_calibrator

    from ..calibration import CalibratedClassifierCV
    from ..calibration._out_of_fold import response

    est = plan.estimator
    model = inner(est)  # a text model's classifier, which counts the word counts
    if not base.supports(model, base.CANDIDATE_SCORING):
        raise UsageError(
            f"--calibration needs fold models made from statistics, which --model "
            f"{plan.model} does not make; calibrate it in Python with "
            "nbayes.calibration.CalibratedClassifierCV (which refits it per fold)."
        )
    classes = np.asarray(model.classes_)
    columns = [*plan.features, target]

    def folds(desc: str):
        """(fold, rows of X, class codes) of every chunk and fold."""
        for offset, chunk in table.chunks(columns, dtypes, desc=desc):
            y = class_labels(chunk[target], offset, table.path, target)
            # The classes have their type by now (1, not "1"): labels compare by value.
            codes = written_label_codes(pd.Series(y), classes)
            if np.any(codes < 0):
                unknown = int(np.flatnonzero(codes < 0)[0])
                raise DataError(
                    f"{table.path}: label {y[unknown]!r} at row {offset + unknown} was not "
                    "in the training pass; the data changed between the passes."
                )
            X = plan.inputs(chunk, offset, table.path)
            if model is not est:
                X = est.transform(X)
            fold = hash_folds(offset + np.arange(len(chunk)), CV_FOLDS)
            for k in range(CV_FOLDS):  # bounded by the number of folds
                rows = np.flatnonzero(fold == k)
                if rows.size:
                    yield k, take_rows(X, rows), codes[rows]

    counted: list = [None] * CV_FOLDS
    for k, X_k, c_k in folds("calibration: counting the folds"):
        stats = model.accumulate(X_k, Labels(c_k, np.ones(c_k.size), classes.size), mode="count")
        counted[k] = stats if counted[k] is None else model.merge_statistics(counted[k], stats)
    if any(s is None for s in counted):
        raise DataError(
            f"--calibration splits the rows into {CV_FOLDS} folds; {table.path} has too few "
            "rows for that. Train without --calibration."
        )
    total = reduce(model.merge_statistics, counted)
    fold_models = [model.finalize_with({}, model.subtract_statistics(total, s)) for s in counted]
    scores, codes = [], []
    for k, X_k, c_k in folds("calibration: scoring the folds"):
        scores.append(response(fold_models[k], X_k))
        codes.append(c_k)
    values, y = np.concatenate(scores), np.concatenate(codes)
    # Temperature scaling learns from class codes, the others from labels (as scikit-learn).
    labels = y if method == "temperature" else classes[y]
    calibrated = CalibratedClassifierCV(est, method=method, cv=CV_FOLDS, ensemble=False)
    calibrated.classes_ = classes
    calibrated.calibrated_classifiers_ = [
        _fit_calibrator(est, values, labels, classes, method, xp=np)
    ]
    calibrated.fold_statistics_ = True
    for name in ("n_features_in_", "feature_names_in_"):
        if hasattr(est, name):
            setattr(calibrated, name, getattr(est, name))
    plan.notes.append(
        f"calibrated by {method} on the out-of-fold scores of {CV_FOLDS} hashed folds "
        f"({y.size:,} rows); predict, evaluate, explain and report use the calibrated "
        "probabilities"
    )
    return calibrated
