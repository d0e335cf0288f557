"""Draws from the posterior over a family's parameters, for ``predict_proba_interval``.

One function per family with a conjugate prior, registered in :data:`POSTERIOR` by family
name; a family without an entry (kernel and binned densities, Complement NB's weights) has
no conjugate posterior, and the estimators refuse it. Adding a family's posterior is one
function and one entry here.

Each function takes ``(family, stats, params, n_draws, rng)``: the family, its merged
statistics, its fitted parameters (from ``finalize``) and the number of draws. It returns
parameters in the family's own layout whose class axis holds the draws one after the
other: row ``s * n_classes + k`` is class k of draw s. The family's ``joint_log_likelihood``
then scores every draw of every class in the products it always makes, with no loop over
draws or rows.

Which posterior matches the fitted estimate (the smoothing ``alpha`` is the prior's
hallucinated count):

* ``estimate="posterior_mean"``: prior Dirichlet(alpha) (Beta, Gamma(alpha, beta)); the
  posterior Dirichlet(n + alpha) has the fitted table as its mean.
* ``estimate="map"``: the same prior; the fitted table is the posterior's mode.
* ``estimate="mle"``: a flat prior (Dirichlet(1), Gamma(1, 0)); the fitted table is the mode.

Counts are weighted sums of rows: a row of weight w counts as w observations.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._base import Family, Params, Stats
from ._categorical_layout import expand, offsets_of
from ._estimates import pseudo_count
from .gaussian import Gaussian


def concentration(counts: np.ndarray, alpha: np.ndarray, estimate: str) -> np.ndarray:
    """Posterior shape of each cell: counts plus the prior's, whose mean (posterior_mean) or
    mode (map, mle) is the fitted estimate. ``pseudo_count`` is alpha, alpha - 1 and 0; the
    mode needs one more."""
    extra = 0.0 if estimate == "posterior_mean" else 1.0
    return counts + pseudo_count(alpha, estimate) + extra


def log_gamma_draws(shape: np.ndarray, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """log of Gamma(shape, 1) draws, shape (n_draws, *shape.shape); log 0 = -inf for shape 0.

    Below shape 1 a Gamma draw underflows to 0 often enough to matter (a category seen
    never, alpha = 0.01), so those are drawn in log space: G(a) = G(a + 1) U^(1/a).
    """
    shape = np.broadcast_to(shape, (n_draws, *np.shape(shape)))
    small = shape < 1
    any_small = bool(small.any())
    with np.errstate(divide="ignore"):
        out = rng.standard_gamma(np.where(small, shape + 1, shape) if any_small else shape)
        np.log(out, out=out)
        if any_small:
            u = np.log(rng.random(shape.shape))
            out += np.where(small, u / np.where(shape > 0, shape, 1.0), 0.0)
            out[shape <= 0] = -np.inf
    return out


def log_normalise_last(g: np.ndarray) -> np.ndarray:
    """``g - log(sum(exp(g)))`` over the last axis, in place (scipy's logsumexp makes
    several copies of a table of draws); an all -inf row stays -inf."""
    top = g.max(axis=-1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    with np.errstate(divide="ignore"):
        log_sum = np.log(np.exp(g - top).sum(axis=-1, keepdims=True))
    log_sum[np.isneginf(log_sum)] = 0.0
    g -= log_sum + top
    return g


def stack_draws(table: np.ndarray) -> np.ndarray:
    """(n_draws, n_classes, ...) -> (n_draws * n_classes, ...): draws one after the other."""
    return table.reshape(-1, *table.shape[2:])


def tile_classes(table: np.ndarray, n_draws: int) -> np.ndarray:
    """A fitted (n_classes, ...) table repeated for every draw, in the layout of
    :func:`stack_draws`."""
    return np.tile(table, (n_draws,) + (1,) * (table.ndim - 1))


def _bernoulli(family: Family, stats: Stats, params: Params, n_draws: int, rng) -> Params:
    # p ~ Beta(ones + a, zeros + a): two Gamma draws, normalised in log space.
    ones, observed = stats["n_ones"], stats["n_observed"]
    g1 = log_gamma_draws(concentration(ones, params["alpha"], family.estimate), n_draws, rng)
    g0 = log_gamma_draws(
        concentration(observed - ones, params["alpha"], family.estimate), n_draws, rng
    )
    total = np.logaddexp(g1, g0)
    return {
        "log_p": stack_draws(g1 - total),
        "log_1mp": stack_draws(g0 - total),
        "alpha": params["alpha"],
    }


def _multinomial(family: Family, stats: Stats, params: Params, n_draws: int, rng) -> Params:
    # theta ~ Dirichlet(n + a) per class: Gamma draws over their sum.
    g = log_gamma_draws(
        concentration(stats["n_counts"], params["alpha"], family.estimate), n_draws, rng
    )
    return {"log_theta": stack_draws(log_normalise_last(g))}


def _text(family: Family, stats: Stats, params: Params, n_draws: int, rng) -> Params:
    # The multinomial over the features training filled; the others stay out (log theta 0).
    learned = params["learned"]
    shape = concentration(stats["n_counts"], params["alpha"], family.estimate)
    g = log_gamma_draws(np.where(learned, shape, 0.0), n_draws, rng)
    log_theta = np.where(learned, log_normalise_last(g), 0.0)
    return {"log_theta": stack_draws(log_theta), "learned": learned, "alpha": params["alpha"]}


def _categorical(family: Family, stats: Stats, params: Params, n_draws: int, rng) -> Params:
    # theta_kj ~ Dirichlet(n_kj + a_j) over the K_j categories of each class and feature.
    n_cat = params["n_categories"]
    counts = expand(stats["n_counts"], stats["n_categories"], n_cat)
    alpha = np.repeat(params["alpha"], n_cat)
    g = log_gamma_draws(concentration(counts, alpha, family.estimate), n_draws, rng)
    # Per-feature log-sum-exp over each block of categories (reduceat: no loop over features).
    starts = offsets_of(n_cat)
    top = np.maximum.reduceat(g, starts, axis=2) if g.shape[2] else g[..., :0]
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        log_norm = np.log(np.add.reduceat(np.exp(g - np.repeat(top, n_cat, axis=2)), starts, 2))
    log_norm += top
    return {
        **params,
        "log_numer": stack_draws(g),
        "numer_categories": n_cat,
        "patches": (),
        "log_norm": stack_draws(log_norm),
        "totals": tile_classes(params["totals"], n_draws),
        "log_unseen": tile_classes(params["log_unseen"], n_draws),
    }


def _poisson(family: Family, stats: Stats, params: Params, n_draws: int, rng) -> Params:
    # rate ~ Gamma(s + a, n + beta); a class and feature with no weight and beta = 0 keeps
    # the fitted rate 0.
    shape = concentration(stats["n_sum"], params["alpha"], family.estimate)
    rate = stats["n_observed"] + params["beta"]
    g = log_gamma_draws(np.where(rate > 0, shape, 0.0), n_draws, rng)
    with np.errstate(divide="ignore"):
        log_rate = g - np.log(np.where(rate > 0, rate, 1.0))
    log_rate = stack_draws(log_rate)
    return {"log_rate": log_rate, "rate": np.exp(log_rate), "alpha": params["alpha"]}


def _gaussian(family: Gaussian, stats: Stats, params: Params, n_draws: int, rng) -> Params:
    """Normal-Inverse-Gamma draws of each class's mean and variance.

    ``estimate="posterior_predictive"``: the exact posterior of the prior the family states
    (its Student-t predictive is the fitted density). ``estimate="mle"``: sigma^2 ~
    Scaled-Inv-chi^2(w + 1, (w v + s0^2) / (w + 1)) and mu | sigma^2 ~ N(m, sigma^2 / w), with
    w the class weight and m, v the fitted mean and variance (the floor included): w
    observations of the fitted variance plus one prior observation of s0^2 (see
    :func:`_variance_prior`). Without that prior observation a class of one row, or of equal
    values, has the floor as its variance and every draw is as sure as the fit. A shared
    variance is drawn once per feature with the pooled weight. A class without weight counts
    as one row.
    """
    w = np.maximum(stats["n_weight"], 1.0)
    mean, var = params["mean"], params["var"]
    n_classes = mean.shape[0]
    if "dof" in params:
        kappa = float(family.mean_prior_count) + stats["n_weight"]
        a_n = params["dof"] / 2
        b_n = var * a_n * kappa / (kappa + 1)
        sigma2 = b_n / rng.standard_gamma(np.broadcast_to(a_n, (n_draws, *a_n.shape)))
    else:
        kappa = w
        s0 = _variance_prior(family, stats) + params["epsilon"]
        if family.var_pooling == "shared":
            dof = w.sum(axis=0) + 1.0
            draws = rng.chisquare(np.broadcast_to(dof, (n_draws, 1, dof.size)))
            scale = (dof - 1.0) * var[0] + s0
            sigma2 = np.broadcast_to(scale / draws, (n_draws, n_classes, dof.size))
        else:
            draws = rng.chisquare(np.broadcast_to(w + 1.0, (n_draws, *w.shape)))
            sigma2 = (w * var + s0) / draws
    mu = mean + np.sqrt(sigma2 / kappa) * rng.standard_normal(sigma2.shape)
    return {
        "mean": stack_draws(mu),
        "var": stack_draws(np.array(sigma2)),
        "center": params["center"],
        "epsilon": params["epsilon"],
    }


def _variance_prior(family: Gaussian, stats: Stats) -> np.ndarray:
    """Prior guess s0^2 of a class's variance under ``estimate="mle"``, (n_features,): the
    feature's pooled within-class variance, the default ``var_prior`` of the posterior
    predictive. Where no class has spread (every class one row, or constant per class) the
    data give no within-class scale, and the overall variance, which bounds the average
    within-class variance from above, stands in for it."""
    w, m2 = stats["n_weight"].sum(axis=0), stats["m2"].sum(axis=0)
    total_w, _, total_m2 = family.pooled(stats)
    with np.errstate(divide="ignore", invalid="ignore"):
        within = np.where(w > 0, m2 / np.where(w > 0, w, 1.0), 0.0)
        total = np.where(total_w > 0, total_m2 / np.where(total_w > 0, total_w, 1.0), 0.0)
    return np.where(family.no_spread(stats["mean"], within, total), total, within)


#: Family name -> posterior draws. Families absent here have no conjugate posterior.
POSTERIOR: dict[str, Callable[..., Params]] = {
    "bernoulli": _bernoulli,
    "categorical": _categorical,
    "gaussian": _gaussian,
    "multinomial": _multinomial,
    "poisson": _poisson,
    "text": _text,
}


def draw_class_prior(
    class_count: np.ndarray, prior_alpha: float, n_draws: int, rng: np.random.Generator
) -> np.ndarray:
    """Log class priors drawn from Dirichlet(N_k + prior_alpha), whose mean is the fitted
    prior (N_k + a) / (N + K a), in the layout of :func:`stack_draws` (n_draws * K,)."""
    g = log_gamma_draws(class_count + prior_alpha, n_draws, rng)
    return stack_draws(log_normalise_last(g))
