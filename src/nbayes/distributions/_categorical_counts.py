"""Counting the codes of a batch per class: the compiled loops and their numpy equivalents,
laid out with room per feature for the batch's codes and trimmed to the categories seen."""

from __future__ import annotations

import numpy as np

from .._accel import kernels
from ._base import Stats
from ._categorical_layout import MISSING_CODE, offsets_of
from ._labels import Labels, SoftLabels

#: Room per feature the compiled counting loop tries first: most categorical features have
#: fewer categories, and then no pass for the batch's largest code is needed.
FIRST_STRIDE = 16


def _count_in_batch_layout(
    X: np.ndarray, n_classes: int, count, column_sizes, first_stride: int | None = None
) -> Stats:
    """Statistics from ``count(offsets, per_class, limit)``, which returns the (n_classes,
    per_class) counts with each feature's codes starting at its offset, or None where a code
    reaches ``limit``.

    Every feature gets room for the largest code of the whole batch (one fast pass, where
    per-column maxima cost several; or ``first_stride`` if every code fits it) and the room
    no row of positive weight uses is cut from the counts afterwards. A batch whose codes
    vary widely in range keeps exact per-column room, sized by ``column_sizes()``.
    """
    d = X.shape[1]
    room = max(4 * X.size, 2**16)  # count cells beyond this: per-column room instead
    if first_stride and n_classes * d * first_stride <= room:
        counts = count(np.arange(d, dtype=np.intp) * first_stride, d * first_stride, first_stride)
        if counts is not None:
            return _trimmed(counts, n_classes, d, first_stride)
    stride = max(int(X.max(initial=0)), 0) + 1
    if n_classes * d * stride > room:
        n_cat = column_sizes()
        return {
            "n_counts": count(offsets_of(n_cat), int(n_cat.sum()), np.iinfo(np.int64).max),
            "n_categories": n_cat.astype(np.int64),
        }
    return _trimmed(
        count(np.arange(d, dtype=np.intp) * stride, d * stride, stride), n_classes, d, stride
    )


def _trimmed(counts: np.ndarray, n_classes: int, d: int, stride: int) -> Stats:
    """Statistics from counts with room for ``stride`` codes per feature: each feature's
    categories run up to its largest observed code (at least one)."""
    counts = counts.reshape(n_classes, d, stride)
    seen = np.asarray(counts.any(axis=0))
    n_cat = np.where(seen.any(axis=1), stride - np.argmax(seen[:, ::-1], axis=1), 1)
    kept = np.arange(stride)[None, :] < n_cat[:, None]
    return {"n_counts": counts[:, kept], "n_categories": n_cat.astype(np.int64)}


def _compiled_counts(compiled, X: np.ndarray, labels: Labels, lowest: int) -> Stats:
    """:meth:`Categorical.accumulate` of dense codes by the compiled counting loop, in the
    layout of :func:`_count_in_batch_layout`. Missing cells (negative codes) and rows of zero
    weight count nowhere, as in the numpy code; a code below ``lowest`` makes every count
    NaN (see :meth:`Categorical.check_result`)."""
    codes = np.ascontiguousarray(X, dtype=np.int64)
    weights = np.ascontiguousarray(labels.weights)

    def count(offsets, per_class, limit):
        counts = np.zeros(labels.n_classes * per_class)
        n_below = compiled.count_codes(
            codes,
            np.ascontiguousarray(labels.codes),
            weights,
            offsets,
            per_class,
            counts,
            lowest,
            limit,
        )
        if n_below < 0:
            return None
        if n_below:
            counts.fill(np.nan)
        return counts.reshape(labels.n_classes, per_class)

    return _count_in_batch_layout(
        codes,
        labels.n_classes,
        count,
        lambda: np.maximum(compiled.column_max_codes(codes, weights), 0) + 1,
        first_stride=FIRST_STRIDE,
    )


def _count_ranges(
    codes: np.ndarray, labels: Labels, counted: np.ndarray, offsets: np.ndarray, per_class: int
) -> np.ndarray:
    """(n_classes, per_class) sums of the weights of the ``counted`` cells, the code ``c`` of
    column ``j`` at ``offsets[j] + c`` (see :meth:`Categorical.batch_delta`)."""
    compiled = kernels()
    if compiled is not None:
        out = np.zeros(labels.n_classes * per_class)
        compiled.count_codes(
            codes,
            np.ascontiguousarray(labels.codes),
            np.ascontiguousarray(labels.weights),
            np.ascontiguousarray(offsets, dtype=np.intp),
            per_class,
            out,
            MISSING_CODE,
            np.iinfo(np.int64).max,
        )
        return out.reshape(labels.n_classes, per_class)
    key = (labels.codes * per_class)[:, None] + offsets[None, :] + codes
    weights = np.broadcast_to(labels.weights[:, None], codes.shape)
    sums = np.bincount(
        key[counted], weights=weights[counted], minlength=labels.n_classes * per_class
    )
    return sums.reshape(labels.n_classes, per_class)


def _compiled_soft_counts(compiled, X: np.ndarray, labels: SoftLabels, lowest: int) -> Stats:
    """:func:`_compiled_counts` under soft labels: one pass over the codes adding each row's
    weight in every class (EM's M-step), where the numpy path builds a sparse one-hot of
    the codes and multiplies it by the weights."""
    codes = np.ascontiguousarray(X, dtype=np.int64)
    weights = labels.matrix  # (n, n_classes), read in place whatever its layout

    def count(offsets, per_class, limit):
        # Class-minor (a cell's classes side by side: one cache line per cell and row),
        # transposed to the class-major layout at the end.
        counts = np.zeros(per_class * labels.n_classes)
        n_below = compiled.soft_count_codes(codes, weights, offsets, counts, lowest, limit)
        if n_below < 0:
            return None
        if n_below:
            counts.fill(np.nan)
        return np.ascontiguousarray(counts.reshape(per_class, labels.n_classes).T)

    return _count_in_batch_layout(
        codes,
        labels.n_classes,
        count,
        lambda: np.maximum(compiled.column_max_codes(codes, labels.weights), 0) + 1,
        first_stride=FIRST_STRIDE,
    )


def _bincount_codes(
    X: np.ndarray, labels: Labels, offsets: np.ndarray, per_class: int
) -> np.ndarray:
    """Counts of each (class, feature, code) as float64 (n_classes, per_class), the feature's
    codes starting at ``offsets``: one bincount over keys built in place (two passes)."""
    idx = np.add(X, offsets, dtype=np.int64)
    idx += (labels.codes * per_class)[:, None]
    counts = np.bincount(idx.ravel(), minlength=labels.n_classes * per_class)
    return counts.reshape(labels.n_classes, per_class).astype(np.float64)
