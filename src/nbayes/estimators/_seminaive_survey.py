"""What the semi-naive models' binning needs of a numeric column, and their survey pass.

:func:`value_weights` (or a :class:`GridSummary` for a ``Binned`` family) per numeric column,
additive over partitions, so that :func:`nbayes.dask.fit` and ``nbayes train`` find the same
bin edges as ``fit`` on all rows (see :mod:`nbayes.estimators.seminaive`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._discretise import mdl_value_edges, quantile_edges
from .._validation import show
from ..distributions import Binned
from ..distributions._labels import Labels
from ..exceptions import DataError


def _as_float(col: pd.Series, label, position: int | None = None) -> np.ndarray:
    """A numeric column as float64 (NaN missing); a DataError names a value that is no number."""
    try:
        return col.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        num = pd.to_numeric(col, errors="coerce")
        bad = np.flatnonzero((num.isna() & ~col.isna()).to_numpy())
        where = f"Column {label!r}" + ("" if position is None else f" (index {position})")
        raise DataError(
            f"{where} is numeric but holds {show(col.iloc[bad[0]])} at row {bad[0]}; fix the "
            "value or declare the column categorical."
        ) from None


def value_weights(values, y, sample_weight=None) -> tuple:
    """What binning needs of a numeric column: (distinct values, sorted; the labels seen;
    their (values, labels) weights). NaN is left out.

    It is additive (:func:`_merge_value_weights`), so ``fit``, a survey pass over partitions
    (Dask) or over chunks (the CLI) all find the same edges; with integer weights exactly.
    It holds one row per distinct value: a column of N distinct floats costs N x classes
    floats, no more than the column itself.

    Examples
    --------
    >>> from nbayes.estimators.seminaive import value_weights
    >>> values, labels, weights = value_weights([2.0, 1.0, 2.0, float("nan")], ["a", "b", "b", "a"])
    >>> values.tolist(), labels.tolist(), weights.tolist()
    ([1.0, 2.0], ['a', 'b'], [[0.0, 1.0], [1.0, 1.0]])
    """
    x = np.asarray(values, dtype=np.float64)
    y = np.asarray(y)
    w = np.ones(x.size) if sample_weight is None else np.asarray(sample_weight, np.float64)
    keep = ~np.isnan(x)
    uniq, inverse = np.unique(x[keep], return_inverse=True)
    labels, codes = np.unique(y[keep], return_inverse=True)
    counts = np.bincount(
        inverse * labels.size + codes, weights=w[keep], minlength=uniq.size * labels.size
    ).reshape(uniq.size, labels.size)
    return uniq, labels, counts


def _merge_value_weights(a: tuple, b: tuple) -> tuple:
    """:func:`value_weights` of the rows of ``a`` and ``b`` together."""
    uniq, labels = np.union1d(a[0], b[0]), np.union1d(a[1], b[1])
    out = np.zeros((uniq.size, labels.size))
    for u, lab, n in (a, b):  # two summaries
        out[np.ix_(np.searchsorted(uniq, u), np.searchsorted(labels, lab))] += n
    return uniq, labels, out


@dataclass(frozen=True, eq=False)  # arrays inside: compare by identity, never elementwise
class GridSummary:
    """What ``binning=Binned(...)`` needs of a numeric column: the labels seen (sorted) and
    the :class:`~nbayes.distributions.Binned` family's statistics of the column per label
    (weights on its bounded power-of-two grid, whose merge is exact in any order). Memory:
    ``family.bins`` weights per label, whatever the number of rows or distinct values.
    """

    labels: np.ndarray
    stats: dict
    family: Binned

    @classmethod
    def of(cls, values, y, family: Binned, sample_weight=None, label=None) -> GridSummary:
        """The summary of one batch of a column (NaN left out; +-inf refused)."""
        x = np.asarray(values, dtype=np.float64)
        infinite = np.isinf(x)
        if infinite.any():
            r = int(np.flatnonzero(infinite)[0])
            raise DataError(
                f"Column {label!r} holds {x[r]} at row {r}; numeric values must be finite "
                "(NaN marks a missing value)."
            )
        y = np.asarray(y)
        w = np.ones(x.size) if sample_weight is None else np.asarray(sample_weight, np.float64)
        keep = ~np.isnan(x)
        labels, codes = np.unique(y[keep], return_inverse=True)
        batch = Labels(codes, w[keep], labels.size)
        return cls(labels, family.accumulate(x[keep, None], batch), family)

    def _lifted(self, labels: np.ndarray) -> dict:
        """The statistics with one row per label of ``labels`` (a superset), zeros for the
        labels this summary has not seen."""
        out = self.family.zeros(labels.size, 1)
        where = np.searchsorted(labels, self.labels)
        for key, value in self.stats.items():
            if key in self.family.class_keys:
                out[key][where] = value
            else:  # the range of the values: per feature
                out[key] = value
        return out

    def merge(self, other: GridSummary) -> GridSummary:
        """The summary of the rows of both (the family's exact merge)."""
        labels = np.union1d(self.labels, other.labels)
        stats = self.family.merge(self._lifted(labels), other._lifted(labels))
        return GridSummary(labels, stats, self.family)

    def edges(self) -> np.ndarray:
        """Inner edges at the family's cut points. The family puts a value in the interval
        after a cut when it lies at or above the cut's grid boundary ``t``; bins here hold
        ``edges[i-1] < x <= edges[i]``, so the edge is the float just below ``t``."""
        params = self.family.finalize(self.stats)
        interval = params["interval"][0]
        starts = np.flatnonzero(np.diff(interval)) + 1  # grid bins that open an interval
        if not starts.size or not params["n_intervals"][0] > 1:
            return np.zeros(0)
        level = int(params["level"][0])
        bounds = np.ldexp((params["start"][0] + starts).astype(np.float64), level)
        return np.nextafter(bounds, -np.inf)


def _merge_summaries(a, b):
    """Two partitions' binning summaries of one column, added up."""
    return a.merge(b) if isinstance(a, GridSummary) else _merge_value_weights(a, b)


def _edges_of(found, binning, n_bins: int) -> np.ndarray:
    """Inner bin edges from :func:`value_weights` or a :class:`GridSummary` (rows of
    weight zero leave no trace)."""
    if isinstance(found, GridSummary):
        return found.edges()
    uniq, _, counts = found
    total = counts.sum(axis=1)
    keep = total > 0
    if binning == "mdl":
        return mdl_value_edges(uniq[keep], counts[keep])
    return quantile_edges(uniq[keep], n_bins, total[keep])


def _summarise(values, y, sample_weight, binning, label):
    """What the binning needs of one numeric column (:func:`value_weights`, or a
    :class:`GridSummary` for a ``Binned`` family)."""
    if isinstance(binning, Binned):
        return GridSummary.of(values, y, binning, sample_weight, label)
    return value_weights(values, y, sample_weight)


def _survey_partition(
    part: pd.DataFrame, y=None, sample_weight=None, *, numeric=(), binning="mdl"
) -> dict:
    """One partition's survey: distinct values of the categorical columns (in order of first
    appearance) and what the binning needs of the numeric ones (``numeric`` names them)."""
    values = {
        c: pd.unique(part[c].dropna().to_numpy(dtype=object))
        for c in part.columns
        if c not in numeric
    }
    bins = {
        c: _summarise(_as_float(part[c], c), y, sample_weight, binning, c)
        for c in part.columns
        if c in numeric
    }
    return {"values": values, "bins": bins}


def _combine_surveys(*parts: dict) -> dict:
    """Union of :func:`_survey_partition` results (associative; order of first appearance)."""
    values: dict = {}
    bins: dict = {}
    for part in parts:  # bounded by the summaries combined
        for c, v in part["values"].items():
            values[c] = pd.unique(np.concatenate([values.get(c, np.empty(0, object)), v]))
        for c, found in part["bins"].items():
            bins[c] = found if c not in bins else _merge_summaries(bins[c], found)
    return {"values": values, "bins": bins}
