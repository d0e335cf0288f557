"""Checked conversion of plain data to and from what a model file holds (JSON + numpy arrays).

Model files (:mod:`nbayes.io`) store an estimator as its constructor parameters, a JSON
"meta" dict and a flat dict of numpy arrays. This module holds the pieces the per-estimator
dump/load functions of :mod:`nbayes.io._dispatch` share:

* :func:`to_jsonable` / :func:`from_jsonable` -- parameters as tagged JSON. Decoding builds
  objects only from the library's registries (estimators, families -- e.g. those in
  MixedNB's ``columns`` --, scikit-learn's text vectorisers); anything else is refused.
* :func:`take` -- every array that comes back from a file is checked for dtype, shape and
  finiteness before an estimator uses it (the families' statistics through their types, in
  :mod:`nbayes.io._statistics`). A problem raises :class:`~nbayes.exceptions.ModelFormatError`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from ..exceptions import ModelFormatError, ParameterError

#: dtype kinds an array in a model file may have: bool, signed/unsigned int, float, unicode.
ARRAY_KINDS = "biufU"

#: numpy scalar types a parameter may name (scikit-learn vectorisers take ``dtype=np.float64``).
_DTYPE_NAMES = ("float64", "float32", "int64", "int32", "int16", "int8", "uint8", "bool")


def components(vectorisers: bool = True) -> dict[str, type]:
    """Classes a model file may instantiate, by name: nbayes estimators and text vectorisers
    (left out with ``vectorisers=False``: scikit-learn's text module is imported only for a
    model that holds one)."""
    from ..estimators import REGISTRY

    if not vectorisers:
        return dict(REGISTRY)
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

    return {**REGISTRY, "CountVectorizer": CountVectorizer, "HashingVectorizer": HashingVectorizer}


# -- parameters as JSON ------------------------------------------------------------------------
def to_jsonable(value, where: str = "params"):
    """Encode a parameter value as JSON data; raise ParameterError for what cannot be stored.

    Tuples, arrays, numpy dtypes and (unfitted) registered estimators are tagged so that
    :func:`from_jsonable` gives back the same types.
    """
    from sklearn.base import BaseEstimator

    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ParameterError(f"{where} = {value!r} is not finite and cannot be saved.")
        return float(value)
    if isinstance(value, tuple):
        return {"__tuple__": [to_jsonable(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [to_jsonable(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise ParameterError(f"{where} has non-string keys and cannot be saved.")
        return {"__dict__": {k: to_jsonable(v, f"{where}[{k!r}]") for k, v in value.items()}}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise ParameterError(
                f"{where} is an array of dtype {value.dtype}; only numeric arrays can be saved."
            )
        return {"__ndarray__": to_jsonable(value.tolist(), where), "dtype": value.dtype.str}
    if isinstance(value, type) and issubclass(value, np.generic):
        name = np.dtype(value).name
        if name in _DTYPE_NAMES:
            return {"__dtype__": name}
    from ..distributions import REGISTRY as FAMILIES
    from ..distributions import Family

    if isinstance(value, Family) and FAMILIES.get(value.name) is type(value):
        return {
            "__family__": value.name,
            "params": to_jsonable(value.get_params(), f"{where}.params"),
        }
    if isinstance(value, BaseEstimator):
        name = type(value).__name__
        if components().get(name) is not type(value):
            raise ParameterError(
                f"{where} holds a {name}, which model files cannot store; they store nbayes "
                "estimators and scikit-learn's CountVectorizer / HashingVectorizer only."
            )
        return {
            "__estimator__": name,
            "params": to_jsonable(cast(Any, value).get_params(deep=False), f"{where}.params"),
        }
    raise ParameterError(
        f"{where} = {value!r} cannot be saved: model files hold data only (numbers, strings, "
        "lists), never code or arbitrary objects. Use a built-in option instead (for text, a "
        "token_pattern rather than a tokenizer function)."
    )


def from_jsonable(data, where: str = "params"):
    """Decode :func:`to_jsonable` output; unknown tags or classes raise ModelFormatError."""
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if isinstance(data, list):
        return [from_jsonable(v, f"{where}[{i}]") for i, v in enumerate(data)]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise ModelFormatError(f"Model file: {where} holds unreadable data {data!r}.")
    if set(data) == {"__tuple__"} and isinstance(data["__tuple__"], list):
        return tuple(from_jsonable(data["__tuple__"], where))
    if set(data) == {"__dict__"} and isinstance(data["__dict__"], dict):
        return {k: from_jsonable(v, f"{where}[{k!r}]") for k, v in data["__dict__"].items()}
    if set(data) == {"__dtype__"} and data["__dtype__"] in _DTYPE_NAMES:
        return np.dtype(data["__dtype__"]).type
    if set(data) == {"__ndarray__", "dtype"}:
        try:
            dtype = np.dtype(data["dtype"])
        except TypeError:
            dtype = None
        if dtype is None or dtype.kind not in "biuf":
            raise ModelFormatError(
                f"Model file: {where} declares array dtype {data['dtype']!r}; expected a "
                "numeric dtype."
            )
        try:
            return np.asarray(from_jsonable(data["__ndarray__"], where), dtype=dtype)
        except (TypeError, ValueError) as exc:
            raise ModelFormatError(
                f"Model file: {where} holds an unreadable array: {exc}"
            ) from None
    if set(data) == {"__family__", "params"}:
        return make_family({"name": data["__family__"], "params": data["params"]}, where)
    if set(data) == {"__estimator__", "params"}:
        return build(data["__estimator__"], from_jsonable(data["params"], f"{where}.params"), where)
    raise ModelFormatError(f"Model file: {where} holds unknown tagged data {sorted(data)!r}.")


def build(name, params, where: str = "estimator"):
    """Instantiate a registered class by name with keyword parameters."""
    table = components(vectorisers=False)
    if not isinstance(name, str) or name not in table:
        table = components()
    if not isinstance(name, str) or name not in table:
        raise ModelFormatError(
            f"Model file: {where} names an unknown class {name!r}; this nbayes knows "
            f"{sorted(table)}. Was the file written by a newer nbayes?"
        )
    if not isinstance(params, dict):
        raise ModelFormatError(f"Model file: parameters of {where} are not a mapping.")
    try:
        return table[name](**params)
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(
            f"Model file: cannot build {name} for {where} from the stored parameters: {exc}"
        ) from None


def make_family(spec, where: str):
    """Build a family from ``{"name": ..., "params": {...}}`` using the family registry."""
    from ..distributions import REGISTRY

    if not isinstance(spec, dict) or set(spec) != {"name", "params"}:
        raise ModelFormatError(f"Model file: {where} is not a family description: {spec!r}.")
    name = spec["name"]
    if not isinstance(name, str) or name not in REGISTRY:
        raise ModelFormatError(
            f"Model file: {where} names an unknown family {name!r}; this nbayes knows "
            f"{sorted(REGISTRY)}. Was the file written by a newer nbayes?"
        )
    params = from_jsonable(spec["params"], f"{where}.params")
    if not isinstance(params, dict):
        raise ModelFormatError(f"Model file: {where}.params is not a mapping.")
    try:
        return REGISTRY[name](**params)
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(
            f"Model file: cannot build family {name!r} for {where}: {exc}"
        ) from None


def family_spec(family) -> dict:
    """JSON description of a family: registry name and hyperparameters."""
    return {
        "name": family.name,
        "params": to_jsonable(family.get_params(), f"family {family.name!r}"),
    }


# -- arrays --------------------------------------------------------------------------------------
def label_array(values, what: str = "classes") -> np.ndarray:
    """Labels as a numpy array a model file can hold (numbers, bools or unicode strings).

    An object array (pandas' labels) is stored with the common type of its items; pair it
    with :func:`label_dtype` so that loading gives back an object array.
    """
    arr = np.asarray(values)
    if arr.dtype.kind in ARRAY_KINDS:
        return arr
    if arr.dtype == object:
        items = arr.tolist()  # one entry per class or feature: bounded and small
        if all(isinstance(v, str) for v in items):
            return np.asarray(items, dtype=str) if items else np.asarray([], dtype="<U1")
        if all(isinstance(v, (bool, np.bool_)) for v in items):
            return np.asarray(items, dtype=bool)
        if all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in items
        ):
            return np.asarray(items, dtype=np.int64)
        if all(
            isinstance(v, (int, float, np.integer, np.floating))
            and not isinstance(v, (bool, np.bool_))
            for v in items
        ):
            return np.asarray(items, dtype=np.float64)
    raise ParameterError(
        f"{what} {arr.tolist()!r} mix types or hold objects; a model file can store labels "
        "that are all strings, all integers, all floats or all booleans. Convert them first, "
        "e.g. y.astype(str)."
    )


#: The one dtype :func:`label_dtype` records: numpy arrays store everything else as is.
OBJECT_LABELS = "object"


def label_dtype(values) -> str | None:
    """``"object"`` when ``values`` is an object array (kept through a model file), else None."""
    return OBJECT_LABELS if np.asarray(values).dtype == object else None


def restore_label_dtype(arr: np.ndarray, dtype, what: str = "classes") -> np.ndarray:
    """Give labels read from a model file back the dtype :func:`label_dtype` recorded."""
    if dtype is None:
        return arr
    if dtype != OBJECT_LABELS:
        raise ModelFormatError(
            f"Model file: the dtype of {what} is recorded as {dtype!r}; expected "
            f"{OBJECT_LABELS!r} or nothing."
        )
    return arr.astype(object)


def check_array(name: str, arr: np.ndarray) -> np.ndarray:
    """Reject dtypes a model file may not hold and non-finite floats."""
    if arr.dtype.kind not in ARRAY_KINDS or arr.dtype.hasobject:
        raise ModelFormatError(
            f"Model file: array {name!r} has dtype {arr.dtype}; allowed are bool, integer, "
            "float and unicode arrays."
        )
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = "NaN" if np.isnan(arr).any() else "infinite values"
        raise ModelFormatError(f"Model file: array {name!r} contains {bad}; the file is corrupt.")
    return arr


def take(
    arrays: Mapping[str, np.ndarray],
    name: str,
    *,
    kinds: str = ARRAY_KINDS,
    shape: tuple | None = None,
    ndim: int | None = None,
    non_negative: bool = False,
) -> np.ndarray:
    """Fetch array ``name`` and check its kind, shape and values."""
    if name not in arrays:
        raise ModelFormatError(f"Model file: the array {name!r} is missing.")
    arr = check_array(name, np.asarray(arrays[name]))
    if arr.dtype.kind not in kinds:
        raise ModelFormatError(
            f"Model file: array {name!r} has dtype {arr.dtype}; expected kind {kinds!r}."
        )
    if ndim is not None and arr.ndim != ndim:
        raise ModelFormatError(
            f"Model file: array {name!r} has {arr.ndim} dimensions; expected {ndim}."
        )
    if shape is not None and arr.shape != tuple(shape):
        raise ModelFormatError(
            f"Model file: array {name!r} has shape {arr.shape}; expected {tuple(shape)}."
        )
    if non_negative and arr.dtype.kind in "if" and np.any(arr < 0):
        raise ModelFormatError(f"Model file: array {name!r} has negative entries.")
    return arr


def check_params(params: list, where: str = "model") -> None:
    """Finalized parameters must not contain NaN (forged statistics can produce it)."""
    for i, group in enumerate(params):
        for key, value in group.items():
            arr = np.asarray(value)
            if arr.dtype.kind == "f" and np.isnan(arr).any():
                raise ModelFormatError(
                    f"Model file: the stored statistics give NaN parameters ({key!r} of "
                    f"column group {i}) in {where}; the file is corrupt."
                )
