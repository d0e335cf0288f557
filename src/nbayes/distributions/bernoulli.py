"""Bernoulli family: binary features (word present / absent, a yes/no flag)."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .._validation import raise_at
from ..exceptions import ParameterError
from ._arrays import (
    by_class,
    dot,
    dot_t,
    safe_ratio,
    same_columns,
    split_inf,
    subtract_nonnegative,
    transposed,
)
from ._base import Family, Params, Stats
from ._estimates import (
    log_normalise,
    lookup_log,
    one_pseudo_count,
    pseudo_count,
    sum_shifted_lgamma,
    weighted_log_sum,
)
from ._labels import Labels, class_sums
from .statistics import ClassSums


class Bernoulli(Family):
    """Independent Bernoulli features with a Beta(alpha, alpha) prior per class and feature.

    Parameters
    ----------
    alpha : float, array of shape (n_features,) or "auto", default=1.0
        Beta prior concentration ("hallucinated" counts of each outcome). "auto" picks the
        alpha that maximises the evidence (Beta-Bernoulli marginal likelihood of the training
        data), from the counts alone.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        posterior_mean gives theta = (n1 + a) / (n + 2a); map (n1 + a - 1) / (n + 2a - 2);
        mle n1 / n.
    binarize : float or None, default=0.0
        Values strictly above the threshold count as 1. None means the input must already
        be 0/1.
    missing : {"error", "ignore"}, default="error"
        "ignore" skips NaN cells at fit and marginalises them at predict.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Bernoulli, Labels
    >>> fam = Bernoulli(alpha=1.0)
    >>> X = fam.prepare(np.array([[1, 0], [1, 1], [0, 0]]))
    >>> stats = fam.accumulate(X, Labels(np.array([0, 0, 1]), np.ones(3), 2))
    >>> np.exp(fam.log_tables(fam.finalize(stats))[0]).round(3).tolist()
    [[0.75, 0.5], [0.333, 0.333]]
    """

    name = "bernoulli"
    soft_labels = True  # every statistic is a class sum or a class weight
    statistics = (ClassSums.at("n_ones"), ClassSums.at("n_observed"))
    fresh_batches = True  # accumulate makes every table anew
    stackable_params: tuple[str, ...] | None = ("log_p", "log_1mp")
    shared_params = ("alpha", "estimate")

    def __init__(
        self, alpha=1.0, estimate="posterior_mean", binarize: float | None = 0.0, missing="error"
    ):
        super().__init__(alpha=alpha, estimate=estimate, missing=missing)
        if binarize is not None and (
            isinstance(binarize, bool) or not isinstance(binarize, numbers.Real)
        ):
            raise ParameterError(f"binarize must be a number or None; got {binarize!r}.")
        self.binarize = binarize

    def get_params(self) -> dict:
        return {**super().get_params(), "binarize": self.binarize}

    def prepare(self, X, feature_names=None, lazy=False):
        self.check_finite(X, feature_names)
        if self.binarize is not None:
            if sp.issparse(X):
                if self.binarize < 0:
                    raise ParameterError(
                        "binarize must be >= 0 for sparse input (a negative threshold would "
                        f"turn every implicit zero into a one); got {self.binarize}."
                    )
                X = X.copy()
                X.data = (X.data > self.binarize).astype(np.float64)
                X.eliminate_zeros()
                return X
            # 0/1 floats written straight by the comparison, without a boolean temporary.
            out = np.greater(X, self.binarize, out=np.empty(X.shape))
            nan = self._missing(X)  # NaN compares False; where missing is allowed, keep it
            if nan is not None and nan.any():
                out[nan] = np.nan
            return out
        vals = X.data if sp.issparse(X) else X
        bad = (vals != 0) & (vals != 1) & ~np.isnan(vals)
        if bad.any():
            if sp.issparse(X):
                mask = X.copy()
                mask.data = bad
            else:
                mask = bad
            raise_at(
                mask,
                X,
                "0/1 values",
                "Binarize the data or set binarize=<threshold>.",
                "Bernoulli (binarize=None)",
                feature_names,
            )
        return X.astype(np.float64)

    def accumulate(self, X, labels: Labels) -> Stats:
        nan = self._missing(X)
        if nan is None:
            n_observed = by_class(labels.class_weight, X.shape[1])
            return {"n_ones": class_sums(X, labels), "n_observed": n_observed}
        return {
            "n_ones": class_sums(np.where(nan, 0.0, X), labels),
            "n_observed": class_sums(~nan, labels),
        }

    def n_samples(self, stats):
        return stats["n_observed"].max(axis=1, initial=0.0)

    def observed_weight(self, stats):
        return stats["n_observed"].sum(axis=0)

    def subtract(self, a, b, class_names=None, feature_names=None) -> Stats:
        out = super().subtract(a, b, class_names, feature_names)
        # Zeros are observations minus ones; removing more zeros than were learned would
        # leave more ones than observations.
        zeros_left = subtract_nonnegative(
            a["n_observed"] - a["n_ones"],
            b["n_observed"] - b["n_ones"],
            "n_zeros",
            class_names,
            feature_names,
        )
        out["n_ones"] = np.where(zeros_left == 0, out["n_observed"], out["n_ones"])
        return out

    def finalize(self, stats: Stats) -> Params:
        """Parameters in factored form: the counts of ones and of observations (the
        statistics' own tables, shared, never changed) and the pseudo-counts; log p and
        log(1 - p) are laid out by :meth:`log_tables` when the scoring tables of a fitted
        state are made, at its first prediction, or a table is read. partial_fit finalizes
        every batch, and this costs nothing per cell."""
        n_features = stats["n_ones"].shape[1]
        alpha = self.resolve_alpha(stats, n_features)
        return {
            "n_ones": stats["n_ones"],
            "n_observed": stats["n_observed"],
            "pseudo": pseudo_count(alpha, self.estimate),
            "alpha": alpha,
        }

    @staticmethod
    def log_tables(params: Params) -> tuple[np.ndarray, np.ndarray]:
        """(log p, log(1 - p)), each (n_classes, n_features), from :meth:`finalize`'s
        factored parameters (new tables), or the tables the parameters hold (candidates
        stacked by a grid search)."""
        if "log_p" in params:
            return params["log_p"], params["log_1mp"]
        ones, observed, a = params["n_ones"], params["n_observed"], params["pseudo"]
        # Without missing cells every feature of a class has seen the same weight: one column
        # of totals then costs n_classes logarithms instead of n_classes x n_features.
        a0 = one_pseudo_count(a)
        if observed.size and a0 is not None and same_columns(observed):
            total = observed[:, :1] + 2 * a[:1]
            base = (observed[:, :1] + a[:1]).ravel()
            if (total > 0).all():  # most logarithms looked up (lookup_log)
                log_total = np.log(total)
                log_p = lookup_log(ones, lambda n, k: n + a0, log_total)
                log_q = lookup_log(ones, lambda n, k: base[k] - n, log_total)
                if log_p is not None and log_q is not None:
                    return log_p, log_q
            zeros = np.subtract(base[:, None], ones)
        else:
            total = observed + 2 * a
            zeros = np.subtract(observed, ones)
            zeros += a
        log_p = log_normalise(ones + a, total, 2, own=True)
        return log_p, log_normalise(zeros, total, 2, own=True)

    def laid_out(self, params: Params) -> Params:
        log_p, log_q = self.log_tables(params)
        return {"log_p": log_p, "log_1mp": log_q, "alpha": params["alpha"]}

    def feature_log_table(self, params: Params) -> np.ndarray:
        """The table a preset publishes as ``feature_log_prob_``: log p."""
        return self.log_tables(params)[0]

    def log_prior(self, params: Params) -> float:
        # Beta(a + 1, a + 1) per class and feature, whose mode the smoothed estimate is.
        a = pseudo_count(params["alpha"], self.estimate)[None, :]
        log_p, log_q = self.log_tables(params)
        return weighted_log_sum(a, log_p) + weighted_log_sum(a, log_q)

    def evidence_function(self, stats: Stats):
        # Beta-Bernoulli: per class and feature B(n1 + a, n0 + a) / B(a, a).
        ones = sum_shifted_lgamma(stats["n_ones"])
        zeros = sum_shifted_lgamma(stats["n_observed"] - stats["n_ones"])
        totals = sum_shifted_lgamma(stats["n_observed"])
        return lambda a: ones(a) + zeros(a) - totals(2 * a)

    def feature_means(self, stats, params, class_count):
        return safe_ratio(stats["n_ones"], stats["n_observed"])

    def linear_weights(self, params: Params):
        # x_j log p + (1 - x_j) log(1 - p) = x_j [log p - log(1 - p)] + log(1 - p).
        log_p, log_q = self.log_tables(params)
        with np.errstate(invalid="ignore"):
            return log_p - log_q, log_q.sum(axis=1)

    def scoring_params(self, params: Params) -> Params:
        log_p, log_q = self.log_tables(params)
        ready = {**params, "log_p": log_p, "log_1mp": log_q}
        log_p, hit_p = split_inf(log_p)
        log_q, hit_q = split_inf(log_q)
        return {
            **ready,
            "slopes_t": transposed(log_p - log_q),
            "log_q": log_q,
            "hit_p_t": transposed(hit_p),
            "hit_q": hit_q,
            "hit_q_t": transposed(hit_q),
        }

    def joint_log_likelihood(self, params: Params, X) -> np.ndarray:
        # sum_j x_j log p_j + (o_j - x_j) log q_j, o_j = 1 where x_j is observed: two products.
        params = self.ready(params)
        nan = self._missing(X)
        if nan is not None:
            X = np.where(nan, 0.0, X)
        log_q, hit_q = params["log_q"], params["hit_q"]
        jll = dot(X, params["slopes_t"])
        jll += log_q.sum(axis=1) if nan is None else dot_t(~nan, log_q)
        hits = np.zeros_like(jll)
        if params["hit_p_t"] is not None:
            hits += dot(X, params["hit_p_t"])
        if hit_q is not None:
            hits += (hit_q.sum(axis=1) if nan is None else dot_t(~nan, hit_q)) - dot(
                X, params["hit_q_t"]
            )
        jll[hits > 0] = -np.inf
        return jll

    def log_likelihood_terms(self, params: Params, X) -> np.ndarray:
        X = X.toarray() if sp.issparse(X) else X
        x = X[:, None, :]
        with np.errstate(invalid="ignore"):
            log_p, log_q = self.log_tables(params)
            t = np.where(x == 1, log_p[None], log_q[None])
        return np.where(np.isnan(x), 0.0, t)

    def example_data(self, rng, n_samples, n_features):
        u = rng.uniform(size=(n_samples, n_features))
        return (u < rng.uniform(0.1, 0.9, size=n_features)).astype(np.float64)

    def reference_log_density(self, params, X):
        from scipy import stats

        return stats.bernoulli.logpmf(X[:, None, :], np.exp(self.log_tables(params)[0])[None])
