"""Column reading: what each column of a table is, and which family models it.

One declared typology, shared by :class:`nbayes.MixedNB` (``columns="auto"``), the
semi-naive models and the ``nbayes`` command. Every column gets one kind, with the evidence
for it:

================  ==========================================================================
kind              rule (judged on the column's values; strings on the first 2,000 of them)
================  ==========================================================================
empty             no value at all
constant          one distinct value
identifier        a row label, left out of the model: values distinct in every row (at
                  least 20 rows) of a column named like a row index (``id``, ``rownames``,
                  ``index``, ``Unnamed: 0``, ``..._id``; whole numbers, codes, or numbers
                  with a fraction such as R's ``17.1`` unless named ``index``) or like a
                  code (``PID``, ``docno``, ``distcod``, ``case_nr``: whole numbers); whole
                  numbers distinct in every row (at least 30 rows) that fill at least half
                  of the range between their least and greatest value (row numbers, even
                  after a shuffled split); names or codes (strings of at most two words
                  whose words do not recur) distinct in every row (at least 20 rows);
                  values named like a row index that repeat, with at least 20 distinct
                  values (a subject's or group's identifier, as a patient's in a panel)
timestamp         dates or times: a datetime dtype, or strings of which at least 95 % parse
                  under one of the written forms ISO 8601 (``2022-02-11``,
                  ``2022-02-11T08:30:00Z``, offsets), ``M/D/YY``, ``M/D/YYYY``, ``D/M/YYYY``,
                  ``D.M.YYYY``, ``YYYY/MM/DD``, with or without a time; modelled as calendar
                  features (year, month, day of week, and hour where a time is written)
boolean           true/false values (a bool dtype, or Python booleans with gaps)
coded number      a number column in which a value written with nines (99, 999, ...,
                  999999.375) or a negative code (-1, -9, -99, ...) repeats (3 times or
                  more) and lies far outside the other values (farther from their greatest
                  than twice their range): a number with coded missing values, reported
                  with the fix (read it as missing) and modelled as the number it is
number            integers and floats
category          strings (and pandas categoricals) that are not text
short text        short multi-word strings, mostly distinct, whose words recur across rows
                  (addresses, names, titles)
free text         strings of 8 or more words per value (the median)
================  ==========================================================================

Floats are never identifiers (a measurement may well be distinct in every row). The kind
decides the family: identifiers are left out, timestamps become calendar features (each a
category), booleans are Bernoulli, numbers are Gaussian (integers with few distinct values
categorical), categories, texts, constants and empty columns categorical.

Examples
--------
>>> import pandas as pd
>>> from nbayes.columns import read_columns, choices_table
>>> table = pd.DataFrame({
...     "rownames": range(1, 61),
...     "when": pd.date_range("2024-01-01", periods=60, freq="D").strftime("%Y-%m-%d"),
...     "city": ["Oslo", "Rome", "Lima"] * 20,
... })
>>> for reading in read_columns(table):
...     print(reading.column, reading.kind, reading.family)
rownames identifier None
when timestamp calendar
city category categorical
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = [
    "ColumnReading",
    "StringProfile",
    "calendar_features",
    "choices_table",
    "code_text",
    "coded_missing",
    "input_column",
    "read_column",
    "read_columns",
    "string_profile",
]

#: The declared kinds of a column, in the order of the module's table.
KINDS = (
    "empty",
    "constant",
    "identifier",
    "timestamp",
    "boolean",
    "coded number",
    "number",
    "category",
    "short text",
    "free text",
)
#: Calendar features a timestamp column can give, in this order.
CALENDAR_PARTS = ("year", "month", "dayofweek", "hour")
#: Values a string column's role is judged on (splitting long e-mails into words is not free).
ROLE_SAMPLE = 2000
#: Median words per value from which a string column is free text (sentences).
TEXT_WORDS = 8
#: A column of short multi-word values is short text when at least this share of its values
#: is distinct and each of its words occurs this often on average.
WORDS_DISTINCT, WORDS_REUSE = 0.3, 2.0
#: Rows a column must have before values distinct in every row make it an identifier: with
#: a name like a row index, or strings (a category distinct in every row says nothing of
#: new rows); and whole numbers filling half their range without such a name (n values of
#: a measure drawn from a span of 2n are all distinct with a chance of about exp(-n/4),
#: under 0.1 % from 30 rows).
ID_ROWS_NAMED, ID_ROWS = 20, 30
#: Words a value may have in a column of names or codes distinct in every row.
ID_WORDS = 2
#: Share of the range between the least and greatest value that distinct whole numbers must
#: fill to be row numbers (a 70 % shuffled split of 1..n fills 70 % of it).
ID_DENSITY = 0.5
#: Names of a row index or a row identifier, compared in lower case without spaces, dots,
#: dashes and underscores.
ID_NAMES = frozenset({"", "id", "rownames", "rowname", "index", "rowid", "rownumber", "row"})
#: Names of a code that identifies a row (compared as :data:`ID_NAMES`): short forms of an
#: identifier (``PID``), and endings of a number's or a code's name (``distcod``, ``case_nr``)
#: on names longer than four letters.
CODE_NAMES = frozenset({"pid", "uid", "sid", "cid", "fid", "gid", "oid", "uuid", "guid"})
CODE_ENDINGS = ("nr", "cod", "code")
#: Endings that are also the end of ordinary words (``casino``, ``maximum``): a code's name only
#: after a separator or a capital (``case_no``, ``DocNum``) or after a word of
#: :data:`CODE_STEMS` (``docno``).
WORD_ENDINGS = ("no", "num")
CODE_STEMS = frozenset(
    {
        "doc",
        "case",
        "row",
        "id",
        "serial",
        "item",
        "order",
        "record",
        "ticket",
        "invoice",
        "account",
        "patient",
        "subject",
        "sample",
        "file",
        "ref",
        "seq",
        "obs",
        "unit",
    }
)
#: Share of a sample that must parse under one date format for the column to be dates.
DATE_SHARE = 0.95
#: Written date forms tried, in this order (``ISO8601`` takes every ISO form pandas knows).
DATE_FORMATS = (
    "ISO8601",
    "%m/%d/%y",
    "%m/%d/%Y",
    "%d/%m/%y",
    "%d/%m/%Y",
    "%d.%m.%Y",
    "%d.%m.%y",
    "%Y/%m/%d",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y %H:%M:%S",
    "%Y/%m/%d %H:%M",
    "%Y/%m/%d %H:%M:%S",
)
#: A time zone written after a time (``Z``, ``+01:00``, ``-0500``, `` UTC``): calendar
#: features are read in the time written, before the zone.
_ZONE = re.compile(r"(\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(?:Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)$")
#: What a value must look like to be tried as a date (digits and date punctuation only).
_DATE_LIKE = (
    r"^\s*\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}"
    r"([ T]\d{1,2}:\d{2}[\d:.,]*\s*(Z|UTC|GMT|[+-][\d:]+|[AaPp][Mm])?)?\s*$"
)
#: A number written with a sign, separators or a unit ("1.234,5", "12%", "$3"): never a code.
_WRITTEN_NUMBER = r"(?!\d+$)[\s+\-$€£¥]*[\d.,' ]*\d[\d.,' ]*[\s%$€£¥]*"
#: At least this many repeats, and this share of the values, make a far value a missing code.
CODE_REPEATS, CODE_SHARE = 3, 0.001
#: How far outside the other values a code lies: its distance from the greatest of them is
#: more than this many times their range (UCI Adult's capital gains top-coded at 99999, 2.4
#: times the next greatest, are a real amount, not a code).
CODE_FAR = 2.0


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


@dataclass(frozen=True)
class StringProfile:
    """How a column of strings reads, from a sample of its values.

    Parameters
    ----------
    role : {"text", "words", "category"}
        Free text (sentences), short multi-word values that are mostly distinct but share
        their words (addresses, names, product titles), or categories.
    n_values : int
        Values the profile was made from.
    words : float
        Median number of words per value.
    distinct : float
        Share of distinct values.
    reuse : float
        Occurrences of each word, on average.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import string_profile
    >>> string_profile(pd.Series(["red", "blue", "red"])).role
    'category'
    """

    role: str
    n_values: int
    words: float
    distinct: float
    reuse: float

    def describe(self) -> str:
        """The profile in words, for a message.

        Returns
        -------
        str
            Words per value, distinct share and word reuse.

        Examples
        --------
        >>> from nbayes.columns import StringProfile
        >>> StringProfile("category", 10, 1.0, 0.5, 2.0).describe()[:29]
        '1 word(s) per value, 50% dist'
        """
        if not self.words:  # codes such as '01.12' or 'A-17': no words to count
            return f"{self.distinct:.0%} distinct values in the first {self.n_values:,}"
        return (
            f"{self.words:g} word(s) per value, {self.distinct:.0%} distinct values, each word "
            f"used {self.reuse:.1f} times on average in the first {self.n_values:,} values"
        )


def _strings(series: pd.Series) -> pd.Series | None:
    """The first :data:`ROLE_SAMPLE` values of ``series`` when every one is a string, else
    None (numbers, booleans or mixed values)."""
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return None
    return values.astype(object)


def string_profile(series: pd.Series) -> StringProfile:
    """The :class:`StringProfile` of a column (non-strings make it a category column).

    Spaces alone do not make text: repeated values ("New York City") are categories, and
    mostly distinct values are words only when their words recur across rows (a street
    name, a brand), which is what a bag of words can learn from and categories cannot.

    Parameters
    ----------
    series : Series
        The column; its first 2,000 values are read.

    Returns
    -------
    StringProfile
        The role and the evidence for it.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import string_profile
    >>> string_profile(pd.Series(["a long sentence of many words that goes on and on"])).role
    'text'
    """
    values = _strings(series)
    if values is None:
        return StringProfile("category", int(series.notna().sum()), 0.0, 0.0, 0.0)
    from .distributions.text import WORD

    # Each distinct value is split once (a column of categories has few), weighted by its
    # count: the same figures as splitting every value.
    counts = values.value_counts(sort=False)
    unique = pd.Series(counts.index, dtype=object)
    words = unique.str.lower().str.findall(WORD)  # the words a text group would learn
    lengths = words.str.len().to_numpy()
    per_value = float(np.median(np.repeat(lengths, counts.to_numpy())))
    n_tokens = int((lengths * counts.to_numpy()).sum())
    reuse = n_tokens / max(words.explode().dropna().nunique(), 1)
    distinct = len(unique) / len(values)
    if per_value >= TEXT_WORDS:
        role = "text"
    elif per_value >= 2 and distinct >= WORDS_DISTINCT and reuse >= WORDS_REUSE:
        role = "words"
    else:
        role = "category"
    return StringProfile(role, len(values), per_value, distinct, reuse)


# -- timestamps ------------------------------------------------------------------------------
def _without_zone(values: pd.Series) -> pd.Series:
    """Strings with a time zone written after their time removed (the time as written)."""
    return values.str.strip().str.replace(_ZONE, r"\1", regex=True)


def _parse(values: pd.Series, date_format: str) -> pd.Series:
    """``values`` (strings) as naive datetimes under ``date_format``; NaT where they do not
    parse. Never raises."""
    strings = values.astype(object)
    if pd.api.types.infer_dtype(strings, skipna=True) != "string":  # only strings parse
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
    return parsed


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


# -- identifiers ----------------------------------------------------------------------------
def _name_key(name) -> str:
    return re.sub(r"[\s._-]+", "", str(name)).lower()


def looks_like_index_name(name) -> bool:
    """Whether a column name is that of a row index or a row identifier: ``id``, ``ID``,
    ``rownames``, ``index``, ``Unnamed: 0`` (an unnamed header cell, as pandas reads it),
    or a name ending in ``_id`` / `` id`` (``patient_id``)."""
    text = str(name)
    key = _name_key(text)
    return (
        key in ID_NAMES
        or text.startswith("Unnamed: ")
        or bool(re.search(r"(^|[\s._-])(id|ID|Id)$", text))
    )


def looks_like_code_name(name) -> bool:
    """Whether a column name is that of a code: :data:`CODE_NAMES`, a name of more than four
    letters ending in one of :data:`CODE_ENDINGS`, or one of :data:`WORD_ENDINGS` as a word
    of its own (see there)."""
    key = _name_key(name)
    if key in CODE_NAMES or (len(key) > 4 and key.endswith(CODE_ENDINGS)):
        return True
    for ending in WORD_ENDINGS:
        if len(key) > len(ending) + 1 and key.endswith(ending):
            text = str(name)
            apart = re.search(rf"[\s._-]{ending}$", text, re.I) or text.endswith(
                ending.capitalize()
            )
            if apart or key[: -len(ending)] in CODE_STEMS:
                return True
    return False


def _row_names(name, values: pd.Series) -> bool:
    """Numbers with a fraction that are row labels: named like a row index or an identifier
    (not ``index``: a price index is a measure), none negative, each with one decimal at
    most (R's row names of a subset, ``17.1``, ``17.2``, or a subject's ``6.1``)."""
    if not looks_like_index_name(name) or _name_key(name) == "index":
        return False
    x = values.to_numpy(dtype=np.float64)
    return bool(np.isfinite(x).all() and x.min() >= 0 and np.allclose(x * 10, np.round(x * 10)))


def _whole(values: pd.Series) -> np.ndarray | None:
    """The values (of a number column) as int64 when they are all whole numbers (an integer
    dtype, or floats without a fraction), else None."""
    if getattr(values.dtype, "kind", "O") in "iu":
        return values.to_numpy(dtype=np.int64)
    x = values.to_numpy(dtype=np.float64)
    if np.isfinite(x).all() and (x == np.round(x)).all() and np.abs(x).max() < 2**53:
        return x.astype(np.int64)
    return None


def _identifier(name, values: pd.Series, n_rows: int) -> str | None:
    """The evidence that a column is an identifier, or None (see the module's table)."""
    present = values.dropna()
    if len(present) != n_rows or n_rows < ID_ROWS_NAMED:
        return None  # an identifier labels every row
    named = looks_like_index_name(name)
    kind = getattr(values.dtype, "kind", "O")
    numbers = _whole(present) if kind in "iuf" else None
    if kind in "iuf" and numbers is None:
        if _row_names(name, present) and present.nunique() == n_rows:
            return f"named like a row index, values distinct in all {n_rows:,} rows"
        return None  # measurements: floats with a fraction are never identifiers otherwise
    if numbers is not None:
        if np.unique(numbers).size != n_rows:
            return None
        if named:
            return f"named like a row index, whole numbers distinct in all {n_rows:,} rows"
        if looks_like_code_name(name):
            return f"named like a code, whole numbers distinct in all {n_rows:,} rows"
        if kind == "f" or n_rows < ID_ROWS:
            return None
        span = float(numbers.max()) - float(numbers.min()) + 1
        if n_rows / span >= ID_DENSITY:
            return (
                f"whole numbers distinct in all {n_rows:,} rows, filling {n_rows / span:.0%} "
                f"of the range {int(numbers.min()):,}..{int(numbers.max()):,}: row numbers"
            )
        return None
    strings = _strings(present)
    if strings is None or strings.nunique() != len(strings) or present.nunique() != n_rows:
        return None
    if named:
        return f"named like a row index, values distinct in all {n_rows:,} rows"
    if (
        (strings.str.split().str.len() <= ID_WORDS).all()
        and not strings.str.fullmatch(_WRITTEN_NUMBER).all()
        and string_profile(strings).role == "category"  # words that recur are short text
    ):
        return f"names or codes distinct in all {n_rows:,} rows"
    return None


def _group_identifier(name, values: pd.Series, n_unique: int) -> str | None:
    """The evidence that a column named like a row index identifies a subject or a group
    of rows (a patient of a panel, a sample measured twice), or None: whole numbers or
    codes, at least :data:`ID_ROWS_NAMED` distinct. New rows bring new ones, and rows of
    one subject that fall on both sides of a split let the model learn the subject."""
    if n_unique < ID_ROWS_NAMED or not looks_like_index_name(name):
        return None
    present = values.dropna()
    kind = getattr(values.dtype, "kind", "O")
    if kind in "iuf" and _whole(present) is None and not _row_names(name, present):
        return None  # measurements
    if kind not in "iuf" and _strings(present) is None:
        return None
    return (
        f"named like a row index, {n_unique:,} distinct values over {len(present):,} rows "
        "(a subject's or group's identifier)"
    )


# -- numbers with coded missing values --------------------------------------------------------
def _is_code(value: float) -> bool:
    """A value that data sets use for "missing": nines (99, 999, 999999, 999999.375 when
    stored as float32) or a negative code (-1, -9, -99, ...)."""
    if value < 0:
        return value == -1 or bool(re.fullmatch(r"9+", f"{-value:.0f}"))
    whole = f"{np.floor(value):.0f}"
    return len(whole) >= 2 and set(whole) == {"9"}


def coded_missing(series: pd.Series) -> tuple[float, ...]:
    """The values of a number column that most likely code a missing value: a code (see
    :func:`_is_code`) repeated at least :data:`CODE_REPEATS` times that lies far outside the
    other values (farther from their greatest than :data:`CODE_FAR` times their range; a
    negative code in a column otherwise never negative, with at least ten distinct values
    when the code is -1).

    Parameters
    ----------
    series : Series
        A number column (any other gives no code).

    Returns
    -------
    tuple of float
        The codes, in increasing order of their value; empty when there is none.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import coded_missing
    >>> coded_missing(pd.Series([23, 35, 41, 999, 52, 999, 30, 999, 28, 44]))
    (999.0,)
    """
    kind = getattr(series.dtype, "kind", "O")
    if kind not in "iuf":
        return ()
    x = series.to_numpy(dtype=np.float64, na_value=np.nan)
    x = x[np.isfinite(x)]
    if x.size < 2 * CODE_REPEATS:
        return ()
    values, counts = np.unique(x, return_counts=True)
    repeated = values[(counts >= max(CODE_REPEATS, CODE_SHARE * x.size))]
    codes: list[float] = []
    for v in repeated[np.abs(repeated) >= 1]:  # few: repeated values that could be codes
        v = float(v)
        if not _is_code(v):
            continue
        rest = x[(x != v) & ~np.isin(x, codes)]
        if rest.size < CODE_REPEATS:
            continue
        gap = CODE_FAR * float(rest.max() - rest.min())
        if v > 0 and v - float(rest.max()) > gap:
            codes.append(v)
        elif v < 0 and rest.min() >= 0 and (v <= -9 or np.unique(rest).size >= 10):
            codes.append(v)
    return tuple(codes)


# -- the reading ------------------------------------------------------------------------------
def _int_limit(max_int_categories, n_rows: int) -> int:
    if isinstance(max_int_categories, str) and max_int_categories == "auto":
        return max(20, int(np.sqrt(n_rows)))
    return int(max_int_categories)


def _number_family(series: pd.Series, kind: str, limit: int) -> tuple[str, str]:
    """Family of a number column and the evidence: integers with at most ``limit`` distinct
    values are categorical, other numbers Gaussian."""
    if kind in "iu" and not isinstance(series.dtype, pd.CategoricalDtype):
        n_unique = int(series.nunique(dropna=True))
        if n_unique <= limit:
            return "categorical", f"integers with {n_unique:,} distinct values (at most {limit:,})"
        return "gaussian", f"integers with {n_unique:,} distinct values (over {limit:,})"
    return "gaussian", f"numbers ({series.dtype})"


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
    form = None if kind in "iuf" else date_format(sample)
    if form is not None:
        shown = "ISO 8601" if form == "ISO8601" else form
        return _timestamp(
            name, _parse(series, form), form, f"dates written as {shown} (e.g. {present.iloc[0]!r})"
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
        codes = coded_missing(series)
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
    profile = string_profile(sample)
    if profile.role == "text":
        return ColumnReading(name, "free text", "categorical", profile.describe())
    if profile.role == "words":
        return ColumnReading(name, "short text", "categorical", profile.describe())
    return ColumnReading(name, "category", "categorical", f"{n_unique:,} distinct values")


def code_text(code: float) -> str:
    """A coded value as written, whole or with every digit it has (``99``, ``999999.375``):
    the value a replacement must name to match it.

    Parameters
    ----------
    code : float
        A value of :attr:`ColumnReading.codes`.

    Returns
    -------
    str
        The value, without a fraction where it has none.

    Examples
    --------
    >>> from nbayes.columns import code_text
    >>> code_text(99.0), code_text(999999.375), code_text(-1)
    ('99', '999999.375', '-1')
    """
    value = float(code)
    return str(int(value)) if value.is_integer() else repr(value)


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


def choices_table(readings) -> pd.DataFrame:
    """The readings as a table.

    Parameters
    ----------
    readings : iterable of ColumnReading
        The columns' readings.

    Returns
    -------
    DataFrame
        Indexed by column: ``kind``, ``family`` (``"left out"`` for an identifier) and
        ``why``.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import choices_table, read_columns
    >>> choices_table(read_columns(pd.DataFrame({"f": [0.5, 1.5]}))).loc["f"].tolist()
    ['number', 'gaussian', 'numbers (float64)']
    """
    rows = [(r.column, r.kind, r.family or "left out", r.why) for r in readings]
    table = pd.DataFrame(rows, columns=["column", "kind", "family", "why"])
    return table.set_index("column")


def choices_state(readings) -> list:
    """The readings as plain data for a model file: ``[column, kind, family, why, parts]``
    each (the calendar parts give the names of a timestamp's features)."""
    return [[r.column, r.kind, r.family, r.why, list(r.parts)] for r in readings]


def choices_from_state(state) -> list | None:
    """The readings of :func:`choices_state` (None for a file without them); ValueError
    when they are malformed."""
    if state is None:
        return None
    out = []
    for item in list(state):  # one per column of the table fitted on
        if (
            not isinstance(item, (list, tuple))
            or len(item) != 5
            or not all(isinstance(v, str) for v in (item[1], item[3]))
            or not (item[2] is None or isinstance(item[2], str))
            or not all(part in CALENDAR_PARTS for part in item[4])
        ):
            raise ValueError(f"the column choice {item!r} is malformed")
        column, kind, family, why, parts = item
        out.append(ColumnReading(column, kind, family, why, parts=tuple(parts)))
    return out


def format_choices(readings, width: int = 100) -> list[str]:
    """The choices table as text lines (for a terminal): column, kind, family, why."""
    rows = [(str(r.column), r.kind, r.family or "left out", r.why) for r in readings]
    head = ("column", "kind", "family", "why")
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(3)]
    lines = []
    for row in [head, *rows]:  # one line per column of the table
        left = "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths))
        why = row[3]
        room = max(width - len(left) - 2, 20)
        lines.append(f"{left}  {why if len(why) <= room else why[: room - 3] + '...'}")
    return lines


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
                or not (item[1] is None or item[1] in DATE_FORMATS)
                or not isinstance(item[2], list)
                or not item[2]
                or not all(part in CALENDAR_PARTS for part in item[2])
            ):
                raise ValueError(f"the calendar expansion entry {item!r} is malformed")
            out.positions.append(item[0])
            out.formats.append(item[1])
            out.parts.append(tuple(item[2]))
        return out


def warn_of(readings, estimator: str, keep: str = "") -> None:
    """Warn (:class:`~nbayes.exceptions.ColumnWarning`) of the identifiers among
    ``readings``, which the estimator leaves out, in one warning that says how to keep them
    (``keep``; by default by naming one in a group of MixedNB's ``columns``), and of each
    number column that codes missing values.
    """
    from ._validation import user_stacklevel
    from .exceptions import ColumnWarning

    ids = [r for r in readings if r.kind == "identifier"]
    if ids:
        labels = [r.column for r in ids]
        evidence = "; ".join(f"{r.column!r}: {r.why}" for r in ids)
        keep = keep or (
            f"To model one, name it in a group: columns=[({ids[0].kept_family!r}, "
            f"[{labels[0]!r}])] (the other columns stay 'auto')."
        )
        said = (
            f"{estimator} leaves out column(s) {labels!r}: identifiers ({evidence}), which "
            f"would let the model learn which rows belong to which class. {keep}"
        )
        warnings.warn(said, ColumnWarning, stacklevel=user_stacklevel())
    for r in readings:  # bounded by the table's width
        if r.kind == "coded number":
            codes = ", ".join(map(code_text, r.codes))
            warnings.warn(
                f"Column {r.column!r} holds {codes} repeated far outside its other values, "
                "most likely a code for a missing value, modelled as a number; replace it "
                f"with NaN before fitting: df[{r.column!r}] = df[{r.column!r}].replace("
                f"[{codes}], np.nan).",
                ColumnWarning,
                stacklevel=user_stacklevel(),
            )
