"""The linear face of the models: coef_, intercept_, decision_function and odds thresholds."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from _cases import binary_data, code_data, count_data, gaussian_data
from scipy.special import expit
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import precision_score, recall_score
from sklearn.model_selection import train_test_split

import nbayes
from nbayes.datasets import load_sms_spam
from nbayes.exceptions import ParameterError

#: name -> (linear estimator factory, data maker)
LINEAR = {
    "bernoulli": (lambda: nbayes.BernoulliNB(alpha=0.8), binary_data),
    "bernoulli_thresholded": (lambda: nbayes.BernoulliNB(binarize=1.5), count_data),
    "multinomial": (lambda: nbayes.MultinomialNB(alpha=0.5), count_data),
    "complement": (lambda: nbayes.ComplementNB(alpha=0.7), count_data),
    "complement_norm": (lambda: nbayes.ComplementNB(norm=True), count_data),
    "poisson": (lambda: nbayes.PoissonNB(alpha=2.0, beta=0.5), count_data),
    "categorical": (lambda: nbayes.CategoricalNB(alpha=2.0), code_data),
    "gaussian_shared": (lambda: nbayes.GaussianNB(var_pooling="shared"), gaussian_data),
    "gaussian_shared_auto": (
        lambda: nbayes.GaussianNB(var_pooling="shared", var_smoothing="auto"),
        gaussian_data,
    ),
    "multinomial_auto": (lambda: nbayes.MultinomialNB(alpha="auto"), count_data),
}


def fitted(name, n_classes, seed=0, n=80, d=6):
    factory, maker = LINEAR[name]
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    # Shift each class's data a little so that the log-odds are far from zero.
    X = maker(rng, n, d)
    if maker is gaussian_data:
        X = X + y[:, None] * rng.normal(size=d)
    elif maker is count_data:
        X = X + rng.poisson(1.5, size=(n, d)) * (y[:, None] == np.arange(d) % n_classes)
    model = factory().fit(X, y)
    return model, X, y


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


@pytest.mark.parametrize("name", sorted(LINEAR))
def test_binary_decision_function_is_the_log_odds_and_its_sign_is_predict(name):
    model, X, _ = fitted(name, 2)
    d = model.decision_function(X)
    jll = model.predict_joint_log_proba(X)
    assert d.shape == (X.shape[0],)
    np.testing.assert_allclose(d, jll[:, 1] - jll[:, 0], rtol=1e-10, atol=1e-9)
    np.testing.assert_array_equal(model.classes_[(d > 0).astype(int)], model.predict(X))
    assert len(np.unique(model.predict(X))) == 2  # the data separate the classes somewhat


@pytest.mark.parametrize("name", sorted(LINEAR))
def test_binary_linear_form_reproduces_the_log_odds(name):
    model, X, _ = fitted(name, 2)
    Z = model.linear_features(X)
    assert model.coef_.shape == (1, Z.shape[1]) and model.intercept_.shape == (1,)
    assert len(model.linear_feature_names()) == Z.shape[1]
    scores = np.asarray(Z @ model.coef_[0]).ravel() + model.intercept_[0]
    np.testing.assert_allclose(scores, model.decision_function(X), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(expit(scores), model.predict_proba(X)[:, 1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(LINEAR))
def test_multiclass_linear_scores_differ_from_the_log_posterior_by_a_row_constant(name):
    model, X, _ = fitted(name, 3)
    d = model.decision_function(X)
    assert d.shape == (X.shape[0], 3)
    np.testing.assert_array_equal(model.classes_[d.argmax(axis=1)], model.predict(X))
    # decision_function is the posterior: each row's probabilities sum to one.
    np.testing.assert_allclose(d, model.predict_proba(X), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(d.sum(axis=1), 1.0, rtol=1e-12)
    Z = model.linear_features(X)
    assert model.coef_.shape == (3, Z.shape[1]) and model.intercept_.shape == (3,)
    scores = np.asarray(Z @ model.coef_.T) + model.intercept_
    gap = scores - model.predict_log_proba(X)
    np.testing.assert_allclose(gap, gap[:, :1].repeat(3, axis=1), rtol=1e-9, atol=1e-8)


def test_bernoulli_weights_are_the_classic_derivation():
    model, _, _ = fitted("bernoulli", 2)
    log_t = model.feature_log_prob_
    log_1mt = np.log1p(-np.exp(log_t))
    w = log_t[1] - log_1mt[1] - log_t[0] + log_1mt[0]
    b = model.class_log_prior_[1] - model.class_log_prior_[0] + np.sum(log_1mt[1] - log_1mt[0])
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-12)
    np.testing.assert_allclose(model.intercept_[0], b, rtol=1e-12)


def test_multinomial_weights_are_log_theta_ratios():
    model, _, _ = fitted("multinomial", 2)
    np.testing.assert_allclose(
        model.coef_[0], model.feature_log_prob_[1] - model.feature_log_prob_[0], rtol=1e-12
    )
    np.testing.assert_allclose(
        model.intercept_[0], model.class_log_prior_[1] - model.class_log_prior_[0], rtol=1e-12
    )


def test_complement_intercept_ignores_the_prior_like_its_scores():
    model, _, _ = fitted("complement", 3)
    np.testing.assert_array_equal(model.intercept_, np.zeros(3))


def test_categorical_linear_form_is_on_one_hot_codes_and_exact_with_missing_cells():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(50, 4)).astype(float)
    y = (X[:, 0] + rng.integers(0, 2, size=50) > 2).astype(int)
    model = nbayes.CategoricalNB(missing="ignore").fit(X, y)
    X_missing = X.copy()
    X_missing[::3, 1] = np.nan
    Z = model.linear_features(X_missing)
    assert sp.issparse(Z) and Z.shape[1] == 12
    assert model.linear_feature_names()[:4].tolist() == ["x0=0", "x0=1", "x0=2", "x1=0"]
    scores = Z @ model.coef_[0] + model.intercept_[0]
    np.testing.assert_allclose(scores, model.decision_function(X_missing), rtol=1e-10, atol=1e-10)


def test_gaussian_with_per_class_variances_has_no_linear_form():
    model, X, _ = fitted("gaussian_shared", 2)
    quadratic = nbayes.GaussianNB().fit(X, model.predict(X))
    assert not hasattr(quadratic, "coef_")
    with pytest.raises(AttributeError, match=r"not linear.*var_pooling='shared'"):
        quadratic.intercept_  # noqa: B018
    # ... but its decision function is still the exact log-odds.
    jll = quadratic.predict_joint_log_proba(X)
    np.testing.assert_allclose(
        quadratic.decision_function(X), jll[:, 1] - jll[:, 0], rtol=1e-10, atol=1e-9
    )


def test_unfitted_model_has_no_coef():
    assert not hasattr(nbayes.MultinomialNB(), "coef_")


def test_shared_variance_is_the_pooled_within_class_variance():
    model, X, y = fitted("gaussian_shared", 3)
    within = sum(((X[y == k] - X[y == k].mean(axis=0)) ** 2).sum(axis=0) for k in range(3))
    expected = within / len(y) + model.epsilon_
    np.testing.assert_allclose(model.var_, np.broadcast_to(expected, model.var_.shape), rtol=1e-10)


def test_shared_variance_gaussian_is_a_logistic_regression_in_x():
    # predict_proba = sigmoid(w.x + b) with w = (mu1 - mu0) / v, b = log(pi1/pi0)
    # - sum (mu1^2 - mu0^2) / 2v: the textbook link between Gaussian NB and logistic regression.
    model, X, _ = fitted("gaussian_shared", 2)
    mu, v = model.theta_, model.var_[0]
    w = (mu[1] - mu[0]) / v
    b = np.log(model.class_prior_[1] / model.class_prior_[0]) - np.sum(
        (mu[1] ** 2 - mu[0] ** 2) / (2 * v)
    )
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-10)
    np.testing.assert_allclose(model.intercept_[0], b, rtol=1e-10)
    np.testing.assert_allclose(
        model.predict_proba(X)[:, 1], expit(X @ w + b), rtol=1e-9, atol=1e-12
    )


# -- thresholds ------------------------------------------------------------------------------


def test_threshold_zero_and_probability_half_are_the_plain_rule():
    model, X, y = fitted("multinomial", 2)
    plain = model.predict(X)
    for params in (
        {"decision_threshold": 0.0},
        {"decision_threshold": 0.5, "threshold_scale": "proba"},
    ):
        np.testing.assert_array_equal(model.set_params(**params).fit(X, y).predict(X), plain)


def test_probability_threshold_equals_its_log_odds():
    model, X, y = fitted("bernoulli", 2)
    by_proba = model.set_params(decision_threshold=0.8, threshold_scale="proba").fit(X, y)
    p = by_proba.predict(X)
    by_odds = model.set_params(decision_threshold=np.log(4.0), threshold_scale="log_odds")
    np.testing.assert_array_equal(by_odds.fit(X, y).predict(X), p)
    np.testing.assert_array_equal(p == model.classes_[1], by_proba.predict_proba(X)[:, 1] > 0.8)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"decision_threshold": 1.5, "threshold_scale": "proba"}, "strictly between 0 and 1"),
        ({"decision_threshold": 1.0, "threshold_scale": "odds"}, "threshold_scale"),
        ({"decision_threshold": np.nan}, "must not be NaN"),
    ],
)
def test_bad_thresholds_are_rejected(params, message):
    model, X, _ = fitted("multinomial", 2)
    with pytest.raises(ParameterError, match=message):
        model.set_params(**params).predict(X)


def test_threshold_needs_two_classes():
    model, X, _ = fitted("multinomial", 3)
    with pytest.raises(ParameterError, match="applies to two classes; this model has 3"):
        model.set_params(decision_threshold=1.0).predict(X)


def test_sms_spam_filter_gets_more_precise_as_the_threshold_rises():
    df = load_sms_spam()
    train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])
    vec = CountVectorizer()
    X_train, X_test = vec.fit_transform(train["text"]), vec.transform(test["text"])
    y_test = np.asarray(test["label"], dtype=object)
    precision, recall, flagged = [], [], []
    for gamma in (-4.0, -2.0, 0.0, 2.0, 4.0):
        model = nbayes.MultinomialNB(decision_threshold=gamma).fit(X_train, train["label"])
        predicted = model.predict(X_test)
        precision.append(precision_score(y_test, predicted, pos_label="spam"))
        recall.append(recall_score(y_test, predicted, pos_label="spam"))
        flagged.append(set(np.flatnonzero(predicted == "spam")))
    assert np.all(np.diff(precision) > 0), precision
    assert np.all(np.diff(recall) <= 0), recall
    # A higher threshold flags a subset of what a lower one flags.
    assert all(high <= low for low, high in itertools.pairwise(flagged))


def mixed_table(n=300, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "city": rng.choice(["Oslo", "Rome", "Paris"], n),
            "t": rng.normal(size=n),
            "ok": rng.random(n) < 0.5,
            "visits": rng.poisson(3, n),
        }
    )
    df.loc[::7, "city"] = None  # missing cells: dropped factors, handled by the linear form
    y = np.where(df["t"] + (df["city"] == "Rome") + rng.normal(size=n) > 0.5, "yes", "no")
    return df, y


def test_mixed_model_is_linear_when_every_group_is():
    from nbayes.distributions import Gaussian

    df, y = mixed_table()
    model = nbayes.MixedNB(
        columns=[
            ("categorical", ["city"]),
            ("bernoulli", ["ok"]),
            (Gaussian(var_pooling="shared"), ["t"]),
            ("poisson", ["visits"]),
        ]
    ).fit(df, y)
    Z = model.linear_features(df)
    names = model.linear_feature_names().tolist()
    assert len(names) == Z.shape[1] and "city=Rome" in names and "t" in names
    scores = np.asarray(Z @ model.coef_[0]).ravel() + model.intercept_[0]
    np.testing.assert_allclose(scores, model.decision_function(df), rtol=1e-9, atol=1e-9)
    jll = model.predict_joint_log_proba(df)
    np.testing.assert_allclose(
        model.decision_function(df), jll[:, 1] - jll[:, 0], rtol=1e-10, atol=1e-9
    )
    assert model.top_features("yes", k=2)["feature"].tolist() == ["t", "city=Rome"]


def test_mixed_model_with_a_per_class_gaussian_group_is_not_linear():
    df, y = mixed_table()
    model = nbayes.MixedNB().fit(df, y)
    assert not hasattr(model, "coef_")
    ex = model.explain(df.iloc[:5])
    np.testing.assert_allclose(
        ex.joint_log_proba, model.predict_joint_log_proba(df.iloc[:5]), rtol=1e-10, atol=1e-9
    )
    assert sorted(ex.feature_names) == sorted(df.columns)
    table = ex.to_frame(1).set_index("feature")
    assert table.loc["city", "value"] == df.loc[1, "city"]
    # Row 0's city is missing: its factor is dropped, so it contributes nothing.
    assert ex.to_frame(0).set_index("feature").loc["city", "contribution"] == 0.0
