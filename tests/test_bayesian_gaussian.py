"""Bayesian Gaussian NB: Normal-Inverse-Gamma prior, Student-t posterior predictive."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

import nbayes
from nbayes.distributions import Gaussian, Labels
from nbayes.distributions.gaussian import nig_log_evidence
from nbayes.exceptions import ParameterError


def data(seed=0, n=40, d=3, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2, size=d) + y[:, None] * 1.5 + 10.0
    return X, y


def closed_form(X, y, w, mu0, kappa0, nu0, s0):
    """Posterior predictive t parameters per class and feature, written from the textbook."""
    out = []
    for k in np.unique(y):  # test code: a few classes
        Xk, wk = X[y == k], w[y == k]
        n = wk.sum()
        mean = (wk[:, None] * Xk).sum(axis=0) / n
        m2 = (wk[:, None] * (Xk - mean) ** 2).sum(axis=0)
        kn = kappa0 + n
        mun = (kappa0 * mu0 + n * mean) / kn
        an = nu0 / 2 + n / 2
        bn = nu0 * s0 / 2 + m2 / 2 + kappa0 * n * (mean - mu0) ** 2 / (2 * kn)
        out.append((2 * an, mun, np.sqrt(bn * (kn + 1) / (an * kn))))
    return out


@pytest.mark.parametrize("weighted", [False, True])
def test_posterior_predictive_is_student_t_with_closed_form_parameters(weighted):
    X, y = data()
    w = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y)) if weighted else np.ones(len(y))
    mu0, kappa0, nu0, s0 = np.array([9.0, 10.0, 11.0]), 0.5, 3.0, np.array([1.0, 2.0, 0.5])
    model = nbayes.GaussianNB(
        estimate="posterior_predictive",
        mean_prior=mu0,
        mean_prior_count=kappa0,
        var_prior=s0,
        var_prior_count=nu0,
    )
    model.fit(X, y, sample_weight=w)
    X_new = np.random.default_rng(2).normal(size=(7, 3)) * 3 + 10
    expected = (
        np.column_stack(
            [
                stats.t.logpdf(X_new, df=df, loc=loc, scale=scale).sum(axis=1)
                for df, loc, scale in closed_form(X, y, w, mu0, kappa0, nu0, s0)
            ]
        )
        + model.class_log_prior_
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(X_new), expected, rtol=1e-10)
    np.testing.assert_allclose(
        model.predict_log_proba(X_new),
        expected - logsumexp(expected, axis=1, keepdims=True),
        atol=1e-10,
    )
    df0, loc0, scale0 = closed_form(X, y, w, mu0, kappa0, nu0, s0)[0]
    np.testing.assert_allclose(model.dof_[0], df0)
    np.testing.assert_allclose(model.theta_[0], loc0)
    np.testing.assert_allclose(model.var_[0], scale0**2)


def test_default_prior_is_centred_on_the_data():
    # mu0 = overall mean, s0^2 = pooled within-class variance (+ the tiny floor).
    X, y = data(seed=3)
    model = nbayes.GaussianNB(estimate="posterior_predictive").fit(X, y)
    within = sum(((X[y == k] - X[y == k].mean(axis=0)) ** 2).sum(axis=0) for k in range(3))
    s0 = within / len(y) + model.epsilon_
    expected = (
        np.column_stack(
            [
                stats.t.logpdf(X, df=df, loc=loc, scale=scale).sum(axis=1)
                for df, loc, scale in closed_form(
                    X, y, np.ones(len(y)), X.mean(axis=0), 1.0, 1.0, s0
                )
            ]
        )
        + model.class_log_prior_
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-10)


def test_sequential_predictives_multiply_to_the_evidence():
    # p(x_1..x_n) = prod_i p(x_i | x_<i): the predictive after each partial_fit, chained,
    # equals the closed-form NIG marginal likelihood.
    x = np.random.default_rng(4).normal(3.0, 2.0, size=12)
    mu0, kappa0, nu0, s0 = 1.0, 0.7, 2.0, 3.0
    fam = Gaussian(
        estimate="posterior_predictive",
        mean_prior=mu0,
        mean_prior_count=kappa0,
        var_prior=s0,
        var_prior_count=nu0,
    )
    st = fam.zeros(1, 1)
    total = 0.0
    for xi in x:  # test code: one observation at a time is the point
        row = np.array([[xi]])
        total += fam.joint_log_likelihood(fam.finalize(st), row)[0, 0]
        st = fam.merge(st, fam.accumulate(row, Labels(np.zeros(1, int), np.ones(1), 1)))
    evidence = nig_log_evidence(
        np.array(len(x), float),
        x.mean(),
        ((x - x.mean()) ** 2).sum(),
        mu0,
        kappa0,
        nu0 / 2,
        nu0 * s0 / 2,
    )
    np.testing.assert_allclose(total, evidence, rtol=1e-12)


def test_partial_fit_equals_fit():
    X, y = data(seed=5, n=60)
    params = {"estimate": "posterior_predictive", "mean_prior_count": 2.0}
    full = nbayes.GaussianNB(**params).fit(X, y)
    inc = nbayes.GaussianNB(**params)
    for rows in np.array_split(np.arange(len(y)), 4):
        inc.partial_fit(X[rows], y[rows], classes=np.unique(y))
    np.testing.assert_allclose(
        inc.predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-10
    )


def test_predictive_tends_to_the_gaussian_with_much_data():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(20000, 2))
    y = (rng.uniform(size=20000) < 0.5).astype(int)
    X[y == 1] += 0.5
    bayes = nbayes.GaussianNB(estimate="posterior_predictive").fit(X, y)
    mle = nbayes.GaussianNB().fit(X, y)
    assert bayes.dof_.min() > 9000
    np.testing.assert_allclose(bayes.predict_proba(X[:50]), mle.predict_proba(X[:50]), atol=1e-3)


def test_predictive_handles_a_constant_feature_and_an_empty_class():
    X = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    model = nbayes.GaussianNB(estimate="posterior_predictive", prior_alpha=1.0)
    model.partial_fit(X, [0, 0, 0], classes=[0, 1])
    assert np.all(np.isfinite(model.predict_joint_log_proba(X)))
    np.testing.assert_allclose(model.theta_[1], X.mean(axis=0))  # the prior, untouched


@pytest.mark.parametrize(
    "params, message",
    [
        ({"estimate": "posterior_predictive", "var_pooling": "shared"}, "needs estimate='mle'"),
        (
            {"estimate": "posterior_predictive", "var_smoothing": "auto"},
            "applies to estimate='mle'",
        ),
        ({"estimate": "posterior_predictive", "mean_prior_count": 0.0}, "must be positive"),
        ({"estimate": "posterior_predictive", "var_prior": -1.0}, "'var_prior' must be finite and"),
        ({"estimate": "posterior_predictive", "mean_prior": [1.0]}, "one value per feature"),
        ({"estimate": "map"}, "estimate in"),
        ({"var_pooling": "global"}, "'var_pooling' must be one of"),
        ({"var_smoothing": "smart"}, "a non-negative number or 'auto'"),
    ],
)
def test_bad_bayesian_parameters_are_rejected(params, message):
    X, y = data()
    with pytest.raises(ParameterError, match=message):
        nbayes.GaussianNB(**params).fit(X, y)
