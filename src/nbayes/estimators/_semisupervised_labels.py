"""SemiSupervisedNB's labels and batches: which rows are unlabeled (-1, None, NaN), the labels
of a survey pass, the class codes of a batch, and the (X, y[, sample_weight]) chunks.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.utils.validation import column_or_1d

from .._labels import label_codes
from .._training import ClassCodes
from .._validation import likely_missing_marker, row_offset, show, user_stacklevel
from ..exceptions import DataError
from ._base import check_sample_weight

#: The label that marks an unlabeled row, as in scikit-learn's semi-supervised estimators
#: (None and NaN mark one too, for object and float labels).
UNLABELED = -1


def unlabeled_mask(y: np.ndarray) -> np.ndarray:
    """Which labels mark an unlabeled row: -1, and None or NaN for object / float labels.

    Examples
    --------
    >>> import numpy as np
    >>> unlabeled_mask(np.array(["ham", None, "spam"], dtype=object)).tolist()
    [False, True, False]
    >>> unlabeled_mask(np.array([0, -1, 1])).tolist()
    [False, True, False]
    """
    y = np.asarray(y)
    if y.dtype.kind in "iu":
        return y == UNLABELED
    if y.dtype.kind == "f":
        return np.isnan(y) | (y == UNLABELED)
    if y.dtype.kind == "O":
        missing = np.asarray(pd.isna(y), dtype=bool)
        # Elementwise: a string is never equal to -1, so no string label is taken as one.
        return missing | np.array([v is not None and _is_minus_one(v) for v in y.tolist()], bool)
    return np.zeros(y.shape, dtype=bool)


def _is_minus_one(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool) and value == UNLABELED


# -- labels and batches ---------------------------------------------------------------------
def _unpack(batch) -> tuple:
    if not isinstance(batch, tuple) or len(batch) not in (2, 3):
        raise DataError(
            f"Each chunk must be a tuple (X, y) or (X, y, sample_weight); got "
            f"{type(batch).__name__}{'' if not isinstance(batch, tuple) else f' of {len(batch)}'}."
        )
    return batch if len(batch) == 3 else (*batch, None)


def _n_rows(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _warn_of_marker_labels(y) -> None:
    """Labels with no unlabeled row, but a class such as '?' that often marks a missing
    label: EM would run on no unlabeled rows and learn a class '?' without a word."""
    y = _as_labels(y)
    if y.dtype.kind not in "OUS" or unlabeled_mask(y).any():
        return
    values, counts = np.unique(y.astype(str), return_counts=True)
    for value, n in zip(values.tolist(), counts.tolist()):
        if likely_missing_marker(value, n / y.shape[0]):  # not a frequent word class
            warnings.warn(
                f"No row of y is unlabeled (-1, None or NaN), but the class {value!r} holds "
                f"{n:,} of {y.shape[0]:,} rows and often marks a missing label; it is learned "
                f"as a class. If those rows are unlabeled, mark them: "
                f"y.replace({value!r}, None).",
                UserWarning,
                stacklevel=user_stacklevel(),
            )


def _as_labels(y) -> np.ndarray:
    return column_or_1d(y, warn=True)


def _labeled(y) -> np.ndarray:
    """The labels of the labeled rows, in their natural dtype: object labels that were
    object only to hold None (``[0, None, 1]``) become numbers again."""
    y = _as_labels(y)
    kept = y[~unlabeled_mask(y)]
    return np.asarray(kept.tolist()) if kept.dtype.kind == "O" and kept.size else kept


def survey_labels(y, sample_weight, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels and weights for a survey pass that needs them (supervised bin edges): the
    labeled rows as they are, the unlabeled ones with weight zero (and any class's label)."""
    y = _as_labels(y)
    unlabeled = unlabeled_mask(y)
    weights = check_sample_weight(sample_weight, y.shape[0], allow_all_zero=True)
    filled = np.where(unlabeled, classes[0], y)
    if filled.dtype.kind == "O" and filled.size:
        filled = np.asarray(filled.tolist())
    return filled, np.where(unlabeled, 0.0, weights)


def survey_unlabeled(summarize, classes: np.ndarray, part, y, sample_weight):
    """``summarize`` of a survey pass that needs labels, over rows some of which are
    unlabeled (see :func:`survey_labels`); module-level, so that Dask ships it."""
    return summarize(part, *survey_labels(y, sample_weight, classes))


def encode_labels(y, classes: np.ndarray, offset: int) -> np.ndarray:
    """Class index of each row, -1 for an unlabeled one; an unknown label is an error that
    names its row (counted from ``offset``)."""
    y = _as_labels(y)
    unlabeled = unlabeled_mask(y)
    codes = np.full(y.shape[0], -1, dtype=np.intp)
    if (~unlabeled).any():
        found, row = label_codes(y[~unlabeled], classes)
        if row is not None:
            where = int(np.flatnonzero(~unlabeled)[row])
            raise DataError(
                f"Label {show(y[where])} at row {offset + where} is not among classes "
                f"{classes.tolist()!r}. Pass every class in `classes`, or mark the row "
                "unlabeled with -1 / None / NaN."
            )
        codes[~unlabeled] = found
    return codes


class KnownClasses(ClassCodes):
    """The class codes of EM's passes, for the training driver (:func:`nbayes._training.train`,
    as :class:`~nbayes._training.ClassCodes` codes the labels of a fit): the place of each
    label among classes known before the first pass, -1 for an unlabeled row. The first
    :meth:`order` gives the classes their final type and sorts them, once; the codes of the
    passes after it are the sorted places.

    Examples
    --------
    >>> import numpy as np
    >>> codes = KnownClasses(np.array(["10", "2"]))
    >>> codes.add(np.array(["2", None, "10"], dtype=object)).tolist()
    [1, -1, 0]
    >>> classes, positions = codes.order(lambda labels: labels.astype(int))
    >>> classes.tolist(), positions.tolist()
    ([2, 10], [1, 0])
    >>> codes.add(np.array(["2", None, "10"], dtype=object)).tolist()
    [0, -1, 1]
    """

    def __init__(self, classes: np.ndarray) -> None:
        self.classes = classes  # as the data gives them, sorted
        self._ordered: tuple | None = None  # (final classes, sorted place of each class)

    def __len__(self) -> int:
        return len(self.classes)

    def check(self, y: np.ndarray) -> None:
        """Unlabeled rows are EM's to learn from, and :meth:`add` refuses a label outside the
        classes (naming its row): nothing to refuse before."""

    def add(self, y: np.ndarray) -> np.ndarray:
        """The code of every label of ``y`` (-1: unlabeled); a label outside the classes is
        an error naming its row."""
        codes = encode_labels(y, self.classes, row_offset())
        if self._ordered is None:
            return codes
        return np.where(codes >= 0, self._ordered[1][np.maximum(codes, 0)], -1)

    def order(self, typed=None) -> tuple:
        """(the classes typed by ``typed`` and sorted, the sorted place of each code).
        Typed and sorted on the first call; after it the codes are the sorted places, and
        ``typed`` is not applied again."""
        if self._ordered is not None:
            return self._ordered[0], np.arange(len(self.classes))
        labels = self.classes
        if typed is not None:
            labels = typed(np.asarray(labels, dtype=object))
        order = np.argsort(labels, kind="stable")
        self._ordered = (labels[order], np.argsort(order, kind="stable"))
        return self._ordered

    def final_codes(self, y: np.ndarray) -> np.ndarray:
        """After :meth:`order`: the index of every label of ``y`` in the final classes, -1
        for an unlabeled row."""
        return self.add(y)
