"""Cross-validation on Dask: the statistics of every fold in one distributed pass, and the
exact grid search over finalize-time parameters that scores the held-out rows in one more."""

from __future__ import annotations

from functools import reduce

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets

from .._labels import label_codes
from .._rowhash import hash_folds
from .._threads import threads
from .._training import count_folds, merge_folds
from .._validation import rows_from
from ..base import EstimatorProtocol
from ..estimators._base import check_sample_weight
from ..exceptions import DataError, NBayesError, ParameterError, UnknownLabelError
from ._fit import _partition_labels, _set_up, _where
from ._parts import (
    _F,
    _TEXT,
    _W,
    _Y,
    Block,
    _frame_partitions,
    _row_partitions,
    _vector_partitions,
    map_reduce,
)


def _fold_ids(f, n: int, n_folds: int, keys) -> np.ndarray:
    """Validated fold ids of one partition: given (``f``) or hashed from ``keys``."""
    if f is None:
        return hash_folds(keys, n_folds)
    ids = np.asarray(f).ravel()
    if ids.shape[0] != n:
        raise DataError(f"X has {n} rows but folds has {ids.shape[0]} values.")
    whole = ids.astype(np.intp) if ids.dtype.kind in "iub" else np.full(n, -1, dtype=np.intp)
    bad = (whole < 0) | (whole >= n_folds)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"folds must hold integers 0..{n_folds - 1} (n_folds={n_folds}); got "
            f"{ids[row : row + 1].tolist()[0]!r} at row {row}."
        )
    return whole


def _partition_fold_stats(shell, classes, n_folds: int, block: Block):
    """(classes seen, statistics of each fold) of one partition's rows, counted in one pass
    (:func:`nbayes._training.count_folds`; None for a fold without rows here), or None for
    an empty partition."""
    X, y, w, f, index, offset = block
    if y is None:  # a DataFrame partition carries labels, weights and folds as columns
        keys = X.index.to_numpy()
        f = X[_F].to_numpy() if _F in X.columns else None
        w = X[_W].to_numpy() if _W in X.columns else None
        y = X[_Y]
        X = X.drop(columns=[c for c in (_Y, _W, _F) if c in X.columns])
    else:
        keys = np.arange(X.shape[0], dtype=np.int64) + (offset or 0)
    n = X.shape[0]
    try:
        folds = _fold_ids(f, n, n_folds, keys)
        with rows_from(offset or 0):
            y = np.asarray(y).ravel()
            if y.shape[0] != n:
                raise DataError(f"X has {n} rows but y has {y.shape[0]} labels.")
            if n == 0:
                return None
            classes, codes, weights = _partition_labels(y, w, classes, offset)
            rows = [np.flatnonzero(folds == k) for k in range(n_folds)]  # bounded by the folds
            pieces = (
                (k, X.iloc[r] if isinstance(X, pd.DataFrame) else X[r], codes[r], weights[r])
                for k, r in enumerate(rows)
                if r.size
            )
            # Dask runs partitions side by side already: one thread each, not a pool each.
            with threads(1):
                return classes, count_folds(shell, pieces, n_folds, len(classes))
    except NBayesError as exc:
        raise type(exc)(f"In {_where(index, offset, n)}: {exc}") from exc


def _merge_fold_partials(shell, *parts):
    """Merge (classes, statistics of each fold) pairs fold by fold
    (:func:`nbayes._training.merge_folds`), each laid out over the union of their classes."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    classes = reduce(np.union1d, [c for c, _ in parts])
    index = pd.Index(classes)
    aligned = [_aligned(shell, counted, index.get_indexer(c), len(classes)) for c, counted in parts]
    return classes, merge_folds(shell, *aligned)


def _aligned(shell, counted: list, positions, n_classes: int) -> list:
    """Statistics of each fold (None for a fold without rows) laid out over ``n_classes``."""
    return [None if s is None else shell.align_statistics(s, positions, n_classes) for s in counted]


def fold_statistics(
    estimator: EstimatorProtocol,
    X,
    y,
    folds=None,
    sample_weight=None,
    *,
    n_folds: int = 5,
    classes=None,
    split_every: int = 8,
):
    """Statistics of every cross-validation fold in one distributed pass.

    Each partition counts its rows fold by fold; the per-fold statistics are merged in a
    tree, as :func:`fit` merges its statistics. The result is the
    :class:`nbayes.model_selection.FoldStatistics` of the same folds in memory (its
    ``train_model(i, params)`` is the model of the rows outside fold i, made from
    statistics), to floating-point rounding.

    Parameters
    ----------
    estimator, X, y, sample_weight, classes, split_every
        As :func:`fit`.
    folds : column name, dask Series, dask or in-memory array, optional
        The fold (0 .. n_folds - 1) of each row. By default a hash of each row's key:
        its position for a dask array (:func:`hash_folds` of ``0 .. n - 1``), its index
        value for a dask DataFrame (``hash_folds(df.index, n_folds)``).
    n_folds : int, default=5
        The number of folds.

    Returns
    -------
    nbayes.model_selection.FoldStatistics
        ``model`` is the estimator fitted on all rows; ``splits`` is None (the rows stay on
        the cluster).

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes import dask as nbdask
    >>> counts = np.random.default_rng(0).poisson(1.0, size=(600, 20))
    >>> X = da.from_array(counts, chunks=(200, 20))
    >>> y = np.repeat(["ham", "spam"], 300)
    >>> folds = nbdask.fold_statistics(MultinomialNB(), X, y, n_folds=3)
    >>> folds.train_model(0, {"alpha": 0.5}).classes_.tolist()
    ['ham', 'spam']
    """
    from ..model_selection import FoldStatistics

    if int(n_folds) < 2:
        raise ParameterError(f"n_folds must be an integer >= 2; got {n_folds!r}.")
    n_folds = int(n_folds)
    if int(split_every) < 2:
        raise ParameterError(f"split_every must be an integer >= 2; got {split_every!r}.")
    if classes is not None:
        classes = np.unique(np.asarray(classes))
    if isinstance(X, dd.Series):  # texts
        X = X.to_frame(name=_TEXT)
    if isinstance(X, dd.DataFrame):
        if folds is not None:
            if isinstance(folds, str):
                if folds not in X.columns:
                    raise DataError(f"folds={folds!r} is not a column of X.")
                fold_col = X[folds]
                X = X.drop(columns=[folds])
            elif isinstance(folds, dd.Series):
                fold_col = folds
            else:
                raise DataError(
                    "With a dask DataFrame X, folds must be a column name of X or a dask "
                    f"Series; got {type(folds).__name__}."
                )
        X, parts = _frame_partitions(X, y, sample_weight)
        if folds is not None:
            parts = parts.assign(**{_F: fold_col})
        meta = X._meta
        labelled = parts.drop(columns=[_F]) if folds is not None else parts
        shell, _ = _set_up(estimator, X, meta, int(split_every), labelled)
    else:
        X_parts, offsets = _row_partitions(X)
        if folds is None and offsets is None:
            raise DataError(
                "X's row chunks are of unknown size, so rows have no positions to hash; "
                "pass folds, or compute the chunk sizes (X.compute_chunk_sizes())."
            )
        y_parts = _vector_partitions(y, X, "y")
        w_parts = (
            [None] * len(X_parts)
            if sample_weight is None
            else _vector_partitions(sample_weight, X, "sample_weight")
        )
        f_parts = [None] * len(X_parts) if folds is None else _vector_partitions(folds, X, "folds")
        firsts = list(offsets) if offsets else [None] * len(X_parts)
        shell, _ = _set_up(estimator, X, int(X.shape[1]), int(split_every))
        parts = list(zip(X_parts, y_parts, w_parts, f_parts, firsts))
    shell_key = dask.delayed(shell)  # shipped once
    per_fold = map_reduce(
        _partition_fold_stats,
        (shell_key, classes, n_folds),
        parts,
        _merge_fold_partials,
        int(split_every),
        reduce_args=(shell,),
    )
    counted = [None] * n_folds if per_fold is None else per_fold[1]
    empty = [k for k, stats in enumerate(counted) if stats is None]
    if empty:
        raise DataError(f"Fold {empty[0]} has no rows; use fewer folds.")
    seen = per_fold[0]
    found = seen if classes is None else classes
    if classes is None:
        check_classification_targets(found)
    test_stats = _aligned(shell, counted, pd.Index(found).get_indexer(seen), len(found))
    return FoldStatistics.from_statistics(shell, found, test_stats)


def _partition_fold_scores(models, metrics, classes, n_folds, block: Block):
    """Held-out sums of one partition: each row is scored by the candidates of its own fold
    (all of them in one pass, ``joint_log_scores_of``). Returns (sums, class_rows): sums of
    shape (n_metrics, n_folds, n_candidates, 2), the weighted sum of each metric's
    :func:`~nbayes.model_selection.row_scores` and the weight; class_rows (n_folds,
    n_classes), the rows of each class per fold."""
    from ..model_selection import row_scores

    X, y, w, f, index, offset = block
    if y is None:  # a DataFrame partition carries labels, weights and folds as columns
        keys = X.index.to_numpy()
        f = X[_F].to_numpy() if _F in X.columns else None
        w = X[_W].to_numpy(dtype=np.float64) if _W in X.columns else None
        y = X[_Y].to_numpy()
        X = X.drop(columns=[c for c in (_Y, _W, _F) if c in X.columns])
    else:
        keys = np.arange(X.shape[0], dtype=np.int64) + (offset or 0)
        y = np.asarray(y).ravel()
    n = X.shape[0]
    sums = np.zeros((len(metrics), n_folds, len(models[0]), 2))
    class_rows = np.zeros((n_folds, len(classes)))
    try:
        with rows_from(offset or 0):
            ids = _fold_ids(f, n, n_folds, keys)
            weights = check_sample_weight(w, n, allow_all_zero=True)
            codes, row = label_codes(y, classes)
            if row is not None:
                raise UnknownLabelError(
                    f"Label {y[row : row + 1].tolist()[0]!r} at row {row} was not counted "
                    "in the first pass; the data changed between the passes."
                )
            for k in range(n_folds):  # bounded by the number of folds
                rows = np.flatnonzero(ids == k)
                if rows.size == 0:
                    continue
                part = X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]
                c_k, w_k = codes[rows], weights[rows]
                class_rows[k] = np.bincount(c_k, minlength=len(classes))
                with threads(1):  # one partition per Dask thread already
                    scored = models[k][0].joint_log_scores_of(models[k], part)
                    for c, jll in enumerate(scored):  # bounded by the candidates
                        for j, name in enumerate(metrics):  # bounded by the metrics
                            sums[j, k, c] = np.dot(w_k, row_scores(name, jll, c_k)), w_k.sum()
    except NBayesError as exc:
        raise type(exc)(f"In partition {index}: {exc}") from exc
    return sums, class_rows


def _add_fold_scores(*parts):
    return sum(p[0] for p in parts), sum(p[1] for p in parts)


def grid_search(
    estimator: EstimatorProtocol,
    param_grid,
    X,
    y,
    folds=None,
    sample_weight=None,
    *,
    n_folds: int = 5,
    scoring="neg_log_loss",
    refit=True,
    classes=None,
    split_every: int = 8,
):
    """Exact K-fold grid search over finalize-time parameters on Dask, in two distributed
    passes whatever the grid: one counts every fold (:func:`fold_statistics`), one scores
    the held-out rows.

    The client makes each fold's candidate models from statistics (total minus the fold,
    one finalize per candidate) and ships them once; each partition scores its rows of
    fold f by fold f's candidates (all candidates in one pass over the rows) and returns
    weighted sums, which add up in a tree. The fold scores equal those of
    :class:`nbayes.model_selection.GridSearchCV` in memory on the same folds (and so
    scikit-learn's search) to floating-point rounding.

    Parameters
    ----------
    estimator, X, y, folds, sample_weight, n_folds, classes, split_every
        As :func:`fold_statistics`.
    param_grid : dict or list of dicts
        As :class:`~nbayes.model_selection.GridSearchCV`: finalize-time parameters only.
    scoring : "neg_log_loss", "accuracy", or a list of them, default="neg_log_loss"
        Metrics that are sums over rows, so that partitions score their rows apart. A fold
        whose held-out rows lack a class gets NaN for the log-loss, as scikit-learn's scorer
        refuses it. Rows weigh by ``sample_weight``.
    refit : bool or str, default=True
        As GridSearchCV's: ``best_estimator_`` is the finalize of all the statistics.

    Returns
    -------
    nbayes.model_selection.GridSearchCV
        Fitted: ``cv_results_`` (fit times are the candidates' finalizes on the client,
        score times the scoring pass shared out evenly), ``best_params_``,
        ``best_estimator_`` ...

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes import dask as nbdask
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat(["ham", "spam"], 300)
    >>> counts = rng.poisson(1.0 + (y == "spam")[:, None] * (np.arange(20) < 5), (600, 20))
    >>> X = da.from_array(counts, chunks=(200, 20))
    >>> search = nbdask.grid_search(MultinomialNB(), {"alpha": [0.1, 1.0]}, X, y, n_folds=3)
    >>> search.cv_results_["split0_test_score"].shape, sorted(search.best_params_)
    ((2,), ['alpha'])
    """
    import time

    from ..model_selection import QUICK_SIGN, GridSearchCV

    search = GridSearchCV(estimator, param_grid, scoring=scoring, refit=refit)
    candidates = search.candidates()
    quick = search.quick_metrics()
    if quick is None:
        raise ParameterError(
            f"nbayes.dask.grid_search scores by 'neg_log_loss' or 'accuracy' (or a list of "
            f"them), metrics that add up over the rows of the partitions; got {scoring!r}. "
            "Score other metrics in memory with nbayes.model_selection.GridSearchCV."
        )
    stats = fold_statistics(
        estimator,
        X,
        y,
        folds,
        sample_weight,
        n_folds=n_folds,
        classes=classes,
        split_every=split_every,
    )
    n_folds = len(stats.test_stats)
    fit_time = np.zeros((len(candidates), n_folds))
    models = []
    for k in range(n_folds):  # bounded by the number of folds
        train = stats.train_statistics(k)
        fold_models = []
        for c, params in enumerate(candidates):  # bounded by the grid
            start = time.perf_counter()
            fold_models.append(stats.model.finalize_with(params, train))
            fit_time[c, k] = time.perf_counter() - start
        models.append(fold_models)
    keys, names = list(quick), list(quick.values())
    start = time.perf_counter()
    sums, class_rows = _score_folds(
        models, names, stats.classes, n_folds, X, y, folds, sample_weight, int(split_every)
    )
    score_time = np.full(fit_time.shape, (time.perf_counter() - start) / fit_time.size)
    scores = {}
    for j, (key, name) in enumerate(zip(keys, names)):  # bounded by the metrics
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = sums[j, :, :, 0] / sums[j, :, :, 1]  # (folds, candidates)
        if name == "neg_log_loss":
            mean[(class_rows == 0).any(axis=1)] = np.nan
        scores[key] = QUICK_SIGN[name] * mean.T
    return search.fit_fold_scores(stats, scores, fit_time=fit_time, score_time=score_time)


def _score_folds(models, names, classes, n_folds, X, y, folds, sample_weight, split_every):
    """The held-out pass of :func:`grid_search`: (sums, class_rows) of all partitions."""
    models_key = dask.delayed(models)  # shipped once
    if isinstance(X, dd.Series):  # texts
        X = X.to_frame(name=_TEXT)
    if isinstance(X, dd.DataFrame):
        fold_col = None
        if isinstance(folds, str):
            fold_col = X[folds]
            X = X.drop(columns=[folds])
        elif folds is not None:
            fold_col = folds
        X, parts = _frame_partitions(X, y, sample_weight)
        if fold_col is not None:
            parts = parts.assign(**{_F: fold_col})
    else:
        X_parts, offsets = _row_partitions(X)
        y_parts = _vector_partitions(y, X, "y")
        w_parts = (
            [None] * len(X_parts)
            if sample_weight is None
            else _vector_partitions(sample_weight, X, "sample_weight")
        )
        f_parts = [None] * len(X_parts) if folds is None else _vector_partitions(folds, X, "folds")
        firsts = list(offsets) if offsets else [None] * len(X_parts)
        parts = list(zip(X_parts, y_parts, w_parts, f_parts, firsts))
    args = (models_key, names, classes, n_folds)
    return map_reduce(_partition_fold_scores, args, parts, _add_fold_scores, split_every)
