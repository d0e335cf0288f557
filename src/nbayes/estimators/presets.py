"""The familiar estimators as thin configurations of one engine.

Each preset is one family over all columns, with scikit-learn's parameter names and defaults,
plus ``estimate`` (posterior_mean / map / mle), ``prior_alpha`` (hallucinated class counts)
and ``missing`` (error / ignore).
"""

from __future__ import annotations

import warnings
from itertools import pairwise

import numpy as np
from sklearn.utils.validation import validate_data

from .. import _engine as engine
from ..distributions import Bernoulli, Categorical, Complement, Gaussian, Multinomial, Poisson
from ..distributions.categorical import expand, offsets_of
from ._base import BaseNB

_ALPHA_FLOOR = 1e-10  # scikit-learn's floor when force_alpha=False


def _effective_alpha(alpha, force_alpha: bool):
    """scikit-learn's rule: with force_alpha=False, alpha below 1e-10 is raised to 1e-10."""
    a = np.asarray(alpha, dtype=np.float64)
    if not force_alpha and np.any(a < _ALPHA_FLOOR):
        warnings.warn(
            f"alpha too small, setting alpha = {_ALPHA_FLOOR}; use force_alpha=True to keep "
            "it (zero counts then give probability zero).", UserWarning, stacklevel=4,
        )
        a = np.maximum(a, _ALPHA_FLOOR)
    return a if a.ndim else float(a)


class _DiscreteNB(BaseNB):
    """Common parameters of the smoothed discrete presets."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True  # as scikit-learn: blobs are not counts
        return tags

    def _alpha(self):
        return _effective_alpha(self.alpha, self.force_alpha)

    def _publish(self):
        stats, params = self.stats_["groups"][0], self.params_[0]
        key = next(iter(self.families_[0].class_keys))
        self.feature_count_ = stats[key]
        self.feature_log_prob_ = next(iter(params.values()))


class GaussianNB(BaseNB):
    """Gaussian Naive Bayes: a normal density per class and feature.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), optional
        Fixed class prior; by default the class frequencies N_k / N (plus ``prior_alpha``).
    var_smoothing : float, default=1e-9
        Variance floor as a fraction of the largest feature variance, computed from all data
        seen (scikit-learn uses the last partial_fit batch only).
    prior_alpha : float, default=0.0
        Hallucinated observations of every class in the fitted prior.
    missing : {"error", "ignore"}, default="error"
        "ignore" skips NaN cells at fit and marginalises them at predict.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Total sample weight per class.
    class_prior_ : ndarray of shape (n_classes,)
    theta_ : ndarray of shape (n_classes, n_features)
        Per-class means.
    var_ : ndarray of shape (n_classes, n_features)
        Per-class variances, including ``epsilon_``.
    epsilon_ : float
    stats_ : dict
        Mergeable sufficient statistics (weight, mean, M2 per class and feature).

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> X = np.array([[-1.0], [-2.0], [1.0], [2.0]]); y = np.array([0, 0, 1, 1])
    >>> GaussianNB().fit(X, y).predict([[1.5]]).tolist()
    [1]
    """

    def __init__(self, *, priors=None, var_smoothing=1e-9, prior_alpha=0.0, missing="error"):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.prior_alpha = prior_alpha
        self.missing = missing

    def _validate_X(self, X, reset):
        return validate_data(self, X, reset=reset, dtype=(np.float64, np.float32),
                             ensure_all_finite=False)

    def _make_families(self, n_features):
        return [Gaussian(var_smoothing=self.var_smoothing, missing=self.missing)]

    def _log_prior(self, class_count):
        return engine.log_class_prior(class_count, self.priors, True, self.prior_alpha,
                                      param="priors")

    def _publish(self):
        p = self.params_[0]
        self.theta_, self.var_, self.epsilon_ = p["mean"], p["var"], float(p["epsilon"])
        self.class_prior_ = np.exp(self.class_log_prior_)


class BernoulliNB(_DiscreteNB):
    """Naive Bayes for binary features with a Beta(alpha, alpha) prior.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
    force_alpha : bool, default=True
    binarize : float or None, default=0.0
        Threshold above which a value counts as 1; None requires 0/1 input.
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), optional
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    prior_alpha : float, default=0.0
    missing : {"error", "ignore"}, default="error"

    Attributes
    ----------
    classes_, class_count_, class_log_prior_ : per-class arrays of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of ones per class and feature.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log P(x_j = 1 | y).

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import BernoulliNB
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 1]])
    >>> y = ["spam", "spam", "ham", "ham"]
    >>> BernoulliNB().fit(X, y).predict([[1, 0, 0]]).tolist()
    ['spam']
    """

    def __init__(self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True,
                 class_prior=None, estimate="posterior_mean", prior_alpha=0.0,
                 missing="error"):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.missing = missing

    def _make_families(self, n_features):
        return [Bernoulli(alpha=self._alpha(), estimate=self.estimate, binarize=self.binarize,
                          missing=self.missing)]


class MultinomialNB(_DiscreteNB):
    """Naive Bayes for counts (e.g. word counts) with a Dirichlet(alpha) prior.

    ``predict_joint_log_proba`` includes the multinomial coefficient, so it is the exact
    log P(x, y); scikit-learn leaves it out. Posteriors are identical.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
    force_alpha : bool, default=True
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), optional
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    prior_alpha : float, default=0.0
    missing : {"error", "ignore"}, default="error"

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log theta_kj, rows sum to one in probability space.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> X = np.array([[3, 0], [2, 1], [0, 4]]); y = [0, 0, 1]
    >>> MultinomialNB().fit(X, y).predict([[5, 0]]).tolist()
    [0]
    """

    _family = Multinomial

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 estimate="posterior_mean", prior_alpha=0.0, missing="error"):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.missing = missing

    def _make_families(self, n_features):
        return [Multinomial(alpha=self._alpha(), estimate=self.estimate, missing=self.missing)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


class ComplementNB(MultinomialNB):
    """Complement Naive Bayes (Rennie et al., 2003), suited to imbalanced text classes.

    Scores ignore the class prior when there are several classes, as in the paper and
    scikit-learn; they are not log-probabilities.

    Parameters
    ----------
    alpha, force_alpha, fit_prior, class_prior, estimate, prior_alpha, missing
        As in :class:`MultinomialNB`.
    norm : bool, default=False
        Normalise the weights per class.

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_all_ : ndarray of shape (n_features,)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The complement weights.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import ComplementNB
    >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 4, 2]]); y = [0, 0, 1]
    >>> ComplementNB().fit(X, y).predict([[0, 3, 1]]).tolist()
    [1]
    """

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 norm=False, estimate="posterior_mean", prior_alpha=0.0, missing="error"):
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, estimate=estimate, prior_alpha=prior_alpha,
                         missing=missing)
        self.norm = norm

    def _make_families(self, n_features):
        return [Complement(alpha=self._alpha(), estimate=self.estimate, norm=self.norm,
                           missing=self.missing)]

    def _publish(self):
        super()._publish()
        self.feature_all_ = self.feature_count_.sum(axis=0)


class PoissonNB(_DiscreteNB):
    """Naive Bayes for event counts: an independent Poisson rate per class and feature.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Gamma prior shape (hallucinated total count).
    beta : float, default=1.0
        Gamma prior rate (hallucinated number of rows).
    force_alpha, fit_prior, class_prior, estimate, prior_alpha, missing
        As in :class:`MultinomialNB`.

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted sum of counts per class and feature.
    rate_ : ndarray of shape (n_classes, n_features)
        Estimated Poisson rates lambda_kj.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log lambda_kj.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import PoissonNB
    >>> X = np.array([[0, 5], [1, 4], [6, 0], [5, 1]]); y = [0, 0, 1, 1]
    >>> PoissonNB().fit(X, y).predict([[4, 1]]).tolist()
    [1]
    """

    def __init__(self, *, alpha=1.0, beta=1.0, force_alpha=True, fit_prior=True,
                 class_prior=None, estimate="posterior_mean", prior_alpha=0.0,
                 missing="error"):
        self.alpha = alpha
        self.beta = beta
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.missing = missing

    def _make_families(self, n_features):
        return [Poisson(alpha=self._alpha(), beta=self.beta, estimate=self.estimate,
                        missing=self.missing)]

    def _publish(self):
        super()._publish()
        self.rate_ = self.params_[0]["rate"]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        # scikit-learn's checks generate whole numbers only for "categorical" input, and
        # PoissonNB rejects fractional counts.
        tags.input_tags.categorical = True
        return tags


class CategoricalNB(_DiscreteNB):
    """Naive Bayes for categorical features coded 0 .. K_j - 1, Dirichlet(alpha) prior.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
    force_alpha : bool, default=True
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), optional
    min_categories : int or array-like of shape (n_features,), optional
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    prior_alpha : float, default=0.0
    missing : {"error", "ignore"}, default="error"

    Attributes
    ----------
    n_categories_ : ndarray of shape (n_features,)
    category_count_ : list of n_features arrays of shape (n_classes, n_categories_[j])
    feature_log_prob_ : list of n_features arrays of shape (n_classes, n_categories_[j])

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import CategoricalNB
    >>> X = np.array([[0, 1], [0, 2], [1, 0], [2, 0]]); y = [0, 0, 1, 1]
    >>> CategoricalNB().fit(X, y).predict([[0, 2]]).tolist()
    [0]
    """

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 min_categories=None, estimate="posterior_mean", prior_alpha=0.0,
                 missing="error"):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.missing = missing

    def _validate_X(self, X, reset):
        return validate_data(self, X, reset=reset, accept_sparse="csr", dtype="numeric",
                             ensure_all_finite=False)

    def _make_families(self, n_features):
        return [Categorical(alpha=self._alpha(), estimate=self.estimate,
                            min_categories=self.min_categories, missing=self.missing)]

    def _publish(self):
        stats, params = self.stats_["groups"][0], self.params_[0]
        n_cat = params["n_categories"]
        counts = expand(stats["n_counts"], stats["n_categories"], n_cat)
        bounds = [*offsets_of(n_cat).tolist(), int(n_cat.sum())]
        pieces = list(pairwise(bounds))
        self.n_categories_ = n_cat
        self.category_count_ = [counts[:, a:b] for a, b in pieces]
        self.feature_log_prob_ = [params["log_theta"][:, a:b] for a, b in pieces]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.categorical = True
        return tags
