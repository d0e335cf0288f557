"""Cross-validation folds of splits in memory, counted in one pass of the training driver
(:func:`nbayes._training.count_folds`): the statistics of every test fold, and their total.
Used by ``alpha="cv"`` inside ``fit`` and by :mod:`nbayes.model_selection`; the model of
the rows outside fold f is then (total - fold f) statistics and a finalize, never a refit."""

from __future__ import annotations

from functools import reduce

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import _safe_indexing

from .._training import count_folds, set_up
from ..exceptions import DataError, ParameterError


def meta_of(X):
    """What ``setup`` takes: a table's columns (no rows), else the number of columns (a 1-d
    sequence of texts: one text column)."""
    if isinstance(X, pd.DataFrame):
        return X.iloc[:0]
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[1])
    return pd.DataFrame({"text": pd.Series([], dtype=object)})


def take_rows(X, rows: np.ndarray):
    """The rows ``rows`` of X, in X's own type: ``_safe_indexing`` (tables, lists of texts,
    arrays), except that a scipy sparse matrix is indexed directly, without the checks of
    the key that scikit-learn's helper adds (about 40% of taking a 1k-row fold of Enron)."""
    if sp.issparse(X) and X.format == "csr":
        return X[rows]
    return _safe_indexing(X, rows)


def check_splits(splits, codes: np.ndarray, classes: np.ndarray, n: int) -> None:
    """Every split trains on all the rows outside its test rows (only then are its statistics
    the total's minus the test rows'), and leaves every class some training row."""
    for i, (train, test) in enumerate(splits):  # bounded by the number of splits
        # Test rows distinct, and train + test covering every row with no more rows than
        # there are: then train is exactly the complement (no sort needed).
        inside = np.zeros(n, dtype=bool)
        inside[test] = True
        covered = inside.copy()
        covered[train] = True
        distinct = np.count_nonzero(inside) == len(test)
        if not (distinct and len(train) + len(test) == n and covered.all()):
            raise ParameterError(
                f"Split {i} of cv trains on rows other than all the rows outside its test fold; "
                "statistics-based cross-validation needs splits whose training part is the "
                "complement of the test part (KFold, StratifiedKFold, GroupKFold, "
                "RepeatedStratifiedKFold, LeaveOneGroupOut, ...). Use "
                "sklearn.model_selection.GridSearchCV for other splitters."
            )
        absent = np.flatnonzero(np.bincount(codes[train], minlength=classes.size) == 0)
        if absent.size:
            raise DataError(
                f"Class {classes.tolist()[absent[0]]!r} has no row outside test fold {i}, so "
                "the model of that fold would not know it. Use StratifiedKFold or fewer folds."
            )


def count_splits(
    model, X, codes: np.ndarray, weights: np.ndarray, n_classes: int, splits, test_parts=None
):
    """Set ``model`` up from X (survey passes where it needs them) and count every test fold
    (``test_parts``: the test rows of each split already taken from X, when at hand) in one
    pass of :func:`nbayes._training.count_folds`, split i being fold i.

    Returns ``(test_stats, total)``: one statistics dict per split, and the statistics of all
    rows (the merged folds when they partition the rows, else one more pass).
    """

    def survey(step):
        return step.combine(step.summarize(X if step.columns is None else X[step.columns]))

    set_up(model, meta_of(X), survey)

    def piece(fold: int, rows: np.ndarray, part=None) -> tuple:
        part = take_rows(X, rows) if part is None else part
        return fold, part, codes[rows], weights[rows]

    parts = [None] * len(splits) if test_parts is None else test_parts
    tests = [np.asarray(test) for _, test in splits]
    pieces = (piece(k, test, part) for k, (test, part) in enumerate(zip(tests, parts)))
    test_stats = count_folds(model, pieces, len(splits), n_classes)
    n = codes.size
    if np.array_equal(np.sort(np.concatenate(tests)), np.arange(n)):  # folds partition the rows
        return test_stats, reduce(model.merge_statistics, test_stats)
    # Repeated splits: the total is one more pass.
    return test_stats, count_folds(model, [piece(0, np.arange(n))], 1, n_classes)[0]


__all__ = ["check_splits", "count_splits", "meta_of", "take_rows"]
