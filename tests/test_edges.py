"""Edge paths pinned by value: MLE probabilities of exactly 0 and 1, rows that every class rules
out, MixedNB columns whose categories cannot be sorted, duplicate column names."""

import datetime
import warnings

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes._engine import DECISION_BOUND
from nbayes.exceptions import DataError, ModelFormatError

# Class 0 always has feature 0 and never feature 1; class 1 the other way round, except that
# both classes have feature 1 = 0 once. With estimate="mle" a 1 in feature 0 rules class 1
# out and a 1 in feature 1 rules class 0 out.
X_SEPARATED = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0, 1], [0, 0]], dtype=float)
Y_SEPARATED = np.array(["a", "a", "a", "b", "b", "b"])


@pytest.fixture
def mle_model():
    return nbayes.BernoulliNB(estimate="mle").fit(X_SEPARATED, Y_SEPARATED)


def test_bernoulli_mle_scores_probabilities_of_exactly_zero_and_one(mle_model):
    # theta_a = (1, 0), theta_b = (0, 2/3): the MLE, no smoothing.
    np.testing.assert_array_equal(np.exp(mle_model.feature_log_prob_), [[1.0, 0.0], [0.0, 2 / 3]])
    rows = np.array([[1, 0], [0, 1], [0, 0]], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a decided row is not a numerical problem
        proba = mle_model.predict_proba(rows)
        log_proba = mle_model.predict_log_proba(rows)
        decision = mle_model.decision_function(rows)
    np.testing.assert_array_equal(proba, [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    np.testing.assert_array_equal(log_proba, [[0.0, -np.inf], [-np.inf, 0.0], [-np.inf, 0.0]])
    # decision_function is bounded: a certain row scores the bound, not infinity.
    top = DECISION_BOUND
    np.testing.assert_array_equal(decision, [-top, top, top])
    assert mle_model.predict(rows).tolist() == ["a", "b", "b"]


def test_a_row_every_class_rules_out_gets_the_uniform_posterior(mle_model):
    rows = np.array([[1, 1], [1, 0]], dtype=float)  # row 0: a needs x1 = 0, b needs x0 = 0
    every = r"1 row\(s\) have probability zero under every class .* set to uniform"
    with pytest.warns(RuntimeWarning, match=every) as caught:
        proba = mle_model.predict_proba(rows)
    np.testing.assert_array_equal(proba, [[0.5, 0.5], [1.0, 0.0]])
    assert caught[0].filename == __file__  # the user's line, not nbayes' insides
    with pytest.warns(RuntimeWarning, match=every):
        np.testing.assert_array_equal(
            mle_model.predict_log_proba(rows), [[np.log(0.5), np.log(0.5)], [0.0, -np.inf]]
        )
    both = r"1 row\(s\) have probability zero under both classes .* log-odds are set to 0"
    with pytest.warns(RuntimeWarning, match=both) as caught:
        np.testing.assert_array_equal(mle_model.decision_function(rows), [0.0, -DECISION_BOUND])
    assert caught[0].filename == __file__
    assert mle_model.predict(rows).tolist() == ["a", "a"]  # a tie goes to classes_[0]


def test_three_classes_that_rule_a_row_out_score_minus_infinity():
    X = np.vstack([X_SEPARATED, [[1, 1], [1, 1]]])
    y = np.concatenate([Y_SEPARATED, ["c", "c"]])
    model = nbayes.BernoulliNB(estimate="mle").fit(X, y)
    # (0, 0): only b allows it; (1, 0) only a. Joint log-likelihoods, and the log posterior
    # that puts all the mass on that class (decision_function: the posterior, 0 and 1).
    rows = np.array([[0, 0], [1, 0]], dtype=float)
    joint = model.joint_log_scores(rows)
    np.testing.assert_allclose(joint[0, 1], np.log(3 / 8) + np.log(1 / 3))
    np.testing.assert_allclose(joint[1, 0], np.log(3 / 8))
    assert joint[0, 0] == joint[0, 2] == joint[1, 1] == joint[1, 2] == -np.inf
    np.testing.assert_array_equal(
        model.predict_log_proba(rows), [[-np.inf, 0, -np.inf], [0, -np.inf, -np.inf]]
    )
    np.testing.assert_array_equal(model.decision_function(rows), [[0, 1, 0], [1, 0, 0]])
    np.testing.assert_array_equal(model.predict_proba(rows), [[0, 1, 0], [1, 0, 0]])


# -- MixedNB: categories that cannot be sorted, duplicate names -----------------------------------
DAY = datetime.date(2020, 1, 1)


def test_unsortable_categories_keep_their_first_appearance_order():
    # "b" < 1 and 1 < date raise TypeError, so the vocabulary keeps the order of appearance.
    values = ["b", DAY, 1, "b", DAY, 1, "b", 1]
    y = ["x", "x", "y", "x", "y", "y", "y", "x"]
    df = pd.DataFrame({"c": pd.Series(values, dtype=object)})
    model = nbayes.MixedNB().fit(df, y)
    assert model.categories_["c"].tolist() == ["b", DAY, 1]
    # The same as the same categories written as text.
    as_text = {"b": "s_b", DAY: "s_day", 1: "s_1"}
    text = pd.DataFrame({"c": [as_text[v] for v in values]})
    reference = nbayes.MixedNB().fit(text, y)
    np.testing.assert_allclose(model.predict_proba(df), reference.predict_proba(text), rtol=1e-12)
    # A later batch with a new unsortable value appends it.
    model.partial_fit(pd.DataFrame({"c": pd.Series([(1, 2), "b"], dtype=object)}), ["x", "y"])
    assert model.categories_["c"].tolist() == ["b", DAY, 1, (1, 2)]


def test_unsortable_categories_refuse_to_be_saved_with_the_fix(tmp_path):
    df = pd.DataFrame({"c": pd.Series(["b", DAY, 1, "b"], dtype=object)})
    model = nbayes.MixedNB().fit(df, ["x", "y", "x", "y"])
    with pytest.raises(
        ModelFormatError,
        match=r"Category value datetime.date\(2020, 1, 1\) of type date cannot be written .* "
        r"df\[col\].astype\(str\)",
    ):
        nbayes.save(model, tmp_path / "m.nbayes")
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_unhashable_categories_are_a_data_error():
    df = pd.DataFrame({"c": pd.Series([{"k": 1}, "b"], dtype=object)})
    with pytest.raises(DataError, match=r"Category values must be hashable .*astype\(str\)"):
        nbayes.MixedNB().fit(df, ["x", "y"])


def test_duplicate_column_names_are_refused():
    df = pd.DataFrame(np.arange(12.0).reshape(4, 3), columns=["x", "x", "z"])
    y = ["a", "b", "a", "b"]
    with pytest.raises(DataError, match=r"^Column name 'x' occurs more than once; names must"):
        nbayes.MixedNB().fit(df, y)
    model = nbayes.MixedNB().fit(df.iloc[:, 1:], y)  # columns x, z
    with pytest.raises(DataError, match=r"^Column name 'x' occurs more than once"):
        model.predict(df)
