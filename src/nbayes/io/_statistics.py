"""Model files per statistic type: one versioned table from type to (dump, load).

After skops' ``io/_persist.py``: the statistics a model declares
(:mod:`nbayes.distributions.statistics`: each family's, the class counts every model keeps,
the semi-naive models' count tables and table of vectors) are stored by their type, through
a closed table -- a type not in it is neither written nor read -- with a version per type,
so that a type that changes how it is stored keeps a loader for the old layout. Format-1
files hold version 1 of every type: each of its arrays under the model's key for it
(``class_count``, ``stats/<group>/<key>``, ``stats/<key>``). The shapes a file may declare
for them (:mod:`nbayes.io._declared`) and the checks of the values read (:func:`restore`)
derive from the same types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ..distributions.statistics import (
    CategoryCounts,
    ClassCounts,
    ClassSums,
    Moments,
    Slot,
    Statistic,
    ValueRange,
)
from ..exceptions import ModelFormatError, ParameterError
from ..seminaive import _counts
from ..seminaive._counts import CountTables
from ..seminaive.joint import VectorCounts
from . import _plain as plain

Dump = Callable[[Statistic], tuple[np.ndarray, ...]]
Load = Callable[[tuple[np.ndarray, ...]], Statistic]

#: Version of each type's layout that this nbayes writes.
VERSION = 1


def _fields(value: Statistic) -> tuple[np.ndarray, ...]:
    """Version 1: the type's arrays (:meth:`Statistic.to_arrays`), one per key."""
    return tuple(np.asarray(a) for a in value.to_arrays())


def _from_fields(cls: type[Statistic]) -> Load:
    """Version 1 read back: the type built from its arrays, one per key."""

    def load(arrays: tuple[np.ndarray, ...]) -> Statistic:
        return cls.from_arrays(arrays)

    return load


#: Statistic type -> version -> (dump, load); the closed set of types a file may hold.
TYPES: dict[type[Statistic], dict[int, tuple[Dump, Load]]] = {
    cls: {1: (_fields, _from_fields(cls))}
    for cls in (
        ClassCounts,
        ClassSums,
        Moments,
        CategoryCounts,
        ValueRange,
        CountTables,
        VectorCounts,
    )
}


def _entry(cls: type, version: int = VERSION) -> tuple[Dump, Load]:
    try:
        return TYPES[cls][version]
    except KeyError:
        raise ModelFormatError(
            f"Model file: statistics of type {cls.__name__} (layout version {version}) are "
            f"not among those a model file holds ({sorted(c.__name__ for c in TYPES)})."
        ) from None


def dump(slots, stats: Mapping[str, np.ndarray], prefix: str, owner: str) -> dict:
    """The arrays of the statistics ``slots`` declare, under ``prefix``, each written by its
    type's entry in :data:`TYPES`; ``owner`` names what keeps them in an error."""
    out = {}
    for slot in slots:  # bounded: a model's few statistics
        if slot.type not in TYPES:
            raise ParameterError(
                f"{owner} keeps statistics of type {slot.type.__name__}, which model files "
                "cannot hold; add the type to nbayes.io._statistics.TYPES."
            )
        arrays = TYPES[slot.type][VERSION][0](slot.take(stats))
        out.update({prefix + key: arr for key, arr in zip(slot.keys, arrays)})
    return out


def dump_group(family, stats: Mapping[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The arrays of one column group's statistics under ``prefix`` (see :func:`dump`)."""
    out = dump(family.statistics, stats, prefix, f"The {family.name} family")
    # The statistics' own key order, so that a loaded model saves the same bytes.
    return {prefix + key: out[prefix + key] for key in stats}


def declared(slots, n_classes: int, width: int) -> dict[str, tuple]:
    """Key -> (shape, dtype kinds) of the statistics ``slots`` declare over ``width``
    columns, from their types; None in a shape is read from the file."""
    return {
        key: entry
        for slot in slots  # bounded: a model's few statistics
        for key, entry in slot.declared(n_classes, width).items()
    }


def declared_statistics(family, n_classes: int, width: int) -> dict[str, tuple]:
    """Key -> (shape, dtype kinds) of the statistics of ``family`` over a block of ``width``
    columns (see :func:`declared`)."""
    return declared(family.statistics, n_classes, width)


def restore_group(
    family,
    arrays: Mapping[str, np.ndarray],
    prefix: str,
    n_classes: int,
    width: int,
    version: int = 1,
) -> dict:
    """Statistics of one column group (see :func:`restore`): exactly those ``family``
    declares must be under ``prefix``."""
    want = declared_statistics(family, n_classes, width)
    got = {k[len(prefix) :] for k in arrays if k.startswith(prefix)}
    if got != set(want):
        raise ModelFormatError(
            f"Model file: family {family.name!r} needs statistics {sorted(want)} under "
            f"{prefix!r}; found {sorted(got)}."
        )
    return restore(
        family.statistics, arrays, prefix, n_classes, width, f"family {family.name!r}", version
    )


def restore(
    slots: tuple[Slot, ...],
    arrays: Mapping[str, np.ndarray],
    prefix: str,
    n_classes: int,
    width: int,
    owner: str,
    version: int = 1,
) -> dict:
    """The statistics ``slots`` declare, read from ``arrays`` under ``prefix``, checked by
    their types and read by their entries in :data:`TYPES` of layout ``version`` (1 in
    format-1 files); ``owner`` names what keeps them in an error.

    Shapes and dtype kinds are those of :func:`declared` (which :mod:`nbayes.io._declared`
    held the manifest to before any array was read), weights are non-negative, and each
    type's fields fit together (the categories per column and the width of their counts).
    """
    want = declared(slots, n_classes, width)
    stats = {}
    for slot in slots:  # bounded: a model's few statistics
        for key in slot.keys:
            shape, kinds = want[key]
            weight = key in slot.non_negative_keys
            arr = plain.take(
                arrays, prefix + key, kinds=kinds, ndim=len(shape), non_negative=weight
            )
            if key in slot.class_keys and arr.shape[0] != n_classes:
                raise ModelFormatError(
                    f"Model file: array {prefix + key!r} has {arr.shape[0]} rows; expected one "
                    f"per class ({n_classes})."
                )
            if any(w is not None and w != n for w, n in zip(shape, arr.shape)):
                raise ModelFormatError(
                    f"Model file: the statistics under {prefix!r} have inconsistent shapes "
                    f"({prefix + key!r}: {arr.shape}, declared {shape}) for {owner} over "
                    f"{width} column(s); the file is corrupt."
                )
            stats[key] = arr.astype(np.int64 if "i" in kinds else np.float64, copy=False)
        value = _entry(slot.type, version)[1](tuple(stats[k] for k in slot.keys))
        if not value.consistent():
            raise ModelFormatError(
                f"Model file: each of the statistics {list(slot.keys)} under {prefix!r} does "
                "not match the sizes of the other (inconsistent shapes); the file is corrupt."
            )
        stats.update(slot.put(value))
    return stats


def seminaive_slots(layout: dict, arrays, prefix: str) -> tuple:
    """The statistics a semi-naive model file holds: its count tables up to the layout's
    ``order``, the class counts, and a table of vectors where the file has one."""
    order = layout.get("order")
    if not isinstance(order, int) or isinstance(order, bool) or not 1 <= order <= 8:
        raise ModelFormatError("Model file: the semi-naive model's layout is malformed.")
    return _counts.slots(order, vectors=f"{prefix}stats/vectors" in arrays)
