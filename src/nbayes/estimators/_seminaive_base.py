"""The shared base of the semi-naive models: columns to codes, fitting, scoring, model files.

The model logic lives in the pure core :mod:`nbayes.seminaive`; see
:mod:`nbayes.estimators.seminaive` for how numeric columns are cut into bins.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .. import _engine as engine
from .. import base
from .._labels import fit_classes, label_codes
from .._params import Interval, StrOptions, check_params
from .._training import update
from ..base import Mode
from ..columns import choices_from_state, choices_state, choices_table
from ..distributions import Binned
from ..distributions._labels import Labels, SoftLabels, accumulate_by_class
from ..distributions.statistics import by_slots, check_statistics
from ..exceptions import DataError, NotFittedError, ParameterError
from ..seminaive import _counts
from ._base import BaseNB, check_sample_weight
from ._columns import ColumnLayout
from ._constraints import CLASS_PRIOR, SMOOTHING, fixed_alpha_message
from ._encoding import Vocabulary, as_frame
from ._explain import Explanation
from ._seminaive_protocol import _SemiNaiveProtocol
from ._seminaive_survey import _as_float, _edges_of, _summarise
from ._table_reading import TableReading

#: How ``fit`` cuts numeric columns: supervised (Fayyad & Irani's MDL) or equal-frequency;
#: a :class:`~nbayes.distributions.Binned` family instance is accepted too (see ``binning``).
BINNINGS = ("mdl", "quantile")
#: Missing cells: summed out (exact under the model) or a category of their own.
MISSING = ("ignore", "category")


class _SemiNaiveNB(_SemiNaiveProtocol, BaseNB):
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
        >>> from nbayes import TAN
        >>> sorted(TAN().capabilities())
        ['explanations', 'joint_probability']
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
            self._choices: list | None = None
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
        return update(self, df, y, weights, classes)

    def _start_partial_fit(self, X) -> None:
        # Numeric columns are cut at ``bin_edges`` given up front (no batch sees all values;
        # see the module docstring): fixed here, before the first batch is counted.
        self._set_edges(None)

    def _learn_onto(self, df, classes: np.ndarray, labels: Labels, n_added: int) -> None:
        """Accumulate one checked batch, merge it onto the statistics (laid out over the
        ``n_added`` new classes first) and finalize (see :func:`nbayes._training.update`)."""
        stats = self._accumulate(df, labels, "learn")
        if hasattr(self, "stats_"):
            before = self.stats_
            if n_added:
                known = classes.size - n_added
                before = self.align_statistics(before, np.arange(known), classes.size)
            stats = self._merge_stats(before, stats)
        self.install(classes, stats)

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

    def _statistics(self) -> tuple:
        """The statistics this model keeps, declared once as typed slots (see
        :func:`nbayes.seminaive._counts.slots`): their algebra and their checks."""
        return _counts.slots(self._order())

    def _merge_stats(self, a: dict, b: dict) -> dict:
        return by_slots(self._statistics(), "add", a, b)

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

        TAN and KDB choose their parents by these (the report labels the structure's edges).

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
        >>> from nbayes import TAN
        >>> TAN().finalize_params()
        Traceback (most recent call last):
        ...
        nbayes.exceptions.ParameterError: TAN learns its bin edges and categories from the rows ...
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
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> state = TAN().fit(df, [0, 1, 1, 0]).get_state()
        >>> sorted(state["statistics"])
        ['class_count', 'n1', 'n2', 'n_categories']
        """
        state = super().get_state()
        # recode_statistics extends the vocabulary in place (for a merge to follow): statistics
        # counted before it lack the new codes, which are zero counts in the state.
        state["statistics"] = self._relayout_stats(self.stats_, self._n_categories(), None)
        return state

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
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> model = TAN().fit(df, [0, 1, 1, 0])
        >>> TAN().set_state(model.get_state()).predict(df).tolist()
        [0, 1, 1, 0]
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
        check_statistics(self._statistics(), stats, self.classes_.size, n_features)
        if not np.array_equal(stats["n_categories"], n_cat):
            raise ValueError("the statistics do not match the vocabulary and bin edges.")
        self._check_extra_stats(stats)
        self.stats_ = stats
        self.finalize()
        return self

    def _check_extra_stats(self, stats: dict) -> None:
        """Check that the statistics agree with each other (JointBayes' vectors' codes)."""

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
        n_cat = np.maximum(n_cat, stats["n_categories"])
        return by_slots(self._statistics(), "recode", stats, n_cat, maps)
