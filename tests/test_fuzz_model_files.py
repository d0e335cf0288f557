"""Property-based fuzz of the model-file reader.

Real saved models of every registered estimator are mutated -- raw bytes of the file, bytes of
one member (re-zipped with a valid checksum), manifest values, member names, declared shapes
and dtypes (with members rewritten to match), array values -- and loaded with a small member
cap (bounded memory). A mutation of the raw file either leaves the model identical (a byte the
reader never looks at) or is refused with ModelFormatError. A consistent edit of the content
may describe another valid model: then the loaded model must work (finite probabilities that
sum to one, or an nbayes error naming the problem). Any other exception is a reader bug.
"""

from __future__ import annotations

import functools
import io
import json
import os
import tempfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

import nbayes
from nbayes.estimators import REGISTRY
from nbayes.exceptions import ModelFormatError, NBayesError

#: Largest member the fuzzed loads accept: models here are a few kB, so a mutation that
#: declares more is refused before anything big is allocated.
CAP = 2**16
FUZZ = settings(
    max_examples=int(os.environ.get("NBAYES_FUZZ_EXAMPLES", 25)),  # more for a deeper run
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _mixed_table(n=12):
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {
            "height": rng.normal(170, 8, n),
            "city": rng.choice(["Oslo", "Rome", "Lima"], n),
            "visits": rng.integers(0, 3, n),
            "member": rng.random(n) < 0.5,
        }
    )


TEXTS = ["win cash now", "lunch at noon", "free prize call", "see you at noon"] * 3


def _models():
    """name -> (fitted model, input to score); small, one per estimator kind and vocabulary."""
    rng = np.random.default_rng(0)
    y = np.array(["a", "b", "c"] * 4)
    counts = rng.poisson(2.0, (12, 3)).astype(float)
    return {
        "GaussianNB": (nbayes.GaussianNB().fit(rng.normal(size=(12, 3)), y), None),
        "GaussianNB-shared": (
            nbayes.GaussianNB(var_pooling="shared").fit(rng.normal(size=(12, 3)), y),
            None,
        ),
        "GaussianNB-bayes": (
            nbayes.GaussianNB(estimate="posterior_predictive").fit(rng.normal(size=(12, 3)), y),
            None,
        ),
        "BernoulliNB": (nbayes.BernoulliNB().fit(counts > 1, y), None),
        "DensityNB": (nbayes.DensityNB(bins=16).fit(rng.normal(size=(12, 3)), y), None),
        "MultinomialNB": (nbayes.MultinomialNB(alpha="auto").fit(counts, y), None),
        "ComplementNB": (nbayes.ComplementNB().fit(counts, y), None),
        "PoissonNB": (nbayes.PoissonNB().fit(counts, y), None),
        "CategoricalNB": (
            nbayes.CategoricalNB().fit(np.array([["x", 1], ["y", 2], ["x", 3]] * 4, object), y),
            None,
        ),
        "MixedNB": (nbayes.MixedNB().fit(_mixed_table(), y), None),
        # The semi-naive models: count tables, a vocabulary, bin edges (and JointBayes' vectors).
        "AODE": (nbayes.AODE(binning="quantile", n_bins=3).fit(_mixed_table(), y), None),
        "TAN": (nbayes.TAN(binning="quantile", n_bins=3).fit(_mixed_table(), y), None),
        "KDB": (nbayes.KDB(binning="quantile", n_bins=3).fit(_mixed_table(), y), None),
        "JointBayes": (nbayes.JointBayes().fit(_mixed_table(), y), None),
        "TextNB": (nbayes.TextNB(vectorizer=CountVectorizer()).fit(TEXTS, y), TEXTS),
        "TextNB-hashing": (
            nbayes.TextNB(
                vectorizer=HashingVectorizer(n_features=16, alternate_sign=False, norm=None)
            ).fit(TEXTS, y),
            TEXTS,
        ),
    }


def _inputs(name, model):
    if name.startswith("TextNB"):
        return TEXTS
    if name in ("MixedNB", "AODE", "TAN", "KDB", "JointBayes"):
        return _mixed_table()
    if name == "CategoricalNB":
        return np.array([["x", 1], ["y", 2], ["x", 3]] * 4, object)
    rng = np.random.default_rng(0)
    return rng.poisson(2.0, (12, model.n_features_in_)).astype(float)


@functools.cache
def originals():
    """name -> (file bytes, scoring input, reference log-probabilities); a function, not a
    fixture, so that a failing example does not print every file."""
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, (model, _) in _models().items():
            X = _inputs(name, model)
            path = nbayes.save(model, Path(folder) / f"{name}.nbayes")
            out[name] = (path.read_bytes(), X, model.predict_log_proba(X))
    return out


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz") / "mutant.nbayes"


def test_every_registered_estimator_is_fuzzed():
    assert sorted(_models()) == MODEL_NAMES
    assert {name.split("-")[0] for name in MODEL_NAMES} == set(REGISTRY)


# -- the oracle ------------------------------------------------------------------------------
def load_or_refuse(path):
    """The loaded model, or None when refused with ModelFormatError (nothing else allowed)."""
    try:
        return nbayes.load(path, max_member_bytes=CAP)
    except ModelFormatError:
        return None


def assert_identical(model, original: bytes, scratch: Path):
    """The model saves to the very bytes it came from (saving is deterministic)."""
    again = nbayes.save(model, scratch.with_suffix(".again"))
    assert again.read_bytes() == original


def assert_usable(model, X):
    """A model that loaded scores without surprises: finite probabilities summing to one, or
    an nbayes error (e.g. the input no longer fits a changed vocabulary)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # e.g. rows every class rules out
            proba = model.predict_proba(X)
    except NBayesError:
        return
    assert proba.shape == (len(X), len(model.classes_))
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9)


# -- helpers to take a file apart and put it back together --------------------------------------
def members_of(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def zip_bytes(members) -> bytes:
    """members: dict or list of (name, bytes); a list may repeat a name."""
    buf = io.BytesIO()
    items = members.items() if isinstance(members, dict) else members
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile's "Duplicate name"
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, body in items:
                zf.writestr(name, body)
    return buf.getvalue()


def npy(arr) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


MODEL_NAMES = [
    "AODE",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "DensityNB",
    "GaussianNB",
    "GaussianNB-bayes",
    "GaussianNB-shared",
    "JointBayes",
    "KDB",
    "MixedNB",
    "MultinomialNB",
    "PoissonNB",
    "TAN",
    "TextNB",
    "TextNB-hashing",
]
NAMES = st.sampled_from(MODEL_NAMES)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, -1, 2, 3, 2**31, 2**63, -(2**63)])
    | st.integers(-10, 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=64)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)


def paths_in(obj, prefix=()):
    """Every path (tuple of keys / indices) inside a JSON document, containers included."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths_in(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths_in(v, (*prefix, i))


def set_path(obj, path, value):
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


def delete_path(obj, path):
    for key in path[:-1]:
        obj = obj[key]
    del obj[path[-1]]


# -- raw file bytes: identical or refused --------------------------------------------------------
@FUZZ
@given(name=NAMES, data=st.data())
def test_flipped_truncated_or_extended_bytes(scratch, name, data):
    original = originals()[name][0]
    mutant = bytearray(original)
    how = data.draw(st.sampled_from(["flip", "truncate", "append"]))
    if how == "flip":
        for _ in range(data.draw(st.integers(1, 4))):
            i = data.draw(st.integers(0, len(mutant) - 1))
            mutant[i] = data.draw(st.integers(0, 255).filter(lambda b, old=mutant[i]: b != old))
    elif how == "truncate":
        del mutant[data.draw(st.integers(0, len(mutant) - 1)) :]
    else:
        mutant += data.draw(st.binary(min_size=1, max_size=64))
    scratch.write_bytes(bytes(mutant))
    model = load_or_refuse(scratch)
    if model is not None:
        assert_identical(model, original, scratch)


# -- consistent archives with edited content: refused, or a working model -------------------------
@FUZZ
@given(name=NAMES, data=st.data())
def test_member_bytes(scratch, name, data):
    original, X, _ = originals()[name]
    members = members_of(original)
    member = data.draw(st.sampled_from(sorted(members)))
    body = bytearray(members[member])
    how = data.draw(st.sampled_from(["flip", "truncate", "append"]))
    if how == "flip" and body:
        for _ in range(data.draw(st.integers(1, 3))):
            i = data.draw(st.integers(0, len(body) - 1))
            body[i] = data.draw(st.integers(0, 255))
    elif how == "truncate":
        del body[data.draw(st.integers(0, max(len(body) - 1, 0))) :]
    else:
        body += data.draw(st.binary(min_size=1, max_size=32))
    members[member] = bytes(body)
    scratch.write_bytes(zip_bytes(members))
    model = load_or_refuse(scratch)
    if model is not None:
        assert_usable(model, X)


@FUZZ
@given(name=NAMES, data=st.data())
def test_manifest_values(scratch, name, data):
    original, X, _ = originals()[name]
    members = members_of(original)
    manifest = json.loads(members["manifest.json"])
    paths = [p for p in paths_in(manifest) if p]
    path = data.draw(st.sampled_from(paths))
    if data.draw(st.booleans()):
        set_path(manifest, path, data.draw(JSON))
    else:
        delete_path(manifest, path)
    members["manifest.json"] = json.dumps(manifest).encode()
    scratch.write_bytes(zip_bytes(members))
    model = load_or_refuse(scratch)
    if model is not None:
        assert_usable(model, X)


@FUZZ
@given(name=NAMES, data=st.data())
def test_member_names(scratch, name, data):
    original, X, _ = originals()[name]
    members = list(members_of(original).items())
    names = [n for n, _ in members]
    other = st.sampled_from(
        [*names, "arrays/extra.npy", "../manifest.json", "arrays/../x.npy", "/abs.npy", "é.npy"]
    )
    how = data.draw(st.sampled_from(["rename", "drop", "duplicate", "add"]))
    i = data.draw(st.integers(0, len(members) - 1))
    if how == "rename":
        # (zipfile itself cuts a name at a NUL and cannot write the empty rest)
        text = st.text(st.characters(blacklist_characters="\x00"), min_size=1, max_size=20)
        members[i] = (data.draw(other | text), members[i][1])
    elif how == "drop":
        del members[i]
    elif how == "duplicate":
        members.append(members[i])
    else:
        members.append((data.draw(other), members[i][1]))
    scratch.write_bytes(zip_bytes(members))
    model = load_or_refuse(scratch)
    if model is not None:
        assert_usable(model, X)


DTYPES = ["<f8", "<f4", "<i8", "<i4", "|u1", "|b1", "<U3"]


def random_array(data, shape, dtype):
    n = int(np.prod(shape))
    kind = np.dtype(dtype).kind
    if kind == "f":
        values = data.draw(
            st.lists(
                st.sampled_from([0.0, 1.0, -1.0, 0.5, 1e300, -1e300, 1e-300, 3.0]),
                min_size=n,
                max_size=n,
            )
        )
    elif kind in "iu":
        info = np.iinfo(dtype)
        values = data.draw(
            st.lists(
                st.sampled_from([0, 1, 2, 3, -1, info.max, info.min]).filter(
                    lambda v: info.min <= v <= info.max
                ),
                min_size=n,
                max_size=n,
            )
        )
    elif kind == "b":
        values = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    else:
        values = data.draw(
            st.lists(
                st.sampled_from(["", "a", "b", "x", "1", "nan", "True"]), min_size=n, max_size=n
            )
        )
    return np.array(values, dtype=dtype).reshape(shape)


@FUZZ
@given(name=NAMES, data=st.data())
def test_declared_shapes_and_dtypes_with_matching_members(scratch, name, data):
    original, X, _ = originals()[name]
    members = members_of(original)
    manifest = json.loads(members["manifest.json"])
    key = data.draw(st.sampled_from(sorted(manifest["arrays"])))
    declared = manifest["arrays"][key]
    if data.draw(st.booleans()):
        shape = data.draw(st.lists(st.integers(0, 5), max_size=3))
    else:  # one axis one longer or shorter: the near misses a reader must catch
        shape = list(declared["shape"]) or [1]
        axis = data.draw(st.integers(0, len(shape) - 1))
        shape[axis] = max(0, shape[axis] + data.draw(st.sampled_from([-1, 1])))
    dtype = data.draw(st.sampled_from([declared["dtype"], *DTYPES]))
    arr = random_array(data, shape, dtype)
    manifest["arrays"][key] = {"shape": list(arr.shape), "dtype": arr.dtype.str}
    members[f"arrays/{key}.npy"] = npy(arr)
    members["manifest.json"] = json.dumps(manifest).encode()
    scratch.write_bytes(zip_bytes(members))
    model = load_or_refuse(scratch)
    if model is not None:
        assert_usable(model, X)


@FUZZ
@given(name=NAMES, data=st.data())
def test_array_values(scratch, name, data):
    original, X, _ = originals()[name]
    members = members_of(original)
    manifest = json.loads(members["manifest.json"])
    key = data.draw(st.sampled_from(sorted(manifest["arrays"])))
    declared = manifest["arrays"][key]
    arr = random_array(data, declared["shape"], declared["dtype"])
    members[f"arrays/{key}.npy"] = npy(arr)
    scratch.write_bytes(zip_bytes(members))
    model = load_or_refuse(scratch)
    if model is not None:
        assert_usable(model, X)


def test_the_originals_load_identically(scratch):
    for name, (original, X, log_proba) in originals().items():
        scratch.write_bytes(original)
        model = nbayes.load(scratch, max_member_bytes=CAP)
        assert_identical(model, original, scratch)
        np.testing.assert_array_equal(model.predict_log_proba(X), log_proba, err_msg=name)


# -- what the fuzz found (kept as plain regression tests) ------------------------------------------
def test_an_estimator_name_that_is_not_a_string_is_refused(scratch):
    members = members_of(originals()["BernoulliNB"][0])
    manifest = json.loads(members["manifest.json"])
    manifest["estimator"] = []  # was: TypeError: unhashable type: 'list'
    members["manifest.json"] = json.dumps(manifest).encode()
    scratch.write_bytes(zip_bytes(members))
    with pytest.raises(ModelFormatError, match=r"manifest.json names no estimator class \(\[\]\)"):
        nbayes.load(scratch)


def test_a_damaged_npy_header_is_refused(scratch):
    members = members_of(originals()["BernoulliNB"][0])
    body = bytearray(members["arrays/class_count.npy"])
    body[66] = 0  # inside the header's dict literal: was tokenize.TokenError
    members["arrays/class_count.npy"] = bytes(body)
    scratch.write_bytes(zip_bytes(members))
    with pytest.raises(ModelFormatError, match=r"array 'class_count' is not a valid .npy array"):
        nbayes.load(scratch)


@pytest.mark.parametrize(
    ("param", "value", "message"),
    [
        ("preprocessor", [], r"vectorizer has invalid parameters \(InvalidParameterError"),
        ("ngram_range", {"__tuple__": [1, None]}, r"vectorizer has invalid parameters \(TypeError"),
        ("ngram_range", {"__tuple__": [1]}, r"vectorizer has invalid parameters \(ValueError"),
        ("token_pattern", "(", r"vectorizer has invalid parameters \(error: missing \)"),
        ("input", "filename", r"vectorizer has input='filename'; model files only hold"),
    ],
)
def test_vectorizer_parameters_are_checked_when_read(scratch, param, value, message):
    # Found by the fuzz: such files loaded, then failed in scikit-learn at the first predict
    # (input='filename' would even read the files the texts name).
    members = members_of(originals()["TextNB"][0])
    manifest = json.loads(members["manifest.json"])
    manifest["state"]["vectorizer"]["params"]["__dict__"][param] = value
    members["manifest.json"] = json.dumps(manifest).encode()
    scratch.write_bytes(zip_bytes(members))
    with pytest.raises(ModelFormatError, match=message):
        nbayes.load(scratch)


def test_a_dtype_numpy_cannot_parse_is_refused(scratch):
    members = members_of(originals()["GaussianNB"][0])
    manifest = json.loads(members["manifest.json"])
    manifest["arrays"]["class_count"]["dtype"] = "08"  # was: SyntaxError from numpy
    members["manifest.json"] = json.dumps(manifest).encode()
    scratch.write_bytes(zip_bytes(members))
    with pytest.raises(ModelFormatError, match=r"array 'class_count' declares dtype 08; only"):
        nbayes.load(scratch)


def test_a_family_parameter_of_the_wrong_type_is_refused(scratch):
    # Found by the fuzz: binarize = [None] loaded, then failed comparing floats at predict.
    members = members_of(originals()["BernoulliNB"][0])
    manifest = json.loads(members["manifest.json"])
    manifest["state"]["families"][0]["params"]["__dict__"]["binarize"] = [None]
    members["manifest.json"] = json.dumps(manifest).encode()
    scratch.write_bytes(zip_bytes(members))
    with pytest.raises(ModelFormatError, match=r"binarize must be a number or None; got \[None\]"):
        nbayes.load(scratch)
