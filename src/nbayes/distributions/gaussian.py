"""Gaussian family: continuous features with a per-class, per-feature normal density."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import check_finite
from ..exceptions import DataError, ParameterError
from ._base import (
    SUBTRACT_RTOL,
    Family,
    Labels,
    Params,
    Stats,
    class_sums,
    describe_cell,
    missing_mask,
    subtract_nonnegative,
)

LOG_2PI = np.log(2 * np.pi)


def merge_moments(wa, ma, m2a, wb, mb, m2b):
    """Chan et al. parallel update of (weight, mean, M2); exact and free of cancellation."""
    w = wa + wb
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(w > 0, wb / np.where(w > 0, w, 1.0), 0.0)
    delta = mb - ma
    mean = ma + delta * share
    m2 = m2a + m2b + delta**2 * wa * share
    return w, mean, m2


def subtract_moments(wt, mt, m2t, wb, mb, m2b):
    """Inverse of :func:`merge_moments`: the moments of A from those of A + B and of B.

    Returns (weight, mean, M2, impossible) where ``impossible`` marks cells that B cannot be
    part of: M2 negative beyond rounding, or nothing left while the means or spreads of
    A + B and B differ. The mean is recovered as ``mt + (mt - mb) * wb / wa``, which needs no
    difference of large sums.
    """
    wa = wt - wb
    wa[np.abs(wa) <= SUBTRACT_RTOL * (np.abs(wt) + np.abs(wb))] = 0.0
    left = wa > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(left, mt + (mt - mb) * (wb / np.where(left, wa, 1.0)), 0.0)
        between = np.where(wt > 0, (mb - mean) ** 2 * wa * (wb / np.where(wt > 0, wt, 1.0)),
                           0.0)
        spread = np.sqrt(np.where(wt > 0, (m2t + m2b) / np.where(wt > 0, wt, 1.0), 0.0))
    m2 = m2t - m2b - between
    slack = SUBTRACT_RTOL * (np.abs(m2t) + np.abs(m2b) + between)
    # With nothing left, A + B must have been B alone: same mean, same spread.
    mean_off = np.abs(mt - mb) > SUBTRACT_RTOL * (np.abs(mt) + np.abs(mb) + spread)
    impossible = (m2 < -slack) | (~left & ((np.abs(m2) > slack) | mean_off))
    m2 = np.where(left & (m2 > slack), m2, 0.0)
    return wa, mean, m2, impossible


class Gaussian(Family):
    """Normal density per class and feature, fitted by maximum likelihood.

    Statistics are per (class, feature) weight, mean and M2 (sum of squared deviations),
    merged with the Chan et al. formula. The variance is the MLE M2 / w plus a floor
    ``epsilon = var_smoothing * max_j Var(x_j)`` computed from the merged statistics (so
    ``fit`` and any chunking of ``partial_fit`` agree); when every feature is constant the
    floor is ``var_smoothing`` itself, so the model stays finite.

    Parameters
    ----------
    var_smoothing : float, default=1e-9
    missing : {"error", "ignore"}, default="error"

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Gaussian, Labels
    >>> fam = Gaussian(var_smoothing=0.0)
    >>> stats = fam.accumulate(np.array([[1.], [3.]]), Labels(np.array([0, 0]), np.ones(2), 1))
    >>> p = fam.finalize(stats); (p["mean"].item(), p["var"].item())
    (2.0, 1.0)
    """

    name = "gaussian"
    sparse_ok = False
    class_keys = ("n_weight", "mean", "m2")

    def __init__(self, var_smoothing: float = 1e-9, estimate: str = "mle", missing="error"):
        super().__init__(alpha=0.0, estimate=estimate, missing=missing)
        if estimate != "mle":
            raise ParameterError(
                f"Gaussian supports estimate='mle'; got {estimate!r}."
            )
        self.var_smoothing = var_smoothing

    def get_params(self) -> dict:
        return {"var_smoothing": self.var_smoothing, "estimate": self.estimate,
                "missing": self.missing}

    def prepare(self, X, feature_names=None):
        if sp.issparse(X):
            raise DataError(
                "GaussianNB needs dense input; got a sparse matrix. Call X.toarray() if it "
                "fits in memory, or use a count family (MultinomialNB, PoissonNB)."
            )
        check_finite(X, "Gaussian", feature_names, allow_nan=self.missing == "ignore")
        return np.asarray(X) if X.dtype.kind == "f" else np.asarray(X, dtype=np.float64)

    def zeros(self, n_classes, n_features) -> Stats:
        z = np.zeros((n_classes, n_features))
        return {"n_weight": z, "mean": z.copy(), "m2": z.copy()}

    def accumulate(self, X, labels: Labels) -> Stats:
        # Two passes over the batch: class means, then squared deviations from them.
        nan = missing_mask(X)
        X = np.asarray(X, dtype=np.float64)
        if nan is None:
            weight = np.repeat(labels.class_weight[:, None], X.shape[1], axis=1)
        else:
            weight = class_sums(~nan, labels)
            X = np.where(nan, 0.0, X)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(weight > 0, class_sums(X, labels) / weight, 0.0)
        dev = X - mean[labels.codes]
        if nan is not None:
            dev[nan] = 0.0
        np.square(dev, out=dev)
        return {"n_weight": weight, "mean": mean, "m2": class_sums(dev, labels)}

    def merge(self, a: Stats, b: Stats) -> Stats:
        w, mean, m2 = merge_moments(a["n_weight"], a["mean"], a["m2"],
                                    b["n_weight"], b["mean"], b["m2"])
        return {"n_weight": w, "mean": mean, "m2": m2}

    def subtract(self, a, b, class_names=None, feature_names=None) -> Stats:
        subtract_nonnegative(a["n_weight"], b["n_weight"], "n_weight", class_names,
                             feature_names)
        w, mean, m2, impossible = subtract_moments(a["n_weight"], a["mean"], a["m2"],
                                                   b["n_weight"], b["mean"], b["m2"])
        if impossible.any():
            k, j = (int(i) for i in np.argwhere(impossible)[0])
            where = describe_cell(k, j, class_names, feature_names)
            raise DataError(
                f"Cannot unlearn: the rows to unlearn for {where} (weight "
                f"{b['n_weight'][k, j]:.6g}, mean "
                f"{b['mean'][k, j]:.6g}) are not part of what the model learned (weight "
                f"{a['n_weight'][k, j]:.6g}, mean {a['mean'][k, j]:.6g}, sum of squared "
                "deviations too small to contain them). Pass only rows the model was trained "
                "on, with the same sample weights."
            )
        return {"n_weight": w, "mean": mean, "m2": m2}

    def n_samples(self, stats):
        return stats["n_weight"].max(axis=1, initial=0.0)

    @staticmethod
    def pooled(stats: Stats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Weight, mean and M2 per feature over all classes, each of shape (n_features,)."""
        w, mean, m2 = stats["n_weight"][0], stats["mean"][0], stats["m2"][0]
        for k in range(1, stats["n_weight"].shape[0]):  # bounded by the number of classes
            w, mean, m2 = merge_moments(w, mean, m2, stats["n_weight"][k], stats["mean"][k],
                                        stats["m2"][k])
        return w, mean, m2

    def finalize(self, stats: Stats) -> Params:
        if self.var_smoothing < 0:
            raise ParameterError(
                f"Parameter 'var_smoothing' must be non-negative; got {self.var_smoothing!r}."
            )
        w, mean = stats["n_weight"], stats["mean"]
        total_w, total_mean, total_m2 = self.pooled(stats)
        with np.errstate(divide="ignore", invalid="ignore"):
            total_var = np.where(total_w > 0, total_m2 / total_w, 0.0)
            var = np.where(w > 0, stats["m2"] / np.where(w > 0, w, 1.0), total_var)
        largest = total_var.max(initial=0.0)
        epsilon = self.var_smoothing * (largest if largest > 0 else 1.0)
        var = var + epsilon
        mean = np.where(w > 0, mean, total_mean)
        if np.any(var <= 0):
            k, j = np.argwhere(var <= 0)[0]
            raise ParameterError(
                f"Class index {k}, feature index {j} has zero variance and var_smoothing=0, "
                "so its density is a point mass. Set var_smoothing > 0 (default 1e-9)."
            )
        return {"mean": mean, "var": var, "center": total_mean,
                "epsilon": np.asarray(epsilon)}

    def joint_log_likelihood(self, params: Params, X) -> np.ndarray:
        # -1/2 sum_j [log 2 pi v + (x - m)^2 / v] expanded into three products over all
        # classes; centring on the overall mean first keeps large offsets from cancelling.
        nan = missing_mask(X)
        Xc = np.asarray(X, dtype=np.float64) - params["center"]
        if nan is not None:
            Xc[nan] = 0.0
        prec = 1.0 / params["var"]
        mc = params["mean"] - params["center"]
        const = mc**2 * prec + np.log(params["var"]) + LOG_2PI
        quad = np.square(Xc) @ prec.T
        quad -= 2.0 * (Xc @ (mc * prec).T)
        quad += const.sum(axis=1) if nan is None else (~nan) @ const.T
        return -0.5 * quad

    def log_likelihood_terms(self, params, X) -> np.ndarray:
        x = np.asarray(X, dtype=np.float64)[:, None, :]
        t = -0.5 * (LOG_2PI + np.log(params["var"])[None]
                    + (x - params["mean"][None]) ** 2 / params["var"][None])
        return np.where(np.isnan(x), 0.0, t)
