"""The binned reading of the density family: cut points between grid bins (MDL or equal
frequency, from :mod:`nbayes._discretise`), a smoothed categorical over the intervals, and the
density each value reads from its interval."""

from __future__ import annotations

import numpy as np

from .._discretise import equal_frequency_cuts, mdl_cuts
from ._base import Params
from ._estimates import check_alpha, pseudo_count
from ._grid import bin_index


def intervals(counts: np.ndarray, discretize: str, n_equal: int, alpha, estimate: str) -> Params:
    """Cut points per feature (``discretize``: "mdl", or "equal_frequency" into ``n_equal``
    intervals) and the smoothed log-probability of each interval."""
    K, d, B = counts.shape
    pooled = counts.sum(axis=0)
    interval = np.zeros((d, B), dtype=np.int64)
    occupied = np.zeros((d, 2), dtype=np.int64)
    n_intervals = np.ones(d, dtype=np.int64)
    for j in range(d):  # bounded by the features; cut search is per feature by nature
        bins = np.flatnonzero(pooled[j] > 0)
        if bins.size == 0:
            continue
        occupied[j] = bins[0], bins[-1]
        if discretize == "mdl":
            cuts = mdl_cuts(counts[:, j, bins])
        else:
            cuts = equal_frequency_cuts(pooled[j, bins], n_equal)
        # A cut between occupied bins a and b sits halfway between them, on a bin edge.
        edges = np.array([(bins[c - 1] + 1 + bins[c]) // 2 for c in cuts], dtype=np.int64)
        interval[j] = np.searchsorted(edges, np.arange(B), side="right")
        n_intervals[j] = len(cuts) + 1
    I_max = int(n_intervals.max(initial=1))
    per = np.zeros((K, d, I_max))
    for k in range(K):  # bounded by the classes
        keys = (np.arange(d)[:, None] * I_max + interval).ravel()
        per[k] = np.bincount(keys, weights=counts[k].ravel(), minlength=d * I_max).reshape(d, I_max)
    alpha = check_alpha(alpha, d, estimate)
    a = pseudo_count(alpha, estimate)[None, :, None]
    real = np.arange(I_max)[None, :] < n_intervals[:, None]  # (d, I_max)
    num = np.where(real[None], per + a, 0.0)
    den = per.sum(axis=2, keepdims=True) + n_intervals[None, :, None] * a
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.where(den > 0, np.log(num) - np.log(np.where(den > 0, den, 1.0)), 0.0)
        # No weight and no pseudo-count: uniform over the intervals.
        log_p = np.where(den > 0, log_p, -np.log(n_intervals)[None, :, None])
    log_p = np.where(real[None], log_p, 0.0)
    return {
        "interval": interval,
        "n_intervals": n_intervals,
        "occupied": occupied,
        "interval_log_prob": log_p,
    }


def interval_widths(params: Params) -> np.ndarray:
    """Width in bins of each interval clipped to the occupied bins, (d, I_max), >= 1."""
    interval, occupied = params["interval"], params["occupied"]
    d, B = interval.shape
    I_max = params["interval_log_prob"].shape[2]
    b = np.arange(B)
    inside = (b >= occupied[:, :1]) & (b <= occupied[:, 1:])
    keys = (np.arange(d)[:, None] * I_max + interval).ravel()
    bins = np.bincount(keys, weights=inside.ravel(), minlength=d * I_max).reshape(d, I_max)
    return np.maximum(bins, 1.0)


def binned_terms(params, X, cols, nan) -> np.ndarray:
    """Per-class log-densities of the binned columns ``cols``, (n, K, len(cols)): each value
    reads its bin's interval."""
    table = params["bin_log"][:, cols]
    K, m, B = table.shape
    x = X[:, cols]
    missing = None if nan is None else nan[:, cols]
    if missing is not None:
        x = np.where(missing, 0.0, x)
    b = np.clip(bin_index(x, params["level"][cols]) - params["start"][cols], 0, B - 1)
    flat = b.astype(np.intp) + np.arange(m) * B
    out = np.empty((X.shape[0], K, m))
    for k in range(K):  # bounded by the classes: one gather per cell and class
        v = table[k].ravel().take(flat)
        if missing is not None:
            v[missing] = 0.0
        out[:, k] = v
    return out
