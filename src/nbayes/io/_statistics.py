"""Model files per statistic type: one versioned table from type to (dump, load).

After skops' ``io/_persist.py``: the statistics a family declares
(:mod:`nbayes.distributions.statistics`) are stored by their type, through a closed table
-- a type not in it is neither written nor read -- with a version per type, so that a type
that changes how it is stored keeps a loader for the old layout. Format-1 files hold
version 1 of every type: each field an array under the family's key for it,
``stats/<group>/<key>``. The shapes a file may declare for them (:mod:`nbayes.io._declared`)
and the checks of the values read (:func:`restore_group`) derive from the same types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ..distributions.statistics import CategoryCounts, ClassSums, Moments, Statistic, ValueRange
from ..exceptions import ModelFormatError, ParameterError
from . import _plain as plain

Dump = Callable[[Statistic], tuple[np.ndarray, ...]]
Load = Callable[[tuple[np.ndarray, ...]], Statistic]

#: Version of each type's layout that this nbayes writes.
VERSION = 1


def _fields(value: Statistic) -> tuple[np.ndarray, ...]:
    """Version 1: each field one array, in the order the type declares them."""
    return tuple(np.asarray(a) for a in value.fields())


def _from_fields(cls: type[Statistic]) -> Load:
    """Version 1 read back: the type built from its arrays, in field order."""

    def load(arrays: tuple[np.ndarray, ...]) -> Statistic:
        return cls(*arrays)

    return load


#: Statistic type -> version -> (dump, load); the closed set of types a file may hold.
TYPES: dict[type[Statistic], dict[int, tuple[Dump, Load]]] = {
    cls: {1: (_fields, _from_fields(cls))}
    for cls in (ClassSums, Moments, CategoryCounts, ValueRange)
}


def _entry(cls: type, version: int = VERSION) -> tuple[Dump, Load]:
    try:
        return TYPES[cls][version]
    except KeyError:
        raise ModelFormatError(
            f"Model file: statistics of type {cls.__name__} (layout version {version}) are "
            f"not among those a model file holds ({sorted(c.__name__ for c in TYPES)})."
        ) from None


def dump_group(family, stats: Mapping[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The arrays of one column group's statistics under ``prefix``, each declared
    statistic written by its type's entry in :data:`TYPES`."""
    out = {}
    for slot in family.statistics:  # bounded: a family's few statistics
        if slot.type not in TYPES:
            raise ParameterError(
                f"The {family.name} family keeps statistics of type {slot.type.__name__}, "
                "which model files cannot hold; add the type to nbayes.io._statistics.TYPES."
            )
        arrays = TYPES[slot.type][VERSION][0](slot.take(stats))
        out.update({prefix + key: arr for key, arr in zip(slot.keys, arrays)})
    # The statistics' own key order, so that a loaded model saves the same bytes.
    return {prefix + key: out[prefix + key] for key in stats}


def declared_statistics(family, n_classes: int, width: int) -> dict[str, tuple]:
    """Key -> (shape, dtype kinds) of the statistics of ``family`` over a block of ``width``
    columns, from its declared statistic types; None in a shape is read from the file."""
    return {
        key: entry
        for slot in family.statistics  # bounded: a family's few statistics
        for key, entry in slot.declared(n_classes, width).items()
    }


def restore_group(
    family,
    arrays: Mapping[str, np.ndarray],
    prefix: str,
    n_classes: int,
    width: int,
    version: int = 1,
) -> dict:
    """Statistics of one column group, checked by their declared statistic types and read
    by their entries in :data:`TYPES` of layout ``version`` (1 in format-1 files).

    Shapes and dtype kinds are those of :func:`declared_statistics` (which
    :mod:`nbayes.io._declared` held the manifest to before any array was read), weights are
    non-negative, and each type's fields fit together (the categories per column and the
    width of their counts).
    """
    declared = declared_statistics(family, n_classes, width)
    got = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
    if set(got) != set(declared):
        raise ModelFormatError(
            f"Model file: family {family.name!r} needs statistics {sorted(declared)} under "
            f"{prefix!r}; found {sorted(got)}."
        )
    stats = {}
    for slot in family.statistics:  # bounded: a family's few statistics
        for key in slot.keys:
            shape, kinds = declared[key]
            weight = key in slot.non_negative_keys
            arr = plain.take(
                arrays, prefix + key, kinds=kinds, ndim=len(shape), non_negative=weight
            )
            if key in slot.class_keys and arr.shape[0] != n_classes:
                raise ModelFormatError(
                    f"Model file: array {prefix + key!r} has {arr.shape[0]} rows; expected one "
                    f"per class ({n_classes})."
                )
            if any(want is not None and want != n for want, n in zip(shape, arr.shape)):
                raise ModelFormatError(
                    f"Model file: the statistics under {prefix!r} have inconsistent shapes "
                    f"({prefix + key!r}: {arr.shape}, declared {shape}) for family "
                    f"{family.name!r} over {width} column(s); the file is corrupt."
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
