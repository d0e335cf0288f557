"""FeatureSelectionCV: greedy selection of columns from the fold statistics' per-column terms."""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .. import base
from .._labels import label_codes
from .._params import HasMethods, Interval, StrOptions, check_params
from ..estimators._base import check_sample_weight
from ..exceptions import ParameterError
from ._fold_statistics import FoldStatistics

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

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["finalize_params"])],
        "direction": [StrOptions({"forward", "backward"})],
        "scoring": [StrOptions(set(SELECTION_SCORING))],
        "cv": ["cv_object"],
        "n_features_to_select": [Interval(Integral, 0, None, closed="left"), None],
        "tol": [Interval(Real, None, None, closed="neither")],
    }
    _parameter_messages: ClassVar[dict] = {
        "estimator": "estimator must be an nbayes estimator; got {kind}.",
        "direction": "direction must be 'forward' or 'backward'; got {value}.",
        "scoring": (
            f"scoring must be one of {SELECTION_SCORING} (computed from the fold terms); "
            "got {value}. For other metrics use "
            "sklearn.feature_selection.SequentialFeatureSelector, which refits."
        ),
    }

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

    def _check_estimator(self) -> None:
        if not base.supports(self.estimator, base.FEATURE_SUBSETS):
            raise ParameterError(
                f"{type(self.estimator).__name__} normalises its per-word parameters over all "
                "the words, or conditions a feature's terms on others, so leaving features out "
                "is not a change of finalize; use "
                "sklearn.feature_selection.SequentialFeatureSelector, which refits."
            )

    def fit(self, X, y, *, groups=None, sample_weight=None):
        """Count the folds once, then search subsets of the columns greedily.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The samples, with all the columns the search was fitted on.
        y : array-like of shape (n_samples,)
            The class label of each row.
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
        >>> import numpy as np
        >>> from nbayes import BernoulliNB
        >>> from nbayes.model_selection import FeatureSelectionCV
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 300)
        >>> X = np.column_stack([y ^ (rng.random(300) < 0.1), rng.integers(0, 2, (300, 4))])
        >>> search = FeatureSelectionCV(BernoulliNB(), cv=3, tol=0.01).fit(X, y)
        >>> search.support_.tolist()
        [True, False, False, False, False]
        """
        check_params(self)
        self._check_estimator()
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

    def transform(self, X):
        """The selected columns of X (a DataFrame stays a DataFrame).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The samples, with all the columns the search was fitted on.

        Returns
        -------
        ndarray, sparse matrix or DataFrame of shape (n_samples, n_selected)
            The columns of ``support_``, in X's own type.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import BernoulliNB
        >>> from nbayes.model_selection import FeatureSelectionCV
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 300)
        >>> X = np.column_stack([y ^ (rng.random(300) < 0.1), rng.integers(0, 2, (300, 4))])
        >>> search = FeatureSelectionCV(BernoulliNB(), cv=3, tol=0.01).fit(X, y)
        >>> search.transform([[1, 0, 1, 1, 0], [0, 1, 1, 0, 0]]).tolist()
        [[1], [0]]
        """
        if isinstance(X, pd.DataFrame):
            return X.loc[:, np.asarray(X.columns)[self._get_support_mask()]]
        return super().transform(X)

    def predict(self, X) -> np.ndarray:
        """``estimator_.predict`` on the selected columns.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The samples, with all the columns the search was fitted on.

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per sample.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import BernoulliNB
        >>> from nbayes.model_selection import FeatureSelectionCV
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 300)
        >>> X = np.column_stack([y ^ (rng.random(300) < 0.1), rng.integers(0, 2, (300, 4))])
        >>> search = FeatureSelectionCV(BernoulliNB(), cv=3, tol=0.01).fit(X, y)
        >>> search.predict([[1, 0, 1, 1, 0], [0, 1, 1, 0, 0]]).tolist()
        [1, 0]
        """
        return self.estimator_.predict(self.transform(X))

    def predict_proba(self, X) -> np.ndarray:
        """``estimator_.predict_proba`` on the selected columns.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The samples, with all the columns the search was fitted on.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; each row sums to one.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import BernoulliNB
        >>> from nbayes.model_selection import FeatureSelectionCV
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 300)
        >>> X = np.column_stack([y ^ (rng.random(300) < 0.1), rng.integers(0, 2, (300, 4))])
        >>> search = FeatureSelectionCV(BernoulliNB(), cv=3, tol=0.01).fit(X, y)
        >>> search.predict_proba([[1, 0, 1, 1, 0]]).round(2)
        array([[0.08, 0.92]])
        """
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
