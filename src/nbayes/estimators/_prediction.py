"""Prediction and scoring of :class:`~._base.BaseNB`: joint log-likelihoods, posteriors,
``predict`` with its decision threshold, and ``decision_function``."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import _engine as engine
from ..exceptions import NotFittedError
from ._inputs import log_odds_threshold

#: Scoring tables per fitted estimator, keyed weakly by the estimator and checked against its
#: ``params_``: kept outside the instance, whose ``__dict__`` predict must leave unchanged
#: (scikit-learn's contract), and gone with it.
_SCORING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _Prediction:
    """Scores of a batch under the fitted parameters, and what is read off them."""

    if TYPE_CHECKING:  # what the host (BaseNB) supplies
        classes_: np.ndarray
        families_: Any
        class_log_prior_: np.ndarray
        _validate_X: Callable[..., Any]
        _blocks: Callable[..., Any]
        _feature_names_per_block: Callable[..., Any]

    # -- prediction -----------------------------------------------------------------------------
    def _scoring_params(self) -> list:
        """``params_`` with each family's scoring tables, made once per fitted state: they
        cost a pass over the parameters (the whole vocabulary of a large model), which every
        prediction call, one row or a million, would otherwise pay again."""
        params = self.__dict__.get("params_")
        if params is None:
            raise NotFittedError(
                f"This {type(self).__name__} holds statistics without parameters (installed "
                "with finalize=False); call finalize() before scoring."
            )
        cached = _SCORING.get(self)
        if cached is None or cached[0] is not params:
            cached = (params, [fam.ready(p) for fam, p in zip(self.families_, params)])
            _SCORING[self] = cached
        return cached[1]

    def _jll(self, X, normalised: bool) -> np.ndarray:
        check_is_fitted(self, "stats_")
        X = self._validate_X(X, reset=False)
        return engine.joint_log_likelihood(
            self.families_,
            self._scoring_params(),
            self.class_log_prior_,
            self._blocks(X, "score"),
            self._feature_names_per_block(),
            normalised=normalised,
        )

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(x, y) for every class, shape (n_samples, n_classes), columns in ``classes_``
        order. Includes class-independent terms, so it is a true log-probability.

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The samples to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.predict_joint_log_proba([[1, 1]]).round(3)
        array([[-1.216, -2.238]])
        """
        return self._jll(X, normalised=True)

    def joint_log_scores(self, X) -> np.ndarray:
        """log P(x, y) without the families' class-independent normalisers, shape
        (n_samples, n_classes) (see :meth:`EstimatorProtocol.joint_log_scores`).

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The samples to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; differences between columns are exact log-odds.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> scores = model.joint_log_scores([[1, 1]])
        >>> joint = model.predict_joint_log_proba([[1, 1]])
        >>> bool(abs((scores[0, 0] - scores[0, 1]) - (joint[0, 0] - joint[0, 1])) < 1e-12)
        True
        """
        return self._jll(X, normalised=False)

    def _posterior(self, X, log: bool) -> np.ndarray:
        check_is_fitted(self, "stats_")
        X = self._validate_X(X, reset=False)
        return engine.posterior(
            self.families_,
            self._scoring_params(),
            self.class_log_prior_,
            self._blocks(X, "score"),
            self._feature_names_per_block(),
            log=log,
        )

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posterior log P(y | x) of every class, for each sample.

        Computed in log space (log-sum-exp), so a class far less probable than another keeps a
        finite log-probability where :meth:`predict_proba` would round it to 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; ``exp`` of each row sums to one.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.predict_log_proba([[3, 0]]).round(2)
        array([[-0.01, -4.32]])
        """
        return self._posterior(X, log=True)

    def predict_proba(self, X) -> np.ndarray:
        """Posterior probability P(y | x) of every class, for each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; each row sums to one.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.predict_proba([[3, 0], [0, 2]]).round(2)
        array([[0.99, 0.01],
               [0.26, 0.74]])
        """
        return self._posterior(X, log=False)

    def predict(self, X) -> np.ndarray:
        """Most probable class of each sample.

        Where the model has a ``decision_threshold`` (two classes only; for a wrapper, its
        inner model's), ``classes_[1]`` is predicted exactly when its log-odds exceed the
        threshold; otherwise the most probable class (ties go to the first class, as
        ``argmax``), which is the threshold 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per sample.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.predict([[3, 0], [0, 2]]).tolist()
        ['a', 'b']
        """
        threshold = self._log_odds_threshold()
        jll = self._jll(X, normalised=False)
        if threshold is None:
            return self.classes_[np.argmax(jll, axis=1)]
        return self.classes_[(engine.log_odds(jll) > threshold).astype(np.intp)]

    def _log_odds_threshold(self) -> float | None:
        """``decision_threshold`` in log-odds, validated; None for the plain argmax rule."""
        return log_odds_threshold(
            getattr(self, "decision_threshold", None),
            getattr(self, "threshold_scale", "log_odds"),
            len(self.classes_) if hasattr(self, "classes_") else None,
        )

    def decision_function(self, X) -> np.ndarray:
        """Log-odds for two classes, the posterior otherwise.

        Two classes: log P(classes_[1] | x) - log P(classes_[0] | x), shape (n_samples,); its
        sign gives ``predict`` (threshold 0) and its logistic sigmoid ``predict_proba[:, 1]``.
        For a linear model it equals ``linear_features(X) @ coef_[0] + intercept_[0]``. Exact
        within log(1 / eps) of float64, about 36.04, where the probabilities are resolved,
        and clipped to it beyond (``engine.bound_decision``), where the likelier class's
        probability rounds to 1: the tools see tied rows there, as around scikit-learn's
        naive Bayes.
        More classes: the posterior P(y | x), equal to ``predict_proba``, shape (n_samples,
        n_classes); its argmax gives ``predict``. scikit-learn's tools prefer
        ``decision_function`` to ``predict_proba`` and read it one column at a time
        (``CalibratedClassifierCV`` fits a sigmoid or an isotonic map per class, the
        one-vs-rest curves rank the rows per class); on the posterior they fit what they fit
        around scikit-learn's naive Bayes, which has ``predict_proba`` only. Temperature
        scaling recognises probabilities and takes their log. A log-scale score (the log
        posterior, the one-vs-rest log-odds) leaves Platt's per-class sigmoid a different
        family of maps, which calibrates overconfident models worse.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The log-odds of ``classes_[1]`` (two classes) or the posterior of every class.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.decision_function([[3, 0], [0, 2]]).round(2)
        array([-4.31,  1.06])
        >>> three = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "b", "c"])
        >>> bool((three.decision_function([[3, 0]]) == three.predict_proba([[3, 0]])).all())
        True
        """
        if len(getattr(self, "classes_", ())) > 2:
            return self.predict_proba(X)
        return engine.bound_decision(engine.log_odds(self._jll(X, normalised=False)))
