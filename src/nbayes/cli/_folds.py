"""The hashed folds of DATA's rows that ``--alpha cv``, ``--var-smoothing cv`` and
``--calibration`` share, on the chunks of ``train`` and on the partitions of ``--dask``.

The fold of a row is the row hash of its row number (:func:`nbayes._rowhash.hash_folds`), so
the folds depend neither on the chunking nor on the partitioning, and are those of
:func:`nbayes.dask.fold_statistics` on the same rows. A chunk's pieces are counted into
statistics per fold and those of the chunks merge fold by fold, by the training driver
(:func:`nbayes._training.count_folds`, :func:`~nbayes._training.merge_folds`); the model of
the rows outside a fold is the total minus the fold, finalized, never refitted.
"""

from __future__ import annotations

from functools import reduce

import numpy as np
import pandas as pd

from .._labels import written_label_codes
from .._rowhash import hash_folds
from .._training import count_folds
from ..estimators._base import CV_FOLDS
from ..estimators._folds import take_rows
from ..exceptions import DataError
from ._models import class_labels


def chunk_folds(est, model, plan, target: str, path: str, offset: int, chunk) -> list:
    """(fold, rows, X of those rows, class codes) of each fold present in one chunk of DATA
    whose first row is row ``offset``: the fold of a row is the hash of its row number.
    ``model`` is ``est``'s statistics holder (a text model's classifier), its labels
    installed."""
    classes = np.asarray(model.classes_)
    y = class_labels(chunk[target], offset, path, target)
    # The classes have their type by now (1, not "1"): labels compare by value.
    codes = written_label_codes(pd.Series(y), classes)
    if np.any(codes < 0):
        unknown = int(np.flatnonzero(codes < 0)[0])
        raise DataError(
            f"{path}: label {y[unknown]!r} at row {offset + unknown} was not in the training "
            "pass; the data changed between the passes."
        )
    X = plan.inputs(chunk, offset, path)
    if model is not est:
        X = est.transform(X)
    fold = hash_folds(offset + np.arange(len(chunk)), CV_FOLDS)
    pieces = []
    for k in range(CV_FOLDS):  # bounded by the number of folds
        rows = np.flatnonzero(fold == k)
        if rows.size:
            pieces.append((k, rows, take_rows(X, rows), codes[rows]))
    return pieces


def count_chunk(model, pieces) -> list:
    """The statistics of each fold's rows among ``pieces`` (of :func:`chunk_folds`), None
    for a fold without rows: :func:`nbayes._training.count_folds`, every row weighing one.
    Those of several chunks merge by :func:`nbayes._training.merge_folds`."""
    n_classes = np.asarray(model.classes_).size
    weighed = ((k, X_k, c_k, np.ones(c_k.size)) for k, _, X_k, c_k in pieces)
    return count_folds(model, weighed, CV_FOLDS, n_classes)


def outside_folds(model, counted: list, option: str, path: str, advice: str) -> list:
    """The statistics of the rows outside each fold (the total minus the fold), or a
    DataError naming ``option`` where a fold has no rows."""
    if any(s is None for s in counted):
        raise DataError(
            f"{option} splits the rows into {CV_FOLDS} folds; {path} has too few rows for "
            f"that. {advice}"
        )
    total = reduce(model.merge_statistics, counted)
    return [model.subtract_statistics(total, s) for s in counted]
