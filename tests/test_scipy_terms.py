"""Per-feature log-likelihood terms equal scipy.stats for random parameters."""

import numpy as np
import pytest
from scipy import stats

from nbayes.distributions import Bernoulli, Categorical, Gaussian, Multinomial, Poisson
from nbayes.distributions.categorical import offsets_of

K, D, N = 3, 4, 25


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def check_terms_add_up(fam, params, X):
    terms = fam.log_likelihood_terms(params, X)
    total = fam.joint_log_likelihood(params, X) + fam.log_normalizer(params, X)[:, None]
    np.testing.assert_allclose(terms.sum(axis=2), total, rtol=1e-10, atol=1e-10)
    return terms


def test_bernoulli_terms(rng):
    p = rng.uniform(0.05, 0.95, size=(K, D))
    params = {"log_p": np.log(p), "log_1mp": np.log1p(-p)}
    X = (rng.uniform(size=(N, D)) < 0.5).astype(float)
    terms = check_terms_add_up(Bernoulli(), params, X)
    np.testing.assert_allclose(terms, stats.bernoulli.logpmf(X[:, None, :], p[None]))


def test_gaussian_terms(rng):
    mean, var = rng.normal(size=(K, D)) * 3, rng.uniform(0.1, 4, size=(K, D))
    params = {"mean": mean, "var": var, "center": rng.normal(size=D)}
    X = rng.normal(size=(N, D)) * 2
    terms = check_terms_add_up(Gaussian(), params, X)
    np.testing.assert_allclose(
        terms, stats.norm.logpdf(X[:, None, :], mean[None], np.sqrt(var)[None]), rtol=1e-10
    )


def test_poisson_terms(rng):
    rate = rng.uniform(0.1, 6, size=(K, D))
    params = {"log_rate": np.log(rate), "rate": rate}
    X = rng.poisson(3, size=(N, D)).astype(float)
    terms = check_terms_add_up(Poisson(), params, X)
    np.testing.assert_allclose(terms, stats.poisson.logpmf(X[:, None, :], rate[None]), rtol=1e-10)


def test_multinomial_rows_equal_scipy_multinomial(rng):
    theta = rng.dirichlet(np.ones(D), size=K)
    params = {"log_theta": np.log(theta)}
    X = rng.poisson(2, size=(N, D)).astype(float)
    terms = check_terms_add_up(Multinomial(), params, X)
    expected = np.stack(
        [stats.multinomial.logpmf(X, X.sum(axis=1), theta[k]) for k in range(K)], axis=1
    )
    np.testing.assert_allclose(terms.sum(axis=2), expected, rtol=1e-10)


def test_categorical_terms_equal_scipy_multinomial_with_one_trial(rng):
    n_cat = np.array([2, 3, 5, 4])
    theta = [rng.dirichlet(np.ones(c), size=K) for c in n_cat]
    params = {"log_theta": np.log(np.concatenate(theta, axis=1)), "n_categories": n_cat}
    X = rng.integers(0, n_cat, size=(N, D))
    terms = check_terms_add_up(Categorical(), params, X)
    for j, c in enumerate(n_cat):
        onehot = np.eye(c)[X[:, j]]
        for k in range(K):
            np.testing.assert_allclose(
                terms[:, k, j], stats.multinomial.logpmf(onehot, 1, theta[j][k])
            )
    assert offsets_of(n_cat).tolist() == [0, 2, 5, 10]
