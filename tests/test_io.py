"""Model files: round trips, continued learning, and refusal of every kind of bad file."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer

import nbayes
from nbayes import (
    AODE,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    ModelFormatError,
    MultinomialNB,
    NotFittedError,
    ParameterError,
    PoissonNB,
    TextNB,
)
from nbayes.io import FORMAT_VERSION, load, read_manifest, save

FIXTURES = Path(__file__).parent / "data"

PRESETS = [
    MultinomialNB(alpha=0.5),
    ComplementNB(norm=True),
    BernoulliNB(binarize=1.0),
    PoissonNB(beta=2.0),
    CategoricalNB(min_categories=7),
    GaussianNB(var_smoothing=1e-6),
    MultinomialNB(alpha=np.array([1.5, 1.0, 2.0, 1.0]), estimate="map", prior_alpha=1.0),
    BernoulliNB(class_prior=[0.2, 0.3, 0.5], missing="ignore"),
]


def counts_data(seed=0, n=60):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, (n, 4)).astype(np.float64)
    y = rng.choice(["ham", "spam", "eggs"], n)
    return X, y


def members_of(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def write_members(path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def npy(arr) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=True)
    return buf.getvalue()


def edit_manifest(members, fn):
    manifest = json.loads(members["manifest.json"])
    fn(manifest)
    members["manifest.json"] = json.dumps(manifest).encode()
    return members


@pytest.fixture
def saved(tmp_path):
    X, y = counts_data()
    model = MultinomialNB().fit(X, y)
    return save(model, tmp_path / "model.nbayes"), model, X


@pytest.mark.parametrize("estimator", PRESETS, ids=lambda e: repr(e)[:40])
def test_round_trip_predicts_identically_and_keeps_learning(tmp_path, estimator):
    X, y = counts_data()
    model = estimator.fit(X[:40], y[:40])
    loaded = load(save(model, tmp_path / "m.nbayes"))
    assert type(loaded) is type(model)
    assert loaded.get_params().keys() == model.get_params().keys()
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(
        loaded.predict_joint_log_proba(X), model.predict_joint_log_proba(X)
    )
    # Statistics are stored, so continuing on the loaded model equals one fit on all rows.
    loaded.partial_fit(X[40:], y[40:])
    full = type(model)(**model.get_params()).fit(X, y)
    np.testing.assert_allclose(loaded.predict_proba(X), full.predict_proba(X), rtol=1e-12)


def test_feature_names_integer_labels_and_new_classes_survive(tmp_path):
    X, _ = counts_data()
    df = pd.DataFrame(X, columns=["w", "x", "y", "z"])
    labels = np.arange(60) % 2
    model = GaussianNB().fit(df, labels)
    loaded = load(save(model, tmp_path / "g.nbayes"))
    assert loaded.feature_names_in_.tolist() == ["w", "x", "y", "z"]
    assert loaded.classes_.dtype.kind == "i"
    with pytest.raises(ValueError, match="feature names"):
        loaded.predict(df.rename(columns={"w": "other"}))
    loaded.partial_fit(df.iloc[:3], [0, 1, 7], classes=[0, 1, 7])
    assert loaded.classes_.tolist() == [0, 1, 7]


def test_save_is_atomic_and_refuses_unsaveable_models(tmp_path):
    X, y = counts_data()
    target = tmp_path / "m.nbayes"
    save(MultinomialNB().fit(X, y), target)
    before = target.read_bytes()
    with pytest.raises(NotFittedError, match="not fitted"):
        save(MultinomialNB(), target)
    bad = MultinomialNB().fit(X, y)
    bad.class_prior = lambda: 0  # a callable parameter can never be stored
    with pytest.raises(ParameterError, match="cannot be saved"):
        save(bad, target)
    with pytest.raises(ParameterError, match="metadata must be plain JSON"):
        save(MultinomialNB().fit(X, y), target, metadata={"when": object()})
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.nbayes"]  # no temp file left behind
    with pytest.raises(ParameterError, match="nbayes estimators only"):
        save(object(), tmp_path / "x.nbayes")


def test_same_model_gives_same_bytes_and_metadata_is_kept(tmp_path):
    X, y = counts_data()
    a = save(MultinomialNB().fit(X, y), tmp_path / "a.nbayes", metadata={"rows": 60})
    b = save(MultinomialNB().fit(X, y), tmp_path / "b.nbayes", metadata={"rows": 60})
    assert a.read_bytes() == b.read_bytes()
    manifest = read_manifest(a)
    assert manifest["metadata"] == {"rows": 60}
    assert manifest["format_version"] == FORMAT_VERSION
    assert nbayes.load is load and nbayes.save is save


def test_format_1_fixture_still_loads():
    """tests/data/multinomial_format1.nbayes was written by format 1 (see make_fixtures)."""
    X, y = fixture_data()
    loaded = load(FIXTURES / "multinomial_format1.nbayes")
    fresh = MultinomialNB(alpha=0.5).fit(X, y)
    assert read_manifest(FIXTURES / "multinomial_format1.nbayes")["format_version"] == 1
    np.testing.assert_array_equal(loaded.classes_, fresh.classes_)
    np.testing.assert_allclose(loaded.feature_count_, fresh.feature_count_)
    np.testing.assert_allclose(loaded.predict_proba(X), fresh.predict_proba(X), rtol=1e-12)


def test_format_1_text_fixture_still_loads():
    """tests/data/text_format1.nbayes: a TextNB with its vocabulary, written by format 1."""
    loaded = load(FIXTURES / "text_format1.nbayes")
    fresh = TextNB(BernoulliNB(), CountVectorizer(ngram_range=(1, 2))).fit(
        FIXTURE_TEXTS, FIXTURE_LABELS
    )
    assert loaded.vectorizer_.vocabulary_ == fresh.vectorizer_.vocabulary_
    np.testing.assert_allclose(
        loaded.predict_proba(FIXTURE_TEXTS), fresh.predict_proba(FIXTURE_TEXTS), rtol=1e-12
    )


# -- refusal of bad files --------------------------------------------------------------------------
def test_pickle_renamed_to_model_suffix_is_refused(tmp_path):
    path = tmp_path / "evil.nbayes"
    path.write_bytes(pickle.dumps({"not": "a model"}))
    with pytest.raises(ModelFormatError, match="looks like a Python pickle"):
        load(path)


def test_non_zip_and_missing_files(tmp_path):
    path = tmp_path / "text.nbayes"
    path.write_text("label,text\nham,hello\n")
    with pytest.raises(ModelFormatError, match="not a zip archive"):
        load(path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load(tmp_path / "absent.nbayes")
    with pytest.raises(ModelFormatError, match="is a folder"):
        load(tmp_path)


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.95])
def test_truncated_zip_is_refused(saved, tmp_path, keep):
    path, _, _ = saved
    data = path.read_bytes()
    cut = tmp_path / "cut.nbayes"
    cut.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(ModelFormatError, match="damaged or truncated"):
        load(cut)


def test_corrupted_member_bytes_are_refused(saved, tmp_path):
    path, _, _ = saved
    data = bytearray(path.read_bytes())
    start = data.find(b"arrays/class_count.npy") + len("arrays/class_count.npy") + 4
    data[start : start + 8] = b"\x00" * 8
    bad = tmp_path / "flipped.nbayes"
    bad.write_bytes(bytes(data))
    with pytest.raises(ModelFormatError):
        load(bad)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda m: m["state"]["families"][0].update(name="evil"), "unknown family 'evil'"),
        (lambda m: m.update(estimator="os.system"), "unknown class 'os.system'"),
        (lambda m: m.update(format_version=FORMAT_VERSION + 1), "Upgrade nbayes"),
        (lambda m: m.update(format_version="1"), "invalid format_version"),
        (lambda m: m.update(format="zip"), "does not describe an nbayes model"),
        (lambda m: m.pop("params"), "lacks 'params'"),
        (lambda m: m["params"]["__dict__"].update(evil=1), "cannot build MultinomialNB"),
        (
            lambda m: m["params"]["__dict__"].update(alpha={"__call__": "os.system"}),
            "unknown tagged data",
        ),
        (
            lambda m: m["state"]["families"][0]["params"]["__dict__"].update(missing="maybe"),
            "cannot build family",
        ),
        (lambda m: m["state"].update(n_features_in=-1), "positive integer"),
        (lambda m: m["arrays"]["class_count"].update(shape=[5]), "manifest declares"),
        (lambda m: m.update(arrays=[]), r"malformed \('arrays' and 'state' must be objects\)"),
        (lambda m: m.update(state="x"), r"malformed \('arrays' and 'state' must be objects\)"),
        (lambda m: m["state"].update(families=[]), "list of families is missing or empty"),
    ],
    ids=[
        "family",
        "estimator",
        "newer",
        "version-type",
        "format",
        "no-params",
        "param-name",
        "tag",
        "family-param",
        "n-features",
        "declared-shape",
        "arrays-list",
        "state-text",
        "no-families",
    ],
)
def test_bad_manifests_are_refused(saved, tmp_path, edit, message):
    path, _, _ = saved
    bad = write_members(tmp_path / "bad.nbayes", edit_manifest(members_of(path), edit))
    with pytest.raises(ModelFormatError, match=message):
        load(bad)


def test_newer_format_is_refused_by_read_manifest_too(saved, tmp_path):
    path, _, _ = saved
    members = edit_manifest(members_of(path), lambda m: m.update(format_version=99))
    with pytest.raises(ModelFormatError, match="model format 99"):
        read_manifest(write_members(tmp_path / "new.nbayes", members))


def replace_array(members, name, arr, declare=True):
    members[f"arrays/{name}.npy"] = npy(arr)
    if declare:
        members = edit_manifest(
            members,
            lambda m: m["arrays"].__setitem__(
                name, {"shape": list(arr.shape), "dtype": arr.dtype.str}
            ),
        )
    return members


@pytest.mark.parametrize(
    "name, arr, message",
    [
        ("stats/0/n_counts", np.zeros((3, 5)), r"layout .* needs shape \(3, 4\)"),
        ("stats/0/n_counts", np.zeros((2, 4)), r"needs shape \(3, 4\)"),
        ("stats/0/n_counts", np.zeros(4), r"shape \(4,\) .* needs shape \(3, 4\)"),
        ("stats/0/n_counts", np.zeros((3, 4), dtype=np.int64), "of kind 'f'"),
        ("stats/0/n_counts", np.full((3, 4), np.nan), "contains NaN"),
        ("stats/0/n_counts", -np.ones((3, 4)), "negative entries"),
        ("class_count", np.array([1.0, np.inf, 2.0]), "infinite values"),
        ("class_count", np.ones(2), "shape"),
        ("classes", np.array(["a", "a", "b"]), "distinct"),
        ("classes", np.array([{"x": 1}, 2, 3], dtype=object), "object arrays would need pickle"),
        ("stats/0/n_counts", np.zeros((3, 4), dtype=np.complex128), "dtype complex128"),
    ],
    ids=[
        "width",
        "classes",
        "ndim",
        "dtype",
        "nan",
        "negative",
        "inf",
        "count-shape",
        "duplicate-classes",
        "object",
        "complex",
    ],
)
def test_bad_arrays_are_refused(saved, tmp_path, name, arr, message):
    path, _, _ = saved
    bad = write_members(tmp_path / "bad.nbayes", replace_array(members_of(path), name, arr))
    with pytest.raises(ModelFormatError, match=message):
        load(bad)


@pytest.mark.parametrize(
    "name, arr, message",
    [
        # The member's size fits the declared array; only its own header says otherwise.
        ("classes", np.array([1, "ham", None], dtype=object), "'classes' has dtype object"),
        ("stats/0/n_counts", np.zeros((3, 2), dtype=np.complex128), "dtype complex128"),
    ],
    ids=["object", "complex"],
)
def test_array_headers_are_held_to_the_allowed_dtypes_whatever_the_manifest_says(
    saved, tmp_path, name, arr, message
):
    path, _, _ = saved
    members = replace_array(members_of(path), name, arr, declare=False)
    with pytest.raises(
        ModelFormatError,
        match=f"{message}; only bool, integer, float and unicode arrays are allowed",
    ):
        load(write_members(tmp_path / "bad.nbayes", members))


def test_save_refuses_member_names_that_could_leave_the_archive(saved, tmp_path, monkeypatch):
    """Array names become zip member paths: a name with '..' (from a user's family, say)
    would be a path outside the folder where someone unpacks the file."""
    from nbayes.io import _dispatch

    _, model, _ = saved
    real = _dispatch.dump

    def dump(model):
        params, meta, arrays = real(model)
        arrays["stats/0/../../evil"] = arrays.pop("stats/0/n_counts")
        return params, meta, arrays

    monkeypatch.setattr(_dispatch, "dump", dump)
    with pytest.raises(ParameterError, match=r"Array name 'stats/0/\.\./\.\./evil' is not allowed"):
        save(model, tmp_path / "evil.nbayes")
    assert not (tmp_path / "evil.nbayes").exists()


@pytest.fixture
def mixed_saved(tmp_path):
    df = pd.DataFrame({"t": [1.0, 2.0, 9.0, 8.0], "city": ["Oslo", "Rome", "Rome", "Pisa"]})
    return save(MixedNB().fit(df, [0, 0, 1, 1]), tmp_path / "mixed.nbayes")


@pytest.mark.parametrize(
    "name, arr, message",
    [
        ("vocabulary/1/kinds", np.array(["s", "x", "s"]), "has an unknown value type tag"),
        ("vocabulary/1/values", np.array(["Oslo", "Rome", "Rome"]), "repeats a value"),
        ("vocabulary/1/code", np.array([0, 2, 3]), "codes are not consecutive per column"),
    ],
    ids=["type-tag", "repeated-value", "code-gap"],
)
def test_forged_category_vocabularies_are_refused(mixed_saved, tmp_path, name, arr, message):
    bad = write_members(tmp_path / "bad.nbayes", replace_array(members_of(mixed_saved), name, arr))
    with pytest.raises(ModelFormatError, match=f"bad.nbayes: .*Category vocabulary {message}"):
        load(bad)


@pytest.fixture
def aode_saved(tmp_path):
    df = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["u", "u", "v", "v"]})
    return save(AODE().fit(df, [0, 1, 0, 1]), tmp_path / "aode.nbayes")


@pytest.mark.parametrize(
    "model, edit, message",
    [
        (
            "mixed_saved",
            lambda m: m["state"]["mixed"]["columns"].append("extra"),
            "3 column labels for 2 features",
        ),
        (
            "aode_saved",
            lambda m: m["state"]["seminaive"].update(version=99),
            r"the semi-naive model.s column layout is missing or of a version this nbayes "
            r"does not read \(reads 1\)",
        ),
        (
            "aode_saved",
            lambda m: m["state"]["seminaive"].update(numeric=[True, False]),  # but no edges
            "the semi-naive model's column layout is malformed",
        ),
        (
            "aode_saved",
            lambda m: m["state"]["seminaive"].update(columns=["a"]),
            "the semi-naive model's column layout is malformed",
        ),
    ],
    ids=["mixed-columns", "seminaive-version", "seminaive-numeric", "seminaive-columns"],
)
def test_table_layouts_that_disagree_with_the_model_are_refused(
    request, tmp_path, model, edit, message
):
    members = edit_manifest(members_of(request.getfixturevalue(model)), edit)
    with pytest.raises(ModelFormatError, match=f"bad.nbayes: {message}"):
        load(write_members(tmp_path / "bad.nbayes", members))


def test_plain_state_with_a_malformed_vocabulary_is_refused(mixed_saved):
    """set_state takes plain data from anywhere (a Dask worker, a user's store), not only
    from a checked model file: its vocabularies are checked again."""
    state = load(mixed_saved).get_state()
    state["layout"]["vocabularies"][1]["first_code"] = 2
    with pytest.raises(ValueError, match="a category vocabulary is malformed"):
        MixedNB().set_state(state)
    state["layout"]["vocabularies"][1]["first_code"] = 0
    assert MixedNB().set_state(state).predict(pd.DataFrame({"t": [9.0], "city": ["Rome"]})) == [1]


def test_category_values_a_model_file_cannot_hold_are_refused_with_the_fix(tmp_path):
    from decimal import Decimal

    df = pd.DataFrame({"price": [Decimal("1.5"), Decimal("2"), Decimal("1.5"), Decimal("2")]})
    model = MixedNB(columns=[("categorical", ["price"])]).fit(df, [0, 1, 0, 1])
    with pytest.raises(
        ModelFormatError,
        match=r"Category value Decimal\('1\.5'\) of type Decimal cannot be written to a model "
        r"file \(supported: str, int, float, bool\)\. Convert the column, e\.g\. "
        r"df\[col\]\.astype\(str\), before fitting\.",
    ):
        save(model, tmp_path / "m.nbayes")
    assert not (tmp_path / "m.nbayes").exists()
    df["price"] = df["price"].astype(str)
    again = MixedNB(columns=[("categorical", ["price"])]).fit(df, [0, 1, 0, 1])
    assert load(save(again, tmp_path / "m.nbayes")).predict(df).tolist() == [0, 1, 0, 1]


def test_forged_category_counts_cannot_blow_up_memory(tmp_path):
    X = np.array([[0, 1], [1, 2], [2, 0]])
    path = save(CategoricalNB().fit(X, [0, 1, 1]), tmp_path / "c.nbayes")
    members = replace_array(
        members_of(path), "stats/0/n_categories", np.array([10**12, 3], dtype=np.int64)
    )
    with pytest.raises(ModelFormatError, match="does not match the sizes"):
        load(write_members(tmp_path / "bad.nbayes", members))
    members = replace_array(
        members_of(path), "stats/0/n_categories", np.array([2, 2], dtype=np.int64)
    )
    with pytest.raises(ModelFormatError, match="inconsistent shapes"):
        load(write_members(tmp_path / "bad2.nbayes", members))


def test_array_data_must_match_its_header(saved, tmp_path):
    path, _, _ = saved
    members = members_of(path)
    members["arrays/class_count.npy"] = members["arrays/class_count.npy"][:-8]
    with pytest.raises(ModelFormatError, match="truncated or corrupt"):
        load(write_members(tmp_path / "short.nbayes", members))


def test_undeclared_missing_and_oversized_members_are_refused(saved, tmp_path):
    path, _, _ = saved
    members = members_of(path)
    extra = dict(members, **{"../../etc/passwd": b"x"})
    with pytest.raises(ModelFormatError, match="unexpected or duplicate members"):
        load(write_members(tmp_path / "extra.nbayes", extra))
    missing = {k: v for k, v in members.items() if k != "arrays/classes.npy"}
    with pytest.raises(ModelFormatError, match="missing"):
        load(write_members(tmp_path / "missing.nbayes", missing))
    with pytest.raises(ModelFormatError, match="over the limit"):
        load(path, max_member_bytes=100)
    # A highly compressible member (a small zip bomb) is refused before it is inflated: its
    # declared shape does not fit the manifest (see also tests/test_forged_files.py).
    bomb = replace_array(members_of(path), "stats/0/n_counts", np.zeros((3, 100_000)))
    with zipfile.ZipFile(tmp_path / "bomb.nbayes", "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in bomb.items():
            zf.writestr(name, data)
    assert (tmp_path / "bomb.nbayes").stat().st_size < 20_000
    with pytest.raises(ModelFormatError, match=r"\(3, 100000\).* needs shape \(3, 4\)"):
        load(tmp_path / "bomb.nbayes", max_member_bytes=1_000_000)


def test_manifest_with_nan_or_garbage_is_refused(saved, tmp_path):
    path, _, _ = saved
    members = members_of(path)
    members["manifest.json"] = members["manifest.json"].replace(b'"alpha": 1.0', b'"alpha": NaN')
    with pytest.raises(ModelFormatError, match="not valid JSON"):
        load(write_members(tmp_path / "nan.nbayes", members))
    members["manifest.json"] = b"\xff\xfe"
    with pytest.raises(ModelFormatError, match="not valid JSON"):
        load(write_members(tmp_path / "garbage.nbayes", members))


# -- fixtures ------------------------------------------------------------------------------------
def fixture_data():
    rng = np.random.default_rng(1)
    X = rng.poisson(1.5, (30, 5))
    y = np.where(X[:, 0] > X[:, 1], "spam", "ham")
    return X, y


FIXTURE_TEXTS = [
    "win a cash prize now",
    "cheap pills, win big",
    "lunch at noon?",
    "see you at lunch",
    "call me when you are free",
    "free cash prize call now",
]
FIXTURE_LABELS = ["spam", "spam", "ham", "ham", "ham", "spam"]


def make_fixtures() -> None:  # pragma: no cover - run by hand when a new format is introduced
    """Write the fixtures of the *current* format; never overwrite an older format's file."""
    X, y = fixture_data()
    models = {
        "multinomial": MultinomialNB(alpha=0.5).fit(X, y),
        "text": TextNB(BernoulliNB(), CountVectorizer(ngram_range=(1, 2))).fit(
            FIXTURE_TEXTS, FIXTURE_LABELS
        ),
    }
    for name, model in models.items():
        path = FIXTURES / f"{name}_format{FORMAT_VERSION}.nbayes"
        if not path.exists():  # a fixture records what an old nbayes wrote: keep it as is
            save(model, path)


if __name__ == "__main__":  # pragma: no cover
    make_fixtures()


def test_every_registered_estimator_has_a_model_file_kind():
    from nbayes.estimators import REGISTRY
    from nbayes.io._dispatch import KINDS

    assert sorted(KINDS) == sorted(REGISTRY)


@pytest.mark.parametrize(
    "make, X",
    [
        (lambda: MultinomialNB(), np.array([[2, 0], [0, 3], [1, 1]])),
        (lambda: CategoricalNB(), np.array([["a", "x"], ["b", "y"], ["a", "y"]], dtype=object)),
    ],
    ids=["counts", "category-values"],
)
def test_state_as_plain_data_round_trips_without_files(make, X):
    model = make().fit(X, [0, 1, 1])
    state = model.get_state()
    assert set(state) == {
        "params",
        "n_features_in",
        "feature_names_in",
        "classes",
        "families",
        "statistics",
        "layout",
    }
    copy = make().set_state(state)
    np.testing.assert_array_equal(copy.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
    copy.partial_fit(X, [0, 1, 1])
    model.partial_fit(X, [0, 1, 1])
    np.testing.assert_allclose(copy.predict_proba(X), model.predict_proba(X), rtol=1e-12)
