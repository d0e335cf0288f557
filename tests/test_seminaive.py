"""AODE, A2DE, TAN, KDB and JointBayes as estimators: tables in, same model from fit,
partial_fit, merged shards, unlearn and model files."""

import copy
import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.metrics import mutual_info_score

import nbayes
from nbayes.distributions import Binned, Labels
from nbayes.estimators import REGISTRY
from nbayes.estimators.seminaive import GridSummary, mdl_edges, quantile_edges
from nbayes.exceptions import DataError, ParameterError

MODELS = [
    nbayes.AODE(),
    nbayes.AODE(n=2),
    nbayes.TAN(),
    nbayes.KDB(k=2),
    nbayes.KDB(k=1, missing="category"),
    nbayes.JointBayes(min_count=2),
]
IDS = ["aode", "a2de", "tan", "kdb2", "kdb1-category", "joint"]


def table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n)
    y = np.where(rng.random(n) < 0.8, colour == "red", rng.random(n) < 0.5).astype(int)
    shape = np.where(rng.random(n) < 0.7, np.where(y == 1, "round", "square"), "oval")
    size = rng.normal(y * 2.0, 1.0)
    df = pd.DataFrame(
        {
            "colour": colour,
            "shape": shape,
            "spots": rng.random(n) < 0.3 + 0.4 * y,
            "size": size,
            "grade": np.where(shape == "oval", "a", rng.choice(["a", "b"], n)),
        }
    )
    df.loc[rng.random(n) < 0.1, "colour"] = None
    df.loc[rng.random(n) < 0.1, "size"] = np.nan
    return df, np.asarray(["no", "yes"])[y]


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_fit_equals_partial_fit_equals_merged_shards(model):
    df, y = table()
    fitted = clone(model).fit(df, y)
    edges = fitted.bin_edges_
    assert list(edges) == ["size"] and edges["size"].size >= 1
    stream = clone(model).set_params(bin_edges=edges)
    # Shuffled chunks: categories appear in another order, so codes differ from fit's.
    order = np.random.default_rng(1).permutation(len(y))
    for rows in np.array_split(order, 5):
        stream.partial_fit(df.iloc[rows], y[rows], classes=["no", "yes"])
    shards = [
        clone(model).set_params(bin_edges=edges).fit(df.iloc[rows], y[rows])
        for rows in np.array_split(order[::-1], 3)
    ]
    merged = nbayes.merge(*shards)
    expected = fitted.predict_proba(df)
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(expected.sum(axis=1), 1.0)
    for other in (stream, merged):
        np.testing.assert_allclose(other.predict_proba(df), expected, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(
            other.predict_joint_log_proba(df), fitted.predict_joint_log_proba(df), rtol=1e-10
        )
        assert getattr(other, "structure_", None) == getattr(fitted, "structure_", None)
        assert other.categories_.keys() == fitted.categories_.keys()


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_weights_unlearn_and_model_files(model, tmp_path):
    df, y = table(n=200, seed=2)
    edges = clone(model).fit(df, y).bin_edges_
    base = clone(model).set_params(bin_edges=edges)
    w = np.random.default_rng(3).integers(0, 3, len(y))
    weighted = clone(base).fit(df, y, sample_weight=w)
    repeated = clone(base).fit(df.loc[df.index.repeat(w)], np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict_proba(df), repeated.predict_proba(df), rtol=1e-10)

    full = clone(base).fit(df, y)
    rest = clone(base).fit(df.iloc[60:], y[60:])
    full.unlearn(df.iloc[:60], y[:60])
    np.testing.assert_allclose(full.predict_proba(df), rest.predict_proba(df), rtol=1e-10)
    assert getattr(full, "structure_", None) == getattr(rest, "structure_", None)

    path = nbayes.save(rest, tmp_path / "model.nbm")
    back = nbayes.load(path)
    assert type(back) is type(model) and repr(back.get_params()) == repr(rest.get_params())
    np.testing.assert_array_equal(back.predict_proba(df), rest.predict_proba(df))
    back.partial_fit(df.iloc[:60], y[:60])  # a loaded model keeps learning
    np.testing.assert_allclose(
        back.predict_proba(df), clone(base).fit(df, y).predict_proba(df), rtol=1e-10
    )


def test_registered_and_exported():
    for name in ("AODE", "TAN", "KDB", "JointBayes"):
        assert REGISTRY[name] is getattr(nbayes, name)


def test_tan_structure_is_a_tree_rooted_at_the_most_informative_column():
    df, y = table(n=400)
    model = nbayes.TAN().fit(df, y)
    assert sorted(model.structure_) == sorted(df.columns)
    roots = [c for c, p in model.structure_.items() if not p]
    codes = df.assign(size=np.searchsorted(model.bin_edges_["size"], df["size"]))
    # I(X; Y) over the rows that observed X, as the model measures it.
    mi = {c: mutual_info_score(df[c].astype(str), y) for c in ("shape", "spots", "grade")}
    mi["colour"] = mutual_info_score(df["colour"].dropna(), y[df["colour"].notna()])
    mi["size"] = mutual_info_score(codes["size"][df["size"].notna()], y[df["size"].notna()])
    assert roots == [max(mi, key=mi.get)] == ["shape"]
    assert all(len(p) <= 1 for p in model.structure_.values())
    assert model.structure_["grade"] == ["shape"]  # grade depends on shape, not on y
    kdb = nbayes.KDB(k=2).fit(df, y)
    assert max(len(p) for p in kdb.structure_.values()) == 2


def test_unseen_categories_and_missing_values_are_scored():
    df, y = table()
    new = pd.DataFrame(
        {
            "colour": ["purple", None],
            "shape": ["round", None],
            "spots": [True, False],
            "size": [np.nan, 100.0],
            "grade": [None, "z"],
        }
    )
    for model in MODELS:
        proba = clone(model).fit(df, y).predict_proba(new)
        assert np.all(np.isfinite(proba)), model
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_partial_fit_refuses_numeric_columns_without_edges():
    df, y = table()
    with pytest.raises(ParameterError, match=r"Column 'size' is numeric.*bin_edges=\{'size'"):
        nbayes.TAN().partial_fit(df, y, classes=["no", "yes"])
    model = nbayes.TAN(categorical=["size"]).partial_fit(df.round(), y, classes=["no", "yes"])
    assert "size" in model.categories_


def test_wide_inputs_are_refused_with_the_size_needed():
    df = pd.DataFrame({f"c{j}": [str(v) for v in range(40)] for j in range(30)})
    named = list(df.columns)  # distinct in every row: named, not left out as identifiers
    with pytest.raises(
        DataError, match=r"AODE would need 3\.9 GiB .*\(30 features with 1200 categories"
    ):
        nbayes.AODE(n=2, max_table_bytes=2**20, categorical=named).fit(df, np.arange(40) % 2)
    model = nbayes.TAN(categorical=named).fit(df, np.arange(40) % 2)
    # 41 codes per column: 40 values and the missing category (TAN's default).
    assert model.table_bytes() == 8 * 2 * (1230 + 435 * 41**2) + 16


def test_bad_parameters_and_unlearning_rows_never_learned():
    df, y = table()
    with pytest.raises(ParameterError, match=r"'n' must be 1 \(AODE\) or 2"):
        nbayes.AODE(n=3).fit(df, y)
    with pytest.raises(ParameterError, match="'missing' must be one of"):
        nbayes.TAN(missing="drop").fit(df, y)
    model = nbayes.TAN().fit(df, y)
    new = df.iloc[:3].assign(colour="purple")
    with pytest.raises(DataError, match="category 'purple' at row 0, which no training batch"):
        model.unlearn(new, y[:3])


def test_joint_bayes_uses_vector_counts_and_backs_off():
    df = pd.DataFrame({"a": ["x", "x", "y", "y", "y"], "b": ["u", "u", "u", "v", "v"]})
    y = [0, 0, 1, 1, 0]
    model = nbayes.JointBayes(min_count=2).fit(df, y)
    jll = model.predict_joint_log_proba(pd.DataFrame({"a": ["x", "y"], "b": ["u", "v"]}))
    # (x, u) seen twice, both class 0: P(x) = 2/5, P(y | x) = (2 + 1, 0 + 1) / 4.
    np.testing.assert_allclose(jll[0], np.log(2 / 5 * np.array([3 / 4, 1 / 4])))
    # (y, v) seen twice too, one of each class.
    np.testing.assert_allclose(jll[1], np.log(2 / 5 * np.array([1 / 2, 1 / 2])))
    rare = pd.DataFrame({"a": ["y"], "b": ["u"]})  # seen once: naive Bayes
    naive = nbayes.AODE(min_parent_count=1e9).fit(df, y).predict_joint_log_proba(rare)
    np.testing.assert_allclose(model.predict_joint_log_proba(rare), naive)
    tan = nbayes.JointBayes(min_count=2, backoff=nbayes.TAN()).fit(df, y)
    np.testing.assert_allclose(
        tan.predict_joint_log_proba(rare), nbayes.TAN().fit(df, y).predict_joint_log_proba(rare)
    )


def test_bin_edges():
    assert quantile_edges([0, 0, 0, 0, 0, 0, 1, 2, 3, 4], 3).tolist() == [0.0, 2.0]
    assert quantile_edges(np.arange(100), 5).tolist() == [19.0, 39.0, 59.0, 79.0]
    assert quantile_edges([1, 2, 3, 4], 2, [3, 1, 1, 1]).tolist() == [1.0]  # weights count
    rng = np.random.default_rng(0)
    x = rng.normal(size=1000)
    assert mdl_edges(x, (x > 0.5).astype(int), 2).tolist() == [x[x <= 0.5].max()]
    assert mdl_edges(x, rng.integers(0, 2, 1000), 2).size == 0  # noise: no cut


def test_tan_and_kdb_explain_with_missing_values():
    df, y = table()
    rows = df.iloc[:20]
    for model in (nbayes.TAN(), nbayes.KDB(k=2)):
        model.fit(df, y)
        ex = model.explain(rows)
        jll = model.predict_joint_log_proba(rows)
        np.testing.assert_allclose(ex.joint_log_proba, jll, rtol=1e-12)
        missing = rows.isna().to_numpy()
        assert missing.any()
        # A complete row's terms are its tables' own cells: log P(x_j | y, parents) < 0.
        complete = ~missing.any(axis=1)
        assert np.all(ex.terms[complete] < 0)
        assert ex.feature_names.tolist() == list(df.columns)
        # ``given`` names each term's feature parents: the structure.
        for j, column in enumerate(df.columns):
            assert set(ex.given[0, j].split(", ")) - {""} == set(model.structure_[column])


def two_columns():
    """A small table whose AODE / JointBayes terms are worked out by hand below."""
    df = pd.DataFrame(
        {
            "a": ["x", "x", "y", "y", "x", "y", "x", "x"],
            "b": ["u", "v", "u", "v", "u", "u", "v", "u"],
        }
    )
    y = np.array([0, 1, 1, 0, 0, 1, 1, 0])
    return df, y


def count(df, y, cls, **values):
    rows = y == cls
    for column, value in values.items():
        rows &= (df[column] == value).to_numpy()
    return rows.sum()


def test_aode_explain_averages_each_features_factors_over_the_super_parents():
    df, y = two_columns()
    model = nbayes.AODE().fit(df, y)  # alpha=1; every value seen: both parents qualify
    row = pd.DataFrame({"a": ["x"], "b": ["v"]})
    ex = model.explain(row)
    jll = model.predict_joint_log_proba(row)
    np.testing.assert_allclose(ex.joint_log_proba, jll, rtol=1e-12)
    for c in (0, 1):
        n_c = (y == c).sum()
        # Parent a: P(a=x | c) P(b=v | c, a=x); parent b: P(b=v | c) P(a=x | c, b=v).
        pa = np.log((count(df, y, c, a="x") + 1) / (n_c + 2))
        pb_a = np.log((count(df, y, c, a="x", b="v") + 1) / (count(df, y, c, a="x") + 2))
        pb = np.log((count(df, y, c, b="v") + 1) / (n_c + 2))
        pa_b = np.log((count(df, y, c, a="x", b="v") + 1) / (count(df, y, c, b="v") + 2))
        s = np.array([pa + pb_a, pb + pa_b])
        w = np.exp(s - np.logaddexp(*s))
        rest = np.log(np.exp(s).mean()) - w @ s  # H(w) - log 2: the averaging term
        want = [w[0] * pa + w[1] * pa_b + rest / 2, w[0] * pb_a + w[1] * pb + rest / 2]
        np.testing.assert_allclose(ex.terms[0, c], want, rtol=1e-12)
        np.testing.assert_allclose(
            ex.terms[0, c].sum(), jll[0, c] - model.class_log_prior_[c], rtol=1e-12
        )
    assert ex.given[0].tolist() == ["b", "a"]  # each feature given the other super-parent


@pytest.mark.parametrize("n", [1, 2])
def test_aode_explain_adds_up_with_missing_values_and_names_the_parents_used(n):
    df, y = table()
    rows = df.iloc[:30]
    model = nbayes.AODE(n=n).fit(df, y)
    ex = model.explain(rows)
    jll = model.predict_joint_log_proba(rows)
    np.testing.assert_allclose(ex.joint_log_proba, jll, rtol=1e-10)
    r = np.arange(len(rows))
    np.testing.assert_allclose(
        ex.prior_log_odds + ex.contributions.sum(axis=1),
        jll[r, ex.predicted] - jll[r, ex.runner_up],
        rtol=1e-10,
    )
    missing = rows.isna().to_numpy()
    i, j = np.argwhere(missing)[0]
    column = df.columns[j]
    # A missing cell is never a parent of the other features' terms.
    assert all(column not in g.split(", ") for g in ex.given[i])
    other = next(p for p in range(df.shape[1]) if p != j and not missing[i, p])
    assert ex.given[i, j] != "" and df.columns[other] in ex.given[i, j].split(", ")


def test_joint_bayes_explain_is_the_chain_rule_or_the_backoffs_terms():
    df, y = two_columns()
    model = nbayes.JointBayes().fit(df, y)
    rows = pd.DataFrame({"a": ["x", "y"], "b": ["v", "w"]})  # a stored vector; an unseen one
    ex = model.explain(rows)
    jll = model.predict_joint_log_proba(rows)
    np.testing.assert_allclose(ex.joint_log_proba, jll, rtol=1e-12)
    n, prior = len(y), model.class_log_prior_
    n_x = (df["a"] == "x").sum()
    for c in (0, 1):
        # Row 0: a's step is log P(y, a=x) - log P(y), the model's smoothed estimates.
        p_ya = np.log(n_x / n) + np.log((count(df, y, c, a="x") + 1) / (n_x + 2))
        p_y = np.log(((y == c).sum() + 1) / (n + 2))
        np.testing.assert_allclose(ex.terms[0, c, 0], p_ya - p_y, rtol=1e-12)
        np.testing.assert_allclose(ex.terms[0, c, 1], jll[0, c] - prior[c] - (p_ya - p_y))
        # Row 1 (b=w never seen): naive Bayes terms, log P(x_j | y); the unseen value gets
        # the mass of an unobserved one, alpha / (n + K alpha).
        n_c = (y == c).sum()
        want = [np.log((count(df, y, c, a="y") + 1) / (n_c + 2)), np.log(1 / (n_c + 2))]
        np.testing.assert_allclose(ex.terms[1, c], want, rtol=1e-12)
    assert ex.given.tolist() == [["", "a"], ["", ""]]


def test_joint_bayes_explain_takes_a_backoff_estimators_terms():
    df, y = table()
    rows = df.iloc[:20]
    model = nbayes.JointBayes(backoff=nbayes.TAN()).fit(df, y)
    ex = model.explain(rows)
    np.testing.assert_allclose(ex.joint_log_proba, model.predict_joint_log_proba(rows), rtol=1e-10)
    tan = nbayes.TAN().fit(df, y).explain(rows)
    backed = ex.given[:, 0] == tan.given[:, 0]  # rows on the backoff (vectors here are rare)
    assert backed.any()
    np.testing.assert_allclose(ex.terms[backed], tan.terms[backed], rtol=1e-10)


@pytest.mark.parametrize("backoff", [nbayes.TAN(), nbayes.AODE(n=2), nbayes.MixedNB()])
def test_joint_bayes_with_a_backoff_round_trips_through_a_model_file(tmp_path, backoff):
    df, y = table()
    half = len(y) // 2
    model = nbayes.JointBayes(min_count=2, backoff=backoff).fit(df.iloc[:half], y[:half])
    loaded = nbayes.load(nbayes.save(model, tmp_path / "joint.nbayes"))
    assert type(loaded.backoff_) is type(backoff)
    np.testing.assert_array_equal(loaded.predict_proba(df), model.predict_proba(df))
    # The backoff's statistics are stored too: learning on equals one fit on all rows.
    loaded.partial_fit(df.iloc[half:], y[half:])
    model.partial_fit(df.iloc[half:], y[half:])
    np.testing.assert_allclose(loaded.predict_proba(df), model.predict_proba(df), rtol=1e-12)


def test_joint_bayes_with_a_nested_backoff_chain_is_refused_at_save(tmp_path):
    df, y = table()
    inner = nbayes.JointBayes(backoff=nbayes.TAN())
    model = nbayes.JointBayes(backoff=inner).fit(df, y)
    with pytest.raises(ParameterError, match="JointBayes whose backoff is a JointBayes with"):
        nbayes.save(model, tmp_path / "nested.nbayes")


def test_joint_bayes_with_a_backoff_unlearns_both_and_refuses_merge_and_protocol_fits():
    df, y = table()
    model = nbayes.JointBayes(backoff=nbayes.TAN()).fit(df, y)
    keep = np.arange(len(y)) >= 40
    model.unlearn(df.iloc[:40], y[:40])
    fresh = nbayes.JointBayes(backoff=nbayes.TAN()).fit(df[keep], y[keep])
    np.testing.assert_allclose(model.predict_proba(df), fresh.predict_proba(df), rtol=1e-10)
    np.testing.assert_allclose(
        model.backoff_.predict_proba(df), fresh.backoff_.predict_proba(df), rtol=1e-10
    )
    with pytest.raises(ParameterError, match=r"cannot be merged \(nbayes.merge\) yet"):
        nbayes.merge(model, model)  # same parameters (the same backoff object)
    with pytest.raises(ParameterError, match="cannot be fitted through the estimator protocol"):
        nbayes.JointBayes(backoff=nbayes.TAN()).survey_step(df.iloc[:0])


@pytest.mark.parametrize(
    "first, second, message",
    [
        # Two TAN() objects with the same settings are the same setting: merge then says
        # why a backoff model cannot merge (it once read "backoff=TAN() but ... =TAN()").
        (nbayes.TAN(), nbayes.TAN(), r"cannot be merged \(nbayes.merge\) yet"),
        (
            nbayes.TAN(),
            nbayes.TAN(alpha=0.5),
            r"model 2 has backoff__alpha=0.5 but model 1 has backoff__alpha=1.0\. Merge only",
        ),
        (nbayes.TAN(), nbayes.AODE(), r"model 2 has backoff=AODE\(\) but model 1 has backoff=TAN"),
        # Long arrays print alike (numpy summarises them): the differing element is named.
        (
            nbayes.TAN(bin_edges={"n": np.arange(2000.0)}),
            nbayes.TAN(bin_edges={"n": np.r_[np.arange(1000.0), 1000.5, np.arange(1001.0, 2000)]}),
            r"model 2 has backoff__bin_edges\['n'\]\[1000\]=1000.5 but model 1 has "
            r"backoff__bin_edges\['n'\]\[1000\]=1000.0\.",
        ),
        (
            nbayes.TAN(bin_edges={"n": np.arange(2000.0)}),
            nbayes.TAN(bin_edges={"n": np.arange(1999.0)}),
            r"model 2 has backoff__bin_edges\['n'\].shape=\(1999,\) but model 1 has "
            r"backoff__bin_edges\['n'\].shape=\(2000,\)\.",
        ),
        (
            nbayes.TAN(bin_edges={"n": [0.0]}),
            nbayes.TAN(bin_edges={"m": [0.0]}),
            r"model 2 has backoff__bin_edges keys=\['m'\] but model 1 has backoff__bin_edges "
            r"keys=\['n'\]",
        ),
    ],
)
def test_merge_of_joint_bayes_says_what_differs_in_the_backoff(first, second, message):
    df, y = table()
    models = [nbayes.JointBayes(backoff=b).fit(df, y) for b in (first, second)]
    with pytest.raises(ParameterError, match=message):
        nbayes.merge(*models)


@pytest.mark.parametrize("cls", [nbayes.AODE, nbayes.TAN, nbayes.KDB, nbayes.JointBayes])
def test_a_value_seen_only_with_weight_zero_gets_no_code(cls):
    # The shared column layout learns values from rows of non-zero weight only, as if the
    # others were dropped: "z" would otherwise count in K_j and change the smoothing.
    df = pd.DataFrame({"a": ["x", "z", "y", "x", "y", "x"], "b": ["u", "v", "u", "v", "v", "u"]})
    y = np.array([0, 1, 1, 0, 1, 0])
    w = np.array([1.0, 0.0, 1.0, 1.0, 1.0, 1.0])
    weighted = cls().fit(df, y, sample_weight=w)
    dropped = cls().fit(df[w > 0], y[w > 0])
    assert weighted.categories_["a"].tolist() == ["x", "y"]
    np.testing.assert_allclose(
        weighted.predict_joint_log_proba(df), dropped.predict_joint_log_proba(df), rtol=1e-12
    )


def test_text_like_wide_input_is_refused_before_anything_is_allocated():
    """A document-term-like table of 10,000 word columns would need GiBs of pair tables (and
    of their layout): refused at once with the size, before any of it is made; a sparse
    matrix is refused as such."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(8, 10_000))
    X[:2] = [[0], [1]]  # every word absent and present: K = 3 with the missing category
    y = np.arange(8) % 2
    words = list(range(10_000))
    with pytest.raises(DataError, match=r"TAN would need 9\.3 GiB .*10000 features with 30000"):
        nbayes.TAN(categorical=words).fit(X, y)
    with pytest.raises(DataError, match=r"AODE would need [0-9.]+ GiB .*up to 3 feature values"):
        nbayes.AODE(n=2, categorical=words).fit(X, y)
    with pytest.raises(DataError, match="needs a dense table; got a sparse matrix"):
        nbayes.KDB().fit(sp.csr_matrix(X), y)


def skewed_table(n=2000, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n)
    x = rng.lognormal(size=n) * (1 + (y == "b")) + 3 * (y == "c")
    x[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({"x": x, "k": rng.choice(list("pq"), n)}), y


def family_intervals(family, x, y, values):
    """The interval of each of ``values`` under the Binned family fitted on (x, y) alone."""
    keep = ~np.isnan(x)
    codes = np.unique(y[keep], return_inverse=True)[1]
    p = family.finalize(family.accumulate(x[keep, None], Labels(codes, np.ones(keep.sum()), 3)))
    index = np.floor(np.ldexp(values, -int(p["level"][0]))) - p["start"][0]
    return p["interval"][0][index.astype(int)]


@pytest.mark.parametrize("discretize", ["mdl", "equal_frequency"])
def test_binning_with_the_binned_family_cuts_where_the_family_cuts(discretize):
    df, y = skewed_table()
    family = Binned(bins=64, discretize=discretize, n_intervals=4)
    model = nbayes.TAN(binning=family).fit(df, y)
    edges = model.bin_edges_["x"]
    assert edges.size >= 2
    x = df["x"].to_numpy()
    seen = x[~np.isnan(x)]
    # Every value, and every cut's grid boundary (which opens the next interval in the
    # family), falls in the family's interval.
    boundary = np.nextafter(edges, np.inf)
    for values in (seen, boundary, np.nextafter(boundary, -np.inf)):
        want = family_intervals(Binned(bins=64, discretize=discretize, n_intervals=4), x, y, values)
        np.testing.assert_array_equal(np.searchsorted(edges, values, side="left"), want)
    np.testing.assert_array_equal(np.searchsorted(edges, boundary), np.arange(1, edges.size + 1))


def test_binned_family_summaries_merge_to_fit_in_bounded_memory():
    # The survey of nbayes.dask.fit / nbayes train adds up per-partition summaries: any
    # split, integer weights as repeated rows, and bins weights per class whatever the rows.
    df, y = skewed_table()
    family = Binned(bins=32)
    w = np.random.default_rng(2).integers(0, 3, len(y)).astype(float)
    fitted = nbayes.AODE(binning=family).fit(df, y, sample_weight=w)
    x = df["x"].to_numpy()
    cuts = [0, 1, 700, 701, 1500, len(y)]
    parts = [
        GridSummary.of(x[a:b], y[a:b], family, w[a:b], "x") for a, b in itertools.pairwise(cuts)
    ]
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part)
    assert merged.stats["n_grid"].shape == (3, 32)
    np.testing.assert_array_equal(merged.edges(), fitted.bin_edges_["x"])
    repeated = np.repeat(np.arange(len(y)), w.astype(int))
    plain = nbayes.AODE(binning=family).fit(df.iloc[repeated], y[repeated])
    np.testing.assert_array_equal(plain.bin_edges_["x"], fitted.bin_edges_["x"])
    np.testing.assert_allclose(plain.predict_proba(df), fitted.predict_proba(df), rtol=1e-10)


def test_binned_family_binning_saves_merges_and_refuses_bad_values(tmp_path):
    df, y = skewed_table()
    model = nbayes.KDB(k=1, binning=Binned(bins=64)).fit(df, y)
    # One value, not nested parameters: set_params(**get_params()) works (scikit-learn's
    # deep get_params would list binning__bins, which a family cannot set).
    assert not any(k.startswith("binning__") for k in model.get_params())
    assert clone(model).set_params(**model.get_params()).get_params() == model.get_params()
    loaded = nbayes.load(nbayes.save(model, tmp_path / "kdb.nbayes"))
    assert loaded.get_params()["binning"] == Binned(bins=64)
    np.testing.assert_array_equal(loaded.predict_proba(df), model.predict_proba(df))
    other = nbayes.KDB(k=1, binning=Binned(bins=128)).fit(df, y)
    with pytest.raises(ParameterError, match=r"model 2 has binning=Binned\(bins=128"):
        nbayes.merge(model, other)
    with pytest.raises(
        ParameterError, match=r"or a nbayes\.distributions\.Binned family; got 'grid'"
    ):
        nbayes.AODE(binning="grid").fit(df, y)
    bad = df.assign(x=df["x"].where(df.index != 7, np.inf))
    with pytest.raises(DataError, match=r"Column 'x' holds inf at row 7; numeric values must be"):
        nbayes.AODE(binning=Binned()).fit(bad, y)


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_state_round_trips_after_recode_statistics_took_in_new_categories(model):
    # recode_statistics extends the vocabulary for a merge to follow; the model's own
    # statistics, counted before, lack the new codes and its state must still load: as the
    # model whose statistics hold those codes with zero counts.
    df, y = table(n=120, seed=4)
    edges = clone(model).fit(df, y).bin_edges_
    base = clone(model).set_params(bin_edges=edges)
    fitted = clone(base).fit(df, y)
    other = clone(base).fit(df.iloc[:20].assign(colour="purple", grade="c"), y[:20])
    assert other.classes_.tolist() == fitted.classes_.tolist()
    recoded = fitted.recode_statistics(other)
    back = clone(base).set_state(fitted.get_state())
    zero_counts = fitted.scale_statistics(recoded, 0.0)
    expected = copy.deepcopy(fitted).install(
        fitted.classes_, fitted.merge_statistics(fitted.stats_, zero_counts)
    )
    np.testing.assert_allclose(back.predict_proba(df), expected.predict_proba(df), rtol=1e-10)
    assert set(back.categories_["colour"]) == {"red", "green", "blue", "purple"}
