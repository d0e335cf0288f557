"""What a model file may declare, checked before a byte of any array is decompressed.

A zip member's uncompressed size is whatever its header says, and deflate packs zeros about
1000:1, so a few MB of file can declare gigabytes. Before reading arrays, :func:`check` holds
every declared array to the layout the manifest's JSON implies -- one entry per class in
``classes``, ``n_features_in`` features, the columns of each group, one length per
vocabulary -- refuses any array that the layout does not name, and :func:`sizes` bounds each
member and their total. A forged file is then refused after reading its manifest; what is
left to a forger is a model consistent in every shape, whose size the total cap bounds.

Shapes are read from the manifest's ``arrays`` entries. Those of the families' statistics
come from their declared statistic types (:mod:`nbayes.distributions.statistics`), which the
per-kind loaders in :mod:`nbayes.io._dispatch` also use to check the values after reading:
shapes are checked here only.
"""

from __future__ import annotations

import numpy as np

from ..distributions.statistics import CLASS_COUNT
from ..exceptions import ModelFormatError
from . import _plain as plain
from . import _wrappers
from ._statistics import declared, declared_statistics, seminaive_slots

#: Longest .npy header dict accepted (numpy's own default limit; it writes under 200 bytes),
#: and the most bytes a member may hold beyond its data: magic, version, length, header.
MAX_HEADER = 10_000
MAX_HEADER_BYTES = MAX_HEADER + 12
_VOCABULARY = {"values": "U", "kinds": "U", "column": "i", "code": "i"}


def parse(declared: dict) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """(shape, dtype) of every manifest ``arrays`` entry; malformed entries are refused."""
    out = {}
    for name, entry in declared.items():
        shape = entry.get("shape") if isinstance(entry, dict) else None
        dtype = entry.get("dtype") if isinstance(entry, dict) else None
        if (
            set(entry if isinstance(entry, dict) else ()) != {"shape", "dtype"}
            or not isinstance(shape, list)
            or len(shape) > 2
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)
            or not isinstance(dtype, str)
        ):
            raise ModelFormatError(
                f"Model file: the manifest entry of array {name!r} is malformed."
            )
        try:
            dt = np.dtype(dtype)
        except (TypeError, ValueError, SyntaxError):  # numpy parses some strings as literals
            dt = None
        if dt is None or dt.hasobject or dt.kind not in plain.ARRAY_KINDS or dt.itemsize == 0:
            raise ModelFormatError(
                f"Model file: array {name!r} declares dtype {dtype if dt is None else dt}; "
                "only bool, integer, float and unicode arrays are allowed (object arrays would "
                "need pickle)."
            )
        out[name] = (tuple(shape), dt)
    return out


def nbytes(shape: tuple[int, ...], dtype: np.dtype) -> int:
    """Bytes of data of an array (Python integers: a forged shape cannot overflow)."""
    n = dtype.itemsize
    for d in shape:
        n *= d
    return n


def check(estimator: str, meta, arrays: dict) -> None:
    """Refuse declared arrays that the layout of an ``estimator`` model does not have, or
    whose shapes disagree with it. ``arrays`` maps names to (shape, dtype) from :func:`parse`."""
    expected: dict[str, tuple] = {}
    if estimator in WRAPPER_LAYOUTS:
        if not isinstance(meta, dict):
            raise ModelFormatError("Model file: the estimator state is not a mapping.")
        WRAPPER_LAYOUTS[estimator](meta, arrays, expected)
    else:
        _expect_kind(estimator, meta, arrays, expected, "")
    for name, (shape, dtype) in arrays.items():
        if name not in expected:
            raise ModelFormatError(
                f"Model file: the manifest declares array {name!r}, which a {estimator} model "
                "file does not have."
            )
        want, kinds = expected[name]
        if (
            dtype.kind not in kinds
            or len(shape) != len(want)
            or any(w is not None and w != s for w, s in zip(want, shape))
        ):
            shown = str(tuple("any" if w is None else w for w in want)).replace("'", "")
            raise ModelFormatError(
                f"Model file: the manifest declares array {name!r} with shape {shape} and dtype "
                f"{dtype.str}; the model's layout (classes, features, column groups) needs shape "
                f"{shown} of kind {kinds!r}. The file is corrupt or forged."
            )


def _expect_kind(estimator, meta, arrays, expected, prefix) -> None:
    if not isinstance(meta, dict):
        raise ModelFormatError("Model file: the estimator state is not a mapping.")
    from ._dispatch import KINDS

    if estimator not in KINDS:
        raise ModelFormatError(f"Model file: {estimator!r} is not a registered estimator.")
    _layouts()[KINDS[estimator][0]](meta, arrays, expected, prefix)


def _layouts() -> dict:
    """A model file's layout (the dump function that writes it) -> the check of its arrays."""
    from . import _dispatch as d

    return {
        d.dump_preset: _expect_base,
        d.dump_categorical: _expect_categorical,
        d.dump_mixed: _expect_mixed,
        d.dump_text: _expect_text,
        d.dump_seminaive: _expect_seminaive,
    }


def _expect_categorical(meta, arrays, expected, prefix) -> None:
    """CategoricalNB: the families' statistics, and the vocabulary of values if it has one."""
    if meta.get("vocabulary") is not None:
        _expect_vocabulary(arrays, expected, f"{prefix}vocabulary/")
    _expect_base(meta, arrays, expected, prefix)


def _expect_mixed(meta, arrays, expected, prefix) -> None:
    """MixedNB: the statistics of each column group, and each group's vocabulary."""
    layout = meta.get("mixed")
    positions = layout.get("positions") if isinstance(layout, dict) else None
    vocabularies = layout.get("vocabularies") if isinstance(layout, dict) else None
    if not (
        isinstance(positions, list)
        and all(isinstance(p, list) for p in positions)
        and isinstance(vocabularies, list)
        and len(vocabularies) == len(positions)
    ):
        raise ModelFormatError("Model file: MixedNB column layout is malformed.")
    widths = [len(p) for p in positions]
    for g, spec in enumerate(vocabularies):  # bounded by the number of groups
        if spec is not None:
            _expect_vocabulary(arrays, expected, f"{prefix}vocabulary/{g}/")
    _expect_base(meta, arrays, expected, prefix, widths)


def _expect_base(meta, arrays, expected, prefix, widths=None) -> None:
    """classes (K,), class_count (K,), feature_names_in (D,), each group's statistics."""
    classes = arrays.get(f"{prefix}classes")
    n_features = meta.get("n_features_in")
    specs = meta.get("families")
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        raise ModelFormatError(
            f"Model file: 'n_features_in' must be a positive integer; got {n_features!r}."
        )
    if not isinstance(specs, list) or not specs:
        raise ModelFormatError("Model file: the list of families is missing or empty.")
    if classes is None or len(classes[0]) != 1:
        raise ModelFormatError(
            f"Model file: the manifest must declare {prefix}classes as a 1-D array; every "
            "statistic has one row per class."
        )
    k = classes[0][0]
    expected[f"{prefix}classes"] = ((k,), "biufU")
    for key, entry in declared((CLASS_COUNT,), k, n_features).items():
        expected[f"{prefix}{key}"] = entry
    expected[f"{prefix}feature_names_in"] = ((n_features,), "U")
    widths = [n_features] if widths is None else widths
    if len(widths) != len(specs):
        raise ModelFormatError(
            f"Model file: {len(specs)} families stored for {len(widths)} column groups."
        )
    for i, (spec, width) in enumerate(zip(specs, widths)):  # bounded by the groups
        family = plain.make_family(spec, f"family {i}")
        width = family.block_width(width)  # the text family: n_buckets per column
        for key, entry in declared_statistics(family, k, width).items():
            expected[f"{prefix}stats/{i}/{key}"] = entry


def _expect_seminaive(meta, arrays, expected, prefix) -> None:
    """AODE, TAN, KDB, JointBayes: classes, count tables of orders 1 .. order (cells per
    class read from the file), the vocabulary, the numeric columns' edges, and JointBayes'
    table of feature vectors."""
    layout = meta.get("seminaive")
    n_features = meta.get("n_features_in")
    order = layout.get("order") if isinstance(layout, dict) else None
    n_edges = layout.get("n_edges") if isinstance(layout, dict) else None
    classes = arrays.get(f"{prefix}classes")
    if (
        not isinstance(n_features, int)
        or isinstance(n_features, bool)
        or n_features < 1
        or not isinstance(order, int)
        or not 1 <= order <= 8
        or not isinstance(n_edges, int)
        or not 0 <= n_edges <= n_features
        or classes is None
        or len(classes[0]) != 1
    ):
        raise ModelFormatError("Model file: the semi-naive model's layout is malformed.")
    k = classes[0][0]
    expected[f"{prefix}classes"] = ((k,), "biufU")
    expected[f"{prefix}feature_names_in"] = ((n_features,), "U")
    for key, entry in declared(seminaive_slots(layout, arrays, prefix), k, n_features).items():
        expected[f"{prefix}stats/{key}"] = entry
    for i in range(n_edges):  # bounded by the features
        expected[f"{prefix}edges/{i}"] = ((None,), "f")
    _expect_vocabulary(arrays, expected, f"{prefix}vocabulary/")
    backoff = meta.get("backoff")
    if backoff is not None:  # JointBayes' backoff model, one level deep
        name = backoff.get("estimator") if isinstance(backoff, dict) else None
        if not _may_be_held(name):
            raise ModelFormatError(
                f"Model file: JointBayes' backoff is {name!r}; a backoff is a registered "
                "estimator that holds no model of its own (not JointBayes or TextNB)."
            )
        _expect_kind(name, backoff.get("state"), arrays, expected, f"{prefix}backoff/")


def _may_be_held(name) -> bool:
    from ._dispatch import may_be_held

    return may_be_held(name)


def _expect_vocabulary(arrays, expected, prefix) -> None:
    """Four arrays of one common length (the number of entries)."""
    values = arrays.get(f"{prefix}values")
    length = values[0][0] if values is not None and len(values[0]) == 1 else None
    for part, kind in _VOCABULARY.items():
        expected[f"{prefix}{part}"] = ((length,), kind)


def _expect_text(meta, arrays, expected, prefix) -> None:
    classifier = meta.get("classifier")
    if not isinstance(classifier, dict) or not isinstance(classifier.get("estimator"), str):
        raise ModelFormatError("Model file: TextNB's classifier is malformed.")
    inner = classifier["estimator"]
    if not _may_be_held(inner):
        raise ModelFormatError(f"Model file: TextNB cannot use a {inner}.")
    _expect_kind(inner, classifier.get("state"), arrays, expected, f"{prefix}classifier/")
    # _expect_kind refused a state that is not a mapping
    expected[f"{prefix}vocabulary"] = ((classifier["state"].get("n_features_in"),), "U")


def _expect_calibrated(meta, arrays: dict, expected: dict) -> None:
    """A CalibratedClassifierCV (:mod:`nbayes.io._wrappers`): ``classes``, each model's own
    layout under ``model/<i>/``, each calibrator's numbers."""
    method, models = _wrappers.calibration_models(meta)
    classes = arrays.get("classes")
    if classes is None or len(classes[0]) != 1:
        raise ModelFormatError("Model file: the manifest must declare classes as a 1-D array.")
    expected["classes"] = ((classes[0][0],), "biufU")
    for i, entry in enumerate(models):  # bounded by calibration_models()
        _expect_kind(entry["estimator"], entry.get("state"), arrays, expected, f"model/{i}/")
        for j in range(entry["n_calibrators"]):  # bounded by calibration_models()
            for key, want in _wrappers.CALIBRATOR_ARRAYS[method].items():
                expected[f"calibrator/{i}/{j}/{key}"] = want


#: Wrapper class name (:data:`nbayes.io._wrappers.WRAPPERS`) -> the check of its arrays.
WRAPPER_LAYOUTS = {"CalibratedClassifierCV": _expect_calibrated}


def sizes(declared: dict, members: dict, max_member: int, max_total: int) -> None:
    """Each member's uncompressed size (from the zip directory) must be that of its declared
    array plus a .npy header, at most ``max_member``; all of them at most ``max_total``.

    ``declared`` maps names to (shape, dtype); ``members`` maps names to zip ``file_size``.
    """
    total = 0
    for name, (shape, dtype) in declared.items():
        data = nbytes(shape, dtype)
        size = members[name]
        if not data + 10 <= size <= data + MAX_HEADER_BYTES:
            raise ModelFormatError(
                f"Model file: the member of array {name!r} is {size} bytes uncompressed; an "
                f"array of the declared shape {shape} and dtype {dtype.str} takes {data} bytes "
                "plus a short header. The file is corrupt or forged."
            )
        if size > max_member:
            raise ModelFormatError(
                f"Model file: array {name!r} is {size} bytes uncompressed, over the limit of "
                f"{max_member}; pass a larger max_member_bytes if you trust this file."
            )
        total += size
    if total > max_total:
        raise ModelFormatError(
            f"Model file: its arrays take {total} bytes uncompressed, over the limit of "
            f"{max_total}; pass a larger max_total_bytes if you trust this file."
        )
