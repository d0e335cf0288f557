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
import tokenize
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np

from .._output import output_file
from ..exceptions import ModelFormatError, NotFittedError, ParameterError
from . import _declared, _dispatch, _wrappers
from . import _plain as state

FORMAT_NAME = "nbayes-model"
FORMAT_VERSION = 1
#: Suggested file name suffix; the loader does not insist on it.
MODEL_SUFFIX = ".nbayes"
MANIFEST = "manifest.json"
#: Default largest uncompressed member accepted by :func:`load` (bytes).
MAX_MEMBER_BYTES = 2**31
#: Default largest total of uncompressed members accepted by :func:`load` (bytes).
MAX_TOTAL_BYTES = 2**32
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
        Any estimator in ``nbayes.estimators.REGISTRY`` (or ``TextNB``), or a
        :class:`nbayes.calibration.CalibratedClassifierCV` of one: its fitted models and
        scikit-learn's calibrators are stored as plain numbers.
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
    Path
        The path of the written file.

    Raises
    ------
    nbayes._output.WriteError
        The file could not be written (full disk, I/O error, a folder, a pipe whose reader
        left); an ``OSError`` whose message names ``path``.

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
    wrapper = _wrappers.is_wrapper(model)
    if not wrapper and (
        state.components().get(name) is not type(model) or name not in _dispatch.KINDS
    ):
        raise ParameterError(
            f"save() stores nbayes estimators only (and {', '.join(sorted(_wrappers.WRAPPERS))} "
            f"of one); got a {name}. Registered estimators: {sorted(_dispatch.KINDS)}. For "
            "another wrapper around one (a pipeline), save the nbayes estimator it holds and "
            "wrap it again after loading."
        )
    try:
        if wrapper:
            params, meta, arrays = _wrappers.WRAPPERS[name][1](model)
        else:
            params, meta, arrays = _dispatch.dump(model)
    except NotFittedError:
        raise NotFittedError(f"This {name} is not fitted yet; fit it before saving.") from None
    manifest: dict[str, Any] = {
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
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,  # a compression method or zip version zipfile lacks
    ) as exc:
        raise _fail(path, f"the zip archive is damaged or truncated ({exc}).") from None


def _read_member(zf: zipfile.ZipFile, path, name: str, limit: int) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise _fail(path, f"the member {name!r} is missing.") from None
    if info.file_size > limit:
        raise _fail(
            path,
            f"the member {name!r} is {info.file_size} bytes uncompressed, over the limit of "
            f"{limit} bytes for it; the file is corrupt or forged.",
        )
    try:
        with zf.open(info) as f:
            # zipfile hands out at most the declared size, checked above (and then checks
            # the CRC); reading at most the limit bounds memory whatever the archive claims.
            data = f.read(limit)
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
        RuntimeError,  # zipfile's "encrypted, password required"
    ) as exc:
        raise _fail(
            path, f"cannot read {name!r}; the archive is damaged or truncated ({exc})."
        ) from None
    return data


def _parse_manifest(zf, path) -> dict:
    raw = _read_member(zf, path, MANIFEST, _MAX_MANIFEST_BYTES)

    def no_constants(token):
        raise ValueError(f"non-finite number {token}")

    try:
        manifest = json.loads(raw.decode("utf-8"), parse_constant=no_constants)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
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

    Parameters
    ----------
    path : str or path-like
        A model file written by :func:`nbayes.save`.

    Returns
    -------
    dict
        The manifest, checked as :func:`load` checks it: ``format``, ``format_version``,
        ``nbayes_version``, ``estimator``, ``params``, ``state``, ``arrays`` (the shape and
        dtype of every array) and ``metadata`` (as given to :func:`nbayes.save`).

    Raises
    ------
    ModelFormatError
        The file is not a model file, or its manifest is malformed or of a newer format.

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


def _read_array(zf: zipfile.ZipFile, path, name: str, shape, dtype) -> np.ndarray:
    """Read one .npy member straight from the archive into its array, after checking its
    header against the manifest; the member's size was checked before (:func:`_declared.sizes`),
    so at most that many bytes are inflated, and no second copy of the data is made."""
    try:
        with zf.open(_member(name)) as f:
            try:
                version = np.lib.format.read_magic(f)
                if version not in ((1, 0), (2, 0)):
                    raise ValueError(f"unsupported .npy version {version[0]}.{version[1]}")
                read_header = (
                    np.lib.format.read_array_header_1_0
                    if version == (1, 0)
                    else np.lib.format.read_array_header_2_0
                )
                header, fortran, got = read_header(f, max_header_size=_declared.MAX_HEADER)
            # numpy parses the header as a Python literal: damaged text raises any of these.
            except (ValueError, SyntaxError, TypeError, tokenize.TokenError) as exc:
                raise _fail(path, f"array {name!r} is not a valid .npy array ({exc}).") from None
            if got.hasobject or got.kind not in state.ARRAY_KINDS:
                raise _fail(
                    path,
                    f"array {name!r} has dtype {got}; only bool, integer, float and "
                    "unicode arrays are allowed (object arrays would need pickle).",
                )
            if tuple(header) != shape or got.str != dtype.str:
                raise _fail(
                    path,
                    f"array {name!r} has shape {tuple(header)} and dtype {got.str}, "
                    f"but the manifest declares {shape} and {dtype.str}.",
                )
            flat = np.empty(_declared.nbytes(shape, dtype) // dtype.itemsize, dtype=dtype)
            view, done = flat.view(np.uint8).data, 0
            reader = cast(io.BufferedIOBase, f)  # a ZipExtFile, which reads into a buffer
            while done < view.nbytes:  # bounded: chunks of 16 MiB up to the declared size
                n = reader.readinto(view[done : done + 2**24])
                if not n:
                    break
                done += n
            if done != view.nbytes or f.read(1):
                raise _fail(
                    path,
                    f"array {name!r} holds {done if done != view.nbytes else 'more'} bytes "
                    f"of data; its header needs {view.nbytes}. The file is truncated or corrupt.",
                )
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        NotImplementedError,
        RuntimeError,  # zipfile's "encrypted, password required"
    ) as exc:
        raise _fail(
            path, f"cannot read {name!r}; the archive is damaged or truncated ({exc})."
        ) from None
    arr = flat.reshape(shape, order="F" if fortran else "C")
    try:
        return state.check_array(name, arr)
    except ModelFormatError as exc:
        raise _fail(path, str(exc)) from None


def _check_declared(zf, path, manifest, max_member: int, max_total: int) -> dict:
    """(shape, dtype) of every declared array, held to the manifest's layout and the size
    limits before anything is inflated (see :mod:`nbayes.io._declared`)."""
    name = manifest["estimator"]
    try:
        if name not in _dispatch.KINDS and name not in _wrappers.WRAPPERS:
            state.build(name, {}, "estimator")  # an unknown class: its own message
            raise ModelFormatError(f"Model file: {name} cannot be restored.")
        declared = _declared.parse(manifest["arrays"])
        _declared.check(name, manifest["state"], declared)
        sizes = {}
        for key in declared:
            info = zf.NameToInfo.get(_member(key))
            if info is None:
                raise ModelFormatError(f"Model file: the member {_member(key)!r} is missing.")
            sizes[key] = info.file_size
        _declared.sizes(declared, sizes, max_member, max_total)
    except ModelFormatError as exc:
        raise _fail(path, str(exc).removeprefix("Model file: ")) from None
    return declared


def _read_v1(zf, path, manifest, limit, total_limit):
    for key in ("estimator", "params", "state", "arrays"):
        if key not in manifest:
            raise _fail(path, f"manifest.json lacks {key!r}.")
    if not isinstance(manifest["estimator"], str):
        raise _fail(path, f"manifest.json names no estimator class ({manifest['estimator']!r}).")
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
    shapes = _check_declared(zf, path, manifest, limit, total_limit)
    arrays = {k: _read_array(zf, path, k, *shapes[k]) for k in declared}
    name = manifest["estimator"]
    try:
        if name in _wrappers.WRAPPERS:
            model = _wrappers.WRAPPERS[name][2](manifest["params"], manifest["state"], arrays)
        else:
            model = _dispatch.load(name, manifest["params"], manifest["state"], arrays)
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


def load(path, *, max_member_bytes: int = MAX_MEMBER_BYTES, max_total_bytes: int = MAX_TOTAL_BYTES):
    """Read a model written by :func:`save`; never executes code from the file.

    Parameters
    ----------
    path : str or path-like
        A model file written by :func:`save`.
    max_member_bytes : int, default 2 GiB
        Largest uncompressed archive member accepted (guards against zip bombs).
    max_total_bytes : int, default 4 GiB
        Largest total of the uncompressed members. Before any array is inflated, every
        array's declared shape is checked against the manifest (classes, features, columns
        per group, vocabulary lengths) and its member's size against that shape, so a forged
        file is refused after reading its manifest; these limits bound what a file that is
        consistent in every shape can make :func:`load` allocate.

    Returns
    -------
    estimator
        The fitted estimator, of the class the file names.

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
        return _READERS[manifest["format_version"]](
            zf, path, manifest, max_member_bytes, max_total_bytes
        )
