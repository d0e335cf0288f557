"""Discretisation of one numeric feature: the one home of the supervised MDL cuts and of the
equal-frequency cuts, for every model that bins numbers.

Both work on *positions*: the ordered cells a feature's values fall in -- its distinct values
(the semi-naive models, :func:`mdl_edges`) or the occupied bins of the bounded grid of the
:class:`~nbayes.distributions.Density` family (``DensityNB``, MixedNB's ``"binned"`` and
``"density"`` columns, and the semi-naive models with ``binning=Binned(...)``) -- each with
its weight per class. A cut ``c`` lies between positions ``c - 1`` and ``c``; each caller
places it in value units (the semi-naive edges at the last value before the cut, the grid's
halfway between the two occupied bins).

The tie rule (MDL)
------------------
Fayyad and Irani's (1993) criterion, applied recursively: the candidate of an interval is the
cut with the lowest weighted class entropy of its two sides, computed for all candidates at
once as ``(n log n - sum_k c_k log c_k)`` per side over ``N log 2``. Candidates whose entropy
lies within ``1e-12`` (relative, at least absolute) of the lowest are *tied* and the **first**
(the lowest value) wins; the cut is kept only when its information gain exceeds the MDL
threshold ``(log2(N - 1) + log2(3**k - 2) - [k H(S) - k1 H(S1) - k2 H(S2)]) / N`` by more
than ``1e-12``, so a gain equal to the threshold makes no cut. Mathematically tied candidates
(a periodic or mirror-symmetric pattern of class counts) thus give the same cuts whatever the
rounding of the sums, in every model. Weights count as observations.

Equal frequency
---------------
Two rules, one per option, because each is what its models' files and tests record:
:func:`equal_frequency_cuts` (the grid families' ``discretize="equal_frequency"``) cuts where
the cumulative weight first reaches each share ``i / n_intervals`` of the total, and
:func:`quantile_edges` (the semi-naive models' ``binning="quantile"``) takes one share of the
weight *left* at a time, so that a spike takes one bin and the other values still share the
rest. Both cut after the first position at which the cumulative weight reaches its target.
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

LN2 = float(np.log(2.0))
#: Entropies and gains within this (relative) of each other are equal: see the tie rule.
TIE = 1e-12


def _entropy(counts: np.ndarray) -> float:
    """Entropy in bits of one vector of class counts (0 for no weight)."""
    n = counts.sum()
    return float((xlogy(n, n) - xlogy(counts, counts).sum()) / (n * LN2)) if n > 0 else 0.0


def mdl_cuts(counts: np.ndarray) -> list[int]:
    """Fayyad and Irani's (1993) recursive minimum-description-length cut points.

    ``counts`` is (n_classes, n_positions): the class weights of each position of one
    feature, in value order. Returns the positions ``c`` (a cut between positions ``c - 1``
    and ``c``), sorted; ties follow the module's tie rule (the first candidate wins; a gain
    equal to the threshold makes no cut).

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes._discretise import mdl_cuts
    >>> mdl_cuts(np.array([[9.0, 8.0, 0.0, 0.0], [0.0, 1.0, 9.0, 8.0]]))
    [2]
    """
    cuts: list[int] = []
    stack = [(0, counts.shape[1])]
    while stack:  # bounded: each accepted cut splits an interval, at most n_positions of them
        lo, hi = stack.pop()
        if hi - lo < 2:
            continue
        part = counts[:, lo:hi]
        total = part.sum(axis=1)
        n = total.sum()
        if n <= 1:
            continue
        left = np.cumsum(part, axis=1)[:, :-1]  # candidate c = lo + 1 + i
        right = total[:, None] - left
        n_left, n_right = left.sum(axis=0), right.sum(axis=0)
        # n H = n log n - sum_k c_k log c_k: the weighted entropies of all candidates at once.
        e = (
            xlogy(n_left, n_left)
            - xlogy(left, left).sum(axis=0)
            + xlogy(n_right, n_right)
            - xlogy(right, right).sum(axis=0)
        ) / (n * LN2)
        best = int(np.flatnonzero(e <= e.min() + TIE * max(1.0, abs(e.min())))[0])
        h, h1, h2 = _entropy(total), _entropy(left[:, best]), _entropy(right[:, best])
        k, k1, k2 = (int((v > 0).sum()) for v in (total, left[:, best], right[:, best]))
        delta = np.log2(3.0**k - 2) - (k * h - k1 * h1 - k2 * h2)
        if h - e[best] > (np.log2(n - 1) + delta) / n + TIE:
            c = lo + 1 + best
            cuts.append(c)
            stack.extend([(lo, c), (c, hi)])
    return sorted(cuts)


def mdl_value_edges(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Inner edges of :func:`mdl_cuts` over distinct values: ``values`` sorted, ``counts``
    their (n_values, n_classes) class weights. A value ``x`` falls in bin
    ``searchsorted(edges, x, side="left")``, so each edge is the last value before its cut.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes._discretise import mdl_value_edges
    >>> counts = np.array([[9.0, 0.0], [8.0, 1.0], [0.0, 9.0], [0.0, 8.0]])
    >>> mdl_value_edges(np.array([1.0, 2.0, 3.0, 4.0]), counts).tolist()
    [2.0]
    """
    cuts = np.asarray(mdl_cuts(np.asarray(counts, dtype=np.float64).T), dtype=np.intp)
    return np.asarray(values, dtype=np.float64)[cuts - 1]


def mdl_edges(values, classes, n_classes: int, sample_weight=None) -> np.ndarray:
    """Inner edges of the supervised discretisation of Fayyad & Irani (1993).

    The values are cut recursively where the class entropy of the two sides is lowest, as
    long as the information gain pays for the cut under their minimum description length
    criterion; a column that tells nothing about the class gets no cut (one bin). This is
    the discretisation Weka applies before AODE. Weighted counts stand in for row counts;
    ties follow the tie rule of :mod:`nbayes._discretise`. A value ``x`` falls in bin
    ``searchsorted(edges, x, side="left")``.

    Examples
    --------
    >>> from nbayes.estimators.seminaive import mdl_edges
    >>> mdl_edges([1, 2, 3, 4, 5, 6, 7, 8], [0, 0, 0, 0, 1, 1, 1, 1], 2).tolist()
    [4.0]
    """
    x = np.asarray(values, dtype=np.float64)
    c = np.asarray(classes, dtype=np.intp)
    w = np.ones_like(x) if sample_weight is None else np.asarray(sample_weight, np.float64)
    keep = ~np.isnan(x) & (w > 0)
    uniq, inverse = np.unique(x[keep], return_inverse=True)
    # Class weights of each distinct value: the recursion works on these (U, C) counts only.
    counts = np.bincount(
        inverse * n_classes + c[keep], weights=w[keep], minlength=uniq.size * n_classes
    ).reshape(uniq.size, n_classes)
    return mdl_value_edges(uniq, counts)


def equal_frequency_cuts(pooled: np.ndarray, n_intervals: int) -> list[int]:
    """Cut positions that split the pooled weight of the positions into ``n_intervals``
    parts as equal as the positions allow (fewer when one position holds more than a part):
    a cut after the first position at which the cumulative weight reaches ``i / n_intervals``
    of the total.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes._discretise import equal_frequency_cuts
    >>> equal_frequency_cuts(np.array([1.0, 1.0, 1.0, 1.0]), 2)
    [2]
    """
    cum = np.cumsum(pooled)
    targets = cum[-1] * np.arange(1, n_intervals) / n_intervals
    cuts = np.searchsorted(cum, targets, side="left") + 1
    return sorted(set(int(c) for c in cuts if 0 < c < pooled.size))


def quantile_edges(values, n_bins: int, sample_weight=None) -> np.ndarray:
    """Inner edges of up to ``n_bins`` equal-frequency bins of ``values`` (NaN ignored).

    Each edge is the weighted quantile ``1 / bins_left`` of the values above the previous
    edge (``method="inverted_cdf"``: a data value, and integer weights equal repeated rows),
    so a spike -- a column that is mostly 0, like capital gains -- takes one bin and the rest
    of the values still share the other bins, where plain quantiles would all fall on the
    spike. A value ``x`` falls in bin ``searchsorted(edges, x, side="left")``: bin i holds
    ``edges[i-1] < x <= edges[i]``.

    Examples
    --------
    >>> from nbayes.estimators.seminaive import quantile_edges
    >>> quantile_edges([0, 0, 0, 0, 0, 0, 1, 2, 3, 4], 3).tolist()
    [0.0, 2.0]
    """
    x = np.asarray(values, dtype=np.float64)
    w = np.ones_like(x) if sample_weight is None else np.asarray(sample_weight, np.float64)
    keep = ~np.isnan(x) & (w > 0)
    x, w = x[keep], w[keep]
    edges = []
    for bins_left in range(int(n_bins), 1, -1):  # bounded by n_bins
        if not x.size:
            break
        edge = np.quantile(x, 1.0 / bins_left, method="inverted_cdf", weights=w)
        if edge >= x.max():  # the rest is one value: no further cut
            break
        edges.append(edge)
        above = x > edge
        x, w = x[above], w[above]
    return np.asarray(edges, dtype=np.float64)
