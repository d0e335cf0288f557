"""``nbayes train --calibration``: a calibrator fitted on out-of-fold scores, from fold
statistics, in bounded memory.

After the training pass (and any ``--alpha cv``), two more passes over DATA on the hashed
folds of ``--alpha cv`` (:mod:`._folds`: the row hash of the row number picks one of 5 folds,
whatever the chunking): one counts each fold's rows, one scores each fold's rows by the model
of the other folds' statistics (the total minus the fold, finalized, never refitted). One
scikit-learn calibrator is fitted on all the out-of-fold scores, in row order, over the model
of all rows, as :class:`nbayes.calibration.CalibratedClassifierCV` does with
``ensemble=False``. Memory holds a chunk, the fold statistics and one score (per class beyond
two) and one class code per row; the rows themselves are never held.

The work on one chunk (:func:`._folds.chunk_folds`, :func:`._folds.count_chunk`,
:func:`chunk_scores`) is the same on the partitions of ``--dask``
(:func:`nbayes.cli._dask.out_of_fold_on_cluster`), so both give the same scores for the same
rows.
"""

from __future__ import annotations

import numpy as np

from .. import _training as training
from .. import base
from .._threads import single_threaded_blas
from ..estimators._base import CV_FOLDS
from . import _folds
from ._common import UsageError
from ._models import inner

#: The methods of ``--calibration`` (scikit-learn's, plus temperature scaling).
METHODS = ("sigmoid", "isotonic", "temperature")


def add_argument(parser) -> None:
    """``--calibration`` of ``nbayes train``."""
    parser.add_argument(
        "--calibration",
        choices=METHODS,
        help="calibrate the probabilities: Platt's sigmoid, isotonic regression or one "
        "temperature, fitted on the out-of-fold scores of 5 hashed folds (two more passes "
        "over DATA, three with --dask); predict, evaluate, explain and report then use them",
    )


def check(method: str | None, unlabeled_value: str | None) -> None:
    """Refuse, before any row is read, a calibration that the training cannot make."""
    if method is None:
        return
    if method not in METHODS:
        raise UsageError(f"--calibration must be one of {METHODS}; got {method!r}.")
    if unlabeled_value is not None:
        raise UsageError(
            "--calibration needs a label on every row; it does not combine with "
            "--unlabeled-value. Train without it, or calibrate in Python with "
            "nbayes.calibration.CalibratedClassifierCV."
        )


def fold_model(plan):
    """(the plan's estimator, the model that counts its inputs: a text model's classifier),
    or a UsageError where that model cannot make fold models from statistics."""
    est = plan.estimator
    model = inner(est)  # a text model's classifier, which counts the word counts
    if not base.supports(model, base.CANDIDATE_SCORING):
        raise UsageError(
            f"--calibration needs fold models made from statistics, which --model "
            f"{plan.model} does not make; calibrate it in Python with "
            "nbayes.calibration.CalibratedClassifierCV (which refits it per fold)."
        )
    return est, model


def fold_models(model, counted: list, path: str) -> list:
    """The model of the rows outside each fold: the total minus the fold, finalized."""
    trains = _folds.outside_folds(
        model, counted, "--calibration", path, "Train without --calibration."
    )
    return [model.finalize_with({}, s) for s in trains]


def chunk_scores(models: list, pieces, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Out-of-fold decision values and class codes of one chunk's ``n_rows`` rows, in row
    order: each row scored by the model of the other folds."""
    from ..calibration._out_of_fold import response  # scikit-learn's, as calibrate's

    values, codes = None, np.empty(n_rows, dtype=np.intp)
    for k, rows, X_k, c_k in pieces:
        found = response(models[k], X_k)
        if values is None:
            values = np.empty((n_rows, found.shape[1]))
        values[rows], codes[rows] = found, c_k
    return (np.empty((0, 1)) if values is None else values), codes


def out_of_fold(table, plan, target: str, dtypes: dict) -> tuple[np.ndarray, np.ndarray]:
    """Every row's out-of-fold decision value and class code, in row order, from two passes
    over the chunks of DATA."""
    est, model = fold_model(plan)
    columns = [*plan.features, target]

    def pieces(desc: str):
        for offset, chunk in table.chunks(columns, dtypes, desc=desc):
            found = _folds.chunk_folds(est, model, plan, target, table.path, offset, chunk)
            yield len(chunk), found

    counted: list = [None] * CV_FOLDS
    for _, found in pieces("calibration: counting the folds"):
        counted = training.merge_folds(model, counted, _folds.count_chunk(model, found))
    models = fold_models(model, counted, table.path)
    scored = [chunk_scores(models, found, n) for n, found in pieces("calibration: scoring")]
    return np.concatenate([v for v, _ in scored]), np.concatenate([c for _, c in scored])


def calibrate(table, plan, target: str, dtypes: dict, method: str | None, scores=None):
    """The plan's fitted model wrapped in a :class:`~nbayes.calibration.CalibratedClassifierCV`
    by ``method``, fitted on the out-of-fold scores of 5 hashed folds, with a note on the
    plan; without a method, the plan's model itself. ``scores``: the (decision values, class
    codes) of :func:`out_of_fold` where they were made already (on a Dask cluster)."""
    if method is None:
        return plan.estimator
    # scikit-learn's calibration is imported only by a training that calibrates.
    from ..calibration import CalibratedClassifierCV
    from ..calibration._out_of_fold import fit_calibrator

    est, model = fold_model(plan)
    classes = np.asarray(model.classes_)
    values, y = scores if scores is not None else out_of_fold(table, plan, target, dtypes)
    # Temperature scaling learns from class codes, the others from labels (as scikit-learn).
    labels = y if method == "temperature" else classes[y]
    calibrated = CalibratedClassifierCV(est, method=method, cv=CV_FOLDS, ensemble=False)
    calibrated.classes_ = classes
    with single_threaded_blas():
        calibrated.calibrated_classifiers_ = [
            fit_calibrator(est, values, labels, y, classes, method)
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
