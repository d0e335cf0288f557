"""Column reading from a survey: what the rules of :func:`read_column` read, gathered part by
part into summaries that merge, so that a table read in partitions (:mod:`nbayes.dask`) gets
the readings that :func:`read_column` gives on all of its rows.

The rules read a column's values as a multiset (how often each distinct value occurs), its
first :data:`ROLE_SAMPLE` values in order, and its number of rows. A summary keeps exactly
these: the distinct values in order of first appearance with their counts, and the first
values. The decision is then :func:`read_column` itself, on a stand-in column made of the
first values followed by each other distinct value once (the identifier rules see every row
of a column distinct in every row, and the coded-value rule gets the counts).

A number column with more than ``cap`` distinct values keeps instead what the rules past that
point read: its least and greatest values with their counts (the only possible codes for a
missing value) and, while every value is distinct, the values (a row number or a code names
a row). Its family is then Gaussian, as with any limit on integer categories below ``cap``.
A datetime column keeps whether any value has a time of day, and the distinct values of its
calendar features.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ._coded import codes_from_counts
from ._dates import CALENDAR_PARTS, _as_datetimes, calendar_features
from ._identifiers import looks_like_code_name, looks_like_index_name
from ._reading import ColumnReading, _int_limit, number_reading, read_column
from ._strings import ROLE_SAMPLE

#: Distinct values a summary keeps of a number column (the survey of MixedNB's categories
#: keeps as many).
CAP = 2**16
#: Least and greatest distinct values kept of a number column past its cap.
EXTREMES = 16


@dataclass
class ColumnSummary:
    """What the column-reading rules need of one column, for some of its rows.

    ``values`` and ``counts`` are the distinct present values in order of first appearance
    (numbers as numbers, anything else as objects) and how often each occurs (None past the
    cap); ``sample`` the first present values.
    Past the cap: ``extremes`` (the least and greatest finite values, increasing, and their
    counts), ``n_finite``, and ``distinct`` (every present value, while none repeats; None
    once one does, or for a column no identifier rule could read). For a datetime column,
    ``timed`` holds a value with a time of day (if any) and ``calendar`` the distinct values
    of each calendar feature in order of first appearance.
    """

    n_present: int
    sample: np.ndarray
    values: np.ndarray | None = None
    counts: np.ndarray | None = None
    extremes: tuple | None = None
    n_finite: int = 0
    distinct: np.ndarray | None = None
    timed: np.ndarray | None = None
    calendar: dict = field(default_factory=dict)


def _is_datetime(dtype) -> bool:
    return getattr(dtype, "kind", "O") == "M" or isinstance(dtype, pd.DatetimeTZDtype)


def _distinct(values) -> np.ndarray:
    """Distinct non-missing values in order of first appearance, as an object array."""
    values = pd.Series(values, dtype=object)
    return np.asarray(pd.unique(values[values.notna()].to_numpy(dtype=object)), dtype=object)


def _summarize(series: pd.Series, cap: int | None, track: bool) -> ColumnSummary:
    """The summary of a column's values (``cap``: None for a column never capped; ``track``:
    keep the values of a column distinct past the cap)."""
    present = series.dropna()
    sample = present.iloc[:ROLE_SAMPLE].to_numpy(dtype=object)
    if _is_datetime(series.dtype):
        stamps = _as_datetimes(present, None)
        timed = (stamps != stamps.dt.normalize()).to_numpy()
        parts = calendar_features(stamps.rename("c"), CALENDAR_PARTS)
        calendar = {p: _distinct(parts[f"c.{p}"]) for p in CALENDAR_PARTS}
        first_timed = present.to_numpy(dtype=object)[timed][:1]
        return ColumnSummary(len(present), sample, timed=first_timed, calendar=calendar)
    codes, uniques = pd.factorize(present, sort=False)
    counts = np.bincount(codes, minlength=len(uniques)).astype(np.int64)
    summary = ColumnSummary(len(present), sample, _values(uniques), counts)
    return _past_cap(summary, track) if cap is not None and counts.size > cap else summary


def _values(uniques) -> np.ndarray:
    """Distinct values as a numpy array: numbers and booleans as they are (they merge fast),
    anything else as objects."""
    dtype = getattr(uniques, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        return np.asarray(uniques)
    return np.asarray(uniques, dtype=object)


def _past_cap(summary: ColumnSummary, track: bool) -> ColumnSummary:
    """A number column's summary past its cap: extremes, finite count, distinct values."""
    if summary.values is None or summary.counts is None:
        return summary
    x = summary.values.astype(np.float64)
    finite = np.isfinite(x)
    extremes = _extremes(x[finite], summary.counts[finite])  # distinct values
    every = track and bool(np.all(summary.counts == 1))
    return replace(
        summary,
        values=None,
        counts=None,
        extremes=extremes,
        n_finite=int(summary.counts[finite].sum()),
        distinct=summary.values if every else None,
    )


def _extremes(x: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The :data:`EXTREMES` least and greatest of the distinct values ``x`` and their counts,
    in increasing order."""
    if x.size > 2 * EXTREMES:  # a selection, not a sort of every value
        pick = np.argpartition(x, (EXTREMES - 1, x.size - EXTREMES))
        pick = np.concatenate([pick[:EXTREMES], pick[-EXTREMES:]])
        x, counts = x[pick], counts[pick]
    order = np.argsort(x)
    return x[order], counts[order]


def summarize(part: pd.DataFrame, capped: frozenset, cap: int, tracked: frozenset):
    """(rows, {column: ColumnSummary}) of one partition: the columns in ``capped`` keep at most
    ``cap`` distinct values, and those in ``tracked`` their values while all are distinct."""
    found = {}
    for col in part.columns:  # bounded by the number of surveyed columns
        found[col] = _summarize(part[col], cap if col in capped else None, col in tracked)
    return len(part), found


def merge(capped: frozenset, cap: int, tracked: frozenset, *parts):
    """Add up partitions' summaries (in the order of their rows)."""
    rows = sum(n for n, _ in parts)
    merged = {}
    for col in parts[0][1]:  # bounded by the number of surveyed columns
        pieces = [found[col] for _, found in parts]
        merged[col] = _merge_column(pieces, cap if col in capped else None, col in tracked)
    return rows, merged


def _merge_column(pieces: list, cap: int | None, track: bool) -> ColumnSummary:
    sample = np.concatenate([p.sample for p in pieces])[:ROLE_SAMPLE]
    n_present = sum(p.n_present for p in pieces)
    first = pieces[0]
    if first.calendar:
        timed = np.concatenate([p.timed for p in pieces])[:1]
        calendar = {
            part: _distinct(np.concatenate([p.calendar[part] for p in pieces]))
            for part in CALENDAR_PARTS
        }
        return ColumnSummary(n_present, sample, timed=timed, calendar=calendar)
    if all(p.values is not None for p in pieces):
        codes, uniques = pd.factorize(np.concatenate([p.values for p in pieces]), sort=False)
        weights = np.concatenate([p.counts for p in pieces])
        counts = np.bincount(codes, weights=weights, minlength=len(uniques)).astype(np.int64)
        summary = ColumnSummary(n_present, sample, _values(uniques), counts)
        return _past_cap(summary, track) if cap is not None and counts.size > cap else summary
    pieces = [_past_cap(p, track) for p in pieces]
    values, inverse = np.unique(
        np.concatenate([p.extremes[0] for p in pieces]), return_inverse=True
    )
    counts = np.bincount(inverse, weights=np.concatenate([p.extremes[1] for p in pieces]))
    extremes = _extremes(values, counts.astype(np.int64))
    distinct = None
    if all(p.distinct is not None for p in pieces):
        distinct = np.concatenate([p.distinct for p in pieces])
        if pd.unique(distinct).size != distinct.size:
            distinct = None
    return ColumnSummary(
        n_present,
        sample,
        extremes=extremes,
        n_finite=sum(p.n_finite for p in pieces),
        distinct=distinct,
    )


def _stand_in(summary: ColumnSummary, dtype, values: np.ndarray) -> pd.Series:
    """A column of the first values followed by ``values`` not among them, of ``dtype``."""
    seen = pd.unique(pd.Series(summary.sample, dtype=object))
    rest = values[~pd.Series(values, dtype=object).isin(seen).to_numpy()]
    column = pd.Series(np.concatenate([summary.sample, rest]), dtype=object)
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dtype):
        return column  # the rules read a categorical column as its values
    try:
        return column.astype(dtype)
    except (TypeError, ValueError):  # pragma: no cover - a dtype that objects do not take
        return column


def _codes(summary: ColumnSummary, kind: str) -> tuple:
    """The codes for a missing value of a number column, from its counts."""
    if kind not in "iuf":
        return ()
    if summary.values is None or summary.counts is None:
        assert summary.extremes is not None, "a summary past its cap keeps its extremes"
        values, counts = summary.extremes
        return codes_from_counts(values, counts, summary.n_finite)
    x = summary.values.astype(np.float64)
    finite = np.isfinite(x)
    order = np.argsort(x[finite])
    return codes_from_counts(x[finite][order], summary.counts[finite][order])


def survey_reading(
    name, dtype, summary: ColumnSummary, n_rows: int, limit: int, cap: int
) -> ColumnReading:
    """The :class:`ColumnReading` that :func:`read_column` gives on all rows of the column
    ``summary`` sums up (``limit``: the integer categories limit, as an int; ``cap``: the
    survey's cap)."""
    kind = getattr(dtype, "kind", "O")
    if isinstance(dtype, pd.CategoricalDtype):
        kind = "O"
    if _is_datetime(dtype):
        column = pd.Series(np.concatenate([summary.sample, summary.timed]), dtype=object)
        return read_column(column.astype(dtype), name, n_rows=n_rows)
    if summary.values is not None:
        column = _stand_in(summary, dtype, summary.values)
        if kind == "f" and summary.n_present < n_rows:
            column = pd.concat([column, pd.Series([np.nan])], ignore_index=True)  # its gaps
        return read_column(
            column, name, max_int_categories=limit, n_rows=n_rows, codes=_codes(summary, kind)
        )
    if summary.distinct is not None and summary.n_present == n_rows:
        column = _stand_in(summary, dtype, summary.distinct)  # every row, once each
        return read_column(column, name, max_int_categories=limit, n_rows=n_rows)
    # Past the cap, some value repeats or is missing, and the name is not a row index's (those
    # are never capped): no identifier, more distinct values than any integer limit.
    evidence = (
        f"integers with more than {cap:,} distinct values (over {limit:,})"
        if kind in "iu"
        else f"numbers ({dtype})"
    )
    return number_reading(name, "gaussian", evidence, _codes(summary, kind))


def survey_readings(dtypes: dict, read: frozenset, max_int_categories, rows: int, columns: dict):
    """({column: reading}, {calendar feature: distinct values}) of the columns in ``read``,
    from the survey's summaries ``columns`` of a table of ``rows`` rows and ``dtypes``."""
    limit = _int_limit(max_int_categories, rows)
    _, _, cap = _plan(dtypes, max_int_categories)
    readings, calendar = {}, {}
    for c, summary in columns.items():  # bounded by the table's width
        if c not in read:  # a column of a named family: its values only
            continue
        reading = survey_reading(c, dtypes[c], summary, rows, limit, cap)
        readings[c] = reading
        if reading.kind == "timestamp":
            calendar.update(calendar_values(reading, summary))
    return readings, calendar


def calendar_values(reading: ColumnReading, summary: ColumnSummary) -> dict:
    """{feature name: distinct values in order of first appearance} of a timestamp column's
    calendar features (the categories a fit on all rows numbers)."""
    if summary.calendar:
        return {f"{reading.column}.{p}": summary.calendar[p] for p in reading.parts}
    column = pd.Series(summary.values, name=str(reading.column))  # numbers stay numbers
    features = calendar_features(column, reading.parts, reading.date_format)
    return {name: _distinct(features[name]) for name in features.columns}


def survey_plan(meta: pd.DataFrame, max_int_categories) -> tuple[frozenset, frozenset, int]:
    """(capped, tracked, cap) for a survey of ``meta``'s columns: number columns are capped
    at ``cap`` distinct values (enough for the integer categories limit) unless named like a
    row index; integers and columns named like a code are tracked past it while distinct."""
    return _plan(dict(meta.dtypes.items()), max_int_categories)


def _plan(dtypes: dict, max_int_categories) -> tuple[frozenset, frozenset, int]:
    capped = frozenset(
        c
        for c, dtype in dtypes.items()
        if getattr(dtype, "kind", "O") in "iuf"
        and not isinstance(dtype, pd.CategoricalDtype)
        and not looks_like_index_name(c)
    )
    tracked = frozenset(c for c in capped if dtypes[c].kind in "iu" or looks_like_code_name(c))
    limit = max_int_categories
    cap = CAP if isinstance(limit, str) else max(CAP, int(limit) + 1)
    return capped, tracked, cap
