"""Poisson family: event counts per feature (clicks, visits, word counts with length effects)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from ..exceptions import ParameterError
from ._arrays import by_class, dot_t, linear_tables, log_linear, safe_ratio, same_columns
from ._base import Family, Params, Stats
from ._estimates import (
    lookup_log,
    one_pseudo_count,
    pseudo_count,
    sum_shifted_lgamma,
    weighted_log_sum,
)
from ._labels import Labels, class_sums
from .multinomial import check_counts, count_data
from .statistics import ClassSums


class Poisson(Family):
    """Independent Poisson features with a Gamma(alpha, beta) prior on each rate.

    Parameters
    ----------
    alpha : float, array of shape (n_features,) or "auto", default=1.0
        Gamma shape: hallucinated total count. posterior_mean gives
        lambda = (s + alpha) / (n + beta); map (s + alpha - 1) / (n + beta); mle s / n.
        "auto" maximises the Gamma-Poisson evidence of the training counts (beta fixed).
    beta : float, default=1.0
        Gamma rate: hallucinated number of observations.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    missing : {"error", "ignore"}, default="error"

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Poisson, Labels
    >>> fam = Poisson(alpha=1.0, beta=1.0)
    >>> stats = fam.accumulate(np.array([[2.], [4.]]), Labels(np.array([0, 0]), np.ones(2), 1))
    >>> fam.rate_tables(fam.finalize(stats))[1].tolist()  # (2 + 4 + alpha) / (2 + beta)
    [[2.3333333333333335]]
    """

    name = "poisson"
    soft_labels = True  # every statistic is a class sum or a class weight
    finite_shows_in_result = True
    statistics = (ClassSums.at("n_sum"), ClassSums.at("n_observed"))
    fresh_batches = True  # accumulate makes every table anew
    stackable_params: tuple[str, ...] | None = ("log_rate", "rate")
    shared_params = ("alpha", "estimate")

    def __init__(self, alpha=1.0, beta: float = 1.0, estimate="posterior_mean", missing="error"):
        super().__init__(alpha=alpha, estimate=estimate, missing=missing)
        self.beta = beta

    def get_params(self) -> dict:
        return {**super().get_params(), "beta": self.beta}

    def prepare(self, X, feature_names=None, lazy=False):
        check_counts(self, X, feature_names, lazy, integer=True)
        return X if sp.issparse(X) else np.asarray(X, dtype=np.float64)

    def accumulate(self, X, labels: Labels) -> Stats:
        nan = self._missing(X)
        if nan is None:
            observed = by_class(labels.class_weight, X.shape[1])
        else:
            observed = class_sums(~nan, labels)
        return {"n_sum": class_sums(self._zero_missing(X), labels), "n_observed": observed}

    def n_samples(self, stats):
        return stats["n_observed"].max(axis=1, initial=0.0)

    def observed_weight(self, stats):
        return stats["n_observed"].sum(axis=0)

    def finalize(self, stats: Stats) -> Params:
        """Parameters in factored form: the count sums and observed weights (the statistics'
        own tables, shared, never changed), the pseudo-counts and beta; the rates and their
        logarithms are laid out by :meth:`rate_tables` when the scoring tables of a fitted
        state are made, at its first prediction, or a table is read. partial_fit finalizes
        every batch, and this costs nothing per cell."""
        n_features = stats["n_sum"].shape[1]
        beta = 0.0 if self.estimate == "mle" else float(self.beta)
        if beta < 0:
            raise ParameterError(f"Parameter 'beta' must be non-negative; got {self.beta!r}.")
        alpha = self.resolve_alpha(stats, n_features)
        return {
            "n_sum": stats["n_sum"],
            "n_observed": stats["n_observed"],
            "pseudo": pseudo_count(alpha, self.estimate),
            "beta": beta,
            "alpha": alpha,
        }

    @staticmethod
    def rate_tables(params: Params) -> tuple[np.ndarray, np.ndarray]:
        """(log rate, rate), each (n_classes, n_features): the rate (s + a) / (n + beta) from
        :meth:`finalize`'s factored parameters (new tables), or the tables the parameters
        hold (candidates stacked by a grid search)."""
        if "log_rate" in params:
            return params["log_rate"], params["rate"]
        sums, observed, a = params["n_sum"], params["n_observed"], params["pseudo"]
        # Without missing cells every feature of a class has seen the same weight: one column
        # of denominators then spares a pass of masks and divisions over the whole table.
        if observed.size and same_columns(observed):
            observed = observed[:, :1]
        num, den = sums + a, observed + params["beta"]
        log_rate = None
        if den.shape[1] == 1 and (den > 0).all():
            # log(s + a) - log(n + beta) per class, most logarithms looked up (lookup_log)
            log_den = np.log(den[:, 0])
            a0 = one_pseudo_count(a)
            if a0 is not None:
                log_rate = lookup_log(sums, lambda s, k: s + a0, log_den)
            if log_rate is None:
                with np.errstate(divide="ignore"):
                    log_rate = np.log(num)
                log_rate -= log_den[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if (den > 0).all():  # the usual case: one division in place
                rate = np.divide(num, den, out=num)
            else:
                rate = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        if log_rate is None:
            with np.errstate(divide="ignore"):
                log_rate = np.log(rate)
        return log_rate, rate

    def laid_out(self, params: Params) -> Params:
        log_rate, rate = self.rate_tables(params)
        return {"log_rate": log_rate, "rate": rate, "alpha": params["alpha"]}

    def feature_log_table(self, params: Params) -> np.ndarray:
        """The table a preset publishes as ``feature_log_prob_``: log rate."""
        return self.rate_tables(params)[0]

    def log_prior(self, params: Params) -> float:
        # Gamma(a + 1, beta) per class and feature, whose mode (s + a) / (n + beta) is the
        # estimate: log density a log(rate) - beta rate, up to a constant.
        a = pseudo_count(params["alpha"], self.estimate)[None, :]
        beta = 0.0 if self.estimate == "mle" else float(self.beta)
        log_rate, rate = self.rate_tables(params)
        return weighted_log_sum(a, log_rate) - beta * float(np.sum(rate))

    def evidence_function(self, stats: Stats):
        # Gamma-Poisson per class and feature: b^a Gamma(a + s) / (Gamma(a) (b + n)^(a + s));
        # the factorials of the counts do not depend on a.
        beta = float(self.beta)
        if beta <= 0:
            raise ParameterError(
                f"alpha='auto' needs PoissonNB's beta > 0 (a proper Gamma prior); got {beta!r}."
            )
        shifted = sum_shifted_lgamma(stats["n_sum"])
        log_ratio = (np.log(beta) - np.log(beta + stats["n_observed"])).sum()
        return lambda a: shifted(a) + a * log_ratio

    def feature_means(self, stats, params, class_count):
        return safe_ratio(stats["n_sum"], stats["n_observed"])

    def linear_weights(self, params: Params):
        # x log lambda - lambda - log x!: the factorial is the same for every class.
        log_rate, rate = self.rate_tables(params)
        return log_rate, -rate.sum(axis=1)

    def scoring_params(self, params: Params) -> Params:
        log_rate, rate = self.rate_tables(params)
        return {
            **params,
            "log_rate": log_rate,
            "rate": rate,
            **linear_tables(log_rate),
            "rate_total": rate.sum(axis=1),
        }

    def joint_log_likelihood(self, params: Params, X) -> np.ndarray:
        # sum_j x_j log lambda_j - lambda_j; a zero rate makes any positive count impossible.
        params = self.ready(params)
        nan = self._missing(X)
        X0 = self._zero_missing(X)
        jll = log_linear(X0, params)  # -inf stays -inf below: the rates are finite
        jll -= params["rate_total"] if nan is None else dot_t(~nan, params["rate"])
        return jll

    def log_normalizer(self, params, X) -> np.ndarray:
        X = self._zero_missing(X)
        if sp.issparse(X):
            per_value = X.copy()
            per_value.data = gammaln(per_value.data + 1)
            return -np.asarray(per_value.sum(axis=1)).ravel()
        return -gammaln(X + 1).sum(axis=1)

    def log_likelihood_terms(self, params, X) -> np.ndarray:
        X = X.toarray() if sp.issparse(X) else X
        x = X[:, None, :]
        log_rate, rate = self.rate_tables(params)
        with np.errstate(invalid="ignore"):
            t = x * log_rate[None] - rate[None] - gammaln(x + 1)
        t = np.where(x == 0, -rate[None], t)
        return np.where(np.isnan(x), 0.0, t)

    def example_data(self, rng, n_samples, n_features):
        return count_data(rng, n_samples, n_features)

    def reference_log_density(self, params, X):
        from scipy import stats

        return stats.poisson.logpmf(X[:, None, :], self.rate_tables(params)[1][None])
