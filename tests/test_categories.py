"""Category values (strings, booleans, pandas categoricals), unseen categories, new classes."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import OrdinalEncoder

import nbayes
from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    DataError,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    ParameterError,
    PoissonNB,
    UnknownLabelError,
)
from nbayes.distributions import Categorical, Labels
from nbayes.distributions.categorical import UNSEEN_CODE


def string_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = np.column_stack(
        [
            np.array(["red", "green", "blue"])[(y + rng.integers(0, 2, n)) % 3],
            np.array(["S", "M", "L", "XL"])[rng.integers(0, 4, n)],
        ]
    ).astype(object)
    return X, y


# -- CategoricalNB on values ------------------------------------------------------------------


def test_categorical_nb_on_strings_equals_it_on_ordinal_codes():
    X, y = string_data()
    codes = OrdinalEncoder().fit_transform(X).astype(int)
    on_values = CategoricalNB().fit(X, y)
    on_codes = CategoricalNB().fit(codes, y)
    assert [c.tolist() for c in on_values.categories_] == [
        ["blue", "green", "red"],
        ["L", "M", "S", "XL"],
    ]
    assert on_codes.categories_ is None
    np.testing.assert_allclose(
        on_values.predict_joint_log_proba(X), on_codes.predict_joint_log_proba(codes), rtol=1e-12
    )


def test_categorical_nb_accepts_pandas_categoricals_and_booleans():
    df = pd.DataFrame(
        {
            "c": pd.Categorical(["x", "y", "x", "z"]),
            "b": np.array([True, False, True, True], dtype=object),
        }
    )
    model = CategoricalNB().fit(df, [0, 1, 0, 1])
    assert model.feature_names_in_.tolist() == ["c", "b"]
    assert model.categories_[0].tolist() == ["x", "y", "z"]
    assert model.categories_[1].tolist() == [False, True]
    assert model.predict(df).tolist() == [0, 1, 0, 1]


def test_categorical_nb_names_one_hot_columns_by_value():
    X, y = string_data()
    model = CategoricalNB().fit(pd.DataFrame(X, columns=["colour", "size"]), y)
    assert model.linear_feature_names().tolist() == [
        "colour=blue",
        "colour=green",
        "colour=red",
        "size=L",
        "size=M",
        "size=S",
        "size=XL",
    ]


def test_categorical_nb_partial_fit_appends_to_the_vocabulary():
    X, y = string_data()
    model = CategoricalNB().partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    first = [c.tolist() for c in model.categories_]
    extra = X[50:].copy()
    extra[:3, 0] = "purple"
    model.partial_fit(extra, y[50:])
    assert model.categories_[0].tolist() == first[0] + ["purple"]
    full = np.vstack([X[:50], extra])
    np.testing.assert_allclose(
        model.predict_joint_log_proba(full),
        CategoricalNB().fit(full, y).predict_joint_log_proba(full),
        rtol=1e-10,
    )


def test_categorical_nb_value_errors_and_policies():
    X, y = string_data()
    new = X[:4].copy()
    new[1, 1] = "XXL"
    with pytest.raises(
        DataError,
        match=r"Column index 1 has the category 'XXL' at row 1, "
        "which no training batch contained",
    ):
        CategoricalNB().fit(X, y).predict(new)
    ignored = CategoricalNB(unseen="ignore").fit(X, y)
    gone = new.copy()
    gone[1, 1] = None
    assert np.isfinite(ignored.predict_proba(new)).all()
    with pytest.raises(DataError, match=r"Column index 1 is missing at row 1; got None"):
        ignored.predict(gone)
    both = CategoricalNB(unseen="ignore", missing="ignore").fit(X, y)
    np.testing.assert_allclose(
        both.predict_joint_log_proba(new), both.predict_joint_log_proba(gone), rtol=1e-12
    )
    with pytest.raises(ParameterError, match="missing='category' needs category values"):
        CategoricalNB(missing="category").fit(np.array([[0], [1]]), [0, 1])


def test_integer_code_minus_one_is_missing_only_when_ignored():
    X = np.array([[0, 1], [1, -1], [1, 0]])
    with pytest.raises(DataError, match=r"non-negative integer category codes .* got -1 at row 1"):
        CategoricalNB().fit(X, [0, 1, 1])
    model = CategoricalNB(missing="ignore").fit(X, [0, 1, 1])
    nan = CategoricalNB(missing="ignore").fit(np.where(X < 0, np.nan, X), [0, 1, 1])
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), nan.predict_joint_log_proba(np.where(X < 0, np.nan, X))
    )


# -- the Categorical family's unseen policy -------------------------------------------------------


@pytest.mark.parametrize("sparse", [False, True])
def test_family_unseen_policies_on_codes(sparse):
    X = np.array([[0, 1], [1, 2], [2, 0], [1, 1]])
    labels = Labels(np.array([0, 0, 1, 1]), np.ones(4), 2)
    new = np.array([[1, 7], [0, UNSEEN_CODE]])
    dropped = np.array([[1, -1], [0, -1]])
    convert = sp.csr_matrix if sparse else np.asarray
    results = {}
    for unseen in ("error", "ignore", "smooth"):
        fam = Categorical(alpha=0.5, unseen=unseen, missing="ignore")
        params = fam.finalize(fam.accumulate(fam.prepare(X), labels))
        if unseen == "error":
            with pytest.raises(DataError, match=r"Column index 1 has category code 7 at row 0"):
                fam.joint_log_likelihood(params, fam.prepare(convert(new)))
            continue
        results[unseen] = fam.joint_log_likelihood(params, fam.prepare(convert(new)))
        terms = fam.log_likelihood_terms(params, fam.prepare(new))
        np.testing.assert_allclose(terms.sum(axis=2), results[unseen], rtol=1e-12)
    reference = Categorical(alpha=0.5, missing="ignore")
    params = reference.finalize(reference.accumulate(reference.prepare(X), labels))
    np.testing.assert_allclose(
        results["ignore"], reference.joint_log_likelihood(params, dropped), rtol=1e-12
    )
    # smooth: the second feature's factor is alpha / (n_k + K alpha) = 0.5 / (2 + 1.5)
    np.testing.assert_allclose(results["smooth"] - results["ignore"], np.log(0.5 / 3.5))


def test_family_rejects_an_unknown_unseen_policy():
    with pytest.raises(ParameterError, match="'unseen' must be one of"):
        Categorical(unseen="guess")


# -- partial_fit with enlarged classes, for every preset and family ----------------------------


def count_data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
    X = rng.poisson(lam=1 + (y == "b")[:, None] * 2 + (y == "c")[:, None], size=(n, 4))
    return X.astype(float), y


@pytest.mark.parametrize(
    "make",
    [
        GaussianNB,
        BernoulliNB,
        MultinomialNB,
        ComplementNB,
        PoissonNB,
        CategoricalNB,
        lambda: MixedNB(
            columns=[("gaussian", [0]), ("bernoulli", [1]), ("poisson", [2]), ("categorical", [3])]
        ),
        lambda: MixedNB(columns=[("multinomial", [0, 1]), ("complement", [2, 3])]),
    ],
    ids=[
        "gaussian",
        "bernoulli",
        "multinomial",
        "complement",
        "poisson",
        "categorical",
        "mixed",
        "mixed-text",
    ],
)
def test_partial_fit_enlarges_classes_when_listed(make):
    X, y = count_data()
    ab, c = y != "c", y == "c"
    model = make().partial_fit(X[ab], y[ab], classes=["a", "b"])
    with pytest.raises(UnknownLabelError, match="Label 'c' at row 0 is not among classes"):
        model.partial_fit(X[c], y[c])
    with pytest.raises(ParameterError, match=r"drops the known class\(es\) \['b'\]"):
        model.partial_fit(X[c], y[c], classes=["a", "c"])
    model.partial_fit(X[c], y[c], classes=["a", "b", "c"])
    assert model.classes_.tolist() == ["a", "b", "c"]
    once = make().fit(np.vstack([X[ab], X[c]]), np.concatenate([y[ab], y[c]]))
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), once.predict_joint_log_proba(X), rtol=1e-9, atol=1e-9
    )
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


# -- CategoricalNB on values: model files and merge -----------------------------------------------


def test_categorical_nb_values_survive_save_load_and_merge(tmp_path):
    X, y = string_data()
    model = CategoricalNB(missing="category", unseen="smooth").fit(X, y)
    loaded = nbayes.load(nbayes.save(model, tmp_path / "values.nbayes"))
    new = X[:5].copy()
    new[0, 0], new[1, 1] = "purple", None
    np.testing.assert_array_equal(
        loaded.predict_joint_log_proba(new), model.predict_joint_log_proba(new)
    )
    assert [c.tolist() for c in loaded.categories_] == [c.tolist() for c in model.categories_]
    codes = nbayes.load(
        nbayes.save(CategoricalNB().fit(X[:, :1] == "red", y), tmp_path / "codes.nbayes")
    )
    assert codes.categories_ is None
    # Shards that saw different values merge into the model of all rows.
    first, second = X[:100].copy(), X[100:].copy()
    second[:4, 0] = "purple"
    one = CategoricalNB().partial_fit(first, y[:100], classes=[0, 1, 2])
    two = CategoricalNB().partial_fit(second, y[100:], classes=[0, 1, 2])
    merged = nbayes.merge(one, two)
    every = np.vstack([first, second])
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(every),
        CategoricalNB().fit(every, y).predict_joint_log_proba(every),
        rtol=1e-10,
    )
    with pytest.raises(
        ParameterError, match="fitted on category codes with one fitted on category values"
    ):
        nbayes.merge(
            CategoricalNB().fit(np.zeros((3, 2), int), [0, 1, 2]),
            CategoricalNB().fit(X[:3], [0, 1, 2]),
        )


def test_merged_shards_with_missing_as_a_category_equal_one_fit():
    """Merging re-codes one shard's categories into the other's vocabulary; the reserved
    code 0 of missing="category" must stay code 0 in both."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame(
        {"c": rng.choice(["red", "green", "blue", None], 60), "d": rng.choice(["s", "m"], 60)},
        dtype=object,
    )
    y = rng.integers(0, 2, 60)
    make = lambda: MixedNB(columns=[("categorical", ["c", "d"])], missing="category")  # noqa: E731
    # The first shard lacks "blue", so the shards number the colours differently.
    first = X["c"].ne("blue").to_numpy() & (np.arange(60) < 40)
    whole = make().fit(X, y)
    merged = nbayes.merge(make().fit(X[first], y[first]), make().fit(X[~first], y[~first]))
    np.testing.assert_allclose(merged.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    missing_row = X.iloc[[int(np.flatnonzero(X["c"].isna())[0])]]
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(missing_row), whole.predict_joint_log_proba(missing_row)
    )


@pytest.mark.parametrize("top", [3, 70_000])
def test_category_counts_are_exact_for_narrow_and_wide_code_ranges(top):
    # Unit-weight batches count every feature with room for the batch's largest code, unless
    # that room would dwarf the batch (one column of codes up to 70,000): both layouts must
    # give the same per-feature counts and category numbers as counting cell by cell.
    from nbayes.distributions import Categorical, Labels

    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(500, 4))
    X[:, 1] = rng.integers(0, 2, size=500)  # a feature with fewer categories than the rest
    X[:, 2] = rng.integers(0, top, size=500)
    codes = rng.integers(0, 3, size=500)
    stats = Categorical().accumulate(X, Labels(codes, np.ones(500), 3))
    n_cat = X.max(axis=0) + 1
    np.testing.assert_array_equal(stats["n_categories"], n_cat)
    expected = np.zeros((3, int(n_cat.sum())))
    start = np.concatenate([[0], np.cumsum(n_cat)[:-1]])
    for i in range(500):
        for j in range(4):
            expected[codes[i], start[j] + X[i, j]] += 1
    np.testing.assert_array_equal(stats["n_counts"], expected)


def test_one_hot_features_are_the_callers_to_modify():
    # Scoring shares one read-only vector of ones between one-hot chunks; the matrix handed
    # to the user must be an ordinary one that scipy (and the user) may change in place.
    X = np.array([[0, 1], [1, 2], [1, 0]])
    model = CategoricalNB().fit(X, [0, 1, 1])
    fam, params = model.families_[0], model.params_[0]
    onehot = fam.linear_features(params, X)
    onehot.data *= 2.0
    onehot.sort_indices()
    assert onehot.sum() == 2.0 * X.size
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_flat_counts_offsets():
    from nbayes.distributions.categorical import offsets_of

    assert offsets_of(np.array([2, 3, 5, 4])).tolist() == [0, 2, 5, 10]
