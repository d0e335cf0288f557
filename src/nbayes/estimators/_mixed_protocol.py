"""MixedNB's estimator protocol (see :mod:`nbayes.base`): reading a batch into the column
groups' blocks, set-up from a survey of the data, and the state that model files and merging
carry (the column layout and vocabularies).

Mixed into :class:`~.mixed.MixedNB`.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._params import check_params
from .._validation import user_stacklevel
from ..base import SurveyStep
from ..columns import Calendar, choices_from_state, choices_state
from ..columns import _survey as columns_survey
from ..distributions import Family
from ..exceptions import ColumnWarning, DataError, NotFittedError, ParameterError
from . import _survey
from ._columns import ColumnLayout
from ._encoding import as_frame
from ._survey import survey_columns

if TYPE_CHECKING:
    from .mixed import MixedNB


class _MixedProtocol:
    """Validation and blocks, survey and set-up, layout state and re-coding for merges."""

    if TYPE_CHECKING:  # what the host (MixedNB on BaseNB) supplies
        max_int_categories: Any
        unseen: str
        class_prior: Any
        fit_prior: bool
        prior_alpha: float
        n_features_in_: int
        families_: list
        _columns: list
        _calendar: Calendar
        _layout: ColumnLayout
        _choices: list
        _from_table: bool
        get_params: Any
        _family: Any
        _forget: Any
        _new_layout: Any
        _read_columns: Any
        _resolve_groups: Any
        _text_columns: Any

        @property
        def column_groups_(self) -> list: ...

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


def _unique_names(columns) -> pd.Index:
    """``columns`` as an Index; a name that occurs twice is a DataError."""
    columns = pd.Index(columns)
    if columns.has_duplicates:
        dup = columns[columns.duplicated()][0]
        raise DataError(f"Column name {dup!r} occurs more than once; names must be unique.")
    return columns
