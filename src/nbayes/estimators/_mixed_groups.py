"""How MixedNB's table becomes column groups, each with its family, and how the fitted groups
are described (``column_groups_``, ``column_families_``, ``categories_``, the choices).

Mixed into :class:`~.mixed.MixedNB`.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..columns import Calendar, ColumnReading, choices_table, read_column, warn_of
from ..distributions import REGISTRY, Family, make_family
from ..exceptions import ColumnWarning, NotFittedError, ParameterError
from ._columns import ColumnLayout


class _MixedGroups:
    """Column groups: selectors and the typology of :mod:`nbayes.columns` to families."""

    if TYPE_CHECKING:  # what the host (MixedNB on BaseNB) supplies
        columns: Any
        remainder: str
        missing: str
        unseen: str
        max_int_categories: Any
        n_features_in_: int
        families_: list
        _columns: list
        _calendar: Calendar
        _layout: ColumnLayout
        _resolved: Any

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


def _is_text(family) -> bool:
    """Whether a group's family (a name or an instance) is the text family."""
    name = family.name if isinstance(family, Family) else family
    return isinstance(name, str) and name == "text"
