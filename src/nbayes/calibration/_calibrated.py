"""scikit-learn's CalibratedClassifierCV, with the fold models made from fold statistics."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.calibration import CalibratedClassifierCV as SklearnCalibrated
from sklearn.model_selection import LeaveOneOut, check_cv
from sklearn.utils import _safe_indexing, indexable
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .. import base
from .._labels import fit_classes, label_codes
from .._threads import single_threaded_blas
from ..estimators._base import log_odds_threshold
from ..exceptions import ParameterError
from . import _out_of_fold as oof

METHODS = ("sigmoid", "isotonic", "temperature")


class CalibratedClassifierCV(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Probability calibration with cross-validation, from fold statistics.

    A drop-in for :class:`sklearn.calibration.CalibratedClassifierCV` over nbayes estimators:
    the same parameters, the same folds, scikit-learn's own calibrators fitted on the same
    out-of-fold decision values, so for the same folds ``predict_proba`` equals
    scikit-learn's to floating-point rounding. The difference is how the fold models are
    made: for an estimator with the ``candidate_scoring`` capability the data is counted
    once per fold and the model of the rows outside fold ``i`` is the total statistics minus
    fold ``i``'s, finalized (:class:`nbayes.model_selection.FoldStatistics`), never a refit.
    Other estimators (a learned vocabulary, a semi-naive structure, a non-nbayes classifier,
    splits that do not train on every row outside their test fold, or ``fit_params``) are
    refitted per fold by scikit-learn's own ``CalibratedClassifierCV``;
    ``fold_statistics_`` says which way was taken.

    With two classes, the estimator's ``decision_threshold`` (log-odds, or a probability of
    ``classes_[1]`` with ``threshold_scale="proba"``) acts on the calibrated probability:
    ``predict`` gives ``classes_[1]`` exactly where the calibrated log-odds exceed it.
    Without a threshold, ``predict`` is the most probable calibrated class, as in
    scikit-learn.

    Parameters
    ----------
    estimator : classifier
        The model to calibrate (cloned; an nbayes estimator to use fold statistics).
    method : {"sigmoid", "isotonic", "temperature"}, default "sigmoid"
        Platt's sigmoid on each class's score (one-vs-rest beyond two classes), isotonic
        regression, or one temperature for all classes.
    cv : int, cross-validation generator or iterable, optional
        As scikit-learn's: None is 5-fold, an int that many (stratified) folds.
    n_jobs : int, optional
        Passed to scikit-learn where it refits; fold statistics need no parallel fits.
    ensemble : bool or "auto", default "auto"
        True: one calibrated model per fold, their probabilities averaged. False: one
        calibrator fitted on all the out-of-fold values, over the model of all the rows.
        "auto" is True (False for scikit-learn's ``FrozenEstimator``, as scikit-learn).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    calibrated_classifiers_ : list
        scikit-learn's ``_CalibratedClassifier`` objects: a fitted model and its calibrators
        each (one per fold with ``ensemble``, else one).
    fold_statistics_ : bool
        Whether the fold models came from fold statistics (else from refits).

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes.calibration import CalibratedClassifierCV
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = rng.poisson(1 + 2 * y[:, None] * (np.arange(6) < 2), (200, 6))
    >>> model = CalibratedClassifierCV(MultinomialNB(), cv=3).fit(X, y)
    >>> model.fold_statistics_, len(model.calibrated_classifiers_)
    (True, 3)
    >>> model.predict_proba(X[:2]).round(2)
    array([[0.19, 0.81],
           [0.12, 0.88]])
    """

    def __init__(self, estimator=None, *, method="sigmoid", cv=None, n_jobs=None, ensemble="auto"):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.n_jobs = n_jobs
        self.ensemble = ensemble

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the fold models and their calibrators.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the estimator takes them.
        y : array-like of shape (n_samples,)
            The class label of each row.
        sample_weight : array-like of shape (n_samples,), optional
            Weights of the rows, for the models and for the calibrators.
        **fit_params : dict
            Passed on to the estimator's ``fit`` (which then is refitted per fold).

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.calibration import CalibratedClassifierCV
        >>> X = [[0.1], [0.3], [0.2], [2.0], [2.4], [1.9]]; y = [0, 0, 0, 1, 1, 1]
        >>> model = CalibratedClassifierCV(GaussianNB(), method="isotonic", cv=3).fit(X, y)
        >>> model.predict([[0.0], [2.2]]).tolist()
        [0, 1]
        """
        self._check_params()
        X, y = indexable(X, y)
        # The library's one reading of labels (what the estimators' fit finds as classes).
        self.classes_ = fit_classes(np.asarray(y))
        codes = label_codes(y, self.classes_)[0]  # once: the calibrators' targets come from them
        if self.method == "temperature" and isinstance(y[0], str):
            y = codes  # as scikit-learn does, before any model is fitted
        splits = self._splits(X, y)
        n = len(y)
        ensemble = True if self.ensemble == "auto" else bool(self.ensemble)
        folds = None
        if not fit_params and (ensemble or oof.partitions(splits, n)):
            X = oof.as_rows(self.estimator, X)
            folds = oof.fold_statistics(self.estimator, X, y, splits, sample_weight)
        self.fold_statistics_ = folds is not None
        if folds is None:
            # scikit-learn's fold models score their held-out rows inside this fit.
            with oof.held_out():
                refit = SklearnCalibrated(
                    self.estimator,
                    method=self.method,
                    cv=splits,
                    n_jobs=self.n_jobs,
                    ensemble=self.ensemble,
                ).fit(X, y, sample_weight=sample_weight, **fit_params)
            self.calibrated_classifiers_ = refit.calibrated_classifiers_
        elif ensemble:
            self.calibrated_classifiers_ = self._fit_per_fold(*folds, X, y, codes, sample_weight)
        else:
            self.calibrated_classifiers_ = [self._fit_pooled(*folds, y, codes, sample_weight)]
        first = self.calibrated_classifiers_[0].estimator
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(first, name):
                setattr(self, name, getattr(first, name))
        return self

    def _check_params(self) -> None:
        if self.estimator is None:
            raise ParameterError(
                "CalibratedClassifierCV needs an estimator to calibrate, e.g. "
                "CalibratedClassifierCV(MultinomialNB())."
            )
        if self.method not in METHODS:
            raise ParameterError(
                f"Parameter 'method' must be one of {METHODS}; got {self.method!r}."
            )
        if self.ensemble not in ("auto", True, False):
            raise ParameterError(
                f"Parameter 'ensemble' must be True, False or 'auto'; got {self.ensemble!r}."
            )

    def _splits(self, X, y) -> list:
        """The (train, test) splits of ``cv``, after scikit-learn's checks."""
        n_folds = self.cv if isinstance(self.cv, int) else getattr(self.cv, "n_splits", None)
        if n_folds and np.any(np.unique(np.asarray(y), return_counts=True)[1] < n_folds):
            raise ParameterError(
                f"Requesting {n_folds}-fold cross-validation but provided less than "
                f"{n_folds} examples for at least one class; use fewer folds."
            )
        if isinstance(self.cv, LeaveOneOut):
            raise ParameterError(
                "LeaveOneOut cross-validation leaves classes out of the test folds; use a "
                "splitter whose every split holds every class, e.g. StratifiedKFold."
            )
        cv = check_cv(self.cv, y, classifier=True)
        return [(np.asarray(train), np.asarray(test)) for train, test in cv.split(X, y)]

    def _fit_per_fold(self, folds, X_tests, X, y, codes, sample_weight) -> list:
        """One calibrated model per fold, as scikit-learn's ``ensemble=True``."""
        calibrated = []
        with single_threaded_blas():  # once: each limit costs about a millisecond
            for i, ((_, test), X_test) in enumerate(zip(folds.splits, X_tests)):  # folds
                model = folds.train_model(i)
                values = oof.response(model, X_test)
                w = None
                if sample_weight is not None:
                    w = _check_sample_weight(sample_weight, X, dtype=values.dtype)[test]
                calibrated.append(
                    oof.fit_calibrator(
                        model,
                        values,
                        _safe_indexing(y, test),
                        codes[test],
                        self.classes_,
                        self.method,
                        sample_weight=w,
                    )
                )
        return calibrated

    def _fit_pooled(self, folds, X_tests, y, codes, sample_weight):
        """One calibrator on every row's out-of-fold value, over the model of all rows, as
        scikit-learn's ``ensemble=False``."""
        values = oof.out_of_fold(folds, X_tests, len(y))
        w = None
        if sample_weight is not None:
            w = _check_sample_weight(sample_weight, values, dtype=values.dtype)
        # The total passed on: a finalize of it drops what only zero-weight rows hold, as a
        # fit on the weighted rows never learns it.
        model = folds.model.finalize_with({}, folds.total)
        with single_threaded_blas():
            return oof.fit_calibrator(
                model, values, y, codes, self.classes_, self.method, sample_weight=w
            )

    def predict_proba(self, X) -> np.ndarray:
        """Calibrated probability of every class: the mean over the calibrated models.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the estimator takes them.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.calibration import CalibratedClassifierCV
        >>> X = [[0.1], [0.3], [0.2], [2.0], [2.4], [1.9]]; y = [0, 0, 0, 1, 1, 1]
        >>> model = CalibratedClassifierCV(GaussianNB(), method="isotonic", cv=3).fit(X, y)
        >>> model.predict_proba([[0.0], [2.2]]).round(2).tolist()
        [[0.98, 0.02], [0.0, 1.0]]
        """
        check_is_fitted(self)
        proba = self.calibrated_classifiers_[0].predict_proba(X)
        for calibrated in self.calibrated_classifiers_[1:]:  # bounded by folds
            proba += calibrated.predict_proba(X)
        return proba / len(self.calibrated_classifiers_)

    def predict(self, X) -> np.ndarray:
        """Most probable calibrated class; with two classes and a ``decision_threshold`` on
        the estimator, ``classes_[1]`` where the calibrated log-odds exceed it.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the estimator takes them.

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per sample.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.calibration import CalibratedClassifierCV
        >>> X = [[0.1], [0.3], [0.2], [2.0], [2.4], [1.9]]; y = [0, 0, 0, 1, 1, 1]
        >>> est = GaussianNB(decision_threshold=0.99, threshold_scale="proba")
        >>> model = CalibratedClassifierCV(est, method="isotonic", cv=3).fit(X, y)
        >>> model.predict([[0.0], [2.2]]).tolist()
        [0, 1]
        """
        proba = self.predict_proba(X)
        threshold = self.threshold()
        if threshold is None:
            return self.classes_[np.argmax(proba, axis=1)]
        with np.errstate(divide="ignore"):  # a probability of 0 or 1 is -inf or inf log-odds
            log_odds = np.log(proba[:, 1]) - np.log(proba[:, 0])
        return self.classes_[(log_odds > threshold).astype(np.intp)]

    def threshold(self) -> float | None:
        """The estimator's ``decision_threshold`` in log-odds (None: the argmax rule), which
        ``predict`` applies to the calibrated probability.

        Returns
        -------
        float or None
            The threshold on the calibrated log-odds of ``classes_[1]``.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.calibration import CalibratedClassifierCV
        >>> est = GaussianNB(decision_threshold=0.5, threshold_scale="proba")
        >>> CalibratedClassifierCV(est).threshold()
        0.0
        """
        model = base.inner_model(self.estimator) if hasattr(self, "classes_") else self.estimator
        n_classes = len(self.classes_) if hasattr(self, "classes_") else None
        params = model.get_params() if hasattr(model, "get_params") else {}
        return log_odds_threshold(
            params.get("decision_threshold"), params.get("threshold_scale", "log_odds"), n_classes
        )
