"""Per-prediction explanations and global feature importance."""

import numpy as np
import pandas as pd
import pytest
from _cases import CASES, make_case
from sklearn.feature_extraction.text import CountVectorizer

import nbayes
from nbayes.datasets import load_sms_spam
from nbayes.exceptions import ParameterError, UnknownLabelError

EXTRA = {
    "gaussian_predictive": lambda: nbayes.GaussianNB(estimate="posterior_predictive"),
    "gaussian_shared": lambda: nbayes.GaussianNB(var_pooling="shared"),
}


def case(name, k, sparse=False):
    if name in EXTRA:
        _, X, y = make_case("gaussian", k=k)
        return EXTRA[name](), X, y
    return make_case(name, k=k, sparse=sparse)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("name", sorted(CASES) + sorted(EXTRA))
def test_terms_add_up_to_the_joint_log_probability(name, k):
    model, X, y = case(name, k)
    model.fit(X, y)
    ex = model.explain(X)
    n, d = X.shape
    assert ex.terms.shape == (n, k, d) and ex.contributions.shape == (n, d)
    jll = model.predict_joint_log_proba(X)
    np.testing.assert_allclose(ex.joint_log_proba, jll, rtol=1e-10, atol=1e-9)
    np.testing.assert_array_equal(ex.predicted_class, model.predict(X))
    rows = np.arange(n)
    np.testing.assert_allclose(
        ex.log_odds, jll[rows, ex.predicted] - jll[rows, ex.runner_up], rtol=1e-10, atol=1e-9
    )
    np.testing.assert_allclose(
        ex.prior_log_odds + ex.contributions.sum(axis=1), ex.log_odds, rtol=1e-12, atol=1e-12
    )
    assert np.all(ex.predicted != ex.runner_up)
    assert np.all(ex.log_odds >= -1e-9)  # the prediction is the most probable class


def test_sparse_input_is_explained_like_dense():
    model, X, y = make_case("multinomial", k=2, sparse=True)
    model.fit(X, y)
    np.testing.assert_allclose(model.explain(X).terms, model.explain(X.toarray()).terms)


def test_missing_cells_contribute_nothing():
    model, X, y = make_case("gaussian", k=2)
    model.set_params(missing="ignore").fit(X, y)
    X = X.copy()
    X[0, 2] = np.nan
    ex = model.explain(X[:3])
    assert np.all(ex.terms[0, :, 2] == 0.0)
    np.testing.assert_allclose(ex.joint_log_proba, model.predict_joint_log_proba(X[:3]), rtol=1e-10)


def test_contributions_of_a_thresholded_prediction_can_be_negative():
    # The explanation follows what predict returns, threshold included.
    model, X, y = make_case("bernoulli", k=2)
    model.set_params(decision_threshold=-50.0).fit(X, y)
    ex = model.explain(X)
    assert np.all(ex.predicted_class == model.classes_[1])
    np.testing.assert_allclose(ex.log_odds, model.decision_function(X), rtol=1e-10)


def test_to_frame_lists_one_row_by_absolute_contribution():
    frame = pd.DataFrame({"height": [1.0, 2.0, 8.0, 9.0], "weight": [5.0, 5.1, 4.9, 5.0]})
    model = nbayes.GaussianNB().fit(frame, ["a", "a", "b", "b"])
    ex = model.explain(frame.iloc[[3]])
    table = ex.to_frame(0)
    assert table["feature"].tolist() == ["height", "weight"]
    assert table["value"].tolist() == [9.0, 5.0]
    assert ex.to_frame(0, k=1).shape == (1, 3)


def test_top_features_for_two_classes_are_the_log_odds_weights():
    model, X, y = make_case("multinomial", k=2)
    model.fit(X, y)
    top = model.top_features(model.classes_[1], k=None)
    order = np.argsort(-model.coef_[0], kind="stable")
    assert top["feature"].tolist() == [f"x{j}" for j in order]
    np.testing.assert_allclose(top["weight"], model.coef_[0][order])
    bottom = model.top_features(model.classes_[0], k=2)
    np.testing.assert_allclose(bottom["weight"], -model.coef_[0][order[::-1][:2]])


def test_top_features_errors():
    model, X, y = make_case("bernoulli", k=2)
    model.fit(X, y)
    with pytest.raises(UnknownLabelError, match="class_='nope' is not among classes"):
        model.top_features("nope")
    with pytest.raises(ParameterError, match="one name per input column"):
        model.top_features(0, feature_names=["a"])
    with pytest.raises(ParameterError, match="'by' must be one of"):
        model.top_features(0, by="size")


@pytest.fixture(scope="module")
def sms():
    df = load_sms_spam()
    vec = CountVectorizer()
    X = vec.fit_transform(df["text"])
    return X, np.asarray(df["label"], dtype=object), vec.get_feature_names_out(), df


@pytest.mark.parametrize("estimator", [nbayes.MultinomialNB(), nbayes.BernoulliNB()])
def test_sms_top_spam_features_are_recognisable_words(sms, estimator):
    X, y, words, _ = sms
    model = estimator.fit(X, y)
    by_weight = model.top_features("spam", k=10, feature_names=words)["feature"].tolist()
    assert {"claim", "prize", "guaranteed"} <= set(by_weight)
    by_impact = model.top_features("spam", k=10, feature_names=words, by="impact")
    assert {"claim", "txt", "free", "prize"} <= set(by_impact["feature"])
    ham = model.top_features("ham", k=15, feature_names=words, by="impact")["feature"]
    assert not {"claim", "txt", "free", "prize"} & set(ham)


def test_sms_explained_message_adds_up_to_its_log_odds(sms):
    X, y, words, df = sms
    model = nbayes.MultinomialNB().fit(X, y)
    row = int(np.flatnonzero(df["text"].str.contains("Free entry"))[0])
    ex = model.explain(X[row], feature_names=words)
    assert ex.predicted_class[0] == "spam"
    # The exact log-odds (54.7 here, beyond the bound of decision_function, 36.04).
    log_ham, log_spam = model.predict_log_proba(X[row])[0]
    assert abs(ex.prior_log_odds[0] + ex.contributions[0].sum() - (log_spam - log_ham)) < 1e-9
    top = ex.to_frame(0, k=5)
    assert "free" in top["feature"].tolist() or "entry" in top["feature"].tolist()
    # Words absent from the message contribute nothing to a multinomial log-odds.
    absent = X[row].toarray()[0] == 0
    assert np.all(ex.contributions[0, absent] == 0.0)
