"""Continuous features beyond the bell curve: value counts on a bounded, mergeable grid, read
as a kernel density (``"kde"``), as a supervised or equal-frequency discretisation
(``"binned"``), or per column whichever of those and the normal density the statistics
favour (``"density"``, ``reading="auto"``).

The grid
--------
Per feature the statistics keep the range ``[lo, hi]`` of the values seen (rows of positive
weight, missing cells left out) and, per class, the weight of the values in each of ``bins``
equal bins. The bins are a pure function of ``[lo, hi]``: their width is a power of two,
``2**level``, with ``level`` the smallest integer at which ``floor(hi / 2**level) -
floor(lo / 2**level) < bins``, and the first bin is the one holding ``lo``. A bin at one
level is exactly the union of two bins one level finer (powers of two nest), so statistics on
a finer grid move to a coarser one by adding neighbouring bins, with no rounding. Merging two
batches takes the union of their ranges, whose grid is at least as coarse as either's, and
moves both onto it: the result depends only on the values, never on how they were split or
in which order they arrived, so ``fit`` equals ``partial_fit`` over any chunking equals any
tree of merged shards, exactly (up to the rounding of the weight sums).

The approximation: every value is replaced by the centre of its bin, at most half a bin width
``(hi - lo) / bins`` (to within a factor of two) from it. A feature whose values all lie within
about ``2**-30`` of its magnitude of each other falls into one bin (the bin indices stay exact
integers in float64). Memory per class and feature is ``bins`` weights, whatever the number of
rows. Unlearning keeps the range, and so the grid, of the rows learned: after unlearning the
rows holding a feature's extreme values the model equals a fit on the remaining rows moved
onto the grid of all of them (the same counts, coarser bins), not a fresh fit.

Exact per-class moments (weight, mean, M2, as the Gaussian family keeps them) ride along: they
give the kernel's bandwidth without binning error and the normal reading of ``"auto"``.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp

from .._accel import kernels
from ..exceptions import DataError, ParameterError
from ._arrays import missing_mask, subtract_nonnegative
from ._base import Family, Params, Stats
from ._estimates import ESTIMATES, check_alpha, pseudo_count
from ._grid import bin_index, grid_of, regrid
from ._intervals import binned_terms, interval_widths, intervals
from ._kde import LOG_2PI, kde_leave_one_out, kde_tables, kde_terms
from ._labels import Labels
from .gaussian import Gaussian
from .statistics import ClassSums, Moments, ValueRange

READINGS = ("gaussian", "kde", "binned")
#: ``reading="auto"``: a row's leave-one-out log-density counts as at least this, so that a
#: row its class cannot explain once it is left out costs a bounded amount.
LOO_FLOOR = -700.0
BANDWIDTHS = ("silverman", "scott")
DISCRETIZE = ("mdl", "equal_frequency")
MOMENTS = ("n_weight", "mean", "m2")


# -- the family -----------------------------------------------------------------------------
class Density(Family):
    """Continuous features as counts on a bounded, mergeable grid, read per column as a normal
    density, a kernel density or a discretisation -- whichever the statistics favour
    (``reading="auto"``), or one fixed reading.

    Statistics per class and feature: the exact moments of the Gaussian family, and the
    weight in each of ``bins`` grid bins; per feature the range seen (see the module
    docstring for the grid and its approximation). Readings, made at finalize:

    * ``"kde"``: a Gaussian kernel density per class, ``f(x) = sum_b c_b N(x; t_b, h^2) / n``
      over bin centres ``t_b`` with weights ``c_b``. The bandwidth ``h`` is
      ``sigma * n**(-1/5)`` (``"scott"``), ``sigma * (3 n / 4)**(-1/5)`` (``"silverman"``, the
      default), or ``bandwidth * sigma`` for a number, with ``sigma`` the class's exact
      standard deviation (``ddof=1``) -- scipy's ``gaussian_kde`` rules -- and never below
      one bin width. The log-density is computed once on the bin centres (plus half the
      bins again on each side) and interpolated linearly; beyond that lattice it continues as
      the tail of a Gaussian of bandwidth ``h``. Errors against the exact kernel density of
      the training values: binning moves each value by at most half a bin ``w``, and
      interpolation adds about ``(w / h)**2 / 8`` to the log-density; both vanish as
      ``bins`` grows. Where the kernel sum underflows (over 38 bandwidths from every value)
      the nearest bins' kernel stands in for it, a lower bound.
    * ``"binned"``: cut points between grid bins by Fayyad and Irani's MDL criterion on the
      class counts (``discretize="mdl"``; no cut at all when the feature does not tell the
      classes apart) or at equal shares of the pooled weight (``"equal_frequency"``,
      ``n_intervals`` of them), then a Dirichlet-smoothed categorical over the intervals,
      ``P(i | k) = (n_ki + alpha) / (n_k + I alpha)`` (``estimate`` as the discrete
      families). Scored as the density ``P(i | k) / width_i`` (piecewise constant, intervals
      clipped to the bins holding data); values beyond the range fall in the end intervals.
    * ``"gaussian"``: the normal density of the Gaussian family from the exact moments.
    * ``"auto"``: per feature, the reading with the largest leave-one-out log-likelihood of
      the feature given the class, ``sum_i log f_{y_i}(x_ij)`` with each row's own weight
      taken out of its class's density (the generative fit naive Bayes is built on),
      computed from the counts alone: rows at their bin centres, bandwidths and cut points
      those of all rows. ``params["reading"]`` holds the choice (an index into
      ``READINGS``) and ``params["loo_score"]`` the scores, (n_features, 3);
      ``MixedNB.summary()`` reports the choice.

    Parameters
    ----------
    reading : {"auto", "kde", "binned", "gaussian"}, default="auto"
    bins : int, default=256
        Grid bins per feature: the memory per class and feature and the resolution.
    bandwidth : {"silverman", "scott"} or float, default="silverman"
    discretize : {"mdl", "equal_frequency"}, default="mdl"
    n_intervals : int, default=10
        Intervals of ``discretize="equal_frequency"``.
    alpha : float, default=1.0
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    var_smoothing : float, default=1e-9
        Variance floor of the normal reading (as the Gaussian family).
    missing : {"error", "ignore"}, default="error"

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Density, Labels
    >>> fam = Density(reading="binned", bins=8)
    >>> X = np.array([[0.0], [1.0], [2.0], [5.0], [6.0], [7.0]])
    >>> stats = fam.accumulate(X, Labels(np.array([0, 0, 0, 1, 1, 1]), np.ones(6), 2))
    >>> stats["n_grid"].tolist()  # bins of width 1 from 0
    [[1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]]
    >>> params = fam.finalize(stats)
    >>> params["n_intervals"].tolist()  # one MDL cut, between 2 and 5
    [2]
    >>> np.exp(fam.log_likelihood_terms(params, np.array([[1.5]]))).round(3).tolist()
    [[[0.2], [0.05]]]
    """

    name = "density"
    sparse_ok = False
    shared_params: tuple[str, ...] = ("alpha", "estimate", "var_smoothing")
    #: The kernel reading interpolates a precomputed log-density: its terms match the exact
    #: kernel sum over the bin centres (``reference_log_density``) to about this much.
    reference_rtol = 1e-3

    def __init__(
        self,
        reading: str = "auto",
        bins: int = 256,
        bandwidth="silverman",
        discretize: str = "mdl",
        n_intervals: int = 10,
        alpha=1.0,
        estimate: str = "posterior_mean",
        var_smoothing=1e-9,
        missing: str = "error",
    ):
        super().__init__(alpha=alpha, estimate=estimate, missing=missing)
        if reading not in ("auto", *READINGS):
            raise ParameterError(
                f"Parameter 'reading' must be one of {('auto', *READINGS)}; got {reading!r}."
            )
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 2:
            raise ParameterError(f"Parameter 'bins' must be an integer >= 2; got {bins!r}.")
        if isinstance(bandwidth, str):
            if bandwidth not in BANDWIDTHS:
                raise ParameterError(
                    f"Parameter 'bandwidth' must be one of {BANDWIDTHS} or a positive number "
                    f"(a factor of each class's standard deviation); got {bandwidth!r}."
                )
        elif not (
            isinstance(bandwidth, (int, float, np.integer, np.floating))
            and not isinstance(bandwidth, bool)
            and np.isfinite(bandwidth)
            and bandwidth > 0
        ):
            raise ParameterError(
                f"Parameter 'bandwidth' must be one of {BANDWIDTHS} or a positive number; got "
                f"{bandwidth!r}."
            )
        if discretize not in DISCRETIZE:
            raise ParameterError(
                f"Parameter 'discretize' must be one of {DISCRETIZE}; got {discretize!r}."
            )
        if (
            isinstance(n_intervals, bool)
            or not isinstance(n_intervals, (int, np.integer))
            or n_intervals < 1
        ):
            raise ParameterError(
                f"Parameter 'n_intervals' must be a positive integer; got {n_intervals!r}."
            )
        if estimate not in ESTIMATES:
            raise ParameterError(
                f"Parameter 'estimate' must be one of {ESTIMATES}; got {estimate!r}."
            )
        self.reading = reading
        self.bins = int(bins)
        # The Gaussian moments, a grid of ``bins`` counts per column, and the range that
        # places each column's grid.
        self.statistics = (
            Moments.at(*MOMENTS),
            ClassSums.at("n_grid", per_feature=self.bins),
            ValueRange.at("lo", "hi"),
        )
        self.bandwidth = bandwidth if isinstance(bandwidth, str) else float(bandwidth)
        self.discretize = discretize
        self.n_intervals = int(n_intervals)
        self.var_smoothing = var_smoothing

    def get_params(self) -> dict:
        return {
            "reading": self.reading,
            "bins": self.bins,
            "bandwidth": self.bandwidth,
            "discretize": self.discretize,
            "n_intervals": self.n_intervals,
            "alpha": self.alpha,
            "estimate": self.estimate,
            "var_smoothing": self.var_smoothing,
            "missing": self.missing,
        }

    @property
    def _readings(self) -> tuple[str, ...]:
        return READINGS if self.reading == "auto" else (self.reading,)

    def _gaussian(self) -> Gaussian:
        return Gaussian(var_smoothing=self.var_smoothing, missing=self.missing)

    # -- input ------------------------------------------------------------------------------
    def prepare(self, X, feature_names=None, lazy=False):
        if sp.issparse(X):
            raise DataError(
                f"The {self.name} family needs dense input; got a sparse matrix. Call "
                "X.toarray() if it fits in memory."
            )
        X = np.asarray(X)
        X = X if X.dtype.kind == "f" else X.astype(np.float64)
        self.check_finite(X, feature_names)
        return X

    # -- statistics -------------------------------------------------------------------------
    def _counts(self, stats: Stats) -> np.ndarray:
        K, d = stats["n_weight"].shape
        return stats["n_grid"].reshape(K, d, self.bins)

    @staticmethod
    def _has_range(stats: Stats) -> np.ndarray:
        return stats["n_weight"].sum(axis=0) > 0

    def accumulate(self, X, labels: Labels) -> Stats:
        X = np.asarray(X)
        X = X if X.dtype in (np.float32, np.float64) else X.astype(np.float64)
        d = X.shape[1]
        K, B = labels.n_classes, self.bins
        stats = self._gaussian().accumulate(X, labels)
        # Only rows of positive weight set the range: a row of weight zero leaves no trace.
        positive = labels.weights > 0
        nan = missing_mask(X)
        valid: np.ndarray | None = None
        if nan is None and positive.all():  # the usual batch: plain column extremes
            seen = np.full(d, X.shape[0] > 0)
            lo = X.min(axis=0, initial=np.inf).astype(np.float64)
            hi = X.max(axis=0, initial=-np.inf).astype(np.float64)
        else:
            valid = positive[:, None] if nan is None else ~nan & positive[:, None]
            valid = np.broadcast_to(valid, X.shape)
            lo = np.where(valid, X, np.inf).min(axis=0, initial=np.inf).astype(np.float64)
            hi = np.where(valid, X, -np.inf).max(axis=0, initial=-np.inf).astype(np.float64)
            seen = np.asarray(valid.any(axis=0))
        lo, hi = np.where(seen, lo, 0.0), np.where(seen, hi, 0.0)
        level, start = grid_of(lo, hi, B)
        compiled = kernels()
        if compiled is not None and X.flags.c_contiguous:
            # One pass over the cells, no (n, d) temporaries of keys and weights.
            grid = np.zeros((K, d * B))
            compiled.grid_counts(
                X,
                np.ascontiguousarray(labels.codes, dtype=np.intp),
                np.ascontiguousarray(labels.weights),
                np.ldexp(1.0, (-level).astype(np.int32)),
                start.astype(np.float64),
                grid,
            )
        else:
            valid = np.ones(X.shape, dtype=bool) if valid is None else valid
            index = bin_index(np.where(valid, X, lo), level) - start
            keys = labels.codes[:, None] * (d * B) + np.arange(d) * B + index.astype(np.intp)
            weight = np.where(valid, labels.weights[:, None], 0.0)
            grid = np.bincount(keys.ravel(), weights=weight.ravel(), minlength=K * d * B)
        return {**stats, "n_grid": grid.reshape(K, d * B), "lo": lo, "hi": hi}

    def _common_range(self, a: Stats, b: Stats) -> tuple[np.ndarray, np.ndarray]:
        ra, rb = self._has_range(a), self._has_range(b)
        both = ra & rb
        lo = np.where(both, np.minimum(a["lo"], b["lo"]), np.where(ra, a["lo"], b["lo"]))
        hi = np.where(both, np.maximum(a["hi"], b["hi"]), np.where(ra, a["hi"], b["hi"]))
        return np.where(ra | rb, lo, 0.0), np.where(ra | rb, hi, 0.0)

    def _on_grid(self, stats: Stats, grid) -> np.ndarray:
        own = grid_of(stats["lo"], stats["hi"], self.bins)
        return regrid(self._counts(stats), own, grid)

    def merge(self, a: Stats, b: Stats) -> Stats:
        lo, hi = self._common_range(a, b)
        grid = grid_of(lo, hi, self.bins)
        counts = self._on_grid(a, grid) + self._on_grid(b, grid)
        return {
            **self.statistics[0].add(a, b),
            "n_grid": counts.reshape(counts.shape[0], -1),
            "lo": lo,
            "hi": hi,
        }

    def subtract(self, a, b, class_names=None, feature_names=None) -> Stats:
        from ._arrays import describe_cell

        ra, rb = self._has_range(a), self._has_range(b)
        outside = rb & (~ra | (b["lo"] < a["lo"]) | (b["hi"] > a["hi"]))
        if outside.any():
            j = int(np.flatnonzero(outside)[0])
            where = describe_cell(0, j, None, feature_names).split(", ", 1)[-1]
            raise DataError(
                f"Cannot unlearn: the rows to unlearn hold values of {where} from "
                f"{b['lo'][j]:.6g} to {b['hi'][j]:.6g}, outside the range the model learned "
                f"({a['lo'][j]:.6g} to {a['hi'][j]:.6g}). Some of these rows were never "
                "learned; pass only rows the model was trained on."
            )
        moments = self.statistics[0].subtract(a, b, class_names, feature_names)
        grid = grid_of(a["lo"], a["hi"], self.bins)
        counts = subtract_nonnegative(
            self._counts(a), self._on_grid(b, grid), "n_grid", class_names, feature_names
        )
        # A feature left without weight has no range: the identity's, so merges ignore it.
        left = moments["n_weight"].sum(axis=0) > 0
        return {
            **moments,
            "n_grid": counts.reshape(counts.shape[0], -1),
            "lo": np.where(left, a["lo"], 0.0),
            "hi": np.where(left, a["hi"], 0.0),
        }

    def n_samples(self, stats):
        return stats["n_weight"].max(axis=1, initial=0.0)

    def observed_weight(self, stats):
        return stats["n_weight"].sum(axis=0)

    # -- parameters -------------------------------------------------------------------------
    def finalize(self, stats: Stats) -> Params:
        K, d = stats["n_weight"].shape
        B = self.bins
        counts = self._counts(stats)
        level, start = grid_of(stats["lo"], stats["hi"], B)
        width = np.ldexp(1.0, level.astype(np.int32))
        gauss = self._gaussian().finalize({k: stats[k] for k in MOMENTS})
        params: Params = {
            "level": level,
            "start": start,
            "mean": gauss["mean"],
            "var": gauss["var"],
            "center": gauss["center"],
            "epsilon": gauss["epsilon"],
        }
        readings = self._readings
        n = counts.sum(axis=2)  # (K, d) observed weight per class and feature
        if "kde" in readings:
            h = self._bandwidths(stats, width)
            params["bandwidth"] = h
            params["kde_log"] = kde_tables(counts, h, width)
            params["kde_weights"] = counts
        else:
            params["bandwidth"] = np.zeros((K, d))
            params["kde_log"] = np.zeros((K, d, 0))
            params["kde_weights"] = np.zeros((K, d, 0))
        if "binned" in readings:
            params.update(
                intervals(counts, self.discretize, self.n_intervals, self.alpha, self.estimate)
            )
        else:
            params.update(
                interval=np.zeros((d, 0), dtype=np.int64),
                n_intervals=np.zeros(d, dtype=np.int64),
                occupied=np.zeros((d, 2), dtype=np.int64),
                interval_log_prob=np.zeros((K, d, 0)),
            )
        if len(readings) == 1:
            choice = np.full(d, READINGS.index(readings[0]), dtype=np.int64)
        else:
            scores = np.stack([self._loo_score(r, params, counts, n, width) for r in READINGS])
            choice = np.argmax(scores, axis=0).astype(np.int64)
            params["loo_score"] = scores.T
        params["reading"] = choice
        return params

    def _bandwidths(self, stats: Stats, width: np.ndarray) -> np.ndarray:
        """Bandwidth per class and feature (scipy's rules on the exact moments), at least one
        bin width."""
        n = stats["n_weight"]
        with np.errstate(divide="ignore", invalid="ignore"):
            sigma = np.sqrt(np.where(n > 1, stats["m2"] / np.where(n > 1, n - 1, 1.0), 0.0))
            if self.bandwidth == "scott":
                factor = np.where(n > 0, n, 1.0) ** -0.2
            elif self.bandwidth == "silverman":
                factor = np.where(n > 0, 0.75 * n, 1.0) ** -0.2
            else:
                factor = np.full_like(n, self.bandwidth)
        return np.maximum(factor * sigma, width[None, :])

    def _loo_score(self, reading, params, counts, n, width) -> np.ndarray:
        """Leave-one-out log-likelihood of each feature's values given the class, from the
        counts: each row at its bin centre, scored by its class's density without it."""
        K, d, B = counts.shape
        centre = (params["start"][None, :, None] + np.arange(B) + 0.5) * width[None, :, None]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if reading == "gaussian":
                mean, var = params["mean"][..., None], params["var"][..., None]
                nn = n[..., None]
                mean_out = (nn * mean - centre) / np.maximum(nn - 1, 1e-300)
                m2_out = np.maximum(
                    var * nn - (centre - mean) ** 2 * nn / np.maximum(nn - 1, 1e-300), 0.0
                )
                var_out = m2_out / np.maximum(nn - 1, 1e-300) + params["epsilon"]
                out = -0.5 * (LOG_2PI + np.log(var_out) + (centre - mean_out) ** 2 / var_out)
            elif reading == "kde":
                out = kde_leave_one_out(counts, params["bandwidth"], width)
            else:
                log_p = params["interval_log_prob"]
                widths = interval_widths(params) * width[:, None]
                idx = params["interval"]
                log_w = np.log(np.take_along_axis(widths, idx, axis=1))[None]
                full = np.take_along_axis(log_p, np.broadcast_to(idx, (K, d, B)), axis=2) - log_w
                alpha = check_alpha(self.alpha, d, self.estimate)
                a = pseudo_count(alpha, self.estimate)[None, :, None]
                per = np.exp(full + log_w) * (
                    n[..., None] + params["n_intervals"][None, :, None] * a
                )
                num = per - 1.0
                den = n[..., None] - 1.0 + params["n_intervals"][None, :, None] * a
                out = np.log(np.maximum(num, 1e-300)) - np.log(np.maximum(den, 1e-300)) - log_w
        # A row whose class has nothing left once it is out (a class's only row) cannot be
        # scored: it counts as LOO_FLOOR, like a row its class's density cannot explain.
        with np.errstate(invalid="ignore"):
            out = np.maximum(np.where(np.isnan(out), -np.inf, out), LOO_FLOOR)
        return np.where(counts > 0, counts * out, 0.0).sum(axis=(0, 2))

    # -- scoring ----------------------------------------------------------------------------
    def scoring_params(self, params: Params) -> Params:
        out = dict(params)
        choice = params["reading"]
        out["columns"] = [np.flatnonzero(choice == r) for r in range(len(READINGS))]
        gauss_cols = out["columns"][0]
        out["gaussian"] = self._gaussian().ready(
            {
                "mean": params["mean"][:, gauss_cols],
                "var": params["var"][:, gauss_cols],
                "center": params["center"][gauss_cols],
                "epsilon": params["epsilon"],
            }
        )
        table = params["kde_log"]
        if table.shape[2]:
            slope = np.zeros_like(table)
            slope[..., :-1] = np.diff(table, axis=2)
            out["kde_slope"] = slope
            width = np.ldexp(1.0, params["level"].astype(np.int32))
            # Beyond the lattice: the tail of a Gaussian of bandwidth h, in lattice units.
            out["kde_curve"] = (width[None, :] / params["bandwidth"]) ** 2 / 2
        if params["interval_log_prob"].shape[2]:
            width = np.ldexp(1.0, params["level"].astype(np.int32))
            log_w = np.log(interval_widths(params) * width[:, None])
            idx = params["interval"]
            K, d, _ = params["interval_log_prob"].shape
            out["bin_log"] = np.take_along_axis(
                params["interval_log_prob"] - log_w[None],
                np.broadcast_to(idx, (K, d, idx.shape[1])),
                axis=2,
            )
        out["compiled"] = self._compiled_tables(out)
        return out

    def _compiled_tables(self, params: Params) -> list:
        """Per reading (kernel, binned), the arguments of the compiled loop
        (``nbayes._kernels.grid_scores``) for its columns: lattice tables with the class axis
        last, so that one cell reads its classes' values from one place."""
        _, kde_cols, bin_cols = params["columns"]
        level = params["level"]
        out = []
        for cols, key, interpolate in ((kde_cols, "kde_log", True), (bin_cols, "bin_log", False)):
            if not cols.size:
                continue
            table = np.ascontiguousarray(params[key][:, cols].transpose(1, 2, 0))
            if interpolate:
                slope = np.ascontiguousarray(params["kde_slope"][:, cols].transpose(1, 2, 0))
                curve = np.ascontiguousarray(params["kde_curve"][:, cols].T)
                origin = params["start"][cols] - self.bins // 2 + 0.5
            else:
                slope, curve = table, np.zeros((cols.size, table.shape[2]))
                origin = params["start"][cols].astype(np.float64)
            scale = np.ldexp(1.0, (-level[cols]).astype(np.int32))
            out.append((cols, (scale, origin, table, slope, curve, interpolate)))
        return out

    def _terms(self, params, X, summed: bool):
        params = self.ready(params)
        X = np.asarray(X)
        compiled = kernels() if summed and X.dtype in (np.float32, np.float64) else None
        X = X if compiled is not None else np.asarray(X, dtype=np.float64)
        nan = self._missing(X)
        K = params["mean"].shape[0]
        n, d = X.shape
        out = np.zeros((n, K)) if summed else np.zeros((n, K, d))
        gauss_cols, kde_cols, bin_cols = params["columns"]
        with np.errstate(invalid="ignore", over="ignore"):
            if gauss_cols.size:
                fam, gp = self._gaussian(), params["gaussian"]
                if summed:
                    out += fam.joint_log_likelihood(gp, X[:, gauss_cols])
                else:
                    out[:, :, gauss_cols] = fam.log_likelihood_terms(gp, X[:, gauss_cols])
            if compiled is not None:
                # One pass over the cells, no temporaries: the lattice reads in C.
                for cols, args in params["compiled"]:
                    part = X if cols.size == d else X[:, cols]
                    compiled.grid_scores(np.ascontiguousarray(part), *args, out)
                return out
            kde = partial(kde_terms, bins=self.bins)
            for cols, fn in ((kde_cols, kde), (bin_cols, binned_terms)):
                if cols.size:
                    t = fn(params, X, cols, nan)
                    if summed:
                        out += t.sum(axis=2)
                    else:
                        out[:, :, cols] = t
        return out

    def joint_log_likelihood(self, params: Params, X) -> np.ndarray:
        return self._terms(params, X, summed=True)

    def log_likelihood_terms(self, params, X) -> np.ndarray:
        return self._terms(params, X, summed=False)

    def is_linear(self, params: Params) -> bool:
        return False

    def feature_weights(self, params: Params) -> np.ndarray:
        """Slope of each class score at the feature's overall mean, by a central difference
        over one bin on either side (the grid's resolution; a binned column's slope is 0
        inside an interval), (n_classes, n_features)."""
        width = np.ldexp(1.0, params["level"].astype(np.int32))
        at = params["center"][None, :] + np.array([[-1.0], [1.0]]) * width
        terms = self.log_likelihood_terms(params, at)
        return (terms[1] - terms[0]) / (2 * width)

    def feature_means(self, stats, params, class_count):
        """Class means relative to the overall mean (the reference point of the slopes)."""
        return params["mean"] - params["center"]

    def column_readings(self, params: Params) -> list[str] | None:
        """The reading chosen for each column under ``reading="auto"`` (``MixedNB.summary()``
        shows it beside the family's name); None for a fixed reading."""
        if self.reading != "auto":
            return None
        return [READINGS[int(r)] for r in params["reading"]]

    # -- conformance hooks ------------------------------------------------------------------
    def example_data(self, rng, n_samples, n_features):
        # Skewed, bimodal and spiky columns: what this family is for.
        kinds = rng.integers(0, 3, size=n_features)
        scale = rng.uniform(0.5, 3.0, size=n_features)
        skewed = rng.lognormal(0.0, 1.0, size=(n_samples, n_features))
        bimodal = rng.normal(size=(n_samples, n_features)) + 4 * rng.integers(
            0, 2, size=(n_samples, n_features)
        )
        spiky = np.where(rng.uniform(size=(n_samples, n_features)) < 0.4, 0.0, skewed)
        X = np.choose(kinds, [skewed, bimodal, spiky]) * scale
        return X + rng.normal(size=n_features) * 5

    def reference_log_density(self, params, X):
        from scipy import stats
        from scipy.special import logsumexp

        K, d = params["mean"].shape
        B = self.bins
        width = np.ldexp(1.0, params["level"].astype(np.int32))
        out = np.empty((X.shape[0], K, d))
        for j in range(d):  # bounded by features and classes: a reference, not a scorer
            x = X[:, j]
            reading = READINGS[int(params["reading"][j])]
            if reading == "gaussian":
                out[:, :, j] = stats.norm.logpdf(
                    x[:, None], params["mean"][:, j], np.sqrt(params["var"][:, j])
                )
                continue
            if reading == "binned":
                occupied = params["occupied"][j]
                ids = params["interval"][j, occupied[0] : occupied[1] + 1]
                first = occupied[0] + np.flatnonzero(np.diff(ids, prepend=-1))
                edges = (params["start"][j] + np.append(first, occupied[1] + 1)) * width[j]
                for k in range(K):
                    probs = np.exp(params["interval_log_prob"][k, j, np.unique(ids)])
                    out[:, k, j] = stats.rv_histogram((probs, edges), density=False).logpdf(x)
                continue
            centres = (params["start"][j] + np.arange(B) + 0.5) * width[j]
            for k in range(K):
                c = params["kde_weights"][k, j]
                keep = c > 0
                out[:, k, j] = logsumexp(
                    stats.norm.logpdf(x[:, None], centres[keep], params["bandwidth"][k, j]),
                    b=c[keep] / c.sum(),
                    axis=1,
                )
        return out


class Kernel(Density):
    """Kernel density per class and feature from grid counts: :class:`Density` with
    ``reading="kde"`` (see there for the grid, the bandwidth rules and the errors).

    Parameters
    ----------
    bins : int, default=256
    bandwidth : {"silverman", "scott"} or float, default="silverman"
    missing : {"error", "ignore"}, default="error"

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Kernel, Labels
    >>> fam = Kernel(bandwidth=1.0)
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> params = fam.finalize(fam.accumulate(X, Labels(np.zeros(4, int), np.ones(4), 1)))
    >>> params["bandwidth"].round(4).tolist()  # 1.0 x the standard deviation (ddof=1)
    [[1.291]]
    """

    name = "kde"
    shared_params = ()

    def __init__(self, bins: int = 256, bandwidth="silverman", missing: str = "error"):
        super().__init__(reading="kde", bins=bins, bandwidth=bandwidth, missing=missing)

    def get_params(self) -> dict:
        return {"bins": self.bins, "bandwidth": self.bandwidth, "missing": self.missing}


class Binned(Density):
    """Supervised (MDL) or equal-frequency discretisation of grid counts with a
    Dirichlet-smoothed categorical over the intervals: :class:`Density` with
    ``reading="binned"``.

    Parameters
    ----------
    bins : int, default=256
    discretize : {"mdl", "equal_frequency"}, default="mdl"
    n_intervals : int, default=10
    alpha : float, default=1.0
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    missing : {"error", "ignore"}, default="error"

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Binned, Labels
    >>> fam = Binned(discretize="equal_frequency", n_intervals=2)
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> params = fam.finalize(fam.accumulate(X, Labels(np.array([0, 0, 1, 1]), np.ones(4), 2)))
    >>> params["n_intervals"].tolist()
    [2]
    """

    name = "binned"
    shared_params = ("alpha", "estimate")

    def __init__(
        self,
        bins: int = 256,
        discretize: str = "mdl",
        n_intervals: int = 10,
        alpha=1.0,
        estimate: str = "posterior_mean",
        missing: str = "error",
    ):
        super().__init__(
            reading="binned",
            bins=bins,
            discretize=discretize,
            n_intervals=n_intervals,
            alpha=alpha,
            estimate=estimate,
            missing=missing,
        )

    def get_params(self) -> dict:
        return {
            "bins": self.bins,
            "discretize": self.discretize,
            "n_intervals": self.n_intervals,
            "alpha": self.alpha,
            "estimate": self.estimate,
            "missing": self.missing,
        }
