"""Numbers with coded missing values: a far value written with nines, or a negative code."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

#: At least this many repeats, and this share of the values, make a far value a missing code.
CODE_REPEATS, CODE_SHARE = 3, 0.001
#: How far outside the other values a code lies: its distance from the greatest of them is
#: more than this many times their range (UCI Adult's capital gains top-coded at 99999, 2.4
#: times the next greatest, are a real amount, not a code).
CODE_FAR = 2.0


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
    values, counts = np.unique(x[np.isfinite(x)], return_counts=True)
    return codes_from_counts(values, counts)


def codes_from_counts(values: np.ndarray, counts: np.ndarray, size: int | None = None):
    """:func:`coded_missing` of a number column given as its distinct finite values (in
    increasing order) and how often each occurs: the rule itself, which a survey of a table
    read in parts (:mod:`nbayes.dask`) applies to the counts it gathered.

    ``size`` is the number of finite values (default: ``counts.sum()``). Only a column's least
    and greatest values can be codes (a positive code lies above every other value, a negative
    one is the only negative value), so the few least and greatest values with their counts
    and the column's ``size`` give the same codes as all of them, when there are at least ten
    others.
    """
    size = int(counts.sum()) if size is None else int(size)
    if size < 2 * CODE_REPEATS:
        return ()
    repeated = values[(counts >= max(CODE_REPEATS, CODE_SHARE * size))]
    codes: list[float] = []
    for v in repeated[np.abs(repeated) >= 1]:  # few: repeated values that could be codes
        v = float(v)
        if not _is_code(v):
            continue
        kept = (values != v) & ~np.isin(values, codes)
        rest = values[kept]
        if int(counts[kept].sum()) < CODE_REPEATS:
            continue
        gap = CODE_FAR * float(rest.max() - rest.min())
        if v > 0 and v - float(rest.max()) > gap:
            codes.append(v)
        elif v < 0 and rest.min() >= 0 and (v <= -9 or rest.size >= 10):
            codes.append(v)
    return tuple(codes)


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
