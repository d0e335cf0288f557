"""The checks of nbayes.io's plain-data layer, one by one: what cannot be saved, and each way a
value read from a model file can be wrong (the messages name what and where)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import nbayes
from nbayes.distributions import Bernoulli, Categorical
from nbayes.exceptions import ModelFormatError, ParameterError
from nbayes.io import _plain as plain
from nbayes.io import _statistics


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("nan"), r"params = nan is not finite and cannot be saved"),
        (np.float64(np.inf), r"params = np.float64\(inf\) is not finite"),
        ({1: "a"}, r"params has non-string keys and cannot be saved"),
        (np.array(["a"]), r"params is an array of dtype <U1; only numeric arrays can be saved"),
        (np.complex128, r"cannot be saved: model files hold data only"),
        (nbayes.estimators.merge, r"cannot be saved: model files hold data only"),
    ],
)
def test_what_cannot_be_saved(value, message):
    with pytest.raises(ParameterError, match=message):
        plain.to_jsonable(value)


def test_values_survive_the_round_trip():
    value = {
        "b": np.bool_(True),
        "i": np.int32(3),
        "t": (1, 2.5),
        "a": np.array([1.0, 2.0]),
        "d": np.float32,
        "f": Bernoulli(alpha=0.5),
        "e": nbayes.MultinomialNB(alpha=2.0),
    }
    back = plain.from_jsonable(plain.to_jsonable(value))
    assert back["b"] is True and back["i"] == 3 and back["t"] == (1, 2.5)
    np.testing.assert_array_equal(back["a"], [1.0, 2.0])
    assert back["d"] is np.float32
    assert isinstance(back["f"], Bernoulli) and back["f"].alpha == 0.5
    assert back["e"].get_params() == nbayes.MultinomialNB(alpha=2.0).get_params()
    with pytest.raises(ParameterError, match=r"holds a BaseNB, which model files cannot store"):
        plain.to_jsonable(nbayes.estimators.BaseNB())


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"a": 1, "b": 2, "c": 3}, r"params holds unreadable data"),
        ({"__ndarray__": [1], "dtype": "<U3"}, r"declares array dtype '<U3'; expected a numeric"),
        ({"__ndarray__": [1], "dtype": "nonsense"}, r"declares array dtype 'nonsense'"),
        ({"__ndarray__": [[1], [1, 2]], "dtype": "<f8"}, r"holds an unreadable array"),
        ({"__ndarray__": ["x"], "dtype": "<f8"}, r"holds an unreadable array"),
        ({"__what__": 1}, r"holds unknown tagged data \['__what__'\]"),
        ({"__estimator__": "Evil", "params": {"__dict__": {}}}, r"names an unknown class 'Evil'"),
        ({"__estimator__": "GaussianNB", "params": [1]}, r"parameters of params are not a mapping"),
        (
            {"__estimator__": "GaussianNB", "params": {"__dict__": {"bogus": 1}}},
            r"cannot build GaussianNB",
        ),
    ],
)
def test_unreadable_parameters(data, message):
    with pytest.raises(ModelFormatError, match=message):
        plain.from_jsonable(data)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ([1], r"is not a family description"),
        ({"name": "nope", "params": {}}, r"names an unknown family 'nope'"),
        ({"name": 3, "params": {}}, r"names an unknown family 3"),
        ({"name": "bernoulli", "params": [1]}, r"family.params is not a mapping"),
        ({"name": "bernoulli", "params": {"__dict__": {"beta": 1}}}, r"cannot build family"),
        (
            {"name": "bernoulli", "params": {"__dict__": {"missing": "maybe"}}},
            r"cannot build family 'bernoulli' .*missing",
        ),
    ],
)
def test_unreadable_families(spec, message):
    with pytest.raises(ModelFormatError, match=message):
        plain.make_family(spec, "family")


def test_label_arrays():
    assert plain.label_array(np.array(["a", "b"], dtype=object)).dtype.kind == "U"
    assert plain.label_array(np.array([], dtype=object)).dtype.kind == "U"
    assert plain.label_array(np.array([True, False], dtype=object)).dtype == bool
    assert plain.label_array(np.array([1, 2], dtype=object)).dtype == np.int64
    assert plain.label_array(np.array([1, 2.5], dtype=object)).dtype == np.float64
    with pytest.raises(ParameterError, match=r"classes \['a', 1\] mix types or hold objects"):
        plain.label_array(np.array(["a", 1], dtype=object))
    arr = np.array(["a"])
    assert plain.restore_label_dtype(arr, None) is arr
    assert plain.restore_label_dtype(arr, plain.OBJECT_LABELS).dtype == object
    with pytest.raises(ModelFormatError, match=r"dtype of classes is recorded as 'int8'"):
        plain.restore_label_dtype(arr, "int8")


@pytest.mark.parametrize(
    ("kwargs", "arr", "message"),
    [
        ({}, np.array([1 + 2j]), r"array 'x' has dtype complex128; allowed are"),
        ({}, np.array([np.nan]), r"array 'x' contains NaN; the file is corrupt"),
        ({}, np.array([np.inf]), r"array 'x' contains infinite values"),
        ({"kinds": "iu"}, np.array([1.0]), r"array 'x' has dtype float64; expected kind 'iu'"),
        ({"ndim": 2}, np.array([1.0]), r"array 'x' has 1 dimensions; expected 2"),
        ({"shape": (2,)}, np.array([1.0]), r"array 'x' has shape \(1,\); expected \(2,\)"),
        ({"non_negative": True}, np.array([-1]), r"array 'x' has negative entries"),
    ],
)
def test_array_checks(kwargs, arr, message):
    with pytest.raises(ModelFormatError, match=message):
        plain.take({"x": arr}, "x", **kwargs)
    with pytest.raises(ModelFormatError, match=r"the array 'y' is missing"):
        plain.take({"x": arr}, "y")


def test_group_statistics_checks():
    fam = Categorical()
    good = fam.zeros(2, 2)
    assert set(
        _statistics.restore_group(fam, {f"g/{k}": v for k, v in good.items()}, "g/", 2, 2)
    ) == set(good)
    with pytest.raises(ModelFormatError, match=r"needs statistics .* found \['n_counts'\]"):
        _statistics.restore_group(fam, {"g/n_counts": good["n_counts"]}, "g/", 2, 2)
    rows = {f"g/{k}": v for k, v in good.items()} | {"g/n_counts": np.zeros((3, 0))}
    with pytest.raises(ModelFormatError, match=r"array 'g/n_counts' has 3 rows; expected one"):
        _statistics.restore_group(fam, rows, "g/", 2, 2)
    big = {f"g/{k}": v for k, v in good.items()} | {"g/n_categories": np.array([5, 5])}
    with pytest.raises(ModelFormatError, match=r"does not match the sizes of the other"):
        _statistics.restore_group(fam, big, "g/", 2, 2)
    bern = Bernoulli()
    ref = bern.zeros(2, 3)
    odd = {f"g/{k}": (np.zeros((2, 4)) if k == "n_ones" else v) for k, v in ref.items()}
    with pytest.raises(ModelFormatError, match=r"inconsistent shapes .* over 3 column"):
        _statistics.restore_group(bern, odd, "g/", 2, 3)
    with pytest.raises(ModelFormatError, match=r"give NaN parameters \('p' of column group 1\)"):
        plain.check_params([{"p": np.ones(2)}, {"p": np.array([np.nan])}])


# -- the per-kind table (nbayes.io._dispatch), called with a dumped model's plain data ---------
def dumped(model):
    from nbayes.io import _dispatch

    params, meta, arrays = _dispatch.dump(model)
    return _dispatch, params, meta, arrays


def fitted_mixed():
    import pandas as pd

    df = pd.DataFrame({"h": [1.0, 2.0, 3.0, 4.0], "c": ["a", "b", "a", "b"]})
    return nbayes.MixedNB().fit(df, [0, 1, 0, 1])


@pytest.mark.parametrize(
    ("make", "edit", "message"),
    [
        (lambda: nbayes.GaussianNB(), lambda m, a: [1], r"the estimator state is not a mapping"),
        (
            lambda: nbayes.GaussianNB(),
            lambda m, a: {**m, "n_features_in": True},
            r"'n_features_in' must be a positive integer; got True",
        ),
        (
            lambda: nbayes.GaussianNB(),
            lambda m, a: {**m, "families": []},
            r"the list of families is missing or empty",
        ),
        (
            lambda: nbayes.GaussianNB(),
            lambda m, a: {**m, "families": m["families"] * 2},
            r"2 families stored for 1 column groups",
        ),
        (
            fitted_mixed,
            lambda m, a: {**m, "mixed": None},
            r"lacks its column layout, .*\(got None, reads 1\)",
        ),
        (
            fitted_mixed,
            lambda m, a: {**m, "mixed": {**m["mixed"], "version": 99}},
            r"layout version this nbayes does not read \(got 99, reads 1\)",
        ),
        (
            fitted_mixed,
            lambda m, a: {**m, "mixed": {**m["mixed"], "positions": [[0], ["x"]]}},
            r"MixedNB column layout is malformed",
        ),
        (
            fitted_mixed,
            lambda m, a: {**m, "mixed": {**m["mixed"], "positions": [[0], [0]]}},
            r"column groups overlap or name columns outside the table",
        ),
        (
            fitted_mixed,
            lambda m, a: {
                **m,
                "mixed": {**m["mixed"], "vocabularies": [None, {"first_code": 7}]},
            },
            r"vocabulary of column group 1 is malformed",
        ),
    ],
)
def test_malformed_states_are_refused(make, edit, message):
    model = make()
    if not hasattr(model, "classes_"):
        model.fit(np.array([[0.0], [1.0], [2.0], [3.0]]), [0, 1, 0, 1])
    dispatch, params, meta, arrays = dumped(model)
    with pytest.raises(ModelFormatError, match=message):
        dispatch.load(type(model).__name__, params, edit(meta, arrays), arrays)


def test_text_states_are_checked():
    texts = ["win cash", "lunch today", "cash prize", "see you"]
    dispatch, params, meta, arrays = dumped(nbayes.TextNB().fit(texts, [1, 0, 1, 0]))
    with pytest.raises(ModelFormatError, match=r"TextNB state must name a vectorizer and a"):
        dispatch.load("TextNB", params, {"vectorizer": meta["vectorizer"]}, arrays)
    with pytest.raises(ModelFormatError, match=r"TextNB's classifier is malformed"):
        dispatch.load("TextNB", params, {**meta, "classifier": []}, arrays)
    inner = {**meta["classifier"], "estimator": "TextNB", "params": {"__dict__": {}}}
    with pytest.raises(ModelFormatError, match=r"TextNB cannot use a TextNB"):
        dispatch.load("TextNB", params, {**meta, "classifier": inner}, arrays)
    with pytest.raises(ModelFormatError, match=r"'params' is not a mapping"):
        dispatch.load("TextNB", [1], meta, arrays)


# -- forged files that reach the reader's last checks ------------------------------------------
def forged(tmp_path, model, edit_manifest=None, edit_members=None):
    from test_fuzz_model_files import members_of, zip_bytes

    members = members_of(nbayes.save(model, tmp_path / "good.nbayes").read_bytes())
    manifest = json.loads(members["manifest.json"])
    if edit_manifest is not None:
        edit_manifest(manifest)
    members["manifest.json"] = json.dumps(manifest).encode()
    if edit_members is not None:
        edit_members(members)
    path = tmp_path / "forged.nbayes"
    path.write_bytes(zip_bytes(members))
    return path


def text_model():
    return nbayes.TextNB().fit(["win cash", "lunch today", "cash prize", "see you"], [1, 0, 1, 0])


def gaussian_model():
    return nbayes.GaussianNB().fit(np.array([[0.0], [1.0], [2.0], [3.0]]), [0, 1, 0, 1])


def set_in(*path_and_value):
    *path, value = path_and_value

    def edit(manifest):
        obj = manifest
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value

    return edit


def renamed(manifest):
    manifest["arrays"]["bad name!"] = manifest["arrays"].pop("class_count")


def renamed_member(members):
    members["arrays/bad name!.npy"] = members.pop("arrays/class_count.npy")


def npy_version_3(members):
    body = bytearray(members["arrays/class_count.npy"])
    body[6] = 3  # the major version byte after the magic string
    members["arrays/class_count.npy"] = bytes(body)


def header_disagrees(members):
    # The same number of bytes (2 x float64 = 4 x float32), another shape and dtype.
    members["arrays/class_count.npy"] = npy_bytes(np.zeros(4, dtype="<f4"))


def npy_bytes(arr):
    import io

    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("make", "edit_manifest", "edit_members", "message"),
    [
        (
            text_model,
            set_in("state", "classifier", "state", []),
            None,
            r"the estimator state is not a mapping",
        ),
        (text_model, set_in("state", "classifier", []), None, r"TextNB's classifier is malformed"),
        (
            text_model,
            set_in("state", "classifier", "estimator", "TextNB"),
            None,
            r"TextNB cannot use a TextNB",
        ),
        (
            fitted_mixed,
            set_in("state", "mixed", "positions", "x"),
            None,
            r"MixedNB column layout is malformed",
        ),
        (
            gaussian_model,
            set_in("estimator", "CountVectorizer"),
            None,
            r"CountVectorizer cannot be restored",
        ),
        (gaussian_model, renamed, renamed_member, r"invalid array name 'bad name!'"),
        (gaussian_model, None, npy_version_3, r"unsupported .npy version 3.0"),
        (
            gaussian_model,
            None,
            header_disagrees,
            r"array 'class_count' has shape \(4,\) and dtype <f4, but the manifest declares "
            r"\(2,\) and <f8",
        ),
    ],
)
def test_forged_files_are_refused(tmp_path, make, edit_manifest, edit_members, message):
    path = forged(tmp_path, make(), edit_manifest, edit_members)
    with pytest.raises(ModelFormatError, match=message):
        nbayes.load(path)
