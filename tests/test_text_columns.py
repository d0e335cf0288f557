"""Text columns inside MixedNB: the ``"text"`` family (hashed words) with the other columns.

The family keeps the algebra of every family: fit equals partial_fit over any chunking and
merged shards, unlearn inverts fit, model files round-trip, explanations add up.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_messy_inputs import messy_table

import nbayes
from nbayes import MixedNB
from nbayes.distributions import Labels, Text
from nbayes.exceptions import ParameterError

COLUMNS = [("text", ["title"]), ("gaussian", ["income"]), ("categorical", ["colour"])]


@pytest.fixture(scope="module")
def table():
    df = messy_table("titles", n=900, seed=3)
    df.loc[df.index[::17], "title"] = None  # missing texts are empty texts
    return df.drop(columns="label"), df["label"].to_numpy()


def test_text_family_is_a_multinomial_over_the_words_learned():
    fam = Text(n_buckets=32)
    X = fam.encode(pd.Series(["red red apple", None, "Plum"]))
    assert X.shape == (3, 32)
    assert X[0].sum() == 3 and X[1].sum() == 0 and X[2].sum() == 1
    stats = fam.accumulate(X, Labels(np.array([0, 1, 1]), np.ones(3), 2))
    params = fam.finalize(stats)
    theta = np.exp(params["log_theta"])
    learned = stats["n_counts"].sum(axis=0) > 0
    assert np.array_equal(params["learned"], learned) and learned.sum() == 3
    assert np.allclose((theta * learned).sum(axis=1), 1.0)
    assert np.all(theta[:, ~learned] == 1.0)  # log-weight 0: unknown words are left out
    # (2 + 1) / (3 + 3) for "red" in class 0: smoothing over the 3 words learned, not 32.
    assert np.isclose(theta[0, X[0].indices[np.argmax(X[0].data)]], 3 / 6)


def test_each_text_column_is_its_own_group(table):
    X, y = table
    model = MixedNB(columns=[("text", ["title", "colour"])], remainder="drop").fit(X, y)
    assert model.column_groups_ == [("text", ["title"]), ("text", ["colour"])]


def test_numbers_alone_are_not_words():
    X = Text(n_buckets=64).encode(np.array([["857 Lake Dr 12B"]], dtype=object))
    assert X.sum() == 3  # lake, dr, 12b


def test_text_family_parameters_are_checked():
    with pytest.raises(ParameterError, match="'n_buckets' of the text family must be"):
        Text(n_buckets=0)
    with pytest.raises(ParameterError, match="'min_count' of the text family must be"):
        Text(min_count=1.5)


def test_fit_equals_partial_fit_and_merge(table):
    X, y = table
    full = MixedNB(columns=COLUMNS).fit(X, y)
    part = MixedNB(columns=COLUMNS)
    for start in range(0, len(X), 250):
        part.partial_fit(X[start : start + 250], y[start : start + 250], classes=["no", "yes"])
    a = MixedNB(columns=COLUMNS).fit(X[:400], y[:400])
    b = MixedNB(columns=COLUMNS).fit(X[400:], y[400:])
    merged = nbayes.merge(a, b)
    expected = full.predict_proba(X)
    for model in (part, merged):
        assert np.allclose(model.predict_proba(X), expected, rtol=1e-9, atol=1e-12)
    assert full.column_families_["title"] == "text"


def test_unlearn_inverts_fit(table):
    X, y = table
    cols = [("text", ["title"]), ("gaussian", ["income"])]
    half = MixedNB(columns=cols, remainder="drop").fit(X[:450], y[:450])
    back = MixedNB(columns=cols, remainder="drop").fit(X, y).unlearn(X[450:], y[450:])
    assert np.allclose(back.predict_joint_log_proba(X), half.predict_joint_log_proba(X))


def test_model_file_round_trip(table, tmp_path):
    X, y = table
    model = MixedNB(columns=[(Text(n_buckets=1024, min_count=2), ["title"])]).fit(X, y)
    path = nbayes.save(model, tmp_path / "m.nbayes")
    again = nbayes.load(path)
    assert again.families_[0] == model.families_[0]
    assert np.array_equal(again.predict_proba(X), model.predict_proba(X))
    again.partial_fit(X[:10], y[:10])  # statistics, not only parameters, were stored


def test_explanation_adds_up_with_one_term_per_text_column(table):
    X, y = table
    model = MixedNB(columns=COLUMNS).fit(X, y)
    ex = model.explain(X[:4])
    assert ex.terms.shape == (4, 2, X.shape[1])
    assert np.allclose(ex.joint_log_proba, model.predict_joint_log_proba(X[:4]))
    assert "title" in ex.to_frame(0)["feature"].tolist()


def test_summary_lists_the_text_column(table):
    X, y = table
    summary = MixedNB(columns=COLUMNS).fit(X, y).summary()
    assert summary.loc["title", "family"] == "text"


def test_alpha_auto_maximises_the_evidence(table):
    X, y = table
    model = MixedNB(columns=[("text", ["title"])], remainder="drop", alpha="auto").fit(X, y)
    fam, stats = model.families_[0], model.stats_["groups"][0]
    best = float(model.params_[0]["alpha"][0])
    evidence = fam.evidence_function(stats)
    assert evidence(best) >= max(evidence(best * 2), evidence(best / 2))


def test_dask_fit_equals_fit(table):
    dd = pytest.importorskip("dask.dataframe")
    from nbayes import dask as nbdask

    X, y = table
    frame = dd.from_pandas(X.assign(label=y), npartitions=3)
    model = nbdask.fit(MixedNB(columns=COLUMNS), frame, "label")
    expected = MixedNB(columns=COLUMNS).fit(X, y).predict_proba(X)
    assert np.allclose(model.predict_proba(X), expected)


def test_a_model_with_family_instances_clones():
    from sklearn.base import clone

    from nbayes.distributions import Categorical

    model = MixedNB(columns=[(Text(n_buckets=128), ["a"]), (Categorical(alpha=0.5), ["b"])])
    copy = clone(model)
    assert copy.columns == model.columns and copy.columns[0][0] is not model.columns[0][0]


def test_survey_skips_text_columns(table):
    """Their distinct values are not needed (words are hashed), so a survey pass (Dask)
    does not gather them."""
    X, _ = table
    step = MixedNB(columns=COLUMNS).survey_step(X.iloc[:0])
    assert "title" not in step.columns and "colour" in step.columns
