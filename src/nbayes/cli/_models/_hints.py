"""Hints on the columns of a table: text, written numbers, missing markers and coded
values, each with its fix."""

from __future__ import annotations

import shlex

import pandas as pd

from ..._validation import (
    FREQUENT_CATEGORY,
    MISSING_MARKERS,
    is_missing_marker,
    likely_missing_marker,
)
from ...columns import (
    ROLE_SAMPLE,
    ColumnReading,
    StringProfile,
    code_text,
    date_format,
    read_column,
    string_profile,
)
from .._tables import _BOOLS, infer_kind, na_values_option

NEAR_UNIQUE = 0.5


def looks_like_text(series: pd.Series) -> bool:
    """Free text or short texts (words) rather than categories; see :func:`string_profile`."""
    return string_profile(series).role != "category"


_NUMBER_STYLES = (
    # (pattern of every value, separator a value must use, options that read them)
    (r"^[+-]?\d+,\d+$", ",", ("--decimal", ",")),
    (r"^[+-]?(\d{1,3}(\.\d{3})+|\d+)(,\d+)?$", ".", ("--decimal", ",", "--thousands", ".")),
    (r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$", ",", ("--thousands", ",")),
    (r"^[+-]?(\d{1,3}( \d{3})+|\d+)([.,]\d+)?$", " ", ("--thousands", "' '")),
)


def number_style(series: pd.Series) -> tuple[str, ...] | None:
    """Options that would read a column of strings as numbers ("1.234,5", "12,5", "1,234"),
    or None when its values are not numbers written that way."""
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return None
    values = values.str.strip()
    for pattern, sep, options in _NUMBER_STYLES:  # a handful of styles
        if values.str.match(pattern).all() and values.str.contains(sep, regex=False).any():
            return options
    return None


#: A number with a currency sign or a per cent sign, in any of the styles above.
_UNITS = r"^[+-]?\s*[$€£¥]?\s*[+-]?\d[\d.,' ]*\s*(%|[$€£¥]|EUR|USD|GBP)?$"


def has_units(series: pd.Series) -> bool:
    """Whether a column of strings holds numbers written with a currency or per cent sign."""
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return False
    values = values.str.strip()
    return bool(
        values.str.match(_UNITS).all() and values.str.contains(r"[$€£¥%]|EUR|USD|GBP").any()
    )


def number_markers(series: pd.Series) -> list[str] | None:
    """The few values (at most 3) that keep a column of numbers from reading as numbers,
    such as ``?`` in "39, ?, 41"; None when its values are not mostly numbers."""
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return None
    values = values.str.strip()
    other = values[pd.to_numeric(values, errors="coerce").isna()]
    if other.empty or len(other) * 2 > len(values) or other.nunique() > 3:
        return None
    shares = other.value_counts() / len(values)
    # A word or letter that is a frequent value is a real category ('K', kindergarten, among
    # school grades 1 to 12), not a marker; signs and the usual words are markers at any share.
    frequent = [
        v
        for v, share in shares.items()  # at most 3 values
        if share >= FREQUENT_CATEGORY and any(ch.isalpha() for ch in v) and not is_missing_marker(v)
    ]
    if frequent:
        return None
    return sorted(other.unique().tolist())


def marker_note(column: str, series: pd.Series, read) -> str | None:
    """A note for a category column holding a value that often marks a missing cell."""
    if "--na-values" in read.given or number_markers(series) is not None:
        return None  # given, or warned of as numbers
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return None
    stripped = values.str.strip()
    found = stripped[stripped.str.lower().isin(MISSING_MARKERS)]
    if found.empty:
        return None
    marker = found.value_counts().index[0]
    if not likely_missing_marker(marker, float((stripped == marker).mean())):
        return None  # a frequent category ('none' as a religion): not a missing value
    return (
        f"column {column!r} has the value {marker!r} in {int((stripped == marker).sum()):,} of "
        f"the first {len(values):,} rows, modelled as a category of its own; if it marks a "
        f"missing value, {_as_missing([marker], read)}"
    )


def _string_warnings(column: str, series: pd.Series, profile: StringProfile, read) -> list[str]:
    """Warnings for a string column read as categories that will carry little information."""
    markers = number_markers(series)
    if markers is not None and "--na-values" not in read.given:
        n = int(series.dropna().iloc[:ROLE_SAMPLE].str.strip().isin(markers).sum())
        return [
            f"column {column!r} holds numbers but for {', '.join(map(repr, markers))} (in "
            f"{n:,} of the first {min(series.notna().sum(), ROLE_SAMPLE):,} values), so it is "
            f"read as categories, one per number; to read those as missing and the column as "
            f"numbers, {_as_missing(markers, read)}"
        ]
    style = number_style(series)
    if style is not None:
        pairs = list(zip(style[::2], style[1::2]))
        missing = [f"{flag} {value}" for flag, value in pairs if flag not in read.given]
        fix = f"pass {' '.join(missing)}" if missing else "check the separators of this column"
        if not read.csv:  # the separators are options of CSV; other formats type numbers
            fix = "write the column as numbers in DATA"
        return [
            f"column {column!r} holds numbers written as {series.dropna().iloc[0]!r}, which "
            f"are read as text ({profile.distinct:.0%} distinct values in the first rows, "
            f"so near-unique categories); to read them as numbers {fix}"
        ]
    if has_units(series):
        return [
            f"column {column!r} holds numbers with a currency sign or a unit (e.g. "
            f"{series.dropna().iloc[0]!r}), which are read as text ({profile.distinct:.0%} "
            "distinct values in the first rows, so near-unique categories); remove the sign "
            "before training to model them as numbers, or leave it out with --exclude "
            f"{shlex.quote(str(column))}"
        ]
    if profile.role == "category" and profile.distinct >= NEAR_UNIQUE and profile.n_values >= 50:
        if date_format(series) is not None:  # the typology's rule: see nbayes.columns
            return [
                f"column {column!r} holds dates or times written as text (e.g. "
                f"{series.dropna().iloc[0]!r}), read as near-unique categories that carry "
                "almost no information; convert it to numbers or categories (day of week, "
                "hour, number of days) before training, or leave it out with --exclude "
                f"{shlex.quote(str(column))}"
            ]
        return [
            f"column {column!r} has near-unique values ({profile.describe()}): as categories "
            "it carries almost no information; leave it out with --exclude "
            f"{shlex.quote(str(column))} if it is an identifier"
        ]
    return []


def _reading(column: str, values: pd.Series) -> ColumnReading:
    """The library's reading of a column (:mod:`nbayes.columns`), as MixedNB makes it on
    the same chunk: a column of true/false values with gaps is read as booleans, as
    :func:`conform` converts it."""
    if infer_kind(values, column) == "bool" and values.dtype.kind == "O":
        values = values.map(_BOOLS.get, na_action="ignore").astype("boolean")
    return read_column(values, column)


def _as_missing(values, read) -> str:
    """How to read ``values`` as missing: ``--na-values`` for CSV/TSV, which is refused for
    other formats (their missing values are typed: null)."""
    if read.csv:
        return f"pass {na_values_option(values)}"
    return f"write {' and '.join(map(repr, values))} as null (missing) in DATA"


def _coded_warning(column: str, reading: ColumnReading, read) -> str:
    """The warning for a number column that codes missing values with a number."""
    codes = [code_text(c) for c in reading.codes]
    return (
        f"column {column!r} holds {' and '.join(codes)} repeated far outside its other values "
        f"({reading.why.split('; ')[0]}), most likely a code for a missing value, which is "
        f"modelled as a number; to read it as missing, {_as_missing(codes, read)}"
    )
