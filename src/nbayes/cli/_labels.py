"""Class labels on the command line: their type, and matching a file's labels to a model's.

A CSV holds text, so ``nbayes train`` reads the target column as strings (``01`` keeps its
zero) and learns the classes as strings, in the order they appear. Once every class is known,
:func:`typed_classes` gives them the type the file gave them: ``0``/``1`` become the integers
0 and 1, ``0.5`` a float, ``True``/``False`` booleans -- as pandas would read them -- while
labels such as ``01`` or ``N/A`` stay strings. Integer classes then sort numerically (2 before
10), predictions come out as integers (JSON-lines and Parquet outputs hold numbers), and a
model file keeps them as integers.

When a file's labels are compared with a model's classes (``nbayes evaluate``),
:func:`written_label_codes` compares by value: ``1.0`` in one file is the class ``1``
learned from another.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)\Z")
#: The spellings of booleans that pandas' CSV reader recognises.
_BOOLEANS: dict[object, bool] = {
    "True": True,
    "False": False,
    "true": True,
    "false": False,
    "TRUE": True,
}
_BOOLEANS["FALSE"] = False


def typed_classes(labels: Sequence[str], strings: bool = False) -> np.ndarray:
    """Class labels learned as strings, in the type of the file (see the module docstring).

    Parameters
    ----------
    labels : sequence of str
        The distinct labels, as read.
    strings : bool
        The file itself typed the labels as strings (a JSON string, a Parquet string
        column): keep them so.

    Returns
    -------
    ndarray of int64, float64 or bool, or of object (str) when the labels are not all
    numbers (or all booleans) written one way each.

    Examples
    --------
    >>> typed_classes(["10", "2", "-1"]).tolist()
    [10, 2, -1]
    >>> typed_classes(["0.5", "1.0"]).tolist()
    [0.5, 1.0]
    >>> typed_classes(["01", "1"]).tolist()  # two spellings of 1: identifiers, not numbers
    ['01', '1']
    """
    labels = [str(v) for v in labels]  # one entry per class: bounded and small
    as_strings = np.asarray(labels, dtype=object)
    if strings or not labels:
        return as_strings
    if all(_INTEGER.match(v) for v in labels):
        values = [int(v) for v in labels]
        if len(set(values)) == len(values) and all(-(2**63) <= v < 2**63 for v in values):
            return np.asarray(values, dtype=np.int64)
        return as_strings
    if all(v in _BOOLEANS for v in labels):
        values = [_BOOLEANS[v] for v in labels]
        return np.asarray(values, dtype=bool) if len(set(values)) == len(values) else as_strings
    try:
        numbers = np.asarray([float(v) for v in labels], dtype=np.float64)
    except ValueError:
        return as_strings
    # Floats only when each value is written once and finite: "nan", "inf", "1.0" next to
    # "1.00" stay strings rather than merge or become unusable classes.
    if np.isfinite(numbers).all() and np.unique(numbers).size == numbers.size:
        return numbers
    return as_strings


def is_string_kind(series: pd.Series) -> bool:
    """The column holds strings (or mixed objects), not numbers or booleans."""
    return series.dtype.kind not in "biuf"


def written_label_codes(labels: pd.Series, classes: np.ndarray) -> np.ndarray:
    """Index of each label in ``classes``, compared by value; -1 for a label not there.

    Numeric classes match numbers however they are written (``1``, ``1.0``, ``"1.0"``);
    boolean classes match ``True``/``true``/``1`` and ``False``/``false``/``0``; string
    classes match their exact text. The comparison runs on the distinct labels only
    (``pd.factorize`` hashes the column once): a few per chunk, however long the chunk.
    """
    codes, distinct = pd.factorize(labels)
    found = _distinct_codes(pd.Series(distinct), np.asarray(classes))
    return np.where(codes >= 0, found[codes], -1)


def _distinct_codes(labels: pd.Series, classes: np.ndarray) -> np.ndarray:
    """:func:`written_label_codes` of a few distinct labels."""
    if classes.dtype.kind in "iuf":
        values = labels
        if labels.dtype.kind not in "iuf":
            values = pd.to_numeric(labels.astype(object), errors="coerce")
        return pd.Index(classes).get_indexer(np.asarray(values, dtype=np.float64))
    if classes.dtype.kind == "b":
        if labels.dtype.kind == "b":
            values = labels
        else:
            spelled = {**_BOOLEANS, "1": True, "0": False, 1: True, 0: False}
            values = labels.map(spelled, na_action="ignore")
        return pd.Index(classes.astype(object)).get_indexer(np.asarray(values, dtype=object))
    return pd.Index(classes.astype(str)).get_indexer(labels.astype(str).to_numpy(dtype=object))


def describe(classes: np.ndarray, limit: int = 8) -> str:
    """The classes for a message: ``[0, 1] (integers)``."""
    kind = {"i": "integers", "u": "integers", "f": "numbers", "b": "booleans"}
    shown = ", ".join(repr(v) for v in np.asarray(classes)[:limit].tolist())
    more = len(classes) - limit
    listing = f"[{shown}, ... ({more} more)]" if more > 0 else f"[{shown}]"
    return f"{listing} ({kind.get(np.asarray(classes).dtype.kind, 'strings')})"
