"""The reading of a column: its kind, the family that models it, and the evidence."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._coded import code_text, coded_missing
from ._dates import (
    NUMBER_DATE_NAMES,
    _as_datetimes,
    _calendar_parts,
    _is_datetimes,
    _parse,
    date_format,
    number_date_format,
)
from ._identifiers import _group_identifier, _identifier, rank_evidence
from ._strings import ROLE_SAMPLE, string_profile

#: The declared kinds of a column, in the order of the module's table.
KINDS = (
    "empty",
    "constant",
    "identifier",
    "rank",
    "timestamp",
    "boolean",
    "coded number",
    "number",
    "category",
    "short text",
    "free text",
)


@dataclass(frozen=True)
class ColumnReading:
    """How one column is read: its kind, the family that models it, and why.

    Parameters
    ----------
    column : label
        The column's label.
    kind : str
        One of :data:`KINDS`.
    family : str or None
        The family that models it (``"calendar"`` for a timestamp: its features are
        categorical), or None when the column is left out (an identifier).
    why : str
        The evidence for the kind, in words.
    parts : tuple of str
        Calendar features of a timestamp column (from :data:`CALENDAR_PARTS`).
    date_format : str or None
        The written form a timestamp column's strings parse under (None: a datetime dtype).
    codes : tuple of float
        The values that code a missing value in a ``"coded number"`` column.
    kept_family : str or None
        The family an identifier would get if it were kept (named in a group).

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import read_column
    >>> reading = read_column(pd.Series(["2024-03-01T10:00:00Z", "2024-03-02T11:30:00Z"]), "t")
    >>> reading.kind, reading.family, reading.parts
    ('timestamp', 'calendar', ('year', 'month', 'dayofweek', 'hour'))
    """

    column: object
    kind: str
    family: str | None
    why: str
    parts: tuple = ()
    date_format: str | None = None
    codes: tuple = ()
    kept_family: str | None = None

    def feature_names(self) -> list[str]:
        """The names of the features the column gives.

        Returns
        -------
        list of str
            Its own name, one per calendar part (``"when.month"``), or none when it is
            left out.

        Examples
        --------
        >>> from nbayes.columns import ColumnReading
        >>> ColumnReading("t", "timestamp", "calendar", "dates", parts=("year",)).feature_names()
        ['t.year']
        """
        if self.family is None:
            return []
        if self.family == "calendar":
            return [f"{self.column}.{part}" for part in self.parts]
        return [str(self.column)]

    def warning(self, keep: str = "name it in a group of 'columns'") -> str | None:
        """The warning a user should read about this choice.

        Parameters
        ----------
        keep : str, default="name it in a group of 'columns'"
            How to keep an identifier (the command line names its own option).

        Returns
        -------
        str or None
            The warning for an identifier; None for any other kind.

        Examples
        --------
        >>> from nbayes.columns import ColumnReading
        >>> ColumnReading("id", "identifier", None, "distinct").warning("use --features")
        "leaving out column 'id': an identifier (distinct); use --features"
        """
        if self.kind == "identifier":
            return f"leaving out column {self.column!r}: an identifier ({self.why}); {keep}"
        return None


def _int_limit(max_int_categories, n_rows: int) -> int:
    if isinstance(max_int_categories, str) and max_int_categories == "auto":
        return max(20, int(np.sqrt(n_rows)))
    return int(max_int_categories)


def _number_family(series: pd.Series, kind: str, limit: int) -> tuple[str, str]:
    """Family of a number column and the evidence: integers with at most ``limit`` distinct
    values are categorical, other numbers Gaussian. Whole numbers with empty cells (floats
    only because a float holds the gap) count as integers."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return "gaussian", f"numbers ({series.dtype})"
    gaps = kind == "f" and _whole_with_gaps(series)
    if kind in "iu" or gaps:
        n_unique = int(series.nunique(dropna=True))
        what = f"integers with {n_unique:,} distinct values"
        if gaps:
            what = f"integers with {n_unique:,} distinct values and gaps"
        if n_unique <= limit:
            return "categorical", f"{what} (at most {limit:,})"
        return "gaussian", f"{what} (over {limit:,})"
    return "gaussian", f"numbers ({series.dtype})"


def _whole_with_gaps(series: pd.Series) -> bool:
    """Whether a float column is whole numbers and empty cells: a column of integers with a
    gap, which pandas can only read as floats (the same column without the gap reads as
    integers, and is read the same)."""
    present = series.dropna()
    if len(present) == len(series):
        return False
    x = present.to_numpy(dtype=np.float64)
    return bool(np.isfinite(x).all() and (x == np.round(x)).all() and np.abs(x).max() < 2**53)


def _bool_values(series: pd.Series) -> bool:
    """Python or numpy booleans with gaps in an object column (as pandas reads a true/false
    column with an empty cell)."""
    values = series.dropna()
    if series.dtype.kind != "O" or not len(values):
        return False
    booleans = (bool, np.bool_)
    if not values.iloc[:ROLE_SAMPLE].map(type).isin(booleans).all():  # most columns stop here
        return False
    return bool(values.map(type).isin(booleans).all())


def read_column(
    series: pd.Series,
    name=None,
    *,
    max_int_categories="auto",
    n_rows: int | None = None,
    codes: tuple | None = None,
) -> ColumnReading:
    """The :class:`ColumnReading` of one column, by the rules of the module's table.

    Parameters
    ----------
    series : Series
        The column's values (all of them, or a first chunk of them).
    name : label, optional
        The column's label (default: ``series.name``).
    max_int_categories : int or "auto", default="auto"
        Integer columns with at most this many distinct values are categorical ("auto":
        ``max(20, sqrt(n_rows))``), as in :class:`nbayes.MixedNB`.
    n_rows : int, optional
        Rows the choice is made on (default: ``len(series)``).
    codes : tuple of float, optional
        The values that code a missing value in a number column, when ``series`` does not
        hold each value as often as the table does (a survey: :mod:`nbayes.columns` finds
        them from counts); by default found in ``series``.

    Returns
    -------
    ColumnReading
        The kind, the family and the evidence.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import read_column
    >>> read_column(pd.Series([True, None, False], dtype=object), "flag").kind
    'boolean'
    """
    name = series.name if name is None else name
    n_rows = len(series) if n_rows is None else n_rows
    dtype = series.dtype
    kind = getattr(dtype, "kind", "O")
    present = series.dropna()
    if isinstance(dtype, pd.CategoricalDtype):
        kind = "O"
    if present.empty:
        return ColumnReading(name, "empty", _empty_family(kind), f"no value in {n_rows:,} rows")
    if kind == "b" or str(dtype) in ("boolean", "bool[pyarrow]") or _bool_values(present):
        return ColumnReading(name, "boolean", "bernoulli", "true/false values")
    if _is_datetimes(series):
        stamps = _as_datetimes(series, None)
        return _timestamp(name, stamps, None, f"dates or times ({dtype})")
    try:
        n_unique = int(present.nunique())
    except TypeError:  # unhashable values (lists, dicts): categories refuse them with a fix
        return ColumnReading(name, "category", "categorical", "values that are not scalars")
    if n_unique == 1:
        family = "gaussian" if kind == "f" else "categorical"
        value = present.iloc[0]
        value = value.item() if isinstance(value, np.generic) else value
        return ColumnReading(name, "constant", family, f"one value ({value!r}) in every row")
    sample = present.iloc[:ROLE_SAMPLE]  # what the rules on strings read
    form = number_date_format(series) if kind in "iuf" else date_format(sample)
    if form is not None:
        shown = "ISO 8601" if form == "ISO8601" else form
        if kind in "iuf":
            shown = f"whole numbers {NUMBER_DATE_NAMES[form]}"
        example = present.iloc[0]
        example = example.item() if isinstance(example, np.generic) else example
        return _timestamp(
            name, _parse(series, form), form, f"dates written as {shown} (e.g. {example!r})"
        )
    why = (
        _identifier(name, series, n_rows)
        if n_unique == n_rows
        else _group_identifier(name, series, n_unique)
    )
    if why is not None:
        kept = "categorical" if kind not in "iuf" else _number_family(series, kind, 0)[0]
        return ColumnReading(name, "identifier", None, why, kept_family=kept)
    if kind in "iuf":
        family, evidence = _number_family(series, kind, _int_limit(max_int_categories, n_rows))
        rank = rank_evidence(name, series, n_rows) if n_unique == n_rows else None
        if rank is not None:
            return ColumnReading(name, "rank", family, f"{rank}; {evidence}")
        codes = coded_missing(series) if codes is None else codes
        return number_reading(name, family, evidence, codes)
    profile = string_profile(sample)
    if profile.role == "text":
        return ColumnReading(name, "free text", "categorical", profile.describe())
    if profile.role == "words":
        return ColumnReading(name, "short text", "categorical", profile.describe())
    return ColumnReading(name, "category", "categorical", f"{n_unique:,} distinct values")


def number_reading(name, family: str, evidence: str, codes: tuple) -> ColumnReading:
    """The reading of a number column modelled by ``family``: a ``"coded number"`` when
    ``codes`` (see :func:`coded_missing`) is not empty, else a ``"number"``."""
    if codes:
        shown = ", ".join(map(code_text, codes))
        return ColumnReading(
            name,
            "coded number",
            family,
            f"{evidence}; {shown} repeated far outside the other values, most likely "
            "a code for a missing value",
            codes=codes,
        )
    return ColumnReading(name, "number", family, evidence)


def _empty_family(kind: str) -> str:
    return "gaussian" if kind == "f" else "categorical"


def _timestamp(name, stamps: pd.Series, form: str | None, evidence: str) -> ColumnReading:
    parts = _calendar_parts(stamps)
    return ColumnReading(
        name,
        "timestamp",
        "calendar",
        f"{evidence}; calendar features {', '.join(parts)}",
        parts=parts,
        date_format=form,
    )


def read_columns(frame: pd.DataFrame, *, max_int_categories="auto") -> list[ColumnReading]:
    """The :class:`ColumnReading` of every column of ``frame``, in its order.

    Parameters
    ----------
    frame : DataFrame
        The table (or its first chunk).
    max_int_categories : int or "auto", default="auto"
        As in :func:`read_column`, with the table's number of rows.

    Returns
    -------
    list of ColumnReading
        One per column.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import read_columns
    >>> [r.kind for r in read_columns(pd.DataFrame({"a": [1.5, 2.5], "b": ["x", "y"]}))]
    ['number', 'category']
    """
    n_rows = len(frame)
    return [
        read_column(
            frame.iloc[:, j], frame.columns[j], max_int_categories=max_int_categories, n_rows=n_rows
        )
        for j in range(frame.shape[1])  # bounded by the table's width
    ]
