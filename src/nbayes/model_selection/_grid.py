"""GridSearchCV over finalize-time parameters, scored from fold statistics."""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, MetaEstimatorMixin
from sklearn.exceptions import FitFailedWarning
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.model_selection._search import BaseSearchCV
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._labels import label_codes
from .._params import HasMethods, check_params
from .._threads import map_chunks
from .._validation import user_stacklevel
from ..estimators._base import check_sample_weight
from ..estimators._folds import take_rows
from ..exceptions import ParameterError
from ._fold_statistics import FoldStatistics
from ._scores import (
    _accepts_sample_weight,
    _groups,
    _on_threads,
    _quick_metrics,
    _score_together,
    _scored_together,
)


class GridSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Exhaustive search over finalize-time parameters by exact K-fold cross-validation
    from fold statistics: scikit-learn's ``GridSearchCV`` for nbayes estimators, without
    a refit per candidate.

    Each fold is counted once (one pass over the data); the model of the rows outside fold
    f is (total - fold f) statistics; every candidate is a different finalize of them, scored
    on fold f by scikit-learn's scorer called on that model. The fold scores equal those of
    ``sklearn.model_selection.GridSearchCV`` over the same estimator (same splits, same
    scorer) to floating-point rounding.

    Parameters
    ----------
    estimator : nbayes estimator
        MultinomialNB, BernoulliNB, ComplementNB, PoissonNB, CategoricalNB, GaussianNB,
        MixedNB, or TextNB with a HashingVectorizer or a fixed vocabulary. Refused, with the
        reason: TextNB learning its CountVectorizer vocabulary, and the semi-naive models
        (AODE, TAN, KDB, JointBayes), whose set-up depends on the rows they are fitted on.
        MixedNB's inferred families are chosen on all rows; a UserWarning names a column
        that a split's training rows would give another family (scikit-learn's search
        infers them on each split) and the ``columns=`` that fixes it.
    param_grid : dict or list of dicts
        As scikit-learn's. Only the estimator's ``finalize_params()`` may appear (alpha,
        force_alpha, estimate, fit_prior, class_prior, prior_alpha, var_smoothing,
        var_pooling, decision_threshold, ...); a parameter that changes the statistics
        (``missing``, ``binarize``, ``columns`` ...) is refused with a ParameterError.
    scoring : str, callable, list, tuple, dict or None, default=None
        As scikit-learn's: None uses the estimator's ``score`` (accuracy); a name such as
        ``"neg_log_loss"``, ``"roc_auc"``, ``"f1"``, ``"balanced_accuracy"``; a scorer; or
        several as a list or dict (then ``refit`` names the one that chooses).
    cv : int, cross-validation generator or iterable, default=5
        As scikit-learn's (``check_cv``: stratified K-fold for an int). Every split must
        train on all the rows outside its test fold.
    refit : bool, str or callable, default=True
        Install the best candidate as ``best_estimator_``: the finalize of the statistics of
        all rows, which equals a fit on all rows.
    error_score : "raise" or float, default=np.nan
        Score of a candidate whose finalize or scoring fails (with a FitFailedWarning), or
        "raise".

    Attributes
    ----------
    cv_results_ : dict of arrays
        scikit-learn's keys: ``params``, ``param_<name>`` (masked arrays),
        ``split<i>_test_score``, ``mean_test_score``, ``std_test_score``,
        ``rank_test_score`` (``_<metric>`` suffixes with several scorers),
        ``mean_fit_time`` / ``std_fit_time`` (the finalize of a candidate, seconds) and
        ``mean_score_time`` / ``std_score_time``.
    best_index_, best_params_, best_score_, best_estimator_, refit_time_
    scorer_, multimetric_, n_splits_, classes_, n_features_in_
    count_time_ : float
        Seconds spent counting the folds (the one pass over the data).

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes.model_selection import GridSearchCV
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = rng.poisson(1 + 2 * y[:, None] * (np.arange(6) < 2), (200, 6))
    >>> search = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0, 10.0]}, cv=3).fit(X, y)
    >>> sorted(search.best_params_), search.cv_results_["split0_test_score"].shape
    (['alpha'], (3,))
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["finalize_params"])],
        "param_grid": [dict, list],
        # scikit-learn's own: the same scorers, splitters and refit rules as its search
        **{
            name: BaseSearchCV._parameter_constraints[name]
            for name in ("scoring", "cv", "refit", "error_score")
        },
    }
    _parameter_messages: ClassVar[dict] = {
        "estimator": (
            "nbayes.model_selection.GridSearchCV needs an nbayes estimator; got {kind}. Use "
            "sklearn.model_selection.GridSearchCV."
        ),
    }

    def __init__(
        self, estimator, param_grid, *, scoring=None, cv=5, refit=True, error_score=np.nan
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.cv = cv
        self.refit = refit
        self.error_score = error_score

    # -- set-up ---------------------------------------------------------------------------------
    def candidates(self) -> list[dict]:
        """The candidates of ``param_grid`` in scikit-learn's order, checked: only the
        estimator's finalize-time parameters may vary (a ParameterError says which do not).

        Returns
        -------
        list of dict
            One ``{parameter: value}`` per candidate, as ``sklearn.model_selection.ParameterGrid``
            lists them.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import GridSearchCV
        >>> GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}).candidates()
        [{'alpha': 0.1}, {'alpha': 1.0}]
        """
        candidates = list(ParameterGrid(self.param_grid))
        allowed = _finalize_params(self.estimator)
        names = sorted({k for c in candidates for k in c})
        refused = [k for k in names if k not in allowed]
        if refused:
            raise ParameterError(
                f"param_grid varies {refused!r}, which change(s) what "
                f"{type(self.estimator).__name__} counts, not only how its statistics are "
                "finalized; search those with sklearn.model_selection.GridSearchCV, which "
                f"refits every candidate. Finalize-time parameters: {sorted(allowed)!r}."
            )
        return candidates

    def _scorers(self):
        """(scorer, metric names or None): one scorer, or a multi-metric one returning a dict."""
        scoring = self.scoring
        if isinstance(scoring, (list, tuple, set, Mapping)):
            names = list(scoring.keys() if isinstance(scoring, Mapping) else scoring)
            if not names:
                raise ParameterError("scoring must name at least one metric.")
            if self.refit is not False and not callable(self.refit) and self.refit not in names:
                raise ParameterError(
                    f"With several metrics, refit must name the one that chooses (one of "
                    f"{names!r}), be a callable, or be False; got {self.refit!r}."
                )
            return check_scoring(self.estimator, scoring=scoring), names
        return check_scoring(self.estimator, scoring=scoring), None

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y, *, groups=None, sample_weight=None):
        """Count the folds, score every candidate on every fold, refit the best.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.
        y : array-like of shape (n_samples,)
            The class label of each row.
        groups : array-like of shape (n_samples,), optional
            Group labels for group splitters.
        sample_weight : array-like of shape (n_samples,), optional
            Weights of the rows: the statistics count them, and the test rows' weights go to
            the scorer where the metric takes weights, as scikit-learn's search (1.9) does.

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import GridSearchCV
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3], [4, 1], [0, 3]])
        >>> y = np.array([0, 1, 0, 1, 0, 1])
        >>> search = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
        >>> search.best_params_
        {'alpha': 0.1}
        """
        check_params(self)
        candidates = self.candidates()
        scorer, metrics = self._scorers()
        y_checked = column_or_1d(y, warn=True)
        cv = check_cv(self.cv, y_checked, classifier=True)
        splits = [(np.asarray(a), np.asarray(b)) for a, b in cv.split(X, y_checked, groups)]
        start = time.perf_counter()
        # Each test fold is taken from X once, for its counting and for its scoring (all of
        # them at once: together one copy of X, as scikit-learn's search copies the
        # training rows of each fit).
        X_tests = [take_rows(X, test) for _, test in splits]
        folds = FoldStatistics(self.estimator, X, y_checked, splits, sample_weight, X_tests)
        self.count_time_ = time.perf_counter() - start

        keys = [None] if metrics is None else metrics
        quick = _quick_metrics(self.estimator, self.scoring, keys)
        n_c, n_s = len(candidates), len(splits)
        scores = {k: np.full((n_c, n_s), np.nan) for k in keys}
        fit_time, score_time = np.zeros((n_c, n_s)), np.zeros((n_c, n_s))
        weighted = sample_weight is not None and _accepts_sample_weight(scorer)
        codes, _ = label_codes(y_checked, folds.classes)
        weights = check_sample_weight(sample_weight, y_checked.shape[0]) if weighted else None

        def score_fold(s: int):
            # The candidates that the quick metrics can score are finalized and scored
            # together, a group at a time: one pass over the held-out rows for the group (one
            # matrix product where the families stack), their time shared out evenly as
            # score time. Large folds run on the worker threads (see
            # PARALLEL_FOLD_VALUES in _scores).
            test = splits[s][1]
            stats = folds.train_statistics(s)
            together = _scored_together(
                quick, self.estimator, candidates, codes[test], folds.classes.size
            )
            w_test = None if weights is None else weights[test]
            done = []
            for group in _groups(together, stats):  # bounded by the grid
                t0 = time.perf_counter()
                got = _score_together(
                    folds.model,
                    [candidates[c] for c in group],
                    stats,
                    X_tests[s],
                    codes[test],
                    w_test,
                    quick,
                )
                done.append((group, got, time.perf_counter() - t0))
            return stats, done

        parallel = _on_threads(X_tests)
        scored = map_chunks(score_fold, range(n_s)) if parallel else map(score_fold, range(n_s))
        for s, (stats, done) in enumerate(scored):
            test = splits[s][1]
            X_test, y_test = X_tests[s], y_checked[test]
            score_params = (
                {"sample_weight": _safe_indexing(sample_weight, test)} if weighted else {}
            )
            # The others, and any group that failed, go one by one through the scorer, as
            # scikit-learn's search scores them.
            rest = set(range(n_c))
            for group, got, seconds in done:  # bounded by the grid
                if got is not None:
                    for k in keys:  # bounded by the number of metrics
                        scores[k][group, s] = got[k]
                    score_time[group, s] = seconds / len(group)
                    rest -= set(group)
            for c in sorted(rest):  # bounded by the grid
                t0 = time.perf_counter()
                try:
                    model = folds.model.finalize_with(candidates[c], stats)
                except Exception as exc:
                    if self.error_score == "raise":
                        raise
                    self._failed(candidates[c], s, exc, keys, scores, c)
                    fit_time[c, s] = time.perf_counter() - t0
                    continue
                t1 = time.perf_counter()
                fit_time[c, s] = t1 - t0
                try:
                    got = scorer(model, X_test, y_test, **score_params)
                except Exception as exc:
                    if self.error_score == "raise":
                        raise
                    if metrics is None:
                        self._failed(candidates[c], s, exc, keys, scores, c)
                    else:  # as scikit-learn's search: the metrics that can be scored are
                        self._score_apart(model, X_test, y_test, score_params, s, c, scores)
                else:
                    for k in keys:  # bounded by the number of metrics
                        scores[k][c, s] = got if k is None else got[k]
                score_time[c, s] = time.perf_counter() - t1

        self._finish(folds, scores, fit_time, score_time)
        return self

    def quick_metrics(self) -> dict | None:
        """``{metric key: "accuracy" or "neg_log_loss"}`` (key None for a single metric) when
        every metric of ``scoring`` is one that the search computes itself from the joint
        log scores of the held-out rows (those that add up over rows, so that Dask
        partitions can score their rows apart); None otherwise.

        Returns
        -------
        dict or None
            The metric of each key of ``scores`` (:meth:`fit_fold_scores`), or None.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import GridSearchCV
        >>> GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}).quick_metrics()
        {None: 'accuracy'}
        >>> GridSearchCV(MultinomialNB(), {"alpha": [0.1]}, scoring="f1").quick_metrics() is None
        True
        """
        _, metrics = self._scorers()
        return _quick_metrics(self.estimator, self.scoring, [None] if metrics is None else metrics)

    def fit_fold_scores(
        self, folds: FoldStatistics, scores: dict, *, fit_time=None, score_time=None
    ) -> GridSearchCV:
        """Finish a search whose fold scores were computed elsewhere
        (:func:`nbayes.dask.grid_search` scores the held-out rows on the cluster): set
        ``cv_results_``, the best candidate and ``best_estimator_`` (the finalize of all of
        ``folds``' statistics), as :meth:`fit` does.

        Parameters
        ----------
        folds : FoldStatistics
            The statistics the candidates were made from.
        scores : dict
            ``{metric key: array (n_candidates, n_folds)}``, keys as :meth:`quick_metrics`.
        fit_time, score_time : array (n_candidates, n_folds), optional
            Seconds per candidate and fold (zeros by default).

        Returns
        -------
        self
            The fitted search.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.model_selection import KFold
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import FoldStatistics, GridSearchCV
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3]]); y = np.array([0, 1, 0, 1])
        >>> folds = FoldStatistics(MultinomialNB(), X, y, list(KFold(2).split(X)))
        >>> search = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=2)
        >>> search = search.fit_fold_scores(folds, {None: [[0.5, 1.0], [1.0, 1.0]]})
        >>> search.best_params_, search.cv_results_["mean_test_score"].tolist()
        ({'alpha': 1.0}, [0.75, 1.0])
        """
        check_params(self)
        n = (len(self.candidates()), len(folds.test_stats))
        zeros = np.zeros(n)
        self._finish(
            folds,
            {k: np.asarray(v, dtype=np.float64).reshape(n) for k, v in scores.items()},
            zeros if fit_time is None else np.asarray(fit_time),
            zeros if score_time is None else np.asarray(score_time),
        )
        return self

    def _finish(self, folds: FoldStatistics, scores: dict, fit_time, score_time) -> None:
        scorer, metrics = self._scorers()
        self.cv_results_ = _results(self.candidates(), scores, fit_time, score_time)
        self.multimetric_ = metrics is not None
        self.scorer_ = scorer
        self.n_splits_ = fit_time.shape[1]
        self._choose_best(folds)

    def _score_apart(self, model, X_test, y_test, score_params, split, c, scores) -> None:
        """Score each metric of a multi-metric search on its own (after the scorer of all of
        them failed): one that fails gets ``error_score``, the others their score."""
        scoring = self.scoring
        specs = scoring if isinstance(scoring, Mapping) else {k: k for k in scoring}
        for key, spec in specs.items():  # bounded by the number of metrics
            single = check_scoring(self.estimator, scoring=spec)
            weights = score_params if _accepts_sample_weight(single) else {}
            try:
                scores[key][c, split] = single(model, X_test, y_test, **weights)
            except Exception as exc:  # noqa: BLE001 - reported as scikit-learn's search does
                self._failed(self.candidates()[c], split, exc, [key], scores, c)

    def _failed(self, params, split, exc, keys, scores, c) -> None:
        """A candidate's finalize or scoring failed: score it ``error_score``, and warn."""
        for k in keys:  # bounded by the number of metrics
            scores[k][c, split] = self.error_score
        warnings.warn(
            f"Candidate {params!r} failed on split {split}; its score is set to "
            f"{self.error_score!r}. The error: {exc!r}",
            FitFailedWarning,
            stacklevel=user_stacklevel(),
        )

    def _choose_best(self, folds: FoldStatistics) -> None:
        refit, results = self.refit, self.cv_results_
        if refit is False:
            return
        if callable(refit):
            self.best_index_ = int(refit(results))
        else:
            suffix = refit if self.multimetric_ else "score"
            self.best_index_ = int(np.argmin(results[f"rank_test_{suffix}"]))
            self.best_score_ = float(results[f"mean_test_{suffix}"][self.best_index_])
        self.best_params_ = results["params"][self.best_index_]
        start = time.perf_counter()
        # The total passed on: its finalize drops the categories only zero-weight rows hold,
        # as the refit on those rows would.
        self.best_estimator_ = folds.model.finalize_with(self.best_params_, folds.total)
        self.refit_time_ = time.perf_counter() - start

    # -- the best model, as scikit-learn's search exposes it --------------------------------------
    def _best(self):
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_

    @property
    def classes_(self) -> np.ndarray:
        """The classes of ``best_estimator_``."""
        return self._best().classes_

    @property
    def n_features_in_(self) -> int:
        """Number of input columns of ``best_estimator_``."""
        return self._best().n_features_in_

    def predict(self, X) -> np.ndarray:
        """``best_estimator_.predict(X)``.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per sample.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import GridSearchCV
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3], [4, 1], [0, 3]])
        >>> y = np.array([0, 1, 0, 1, 0, 1])
        >>> search = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
        >>> search.predict([[3, 1], [0, 2]]).tolist()
        [0, 1]
        """
        return self._best().predict(X)

    def predict_proba(self, X) -> np.ndarray:
        """``best_estimator_.predict_proba(X)``.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; each row sums to one.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import GridSearchCV
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3], [4, 1], [0, 3]])
        >>> y = np.array([0, 1, 0, 1, 0, 1])
        >>> search = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
        >>> search.predict_proba([[3, 1]]).round(2)
        array([[0.99, 0.01]])
        """
        return self._best().predict_proba(X)

    def predict_log_proba(self, X) -> np.ndarray:
        """``best_estimator_.predict_log_proba(X)``.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; ``exp`` of each row sums to one.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import GridSearchCV
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3], [4, 1], [0, 3]])
        >>> y = np.array([0, 1, 0, 1, 0, 1])
        >>> search = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
        >>> search.predict_log_proba([[3, 1]]).round(2)
        array([[-0.01, -4.78]])
        """
        return self._best().predict_log_proba(X)

    def decision_function(self, X) -> np.ndarray:
        """``best_estimator_.decision_function(X)``.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The log-odds of ``classes_[1]`` (two classes) or the posterior of every class.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import GridSearchCV
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3], [4, 1], [0, 3]])
        >>> y = np.array([0, 1, 0, 1, 0, 1])
        >>> search = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
        >>> search.decision_function([[3, 1]]).round(2)
        array([-4.77])
        """
        return self._best().decision_function(X)

    def score(self, X, y) -> float:
        """Score of ``best_estimator_`` on X, y by ``scorer_`` (the refit metric).

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.
        y : array-like of shape (n_samples,)
            The true labels.

        Returns
        -------
        float
            The score (higher is better; e.g. accuracy by default).

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import GridSearchCV
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3], [4, 1], [0, 3]])
        >>> y = np.array([0, 1, 0, 1, 0, 1])
        >>> search = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
        >>> search.score(X, y)
        1.0
        """
        got = self.scorer_(self._best(), X, y)
        return got[self.refit] if isinstance(got, dict) else got


def _finalize_params(estimator) -> frozenset[str]:
    method = getattr(estimator, "finalize_params", None)
    if method is None:
        raise ParameterError(
            f"nbayes.model_selection.GridSearchCV needs an nbayes estimator; got "
            f"{type(estimator).__name__}. Use sklearn.model_selection.GridSearchCV."
        )
    return method()


def _results(candidates, scores: dict, fit_time, score_time) -> dict:
    """scikit-learn's ``cv_results_`` layout."""
    n_c = len(candidates)
    results: dict = {
        "mean_fit_time": fit_time.mean(axis=1),
        "std_fit_time": fit_time.std(axis=1),
        "mean_score_time": score_time.mean(axis=1),
        "std_score_time": score_time.std(axis=1),
    }
    for name in sorted({k for c in candidates for k in c}):
        column = np.ma.MaskedArray(np.empty(n_c, dtype=object), mask=True)
        for c, params in enumerate(candidates):  # bounded by the grid
            if name in params:
                column[c] = params[name]
        results[f"param_{name}"] = column
    results["params"] = candidates
    for key, table in scores.items():  # bounded by the number of metrics
        suffix = "score" if key is None else key
        for s in range(table.shape[1]):  # bounded by the number of splits
            results[f"split{s}_test_{suffix}"] = table[:, s]
        means = table.mean(axis=1)
        results[f"mean_test_{suffix}"] = means
        results[f"std_test_{suffix}"] = table.std(axis=1)
        results[f"rank_test_{suffix}"] = _rank(means)
    return results


def _rank(means: np.ndarray) -> np.ndarray:
    """scikit-learn's ranking: 1 is best, ties share the best rank, NaN ranks last."""
    if np.isnan(means).all():
        return np.ones(means.size, dtype=np.int32)
    filled = np.where(np.isnan(means), np.nanmin(means) - 1, means)
    return np.asarray(rankdata(-filled, method="min"), dtype=np.int32)
