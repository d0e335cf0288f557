"""Small helpers that locate bad input and phrase errors in the house template."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from types import FrameType

import numpy as np
import scipy.sparse as sp

from .exceptions import DataError

_PACKAGE = os.path.dirname(os.path.abspath(__file__))

#: Words that mark a missing cell in some files (pandas already reads NA, NULL, n/a, ...).
MISSING_WORDS = frozenset({"missing", "unknown", "n.a.", "none", "na", "null"})

#: Values that often mark a missing cell or label, compared stripped and in lower case.
MISSING_MARKERS = frozenset({"?", "-", "--", ".", "*"}) | MISSING_WORDS


def is_missing_marker(value) -> bool:
    """Whether ``value`` is a string that often marks a missing cell or label ('?', ...)."""
    return isinstance(value, str) and value.strip().lower() in MISSING_MARKERS


#: A value that makes up this share of a column (or of the labels) is a real category: a
#: hint never calls it a missing-value marker ('none' as a religion, 'K' as a school grade).
FREQUENT_CATEGORY = 0.10


def likely_missing_marker(value, share: float) -> bool:
    """Whether a hint may call ``value``, which makes up ``share`` of its column or labels,
    a missing-value marker: a sign alone ('?', '-', '.', '*') at any share, a word that often
    marks one ('unknown', 'none', ...) only when it is not a frequent category (under
    :data:`FREQUENT_CATEGORY`)."""
    if not is_missing_marker(value):
        return False
    return not any(ch.isalnum() for ch in value) or share < FREQUENT_CATEGORY


def spelling_key(label: str) -> str:
    """``label`` with its spaces and letter case evened out: labels that share a key
    ('spam', 'spam ', 'Spam') are most likely one class written differently."""
    return " ".join(label.split()).casefold()


def user_stacklevel() -> int:
    """``stacklevel`` for a warning raised by the caller of this function, pointing at the
    first frame outside nbayes: the user's own line, whichever entry point (an estimator, a
    wrapper such as SemiSupervisedNB or GridSearchCV, the engine) led there."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


#: Row number of the first row of the batch being checked, so errors name rows of the user's
#: data even when the engine validates it in chunks.
_ROW_OFFSET: ContextVar[int] = ContextVar("row_offset", default=0)


@contextmanager
def rows_from(offset: int):
    """Report rows in error messages shifted by ``offset`` (the chunk's first row).

    Offsets add up, so a row chunk inside a Dask partition names rows of the whole data.
    """
    token = _ROW_OFFSET.set(_ROW_OFFSET.get() + offset)
    try:
        yield
    finally:
        _ROW_OFFSET.reset(token)


def show(value) -> str:
    """repr of a value as the user typed it: numpy scalars shown as plain Python values."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def row_offset() -> int:
    """Row number, in the user's data, of the first row of the batch being checked."""
    return _ROW_OFFSET.get()


def column_label(j: int, feature_names: Sequence[str] | None = None) -> str:
    """Name column ``j`` for an error message: ``'clicks' (index 3)`` or ``index 3``."""
    if feature_names is not None and j < len(feature_names):
        name = feature_names[j]
        if isinstance(name, tuple):  # (label, position in the user's table), from MixedNB
            name, j = name
        return f"column {name!r} (index {j})"
    return f"column index {j}"


def first_true(mask: np.ndarray | sp.spmatrix) -> tuple[int, int] | None:
    """Return (row, column) of the first True cell in row-major order, or None."""
    if sp.issparse(mask):
        coo = sp.coo_matrix(mask)
        hit = coo.data.astype(bool)
        if not hit.any():
            return None
        rows, cols = coo.row[hit], coo.col[hit]
        k = np.lexsort((cols, rows))[0]
        return int(rows[k]), int(cols[k])
    flat = np.flatnonzero(mask)
    if flat.size == 0:
        return None
    row, col = divmod(int(flat[0]), mask.shape[1])
    return row, col


def raise_at(
    mask,
    X,
    what: str,
    fix: str,
    family: str,
    feature_names: Sequence[str] | None = None,
    row_offset: int | None = None,
) -> None:
    """Raise a DataError naming the first cell where ``mask`` is True; no-op if none is."""
    where = first_true(mask)
    if where is None:
        return
    row, col = where
    row_offset = _ROW_OFFSET.get() if row_offset is None else row_offset
    value = X[row, col]
    raise DataError(
        f"{column_label(col, feature_names).capitalize()} must hold {what} for {family} features; "
        f"got {show(value)} at row {row + row_offset}. {fix}"
    )


def values_of(X) -> np.ndarray:
    """The stored values of a dense or sparse matrix (for cheap whole-array checks)."""
    return X.data if sp.issparse(X) else np.asarray(X)


def check_finite(X, family: str, feature_names=None, allow_nan: bool = False) -> None:
    """Reject inf everywhere, and NaN unless missing values are allowed."""
    vals = values_of(X)
    if vals.dtype.kind not in "fc":
        return
    # NaN and inf propagate through a sum, so a finite sum proves every value finite in one
    # read pass without a temporary; otherwise (or on overflow) look cell by cell.
    with np.errstate(over="ignore"):  # huge finite values: then look cell by cell
        if not allow_nan and np.isfinite(vals.sum()):
            return
    bad = np.isinf(vals) if allow_nan else ~np.isfinite(vals)
    if not bad.any():
        return
    if sp.issparse(X):
        mask = X.copy()
        mask.data = bad
    else:
        mask = bad
    if allow_nan:
        raise_at(
            mask,
            X,
            "finite values or NaN (missing)",
            "Replace infinite values.",
            family,
            feature_names,
        )
    # The advice fits the value named (the first bad one, as raise_at finds it).
    infinite = bool(np.isinf(vals[bad][0]))  # row-major, as raise_at looks (CSR too)
    raise_at(
        mask,
        X,
        "finite values (no NaN or inf)",
        "Replace infinite values (missing='ignore' skips NaN, not inf)."
        if infinite
        else "Impute or drop missing values, or pass missing='ignore' to skip them "
        "(the factor is marginalised, which is exact under the naive assumption).",
        family,
        feature_names,
    )


def check_finite_from(result, X, family: str, feature_names=None, allow_nan: bool = False) -> None:
    """:func:`check_finite` for X, judged first from what was computed from it.

    NaN and inf in X propagate into every sum and score made from it, so finite ``result``
    values (an array, or a dict of arrays: a few numbers per class) prove X finite, and X is
    scanned only otherwise, to name the bad cell. Results that are infinite for another
    reason (an overflow, a probability-zero score) cost that scan and nothing else.
    """
    values = result.values() if isinstance(result, dict) else (result,)
    with np.errstate(invalid="ignore", over="ignore"):
        if all(np.isfinite(np.sum(v)) for v in values):
            return
    check_finite(X, family, feature_names, allow_nan)


def check_sample_weight(sample_weight, n_samples: int, allow_all_zero: bool = False) -> np.ndarray:
    """Return float64 weights of shape (n_samples,); reject negative or non-finite ones.

    All-zero weights are rejected too (nothing to learn from) unless ``allow_all_zero``: one
    Dask partition may legitimately hold only zero-weight rows.
    """
    if sample_weight is None:
        return np.ones(n_samples)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(n_samples, float(w))
    if w.shape != (n_samples,):
        raise DataError(
            f"sample_weight must have one value per row ({n_samples}); got shape {w.shape}."
        )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"sample_weight must be finite and non-negative; got {show(w[row])} at row "
            f"{row + row_offset()}. Use 0 to drop a row."
        )
    if n_samples and not w.any() and not allow_all_zero:
        raise DataError(
            "sample_weight is zero for every row: there is nothing to learn from. "
            "Give at least one row a positive weight."
        )
    return w
