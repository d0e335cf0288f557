"""Closed-form textbook estimates, checked by hand."""

import numpy as np
import pytest

import nbayes

# Four training e-mails over the words ("free", "meeting", "txt"), two spam and two ham.
SPAM_X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 0], [0, 1, 1]])
SPAM_Y = np.array(["spam", "spam", "ham", "ham"])


def test_bernoulli_spam_example_by_hand():
    """Laplace smoothing (alpha = 1): theta = (n_word + 1) / (n_class + 2).

    spam: free 3/4, meeting 1/4, txt 2/4;  ham: free 1/4, meeting 3/4, txt 2/4; priors 1/2.
    For the message "free txt" (1, 0, 1):
      P(x, spam) = 1/2 * 3/4 * (1 - 1/4) * 2/4 = 9/64
      P(x, ham)  = 1/2 * 1/4 * (1 - 3/4) * 2/4 = 1/64
    so P(spam | x) = 9 / 10.
    """
    model = nbayes.BernoulliNB(alpha=1.0).fit(SPAM_X, SPAM_Y)
    assert model.classes_.tolist() == ["ham", "spam"]
    np.testing.assert_allclose(
        np.exp(model.feature_log_prob_), [[1 / 4, 3 / 4, 2 / 4], [3 / 4, 1 / 4, 2 / 4]]
    )
    x = np.array([[1, 0, 1]])
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(x)), [[1 / 64, 9 / 64]])
    np.testing.assert_allclose(model.predict_proba(x), [[0.1, 0.9]])
    assert model.predict(x).tolist() == ["spam"]


COUNTS = np.array([[3, 0, 1], [1, 0, 0], [0, 2, 2], [0, 0, 5]], dtype=float)
LABELS = np.array([0, 0, 1, 1])
# Per-class word totals: class 0 -> (4, 0, 1), N_0 = 5; class 1 -> (0, 2, 7), N_1 = 9.
N_KJ = np.array([[4, 0, 1], [0, 2, 7]], dtype=float)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 3.0])
def test_lidstone_posterior_mean(alpha):
    model = nbayes.MultinomialNB(alpha=alpha).fit(COUNTS, LABELS)
    expected = (N_KJ + alpha) / (N_KJ.sum(axis=1, keepdims=True) + 3 * alpha)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), expected)


@pytest.mark.parametrize("alpha", [1.0, 2.0, 4.5])
def test_map_estimate(alpha):
    model = nbayes.MultinomialNB(alpha=alpha, estimate="map").fit(COUNTS, LABELS)
    expected = (N_KJ + alpha - 1) / (N_KJ.sum(axis=1, keepdims=True) + 3 * (alpha - 1))
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), expected)


def test_map_with_alpha_one_is_the_mle():
    a = nbayes.MultinomialNB(alpha=1.0, estimate="map").fit(COUNTS, LABELS)
    b = nbayes.MultinomialNB(estimate="mle").fit(COUNTS, LABELS)
    np.testing.assert_array_equal(a.feature_log_prob_, b.feature_log_prob_)


def test_mle_zero_count_is_minus_infinity():
    model = nbayes.MultinomialNB(estimate="mle").fit(COUNTS, LABELS)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), N_KJ / N_KJ.sum(1, keepdims=True))
    assert np.isneginf(model.feature_log_prob_[0, 1]) and np.isneginf(model.feature_log_prob_[1, 0])
    # A document using word 1 is impossible for class 0: posterior exactly 0, no NaN.
    proba = model.predict_proba(np.array([[0, 1, 1]]))
    np.testing.assert_array_equal(proba, [[0.0, 1.0]])
    assert np.isneginf(model.predict_log_proba(np.array([[0, 1, 1]]))[0, 0])


def test_mle_row_impossible_for_every_class_gets_uniform_posterior_and_warning():
    model = nbayes.MultinomialNB(estimate="mle").fit(COUNTS, LABELS)
    with pytest.warns(RuntimeWarning, match="probability zero under every class"):
        proba = model.predict_proba(np.array([[1, 1, 0]]))
    np.testing.assert_array_equal(proba, [[0.5, 0.5]])


def test_alpha_zero_with_force_alpha_equals_mle():
    a = nbayes.MultinomialNB(alpha=0.0).fit(COUNTS, LABELS)
    b = nbayes.MultinomialNB(estimate="mle").fit(COUNTS, LABELS)
    np.testing.assert_array_equal(a.feature_log_prob_, b.feature_log_prob_)


def test_alpha_zero_without_force_alpha_is_clipped_like_sklearn():
    with pytest.warns(UserWarning, match="alpha too small"):
        model = nbayes.MultinomialNB(alpha=0.0, force_alpha=False).fit(COUNTS, LABELS)
    assert np.isfinite(model.feature_log_prob_).all()


def test_categorical_formulas():
    X = np.array([[0], [0], [1], [2], [2], [2]])
    y = np.array([0, 0, 0, 1, 1, 1])
    # class 0: counts (2, 1, 0) of 3; class 1: (0, 0, 3) of 3; K = 3 categories.
    counts = np.array([[2, 1, 0], [0, 0, 3]], dtype=float)
    for alpha in (0.5, 1.0, 2.0):
        m = nbayes.CategoricalNB(alpha=alpha).fit(X, y)
        np.testing.assert_allclose(
            np.exp(m.feature_log_prob_[0]), (counts + alpha) / (3 + 3 * alpha)
        )
        m = nbayes.CategoricalNB(alpha=alpha + 1, estimate="map").fit(X, y)
        np.testing.assert_allclose(
            np.exp(m.feature_log_prob_[0]), (counts + alpha) / (3 + 3 * alpha)
        )
    m = nbayes.CategoricalNB(estimate="mle").fit(X, y)
    np.testing.assert_allclose(np.exp(m.feature_log_prob_[0]), counts / 3)


def test_bernoulli_map_and_mle():
    m = nbayes.BernoulliNB(alpha=3.0, estimate="map").fit(SPAM_X, SPAM_Y)
    # spam: ones (2, 0, 1) of 2 rows; MAP with alpha 3: (n1 + 2) / (2 + 4)
    np.testing.assert_allclose(np.exp(m.feature_log_prob_[1]), [4 / 6, 2 / 6, 3 / 6])
    m = nbayes.BernoulliNB(estimate="mle").fit(SPAM_X, SPAM_Y)
    np.testing.assert_allclose(np.exp(m.feature_log_prob_[1]), [1, 0, 1 / 2])


def test_gaussian_mle_mean_and_variance_divide_by_class_size():
    X = np.array([[1.0, 10.0], [3.0, 14.0], [5.0, 0.0], [9.0, 2.0], [7.0, 4.0]])
    y = np.array([0, 0, 1, 1, 1])
    m = nbayes.GaussianNB(var_smoothing=0.0).fit(X, y)
    np.testing.assert_allclose(m.theta_, [[2, 12], [7, 2]])
    # 1/N_c, not 1/(N_c - 1): class 0 -> ((1)^2 + (1)^2) / 2 = 1, ((2)^2 + (2)^2) / 2 = 4
    np.testing.assert_allclose(m.var_, [[1, 4], [8 / 3, 8 / 3]])
    np.testing.assert_allclose(m.class_prior_, [2 / 5, 3 / 5])


def test_class_prior_is_class_frequency_and_can_be_smoothed_or_fixed():
    y = np.array([0, 0, 0, 1])
    X = np.ones((4, 1))
    np.testing.assert_allclose(
        np.exp(nbayes.MultinomialNB().fit(X, y).class_log_prior_), [3 / 4, 1 / 4]
    )
    smoothed = nbayes.MultinomialNB(prior_alpha=1.0).fit(X, y)
    np.testing.assert_allclose(np.exp(smoothed.class_log_prior_), [4 / 6, 2 / 6])
    fixed = nbayes.MultinomialNB(class_prior=[0.5, 0.5]).fit(X, y)
    np.testing.assert_allclose(np.exp(fixed.class_log_prior_), [0.5, 0.5])
    uniform = nbayes.MultinomialNB(fit_prior=False).fit(X, y)
    np.testing.assert_allclose(np.exp(uniform.class_log_prior_), [0.5, 0.5])


def test_poisson_rates():
    X = np.array([[2, 0], [4, 1], [0, 3]], dtype=float)
    y = np.array([0, 0, 1])
    m = nbayes.PoissonNB(alpha=1.0, beta=1.0).fit(X, y)
    np.testing.assert_allclose(m.rate_, [[7 / 3, 2 / 3], [1 / 2, 4 / 2]])
    m = nbayes.PoissonNB(estimate="mle").fit(X, y)
    np.testing.assert_allclose(m.rate_, [[3, 0.5], [0, 3]])
