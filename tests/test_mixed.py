"""MixedNB: column groups, dtype inference, missing values, unseen categories, column names."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp
from sklearn.base import clone
from sklearn.compose import make_column_selector
from sklearn.utils.estimator_checks import parametrize_with_checks

import nbayes
from nbayes import (
    BernoulliNB,
    CategoricalNB,
    DataError,
    GaussianNB,
    MixedNB,
    ModelFormatError,
    ParameterError,
)
from nbayes.distributions import Categorical, Gaussian
from nbayes.exceptions import UnknownLabelError
from nbayes.io._dispatch import dump
from nbayes.io._dispatch import load as load_dumped


def make_table(n=300, seed=0, missing=True):
    """A small mixed table whose classes differ in every column, with gaps everywhere."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["no", "yes"], size=n, p=[0.6, 0.4])
    pos = y == "yes"
    df = pd.DataFrame(
        {
            "height": rng.normal(170, 8, n) + 6 * pos,
            "visits": rng.poisson(2 + 3 * pos),  # small integer -> categorical
            "income": rng.integers(0, 10**6, n) + 10**5 * pos,  # many integers -> gaussian
            "city": rng.choice(["Oslo", "Rome", "Lima"], n),
            "plan": pd.Categorical(np.where(rng.random(n) < 0.3 + 0.4 * pos, "gold", "basic")),
            "member": rng.random(n) < 0.3 + 0.4 * pos,
        }
    )
    df.loc[pos & (rng.random(n) < 0.5), "city"] = "Rome"
    if missing:
        df["visits"] = df["visits"].astype("Int64")
        df.loc[rng.random(n) < 0.1, "height"] = np.nan
        df.loc[rng.random(n) < 0.1, "visits"] = pd.NA
        df.loc[rng.random(n) < 0.1, "city"] = None
        df.loc[rng.random(n) < 0.1, "plan"] = np.nan
        df["member"] = df["member"].astype("boolean")
        df.loc[rng.random(n) < 0.1, "member"] = pd.NA
    return df, y


# -- family inference and column groups ----------------------------------------------------------


def test_auto_infers_one_family_per_dtype_and_reports_it():
    df, y = make_table()
    model = MixedNB().fit(df, y)
    assert model.column_families_ == {
        "height": "gaussian",
        "visits": "categorical",
        "income": "gaussian",
        "city": "categorical",
        "plan": "categorical",
        "member": "bernoulli",
    }
    assert [name for name, _ in model.column_groups_] == ["gaussian", "categorical", "bernoulli"]
    summary = model.summary()
    assert summary.index.tolist() == df.columns.tolist()
    assert summary.loc["city", "n_categories"] == 3
    assert summary.loc["height", "missing"] == pytest.approx(df["height"].isna().mean())
    assert summary.loc["city", "missing"] == pytest.approx(df["city"].isna().mean())
    assert sorted(model.categories_["city"].tolist()) == ["Lima", "Oslo", "Rome"]


def test_integer_rule_threshold_is_a_parameter():
    df, y = make_table(missing=False)
    assert MixedNB(max_int_categories=0).fit(df, y).column_families_["visits"] == "gaussian"
    assert MixedNB(max_int_categories=10**7).fit(df, y).column_families_["income"] == "categorical"
    with pytest.raises(ParameterError, match="max_int_categories"):
        MixedNB(max_int_categories=-1).fit(df, y)


def test_pyarrow_dtypes_are_inferred_like_pandas_ones():
    pa = pytest.importorskip("pyarrow", reason="pyarrow is an optional dependency")
    df, y = make_table(missing=False)
    table = pa.Table.from_pandas(df, preserve_index=False)
    from_arrow = MixedNB().fit(table, y)
    from_pandas = MixedNB().fit(df, y)
    assert from_arrow.column_families_ == from_pandas.column_families_
    np.testing.assert_allclose(from_arrow.predict_proba(table), from_pandas.predict_proba(df))


def test_explicit_groups_with_names_instances_selectors_and_remainder():
    df, y = make_table(missing=False)
    model = MixedNB(
        columns=[
            (Gaussian(var_smoothing=1e-3), ["height", "income"]),
            ("poisson", "visits"),
            (Categorical(alpha=0.5), make_column_selector(dtype_include=[object, "string"])),
        ],
        remainder="drop",
    ).fit(df, y)
    assert model.column_families_ == {
        "height": "gaussian",
        "income": "gaussian",
        "visits": "poisson",
        "city": "categorical",
    }
    assert model.families_[0].var_smoothing == 1e-3 and model.families_[2].alpha == 0.5
    # The remainder is inferred by default; positions, slices and masks select too.
    auto = MixedNB(columns=[("poisson", [1])]).fit(df, y)
    assert auto.column_families_["visits"] == "poisson"
    assert auto.column_families_["plan"] == "categorical"
    sliced = MixedNB(columns=[("gaussian", slice(0, 1))], remainder="drop").fit(df, y)
    assert list(sliced.column_families_) == ["height"]
    masked = MixedNB(columns=[("gaussian", df.columns == "income")], remainder="drop").fit(df, y)
    assert list(masked.column_families_) == ["income"]


@pytest.mark.parametrize(
    "columns, remainder, match",
    [
        (
            [("gaussian", ["height"]), ("gaussian", ["height", "income"])],
            "auto",
            "'height' is selected by more than one group",
        ),
        (
            [("gaussian", ["nope"])],
            "auto",
            r"Column 'nope' selected by group 0 .* not in the table",
        ),
        ([("lognormal", ["height"])], "auto", "Unknown family 'lognormal'"),
        (
            [("gaussian", ["height"])],
            "error",
            r"\['visits', 'income', 'city', 'plan', 'member'\] "
            "are in no group",
        ),
        ([("gaussian",)], "auto", r"Group 0 of 'columns' must be a \(family, selector\) pair"),
        ("everything", "auto", "must be 'auto' or a list"),
    ],
)
def test_bad_column_groups_are_reported(columns, remainder, match):
    df, y = make_table(missing=False)
    with pytest.raises(ParameterError, match=match):
        MixedNB(columns=columns, remainder=remainder).fit(df, y)


def test_column_without_inference_rule_asks_for_a_family():
    # Durations have no rule (dates do since issue 30: they give calendar features).
    df = pd.DataFrame({"when": pd.to_timedelta([1, 2, 3, 4], unit="h"), "x": [1.0, 2, 3, 4]})
    with pytest.raises(ParameterError, match=r"column 'when' \(index 0\) of dtype timedelta64"):
        MixedNB().fit(df, [0, 0, 1, 1])
    model = MixedNB(columns=[("gaussian", ["x"])], remainder="drop").fit(df, [0, 0, 1, 1])
    assert model.predict(df).tolist() == [0, 0, 1, 1]


def test_non_numeric_value_in_a_numeric_group_names_column_and_row():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["1", "x", "3"]})
    with pytest.raises(
        DataError,
        match=r"Column 'b' \(index 1\) is modelled by the gaussian "
        r"family and needs numbers; got 'x' at row 1",
    ):
        MixedNB(columns=[("gaussian", ["a", "b"])]).fit(df, [0, 1, 1])


def test_complex_numbers_in_a_numeric_group_are_refused_not_cut_to_their_real_part():
    # A complex column was cast to float64 with only a ComplexWarning: 1+2j was learned as 1.
    df = pd.DataFrame({"z": [1 + 2j, 3 + 0j, 2 + 1j, 5 + 0j], "c": ["a", "b", "a", "b"]})
    columns = [("gaussian", ["z"]), ("categorical", ["c"])]
    with pytest.raises(
        DataError,
        match=r"Column 'z' \(index 0\) is modelled by the gaussian family and needs numbers; "
        r"got \(1\+2j\) at row 0",
    ):
        MixedNB(columns=columns).fit(df, [0, 1, 0, 1])
    # Among other objects: the cell that is complex is named.
    mixed = df.assign(z=pd.Series([1.0, 2.0, 2 + 1j, 4.0], dtype=object))
    with pytest.raises(DataError, match=r"needs numbers; got \(2\+1j\) at row 2"):
        MixedNB(columns=columns).fit(mixed, [0, 1, 0, 1])
    # 1+0j among floats is found by no cell-wise test: the group is still refused.
    real = df.assign(z=pd.Series([1.0, 2.0, 1 + 0j, 4.0], dtype=object))
    with pytest.raises(DataError, match=r"Columns \['z'\] could not be converted to real numbers"):
        MixedNB(columns=columns).fit(real, [0, 1, 0, 1])


def test_a_series_is_refused_with_the_way_to_make_it_a_table():
    with pytest.raises(DataError, match=r"needs a 2D table; got a Series. Use series.to_frame\(\)"):
        MixedNB().fit(pd.Series(["a", "b", "a"]), [0, 1, 0])


@pytest.mark.parametrize("unseen", ["ignore", "smooth"])
def test_a_column_that_learned_no_value_scores_like_a_model_without_it(unseen):
    """Column b was missing in every training row: at predict any value of it is unseen,
    and under 'ignore' or 'smooth' the factor is the same for every class."""
    df = pd.DataFrame({"a": ["x", "y", "x", "y", "x"], "b": [None] * 5}, dtype=object)
    y = [0, 1, 0, 1, 1]
    model = MixedNB(columns=[("categorical", ["a", "b"])], missing="ignore", unseen=unseen)
    model.fit(df, y)
    without = MixedNB(columns=[("categorical", ["a"])], missing="ignore", unseen=unseen)
    without.fit(df[["a"]], y)
    new = pd.DataFrame({"a": ["x", "y", "y"], "b": ["z", "q", None]}, dtype=object)
    np.testing.assert_allclose(
        model.predict_proba(new), without.predict_proba(new[["a"]]), rtol=1e-12
    )
    strict = MixedNB(columns=[("categorical", ["a", "b"])], missing="ignore", unseen="error")
    strict.fit(df, y)
    with pytest.raises(DataError, match=r"Column 'b' \(index 1\) has the category 'z' at row 0"):
        strict.predict(new)


def test_family_domain_errors_name_the_table_column():
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "clicks": [1, -2, 3]})
    with pytest.raises(
        DataError,
        match=r"Column 'clicks' \(index 1\) must hold non-negative "
        r"integer counts for Poisson features; got -2.0 at row 1",
    ):
        MixedNB(columns=[("poisson", ["clicks"])]).fit(df, [0, 1, 1])


# -- agreement with the presets ------------------------------------------------------------------


def test_each_group_equals_its_preset_and_groups_add_up():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 200)
    num = rng.normal(size=(200, 3)) + y[:, None]
    cat = rng.integers(0, 4, size=(200, 2))
    flag = rng.random((200, 2)) < 0.5
    df = pd.concat(
        [
            pd.DataFrame(num, columns=["n0", "n1", "n2"]),
            pd.DataFrame(cat.astype(str), columns=["c0", "c1"]),
            pd.DataFrame(flag, columns=["f0", "f1"]),
        ],
        axis=1,
    )
    mixed = MixedNB().fit(df, y)
    gauss = GaussianNB().fit(num, y)
    # Categories "0".."3" sort like the codes 0..3, so CategoricalNB on codes is the same model.
    categ = CategoricalNB().fit(cat, y)
    bern = BernoulliNB().fit(flag.astype(float), y)
    log_prior = np.log(np.bincount(y) / y.size)
    expected = (
        gauss.predict_joint_log_proba(num)
        + categ.predict_joint_log_proba(cat)
        + bern.predict_joint_log_proba(flag.astype(float))
        - 2 * log_prior
    )
    np.testing.assert_allclose(mixed.predict_joint_log_proba(df), expected, rtol=1e-10)
    for name in ("c0", "c1"):
        assert mixed.categories_[name].tolist() == ["0", "1", "2", "3"]


# -- missing values, unseen categories, column order: the acceptance scenario --------------------


def awkward_rows(df):
    """Rows with NaN in float / integer / string columns, an unseen city, columns reordered."""
    rows = df.iloc[:4].copy()
    rows.loc[rows.index[0], "height"] = np.nan
    rows.loc[rows.index[1], "visits"] = pd.NA
    rows.loc[rows.index[2], "city"] = None
    rows["city"] = rows["city"].astype(object)
    rows.loc[rows.index[3], "city"] = "Atlantis"
    return rows[rows.columns[::-1]]


@pytest.mark.parametrize("unseen", ["ignore", "smooth"])
def test_missing_unseen_and_reordered_columns_give_the_marginal_scores(unseen):
    df, y = make_table()
    model = MixedNB(missing="ignore", unseen=unseen).fit(df, y)
    original = df.iloc[:4]
    terms = model.explain(original).terms  # (row, class, column) in fitted column order
    column = {c: j for j, c in enumerate(df.columns)}
    # Each awkward row lost one cell (height, visits, city missing; city unseen): its score
    # is the original row's without that column's term ...
    expected = model.predict_joint_log_proba(original)
    for row, name in enumerate(["height", "visits", "city", "city"]):
        expected[row] -= terms[row, :, column[name]]
    if unseen == "smooth":
        # ... plus, for the unseen city, the mass of a category never observed in the class:
        # alpha / (n_k + K alpha) with alpha = 1, K = 3 cities, n_k rows of class k with a city.
        n_k = np.array([np.sum(df["city"].notna() & (y == c)) for c in model.classes_])
        expected[3] += np.log(1 / (n_k + 3))
    jll = model.predict_joint_log_proba(awkward_rows(df))
    np.testing.assert_allclose(jll, expected, rtol=1e-12)
    np.testing.assert_allclose(
        model.predict_proba(awkward_rows(df)),
        np.exp(expected - np.logaddexp.reduce(expected, axis=1, keepdims=True)),
        rtol=1e-12,
    )


def test_missing_error_names_column_and_first_row():
    df, y = make_table()
    with pytest.raises(DataError, match=r"Column 'height' \(index 0\) is missing at row \d+"):
        MixedNB(missing="error").fit(df, y)
    clean, y = make_table(missing=False)
    model = MixedNB(missing="error").fit(clean, y)
    rows = clean.iloc[:3].copy()
    rows["city"] = rows["city"].astype(object)
    rows.loc[rows.index[2], "city"] = None
    with pytest.raises(
        DataError,
        match=r"Column 'city' \(index 3\) is missing at row 2; "
        "got None",
    ):
        model.predict(rows)


def test_unseen_error_names_column_value_and_row():
    df, y = make_table()
    model = MixedNB(unseen="error").fit(df, y)
    with pytest.raises(
        DataError,
        match=r"Column 'city' \(index 3\) has the category "
        r"'Atlantis' at row 3, which no training batch",
    ):
        model.predict(awkward_rows(df))


def test_unseen_ignore_equals_a_missing_value_and_smooth_gives_prior_mass():
    df, y = make_table(missing=False)
    new = df.iloc[:5].copy()
    new["city"] = "Atlantis"
    gone = df.iloc[:5].copy()
    gone["city"] = None
    ignore = MixedNB(unseen="ignore").fit(df, y)
    np.testing.assert_allclose(
        ignore.predict_joint_log_proba(new), ignore.predict_joint_log_proba(gone), rtol=1e-12
    )
    smooth = MixedNB(unseen="smooth", alpha=0.5).fit(df, y)
    counts = pd.crosstab(y, df["city"]).to_numpy()  # classes sorted like classes_
    mass = 0.5 / (counts.sum(axis=1) + 3 * 0.5)  # alpha / (n_k + K alpha)
    np.testing.assert_allclose(
        smooth.predict_joint_log_proba(new) - smooth.predict_joint_log_proba(gone),
        np.broadcast_to(np.log(mass), (5, 2)),
        rtol=1e-12,
    )


def test_marginalisation_is_exact():
    """A row with column j missing scores as under a model that never had column j."""
    df, y = make_table()
    rows = df.iloc[:40]
    for column in ["height", "visits", "city", "plan", "member"]:
        full = MixedNB(var_smoothing=0.0).fit(df, y)
        # Same families per remaining column; var_smoothing=0 keeps the Gaussian floor, which
        # couples the Gaussian columns, out of the comparison.
        groups = [(fam, [c for c in cols if c != column]) for fam, cols in full.column_groups_]
        without = MixedNB(
            columns=[g for g in groups if g[1]], remainder="drop", var_smoothing=0.0
        ).fit(df.drop(columns=column), y)
        gap = rows[column].isna().to_numpy()
        assert gap.any()
        np.testing.assert_allclose(
            full.predict_joint_log_proba(rows)[gap],
            without.predict_joint_log_proba(rows.drop(columns=column))[gap],
            rtol=1e-12,
        )


def test_missing_as_category_equals_an_explicit_missing_label():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 120)
    df = pd.DataFrame({"a": rng.choice(["p", "q", None], 120), "b": rng.choice(["r", None], 120)})
    filled = df.fillna("~missing")
    as_category = MixedNB(missing="category").fit(df, y)
    explicit = MixedNB(missing="error").fit(filled, y)
    np.testing.assert_allclose(
        as_category.predict_joint_log_proba(df),
        explicit.predict_joint_log_proba(filled),
        rtol=1e-12,
    )
    assert as_category.summary()["missing"].tolist() == pytest.approx(df.isna().mean().tolist())


def test_missing_values_of_every_kind_are_recognised():
    y = [0, 0, 1, 1, 1]
    df = pd.DataFrame(
        {
            "s": pd.array(["a", None, "b", "b", pd.NA], dtype="string"),
            "o": np.array(["a", np.nan, "b", None, "b"], dtype=object),
            "f": pd.array([1.5, None, 2.5, 2.0, 2.2], dtype="Float64"),
            "i": pd.array([1, 2, None, 3, 3], dtype="Int64"),
        }
    )
    model = MixedNB().fit(df, y)
    assert model.summary()["missing"].tolist() == pytest.approx([0.4, 0.4, 0.2, 0.2])
    assert set(model.categories_["o"]) == {"a", "b"}


# -- vocabularies and partial_fit ----------------------------------------------------------------


def test_partial_fit_extends_vocabularies_append_only_and_equals_fit():
    df, y = make_table()
    model = MixedNB(max_int_categories=20)
    model.partial_fit(df.iloc[:100], y[:100], classes=["no", "yes"])
    before = {c: v.copy() for c, v in model.categories_.items()}
    extra = df.iloc[100:].copy()
    extra["city"] = extra["city"].astype(object)
    extra.loc[extra.index[:5], "city"] = "Cairo"
    model.partial_fit(extra, y[100:])
    for column, values in before.items():  # old codes keep their values
        assert model.categories_[column][: len(values)].tolist() == values.tolist()
    assert model.categories_["city"][-1] == "Cairo"
    full = pd.concat([df.iloc[:100], extra])
    once = MixedNB(max_int_categories=20).fit(full, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(full), once.predict_joint_log_proba(full), rtol=1e-9
    )


def test_failed_partial_fit_leaves_vocabulary_unchanged():
    df, y = make_table()
    model = MixedNB().fit(df, y)
    before = model.categories_["city"].tolist()
    batch = df.iloc[:3].copy()
    batch["city"] = ["Cairo", "Cairo", "Cairo"]
    with pytest.raises(UnknownLabelError, match="'maybe'"):
        model.partial_fit(batch, ["no", "maybe", "yes"])
    assert model.categories_["city"].tolist() == before
    with pytest.raises(DataError, match="Atlantis"):
        MixedNB(unseen="error").fit(df, y).predict(awkward_rows(df))


def test_partial_fit_adds_classes_only_when_listed():
    df, y = make_table(missing=False)
    first, second = y == "no", y == "yes"
    model = MixedNB(max_int_categories=20).partial_fit(df[first], y[first], classes=["no"])
    with pytest.raises(UnknownLabelError, match="Label 'yes' at row 0 is not among classes"):
        model.partial_fit(df[second], y[second])
    model.partial_fit(df[second], y[second], classes=["no", "yes"])
    once = MixedNB(max_int_categories=20).fit(
        pd.concat([df[first], df[second]]), np.concatenate([y[first], y[second]])
    )
    assert model.classes_.tolist() == ["no", "yes"]
    np.testing.assert_allclose(
        model.predict_joint_log_proba(df), once.predict_joint_log_proba(df), rtol=1e-9
    )


# -- column names ---------------------------------------------------------------------------------


def test_columns_are_matched_by_name_at_predict():
    df, y = make_table()
    model = MixedNB().fit(df, y)
    assert model.feature_names_in_.tolist() == df.columns.tolist()
    expected = model.predict_proba(df)
    np.testing.assert_allclose(model.predict_proba(df[df.columns[::-1]]), expected)
    with pytest.warns(
        UserWarning,
        match=r"column\(s\) \['note'\] that MixedNB was not fitted "
        "on; they are ignored",
    ):
        np.testing.assert_allclose(model.predict_proba(df.assign(note="x")), expected)
    with pytest.raises(DataError, match=r"X lacks column\(s\) \['city'\]"):
        model.predict(df.drop(columns="city"))
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        model.predict(df.to_numpy(dtype=object))


def test_arrays_work_positionally():
    df, y = make_table(missing=False)
    arr = df.to_numpy(dtype=object)
    model = MixedNB().fit(arr, y)
    assert not hasattr(model, "feature_names_in_")
    assert model.column_families_[0] == "gaussian" and model.column_families_[3] == "categorical"
    with pytest.raises(DataError, match="X has 5 features, but MixedNB is expecting 6"):
        model.predict(arr[:, :5])


# -- model files, merge and unlearn ---------------------------------------------------------------


def test_save_load_predicts_identically_and_keeps_learning(tmp_path):
    df, y = make_table()
    model = MixedNB(missing="category", unseen="smooth").fit(df.iloc[:200], y[:200])
    params, meta, arrays = dump(model)
    assert json.loads(json.dumps(meta)) == meta and json.loads(json.dumps(params)) == params
    assert all(a.dtype != object for a in arrays.values())
    loaded = nbayes.load(nbayes.save(model, tmp_path / "mixed.nbayes"))
    rows = awkward_rows(df)
    np.testing.assert_array_equal(
        loaded.predict_joint_log_proba(rows), model.predict_joint_log_proba(rows)
    )
    assert loaded.column_families_ == model.column_families_
    assert {c: v.tolist() for c, v in loaded.categories_.items()} == {
        c: v.tolist() for c, v in model.categories_.items()
    }
    model.partial_fit(df.iloc[200:], y[200:])
    loaded.partial_fit(df.iloc[200:], y[200:])
    np.testing.assert_allclose(
        loaded.predict_joint_log_proba(df), model.predict_joint_log_proba(df), rtol=1e-12
    )


def test_model_files_keep_category_value_types_and_family_parameters(tmp_path):
    df = pd.DataFrame(
        {
            "k": [1, 2, 2, 1],
            "b": [True, False, True, True],
            "s": ["x", "y", "x", "y"],
            "f": [0.5, 1.5, 0.5, 0.5],
        }
    )
    model = MixedNB(columns=[(Categorical(alpha=0.3), ["k", "b", "s", "f"])]).fit(df, [0, 1, 1, 0])
    loaded = nbayes.load(nbayes.save(model, tmp_path / "types.nbayes"))
    for column in df:
        assert [type(v) for v in loaded.categories_[column]] == [
            type(v) for v in model.categories_[column]
        ]
    assert loaded.get_params()["columns"] == model.get_params()["columns"]
    np.testing.assert_array_equal(loaded.predict_proba(df), model.predict_proba(df))


def test_callable_selectors_are_saved_as_the_columns_they_chose(tmp_path):
    df, y = make_table(missing=False)
    model = MixedNB(
        columns=[("gaussian", make_column_selector(dtype_include="float"))], remainder="drop"
    ).fit(df, y)
    loaded = nbayes.load(nbayes.save(model, tmp_path / "selector.nbayes"))
    assert loaded.get_params()["columns"] == [(Gaussian(missing="ignore"), ["height"])]
    np.testing.assert_array_equal(loaded.predict_proba(df), model.predict_proba(df))


def test_corrupt_vocabulary_is_refused(tmp_path):
    df, y = make_table(missing=False)
    model = MixedNB().fit(df, y)
    params, meta, arrays = dump(model)
    key = next(k for k in arrays if k.endswith("/code"))
    arrays[key] = arrays[key] + 1000
    with pytest.raises(ModelFormatError, match="not consecutive per column"):
        load_dumped("MixedNB", params, meta, arrays)
    meta["mixed"]["positions"][0] = [0, 0]
    with pytest.raises(ModelFormatError, match="overlap or name columns outside the table"):
        load_dumped("MixedNB", params, meta, dump(model)[2])


def test_merge_of_shards_with_different_vocabularies_equals_fit():
    df, y = make_table()
    rng = np.random.default_rng(5)
    df["city"] = df["city"].astype(object)
    df.loc[rng.random(len(df)) < 0.05, "city"] = "Cairo"
    a, b = df.index < 120, df.index >= 120
    df.loc[a & (df["city"] == "Cairo"), "city"] = "Lima"  # "Cairo" only in the second shard
    df.loc[b & (df["city"] == "Oslo"), "city"] = "Rome"  # "Oslo" only in the first
    shard = MixedNB(max_int_categories=20)
    one = clone(shard).partial_fit(df[a], y[a], classes=["no", "yes"])
    two = clone(shard).partial_fit(df[b], y[b], classes=["no", "yes"])
    assert one.categories_["city"].tolist() != two.categories_["city"].tolist()
    merged = nbayes.merge(one, two)
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(df),
        clone(shard).fit(df, y).predict_joint_log_proba(df),
        rtol=1e-9,
    )
    assert set(merged.categories_["city"]) == {"Cairo", "Lima", "Oslo", "Rome"}
    # The automatic integer rule depends on the batch (max(20, sqrt(n)) distinct values): in
    # 700 rows k1 (25 values) is categorical and k2 (30) Gaussian; in 100 rows the reverse.
    row = np.arange(800)
    ints = pd.DataFrame(
        {"x": row / 800, "k1": row % 25, "k2": np.where(row < 700, row % 30, row % 10)}
    )
    labels = row % 2
    big, small = MixedNB().fit(ints[:700], labels[:700]), MixedNB().fit(ints[700:], labels[700:])
    with pytest.raises(ParameterError, match="group their columns differently"):
        nbayes.merge(big, small)


def test_unlearn_undoes_partial_fit_and_refuses_unknown_categories():
    df, y = make_table()
    model = MixedNB(max_int_categories=20).fit(df.iloc[:200], y[:200])
    before = model.predict_joint_log_proba(df)
    model.partial_fit(df.iloc[200:], y[200:]).unlearn(df.iloc[200:], y[200:])
    np.testing.assert_allclose(model.predict_joint_log_proba(df), before, rtol=1e-9)
    rows = df.iloc[:2].copy()
    rows["city"] = ["Atlantis", "Rome"]
    with pytest.raises(
        DataError,
        match="'Atlantis' at row 0, which no training batch "
        "contained; so these rows cannot have been learned",
    ):
        model.unlearn(rows, y[:2])


def test_dask_fit_equals_fit_on_all_rows():
    # nbayes.dask surveys the table first (rows, distinct values), so groups and category
    # codes are those of fit on all rows; tests/test_dask.py covers it on a real cluster.
    dask = pytest.importorskip("dask", reason="dask is an optional dependency")
    import dask.dataframe as dd

    from nbayes import dask as nbdask

    df, y = make_table()
    with dask.config.set(scheduler="sync"):
        model = nbdask.fit(MixedNB(), dd.from_pandas(df.assign(label=y), npartitions=3), "label")
    local = MixedNB().fit(df, y)
    assert model.column_groups_ == local.column_groups_
    np.testing.assert_allclose(model.predict_proba(df), local.predict_proba(df), rtol=1e-10)


# -- explanations ---------------------------------------------------------------------------------


def test_explain_terms_add_up_and_one_hot_names_use_values():
    df, y = make_table()
    model = MixedNB(missing="category").fit(df, y)
    rows = awkward_rows(df)
    explanation = model.explain(rows)
    assert explanation.feature_names.tolist() == df.columns.tolist()  # fitted column order
    np.testing.assert_allclose(
        explanation.terms.sum(axis=2) + explanation.log_prior,
        model.predict_joint_log_proba(rows),
        rtol=1e-10,
    )
    names = model.linear_feature_names().tolist()
    assert {"city=<missing>", "city=Lima", "city=Oslo", "city=Rome", "plan=gold"} <= set(names)
    assert model.linear_features(df).shape[1] == len(names)
    top = model.top_features("yes", k=3)
    assert top["feature"].isin(names).all()


# -- scikit-learn conventions ----------------------------------------------------------------------


@parametrize_with_checks([MixedNB()])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)


def test_probabilities_sum_to_one_and_match_posterior():
    df, y = make_table()
    model = MixedNB().fit(df, y)
    jll = model.predict_joint_log_proba(df)
    np.testing.assert_allclose(
        model.predict_log_proba(df), jll - logsumexp(jll, axis=1, keepdims=True), atol=1e-10
    )
