"""Fitting of :class:`~._base.BaseNB`: ``fit``, ``partial_fit``, label handling, and the
parameters that ``fit`` chooses by cross-validation (``alpha="cv"``, ``var_smoothing="cv"``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _engine as engine
from .._labels import check_labels, declare_classes, fit_classes, label_codes
from .._params import check_params
from .._training import train, update
from ..base import Mode
from ..distributions import Labels
from ..exceptions import DataError, ParameterError
from ._inputs import check_sample_weight
from ._statistics import PENDING

#: Candidates of ``alpha="cv"`` and ``var_smoothing="cv"`` (three per decade; the MAP estimate
#: takes 1 + the alphas), chosen by the cross-validated log-loss of CV_FOLDS stratified folds.
CV_CANDIDATES = {"alpha": np.logspace(-3, 1, 13), "var_smoothing": np.logspace(-12, 0, 13)}
CV_FOLDS = 5
#: Where the search starts from for the parameters chosen after the first.
CV_START = {"alpha": 1.0, "var_smoothing": 1e-9}


def cv_start(names: list[str], estimate: str | None) -> dict:
    """The numbers a model holds for the parameters ``names`` told "cv" while its
    statistics are counted and its candidates finalized (the search starts there): alpha's
    least candidate for the MAP estimate, which needs alpha >= 1."""
    start = {p: CV_START[p] for p in names}
    if "alpha" in names and estimate == "map":
        start["alpha"] = float(cv_grid("alpha", estimate)[0])
    return start


def cv_grid(name: str, estimate: str | None) -> np.ndarray:
    """The candidates of ``name="cv"`` under ``estimate``: 1 + the alphas for the MAP
    estimate, which needs alpha >= 1."""
    grid = CV_CANDIDATES[name]
    return 1.0 + grid if name == "alpha" and estimate == "map" else grid


def cv_choice(grid: np.ndarray, losses: np.ndarray) -> float:
    """The candidate of least cross-validated log-loss (the first of equals): the rule of
    ``alpha="cv"`` in ``fit`` and of ``nbayes train --alpha cv``, chunked or on Dask."""
    return float(grid[int(np.argmin(losses))])


class _Fitting:
    """``fit`` and ``partial_fit``: the model's shell over the training driver
    (:mod:`nbayes._training`), which checks a batch, codes its labels, accumulates it onto the
    statistics and finalizes once."""

    if TYPE_CHECKING:  # what the host (BaseNB) supplies
        classes_: np.ndarray
        families_: Any
        stats_: Any
        get_params: Callable[..., Any]
        _validate_X: Callable[..., Any]
        _blocks: Callable[..., Any]
        _make_families: Callable[..., Any]
        _log_prior: Callable[..., Any]
        _feature_names_per_block: Callable[..., Any]
        _set_parameters: Callable[..., Any]
        finalize: Callable[..., Any]
        install: Callable[..., Any]

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the model to X, y in one pass.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The class label of each row.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each row, 1 by default: an integer weight counts as that many copies of
            the row, and a zero weight as no row.

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.classes_.tolist(), model.class_count_.tolist()
        (['a', 'b'], [2.0, 1.0])
        """
        for attr in ("classes_", "stats_", PENDING):
            self.__dict__.pop(attr, None)
        self.__dict__.pop("_cv_chosen", None)
        if self._cv_names():
            check_params(self)
            return self._fit_by_cv(X, y, sample_weight)
        # One batch: set up (which checks the parameters), count, finalize.
        return train(self, [(X, y, sample_weight)])

    # -- alpha="cv", var_smoothing="cv": chosen by cross-validation inside fit ------------------
    def _cv_names(self) -> list[str]:
        """The parameters set to "cv", in the order they are chosen."""
        return [
            p
            for p in CV_CANDIDATES
            if isinstance(getattr(self, p, None), str) and getattr(self, p) == "cv"
        ]

    def _resolved(self, name: str):
        """Parameter ``name``, with "cv" replaced by the value that ``fit`` chose."""
        value = getattr(self, name)
        if not (isinstance(value, str) and value == "cv"):
            return value
        chosen = self.__dict__.get("_cv_chosen", {})
        if name not in chosen:
            raise ParameterError(
                f"{name}='cv' is chosen by cross-validation inside fit, which needs all the "
                "rows at once; partial_fit, nbayes.dask.fit and set-up from statistics cannot "
                f"choose it. Pass a number or 'auto' (evidence), or choose with "
                "nbayes.model_selection.GridSearchCV."
            )
        return chosen[name]

    def _fit_by_cv(self, X, y, sample_weight):
        """Fit with every "cv" parameter chosen by K-fold cross-validated log-loss.

        One counting pass gives the statistics of every fold; each candidate of each fold is
        a finalize of (total - fold) statistics scored on the fold's rows. Parameters are
        chosen one after the other (alpha first), each at the best value of those before.
        """
        from sklearn.base import clone
        from sklearn.model_selection import StratifiedKFold

        from ._folds import check_splits, count_splits, take_rows

        names = self._cv_names()
        estimate = getattr(self, "estimate", None)
        base = clone(self).set_params(**cv_start(names, estimate))
        X = base._validate_X(X, reset=True)  # lists become arrays; nothing is learned here
        y = base._check_y(y, X)
        classes = fit_classes(y)
        codes, _ = label_codes(y, classes)
        weights = check_sample_weight(sample_weight, y.shape[0])
        per_class = np.bincount(codes, minlength=classes.size)
        smallest = int(per_class.min())
        if smallest < 2:
            rare = classes.tolist()[int(np.argmin(per_class))]
            raise DataError(
                f"{names[0]}='cv' cross-validates over {CV_FOLDS} stratified folds and needs at "
                f"least two rows of every class; class {rare!r} has one. Pass a number or "
                "'auto'."
            )
        folds = StratifiedKFold(min(CV_FOLDS, smallest), shuffle=True, random_state=0)
        splits = list(folds.split(np.zeros(y.shape[0]), codes))
        check_splits(splits, codes, classes, y.shape[0])
        parts = [take_rows(X, test) for _, test in splits]  # counted, then scored
        test_stats, total = count_splits(base, X, codes, weights, classes.size, splits, parts)
        base.install(classes, total)
        trains = [base.subtract_statistics(total, t) for t in test_stats]
        held_out = [(part, codes[test], weights[test]) for part, (_, test) in zip(parts, splits)]
        chosen: dict = {}
        scores: dict = {}
        for name in names:  # bounded: at most two parameters
            grid = cv_grid(name, estimate)
            losses = np.zeros(grid.size)
            for stats, (X_t, c_t, w_t) in zip(trains, held_out):  # bounded: the folds
                # Every candidate of the fold scored in one pass over its held-out rows.
                candidates = [{**chosen, name: v} for v in grid]
                for c, jll in enumerate(base.joint_log_scores_with(candidates, stats, X_t)):
                    log_p = engine.normalise(np.array(jll), log=True)
                    log_p = log_p[np.arange(c_t.size), c_t]
                    losses[c] -= np.dot(w_t[w_t > 0], log_p[w_t > 0])
            losses /= weights.sum()
            chosen[name] = cv_choice(grid, losses)
            scores[name] = {"candidates": grid, "log_loss": losses}
        final = base.finalize_with(chosen)
        params = self.get_params(deep=False)
        self.__dict__.clear()
        self.__dict__.update(final.__dict__)
        self.__dict__.update(params)  # "cv" stays the parameter; the choice is cv_results_
        self._cv_chosen = chosen
        self.cv_results_ = scores
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Update the model with one batch; equals ``fit`` on all batches together.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The class label of each row.
        classes : array-like of shape (n_classes,), optional
            All labels that will ever occur. Required on the first call; a later call may pass
            a longer list that contains the current ``classes_`` to add classes.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each row, 1 by default: an integer weight counts as that many copies of
            the row, and a zero weight as no row.

        Returns
        -------
        self
            The estimator, updated with the batch.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().partial_fit([[2, 0], [1, 1]], ["a", "a"], classes=["a", "b"])
        >>> model.partial_fit([[0, 3]], ["b"]).class_count_.tolist()
        [2.0, 1.0]
        """
        check_params(self)
        first = not hasattr(self, "classes_")
        classes = declare_classes(None if first else self.classes_, classes)
        X = self._validate_X(X, reset=first)
        if first:
            self._start_partial_fit(X)
        return update(self, X, y, sample_weight, classes)

    def _start_partial_fit(self, X) -> None:
        """Set-up that the first ``partial_fit`` batch needs beyond ``_validate_X`` (none
        here; the semi-naive models fix their bin edges)."""

    def _check_y(self, y, X):
        return check_labels(y, X.shape[0])

    def _vocabulary_snapshot(self):
        """Copy of whatever category vocabularies encoding may grow (none for numeric input)."""
        return None

    def _restore_vocabulary(self, snapshot) -> None:
        """Put back the vocabularies of :meth:`_vocabulary_snapshot`."""

    def _learn_onto(self, X, classes: np.ndarray, labels: Labels, n_added: int) -> None:
        """Learn one checked batch (codes into ``classes``, of which the last ``n_added``
        are new) onto the statistics and finalize once: the training driver's
        :func:`~nbayes._training.update`, which puts the model back if this fails."""
        # (not hasattr: reading stats_ would add the batches kept apart, see Statistics)
        if "stats_" not in self.__dict__ and PENDING not in self.__dict__:
            self.families_ = self._make_families(X.shape[1])
            self.install(classes, self._accumulate(X, labels, "learn"))
            return
        self.classes_ = classes
        if n_added:
            self.stats_ = engine.add_classes(self.families_, self.stats_, n_added)
        # One overflow check, of the sum: a batch that overflows makes it overflow too.
        # Only then is the batch checked alone, for an error that names its row.
        before, kept = self.__dict__.get(PENDING) or (self.stats_, ())
        stats, pending = self._accumulate_onto(before, kept, X, labels)
        try:
            engine.check_overflow(self.families_, stats, None, self._feature_names_per_block())
        except DataError:
            self._accumulate(X, labels, "learn")
            raise
        # Finalized at once, as fit is: the groups counted apart from the parameters before
        # this batch (engine.finalize_onto: the cost of the batch, not of the table), unless
        # classes were added. What can fail runs before the model changes.
        n_new = len(pending) - len(kept) if len(pending) > len(kept) else 0
        params = None
        before_params = self.__dict__.get("params_")
        if n_new and not n_added and before_params is not None:
            params = engine.finalize_onto(self.families_, before_params, stats, pending, n_new)
        if params is None:
            if pending:
                stats, pending = engine.fold(self.families_, stats, pending), ()
            params = engine.finalize(self.families_, stats)
        log_prior = self._log_prior(stats["class_count"])
        if pending:
            self.__dict__.pop("stats_", None)
            self.__dict__[PENDING] = (stats, pending)
        else:
            self.stats_ = stats
        self._set_parameters(stats, params, log_prior)

    def _accumulate(self, X, labels: Labels, mode: Mode, check: bool = True) -> dict:
        """Statistics of one validated batch (``check``: see :func:`engine.accumulate`)."""
        return engine.accumulate(
            self.families_,
            self._blocks(X, mode, self._counted(labels, mode)),
            labels,
            self._feature_names_per_block(),
            check=check,
        )

    def _accumulate_onto(self, stats: dict, pending: tuple, X, labels: Labels) -> tuple:
        """``(stats, pending)`` with one validated batch that is learned from added, not
        checked for overflow (:func:`engine.accumulate_onto`)."""
        return engine.accumulate_onto(
            self.families_,
            stats,
            self._blocks(X, "learn", self._counted(labels, "learn")),
            labels,
            self._feature_names_per_block(),
            pending,
        )

    @staticmethod
    def _counted(labels: Labels, mode: Mode) -> np.ndarray | None:
        """Rows whose values a learning batch adds to the vocabularies (None: all)."""
        if mode == "learn" and not labels.weights.all():
            return labels.weights != 0
        return None
