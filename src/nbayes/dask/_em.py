"""Semi-supervised EM on Dask: one distributed pass per iteration, over the estimator
protocol of :class:`nbayes.SemiSupervisedNB` (map ``accumulate``, tree of
``merge_statistics``, ``install`` on the client)."""

from __future__ import annotations

from functools import reduce

import dask
import dask.dataframe as dd
import numpy as np

from .. import base
from .._threads import threads
from .._training import set_up
from .._validation import rows_from
from ..distributions import Labels
from ..estimators._semisupervised_labels import KnownClasses
from ..exceptions import DataError, NBayesError, ParameterError
from ._fit import _survey
from ._parts import (
    _TEXT,
    _W,
    _Y,
    Block,
    _frame_partitions,
    _row_partitions,
    _vector_partitions,
    map_reduce,
)


def _em_partition(semi, classes, block: Block):
    """``semi.accumulate`` of one partition in the EM pass to come, its labels coded by
    ``classes`` (:class:`~nbayes.estimators._semisupervised_labels.KnownClasses`); None for
    an empty partition. Errors name the partition."""
    X, y, w, _, index, offset = block
    if y is None:  # a DataFrame partition carries its labels and weights as columns
        y, w = X[_Y].to_numpy(), (X[_W].to_numpy(dtype=np.float64) if _W in X.columns else None)
        X = X.drop(columns=[c for c in (_Y, _W) if c in X.columns])
    n = X.shape[0]
    if n == 0:
        return None
    try:
        with rows_from(offset or 0):
            codes = classes.add(np.asarray(y).ravel())
            weights = np.ones(n) if w is None else np.asarray(w, dtype=np.float64).ravel()
            with threads(1):  # Dask runs partitions side by side already
                return semi.accumulate(X, Labels(codes, weights, len(classes)))
    except NBayesError as exc:
        raise type(exc)(f"In partition {index}: {exc}") from exc


def _merge_passes(semi, *parts):
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    return reduce(semi.merge_statistics, parts)


def _labeled_classes(y) -> np.ndarray:
    from ..estimators.semisupervised import unlabeled_mask

    y = np.asarray(y).ravel()
    kept = y[~unlabeled_mask(y)]
    return np.unique(np.asarray(kept.tolist()) if kept.dtype.kind == "O" else kept)


def fit_semisupervised(
    semi, X, y, sample_weight=None, *, classes=None, split_every: int = 8, typed=None
):
    """Run a :class:`nbayes.SemiSupervisedNB` on Dask collections: one distributed pass per
    EM iteration.

    Every iteration maps the estimator's ``accumulate`` (E-step responsibilities, then the
    partition's statistics with them as soft labels) over the partitions, merges the
    statistics in a tree and installs them on the client (the M-step), so each iteration
    equals in-memory EM (``semi.fit``) to floating-point rounding, whatever the
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
    typed : callable, optional
        Maps the classes as ``y`` gives them (an object array, sorted) to their final type,
        once, after the first pass (the command line reads labels as text); None keeps them.

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
    if not base.supports(semi, base.SEMI_SUPERVISED):
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
        parts = list(zip(X_parts, y_parts, w_parts, [None] * len(X_parts), [None] * len(X_parts)))
    if frame or offsets is None:
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(int).tolist()
    if not frame:
        parts = [(*p[:4], offset) for p, offset in zip(parts, offsets)]
    if classes is None:
        found = dask.compute(*[dask.delayed(_labeled_classes)(p) for p in label_parts])
        classes = reduce(np.union1d, found) if found else np.array([])
    classes = np.unique(np.asarray(classes))
    semi.begin(classes)

    def survey(step):
        if not frame:
            raise DataError(
                f"{type(semi.estimator).__name__} surveys its data before counting, which "
                f"needs a dask DataFrame (or Series); got {type(X).__name__}."
            )
        return _survey(X, step, split_every, parts)

    set_up(semi, meta, survey)
    codes = KnownClasses(classes)
    while semi.needs_pass():
        shipped = dask.delayed(semi)  # once per pass: the model changes every time
        stats = map_reduce(
            _em_partition,
            (shipped, codes),
            parts,
            _merge_passes,
            split_every,
            reduce_args=(shipped,),
            offsets=offsets,
        )
        if stats is None:
            raise DataError("X has no rows in any partition: there is nothing to learn from.")
        labels, positions = codes.order(typed)
        semi.install(labels, semi.align_statistics(stats, positions, len(labels)))
    return semi
