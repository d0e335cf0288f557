"""Gaussian family: continuous features with a per-class, per-feature normal density."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._accel import kernels
from .._validation import raise_at
from ..exceptions import DataError, ParameterError
from ._arrays import dot_classes
from ._base import Family, Params, Stats
from ._estimates import maximise_log_scalar
from ._labels import Labels, SoftLabels, accumulate_by_class, class_sums
from .statistics import Moments, merge_moments

LOG_2PI = np.log(2 * np.pi)


ESTIMATES = ("mle", "posterior_predictive")
POOLING = ("per_class", "shared")
#: One-pass moments lose about log10(sum of squared deviations from the shift / M2) digits
#: to cancellation; columns past this ratio (a class mean over ~30 spreads from the shift)
#: are summed again around the class means.
ONE_PASS_MAX_RATIO = 1e3
#: Search range of ``var_smoothing="auto"``, as a fraction of the largest feature variance.
AUTO_FLOOR_RANGE = (1e-9, 1e3)
#: ``var_smoothing="auto"``: a feature whose within-class standard deviation is at most this
#: fraction of its magnitude has no spread (rounding leaves ~1e-15); see ``Gaussian.no_spread``.
NO_SPREAD_RTOL = 1e-12


def nig_posterior(w, mean, m2, mu0, kappa0, a0, b0):
    """Normal-Inverse-Gamma posterior from (weight, mean, M2) statistics.

    Prior: sigma^2 ~ InvGamma(a0, b0), mu | sigma^2 ~ N(mu0, sigma^2 / kappa0). Returns
    (mu_n, kappa_n, a_n, b_n) with kappa_n = kappa0 + w, mu_n = (kappa0 mu0 + w mean) / kappa_n,
    a_n = a0 + w / 2, b_n = b0 + M2 / 2 + kappa0 w (mean - mu0)^2 / (2 kappa_n).
    """
    kappa_n = kappa0 + w
    with np.errstate(divide="ignore", invalid="ignore"):
        mu_n = np.where(kappa_n > 0, (kappa0 * mu0 + w * mean) / kappa_n, mu0)
        shift = np.where(kappa_n > 0, kappa0 * w * (mean - mu0) ** 2 / (2 * kappa_n), 0.0)
    return mu_n, kappa_n, a0 + w / 2, b0 + m2 / 2 + shift


def nig_log_evidence(w, mean, m2, mu0, kappa0, a0, b0) -> np.ndarray:
    """Log marginal likelihood log p(x_1..x_n) of each cell under the NIG prior, elementwise.

    log Gamma(a_n) - log Gamma(a0) + a0 log b0 - a_n log b_n + (log kappa0 - log kappa_n) / 2
    - (w / 2) log(2 pi). With ``kappa0 = 0`` (flat limit) the kappa term is left out: it is
    -inf but does not depend on a0, b0, so the result still ranks variance priors correctly.
    """
    _, kappa_n, a_n, b_n = nig_posterior(w, mean, m2, mu0, kappa0, a0, b0)
    out = gammaln(a_n) - gammaln(a0) + a0 * np.log(b0) - a_n * np.log(b_n) - w / 2 * LOG_2PI
    if np.any(kappa0 > 0):
        out = out + 0.5 * (np.log(kappa0) - np.log(kappa_n))
    return out


class Gaussian(Family):
    """Normal density per class and feature: maximum likelihood, or Bayesian with a
    Normal-Inverse-Gamma prior and Student-t posterior predictive.

    Statistics are per (class, feature) weight, mean and M2 (sum of squared deviations),
    merged with the Chan et al. formula; everything below is computed from the merged
    statistics, so ``fit`` and any chunking of ``partial_fit`` agree.

    * ``estimate="mle"``: variance M2 / w plus a floor ``epsilon = var_smoothing * max_j
      Var(x_j)``; when every feature is constant the floor is ``var_smoothing`` itself.
      ``var_smoothing="auto"`` replaces the ad hoc floor by one hallucinated squared deviation
      ``epsilon`` per class and feature, variance ``(M2 + epsilon) / (w + 1)``, with ``epsilon``
      chosen to maximise the evidence of the data under the matching prior (flat on the mean,
      InvGamma(1/2, epsilon / 2) on the variance). ``(M2 + epsilon) / (w + 1)`` is
      ``1 / E[1 / sigma^2]`` under that posterior. Features without spread within any class
      (constant columns, or columns constant per class) would only drive ``epsilon`` to 0:
      they are left out of the evidence and get the pooled within-class variance
      ``(sum_k M2 + epsilon) / (sum_k w + 1)`` for every class, so a constant feature
      carries no evidence. With no feature left, ``epsilon`` is 1e-9 times the scale.
    * ``estimate="posterior_predictive"``: sigma^2 ~ InvGamma(nu0 / 2, nu0 s0^2 / 2),
      mu | sigma^2 ~ N(mu0, sigma^2 / kappa0) per class and feature; x scores under the
      posterior predictive Student-t with 2 a_n degrees of freedom, location mu_n and
      squared scale b_n (kappa_n + 1) / (a_n kappa_n) (see :func:`nig_posterior`).
    * ``var_pooling="shared"``: one variance per feature for all classes (the pooled
      within-class variance), which makes the log-odds linear in x (LDA with a diagonal
      covariance; the posterior is a logistic regression).

    Parameters
    ----------
    var_smoothing : float or "auto", default=1e-9
    estimate : {"mle", "posterior_predictive"}, default="mle"
    var_pooling : {"per_class", "shared"}, default="per_class"
    mean_prior : float or array of shape (n_features,), optional
        mu0; by default each feature's overall mean (empirical Bayes from the statistics).
    mean_prior_count : float, default=1.0
        kappa0, the prior's weight in observations at ``mean_prior``.
    var_prior : float or array of shape (n_features,), optional
        s0^2, the prior guess of every class's variance; by default each feature's pooled
        within-class variance plus ``epsilon``.
    var_prior_count : float, default=1.0
        nu0, the prior's weight in observations of variance ``var_prior``.
    missing : {"error", "ignore"}, default="error"

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Gaussian, Labels
    >>> fam = Gaussian(var_smoothing=0.0)
    >>> stats = fam.accumulate(np.array([[1.], [3.]]), Labels(np.array([0, 0]), np.ones(2), 1))
    >>> p = fam.finalize(stats); (p["mean"].item(), p["var"].item())
    (2.0, 1.0)
    >>> bayes = Gaussian(estimate="posterior_predictive", mean_prior=0.0, var_prior=1.0)
    >>> p = bayes.finalize(stats); (p["mean"].item(), p["var"].item(), p["dof"].item())
    (1.3333333333333333, 2.518518518518518, 3.0)
    """

    name = "gaussian"
    soft_labels = True  # moments from products with the weights (see accumulate)
    finite_shows_in_result = True
    sparse_ok = False
    statistics = (Moments.at("n_weight", "mean", "m2"),)
    shared_params = ("var_smoothing",)

    def __init__(
        self,
        var_smoothing=1e-9,
        estimate: str = "mle",
        missing="error",
        var_pooling: str = "per_class",
        mean_prior=None,
        mean_prior_count: float = 1.0,
        var_prior=None,
        var_prior_count: float = 1.0,
    ):
        super().__init__(alpha=0.0, estimate=estimate, missing=missing)
        if estimate not in ESTIMATES:
            raise ParameterError(f"Gaussian supports estimate in {ESTIMATES}; got {estimate!r}.")
        if var_pooling not in POOLING:
            raise ParameterError(
                f"Parameter 'var_pooling' must be one of {POOLING}; got {var_pooling!r}."
            )
        if var_pooling == "shared" and estimate == "posterior_predictive":
            raise ParameterError(
                "var_pooling='shared' needs estimate='mle': the Normal-Inverse-Gamma prior is "
                "per class and feature. Use one or the other."
            )
        self.var_smoothing = var_smoothing
        self.var_pooling = var_pooling
        self.mean_prior = mean_prior
        self.mean_prior_count = mean_prior_count
        self.var_prior = var_prior
        self.var_prior_count = var_prior_count

    def get_params(self) -> dict:
        def plain(v):
            return v.tolist() if isinstance(v, np.ndarray) else v

        return {
            "var_smoothing": self.var_smoothing,
            "estimate": self.estimate,
            "missing": self.missing,
            "var_pooling": self.var_pooling,
            "mean_prior": plain(self.mean_prior),
            "mean_prior_count": self.mean_prior_count,
            "var_prior": plain(self.var_prior),
            "var_prior_count": self.var_prior_count,
        }

    def prepare(self, X, feature_names=None, lazy=False):
        if sp.issparse(X):
            raise DataError(
                "GaussianNB needs dense input; got a sparse matrix. Call X.toarray() if it "
                "fits in memory, or use a count family (MultinomialNB, PoissonNB)."
            )
        self.check_finite(X, feature_names, lazy)
        return np.asarray(X) if X.dtype.kind == "f" else np.asarray(X, dtype=np.float64)

    def accumulate(self, X, labels: Labels) -> Stats:
        if isinstance(labels, SoftLabels) and (X.shape[0] == 0 or self._missing(X) is not None):
            # Missing cells: the exact two-pass moments, one class at a time.
            return accumulate_by_class(self.accumulate, self.merge, X, labels)
        # Only inf - inf makes NaN here: input that check_result rejects right after; sums
        # that overflow finite input are refused by the engine's check_overflow.
        with np.errstate(invalid="ignore", over="ignore"):
            return self._moments(X, labels)

    def _moments(self, X, labels: Labels) -> Stats:
        # NaN counts as missing only where missing values are allowed: only then look for it.
        nan = self._missing(X)
        if nan is not None or X.shape[0] == 0:
            return self._two_pass(np.asarray(X, dtype=np.float64), labels, nan)
        # One pass: sums of deviations from the batch's first row and of their squares. The
        # shift keeps a large common offset out of the sums; what remains is cancellation
        # where a class mean lies far (many spreads) from that row, which the sums reveal.
        shift = X[0].astype(np.float64)
        compiled = kernels()
        if compiled is not None and X.flags.c_contiguous and X.dtype in (np.float32, np.float64):
            sum_dev = np.zeros((labels.n_classes, X.shape[1]))
            sum_sq = np.zeros_like(sum_dev)
            if isinstance(labels, SoftLabels):
                # One pass over X, no temporaries: where the products below would build
                # X - shift and its square (EM's M-step, every iteration).
                compiled.soft_moment_sums(X, labels.matrix, shift, sum_dev, sum_sq)
            else:
                compiled.class_moment_sums(
                    X,
                    np.ascontiguousarray(labels.codes),
                    np.ascontiguousarray(labels.weights),
                    shift,
                    sum_dev,
                    sum_sq,
                )
        else:
            dev = np.subtract(X, shift, dtype=np.float64)
            sum_dev = class_sums(dev, labels)
            np.square(dev, out=dev)
            sum_sq = class_sums(dev, labels)
        weight = np.repeat(labels.class_weight[:, None], X.shape[1], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_dev = np.where(weight > 0, sum_dev / weight, 0.0)
        m2 = sum_sq - sum_dev * mean_dev
        mean = np.where(weight > 0, shift + mean_dev, 0.0)  # an empty class has no mean
        stats = {"n_weight": weight, "mean": mean, "m2": np.maximum(m2, 0.0)}
        # Squares of deviations from the shift can also overflow where those from the class
        # means do not (a huge first row): such columns are summed again too.
        inexact = np.flatnonzero(
            np.any((sum_sq > ONE_PASS_MAX_RATIO * m2) | ~np.isfinite(m2), axis=0)
        )
        if inexact.size:
            exact = accumulate_by_class(
                lambda cols, hard: self._two_pass(cols, hard, None),
                self.merge,
                np.asarray(X[:, inexact], dtype=np.float64),
                labels,
            )
            stats["mean"][:, inexact] = exact["mean"]
            stats["m2"][:, inexact] = exact["m2"]
        return stats

    @staticmethod
    def _two_pass(X, labels: Labels, nan) -> Stats:
        """Class means, then squared deviations from them: exact whatever the offsets."""
        if X.shape[0] == 0:
            shift = np.zeros(X.shape[1])
        else:
            shift = X[0] if nan is None else np.where(nan[0], 0.0, X[0])
        dev = np.subtract(X, shift)
        if nan is None:
            weight = np.repeat(labels.class_weight[:, None], X.shape[1], axis=1)
        else:
            weight = class_sums(~nan, labels)
            dev[nan] = 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(weight > 0, shift + class_sums(dev, labels) / weight, 0.0)
        # In place from here (np.take, not fancy indexing, which is several times slower):
        # dev becomes x - mean of the row's class, then its square.
        dev -= np.take(mean - shift, labels.codes, axis=0)
        if nan is not None:
            dev[nan] = 0.0
        np.square(dev, out=dev)
        return {"n_weight": weight, "mean": mean, "m2": class_sums(dev, labels)}

    def n_samples(self, stats):
        return stats["n_weight"].max(axis=1, initial=0.0)

    overflow_reason = "squared deviations of values beyond about 1e150 exceed it"

    def overflowed(self, stats: Stats) -> int | None:
        """First feature whose moments, or the pooled moments ``finalize`` forms from them,
        are not finite (squares of deviations past ~1.3e154 overflow float64)."""
        with np.errstate(over="ignore", invalid="ignore"):
            total_w, total_mean, total_m2 = self.pooled(stats)
            bad = ~(
                np.isfinite(stats["n_weight"]).all(axis=0)
                & np.isfinite(stats["mean"]).all(axis=0)
                & np.isfinite(stats["m2"].sum(axis=0))
                & np.isfinite(total_w + total_mean + total_m2)
            )
        return int(np.argmax(bad)) if bad.any() else None

    def observed_weight(self, stats):
        return stats["n_weight"].sum(axis=0)

    @staticmethod
    def pooled(stats: Stats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Weight, mean and M2 per feature over all classes, each of shape (n_features,)."""
        w, mean, m2 = stats["n_weight"][0], stats["mean"][0], stats["m2"][0]
        for k in range(1, stats["n_weight"].shape[0]):  # bounded by the number of classes
            w, mean, m2 = merge_moments(
                w, mean, m2, stats["n_weight"][k], stats["mean"][k], stats["m2"][k]
            )
        return w, mean, m2

    def _check_smoothing(self) -> None:
        vs = self.var_smoothing
        if isinstance(vs, str):
            if vs != "auto":
                raise ParameterError(
                    f"Parameter 'var_smoothing' must be a non-negative number or 'auto'; got "
                    f"{vs!r}."
                )
            if self.estimate != "mle":
                raise ParameterError(
                    "var_smoothing='auto' applies to estimate='mle'; the posterior predictive "
                    "already smooths the variance through its prior (set var_prior and "
                    "var_prior_count)."
                )
        elif not np.isfinite(vs) or vs < 0:
            raise ParameterError(f"Parameter 'var_smoothing' must be non-negative; got {vs!r}.")

    def finalize(self, stats: Stats) -> Params:
        self._check_smoothing()
        w, mean, m2 = stats["n_weight"], stats["mean"], stats["m2"]
        total_w, total_mean, total_m2 = self.pooled(stats)
        # Within-class pooled statistics: what one variance shared by all classes sees.
        within_w, within_m2 = w.sum(axis=0), m2.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            total_var = np.where(total_w > 0, total_m2 / total_w, 0.0)
            within_var = np.where(
                within_w > 0, within_m2 / np.where(within_w > 0, within_w, 1), 0.0
            )
        largest = total_var.max(initial=0.0)
        scale = largest if largest > 0 else 1.0
        if self.estimate == "posterior_predictive":
            return self._predictive(stats, total_mean, within_var, self.var_smoothing * scale)
        if self.var_pooling == "shared":
            # Every class sees the pooled within-class statistics of its feature.
            w_eff, m2_eff = np.broadcast_to(within_w, w.shape), np.broadcast_to(within_m2, w.shape)
            fallback = within_var
        else:
            w_eff, m2_eff, fallback = w, m2, total_var
        if self.var_smoothing == "auto":
            # A feature with no spread within any class (constant, or constant per class)
            # says only "epsilon -> 0", the degenerate end of the evidence, and with a variance
            # epsilon / (w_k + 1) per class its density would differ by class size alone: a
            # constant column would vote for the larger class. Such features are left out of
            # the evidence and get their pooled within-class variance, the same for every
            # class, so that a constant feature's terms cancel across classes.
            flat = self.no_spread(mean, within_var, total_var)
            # A shared variance is one cell per feature, not one per class.
            cells = slice(0, 1) if self.var_pooling == "shared" else slice(None)
            informed = ~flat
            c = (
                maximise_log_scalar(
                    self._floor_evidence(
                        w_eff[cells][:, informed], m2_eff[cells][:, informed], scale
                    ),
                    *AUTO_FLOOR_RANGE,
                )
                if informed.any()
                else AUTO_FLOOR_RANGE[0]  # no feature informs epsilon: the default floor
            )
            epsilon = scale * c
            var = (m2_eff + epsilon) / (w_eff + 1.0)
            var[:, flat] = (within_m2[flat] + epsilon) / (within_w[flat] + 1.0)
        else:
            epsilon = self.var_smoothing * scale
            with np.errstate(divide="ignore", invalid="ignore"):
                var = np.where(w_eff > 0, m2_eff / np.where(w_eff > 0, w_eff, 1.0), fallback)
            var = var + epsilon
        mean = np.where(w > 0, mean, total_mean)
        if np.any(var <= 0):
            k, j = np.argwhere(var <= 0)[0]
            raise ParameterError(
                f"Class index {k}, feature index {j} has zero variance and var_smoothing=0, "
                "so its density is a point mass. Set var_smoothing > 0 (default 1e-9)."
            )
        return {
            "mean": mean,
            "var": np.array(var),
            "center": total_mean,
            "epsilon": np.asarray(epsilon),
        }

    @staticmethod
    def no_spread(mean, within_var, total_var) -> np.ndarray:
        """Features whose values do not vary within any class, up to rounding.

        Moments of a column that is constant within its classes keep squared deviations of a
        few units in the last place of the column's magnitude (merges of chunk means that
        differ in their last bit); :data:`NO_SPREAD_RTOL` of that magnitude separates them
        from real spread.
        """
        magnitude = np.abs(mean).max(axis=0, initial=0.0) + np.sqrt(total_var)
        return within_var <= (NO_SPREAD_RTOL * magnitude) ** 2

    @staticmethod
    def _floor_evidence(w: np.ndarray, m2: np.ndarray, scale: float):
        """``c -> log evidence`` with a flat prior on each mean and InvGamma(1/2, c scale / 2) on
        each variance (one hallucinated squared deviation of size ``c * scale``); concave in
        log c, so the maximiser is unique. Terms that do not depend on c are left out."""
        a_n = 0.5 + w / 2

        def fun(c: float) -> float:
            b0 = c * scale / 2
            return float(np.sum(0.5 * np.log(b0) - a_n * np.log(b0 + m2 / 2)))

        return fun

    def _predictive(self, stats: Stats, total_mean, within_var, epsilon: float) -> Params:
        """Student-t posterior predictive parameters under the Normal-Inverse-Gamma prior."""
        w, mean, m2 = stats["n_weight"], stats["mean"], stats["m2"]
        d = w.shape[1]
        kappa0, nu0 = float(self.mean_prior_count), float(self.var_prior_count)
        if not (np.isfinite(kappa0) and kappa0 > 0 and np.isfinite(nu0) and nu0 > 0):
            raise ParameterError(
                "Parameters 'mean_prior_count' and 'var_prior_count' must be positive (they are "
                f"prior observations); got {self.mean_prior_count!r} and "
                f"{self.var_prior_count!r}."
            )
        mu0 = (
            total_mean
            if self.mean_prior is None
            else self._per_feature(self.mean_prior, d, "mean_prior", positive=False)
        )
        s0 = (
            within_var + epsilon
            if self.var_prior is None
            else self._per_feature(self.var_prior, d, "var_prior", positive=True)
        )
        if np.any(s0 <= 0):
            j = int(np.flatnonzero(s0 <= 0)[0])
            raise ParameterError(
                f"Feature index {j} is constant, so the default var_prior (its within-class "
                "variance) is zero. Set var_smoothing > 0 or give var_prior."
            )
        a0, b0 = nu0 / 2, nu0 * s0 / 2
        mu_n, kappa_n, a_n, b_n = nig_posterior(w, mean, m2, mu0, kappa0, a0, b0)
        return {
            "mean": mu_n,
            "var": b_n * (kappa_n + 1) / (a_n * kappa_n),
            "dof": 2 * a_n,
            "center": total_mean,
            "epsilon": np.asarray(epsilon),
        }

    @staticmethod
    def _per_feature(value, d: int, name: str, positive: bool) -> np.ndarray:
        v = np.asarray(value, dtype=np.float64)
        if v.ndim > 1 or (v.ndim == 1 and v.size != d):
            raise ParameterError(
                f"Parameter {name!r} must be a scalar or have one value per feature ({d}); got "
                f"shape {v.shape}."
            )
        if not np.all(np.isfinite(v)) or (positive and np.any(v <= 0)):
            raise ParameterError(
                f"Parameter {name!r} must be finite{' and positive' if positive else ''}; got "
                f"{value!r}."
            )
        return np.broadcast_to(v, (d,)).astype(np.float64)

    def check_result(self, X, result, feature_names=None) -> None:
        super().check_result(X, result, feature_names)
        if isinstance(result, dict):
            return  # statistics: :meth:`overflowed` judges those after the merge
        with np.errstate(invalid="ignore"):
            bad_rows = ~np.isfinite(result).all(axis=1)
        if not bad_rows.any():
            return
        # X is finite here, so a non-finite score is an overflow: a value whose squared
        # distance from the class means exceeds float64. Name the largest cell of the first
        # such row rather than answer with a uniform posterior.
        row = int(np.flatnonzero(bad_rows)[0])
        x = np.asarray(X[row], dtype=np.float64)
        col = int(np.nanargmax(np.abs(x)))
        mask = np.zeros(X.shape, dtype=bool)
        mask[row, col] = True
        raise_at(
            mask,
            X,
            "values whose squared distance from the training mean fits in float64 "
            "(within about 1e154 of it)",
            "Rescale the column (e.g. standardise or log-transform it) or drop the row.",
            type(self).__name__,
            feature_names,
        )

    def joint_log_likelihood(self, params: Params, X) -> np.ndarray:
        # As in accumulate: NaN from inf - inf only for input that check_result rejects, and
        # an overflow (a value ~1e154 away from the means) is named there too.
        with np.errstate(invalid="ignore", over="ignore"):
            if "dof" in params:
                return self._student_jll(params, X)
            return self._normal_jll(params, X)

    def scoring_params(self, params: Params) -> Params:
        if "dof" in params:
            return params
        # -1/2 sum_j [log 2 pi v + (x - m)^2 / v] expanded into two matrix products over all
        # classes: xc^2 @ (-1/2v).T + xc @ (mc/v).T + const, with xc = x - c and mc = m - c.
        # Centring on the overall mean c first keeps large offsets from cancelling.
        prec = 1.0 / params["var"]
        mc = params["mean"] - params["center"]
        const = -0.5 * (mc**2 * prec + np.log(params["var"]) + LOG_2PI)
        return {
            **params,
            "w_linear": mc * prec,
            "w_square": -0.5 * prec,
            "w_const": const,
            "const": const.sum(axis=1),
        }

    def _normal_jll(self, params: Params, X) -> np.ndarray:
        # The temporaries are contiguous and filled in place (ufuncs on strided views run
        # several times slower). numpy's products release the GIL, so chunks score side by
        # side on the worker threads (scipy's BLAS wrappers, which could add the second
        # product into the first, hold it: measured slower with two threads).
        params = self.ready(params)
        nan = self._missing(X)
        Xc = np.subtract(X, params["center"], dtype=np.float64)
        if nan is not None:
            Xc[nan] = 0.0
        jll = dot_classes(params["w_linear"], Xc)
        np.square(Xc, out=Xc)
        jll += dot_classes(params["w_square"], Xc)
        jll += params["const"] if nan is None else dot_classes(params["w_const"], ~nan)
        return jll

    @staticmethod
    def _student_log_const(params: Params) -> np.ndarray:
        nu, s2 = params["dof"], params["var"]
        return gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi * s2)

    def _student_jll(self, params: Params, X) -> np.ndarray:
        # The log1p of a quadratic does not expand into products, so score one class at a
        # time: the loop is bounded by the number of classes and keeps temporaries at n x d.
        nan = self._missing(X)
        X = np.asarray(X, dtype=np.float64)
        nu, s2, mu = params["dof"], params["var"], params["mean"]
        const = self._student_log_const(params)
        out = np.empty((X.shape[0], mu.shape[0]))
        for k in range(mu.shape[0]):
            t = np.log1p(np.square(X - mu[k]) / (nu[k] * s2[k]))
            t *= -(nu[k] + 1) / 2
            t += const[k]
            if nan is not None:
                t[nan] = 0.0
            out[:, k] = t.sum(axis=1)
        return out

    def log_likelihood_terms(self, params, X) -> np.ndarray:
        x = np.asarray(X, dtype=np.float64)[:, None, :]
        if "dof" in params:
            nu, s2 = params["dof"][None], params["var"][None]
            t = self._student_log_const(params)[None] - (nu + 1) / 2 * np.log1p(
                (x - params["mean"][None]) ** 2 / (nu * s2)
            )
        else:
            t = -0.5 * (
                LOG_2PI
                + np.log(params["var"])[None]
                + (x - params["mean"][None]) ** 2 / params["var"][None]
            )
        return np.where(np.isnan(x), 0.0, t)

    def example_data(self, rng, n_samples, n_features):
        X = rng.normal(size=(n_samples, n_features)) * rng.uniform(0.5, 3, size=n_features)
        return X + rng.normal(size=n_features) * 5

    def reference_log_density(self, params, X):
        from scipy import stats

        x, mean, scale = X[:, None, :], params["mean"][None], np.sqrt(params["var"])[None]
        if "dof" in params:  # the posterior predictive Student-t
            return stats.t.logpdf(x, params["dof"][None], mean, scale)
        return stats.norm.logpdf(x, mean, scale)

    # -- linear form ---------------------------------------------------------------------------
    def is_linear(self, params: Params) -> bool:
        """Linear exactly when every class has the same variances (``var_pooling="shared"``):
        the quadratic terms -x^2 / 2v are then the same for all classes and cancel."""
        var = params["var"]
        return "dof" not in params and bool(np.all(var == var[:1]))

    def linear_weights(self, params: Params):
        # -(x - m)^2 / 2v = x m / v - m^2 / 2v - x^2 / 2v; the last term (and log 2 pi v) is
        # shared by all classes when v is.
        mean, var = params["mean"], params["var"]
        return mean / var, -0.5 * (mean**2 / var).sum(axis=1)

    def feature_means(self, stats, params, class_count):
        """Class means relative to the overall mean (the reference point of the slopes)."""
        return params["mean"] - params["center"]

    def feature_weights(self, params: Params) -> np.ndarray:
        """Slope of each class score at the feature's overall mean: exactly the linear weight
        (up to a shift shared by all classes) when variances are shared, a local slope
        otherwise."""
        gap = params["mean"] - params["center"]
        if "dof" in params:
            nu, s2 = params["dof"], params["var"]
            return (nu + 1) * gap / (nu * s2 + gap**2)
        return gap / params["var"]
