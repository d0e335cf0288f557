"""ONNX export (nbayes.export.to_onnx and skl2onnx's registry): onnxruntime's labels equal
nbayes' and its probabilities agree to 1e-5, on generated tables with missing and unseen
values and on the shared data sets (rows subsampled to keep the tests fast)."""

import csv
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from _adult import ADULT_COLUMNS

from nbayes import (
    TAN,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    DensityNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    PoissonNB,
    TextNB,
)
from nbayes.exceptions import ParameterError

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is in the optional export extra")
skl2onnx = pytest.importorskip("skl2onnx", reason="skl2onnx is in the optional export extra")
onnx = pytest.importorskip("onnx", reason="onnx is in the optional export extra")
from nbayes.export import to_onnx  # noqa: E402  (registers the converters)

TOL = 1e-5


#: onnxruntime's input types -> numpy's.
DTYPES = {"tensor(double)": np.float64, "tensor(int64)": np.int64, "tensor(string)": object}


def run_onnx(onx, feeds: dict):
    """(labels, probabilities) from onnxruntime. ``feeds`` go to the graph's inputs in order
    (skl2onnx makes column names valid ONNX names: "education-num" is "education_num"),
    each as the type of its input."""
    onnx.checker.check_model(onx, full_check=True)
    session = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = session.get_inputs()
    assert len(inputs) == len(feeds)
    given = {i.name: np.asarray(v).astype(DTYPES[i.type]) for i, v in zip(inputs, feeds.values())}
    label, proba = session.run(None, given)[:2]
    return label, proba


def assert_same(model, onx, feeds: dict, X) -> None:
    """onnxruntime's labels equal ``model.predict(X)``, probabilities to :data:`TOL`."""
    label, proba = run_onnx(onx, feeds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unseen-value warnings of the generated tables
        expected_label, expected = model.predict(X), model.predict_proba(X)
    np.testing.assert_array_equal(label, expected_label)
    np.testing.assert_allclose(proba, expected, rtol=0, atol=TOL)


def column_feeds(df: pd.DataFrame) -> dict:
    """One (N, 1) input per column: numbers as double, text with "" for missing."""
    feeds = {}
    for name in df.columns:
        col = df[name]
        if col.dtype.kind in "iufb":
            feeds[str(name)] = col.to_numpy(dtype=np.float64).reshape(-1, 1)
        else:
            feeds[str(name)] = col.fillna("").astype(str).to_numpy(dtype=object).reshape(-1, 1)
    return feeds


def example(df: pd.DataFrame) -> pd.DataFrame:
    """The first row, text columns as object (skl2onnx guesses no type for pandas'
    Arrow-backed strings), missing text as ""."""
    head = df[:1].copy()
    for name in head.columns:
        if head[name].dtype.kind not in "iufb":
            head[name] = head[name].astype(object).fillna("")
    return head


RNG = np.random.default_rng(34)


def counts_with_gaps(n=120, d=6):
    X = RNG.poisson(RNG.uniform(0.5, 4, size=d), size=(n, d)).astype(np.float64)
    y = RNG.choice(["ham", "spam", "eggs"], size=n)
    gaps = X.copy()
    gaps[RNG.uniform(size=gaps.shape) < 0.1] = np.nan
    return X, y, gaps


@pytest.mark.parametrize(
    "model",
    [
        MultinomialNB(),
        MultinomialNB(estimate="mle"),
        ComplementNB(),
        ComplementNB(norm=True),
        PoissonNB(),
        BernoulliNB(binarize=1.5),
        BernoulliNB(binarize=1.5, estimate="mle"),
        GaussianNB(),
        GaussianNB(var_pooling="shared"),
        GaussianNB(priors=[0.2, 0.3, 0.5]),
        GaussianNB(estimate="posterior_predictive"),
    ],
    ids=repr,
)
def test_matrix_models(model):
    X, y, _ = counts_with_gaps()
    model.fit(X, y)
    test = np.vstack([X, RNG.poisson(9, size=(5, X.shape[1]))]).astype(np.float64)
    assert_same(model, to_onnx(model, zipmap=False), {"X": test}, test)


@pytest.mark.parametrize(
    "model",
    [
        MultinomialNB(missing="ignore"),
        PoissonNB(missing="ignore"),
        BernoulliNB(binarize=1.5, missing="ignore"),
        GaussianNB(missing="ignore"),
        GaussianNB(missing="ignore", var_pooling="shared"),
    ],
    ids=repr,
)
def test_missing_values_are_marginalised(model):
    _, y, gaps = counts_with_gaps()
    model.fit(gaps, y)
    assert_same(model, to_onnx(model, zipmap=False), {"X": gaps}, gaps)


def test_rows_every_class_rules_out_are_uniform():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    model = MultinomialNB(estimate="mle").fit(X, [0, 1])
    test = np.array([[1.0, 1.0], [2.0, 0.0]])  # the first row: impossible for both classes
    label, proba = run_onnx(to_onnx(model, zipmap=False), {"X": test})
    np.testing.assert_allclose(proba, [[0.5, 0.5], [1.0, 0.0]], atol=TOL)
    assert label.tolist() == [0, 0]


@pytest.mark.parametrize("unseen", ["ignore", "smooth"])
def test_categorical_codes_with_missing_and_unseen(unseen):
    X = RNG.integers(0, 4, size=(100, 3)).astype(np.float64)
    y = RNG.integers(0, 2, size=100)
    model = CategoricalNB(missing="ignore", unseen=unseen).fit(X, y)
    test = X.copy()
    test[::7, 0] = np.nan
    test[1::9, 1] = 6  # a code the model never saw
    assert_same(model, to_onnx(model, zipmap=False), {"X": test}, test)


def test_categorical_refusals_become_nan():
    """What nbayes refuses (an unseen code under unseen="error") scores NaN, never a label
    that looks right."""
    X = RNG.integers(0, 3, size=(40, 2)).astype(np.float64)
    model = CategoricalNB().fit(X, RNG.integers(0, 2, size=40))
    _, proba = run_onnx(to_onnx(model, zipmap=False), {"X": np.array([[0.0, 9.0]])})
    assert np.isnan(proba).all()


def test_categorical_strings_with_missing_and_unseen():
    values = np.array(["red", "green", "blue", "teal"], dtype=object)
    X = values[RNG.integers(0, 4, size=(150, 3))]
    y = RNG.choice(["a", "b", "c"], size=150)
    model = CategoricalNB(missing="ignore", unseen="smooth").fit(X, y)
    test = X.copy()
    test[::5, 0] = None
    test[1::7, 2] = "purple"
    feed = np.where(pd.isna(test), "", test).astype(object)
    assert_same(model, to_onnx(model, zipmap=False), {"X": feed}, test)


def mixed_table(n=200):
    df = pd.DataFrame(
        {
            "height": RNG.normal(170, 10, n),
            "visits": RNG.poisson(3, n).astype(np.float64),
            "city": RNG.choice(["Rome", "Oslo", "Lima", "Pune"], n),
            "size": RNG.choice([1, 2, 3], n),
            "flag": RNG.integers(0, 2, n).astype(np.float64),
        }
    )
    y = np.where(df["height"] + 5 * (df["city"] == "Oslo") > 172, "tall", "short")
    return df, y


@pytest.mark.parametrize("missing", ["ignore", "category"])
@pytest.mark.parametrize("unseen", ["ignore", "smooth"])
def test_mixed_with_missing_and_unseen(missing, unseen):
    df, y = mixed_table()
    df.loc[::11, "height"] = np.nan
    df.loc[::13, "city"] = None
    model = MixedNB(
        columns=[
            ("gaussian", ["height"]),
            ("poisson", ["visits"]),
            ("categorical", ["city", "size"]),
            ("bernoulli", ["flag"]),
        ],
        missing=missing,
        unseen=unseen,
    ).fit(df, y)
    test = df.copy()
    test.loc[1::7, "city"] = "Kyiv"
    test.loc[2::9, "size"] = 7
    test.loc[3::10, "visits"] = np.nan
    onx = skl2onnx.to_onnx(model, example(df), options={"zipmap": False})
    assert [i.name for i in onx.graph.input] == list(df.columns)
    assert [o.name for o in onx.graph.output] == ["label", "probabilities"]
    assert_same(model, onx, column_feeds(test), test)
    assert_same(model, to_onnx(model, zipmap=False), column_feeds(test), test)
    assert_same(model, to_onnx(model, df, zipmap=False), column_feeds(test), test)


def test_mixed_fitted_on_an_array():
    X, y, _ = counts_with_gaps()
    model = MixedNB(columns=[("poisson", [0, 1, 2]), ("gaussian", [3, 4, 5])]).fit(X, y)
    assert_same(model, to_onnx(model, zipmap=False), {"X": X}, X)


def test_zipmap_default_gives_dicts_by_class():
    df, y = mixed_table(60)
    model = MixedNB().fit(df, y)
    label, maps = run_onnx(to_onnx(model), column_feeds(df))
    expected = model.predict_proba(df)
    got = np.array([[row[c] for c in model.classes_] for row in maps])
    np.testing.assert_allclose(got, expected, atol=TOL)
    np.testing.assert_array_equal(label, model.predict(df))


def test_zipmap_columns_gives_one_output_per_class():
    X, y, _ = counts_with_gaps()
    model = GaussianNB().fit(X, y)
    session = ort.InferenceSession(to_onnx(model, zipmap="columns").SerializeToString())
    label, *columns = session.run(None, {"X": X})
    assert len(columns) == len(model.classes_)
    np.testing.assert_allclose(np.column_stack(columns), model.predict_proba(X), atol=TOL)
    np.testing.assert_array_equal(label, model.predict(X))


def test_inside_a_scikit_learn_pipeline():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, _ = counts_with_gaps()
    pipe = make_pipeline(StandardScaler(), GaussianNB()).fit(X, y)
    onx = skl2onnx.to_onnx(pipe, X[:1], options={GaussianNB: {"zipmap": False}})
    assert_same(pipe, onx, {"X": X}, X)


def test_nocl_gives_class_indices():
    X, y, _ = counts_with_gaps()
    model = MultinomialNB().fit(X, y)
    label, _ = run_onnx(to_onnx(model, zipmap=False, nocl=True), {"X": X})
    np.testing.assert_array_equal(model.classes_[label], model.predict(X))


@pytest.mark.parametrize("density", ["binned", "gaussian"])
def test_density_binned_and_normal_readings(density):
    n = 300
    y = RNG.integers(0, 2, size=n)
    X = np.column_stack([RNG.lognormal(y, 0.5), RNG.exponential(1 + y), RNG.normal(3 * y, 1.0)])
    model = DensityNB(density=density, missing="ignore").fit(X, y)
    test = np.vstack([X, [[-5.0, 100.0, np.nan]]])
    assert_same(model, to_onnx(model, zipmap=False), {"X": test}, test)


def test_refusals_say_why():
    X = RNG.integers(0, 3, size=(60, 3))
    y = RNG.integers(0, 2, size=60)
    with pytest.raises(ParameterError, match=r"TAN cannot be exported.*condition features"):
        to_onnx(TAN().fit(X, y))
    text = TextNB().fit(["good film", "bad film", "good plot"], [1, 0, 1])
    with pytest.raises(
        ParameterError, match=r"TextNB cannot be exported.*raw texts.*MultinomialNB fitted on"
    ):
        to_onnx(text)
    kde = DensityNB(density="kde").fit(RNG.normal(size=(60, 2)), y)
    with pytest.raises(ParameterError, match="kernel densities"):
        to_onnx(kde)
    dated = pd.DataFrame(
        {"when": pd.date_range("2020-01-01", periods=60), "x": RNG.normal(size=60)}
    )
    with pytest.raises(ParameterError, match="calendar features of a date"):
        to_onnx(MixedNB().fit(dated, y))
    with pytest.raises(ParameterError, match="two classes"):
        to_onnx(GaussianNB().fit(X.astype(float), X[:, 0]), threshold=1.0)


@pytest.mark.parametrize("scale, threshold", [("log_odds", 1.5), ("proba", 0.2)])
def test_a_decision_threshold_decides_the_label_as_predict(scale, threshold):
    X = RNG.normal(size=(200, 3))
    y = np.where(X[:, 0] + RNG.normal(size=200) > 0, "yes", "no")
    model = GaussianNB(decision_threshold=threshold, threshold_scale=scale).fit(X, y)
    flipped = model.predict(X) != GaussianNB().fit(X, y).predict(X)
    assert flipped.sum() > 5  # the threshold changes labels, so the test sees it applied
    assert_same(model, to_onnx(model, zipmap=False), {"X": X}, X)
    label, _ = run_onnx(to_onnx(GaussianNB().fit(X, y), threshold=1.5, zipmap=False), {"X": X})
    expected = GaussianNB(decision_threshold=1.5).fit(X, y).predict(X)
    np.testing.assert_array_equal(label, expected)


def test_without_the_extra_the_error_says_what_to_install():
    code = "import sys; sys.modules['skl2onnx'] = None; from nbayes.export import to_onnx"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    assert 'pip install "nbayes[export]"' in out.stderr


def test_refused_labels_and_families_say_why():
    X = RNG.normal(size=(60, 2))
    y = RNG.integers(0, 2, size=60)
    with pytest.raises(ParameterError, match=r"labels must be integers or strings.*as strings"):
        to_onnx(GaussianNB().fit(X, y.astype(np.float64)))
    with pytest.raises(ParameterError, match=r"got bool \(False, True\)"):
        to_onnx(GaussianNB().fit(X, y.astype(bool)))
    kde = MixedNB(columns=[("kde", [0]), ("gaussian", [1])]).fit(X, y)
    with pytest.raises(ParameterError, match=r"\['x0'\] use the kde family.*'gaussian'"):
        to_onnx(kde)


def test_inputs_that_do_not_fit_the_model_say_so():
    from skl2onnx.common.data_types import DoubleTensorType, StringTensorType

    X = RNG.normal(size=(60, 3))
    y = RNG.integers(0, 2, size=60)
    model = GaussianNB().fit(X, y)
    two = [("a", DoubleTensorType([None, 1])), ("b", DoubleTensorType([None, 1]))]
    with pytest.raises(ParameterError, match="give ONNX one"):
        skl2onnx.convert_sklearn(model, initial_types=two)
    with pytest.raises(ParameterError, match="reads numbers there"):
        skl2onnx.convert_sklearn(model, initial_types=[("X", StringTensorType([None, 3]))])
    strings = np.array([["a"], ["b"]] * 30, dtype=object)
    categorical = CategoricalNB().fit(strings, y)
    with pytest.raises(ParameterError, match="categories there are text"):
        skl2onnx.convert_sklearn(categorical, initial_types=[("X", DoubleTensorType([None, 1]))])


# -- the shared data sets --------------------------------------------------------------------


def test_sms_counts(shared_data):
    from sklearn.feature_extraction.text import CountVectorizer

    with open(shared_data / "sms_spam_collection" / "SMSSpamCollection", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[::5]
    labels, texts = zip(*rows)
    X = CountVectorizer(min_df=3).fit_transform(texts).toarray().astype(np.float64)
    for model in (MultinomialNB(), ComplementNB(), BernoulliNB(binarize=0.0)):
        model.fit(X[:800], labels[:800])
        assert_same(model, to_onnx(model, zipmap=False), {"X": X[800:]}, X[800:])


def test_mushroom_strings(shared_data):
    names = [f"c{j}" for j in range(23)]
    df = pd.read_csv(
        shared_data / "mushroom" / "agaricus-lepiota.data", names=names, na_values="?", dtype=str
    )
    y, X = df.pop("c0").to_numpy(), df
    model = CategoricalNB(missing="ignore", unseen="smooth").fit(X.iloc[::4], y[::4])
    test = X.iloc[1::8]
    onx = skl2onnx.to_onnx(model, example(X), options={"zipmap": False})
    assert_same(model, onx, column_feeds(test), test)


def test_adult_mixed_with_missing(shared_data):
    def read(name, skip):
        df = pd.read_csv(
            shared_data / "adult" / name,
            names=ADULT_COLUMNS,
            skipinitialspace=True,
            na_values="?",
            skiprows=skip,
        ).dropna(how="all")
        return df.drop(columns="income"), df["income"].str.rstrip(".").to_numpy()

    (X, y), (X_test, _) = read("adult.data.gz", 0), read("adult.test.gz", 1)
    model = MixedNB(unseen="smooth").fit(X.iloc[::8], y[::8])
    test = X_test.iloc[::10]
    assert test.isna().any().any()
    onx = to_onnx(model, zipmap=False)
    assert [i.name for i in onx.graph.input] == ADULT_COLUMNS[:-1]  # "education-num" kept
    assert_same(model, onx, column_feeds(test), test)


def test_spambase(shared_data):
    data = np.loadtxt(shared_data / "spambase" / "spambase.data", delimiter=",")[::3]
    X, y = data[:, :-1], data[:, -1].astype(np.int64)
    for model in (GaussianNB(), GaussianNB(var_pooling="shared"), BernoulliNB(binarize=0.0)):
        model.fit(X[:1000], y[:1000])
        assert_same(model, to_onnx(model, zipmap=False), {"X": X[1000:]}, X[1000:])


def test_inputs_keep_column_names_that_are_not_identifiers():
    # skl2onnx would name them "a_b", "a_b1", "q__": a user feeds the frame's own names.
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "a b": rng.normal(size=40),
            "a-b": rng.normal(size=40),
            'q"✓': rng.choice(["x", "y"], 40),
        }
    )
    y = rng.choice(["p", "n"], 40)
    model = MixedNB().fit(df, y)
    for onx in (to_onnx(model, zipmap=False), to_onnx(model, example(df), zipmap=False)):
        assert [i.name for i in onx.graph.input] == list(df.columns)
        session = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
        label, proba = session.run(None, column_feeds(df))
        np.testing.assert_array_equal(label, model.predict(df))
        np.testing.assert_allclose(proba, model.predict_proba(df), rtol=0, atol=TOL)
