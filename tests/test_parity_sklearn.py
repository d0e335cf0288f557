"""Parity with scikit-learn's naive Bayes classes at the same settings.

Where scikit-learn is wrong or differs on purpose, the difference is tested and explained.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sk

import nbayes
from nbayes.exceptions import DataError, UnknownLabelError

rng = np.random.default_rng(42)
N, D, K = 300, 12, 4
Y = rng.integers(0, K, size=N)
COUNTS = rng.poisson(rng.uniform(0.1, 3, size=D), size=(N, D)).astype(np.float64)
BINARY = (COUNTS > 1).astype(np.float64)
CODES = rng.integers(0, 5, size=(N, D))
DENSE = rng.normal(size=(N, D)) * 3 + rng.normal(size=D) * 10
WEIGHTS = rng.uniform(0.1, 3, size=N)

ALPHAS = [0.01, 0.5, 1.0, 2.5]


def assert_same_log_proba(ours, theirs, X, y, sample_weight=None):
    ours.fit(X, y, sample_weight=sample_weight)
    theirs.fit(X, y, sample_weight=sample_weight)
    np.testing.assert_allclose(
        ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=1e-9, atol=1e-9
    )
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_count_and_binary_models_match(name, alpha, sparse):
    X = sp.csr_matrix(COUNTS) if sparse else COUNTS
    assert_same_log_proba(getattr(nbayes, name)(alpha=alpha), getattr(sk, name)(alpha=alpha), X, Y)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_bernoulli_on_binary_data_with_weights(alpha):
    assert_same_log_proba(
        nbayes.BernoulliNB(alpha=alpha, binarize=None),
        sk.BernoulliNB(alpha=alpha, binarize=None),
        BINARY,
        Y,
        WEIGHTS,
    )


@pytest.mark.parametrize("alpha", ALPHAS)
def test_multinomial_with_weights_and_fixed_prior(alpha):
    prior = [0.1, 0.2, 0.3, 0.4]
    assert_same_log_proba(
        nbayes.MultinomialNB(alpha=alpha, class_prior=prior),
        sk.MultinomialNB(alpha=alpha, class_prior=prior),
        COUNTS,
        Y,
        WEIGHTS,
    )


@pytest.mark.parametrize("norm", [False, True])
def test_complement_norm(norm):
    assert_same_log_proba(nbayes.ComplementNB(norm=norm), sk.ComplementNB(norm=norm), COUNTS, Y)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_categorical_matches(alpha):
    assert_same_log_proba(
        nbayes.CategoricalNB(alpha=alpha), sk.CategoricalNB(alpha=alpha), CODES, Y, WEIGHTS
    )
    assert_same_log_proba(
        nbayes.CategoricalNB(alpha=alpha, min_categories=7),
        sk.CategoricalNB(alpha=alpha, min_categories=7),
        CODES,
        Y,
    )


def test_categorical_sparse_codes_match_dense():
    codes = CODES * (rng.uniform(size=CODES.shape) < 0.3)
    ours = nbayes.CategoricalNB().fit(sp.csr_matrix(codes), Y)
    np.testing.assert_allclose(
        ours.predict_log_proba(sp.csr_matrix(codes)),
        sk.CategoricalNB().fit(codes, Y).predict_log_proba(codes),
        rtol=1e-9,
        atol=1e-9,
    )


@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-3, 0.1])
def test_gaussian_matches(var_smoothing):
    assert_same_log_proba(
        nbayes.GaussianNB(var_smoothing=var_smoothing),
        sk.GaussianNB(var_smoothing=var_smoothing),
        DENSE,
        Y,
    )
    ours = nbayes.GaussianNB(var_smoothing=var_smoothing).fit(DENSE, Y)
    theirs = sk.GaussianNB(var_smoothing=var_smoothing).fit(DENSE, Y)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-9)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(DENSE), theirs.predict_joint_log_proba(DENSE), rtol=1e-9
    )


def test_gaussian_weighted_matches():
    # scikit-learn's epsilon uses the unweighted variance; with var_smoothing=0 the weighted
    # moments themselves are compared exactly.
    assert_same_log_proba(
        nbayes.GaussianNB(var_smoothing=0), sk.GaussianNB(var_smoothing=0), DENSE, Y, WEIGHTS
    )


def test_fitted_attributes_match():
    pairs = [
        (nbayes.MultinomialNB(), sk.MultinomialNB(), COUNTS),
        (nbayes.BernoulliNB(), sk.BernoulliNB(), COUNTS),
        (nbayes.ComplementNB(), sk.ComplementNB(), COUNTS),
    ]
    for ours, theirs, X in pairs:
        ours.fit(X, Y), theirs.fit(X, Y)
        for attr in ("class_count_", "class_log_prior_", "feature_count_", "feature_log_prob_"):
            np.testing.assert_allclose(getattr(ours, attr), getattr(theirs, attr), rtol=1e-12)
    ours, theirs = nbayes.CategoricalNB().fit(CODES, Y), sk.CategoricalNB().fit(CODES, Y)
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)
    for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    for a, b in zip(ours.category_count_, theirs.category_count_):
        np.testing.assert_allclose(a, b)


# ---- tested differences ---------------------------------------------------------------------


def test_difference_multinomial_joint_log_proba_is_a_true_log_probability():
    """scikit-learn's MultinomialNB 'joint log probability' omits the multinomial coefficient
    log(n! / prod x_j!), so it is not log P(x, y). Ours includes it; the difference is exactly
    that class-independent coefficient, and posteriors agree."""
    from scipy.special import gammaln

    ours, theirs = nbayes.MultinomialNB().fit(COUNTS, Y), sk.MultinomialNB().fit(COUNTS, Y)
    coefficient = gammaln(COUNTS.sum(axis=1) + 1) - gammaln(COUNTS + 1).sum(axis=1)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(COUNTS),
        theirs.predict_joint_log_proba(COUNTS) + coefficient[:, None],
        rtol=1e-10,
    )


def test_difference_partial_fit_rejects_labels_outside_classes():
    """scikit-learn's discrete models count an unknown label silently into the wrong class."""
    X, y = COUNTS[:10], np.array([0, 1, 2, 3, 7, 0, 1, 2, 3, 0])
    with pytest.raises(UnknownLabelError, match=r"Label 7 at row 4 is not among classes"):
        nbayes.MultinomialNB().partial_fit(X, y, classes=[0, 1, 2, 3])


def test_difference_gaussian_partial_fit_floor_uses_all_data():
    """scikit-learn recomputes epsilon from each partial_fit batch, so its partial_fit depends
    on the last batch; ours uses the merged statistics and equals fit."""
    big = DENSE.copy()
    big[:150] *= 100  # the first half has a much larger variance than the second
    ours, theirs = nbayes.GaussianNB(), sk.GaussianNB()
    for part in (slice(0, 150), slice(150, None)):
        ours.partial_fit(big[part], Y[part], classes=np.arange(K))
        theirs.partial_fit(big[part], Y[part], classes=np.arange(K))
    full = nbayes.GaussianNB().fit(big, Y)
    np.testing.assert_allclose(ours.var_, full.var_, rtol=1e-12)
    assert ours.epsilon_ == pytest.approx(full.epsilon_)
    assert theirs.epsilon_ != pytest.approx(full.epsilon_)


def test_difference_categorical_rejects_fractional_codes():
    """scikit-learn casts 1.7 to category 1 without a word; we refuse."""
    X = CODES.astype(float)
    X[3, 2] = 1.7
    with pytest.raises(DataError, match=r"Column index 2 .* got 1.7 at row 3"):
        nbayes.CategoricalNB().fit(X, Y)
