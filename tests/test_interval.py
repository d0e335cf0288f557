"""predict_proba_interval: credible intervals of P(y | x) from the posterior over parameters.

The coverage tests draw each true model from the very prior the estimator's smoothing stands
for, then data from that model with few rows per class: a Bayesian credible interval then
covers the true P(y | x) at its nominal rate on average over the draws.
"""

import numpy as np
import pandas as pd
import pytest

from nbayes import (
    AODE,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    DensityNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    PoissonNB,
)
from nbayes.exceptions import ParameterError

N_MODELS = 400  # true models drawn per coverage test (binomial sd of the rate: 1.5 points)


def _coverage(draw_model, fit, n_points: int = 3) -> float:
    """Share of (model, point) pairs whose 90 % interval holds the true P(y = 1 | x). The
    models are fitted with both classes declared: a class may draw no row."""
    rng = np.random.default_rng(12345)
    hits = []
    for i in range(N_MODELS):  # bounded: one fit per true model
        X, y, X_test, truth = draw_model(rng, n_points)
        model = fit(X, y)
        lower, upper = model.predict_proba_interval(
            X_test, level=0.9, n_samples=400, random_state=i
        )
        hits.append((lower[:, 1] <= truth) & (truth <= upper[:, 1]))
    return float(np.mean(hits))


def _draw_bernoulli(rng, n_points, n_rows=12, n_features=4):
    # Class prior ~ Dirichlet(1, 1) (prior_alpha=1), p_kj ~ Beta(1, 1) (alpha=1).
    prior = rng.dirichlet([1.0, 1.0])
    p = rng.beta(1.0, 1.0, size=(2, n_features))
    y = rng.choice(2, size=n_rows, p=prior)
    X = (rng.random((n_rows, n_features)) < p[y]).astype(float)
    X_test = (rng.random((n_points, n_features)) < 0.5).astype(float)
    like = np.prod(np.where(X_test[:, None, :] == 1, p, 1 - p), axis=2) * prior
    return X, y, X_test, like[:, 1] / like.sum(axis=1)


def _draw_gaussian(rng, n_points, n_rows=10, n_features=2):
    # sigma^2 ~ InvGamma(1, 1), mu | sigma^2 ~ N(0, sigma^2): the NIG prior of mean_prior=0,
    # mean_prior_count=1, var_prior=1, var_prior_count=2. A fixed class prior of 1/2 each.
    var = 1.0 / rng.gamma(1.0, 1.0, size=(2, n_features))
    mean = rng.normal(0.0, np.sqrt(var))
    y = rng.integers(0, 2, size=n_rows)
    X = rng.normal(mean[y], np.sqrt(var[y]))
    X_test = rng.normal(0.0, 1.5, size=(n_points, n_features))
    log_like = -0.5 * (np.log(var) + (X_test[:, None, :] - mean) ** 2 / var).sum(axis=2)
    return X, y, X_test, 1.0 / (1.0 + np.exp(log_like[:, 0] - log_like[:, 1]))


def test_bernoulli_interval_covers_at_nominal_rate():
    coverage = _coverage(
        _draw_bernoulli, lambda X, y: BernoulliNB(alpha=1.0, prior_alpha=1.0).partial_fit(X, y, classes=[0, 1])
    )
    assert 0.85 <= coverage <= 0.95, coverage


def test_gaussian_interval_covers_at_nominal_rate():
    def fit(X, y):
        model = GaussianNB(
            estimate="posterior_predictive",
            mean_prior=0.0,
            mean_prior_count=1.0,
            var_prior=1.0,
            var_prior_count=2.0,
            priors=[0.5, 0.5],
        )
        return model.partial_fit(X, y, classes=[0, 1])

    coverage = _coverage(_draw_gaussian, fit)
    assert 0.85 <= coverage <= 0.95, coverage
