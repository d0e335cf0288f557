"""The reference of the ecosystem suite for an estimator that scikit-learn has no counterpart
of: the same estimator seen through its ``predict_proba`` alone."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted


class ProbaOnly(ClassifierMixin, BaseEstimator):
    """A classifier seen through ``predict_proba`` alone: scikit-learn's tools then read its
    probabilities where they would read ``decision_function``. The reference of the
    ecosystem suite for an estimator that scikit-learn has no counterpart of.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``
        The model; ``fit`` fits a clone of it.

    Examples
    --------
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import ProbaOnly
    >>> model = ProbaOnly(GaussianNB()).fit([[0.0], [0.2], [2.0], [2.2]], [0, 0, 1, 1])
    >>> hasattr(model, "decision_function"), model.predict([[2.1]]).tolist()
    (False, [1])
    """

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, sample_weight=None):
        """Fit a clone of ``estimator``.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts
            Whatever ``estimator`` takes.
        y : array-like of shape (n_samples,)
            The labels.
        sample_weight : array-like of shape (n_samples,), optional
            Passed on when given.

        Returns
        -------
        self
            The fitted shell.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.testing import ProbaOnly
        >>> ProbaOnly(GaussianNB()).fit([[0.0], [1.0]], [0, 1]).classes_.tolist()
        [0, 1]
        """
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        self.estimator_ = clone(self.estimator).fit(X, y, **kwargs)
        self.classes_ = self.estimator_.classes_
        return self

    def predict_proba(self, X) -> np.ndarray:
        """``estimator_.predict_proba(X)``.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts
            Whatever ``estimator`` takes.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The posterior of every class.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.testing import ProbaOnly
        >>> model = ProbaOnly(GaussianNB()).fit([[0.0], [0.5], [3.0], [3.5]], [0, 0, 1, 1])
        >>> model.predict_proba([[0.2]]).round(2)
        array([[1., 0.]])
        """
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    def predict(self, X) -> np.ndarray:
        """The class of highest probability.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts
            Whatever ``estimator`` takes.

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per row.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.testing import ProbaOnly
        >>> model = ProbaOnly(GaussianNB()).fit([[0.0], [0.5], [3.0], [3.5]], [0, 0, 1, 1])
        >>> model.predict([[3.2]]).tolist()
        [1]
        """
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags = clone(self.estimator).__sklearn_tags__().input_tags
        return tags
