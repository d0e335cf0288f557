"""The class labels that statistics are counted over: one class code and weight per row
(:class:`Labels`), or a weight per row and class (:class:`SoftLabels`, EM's posteriors),
and the per-class sums of a batch over them (:func:`class_sums`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .._accel import kernels
from ._arrays import _compiled_sparse, compressed_view


class Labels:
    """Class codes and sample weights of one batch.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Integer class index in ``[0, n_classes)`` for each row.
    weights : ndarray of shape (n_samples,)
        Non-negative sample weights (float64).
    n_classes : int
        Number of classes K.
    """

    def __init__(self, codes: np.ndarray, weights: np.ndarray, n_classes: int):
        self.codes = np.asarray(codes, dtype=np.intp)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.n_classes = int(n_classes)

    def __len__(self) -> int:
        return self.codes.shape[0]

    def __getitem__(self, rows: slice) -> Labels:
        return Labels(self.codes[rows], self.weights[rows], self.n_classes)

    @cached_property
    def onehot(self) -> np.ndarray:
        """Dense (n_samples, n_classes) one-hot matrix scaled by the weights (Yw)."""
        Y = np.zeros((len(self), self.n_classes))
        Y[np.arange(len(self)), self.codes] = self.weights
        return Y

    @cached_property
    def onehot_t(self) -> sp.csc_matrix:
        """Yw.T, the transposed :attr:`onehot`, as a sparse (n_classes, n_samples) matrix with
        one stored value per column. Built over the codes without scipy's checks and copies,
        which cost more than the product on a chunk of a few thousand rows."""
        n = len(self)
        return compressed_view(
            sp.csc_matrix,
            self.weights,
            self.codes,
            np.arange(n + 1, dtype=self.codes.dtype),
            (self.n_classes, n),
        )

    @cached_property
    def class_weight(self) -> np.ndarray:
        """Total weight per class, shape (n_classes,)."""
        return np.bincount(self.codes, weights=self.weights, minlength=self.n_classes)


class SoftLabels(Labels):
    """Fractional class memberships of one batch: row ``i`` counts as ``weights[i, k]`` rows
    of class ``k`` (the E-step of EM, :class:`nbayes.SemiSupervisedNB`).

    A row spread over several classes is counted once per class with a fraction of its weight,
    without copying the row: the per-class sums are one product ``W.T @ X`` with the dense
    (n_samples, n_classes) weight matrix where a hard label has its one-hot matrix. Families
    whose statistics are such products (``soft_labels = True``) take these labels directly;
    the others are given one hard-labelled pass per class (:func:`accumulate_by_class`).

    Parameters
    ----------
    weights : ndarray of shape (n_samples, n_classes)
        Non-negative weight of each row in each class (the responsibilities times the row's
        own weight).

    Examples
    --------
    >>> import numpy as np
    >>> soft = SoftLabels(np.array([[1.0, 0.0], [0.25, 0.75]]))
    >>> soft.class_weight.tolist(), soft.weights.tolist()
    ([1.25, 0.75], [1.0, 1.0])
    """

    def __init__(self, weights: np.ndarray):
        matrix = np.asarray(weights, dtype=np.float64)
        if matrix.ndim != 2:
            raise ValueError(f"soft label weights must be 2-d; got shape {matrix.shape}.")
        self.matrix = matrix
        self.n_classes = matrix.shape[1]
        # A row's total weight: what zero-weight and overflow checks look at. A product
        # with ones: numpy's sum over the short class axis of many rows is several times
        # slower (EM's E-step makes these labels for every row on every iteration).
        self.weights = matrix @ np.ones(self.n_classes)

    # Soft labels have no code per row: a counter that reads them is a bug, so it fails.
    @property
    def codes(self) -> np.ndarray:  # type: ignore[override]
        raise TypeError(
            "SoftLabels have no class code per row; count them with accumulate_by_class."
        )

    def __len__(self) -> int:
        return self.matrix.shape[0]

    def __getitem__(self, rows: slice) -> SoftLabels:
        part = SoftLabels.__new__(SoftLabels)
        part.matrix, part.n_classes = self.matrix[rows], self.n_classes
        part.weights = self.weights[rows]  # already summed
        return part

    @property
    def onehot(self) -> np.ndarray:
        return self.matrix

    @property
    def onehot_t(self) -> np.ndarray:
        return self.matrix.T

    @cached_property
    def class_weight(self) -> np.ndarray:
        return np.ones(self.matrix.shape[0]) @ self.matrix  # as ``weights``: not sum(axis=0)

    def by_class(self) -> Iterator[Labels]:
        """One hard-labelled :class:`Labels` per class, all rows in class ``k`` with their
        weight in ``k`` (zero elsewhere): ``n_classes`` passes that add up to these labels."""
        n = len(self)
        for k in range(self.n_classes):  # bounded by the number of classes
            yield Labels(np.full(n, k, dtype=np.intp), self.matrix[:, k], self.n_classes)


def accumulate_by_class(accumulate, merge, X, labels: Labels):
    """``accumulate(X, labels)``, for counters that need a class code per row: soft labels
    become one hard-labelled pass per class, merged (each pass reads X without copying it)."""
    if not isinstance(labels, SoftLabels):
        return accumulate(X, labels)
    out = None
    for hard in labels.by_class():
        stats = accumulate(X, hard)
        out = stats if out is None else merge(out, stats)
    return out


def class_sums(X, labels: Labels) -> np.ndarray:
    """Per-class weighted column sums ``Yw.T @ X`` as a dense float64 (n_classes, n_features).

    The sparse one-hot product touches each stored value once whatever the number of classes.
    For dense X it also beats a BLAS product with the dense one-hot: that product is
    memory-bound, costs K times the work, and its threads stall on a busy machine.
    """
    if sp.issparse(X):
        return _sparse_class_sums(X, labels)
    if isinstance(labels, SoftLabels):
        # Dense weights by dense X: one BLAS product (K columns, usually a handful).
        return labels.onehot_t @ np.asarray(X).astype(np.float64, copy=False)
    return np.asarray(labels.onehot_t @ np.asarray(X).astype(np.float64, copy=False))


#: Up to this many classes, sparse class sums multiply by the dense one-hot instead.
FEW_CLASSES = 4


def _sparse_class_sums(X, labels: Labels) -> np.ndarray:
    """``Yw.T @ X`` for sparse X as one bincount keyed by (class, column) of each stored value.

    O(nnz) whatever the number of classes, and several times faster than a sparse-sparse
    product, which sorts its output, or a product with the dense one-hot, which costs K
    multiply-adds per stored value.
    """
    X = X.tocsr()
    if labels.n_classes <= FEW_CLASSES or isinstance(labels, SoftLabels):
        # A handful of classes: X.T @ Yw is one pass over the stored values with K
        # multiply-adds each, cheaper than building bincount keys.
        X_t = compressed_view(sp.csc_matrix, X.data, X.indices, X.indptr, X.shape[::-1])
        return np.ascontiguousarray(np.asarray(X_t @ labels.onehot).T, dtype=np.float64)
    n_features = X.shape[1]
    compiled = kernels()
    if compiled is not None and _compiled_sparse(X):
        # The same sums in one compiled pass, without the keys and weighted values that
        # bincount needs.
        sums = np.zeros((labels.n_classes, n_features))
        codes = np.ascontiguousarray(labels.codes, dtype=np.intp)
        weights = np.ascontiguousarray(labels.weights, dtype=np.float64)
        compiled.csr_class_sums(X.data, X.indices, X.indptr, codes, weights, sums)
        return sums
    per_row = np.diff(X.indptr)
    key = np.repeat(labels.codes * n_features, per_row)
    key += X.indices
    values = X.data.astype(np.float64, copy=False)
    if not np.all(labels.weights == 1.0):
        values = values * np.repeat(labels.weights, per_row)
    sums = np.bincount(key, weights=values, minlength=labels.n_classes * n_features)
    return sums.reshape(labels.n_classes, n_features)
