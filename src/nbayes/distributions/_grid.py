"""The bounded, mergeable grid of the density family: per feature, bins of width a power of
two placed by the range of the values alone, so that statistics on a finer grid move to a
coarser one exactly (see :mod:`nbayes.distributions.density`)."""

from __future__ import annotations

import numpy as np

#: Bits of a value's magnitude that bin indices may use (see the module docstring).
INDEX_BITS = 30
#: Finest level: the grid of a feature whose values are all 0.
LEVEL_MIN = -1000


def grid_of(lo: np.ndarray, hi: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(level, start) of the grid of each feature's range ``[lo, hi]``: bins of width
    ``2**level``, the first holding ``lo``, ``bins`` of them covering ``hi``.

    ``level`` is the smallest integer at which the range fits, and at least the magnitude's
    exponent minus :data:`INDEX_BITS`; both only grow when the range does, so the grid of a
    union is never finer than the grid of a part.
    """
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    _, exponent = np.frexp(np.maximum(np.abs(lo), np.abs(hi)))
    level = np.maximum(exponent.astype(np.int64) - INDEX_BITS, LEVEL_MIN)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # Below 2**guess a bin is too narrow for the range (span / 2**e > bins + 1): start
        # there and step up; one or two steps at most.
        guess = np.floor(np.log2((hi - lo) / bins)) - 1
    level = np.where(np.isfinite(guess), np.maximum(level, guess), level).astype(np.int64)
    while True:  # bounded: a few steps from the guess (more only for ranges past 1e308)
        fits = bin_index(hi, level) - bin_index(lo, level) <= bins - 1
        if fits.all():
            break
        level[~fits] += 1
    return level, bin_index(lo, level).astype(np.int64)


def bin_index(x, level) -> np.ndarray:
    """``floor(x / 2**level)``, exact (a power-of-two scaling)."""
    return np.floor(np.ldexp(x, (-np.asarray(level)).astype(np.int32)))


def regrid(counts: np.ndarray, grid, new_grid) -> np.ndarray:
    """Counts (n_classes, n_features, bins) moved from ``grid`` to the coarser ``new_grid``
    (both (level, start)): each bin is added into the bin that contains it."""
    (level, start), (new_level, new_start) = grid, new_grid
    if np.array_equal(level, new_level) and np.array_equal(start, new_start):
        return counts
    K, d, B = counts.shape
    # Integer indices halve per level (an arithmetic shift floors negatives too). Indices are
    # below 2**(INDEX_BITS + 2) in magnitude, so a shift of 62 already gives 0 or -1.
    shift = np.clip(new_level - level, 0, 62)
    absolute = start[:, None] + np.arange(B)
    target = (absolute >> shift[:, None]) - new_start[:, None]
    # Features without data have all-zero counts whatever their grid: clip keeps them valid.
    keys = np.arange(d)[:, None] * B + np.clip(target, 0, B - 1)
    flat = (np.arange(K)[:, None, None] * (d * B) + keys[None]).ravel()
    return np.bincount(flat, weights=counts.ravel(), minlength=K * d * B).reshape(K, d, B)
