"""How a semi-naive model reads a table: the column reading of :mod:`nbayes.columns`.

A table given as a DataFrame is read as :class:`~nbayes.MixedNB` reads it under
``columns="auto"``: identifiers are left out (with one
:class:`~nbayes.exceptions.ColumnWarning` naming them and how to keep them), timestamps
become calendar features (categories), every other column is modelled as it is. Columns
named in the model's ``categorical`` are the user's choice and are not read: an identifier
named there is kept, dates named there are categories of their written values. The
reading is made once, on the table of ``fit`` (or the first batch of ``partial_fit``), and
applied to every later table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from ..columns import Calendar, calendar_features, read_column, warn_of
from ..exceptions import DataError


@dataclass
class TableReading:
    """Which columns of the fitted table a model uses, and how.

    Attributes
    ----------
    labels : list
        The labels of the table's columns, in its order.
    kept : list of int
        Positions of the columns modelled as they are, in table order.
    calendar : Calendar
        The timestamp columns (positions in the table) and their calendar parts.
    choices : list of ColumnReading
        Each column's reading, with the family the model gives it (not stored in files).
    """

    labels: list
    kept: list
    calendar: Calendar
    choices: list

    @classmethod
    def of(cls, df: pd.DataFrame, declared, estimator: str) -> TableReading:
        """The reading of ``df``, warning of identifiers and coded missing values."""
        labels = list(df.columns)
        kept, calendar, choices = [], Calendar(), []
        readings = []
        for p, label in enumerate(labels):  # bounded by the table's width
            reading = read_column(df.iloc[:, p], label)
            if label in declared:  # its kind is shown, the user's choice applied
                kept.append(p)
                why = f"{reading.why}; named in 'categorical'"
                choices.append(replace(reading, family="categorical", why=why))
                continue
            readings.append(reading)
            if reading.kind == "identifier":
                choices.append(reading)
                continue
            if reading.family == "calendar":
                calendar.positions.append(p)
                calendar.formats.append(reading.date_format)
                calendar.parts.append(reading.parts)
                choices.append(reading)
                continue
            kept.append(p)
            numeric = getattr(df.dtypes.iloc[p], "kind", "O") in "iuf" and reading.kind != "boolean"
            choices.append(replace(reading, family="binned" if numeric else "categorical"))
        ids = [r.column for r in readings if r.kind == "identifier"]
        keep = (
            f"To model one, name it in categorical=[{ids[0]!r}] (read as categories)."
            if ids
            else ""
        )
        warn_of(readings, estimator, keep=keep)
        if not kept and not calendar:
            raise DataError(
                f"{estimator} has no column to model: every column of X is an identifier "
                f"({[r.column for r in readings]!r}); name one in categorical=[...] to model it."
            )
        return cls(labels, kept, calendar, choices)

    def changes(self) -> bool:
        """Whether a column is left out or expanded (else tables are modelled as given)."""
        return len(self.kept) != len(self.labels)

    def names(self) -> list:
        """Labels of the modelled columns: the kept ones, then the calendar features."""
        return [self.labels[p] for p in self.kept] + self.calendar.names(self.labels)

    def renamed(self, names) -> list:
        """:meth:`names` with the table's columns called ``names`` (one per column)."""
        return [names[p] for p in self.kept] + self.calendar.names(list(names))

    def calendar_names(self) -> list:
        """Labels of the calendar features (categories)."""
        return self.calendar.names(self.labels)

    def apply(self, df: pd.DataFrame, by_name: bool, estimator: str) -> pd.DataFrame:
        """The modelled columns of ``df``: its columns found by name (a table fitted on a
        table) or by position, then the calendar features of its timestamp columns."""
        needed = sorted({*self.kept, *self.calendar.positions})
        if by_name:
            want = pd.Index([self.labels[p] for p in needed])
            absent = want[~want.isin(df.columns)]
            if len(absent):
                raise DataError(
                    f"X lacks column(s) {absent.tolist()!r} that {estimator} was fitted on. "
                    "Pass every fitted column (in any order); NaN / None marks a missing value."
                )
            columns = {self.labels[p]: df[self.labels[p]] for p in needed}
        else:
            if df.shape[1] != len(self.labels):
                raise DataError(
                    f"X has {df.shape[1]} features, but {estimator} is expecting "
                    f"{len(self.labels)} features as input."
                )
            columns = {self.labels[p]: df.iloc[:, p] for p in needed}
        frames = [pd.DataFrame({self.labels[p]: columns[self.labels[p]] for p in self.kept})]
        for p, form, parts in zip(
            self.calendar.positions, self.calendar.formats, self.calendar.parts
        ):  # bounded by the timestamp columns
            column = columns[self.labels[p]]
            frames.append(calendar_features(column.rename(str(self.labels[p])), parts, form))
        out = pd.concat(frames, axis=1)
        out.index = df.index
        return out

    def state(self) -> dict:
        """The reading as plain data (model files)."""
        return {
            "labels": list(self.labels),
            "kept": [int(p) for p in self.kept],
            "calendar": self.calendar.state(),
        }

    @classmethod
    def from_state(cls, state) -> TableReading:
        """Rebuilt from :meth:`state`; ValueError when it is malformed."""
        if not isinstance(state, dict) or {"labels", "kept", "calendar"} - state.keys():
            raise ValueError("the table reading is not a dict of labels, kept and calendar")
        labels = list(state["labels"])
        kept = state["kept"]
        if not isinstance(kept, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) for p in kept
        ):
            raise ValueError("the table reading's kept positions are not integers")
        calendar = Calendar.from_state(state["calendar"])
        used = kept + calendar.positions
        if any(p < 0 or p >= len(labels) for p in used) or len(set(used)) != len(used):
            raise ValueError("the table reading names columns outside the table, or twice")
        return cls(labels, kept, calendar, [])
