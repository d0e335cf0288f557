"""Untrusted model files cannot exhaust the machine.

Forged files are made here: zip bombs (members of zeros that deflate ~1000:1 declaring huge
shapes), shapes that lie about the model's layout, members whose size lies about their shape,
arrays the layout does not have. Each is refused after the manifest is read and before any
array member is opened (a spy on ZipFile.open checks that); the figures (time, peak memory)
are in the issue notes, not asserted here.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.exceptions import ModelFormatError


def npy_header(shape, dtype) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": tuple(shape)}
    )
    return buf.getvalue()


def forge(source, target, bombs=(), edit=None, padding=None):
    """Copy a model file; ``bombs`` = [(array name, shape, dtype)] become deflated zeros of
    that shape, declared so in the manifest; ``padding`` = (array name, bytes of zeros) appends
    zeros after an array's data; ``edit(manifest)`` changes the manifest."""
    with zipfile.ZipFile(source) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        members = {n: zf.read(n) for n in zf.namelist() if n != "manifest.json"}
    for name, shape, dtype in bombs:
        manifest["arrays"][name] = {"shape": list(shape), "dtype": np.dtype(dtype).str}
        members.pop(f"arrays/{name}.npy", None)
    if edit is not None:
        edit(manifest)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        for name, data in members.items():
            if padding is not None and name == f"arrays/{padding[0]}.npy":
                data += bytes(padding[1])
            zf.writestr(name, data)
        zeros = bytes(2**22)
        for name, shape, dtype in bombs:
            left = int(np.prod(shape)) * np.dtype(dtype).itemsize
            with zf.open(f"arrays/{name}.npy", "w", force_zip64=True) as f:
                f.write(npy_header(shape, dtype))
                while left > 0:
                    f.write(zeros[: min(left, len(zeros))])
                    left -= len(zeros)
    return target


@pytest.fixture
def refused(monkeypatch):
    """``refused(path, match, **load_kwargs)``: load raises ModelFormatError matching
    ``match`` after opening no member but the manifest."""
    opened = []
    real = zipfile.ZipFile.open

    def spy(self, name, *args, **kwargs):
        opened.append(getattr(name, "filename", name))
        return real(self, name, *args, **kwargs)

    def check(path, match, **kwargs):
        opened.clear()
        monkeypatch.setattr(zipfile.ZipFile, "open", spy)
        try:
            with pytest.raises(ModelFormatError, match=match):
                nbayes.load(path, **kwargs)
        finally:
            monkeypatch.setattr(zipfile.ZipFile, "open", real)
        assert opened == ["manifest.json"]

    return check


@pytest.fixture
def gaussian(tmp_path):
    rng = np.random.default_rng(0)
    model = nbayes.GaussianNB().fit(rng.normal(size=(40, 3)), rng.integers(0, 2, size=40))
    return nbayes.save(model, tmp_path / "good.nbayes")


def test_zip_bombs_declaring_shapes_the_layout_lacks_are_refused_unread(
    gaussian, tmp_path, refused
):
    # As in the report: three statistics declared far larger than 2 classes x 3 features
    # (here 32 MB each, in a file of about 100 kB).
    shape = (2, 2_000_000)
    bomb = forge(
        gaussian,
        tmp_path / "bomb.nbayes",
        [(f"stats/0/{k}", shape, "<f8") for k in ("n_weight", "mean", "m2")],
    )
    assert bomb.stat().st_size < 200_000
    refused(bomb, r"declares array 'stats/0/\w+' with shape \(2, 2000000\) .* needs shape \(2, 3\)")


def test_a_member_whose_size_does_not_fit_its_declared_shape_is_refused_unread(
    gaussian, tmp_path, refused
):
    padded = forge(gaussian, tmp_path / "padded.nbayes", padding=("stats/0/m2", 32 * 2**20))
    refused(
        padded,
        r"'stats/0/m2' is 335\d+ bytes uncompressed; an array of the declared shape "
        r"\(2, 3\) and dtype <f8 takes 48 bytes",
    )


def test_arrays_outside_the_layout_are_refused_even_when_consistent(gaussian, tmp_path, refused):
    junk = forge(gaussian, tmp_path / "junk.nbayes", [("junk", (4_000_000,), "<f8")])
    refused(junk, "declares array 'junk', which a GaussianNB model file does not")


def test_a_model_consistent_in_every_shape_is_bounded_by_the_total(gaussian, tmp_path, refused):
    # n_features_in forged to 2e6: every array agrees with it, so only the size limits stop
    # it: 3 statistics of 2 x 2e6 float64 take 96 MB.
    def widen(manifest):
        manifest["state"]["n_features_in"] = 2_000_000

    shape = (2, 2_000_000)
    wide = forge(
        gaussian,
        tmp_path / "wide.nbayes",
        [(f"stats/0/{k}", shape, "<f8") for k in ("n_weight", "mean", "m2")],
        edit=widen,
    )
    refused(
        wide,
        r"its arrays take 960\d+ bytes uncompressed, over the limit of 50000000; pass a "
        "larger max_total_bytes",
        max_total_bytes=50_000_000,
    )
    refused(
        wide,
        r"'stats/0/\w+' is 320\d+ bytes uncompressed, over",
        max_member_bytes=10_000_000,
    )


def test_vocabulary_arrays_must_share_one_length(tmp_path, refused):
    df = pd.DataFrame({"city": ["Oslo", "Rome", "Rome", "Pisa"], "t": [1.0, 2.0, 9.0, 8.0]})
    path = nbayes.save(nbayes.MixedNB().fit(df, [0, 0, 1, 1]), tmp_path / "mixed.nbayes")
    bomb = forge(path, tmp_path / "vocab.nbayes", [("vocabulary/0/code", (4_000_000,), "<i8")])
    refused(bomb, r"'vocabulary/0/code' with shape \(4000000,\) .* needs shape \(3,\)")
    X = [["red", "S"], ["red", "M"], ["blue", "L"]]
    path = nbayes.save(nbayes.CategoricalNB().fit(X, [0, 0, 1]), tmp_path / "cat.nbayes")
    bomb = forge(path, tmp_path / "cat-bomb.nbayes", [("vocabulary/values", (1, 1), "<U8")])
    refused(bomb, r"'vocabulary/values' with shape \(1, 1\)")


def test_text_vocabulary_must_match_the_classifier(tmp_path, refused):
    model = nbayes.TextNB().fit(["cash now", "lunch at noon", "cash prize"], [1, 0, 1])
    path = nbayes.save(model, tmp_path / "text.nbayes")
    n_terms = len(model.vectorizer_.vocabulary_)
    bomb = forge(path, tmp_path / "text-bomb.nbayes", [("vocabulary", (1_000_000,), "<U4")])
    refused(bomb, rf"'vocabulary' with shape \(1000000,\) .* \({n_terms},\)")
    bomb = forge(
        path, tmp_path / "inner.nbayes", [("classifier/stats/0/n_counts", (2, 10**6), "<f8")]
    )
    refused(bomb, rf"needs shape \(2, {n_terms}\)")


def test_deeply_nested_manifest_is_refused(gaussian, tmp_path, refused):
    def nest(manifest):
        manifest["metadata"] = "NEST"

    path = forge(gaussian, tmp_path / "deep.nbayes", edit=nest)
    members = {}
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members["manifest.json"] = members["manifest.json"].replace(
        b'"NEST"', b"[" * 100_000 + b"]" * 100_000
    )
    with zipfile.ZipFile(tmp_path / "deeper.nbayes", "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    refused(tmp_path / "deeper.nbayes", "manifest.json is not valid JSON")


def test_legitimate_files_load_under_a_tight_total(gaussian, tmp_path):
    # The checks read shapes only (tests/test_io.py round-trips every kind).
    X = np.random.default_rng(1).normal(size=(30, 3))
    y = np.arange(30) % 3
    good = nbayes.load(gaussian)
    assert good.theta_.shape == (2, 3)
    nb = nbayes.GaussianNB().fit(X, y)
    again = nbayes.load(nbayes.save(nb, tmp_path / "g.nbayes"), max_total_bytes=10_000)
    np.testing.assert_array_equal(again.predict_proba(X), nb.predict_proba(X))


@pytest.fixture
def joint_with_backoff(tmp_path):
    rng = np.random.default_rng(2)
    n = 120
    df = pd.DataFrame(
        {"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["u", "v"], n), "s": rng.random(n)}
    )
    y = rng.choice(["p", "q"], n)
    model = nbayes.JointBayes(backoff=nbayes.TAN()).fit(df, y)
    return nbayes.save(model, tmp_path / "joint.nbayes")


def test_a_joint_bayes_backoff_named_as_another_kind_is_refused(
    joint_with_backoff, tmp_path, refused
):
    # The backoff's kind decides which arrays may exist: a JointBayes (which could nest
    # without end) or a kind outside the registry is refused before any array is read.
    for name in ("JointBayes", "TextNB"):

        def rename(manifest, name=name):
            manifest["state"]["backoff"]["estimator"] = name

        forged = forge(joint_with_backoff, tmp_path / f"{name}.nbayes", edit=rename)
        refused(forged, rf"JointBayes' backoff is '{name}'; a backoff is a registered estimator")


def test_a_joint_bayes_backoff_of_another_kind_than_its_parameters_is_refused(
    joint_with_backoff, tmp_path
):
    def rename(manifest):  # an AODE's arrays are a TAN's: the file reads, the state does not
        manifest["state"]["backoff"]["estimator"] = "AODE"

    forged = forge(joint_with_backoff, tmp_path / "aode.nbayes", edit=rename)
    with pytest.raises(ModelFormatError, match="the stored backoff model is a AODE, but the"):
        nbayes.load(forged)


def test_a_joint_bayes_backoff_array_outside_its_layout_is_refused(
    joint_with_backoff, tmp_path, refused
):
    # The backoff's tables have one row per class, as the backoff's own classes say.
    bomb = forge(
        joint_with_backoff, tmp_path / "bomb.nbayes", [("backoff/stats/n2", (5, 10**7), "<f8")]
    )
    refused(bomb, r"'backoff/stats/n2' with shape \(5, 10000000\).* needs shape \(2, any\)")


def test_a_joint_bayes_backoff_with_other_classes_is_refused(joint_with_backoff, tmp_path):
    with zipfile.ZipFile(joint_with_backoff) as zf:
        classes = np.load(io.BytesIO(zf.read("arrays/backoff/classes.npy")))
    forged = tmp_path / "classes.nbayes"
    with zipfile.ZipFile(joint_with_backoff) as src, zipfile.ZipFile(forged, "w") as dst:
        for item in src.namelist():
            data = src.read(item)
            if item == "arrays/backoff/classes.npy":
                buf = io.BytesIO()
                np.save(buf, np.asarray(["p", "r"], dtype=classes.dtype), allow_pickle=False)
                data = buf.getvalue()
            dst.writestr(item, data)
    with pytest.raises(ModelFormatError, match="the backoff model has other classes or columns"):
        nbayes.load(forged)


def test_a_manifest_bomb_is_refused_before_it_is_inflated(gaussian, tmp_path, monkeypatch):
    """manifest.json declaring 65 MiB (of spaces, deflated ~1000:1) is refused from the zip
    directory alone; its message points at the file, not at max_member_bytes (which bounds
    the arrays, not the manifest)."""
    with zipfile.ZipFile(gaussian) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    with zipfile.ZipFile(tmp_path / "bomb.nbayes", "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("manifest.json", "w") as f:
            f.write(members.pop("manifest.json")[:-1])
            spaces = b" " * 2**20
            for _ in range(65):
                f.write(spaces)
            f.write(b"}")
        for name, data in members.items():
            zf.writestr(name, data)
    assert (tmp_path / "bomb.nbayes").stat().st_size < 200_000
    opened = []
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, name, *a, **k: opened.append(name))
    with pytest.raises(
        ModelFormatError,
        match=r"bomb\.nbayes: the member 'manifest\.json' is 6815\d+ bytes uncompressed, over "
        r"the limit of 67108864 bytes for it; the file is corrupt or forged\.$",
    ):
        nbayes.load(tmp_path / "bomb.nbayes", max_member_bytes=10**9)
    assert opened == []


@pytest.fixture
def mixed(tmp_path):
    df = pd.DataFrame({"city": ["Oslo", "Rome", "Rome", "Pisa"], "t": [1.0, 2.0, 9.0, 8.0]})
    return nbayes.save(nbayes.MixedNB().fit(df, [0, 0, 1, 1]), tmp_path / "mixed.nbayes")


@pytest.fixture
def aode(tmp_path):
    df = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["u", "u", "v", "v"]})
    return nbayes.save(nbayes.AODE().fit(df, [0, 1, 0, 1]), tmp_path / "aode.nbayes")


def drop_last_family(manifest):
    manifest["state"]["families"].pop()


@pytest.mark.parametrize(
    "model, edit, message",
    [
        ("mixed", drop_last_family, "1 families stored for 2 column groups"),
        (
            "aode",
            lambda m: m["state"]["seminaive"].update(order=9),
            "the semi-naive model's layout is malformed",
        ),
        (
            "aode",
            lambda m: m["state"]["seminaive"].update(n_edges=3),  # more edges than features
            "the semi-naive model's layout is malformed",
        ),
        (
            "aode",
            lambda m: m["state"].update(n_features_in=True),
            "the semi-naive model's layout is malformed",
        ),
    ],
    ids=["families-for-groups", "order", "edges", "features-bool"],
)
def test_layouts_that_disagree_with_themselves_are_refused_unread(
    request, tmp_path, refused, model, edit, message
):
    path = forge(request.getfixturevalue(model), tmp_path / "bad.nbayes", edit=edit)
    refused(path, message)
