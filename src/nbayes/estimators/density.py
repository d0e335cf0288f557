"""DensityNB: naive Bayes for all-continuous data beyond the bell curve.

A thin configuration of the engine with one :class:`nbayes.distributions.Density` family over
all columns; mixed tables use ``MixedNB(columns=[("kde", ...), ("binned", ...)])`` instead.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.utils.validation import validate_data

from .. import _engine as engine
from .. import base
from .._params import Interval, StrOptions
from ..distributions import Density
from ..distributions.density import BANDWIDTHS, DISCRETIZE
from ._base import BaseNB
from ._constraints import CLASS_PRIOR, fixed_alpha_message

DENSITIES = ("auto", "kde", "binned", "gaussian")


class DensityNB(BaseNB):
    """Naive Bayes for continuous features whose class-conditional densities are not normal:
    skewed, spiky at zero, multi-modal.

    Each feature keeps, per class, weighted counts of its values on a bounded grid that merges
    exactly (``fit``, ``partial_fit`` over any chunking, merged shards and Dask agree), read as
    a kernel density, as a supervised (Fayyad-Irani MDL) or equal-frequency discretisation, as
    a normal density, or -- the default -- whichever of those fits each column best by the
    leave-one-out log-likelihood of its values given the class. See
    :class:`nbayes.distributions.Density` for the grid, the readings and their errors.

    Parameters
    ----------
    density : {"auto", "kde", "binned", "gaussian"}, default="auto"
        How every column is read; "auto" chooses per column (``readings_``).
    bins : int, default=256
        Grid bins per feature: memory per class and feature, and the resolution (about the
        range / bins).
    bandwidth : {"silverman", "scott"} or float, default="silverman"
        Kernel bandwidth rule (scipy's ``gaussian_kde`` rules on each class's standard
        deviation), or a factor of that standard deviation.
    discretize : {"mdl", "equal_frequency"}, default="mdl"
        Cut points of the binned reading.
    n_intervals : int, default=10
        Intervals of ``discretize="equal_frequency"``.
    alpha : float, default=1.0
        Dirichlet smoothing of the binned reading's interval probabilities.
    var_smoothing : float, default=1e-9
        Variance floor of the normal reading (as GaussianNB).
    priors : array-like of shape (n_classes,), optional
        Fixed class prior; by default the class frequencies.
    prior_alpha : float, default=0.0
        Hallucinated observations of every class in the fitted prior.
    missing : {"error", "ignore"}, default="error"
        "ignore" skips NaN cells at fit and marginalises them at predict.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    readings_ : ndarray of shape (n_features,)
        The reading of each feature ("gaussian", "kde" or "binned").
    bandwidth_ : ndarray of shape (n_classes, n_features)
        Kernel bandwidths (zeros unless some column is read as a kernel density).
    stats_ : dict
        Mergeable statistics: exact moments and grid counts per class and feature.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import DensityNB
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> X = np.c_[rng.normal(4 * y, 1), rng.normal(0, 1, 400) + 6 * rng.integers(0, 2, 400)]
    >>> model = DensityNB(density="kde").fit(X, y)
    >>> model.predict([[4.0, 6.0], [0.0, 0.0]]).tolist()
    [1, 0]
    >>> DensityNB().fit(X, y).readings_.tolist()  # chosen per column
    ['gaussian', 'kde']
    """

    def capabilities(self) -> frozenset[str]:
        """BaseNB's, and X as one matrix of numbers (see :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import DensityNB
        >>> "numeric_input" in DensityNB().capabilities()
        True
        """
        return super().capabilities() | {base.NUMERIC_INPUT}

    _parameter_constraints: ClassVar[dict] = {
        "density": [StrOptions(set(DENSITIES))],
        "bins": [Interval(Integral, 2, None, closed="left")],
        "bandwidth": [StrOptions(set(BANDWIDTHS)), Interval(Real, 0, None, closed="neither")],
        "discretize": [StrOptions(set(DISCRETIZE))],
        "n_intervals": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Real, "array-like"],
        "var_smoothing": [Real, StrOptions({"auto"})],
        "priors": ["array-like", None],
        "prior_alpha": CLASS_PRIOR["prior_alpha"],
        "missing": [StrOptions({"error", "ignore"})],
    }
    _parameter_messages: ClassVar[dict] = {
        "alpha": fixed_alpha_message,
        "var_smoothing": (
            "Parameter 'var_smoothing' must be a non-negative number or 'auto'; got {value}."
        ),
    }

    def __init__(
        self,
        *,
        density="auto",
        bins=256,
        bandwidth="silverman",
        discretize="mdl",
        n_intervals=10,
        alpha=1.0,
        var_smoothing=1e-9,
        priors=None,
        prior_alpha=0.0,
        missing="error",
    ):
        self.density = density
        self.bins = bins
        self.bandwidth = bandwidth
        self.discretize = discretize
        self.n_intervals = n_intervals
        self.alpha = alpha
        self.var_smoothing = var_smoothing
        self.priors = priors
        self.prior_alpha = prior_alpha
        self.missing = missing

    def _validate_X(self, X, reset):
        return validate_data(
            self, X, reset=reset, dtype=(np.float64, np.float32), ensure_all_finite=False
        )

    def _make_families(self, n_features):
        return [
            Density(
                reading=self.density,
                bins=self.bins,
                bandwidth=self.bandwidth,
                discretize=self.discretize,
                n_intervals=self.n_intervals,
                alpha=self.alpha,
                var_smoothing=self.var_smoothing,
                missing=self.missing,
            )
        ]

    def _log_prior(self, class_count):
        return engine.log_class_prior(
            class_count, self.priors, True, self.prior_alpha, param="priors"
        )

    def _publish(self):
        from ..distributions.density import READINGS

        p = self.params_[0]
        self.readings_ = np.asarray([READINGS[int(r)] for r in p["reading"]])
        self.bandwidth_ = p["bandwidth"]
        self.class_prior_ = np.exp(self.class_log_prior_)


__all__ = ["DensityNB"]
