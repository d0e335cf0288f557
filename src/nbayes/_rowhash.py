"""The one hash of rows: which cross-validation fold a row falls in, and the counter-based
random numbers drawn per row, as pure functions of the row's key.

A row's key is its global row number (a table read in chunks by the command line, a dask
array's positions, the rows of EM) or its index value (a dask DataFrame). The hash is
splitmix64's finaliser applied to the key mixed with the seed's own hash (integer keys as
themselves, modulo 2**64; other keys -- strings, floats, dates -- by pandas' ``hash_array`` of
their values first), so the fold of a row depends only on its key, the seed and the number of
folds: never on the chunking, the partitioning, the run or the platform. The command line's
``--alpha cv`` folds, :func:`nbayes.dask.fold_statistics`' default folds (a dask array's
positions, or a DataFrame's default row numbers) and ``SemiSupervisedNB``'s held-out folds
(without ``random_state``: seed 0) are therefore the same folds of the same rows, and
``SemiSupervisedNB``'s random starting shares are drawn from the same hash of (row, draw).
(``alpha="cv"`` inside ``fit`` and ``GridSearchCV`` hold all the rows and use scikit-learn's
stratified splits instead.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: The golden-ratio increment of splitmix64 (one step of its counter).
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def row_hash(keys, seed: int = 0) -> np.ndarray:
    """64-bit hash of each key, keyed by ``seed``: a uint64 array of ``keys``' shape.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes._rowhash import row_hash
    >>> bool(np.array_equal(row_hash(np.arange(5, 8)), row_hash(np.arange(8))[5:]))
    True
    """
    keys = np.asarray(keys)
    if keys.dtype.kind in "iub":
        bits = keys.astype(np.uint64)  # negative keys wrap: still one value per key
    else:
        bits = pd.util.hash_array(keys.ravel(), categorize=False).reshape(keys.shape)
    key = _splitmix64(np.uint64(seed) + np.zeros(1, np.uint64))
    return _splitmix64(bits ^ key)


def hash_folds(keys, n_folds: int, seed: int = 0) -> np.ndarray:
    """Fold of each row from a hash of its key (row number or index value): stable across
    partitionings and runs, about ``1 / n_folds`` of the rows each.

    Parameters
    ----------
    keys : array-like of shape (n_samples,)
        One key per row: its row number, or its index value in a DataFrame.
    n_folds : int
        The number of folds.
    seed : int, default=0
        Another seed gives another assignment of the rows to the folds.

    Returns
    -------
    ndarray of shape (n_samples,)
        The fold of each row, in ``0 .. n_folds - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.dask import hash_folds
    >>> np.bincount(hash_folds(np.arange(1000), 5)).tolist()  # about 200 each
    [179, 208, 218, 186, 209]
    """
    return (row_hash(keys, seed) % np.uint64(n_folds)).astype(np.intp)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, vectorised (wrapping uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        x = x + GOLDEN
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))
