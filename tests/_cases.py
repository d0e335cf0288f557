"""Estimators and matching random data, shared by the conformance tests."""

import numpy as np
import scipy.sparse as sp

import nbayes


def gaussian_data(rng, n, d):
    return rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d) * 5


def count_data(rng, n, d):
    return rng.poisson(rng.uniform(0.2, 4, size=d), size=(n, d)).astype(np.float64)


def binary_data(rng, n, d):
    return (rng.uniform(size=(n, d)) < rng.uniform(0.1, 0.9, size=d)).astype(np.float64)


def code_data(rng, n, d):
    return rng.integers(0, rng.integers(2, 6, size=d), size=(n, d))


#: name -> (estimator factory, data maker, sparse supported)
CASES = {
    "gaussian": (lambda: nbayes.GaussianNB(), gaussian_data, False),
    "bernoulli": (lambda: nbayes.BernoulliNB(), binary_data, True),
    "multinomial": (lambda: nbayes.MultinomialNB(alpha=0.5), count_data, True),
    "complement": (lambda: nbayes.ComplementNB(alpha=0.7), count_data, True),
    "categorical": (lambda: nbayes.CategoricalNB(alpha=2.0), code_data, True),
    "poisson": (lambda: nbayes.PoissonNB(), count_data, True),
}


def make_case(name, n=60, d=5, k=3, seed=0, sparse=False, density=1.0):
    """A fresh estimator and (X, y) for the named case; ``density`` < 1 sets about that
    fraction of the cells to zero (for families that take sparse input)."""
    factory, maker, _ = CASES[name]
    rng = np.random.default_rng(seed)
    X = maker(rng, n, d)
    if density < 1:
        X[rng.uniform(size=X.shape) >= density] = 0
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)  # every class present
    if sparse:
        X = sp.csr_matrix(X)
    return factory(), X, y
