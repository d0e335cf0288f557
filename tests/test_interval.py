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


def _draw_categorical(rng, n_points, n_rows=12, n_features=3, n_categories=3):
    # theta_kj ~ Dirichlet(1, 1, 1) (alpha=1), class prior ~ Dirichlet(1, 1) (prior_alpha=1).
    prior = rng.dirichlet([1.0, 1.0])
    theta = rng.dirichlet(np.ones(n_categories), size=(2, n_features))
    y = rng.choice(2, size=n_rows, p=prior)
    u = rng.random((n_rows, n_features, 1))
    X = (u > np.cumsum(theta[y], axis=2)).sum(axis=2)
    X_test = rng.integers(0, n_categories, size=(n_points, n_features))
    picked = np.take_along_axis(theta[None], X_test[:, None, :, None], axis=3)[..., 0]
    like = picked.prod(axis=2) * prior
    return X, y, X_test, like[:, 1] / like.sum(axis=1)


def _draw_poisson(rng, n_points, n_rows=12, n_features=3):
    # rates ~ Gamma(1, 1) (alpha=1, beta=1), class prior ~ Dirichlet(1, 1) (prior_alpha=1).
    prior = rng.dirichlet([1.0, 1.0])
    rate = rng.gamma(1.0, 1.0, size=(2, n_features))
    y = rng.choice(2, size=n_rows, p=prior)
    X = rng.poisson(rate[y])
    X_test = rng.poisson(1.0, size=(n_points, n_features))
    log_like = (X_test[:, None, :] * np.log(rate) - rate).sum(axis=2) + np.log(prior)
    return X, y, X_test, 1.0 / (1.0 + np.exp(log_like[:, 0] - log_like[:, 1]))


@pytest.mark.parametrize(
    "draw, make",
    [
        (_draw_categorical, lambda: CategoricalNB(alpha=1.0, prior_alpha=1.0, min_categories=3)),
        (_draw_poisson, lambda: PoissonNB(alpha=1.0, beta=1.0, prior_alpha=1.0)),
    ],
    ids=["categorical", "poisson"],
)
def test_count_intervals_cover_at_nominal_rate(draw, make):
    coverage = _coverage(draw, lambda X, y: make().partial_fit(X, y, classes=[0, 1]))
    assert 0.85 <= coverage <= 0.95, coverage


def test_bernoulli_interval_covers_at_nominal_rate():
    coverage = _coverage(
        _draw_bernoulli,
        lambda X, y: BernoulliNB(alpha=1.0, prior_alpha=1.0).partial_fit(X, y, classes=[0, 1]),
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


def _counts(n_rows=60, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    X = rng.poisson(1.0 + y[:, None] * np.array([1.0, 0.0, 0.5, 0.0]), size=(n_rows, 4))
    return X, y


def _mixed_frame(n_rows=60, seed=0):
    X, y = _counts(n_rows, seed)
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "height": X[:, 0] + rng.normal(size=n_rows),
            "colour": np.array(["red", "green", "blue"])[X[:, 1] % 3],
            "visits": X[:, 2],
            "member": X[:, 3] > 0,
        }
    )
    return df, y


def _codes(n_rows=60, seed=0):
    X, y = _counts(n_rows, seed)
    return X % 3, y


def _measures(n_rows=60, seed=0):
    X, y = _counts(n_rows, seed)
    return X + 0.5, y


CASES = {
    "multinomial": (MultinomialNB, _counts),
    "multinomial-map": (lambda: MultinomialNB(alpha=2.0, estimate="map"), _counts),
    "bernoulli": (BernoulliNB, _counts),
    "poisson": (PoissonNB, _counts),
    "categorical": (lambda: CategoricalNB(alpha=0.5), _codes),
    "gaussian": (GaussianNB, _measures),
    "gaussian-shared": (lambda: GaussianNB(var_pooling="shared"), _measures),
    "gaussian-bayes": (lambda: GaussianNB(estimate="posterior_predictive"), _measures),
    "mixed": (MixedNB, _mixed_frame),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bounds_are_ordered_probabilities_around_the_estimate(name):
    make, data = CASES[name]
    X, y = data()
    model = make().fit(X, y)
    lower, upper = model.predict_proba_interval(X, level=0.9, n_samples=300, random_state=0)
    proba = model.predict_proba(X)
    assert lower.shape == upper.shape == proba.shape
    assert np.all((0 <= lower) & (lower <= upper) & (upper <= 1))
    # The estimate is one point of the posterior, not its median: mostly inside.
    inside = (lower <= proba + 1e-12) & (proba <= upper + 1e-12)
    assert inside.mean() >= 0.9, inside.mean()
    assert np.all(upper - lower > 0)


def test_intervals_shrink_with_more_rows():
    X, y = _counts(2000, seed=1)
    probe = X[:20]
    few = MultinomialNB().fit(X[:30], y[:30]).predict_proba_interval(probe, random_state=0)
    many = MultinomialNB().fit(X, y).predict_proba_interval(probe, random_state=0)
    width_few, width_many = (few[1] - few[0]).mean(), (many[1] - many[0]).mean()
    assert width_many < width_few / 3, (width_few, width_many)


def test_wider_level_gives_wider_interval():
    X, y = _counts()
    model = BernoulliNB().fit(X, y)
    lo50, hi50 = model.predict_proba_interval(X, level=0.5, random_state=3)
    lo99, hi99 = model.predict_proba_interval(X, level=0.99, random_state=3)
    assert np.all(lo99 <= lo50) and np.all(hi50 <= hi99)


def test_random_state_makes_the_bounds_reproducible():
    X, y = _counts()
    model = PoissonNB().fit(X, y)
    a = model.predict_proba_interval(X, random_state=7)
    b = model.predict_proba_interval(X, random_state=7)
    c = model.predict_proba_interval(X, random_state=8)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_row_chunks_give_the_same_bounds(monkeypatch):
    from nbayes.estimators import _interval

    X, y = _counts()
    model = MultinomialNB().fit(X, y)
    whole = model.predict_proba_interval(X, n_samples=50, random_state=0)
    monkeypatch.setattr(_interval, "CHUNK_CELLS", 7 * 50 * 3)  # chunks of 7 rows
    chunked = model.predict_proba_interval(X, n_samples=50, random_state=0)
    np.testing.assert_allclose(chunked[0], whole[0], rtol=1e-12)
    np.testing.assert_allclose(chunked[1], whole[1], rtol=1e-12)


def test_fixed_class_prior_is_not_drawn():
    # One class only seen, a fixed prior and no features that tell the classes apart: every
    # draw gives the fixed prior back.
    X = np.zeros((5, 2))
    model = MultinomialNB(class_prior=[0.3, 0.7]).fit(X, [0, 0, 1, 1, 1])
    lower, upper = model.predict_proba_interval(X[:1], random_state=0)
    np.testing.assert_allclose(lower, [[0.3, 0.7]])
    np.testing.assert_allclose(upper, [[0.3, 0.7]])


@pytest.mark.parametrize(
    "make, X, fix",
    [
        (ComplementNB, np.array([[1, 0], [0, 1], [2, 1]]), "--model multinomial"),
        (DensityNB, np.array([[0.1, 1.0], [0.5, 0.3], [0.9, 0.2]]), "--continuous gaussian"),
        (AODE, pd.DataFrame({"a": ["x", "y", "x"], "b": ["u", "u", "v"]}), "--model auto"),
    ],
)
def test_models_without_conjugate_posterior_are_refused(make, X, fix):
    # The advice fits the model: no numeric column to read as 'gaussian' in AODE's table,
    # and ComplementNB's counts get intervals as MultinomialNB's.
    model = make().fit(X, [0, 1, 0])
    with pytest.raises(ParameterError, match="no conjugate posterior") as refusal:
        model.predict_proba_interval(X)
    assert fix in str(refusal.value)


@pytest.mark.parametrize("level", [0, 1, 1.5, "0.9"])
def test_bad_level_is_refused(level):
    X, y = _counts()
    with pytest.raises(ParameterError, match="'level'"):
        MultinomialNB().fit(X, y).predict_proba_interval(X, level=level)


def test_too_few_draws_are_refused():
    X, y = _counts()
    with pytest.raises(ParameterError, match="'n_samples'"):
        MultinomialNB().fit(X, y).predict_proba_interval(X, n_samples=1)


def test_missing_values_are_marginalised_in_every_draw():
    df, y = _mixed_frame()
    df.loc[::5, "height"] = np.nan
    df.loc[1::7, "colour"] = None
    model = MixedNB(missing="ignore").fit(df, y)
    lower, upper = model.predict_proba_interval(df, n_samples=200, random_state=0)
    assert np.isfinite(lower).all() and np.isfinite(upper).all()
    assert np.all(lower <= upper)


def _draw_gaussian_one_row_class(rng, n_points, n_features=2):
    # Ten rows of class 0 and a single row of class 1; sigma^2 ~ InvGamma(2, 1), mu ~ N(0, 1)
    # per class and feature, a fixed class prior of 1/2 each.
    var = 1.0 / rng.gamma(2.0, 1.0, size=(2, n_features))
    mean = rng.normal(0.0, 1.0, size=(2, n_features))
    y = np.r_[np.zeros(10, dtype=int), 1]
    X = rng.normal(mean[y], np.sqrt(var[y]))
    X_test = rng.normal(0.0, 1.5, size=(n_points, n_features))
    log_like = -0.5 * (np.log(var) + (X_test[:, None, :] - mean) ** 2 / var).sum(axis=2)
    return X, y, X_test, 1.0 / (1.0 + np.exp(log_like[:, 0] - log_like[:, 1]))


def test_gaussian_mle_interval_covers_with_a_one_row_class():
    # A single row says nearly nothing of its class's variance: the prior observation of the
    # pooled within-class variance keeps the interval honest (it covered 0 % without it).
    coverage = _coverage(
        _draw_gaussian_one_row_class, lambda X, y: GaussianNB(priors=[0.5, 0.5]).fit(X, y)
    )
    assert 0.85 <= coverage <= 0.95, coverage


@pytest.mark.parametrize("rows", [1, 3], ids=["one-row", "equal-values"])
@pytest.mark.parametrize("make", [GaussianNB, MixedNB], ids=["gaussian", "mixed"])
def test_class_without_spread_gets_a_wide_interval(make, rows):
    # Class 1 is `rows` copies of one point: its fitted variance is the floor, and the
    # fitted probability 1 at that point; the posterior over its variance is wide.
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0.0, 1.0, (20, 2)), np.tile([[1.0, 0.5]], (rows, 1))]
    y = np.r_[np.zeros(20, dtype=int), np.ones(rows, dtype=int)]
    X = pd.DataFrame(X, columns=["a", "b"]) if make is MixedNB else X
    model = make().fit(X, y)
    probe = X[-1:]
    assert model.predict_proba(probe)[0, 1] > 0.999
    lower, upper = model.predict_proba_interval(probe, random_state=0)
    assert upper[0, 1] - lower[0, 1] > 0.4, (lower, upper)


def test_gaussian_mle_interval_without_spread_in_any_class():
    # One row per class: no within-class variance at all, so the overall variance is the
    # prior's guess. At class 0's own row the fit says P(class 1) = 0; two rows cannot.
    X, y = np.array([[0.0], [1.0]]), np.array([0, 1])
    lower, upper = GaussianNB().fit(X, y).predict_proba_interval([[0.0]], random_state=0)
    assert upper[0, 1] - lower[0, 1] > 0.5, (lower, upper)
