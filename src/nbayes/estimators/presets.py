"""The familiar estimators as thin configurations of one engine.

Each preset is one family over all columns, with scikit-learn's parameter names and defaults,
plus ``estimate`` (posterior_mean / map / mle), ``prior_alpha`` (hallucinated class counts)
and ``missing`` (error / ignore).
"""

from __future__ import annotations

import warnings
from functools import partial
from itertools import pairwise
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _engine as engine
from .. import base
from .._params import Interval, StrOptions
from .._validation import user_stacklevel
from ..base import SurveyStep
from ..distributions import Bernoulli, Categorical, Complement, Gaussian, Multinomial, Poisson
from ..distributions.categorical import expand, offsets_of
from ..exceptions import ParameterError
from . import _survey
from ._base import BaseNB
from ._columns import ColumnLayout
from ._constraints import (
    ALPHA_MESSAGE,
    CLASS_PRIOR,
    SMOOTHING,
    THRESHOLD,
    VAR_SMOOTHING_MESSAGE,
)

_ALPHA_FLOOR = 1e-10  # scikit-learn's floor when force_alpha=False


def _effective_alpha(alpha, force_alpha: bool):
    """scikit-learn's rule: with force_alpha=False, alpha below 1e-10 is raised to 1e-10.

    ``"auto"`` passes through: the family chooses alpha from the statistics at finalize time.
    """
    if alpha is None or isinstance(alpha, str):
        return alpha  # check_alpha names it as given
    try:
        a = np.asarray(alpha, dtype=np.float64)
    except (TypeError, ValueError):
        return alpha  # check_alpha names it
    if not force_alpha and np.any(a < _ALPHA_FLOOR):
        warnings.warn(
            f"alpha too small, setting alpha = {_ALPHA_FLOOR}; use force_alpha=True to keep "
            "it (zero counts then give probability zero).",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        a = np.maximum(a, _ALPHA_FLOOR)
    return a if a.ndim else float(a)


#: Finalize-time parameters of the smoothed discrete presets (see BaseNB.finalize_params).
_DISCRETE_FINALIZE = frozenset(
    {
        "alpha",
        "force_alpha",
        "fit_prior",
        "class_prior",
        "estimate",
        "prior_alpha",
        "decision_threshold",
        "threshold_scale",
    }
)


class _DiscreteNB(BaseNB):
    """Common parameters of the smoothed discrete presets."""

    _finalize_only = _DISCRETE_FINALIZE
    _parameter_constraints: ClassVar[dict] = {
        **SMOOTHING,
        "force_alpha": ["boolean"],
        **CLASS_PRIOR,
        "missing": [StrOptions({"error", "ignore"})],
        **THRESHOLD,
    }
    _parameter_messages: ClassVar[dict] = {"alpha": ALPHA_MESSAGE}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True  # as scikit-learn: blobs are not counts
        return tags

    def _alpha(self):
        return _effective_alpha(self._resolved("alpha"), self.force_alpha)

    def _publish(self):
        stats = self.stats_["groups"][0]
        key = next(iter(self.families_[0].class_keys))
        self.feature_count_ = stats[key]
        self._publish_alpha()

    @property
    def feature_log_prob_(self):
        """(n_classes, n_features) log probability of each feature (ComplementNB: its
        weights, PoissonNB: log rates); computed from ``params_`` on each read, a pass over
        the table (keep the result rather than read it in a loop)."""
        check_is_fitted(self, "params_")
        return self.families_[0].feature_log_table(self.params_[0])

    def _publish_alpha(self):
        """``alpha_``: the smoothing used, a float for a scalar or ``"auto"`` alpha."""
        alpha = self.params_[0]["alpha"]
        self.alpha_ = float(alpha[0]) if np.ndim(self.alpha) == 0 and alpha.size else alpha


class GaussianNB(BaseNB):
    """Gaussian Naive Bayes: a normal density per class and feature.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), optional
        Fixed class prior; by default the class frequencies N_k / N (plus ``prior_alpha``).
    var_smoothing : float, "auto" or "cv", default=1e-9
        Variance floor as a fraction of the largest feature variance, computed from all data
        seen (scikit-learn uses the last partial_fit batch only). "auto" (estimate="mle")
        gives every class and feature one hallucinated squared deviation epsilon, variance
        (M2 + epsilon) / (n + 1), with epsilon chosen to maximise the evidence of the
        training data from the statistics alone (no refitting). A feature with no spread
        within any class (e.g. a constant column) is left out of that evidence and gets one
        variance for all classes, so it carries no evidence about the class.
        "cv" chooses it inside fit by the log-loss of 5-fold stratified cross-validation
        among 13 values from 1e-12 to 1, one per decade (``cv_results_`` keeps the losses).
    prior_alpha : float, default=0.0
        Hallucinated observations of every class in the fitted prior.
    missing : {"error", "ignore"}, default="error"
        "ignore" skips NaN cells at fit and marginalises them at predict.
    var_pooling : {"per_class", "shared"}, default="per_class"
        "shared" estimates one variance per feature for all classes (the pooled within-class
        variance). The log-odds are then linear in x (``coef_``, ``intercept_``) and
        ``predict_proba`` is a logistic regression on x with generatively fitted weights.
    estimate : {"mle", "posterior_predictive"}, default="mle"
        "posterior_predictive" puts a Normal-Inverse-Gamma prior on each class's mean and
        variance per feature and scores with the Student-t posterior predictive: ``dof_``
        2 a_n, location ``theta_`` mu_n, squared scale ``var_`` b_n (kappa_n + 1) /
        (a_n kappa_n).
    mean_prior : float or array-like of shape (n_features,), optional
        Prior mean mu0 (posterior_predictive); by default each feature's overall mean.
    mean_prior_count : float, default=1.0
        The prior mean's weight in observations (kappa0).
    var_prior : float or array-like of shape (n_features,), optional
        Prior guess s0^2 of each class's variance, InvGamma(nu0 / 2, nu0 s0^2 / 2); by default
        each feature's pooled within-class variance plus ``epsilon_``.
    var_prior_count : float, default=1.0
        The prior variance's weight in observations (nu0).
    decision_threshold : float, optional
        Two classes only: predict ``classes_[1]`` when its log-odds exceed this value (or,
        with ``threshold_scale="proba"``, when its probability does). None is the usual
        most-probable-class rule (threshold 0). Raise it to make e.g. a spam filter less
        aggressive.
    threshold_scale : {"log_odds", "proba"}, default="log_odds"
        The scale of ``decision_threshold``: log-odds, or the probability of ``classes_[1]``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Total sample weight per class.
    class_prior_ : ndarray of shape (n_classes,)
    theta_ : ndarray of shape (n_classes, n_features)
        Per-class means.
    var_ : ndarray of shape (n_classes, n_features)
        Per-class variances, including ``epsilon_`` (posterior_predictive: squared Student-t
        scales).
    epsilon_ : float
    dof_ : ndarray of shape (n_classes, n_features)
        Student-t degrees of freedom (posterior_predictive only).
    coef_, intercept_ : ndarray
        The linear form (var_pooling="shared" only): log-odds ``X @ coef_[0] +
        intercept_[0]`` for two classes.
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

    _parameter_constraints: ClassVar[dict] = {
        "priors": ["array-like", None],
        "var_smoothing": [Real, StrOptions({"auto", "cv"})],
        "prior_alpha": CLASS_PRIOR["prior_alpha"],
        "missing": [StrOptions({"error", "ignore"})],
        "var_pooling": [StrOptions({"per_class", "shared"})],
        "estimate": [StrOptions({"mle", "posterior_predictive"})],
        "mean_prior": [Real, "array-like", None],
        "mean_prior_count": [Interval(Real, 0, None, closed="neither")],
        "var_prior": [Real, "array-like", None],
        "var_prior_count": [Interval(Real, 0, None, closed="neither")],
        **THRESHOLD,
    }
    _parameter_messages: ClassVar[dict] = {
        "var_smoothing": VAR_SMOOTHING_MESSAGE,
        "estimate": "GaussianNB supports estimate in ('mle', 'posterior_predictive'); got {value}.",
        "mean_prior_count": (
            "Parameter 'mean_prior_count' must be positive (prior observations); got {value}."
        ),
        "var_prior_count": (
            "Parameter 'var_prior_count' must be positive (prior observations); got {value}."
        ),
    }
    _finalize_only = frozenset(
        {
            "priors",
            "var_smoothing",
            "prior_alpha",
            "var_pooling",
            "estimate",
            "mean_prior",
            "mean_prior_count",
            "var_prior",
            "var_prior_count",
            "decision_threshold",
            "threshold_scale",
        }
    )

    def capabilities(self) -> frozenset[str]:
        """BaseNB's, and X as one matrix of numbers (see :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        return super().capabilities() | {base.NUMERIC_INPUT}

    def __init__(
        self,
        *,
        priors=None,
        var_smoothing=1e-9,
        prior_alpha=0.0,
        missing="error",
        var_pooling="per_class",
        estimate="mle",
        mean_prior=None,
        mean_prior_count=1.0,
        var_prior=None,
        var_prior_count=1.0,
        decision_threshold=None,
        threshold_scale="log_odds",
    ):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.prior_alpha = prior_alpha
        self.missing = missing
        self.var_pooling = var_pooling
        self.estimate = estimate
        self.mean_prior = mean_prior
        self.mean_prior_count = mean_prior_count
        self.var_prior = var_prior
        self.var_prior_count = var_prior_count
        self.decision_threshold = decision_threshold
        self.threshold_scale = threshold_scale

    def _validate_X(self, X, reset):
        return validate_data(
            self, X, reset=reset, dtype=(np.float64, np.float32), ensure_all_finite=False
        )

    def _make_families(self, n_features):
        return [
            Gaussian(
                var_smoothing=self._resolved("var_smoothing"),
                missing=self.missing,
                var_pooling=self.var_pooling,
                estimate=self.estimate,
                mean_prior=self.mean_prior,
                mean_prior_count=self.mean_prior_count,
                var_prior=self.var_prior,
                var_prior_count=self.var_prior_count,
            )
        ]

    def _log_prior(self, class_count):
        return engine.log_class_prior(
            class_count, self.priors, True, self.prior_alpha, param="priors"
        )

    def _publish(self):
        p = self.params_[0]
        self.theta_, self.var_, self.epsilon_ = p["mean"], p["var"], float(p["epsilon"])
        self.class_prior_ = np.exp(self.class_log_prior_)
        if "dof" in p:
            self.dof_ = p["dof"]


class BernoulliNB(_DiscreteNB):
    """Naive Bayes for binary features with a Beta(alpha, alpha) prior.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "auto" or "cv", default=1.0
        "cv" chooses alpha inside fit by the log-loss of 5-fold stratified cross-validation
        (weighted, pooled over the folds) among 13 values from 0.001 to 10, three per decade
        (1 + those for estimate="map"), from the statistics of one pass (no refit);
        ``cv_results_`` keeps the candidates and their losses. Needs all rows in ``fit``.
        "auto" chooses alpha at fit time by maximising the evidence (marginal likelihood of
        the training features under the Dirichlet / Beta / Gamma prior) from the counts alone.
        The posterior-mean estimate (n + a) / (N + K a) is already the Bayesian posterior
        predictive of the next observation, so no separate Bayesian mode is needed.
    force_alpha : bool, default=True
        Keep ``alpha`` as given even when it is below 1e-10 (scikit-learn's parameter; False
        raises such an alpha to 1e-10, as scikit-learn does).
    binarize : float or None, default=0.0
        Threshold above which a value counts as 1; None requires 0/1 input.
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        How a discrete parameter is estimated from its counts n out of N under the prior:
        "posterior_mean" (n + alpha) / (N + K alpha), Lidstone smoothing and scikit-learn's
        estimate; "map" (n + alpha - 1) / (N + K (alpha - 1)), the posterior mode, for
        alpha >= 1; "mle" n / N, where an unseen value has probability zero.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    missing : {"error", "ignore"}, default="error"
        What a missing cell (NaN) means: "error" refuses it, naming the column and the first
        row; "ignore" leaves it out of the statistics at fit and out of the product at
        predict, which is exact marginalisation under the naive assumption; "category"
        (category values only) makes missingness a category of its own.
    decision_threshold : float, optional
        Two classes only: predict ``classes_[1]`` when its log-odds exceed this value (or,
        with ``threshold_scale="proba"``, when its probability does). None is the usual
        most-probable-class rule (threshold 0). Raise it to make e.g. a spam filter less
        aggressive.
    threshold_scale : {"log_odds", "proba"}, default="log_odds"
        The scale of ``decision_threshold``: log-odds, or the probability of ``classes_[1]``.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_ : per-class arrays of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of ones per class and feature.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log P(x_j = 1 | y); computed from ``params_`` on each read.
    alpha_ : float or ndarray of shape (n_features,)
        The smoothing used: ``alpha`` itself, or the evidence maximiser for ``alpha="auto"``.
    coef_, intercept_ : ndarray
        The linear form: log-odds ``linear_features(X) @ coef_[0] + intercept_[0]`` for two
        classes, per-class scores otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import BernoulliNB
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 1]])
    >>> y = ["spam", "spam", "ham", "ham"]
    >>> BernoulliNB().fit(X, y).predict([[1, 0, 0]]).tolist()
    ['spam']
    """

    def capabilities(self) -> frozenset[str]:
        """BaseNB's, and X as one matrix of numbers, word counts included (see
        :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        return super().capabilities() | {base.NUMERIC_INPUT, base.WORD_COUNTS}

    _parameter_constraints: ClassVar[dict] = {
        **_DiscreteNB._parameter_constraints,
        "binarize": [Real, None],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        binarize=0.0,
        fit_prior=True,
        class_prior=None,
        estimate="posterior_mean",
        prior_alpha=0.0,
        missing="error",
        decision_threshold=None,
        threshold_scale="log_odds",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.missing = missing
        self.decision_threshold = decision_threshold
        self.threshold_scale = threshold_scale

    def _make_families(self, n_features):
        return [
            Bernoulli(
                alpha=self._alpha(),
                estimate=self.estimate,
                binarize=self.binarize,
                missing=self.missing,
            )
        ]


class MultinomialNB(_DiscreteNB):
    """Naive Bayes for counts (e.g. word counts) with a Dirichlet(alpha) prior.

    ``predict_joint_log_proba`` includes the multinomial coefficient, so it is the exact
    log P(x, y); scikit-learn leaves it out. Posteriors are identical.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "auto" or "cv", default=1.0
        "cv" chooses alpha inside fit by the log-loss of 5-fold stratified cross-validation
        (weighted, pooled over the folds) among 13 values from 0.001 to 10, three per decade
        (1 + those for estimate="map"), from the statistics of one pass (no refit);
        ``cv_results_`` keeps the candidates and their losses. Needs all rows in ``fit``.
        "auto" chooses alpha at fit time by maximising the evidence (marginal likelihood of
        the training features under the Dirichlet / Beta / Gamma prior) from the counts alone.
        The posterior-mean estimate (n + a) / (N + K a) is already the Bayesian posterior
        predictive of the next observation, so no separate Bayesian mode is needed.
    force_alpha : bool, default=True
        Keep ``alpha`` as given even when it is below 1e-10 (scikit-learn's parameter; False
        raises such an alpha to 1e-10, as scikit-learn does).
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        How a discrete parameter is estimated from its counts n out of N under the prior:
        "posterior_mean" (n + alpha) / (N + K alpha), Lidstone smoothing and scikit-learn's
        estimate; "map" (n + alpha - 1) / (N + K (alpha - 1)), the posterior mode, for
        alpha >= 1; "mle" n / N, where an unseen value has probability zero.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    missing : {"error", "ignore"}, default="error"
        What a missing cell (NaN) means: "error" refuses it, naming the column and the first
        row; "ignore" leaves it out of the statistics at fit and out of the product at
        predict, which is exact marginalisation under the naive assumption; "category"
        (category values only) makes missingness a category of its own.
    decision_threshold : float, optional
        Two classes only: predict ``classes_[1]`` when its log-odds exceed this value (or,
        with ``threshold_scale="proba"``, when its probability does). None is the usual
        most-probable-class rule (threshold 0). Raise it to make e.g. a spam filter less
        aggressive.
    threshold_scale : {"log_odds", "proba"}, default="log_odds"
        The scale of ``decision_threshold``: log-odds, or the probability of ``classes_[1]``.

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log theta_kj, rows sum to one in probability space; computed from ``params_`` on
        each read.
    alpha_ : float or ndarray of shape (n_features,)
        The smoothing used: ``alpha`` itself, or the evidence maximiser for ``alpha="auto"``.
    coef_, intercept_ : ndarray
        The linear form: log-odds ``linear_features(X) @ coef_[0] + intercept_[0]`` for two
        classes, per-class scores otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> X = np.array([[3, 0], [2, 1], [0, 4]]); y = [0, 0, 1]
    >>> MultinomialNB().fit(X, y).predict([[5, 0]]).tolist()
    [0]
    """

    _family = Multinomial

    def capabilities(self) -> frozenset[str]:
        """BaseNB's, and X as one matrix of numbers, word counts included; not
        ``feature_subsets``: word shares are normalised over all the words, so leaving words
        out changes the others' parameters (see :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        found = super().capabilities() | {base.NUMERIC_INPUT, base.WORD_COUNTS}
        return found - {base.FEATURE_SUBSETS}

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        estimate="posterior_mean",
        prior_alpha=0.0,
        missing="error",
        decision_threshold=None,
        threshold_scale="log_odds",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.missing = missing
        self.decision_threshold = decision_threshold
        self.threshold_scale = threshold_scale

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
    decision_threshold : float, optional
        Two classes only: predict ``classes_[1]`` when its log-odds exceed this value (or,
        with ``threshold_scale="proba"``, when its probability does). None is the usual
        most-probable-class rule (threshold 0). Raise it to make e.g. a spam filter less
        aggressive.
    threshold_scale : {"log_odds", "proba"}, default="log_odds"
        The scale of ``decision_threshold``: log-odds, or the probability of ``classes_[1]``.

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_all_ : ndarray of shape (n_features,)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The complement weights; computed from ``params_`` on each read.
    alpha_ : float or ndarray of shape (n_features,)
        The smoothing used: ``alpha`` itself, or the evidence maximiser for ``alpha="auto"``.
    coef_, intercept_ : ndarray
        The linear form: log-odds ``linear_features(X) @ coef_[0] + intercept_[0]`` for two
        classes, per-class scores otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import ComplementNB
    >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 4, 2]]); y = [0, 0, 1]
    >>> ComplementNB().fit(X, y).predict([[0, 3, 1]]).tolist()
    [1]
    """

    _finalize_only = _DISCRETE_FINALIZE | {"norm"}
    _parameter_constraints: ClassVar[dict] = {
        **_DiscreteNB._parameter_constraints,
        "norm": ["boolean"],
    }

    def capabilities(self) -> frozenset[str]:
        """MultinomialNB's but ``joint_probability``: the complement weights score no
        probability of the rows (see :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        return super().capabilities() - {base.JOINT_PROBABILITY}

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        norm=False,
        estimate="posterior_mean",
        prior_alpha=0.0,
        missing="error",
        decision_threshold=None,
        threshold_scale="log_odds",
    ):
        super().__init__(
            alpha=alpha,
            force_alpha=force_alpha,
            fit_prior=fit_prior,
            class_prior=class_prior,
            estimate=estimate,
            prior_alpha=prior_alpha,
            missing=missing,
            decision_threshold=decision_threshold,
            threshold_scale=threshold_scale,
        )
        self.norm = norm

    def _make_families(self, n_features):
        return [
            Complement(
                alpha=self._alpha(), estimate=self.estimate, norm=self.norm, missing=self.missing
            )
        ]

    def _publish(self):
        super()._publish()
        self.feature_all_ = self.feature_count_.sum(axis=0)


class PoissonNB(_DiscreteNB):
    """Naive Bayes for event counts: an independent Poisson rate per class and feature.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "auto" or "cv", default=1.0
        "cv" chooses alpha inside fit by the log-loss of 5-fold stratified cross-validation
        (weighted, pooled over the folds) among 13 values from 0.001 to 10, three per decade
        (1 + those for estimate="map"), from the statistics of one pass (no refit);
        ``cv_results_`` keeps the candidates and their losses. Needs all rows in ``fit``.
        Gamma prior shape (hallucinated total count); "auto" maximises the Gamma-Poisson
        evidence of the training counts.
    beta : float, default=1.0
        Gamma prior rate (hallucinated number of rows).
    force_alpha, fit_prior, class_prior, estimate, prior_alpha, missing
        As in :class:`MultinomialNB`.
    decision_threshold : float, optional
        Two classes only: predict ``classes_[1]`` when its log-odds exceed this value (or,
        with ``threshold_scale="proba"``, when its probability does). None is the usual
        most-probable-class rule (threshold 0). Raise it to make e.g. a spam filter less
        aggressive.
    threshold_scale : {"log_odds", "proba"}, default="log_odds"
        The scale of ``decision_threshold``: log-odds, or the probability of ``classes_[1]``.

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted sum of counts per class and feature.
    rate_ : ndarray of shape (n_classes, n_features)
        Estimated Poisson rates lambda_kj; computed from ``params_`` on each read.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log lambda_kj; computed from ``params_`` on each read.
    alpha_ : float or ndarray of shape (n_features,)
        The smoothing used: ``alpha`` itself, or the evidence maximiser for ``alpha="auto"``.
    coef_, intercept_ : ndarray
        The linear form: log-odds ``linear_features(X) @ coef_[0] + intercept_[0]`` for two
        classes, per-class scores otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import PoissonNB
    >>> X = np.array([[0, 5], [1, 4], [6, 0], [5, 1]]); y = [0, 0, 1, 1]
    >>> PoissonNB().fit(X, y).predict([[4, 1]]).tolist()
    [1]
    """

    _finalize_only = _DISCRETE_FINALIZE | {"beta"}
    _parameter_constraints: ClassVar[dict] = {
        **_DiscreteNB._parameter_constraints,
        "beta": [Interval(Real, 0, None, closed="left")],
    }

    def capabilities(self) -> frozenset[str]:
        """BaseNB's, and X as one matrix of numbers, word counts included (see
        :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        return super().capabilities() | {base.NUMERIC_INPUT, base.WORD_COUNTS}

    def __init__(
        self,
        *,
        alpha=1.0,
        beta=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        estimate="posterior_mean",
        prior_alpha=0.0,
        missing="error",
        decision_threshold=None,
        threshold_scale="log_odds",
    ):
        self.alpha = alpha
        self.beta = beta
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.missing = missing
        self.decision_threshold = decision_threshold
        self.threshold_scale = threshold_scale

    def _make_families(self, n_features):
        return [
            Poisson(
                alpha=self._alpha(), beta=self.beta, estimate=self.estimate, missing=self.missing
            )
        ]

    @property
    def rate_(self) -> np.ndarray:
        """(n_classes, n_features) rate of each feature in each class; computed from
        ``params_`` on each read."""
        check_is_fitted(self, "params_")
        return self.families_[0].rate_tables(self.params_[0])[1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        # scikit-learn's checks generate whole numbers only for "categorical" input, and
        # PoissonNB rejects fractional counts.
        tags.input_tags.categorical = True
        return tags


class CategoricalNB(_DiscreteNB):
    """Naive Bayes for categorical features, Dirichlet(alpha) prior.

    Features are either integer codes 0 .. K_j - 1 (as in scikit-learn) or any hashable
    values -- strings, booleans, pandas categoricals, mixed objects -- for which a vocabulary
    per column is learned (``categories_``) and extended append-only by ``partial_fit``. Which
    of the two is decided by the first batch: numeric input means codes.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "auto" or "cv", default=1.0
        "cv" chooses alpha inside fit by the log-loss of 5-fold stratified cross-validation
        (weighted, pooled over the folds) among 13 values from 0.001 to 10, three per decade
        (1 + those for estimate="map"), from the statistics of one pass (no refit);
        ``cv_results_`` keeps the candidates and their losses. Needs all rows in ``fit``.
        "auto" chooses alpha at fit time by maximising the evidence (marginal likelihood of
        the training features under the Dirichlet / Beta / Gamma prior) from the counts alone.
        The posterior-mean estimate (n + a) / (N + K a) is already the Bayesian posterior
        predictive of the next observation, so no separate Bayesian mode is needed.
    force_alpha : bool, default=True
        Keep ``alpha`` as given even when it is below 1e-10 (scikit-learn's parameter; False
        raises such an alpha to 1e-10, as scikit-learn does).
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    min_categories : int or array-like of shape (n_features,), optional
        The least number of categories of each column, as scikit-learn's parameter: room
        for categories that no training row holds, which get their share of the smoothing.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        How a discrete parameter is estimated from its counts n out of N under the prior:
        "posterior_mean" (n + alpha) / (N + K alpha), Lidstone smoothing and scikit-learn's
        estimate; "map" (n + alpha - 1) / (N + K (alpha - 1)), the posterior mode, for
        alpha >= 1; "mle" n / N, where an unseen value has probability zero.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    missing : {"error", "ignore", "category"}, default="error"
        "ignore" skips missing cells (NaN, None, pd.NA; or the code -1 in integer input) at fit
        and marginalises them at predict. "category" (values, not codes) makes missingness a
        category of its own: code 0 of every column.
    unseen : {"error", "ignore", "smooth"}, default="error"
        A category at predict time that training never saw (a code >= ``n_categories_[j]``,
        or a value outside the vocabulary). "error" matches scikit-learn, which cannot score
        it either; "ignore" drops the factor; "smooth" gives it the prior mass of a category
        with no observations. With values, one of another type than every training value of
        its column is matched by what it stands for (the text "7" and the number 7, either
        way), and a column whose values are mostly unseen at predict gets a UserWarning.
    decision_threshold : float, optional
        Two classes only: predict ``classes_[1]`` when its log-odds exceed this value (or,
        with ``threshold_scale="proba"``, when its probability does). None is the usual
        most-probable-class rule (threshold 0). Raise it to make e.g. a spam filter less
        aggressive.
    threshold_scale : {"log_odds", "proba"}, default="log_odds"
        The scale of ``decision_threshold``: log-odds, or the probability of ``classes_[1]``.

    Attributes
    ----------
    n_categories_ : ndarray of shape (n_features,)
    category_count_ : list of n_features arrays of shape (n_classes, n_categories_[j])
    feature_log_prob_ : list of n_features arrays of shape (n_classes, n_categories_[j])
    alpha_ : float or ndarray of shape (n_features,)
        The smoothing used: ``alpha`` itself, or the evidence maximiser for ``alpha="auto"``.
    coef_, intercept_ : ndarray
        The linear form: log-odds ``linear_features(X) @ coef_[0] + intercept_[0]`` for two
        classes, per-class scores otherwise.
    categories_ : list of n_features arrays, or None
        The learned values of each column in code order, when fitted on values (None for
        codes). Under missing="category" code 0 is "missing" and values start at code 1.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import CategoricalNB
    >>> X = np.array([[0, 1], [0, 2], [1, 0], [2, 0]]); y = [0, 0, 1, 1]
    >>> CategoricalNB().fit(X, y).predict([[0, 2]]).tolist()
    [0]
    >>> X = [["red", "S"], ["red", "M"], ["blue", "L"], ["green", "L"]]
    >>> model = CategoricalNB().fit(X, ["a", "a", "b", "b"])
    >>> model.categories_[0].tolist(), model.predict([["red", "L"]]).tolist()
    (['blue', 'green', 'red'], ['a'])
    """

    _finalize_only = _DISCRETE_FINALIZE | {"min_categories", "unseen"}
    _parameter_constraints: ClassVar[dict] = {
        **_DiscreteNB._parameter_constraints,
        "min_categories": [Interval(Integral, 1, None, closed="left"), "array-like", None],
        "missing": [StrOptions({"error", "ignore", "category"})],
        "unseen": [StrOptions({"error", "ignore", "smooth"})],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        min_categories=None,
        estimate="posterior_mean",
        prior_alpha=0.0,
        missing="error",
        unseen="error",
        decision_threshold=None,
        threshold_scale="log_odds",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.missing = missing
        self.decision_threshold = decision_threshold
        self.threshold_scale = threshold_scale
        self.unseen = unseen

    def _validate_X(self, X, reset):
        if reset:
            self._layout = None
        # Codes or values: decided by the first batch, then by whether it made a vocabulary.
        if _is_numeric(X) if reset else getattr(self, "_layout", None) is None:
            if self.missing == "category":
                raise ParameterError(
                    "missing='category' needs category values (strings, objects); got numeric "
                    "codes. Use missing='ignore', or pass the values themselves."
                )
            return validate_data(
                self, X, reset=reset, accept_sparse="csr", dtype="numeric", ensure_all_finite=False
            )
        values = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False)
        if values.dtype != object:
            values = values.astype(object)
        if reset:
            self._layout = self._new_layout(values.shape[1])
        return values

    def _new_layout(self, n_features: int) -> ColumnLayout:
        """One categorical group of all columns."""
        names = getattr(self, "feature_names_in_", None)
        return ColumnLayout(
            [np.arange(n_features)],
            [True],
            None if names is None else list(names),
            self.missing,
            self.unseen,
        )

    # -- the estimator protocol: category values need a survey of their distinct values ------
    @staticmethod
    def _codes_in(meta) -> bool:
        return isinstance(meta, (int, np.integer)) or _is_numeric(meta)

    def survey_step(self, meta, summary=None):
        """Category values (not codes) need one pass for the distinct values of every column,
        so that codes come out as ``fit`` on all rows numbers them.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            The data's columns and dtypes (a table), or its number of columns (an array).
        summary : object, optional
            What the passes so far found (None before the first pass).

        Returns
        -------
        SurveyStep or None
            The pass to run over all the data, or None when :meth:`setup` can go ahead.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import MixedNB, MultinomialNB
        >>> MultinomialNB().survey_step(3) is None
        True
        >>> meta = pd.DataFrame({"city": pd.Series(dtype=object), "t": pd.Series(dtype=float)})
        >>> MixedNB().survey_step(meta).columns
        ['city', 't']
        """
        if summary is not None or self._codes_in(meta):
            return None
        return SurveyStep(
            list(meta.columns),
            partial(_survey.survey_partition, capped=frozenset(), cap=_survey.SURVEY_CAP),
            partial(_survey.merge_surveys, frozenset(), _survey.SURVEY_CAP),
        )

    def setup(self, meta, summary=None) -> None:
        """Get ready to :meth:`accumulate` batches, without learning from any.

        Discards any fitted state; sets the columns (``n_features_in_``, and
        ``feature_names_in_`` for a table with string column names), the families and any
        vocabulary, exactly as ``fit`` on all the rows would.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            As in :meth:`survey_step`.
        summary : object, optional
            The final summary of the survey passes, if :meth:`survey_step` asked for any.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB()
        >>> model.setup(2)
        >>> stats = model.accumulate(np.array([[1, 0], [0, 2]]), Labels([0, 1], [1.0, 1.0], 2))
        >>> model.install(np.array(["a", "b"]), stats).predict([[3, 0]]).tolist()
        ['a']
        """
        super().setup(meta, summary)
        self._layout = None
        if self._codes_in(meta):
            if self.missing == "category":
                raise ParameterError(
                    "missing='category' needs category values (strings, objects); got numeric "
                    "codes. Use missing='ignore', or pass the values themselves."
                )
            return
        if summary is None:
            raise ParameterError(
                "CategoricalNB on category values cannot number them without a survey of "
                "their distinct values: run the passes of survey_step() first."
            )
        _, found = summary
        self._layout = self._new_layout(self.n_features_in_)
        self._layout.learn_values({p: found.get(c) for p, c in enumerate(meta.columns)})

    def _blocks(self, X, mode="score", counted=None):
        if getattr(self, "_layout", None) is None:
            return [X]
        return [self._layout.encode(X, 0, mode, counted)]

    def _linear_names(self, block_names) -> np.ndarray:
        if getattr(self, "_layout", None) is None:
            return super()._linear_names(block_names)
        return np.asarray(
            self._layout.linear_names(0, block_names[0], self.params_[0]["n_categories"]),
            dtype=str,
        )

    def _get_layout(self):
        if self._layout is None:
            return None
        return {"vocabulary": self._layout.vocabulary_state()[0]}

    def _set_layout(self, layout, n_features: int) -> None:
        self._layout = None
        if layout is None:
            return
        spec = layout.get("vocabulary") if isinstance(layout, dict) else None
        if not isinstance(spec, dict):
            raise ValueError("the category vocabulary is malformed.")
        self._layout = self._new_layout(n_features)
        self._layout.set_vocabulary_state([spec])

    def recode_statistics(self, other) -> dict:
        """The statistics of fitted ``other`` (same kind, same settings) in this model's
        encoding, ready to merge with this model's (vocabularies are extended as needed).

        Parameters
        ----------
        other : estimator
            A fitted model of the same class and set-up parameters, over the same columns.

        Returns
        -------
        dict
            ``other``'s statistics, encoded as this model's (over ``other``'s classes).

        Examples
        --------
        >>> from nbayes import CategoricalNB
        >>> a = CategoricalNB().fit([["red"], ["blue"]], [0, 1])
        >>> b = CategoricalNB().fit([["green"]], [0])
        >>> a.recode_statistics(b)["groups"][0]["n_counts"].tolist()  # blue, red, green
        [[0.0, 0.0, 1.0]]
        """
        if (self._layout is None) != (other._layout is None):
            raise ParameterError(
                "Cannot merge a CategoricalNB fitted on category codes with one fitted on "
                "category values; fit both on the same kind of input."
            )
        if self._layout is None:
            return other.stats_
        return {
            **other.stats_,
            "groups": self._layout.recode(other._layout, other.stats_["groups"]),
        }

    def _vocabulary_snapshot(self):
        layout = getattr(self, "_layout", None)
        return None if layout is None else layout.copy()

    def _restore_vocabulary(self, snapshot) -> None:
        self._layout = snapshot

    def _remake_families(self):
        if self._layout is not None:
            self._layout = self._layout.with_unseen(self.unseen)
        return super()._remake_families()

    def _restrict(self, stats: dict) -> dict:
        if self._layout is None:
            return stats
        self._layout, groups = self._layout.restricted(stats["groups"])
        return {**stats, "groups": groups}

    def _make_families(self, n_features):
        # Under missing="category" missing cells arrive as code 0: none to skip.
        missing = "ignore" if self.missing == "ignore" else "error"
        return [
            Categorical(
                alpha=self._alpha(),
                estimate=self.estimate,
                min_categories=self.min_categories,
                missing=missing,
                unseen=self.unseen,
            )
        ]

    def _publish(self):
        self.n_categories_ = self.params_[0]["n_categories"]
        self._publish_alpha()

    # A table as wide as the vocabulary costs a pass over it to lay out, which partial_fit
    # does not pay per batch: these are computed from the statistics and parameters on each
    # read (views that change nothing; keep the result rather than read them in a loop).
    @property
    def category_count_(self) -> list:
        """Per column, the (n_classes, n_categories_[j]) weighted counts of each category;
        computed on each read."""
        check_is_fitted(self, "params_")
        stats, n_cat = self.stats_["groups"][0], self.params_[0]["n_categories"]
        counts = expand(stats["n_counts"], stats["n_categories"], n_cat)
        return [counts[:, a:b] for a, b in _pieces(n_cat)]

    @property
    def feature_log_prob_(self) -> list:
        """Per column, the (n_classes, n_categories_[j]) log probability of each category;
        computed from ``params_`` on each read."""
        check_is_fitted(self, "params_")
        params = self.params_[0]
        log_theta = self.families_[0].log_theta(params)
        return [log_theta[:, a:b] for a, b in _pieces(params["n_categories"])]

    @property
    def categories_(self) -> list | None:
        """The values of each column in code order (None when fitted on codes); computed
        from the vocabulary on each read."""
        if "_layout" not in self.__dict__:
            raise AttributeError("'CategoricalNB' object has no attribute 'categories_'")
        layout = self._layout
        return None if layout is None else list(layout.categories().values())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.categorical = True
        return tags


def _is_numeric(X) -> bool:
    """True for input that holds numbers only (category codes), False for values."""
    if sp.issparse(X):
        return True
    if isinstance(X, pd.DataFrame):
        return all(
            getattr(t, "kind", "O") in "biuf" and not isinstance(t, pd.CategoricalDtype)
            for t in X.dtypes
        )
    arr = X if isinstance(getattr(X, "dtype", None), np.dtype) else np.asarray(X)
    if arr.dtype == object:  # numbers stored as objects are still codes
        try:
            arr[~pd.isna(arr)].astype(np.float64)
        except ValueError:  # text: category values
            return False
        except TypeError:  # neither numbers nor text: validation reports it as for codes
            return True
        return True
    return arr.dtype.kind in "biuf"


def _pieces(n_categories: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of each column's categories in the flat (class, category) layout."""
    return list(pairwise([*offsets_of(n_categories).tolist(), int(n_categories.sum())]))
