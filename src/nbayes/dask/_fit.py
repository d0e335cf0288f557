"""Distributed fit: survey passes and set-up, ``accumulate`` per partition, a tree of
merges, one ``install`` on the client."""

from __future__ import annotations

import warnings
from functools import reduce

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets

from .._labels import fit_classes, label_codes
from .._threads import threads
from .._validation import rows_from
from ..base import EstimatorProtocol, Model, SurveyStep
from ..distributions import Labels
from ..estimators._base import check_sample_weight
from ..exceptions import (
    ColumnWarning,
    DataError,
    NBayesError,
    ParameterError,
    UnknownLabelError,
)
from ._parts import (
    _TEXT,
    _W,
    _Y,
    Block,
    _frame_partitions,
    _row_partitions,
    _unbox,
    _vector_partitions,
    map_reduce,
    tree_reduce,
)


# -- map and reduce steps (run on the workers) --------------------------------------------------
def _partition_stats(shell, classes, block: Block):
    """(classes seen, statistics) of one partition, or None for an empty one.

    A DataFrame partition carries its labels (and weights) as columns.
    """
    X, y, w, index, offset = block.X, block.y, block.w, block.number, block.offset
    if y is None:
        y = X[_Y]
        w = X[_W] if _W in X.columns else None
        X = X.drop(columns=[c for c in (_Y, _W) if c in X.columns])
    n = X.shape[0]
    where = _where(index, offset, n)
    try:
        with rows_from(offset or 0):
            y = np.asarray(y).ravel()
            if y.shape[0] != n:
                raise DataError(f"X has {n} rows but y has {y.shape[0]} labels.")
            if n == 0:
                return None
            classes, codes, weights = _partition_labels(y, w, classes, offset)
            # Dask runs partitions side by side already: one thread each, not a pool each.
            with threads(1):
                stats = shell.accumulate(X, Labels(codes, weights, len(classes)), mode="count")
    except NBayesError as exc:
        raise type(exc)(f"In {where}: {exc}") from exc
    return classes, stats


def _where(index: int, offset: int | None, n: int) -> str:
    """Partition ``index`` of ``n`` rows from row ``offset``, as an error names it."""
    if offset is None:
        return f"partition {index} (rows counted from the partition's start)"
    return f"partition {index} (rows {offset}..{offset + n - 1})"


def _partition_labels(y, w, classes, offset):
    """(classes, class codes, weights) of one partition's labels ``y`` (1-d) and weights
    ``w``: its classes are those of ``y`` as fit finds them (a missing label refused) where
    ``classes`` is None; a label outside given ``classes`` is refused."""
    weights = check_sample_weight(w, y.shape[0], allow_all_zero=True)
    if classes is None:
        classes = fit_classes(y)
        return classes, label_codes(y, classes)[0], weights
    codes, row = label_codes(y, classes)
    if row is not None:
        raise UnknownLabelError(
            f"Label {y[row : row + 1].tolist()[0]!r} at row {row + (offset or 0)} is "
            f"not among classes {classes.tolist()!r}. Pass every label in "
            "`classes`, or leave it out to find the labels in the data."
        )
    return classes, codes, weights


def _merge_partials(shell, *parts):
    """Merge (classes, statistics) pairs, laying each out over the union of their classes."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    classes = reduce(np.union1d, [c for c, _ in parts])
    index = pd.Index(classes)
    aligned = [shell.align_statistics(s, index.get_indexer(c), len(classes)) for c, s in parts]
    return classes, reduce(shell.merge_statistics, aligned)


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
    (result,) = dask.compute(tree_reduce(tasks, step.combine, split_every))
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
    protocol (:mod:`nbayes.base`): survey passes and set-up, ``accumulate``
    per partition, ``merge_statistics`` in the tree, ``install`` on the client.

    Parameters
    ----------
    estimator : nbayes estimator (a preset, MixedNB, TextNB, AODE, TAN, KDB, JointBayes)
        Fitted in place (previous fitted state is discarded) and returned. MixedNB needs a
        dask DataFrame; its column readings (:mod:`nbayes.columns`), groups and category
        codes come from a survey pass over the columns, so they are those of ``fit`` on all
        rows. The semi-naive
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
        Weight of each row, 1 by default: an integer weight counts as that many copies of
        the row, and a zero weight as no row.
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
    meta, summary, found, stats = statistics(
        estimator, X, y, sample_weight, classes=classes, split_every=split_every
    )
    # The estimator itself is set up only now, so that a failure leaves it as it was; the
    # shell's set-up warned of its column choices already.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ColumnWarning)
        estimator.setup(meta, summary)
    return estimator.install(found, stats)


def statistics(
    estimator: EstimatorProtocol, X, y, sample_weight=None, *, classes=None, split_every: int = 8
):
    """:func:`fit` up to its finalize: (the set-up's ``meta`` and survey summary, the
    classes, their merged statistics), for a caller that finalizes once itself (the command
    line types its labels first: :func:`nbayes._training.install`)."""
    if int(split_every) < 2:
        raise ParameterError(f"split_every must be an integer >= 2; got {split_every!r}.")
    if classes is not None:
        classes = np.unique(np.asarray(classes))
        if classes.size == 0:
            raise ParameterError("classes must not be empty.")
    if not isinstance(estimator, Model):
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
        parts = list(zip(X_parts, y_parts, w_parts, [None] * len(X_parts), firsts))
        meta = int(X.shape[1])
    labelled = parts if isinstance(parts, dd.DataFrame) else None
    shell, summary = _set_up(estimator, X, meta, int(split_every), labelled)
    found, stats = _statistics(shell, parts, classes, int(split_every))
    return meta, summary, found, stats


def _statistics(shell, parts, classes, split_every: int):
    """Map, tree-merge and compute: (classes, merged statistics) of all partitions.

    ``parts`` is a dask DataFrame (features plus label and weight columns) or a list of
    delayed (X, y, weight, fold, first row) blocks of arrays (see :func:`map_reduce`).
    """
    shell_key = dask.delayed(shell)  # shipped once
    result = map_reduce(
        _partition_stats,
        (shell_key, classes),
        parts,
        _merge_partials,
        split_every,
        reduce_args=(shell_key,),
    )
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
