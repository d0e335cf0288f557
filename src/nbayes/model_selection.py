"""Model selection from statistics: exact cross-validation without refits.

Naive Bayes learns additive statistics, so the model trained on every row outside a
cross-validation fold is the statistics of all rows minus those of the fold
(:meth:`~nbayes.estimators.BaseNB.subtract_statistics`), and a candidate smoothing, variance
floor, class prior or decision threshold is only another finalize of the same statistics
(:meth:`~nbayes.estimators.BaseNB.finalize_with`). :class:`GridSearchCV` therefore reads the
data once to count each fold, and once more per fold and candidate to score it; it never fits
a candidate. Its fold scores are those of scikit-learn's ``GridSearchCV`` over the same
estimator, to floating-point rounding.

Everything here uses estimators through the protocol of :mod:`nbayes.estimators._protocol`.
"""

from __future__ import annotations

import inspect
import time
import warnings
from collections.abc import Mapping
from functools import reduce

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import logsumexp
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.exceptions import FitFailedWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples, check_is_fitted, column_or_1d

from . import _engine as engine
from ._docstrings import INPUTS, shared_doc, shared_parameters
from ._threads import map_chunks
from ._validation import user_stacklevel
from .estimators._base import check_sample_weight, fit_classes, label_codes
from .estimators._folds import check_splits, count_folds, take_rows
from .exceptions import DataError, ParameterError

# The delegating methods of each search, shown side by side in each one's Examples.
_GRID = {
    "X": INPUTS["delegated"],
    "examples": """
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import GridSearchCV
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3], [4, 1], [0, 3]])
        >>> y = np.array([0, 1, 0, 1, 0, 1])
        >>> search = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
        >>> search.best_params_, search.predict([[3, 1], [0, 2]]).tolist()
        ({'alpha': 0.1}, [0, 1])
        >>> search.predict_proba([[3, 1]]).round(2)
        array([[0.99, 0.01]])
        >>> search.predict_log_proba([[3, 1]]).round(2), search.decision_function([[3, 1]]).round(2)
        (array([[-0.01, -4.78]]), array([-4.77]))
        >>> search.score(X, y)
        1.0""",
}
_SELECTION = {
    "X": """
        X : array-like or DataFrame of shape (n_samples, n_features)
            The samples, with all the columns the search was fitted on.""",
    "examples": """
        >>> import numpy as np
        >>> from nbayes import BernoulliNB
        >>> from nbayes.model_selection import FeatureSelectionCV
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 300)
        >>> X = np.column_stack([y ^ (rng.random(300) < 0.1), rng.integers(0, 2, (300, 4))])
        >>> search = FeatureSelectionCV(BernoulliNB(), cv=3, tol=0.01).fit(X, y)
        >>> rows = [[1, 0, 1, 1, 0], [0, 1, 1, 0, 0]]
        >>> search.transform(rows).tolist(), search.predict(rows).tolist()
        ([[1], [0]], [1, 0])
        >>> search.predict_proba(rows[:1]).round(2)
        array([[0.08, 0.92]])""",
}
_FOLDS = {
    "examples": """
        >>> import numpy as np
        >>> from sklearn.model_selection import KFold
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import FoldStatistics
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3]]); y = np.array([0, 1, 0, 1])
        >>> folds = FoldStatistics(MultinomialNB(), X, y, list(KFold(2).split(X)))
        >>> folds.train_statistics(0)["groups"][0]["n_counts"].tolist()  # rows 2 and 3
        [[2.0, 1.0], [1.0, 3.0]]
        >>> folds.train_model(0, {"alpha": 0.5}).get_params()["alpha"]
        0.5""",
}


@shared_parameters
class FoldStatistics:
    """Statistics of every cross-validation fold of one data set, counted in one pass.

    ``model`` is the estimator set up on all rows and holding their statistics, ``total``
    (the merged ``test_stats`` of the folds), not finalized: a search never uses its own
    settings (``model.finalize()`` makes it a fitted model of them);
    ``train_model(i, params)`` is the model of the rows outside test fold ``i`` with the
    finalize-time ``params``, made without reading the data.

    Parameters
    ----------
    estimator : nbayes estimator
        The model to count with (unfitted; cloned).
    X : array-like, sparse matrix, DataFrame or texts, n_samples long
        The samples, as the estimator takes them.
    y : array-like of shape (n_samples,)
    splits : list of (train, test) index arrays
        Every split must train on all the rows outside its test fold.
    sample_weight : array-like of shape (n_samples,), optional
    test_parts : list, optional
        The test rows of each split already taken from X (``_safe_indexing(X, test)``), so
        that a caller that scores them too takes them once.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import KFold
    >>> from nbayes import MultinomialNB
    >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3]]); y = np.array([0, 1, 0, 1])
    >>> folds = FoldStatistics(MultinomialNB(), X, y, list(KFold(2).split(X)))
    >>> fold0 = folds.train_model(0, {"alpha": 0.5})
    >>> np.allclose(fold0.feature_log_prob_,
    ...             MultinomialNB(alpha=0.5).fit(X[2:], y[2:]).feature_log_prob_)
    True
    """

    def __init__(self, estimator, X, y, splits, sample_weight=None, test_parts=None):
        y = column_or_1d(y, warn=True)
        n = _num_samples(X)
        if y.shape[0] != n:
            raise DataError(f"X has {n} rows but y has {y.shape[0]} labels; they must match.")
        self.classes = fit_classes(y)
        codes, _ = label_codes(y, self.classes)
        weights = check_sample_weight(sample_weight, n)
        check_splits(splits, codes, self.classes, n)
        model = clone(estimator)
        model.finalize_params()  # refuses models whose folds statistics cannot give
        _warn_on_families_of_parts(estimator, X, splits)
        self.test_stats, total = count_folds(
            model, X, codes, weights, self.classes.size, splits, test_parts
        )
        self.total = total
        # Not finalized: a search finalizes candidates (finalize_with), never this model's own
        # settings (as in scikit-learn's search, an estimator setting that every candidate
        # replaces, alpha=-1 under an alpha grid, is never used).
        self.model = model.install(self.classes, total, finalize=False)
        self.splits = splits

    @classmethod
    def from_statistics(cls, model, classes, test_stats: list) -> FoldStatistics:
        """Fold statistics counted elsewhere (:func:`nbayes.dask.fold_statistics`).

        Parameters
        ----------
        model : nbayes estimator
            Set up (:meth:`EstimatorProtocol.setup`) for the statistics; it comes to hold
            those of all the rows, not finalized.
        classes : array-like of shape (n_classes,)
            The classes the statistics are laid out over, sorted.
        test_stats : list of dict
            The statistics of the rows of each test fold.

        Returns
        -------
        FoldStatistics
            With ``splits`` None (the rows were never in memory).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.model_selection import KFold
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import FoldStatistics
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3]]); y = np.array([0, 1, 0, 1])
        >>> folds = FoldStatistics(MultinomialNB(), X, y, list(KFold(2).split(X)))
        >>> model = MultinomialNB()
        >>> model.setup(2)
        >>> again = FoldStatistics.from_statistics(model, folds.classes, folds.test_stats)
        >>> again.train_model(0).feature_count_.tolist()
        [[2.0, 1.0], [1.0, 3.0]]
        """
        self = cls.__new__(cls)
        self.classes = np.asarray(classes)
        self.test_stats = list(test_stats)
        self.total = reduce(model.merge_statistics, self.test_stats)
        self.model = model.install(self.classes, self.total, finalize=False)
        self.splits = None
        return self

    @shared_doc(**_FOLDS)
    def train_statistics(self, i: int) -> dict:
        """Statistics of the rows outside test fold ``i``: the total minus the fold's.

        Parameters
        ----------
        i : int
            The index of the test fold in ``splits``.

        Returns
        -------
        dict
            Statistics over ``classes`` in the set-up of ``model``.

        Examples
        --------
        {{examples}}
        """
        return self.model.subtract_statistics(self.total, self.test_stats[i])

    @shared_doc(**_FOLDS)
    def train_model(self, i: int, params: dict | None = None, stats: dict | None = None):
        """The model of the rows outside test fold ``i`` with finalize-time ``params``.

        Parameters
        ----------
        i : int
            The index of the test fold in ``splits``.
        params : dict, optional
            Values of some of the estimator's finalize-time parameters
            (:meth:`EstimatorProtocol.finalize_params`).
        stats : dict, optional
            :meth:`train_statistics` of ``i``, when already at hand.

        Returns
        -------
        estimator
            A fitted model equal to one fitted on the training rows with ``params``.

        Examples
        --------
        {{examples}}
        """
        return self.model.finalize_with(
            params, self.train_statistics(i) if stats is None else stats
        )


def _warn_on_families_of_parts(estimator, X, splits) -> None:
    """Folds counted once share the set-up of all rows. A model that infers its columns'
    families (MixedNB) may infer others from a split's training rows, as scikit-learn's
    search, which fits them afresh, would: say so, with the way to make both agree."""
    infer = getattr(estimator, "infer_families", None)
    dtypes = X.dtypes if isinstance(X, pd.DataFrame) else [getattr(X, "dtype", None)]
    if infer is None or not any(getattr(t, "kind", "O") in "iu" for t in dtypes):
        return  # only an integer column's family depends on the rows
    whole = infer(X)
    for i, (train, _) in enumerate(splits):  # bounded by the number of splits
        part = infer(take_rows(X, train))
        changed = [c for c in whole if part[c] != whole[c]]
        if not changed:
            continue
        named: dict[str, list] = {}
        for c in changed:  # bounded by the columns
            named.setdefault(whole[c], []).append(c)
        fix = ", ".join(f"({family!r}, {cols!r})" for family, cols in named.items())
        c = changed[0]
        warnings.warn(
            f"{type(estimator).__name__} reads column {c!r} as {whole[c]} over all "
            f"{_num_samples(X):,} rows but as {part[c]} over the {len(train):,} training rows "
            f"of split {i}"
            + (f" ({len(changed)} columns differ)" if len(changed) > 1 else "")
            + ": an integer column's family follows its number of distinct values (and, "
            "under max_int_categories='auto', the number of rows). The scores are those of "
            "the families of all rows, which the refit keeps; scikit-learn's GridSearchCV "
            "would infer them again on each split's training rows and score differently. "
            f"Name the families to make both agree: columns=[{fix}].",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        return


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
    @shared_doc(**_GRID)
    def fit(self, X, y, *, groups=None, sample_weight=None):
        """Count the folds, score every candidate on every fold, refit the best.

        Parameters
        ----------
        {{X}}
        y : array-like of shape (n_samples,)
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
        {{examples}}
        """
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
            # score time. Large folds run on the worker threads (see PARALLEL_FOLD_VALUES).
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

        large = sum(_stored_values(part) for part in X_tests) >= PARALLEL_FOLD_VALUES * n_s
        scored = map_chunks(score_fold, range(n_s)) if large else map(score_fold, range(n_s))
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
        self.best_estimator_ = folds.model.finalize_with(self.best_params_)
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

    @shared_doc("predict", **_GRID)
    def predict(self, X) -> np.ndarray:
        """``best_estimator_.predict(X)``."""
        return self._best().predict(X)

    @shared_doc("predict_proba", **_GRID)
    def predict_proba(self, X) -> np.ndarray:
        """``best_estimator_.predict_proba(X)``."""
        return self._best().predict_proba(X)

    @shared_doc("predict_log_proba", **_GRID)
    def predict_log_proba(self, X) -> np.ndarray:
        """``best_estimator_.predict_log_proba(X)``."""
        return self._best().predict_log_proba(X)

    @shared_doc("decision_function", **_GRID)
    def decision_function(self, X) -> np.ndarray:
        """``best_estimator_.decision_function(X)``."""
        return self._best().decision_function(X)

    @shared_doc(**_GRID)
    def score(self, X, y) -> float:
        """Score of ``best_estimator_`` on X, y by ``scorer_`` (the refit metric).

        Parameters
        ----------
        {{X}}
        y : array-like of shape (n_samples,)
            The true labels.

        Returns
        -------
        float
            The score (higher is better; e.g. accuracy by default).

        Examples
        --------
        {{examples}}
        """
        got = self.scorer_(self._best(), X, y)
        return got[self.refit] if isinstance(got, dict) else got


#: Families whose parameters for one feature depend on the other features (the multinomial
#: normalises over all words; complement weights too): leaving a feature's factor out is not
#: the model of the other columns, so feature selection refuses them.
_COUPLED_FAMILIES = ("multinomial", "complement", "text")
#: Metrics of FeatureSelectionCV, computed from the held-out log posteriors as scikit-learn's
#: ``neg_log_loss`` and ``accuracy`` scorers compute them.
SELECTION_SCORING = ("neg_log_loss", "accuracy")


class FeatureSelectionCV(SelectorMixin, MetaEstimatorMixin, BaseEstimator):
    """Greedy forward or backward selection of columns by cross-validation, from fold
    statistics: the selective Bayesian classifier of Langley & Sage (1994).

    Under the naive assumption the model of a subset S of the columns scores
    log P(y) + sum over j in S of log P(x_j | y), with every factor as the model of all
    columns has it (for families whose per-feature parameters do not depend on the other
    features). So each fold's model is made once from (total - fold) statistics, its
    per-column terms on the held-out rows are computed once (``explain``), and every subset
    the search tries is a sum of those terms: dropping or adding a column is a change of
    finalize, never a refit. Forward selection starts from no column (the class prior alone)
    and adds the column that most improves the mean cross-validated score; backward
    selection starts from all and removes the column whose removal most improves it. Either
    stops when the best move improves the score by no more than ``tol`` or at
    ``n_features_to_select`` columns.

    Parameters
    ----------
    estimator : nbayes estimator
        BernoulliNB, CategoricalNB, PoissonNB, GaussianNB or MixedNB (without multinomial,
        complement or text groups). MultinomialNB, ComplementNB and TextNB are refused:
        their per-word parameters are normalised over all the words.
    direction : {"forward", "backward"}, default="forward"
    scoring : {"neg_log_loss", "accuracy"}, default="neg_log_loss"
        The mean over the folds of the metric on the held-out rows, weighted by
        ``sample_weight`` when given, as scikit-learn's scorers compute it (log-loss with
        probabilities clipped to [eps, 1 - eps]).
    cv : int, cross-validation generator or iterable, default=5
        As scikit-learn's; every split must train on all rows outside its test fold.
    n_features_to_select : int, optional
        Stop at this many columns (then the search goes on while it does not improve). By
        default stop when no move improves the score by more than ``tol``.
    tol : float, default=0.0
        The least improvement of the score that a move must make.

    Attributes
    ----------
    support_ : ndarray of bool, shape (n_features,)
        The selected columns.
    path_ : list of dict
        The moves in order: ``{"action": "add" | "remove", "feature": name, "score": s}``,
        the score being that of the subset after the move; the first entry is the start.
    score_ : float
        Cross-validated score of the selected columns.
    estimator_ : the estimator fitted on the selected columns of all rows
    feature_names_in_, n_features_in_

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import BernoulliNB
    >>> from nbayes.model_selection import FeatureSelectionCV
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> X = np.column_stack([y ^ (rng.random(300) < 0.1), rng.integers(0, 2, (300, 4))])
    >>> search = FeatureSelectionCV(BernoulliNB(), cv=3, tol=0.01).fit(X, y)
    >>> search.support_.tolist(), [step["feature"] for step in search.path_]
    ([True, False, False, False, False], [None, 'x0'])
    """

    def __init__(
        self,
        estimator,
        *,
        direction="forward",
        scoring="neg_log_loss",
        cv=5,
        n_features_to_select=None,
        tol=0.0,
    ):
        self.estimator = estimator
        self.direction = direction
        self.scoring = scoring
        self.cv = cv
        self.n_features_to_select = n_features_to_select
        self.tol = tol

    def _check_params(self) -> None:
        if self.direction not in ("forward", "backward"):
            raise ParameterError(
                f"direction must be 'forward' or 'backward'; got {self.direction!r}."
            )
        if self.scoring not in SELECTION_SCORING:
            raise ParameterError(
                f"scoring must be one of {SELECTION_SCORING} (computed from the fold terms); "
                f"got {self.scoring!r}. For other metrics use "
                "sklearn.feature_selection.SequentialFeatureSelector, which refits."
            )
        if type(self.estimator).__name__ in ("MultinomialNB", "ComplementNB", "TextNB"):
            raise ParameterError(
                f"{type(self.estimator).__name__} normalises its per-word parameters over all "
                "the words, so leaving words out is not a change of finalize; use "
                "sklearn.feature_selection.SequentialFeatureSelector, which refits."
            )

    @shared_doc(**_SELECTION)
    def fit(self, X, y, *, groups=None, sample_weight=None):
        """Count the folds once, then search subsets of the columns greedily.

        Parameters
        ----------
        {{X}}
        y : array-like of shape (n_samples,)
        groups : array-like, optional
            Group labels for group splitters.
        sample_weight : array-like of shape (n_samples,), optional
            Weights of the rows, in the statistics and in the scores.

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        {{examples}}
        """
        self._check_params()
        y = column_or_1d(y, warn=True)
        cv = check_cv(self.cv, y, classifier=True)
        splits = [(np.asarray(a), np.asarray(b)) for a, b in cv.split(X, y, groups)]
        folds = FoldStatistics(self.estimator, X, y, splits, sample_weight)
        families = getattr(folds.model, "column_families_", {})
        coupled = sorted({f for f in families.values() if f in _COUPLED_FAMILIES})
        if coupled:
            raise ParameterError(
                f"MixedNB groups of the {coupled!r} families normalise over their columns, so "
                "leaving one out is not a change of finalize; name those columns in other "
                "families, or use sklearn.feature_selection.SequentialFeatureSelector."
            )
        codes, _ = label_codes(y, folds.classes)
        weights = None if sample_weight is None else check_sample_weight(sample_weight, y.size)
        held_out = []
        for i, (_, test) in enumerate(splits):  # bounded by the number of splits
            ex = folds.train_model(i).explain(_safe_indexing(X, test))
            w = None if weights is None else weights[test]
            held_out.append((ex.log_prior, ex.terms, codes[test], w))
        names = np.asarray(ex.feature_names, dtype=object)
        self.n_features_in_ = len(names)
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        chosen = (
            np.zeros(len(names), bool) if self.direction == "forward" else np.ones(len(names), bool)
        )
        self.path_ = [{"action": "start", "feature": None, "score": self._score(held_out, chosen)}]
        self.support_, self.score_ = self._search(held_out, chosen, names)
        self.estimator_ = clone(self.estimator).fit(
            self.transform(X),
            y,
            **({} if sample_weight is None else {"sample_weight": sample_weight}),
        )
        return self

    def _search(self, held_out, chosen: np.ndarray, names):
        adding = self.direction == "forward"
        target = self.n_features_to_select
        score = self.path_[0]["score"]
        while (chosen.sum() < len(chosen)) if adding else (chosen.sum() > 0):
            moves = np.flatnonzero(~chosen if adding else chosen)
            scores = self._move_scores(held_out, chosen, moves, adding)
            best = int(np.argmax(scores))
            reached = target is not None and chosen.sum() == target
            if reached or (target is None and scores[best] - score <= self.tol):
                break
            chosen = chosen.copy()
            chosen[moves[best]] = adding
            score = float(scores[best])
            action = "add" if adding else "remove"
            self.path_.append({"action": action, "feature": names[moves[best]], "score": score})
        return chosen, score

    def _score(self, held_out, chosen: np.ndarray) -> float:
        return float(
            self._move_scores(held_out, chosen, np.zeros(0, dtype=np.intp), True, current=True)[0]
        )

    def _move_scores(self, held_out, chosen, moves, adding: bool, current: bool = False):
        """Mean cross-validated score of ``chosen`` with each of ``moves`` added (removed),
        shape (len(moves),); with ``current``, of ``chosen`` itself, shape (1,)."""
        total = np.zeros(1 if current else moves.size)
        for log_prior, terms, codes, w in held_out:  # bounded by the number of folds
            base = log_prior[None, :] + terms[:, :, chosen].sum(axis=2)  # (n, C)
            if current:
                jll = base[:, :, None]
            else:
                step = terms[:, :, moves]
                jll = base[:, :, None] + step if adding else base[:, :, None] - step
            total += _metric(self.scoring, jll, codes, w)
        return total / len(held_out)

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_

    @shared_doc(**_SELECTION)
    def transform(self, X):
        """The selected columns of X (a DataFrame stays a DataFrame).

        Parameters
        ----------
        {{X}}

        Returns
        -------
        ndarray, sparse matrix or DataFrame of shape (n_samples, n_selected)
            The columns of ``support_``, in X's own type.

        Examples
        --------
        {{examples}}
        """
        if isinstance(X, pd.DataFrame):
            return X.loc[:, np.asarray(X.columns)[self._get_support_mask()]]
        return super().transform(X)

    @shared_doc("predict", **_SELECTION)
    def predict(self, X) -> np.ndarray:
        """``estimator_.predict`` on the selected columns."""
        return self.estimator_.predict(self.transform(X))

    @shared_doc("predict_proba", **_SELECTION)
    def predict_proba(self, X) -> np.ndarray:
        """``estimator_.predict_proba`` on the selected columns."""
        return self.estimator_.predict_proba(self.transform(X))

    @property
    def classes_(self) -> np.ndarray:
        """The classes of ``estimator_``."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.classes_


def _metric(scoring: str, jll: np.ndarray, codes: np.ndarray, w) -> np.ndarray:
    """Score per candidate of joint log-likelihoods ``jll`` (n, C, m) against class codes,
    as scikit-learn's ``neg_log_loss`` / ``accuracy`` scorers compute it."""
    rows = np.arange(codes.size)
    if scoring == "accuracy":
        hit = (np.argmax(jll, axis=1) == codes[:, None]).astype(np.float64)
        return np.average(hit, axis=0, weights=w)
    log_p = jll[rows, codes, :] - logsumexp(jll, axis=1)
    eps = np.finfo(np.float64).eps
    loss = -np.log(np.clip(np.exp(log_p), eps, 1 - eps))
    return -np.average(loss, axis=0, weights=w)


#: Scorers that GridSearchCV computes itself from the stacked joint log scores of a fold's
#: candidates, as scikit-learn's scorers of these names compute them from ``predict`` and
#: ``predict_proba`` (the estimator's own ``score`` is accuracy).
QUICK_SCORING = ("accuracy", "neg_log_loss")


def _quick_metrics(estimator, scoring, keys: list) -> dict | None:
    """{metric key: quick scorer name} when every metric of ``scoring`` is a quick one."""
    if scoring is None:
        own = getattr(type(estimator), "score", None) is ClassifierMixin.score
        return {None: "accuracy"} if own else None
    if isinstance(scoring, str):
        return {None: scoring} if scoring in QUICK_SCORING else None
    names = scoring if isinstance(scoring, Mapping) else {k: k for k in scoring}
    if all(isinstance(names[k], str) and names[k] in QUICK_SCORING for k in keys):
        return {k: names[k] for k in keys}
    return None


def _scored_together(quick, estimator, candidates, codes: np.ndarray, n_classes: int):
    """The candidates of a fold that the quick metrics score: all, unless a decision
    threshold changes ``predict`` (accuracy) or the held-out rows lack a class, which
    scikit-learn's log-loss refuses (the scorer then reports it as it does)."""
    if quick is None or len(candidates) < 2:
        return []
    if "neg_log_loss" in quick.values() and np.unique(codes).size < n_classes:
        return []
    default = getattr(estimator, "decision_threshold", None)
    return [
        c
        for c, params in enumerate(candidates)
        if "accuracy" not in quick.values() or params.get("decision_threshold", default) is None
    ]


#: Held-out folds are scored on the worker threads (one fold each) where they hold at least
#: this many values on average: the 40k-row folds of the 200k x 100k text benchmark (2M
#: words each) then score in three quarters of the time on two cores. Smaller folds spend
#: much of their time in Python, which runs on one thread at a time: Enron's 1k-e-mail
#: folds (91k words) were no faster on two threads, at a fifth more CPU time.
PARALLEL_FOLD_VALUES = 1_000_000


def _stored_values(part) -> int:
    """The values a held-out fold holds: stored values of a sparse matrix, cells of a
    table, one per text."""
    if sp.issparse(part):
        return int(part.nnz)
    shape = getattr(part, "shape", None)
    if shape is not None:
        return int(np.prod(shape))
    return len(part)


#: Parameter-table cells (floats) of the candidates finalized together at most: 128 MB.
_GROUP_BUDGET = 2**24


def _groups(together: list, stats: dict) -> list[list[int]]:
    """``together`` cut into groups whose candidates' tables (about the size of the
    statistics each) stay within the budget, so memory does not grow with the grid."""
    cells = sum(np.size(v) for group in stats["groups"] for v in group.values())
    size = max(2, _GROUP_BUDGET // max(1, cells))
    return [together[i : i + size] for i in range(0, len(together), size)]


def _score_together(model, params_list, stats, X, codes, w, quick: dict):
    """{metric key: scores of the candidates ``params_list``} on held-out X, from their joint
    log scores (``joint_log_scores_with``: one finalize and one pass over X for all of them
    where the families allow); None where that fails, so that the candidates go one by one
    through the scorer, which reports the failure as scikit-learn's search would."""
    out = {k: np.empty(len(params_list)) for k in quick}
    try:
        scored = list(model.joint_log_scores_with(params_list, stats, X))
        together = _side_by_side(scored)
        for k, name in quick.items():  # bounded by the number of metrics
            if together is not None and (name == "accuracy" or np.isfinite(together).all()):
                # Every candidate's rows scored in one pass over the stacked scores (a
                # log-loss only where no row is impossible, which each candidate warns of).
                n, m, n_classes = together.shape
                per_row = row_scores(name, together.reshape(n * m, n_classes), np.repeat(codes, m))
                out[k][:] = QUICK_SIGN[name] * np.average(per_row.reshape(n, m), axis=0, weights=w)
                continue
            for i, jll in enumerate(scored):  # bounded by the candidates
                out[k][i] = _held_out_score(name, jll, codes, w)
    except Exception:  # noqa: BLE001 - the scorer reports it, candidate by candidate
        return None
    return out


def _side_by_side(scored: list) -> np.ndarray | None:
    """The candidates' scores as one (n, candidates, classes) array where they are the
    column blocks, in order, of one C-contiguous array (as ``joint_log_scores_with`` yields
    candidates it scored together); None otherwise."""
    base = scored[0].base if scored else None
    if not isinstance(base, np.ndarray) or base.ndim != 2 or not base.flags.c_contiguous:
        return None
    n, n_classes = scored[0].shape
    if base.shape != (n, n_classes * len(scored)):
        return None
    start = base.__array_interface__["data"][0]
    for i, jll in enumerate(scored):  # bounded by the candidates
        at = jll.__array_interface__["data"][0]
        if jll.base is not base or jll.strides != base.strides:
            return None
        if at != start + i * n_classes * base.itemsize:
            return None
    return base.reshape(n, len(scored), n_classes)


def _held_out_score(name: str, jll: np.ndarray, codes: np.ndarray, w) -> float:
    """scikit-learn's ``accuracy`` or ``neg_log_loss`` of joint log scores (n, C) of the
    held-out rows against their class codes, ``w`` their weights or None."""
    return QUICK_SIGN[name] * float(np.average(row_scores(name, jll, codes), weights=w))


#: Sign of a quick metric's score given the mean of its :func:`row_scores`.
QUICK_SIGN = {"accuracy": 1.0, "neg_log_loss": -1.0}


def row_scores(name: str, jll: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per held-out row, what ``accuracy`` (1 for a hit) or ``neg_log_loss`` (the log-loss)
    averages, from joint log scores (n, C) and class codes (n,). As scikit-learn's scorers:
    the prediction is the argmax (ties to the first class); the log-loss clips the
    probability of the true class to [eps, 1 - eps], and with two classes that of class 0
    is 1 - P(class 1)."""
    if name == "accuracy":
        # argmax: the first of tied classes; for two classes a strict comparison says it
        # without a pass over narrow rows.
        top = (jll[:, 1] > jll[:, 0]) if jll.shape[1] == 2 else np.argmax(jll, axis=1)
        return (top == codes).astype(np.float64)
    proba = engine.normalise(jll.copy(), log=False)
    if proba.shape[1] == 2:
        p_true = np.where(codes == 1, proba[:, 1], 1.0 - proba[:, 1])
    else:
        p_true = proba[np.arange(codes.size), codes]
    eps = np.finfo(np.float64).eps
    return -np.log(np.clip(p_true, eps, 1 - eps))


def _accepts_sample_weight(scorer) -> bool:
    """Whether scikit-learn's search would pass the weights on to ``scorer`` (it does, since
    1.9, when the metric takes them): scores are then weighted as the training is."""
    accepts = getattr(scorer, "_accept_sample_weight", None)
    if accepts is not None:
        return bool(accepts())
    return "sample_weight" in inspect.signature(scorer).parameters


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


__all__ = ["FeatureSelectionCV", "FoldStatistics", "GridSearchCV"]
