"""Distributed fit and predict on Dask: accumulate per partition, merge in a tree, finalize once.

Naive Bayes learns additive statistics, so a distributed fit is a *map* of ``accumulate`` over
the partitions, a *tree* of ``merge`` calls and one ``finalize`` on the client. Every partition
is processed in parallel and only statistics (class x feature arrays) travel; the result equals
the single-machine ``fit`` on the same rows to floating-point rounding, whatever the
partitioning. (Chaining ``partial_fit`` block after block, as dask-ml's ``Incremental`` does,
would run one partition at a time.)

Labels need no separate pass: each partition counts the classes it sees and statistics are laid
out over the union of labels when they merge, so the classes come out sorted exactly as
``fit`` sorts them. What must be known before anything can be counted is found in a cheap
first pass: the column groups and category vocabularies of ``MixedNB`` (rows, and the distinct
values of the non-float columns), the vocabulary of a ``TextNB`` with a CountVectorizer
(word counts per partition, added up), and the category values and numeric bin edges of AODE,
TAN, KDB and JointBayes (a pass that sees the labels: the weight of every distinct value per
class, added up, from which the edges are cut exactly as ``fit`` cuts them). Prediction maps
the fitted model over the blocks and stays lazy.

Install with ``pip install "nbayes[dask]"``. Computations run on the current Dask scheduler:
a ``distributed.Client`` when one is active, else Dask's local threads.

Examples
--------
>>> import dask.array as da
>>> import numpy as np
>>> from nbayes import GaussianNB
>>> from nbayes import dask as nbdask
>>> rng = np.random.default_rng(0)
>>> X = da.from_array(rng.normal(size=(1000, 3)), chunks=250)
>>> y = da.from_array(rng.integers(0, 2, 1000), chunks=250)
>>> model = nbdask.fit(GaussianNB(), X, y)
>>> local = GaussianNB().fit(X.compute(), y.compute())
>>> bool(np.allclose(model.theta_, local.theta_, rtol=1e-12))
True
>>> nbdask.predict(model, X)  # lazy, one task per block
dask.array<..., shape=(1000,), dtype=int64, chunksize=(250,), chunktype=numpy.ndarray>
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial, reduce
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

try:
    import dask
    import dask.array as da
    import dask.dataframe as dd
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'nbayes.dask needs Dask; install it with: pip install "nbayes[dask]"'
    ) from exc

from ._docstrings import shared_doc, shared_parameters
from ._rowhash import hash_folds
from ._threads import threads
from ._validation import rows_from
from .distributions import Labels
from .estimators._base import check_sample_weight, label_codes
from .estimators._protocol import EstimatorProtocol, SurveyStep
from .exceptions import DataError, NBayesError, ParameterError, UnknownLabelError

__all__ = [
    "fit",
    "fit_semisupervised",
    "fold_statistics",
    "grid_search",
    "hash_folds",
    "predict",
    "predict_joint_log_proba",
    "predict_log_proba",
    "predict_proba",
]


# -- partitions ------------------------------------------------------------------------------
def _row_partitions(X) -> tuple[list, list[int] | None]:
    """Delayed row blocks of array X and each block's first row (None where Dask does not
    know)."""
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise DataError(f"X must be 2-dimensional (rows, features); got shape {X.shape}.")
        if X.numblocks[1] > 1:
            # Every family needs whole rows; columns of one row block are joined once here.
            X = X.rechunk({1: -1})
        blocks = list(X.to_delayed()[:, 0])
        sizes = X.chunks[0]
        if any(np.isnan(s) for s in sizes):
            return blocks, None
        return blocks, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int).tolist()
    raise DataError(
        f"X must be a dask array or dask DataFrame; got {type(X).__name__}. For data in memory "
        "call the estimator's own fit, or wrap it: dask.array.from_array(X, chunks=...)."
    )


def _vector_partitions(v, X, name: str) -> list:
    """Delayed blocks of labels or weights, aligned with the row blocks of array X."""
    n_parts = X.numblocks[0]
    if isinstance(v, dd.DataFrame):
        raise DataError(
            f"{name} must be one column (a dask Series or 1-d array); got a "
            f"DataFrame with columns {list(v.columns)!r}."
        )
    if isinstance(v, dd.Series):
        parts = list(v.to_delayed())
    elif isinstance(v, da.Array):
        if v.ndim != 1:
            raise DataError(f"{name} must be 1-dimensional; got shape {v.shape}.")
        row_chunks = X.chunks[0]
        known = not any(np.isnan(c) for c in row_chunks + v.chunks[0])
        if known and v.chunks[0] != row_chunks:
            if v.shape[0] != X.shape[0]:
                raise DataError(
                    f"X has {X.shape[0]} rows but {name} has {v.shape[0]}; they must match."
                )
            v = v.rechunk({0: row_chunks})
        parts = list(v.to_delayed())
    else:
        arr = np.asarray(v)
        if arr.ndim != 1 or arr.shape[0] != X.shape[0]:
            raise DataError(
                f"X has {X.shape[0]} rows but {name} has shape {arr.shape}; give one value per row."
            )
        parts = list(da.from_array(arr, chunks=(X.rechunk({1: -1}).chunks[0],)).to_delayed())
    if len(parts) != n_parts:
        raise DataError(
            f"X has {n_parts} row blocks but {name} has {len(parts)}; they must be chunked "
            "alike (rechunk one to the other's chunks)."
        )
    return parts


#: Columns that carry labels and weights next to the features inside each partition.
_Y, _W = "__nbayes_y__", "__nbayes_sample_weight__"


def _frame_partitions(X, y, sample_weight) -> tuple[Any, Any]:
    """Features, labels and weights of a dask DataFrame joined into one frame per partition.

    ``y`` and ``sample_weight`` may be column names of X or dask Series. Joining them with
    ``assign`` lets Dask align the partitions (it may fuse a one-column read into fewer
    partitions than the features have), exactly as pandas' ``assign`` aligns rows.
    """
    extra = {}
    for key, v, name in ((_Y, y, "y"), (_W, sample_weight, "sample_weight")):
        if v is None:
            continue
        if isinstance(v, str):
            if v not in X.columns:
                raise DataError(
                    f"{name}={v!r} is not a column of X; columns are {list(X.columns)!r}."
                )
            extra[key] = X[v]
            X = X.drop(columns=[v])
        elif isinstance(v, dd.Series):
            extra[key] = v
        else:
            raise DataError(
                f"With a dask DataFrame X, {name} must be a column name of X or a dask Series "
                f"(e.g. a column of the same DataFrame); got {type(v).__name__}."
            )
    try:
        frame = X.assign(**extra)
    except ValueError as exc:
        raise DataError(
            f"Cannot align the partitions of y / sample_weight with X: {exc} "
            "Take them from the same DataFrame as X."
        ) from exc
    return X, frame


# -- map and reduce steps (run on the workers) --------------------------------------------------
def _partition_stats(shell, X, y, w, classes, index: int, offset: int | None):
    """(classes seen, statistics) of one partition, or None for an empty one.

    For DataFrames ``y`` is None and the labels (and weights) are columns of the partition.
    """
    if y is None:
        y = X[_Y]
        w = X[_W] if _W in X.columns else None
        X = X.drop(columns=[c for c in (_Y, _W) if c in X.columns])
    n = X.shape[0]
    where = f"partition {index}" + (
        f" (rows {offset}..{offset + n - 1})"
        if offset is not None
        else " (rows counted from the partition's start)"
    )
    try:
        with rows_from(offset or 0):
            y = np.asarray(y).ravel()
            if y.shape[0] != n:
                raise DataError(f"X has {n} rows but y has {y.shape[0]} labels.")
            if n == 0:
                return None
            weights = check_sample_weight(w, n, allow_all_zero=True)
            if classes is None:
                classes, codes = np.unique(y, return_inverse=True)
            else:
                codes, row = label_codes(y, classes)
                if row is not None:
                    raise UnknownLabelError(
                        f"Label {y[row : row + 1].tolist()[0]!r} at row {row + (offset or 0)} is "
                        f"not among classes {classes.tolist()!r}. Pass every label in "
                        "`classes`, or leave it out to find the labels in the data."
                    )
            # Dask runs partitions side by side already: one thread each, not a pool each.
            with threads(1):
                stats = shell.accumulate(X, Labels(codes, weights, len(classes)), mode="count")
    except NBayesError as exc:
        raise type(exc)(f"In {where}: {exc}") from exc
    return classes, stats


def _frame_stats(part: pd.DataFrame, shell, classes, partition_info=None) -> pd.Series:
    """:func:`_partition_stats` of a DataFrame partition, boxed in a one-element Series.

    Running it through ``map_partitions`` lets Dask fuse it with the reading of the partition
    into one task, so no partition waits in memory between reading and counting.
    """
    index = (partition_info or {}).get("number", 0)
    stats = _partition_stats(shell, part, None, None, classes, index, None)
    return pd.Series([stats], dtype=object)


def _unbox(part):
    return part.iloc[0] if isinstance(part, pd.Series) else part


def _merge_partials(shell, *parts):
    """Merge (classes, statistics) pairs, laying each out over the union of their classes."""
    parts = [p for p in map(_unbox, parts) if p is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    classes = reduce(np.union1d, [c for c, _ in parts])
    index = pd.Index(classes)
    aligned = [shell.align_statistics(s, index.get_indexer(c), len(classes)) for c, s in parts]
    return classes, reduce(shell.merge_statistics, aligned)


def _tree(tasks: list, shell, split_every: int):
    """Reduce delayed partials with a tree of fan-in ``split_every`` (depth log_k(n))."""
    merge = dask.delayed(_merge_partials, pure=True)
    while len(tasks) > 1:
        tasks = [
            merge(shell, *tasks[i : i + split_every]) for i in range(0, len(tasks), split_every)
        ]
    return tasks[0] if tasks else merge(shell)


# -- set-up: the estimator's survey passes ------------------------------------------------------
def _summarize(part, summarize, labels: bool = False) -> pd.Series:
    """A survey's summary of one partition, boxed so that Dask treats it as a partition.
    With ``labels``, the partition carries the label (and weight) columns, passed on apart."""
    if labels:
        y = part[_Y].to_numpy()
        w = part[_W].to_numpy(dtype=np.float64) if _W in part.columns else None
        part = part.drop(columns=[c for c in (_Y, _W) if c in part.columns])
        return pd.Series([summarize(part, y, w)], dtype=object)
    return pd.Series([summarize(part)], dtype=object)


def _combine(combine, *parts):
    return combine(*[_unbox(p) for p in parts])


def _survey(X, step: SurveyStep, split_every: int, labelled=None):
    """Run one survey pass of the estimator over the partitions of X: map, tree, compute.
    ``labelled`` is X with the label and weight columns (for a pass that needs labels)."""
    columns = list(X.columns) if step.columns is None else list(step.columns)
    if step.labels:
        if labelled is None:
            raise DataError("This survey pass needs the labels, which were not given.")
        part = labelled[columns + [c for c in (_Y, _W) if c in labelled.columns]]
    else:
        part = X[columns]
    boxed = part.map_partitions(
        _summarize,
        step.summarize,
        step.labels,
        meta=pd.Series(dtype=object),
        enforce_metadata=False,
    )
    tasks = list(boxed.to_delayed())
    if not tasks:
        raise DataError("X has no partitions: there is nothing to learn from.")
    combine = dask.delayed(_combine, pure=True)
    while len(tasks) > 1:
        tasks = [
            combine(step.combine, *tasks[i : i + split_every])
            for i in range(0, len(tasks), split_every)
        ]
    (result,) = dask.compute(tasks[0])
    return _unbox(result)


def _set_up(estimator: EstimatorProtocol, X, meta, split_every: int, labelled=None):
    """(an unfitted copy of ``estimator`` set up as ``fit`` on all rows of X would set it up,
    the survey summary it was set up from): what each partition needs to count.
    ``labelled``: X with the label and weight columns, for passes that need labels."""
    shell = clone(estimator)
    summary = None
    while (step := shell.survey_step(meta, summary)) is not None:
        if not isinstance(X, dd.DataFrame):
            raise DataError(
                f"{type(estimator).__name__} surveys its data before counting, which needs a "
                f"dask DataFrame (or Series); got {type(X).__name__}."
            )
        summary = step.finish(summary, _survey(X, step, split_every, labelled))
    shell.setup(meta, summary)
    return shell, summary


# -- public API ------------------------------------------------------------------------------
@shared_parameters
def fit(
    estimator: EstimatorProtocol,
    X,
    y,
    sample_weight=None,
    *,
    classes=None,
    split_every: int = 8,
) -> EstimatorProtocol:
    """Fit an nbayes estimator on Dask collections, one task per partition.

    Each partition's statistics are accumulated where the partition lives, merged in a tree
    (``split_every`` at a time) and finalized once, so the model equals ``estimator.fit`` on
    the same rows to floating-point rounding, for any partitioning. Empty partitions and
    partitions that lack some classes are fine. Everything goes through the estimator
    protocol (:mod:`nbayes.estimators._protocol`): survey passes and set-up, ``accumulate``
    per partition, ``merge_statistics`` in the tree, ``install`` on the client.

    Parameters
    ----------
    estimator : nbayes estimator (a preset, MixedNB, TextNB, AODE, TAN, KDB, JointBayes)
        Fitted in place (previous fitted state is discarded) and returned. MixedNB needs a
        dask DataFrame; its column groups and category codes come from a survey pass over
        the non-float columns, so they are those of ``fit`` on all rows. The semi-naive
        models survey a dask DataFrame for their category values and for the bin edges of
        numeric columns not given in ``bin_edges`` (with a dask array, give every column's
        edges).
    X : dask array of shape (n_samples, n_features) or dask DataFrame
        Dense blocks or ``scipy.sparse`` blocks (e.g. ``X.map_blocks(scipy.sparse.csr_matrix)``).
        For TextNB: a dask Series (or one-column DataFrame) of texts; a CountVectorizer's
        vocabulary is learned in a first distributed pass (word counts per partition, added
        up, then min_df / max_df / max_features as in ``CountVectorizer.fit``), a
        HashingVectorizer needs none.
        Column chunks are joined into whole rows.
    y : dask array, dask Series, array of shape (n_samples,), or a column name
        Labels. With an array X: a dask array or Series chunked like X, or an in-memory array
        (split to match X's row chunks). With a DataFrame X: a column name of X (left out of
        the features) or a dask Series, aligned with X by Dask as ``assign`` does.
    sample_weight : same kinds as y, optional
    classes : array-like, optional
        Every label. By default the labels found in ``y``; passing them turns a label outside
        the list into an UnknownLabelError.
    split_every : int, default=8
        Fan-in of the merge tree.

    Returns
    -------
    estimator
        The fitted estimator: an ordinary nbayes model (save it, merge it, predict in memory).

    Raises
    ------
    DataError
        Inputs that are not Dask collections, misaligned partitions, no rows, or any data
        error of the estimator; the message names the partition and rows.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from nbayes import MultinomialNB
    >>> from nbayes import dask as nbdask
    >>> counts = np.random.default_rng(0).poisson(1.0, size=(600, 20))
    >>> X = da.from_array(counts, chunks=(200, 20)).map_blocks(sp.csr_matrix)
    >>> y = np.repeat(["ham", "spam"], 300)
    >>> nbdask.fit(MultinomialNB(), X, y).classes_.tolist()
    ['ham', 'spam']
    """
    if int(split_every) < 2:
        raise ParameterError(f"split_every must be an integer >= 2; got {split_every!r}.")
    if classes is not None:
        classes = np.unique(np.asarray(classes))
        if classes.size == 0:
            raise ParameterError("classes must not be empty.")
    if not isinstance(estimator, EstimatorProtocol):
        raise ParameterError(
            f"estimator must be an nbayes estimator; got {type(estimator).__name__}."
        )
    if isinstance(X, dd.Series):  # texts
        X = X.to_frame(name=_TEXT)
    if isinstance(X, dd.DataFrame):
        X, parts = _frame_partitions(X, y, sample_weight)
        meta = X._meta  # the columns and dtypes, no rows
    else:
        X_parts, offsets = _row_partitions(X)
        y_parts = _vector_partitions(y, X, "y")
        w_parts = (
            [None] * len(X_parts)
            if sample_weight is None
            else _vector_partitions(sample_weight, X, "sample_weight")
        )
        firsts: list[int | None] = list(offsets) if offsets else [None] * len(X_parts)
        parts = list(zip(X_parts, y_parts, w_parts, firsts))
        meta = int(X.shape[1])
    labelled = parts if isinstance(parts, dd.DataFrame) else None
    shell, summary = _set_up(estimator, X, meta, int(split_every), labelled)
    found, stats = _statistics(shell, parts, classes, int(split_every))
    # The estimator itself is set up only now, so that a failure leaves it as it was.
    estimator.setup(meta, summary)
    return estimator.install(found, stats)


def _statistics(shell, parts, classes, split_every: int):
    """Map, tree-merge and compute: (classes, merged statistics) of all partitions.

    ``parts`` is a dask DataFrame (features plus label and weight columns) or a list of
    delayed (X, y, weight, first row) blocks of arrays.
    """
    shell_key = dask.delayed(shell)  # shipped once
    if isinstance(parts, dd.DataFrame):
        boxed = parts.map_partitions(
            _frame_stats,
            shell_key,
            classes,
            meta=pd.Series(dtype=object),
            enforce_metadata=False,
        )
        tasks = list(boxed.to_delayed())
    else:
        accumulate = dask.delayed(_partition_stats, pure=True)
        tasks = [
            accumulate(shell_key, xb, yb, wb, classes, i, off)
            for i, (xb, yb, wb, off) in enumerate(parts)
        ]
    (result,) = dask.compute(_tree(tasks, shell_key, split_every))
    result = _unbox(result)  # a single partition is never merged
    if result is None:
        raise DataError("X has no rows in any partition: there is nothing to learn from.")
    found, stats = result
    if classes is not None:
        found = classes  # partitions encoded against the given list; keep unseen classes too
    else:
        check_classification_targets(found)
    if not stats["class_count"].any():
        raise DataError(
            "sample_weight is zero for every row: there is nothing to learn from. "
            "Give at least one row a positive weight."
        )
    return found, stats


# -- cross-validation folds in one distributed pass ------------------------------------------------
#: Column that carries each row's fold next to the features inside each partition.
_F = "__nbayes_fold__"


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


def _partition_fold_stats(shell, X, y, w, f, classes, n_folds: int, index: int, offset):
    """Per fold, :func:`_partition_stats` of this partition's rows of that fold."""
    frame = y is None
    n = X.shape[0]
    if frame:
        keys = X.index.to_numpy()
        if _F in X.columns:
            f = X[_F].to_numpy()
            X = X.drop(columns=[_F])
    else:
        keys = np.arange(n, dtype=np.int64) + (offset or 0)
        y = np.asarray(y).ravel()
        w = None if w is None else np.asarray(w).ravel()
    try:
        folds = _fold_ids(f, n, n_folds, keys)
    except NBayesError as exc:
        raise type(exc)(f"In partition {index}: {exc}") from exc
    out = []
    for k in range(n_folds):  # bounded by the number of folds
        rows = np.flatnonzero(folds == k)
        if frame:
            out.append(_partition_stats(shell, X.iloc[rows], None, None, classes, index, offset))
        else:
            part_w = None if w is None else w[rows]
            out.append(_partition_stats(shell, X[rows], y[rows], part_w, classes, index, offset))
    return out


def _frame_fold_stats(part, shell, classes, n_folds, partition_info=None) -> pd.Series:
    index = (partition_info or {}).get("number", 0)
    out = _partition_fold_stats(shell, part, None, None, None, classes, n_folds, index, None)
    return pd.Series([out], dtype=object)


def _merge_fold_partials(shell, *parts):
    """Merge per-fold lists of (classes, statistics) fold by fold."""
    parts = [_unbox(p) for p in parts]
    return [_merge_partials(shell, *fold) for fold in zip(*parts)]


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
    from .model_selection import FoldStatistics

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
        boxed = parts.map_partitions(
            _frame_fold_stats,
            dask.delayed(shell),
            classes,
            n_folds,
            meta=pd.Series(dtype=object),
            enforce_metadata=False,
        )
        tasks = list(boxed.to_delayed())
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
        shell_key = dask.delayed(shell)
        count = dask.delayed(_partition_fold_stats, pure=True)
        tasks = [
            count(shell_key, xb, yb, wb, fb, classes, n_folds, i, off)
            for i, (xb, yb, wb, fb, off) in enumerate(
                zip(X_parts, y_parts, w_parts, f_parts, firsts)
            )
        ]
    merge = dask.delayed(_merge_fold_partials, pure=True)
    while len(tasks) > 1:
        tasks = [
            merge(shell, *tasks[i : i + int(split_every)])
            for i in range(0, len(tasks), int(split_every))
        ]
    (per_fold,) = dask.compute(tasks[0])
    per_fold = _unbox(per_fold)
    empty = [k for k, part in enumerate(per_fold) if part is None]
    if empty:
        raise DataError(f"Fold {empty[0]} has no rows; use fewer folds.")
    found = reduce(np.union1d, [c for c, _ in per_fold]) if classes is None else classes
    if classes is None:
        check_classification_targets(found)
    index = pd.Index(found)
    test_stats = [shell.align_statistics(s, index.get_indexer(c), len(found)) for c, s in per_fold]
    return FoldStatistics.from_statistics(shell, found, test_stats)


def _partition_fold_scores(models, metrics, classes, n_folds, X, y, w, f, index, offset):
    """Held-out sums of one partition: each row is scored by the candidates of its own fold
    (all of them in one pass, ``joint_log_scores_of``). Returns (sums, class_rows): sums of
    shape (n_metrics, n_folds, n_candidates, 2), the weighted sum of each metric's
    :func:`~nbayes.model_selection.row_scores` and the weight; class_rows (n_folds,
    n_classes), the rows of each class per fold."""
    from .model_selection import row_scores

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


def _frame_fold_scores(part, models, metrics, classes, n_folds, partition_info=None):
    index = (partition_info or {}).get("number", 0)
    out = _partition_fold_scores(
        models, metrics, classes, n_folds, part, None, None, None, index, None
    )
    return pd.Series([out], dtype=object)


def _add_fold_scores(*parts):
    parts = [_unbox(p) for p in parts]
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

    from .model_selection import QUICK_SIGN, GridSearchCV

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
        boxed = parts.map_partitions(
            _frame_fold_scores,
            models_key,
            names,
            classes,
            n_folds,
            meta=pd.Series(dtype=object),
            enforce_metadata=False,
        )
        tasks = list(boxed.to_delayed())
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
        score = dask.delayed(_partition_fold_scores, pure=True)
        tasks = [
            score(models_key, names, classes, n_folds, xb, yb, wb, fb, i, off)
            for i, (xb, yb, wb, fb, off) in enumerate(
                zip(X_parts, y_parts, w_parts, f_parts, firsts)
            )
        ]
    add = dask.delayed(_add_fold_scores, pure=True)
    while len(tasks) > 1:
        tasks = [add(*tasks[i : i + split_every]) for i in range(0, len(tasks), split_every)]
    (result,) = dask.compute(tasks[0])
    return _unbox(result)


#: Name of the column that holds texts given as a dask Series.
_TEXT = "__nbayes_text__"


def _apply(X, model, method: str):
    """One block of a prediction; empty blocks give empty results of the right shape."""
    if X.shape[0] == 0:
        n_classes = len(model.classes_)
        return (
            np.empty(0, dtype=model.classes_.dtype)
            if method == "predict"
            else np.empty((0, n_classes))
        )
    with threads(1):  # one block per Dask thread already
        return getattr(model, method)(X)


def _apply_frame(df, model, method: str):
    out = _apply(df, model, method)
    if method == "predict":
        return pd.Series(out, index=df.index, name="prediction")
    return pd.DataFrame(out, index=df.index, columns=list(model.classes_))


def _predict(estimator, X, method: str):
    check_is_fitted(estimator, "classes_")
    model = dask.delayed(estimator)  # shipped once per worker, not once per task
    n_classes = len(estimator.classes_)
    if isinstance(X, (dd.DataFrame, dd.Series)):
        if method == "predict":
            meta = pd.Series(np.empty(0, dtype=estimator.classes_.dtype), name="prediction")
        else:
            meta = pd.DataFrame(np.empty((0, n_classes)), columns=list(estimator.classes_))
        return X.map_partitions(_apply_frame, model, method, meta=meta)
    if not isinstance(X, da.Array):
        raise DataError(
            f"X must be a dask array or dask DataFrame; got {type(X).__name__}. "
            f"For data in memory call the estimator's own {method}."
        )
    if X.ndim != 2:
        raise DataError(f"X must be 2-dimensional (rows, features); got shape {X.shape}.")
    X = X.rechunk({1: -1}) if X.numblocks[1] > 1 else X
    if method == "predict":
        dtype = estimator.classes_.dtype
        return X.map_blocks(
            _apply, model, method, drop_axis=1, dtype=dtype, meta=np.empty(0, dtype=dtype)
        )
    return X.map_blocks(
        _apply,
        model,
        method,
        chunks=(X.chunks[0], (n_classes,)),
        dtype=np.float64,
        meta=np.empty((0, 0)),
    )


# The four prediction functions differ in what they compute per row only.
_PREDICT_FIELDS = {
    "parameters": """
        estimator : fitted nbayes estimator
            Any fitted nbayes estimator (or a wrapper of one, such as GridSearchCV). It is
            sent to each worker once, not once per block.
        X : dask array or dask DataFrame
            The samples, in blocks of rows (for TextNB: a dask Series of texts). An array's
            column chunks are joined first, so that every block holds whole rows.""",
    "proba_returns": """
        dask array or dask DataFrame
            Lazy: a dask array of shape (n_samples, n_classes) for an array X; for a
            DataFrame or Series, a dask DataFrame on X's index with one column per class.
            Columns in ``classes_`` order.""",
    "examples": """
        >>> import dask.array as da
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes import dask as nbdask
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> X = da.from_array(np.array([[3, 0], [0, 2], [1, 1]]), chunks=(2, 2))
        >>> nbdask.predict(model, X).compute().tolist()
        ['a', 'b', 'a']
        >>> nbdask.predict_proba(model, X).compute().round(2)
        array([[0.99, 0.01],
               [0.26, 0.74],
               [0.74, 0.26]])
        >>> proba = nbdask.predict_log_proba(model, X).compute()
        >>> bool(np.allclose(np.exp(proba), model.predict_proba(X.compute())))
        True
        >>> nbdask.predict_joint_log_proba(model, X).shape
        (3, 2)""",
}


@shared_doc(**_PREDICT_FIELDS)
def predict(estimator, X) -> Any:
    """Most probable class per row, computed lazily block by block.

    Parameters
    ----------
    {{parameters}}

    Returns
    -------
    dask array or dask Series
        Lazy: a dask array of shape (n_samples,) for an array X; for a DataFrame or Series,
        a dask Series named "prediction" on X's index.

    Examples
    --------
    {{examples}}
    """
    return _predict(estimator, X, "predict")


@shared_doc(**_PREDICT_FIELDS)
def predict_proba(estimator, X) -> Any:
    """Posterior P(y | x) per row, computed lazily block by block.

    Parameters
    ----------
    {{parameters}}

    Returns
    -------
    {{proba_returns}}

    Examples
    --------
    {{examples}}
    """
    return _predict(estimator, X, "predict_proba")


@shared_doc(**_PREDICT_FIELDS)
def predict_log_proba(estimator, X) -> Any:
    """Log posterior log P(y | x) per row, computed lazily block by block.

    Parameters
    ----------
    {{parameters}}

    Returns
    -------
    {{proba_returns}}

    Examples
    --------
    {{examples}}
    """
    return _predict(estimator, X, "predict_log_proba")


@shared_doc(**_PREDICT_FIELDS)
def predict_joint_log_proba(estimator, X) -> Any:
    """Joint log P(x, y) per row, computed lazily block by block.

    Parameters
    ----------
    {{parameters}}

    Returns
    -------
    {{proba_returns}}

    Examples
    --------
    {{examples}}
    """
    return _predict(estimator, X, "predict_joint_log_proba")


# -- semi-supervised EM --------------------------------------------------------------------------
def _em_summarize(summarize, classes, part, y, w):
    """A survey pass that needs labels, over rows some of which are unlabeled."""
    from .estimators.semisupervised import survey_labels

    return summarize(part, *survey_labels(y, w, classes))


def _em_partition(model, X, y, w, classes, settings, index: int, offset: int | None):
    """:func:`em_batch` of one partition (None for an empty one); errors name the partition."""
    from .estimators.semisupervised import em_batch, encode_labels

    if y is None:  # a DataFrame partition carries its labels and weights as columns
        y, w = X[_Y].to_numpy(), (X[_W].to_numpy(dtype=np.float64) if _W in X.columns else None)
        X = X.drop(columns=[c for c in (_Y, _W) if c in X.columns])
    n = X.shape[0]
    if n == 0:
        return None
    try:
        with rows_from(offset or 0):
            codes = encode_labels(np.asarray(y).ravel(), X, classes, offset or 0)
            weights = check_sample_weight(w, n, allow_all_zero=True)
            with threads(1):  # Dask runs partitions side by side already
                return em_batch(model, X, codes, weights, offset or 0, settings)
    except NBayesError as exc:
        raise type(exc)(f"In partition {index}: {exc}") from exc


def _em_frame(part, model, classes, settings, offsets, partition_info=None):
    index = (partition_info or {}).get("number", 0)
    result = _em_partition(model, part, None, None, classes, settings, index, offsets[index])
    return pd.Series([result], dtype=object)


def _merge_passes(model, *parts):
    parts = [p for p in map(_unbox, parts) if p is not None]
    if not parts:
        return None
    return reduce(lambda a, b: a.merge(b, model), parts)


def _labeled_classes(y) -> np.ndarray:
    from .estimators.semisupervised import unlabeled_mask

    y = np.asarray(y).ravel()
    kept = y[~unlabeled_mask(y)]
    return np.unique(np.asarray(kept.tolist()) if kept.dtype.kind == "O" else kept)


def fit_semisupervised(semi, X, y, sample_weight=None, *, classes=None, split_every: int = 8):
    """Run a :class:`nbayes.SemiSupervisedNB` on Dask collections: one distributed pass per
    EM iteration.

    Every iteration maps :func:`~nbayes.estimators.semisupervised.em_batch` (E-step
    responsibilities, then the partition's statistics with them as soft labels) over the
    partitions, merges the statistics in a tree and installs them on the client, so each
    iteration equals in-memory EM (``semi.fit``) to floating-point rounding, whatever the
    partitioning. Unlabeled rows carry -1 (or None / NaN) in ``y``, as for ``fit``.

    Parameters
    ----------
    semi : SemiSupervisedNB
        Fitted in place and returned.
    X, y, sample_weight
        As in :func:`fit`.
    classes : array-like, optional
        Every class; by default a first pass finds the labels of the labeled rows.
    split_every : int, default=8
        Fan-in of the merge tree.

    Returns
    -------
    semi
        ``semi``, fitted.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from nbayes import MultinomialNB, SemiSupervisedNB
    >>> from nbayes import dask as nbdask
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> counts = rng.poisson(np.where(y[:, None] == 0, [5, 1], [1, 5]))
    >>> partial = np.where(rng.random(400) < 0.05, y, -1)
    >>> X = da.from_array(counts, chunks=(100, 2))
    >>> em = nbdask.fit_semisupervised(SemiSupervisedNB(MultinomialNB()), X, partial)
    >>> local = SemiSupervisedNB(MultinomialNB()).fit(counts, partial)
    >>> bool(np.allclose(em.history_, local.history_, rtol=1e-10))
    True
    """
    from .estimators.semisupervised import SemiSupervisedNB

    if not isinstance(semi, SemiSupervisedNB):
        raise ParameterError(f"semi must be a SemiSupervisedNB; got {type(semi).__name__}.")
    if int(split_every) < 2:
        raise ParameterError(f"split_every must be an integer >= 2; got {split_every!r}.")
    split_every = int(split_every)
    if isinstance(X, dd.Series):  # texts
        X = X.to_frame(name=_TEXT)
    frame = isinstance(X, dd.DataFrame)
    if frame:
        X, parts = _frame_partitions(X, y, sample_weight)
        meta = X._meta
        lengths = parts.map_partitions(len).compute().tolist()
        label_parts = list(parts[_Y].to_delayed())
    else:
        X_parts, offsets = _row_partitions(X)
        y_parts = _vector_partitions(y, X, "y")
        w_parts = (
            [None] * len(X_parts)
            if sample_weight is None
            else _vector_partitions(sample_weight, X, "sample_weight")
        )
        meta = int(X.shape[1])
        if offsets is None:
            lengths = list(dask.compute(*[dask.delayed(len)(p) for p in X_parts]))
        label_parts = y_parts
    if frame or offsets is None:
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(int).tolist()
    if classes is None:
        found = dask.compute(*[dask.delayed(_labeled_classes)(p) for p in label_parts])
        classes = reduce(np.union1d, found) if found else np.array([])
    classes = np.unique(np.asarray(classes))
    if classes.size == 0:
        raise DataError(
            "Every row is unlabeled (-1, None or NaN): EM needs at least one labeled row of "
            "each class to know what the classes are."
        )

    def survey(step):
        if not frame:
            raise DataError(
                f"{type(semi.estimator).__name__} surveys its data before counting, which "
                f"needs a dask DataFrame (or Series); got {type(X).__name__}."
            )
        if step.labels:
            step = replace(step, summarize=partial(_em_summarize, step.summarize, classes))
        return _survey(X, step, split_every, parts)

    def sweep(model, settings, encode=None):
        shipped = dask.delayed(model)  # once per iteration: the model changes every time
        if frame:
            boxed = parts.map_partitions(
                _em_frame,
                shipped,
                classes,
                settings,
                offsets,
                meta=pd.Series(dtype=object),
                enforce_metadata=False,
            )
            tasks = list(boxed.to_delayed())
        else:
            step = dask.delayed(_em_partition, pure=True)
            tasks = [
                step(shipped, xb, yb, wb, classes, settings, i, off)
                for i, (xb, yb, wb, off) in enumerate(zip(X_parts, y_parts, w_parts, offsets))
            ]
        merge = dask.delayed(_merge_passes, pure=True)
        while len(tasks) > 1:
            tasks = [
                merge(shipped, *tasks[i : i + split_every])
                for i in range(0, len(tasks), split_every)
            ]
        (result,) = dask.compute(tasks[0])
        result = _unbox(result)
        if result is None:
            raise DataError("X has no rows in any partition: there is nothing to learn from.")
        return result

    return semi.fit_passes(meta, classes, survey, sweep)
