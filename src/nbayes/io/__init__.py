"""Safe model files: a zip of ``manifest.json`` and ``.npy`` arrays, never pickle.

A model file stores an estimator's constructor parameters, its fitted *statistics* (not only
the final parameters) and a little metadata, so a loaded model predicts identically, can keep
learning with ``partial_fit`` and can be merged with others.

Loading never runs code from the file: the manifest is JSON, arrays are read with
``np.load(..., allow_pickle=False)`` after their headers have been checked, and objects are
built only from the library's registries (``nbayes.estimators.REGISTRY``,
``nbayes.distributions.REGISTRY`` and scikit-learn's CountVectorizer / HashingVectorizer).
Anything unexpected -- not a zip, a truncated archive, an unknown class or family, arrays of
the wrong shape or dtype, NaN, a newer format, an oversized member -- raises
:class:`~nbayes.exceptions.ModelFormatError`.

Format history (every change bumps :data:`FORMAT_VERSION` and keeps a reader for older files,
with a fixture under ``tests/data/``):

* 1 -- ``manifest.json`` (``format``, ``format_version``, ``nbayes_version``, ``estimator``,
  ``params``, ``state``, ``arrays`` with shape and dtype of each member, ``metadata``) and one
  ``arrays/<name>.npy`` member per array.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from .._output import output_file
from ..exceptions import ModelFormatError, NotFittedError, ParameterError
from . import _dispatch
from . import _plain as state

FORMAT_NAME = "nbayes-model"
FORMAT_VERSION = 1
#: Suggested file name suffix; the loader does not insist on it.
MODEL_SUFFIX = ".nbayes"
MANIFEST = "manifest.json"
#: Default largest uncompressed member accepted by :func:`load` (bytes).
MAX_MEMBER_BYTES = 2**31
_MAX_MANIFEST_BYTES = 64 * 2**20
_ARRAY_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}$")
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same model gives the same bytes

__all__ = ["FORMAT_VERSION", "MODEL_SUFFIX", "load", "read_manifest", "save"]


def _member(name: str) -> str:
    return f"arrays/{name}.npy"


def _npy_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def save(model, path, *, metadata: Mapping | None = None) -> Path:
    """Write a fitted nbayes estimator to ``path`` atomically.

    Parameters
    ----------
    model : fitted nbayes estimator
        Any estimator in ``nbayes.estimators.REGISTRY`` (or ``TextNB``).
    path : str or path-like
        Destination. A regular file (or a new path) is written to a temporary file in the
        same folder and renamed over it once complete, so readers never see a half-written
        model and a failure leaves the old file as it was; through a symbolic link, the
        link's target is replaced. A pipe or device (``/dev/stdout``) is written into
        directly. New files get the permissions the umask allows; a replaced file keeps its
        mode. ``.nbayes`` is the conventional suffix.
    metadata : mapping, optional
        Extra JSON-able information stored in the manifest (e.g. training columns).

    Returns
    -------
    Path of the written file.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from nbayes import MultinomialNB, save, load
    >>> model = MultinomialNB().fit(np.array([[2, 0], [0, 3]]), ["a", "b"])
    >>> path = save(model, os.path.join(tempfile.mkdtemp(), "model.nbayes"))
    >>> load(path).predict(np.array([[1, 0]])).tolist()
    ['a']
    """
    from .._version import __version__

    name = type(model).__name__
    if state.components().get(name) is not type(model) or name not in _dispatch.KINDS:
        raise ParameterError(
            f"save() stores nbayes estimators only; got a {name}. Registered estimators: "
            f"{sorted(_dispatch.KINDS)}."
        )
    try:
        params, meta, arrays = _dispatch.dump(model)
    except NotFittedError:
        raise NotFittedError(f"This {name} is not fitted yet; fit it before saving.") from None
    manifest = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "nbayes_version": __version__,
        "estimator": name,
        "params": params,
        "state": meta,
        "arrays": {},
        "metadata": _plain_json(metadata),
    }
    members = {}
    for key, value in arrays.items():
        if not _ARRAY_NAME.match(key) or ".." in key:
            raise ParameterError(f"Array name {key!r} is not allowed in a model file.")
        arr = state.check_array(key, np.asarray(value))
        manifest["arrays"][key] = {"shape": list(arr.shape), "dtype": arr.dtype.str}
        members[_member(key)] = _npy_bytes(arr)
    body = json.dumps(manifest, indent=1, sort_keys=True, allow_nan=False).encode("utf-8")

    # The archive is built in memory (the arrays are in memory already), so the same bytes go
    # to a file, a pipe or a device, and a failure half-way never touches the destination.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for member, data in [(MANIFEST, body), *members.items()]:
            info = zipfile.ZipInfo(member, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    with output_file(path, name=os.fspath(path)) as out:
        out.write(buf.getbuffer())
    path = Path(path)
    return path


def _plain_json(metadata) -> dict:
    """User metadata must be plain JSON (objects, lists, strings, finite numbers)."""
    metadata = dict(metadata or {})
    try:
        json.dumps(metadata, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ParameterError(
            f"metadata must be plain JSON data (dicts, lists, strings, finite numbers); {exc}."
        ) from None
    return metadata


# -- reading ---------------------------------------------------------------------------------------
def _fail(path, message: str) -> ModelFormatError:
    return ModelFormatError(f"{path}: {message}")


def _open_zip(path) -> zipfile.ZipFile:
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except FileNotFoundError:
        raise FileNotFoundError(f"Model file {str(path)!r} does not exist.") from None
    except IsADirectoryError:
        raise ModelFormatError(f"{path}: is a folder, not a model file.") from None
    if head[:1] == b"\x80":
        raise _fail(
            path,
            "this looks like a Python pickle, not an nbayes model file. nbayes "
            "never loads pickles (they can run arbitrary code); re-save the model "
            "with nbayes.save().",
        )
    if head[:2] != b"PK":
        raise _fail(
            path,
            "not an nbayes model file (not a zip archive). Model files are "
            "written by nbayes.save() or `nbayes train`.",
        )
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise _fail(path, f"the zip archive is damaged or truncated ({exc}).") from None


def _read_member(zf: zipfile.ZipFile, path, name: str, limit: int) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise _fail(path, f"the member {name!r} is missing.") from None
    if info.file_size > limit:
        raise _fail(
            path,
            f"the member {name!r} is {info.file_size} bytes uncompressed, over "
            f"the limit of {limit}; pass a larger max_member_bytes if you trust "
            "this file.",
        )
    try:
        with zf.open(info) as f:
            data = f.read(limit + 1)  # never trust the declared size: read at most the limit
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
    ) as exc:
        raise _fail(
            path, f"cannot read {name!r}; the archive is damaged or truncated ({exc})."
        ) from None
    if len(data) > limit:
        raise _fail(path, f"the member {name!r} is over the limit of {limit} bytes.")
    return data


def _parse_manifest(zf, path) -> dict:
    raw = _read_member(zf, path, MANIFEST, _MAX_MANIFEST_BYTES)

    def no_constants(token):
        raise ValueError(f"non-finite number {token}")

    try:
        manifest = json.loads(raw.decode("utf-8"), parse_constant=no_constants)
    except (UnicodeDecodeError, ValueError) as exc:
        raise _fail(path, f"manifest.json is not valid JSON ({exc}).") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise _fail(path, "manifest.json does not describe an nbayes model.")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _fail(path, f"invalid format_version {version!r}.")
    if version > FORMAT_VERSION:
        raise _fail(
            path,
            f"written in model format {version} by nbayes "
            f"{manifest.get('nbayes_version', '?')}; this nbayes reads formats up "
            f"to {FORMAT_VERSION}. Upgrade nbayes to load it.",
        )
    return manifest


def read_manifest(path) -> dict:
    """Return the checked manifest of a model file without building the model.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from nbayes import GaussianNB, save
    >>> from nbayes.io import read_manifest
    >>> path = save(GaussianNB().fit([[0.0], [1.0]], [0, 1]),
    ...             os.path.join(tempfile.mkdtemp(), "m.nbayes"))
    >>> read_manifest(path)["estimator"], read_manifest(path)["format_version"]
    ('GaussianNB', 1)
    """
    with _open_zip(path) as zf:
        return _parse_manifest(zf, path)


def _load_array(data: bytes, path, name: str, declared) -> np.ndarray:
    """Parse one .npy member after checking its header against the manifest."""
    if not isinstance(declared, dict) or set(declared) != {"shape", "dtype"}:
        raise _fail(path, f"the manifest entry of array {name!r} is malformed.")
    buf = io.BytesIO(data)
    try:
        major, minor = np.lib.format.read_magic(buf)
        if (major, minor) == (1, 0):
            shape, _fortran, dtype = np.lib.format.read_array_header_1_0(buf)
        elif (major, minor) == (2, 0):
            shape, _fortran, dtype = np.lib.format.read_array_header_2_0(buf)
        else:
            raise ValueError(f"unsupported .npy version {major}.{minor}")
    except ValueError as exc:
        raise _fail(path, f"array {name!r} is not a valid .npy array ({exc}).") from None
    if dtype.hasobject or dtype.kind not in state.ARRAY_KINDS:
        raise _fail(
            path,
            f"array {name!r} has dtype {dtype}; only bool, integer, float and "
            "unicode arrays are allowed (object arrays would need pickle).",
        )
    if list(shape) != declared["shape"] or dtype.str != declared["dtype"]:
        raise _fail(
            path,
            f"array {name!r} has shape {tuple(shape)} and dtype {dtype.str}, "
            f"but the manifest declares {tuple(declared['shape'])} and "
            f"{declared['dtype']}.",
        )
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(data) - buf.tell() != expected:
        raise _fail(
            path,
            f"array {name!r} holds {len(data) - buf.tell()} bytes of data; its "
            f"header needs {expected}. The file is truncated or corrupt.",
        )
    buf.seek(0)
    try:
        arr = np.load(buf, allow_pickle=False)
    except ValueError as exc:
        raise _fail(path, f"cannot read array {name!r} ({exc}).") from None
    try:
        return state.check_array(name, arr)
    except ModelFormatError as exc:
        raise _fail(path, str(exc)) from None


def _read_v1(zf, path, manifest, limit):
    for key in ("estimator", "params", "state", "arrays"):
        if key not in manifest:
            raise _fail(path, f"manifest.json lacks {key!r}.")
    declared = manifest["arrays"]
    if not isinstance(declared, dict) or not isinstance(manifest["state"], dict):
        raise _fail(path, "manifest.json is malformed ('arrays' and 'state' must be objects).")
    expected = {MANIFEST} | {_member(k) for k in declared}
    names = zf.namelist()
    unexpected = sorted(set(names) - expected)
    if unexpected or len(names) != len(set(names)):
        raise _fail(path, f"unexpected or duplicate members {unexpected or names}.")
    for key in declared:
        if not isinstance(key, str) or not _ARRAY_NAME.match(key) or ".." in key:
            raise _fail(path, f"invalid array name {key!r}.")
    arrays = {
        k: _load_array(_read_member(zf, path, _member(k), limit), path, k, v)
        for k, v in declared.items()
    }
    try:
        model = _dispatch.load(manifest["estimator"], manifest["params"], manifest["state"], arrays)
    except ModelFormatError as exc:
        raise _fail(path, str(exc).removeprefix("Model file: ")) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        # Any other failure while rebuilding means the state is inconsistent; report it as a
        # format error rather than let a half-built model escape.
        raise _fail(
            path, f"the stored state is inconsistent ({type(exc).__name__}: {exc})."
        ) from None
    return model


_READERS = {1: _read_v1}


def load(path, *, max_member_bytes: int = MAX_MEMBER_BYTES):
    """Read a model written by :func:`save`; never executes code from the file.

    Parameters
    ----------
    path : str or path-like
    max_member_bytes : int, default 2 GiB
        Largest uncompressed archive member accepted (guards against zip bombs).

    Returns
    -------
    The fitted estimator.

    Raises
    ------
    ModelFormatError
        The file is not a model file, is damaged, was written by a newer nbayes, or holds
        inconsistent state.
    FileNotFoundError
        ``path`` does not exist.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from nbayes import BernoulliNB, save, load
    >>> X = np.array([[1, 0], [0, 1]]); model = BernoulliNB().fit(X, [0, 1])
    >>> path = save(model, os.path.join(tempfile.mkdtemp(), "m.nbayes"))
    >>> np.array_equal(load(path).predict_proba(X), model.predict_proba(X))
    True
    """
    with _open_zip(path) as zf:
        manifest = _parse_manifest(zf, path)
        return _READERS[manifest["format_version"]](zf, path, manifest, max_member_bytes)
