"""Distributed prediction: the fitted model shipped once, mapped lazily over the blocks."""

from __future__ import annotations

from typing import Any

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._threads import threads
from ..exceptions import DataError


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


def predict(estimator, X) -> Any:
    """Most probable class per row, computed lazily block by block.

    Parameters
    ----------
    estimator : fitted nbayes estimator
        Any fitted nbayes estimator (or a wrapper of one, such as GridSearchCV). It is
        sent to each worker once, not once per block.
    X : dask array or dask DataFrame
        The samples, in blocks of rows (for TextNB: a dask Series of texts). An array's
        column chunks are joined first, so that every block holds whole rows.

    Returns
    -------
    dask array or dask Series
        Lazy: a dask array of shape (n_samples,) for an array X; for a DataFrame or Series,
        a dask Series named "prediction" on X's index.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes import dask as nbdask
    >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
    >>> X = da.from_array(np.array([[3, 0], [0, 2], [1, 1]]), chunks=(2, 2))
    >>> nbdask.predict(model, X).compute().tolist()
    ['a', 'b', 'a']
    """
    return _predict(estimator, X, "predict")


def predict_proba(estimator, X) -> Any:
    """Posterior P(y | x) per row, computed lazily block by block.

    Parameters
    ----------
    estimator : fitted nbayes estimator
        Any fitted nbayes estimator (or a wrapper of one, such as GridSearchCV). It is
        sent to each worker once, not once per block.
    X : dask array or dask DataFrame
        The samples, in blocks of rows (for TextNB: a dask Series of texts). An array's
        column chunks are joined first, so that every block holds whole rows.

    Returns
    -------
    dask array or dask DataFrame
        Lazy: a dask array of shape (n_samples, n_classes) for an array X; for a
        DataFrame or Series, a dask DataFrame on X's index with one column per class.
        Columns in ``classes_`` order.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes import dask as nbdask
    >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
    >>> X = da.from_array(np.array([[3, 0], [0, 2], [1, 1]]), chunks=(2, 2))
    >>> nbdask.predict_proba(model, X).compute().round(2)
    array([[0.99, 0.01],
           [0.26, 0.74],
           [0.74, 0.26]])
    """
    return _predict(estimator, X, "predict_proba")


def predict_log_proba(estimator, X) -> Any:
    """Log posterior log P(y | x) per row, computed lazily block by block.

    Parameters
    ----------
    estimator : fitted nbayes estimator
        Any fitted nbayes estimator (or a wrapper of one, such as GridSearchCV). It is
        sent to each worker once, not once per block.
    X : dask array or dask DataFrame
        The samples, in blocks of rows (for TextNB: a dask Series of texts). An array's
        column chunks are joined first, so that every block holds whole rows.

    Returns
    -------
    dask array or dask DataFrame
        Lazy: a dask array of shape (n_samples, n_classes) for an array X; for a
        DataFrame or Series, a dask DataFrame on X's index with one column per class.
        Columns in ``classes_`` order.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes import dask as nbdask
    >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
    >>> X = da.from_array(np.array([[3, 0], [0, 2], [1, 1]]), chunks=(2, 2))
    >>> proba = nbdask.predict_log_proba(model, X).compute()
    >>> bool(np.allclose(np.exp(proba), model.predict_proba(X.compute())))
    True
    """
    return _predict(estimator, X, "predict_log_proba")


def predict_joint_log_proba(estimator, X) -> Any:
    """Joint log P(x, y) per row, computed lazily block by block.

    Parameters
    ----------
    estimator : fitted nbayes estimator
        Any fitted nbayes estimator (or a wrapper of one, such as GridSearchCV). It is
        sent to each worker once, not once per block.
    X : dask array or dask DataFrame
        The samples, in blocks of rows (for TextNB: a dask Series of texts). An array's
        column chunks are joined first, so that every block holds whole rows.

    Returns
    -------
    dask array or dask DataFrame
        Lazy: a dask array of shape (n_samples, n_classes) for an array X; for a
        DataFrame or Series, a dask DataFrame on X's index with one column per class.
        Columns in ``classes_`` order.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes import dask as nbdask
    >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
    >>> X = da.from_array(np.array([[3, 0], [0, 2], [1, 1]]), chunks=(2, 2))
    >>> nbdask.predict_joint_log_proba(model, X).shape
    (3, 2)
    """
    return _predict(estimator, X, "predict_joint_log_proba")
