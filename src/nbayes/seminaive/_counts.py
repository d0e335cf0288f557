"""Additive statistics of the semi-naive classifiers: class-conditional counts of every feature
value, every pair of values and (for A2DE and KDB(2)) every triple of values.

The statistics are a plain dict of numpy arrays, like the families' (see DESIGN.md section 1)::

    {"n_categories": (d,) int64,        K_j, the number of codes of each feature
     "class_count":  (C,) float64,      total weight per class
     "n1": (C, S1), "n2": (C, S2), ...} counts of order m = 1, 2, 3

The table of order m holds, for every subset ``s = (j_1 < ... < j_m)`` of features in
lexicographic order, a block of ``K_{j_1} * ... * K_{j_m}`` cells in row-major order: the
weight of the rows of each class whose codes on ``s`` are those values. Rows with a missing
cell (code -1) in ``s`` count nowhere in that block, so every marginal used later (n(y, x_i)
beside n(y, x_i, x_j), say) comes from rows that observed all its features -- missing values
are then left out exactly, as the naive model leaves them out.

Counting is a ``bincount`` over offset-encoded keys built for all subsets of a row chunk at
once: one pass over the data, no Python loop over rows.

The tables are a typed statistic, :class:`CountTables` (see
:mod:`nbayes.distributions.statistics`), declared with the class counts (and JointBayes' table
of vectors, :class:`~nbayes.seminaive.joint.VectorCounts`) by :func:`slots`: ``merge`` is
addition and ``subtract`` subtraction after both sides are laid out for the larger category
counts (``recode``, which also re-codes statistics made with another vocabulary), and model
files store and check them by those types.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np

from .._accel import kernels
from .._threads import map_chunks
from .._validation import column_label, row_offset
from ..distributions._arrays import row_chunks, subtract_nonnegative
from ..distributions._labels import Labels
from ..distributions.statistics import CLASS_COUNT, Slot, Statistic, by_slots
from ..exceptions import DataError, ParameterError
from .joint import VECTORS

#: Default memory limit of the count tables of one model (and of each scoring table built
#: from them); a wider input gets a DataError naming the size it would need.
MAX_TABLE_BYTES = 2**30


def table_key(m: int) -> str:
    """Name of the order-m table in the statistics."""
    return f"n{m}"


def orders(stats: dict) -> int:
    """Highest order of the count tables in ``stats``."""
    return max(int(k[1:]) for k in stats if k[0] == "n" and k[1:].isdigit())


def cells_of_order(n_categories: np.ndarray, m: int) -> int:
    """Cells of the order-m table per class: the elementary symmetric polynomial e_m(K), as an
    exact Python integer, found without enumerating the subsets (which may be too many)."""
    e = [1] + [0] * m
    for k in np.asarray(n_categories, dtype=np.int64).tolist():  # bounded: O(d * m)
        for t in range(m, 0, -1):
            e[t] += e[t - 1] * k
    return e[m]


def _size(n_bytes: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{n_bytes} bytes"


def table_bytes(n_categories: np.ndarray, n_classes: int, order: int) -> int:
    """Bytes of the float64 count tables of orders 1 .. ``order`` for ``n_classes``, with
    their layouts (feature indices, category counts, strides and offset of every subset)."""
    d = len(n_categories)
    cells = sum(cells_of_order(n_categories, m) for m in range(1, order + 1))
    subsets = sum(math.comb(d, m) * (3 * m + 1) for m in range(1, order + 1))
    return 8 * (n_classes * cells + subsets)


def check_size(
    n_categories: np.ndarray,
    n_classes: int,
    order: int,
    max_bytes: int,
    model: str,
    factor: int = 1,
) -> int:
    """Raise a DataError, before anything is allocated, when the tables of ``order`` (times
    ``factor``: scoring tables hold several normalisations of each cell) would exceed
    ``max_bytes``; else return their size in bytes."""
    need = factor * table_bytes(n_categories, n_classes, order)
    if need > max_bytes:
        k = np.asarray(n_categories)
        raise DataError(
            f"{model} would need {_size(need)} of tables of counts of up to {order} feature "
            f"values per class ({k.size} features with {int(k.sum())} categories in all, "
            f"{n_classes} classes), above max_table_bytes={_size(max_bytes)}. Use fewer or "
            "coarser features (fewer n_bins, rare categories merged), a lower order (AODE "
            "n=1, KDB with smaller k, TAN), naive Bayes for wide inputs such as text, or raise "
            "max_table_bytes."
        )
    return need


@dataclass(frozen=True)
class Layout:
    """Where each subset of ``m`` features lives in the flat order-m table.

    Attributes
    ----------
    subsets : ndarray of shape (n_subsets, m)
        Feature indices of each subset, increasing, subsets in lexicographic order.
    dims : ndarray of shape (n_subsets, m)
        Number of categories of each of those features.
    strides : ndarray of shape (n_subsets, m)
        Row-major strides of a block: cell = sum(code * stride).
    offsets : ndarray of shape (n_subsets,)
        Start of each block.
    total : int
        Cells per class.
    n_features : int
    """

    subsets: np.ndarray
    dims: np.ndarray
    strides: np.ndarray
    offsets: np.ndarray
    total: int
    n_features: int

    def rank(self, features: tuple[int, ...]) -> int:
        """Position of the subset ``features`` (increasing) in lexicographic order: the
        subsets before it are those with a smaller first differing index, counted in
        closed form (no search, no table of all subsets)."""
        d, m = self.n_features, len(features)
        rank, previous = 0, -1
        for t, f in enumerate(features):  # bounded by the order
            rank += math.comb(d - previous - 1, m - t) - math.comb(d - f, m - t)
            previous = f
        return rank


def _combinations(d: int, m: int) -> np.ndarray:
    """All increasing m-subsets of range(d) in lexicographic order, (C(d, m), m), built with
    numpy: pairs from the upper triangle, triples by first index (a loop bounded by d)."""
    if m == 1:
        return np.arange(d, dtype=np.intp)[:, None]
    if m == 2:
        i, j = np.triu_indices(d, k=1)
        return np.stack([i, j], axis=1).astype(np.intp)
    parts = [np.zeros((0, m), dtype=np.intp)]
    for first in range(d):  # bounded by the features
        rest = _combinations(d - first - 1, m - 1) + first + 1
        parts.append(np.column_stack([np.full(len(rest), first, dtype=np.intp), rest]))
    return np.concatenate(parts)


@lru_cache(maxsize=64)
def _layout(n_categories: tuple, m: int) -> Layout:
    d = len(n_categories)
    subsets = (
        _combinations(d, m)
        if m <= 3
        else np.array(list(itertools.combinations(range(d), m)), dtype=np.intp).reshape(-1, m)
    )
    dims = np.asarray(n_categories, dtype=np.int64)[subsets]
    # Row-major strides: the product of the dims to the right of each position.
    strides = np.cumprod(dims[:, ::-1], axis=1)[:, ::-1]
    strides = np.concatenate([strides[:, 1:], np.ones((len(subsets), 1), np.int64)], axis=1)
    sizes = dims.prod(axis=1)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return Layout(subsets, dims, strides, offsets, int(sizes.sum()), d)


def layout(n_categories: np.ndarray, m: int) -> Layout:
    """The :class:`Layout` of the order-m table for these category counts (cached)."""
    return _layout(tuple(int(k) for k in n_categories), m)


def block(stats: dict, features) -> np.ndarray:
    """Counts of the rows of each class over ``features`` (increasing indices), shape
    ``(C, K_{f_1}, ..., K_{f_m})``: a reshaped view of one block of the order-m table."""
    features = tuple(int(f) for f in features)
    m = len(features)
    lay = layout(stats["n_categories"], m)
    s = lay.rank(features)
    start = lay.offsets[s]
    table = stats[table_key(m)]
    return table[:, start : start + int(np.prod(lay.dims[s]))].reshape(-1, *lay.dims[s])


def check_codes(X, n_categories=None, feature_names=None, weights=None) -> np.ndarray:
    """Validate integer codes (-1 missing, 0 .. K_j - 1 known); return ``n_categories``
    (derived as the largest code + 1 of rows of positive weight when not given)."""
    X = np.asarray(X)
    if X.ndim != 2 or X.dtype.kind not in "iu":
        raise DataError(
            f"Codes must be a 2D integer array (-1 for missing); got {X.ndim}D {X.dtype}."
        )
    low = X < -1
    if low.any():
        r, j = np.argwhere(low)[0]
        raise DataError(
            f"{column_label(j, feature_names).capitalize()} has code {int(X[r, j])} at row "
            f"{r + row_offset()}; codes are -1 (missing) or 0, 1, 2, ... per category."
        )
    if n_categories is None:
        used = X if weights is None else X[np.asarray(weights) > 0]
        return np.maximum(used.max(axis=0, initial=0) + 1, 1).astype(np.int64)
    n_categories = np.asarray(n_categories, dtype=np.int64)
    if n_categories.shape != (X.shape[1],) or np.any(n_categories < 1):
        raise ParameterError(
            f"n_categories must hold one positive count per feature ({X.shape[1]}); got "
            f"{n_categories.tolist()!r}."
        )
    high = X >= n_categories[None, :]
    if high.any():
        r, j = np.argwhere(high)[0]
        raise DataError(
            f"{column_label(j, feature_names).capitalize()} has code {int(X[r, j])} at row "
            f"{r + row_offset()}, but it has {n_categories[j]} categories (codes 0.."
            f"{n_categories[j] - 1}). Learn the category (extend the vocabulary) first."
        )
    return n_categories


def zeros(n_categories: np.ndarray, n_classes: int, order: int) -> dict:
    """Statistics of no rows: the identity of :func:`merge`."""
    tables = CountTables.empty(n_categories, n_classes, order)
    return {**CLASS_COUNT.zeros(n_classes, 0), **tables_slot(order).put(tables)}


def accumulate(
    X,
    labels: Labels,
    order: int,
    n_categories=None,
    max_bytes: int = MAX_TABLE_BYTES,
    model: str = "This model",
    feature_names=None,
) -> dict:
    """Count tables of orders 1 .. ``order`` of one batch of codes.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Integer codes; -1 is a missing cell.
    labels : Labels
        Class codes and sample weights.
    order : int
        Highest order: 2 for TAN, AODE and KDB(1); 3 for A2DE and KDB(2).
    n_categories : array of shape (n_features,), optional
        K_j; by default the largest code of the batch + 1.
    max_bytes : int
        Refuse (DataError) when the tables would be larger.

    Returns
    -------
    dict
        The statistics described in the module docstring.
    """
    X = np.asarray(X)
    compiled = kernels() if order <= 3 else None
    if compiled is None or n_categories is None:
        n_categories = check_codes(X, n_categories, feature_names, labels.weights)
    else:  # shapes here, values in the compiled pass (which reports the first bad row)
        n_categories = _check_counts(X, n_categories)
    n_classes = labels.n_classes
    check_size(n_categories, n_classes, order, max_bytes, model)
    out = zeros(n_categories, n_classes, order)
    out["class_count"] = labels.class_weight.astype(np.float64)
    if compiled is not None:
        _count_compiled(compiled, X, labels, order, n_categories, out, feature_names)
        return out
    X = X.astype(np.int64, copy=False)
    unit = bool(np.all(labels.weights == 1.0))
    complete = bool(X.size == 0 or X.min() >= 0)
    for m in range(1, order + 1):
        lay = layout(n_categories, m)
        if not lay.total:
            continue
        counts = np.zeros(n_classes * lay.total)
        # Keys of every subset of a chunk at once: (rows, n_subsets) int64 temporaries.
        for rows in row_chunks(X.shape[0], 8 * 3 * max(len(lay.subsets), 1)):
            counts += _count_chunk(X[rows], labels[rows], lay, unit, complete)
        out[table_key(m)] = counts.reshape(n_classes, lay.total)
    return out


def _check_counts(X: np.ndarray, n_categories) -> np.ndarray:
    if X.ndim != 2 or X.dtype.kind not in "iu":
        return check_codes(X, n_categories)  # raises its message
    n_categories = np.asarray(n_categories, dtype=np.int64)
    if n_categories.shape != (X.shape[1],) or np.any(n_categories < 1):
        return check_codes(X, n_categories)
    return n_categories


#: Rows per piece of a compiled count: enough that each piece's own tables cost little
#: beside its rows (pieces run on the engine's threads and their tables are added up).
PIECE_ROWS = 1 << 16


def _count_compiled(compiled, X, labels: Labels, order, n_categories, out, feature_names):
    """All tables in one compiled pass over the rows, in pieces on the engine's threads;
    the pieces do not depend on the thread count, so neither do the sums."""
    X = np.ascontiguousarray(X, dtype=np.int64)
    classes = np.ascontiguousarray(labels.codes, dtype=np.intp)
    weights = np.ascontiguousarray(labels.weights, dtype=np.float64)
    n_classes = labels.n_classes
    lay1 = layout(n_categories, 1)
    lay2 = layout(n_categories, 2) if order >= 2 else None
    lay3 = layout(n_categories, 3) if order >= 3 else None
    cells = sum(lay.total for lay in (lay1, lay2, lay3) if lay is not None)
    # A piece's tables should cost no more than its rows: large tables, larger pieces.
    piece = max(PIECE_ROWS, 4 * n_classes * cells // max(X.shape[1], 1))
    no_triples = (np.zeros((0, 3), np.intp), np.zeros((0, 2), np.int64), np.zeros(0, np.int64))
    triples = (
        (lay3.subsets, np.ascontiguousarray(lay3.strides[:, :2]), lay3.offsets)
        if lay3 is not None
        else no_triples
    )

    def count(rows: slice):
        tables = [np.zeros((n_classes, lay.total if lay else 0)) for lay in (lay1, lay2, lay3)]
        bad = compiled.count_tables(
            X[rows],
            classes[rows],
            weights[rows],
            n_categories,
            lay1.offsets,
            tables[0],
            lay2.offsets if lay2 is not None else np.zeros(0, np.int64),
            tables[1],
            *triples[:2],
            triples[2],
            tables[2],
        )
        return tables, bad if bad < 0 else bad + rows.start

    for tables, bad in map_chunks(count, _slices(X.shape[0], piece)):
        if bad >= 0:  # the numpy check names the first bad cell (and its row)
            check_codes(X[: bad + 1], n_categories, feature_names)
        for m, table in enumerate(tables[:order], start=1):
            out[table_key(m)] += table


def _slices(n: int, step: int):
    return (slice(start, min(start + step, n)) for start in range(0, n, step))


def _count_chunk(X: np.ndarray, labels: Labels, lay: Layout, unit: bool, complete: bool):
    keys = np.broadcast_to(lay.offsets, (X.shape[0], lay.offsets.size)).copy()
    for t in range(lay.subsets.shape[1]):  # bounded by the order (at most 3)
        keys += X[:, lay.subsets[:, t]] * lay.strides[:, t]
    keys += (labels.codes * lay.total)[:, None]
    n_cells = labels.n_classes * lay.total
    if complete and unit:
        return np.bincount(keys.ravel(), minlength=n_cells).astype(np.float64)
    w = np.broadcast_to(labels.weights[:, None], keys.shape)
    if complete:
        return np.bincount(keys.ravel(), weights=w.ravel(), minlength=n_cells)
    observed = np.ones(keys.shape, dtype=bool)
    for t in range(lay.subsets.shape[1]):  # bounded by the order
        observed &= X[:, lay.subsets[:, t]] >= 0
    return np.bincount(keys[observed], weights=w[observed], minlength=n_cells)


@dataclasses.dataclass(frozen=True, eq=False)
class CountTables(Statistic):
    """The count tables of orders 1 .. m (``tables``, each (n_classes, cells of its order))
    over features of ``n_categories`` codes each, (d,) int64: under the keys
    ``n_categories, n1, .., nm`` of the statistics (see the module docstring).

    Adds table by table once both sides are laid out for the larger category counts (an
    identity: the tables of all-ones category counts); unlearning refuses a code or a count
    the rows to unlearn hold beyond what was learned.
    """

    n_categories: np.ndarray
    tables: tuple[np.ndarray, ...]

    class_fields = ("tables",)
    kinds: ClassVar[dict[str, str]] = {"n_categories": "i", "tables": "f"}
    non_negative = ("tables",)

    @classmethod
    def key_fields(cls, n_keys):
        if n_keys < 2:
            raise TypeError(f"CountTables need the categories' key and a table's; got {n_keys}.")
        return ("n_categories",) + ("tables",) * (n_keys - 1)

    @classmethod
    def from_arrays(cls, arrays):
        return cls(arrays[0], tuple(arrays[1:]))

    def to_arrays(self):
        return (self.n_categories, *self.tables)

    @classmethod
    def empty(cls, n_categories, n_classes: int, order: int) -> CountTables:
        """The tables of orders 1 .. ``order`` of no rows."""
        n_categories = np.asarray(n_categories, dtype=np.int64)
        return cls(
            n_categories,
            tuple(
                np.zeros((n_classes, layout(n_categories, m).total)) for m in range(1, order + 1)
            ),
        )

    @classmethod
    def zeros(cls, n_classes, width):
        raise TypeError("CountTables of no rows need their order: use CountTables.empty.")

    @classmethod
    def declared(cls, n_classes, width):
        return {"n_categories": ((width,), "i"), "tables": ((n_classes, None), "f")}

    def consistent(self) -> bool:
        # Each table holds the cells its order has for these category counts (which bounds
        # what a merge or a layout allocates from a forged file).
        k = self.n_categories
        return bool(
            k.ndim == 1
            and (k.size == 0 or k.min() >= 1)
            and all(t.shape[1] == cells_of_order(k, m) for m, t in enumerate(self.tables, start=1))
        )

    def _common(self, other: CountTables) -> tuple[CountTables, CountTables]:
        mine, theirs = len(self.tables), len(other.tables)
        n_a, n_b = self.tables[0].shape[0], other.tables[0].shape[0]
        if mine != theirs or n_a != n_b:
            raise DataError(
                "Cannot combine statistics of different orders or numbers of classes "
                f"(orders {mine} and {theirs}, {n_a} and {n_b} classes)."
            )
        n_cat = np.maximum(self.n_categories, other.n_categories)
        return self.recode(n_cat, None), other.recode(n_cat, None)

    def __add__(self, other):
        a, b = self._common(other)
        return CountTables(a.n_categories, tuple(x + y for x, y in zip(a.tables, b.tables)))

    def subtract(self, other, names, class_names=None, feature_names=None):
        over = other.n_categories > self.n_categories
        if over.any():
            j = int(np.flatnonzero(over)[0])
            raise DataError(
                f"Cannot unlearn: {column_label(j, feature_names)} has category code "
                f"{other.n_categories[j] - 1} in the rows to unlearn, but the model never saw "
                f"a code above {self.n_categories[j] - 1}, so those rows were never learned."
            )
        a, b = self._common(other)
        tables = tuple(
            subtract_nonnegative(x, y, key, class_names)
            for key, x, y in zip(names[1:], a.tables, b.tables)
        )
        return CountTables(a.n_categories, tables)

    def scale(self, factor):
        return CountTables(self.n_categories, tuple(t * factor for t in self.tables))

    def clear(self):
        return CountTables(self.n_categories, tuple(np.zeros_like(t) for t in self.tables))

    def align_classes(self, positions, n_classes):
        moved = []
        for t in self.tables:  # bounded by the order
            out = np.zeros((n_classes, t.shape[1]))
            out[positions] = t
            moved.append(out)
        return CountTables(self.n_categories, tuple(moved))

    def recode(self, n_categories, code_maps):
        """The same tables laid out for ``n_categories`` codes per feature (at least the
        current ones; None: the current ones), each old code ``c`` of feature ``j`` moved
        to ``code_maps[j][c]`` when code maps are given (statistics made with another
        vocabulary; None keeps a feature's codes)."""
        old = np.asarray(self.n_categories, dtype=np.int64)
        new = old if n_categories is None else np.asarray(n_categories, dtype=np.int64)
        if code_maps is None and np.array_equal(old, new):
            return self
        if new.shape != old.shape:
            raise DataError(
                f"Cannot combine statistics of {old.size} features with ones of {new.size} "
                "features."
            )
        maps = [
            np.arange(k) if code_maps is None or code_maps[j] is None else np.asarray(code_maps[j])
            for j, k in enumerate(old.tolist())
        ]
        for mp, k, n in zip(maps, old.tolist(), new.tolist()):  # bounded by the features
            if mp.size < k or (k and (mp[:k].max() >= n or np.unique(mp[:k]).size < k)):
                raise DataError(
                    "Cannot re-lay statistics: a code map is not one-to-one into the new codes."
                )
        flat_maps, map_start = np.concatenate(maps).astype(np.int64), _map_offsets(maps)
        moved_tables = []
        for m, table in enumerate(self.tables, start=1):  # bounded by the order
            lay_old, lay_new = layout(old, m), layout(new, m)
            sizes = lay_old.dims.prod(axis=1)
            subset = np.repeat(np.arange(len(sizes)), sizes)
            rest = np.arange(lay_old.total) - lay_old.offsets[subset]
            target = lay_new.offsets[subset].copy()
            for t in range(m - 1, -1, -1):  # bounded by the order: peel digits right to left
                feature = lay_old.subsets[subset, t]
                digit = rest % lay_old.dims[subset, t]
                rest //= lay_old.dims[subset, t]
                target += flat_maps[map_start[feature] + digit] * lay_new.strides[subset, t]
            moved = np.zeros((table.shape[0], lay_new.total))
            moved[:, target] = table  # code maps are one-to-one: distinct targets
            moved_tables.append(moved)
        return CountTables(new, tuple(moved_tables))


def _map_offsets(maps) -> np.ndarray:
    return np.concatenate([[0], np.cumsum([mp.size for mp in maps])[:-1]]).astype(np.int64)


def tables_slot(order: int) -> Slot:
    """The count tables of orders 1 .. ``order`` under their keys."""
    return CountTables.at("n_categories", *(table_key(m) for m in range(1, order + 1)))


def slots(order: int, vectors: bool = False) -> tuple[Slot, ...]:
    """The statistics of a semi-naive model, declared once: its count tables up to ``order``,
    the class counts and, for JointBayes (``vectors``), the table of whole vectors."""
    return (tables_slot(order), CLASS_COUNT, *((VECTORS,) if vectors else ()))


def slots_of(stats: dict) -> tuple[Slot, ...]:
    """The declared statistics (:func:`slots`) of a statistics dict, from its keys."""
    return slots(orders(stats), VECTORS.keys[0] in stats)


def relayout(stats: dict, n_categories, code_maps=None) -> dict:
    """The same statistics laid out for ``n_categories`` codes per feature (at least the
    current ones), each old code ``c`` of feature ``j`` moved to ``code_maps[j][c]`` when code
    maps are given (statistics made with another vocabulary; None keeps a feature's codes)."""
    return by_slots(slots_of(stats), "recode", stats, n_categories, code_maps)


def merge(a: dict, b: dict) -> dict:
    """Statistics of the rows of ``a`` and ``b`` together (addition; :func:`zeros` is the
    identity)."""
    return by_slots(slots_of(a), "add", a, b)


def subtract(a: dict, b: dict, class_names=None) -> dict:
    """Statistics of the rows of ``a`` without those of ``b``, which ``a`` must have learned:
    a count that would turn negative raises a DataError naming the class."""
    return by_slots(slots_of(a), "subtract", a, b, class_names)


def n_values(stats: dict, m: int) -> np.ndarray:
    """Weight of the rows holding each cell of the order-m table, over all classes."""
    return stats[table_key(m)].sum(axis=0)


# -- information measures ---------------------------------------------------------------------


def _xlogx_ratio(n: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """``n * log(ratio)`` with 0 where n is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, n * np.log(np.where(n > 0, ratio, 1.0)), 0.0)


def class_mutual_information(stats: dict) -> np.ndarray:
    """I(X_j; Y) in nats for every feature, shape (d,), from the order-1 table (rows with
    X_j observed)."""
    n1 = stats["n1"]
    n_cat = stats["n_categories"]
    lay = layout(n_cat, 1)
    feature = np.repeat(np.arange(n_cat.size), n_cat)
    per_class = np.add.reduceat(n1, lay.offsets, axis=1) if n1.shape[1] else n1  # (C, d)
    per_value = n1.sum(axis=0)  # (S1,)
    total = per_class.sum(axis=0)  # (d,)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 / 0 for an empty category
        ratio = n1 * total[feature] / (per_class[:, feature] * per_value[None, :])
    terms = _xlogx_ratio(n1, ratio).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mi = np.bincount(feature, weights=terms, minlength=n_cat.size) / total
    return np.where(total > 0, np.maximum(mi, 0.0), 0.0)


def conditional_mutual_information(stats: dict) -> np.ndarray:
    """I(X_i; X_j | Y) in nats for every pair, a symmetric (d, d) array with a zero diagonal,
    from the order-2 table (each pair over the rows that observed both features).

    I = sum_{y,a,b} p(y,a,b) log[p(y,a,b) p(y) / (p(y,a) p(y,b))], every p a margin of the
    same pair block.
    """
    n2 = stats["n2"]
    n_cat = stats["n_categories"]
    d = n_cat.size
    out = np.zeros((d, d))
    lay = layout(n_cat, 2)
    if not lay.total:
        return out
    sizes = lay.dims.prod(axis=1)
    pair = np.repeat(np.arange(len(sizes)), sizes)
    rest = np.arange(lay.total) - lay.offsets[pair]
    b = rest % lay.dims[pair, 1]
    a = rest // lay.dims[pair, 1]
    # Margins as segment sums: n(y, pair, a), n(y, pair, b) and n(y, pair) for every cell.
    row_start = np.concatenate([[0], np.cumsum(lay.dims[:, 0])[:-1]])
    col_start = np.concatenate([[0], np.cumsum(lay.dims[:, 1])[:-1]])
    key_a = row_start[pair] + a
    key_b = col_start[pair] + b
    n_ya = _segment(n2, key_a, int(lay.dims[:, 0].sum()))
    n_yb = _segment(n2, key_b, int(lay.dims[:, 1].sum()))
    n_y = _segment(n2, pair, len(sizes))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = n2 * n_y[:, pair] / (n_ya[:, key_a] * n_yb[:, key_b])
    terms = _xlogx_ratio(n2, ratio).sum(axis=0)
    total = n_y.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cmi = np.bincount(pair, weights=terms, minlength=len(sizes)) / total
    cmi = np.where(total > 0, np.maximum(cmi, 0.0), 0.0)
    i, j = lay.subsets[:, 0], lay.subsets[:, 1]
    out[i, j] = cmi
    out[j, i] = cmi
    return out


def _segment(table: np.ndarray, key: np.ndarray, n_keys: int) -> np.ndarray:
    """Per-class sums of ``table``'s columns grouped by ``key``, shape (C, n_keys)."""
    return np.stack(
        [np.bincount(key, weights=row, minlength=n_keys) for row in table]  # bounded: classes
    ).reshape(table.shape[0], n_keys)
