"""Beyond the naive assumption: AODE / A2DE, TAN, KDB and the full-joint Bayes classifier.

The estimators here are thin: they turn a table into integer codes (categories through the
shared column layout :class:`~._columns.ColumnLayout`, as CategoricalNB and MixedNB do, so a
value seen only in rows of weight zero gets no code; numbers through bins) and hand the codes to
the pure core in :mod:`nbayes.seminaive`, which counts (class, value, parent value) tuples,
merges them by addition and chooses the structure at finalize. So ``fit``, ``partial_fit``
over any chunking, :func:`nbayes.merge` of shards, ``unlearn`` and model files agree for these
models exactly as for naive Bayes.

Numeric columns are cut into bins (supervised MDL cuts, or ``n_bins`` quantile bins, or where
the :class:`~nbayes.distributions.Binned` family cuts them on its bounded grid). The
edges must be the same for every batch, so they come from all the rows: ``fit`` computes
:func:`value_weights` (the weight of every distinct value per class) of each numeric column
-- or, with a ``Binned`` family, that family's statistics (:class:`GridSummary`) -- and the
edges from it; :func:`nbayes.dask.fit` and ``nbayes train`` compute the same
summary in a survey pass (:meth:`survey_step`, which sees the labels) and add the partitions'
summaries up, so their edges equal ``fit``'s exactly (with integer weights; float weights
may differ in the last bit of a sum, which moves an edge only at an exact tie).
``partial_fit`` never sees all rows, so it needs the edges fixed beforehand: pass
``bin_edges`` (for instance a fitted model's ``bin_edges_``, or :func:`quantile_edges` of a
sample), or declare the column categorical. A first ``partial_fit`` with a numeric column
and no edges is refused rather than binned on the first batch, which would make chunked
fits disagree with ``fit``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import partial
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from .. import _engine as engine
from .. import base
from .._discretise import mdl_edges as mdl_edges  # public here, where it is documented
from .._discretise import mdl_value_edges, quantile_edges
from .._params import HasMethods, Interval, Options, StrOptions, check_params
from .._validation import show
from ..base import Mode, SurveyStep
from ..columns import choices_from_state, choices_state, choices_table
from ..distributions import Binned
from ..distributions._estimates import check_alpha, pseudo_count
from ..distributions._labels import Labels, SoftLabels, accumulate_by_class
from ..exceptions import DataError, NotFittedError, ParameterError
from ..seminaive import _counts, _feature_terms, aode, joint, network
from ._base import BaseNB, check_sample_weight, fit_classes, label_codes
from ._columns import ColumnLayout
from ._constraints import CLASS_PRIOR, SMOOTHING, fixed_alpha_message
from ._encoding import Vocabulary, as_frame
from ._explain import Explanation
from ._table_reading import TableReading

#: How ``fit`` cuts numeric columns: supervised (Fayyad & Irani's MDL) or equal-frequency;
#: a :class:`~nbayes.distributions.Binned` family instance is accepted too (see ``binning``).
BINNINGS = ("mdl", "quantile")
#: Missing cells: summed out (exact under the model) or a category of their own.
MISSING = ("ignore", "category")


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


class _SemiNaiveNB(BaseNB):
    """Shared machinery: columns to codes, statistics of the core, scoring."""

    #: No feature families: the model logic lives in :mod:`nbayes.seminaive`.
    families_: tuple = ()
    #: How the fitted table is read (None: its columns as given); see ._table_reading.
    _reading: TableReading | None

    def capabilities(self) -> frozenset[str]:
        """Explanations and a generative joint probability; no candidate scoring yet (see
        :meth:`finalize_params`), no linear form, and no feature subsets: a feature's terms
        condition on others (see :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        return frozenset({base.EXPLANATIONS, base.JOINT_PROBABILITY})

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Real, "array-like"],
        "estimate": SMOOTHING["estimate"],
        "missing": [StrOptions(set(MISSING))],
        "binning": [StrOptions(set(BINNINGS)), Binned],
        "n_bins": [Interval(Integral, 1, None, closed="left")],
        "bin_edges": [dict, None],
        "categorical": ["array-like", None],
        **CLASS_PRIOR,
        "max_table_bytes": [Interval(Integral, 1, None, closed="left")],
    }
    _parameter_messages: ClassVar[dict] = {
        "alpha": fixed_alpha_message,
        "binning": (
            f"Parameter 'binning' must be one of {BINNINGS} or a "
            "nbayes.distributions.Binned family; got {value}."
        ),
        "bin_edges": (
            "Parameter 'bin_edges' must be None or a dict {{column: increasing edges}}; got {kind}."
        ),
    }

    #: Highest order of count tables the model needs (2: pairs, 3: triples).
    def _order(self) -> int:
        raise NotImplementedError

    def _build(self, stats: dict, a: np.ndarray) -> dict:
        """Scoring parameters from the merged statistics (pseudo-counts ``a`` per feature)."""
        raise NotImplementedError

    def _score(self, codes: np.ndarray) -> np.ndarray:
        """log P(y, x) for every row of codes and every class."""
        raise NotImplementedError

    def _publish(self) -> None:
        """Fitted attributes beyond the parameters (structure_, ...)."""

    # -- parameters ----------------------------------------------------------------------------
    def get_params(self, deep: bool = True) -> dict:
        """Parameters of this estimator (scikit-learn's ``get_params``).

        A ``Binned`` family given as ``binning`` is one value, not an estimator with
        parameters of its own: it is not expanded into ``binning__bins`` and so on, which
        ``set_params`` could not set back (families are immutable; pass a new one).

        Parameters
        ----------
        deep : bool, default=True
            Also list the parameters of an estimator given as a parameter (JointBayes'
            ``backoff``), as ``backoff__alpha`` and so on.

        Returns
        -------
        dict
            Parameter names mapped to their values.

        Examples
        --------
        >>> import nbayes
        >>> from nbayes.distributions import Binned
        >>> params = nbayes.TAN(binning=Binned(bins=64)).get_params()
        >>> params["binning"] == Binned(bins=64), "binning__bins" in params
        (True, False)
        """
        params = super().get_params(deep=deep)
        return {k: v for k, v in params.items() if not k.startswith("binning__")}

    # -- columns -------------------------------------------------------------------------------
    def _validate_X(self, X, reset: bool) -> pd.DataFrame:
        from_table = isinstance(X, pd.DataFrame) or hasattr(X, "schema")
        df = as_frame(X, type(self).__name__)
        if reset:
            for axis, what in ((0, "sample(s)"), (1, "feature(s)")):  # the two axes
                if df.shape[axis] == 0:
                    raise DataError(
                        f"Found array with 0 {what} (shape={df.shape}) while a minimum of 1 "
                        f"is required by {type(self).__name__}."
                    )
            # A table is read as MixedNB(columns="auto") reads it (see ._table_reading).
            self.__dict__.pop("_reading", None)
            self._choices = None
            if from_table:
                reading = TableReading.of(df, set(self.categorical or ()), type(self).__name__)
                self._choices = reading.choices
                if reading.changes():
                    self._reading = reading
                    df = reading.apply(df, True, type(self).__name__)
            self._set_columns(df, from_table)
            return df
        if not hasattr(self, "_columns"):
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            )
        fitted: TableReading | None = self.__dict__.get("_reading")
        if fitted is not None:
            # by name when fitted on a table and given one; the result is in fitted order
            return fitted.apply(df, from_table and self._from_table, type(self).__name__)
        return self._align(df, from_table)

    def _set_columns(self, df: pd.DataFrame, from_table: bool) -> None:
        columns = pd.Index(df.columns)
        if columns.has_duplicates:
            dup = columns[columns.duplicated()][0]
            raise DataError(f"Column name {dup!r} occurs more than once; names must be unique.")
        self._columns = list(columns)
        self._from_table = from_table
        self.n_features_in_ = len(columns)
        if from_table and all(isinstance(c, str) for c in self._columns):
            self.feature_names_in_ = np.asarray(self._columns, dtype=object)
        else:
            self.__dict__.pop("feature_names_in_", None)
        declared = set(self.categorical or ())
        unknown = declared - set(self._columns)
        reading = self.__dict__.get("_reading")
        if reading is not None:  # calendar features are categories
            declared.update(reading.calendar_names())
        if unknown:
            raise ParameterError(
                f"Parameter 'categorical' names column(s) {sorted(map(str, unknown))!r} that "
                f"the table lacks; its columns are {self._columns!r}."
            )
        numeric = []
        for p, (label, dtype) in enumerate(zip(self._columns, df.dtypes)):  # column metadata
            kind = getattr(dtype, "kind", "O")
            if label in declared or isinstance(dtype, pd.CategoricalDtype) or kind in "bOUSV":
                numeric.append(False)
            elif kind in "iuf":
                numeric.append(True)
            else:
                raise ParameterError(
                    f"Column {label!r} (index {p}) has dtype {dtype}, which {type(self).__name__} "
                    "cannot model; convert it to numbers or categories."
                )
        self._numeric = np.asarray(numeric, dtype=bool)
        self._layout = self._new_layout()
        self._edges: dict = {}

    def _new_layout(self) -> ColumnLayout:
        """The shared column layout (:mod:`._columns`): the categorical columns as one group
        with a vocabulary, the numeric ones (binned here) as another; the codes' "unseen"
        slot is the models' smoothing of a category never learned."""
        return ColumnLayout(
            [np.flatnonzero(~self._numeric), np.flatnonzero(self._numeric)],
            [True, False],
            self._columns,
            self.missing,
            "smooth",
        )

    def _align(self, df: pd.DataFrame, from_table: bool) -> pd.DataFrame:
        if from_table and self._from_table:
            have, want = pd.Index(df.columns), pd.Index(self._columns)
            absent = want[~want.isin(have)]
            if len(absent):
                raise DataError(
                    f"X lacks column(s) {absent.tolist()!r} that {type(self).__name__} was "
                    "fitted on. Pass every fitted column (in any order); NaN / None marks a "
                    "missing value."
                )
            return df if have.equals(want) else df.loc[:, want]
        if df.shape[1] != self.n_features_in_:
            raise DataError(
                f"X has {df.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        return df

    def _set_edges(self, found: dict | None) -> None:
        """Bin edges of the numeric columns: given in ``bin_edges``, or from ``found``
        (column label -> :func:`value_weights` of all the rows: ``fit`` or a survey)."""
        given = dict(self.bin_edges or {})
        edges = {}
        for p in np.flatnonzero(self._numeric).tolist():  # bounded by the columns
            label = self._columns[p]
            if label in given:
                e = np.asarray(given[label], dtype=np.float64)
                if e.ndim != 1 or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
                    raise ParameterError(
                        f"bin_edges[{label!r}] must be finite and strictly increasing; got "
                        f"{given[label]!r}."
                    )
            elif found is not None and label in found:
                e = _edges_of(found[label], self.binning, self.n_bins)
            else:
                raise ParameterError(
                    f"Column {label!r} is numeric: {type(self).__name__} cuts it into bins "
                    "whose edges must be the same for every batch, so partial_fit needs them "
                    f"fixed first. Pass bin_edges={{{label!r}: [...]}} (e.g. a fitted model's "
                    "bin_edges_, or nbayes.estimators.seminaive.quantile_edges of a sample), "
                    "declare it categorical=[...], or fit on all rows (fit, nbayes.dask.fit "
                    "and nbayes train find the edges from every row)."
                )
            edges[label] = e
        self._edges = edges

    def _unbinned(self) -> list:
        """Numeric columns whose edges are not given (the data must decide them)."""
        given = self.bin_edges or {}
        return [
            self._columns[p] for p in np.flatnonzero(self._numeric) if self._columns[p] not in given
        ]

    def _numeric_values(self, df: pd.DataFrame, p: int) -> np.ndarray:
        return _as_float(df.iloc[:, p], self._columns[p], p)

    def _n_categories(self) -> np.ndarray:
        """K_j of every column: vocabulary size, or number of bins."""
        k = np.empty(self.n_features_in_, dtype=np.int64)
        k[~self._numeric] = self._vocabulary().n_categories()
        k[self._numeric] = [
            self._edges[self._columns[p]].size + 1 + (self.missing == "category")
            for p in np.flatnonzero(self._numeric)
        ]
        return np.maximum(k, 1)

    def _vocabulary(self) -> Vocabulary:
        """The categorical columns' vocabulary (group 0 of the column layout)."""
        vocab = self._layout.vocabularies[0]
        assert vocab is not None  # group 0 is categorical by construction
        return vocab

    def _codes(self, df: pd.DataFrame, mode: Mode, counted=None) -> np.ndarray:
        """Integer codes of a table: -1 missing, UNSEEN_CODE for a category never learned.
        ``counted`` (learning): the rows of non-zero weight, the only ones that teach the
        vocabulary a value (see :meth:`ColumnLayout.encode`)."""
        codes = np.empty(df.shape, dtype=np.int64)
        cat = np.flatnonzero(~self._numeric)
        if cat.size:
            if cat.size == df.shape[1]:  # no copy of the table, no second copy of codes
                codes = self._layout.encode(df, 0, mode, counted)
            else:
                codes[:, cat] = self._layout.encode(df.iloc[:, cat], 0, mode, counted)
        for p in np.flatnonzero(self._numeric).tolist():  # bounded by the columns
            x = self._numeric_values(df, p)
            code = np.searchsorted(self._edges[self._columns[p]], x, side="left")
            if np.isinf(x).any():
                r = int(np.flatnonzero(np.isinf(x))[0])
                raise DataError(
                    f"Column {self._columns[p]!r} (index {p}) holds {x[r]} at row {r}; "
                    "numeric values must be finite (NaN marks a missing value)."
                )
            # Missing as a category: the code after the last bin.
            nan_code = self._edges[self._columns[p]].size + 1 if self.missing == "category" else -1
            codes[:, p] = np.where(np.isnan(x), nan_code, code)
        return codes

    def _vocabulary_snapshot(self):
        return getattr(self, "_layout", None) and self._layout.copy()

    def _restore_vocabulary(self, snapshot) -> None:
        if snapshot is not None:
            self._layout = snapshot

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the model to X, y in one pass over the rows.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Categories (strings, booleans, pandas categoricals, columns named in
            ``categorical``) and numbers (cut into ``n_bins`` quantile bins); NaN / None are
            missing values.
        y : array-like of shape (n_samples,)
            The class label of each row.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each row, 1 by default: an integer weight counts as that many copies of
            the row, and a zero weight as no row.

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import TAN
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> model = TAN().fit(df, [0, 1, 1, 0])
        >>> model.classes_.tolist(), model.class_count_.tolist()
        ([0, 1], [2.0, 2.0])
        """
        check_params(self)
        for attr in ("classes_", "stats_", "backoff_"):  # a refit starts afresh
            self.__dict__.pop(attr, None)
        df = self._validate_X(X, reset=True)
        y = self._check_y(y, df)
        weights = check_sample_weight(sample_weight, df.shape[0])
        classes = fit_classes(y)
        codes = label_codes(y, classes)[0]
        where = {label: self._columns.index(label) for label in self._unbinned()}
        self._set_edges(
            {
                label: _summarise(self._numeric_values(df, p), codes, weights, self.binning, label)
                for label, p in where.items()
            }
        )
        return self._learn(df, y, weights, classes=classes)

    def _start_partial_fit(self, X) -> None:
        # Numeric columns are cut at ``bin_edges`` given up front (no batch sees all values;
        # see the module docstring): fixed here, before the first batch is counted.
        self._set_edges(None)

    def _learn_batch(self, df, y, sample_weight, classes):
        weights = check_sample_weight(sample_weight, df.shape[0])
        first = not hasattr(self, "stats_")
        if first:
            self._set_classes(classes)
        elif classes is not None:
            added = self._set_classes(classes)
            if added:
                self.stats_ = _add_classes(self.stats_, added)
        stats = self._accumulate(df, self._encode_labels(y, weights), "learn")
        self.stats_ = stats if first else self._merge_stats(self.stats_, stats)
        self.finalize()  # every batch, as fit (BaseNB._learn puts the model back if it fails)
        return self

    def _accumulate(self, df, labels: Labels, mode: Mode, check: bool = True) -> dict:
        if isinstance(labels, SoftLabels):  # pairwise counts need a class code per row
            return accumulate_by_class(
                lambda d, hard: self._accumulate(d, hard, mode, check),
                self._merge_stats,
                df,
                labels,
            )
        counted = None
        if mode == "learn" and not labels.weights.all():
            counted = labels.weights != 0  # zero weight is a dropped row, for values too
        codes = self._codes(df, mode, counted)
        stats = _counts.accumulate(
            codes,
            labels,
            self._order(),
            n_categories=self._n_categories(),
            max_bytes=int(self.max_table_bytes),
            model=type(self).__name__,
            feature_names=self._columns,
        )
        return self._extra_stats(codes, labels, stats)

    def _extra_stats(self, codes, labels, stats: dict) -> dict:
        return stats

    def _merge_stats(self, a: dict, b: dict) -> dict:
        return _counts.merge(a, b)

    # -- the estimator protocol (see nbayes.base) -----------------------------------------------
    def survey_step(self, meta, summary=None) -> SurveyStep | None:
        """One pass, with the labels, for the distinct values of the categorical columns (so
        that codes are those of ``fit`` on all rows) and the :func:`value_weights` of the
        numeric columns without given ``bin_edges`` (so that their edges are those of
        ``fit``); None when nothing needs surveying.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            The data's columns and dtypes (a table), or its number of columns (an array).
        summary : object, optional
            What the passes so far found (None before the first pass).

        Returns
        -------
        SurveyStep or None
            The pass to run over all the data, or None when :meth:`setup` can go ahead.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import MixedNB, MultinomialNB
        >>> MultinomialNB().survey_step(3) is None
        True
        >>> meta = pd.DataFrame({"city": pd.Series(dtype=object), "t": pd.Series(dtype=float)})
        >>> MixedNB().survey_step(meta).columns
        ['city']
        """
        if summary is not None:
            return None
        check_params(self)
        probe = clone(self)
        frame = _meta_frame(meta)
        probe._set_columns(frame, isinstance(meta, pd.DataFrame))
        numeric = probe._unbinned()
        categorical = [probe._columns[p] for p in np.flatnonzero(~probe._numeric)]
        if not numeric and not categorical:
            return None
        return SurveyStep(
            categorical + numeric if isinstance(meta, pd.DataFrame) else None,
            partial(_survey_partition, numeric=tuple(numeric), binning=self.binning),
            _combine_surveys,
            labels=bool(numeric),
        )

    def setup(self, meta, summary=None) -> None:
        """Get ready to accumulate batches (see :meth:`EstimatorProtocol.setup`): columns from
        ``meta`` (a DataFrame with no rows, or the number of columns), category codes and bin
        edges from the survey's ``summary`` (see :meth:`survey_step`) as ``fit`` on all the
        rows would make them; without a survey, numeric columns need ``bin_edges``.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            As in :meth:`survey_step`.
        summary : object, optional
            The final summary of the survey passes, if :meth:`survey_step` asked for any.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB()
        >>> model.setup(2)
        >>> stats = model.accumulate(np.array([[1, 0], [0, 2]]), Labels([0, 1], [1.0, 1.0], 2))
        >>> model.install(np.array(["a", "b"]), stats).predict([[3, 0]]).tolist()
        ['a']
        """
        check_params(self)
        self._forget()
        # No rows to read: every column is modelled as it is (as MixedNB from a survey).
        self.__dict__.pop("_reading", None)
        self._choices = None
        self._set_columns(_meta_frame(meta), isinstance(meta, pd.DataFrame))
        self._set_edges(None if summary is None else summary["bins"])
        cat = np.flatnonzero(~self._numeric).tolist()
        if summary and cat:
            # Codes follow the values' order of first appearance, as in a fit on all rows.
            found = summary["values"]
            self._layout.learn_values({p: found.get(self._columns[p], []) for p in cat})

    def merge_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` and of ``b`` together (pure; same classes).

        Associative and commutative, so partial statistics (chunks, Dask partitions, models
        fitted apart) can be merged in any order or tree.

        Parameters
        ----------
        a, b : dict
            Statistics in this model's set-up, over the same classes.

        Returns
        -------
        dict
            The statistics of all their rows; ``a`` and ``b`` are left unchanged.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> more = model.accumulate([[1, 1]], Labels(np.array([0]), np.array([1.0]), 2))
        >>> model.merge_statistics(model.stats_, more)["class_count"].tolist()
        [3.0, 1.0]
        """
        return self._merge_stats(a, b)

    def subtract_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` without those of ``b``: the exact inverse of
        :meth:`merge_statistics` (unlearning, the training part of a cross-validation fold).

        Parameters
        ----------
        a : dict
            Statistics of some rows.
        b : dict
            Statistics of some of those rows, in the same set-up and classes.

        Returns
        -------
        dict
            The statistics of the rows of ``a`` that are not in ``b``.

        Raises
        ------
        DataError
            ``b`` cannot be part of ``a`` (a count would become negative); the message names
            the class and column.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> row = model.accumulate([[1, 1]], Labels(np.array([0]), np.array([1.0]), 2))
        >>> model.subtract_statistics(model.stats_, row)["groups"][0]["n_counts"].tolist()
        [[2.0, 0.0], [0.0, 3.0]]
        """
        return self._subtract_stats(a, b)

    def scale_statistics(self, stats: dict, factor: float) -> dict:
        # Every count is per class (as in clear_statistics); the numbers of categories and
        # vectors are kept.
        """``stats`` with every row's weight multiplied by ``factor`` >= 0: the statistics the
        same rows would give with their sample weights times ``factor`` (sums scale, averages
        stay). EM uses it to weigh the unlabeled rows by lambda after counting them once.

        Parameters
        ----------
        stats : dict
            Statistics in this model's set-up.
        factor : float
            The weight multiplier, >= 0.

        Returns
        -------
        dict
            The scaled statistics, laid out as ``stats``.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.scale_statistics(model.stats_, 0.5)["class_count"].tolist()
        [1.0, 0.5]
        """
        return {k: v if k in ("n_categories", "vectors") else v * factor for k, v in stats.items()}

    def clear_statistics(self, stats: dict) -> dict:
        # Every count is per class; the numbers of categories and vectors are kept.
        """``stats`` with every count zero but what describes the columns kept (category
        vocabularies carried in the statistics): the statistics of no rows, in the same
        encoding, so that merging them adds the columns' categories and nothing else.

        Parameters
        ----------
        stats : dict
            Statistics in this model's set-up.

        Returns
        -------
        dict
            The statistics of no rows, laid out as ``stats``.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.clear_statistics(model.stats_)["class_count"].tolist()
        [0.0, 0.0]
        """
        return {
            k: v if k in ("n_categories", "vectors") else np.zeros_like(v) for k, v in stats.items()
        }

    def align_statistics(self, stats: dict, positions, n_classes: int) -> dict:
        """``stats`` laid out over ``n_classes`` classes: class ``i`` of ``stats`` goes to
        ``positions[i]``; other classes get zeros (merging models that know different
        classes).

        Parameters
        ----------
        stats : dict
            Statistics over ``len(positions)`` classes.
        positions : ndarray of int
            The new index of each class of ``stats``, all different and below ``n_classes``.
        n_classes : int
            The number of classes of the result.

        Returns
        -------
        dict
            Statistics over ``n_classes`` classes.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.align_statistics(model.stats_, np.array([0, 2]), 3)["class_count"].tolist()
        [2.0, 0.0, 1.0]
        """
        out = {}
        for k, v in stats.items():
            if k in ("n_categories", "vectors"):
                out[k] = v
            else:
                out[k] = np.zeros((n_classes, *v.shape[1:]))
                out[k][np.asarray(positions)] = v
        return out

    def recode_statistics(self, other) -> dict:
        """The statistics of fitted ``other`` (same kind, same settings) in this model's
        encoding, ready to merge with this model's (vocabularies are extended as needed).

        Parameters
        ----------
        other : estimator
            A fitted model of the same class and set-up parameters, over the same columns.

        Returns
        -------
        dict
            ``other``'s statistics, encoded as this model's (over ``other``'s classes).

        Examples
        --------
        >>> from nbayes import CategoricalNB
        >>> a = CategoricalNB().fit([["red"], ["blue"]], [0, 1])
        >>> b = CategoricalNB().fit([["green"]], [0])
        >>> a.recode_statistics(b)["groups"][0]["n_counts"].tolist()  # blue, red, green
        [[0.0, 0.0, 1.0]]
        """
        return self._merge_state_from(other)

    def _subtract_stats(self, a: dict, b: dict) -> dict:
        return _counts.subtract(a, b, self.classes_.tolist())

    def finalize(self) -> None:
        """Derive the scoring tables (structure included) from the statistics now.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [0, 3]], ["a", "b"])
        >>> twin = MultinomialNB()
        >>> twin.setup(2)
        >>> _ = twin.install(model.classes_, model.stats_, finalize=False)
        >>> twin.finalize()
        >>> twin.feature_log_prob_.shape
        (2, 2)
        """
        stats = self.stats_
        d = stats["n_categories"].size
        a = pseudo_count(check_alpha(self.alpha, d, self.estimate), self.estimate)
        log_prior = self._log_prior(stats["class_count"])
        params = self._build(stats, a)
        # tables_ holds the scoring structure; params_ lists its float tables, as the other
        # estimators' params_ do (model files check them for NaN).
        self.tables_, self.params_ = params, [_float_tables(params)]
        self.class_log_prior_ = log_prior
        self.class_count_ = stats["class_count"]
        self._publish()

    @property
    def bin_edges_(self) -> dict:
        """Inner bin edges of each numeric column (column label -> array); known once fitted
        or set up (:meth:`setup`)."""
        if not hasattr(self, "_edges"):
            check_is_fitted(self, "stats_")
        return {k: v.copy() for k, v in self._edges.items()}

    @property
    def column_choices_(self) -> pd.DataFrame:
        """How each column of the table fitted on was read (see :mod:`nbayes.columns`):
        indexed by column, with ``kind``, ``family`` ("binned", "categorical", "calendar"
        for a timestamp, whose features are categories, "left out" for an identifier) and
        ``why``. Known after fitting on a DataFrame, and kept in model files."""
        choices = self.__dict__.get("_choices")
        if not choices:
            raise NotFittedError(
                f"This {type(self).__name__} has no column choices: they are made when it is "
                "fitted on a DataFrame (an array's columns are modelled as they are)."
            )
        return choices_table(choices)

    @property
    def categories_(self) -> dict:
        """Categories of each categorical column, in code order (column label -> array)."""
        check_is_fitted(self, "stats_")
        return {self._columns[p]: v for p, v in self._layout.categories().items()}

    def mutual_information(self) -> tuple[pd.Series, pd.DataFrame]:
        """How much each feature tells of the class, and each pair of features of each other
        given the class: I(X_j; Y) and I(X_i; X_j | Y) in nats, from the fitted counts.

        These are the measures TAN and KDB choose their parents by (the report draws them on
        the learned structure's edges).

        Returns
        -------
        mi : Series
            I(X_j; Y) per column, indexed by column.
        cmi : DataFrame
            I(X_i; X_j | Y), columns by columns (symmetric, zero diagonal).

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import TAN
        >>> X = pd.DataFrame({"a": list("xxyy"), "b": list("xxyy"), "c": list("xyxy")})
        >>> mi, cmi = TAN().fit(X, [0, 0, 1, 1]).mutual_information()
        >>> mi.round(3).tolist()
        [0.693, 0.693, 0.0]
        >>> float(cmi.loc["a", "b"])
        0.0
        """
        check_is_fitted(self, "stats_")
        if _counts.orders(self.stats_) < 2:
            raise NotImplementedError(
                f"{type(self).__name__} keeps no pair counts: no conditional mutual "
                "information between features (TAN, KDB and AODE keep them)."
            )
        names = pd.Index(self._columns)
        mi = pd.Series(_counts.class_mutual_information(self.stats_), index=names)
        cmi = _counts.conditional_mutual_information(self.stats_)
        return mi, pd.DataFrame(cmi, index=names, columns=names)

    def table_bytes(self) -> int:
        """Bytes of the count tables held in ``stats_`` (the pair and triple tables).

        Returns
        -------
        int
            The size of the tables' arrays, in bytes: what the model holds in memory and
            what its file stores, before compression.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import TAN
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> TAN().fit(df, [0, 1, 1, 0]).table_bytes()
        256
        """
        check_is_fitted(self, "stats_")
        return int(sum(v.nbytes for k, v in self.stats_.items() if k != "n_categories"))

    # -- prediction ------------------------------------------------------------------------------
    def _jll(self, X, normalised: bool) -> np.ndarray:
        check_is_fitted(self, "stats_")
        df = self._validate_X(X, reset=False)
        return self._score(self._codes(df, "score"))

    def _posterior(self, X, log: bool) -> np.ndarray:
        # One compiled pass per row (where built); impossible rows become uniform, as in the
        # naive estimators.
        return engine.normalise(np.ascontiguousarray(self._jll(X, normalised=True)), log)

    def explain(self, X, feature_names=None):
        """Per-row, per-feature terms of log P(x | y) and the contributions to the predicted
        class's log-odds over the runner-up (see :meth:`BaseNB.explain`), with ``given``:
        the features each term conditions on besides the class.

        The terms add up, with the class log prior, to :meth:`predict_joint_log_proba`
        exactly. How each model's score is split (the parents used) is in its
        :meth:`_terms`: TAN and KDB log P(x_j | y, parents of j); AODE each feature's
        factors averaged over the qualifying super-parents with their share of the average;
        JointBayes the chain rule over the columns in order.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The rows to explain (a few at a time: memory is n_samples x n_classes x
            n_features).
        feature_names : array-like of shape (n_features,), optional
            Names of the input columns (of the table fitted on: a left-out identifier's is
            skipped, a date column's names its calendar features, ``"W.month"``); by
            default ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        Explanation
            The terms, contributions and ``given`` parents of every row and feature.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import TAN
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> ex = TAN().fit(df, [0, 1, 1, 0]).explain(df.iloc[:1])
        >>> ex.to_frame(0)[["feature", "given"]].values.tolist()
        [['b', 'a'], ['a', '']]
        """
        predicted = pd.Index(self.classes_).get_indexer(self.predict(X))
        df = self._validate_X(X, reset=False)
        names = np.asarray(self._explained_names(feature_names), dtype=str)
        jll, terms, given = self._terms(df, self._codes(df, "score"), names)
        scores = jll.copy()
        rows = np.arange(len(predicted))
        scores[rows, predicted] = -np.inf
        runner_up = predicted if len(self.classes_) == 1 else np.argmax(scores, axis=1)
        return Explanation(
            classes=self.classes_,
            feature_names=names,
            log_prior=self.class_log_prior_,
            terms=terms,
            values=df.to_numpy(dtype=object),
            predicted=predicted,
            runner_up=runner_up,
            given=given,
        )

    def _explained_names(self, feature_names) -> list:
        """The name of every modelled column: ``feature_names`` (one per column of the table
        fitted on: a left-out identifier's name is skipped, a date column's gives its
        calendar features' names) or the fitted labels."""
        if feature_names is None:
            return self._column_labels()
        names = [str(n) for n in np.asarray(feature_names, dtype=str).ravel()]
        reading = self.__dict__.get("_reading")
        width = len(self._columns) if reading is None else len(reading.labels)
        if np.ndim(feature_names) != 1 or len(names) != width:
            raise ParameterError(
                f"feature_names must have one name per input column ({width}); got {len(names)}."
            )
        return names if reading is None else reading.renamed(names)

    def _terms(self, df: pd.DataFrame, codes: np.ndarray, names: np.ndarray) -> tuple:
        """(log P(y, x) (rows, C), terms (rows, C, d) adding up to it less the log prior,
        given (rows, d) text) of rows of codes."""
        raise NotImplementedError

    def top_features(self, *args, **kwargs):
        """Refused: the score of these models is not a weight per feature.

        Parameters
        ----------
        *args, **kwargs
            As in :meth:`BaseNB.top_features`.

        Raises
        ------
        NotImplementedError
            Always; use :meth:`explain` for the per-feature terms of given rows.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import TAN
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> TAN().fit(df, [0, 1, 1, 0]).top_features(0)
        Traceback (most recent call last):
        ...
        NotImplementedError: TAN is not linear: no per-feature weights.
        """
        raise NotImplementedError(f"{type(self).__name__} is not linear: no per-feature weights.")

    def _linear_form(self):
        raise AttributeError(f"{type(self).__name__} is not linear in its features.")

    def finalize_params(self) -> frozenset[str]:
        """Refused: these models learn their bin edges and category vocabulary from the rows
        they are fitted on, and the statistics are not yet restricted to part of the rows.

        Returns
        -------
        frozenset of str
            The parameter names (empty when none can be changed this way).

        Raises
        ------
        ParameterError
            Where this model's set-up depends on which rows it learned in a way statistics do
            not undo (so a model of part of the rows cannot be made from statistics).

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> sorted(MultinomialNB().finalize_params())[:3]
        ['alpha', 'class_prior', 'decision_threshold']
        """
        raise ParameterError(
            f"{type(self).__name__} learns its bin edges and categories from the rows it is "
            "fitted on, so models of the rows outside a fold are not made from statistics "
            "yet; use sklearn.model_selection.GridSearchCV, which refits."
        )

    def __sklearn_tags__(self):
        tags = super(BaseNB, self).__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags

    def _make_families(self, n_features: int):
        return []

    # -- model files -------------------------------------------------------------------------------
    def _get_layout(self) -> dict:
        """How columns become codes: labels, which are numeric, the categories' vocabulary
        (values as text with a type tag) and the numeric columns' bin edges."""
        return {
            "columns": list(self._columns),
            "from_table": bool(self._from_table),
            "numeric": self._numeric.copy(),
            "vocabulary": self._layout.vocabulary_state()[0],
            "edges": [self._edges[self._columns[p]] for p in np.flatnonzero(self._numeric)],
            **self._reading_state(),
        }

    def _reading_state(self) -> dict:
        """The table reading and the choices table, for model files (none when the model
        takes its columns as given: files as before)."""
        out = {}
        reading = self.__dict__.get("_reading")
        if reading is not None:
            out["reading"] = reading.state()
        if self.__dict__.get("_choices"):
            out["choices"] = choices_state(self._choices)
        return out

    def get_state(self) -> dict:
        """The fitted state as plain data (see :meth:`BaseNB.get_state`); ``statistics`` are
        the count tables of :mod:`nbayes.seminaive` and there are no families.

        Returns
        -------
        dict
            The state; :meth:`set_state` of it gives back a model that predicts identically,
            keeps learning and can be merged.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).predict([[3, 0]]).tolist()
        ['a']
        """
        return super().get_state()

    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output; ValueError if the parts do
        not fit together.

        Parameters
        ----------
        state : dict
            What :meth:`get_state` returned, for an estimator of this class.

        Returns
        -------
        self
            The fitted model.

        Raises
        ------
        ValueError
            The parts do not fit together.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).classes_.tolist()
        ['a', 'b']
        """
        layout = state["layout"]
        columns, numeric = list(layout["columns"]), np.asarray(layout["numeric"], dtype=bool)
        n_features = int(state["n_features_in"])
        edges = [np.asarray(e, dtype=np.float64) for e in layout["edges"]]
        if len(columns) != n_features or numeric.shape != (n_features,):
            raise ValueError(f"the layout names {len(columns)} columns for {n_features} features.")
        if len(edges) != int(numeric.sum()) or any(
            e.ndim != 1 or np.any(np.diff(e) <= 0) for e in edges
        ):
            raise ValueError("the numeric columns' bin edges are inconsistent.")
        reading: TableReading | None = None
        if "reading" in layout:
            reading = TableReading.from_state(layout["reading"])
            if reading.names() != columns:
                raise ValueError("the table reading does not give the model's columns.")
        self._reading = reading
        self._choices = choices_from_state(layout.get("choices"))
        self._columns, self._from_table = columns, bool(layout["from_table"])
        self._numeric = numeric
        self._layout = self._new_layout()
        self._layout.set_vocabulary_state([layout["vocabulary"], None])
        self._edges = {columns[p]: e for p, e in zip(np.flatnonzero(numeric).tolist(), edges)}
        self.__dict__.pop("feature_names_in_", None)
        self.n_features_in_ = n_features
        if state.get("feature_names_in") is not None:
            self.feature_names_in_ = np.asarray(state["feature_names_in"]).astype(object)
        self.classes_ = np.asarray(state["classes"])
        stats = {k: np.asarray(v) for k, v in state["statistics"].items()}
        n_cat = self._n_categories()
        if "n_categories" not in stats or not np.array_equal(stats["n_categories"], n_cat):
            raise ValueError("the statistics do not match the vocabulary and bin edges.")
        for k, v in _counts.zeros(n_cat, self.classes_.size, self._order()).items():
            if k not in stats or stats[k].shape != v.shape:
                raise ValueError(f"statistics {k!r} are missing or of the wrong shape.")
            if k != "n_categories" and not (
                np.all(np.isfinite(stats[k])) and stats[k].min(initial=0) >= 0
            ):
                raise ValueError(f"statistics {k!r} must be finite, non-negative counts.")
        self._check_extra_stats(stats)
        self.stats_ = stats
        self.finalize()
        return self

    def _check_extra_stats(self, stats: dict) -> None:
        """Check statistics beyond the count tables (JointBayes' vectors)."""

    # -- merging -----------------------------------------------------------------------------------
    def _merge_state_from(self, other) -> dict:
        """``other``'s statistics in this model's codes: vocabularies united, counts re-laid."""
        if other._edges.keys() != self._edges.keys() or any(
            not np.array_equal(self._edges[k], other._edges[k]) for k in self._edges
        ):
            raise ParameterError(
                "Cannot merge: the models cut numeric columns at different bin edges. Fit "
                "the shards with the same bin_edges (e.g. one model's bin_edges_)."
            )
        theirs = other._vocabulary()
        new_code = self._vocabulary().absorb(theirs)
        maps = [None] * self.n_features_in_
        cat = np.flatnonzero(~self._numeric)
        for j, p in enumerate(cat.tolist()):  # bounded by the columns
            mine = theirs.column == j
            mp = np.zeros(int(theirs.n_categories()[j]), dtype=np.int64)
            mp[theirs.code[mine]] = new_code[mine]
            maps[p] = mp
        return self._relayout_stats(other.stats_, self._n_categories(), maps)

    def _relayout_stats(self, stats: dict, n_cat, maps) -> dict:
        return _counts.relayout(stats, np.maximum(n_cat, stats["n_categories"]), maps)


def _meta_frame(meta) -> pd.DataFrame:
    """The protocol's ``meta`` as a table with no rows (a number of columns: floats)."""
    return meta if isinstance(meta, pd.DataFrame) else pd.DataFrame(np.zeros((0, int(meta))))


def _float_tables(tables, path: str = "") -> dict:
    """Every float array inside the nested dicts and lists of ``tables``, by path."""
    if isinstance(tables, np.ndarray):
        return {path: tables} if tables.dtype.kind == "f" else {}
    if not isinstance(tables, (dict, list)):
        return {}
    items = tables.items() if isinstance(tables, dict) else enumerate(tables)
    out = {}
    for key, value in items:  # bounded by the size of the parameter structure
        out.update(_float_tables(value, f"{path}/{key}" if path else str(key)))
    return out


def _add_classes(stats: dict, n_new: int) -> dict:
    out = dict(stats)
    for k, v in stats.items():
        if k not in ("n_categories", "vectors"):
            out[k] = np.concatenate([v, np.zeros((n_new, *v.shape[1:]))], axis=0)
    return out


class AODE(_SemiNaiveNB):
    """Averaged one-dependence estimators (Webb, Boughton & Wang 2005); ``n=2`` is A2DE.

    Every feature (every pair of features for ``n=2``) whose value in the row was seen at
    least ``min_parent_count`` times in training is a super-parent: its estimator models every
    other feature given the class and the super-parent, and the estimates of P(y, x) are
    averaged. A row with no qualifying parent falls back to the level below (A2DE -> AODE ->
    naive Bayes). Missing cells leave their child factor out and cannot be parents.

    Parameters
    ----------
    n : {1, 2}, default=1
        Number of super-parents of each estimator.
    min_parent_count : float, default=1
        A parent value qualifies when its training weight is at least this. The default 1
        (Weka's too) keeps every parent value that was seen: the conditional tables are
        smoothed by ``alpha`` toward uniform, so a rarely seen parent's estimator is already
        shrunk, and the original paper's 30 throws information away on large data (on Adult
        it changes accuracy by less than 0.1 point).

    alpha : float or array of shape (n_features,), default=1.0
        Dirichlet pseudo-count of every conditional table.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        (n + alpha) / (N + K alpha), (n + alpha - 1) / (N + K (alpha - 1)), or n / N.
    missing : {"ignore", "category"}, default="category" for TAN and KDB, "ignore" else
        Missing cells (NaN, None): "ignore" leaves them out of the counts and sums them out
        at predict (exact for TAN and KDB; AODE leaves out the factor of a missing child and
        never uses a missing parent), right when values are missing at random; "category"
        makes "missing" a value of its own (code 0 of categorical columns, the bin after the
        last of numeric ones), which keeps what the fact of being missing says about the
        class. The defaults follow what 20 stratified 70/30 splits of UCI Mushroom (missing
        stalk-root: 31 % of rows, most of them poisonous) and Adult's test split measured:
        TAN's mean test errors on Mushroom fall from 2.95 to 0.20 rows with "category"
        (KDB(2) from 0.40 to 0), Adult's accuracy is unchanged (TAN 0.8614 -> 0.8617, KDB
        0.8590 -> 0.8608); AODE's (1.3 -> 1.0 errors, Adult 0.8534 -> 0.8531), A2DE's and
        JointBayes' figures do not favour it, and AODE then skips missing values as Webb's
        AODE and Weka's do.
    binning : {"mdl", "quantile"} or Binned, default="mdl"
        How ``fit`` cuts numeric columns: Fayyad & Irani's supervised MDL discretisation
        (what Weka applies before AODE), or ``n_bins`` equal-frequency bins, both from the
        weight of every distinct value per class; or a
        :class:`~nbayes.distributions.Binned` family (MDL or equal-frequency cuts of its
        per-class counts on a grid of ``bins`` bins): the same cuts as that family in
        :class:`~nbayes.MixedNB` or :class:`~nbayes.DensityNB`, and a survey whose memory is
        bounded by ``bins`` per class and column, whatever the number of distinct values
        (the distinct-value summaries hold one row per distinct value: for Dask fits of
        many distinct floats), at the grid's resolution (cuts fall on grid boundaries; on
        Adult and Spambase 256 bins cost AODE about one point of accuracy, 1024 bins
        0.0 to 0.1).
    n_bins : int, default=5
        Quantile bins of each numeric column under ``binning="quantile"``.
    bin_edges : dict, optional
        Fixed inner edges per numeric column, ``{column: increasing edges}``; needed by
        ``partial_fit`` (``fit``, ``nbayes.dask.fit`` and ``nbayes train`` find them from
        all the rows).
    categorical : list, optional
        Columns to treat as categories although they hold numbers. A DataFrame is read by
        the typology of :mod:`nbayes.columns`, as ``MixedNB(columns="auto")`` reads it:
        identifiers are left out (with one ColumnWarning) and timestamps become calendar
        features (``"when.month"``, categories); a column named here is not read so, which
        keeps an identifier, or dates as their written values. The choices are in
        ``column_choices_``; arrays are modelled as they are.
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    max_table_bytes : int, default=2**30
        Refuse inputs whose count tables would be larger (a DataError names the size).

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, n_features_in_, feature_names_in_,
    categories_, bin_edges_, stats_ (additive count tables)

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes import AODE
    >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    >>> AODE().fit(df, [0, 1, 1, 0]).predict(df).tolist()
    [0, 1, 1, 0]
    """

    _parameter_constraints: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_constraints,
        "n": [Options(Integral, {1, 2})],
        # inf: no parent qualifies, which is naive Bayes
        "min_parent_count": [Interval(Real, 0, np.inf, closed="both")],
    }
    _parameter_messages: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_messages,
        "n": "Parameter 'n' must be 1 (AODE) or 2 (A2DE); got {value}.",
    }

    def __init__(
        self,
        n=1,
        *,
        min_parent_count=1,
        alpha=1.0,
        estimate="posterior_mean",
        missing="ignore",
        binning="mdl",
        n_bins=5,
        bin_edges=None,
        categorical=None,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        max_table_bytes=_counts.MAX_TABLE_BYTES,
    ):
        self.n = n
        self.min_parent_count = min_parent_count
        self.alpha = alpha
        self.estimate = estimate
        self.missing = missing
        self.binning = binning
        self.n_bins = n_bins
        self.bin_edges = bin_edges
        self.categorical = categorical
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.max_table_bytes = max_table_bytes

    def _order(self) -> int:
        return self.n + 1

    def _build(self, stats, a):
        m = float(self.min_parent_count)
        # Scoring holds about n + 1 normalisations of every cell of the top table.
        _counts.check_size(
            stats["n_categories"] + 1,
            stats["class_count"].size,
            self._order(),
            int(self.max_table_bytes),
            type(self).__name__,
            factor=self._order(),
        )
        return {"levels": aode.finalize(stats, self.n, a, m)}

    def _score(self, codes):
        return aode.log_joint(codes, self.tables_["levels"], self.class_log_prior_)

    def _terms(self, df, codes, names):
        # Each feature's factors averaged over the qualifying super-parents with their
        # share of the average (see nbayes.seminaive._feature_terms); ``given`` lists the
        # super-parents used in the row.
        prior = self.class_log_prior_
        terms, parents = _feature_terms.aode_terms(codes, self.tables_["levels"], prior)
        return prior + terms.sum(axis=2), terms, _feature_terms.given_text(parents, names)


class _Network(_SemiNaiveNB):
    """TAN and KDB: a Bayesian network whose structure is chosen at finalize."""

    def _k(self):
        raise NotImplementedError

    def _build(self, stats, a):
        parents = network.structure(stats, self._k())
        return {"network": network.finalize(stats, parents, a)}

    def _publish(self) -> None:
        names = self._columns
        self.structure_ = {
            names[j]: [names[p] for p in pa]
            for j, pa in enumerate(self.tables_["network"]["parents"])
        }

    def _score(self, codes):
        return network.log_joint(codes, self.tables_["network"], self.class_log_prior_)

    def _terms(self, df, codes, names):
        # log P(x_j | y, parents of j); in a row with missing cells the tables that involve
        # them are summed out together and their joint log value is shared equally among
        # the missing columns.
        net = self.tables_["network"]
        jll = network.log_joint(codes, net, self.class_log_prior_)
        terms = network.feature_terms(codes, net, jll - self.class_log_prior_)
        d = codes.shape[1]
        parents = np.zeros((1, d, d), dtype=bool)
        for j, pa in enumerate(net["parents"]):  # bounded by the features
            parents[0, j, list(pa)] = True
        given = _feature_terms.given_text(parents, names)
        return jll, terms, np.broadcast_to(given, codes.shape)


class TAN(_Network):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997).

    Each feature has the class and at most one other feature as parents; the feature tree
    is the maximum spanning tree of I(X_i; X_j | Y), computed from the merged pair counts at
    finalize, rooted at the feature with the largest I(X_j; Y). Missing values are a category
    of their own by default; ``missing="ignore"`` sums them out exactly.

    Parameters
    ----------

    alpha : float or array of shape (n_features,), default=1.0
        Dirichlet pseudo-count of every conditional table.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        (n + alpha) / (N + K alpha), (n + alpha - 1) / (N + K (alpha - 1)), or n / N.
    missing : {"ignore", "category"}, default="category" for TAN and KDB, "ignore" else
        Missing cells (NaN, None): "ignore" leaves them out of the counts and sums them out
        at predict (exact for TAN and KDB; AODE leaves out the factor of a missing child and
        never uses a missing parent), right when values are missing at random; "category"
        makes "missing" a value of its own (code 0 of categorical columns, the bin after the
        last of numeric ones), which keeps what the fact of being missing says about the
        class. The defaults follow what 20 stratified 70/30 splits of UCI Mushroom (missing
        stalk-root: 31 % of rows, most of them poisonous) and Adult's test split measured:
        TAN's mean test errors on Mushroom fall from 2.95 to 0.20 rows with "category"
        (KDB(2) from 0.40 to 0), Adult's accuracy is unchanged (TAN 0.8614 -> 0.8617, KDB
        0.8590 -> 0.8608); AODE's (1.3 -> 1.0 errors, Adult 0.8534 -> 0.8531), A2DE's and
        JointBayes' figures do not favour it, and AODE then skips missing values as Webb's
        AODE and Weka's do.
    binning : {"mdl", "quantile"} or Binned, default="mdl"
        How ``fit`` cuts numeric columns: Fayyad & Irani's supervised MDL discretisation
        (what Weka applies before AODE), or ``n_bins`` equal-frequency bins, both from the
        weight of every distinct value per class; or a
        :class:`~nbayes.distributions.Binned` family (MDL or equal-frequency cuts of its
        per-class counts on a grid of ``bins`` bins): the same cuts as that family in
        :class:`~nbayes.MixedNB` or :class:`~nbayes.DensityNB`, and a survey whose memory is
        bounded by ``bins`` per class and column, whatever the number of distinct values
        (the distinct-value summaries hold one row per distinct value: for Dask fits of
        many distinct floats), at the grid's resolution (cuts fall on grid boundaries; on
        Adult and Spambase 256 bins cost AODE about one point of accuracy, 1024 bins
        0.0 to 0.1).
    n_bins : int, default=5
        Quantile bins of each numeric column under ``binning="quantile"``.
    bin_edges : dict, optional
        Fixed inner edges per numeric column, ``{column: increasing edges}``; needed by
        ``partial_fit`` (``fit``, ``nbayes.dask.fit`` and ``nbayes train`` find them from
        all the rows).
    categorical : list, optional
        Columns to treat as categories although they hold numbers. A DataFrame is read by
        the typology of :mod:`nbayes.columns`, as ``MixedNB(columns="auto")`` reads it:
        identifiers are left out (with one ColumnWarning) and timestamps become calendar
        features (``"when.month"``, categories); a column named here is not read so, which
        keeps an identifier, or dates as their written values. The choices are in
        ``column_choices_``; arrays are modelled as they are.
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    max_table_bytes : int, default=2**30
        Refuse inputs whose count tables would be larger (a DataError names the size).

    Attributes
    ----------
    structure_ : dict
        Column -> list of its feature parents (empty for the root).

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes import TAN
    >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    >>> TAN().fit(df, [0, 1, 1, 0]).structure_
    {'a': [], 'b': ['a']}
    """

    def __init__(
        self,
        *,
        alpha=1.0,
        estimate="posterior_mean",
        missing="category",
        binning="mdl",
        n_bins=5,
        bin_edges=None,
        categorical=None,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        max_table_bytes=_counts.MAX_TABLE_BYTES,
    ):
        self.alpha = alpha
        self.estimate = estimate
        self.missing = missing
        self.binning = binning
        self.n_bins = n_bins
        self.bin_edges = bin_edges
        self.categorical = categorical
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.max_table_bytes = max_table_bytes

    def _order(self):
        return 2

    def _k(self):
        return None


class KDB(_Network):
    """k-dependence Bayesian classifier (Sahami 1996).

    Features are taken in order of decreasing I(X_j; Y); each takes as parents (besides the
    class) the up to ``k`` earlier features with the largest I(X_j; X_p | Y). Counts of
    (class, k + 1 values) are kept for every (k + 1)-subset of features, so the structure can
    be chosen at finalize from merged statistics. ``k=0`` is naive Bayes.

    Parameters
    ----------
    k : int, default=2
        The most parents of a feature besides the class.

    alpha : float or array of shape (n_features,), default=1.0
        Dirichlet pseudo-count of every conditional table.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        (n + alpha) / (N + K alpha), (n + alpha - 1) / (N + K (alpha - 1)), or n / N.
    missing : {"ignore", "category"}, default="category" for TAN and KDB, "ignore" else
        Missing cells (NaN, None): "ignore" leaves them out of the counts and sums them out
        at predict (exact for TAN and KDB; AODE leaves out the factor of a missing child and
        never uses a missing parent), right when values are missing at random; "category"
        makes "missing" a value of its own (code 0 of categorical columns, the bin after the
        last of numeric ones), which keeps what the fact of being missing says about the
        class. The defaults follow what 20 stratified 70/30 splits of UCI Mushroom (missing
        stalk-root: 31 % of rows, most of them poisonous) and Adult's test split measured:
        TAN's mean test errors on Mushroom fall from 2.95 to 0.20 rows with "category"
        (KDB(2) from 0.40 to 0), Adult's accuracy is unchanged (TAN 0.8614 -> 0.8617, KDB
        0.8590 -> 0.8608); AODE's (1.3 -> 1.0 errors, Adult 0.8534 -> 0.8531), A2DE's and
        JointBayes' figures do not favour it, and AODE then skips missing values as Webb's
        AODE and Weka's do.
    binning : {"mdl", "quantile"} or Binned, default="mdl"
        How ``fit`` cuts numeric columns: Fayyad & Irani's supervised MDL discretisation
        (what Weka applies before AODE), or ``n_bins`` equal-frequency bins, both from the
        weight of every distinct value per class; or a
        :class:`~nbayes.distributions.Binned` family (MDL or equal-frequency cuts of its
        per-class counts on a grid of ``bins`` bins): the same cuts as that family in
        :class:`~nbayes.MixedNB` or :class:`~nbayes.DensityNB`, and a survey whose memory is
        bounded by ``bins`` per class and column, whatever the number of distinct values
        (the distinct-value summaries hold one row per distinct value: for Dask fits of
        many distinct floats), at the grid's resolution (cuts fall on grid boundaries; on
        Adult and Spambase 256 bins cost AODE about one point of accuracy, 1024 bins
        0.0 to 0.1).
    n_bins : int, default=5
        Quantile bins of each numeric column under ``binning="quantile"``.
    bin_edges : dict, optional
        Fixed inner edges per numeric column, ``{column: increasing edges}``; needed by
        ``partial_fit`` (``fit``, ``nbayes.dask.fit`` and ``nbayes train`` find them from
        all the rows).
    categorical : list, optional
        Columns to treat as categories although they hold numbers. A DataFrame is read by
        the typology of :mod:`nbayes.columns`, as ``MixedNB(columns="auto")`` reads it:
        identifiers are left out (with one ColumnWarning) and timestamps become calendar
        features (``"when.month"``, categories); a column named here is not read so, which
        keeps an identifier, or dates as their written values. The choices are in
        ``column_choices_``; arrays are modelled as they are.
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    max_table_bytes : int, default=2**30
        Refuse inputs whose count tables would be larger (a DataError names the size).

    Attributes
    ----------
    structure_ : dict
        Column -> list of its feature parents, strongest first.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes import KDB
    >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"],
    ...                    "c": ["s", "s", "s", "t"]})
    >>> sorted(len(p) for p in KDB(k=2).fit(df, [0, 1, 1, 0]).structure_.values())
    [0, 1, 2]
    """

    _parameter_constraints: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_constraints,
        "k": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(
        self,
        k=2,
        *,
        alpha=1.0,
        estimate="posterior_mean",
        missing="category",
        binning="mdl",
        n_bins=5,
        bin_edges=None,
        categorical=None,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        max_table_bytes=_counts.MAX_TABLE_BYTES,
    ):
        self.k = k
        self.alpha = alpha
        self.estimate = estimate
        self.missing = missing
        self.binning = binning
        self.n_bins = n_bins
        self.bin_edges = bin_edges
        self.categorical = categorical
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.max_table_bytes = max_table_bytes

    def _order(self):
        return min(int(self.k), max(self.n_features_in_ - 1, 0)) + 1

    def _k(self):
        return int(self.k)


class JointBayes(_SemiNaiveNB):
    """The Bayes classifier that counts whole feature vectors, with a naive Bayes backoff.

    A row whose complete feature vector was seen at least ``min_count`` times is classified
    by the smoothed class distribution of that vector, (n(y, x) + alpha) / (n(x) + C alpha);
    any other row (a rarer vector, an unseen category, a missing value) by the backoff
    model: naive Bayes from the same counts, or ``backoff``, an nbayes estimator fitted on the
    same batches. With few features and many rows this is the optimal classifier; as
    features grow the vectors become unique and it needs vastly more rows than naive Bayes.

    Parameters
    ----------
    min_count : float, default=1
        Training weight a vector needs to be scored by its own counts.
    backoff : estimator, optional
        An unfitted nbayes estimator (e.g. ``TAN()``) for the other rows; it receives every
        batch. Default: naive Bayes over the same codes.

    alpha : float or array of shape (n_features,), default=1.0
        Dirichlet pseudo-count of every conditional table.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        (n + alpha) / (N + K alpha), (n + alpha - 1) / (N + K (alpha - 1)), or n / N.
    missing : {"ignore", "category"}, default="category" for TAN and KDB, "ignore" else
        Missing cells (NaN, None): "ignore" leaves them out of the counts and sums them out
        at predict (exact for TAN and KDB; AODE leaves out the factor of a missing child and
        never uses a missing parent), right when values are missing at random; "category"
        makes "missing" a value of its own (code 0 of categorical columns, the bin after the
        last of numeric ones), which keeps what the fact of being missing says about the
        class. The defaults follow what 20 stratified 70/30 splits of UCI Mushroom (missing
        stalk-root: 31 % of rows, most of them poisonous) and Adult's test split measured:
        TAN's mean test errors on Mushroom fall from 2.95 to 0.20 rows with "category"
        (KDB(2) from 0.40 to 0), Adult's accuracy is unchanged (TAN 0.8614 -> 0.8617, KDB
        0.8590 -> 0.8608); AODE's (1.3 -> 1.0 errors, Adult 0.8534 -> 0.8531), A2DE's and
        JointBayes' figures do not favour it, and AODE then skips missing values as Webb's
        AODE and Weka's do.
    binning : {"mdl", "quantile"} or Binned, default="mdl"
        How ``fit`` cuts numeric columns: Fayyad & Irani's supervised MDL discretisation
        (what Weka applies before AODE), or ``n_bins`` equal-frequency bins, both from the
        weight of every distinct value per class; or a
        :class:`~nbayes.distributions.Binned` family (MDL or equal-frequency cuts of its
        per-class counts on a grid of ``bins`` bins): the same cuts as that family in
        :class:`~nbayes.MixedNB` or :class:`~nbayes.DensityNB`, and a survey whose memory is
        bounded by ``bins`` per class and column, whatever the number of distinct values
        (the distinct-value summaries hold one row per distinct value: for Dask fits of
        many distinct floats), at the grid's resolution (cuts fall on grid boundaries; on
        Adult and Spambase 256 bins cost AODE about one point of accuracy, 1024 bins
        0.0 to 0.1).
    n_bins : int, default=5
        Quantile bins of each numeric column under ``binning="quantile"``.
    bin_edges : dict, optional
        Fixed inner edges per numeric column, ``{column: increasing edges}``; needed by
        ``partial_fit`` (``fit``, ``nbayes.dask.fit`` and ``nbayes train`` find them from
        all the rows).
    categorical : list, optional
        Columns to treat as categories although they hold numbers. A DataFrame is read by
        the typology of :mod:`nbayes.columns`, as ``MixedNB(columns="auto")`` reads it:
        identifiers are left out (with one ColumnWarning) and timestamps become calendar
        features (``"when.month"``, categories); a column named here is not read so, which
        keeps an identifier, or dates as their written values. The choices are in
        ``column_choices_``; arrays are modelled as they are.
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    max_table_bytes : int, default=2**30
        Refuse inputs whose count tables would be larger (a DataError names the size).

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes import JointBayes
    >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    >>> JointBayes().fit(df, [0, 1, 1, 0]).predict(df).tolist()
    [0, 1, 1, 0]
    """

    def capabilities(self) -> frozenset[str]:
        """The semi-naive models', and ``holds_model``: a ``backoff`` model may be part of
        it (see :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        return super().capabilities() | {base.HOLDS_MODEL}

    _parameter_constraints: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_constraints,
        "min_count": [Interval(Real, 0, None, closed="left")],
        "backoff": [None, HasMethods(["partial_fit", "predict_joint_log_proba", "explain"])],
    }
    _parameter_messages: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_messages,
        "backoff": (
            "Parameter 'backoff' must be None (naive Bayes from the same counts) or an nbayes "
            "estimator such as MixedNB(); got {value}."
        ),
    }

    def __init__(
        self,
        *,
        min_count=1,
        backoff=None,
        alpha=1.0,
        estimate="posterior_mean",
        missing="ignore",
        binning="mdl",
        n_bins=5,
        bin_edges=None,
        categorical=None,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        max_table_bytes=_counts.MAX_TABLE_BYTES,
    ):
        self.min_count = min_count
        self.backoff = backoff
        self.alpha = alpha
        self.estimate = estimate
        self.missing = missing
        self.binning = binning
        self.n_bins = n_bins
        self.bin_edges = bin_edges
        self.categorical = categorical
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.max_table_bytes = max_table_bytes

    def _order(self):
        return 1

    def _extra_stats(self, codes, labels, stats):
        return {**stats, **joint.accumulate(codes, labels)}

    def _merge_stats(self, a, b):
        vec = joint.merge(a, b)
        tables = _counts.merge(
            {k: v for k, v in a.items() if k not in vec},
            {k: v for k, v in b.items() if k not in vec},
        )
        return {**tables, **vec}

    def _subtract_stats(self, a, b):
        vec = joint.subtract(a, b, self.classes_.tolist())
        tables = _counts.subtract(
            {k: v for k, v in a.items() if k not in vec},
            {k: v for k, v in b.items() if k not in vec},
            self.classes_.tolist(),
        )
        return {**tables, **vec}

    def _relayout_stats(self, stats, n_cat, maps):
        tables = _counts.relayout(
            {k: v for k, v in stats.items() if k not in ("vectors", "n_vectors")},
            np.maximum(n_cat, stats["n_categories"]),
            maps,
        )
        vec = {"vectors": stats["vectors"], "n_vectors": stats["n_vectors"]}
        if maps is not None:
            vec = joint.recode(vec, maps)
        return {**tables, **vec}

    def _build(self, stats, a):
        m = float(self.min_count)
        return {
            "joint": joint.finalize(stats, float(np.mean(a)) if a.size else 1.0, m),
            "naive": aode.finalize_level(stats, 0, a, 1.0),
        }

    def _learn_batch(self, df, y, sample_weight, classes):
        super()._learn_batch(df, y, sample_weight, classes)
        if self.backoff is not None:
            if not hasattr(self, "backoff_"):
                self.backoff_ = clone(self.backoff)
                reading = self.__dict__.get("_reading")
                if "categorical" in self.backoff_.get_params() and reading is not None:
                    # The calendar features of this model's table are categories there too.
                    own = list(self.backoff_.get_params()["categorical"] or [])
                    self.backoff_.set_params(categorical=own + reading.calendar_names())
                if "bin_edges" in self.backoff_.get_params() and self._edges:
                    # A semi-naive backoff learns batch by batch too, so it cuts numeric
                    # columns at this model's edges (those it was not given itself).
                    own = self.backoff_.get_params()["bin_edges"] or {}
                    self.backoff_.set_params(bin_edges={**self._edges, **own})
            self.backoff_.partial_fit(df, y, classes=self.classes_, sample_weight=sample_weight)
        return self

    def _jll(self, X, normalised):
        check_is_fitted(self, "stats_")
        df = self._validate_X(X, reset=False)
        codes = self._codes(df, "score")

        def fallback(rows):
            if self.backoff is None:
                return aode.log_joint(codes[rows], [self.tables_["naive"]], self.class_log_prior_)
            out = self.backoff_.predict_joint_log_proba(df.iloc[rows])
            order = pd.Index(self.backoff_.classes_).get_indexer(self.classes_)
            return out[:, order]

        return joint.log_joint(codes, self.stats_, self.tables_["joint"], fallback)

    def scored_by_joint(self, X) -> np.ndarray:
        """Which rows of X the joint table scores (their whole vector was seen at least
        ``min_count`` times); the others are scored by the backoff model.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows as ``predict`` takes them.

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            True where the joint table scores the row.

        Examples
        --------
        >>> from nbayes import JointBayes
        >>> model = JointBayes().fit([["a", "x"], ["a", "x"], ["b", "y"]], [0, 0, 1])
        >>> model.scored_by_joint([["a", "x"], ["b", "x"]]).tolist()
        [True, False]
        """
        check_is_fitted(self, "stats_")
        return self._joint_rows(self._codes(self._validate_X(X, reset=False), "score"))

    def _joint_rows(self, codes: np.ndarray) -> np.ndarray:
        where = joint.find(self.stats_, codes)
        own = where >= 0
        own[own] = self.tables_["joint"]["usable"][where[own]]
        return own

    def _terms(self, df, codes, names):
        # Rows scored by their own vector: the chain rule over the columns in order, each
        # step the model's smoothed estimate of one more column given the earlier ones.
        # Other rows: the backoff model's terms (its class prior's difference from this
        # model's, zero when both are fitted on the same rows, shared equally).
        prior = self.class_log_prior_
        jll = self._jll(df, normalised=False)
        own = self._joint_rows(codes)
        d = codes.shape[1]
        terms = np.zeros((len(codes), prior.size, d))
        given = np.empty(codes.shape, dtype=object)
        a = pseudo_count(check_alpha(self.alpha, d, self.estimate), self.estimate)
        terms[own] = _feature_terms.joint_terms(
            codes[own], self.stats_, float(np.mean(a)) if a.size else 1.0, prior, jll[own]
        )
        earlier = np.tril(np.ones((d, d), dtype=bool), -1)[None]
        given[own] = _feature_terms.given_text(earlier, names)
        rest = np.flatnonzero(~own)
        if rest.size and self.backoff is None:
            naive, _ = _feature_terms.aode_terms(codes[rest], [self.tables_["naive"]], prior)
            terms[rest], given[rest] = naive, ""
        elif rest.size:
            ex = self.backoff_.explain(df.iloc[rest], feature_names=names)
            order = pd.Index(self.backoff_.classes_).get_indexer(self.classes_)
            shift = (ex.log_prior[order] - prior) / d
            terms[rest] = ex.terms[:, order, :] + shift[None, :, None]
            given[rest] = "" if ex.given is None else ex.given
        return jll, terms, given

    # -- with a backoff estimator: what follows it and what does not ---------------------------
    def _refuse_backoff(self, what: str) -> None:
        if self.backoff is not None:
            raise ParameterError(
                f"JointBayes with a backoff estimator cannot be {what} yet: the protocol "
                "carries JointBayes' statistics only, so the backoff model would not follow. "
                "Use the default naive Bayes backoff (backoff=None), or fit on one machine."
            )

    def survey_step(self, meta, summary=None):
        """The next pass over the data needed before :meth:`setup`, or None when none is.

        Most estimators need none: their columns and families follow from ``meta``. MixedNB
        needs the distinct values of its categorical columns (to number categories as ``fit``
        on all rows would); TextNB with a CountVectorizer needs word counts (its vocabulary).

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            The data's columns and dtypes (a table), or its number of columns (an array).
        summary : object, optional
            What the passes so far found (None before the first pass).

        Returns
        -------
        SurveyStep or None
            The pass to run over all the data, or None when :meth:`setup` can go ahead.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import MixedNB, MultinomialNB
        >>> MultinomialNB().survey_step(3) is None
        True
        >>> meta = pd.DataFrame({"city": pd.Series(dtype=object), "t": pd.Series(dtype=float)})
        >>> MixedNB().survey_step(meta).columns
        ['city']
        """
        self._refuse_backoff("fitted through the estimator protocol (nbayes.dask.fit)")
        return super().survey_step(meta, summary)

    def setup(self, meta, summary=None) -> None:
        """Get ready to :meth:`accumulate` batches, without learning from any.

        Discards any fitted state; sets the columns (``n_features_in_``, and
        ``feature_names_in_`` for a table with string column names), the families and any
        vocabulary, exactly as ``fit`` on all the rows would.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            As in :meth:`survey_step`.
        summary : object, optional
            The final summary of the survey passes, if :meth:`survey_step` asked for any.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB()
        >>> model.setup(2)
        >>> stats = model.accumulate(np.array([[1, 0], [0, 2]]), Labels([0, 1], [1.0, 1.0], 2))
        >>> model.install(np.array(["a", "b"]), stats).predict([[3, 0]]).tolist()
        ['a']
        """
        self._refuse_backoff("fitted through the estimator protocol (nbayes.dask.fit)")
        super().setup(meta, summary)

    def recode_statistics(self, other) -> dict:
        """The statistics of fitted ``other`` (same kind, same settings) in this model's
        encoding, ready to merge with this model's (vocabularies are extended as needed).

        Parameters
        ----------
        other : estimator
            A fitted model of the same class and set-up parameters, over the same columns.

        Returns
        -------
        dict
            ``other``'s statistics, encoded as this model's (over ``other``'s classes).

        Examples
        --------
        >>> from nbayes import CategoricalNB
        >>> a = CategoricalNB().fit([["red"], ["blue"]], [0, 1])
        >>> b = CategoricalNB().fit([["green"]], [0])
        >>> a.recode_statistics(b)["groups"][0]["n_counts"].tolist()  # blue, red, green
        [[0.0, 0.0, 1.0]]
        """
        self._refuse_backoff("merged (nbayes.merge)")
        return super().recode_statistics(other)

    def unlearn(self, X, y, sample_weight=None):
        """Remove rows learned earlier, exactly (see :meth:`BaseNB.unlearn`); a backoff
        estimator unlearns them too (both or neither: a failure leaves the model as it was).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows the model was trained on.
        y : array-like of shape (n_samples,)
            Their labels.
        sample_weight : array-like of shape (n_samples,), optional
            The weights the rows were learned with.

        Returns
        -------
        self
            The estimator, as if it had never seen those rows.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import JointBayes
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> model = JointBayes().fit(df, [0, 1, 1, 0])
        >>> model.unlearn(df.iloc[:1], [0]).class_count_.tolist()
        [1.0, 2.0]
        """
        if self.backoff is None:
            return super().unlearn(X, y, sample_weight)
        backoff = copy.deepcopy(self.backoff_)
        backoff.unlearn(X, y, sample_weight)
        super().unlearn(X, y, sample_weight)
        self.backoff_ = backoff
        return self

    def get_state(self) -> dict:
        """The fitted state (see :meth:`BaseNB.get_state`); with a ``backoff`` estimator,
        ``backoff`` holds the fitted backoff model's own state.

        Returns
        -------
        dict
            The state; :meth:`set_state` of it gives back a model that predicts identically,
            keeps learning and can be merged.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).predict([[3, 0]]).tolist()
        ['a']
        """
        state = super().get_state()
        if self.backoff is not None:
            if isinstance(self.backoff, JointBayes) and self.backoff.backoff is not None:
                raise ParameterError(
                    "A JointBayes whose backoff is a JointBayes with a backoff of its own "
                    "cannot be saved; give the inner JointBayes no backoff."
                )
            state["backoff"] = self.backoff_.get_state()
        return state

    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output, the backoff model included;
        ValueError if the parts do not fit together.

        Parameters
        ----------
        state : dict
            What :meth:`get_state` returned, for an estimator of this class.

        Returns
        -------
        self
            The fitted model.

        Raises
        ------
        ValueError
            The parts do not fit together.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).classes_.tolist()
        ['a', 'b']
        """
        inner = state.get("backoff")
        if (inner is None) != (self.backoff is None):
            raise ValueError(
                "the backoff model's state is missing"
                if inner is None
                else "a backoff model's state is stored, but the parameters name no backoff."
            )
        if (
            inner is not None
            and inner.get("estimator", type(self.backoff).__name__) != type(self.backoff).__name__
        ):
            raise ValueError(
                f"the stored backoff model is a {inner['estimator']}, but the parameters name "
                f"a {type(self.backoff).__name__}."
            )
        super().set_state(state)
        self.__dict__.pop("backoff_", None)
        if inner is not None:
            backoff = clone(self.backoff).set_state(inner)
            if backoff.n_features_in_ != self.n_features_in_ or sorted(
                np.asarray(backoff.classes_).tolist()
            ) != sorted(np.asarray(self.classes_).tolist()):
                raise ValueError("the backoff model has other classes or columns than JointBayes.")
            self.backoff_ = backoff
        return self

    def _check_extra_stats(self, stats: dict) -> None:
        vectors, counts = stats.get("vectors"), stats.get("n_vectors")
        n_cat = stats["n_categories"]
        if (
            vectors is None
            or counts is None
            or vectors.ndim != 2
            or vectors.dtype.kind != "i"
            or vectors.shape[1] != n_cat.size
            or counts.shape != (self.classes_.size, vectors.shape[0])
            or (vectors.size and (vectors.min() < 0 or np.any(vectors >= n_cat)))
            or not (np.all(np.isfinite(counts)) and counts.min(initial=0) >= 0)
        ):
            raise ValueError("the JointBayes table of feature vectors is inconsistent.")
