"""nbayes.export.to_sql: the query scores a table in DuckDB and SQLite as the model does
(same predictions, probabilities to 1e-9), on real data sets and on a table with NULLs and
values the model has not seen."""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pandas as pd
import pytest
from test_real_tables import load_adult, load_mushroom

from nbayes import (
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
from nbayes.export import to_sql

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("sqlglot")

ENGINES = ("duckdb", "sqlite")


def score(model, table: pd.DataFrame, engine: str) -> pd.DataFrame:
    """The exported query's output on ``table``, loaded into ``engine`` as table "t"."""
    if engine == "duckdb":
        con = duckdb.connect()
        con.register("t", table)
        return con.execute(to_sql(model, dialect="duckdb")).fetchdf()
    con = sqlite3.connect(":memory:")
    for name in ("exp", "ln"):  # SQLite's own since 3.35, where built with math functions
        try:
            con.execute(f"SELECT {name}(1.0)")
        except sqlite3.OperationalError:
            python_math(con)
    # NaN is stored as NULL: the database's missing value.
    table.astype(object).where(table.notna(), None).to_sql("t", con, index=False)
    return pd.read_sql_query(to_sql(model, dialect="sqlite"), con)


def _exp(x):
    if x is None:
        return None
    try:
        return math.exp(x)
    except OverflowError:  # SQLite's own exp gives infinity
        return math.inf


def python_math(con: sqlite3.Connection) -> None:
    """Python's exp and ln as SQLite functions: what a build without math functions (before
    3.35, or compiled without them) needs."""
    con.create_function("exp", 1, _exp, deterministic=True)
    con.create_function("ln", 1, lambda x: None if x is None else math.log(x), deterministic=True)


def check_same(model, X: pd.DataFrame, engine: str) -> None:
    out = score(model, X, engine)
    assert list(out.columns[: X.shape[1]]) == list(X.columns)
    # A model fitted on an array is given one (its columns are x0, x1, ... in the table).
    rows = X if hasattr(model, "feature_names_in_") else X.to_numpy()
    expected = model.predict_proba(rows)
    proba = out[[f"proba_{c}" for c in model.classes_]].to_numpy(dtype=np.float64)
    np.testing.assert_allclose(proba, expected, rtol=0, atol=1e-9)
    assert out["prediction"].astype(str).tolist() == model.predict(rows).astype(str).tolist()


def sample(X, y, n: int, seed: int = 0):
    rows = np.random.default_rng(seed).choice(len(y), size=min(n, len(y)), replace=False)
    return X.iloc[rows].reset_index(drop=True), np.asarray(y)[rows]


@pytest.fixture(scope="module")
def spambase(shared_data):
    df = pd.read_csv(shared_data / "spambase" / "spambase.data", header=None)
    X = df.iloc[:, :-1].rename(columns=lambda c: f"f {c}")  # names that need quoting
    return sample(X, df.iloc[:, -1].map({0: "ham", 1: "spam"}).to_numpy(), 1500)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "model",
    [
        GaussianNB(),
        GaussianNB(var_pooling="shared"),
        GaussianNB(estimate="posterior_predictive"),
        BernoulliNB(binarize=0.1),
        MultinomialNB(),
        ComplementNB(),
        DensityNB(density="binned"),
        DensityNB(density="gaussian"),
    ],
    ids=repr,
)
def test_spambase_scores_as_the_model_does(spambase, model, engine):
    X, y = spambase
    model.fit(X[:1000], y[:1000])
    check_same(model, X[1000:], engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_sms_word_counts_score_as_the_model_does(shared_data, engine):
    from sklearn.feature_extraction.text import CountVectorizer

    sms = pd.read_csv(
        shared_data / "sms_spam_collection" / "SMSSpamCollection",
        sep="\t",
        header=None,
        quoting=3,
        names=["label", "text"],
    )
    sms = sms.sample(1200, random_state=0).reset_index(drop=True)
    vec = CountVectorizer(max_features=300, token_pattern=r"\S+")  # "£" and "'s" need quoting
    X = pd.DataFrame(vec.fit_transform(sms["text"]).toarray(), columns=vec.get_feature_names_out())
    for model in (MultinomialNB(), ComplementNB(), PoissonNB(), BernoulliNB()):
        check_same(model.fit(X[:800], sms["label"][:800]), X[800:], engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_mushroom_strings_and_codes_score_as_the_model_does(shared_data, engine):
    X, y = sample(*load_mushroom(shared_data), 1200)
    X = X.fillna("?")  # CategoricalNB has no missing values: '?' is one more category
    strings = CategoricalNB(unseen="smooth").fit(X[:800], y[:800])
    check_same(strings, X[800:], engine)  # holds values the first 800 rows lack
    codes = X.apply(lambda c: c.astype("category").cat.codes).rename(columns=lambda c: f"c{c}")
    check_same(CategoricalNB(unseen="smooth").fit(codes[:800], y[:800]), codes[800:], engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_adult_mixed_with_missing_values_scores_as_the_model_does(shared_data, engine):
    (X, y), (X_test, _) = load_adult(shared_data)
    # 99999 codes a missing capital gain: NaN, as nbayes' warning advises.
    X, X_test = (d.replace({"capital-gain": {99999: np.nan}}) for d in (X, X_test))
    X, y = sample(X, y, 3000)
    model = MixedNB(missing="ignore").fit(X, y)
    test = sample(X_test, np.zeros(len(X_test)), 800, seed=1)[0]
    assert test.isna().any().any()
    check_same(model, test, engine)


def generated(seed=0):
    rng = np.random.default_rng(seed)
    n = 300
    df = pd.DataFrame(
        {
            "colour name": rng.choice(["red", "green", "blue"], n),
            "select": rng.normal(size=n),  # a keyword as a column name
            'say "hi"': rng.poisson(3, n).astype(float),
            "flag": rng.integers(0, 2, n).astype(float),
            "spread": rng.lognormal(size=n),
        }
    )
    y = np.where(rng.random(n) < 0.4, "it's", rng.choice(["b c", "Δ"], n))
    return df, y


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("unseen", ["smooth", "ignore"])
def test_nulls_and_unseen_values_are_scored_as_nbayes_scores_them(engine, unseen):
    X, y = generated()
    model = MixedNB(
        missing="ignore",
        unseen=unseen,
        columns=[
            ("categorical", ["colour name"]),
            ("gaussian", ["select"]),
            ("poisson", ['say "hi"']),
            ("bernoulli", ["flag"]),
            ("binned", ["spread"]),
        ],
    ).fit(X, y)
    test = X.head(40).copy()
    test.loc[0:9, "colour name"] = "purple"  # unseen
    for j, col in enumerate(test.columns):
        test.loc[10 + j :: 5, col] = np.nan
    test.loc[35:, :] = np.nan  # whole rows missing: the prior alone
    check_same(model, test, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_unseen_values_under_unseen_error_give_null(engine):
    X, y = generated()
    model = MixedNB(unseen="error", columns=[("categorical", ["colour name"])]).fit(
        X[["colour name"]], y
    )
    test = pd.DataFrame({"colour name": ["red", "purple"]})
    out = score(model, test, engine)
    assert out["prediction"][0] == model.predict(test[:1])[0]
    assert out["prediction"].isna()[1] and out[f"proba_{model.classes_[0]}"].isna()[1]


def test_the_query_is_written_for_the_dialect():
    X, y = generated()
    model = GaussianNB().fit(X[["select"]], y)
    assert '"select"' in to_sql(model, dialect="duckdb")
    assert "`select`" in to_sql(model, table="db.scores", dialect="bigquery")
    assert "FROM db.scores" in to_sql(model, table="db.scores", dialect="bigquery")
    # PostgreSQL's EXP raises on overflow: its exponents are capped.
    assert "LEAST(" in to_sql(model, dialect="postgres")
    with pytest.raises(ParameterError, match="dialect='duckbd' is not a SQL dialect"):
        to_sql(model, dialect="duckbd")


def test_models_without_a_sql_form_are_refused_with_the_reason():
    X, y = generated()
    with pytest.raises(ParameterError, match="raw text"):
        to_sql(TextNB().fit(["good film", "bad film"], ["+", "-"]))
    with pytest.raises(ParameterError, match="kernel density"):
        to_sql(DensityNB(density="kde").fit(X[["select"]], y))
    with pytest.raises(ParameterError, match="estimate='mle'"):  # a zero probability
        to_sql(CategoricalNB(estimate="mle").fit([[0], [1]], ["a", "b"]))


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_category_no_class_has_is_refused_without_numpy_noise():
    # Under estimate="mle" a category of no class has -inf in every class: -inf - -inf.
    model = CategoricalNB(estimate="mle", min_categories=3).fit([[0], [1]], ["a", "b"])
    with pytest.raises(ParameterError, match="estimate='mle'"):
        to_sql(model)


def test_seminaive_models_are_refused():
    from nbayes import TAN

    X, y = generated()
    model = TAN().fit(X[["colour name", "flag"]].astype(str), y)
    with pytest.raises(ParameterError, match="one at a time"):
        to_sql(model)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_decision_threshold_decides_as_predict_does(spambase, engine):
    X, y = spambase
    model = GaussianNB(decision_threshold=0.9, threshold_scale="proba").fit(X[:1000], y[:1000])
    check_same(model, X[1000:], engine)
    out = score(GaussianNB().fit(X[:1000], y[:1000]), X[1000:], engine)
    assert (out["prediction"] != model.predict(X[1000:])).any()  # the threshold matters here


def test_models_holding_another_model_are_refused():
    from nbayes import SemiSupervisedNB

    X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
    model = SemiSupervisedNB(MultinomialNB()).fit(X, np.array([0, -1, 1, -1, -1, -1]))
    with pytest.raises(ParameterError, match="holds another nbayes model"):
        to_sql(model)


@pytest.mark.parametrize("engine", ENGINES)
def test_bernoulli_without_binarize_gives_null_for_other_values(engine):
    X = pd.DataFrame({"a": [0.0, 1.0, 1.0, 0.0], "b": [1.0, 1.0, 0.0, 0.0]})
    model = BernoulliNB(binarize=None).fit(X, ["n", "y", "y", "n"])
    check_same(model, X, engine)
    out = score(model, pd.DataFrame({"a": [2.0], "b": [1.0]}), engine)
    assert out["prediction"].isna().all()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_model_fitted_on_an_array_reads_columns_x0_x1(engine):
    X, y = generated()
    numbers = X[["select", "spread"]].to_numpy()
    model = MixedNB().fit(numbers, y)
    check_same(model, pd.DataFrame(numbers[:50], columns=["x0", "x1"]), engine)


def test_sqlite_without_math_functions_scores_with_python_ones(spambase):
    X, y = spambase
    model = GaussianNB(estimate="posterior_predictive").fit(X[:1000], y[:1000])
    con = sqlite3.connect(":memory:")
    python_math(con)  # a user function takes the place of SQLite's own
    X[1000:].to_sql("t", con, index=False)
    out = pd.read_sql_query(to_sql(model, dialect="sqlite"), con)
    expected = model.predict_proba(X[1000:])
    np.testing.assert_allclose(out[["proba_ham", "proba_spam"]], expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("engine", ENGINES)
def test_boolean_and_integer_columns_read_as_nbayes_reads_them(engine):
    rng = np.random.default_rng(3)
    X = pd.DataFrame(
        {
            "rating": rng.integers(1, 6, 300),  # integer categories
            "flag": rng.choice([True, False], 300),  # a boolean, Bernoulli
            "visits": rng.poisson(2, 300),  # integer counts
        }
    )
    y = rng.choice(["a", "b"], 300)
    model = MixedNB(
        unseen="smooth",
        columns=[("categorical", ["rating"]), ("bernoulli", ["flag"]), ("poisson", ["visits"])],
    ).fit(X, y)
    test = X.head(30).copy()
    test.loc[0, "rating"] = 9  # unseen
    check_same(model, test, engine)
