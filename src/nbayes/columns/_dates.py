"""Timestamps: the written date forms, and the calendar features a date column gives."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._strings import ROLE_SAMPLE, _strings

#: Calendar features a timestamp column can give, in this order.
CALENDAR_PARTS = ("year", "month", "dayofweek", "hour")
#: Share of a sample that must parse under one date format for the column to be dates.
DATE_SHARE = 0.95
#: Written date forms tried, in this order (``ISO8601`` takes every ISO form pandas knows).
DATE_FORMATS = (
    "ISO8601",
    "%y-%m-%d",
    "%m/%d/%y",
    "%m/%d/%Y",
    "%d/%m/%y",
    "%d/%m/%Y",
    "%d.%m.%Y",
    "%d.%m.%y",
    "%Y/%m/%d",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%y %H:%M",
    "%m/%d/%y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%y %H:%M",
    "%d/%m/%y %H:%M:%S",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%y %H:%M",
    "%d.%m.%y %H:%M:%S",
    "%Y/%m/%d %H:%M",
    "%Y/%m/%d %H:%M:%S",
)
#: Dates written as whole numbers (``800102`` for 2 January 1980, ``19800102``), by the
#: number of digits of every value.
NUMBER_DATE_FORMATS = {8: "%Y%m%d", 6: "%y%m%d"}
#: How each of :data:`NUMBER_DATE_FORMATS` is named in the evidence.
NUMBER_DATE_NAMES = {"%Y%m%d": "YYYYMMDD", "%y%m%d": "YYMMDD"}
#: Distinct values a column of whole numbers must have to be read as dates (a few numbers
#: could all happen to read as dates).
NUMBER_DATE_DISTINCT = 10
#: A time zone written after a time (``Z``, ``+01:00``, ``-0500``, `` UTC``): calendar
#: features are read in the time written, before the zone.
_ZONE = re.compile(r"(\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(?:Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)$")
#: What a value must look like to be tried as a date (digits and date punctuation only).
_DATE_LIKE = (
    r"^\s*\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}"
    r"([ T]\d{1,2}:\d{2}[\d:.,]*\s*(Z|UTC|GMT|[+-][\d:]+|[AaPp][Mm])?)?\s*$"
)


def _without_zone(values: pd.Series) -> pd.Series:
    """Strings with a time zone written after their time removed (the time as written)."""
    return values.str.strip().str.replace(_ZONE, r"\1", regex=True)


def _parse(values: pd.Series, date_format: str) -> pd.Series:
    """``values`` (strings, or whole numbers under a form of :data:`NUMBER_DATE_FORMATS`) as
    naive datetimes under ``date_format``; NaT where they do not parse. Never raises."""
    strings = values.astype(object)
    if getattr(values.dtype, "kind", "O") in "iuf":  # dates written as numbers: their digits
        x = pd.to_numeric(values, errors="coerce").astype(np.float64)
        whole = x.where(np.isfinite(x) & (x == np.round(x)) & (x > 0))
        strings = whole.astype("Int64").astype(object).map(lambda v: None if v is pd.NA else str(v))
    elif pd.api.types.infer_dtype(strings, skipna=True) != "string":  # only strings parse
        strings = strings.where(strings.map(type).eq(str), None)
    text = _without_zone(strings)
    with warnings.catch_warnings():  # pandas warns about formats it infers per value
        warnings.simplefilter("ignore")
        try:
            parsed = pd.to_datetime(text, format=date_format, errors="coerce")
        except (ValueError, TypeError, OverflowError):  # pragma: no cover - pandas version
            return pd.Series(pd.NaT, index=values.index, dtype="datetime64[ns]")
    if getattr(parsed.dtype, "tz", None) is not None:  # pragma: no cover - zones removed
        parsed = parsed.dt.tz_localize(None)
    if "%y" in date_format:
        parsed = _past_century(parsed)
    return parsed


def _past_century(parsed: pd.Series) -> pd.Series:
    """Dates read from two-digit years, with those whose year lies after the current one a
    century earlier: Python puts ``64`` in 2064 (its cutoff is 69), where a birth date or a
    past event written ``3/1/64`` was in 1964."""
    future = parsed.dt.year > pd.Timestamp.now().year
    if not future.any():
        return parsed
    return parsed.where(~future, parsed - pd.DateOffset(years=100))


def date_format(series: pd.Series) -> str | None:
    """The written date form (one of :data:`DATE_FORMATS`) under which at least
    :data:`DATE_SHARE` of a string column's sample parses, the form parsing most values
    winning (``M/D`` before ``D/M`` on a tie); None when the values are not dates."""
    values = _strings(series)
    if (
        values is None
        or not re.match(_DATE_LIKE, values.iloc[0])  # most columns stop here
        or not values.str.match(_DATE_LIKE).mean() >= DATE_SHARE
    ):
        return None
    best, best_share = None, 0.0
    for form in DATE_FORMATS:  # a handful of written forms
        share = float(_parse(values, form).notna().mean())
        if share > best_share:
            best, best_share = form, share
    return best if best_share >= DATE_SHARE else None


def number_date_format(series: pd.Series) -> str | None:
    """The form of :data:`NUMBER_DATE_FORMATS` under which every value of a column of whole
    numbers reads as a calendar date (all of six or all of eight digits, at least
    :data:`NUMBER_DATE_DISTINCT` distinct values); None otherwise."""
    if getattr(series.dtype, "kind", "O") not in "iu" or isinstance(
        series.dtype, pd.CategoricalDtype
    ):
        return None
    x = series.dropna().to_numpy(dtype=np.int64)
    if x.size == 0 or x.min() <= 0:
        return None
    digits = {len(str(int(v))) for v in (x.min(), x.max())}
    form = NUMBER_DATE_FORMATS.get(digits.pop()) if len(digits) == 1 else None
    if form is None:
        return None
    values = np.unique(x)
    if values.size < NUMBER_DATE_DISTINCT:
        return None
    return form if bool(_parse(pd.Series(values), form).notna().all()) else None


def _as_datetimes(series: pd.Series, date_format: str | None) -> pd.Series:
    """A column as naive datetimes: a datetime dtype as it is (local time of an aware one),
    strings parsed under ``date_format``; NaT where a value is missing or does not parse."""
    dtype = series.dtype
    if dtype.kind == "M" or isinstance(dtype, pd.DatetimeTZDtype):
        if getattr(dtype, "tz", None) is not None:
            return series.dt.tz_localize(None)
        return series
    if isinstance(dtype, pd.ArrowDtype) and dtype.kind == "M":  # pragma: no cover - arrow
        return series.astype("datetime64[ns]")
    if date_format is None:  # datetime objects in an object column
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = pd.to_datetime(series, errors="coerce", utc=True)
        return parsed.dt.tz_localize(None)
    return _parse(series, date_format)


def _is_datetimes(series: pd.Series) -> bool:
    """A datetime dtype, or Python dates and times (from JSON or Parquet) in an object
    column."""
    import datetime

    dtype = series.dtype
    if dtype.kind == "M" or isinstance(dtype, pd.DatetimeTZDtype):
        return True
    if dtype.kind != "O":
        return False
    values = series.dropna().iloc[:ROLE_SAMPLE]
    dated = (datetime.date, pd.Timestamp)
    return (
        bool(len(values))
        and isinstance(values.iloc[0], dated)
        and bool(values.map(lambda v: isinstance(v, dated)).all())
    )


def input_column(feature, columns) -> str | None:
    """The input column a model's feature is read from: the feature itself, or for a
    calendar feature (``"when.month"``, :meth:`ColumnReading.feature_names`) its date column;
    None when neither is among ``columns``.

    Parameters
    ----------
    feature : str
        A feature name of the model (as ``explain`` names it).
    columns : collection of str
        The input's columns.

    Returns
    -------
    str or None
        The column of the input that holds the feature's values.

    Examples
    --------
    >>> from nbayes.columns import input_column
    >>> input_column("when.month", ["when", "x"]), input_column("x", ["when", "x"])
    ('when', 'x')
    """
    if feature in columns:
        return feature
    column, _, part = str(feature).rpartition(".")
    return column if part in CALENDAR_PARTS and column in columns else None


def calendar_features(series: pd.Series, parts, date_format: str | None = None) -> pd.DataFrame:
    """The calendar features of a timestamp column.

    Parameters
    ----------
    series : Series
        The column: a datetime dtype, Python dates, or strings.
    parts : sequence of str
        Features from :data:`CALENDAR_PARTS` ("year", "month", "dayofweek", "hour"); the
        day of week counts from Monday (0).
    date_format : str, optional
        The written form of strings (one of :data:`DATE_FORMATS`, as
        :class:`ColumnReading` gives it); None for datetimes and dates.

    Returns
    -------
    DataFrame
        One column per part, named ``"<column>.<part>"``, of nullable integers (missing
        where the value is missing or not a date).

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import calendar_features
    >>> s = pd.Series(["2022-02-11T00:00:00Z", "2022-02-12T13:00:00+01:00"], name="t")
    >>> calendar_features(s, ("year", "dayofweek", "hour"), "ISO8601")
       t.year  t.dayofweek  t.hour
    0    2022            4       0
    1    2022            5      13
    """
    stamps = _as_datetimes(series, date_format)
    name = series.name
    out = {}
    for part in parts:  # at most four
        values = getattr(stamps.dt, "day_of_week" if part == "dayofweek" else part)
        out[f"{name}.{part}"] = values.astype("Int64")
    return pd.DataFrame(out, index=series.index)


def _calendar_parts(stamps: pd.Series) -> tuple[str, ...]:
    """Year, month and day of week; the hour too when some value has a time of day."""
    present = stamps.dropna()
    timed = bool(len(present)) and bool((present != present.dt.normalize()).any())
    return CALENDAR_PARTS if timed else CALENDAR_PARTS[:3]


@dataclass
class Calendar:
    """The calendar expansion of a fitted model: the position of each timestamp column in the
    table, its written form and its parts (stored in model files)."""

    positions: list[int] = field(default_factory=list)
    formats: list[str | None] = field(default_factory=list)
    parts: list[tuple[str, ...]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.positions)

    def names(self, columns) -> list[str]:
        return [
            f"{columns[p]}.{part}" for p, parts in zip(self.positions, self.parts) for part in parts
        ]

    def expand(self, df: pd.DataFrame) -> pd.DataFrame:
        """``df`` with the calendar features of its timestamp columns appended (by
        position), so that a model's groups can name them after the table's own columns."""
        if not self.positions:
            return df
        frames = [df]
        for p, form, parts in zip(self.positions, self.formats, self.parts):  # per date column
            column = df.iloc[:, p]
            frames.append(calendar_features(column.rename(str(df.columns[p])), parts, form))
        out = pd.concat(frames, axis=1)
        return out

    def state(self) -> list:
        return [
            [int(p), f, list(parts)]
            for p, f, parts in zip(self.positions, self.formats, self.parts)
        ]

    @classmethod
    def from_state(cls, state) -> Calendar:
        """Rebuilt from :meth:`state`; ValueError when it is malformed."""
        if not isinstance(state, list):
            raise ValueError("the calendar expansion is not a list")
        out = cls()
        for item in state:  # one per timestamp column
            if (
                not isinstance(item, list)
                or len(item) != 3
                or not isinstance(item[0], int)
                or isinstance(item[0], bool)
                or item[0] < 0
                or not (
                    item[1] is None
                    or item[1] in DATE_FORMATS
                    or item[1] in NUMBER_DATE_FORMATS.values()
                )
                or not isinstance(item[2], list)
                or not item[2]
                or not all(part in CALENDAR_PARTS for part in item[2])
            ):
                raise ValueError(f"the calendar expansion entry {item!r} is malformed")
            out.positions.append(item[0])
            out.formats.append(item[1])
            out.parts.append(tuple(item[2]))
        return out
