"""MixedNB's survey pass: distinct values of the columns whose categories must be known
before any row is counted (so that category codes come out as ``fit`` on all rows makes them).

The functions run on Dask workers (module-level, picklable); :meth:`MixedNB.survey_step`
describes the passes with them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Distinct values kept per integer column in the survey; more cannot make it categorical
#: under any max_int_categories below this (the "auto" limit reaches it at 4e9 rows).
SURVEY_CAP = 2**16


def survey_columns(meta: pd.DataFrame) -> tuple[list, frozenset]:
    """Columns of a table whose distinct values the first pass collects (every column that
    is not a float, bool, complex or date), and among them the integer columns, whose count
    of distinct values decides their family and which are capped."""
    kinds = {c: getattr(meta[c].dtype, "kind", "O") for c in meta.columns}
    is_cat = {c: isinstance(meta[c].dtype, pd.CategoricalDtype) for c in meta.columns}
    surveyed = [c for c in meta.columns if kinds[c] not in "fcbmM" or is_cat[c]]
    capped = frozenset(c for c in surveyed if kinds[c] in "iu" and not is_cat[c])
    return surveyed, capped


def _distinct(values: pd.Series) -> np.ndarray:
    """Distinct non-missing values in order of first appearance, as an object array."""
    values = values[values.notna()]
    return np.asarray(pd.unique(values.to_numpy(dtype=object)), dtype=object)


def survey_partition(part: pd.DataFrame, capped: frozenset, cap: int) -> tuple[int, dict]:
    """(rows, {column: distinct values, or None past the cap}) of one partition."""
    found = {}
    for col in part.columns:  # bounded by the number of surveyed columns
        values = _distinct(part[col])
        found[col] = None if col in capped and values.size > cap else values
    return len(part), found


def merge_surveys(capped: frozenset, cap: int, *parts):
    """Add row counts and unite distinct values, keeping the order of first appearance."""
    rows = sum(n for n, _ in parts)
    merged: dict = {}
    for col in parts[0][1]:  # bounded by the number of surveyed columns
        pieces = [found[col] for _, found in parts]
        if any(v is None for v in pieces):
            merged[col] = None
            continue
        values = np.asarray(pd.unique(np.concatenate(pieces)), dtype=object)
        merged[col] = None if col in capped and values.size > cap else values
    return rows, merged


def first_pass(read, previous, summary):
    """The first pass's (rows, column summaries) as (rows, column summaries, values found
    by later passes, ``read(rows, column summaries)``: the columns' readings, read once)."""
    rows, columns = summary
    return rows, columns, {}, read(rows, columns)


def absorb_values(previous, summary):
    """The summary so far (None when no first pass was needed) with the values a later,
    narrow pass found."""
    rows, columns, found, readings = previous or (summary[0], {}, {}, ({}, {}))
    return rows, columns, {**found, **summary[1]}, readings


def learn_values(vocab, values: list, missing_as_category: bool) -> None:
    """Number the surveyed ``values`` of each column of a vocabulary's group (one object
    array per column, in order of first appearance) as a fit on all rows would: one learning
    batch holding every value (padding cells are missing, which learning skips)."""
    grid = np.full((max(1, *(v.size for v in values)), len(values)), None, dtype=object)
    for j, v in enumerate(values):  # bounded by the group's width
        grid[: v.size, j] = v
    vocab.encode(grid, True, missing_as_category)
