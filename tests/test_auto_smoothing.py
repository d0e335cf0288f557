"""alpha="auto" and var_smoothing="auto": smoothing chosen from the statistics alone.

The criterion is the evidence, log P(X | y, alpha), the marginal likelihood of the training
features under the conjugate prior. By the chain rule it equals the *prequential* score
sum_i log P(x_i | y_i, rows before i) -- a leave-future-out cross-validation that refits the
model before every row -- so a grid search over that explicit cross-validation picks the same
alpha. It differs from a K-fold grid search on classification loss (P(y | x)): the evidence
judges how well the model describes the features, not how well it separates classes; see
docs/user_guide/estimation.rst for the figures on SMS spam.
"""

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import gammaln

import nbayes
from nbayes.distributions import Bernoulli, Categorical, Gaussian, Labels, Multinomial, Poisson
from nbayes.distributions.gaussian import nig_log_evidence
from nbayes.exceptions import ParameterError


def labelled(rng, n, k=2):
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)
    return y


def bernoulli_rows(rng, n=40, d=5):
    y = labelled(rng, n)
    p = np.where(y[:, None] == 1, rng.uniform(0.1, 0.9, d), rng.uniform(0.1, 0.9, d))
    return (rng.uniform(size=(n, d)) < p).astype(float), y


def categorical_rows(rng, n=40, d=4):
    y = labelled(rng, n)
    return rng.integers(0, 4, size=(n, d)) * (rng.uniform(size=(n, d)) < 0.4 + 0.3 * y[:, None]), y


def token_rows(rng, n=60, d=6):
    # One token per row: the evidence of the documents is then the Dirichlet-multinomial
    # probability of the token sequence, and each row's predictive is the plug-in estimate.
    y = labelled(rng, n)
    X = np.zeros((n, d))
    X[np.arange(n), rng.integers(0, d, size=n) * (y + 1) % d] = 1.0
    return X, y


FAMILIES = {
    "bernoulli": (Bernoulli, bernoulli_rows),
    "categorical": (lambda alpha: Categorical(alpha=alpha, min_categories=5), categorical_rows),
    "multinomial": (Multinomial, token_rows),
}


def prequential(make, X, y, alpha, k=2):
    """sum_i log P(x_i | y_i, rows < i): refit (finalize) before every row, score it."""
    fam = make(alpha=alpha)
    X = fam.prepare(X)
    st = fam.zeros(k, X.shape[1])
    if isinstance(fam, Categorical):  # every category is known from the start
        st = fam.accumulate(X[:0], Labels(y[:0], np.ones(0), k))
        st["n_categories"] = np.full(X.shape[1], 5)
        st["n_counts"] = np.zeros((k, 5 * X.shape[1]))
    total = 0.0
    for i in range(X.shape[0]):  # test code: the explicit, slow definition
        params = fam.finalize(st)
        row = X[i : i + 1]
        total += fam.joint_log_likelihood(params, row)[0, y[i]] + fam.log_normalizer(params, row)[0]
        st = fam.merge(st, fam.accumulate(row, Labels(y[i : i + 1], np.ones(1), k)))
    return total


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_evidence_is_the_prequential_cross_validation_score(name):
    make, rows = FAMILIES[name]
    X, y = rows(np.random.default_rng(0))
    fam = make(alpha="auto")
    evidence = fam.evidence_function(fam.accumulate(fam.prepare(X), Labels(y, np.ones(len(y)), 2)))
    for alpha in (0.05, 0.7, 3.0):
        np.testing.assert_allclose(evidence(alpha), prequential(make, X, y, alpha), rtol=1e-10)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_auto_alpha_matches_an_explicit_grid_search(name):
    make, rows = FAMILIES[name]
    X, y = rows(np.random.default_rng(1))
    fam = make(alpha="auto")
    chosen = fam.finalize(fam.accumulate(fam.prepare(X), Labels(y, np.ones(len(y)), 2)))
    chosen = float(chosen["alpha"][0])
    grid = np.logspace(-2, 2, 33)
    scores = [prequential(make, X, y, a) for a in grid]
    best = int(np.argmax(scores))
    assert 0 < best < len(grid) - 1  # an interior optimum, not a search-range artefact
    # The continuous maximiser lies between the grid neighbours of the grid's best point.
    assert grid[best - 1] < chosen < grid[best + 1]


ESTIMATORS = [
    (nbayes.BernoulliNB, bernoulli_rows),
    (nbayes.MultinomialNB, token_rows),
    (nbayes.ComplementNB, token_rows),
    (nbayes.CategoricalNB, categorical_rows),
    (nbayes.PoissonNB, token_rows),
]


@pytest.mark.parametrize("cls, rows", ESTIMATORS)
def test_auto_alpha_is_a_maximum_of_the_evidence(cls, rows):
    X, y = rows(np.random.default_rng(2), n=80)
    model = cls(alpha="auto").fit(X, y)
    fam, st = model.families_[0], model.stats_["groups"][0]
    evidence = fam.evidence_function(st)
    a = model.alpha_
    assert isinstance(a, float) and 1e-5 < a < 1e5
    assert evidence(a) >= max(evidence(a * 1.02), evidence(a / 1.02))
    explicit = cls(alpha=a).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), explicit.predict_proba(X), rtol=1e-12)


def test_auto_alpha_with_map_stays_where_the_mode_exists():
    X, y = token_rows(np.random.default_rng(3))
    model = nbayes.MultinomialNB(alpha="auto", estimate="map").fit(X, y)
    # The evidence is maximised over alpha >= 1 (the MAP needs it): either at an interior
    # maximum, or at the boundary 1 when the evidence falls from there.
    fam, st = model.families_[0], model.stats_["groups"][0]
    evidence, a = fam.evidence_function(st), model.alpha_
    assert isinstance(a, float) and a >= 1.0
    unconstrained = nbayes.MultinomialNB(alpha="auto").fit(X, y).alpha_
    if unconstrained >= 1.0:
        np.testing.assert_allclose(a, unconstrained, rtol=1e-6)
    else:
        assert a == 1.0 and evidence(1.0) >= evidence(1.02)
    explicit = nbayes.MultinomialNB(alpha=a, estimate="map").fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), explicit.predict_proba(X), rtol=1e-12)


def test_auto_alpha_comes_from_statistics_so_partial_fit_agrees():
    X, y = bernoulli_rows(np.random.default_rng(4), n=90)
    full = nbayes.BernoulliNB(alpha="auto").fit(X, y)
    inc = nbayes.BernoulliNB(alpha="auto")
    for rows in np.array_split(np.arange(90), 3):
        inc.partial_fit(X[rows], y[rows], classes=[0, 1])
    assert inc.alpha_ == pytest.approx(full.alpha_, rel=1e-6)


def test_integer_weights_equal_duplicated_rows():
    X, y = categorical_rows(np.random.default_rng(5))
    w = np.random.default_rng(6).integers(1, 4, size=len(y))
    weighted = nbayes.CategoricalNB(alpha="auto").fit(X, y, sample_weight=w)
    duplicated = nbayes.CategoricalNB(alpha="auto").fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert weighted.alpha_ == pytest.approx(duplicated.alpha_, rel=1e-6)


def test_fractional_weights_enter_the_evidence_as_fractional_counts():
    # Documented treatment: counts n are real numbers and Gamma(n + a) the continuous
    # extension, i.e. weights act as (fractional) frequency weights.
    X, y = bernoulli_rows(np.random.default_rng(7))
    w = np.random.default_rng(8).uniform(0.1, 2.0, size=len(y))
    model = nbayes.BernoulliNB(alpha="auto").fit(X, y, sample_weight=w)
    n1 = np.array([(w[y == k, None] * X[y == k]).sum(axis=0) for k in (0, 1)])
    n = np.array([w[y == k].sum() for k in (0, 1)])[:, None]

    def evidence(a):
        return np.sum(
            gammaln(n1 + a)
            + gammaln(n - n1 + a)
            - gammaln(n + 2 * a)
            - 2 * gammaln(a)
            + gammaln(2 * a)
        )

    a = model.alpha_
    np.testing.assert_allclose(
        model.families_[0].evidence_function(model.stats_["groups"][0])(a)
        - model.families_[0].evidence_function(model.stats_["groups"][0])(2 * a),
        evidence(a) - evidence(2 * a),
        rtol=1e-10,
    )
    assert evidence(a) >= max(evidence(a * 1.02), evidence(a / 1.02))


def test_poisson_evidence_matches_numerical_integration():
    x = np.array([0.0, 3.0, 1.0, 4.0])
    beta = 1.5
    fam = Poisson(alpha="auto", beta=beta)
    st = fam.accumulate(x[:, None], Labels(np.zeros(4, int), np.ones(4), 1))
    evidence = fam.evidence_function(st)

    def exact(a):
        f = lambda lam: np.prod(stats.poisson.pmf(x, lam)) * stats.gamma.pdf(lam, a, scale=1 / beta)  # noqa: E731
        return np.log(integrate.quad(f, 0, np.inf)[0])

    # The evidence function leaves out terms that do not depend on alpha.
    np.testing.assert_allclose(evidence(2.0) - evidence(0.5), exact(2.0) - exact(0.5), rtol=1e-7)


def test_bad_auto_values_are_rejected():
    X, y = token_rows(np.random.default_rng(9))
    with pytest.raises(ParameterError, match="a number, an array or 'auto'; got 'best'"):
        nbayes.MultinomialNB(alpha="best").fit(X, y)
    with pytest.raises(ParameterError, match="beta > 0"):
        nbayes.PoissonNB(alpha="auto", beta=0.0).fit(X, y)


# -- Gaussian: automatic variance floor ---------------------------------------------------------


def test_auto_variance_floor_is_one_hallucinated_deviation_at_the_evidence_maximum():
    rng = np.random.default_rng(10)
    y = labelled(rng, 50, k=3)
    X = rng.normal(size=(50, 4)) * np.array([1.0, 10.0, 0.1, 3.0]) + y[:, None]
    model = nbayes.GaussianNB(var_smoothing="auto").fit(X, y)
    st = model.stats_["groups"][0]
    n, m2 = st["n_weight"], st["m2"]
    eps = model.epsilon_
    np.testing.assert_allclose(model.var_, (m2 + eps) / (n + 1), rtol=1e-12)

    def evidence(e):  # flat prior on the mean (kappa0 -> 0), InvGamma(1/2, e/2) on the variance
        return nig_log_evidence(n, st["mean"], m2, 0.0, 0.0, 0.5, e / 2).sum()

    assert evidence(eps) >= max(evidence(eps * 1.02), evidence(eps / 1.02))


def test_auto_variance_floor_keeps_a_constant_feature_finite():
    X = np.array([[0.0, 1.0], [0.0, 2.0], [0.0, 3.0], [1.0, 7.0], [2.0, 8.0], [3.0, 9.0]])
    y = [0, 0, 0, 1, 1, 1]
    model = nbayes.GaussianNB(var_smoothing="auto").fit(X, y)
    assert np.all(model.var_ > 0)
    assert np.all(np.isfinite(model.predict_log_proba(X)))
    np.testing.assert_array_equal(model.predict(X), y)


def test_auto_variance_floor_with_shared_variances_pools_the_classes():
    rng = np.random.default_rng(11)
    y = labelled(rng, 40)
    X = rng.normal(size=(40, 3)) + y[:, None]
    model = nbayes.GaussianNB(var_smoothing="auto", var_pooling="shared").fit(X, y)
    st = model.stats_["groups"][0]
    pooled = (st["m2"].sum(axis=0) + model.epsilon_) / (st["n_weight"].sum(axis=0) + 1)
    np.testing.assert_allclose(model.var_, np.broadcast_to(pooled, model.var_.shape))
    assert model.coef_.shape == (1, 3)


def test_gaussian_family_finalizes_auto_from_merged_statistics():
    rng = np.random.default_rng(12)
    X, y = rng.normal(size=(30, 2)), labelled(rng, 30)
    fam = Gaussian(var_smoothing="auto")
    a = fam.accumulate(X[:10], Labels(y[:10], np.ones(10), 2))
    b = fam.accumulate(X[10:], Labels(y[10:], np.ones(20), 2))
    whole = fam.accumulate(X, Labels(y, np.ones(30), 2))
    np.testing.assert_allclose(
        fam.finalize(fam.merge(a, b))["var"], fam.finalize(whole)["var"], rtol=1e-9
    )


def _with_column(X, column):
    return np.column_stack([X[:, :1], column, X[:, 1:]])


def test_auto_variance_floor_gives_a_constant_feature_no_evidence():
    # Unbalanced classes: a variance epsilon / (n_k + 1) per class made the constant column
    # vote for the larger class, and a value off the constant at predict decided the class.
    rng = np.random.default_rng(13)
    y = (rng.uniform(size=300) < 0.3).astype(int)
    X = rng.normal(size=(300, 2)) + 0.5 * y[:, None]
    plain = nbayes.GaussianNB(var_smoothing="auto").fit(X, y)
    model = nbayes.GaussianNB(var_smoothing="auto").fit(_with_column(X, np.full(300, 5.0)), y)
    assert model.epsilon_ == pytest.approx(plain.epsilon_, rel=1e-9)
    assert model.var_[0, 1] == model.var_[1, 1] > 0
    for value in (5.0, 5.001, -40.0):  # at the constant, near it, far from it
        Z = _with_column(X[:20], np.full(20, value))
        np.testing.assert_allclose(model.predict_proba(Z), plain.predict_proba(X[:20]), rtol=1e-9)
    # Every feature constant: only the class prior is left.
    alone = nbayes.GaussianNB(var_smoothing="auto").fit(np.full((300, 1), 5.0), y)
    # (6.0 scores about -1e11 in both classes: the prior's last digits drown in that sum)
    np.testing.assert_allclose(
        alone.predict_proba([[5.0], [6.0]]), [alone.class_prior_] * 2, atol=1e-5
    )
    assert alone.epsilon_ == pytest.approx(1e-9)


def test_auto_variance_floor_with_a_feature_constant_within_each_class():
    # Constant per class but different across classes (a leaked label): one variance for
    # all classes, so the feature speaks through its means only, and epsilon is not dragged
    # to the bottom of its range. Chunked fits leave rounding in M2 and must agree.
    rng = np.random.default_rng(14)
    y = rng.integers(0, 3, size=400)
    X = rng.normal(size=(400, 2)) * [1.0, 3.0] + y[:, None]
    leak = np.array([0.1, 0.7, 1e5 / 3])[y]
    plain = nbayes.GaussianNB(var_smoothing="auto").fit(X, y)
    full = nbayes.GaussianNB(var_smoothing="auto").fit(_with_column(X, leak), y)
    chunked = nbayes.GaussianNB(var_smoothing="auto")
    for rows in np.array_split(np.arange(400), 37):
        chunked.partial_fit(_with_column(X, leak)[rows], y[rows], classes=[0, 1, 2])
    assert chunked.stats_["groups"][0]["m2"][:, 1].max() > 0  # rounding, not spread
    for model in (full, chunked):
        assert model.epsilon_ == pytest.approx(plain.epsilon_, rel=1e-6)
        np.testing.assert_allclose(model.var_[:, 1], model.epsilon_ / 401)
        np.testing.assert_allclose(model.var_[:, [0, 2]], plain.var_, rtol=1e-6)
        np.testing.assert_array_equal(model.predict(_with_column(X, leak)), y)
    # A feature constant in one class only still has spread: per-class variances as before.
    some = np.where(y == 0, 2.0, rng.normal(size=400))
    mixed = nbayes.GaussianNB(var_smoothing="auto").fit(_with_column(X, some), y)
    st = mixed.stats_["groups"][0]
    np.testing.assert_allclose(mixed.var_, (st["m2"] + mixed.epsilon_) / (st["n_weight"] + 1))
    assert mixed.var_[0, 1] < mixed.var_[1, 1] / 100


def test_auto_shared_variance_floor_ignores_a_constant_feature():
    rng = np.random.default_rng(15)
    y = labelled(rng, 60)
    X = rng.normal(size=(60, 2)) + y[:, None]
    plain = nbayes.GaussianNB(var_smoothing="auto", var_pooling="shared").fit(X, y)
    model = nbayes.GaussianNB(var_smoothing="auto", var_pooling="shared").fit(
        _with_column(X, np.zeros(60)), y
    )
    assert model.epsilon_ == pytest.approx(plain.epsilon_, rel=1e-9)
    np.testing.assert_allclose(
        model.predict_proba(_with_column(X, np.ones(60))), plain.predict_proba(X), rtol=1e-9
    )
