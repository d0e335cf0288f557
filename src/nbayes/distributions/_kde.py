"""The kernel reading of the density family: the log kernel density of each class on the
lattice of bin centres (and with one row left out, for ``reading="auto"``), and its
interpolation at the values scored."""

from __future__ import annotations

import numpy as np

LOG_2PI = float(np.log(2 * np.pi))
#: A Gaussian kernel is below the smallest float64 (underflows) beyond this many bandwidths.
KERNEL_REACH = 38.0
#: Below this, a kernel sum has lost precision to subnormal numbers: the nearest bins' kernel
#: stands in (see ``kde_tables``).
TINY = 1e-290


def kde_tables(counts: np.ndarray, h: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Log kernel density per class and feature on the lattice of bin centres, extended by
    ``bins // 2`` centres on each side: (n_classes, n_features, 2 * (bins // 2) + bins).

    Each value is a direct (not FFT) sum of non-negative kernel terms, so it keeps its
    relative precision far into the tails; where it underflows, the kernel of the nearest
    occupied bin on either side (the larger) stands in: a lower bound of the sum. A class
    without weight in a feature gets the density of all classes pooled (the feature then says
    nothing about it).
    """
    K, d, B = counts.shape
    P = B // 2
    L = B + 2 * P
    n = counts.sum(axis=2)
    out = np.zeros((K, d, L))
    pooled = counts.sum(axis=0)
    for j in range(d):  # bounded by features x classes; each a convolution of B x kernel
        seen = n[:, j] > 0
        if not seen.any():
            continue
        h_pooled = float(h[seen, j].max())
        for k in range(K):
            c, hk = (counts[k, j], h[k, j]) if seen[k] else (pooled[j], h_pooled)
            out[k, j] = _kde_line(c, hk / width[j], P, L) - np.log(hk)
    return out


def kde_leave_one_out(counts: np.ndarray, h: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Log kernel density at each bin centre of a class once one unit of weight in that bin
    is left out, (n_classes, n_features, bins); -inf where nothing is left.

    The other bins' kernels are summed directly and the bin's own remaining weight added at
    distance 0, rather than one kernel subtracted from the full sum: no cancellation, so a
    lone row far from the others gets its true (tiny) density, the same in every merge order.
    """
    K, d, B = counts.shape
    out = np.full((K, d, B), -np.inf)
    n = counts.sum(axis=2)
    for j in range(d):  # bounded by features x classes, as kde_tables
        for k in range(K):
            c = counts[k, j]
            if n[k, j] <= 1:
                continue
            h_bins = h[k, j] / width[j]
            M = int(min(np.ceil(KERNEL_REACH * h_bins), B))
            kernel = np.exp(-0.5 * (np.arange(-M, M + 1) / h_bins) ** 2)
            kernel[M] = 0.0  # the bin's own weight is added below, less the row left out
            sums = np.convolve(c, kernel)[M : M + B] + np.maximum(c - 1.0, 0.0)
            with np.errstate(divide="ignore"):
                out[k, j] = np.log(sums) - np.log(n[k, j] - 1) - 0.5 * LOG_2PI - np.log(h[k, j])
    return out


def _kde_line(c: np.ndarray, h_bins: float, P: int, L: int) -> np.ndarray:
    """log (sum_b c_b phi((i - P - b) / h) / sum_b c_b) - log(sqrt(2 pi)) for i in [0, L):
    the kernel density in units of bins (``h_bins`` bins per bandwidth)."""
    B = c.size
    M = int(min(np.ceil(KERNEL_REACH * h_bins), B + P))
    kernel = np.exp(-0.5 * (np.arange(-M, M + 1) / h_bins) ** 2)
    full = np.convolve(c, kernel)  # index m: offset m - M from bin 0
    sums = np.zeros(L)
    first, last = max(P - M, 0), min(P + B + M, L)
    sums[first:last] = full[first - P + M : last - P + M]
    total = c.sum()
    with np.errstate(divide="ignore"):
        log_f = np.log(sums) - np.log(total) - 0.5 * LOG_2PI
    weak = sums < TINY * total
    if weak.any():
        occupied = np.flatnonzero(c > 0)
        pos = np.flatnonzero(weak) - P
        at = np.searchsorted(occupied, pos)
        near = np.stack(
            [occupied[np.maximum(at - 1, 0)], occupied[np.minimum(at, occupied.size - 1)]]
        )
        nearest = np.log(c[near]) - 0.5 * ((pos - near) / h_bins) ** 2
        log_f[weak] = nearest.max(axis=0) - np.log(total) - 0.5 * LOG_2PI
    return log_f


def kde_terms(params, X, cols, nan, bins: int) -> np.ndarray:
    """Per-class log-densities of the kernel columns ``cols``, (n, K, len(cols)), from the
    lattice of a grid of ``bins`` bins (:func:`kde_tables`)."""
    table, slope, curve = (
        params["kde_log"][:, cols],
        params["kde_slope"][:, cols],
        params["kde_curve"][:, cols],
    )
    K, m, L = table.shape
    P = bins // 2
    origin = (params["start"][cols] - P + 0.5).astype(np.float64)
    u = np.ldexp(X[:, cols], (-params["level"][cols]).astype(np.int32)) - origin
    missing = None if nan is None else nan[:, cols]
    if missing is not None:
        u[missing] = 0.0
    np.clip(u, -1e9, 1e9, out=u)
    i = np.clip(np.floor(u), 0, L - 2)
    frac = u - i
    flat = i.astype(np.intp) + np.arange(m) * L
    over = np.maximum(-u, 0.0) + np.maximum(u - (L - 1), 0.0)
    tail = over * (1.0 + over) if over.any() else None
    out = np.empty((X.shape[0], K, m))
    for k in range(K):  # bounded by the classes: two gathers per cell and class
        v = table[k].ravel().take(flat)
        v += frac * slope[k].ravel().take(flat)
        if tail is not None:
            v -= tail * curve[k]
        if missing is not None:
            v[missing] = 0.0
        out[:, k] = v
    return out
