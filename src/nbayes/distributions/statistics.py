"""Typed statistics: the few kinds of additive statistics families keep, with their algebra.

In the spirit of river's ``stats``: a statistic is a small value -- a frozen dataclass over
numpy arrays, class axis first -- that knows its identity (``zeros``), ``+`` (merge), ``-``
(unlearn, refusing what was never learned), ``scale`` (every weight times a factor),
``clear`` (no rows, same encoding), ``add_classes`` and ``align_classes`` (re-coding the
classes), ``recode`` (re-coding the categories, for the types that hold codes), how it is
laid out as arrays (``to_arrays``, ``from_arrays``) and what a stored copy must look like
(``declared``: dtype kinds and shapes; ``non_negative``; ``consistent``). All of it is array
code, nothing per row. Besides the families' statistics: :class:`ClassCounts`, the weight
per class every model keeps, and the semi-naive models' count tables and table of vectors
(:mod:`nbayes.seminaive`).

A family declares its statistics once, as :class:`Slot` objects binding a type to the keys of
its plain ``dict[str, ndarray]`` statistics (which stay what the engine, Dask and model files
move around)::

    statistics = (ClassSums.at("n_ones"), ClassSums.at("n_observed"))

and :class:`~nbayes.distributions.Family` derives ``zeros``, ``merge``, ``subtract``,
``scale``, ``add_classes`` and its class keys from them; model files derive the declared
shapes of the arrays they hold from the same slots (:mod:`nbayes.io._declared`).

>>> import numpy as np
>>> a = Moments(np.array([[2.0]]), np.array([[1.0]]), np.array([[2.0]]))  # rows 0 and 2
>>> b = Moments(np.array([[1.0]]), np.array([[4.0]]), np.array([[0.0]]))  # row 4
>>> both = a + b
>>> both.mean.tolist(), both.m2.tolist()
([[2.0]], [[8.0]])
>>> (both - b).mean.tolist()
[[1.0]]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from .._validation import column_label
from ..exceptions import DataError
from ._arrays import SUBTRACT_RTOL, add_tables, describe_cell, subtract_nonnegative
from ._categorical_layout import expand, offsets_of

Arrays = dict[str, np.ndarray]


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """Names of a statistic type's fields (looked up once per type: merges ask per batch)."""
    if cls not in _FIELD_NAMES:
        _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return _FIELD_NAMES[cls]


class Statistic:
    """Base of the statistic types: a frozen dataclass whose fields are arrays.

    ``class_fields`` names the fields with a class axis first (the others are per-feature
    metadata); ``intensive_fields`` those of them that are averages, which :meth:`scale`
    keeps; ``kinds`` the dtype kind of each field in a model file.
    """

    class_fields: ClassVar[tuple[str, ...]] = ()
    intensive_fields: ClassVar[tuple[str, ...]] = ()
    kinds: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def at(cls, *keys: str, per_feature: int = 1) -> Slot:
        """Bind this type to the keys of a family's statistics, one per field in order;
        ``per_feature`` columns per feature (a grid of bins per feature)."""
        return Slot(cls, keys, per_feature)

    @classmethod
    def zeros(cls, n_classes: int, width: int) -> Statistic:
        """The statistic of no rows over ``width`` columns: the identity of ``+``."""
        raise NotImplementedError

    @classmethod
    def key_fields(cls, n_keys: int) -> tuple[str, ...]:
        """The field each of ``n_keys`` keys holds (one key per field; a type of a variable
        number of arrays maps several keys to one field)."""
        names = field_names(cls)
        if n_keys != len(names):
            raise TypeError(f"{cls.__name__} has {len(names)} fields; got {n_keys} keys.")
        return names

    @classmethod
    def from_arrays(cls, arrays: tuple[np.ndarray, ...]) -> Statistic:
        """The value of its arrays, one per key (:meth:`to_arrays` read back)."""
        return cls(*arrays)

    def to_arrays(self) -> tuple[np.ndarray, ...]:
        """The value as arrays, one per key: how statistics dicts and model files hold it."""
        return self.fields()

    def _with(self, changed: Mapping[str, np.ndarray]) -> Statistic:
        """A copy with the fields in ``changed`` replaced."""
        names = field_names(type(self))
        return type(self)(*(changed.get(n, getattr(self, n)) for n in names))

    def fields(self) -> tuple[np.ndarray, ...]:
        """The arrays, in the order the type declares them."""
        return tuple(getattr(self, name) for name in field_names(type(self)))

    def __add__(self, other: Statistic) -> Statistic:
        raise NotImplementedError(f"{type(self).__name__} has no merge of its own.")

    def subtract(self, other, names, class_names=None, feature_names=None) -> Statistic:
        """The statistic of these rows without ``other``'s, which must be among them;
        ``names`` (the keys of the fields) and the class and feature names make the error."""
        raise NotImplementedError(f"{type(self).__name__} cannot be unlearned alone.")

    def __sub__(self, other: Statistic) -> Statistic:
        return self.subtract(other, field_names(type(self)))

    def scale(self, factor: float) -> Statistic:
        """The statistic with every row's weight multiplied by ``factor`` >= 0."""
        return self._with(
            {
                f: getattr(self, f) * factor
                for f in self.class_fields
                if f not in self.intensive_fields
            },
        )

    def clear(self) -> Statistic:
        """The statistic of no rows in the same encoding (numbers of categories kept)."""
        return self._with({f: np.zeros_like(getattr(self, f)) for f in self.class_fields})

    def recode(self, n_categories: np.ndarray | None, code_maps: list | None) -> Statistic:
        """The statistic for ``n_categories`` codes per feature (None: as many as now), old
        code ``c`` of feature ``j`` moved to ``code_maps[j][c]`` (statistics made with another
        vocabulary); a type that holds no codes is unchanged."""
        return self

    def add_classes(self, n_new: int) -> Statistic:
        """The statistic with ``n_new`` empty classes appended."""
        n_classes = getattr(self, self.class_fields[0]).shape[0] if self.class_fields else 0
        return self.align_classes(np.arange(n_classes), n_classes + n_new)

    def align_classes(self, positions: np.ndarray, n_classes: int) -> Statistic:
        """The statistic with its class ``k`` moved to class ``positions[k]`` of
        ``n_classes``; classes that receive none are empty (re-coding to a union of labels)."""
        out = {}
        for f in self.class_fields:  # bounded: a type's few fields
            arr = getattr(self, f)
            out[f] = np.zeros((n_classes, *arr.shape[1:]), arr.dtype)
            out[f][positions] = arr
        return self._with(out)

    @classmethod
    def declared(cls, n_classes: int, width: int) -> dict[str, tuple]:
        """Field -> (shape, dtype kinds) a stored copy must have; None in a shape: read from
        the file (checked against the other fields by :meth:`consistent`)."""
        zero = cls.zeros(1, width)
        return {
            f: ((n_classes, *arr.shape[1:]) if f in cls.class_fields else arr.shape, cls.kinds[f])
            for f, arr in zip(field_names(cls), zero.fields())
        }

    #: Fields that hold weights, which a stored copy must keep non-negative.
    non_negative: ClassVar[tuple[str, ...]] = ()

    def consistent(self) -> bool:
        """Whether the fields' shapes fit together (for a statistic read from a file)."""
        return True


@dataclasses.dataclass(frozen=True, eq=False)
class ClassCounts(Statistic):
    """Total weight of the rows of each class, shape (n_classes,): the class prior's
    statistic, kept by every model beside its features' statistics. Adds class by class;
    unlearning refuses a negative weight."""

    weight: np.ndarray

    class_fields = ("weight",)
    kinds: ClassVar[Mapping[str, str]] = {"weight": "f"}
    non_negative = ("weight",)

    @classmethod
    def zeros(cls, n_classes, width=0):
        return cls(np.zeros(n_classes))

    def __add__(self, other):
        return ClassCounts(self.weight + other.weight)

    def subtract(self, other, names, class_names=None, feature_names=None):
        return ClassCounts(
            subtract_nonnegative(self.weight, other.weight, "class weight", class_names)
        )


@dataclasses.dataclass(frozen=True, eq=False)
class ClassSums(Statistic):
    """Weighted sums per class and column, shape (n_classes, width): counts of values, of ones,
    of observations, sums of counts. Adds cell by cell; unlearning refuses a negative sum."""

    table: np.ndarray

    class_fields = ("table",)
    kinds: ClassVar[Mapping[str, str]] = {"table": "f"}
    non_negative = ("table",)

    @classmethod
    def zeros(cls, n_classes, width):
        return cls(np.zeros((n_classes, width)))

    def __add__(self, other):
        return ClassSums(add_tables(self.table, other.table))

    def subtract(self, other, names, class_names=None, feature_names=None):
        return ClassSums(
            subtract_nonnegative(self.table, other.table, names[0], class_names, feature_names)
        )


def merge_moments(wa, ma, m2a, wb, mb, m2b):
    """Chan et al. parallel update of (weight, mean, M2); exact and free of cancellation."""
    w = wa + wb
    # Moments past the float64 range come out infinite (refused by the engine's overflow check).
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        share = np.where(w > 0, wb / np.where(w > 0, w, 1.0), 0.0)
        delta = mb - ma
        mean = ma + delta * share
        m2 = m2a + m2b + delta**2 * wa * share
    return w, mean, m2


def subtract_moments(wt, mt, m2t, wb, mb, m2b):
    """Inverse of :func:`merge_moments`: the moments of A from those of A + B and of B.

    Returns (weight, mean, M2, impossible) where ``impossible`` marks cells that B cannot be
    part of: M2 negative beyond rounding, or nothing left while the means or spreads of
    A + B and B differ. The mean is recovered as ``mt + (mt - mb) * wb / wa``, which needs no
    difference of large sums.
    """
    wa = wt - wb
    wa[np.abs(wa) <= SUBTRACT_RTOL * (np.abs(wt) + np.abs(wb))] = 0.0
    left = wa > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(left, mt + (mt - mb) * (wb / np.where(left, wa, 1.0)), 0.0)
        between = np.where(wt > 0, (mb - mean) ** 2 * wa * (wb / np.where(wt > 0, wt, 1.0)), 0.0)
        spread = np.sqrt(np.where(wt > 0, (m2t + m2b) / np.where(wt > 0, wt, 1.0), 0.0))
    m2 = m2t - m2b - between
    slack = SUBTRACT_RTOL * (np.abs(m2t) + np.abs(m2b) + between)
    # With nothing left, A + B must have been B alone: same mean, same spread.
    mean_off = np.abs(mt - mb) > SUBTRACT_RTOL * (np.abs(mt) + np.abs(mb) + spread)
    impossible = (m2 < -slack) | (~left & ((np.abs(m2) > slack) | mean_off))
    m2 = np.where(left & (m2 > slack), m2, 0.0)
    return wa, mean, m2, impossible


@dataclasses.dataclass(frozen=True, eq=False)
class Moments(Statistic):
    """Weight, mean and M2 (sum of squared deviations from the mean) per class and column,
    each (n_classes, width). Merges with Chan et al.'s formula, never with raw sums of
    squares; scaling the weights keeps the means."""

    weight: np.ndarray
    mean: np.ndarray
    m2: np.ndarray

    class_fields = ("weight", "mean", "m2")
    intensive_fields = ("mean",)
    kinds: ClassVar[Mapping[str, str]] = {"weight": "f", "mean": "f", "m2": "f"}
    non_negative = ("weight",)

    @classmethod
    def zeros(cls, n_classes, width):
        z = np.zeros((n_classes, width))
        return cls(z, z.copy(), z.copy())

    def __add__(self, other):
        return Moments(*merge_moments(*self.fields(), *other.fields()))

    def subtract(self, other, names, class_names=None, feature_names=None):
        subtract_nonnegative(self.weight, other.weight, names[0], class_names, feature_names)
        w, mean, m2, impossible = subtract_moments(*self.fields(), *other.fields())
        if impossible.any():
            k, j = (int(i) for i in np.argwhere(impossible)[0])
            where = describe_cell(k, j, class_names, feature_names)
            raise DataError(
                f"Cannot unlearn: the rows to unlearn for {where} (weight "
                f"{other.weight[k, j]:.6g}, mean "
                f"{other.mean[k, j]:.6g}) are not part of what the model learned (weight "
                f"{self.weight[k, j]:.6g}, mean {self.mean[k, j]:.6g}, sum of squared "
                "deviations too small to contain them). Pass only rows the model was trained "
                "on, with the same sample weights."
            )
        return Moments(w, mean, m2)


@dataclasses.dataclass(frozen=True, eq=False)
class CategoryCounts(Statistic):
    """Weighted counts of each category of each column per class, in one flat table of shape
    (n_classes, sum(n_categories)) (column j's categories after those of columns < j), and
    the number of categories per column, ``n_categories`` (width,), which grows as merges
    meet new codes."""

    counts: np.ndarray
    n_categories: np.ndarray

    class_fields = ("counts",)
    kinds: ClassVar[Mapping[str, str]] = {"counts": "f", "n_categories": "iu"}
    non_negative = ("counts",)

    @classmethod
    def zeros(cls, n_classes, width):
        return cls(np.zeros((n_classes, width)), np.ones(width, dtype=np.int64))

    @classmethod
    def declared(cls, n_classes, width):
        return {"counts": ((n_classes, None), "f"), "n_categories": ((width,), "iu")}

    def consistent(self) -> bool:
        # A forged file must not make merge allocate without limit: the categories per
        # column are bounded by (and must add up to) the width of the counts.
        n_cat = self.n_categories
        return bool(
            n_cat.size == 0 or (n_cat.min() >= 0 and int(n_cat.sum()) == self.counts.shape[1])
        )

    def __add__(self, other):
        n_cat = np.maximum(self.n_categories, other.n_categories)
        counts = expand(self.counts, self.n_categories, n_cat)
        more = expand(other.counts, other.n_categories, n_cat)
        if counts is self.counts:  # the inputs stay untouched: add into a new array
            counts = counts + more
        else:  # a fresh array already: add in place (one pass less over a large vocabulary)
            counts += more
        return CategoryCounts(counts, n_cat)

    def subtract(self, other, names, class_names=None, feature_names=None):
        n_cat = self.n_categories
        unseen = other.n_categories > n_cat
        if unseen.any():
            j = int(np.flatnonzero(unseen)[0])
            raise DataError(
                f"Cannot unlearn: {column_label(j, feature_names)} has category code "
                f"{other.n_categories[j] - 1} in the rows to unlearn, but the model never saw "
                f"a code above {n_cat[j] - 1}, so those rows were never learned."
            )
        feature = np.repeat(np.arange(n_cat.size), n_cat)
        local = np.arange(int(n_cat.sum())) - offsets_of(n_cat)[feature]

        def column_of(flat: int) -> str:
            j = int(feature[flat])
            return f"{column_label(j, feature_names)}, category code {int(local[flat])}"

        counts = subtract_nonnegative(
            self.counts,
            expand(other.counts, other.n_categories, n_cat),
            names[0],
            class_names,
            column_of=column_of,
        )
        # Trailing codes that no row holds any more would not exist in a model trained on the
        # remaining rows; drop them so that unlearning equals refitting.
        held = counts.any(axis=0)
        kept = np.ones(n_cat.size, dtype=np.int64)
        np.maximum.at(kept, feature[held], local[held] + 1)
        return CategoryCounts(counts[:, local < kept[feature]], kept)

    def recode(self, n_categories, code_maps):
        # The families' codes are re-coded by their vocabularies before counting, never here.
        raise NotImplementedError("CategoryCounts are re-coded through their vocabulary.")


@dataclasses.dataclass(frozen=True, eq=False)
class ValueRange(Statistic):
    """Lowest and highest value seen per column, each (width,); (0, 0) where nothing was
    seen. Its merge needs to know which columns saw rows, so the family that keeps it
    (Density) merges and unlearns it itself."""

    lo: np.ndarray
    hi: np.ndarray

    kinds: ClassVar[Mapping[str, str]] = {"lo": "f", "hi": "f"}

    @classmethod
    def zeros(cls, n_classes, width):
        return cls(np.zeros(width), np.zeros(width))


@dataclasses.dataclass(frozen=True)
class Slot:
    """A statistic type bound to the keys of a family's statistics dict (one per field, or
    as many as :meth:`Statistic.key_fields` maps to its fields)."""

    type: type[Statistic]
    keys: tuple[str, ...]
    per_feature: int = 1

    def __post_init__(self):
        self.type.key_fields(len(self.keys))  # raises a TypeError for the wrong number

    @property
    def class_keys(self) -> tuple[str, ...]:
        return self._keys_of(self.type.class_fields)

    @property
    def non_negative_keys(self) -> tuple[str, ...]:
        return self._keys_of(self.type.non_negative)

    def _keys_of(self, fields) -> tuple[str, ...]:
        names = self.type.key_fields(len(self.keys))
        return tuple(k for k, f in zip(self.keys, names) if f in fields)

    def take(self, stats: Mapping[str, np.ndarray]) -> Statistic:
        """The typed value held under this slot's keys."""
        return self.type.from_arrays(tuple(stats[k] for k in self.keys))

    def put(self, value: Statistic) -> Arrays:
        """The value as plain arrays under this slot's keys."""
        return dict(zip(self.keys, value.to_arrays()))

    def zeros(self, n_classes: int, n_features: int) -> Arrays:
        return self.put(self.type.zeros(n_classes, n_features * self.per_feature))

    def add(self, a, b) -> Arrays:
        return self.put(self.take(a) + self.take(b))

    def subtract(self, a, b, class_names=None, feature_names=None) -> Arrays:
        return self.put(self.take(a).subtract(self.take(b), self.keys, class_names, feature_names))

    def scale(self, stats, factor: float) -> Arrays:
        return self.put(self.take(stats).scale(factor))

    def clear(self, stats) -> Arrays:
        return self.put(self.take(stats).clear())

    def recode(self, stats, n_categories: np.ndarray | None, code_maps: list | None) -> Arrays:
        return self.put(self.take(stats).recode(n_categories, code_maps))

    def add_classes(self, stats, n_new: int) -> Arrays:
        return self.put(self.take(stats).add_classes(n_new))

    def align_classes(self, stats, positions: np.ndarray, n_classes: int) -> Arrays:
        return self.put(self.take(stats).align_classes(positions, n_classes))

    def declared(self, n_classes: int, n_features: int) -> dict[str, tuple]:
        """Key -> (shape, dtype kinds) of this slot's arrays in a model file."""
        fields = self.type.declared(n_classes, n_features * self.per_feature)
        return {k: fields[f] for k, f in zip(self.keys, self.type.key_fields(len(self.keys)))}

    def check(self, stats: Mapping[str, np.ndarray], n_classes: int, n_features: int) -> None:
        """Refuse (ValueError) statistics that a model of ``n_classes`` classes over
        ``n_features`` features cannot hold: a key missing, a shape or dtype kind other than
        :meth:`declared`, weights negative or not finite, fields that do not fit together."""
        for key, (shape, kinds) in self.declared(n_classes, n_features).items():
            arr = stats.get(key)
            if (
                not isinstance(arr, np.ndarray)
                or arr.dtype.kind not in kinds
                or arr.ndim != len(shape)
                or any(want is not None and want != n for want, n in zip(shape, arr.shape))
            ):
                raise ValueError(f"statistics {key!r} are missing or of the wrong shape.")
            if key in self.non_negative_keys and not (
                np.all(np.isfinite(arr)) and arr.min(initial=0) >= 0
            ):
                raise ValueError(f"statistics {key!r} must be finite, non-negative counts.")
        if not self.take(stats).consistent():
            raise ValueError(f"statistics {list(self.keys)} do not fit together.")


def by_slots(slots, op: str, *args) -> Arrays:
    """The ``op`` (a :class:`Slot` method) of every slot's statistics, joined in one dict."""
    out: Arrays = {}
    for slot in slots:  # bounded: a model's few statistics
        out.update(getattr(slot, op)(*args))
    return out


def check_statistics(slots, stats: Mapping[str, np.ndarray], n_classes: int, width: int) -> None:
    """Refuse (ValueError) statistics other than those ``slots`` declare for ``n_classes``
    classes over ``width`` columns: keys missing or extra, or values :meth:`Slot.check`
    refuses."""
    keys = {k for slot in slots for k in slot.keys}
    if set(stats) != keys:
        raise ValueError(f"the statistics hold {sorted(stats)}; expected {sorted(keys)}.")
    for slot in slots:  # bounded: a model's few statistics
        slot.check(stats, n_classes, width)


#: The class counts of every model's statistics, under their key ``class_count``.
CLASS_COUNT = ClassCounts.at("class_count")
