"""The flat layout of categorical counts: per class one row, and in it each feature's
categories side by side from its offset (:func:`offsets_of`); the special codes of a cell, and
how counts move to a layout with more categories."""

from __future__ import annotations

import numpy as np

#: Code of a missing cell (as in pandas' Categorical codes).
MISSING_CODE = -1
#: Code an encoder gives a value outside its vocabulary; any code >= K_j is treated alike.
UNSEEN_CODE = 2**62


def offsets_of(n_categories: np.ndarray) -> np.ndarray:
    """Start of each feature's block in the flat (class, category) layout."""
    n_categories = np.asarray(n_categories)
    out = np.zeros(n_categories.size, dtype=np.intp)
    np.cumsum(n_categories[:-1], out=out[1:])
    return out


def expand(counts: np.ndarray, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Re-lay flat per-category counts from ``old`` to larger ``new`` categories per feature."""
    if np.array_equal(old, new):
        return counts
    if old.size <= 64:
        # A block copy per feature (bounded: a few dozen) runs at memory speed; growing a
        # large vocabulary chunk by chunk relays these arrays once per chunk.
        out = np.zeros((counts.shape[0], int(new.sum())))
        for a, b, n in zip(offsets_of(old).tolist(), offsets_of(new).tolist(), old.tolist()):
            out[:, b : b + n] = counts[:, a : a + n]
        return out
    feature = np.repeat(np.arange(old.size), old)
    local = np.arange(old.sum()) - offsets_of(old)[feature]
    out = np.zeros((counts.shape[0], int(new.sum())))
    out[:, offsets_of(new)[feature] + local] = counts
    return out


def _segment_sums(counts: np.ndarray, n_cat: np.ndarray) -> np.ndarray:
    """Per-feature totals of a flat (n_classes, sum K_j) array, shape (n_classes, n_features)."""
    return (
        np.add.reduceat(counts, offsets_of(n_cat), axis=1)
        if counts.shape[1]
        else np.zeros((counts.shape[0], n_cat.size))
    )
