"""Class labels, in one place: checked as targets, sorted into classes, coded against them,
coded as batches bring them, and typed from text.

- :func:`check_labels` and :func:`check_targets` refuse what no model can learn from: labels
  that do not match the rows, a missing label, continuous targets.
- :func:`fit_classes` sorts the distinct labels of one array into classes; :func:`label_codes`
  gives every label its index in given classes; :class:`ClassCodes` numbers labels as a
  stream of batches brings them and sorts them once, at the end (the training driver).
- The command line reads labels as text: :func:`typed_classes` gives the classes the type the
  file gave them (``0``/``1`` become the integers 0 and 1, ``0.5`` a float, ``True``/``False``
  booleans, as pandas would read them, while ``01`` or ``N/A`` stay strings), and
  :func:`written_label_codes` matches a file's labels to a model's classes by value (``1.0``
  in one file is the class ``1`` learned from another).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from ._validation import row_offset, show
from .exceptions import DataError, ParameterError, UnknownLabelError


def check_labels(y, n_rows: int) -> np.ndarray:
    """``y`` as a 1-d array of one label per row; a DataError when the counts differ.

    A column vector is flattened with scikit-learn's warning. A list holding a missing label
    stays objects (numpy would turn a NaN among strings into the text "nan", a class of its
    own), for :func:`check_targets` to name the row.
    """
    if isinstance(y, (list, tuple)):
        raw = np.array(y, dtype=object)
        if raw.ndim == 1 and pd.isna(raw).any():
            y = raw
    y = column_or_1d(y, warn=True)
    if y.shape[0] != n_rows:
        raise DataError(f"X has {n_rows} rows but y has {y.shape[0]} labels; they must match.")
    return y


def check_targets(y: np.ndarray, batch: bool = False, declared: bool = False) -> None:
    """Refuse a missing label (naming its row) and targets that are not classes
    (scikit-learn's check: continuous values, several outputs). ``batch``: ``y`` is one
    batch of a stream (the training driver), checked on its distinct labels. ``declared``:
    the caller declared the classes (``partial_fit``), which say what a class is; only a
    missing label is refused."""
    if y.dtype.kind in "Of":
        missing = pd.isna(y)
        if missing.any():
            row = int(np.argmax(missing))
            raise DataError(
                f"The label at row {row + row_offset()} is missing ({show(y[row])}): every "
                "row a model learns from needs a label. Drop the rows without one, or train "
                "with nbayes.SemiSupervisedNB, which learns from unlabeled rows too (marked "
                "-1, None or NaN)."
            )
    if declared:
        return
    if batch:
        if y.dtype.kind in "iubUS":
            return  # integers, booleans and strings are always classes
        # Whether labels are classes depends on their distinct values only: checked on those
        # (one hash of y, not scikit-learn's sort of every label), each twice, so that the
        # share of distinct labels in a small batch raises no "regression problem" warning.
        distinct = pd.unique(y)
        y = np.concatenate([distinct, distinct])
    check_classification_targets(y)


def fit_classes(y: np.ndarray) -> np.ndarray:
    """The sorted distinct labels of ``y``, after scikit-learn's check that they are classes.

    Integer labels are always valid classes; when their range is small (the usual 0..K-1),
    a bincount finds them in one pass, where ``np.unique`` and the check hash them three
    times.
    """
    if y.dtype.kind in "iu" and y.size:
        low, high = int(y.min()), int(y.max())
        if high - low <= 2 * y.size:
            wide = y if y.dtype.itemsize == 8 else y.astype(np.int64)
            # Exact: the difference fits even where the subtraction wraps around.
            present = np.bincount((wide - wide.dtype.type(low)).astype(np.intp)) > 0
            return (np.flatnonzero(present).astype(wide.dtype) + wide.dtype.type(low)).astype(
                y.dtype
            )
    check_targets(y)
    return np.unique(y)


def label_codes(y, classes) -> tuple[np.ndarray, int | None]:
    """Index of each label in ``classes``, and the first row whose label is not there (or None)."""
    classes, y = np.asarray(classes), np.asarray(y)
    if classes.dtype.kind in "US" and y.dtype.kind in "US" and classes.size:
        # Binary search in the sorted classes: pandas would build an index of Arrow strings,
        # which for a few classes costs more than the search (partial_fit does this on every
        # batch). Numbers and objects go to pandas' hash table, faster for long y.
        order = np.argsort(classes, kind="stable")
        ranked = classes[order]
        pos = np.minimum(np.searchsorted(ranked, y), classes.size - 1)
        codes = np.where(ranked[pos] == y, order[pos], -1)
    elif classes.dtype.kind in "iu" and y.dtype.kind in "iu" and classes.size:
        codes = _integer_codes(y, classes)
    else:
        codes = pd.Index(classes).get_indexer(y)
    unknown = np.flatnonzero(codes < 0)
    return codes, (int(unknown[0]) if unknown.size else None)


def declare_classes(known: np.ndarray | None, classes) -> np.ndarray:
    """The classes a model has after a ``partial_fit`` batch: ``classes`` sorted on the
    first call (``known`` None), else ``known`` followed by the labels of ``classes`` not
    among them, sorted (the classes already learned keep their codes).

    Examples
    --------
    >>> declare_classes(None, ["b", "a"]).tolist()
    ['a', 'b']
    >>> declare_classes(np.array(["a", "b"]), ["c", "a", "b"]).tolist()
    ['a', 'b', 'c']
    """
    if known is None:
        if classes is None:
            raise ParameterError(
                "classes must be passed on the first call to partial_fit: the full list of "
                "labels, e.g. partial_fit(X, y, classes=np.unique(y_all))."
            )
        classes = np.unique(np.asarray(classes))
        if classes.size == 0:
            raise ParameterError("classes must not be empty.")
        return classes
    if classes is None:
        return known
    classes = np.asarray(classes)
    codes, _ = label_codes(known, classes)
    if (codes < 0).any():
        missing = known[codes < 0]
        raise ParameterError(
            f"classes={classes.tolist()!r} drops the known class(es) {missing.tolist()!r}; "
            "a later partial_fit may only add classes. Pass every earlier class too."
        )
    old = set(known.tolist())
    new = np.asarray([c for c in classes if c not in old], dtype=object)
    if new.size == 0:
        return known
    return np.concatenate([known.astype(object), np.sort(new)]).astype(
        np.result_type(known, classes) if known.dtype != object else object
    )


def declared_codes(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Index of each label of ``y`` in the declared ``classes``; an UnknownLabelError names
    the first label that is not there."""
    codes, row = label_codes(y, classes)
    if row is not None:
        raise UnknownLabelError(
            f"Label {show(y[row])} at row {row} is not among classes "
            f"{classes.tolist()!r}. Pass the full label list in `classes` "
            "(a later partial_fit may enlarge it)."
        )
    return codes


def _integer_codes(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """:func:`label_codes` of integer labels: a lookup table over the classes' range when
    every label falls inside it (two fast passes to check), else pandas' hash table."""
    low, high = int(classes.min()), int(classes.max())
    if (
        y.size
        and high - low <= 2 * y.size
        and high < 2**63
        and int(y.min()) >= low
        and int(y.max()) <= high
    ):
        table = np.full(high - low + 1, -1, dtype=np.intp)
        table[classes.astype(np.int64) - low] = np.arange(classes.size)
        # Inside [low, high] the difference is exact in int64 whatever y's own width.
        return table.take(y.astype(np.int64, copy=False) - low)
    return pd.Index(classes).get_indexer(y)


class ClassCodes:
    """Class labels as batches bring them: each new label gets the next code (append-only,
    so statistics already accumulated keep their rows); :meth:`order` types and sorts them
    once, at the end. The labels keep the type the batches gave them.

    Parameters
    ----------
    classes : array-like, optional
        Labels known before the first batch (``fit`` knows them all), coded in their order.

    Examples
    --------
    >>> codes = ClassCodes()
    >>> codes.add(np.array(["10", "2", "10"], dtype=object)).tolist()
    [0, 1, 0]
    >>> classes, positions = codes.order(lambda labels: labels.astype(int))
    >>> classes.tolist(), positions.tolist()
    ([2, 10], [1, 0])
    """

    def __init__(self, classes=None) -> None:
        labels = np.asarray([] if classes is None else classes)
        self._labels = labels  # in code order, typed as the batches gave them
        self._typed = classes is not None
        self._positions = np.zeros(0, dtype=np.intp)  # set by order()

    def __len__(self) -> int:
        return self._labels.size

    def check(self, y: np.ndarray) -> None:
        """Refuse labels that cannot be learned from (:func:`check_targets`): the training
        driver asks before :meth:`add`, as codes that allow unlabeled rows decide."""
        check_targets(y, batch=True)

    def add(self, y: np.ndarray) -> np.ndarray:
        """The code of every label of ``y``, new labels numbered after the known ones."""
        if not self._typed:  # the first batch types the labels
            self._labels, self._typed = self._labels.astype(y.dtype), True
        if self._labels.size:
            codes, row = label_codes(y, self._labels)
            if row is None:
                return codes
            y_new = y[codes < 0]
        else:
            y_new = y
        new = pd.unique(y_new)  # bounded by the number of classes
        try:
            dtype = np.result_type(self._labels, new)
        except TypeError:  # labels of types numpy does not combine: kept as objects
            dtype = np.dtype(object)
        self._labels = np.concatenate([self._labels.astype(dtype), np.asarray(new, dtype)])
        return label_codes(y, self._labels)[0]

    def order(self, typed: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple:
        """(the classes typed by ``typed`` and sorted, the sorted place of each code).

        ``typed`` maps the labels, in code order, to their final type (the command line reads
        labels as text and types them once every class is known); None keeps them as they
        are."""
        labels = self._labels
        if typed is not None:
            labels = typed(labels.astype(object))
        order = np.argsort(labels, kind="stable")
        self._positions = np.argsort(order, kind="stable")
        return labels[order], self._positions

    def final_codes(self, y: np.ndarray) -> np.ndarray:
        """After :meth:`order`: the index in the sorted classes of every label of ``y`` (as
        the batches gave them), -1 for a label never seen."""
        codes = label_codes(y, self._labels)[0]
        return np.where(codes >= 0, self._positions[codes], -1)


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
