"""Column types: the kind of each column fixed from the first chunk, and every later chunk
converted to it."""

from __future__ import annotations

import datetime
import decimal
import shlex

import numpy as np
import pandas as pd

from ..._validation import MISSING_WORDS
from ...exceptions import DataError
from .._common import say_warning
from ._sources import detect_format


def infer_kind(series: pd.Series, column: str) -> str:
    """Kind of one column as read: ``int``, ``float``, ``bool``, ``datetime`` or ``str``.

    Dates and timestamps (a datetime dtype, or dates from Parquet or JSON) are ``datetime``:
    the mixed model reads them as calendar features (:mod:`nbayes.columns`). Durations,
    times of day alone and lists are not modelled: they raise a DataError with the fix.
    Decimal numbers (Parquet ``decimal128``) are floats.
    """
    dtype = series.dtype
    kind = getattr(dtype, "kind", "O")
    if kind == "b" or str(dtype) == "boolean":
        return "bool"
    if kind in "iu":
        return "int"
    if kind == "f":
        return "float"
    if kind == "M" or isinstance(dtype, pd.DatetimeTZDtype):
        return "datetime"
    if kind == "m":
        raise _unmodelled(column, f"durations ({dtype})", _DATE_FIX)
    values = series.dropna()
    first = values.iloc[0] if len(values) else None
    if isinstance(first, (bool, np.bool_)) and values.map(type).isin((bool, np.bool_)).all():
        return "bool"  # true/false with gaps: pandas keeps them as Python objects
    if (
        isinstance(first, (datetime.date, pd.Timestamp))
        and values.map(lambda v: isinstance(v, (datetime.date, pd.Timestamp))).all()
    ):
        return "datetime"
    if isinstance(first, (datetime.date, datetime.time, datetime.timedelta, pd.Timestamp)):
        raise _unmodelled(column, f"dates or times (e.g. {first!r})", _DATE_FIX)
    if isinstance(first, (list, tuple, dict, set, np.ndarray)):
        raise _unmodelled(
            column, f"lists or records (e.g. {_short(first)})", "one column per item or field"
        )
    if isinstance(first, decimal.Decimal) and values.map(type).eq(decimal.Decimal).all():
        return "float"
    return "str"


def _short(value) -> str:
    text = repr(value.tolist() if isinstance(value, np.ndarray) else value)
    return text if len(text) <= 40 else text[:37] + "..."


#: How to turn a date column into something a model can learn from.
_DATE_FIX = "numbers or categories such as the day of week, the hour or the number of days"


def _unmodelled(column: str, what: str, fix: str) -> DataError:
    return DataError(
        f"column {column!r} holds {what}; nbayes models numbers, categories and words, not "
        f"these. Convert it before training (to {fix}) or leave it out with --exclude "
        f"{shlex.quote(str(column))}."
    )


def na_values_option(markers) -> str:
    """The ``--na-values`` option that reads ``markers`` as missing, quoted for a shell."""
    return "--na-values=" + shlex.quote(",".join(markers))


def missing_markers(values: tuple[str, ...]) -> list[str] | None:
    """pandas' ``na_values`` for ``--na-values``: each marker also after the space that a
    ", " separator leaves (UCI files write "39, ?, Private"); pandas' own markers (empty,
    NA, NULL, NaN, ...) stay."""
    if not values:
        return None
    return sorted({v for m in values for v in (m, " " + m)})


def read_dtypes(schema: dict[str, str]) -> dict[str, type]:
    """dtypes to pin when reading CSV: text columns stay text (``01234`` keeps its zero)."""
    return {c: str for c, k in schema.items() if k == "str"}


def numeric_column(
    series: pd.Series,
    name: str,
    offset: int,
    path: str,
    why: str,
    preset: bool = True,
    scoring: bool = False,
) -> pd.Series:
    """``series`` as float64; a value that is not a number raises a DataError naming it.

    ``preset`` says the model needs numbers in every column (a numeric --model), so that a
    model taking categories is advice; otherwise (MixedNB typed the column from its first
    rows) that advice would name the model already in use. ``scoring``: rows scored by a
    trained model (evaluate, predict, explain), where such a value is read as missing, with
    one warning per column: the model cannot learn it, and one value must not stop the rest.
    """
    if series.dtype.kind in "iufb":
        return series.astype(np.float64)
    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna() & series.notna() & (series.astype(str).str.strip() != "")
    if bad.any() and scoring:
        i = int(np.flatnonzero(bad.to_numpy())[0])
        more = int(bad.sum()) - 1
        others = f" (and {more:,} more in its first rows)" if more else ""
        say_warning(
            f"{path}: column {name!r} held numbers in training but holds {series.iloc[i]!r} "
            f"at row {offset + i}{others}, read as a missing value; to model such values as "
            f"categories, train with --categorical {shlex.quote(str(name))} on rows that hold them",
            key=f"not a number: {path}: {name}",
        )
    elif bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        fix = (
            f"Drop the column (--exclude {shlex.quote(str(name))}) or choose a model that takes "
            "categories (--model mixed or categorical)."
            if preset
            else "nbayes types a column from the first rows that hold values; fix that "
            f"value, or leave the column out with --exclude {shlex.quote(str(name))}."
        )
        marker = str(series.iloc[i]).strip()
        if not any(ch.isalnum() for ch in marker) or marker.lower() in MISSING_WORDS:
            way = (
                f"pass {na_values_option([marker])}"
                if detect_format(path)[0] in ("csv", "tsv")
                else "write it as a null"
            )
            fix += f" If {marker!r} marks a missing value, {way}."
        raise DataError(
            f"{path}: column {name!r} must hold numbers for {why}; got {series.iloc[i]!r} at "
            f"row {offset + i}. {fix}"
        )
    return values.astype(np.float64)


def conform(
    frame: pd.DataFrame,
    schema: dict[str, str],
    offset: int,
    path: str,
    numeric: str | None = None,
    scoring: bool = False,
) -> pd.DataFrame:
    """Convert a chunk's columns to the kinds of ``schema`` (``int``, ``float``, ``bool``,
    ``str``, or ``any`` to leave a column as read).

    With ``numeric`` (the model's name, for messages) every column becomes float64, which the
    presets need. Otherwise ints stay integers (nullable ``Int64`` when values are missing),
    bools stay bools and text stays text, as MixedNB expects. ``scoring``: rows a trained
    model scores, where a number column's value that is not a number is read as missing
    (see :func:`numeric_column`), except for the presets, which take no missing value.
    """
    out = {}
    for col, kind in schema.items():  # one conversion per column: bounded by the table width
        s = frame[col]
        if numeric is not None or kind in ("int", "float"):
            s = numeric_column(
                s,
                col,
                offset,
                path,
                numeric or f"its type in the first rows ({kind})",
                preset=numeric is not None,
                scoring=scoring and numeric is None,  # the presets take no missing value
            )
            if numeric is None and kind == "int":
                whole = s.dropna()
                if (whole == np.round(whole)).all():
                    s = s.astype("Int64") if s.isna().any() else s.astype(np.int64)
        elif kind == "bool":
            if s.dtype.kind != "b":
                mapped = s.map(_BOOLS.get, na_action="ignore")
                bad = mapped.isna() & s.notna()
                if bad.any():
                    i = int(np.flatnonzero(bad.to_numpy())[0])
                    raise DataError(
                        f"{path}: column {col!r} holds true/false values in its "
                        f"first rows but {s.iloc[i]!r} at row {offset + i}."
                    )
                s = mapped.astype("boolean")
        elif kind == "str":
            s = s.astype(object).where(s.notna(), None)
            s = s.map(str, na_action="ignore")
        # kind "any" (a model saved from Python) or "datetime" (calendar features of the
        # mixed model): the column is passed on as read
        out[col] = s
    return pd.DataFrame(out, index=frame.index)


_BOOLS = {
    True: True,
    False: False,
    "True": True,
    "False": False,
    "true": True,
    "false": False,
    "TRUE": True,
    "FALSE": False,
    "1": True,
    "0": False,
}
