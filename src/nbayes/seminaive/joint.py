"""The Bayes classifier by counting whole feature vectors: the textbook starting point that the
naive assumption was invented to escape.

Statistics: the distinct complete code vectors seen (rows in lexicographic order, so equal
data give equal statistics whatever the batching) and their weight per class. A row whose
vector was seen at least ``min_count`` times (all classes together) is scored by

    log P(y, x) = log(n(x) / N) + log[(n(y, x) + a) / (n(x) + C a)],

the empirical P(x) of complete rows times the smoothed class distribution of that vector;
any other row -- rarer vectors, unseen categories, missing cells -- goes to the backoff model
(naive Bayes from the order-1 counts, or an estimator given to ``JointBayes(backoff=...)``).
A vector with a missing cell is not counted: its joint would need summing over every
completion, which is what the backoff model does exactly.

The table is a typed statistic, :class:`VectorCounts` (see
:mod:`nbayes.distributions.statistics`), under the keys ``vectors`` and ``n_vectors``.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import pandas as pd

from ..distributions._arrays import subtract_nonnegative
from ..distributions._estimates import log_normalise
from ..distributions._labels import Labels
from ..distributions.statistics import Statistic
from ..exceptions import DataError


def accumulate(X: np.ndarray, labels: Labels) -> dict:
    """Distinct complete vectors of a batch (rows of positive weight) and their class
    weights: ``{"vectors": (U, d) int64, "n_vectors": (C, U)}``."""
    X = np.asarray(X, dtype=np.int64)
    keep = (X >= 0).all(axis=1) & (labels.weights > 0)
    vectors, inverse = np.unique(X[keep], axis=0, return_inverse=True)
    n_vec = len(vectors)
    counts = np.bincount(
        labels.codes[keep] * n_vec + inverse.ravel(),
        weights=labels.weights[keep],
        minlength=labels.n_classes * n_vec,
    )
    return {
        "vectors": vectors.reshape(n_vec, X.shape[1]),
        "n_vectors": counts.reshape(labels.n_classes, n_vec),
    }


@dataclasses.dataclass(frozen=True, eq=False)
class VectorCounts(Statistic):
    """The distinct complete code vectors seen, ``vectors`` (U, d) int64 in lexicographic
    order, and the weight of each per class, ``n_vectors`` (C, U).

    Adds by uniting the vectors (sorted again) and adding their weights; unlearning drops
    the vectors left with no weight and refuses one never learned.
    """

    vectors: np.ndarray
    n_vectors: np.ndarray

    class_fields = ("n_vectors",)
    kinds: ClassVar[dict[str, str]] = {"vectors": "i", "n_vectors": "f"}
    non_negative = ("n_vectors",)

    @classmethod
    def zeros(cls, n_classes, width):
        return cls(np.zeros((0, width), dtype=np.int64), np.zeros((n_classes, 0)))

    @classmethod
    def declared(cls, n_classes, width):
        return {"vectors": ((None, width), "i"), "n_vectors": ((n_classes, None), "f")}

    def consistent(self) -> bool:
        return bool(
            self.n_vectors.shape[1] == self.vectors.shape[0]
            and (self.vectors.size == 0 or self.vectors.min() >= 0)
        )

    def __add__(self, other):
        both = np.concatenate([self.vectors, other.vectors])
        vectors, inverse = np.unique(both, axis=0, return_inverse=True)
        counts = np.zeros((self.n_vectors.shape[0], len(vectors)))
        counts[:, inverse.ravel()[: len(self.vectors)]] += self.n_vectors
        counts[:, inverse.ravel()[len(self.vectors) :]] += other.n_vectors
        return VectorCounts(vectors.reshape(len(vectors), both.shape[1]), counts)

    def subtract(self, other, names, class_names=None, feature_names=None):
        where = _find(self.vectors, other.vectors)
        if (where < 0).any():
            raise DataError(
                "Cannot unlearn: a feature vector among the rows to unlearn was never learned."
            )
        removed = np.zeros_like(self.n_vectors)
        removed[:, where] = other.n_vectors
        counts = subtract_nonnegative(self.n_vectors, removed, names[1], class_names)
        held = counts.any(axis=0)
        return VectorCounts(self.vectors[held], counts[:, held])

    def recode(self, n_categories, code_maps):
        """The table with each feature's codes mapped by ``code_maps[j]`` (None: kept), for
        statistics made with another vocabulary; vectors are sorted again."""
        if code_maps is None:
            return self
        vectors = self.vectors.copy()
        for j, mp in enumerate(code_maps):  # bounded by the features
            if mp is not None and len(vectors):
                vectors[:, j] = np.asarray(mp)[vectors[:, j]]
        empty = VectorCounts(vectors[:0], self.n_vectors[:, :0])
        return empty + VectorCounts(vectors, self.n_vectors)


#: JointBayes' table of vectors under its keys in the statistics.
VECTORS = VectorCounts.at("vectors", "n_vectors")


def merge(a: dict, b: dict) -> dict:
    """Statistics of both batches: vectors united (sorted), weights added."""
    return VECTORS.add(a, b)


def subtract(a: dict, b: dict, class_names=None) -> dict:
    """Statistics of ``a`` without the rows of ``b``; vectors left with no weight go."""
    return VECTORS.subtract(a, b, class_names)


def recode(stats: dict, code_maps) -> dict:
    """The statistics with each feature's codes mapped by ``code_maps[j]`` (None: kept), for
    statistics made with another vocabulary; vectors are sorted again."""
    return VECTORS.recode(stats, None, code_maps)


def find(stats: dict, X: np.ndarray) -> np.ndarray:
    """Index of each row of X among the stored vectors (-1: not stored), by hashing rows."""
    return _find(stats["vectors"], X)


def _find(vectors: np.ndarray, X: np.ndarray) -> np.ndarray:
    if not len(vectors) or not len(X):
        return np.full(len(X), -1, dtype=np.intp)
    index = pd.MultiIndex.from_arrays(list(vectors.T))
    return index.get_indexer(pd.MultiIndex.from_arrays(list(np.asarray(X, dtype=np.int64).T)))


def finalize(stats: dict, a: float, min_count: float) -> dict:
    """``log_joint`` (C, U): log P(y, x) of every stored vector, and ``usable`` (U,) -- the
    vectors seen at least ``min_count`` times."""
    counts = stats["n_vectors"]
    n_x = counts.sum(axis=0)
    n_classes = counts.shape[0]
    total = n_x.sum()
    with np.errstate(divide="ignore"):
        log_px = np.log(n_x) - np.log(total) if total > 0 else np.zeros_like(n_x)
    log_post = log_normalise(counts + a, n_x + n_classes * a, n_classes)
    return {"log_joint": log_px + log_post, "usable": n_x >= max(min_count, 1e-300)}


def log_joint(X: np.ndarray, stats: dict, params: dict, backoff) -> np.ndarray:
    """log P(y, x) for every row: the vector's own estimate where it is usable, else
    ``backoff(rows)`` -> (rows, C) for the rows that need it."""
    where = find(stats, X)
    own = where >= 0
    own[own] = params["usable"][where[own]]
    out = np.empty((len(X), params["log_joint"].shape[0]))
    out[own] = params["log_joint"][:, where[own]].T
    if (~own).any():
        out[~own] = backoff(np.flatnonzero(~own))
    return out
