"""SemiSupervisedNB's estimator protocol (see :mod:`nbayes.base`), mixed into
:class:`~.semisupervised.SemiSupervisedNB`: an EM fit is a sequence of training passes, each
of which accumulates every batch (the E-step's posteriors and the expected counts under
them), merges, and installs the M-step; :meth:`_EMPasses.needs_pass` says whether another
pass is due. :func:`nbayes._training.train_passes` runs the passes over batches in memory
or in chunks, :func:`nbayes.dask.fit_semisupervised` over Dask partitions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._validation import row_offset
from ..base import Mode, SurveyStep, check_mode
from ..distributions import Labels
from ..exceptions import DataError, NotFittedError, ParameterError
from ._base import check_sample_weight
from ._em import EMRun, PassResult, em_batch
from ._semisupervised_labels import _n_rows, survey_unlabeled


class _EMPasses:
    """Begin, survey and set up, accumulate, merge, subtract, align, install; state."""

    if TYPE_CHECKING:  # what SemiSupervisedNB supplies
        estimator_: Any
        classes_: np.ndarray
        max_iter: int
        tol: float
        cv: int | None
        n_components: int
        _check_params: Callable[[], None]
        _new_model: Callable[[], Any]
        _candidates: Callable[[], list[float]]
        _n_folds: Callable[[Any, list[float]], int]
        _settings: Callable[..., Any]

    def begin(self, classes: np.ndarray, *, in_memory: bool = False) -> None:
        """Start an EM fit over ``classes``: discard the fitted state and hold an unfitted
        clone of ``estimator`` for :meth:`survey_step` and :meth:`setup`, which plan the
        passes; each pass then runs as a training pass (:meth:`accumulate` every batch,
        :meth:`merge_statistics`, :meth:`install` the M-step) while :meth:`needs_pass`.
        :meth:`fit`, :meth:`fit_chunks` and :func:`nbayes.dask.fit_semisupervised` run it.

        Parameters
        ----------
        classes : ndarray
            Every class, sorted.
        in_memory : bool, default=False
            Whether the passes see the same batches each time, so that a fixed encoding of
            their features (TextNB's vectoriser) may be applied once.

        Raises
        ------
        DataError
            No class: every row is unlabeled.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> from nbayes.distributions import Labels
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
        >>> codes = np.array([0, -1, 1, -1, -1, -1])  # class indices; -1: unlabeled
        >>> em = SemiSupervisedNB(MultinomialNB())
        >>> em.begin(np.array([0, 1]))
        >>> em.setup(2)
        >>> while em.needs_pass():
        ...     _ = em.install(np.array([0, 1]), em.accumulate(X, Labels(codes, np.ones(6), 2)))
        >>> em.predict(X).tolist()
        [0, 0, 1, 1, 0, 1]
        """
        self._check_params()
        if len(classes) == 0:
            raise DataError(
                "Every row is unlabeled (-1, None or NaN): EM needs at least one labeled row "
                "of each class to know what the classes are."
            )
        for name in ("estimator_", "classes_", "history_", "n_iter_", "converged_"):
            self.__dict__.pop(name, None)
        self._em = EMRun(self._new_model(), classes, int(self.n_components), in_memory)

    def _running(self) -> EMRun:
        run = getattr(self, "_em", None)
        if run is None:
            raise NotFittedError(
                "SemiSupervisedNB learns by passes within an EM fit: call fit, fit_chunks or "
                "nbayes.dask.fit_semisupervised (or begin, for a driver of its own) first."
            )
        return run

    def needs_pass(self) -> bool:
        """Whether the EM fit in progress needs another pass over the data (see
        :meth:`begin`).

        Returns
        -------
        bool
            True until EM has converged, run ``max_iter`` iterations and its final check.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import SemiSupervisedNB
        >>> em = SemiSupervisedNB()
        >>> em.needs_pass()
        False
        >>> em.begin(np.array([0, 1]))
        >>> em.setup(2)
        >>> em.needs_pass()
        True
        """
        run = getattr(self, "_em", None)
        return run is not None and run.next is not None

    # -- the estimator protocol: one EM pass at a time --------------------------------------
    def survey_step(self, meta, summary=None) -> SurveyStep | None:
        """The next pass over the data needed before :meth:`setup`: the estimator's own
        (a pass that needs labels gets the unlabeled rows with weight zero), or None.

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
        >>> import numpy as np
        >>> from nbayes import SemiSupervisedNB
        >>> em = SemiSupervisedNB()
        >>> em.begin(np.array([0, 1]))
        >>> em.survey_step(3) is None
        True
        """
        run = self._running()
        step = run.outer.survey_step(meta, summary)
        if step is None or not step.labels:
            return step
        return dataclasses.replace(
            step, summarize=partial(survey_unlabeled, step.summarize, run.classes)
        )

    def setup(self, meta, summary=None) -> None:
        """Set the estimator up for the EM fit begun by :meth:`begin` (as ``fit`` on all the
        rows would) and plan its first pass: the model of the labeled rows alone.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            As in :meth:`survey_step`.
        summary : object, optional
            The final summary of the survey passes, if :meth:`survey_step` asked for any.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import SemiSupervisedNB
        >>> em = SemiSupervisedNB()
        >>> em.begin(np.array([0, 1]))
        >>> em.setup(2)
        >>> em.needs_pass()
        True
        """
        run = self._running()
        run.outer.setup(meta, summary)
        model = run.working_model()
        candidates = self._candidates()
        n_folds = self._n_folds(model, candidates)
        K = len(run.classes)
        settings = (
            self._settings(K, init=True, n_folds=n_folds),
            # Passes count the held-out folds apart only to choose lambda; a fixed lambda's
            # check needs them once, after the last iteration.
            self._settings(K, init=False, n_folds=n_folds if len(candidates) > 1 else 0),
            self._settings(K, init=False, n_folds=n_folds),
        )
        em = {"max_iter": self.max_iter, "tol": self.tol, "cv": self.cv}
        run.plan(settings, candidates, em)

    def accumulate(self, X, labels: Labels, *, mode: Mode = "count") -> dict:
        """Statistics of one batch in the EM pass to come: its rows' posteriors under the
        current model (E-step), and its statistics with them as fractional class weights
        (its share of the M-step), with the weighted log-likelihood sums.

        The batch's first row in all the data, which draws the rows' initial components and
        held-out folds, is the row offset of error messages
        (:func:`nbayes._validation.rows_from`, which the training driver and
        :mod:`nbayes.dask` set), so that any batching gives the same passes.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts
            The rows to count, as the fitted model takes them.
        labels : Labels
            Class codes (indices into the classes of :meth:`begin`; -1 marks an unlabeled
            row), sample weights and the number of classes.
        mode : {"learn", "count", "unlearn", "score"}, default="count"
            Why the batch is read; EM counts against the set-up it was given.

        Returns
        -------
        dict
            The pass's statistics of the batch (plain data: the model's statistics and the
            sums of :class:`~nbayes.estimators._em.PassResult`).

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> from nbayes.distributions import Labels
        >>> em = SemiSupervisedNB(MultinomialNB())
        >>> em.begin(np.array([0, 1]))
        >>> em.setup(2)
        >>> part = em.accumulate([[5, 0], [0, 5], [1, 1]], Labels([0, 1, -1], [1.0, 1.0, 1.0], 2))
        >>> part["stats"]["class_count"].tolist(), part["unlabeled_weight"]
        ([1.0, 1.0], 1.0)
        """
        run = self._running()
        check_mode(mode)
        if run.next is None:
            raise NotFittedError("The EM fit needs no more passes; begin another one.")
        n = _n_rows(X)
        if len(labels) != n:
            raise DataError(f"X has {n} rows but y has {len(labels)} labels; they must match.")
        weights = check_sample_weight(labels.weights, n, allow_all_zero=True)
        return vars(em_batch(run.model, X, labels.codes, weights, row_offset(), run.next))

    def merge_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` and of ``b`` together (pure; same classes).

        Associative and commutative, so partial statistics (chunks, Dask partitions, models
        fitted apart) can be merged in any order or tree.

        Parameters
        ----------
        a, b : dict
            Statistics in this model's set-up, over the same classes.

        Returns
        -------
        dict
            The statistics of all their rows; ``a`` and ``b`` are left unchanged.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import SemiSupervisedNB
        >>> from nbayes.distributions import Labels
        >>> em = SemiSupervisedNB()
        >>> em.begin(np.array([0, 1]))
        >>> em.setup(2)
        >>> a = em.accumulate([[5, 0]], Labels([0], [1.0], 2))
        >>> b = em.accumulate([[0, 5]], Labels([1], [1.0], 2))
        >>> em.merge_statistics(a, b)["stats"]["class_count"].tolist()
        [1.0, 1.0]
        """
        run = self._running()
        return vars(PassResult(**a).merge(PassResult(**b), run.model))

    def subtract_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` without those of ``b``: the exact inverse of
        :meth:`merge_statistics`, for passes after the first (which keeps the held-out rows
        themselves).

        Parameters
        ----------
        a : dict
            Statistics of some rows.
        b : dict
            Statistics of some of those rows, in the same set-up and classes.

        Returns
        -------
        dict
            The statistics of the rows of ``a`` that are not in ``b``.

        Raises
        ------
        DataError
            ``b`` cannot be part of ``a``, or the pass is the first.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import SemiSupervisedNB
        >>> from nbayes.distributions import Labels
        >>> em = SemiSupervisedNB(max_iter=1, cv=None)
        >>> em.begin(np.array([0, 1]))
        >>> em.setup(2)
        >>> X, labels = [[5, 0], [0, 5], [1, 1]], Labels([0, 1, -1], [1.0, 1.0, 1.0], 2)
        >>> _ = em.install(np.array([0, 1]), em.accumulate(X, labels))
        >>> a = em.accumulate(X, labels)
        >>> b = em.accumulate(X[2:], labels[2:])
        >>> em.subtract_statistics(a, b)["stats"]["class_count"].tolist()
        [1.0, 1.0]
        """
        run = self._running()
        return vars(PassResult(**a).subtract(PassResult(**b), run.model))

    def align_statistics(self, stats: dict, positions: np.ndarray, n_classes: int) -> dict:
        """``stats`` laid out over ``n_classes`` classes: class ``k`` of ``stats`` moves to
        ``positions[k]`` (with its mixture components), the other classes get zeros.

        Parameters
        ----------
        stats : dict
            Statistics over ``len(positions)`` classes.
        positions : ndarray of int
            The new index of each class of ``stats``.
        n_classes : int
            The number of classes of the result.

        Returns
        -------
        dict
            Statistics over ``n_classes`` classes.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import SemiSupervisedNB
        >>> from nbayes.distributions import Labels
        >>> em = SemiSupervisedNB()
        >>> em.begin(np.array([0, 1]))
        >>> em.setup(2)
        >>> part = em.accumulate([[5, 0], [0, 5]], Labels([0, 1], [1.0, 3.0], 2))
        >>> em.align_statistics(part, np.array([1, 0]), 2)["stats"]["class_count"].tolist()
        [3.0, 1.0]
        """
        run = self._running()
        positions = np.asarray(positions, dtype=np.intp)
        if n_classes == positions.size and np.array_equal(positions, np.arange(n_classes)):
            return stats
        return vars(PassResult(**stats).aligned(run.model, positions, n_classes, run.M))

    def recode_statistics(self, other) -> dict:
        """Not available: the statistics of an EM pass belong to the model that scored it,
        so those of another fitted model cannot join them. Merge the fitted ``estimator_``
        models instead (:func:`nbayes.merge`).

        Parameters
        ----------
        other : estimator
            A fitted SemiSupervisedNB.

        Raises
        ------
        ParameterError
            Always.

        Examples
        --------
        >>> from nbayes import SemiSupervisedNB
        >>> SemiSupervisedNB().recode_statistics(SemiSupervisedNB())
        Traceback (most recent call last):
        ...
        nbayes.exceptions.ParameterError: SemiSupervisedNB's statistics ...
        """
        raise ParameterError(
            "SemiSupervisedNB's statistics are those of one EM pass under one model; merge "
            "the fitted models' estimator_ instead (nbayes.merge)."
        )

    def install(self, classes: np.ndarray, stats: dict, *, finalize: bool = True):
        """The M-step of the EM pass just run: the model of ``stats`` (finalized), and the
        plan of the next pass (see :meth:`needs_pass`); after the last, the fitted
        estimator.

        Parameters
        ----------
        classes : ndarray of shape (n_classes,)
            The class labels, sorted, in the order of the statistics' class axis.
        stats : dict
            The merged statistics of the pass.
        finalize : bool, default=True
            EM finalizes every M-step (it scores the next pass with it); False is refused.

        Returns
        -------
        self
            The estimator, fitted once EM is done.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> from nbayes.distributions import Labels
        >>> em = SemiSupervisedNB(MultinomialNB(), max_iter=0)
        >>> em.begin(np.array(["a", "b"]))
        >>> em.setup(2)
        >>> part = em.accumulate([[5, 0], [0, 5], [3, 1]], Labels([0, 1, -1], np.ones(3), 2))
        >>> em.install(np.array(["a", "b"]), part).predict([[4, 1]]).tolist()
        ['a']
        """
        run = self._running()
        if not finalize:
            raise ParameterError("SemiSupervisedNB finalizes every M-step; pass finalize=True.")
        run.classes = np.asarray(classes)
        run.install(PassResult(**stats))
        if run.done:
            self.estimator_, self.classes_ = run.outer, run.classes
            self.history_, self.n_iter_ = run.history, len(run.history)
            self.converged_, self.unlabeled_weight_ = run.converged, run.lam
            self.unlabeled_weight_scores_ = run.scores
            self.heldout_log_likelihood_ = run.heldout_log_likelihood
            del self._em
        return self

    def finalize(self) -> None:
        """Derive the fitted model's parameters from its statistics now (every M-step of
        :meth:`install` does).

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4]])
        >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, [0, -1, 1, -1])
        >>> em.finalize()
        >>> em.predict([[3, 1]]).tolist()
        [0]
        """
        check_is_fitted(self, "estimator_")
        self.estimator_.finalize()

    def get_state(self) -> dict:
        """The fitted state as plain data: the fitted model's state and what EM did.

        Returns
        -------
        dict
            The state; :meth:`set_state` of it gives back a model that predicts identically.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4]])
        >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, [0, -1, 1, -1])
        >>> twin = SemiSupervisedNB(MultinomialNB()).set_state(em.get_state())
        >>> twin.predict(X).tolist() == em.predict(X).tolist()
        True
        """
        check_is_fitted(self, "estimator_")
        return {
            "estimator": self.estimator_.get_state(),
            "classes": self.classes_,
            "history": list(self.history_),
            "converged": bool(self.converged_),
            "unlabeled_weight": float(self.unlabeled_weight_),
            "unlabeled_weight_scores": self.unlabeled_weight_scores_,
            "heldout_log_likelihood": self.heldout_log_likelihood_,
        }

    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output (build the estimator with its
        parameters first).

        Parameters
        ----------
        state : dict
            What :meth:`get_state` returned.

        Returns
        -------
        self
            The fitted model.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4]])
        >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, [0, -1, 1, -1])
        >>> SemiSupervisedNB(MultinomialNB()).set_state(em.get_state()).classes_.tolist()
        [0, 1]
        """
        self.estimator_ = self._new_model().set_state(state["estimator"])
        self.classes_ = np.asarray(state["classes"])
        self.history_ = list(state["history"])
        self.n_iter_ = len(self.history_)
        self.converged_ = bool(state["converged"])
        self.unlabeled_weight_ = float(state["unlabeled_weight"])
        self.unlabeled_weight_scores_ = state["unlabeled_weight_scores"]
        self.heldout_log_likelihood_ = state["heldout_log_likelihood"]
        return self
