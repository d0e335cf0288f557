"""What a new family costs: one class and one registry line.

This file defines a family nbayes does not ship -- exponential features (waiting times, sizes)
with a conjugate Gamma prior on each rate -- registers it for the duration of each test, and
runs the whole conformance suite (tests/conformance.py) on it unchanged, then uses it by name
in MixedNB, through a model file and a merge. Shipping it would mean moving the class to
``src/nbayes/distributions/exponential.py`` and adding it to ``REGISTRY`` (CONTRIBUTING.md).
"""

from __future__ import annotations

import sys

import cloudpickle
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _cases import family_case
from conformance import ESTIMATOR_CHECKS, FAMILY_CHECKS, applies, check_dask_fit
from scipy import stats

import nbayes
from nbayes.distributions import REGISTRY, ClassSums, Family, Labels, Params, Stats
from nbayes.distributions._arrays import dot_t
from nbayes.distributions._estimates import pseudo_count
from nbayes.distributions._labels import class_sums
from nbayes.exceptions import DataError, ParameterError

# Dask workers import the family by value: this folder is not on their path.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


class Exponential(Family):
    """Exponential features, density ``rate * exp(-rate * x)`` for ``x >= 0``, with a
    Gamma(alpha, beta) prior on each class's rate per feature.

    Statistics are the weight observed ``n`` and the weighted sum ``s`` of each feature per
    class; the posterior is Gamma(alpha + n, beta + s), so the rate is
    ``(n + alpha) / (s + beta)`` (posterior mean), ``(n + alpha - 1) / (s + beta)`` (MAP) or
    ``n / s`` (MLE).
    """

    name = "exponential"
    sparse_ok = False
    statistics = (ClassSums.at("n_observed"), ClassSums.at("x_sum"))
    shared_params = ("alpha", "estimate")  # MixedNB(alpha=..., estimate=...) reaches it

    def __init__(self, alpha=1.0, beta=1.0, estimate="posterior_mean", missing="error"):
        super().__init__(alpha=alpha, estimate=estimate, missing=missing)
        self.beta = beta

    def get_params(self) -> dict:
        return {**super().get_params(), "beta": self.beta}

    def prepare(self, X, feature_names=None, lazy=False):
        if sp.issparse(X):
            raise DataError("Exponential features need dense input; got a sparse matrix.")
        X = np.asarray(X, dtype=np.float64)
        self.check_finite(X, feature_names)
        with np.errstate(invalid="ignore"):
            negative = X < 0
        if negative.any():
            from nbayes._validation import raise_at

            raise_at(
                negative,
                X,
                "non-negative values",
                "Waiting times and sizes are never negative; check the column.",
                "Exponential",
                feature_names,
            )
        return X

    def accumulate(self, X, labels: Labels) -> Stats:
        nan = self._missing(X)
        if nan is None:
            observed = np.repeat(labels.class_weight[:, None], X.shape[1], axis=1)
        else:
            observed = class_sums(~nan, labels)
        return {"n_observed": observed, "x_sum": class_sums(self._zero_missing(X), labels)}

    def n_samples(self, stats):
        return stats["n_observed"].max(axis=1, initial=0.0)

    def observed_weight(self, stats):
        return stats["n_observed"].sum(axis=0)

    def finalize(self, stats: Stats) -> Params:
        n_features = stats["x_sum"].shape[1]
        beta = 0.0 if self.estimate == "mle" else float(self.beta)
        if beta < 0:
            raise ParameterError(f"Parameter 'beta' must be non-negative; got {self.beta!r}.")
        a = pseudo_count(self.resolve_alpha(stats, n_features), self.estimate)
        num, den = stats["n_observed"] + a, stats["x_sum"] + beta
        # No data and no prior: rate 1, an arbitrary but finite choice.
        rate = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)
        with np.errstate(divide="ignore"):
            return {"rate": rate, "log_rate": np.log(rate)}

    def joint_log_likelihood(self, params: Params, X) -> np.ndarray:
        # sum_j log rate_j - rate_j x_j: two products over all classes, missing cells dropped.
        nan = self._missing(X)
        jll = -dot_t(self._zero_missing(X), params["rate"])
        if nan is None:
            return jll + params["log_rate"].sum(axis=1)
        return jll + dot_t(~nan, params["log_rate"])

    def log_likelihood_terms(self, params, X) -> np.ndarray:
        x = X[:, None, :]
        t = params["log_rate"][None] - params["rate"][None] * x
        return np.where(np.isnan(x), 0.0, t)

    def linear_weights(self, params):
        return -params["rate"], params["log_rate"].sum(axis=1)

    def feature_means(self, stats, params, class_count):
        return stats["x_sum"] / np.maximum(stats["n_observed"], 1e-300)

    def example_data(self, rng, n_samples, n_features):
        scale = rng.uniform(0.5, 3.0, size=n_features)
        return rng.exponential(scale, size=(n_samples, n_features))

    def reference_log_density(self, params, X):
        return stats.expon.logpdf(X[:, None, :], scale=1.0 / params["rate"][None])


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """The one registry line, for the duration of each test."""
    monkeypatch.setitem(REGISTRY, Exponential.name, Exponential)


# -- the whole conformance suite, unchanged ------------------------------------------------
CASE = family_case(Exponential.name)


@pytest.mark.parametrize(
    "check", [c for c in FAMILY_CHECKS if applies(c, Exponential)], ids=lambda c: c.__name__
)
def test_family_conformance(check):
    check(Exponential.name)


@pytest.mark.parametrize(
    "check", [c for c in ESTIMATOR_CHECKS if applies(c, CASE)], ids=lambda c: c.__name__
)
def test_estimator_conformance(check):
    check(CASE)


@pytest.mark.xdist_group("dask-cluster")
def test_dask_conformance(dask_client):
    check_dask_fit(CASE, dask_client)


def test_registered_only_while_the_fixture_holds(monkeypatch):
    assert REGISTRY[Exponential.name] is Exponential
    assert not hasattr(nbayes.distributions, "Exponential")  # never added to the package
    monkeypatch.undo()  # what every other test module sees
    assert Exponential.name not in REGISTRY


# -- the family's own numbers --------------------------------------------------------------
def fitted_stats(X, codes, weights=None):
    weights = np.ones(len(codes)) if weights is None else weights
    return Exponential().accumulate(X, Labels(codes, weights, 2))


def test_rates_under_each_estimate_are_the_gamma_posterior_formulas():
    X = np.array([[1.0], [3.0], [0.5], [2.5]])
    st = fitted_stats(X, np.array([0, 0, 1, 1]), np.array([1.0, 2.0, 1.0, 1.0]))
    n, s = np.array([[3.0], [2.0]]), np.array([[7.0], [3.0]])  # weight 2 counts row 1 twice
    np.testing.assert_allclose(st["n_observed"], n)
    np.testing.assert_allclose(st["x_sum"], s)
    alpha, beta = 2.0, 0.5
    for estimate, want in (
        ("posterior_mean", (n + alpha) / (s + beta)),
        ("map", (n + alpha - 1) / (s + beta)),
        ("mle", n / s),
    ):
        fam = Exponential(alpha=alpha, beta=beta, estimate=estimate)
        np.testing.assert_allclose(fam.finalize(st)["rate"], want, rtol=1e-15, err_msg=estimate)


def test_log_density_is_scipy_expon():
    rng = np.random.default_rng(0)
    rate = rng.uniform(0.2, 5.0, size=(3, 4))
    params = {"rate": rate, "log_rate": np.log(rate)}
    X = rng.exponential(1.0, size=(20, 4))
    np.testing.assert_allclose(
        Exponential().log_likelihood_terms(params, X),
        stats.expon.logpdf(X[:, None, :], scale=1 / rate[None]),
        rtol=1e-12,
    )


def test_negative_values_are_named():
    with pytest.raises(
        DataError, match=r"[Cc]olumn index 1 must hold non-negative .* got -2.0 at row 1"
    ):
        Exponential().prepare(np.array([[1.0, 2.0], [0.5, -2.0]]))


# -- MixedNB by name, model files and merge --------------------------------------------------
def table(rng, n=200):
    y = rng.choice(["fast", "slow"], size=n)
    slow = y == "slow"
    return (
        pd.DataFrame(
            {
                "wait": rng.exponential(np.where(slow, 5.0, 1.0)),
                "size": rng.exponential(np.where(slow, 2.0, 3.0)),
                "temp": rng.normal(20 + slow, 2.0),
                "site": rng.choice(["a", "b", "c"], size=n),
            }
        ),
        y,
    )


def test_mixednb_uses_the_family_by_name(tmp_path):
    X, y = table(np.random.default_rng(1))
    X.loc[3, "wait"] = np.nan  # a missing cell is marginalised, as for every family
    model = nbayes.MixedNB(columns=[("exponential", ["wait", "size"])], alpha=2.0).fit(X, y)
    assert model.column_families_ == {
        "wait": "exponential",
        "size": "exponential",
        "temp": "gaussian",
        "site": "categorical",
    }
    fam = model.families_[0]
    assert isinstance(fam, Exponential) and fam.alpha == 2.0 and fam.missing == "ignore"
    assert model.summary().loc["wait", "missing"] == pytest.approx(1 / 200)
    assert model.score(X, y) > 0.7

    # Scores are the sum of the groups': the exponential part is its own log-density.
    slow = y == "slow"
    rate_slow = (2.0 + slow.sum()) / (1.0 + X.loc[slow, "size"].sum())
    np.testing.assert_allclose(
        model.params_[0]["rate"][list(model.classes_).index("slow"), 1], rate_slow, rtol=1e-12
    )

    loaded = nbayes.load(nbayes.save(model, tmp_path / "m.nbayes"))
    assert isinstance(loaded.families_[0], Exponential)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))

    halves = [
        nbayes.MixedNB(columns=[("exponential", ["wait", "size"])], alpha=2.0).fit(
            X.iloc[part], y[part]
        )
        for part in (slice(0, 120), slice(120, None))
    ]
    merged = nbayes.merge(*halves)
    np.testing.assert_allclose(merged.predict_proba(X), model.predict_proba(X), rtol=1e-10)
    merged.unlearn(X.iloc[120:], y[120:])
    np.testing.assert_allclose(
        merged.predict_proba(X), halves[0].predict_proba(X), rtol=1e-9, atol=1e-12
    )


def test_unknown_family_names_list_the_registered_ones():
    X, y = table(np.random.default_rng(2), n=20)
    with pytest.raises(ParameterError, match=r"Unknown family 'exponentail'.*'exponential'"):
        nbayes.MixedNB(columns=[("exponentail", ["wait"])]).fit(X, y)
