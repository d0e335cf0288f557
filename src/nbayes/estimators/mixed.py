"""MixedNB: one Naive Bayes model over a table whose columns need different families.

Columns are gathered into groups, each modelled by one family (Gaussian for measurements,
Categorical for labels, Bernoulli for flags, Poisson for counts, ...). Under the naive
assumption the groups are independent given the class, so the joint log-likelihood is the sum
of the groups' and everything -- fit, partial_fit, merge, missing values -- works group by group
on the same engine as the presets.
"""

from __future__ import annotations

import warnings
from functools import partial
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._params import Interval, StrOptions, check_params
from .._validation import user_stacklevel
from ..base import SurveyStep
from ..columns import (
    Calendar,
    ColumnReading,
    choices_from_state,
    choices_state,
    choices_table,
    read_column,
    warn_of,
)
from ..columns import _survey as columns_survey
from ..distributions import REGISTRY, Family, make_family
from ..distributions.categorical import UNSEEN
from ..exceptions import ColumnWarning, DataError, NotFittedError, ParameterError
from . import _survey
from ._base import BaseNB
from ._columns import MISSING_POLICIES, ColumnLayout
from ._constraints import ALPHA_MESSAGE, CLASS_PRIOR, SMOOTHING, VAR_SMOOTHING_MESSAGE
from ._encoding import as_frame
from ._survey import survey_columns

REMAINDER = ("auto", "drop", "error")


class MixedNB(BaseNB):
    """Naive Bayes over a table of mixed columns: one family per column group.

    Fits straight from a pandas DataFrame (or a pyarrow Table, or an array): strings and
    pandas categoricals are categories, booleans are flags, floats are measurements, and missing
    values (NaN, None, pd.NA) need no imputation.

    Parameters
    ----------
    columns : "auto" or list of (family, selector), default="auto"
        The column groups, in the spirit of scikit-learn's ``make_column_transformer``.
        ``family`` is a registered family name (``"gaussian"``, ``"categorical"``,
        ``"bernoulli"``, ``"poisson"``, ``"multinomial"``, ``"complement"``, ``"text"``), a
        family instance carrying its own parameters (``Categorical(alpha=0.5)``,
        ``Text(n_buckets=2**18)``), or ``"auto"``. A ``"text"`` group reads each of its columns
        as short texts (addresses, names, product titles): their words, hashed into buckets,
        are counts of a multinomial per class and column (see
        :class:`nbayes.distributions.Text`), modelled together with the other columns. ``selector``
        is a column name, a position, a list of either, a slice, a boolean mask, or a callable
        that takes the DataFrame and returns column names (e.g. scikit-learn's
        ``make_column_selector``). Columns in no group follow ``remainder``. With ``"auto"``
        every column is read by the typology of :mod:`nbayes.columns` (one kind per column,
        with its evidence), which gives its family:

        * identifier (whole numbers or codes distinct in every row, named like a row index
          or filling their range like row numbers) -> left out, with a
          :class:`~nbayes.exceptions.ColumnWarning` that names it and how to keep it (name
          it in a group)
        * timestamp (a datetime dtype, or dates and times written in the common forms) ->
          calendar features ``"<column>.year"``, ``.month``, ``.dayofweek`` and ``.hour``
          where times are written, each categorical; predict reads the raw column. A
          ``("calendar", [...])`` group names such columns explicitly.
        * boolean (numpy, pandas ``boolean``, Arrow bool, Python booleans with gaps) ->
          ``"bernoulli"``
        * category, short text, free text (object, string, category dtypes) ->
          ``"categorical"``
        * number: float -> ``"gaussian"``; integer -> ``"categorical"`` when it has at most
          ``max_int_categories`` distinct values in the first batch fitted, ``"gaussian"``
          otherwise. Integer counts that should be Poisson must be named:
          ``columns=[("poisson", ["visits"])]``. A number column that codes missing values
          with a number (999999, -99, ...) gets a ColumnWarning with the fix.

        The choice is made once, on the first batch (``fit`` or the first ``partial_fit``),
        and reported by ``column_families_``, ``column_choices_`` (column, kind, family,
        why), :meth:`summary` and :meth:`infer_families`.

        Durations and complex numbers raise a ParameterError asking for a family.
    remainder : {"auto", "drop", "error"}, default="auto"
        What happens to columns in no group: infer their family as above, leave them out of
        the model, or raise.
    missing : {"ignore", "error", "category"}, default="ignore"
        Missing cells (NaN, None, pd.NA, NaT) in any column. "ignore" leaves them out of the
        statistics at fit (weights are kept per class and feature) and out of the product at
        predict -- exact marginalisation under the naive assumption. "error" raises a
        DataError naming the column and first row. "category" makes "missing" a category of
        its own (code 0) in categorical columns and ignores it in the others. Applies to every
        group, including families given as instances.
    unseen : {"smooth", "ignore", "error"}, default="smooth"
        A category at predict time that no training batch contained. "smooth" gives it the
        prior mass of a category with no observations, alpha / (n_kj + K_j alpha) in class k;
        "ignore" drops that factor, as for a missing value; "error" raises a DataError naming
        the column, the value and the row. The default is "smooth" because it is what the
        Dirichlet prior already says about a category never observed, keeps batch scoring
        running when new values appear in production, and still uses the evidence: a new
        value is less likely under classes with much data. Applies to every categorical group.
        Values whose type differs from that of every training value of their column are
        matched by what they stand for at predict (the text "7" and the number 7, either
        way), and a column whose values are mostly unseen at predict (over half, at least
        10 values) gets a UserWarning that names it.
    max_int_categories : int or "auto", default="auto"
        Integer columns with at most this many distinct values are categorical under "auto".
        "auto" is ``max(20, sqrt(n_rows))`` of the first batch: an integer column becomes
        categorical when its categories would hold about sqrt(n) rows each on average, so
        small ages, ratings or hour counts are modelled exactly while ids and amounts with
        many distinct values stay Gaussian. (On UCI Adult this makes age, hours-per-week and
        the capital columns categorical: their spikes at 0, 40, 99999 are not normal).
    alpha : float or "cv", default=1.0
        Dirichlet / Beta / Gamma prior concentration of the discrete families named by string.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        Estimate of the discrete families named by string.
    var_smoothing : float or "cv", default=1e-9
        Variance floor of Gaussian groups named by string, relative to the largest variance
        in the group.
        "cv" (either or both) chooses by 5-fold cross-validated log-loss inside fit, as in
        the presets (alpha first, then var_smoothing at the chosen alpha).
    fit_prior : bool, default=True
        Learn the class prior; False uses a uniform prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed class prior.
    prior_alpha : float, default=0.0
        Hallucinated observations of every class in the fitted prior.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Column names, when fitted on a table whose column names are all strings. At predict,
        a DataFrame's columns are matched by name (reordered as needed); a missing column is
        a DataError, extra columns are ignored with a UserWarning.
    column_groups_ : list of (str, list)
        Family name and column labels of each group, as fitted.
    column_families_ : dict
        Column label -> family name.
    categories_ : dict
        Column label -> ndarray of the categories of each categorical column, in code order.
        Vocabularies only grow: partial_fit appends new values.
    families_ : list of Family
    stats_ : dict
        Mergeable sufficient statistics per group.

    See Also
    --------
    MixedNB.summary : One row per column with its family, categories and missing share.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from nbayes import MixedNB
    >>> df = pd.DataFrame({"colour": ["red", "red", "blue", None],
    ...                    "size": [1.0, 1.2, 3.1, 2.9],
    ...                    "spots": [True, True, False, False]})
    >>> model = MixedNB().fit(df, ["apple", "apple", "plum", "plum"])
    >>> model.column_families_
    {'colour': 'categorical', 'size': 'gaussian', 'spots': 'bernoulli'}
    >>> new = pd.DataFrame({"spots": [False], "colour": ["green"], "size": [np.nan]})
    >>> model.predict(new).tolist()  # columns matched by name; unseen and missing handled
    ['plum']
    """

    _finalize_only = frozenset(
        {"alpha", "estimate", "var_smoothing", "fit_prior", "class_prior", "prior_alpha", "unseen"}
    )
    #: The fitted table's column labels, then the labels of its calendar features.
    _columns: list

    _parameter_constraints: ClassVar[dict] = {
        "columns": [StrOptions({"auto"}), list, tuple],
        "remainder": [StrOptions(set(REMAINDER))],
        "missing": [StrOptions(set(MISSING_POLICIES))],
        "unseen": [StrOptions(set(UNSEEN))],
        "max_int_categories": [StrOptions({"auto"}), Interval(Integral, 0, None, closed="left")],
        **SMOOTHING,
        "var_smoothing": [Real, StrOptions({"auto", "cv"})],
        **CLASS_PRIOR,
    }
    _parameter_messages: ClassVar[dict] = {
        "alpha": ALPHA_MESSAGE,
        "var_smoothing": VAR_SMOOTHING_MESSAGE,
        "columns": (
            "Parameter 'columns' must be 'auto' or a list of (family, selector) pairs, e.g. "
            "[('gaussian', ['age']), ('categorical', ['city'])]; got {value}."
        ),
    }

    def __init__(
        self,
        columns="auto",
        *,
        remainder="auto",
        missing="ignore",
        unseen="smooth",
        max_int_categories="auto",
        alpha=1.0,
        estimate="posterior_mean",
        var_smoothing=1e-9,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
    ):
        self.columns = columns
        self.remainder = remainder
        self.missing = missing
        self.unseen = unseen
        self.max_int_categories = max_int_categories
        self.alpha = alpha
        self.estimate = estimate
        self.var_smoothing = var_smoothing
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha

    # -- parameters and column groups --------------------------------------------------------
    @property
    def _family_missing(self) -> str:
        return "error" if self.missing == "error" else "ignore"

    def _family(self, family) -> Family:
        """A fresh family from a name or instance, with this model's missing/unseen policy."""
        if isinstance(family, Family):
            params = family.get_params()
            name = family.name
        else:
            name = family
            if name not in REGISTRY:
                raise ParameterError(
                    f"Unknown family {name!r} in 'columns'; choose one of {sorted(REGISTRY)} "
                    "or 'auto', or pass a family instance."
                )
            params = {p: self._resolved(p) for p in REGISTRY[name].shared_params}
        params["missing"] = self._family_missing
        if name == "categorical":
            params["unseen"] = self.unseen
            if self.missing == "category":  # missing cells arrive as code 0: none to skip
                params["missing"] = "error"
        return make_family(name, **params)

    def _select(self, df: pd.DataFrame, selector, group: int) -> np.ndarray:
        """Positions of the columns a selector picks."""
        labels = pd.Index(df.columns)
        if callable(selector):
            selector = list(selector(df))
        if isinstance(selector, slice):
            if not all(
                v is None or isinstance(v, (int, np.integer))
                for v in (selector.start, selector.stop)
            ):
                selector = labels.slice_indexer(selector.start, selector.stop, selector.step)
            return np.arange(df.shape[1])[selector]
        many = isinstance(selector, (list, tuple, np.ndarray, pd.Index))
        items = list(selector) if many else [selector]
        if items and all(isinstance(s, (bool, np.bool_)) for s in items):
            if len(items) != df.shape[1]:
                raise ParameterError(
                    f"Boolean column mask of group {group} has {len(items)} entries; the "
                    f"table has {df.shape[1]} columns."
                )
            return np.flatnonzero(items)
        pos = labels.get_indexer(items)
        for k in np.flatnonzero(pos < 0):  # bounded: reports selectors that name no label
            item = items[k]
            if isinstance(item, (int, np.integer)) and -df.shape[1] <= item < df.shape[1]:
                pos[k] = item % df.shape[1]
            else:
                raise ParameterError(
                    f"Column {item!r} selected by group {group} of 'columns' is not in the "
                    f"table; its columns are {labels.tolist()!r}."
                )
        return pos

    def _int_limit(self, n_rows: int) -> int:
        limit = self.max_int_categories
        if isinstance(limit, str) and limit == "auto":
            return max(20, int(np.sqrt(n_rows)))
        return int(limit)

    def _infer(self, df: pd.DataFrame, positions: np.ndarray, survey=None) -> list[ColumnReading]:
        """The reading of each column by the typology of :mod:`nbayes.columns` (the rule is
        in the class docstring).

        ``survey`` = (number of rows, {column: reading}) gives the readings that a survey of
        the data found (see :meth:`survey_step`) when the data is not at hand: the same as
        reading all of its rows.
        """
        for p in positions.tolist():  # dtype metadata only
            dtype = df.dtypes.iloc[p]
            if getattr(dtype, "kind", "O") in "mc":  # durations, complex numbers
                raise ParameterError(
                    f"Cannot infer a family for column {df.columns[p]!r} (index {p}) of dtype "
                    f"{dtype}. Convert it (e.g. durations to seconds) or name its family: "
                    f"columns=[('gaussian', [{df.columns[p]!r}])]."
                )
        if survey is None:
            limit = self._int_limit(df.shape[0])
            return [
                read_column(df.iloc[:, p], df.columns[p], max_int_categories=limit)
                for p in positions.tolist()  # bounded by the table's width
            ]
        _, readings = survey
        lacking = [df.columns[p] for p in positions.tolist() if df.columns[p] not in readings]
        if lacking:
            raise ParameterError(
                f"MixedNB cannot read column(s) {lacking!r}: no survey of their values; run "
                "the survey passes of survey_step() first."
            )
        return [readings[df.columns[p]] for p in positions.tolist()]

    def _read_columns(self, df: pd.DataFrame) -> set:
        """Labels of the columns that the typology reads: those in "auto" or "calendar"
        groups, and the remainder when it is "auto" (for a survey pass)."""
        if isinstance(self.columns, str):
            return set(df.columns)
        named = np.zeros(df.shape[1], dtype=bool)
        read = np.zeros(df.shape[1], dtype=bool)
        for g, item in enumerate(self.columns):  # bounded by the number of groups written
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                continue  # _resolve_groups says what is wrong with it
            pos = self._select(df, item[1], g)
            named[pos] = True
            if isinstance(item[0], str) and item[0] in ("auto", "calendar"):
                read[pos] = True
        if self.remainder == "auto":
            read |= ~named
        return set(df.columns[read])

    def _text_columns(self, df: pd.DataFrame) -> list:
        """Labels of the columns that ``columns`` puts in text groups (for a survey pass)."""
        spec = [] if isinstance(self.columns, str) else list(self.columns)
        found = []
        for g, item in enumerate(spec):  # bounded by the number of groups the user wrote
            if isinstance(item, (tuple, list)) and len(item) == 2 and _is_text(item[0]):
                found.extend(df.columns[self._select(df, item[1], g)].tolist())
        return found

    def _resolve_groups(self, df: pd.DataFrame, survey=None) -> None:
        """Turn ``columns`` / ``remainder`` into families and column positions.

        Columns read "auto" follow their :class:`~nbayes.columns.ColumnReading`: an
        identifier is left out (with a :class:`~nbayes.exceptions.ColumnWarning`), a
        timestamp gives calendar features, appended after the table's columns and modelled
        as categories. A ``"calendar"`` group names timestamp columns explicitly.
        """
        spec = [] if isinstance(self.columns, str) else list(self.columns)
        owner = np.full(df.shape[1], -1)
        sourced: list[tuple[Family | str, np.ndarray]] = []
        auto_positions = []
        named_calendar: list[int] = []
        choices: dict[int, ColumnReading] = {}
        for g, item in enumerate(spec):  # bounded by the number of groups the user wrote
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise ParameterError(
                    f"Group {g} of 'columns' must be a (family, selector) pair; got {item!r}."
                )
            family, selector = item
            pos = np.asarray(self._select(df, selector, g), dtype=np.intp)
            taken = owner[pos] >= 0
            if taken.any() or len(np.unique(pos)) != len(pos):
                col = df.columns[pos[np.argmax(taken)]] if taken.any() else "a column"
                raise ParameterError(
                    f"Column {col!r} is selected by more than one group of 'columns' (again "
                    f"by group {g}); each column belongs to at most one group."
                )
            owner[pos] = g
            name = family.name if isinstance(family, Family) else family
            for p in pos.tolist():  # bounded by the group's width
                choices[p] = ColumnReading(
                    df.columns[p], "named", str(name), f"named in group {g} of 'columns'"
                )
            if isinstance(family, str) and family == "auto":
                auto_positions.append(pos)
            elif isinstance(family, str) and family == "calendar":
                named_calendar.extend(pos.tolist())
            elif _is_text(family):  # one group per text column: each its own multinomial
                sourced.extend((family, pos[j : j + 1]) for j in range(len(pos)))
            elif len(pos):
                sourced.append((family, pos))
        rest = np.flatnonzero(owner < 0)
        if len(rest) and self.remainder == "error":
            raise ParameterError(
                f"Columns {df.columns[rest].tolist()!r} are in no group of 'columns' and "
                "remainder='error'. Add them to a group, or use remainder='auto' or 'drop'."
            )
        if self.remainder == "auto":
            auto_positions.append(rest)
        else:
            for p in rest.tolist():  # bounded by the table's width
                choices[p] = ColumnReading(df.columns[p], "unread", None, "remainder='drop'")
        auto = np.sort(np.concatenate(auto_positions)) if auto_positions else rest[:0]
        calendar = Calendar()
        for p in named_calendar:  # bounded by the columns named "calendar"
            if survey is None:
                reading = read_column(df.iloc[:, p], df.columns[p])
            else:
                reading = survey[1].get(df.columns[p])
            if reading is None or reading.kind != "timestamp":
                raise ParameterError(
                    f"Column {df.columns[p]!r} is named in a 'calendar' group but does not hold "
                    "dates or times that nbayes reads (a datetime dtype, or strings such as "
                    "2024-03-01, 2024-03-01T10:00:00Z, 3/1/24, 1.3.2024); convert it with "
                    "pd.to_datetime first."
                )
            calendar.positions.append(p)
            calendar.formats.append(reading.date_format)
            calendar.parts.append(reading.parts)
            choices[p] = reading
        if len(auto):
            readings = self._infer(df, auto, survey)
            families = []
            for p, reading in zip(auto.tolist(), readings):  # bounded by the table's width
                choices[p] = reading
                if reading.family == "calendar":
                    calendar.positions.append(p)
                    calendar.formats.append(reading.date_format)
                    calendar.parts.append(reading.parts)
                families.append(reading.family if reading.family != "calendar" else None)
            warn_of(readings, "MixedNB")
            names = np.asarray([f or "" for f in families], dtype=object)
            # One group per inferred family, in order of the family's first column.
            _, first = np.unique(names.astype(str), return_index=True)
            for name in names[np.sort(first)]:  # bounded by the number of families
                if name:
                    sourced.append((str(name), auto[names == name]))
        self._calendar = calendar
        raw = self._columns[: self.n_features_in_]
        self._columns = raw + calendar.names(raw)
        if calendar:
            derived = np.arange(self.n_features_in_, len(self._columns))
            sourced.append(("categorical", derived))
        self._choices = [choices[p] for p in sorted(choices)]
        if not sourced:
            raise ParameterError(
                "No column is modelled: 'columns' selects nothing and remainder='drop', or "
                "every column is an identifier (name one in a group to model it)."
            )
        # What each group's family was made from (a name takes this model's shared
        # parameters, an instance its own): finalize_with makes them again from new values.
        self._family_sources = [source for source, _ in sourced]
        groups = [(self._family(source), pos) for source, pos in sourced]
        self.families_ = [fam for fam, _ in groups]
        self._layout = self._new_layout(
            [pos for _, pos in groups], [fam.name == "categorical" for fam, _ in groups]
        )

    # -- BaseNB hooks ---------------------------------------------------------------------------
    def _validate_X(self, X, reset: bool) -> pd.DataFrame:
        from_table = isinstance(X, pd.DataFrame) or hasattr(X, "schema")
        df = as_frame(X)
        if reset:
            return self._start(df, from_table)
        if not hasattr(self, "_columns"):
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            )
        return self._calendar_of().expand(self._align(df, from_table))

    def _calendar_of(self) -> Calendar:
        calendar = self.__dict__.get("_calendar")
        return Calendar() if calendar is None else calendar

    def _start(self, df: pd.DataFrame, from_table: bool) -> pd.DataFrame:
        for axis, what in ((0, "sample(s)"), (1, "feature(s)")):  # the two axes
            if df.shape[axis] == 0:
                raise DataError(
                    f"Found array with 0 {what} (shape={df.shape}) while a minimum of 1 is "
                    "required by MixedNB."
                )
        self._set_columns(df.columns, from_table)
        self._resolve_groups(df)
        return self._calendar.expand(df)

    def _set_columns(self, columns, from_table: bool) -> None:
        """Remember the fitted columns; string names of a table become feature_names_in_."""
        columns = _unique_names(columns)
        self._columns = list(columns)
        self._from_table = from_table
        self.n_features_in_ = len(columns)
        if from_table and all(isinstance(c, str) for c in self._columns):
            self.feature_names_in_ = np.asarray(self._columns, dtype=object)
        else:
            self.__dict__.pop("feature_names_in_", None)

    # -- the estimator protocol: set-up from a survey of the data (nbayes.dask) ----------------
    @staticmethod
    def _table_meta(meta) -> pd.DataFrame:
        if not isinstance(meta, pd.DataFrame):
            raise DataError(
                "MixedNB learns its column groups from a table's columns and dtypes; got an "
                f"array of {meta} columns. Pass a DataFrame (with Dask: a dask DataFrame)."
            )
        return meta

    @staticmethod
    def _surveyed(summary) -> tuple[int, dict, dict]:
        """(rows, {column: reading}, {column or calendar feature: distinct values in order
        of first appearance, or None}) from the survey's summary (see
        :func:`_survey.first_pass`)."""
        if summary is None:
            return 0, {}, {}
        rows, columns, later, (readings, calendar) = summary
        found = {c: column.values for c, column in columns.items()}
        return rows, readings, {**found, **calendar, **later}

    def survey_step(self, meta, summary=None):
        """The passes that find column groups and category codes without reading rows here.

        First pass: the number of rows and, for every column the typology reads (and every
        other column that is not a float), what the rules of :mod:`nbayes.columns` read
        (:mod:`nbayes.columns._survey`): the distinct values and their counts (number
        columns capped at ``SURVEY_CAP`` values, enough for any integer limit), the first
        values, the calendar of dates. The readings are those of ``fit`` on all the rows.
        Then, if a categorical column still lacks its values (a float named categorical, a
        number past the cap), a second, narrow pass over those columns.

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
        ['city', 't']
        """
        meta = self._table_meta(meta)
        cap = _survey.SURVEY_CAP
        if summary is None:
            valued, _ = survey_columns(meta)  # columns whose categories may be needed
            read = self._read_columns(meta)
            # Text columns need no distinct values (their words are hashed): a near-unique
            # column of addresses would otherwise travel whole to the client.
            text = set(self._text_columns(meta))
            surveyed = [c for c in meta.columns if c not in text and (c in read or c in valued)]
            if surveyed:
                capped, tracked, column_cap = columns_survey.survey_plan(
                    meta[surveyed], self.max_int_categories
                )
                return SurveyStep(
                    surveyed,
                    partial(
                        columns_survey.summarize, capped=capped, cap=column_cap, tracked=tracked
                    ),
                    partial(columns_survey.merge, capped, column_cap, tracked),
                    absorb=partial(
                        _survey.first_pass,
                        partial(
                            columns_survey.survey_readings,
                            dict(meta.dtypes.items()),
                            frozenset(read),
                            self.max_int_categories,
                        ),
                    ),
                )
        rows, readings, found = self._surveyed(summary)
        check_params(self)
        probe = clone(self)
        probe._set_columns(meta.columns, from_table=True)
        with warnings.catch_warnings():  # setup warns of the choices, once
            warnings.simplefilter("ignore", ColumnWarning)
            probe._resolve_groups(meta, survey=(rows, readings))
        lacking = [
            probe._columns[p]
            for fam, pos in zip(probe.families_, probe._layout.positions)
            if fam.name == "categorical"
            for p in pos
            if found.get(probe._columns[p]) is None
        ]
        if not lacking:
            return None
        return SurveyStep(
            lacking,
            partial(_survey.survey_partition, capped=frozenset(), cap=cap),
            partial(_survey.merge_surveys, frozenset(), cap),
            absorb=_survey.absorb_values,
        )

    def setup(self, meta, summary=None) -> None:
        """Column groups and vocabularies from a table's columns and dtypes (``meta``, no
        rows needed) and the survey's summary (see :meth:`survey_step`): groups and category
        codes come out exactly as ``fit`` on all the rows would make them.

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
        meta = self._table_meta(meta)
        check_params(self)
        self._forget()
        self._set_columns(meta.columns, from_table=True)
        rows, readings, found = self._surveyed(summary)
        self._resolve_groups(meta, survey=(rows, readings))
        try:
            self._layout.learn_values({p: found.get(c) for p, c in enumerate(self._columns)})
        except ValueError as exc:
            raise ParameterError(f"MixedNB cannot number its categories: {exc}") from None

    def _align(self, df: pd.DataFrame, from_table: bool) -> pd.DataFrame:
        """Columns in fitted order: by name for tables fitted on tables, else by position."""
        names = getattr(self, "feature_names_in_", None)
        if from_table and self._from_table:
            # Two columns of one name: which one is meant cannot be told (selecting by name
            # would pass both on).
            have = _unique_names(df.columns)
            want = pd.Index(self._columns[: self.n_features_in_])
            absent = want[~want.isin(have)]
            # A column left out (an identifier, remainder='drop') is not needed to predict.
            unused = [c.column for c in self.__dict__.get("_choices") or [] if c.family is None]
            filler = absent[absent.isin(unused)]
            absent = absent[~absent.isin(unused)]
            if len(filler) and not len(absent):
                empty = pd.DataFrame(np.nan, index=df.index, columns=filler)
                df, have = pd.concat([df, empty], axis=1), have.append(filler)
            if len(absent):
                raise DataError(
                    f"X lacks column(s) {absent.tolist()!r} that MixedNB was fitted on. Pass a "
                    "table with every fitted column (in any order); a missing value can be "
                    "NaN / None, which missing='ignore' marginalises."
                )
            extra = have[~have.isin(want)]
            if len(extra):
                warnings.warn(
                    f"X has column(s) {extra.tolist()!r} that MixedNB was not fitted on; they "
                    "are ignored.",
                    UserWarning,
                    stacklevel=user_stacklevel(),
                )
            return df if have.equals(want) else df.loc[:, want]
        if from_table and names is None and self._from_table is False:
            warnings.warn(
                "X has feature names, but MixedNB was fitted without feature names",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        elif not from_table and names is not None:
            warnings.warn(
                "X does not have valid feature names, but MixedNB was fitted with feature names",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        if df.shape[1] != self.n_features_in_:
            raise DataError(
                f"X has {df.shape[1]} features, but MixedNB is expecting "
                f"{self.n_features_in_} features as input."
            )
        return df

    def _make_families(self, n_features: int) -> list[Family]:
        if not hasattr(self, "families_"):
            # Only reached by code that builds families before seeing data.
            raise ParameterError(
                "MixedNB learns its column groups and category vocabularies from the data, "
                "so it cannot be set up before it sees a batch: call fit or partial_fit "
                "(nbayes.dask.fit surveys a dask DataFrame first)."
            )
        return self.families_

    def _remake_families(self) -> list[Family]:
        sources = getattr(self, "_family_sources", None)
        if sources is None:  # a model from a file: its groups are not known by their source
            raise ParameterError(
                "This MixedNB was loaded from a model file, so which of its families took "
                "MixedNB's own parameters is not known; fit it again to finalize it with "
                "other parameters."
            )
        self._layout = self._layout.with_unseen(self.unseen)
        return [self._family(source) for source in sources]

    def _restrict(self, stats: dict) -> dict:
        self._layout, groups = self._layout.restricted(stats["groups"])
        return {**stats, "groups": groups}

    def _blocks(self, df: pd.DataFrame, mode="score", counted=None) -> list:
        layout = self._layout
        blocks = []
        for g, (fam, pos, vocab) in enumerate(
            zip(self.families_, layout.positions, layout.vocabularies)
        ):  # bounded loop: one iteration per column group
            part = df.iloc[:, pos]
            if vocab is not None:
                blocks.append(layout.encode(part, g, mode, counted))
            elif fam.name == "text":
                blocks.append(fam.encode(part))
            else:
                blocks.append(layout.numbers(part, g, fam.name))
        return blocks

    def _new_layout(self, positions, categorical) -> ColumnLayout:
        return ColumnLayout(
            positions,
            categorical,
            self._columns,
            self.missing,
            self.unseen,
            hint="partial_fit with it, or pass unseen='smooth' (prior mass of an unobserved "
            "category) or 'ignore' (drop the factor)",
        )

    def _feature_names_per_block(self):
        # (label, position in the table): errors name the user's column, not the group's. A
        # text group's block has a column per hash bucket, which no label names.
        return [
            None if fam.name == "text" else [(self._columns[p], int(p)) for p in pos]
            for fam, pos in zip(self.families_, self._layout.positions)
        ]

    def _vocabulary_snapshot(self):
        layout = getattr(self, "_layout", None)
        return None if layout is None else layout.copy()

    def _restore_vocabulary(self, snapshot) -> None:
        if snapshot is not None:
            self._layout = snapshot

    def _log_prior(self, class_count: np.ndarray) -> np.ndarray:
        from .. import _engine as engine

        return engine.log_class_prior(
            class_count, self.class_prior, self.fit_prior, self.prior_alpha
        )

    def _families_by_column(self) -> dict:
        family_of = {
            int(p): fam.name
            for fam, pos in zip(self.families_, self._layout.positions)
            for p in pos
        }
        return {self._columns[p]: family_of[p] for p in sorted(family_of)}

    def infer_families(self, X, explain: bool = False):
        """The family of each column that ``fit(X, y)`` would choose, without fitting.

        Under ``columns="auto"`` (or ``remainder="auto"``) an integer column's family depends
        on the rows: its number of distinct values, against ``max_int_categories`` (under
        "auto", a limit that grows with the number of rows). Part of a table may then be read
        otherwise than the whole of it, e.g. the training rows of a cross-validation split.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The table as ``fit`` would take it; only the dtypes and the number of distinct
            values of integer columns are read.
        explain : bool, default=False
            Return the choices table instead: one row per column of X with its ``kind``
            (see :mod:`nbayes.columns`), ``family`` ("left out" for an identifier) and
            ``why``, as ``column_choices_`` after ``fit(X, y)``.

        Returns
        -------
        dict or DataFrame
            Column label -> family name, as ``column_families_`` after ``fit(X, y)`` (a
            timestamp column gives one entry per calendar feature, ``"when.month"``; an
            identifier none); with ``explain=True`` the choices table.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import MixedNB
        >>> table = pd.DataFrame({"age": list(range(30)) * 2, "city": ["Oslo", "Rome"] * 30})
        >>> MixedNB().infer_families(table)
        {'age': 'gaussian', 'city': 'categorical'}
        >>> MixedNB(max_int_categories=30).infer_families(table)
        {'age': 'categorical', 'city': 'categorical'}
        """
        probe = clone(self)
        with warnings.catch_warnings():  # the choices are the answer here
            warnings.simplefilter("ignore", ColumnWarning)
            probe._validate_X(X, reset=True)
        return probe.column_choices_ if explain else probe._families_by_column()

    @property
    def column_choices_(self) -> pd.DataFrame:
        """How each column of the table was read (see :mod:`nbayes.columns`): indexed by
        column, with ``kind``, ``family`` ("left out" for an identifier, "calendar" for a
        timestamp, whose features are categorical) and ``why``. Known after fit, and kept in
        model files (not in those written before nbayes kept them)."""
        choices = self.__dict__.get("_choices")
        if choices is None:
            raise NotFittedError(
                "The column choices are made by fit (a model file written by an older nbayes "
                "lacks them); call fit, or infer_families(X, explain=True)."
            )
        return choices_table(choices)

    def _kind_of(self) -> dict:
        """Modelled column label -> the kind it was read as (empty when unknown)."""
        kinds: dict = {}
        for reading in self.__dict__.get("_choices") or []:
            kinds[reading.column] = reading.kind
            for name in reading.feature_names():
                kinds[name] = reading.kind
        return kinds

    # The column layout, described: read from the layout on each read (no finalize needed,
    # so a model installed with finalize=False describes its columns too).
    def _fitted_layout(self) -> ColumnLayout:
        layout = self.__dict__.get("_layout")
        if layout is None or "families_" not in self.__dict__:
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' first."
            )
        return layout

    @property
    def column_groups_(self) -> list:
        """Family name and column labels of each group, as fitted."""
        layout = self._fitted_layout()
        return [
            (fam.name, [self._columns[p] for p in pos])
            for fam, pos in zip(self.families_, layout.positions)
        ]

    @property
    def column_families_(self) -> dict:
        """Column label -> family name."""
        self._fitted_layout()
        return self._families_by_column()

    @property
    def categories_(self) -> dict:
        """Column label -> the categories of each categorical column in code order, computed
        from the vocabularies on each read (a pass over them, which partial_fit does not pay
        per batch; a view that changes nothing)."""
        layout = self._fitted_layout()
        return {self._columns[p]: values for p, values in layout.categories().items()}

    # -- explanations (hooks of BaseNB.explain / top_features / linear form) ---------------------
    def _block_columns(self) -> list[np.ndarray]:
        return list(self._layout.positions)

    def _column_labels(self) -> list[str]:
        if self._from_table:
            return [str(c) for c in self._columns]
        inputs = super()._column_labels()  # x0, x1, ...
        return inputs + self._calendar_of().names(inputs)

    def _block_names(self, feature_names=None) -> list[list[str]]:
        """As :meth:`BaseNB._block_names`; a name given per input column names its calendar
        features too (``"W.month"`` for a date column named ``"W"``)."""
        if feature_names is None:
            return super()._block_names()
        names = np.asarray(feature_names, dtype=str)
        if names.shape != (self.n_features_in_,):
            raise ParameterError(
                f"feature_names must have one name per input column ({self.n_features_in_}); "
                f"got shape {names.shape}."
            )
        full = [str(n) for n in names]
        full += self._calendar_of().names(full)
        return [[full[j] for j in cols] for cols in self._block_columns()]

    def _linear_names(self, block_names) -> np.ndarray:
        """One-hot columns of categorical groups are named by value: ``"city=Rome"``."""
        names: list[str] = []
        for g, (fam, p, cols, vocab) in enumerate(
            zip(self.families_, self.params_, block_names, self._layout.vocabularies)
        ):  # bounded by the number of groups
            names.extend(
                fam.linear_feature_names(p, cols)
                if vocab is None
                else self._layout.linear_names(g, cols, p["n_categories"])
            )
        return np.asarray(names, dtype=str)

    def __sklearn_tags__(self):
        tags = super(BaseNB, self).__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing != "error"
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.input_tags.sparse = False
        return tags

    # -- reporting -----------------------------------------------------------------------------
    def summary(self) -> pd.DataFrame:
        """One row per modelled column (in table order): kind, family, group, number of
        categories and missing share.

        Returns
        -------
        DataFrame
            Indexed by column label (a timestamp's calendar features as ``"when.month"``),
            with columns ``kind`` (see :mod:`nbayes.columns`; ``"named"`` for a column
            named in a group, empty for a model loaded from a file), ``family`` (with the
            reading chosen per column by a ``"density"`` group, e.g. ``"density (kde)"``),
            ``group``,
            ``n_categories`` (categorical columns; excludes the reserved missing code) and
            ``missing`` (share of the training weight where the value was missing; NaN for
            families that do not track it).

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import MixedNB
        >>> df = pd.DataFrame({"city": ["Oslo", None, "Rome", "Rome"], "t": [1., 2., 9., 8.]})
        >>> MixedNB().fit(df, [0, 0, 1, 1]).summary()
                  kind       family  group  n_categories  missing
        city  category  categorical      0           2.0     0.25
        t       number     gaussian      1           NaN     0.00
        """
        if not hasattr(self, "stats_"):
            raise NotFittedError("This MixedNB instance is not fitted yet; call 'fit' first.")
        total = float(self.class_count_.sum())
        frames = []
        for g, (fam, pos, stats, vocab, params) in enumerate(
            zip(
                self.families_,
                self._layout.positions,
                self.stats_["groups"],
                self._layout.vocabularies,
                self.params_,
            )
        ):
            readings = fam.column_readings(params)
            family = fam.name if readings is None else [f"{fam.name} ({r})" for r in readings]
            observed = fam.observed_weight(stats)
            if observed.shape[0] != len(pos):  # a text column's words: not told apart
                observed = np.full(len(pos), np.nan)
            n_cat = np.full(len(pos), np.nan)
            if vocab is not None:
                n_cat = vocab.n_categories().astype(float) - vocab.first_code
                if vocab.first_code:  # code 0 is "missing": count it as missing
                    observed = observed - stats["n_counts"][:, offsets(stats)].sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                missing = 1.0 - observed / total if total > 0 else np.full(len(pos), np.nan)
            kinds = self._kind_of()
            frames.append(
                pd.DataFrame(
                    {
                        "kind": [kinds.get(self._columns[p], "") for p in pos],
                        "family": family,
                        "group": g,
                        "n_categories": n_cat,
                        "missing": np.round(missing, 12),
                    },
                    index=pd.Index([self._columns[p] for p in pos]),
                )
            )
        table = pd.concat(frames)
        return table.iloc[np.argsort(np.concatenate(self._layout.positions), kind="stable")]

    # -- model files and merging ---------------------------------------------------------------
    def _group_widths(self) -> list[int]:
        return [len(pos) for pos in self._layout.positions]

    def _storable_params(self) -> dict:
        """Constructor parameters as data. Selectors that are code (callables) cannot be
        stored, so they are replaced by the column groups they resolved to."""
        params = self.get_params(deep=False)
        spec = [] if isinstance(params["columns"], str) else params["columns"]
        if any(callable(item[1]) for item in spec if isinstance(item, (tuple, list))):
            params["columns"] = [
                (fam, [self._columns[p] for p in pos])
                for fam, pos in zip(self.families_, self._layout.positions)
            ]
            params["remainder"] = "drop"
        return params

    def _get_layout(self) -> dict:
        """The table layout: column labels, groups (positions) and each categorical group's
        vocabulary (values as unicode text with a type tag, so 1, 1.0, True and "1" come back
        as they were)."""
        return {
            "columns": list(self._columns),
            "from_table": bool(self._from_table),
            "positions": [np.asarray(p, dtype=np.int64) for p in self._layout.positions],
            "vocabularies": self._layout.vocabulary_state(),
            "calendar": self._calendar_of().state(),
            **({"choices": choices_state(self._choices)} if self.__dict__.get("_choices") else {}),
        }

    def _set_layout(self, layout, n_features: int) -> None:
        columns, positions = layout["columns"], layout["positions"]
        vocab_specs = layout["vocabularies"]
        calendar = Calendar.from_state(layout.get("calendar", []))
        derived = calendar.names(columns)
        if (
            len(vocab_specs) != len(positions)
            or len(columns) != n_features + len(derived)
            or any(p >= n_features for p in calendar.positions)
            or [str(c) for c in columns[n_features:]] != derived
        ):
            raise ValueError(
                f"the column layout names {len(columns)} columns and {len(positions)} groups "
                f"with {len(vocab_specs)} vocabularies, for {n_features} features and "
                f"{len(derived)} calendar features."
            )
        positions = [np.asarray(p, dtype=np.intp) for p in positions]
        flat = np.concatenate(positions) if positions else np.empty(0, dtype=np.intp)
        if flat.size and (
            flat.min() < 0 or flat.max() >= len(columns) or np.unique(flat).size != flat.size
        ):
            raise ValueError("MixedNB column groups overlap or name columns outside the table.")
        self._columns = list(columns)
        self._calendar = calendar
        self._from_table = bool(layout["from_table"])
        self.__dict__.pop("_family_sources", None)
        choices = choices_from_state(layout.get("choices"))  # None in older files
        if choices is None:
            self.__dict__.pop("_choices", None)
        else:
            self._choices = choices
        self._layout = self._new_layout(positions, [spec is not None for spec in vocab_specs])
        self._layout.set_vocabulary_state(vocab_specs)

    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output (the constructor parameters in
        it are not applied: build the estimator with them first).

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
        super().set_state(state)
        # A vocabulary may hold values beyond the statistics' categories (values seen only in
        # rows of weight zero count as never seen), but each group needs one iff categorical.
        for g, (fam, vocab) in enumerate(zip(self.families_, self._layout.vocabularies)):
            if (fam.name == "categorical") != (vocab is not None):
                raise ValueError(f"the vocabulary of column group {g} does not match its family.")
        return self

    def recode_statistics(self, other: MixedNB) -> dict:
        """``other``'s statistics in this model's category codes (extends the vocabularies).

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
        same_layout = (
            other._columns == self._columns
            and len(other._layout.positions) == len(self._layout.positions)
            and all(
                np.array_equal(a, b)
                for a, b in zip(self._layout.positions, other._layout.positions)
            )
        )
        if not same_layout:
            raise ParameterError(
                "Cannot merge: the models group their columns differently "
                f"({other.column_groups_!r} vs {self.column_groups_!r}). With "
                "columns='auto' the integer rule can choose differently per shard: name the "
                "families in 'columns', or pass an integer max_int_categories."
            )
        return {
            **other.stats_,
            "groups": self._layout.recode(other._layout, other.stats_["groups"]),
        }


def _is_text(family) -> bool:
    """Whether a group's family (a name or an instance) is the text family."""
    name = family.name if isinstance(family, Family) else family
    return isinstance(name, str) and name == "text"


def offsets(stats) -> np.ndarray:
    """Column of category 0 of each feature in a categorical group's flat count array."""
    from ..distributions.categorical import offsets_of

    return offsets_of(stats["n_categories"])


__all__ = ["MixedNB"]


def _unique_names(columns) -> pd.Index:
    """``columns`` as an Index; a name that occurs twice is a DataError."""
    columns = pd.Index(columns)
    if columns.has_duplicates:
        dup = columns[columns.duplicated()][0]
        raise DataError(f"Column name {dup!r} occurs more than once; names must be unique.")
    return columns
