"""The estimator protocol of :class:`~._base.BaseNB` over its statistics (see
:mod:`nbayes.base`): set-up, accumulate, merge, subtract, clear, scale, align, re-code,
install, unlearn and finalize; and ``stats_``, declared on the class by :class:`Statistics`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import _engine as engine
from .. import base
from .._labels import label_codes
from .._params import check_params
from .._validation import show
from ..base import Mode, check_mode
from ..distributions import Labels
from ..exceptions import DataError, UnknownLabelError
from . import _linear
from ._inputs import check_sample_weight

#: Where partial_fit keeps statistics and the batch counts not yet added to them (see
#: :class:`Statistics`); the trailing underscore makes it a fitted attribute that
#: ``_forget`` drops.
PENDING = "_pending_stats_"


class Statistics:
    """``stats_``, the fitted statistics, declared on the class.

    ``partial_fit`` may keep the categorical counts of its latest batches apart
    (:func:`engine.accumulate_onto`): adding a batch to a table as wide as a large vocabulary
    copies the table, which costs more than the batch. Reading ``stats_`` adds them, once
    (:func:`engine.fold`); setting it drops them. Neither the statistics nor the batches
    kept are ever changed in place, so a copy of the model or of ``stats_`` is unaffected
    by later batches.
    """

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        state = obj.__dict__
        if "stats_" in state:
            return state["stats_"]
        kept = state.get(PENDING)
        if kept is None:
            raise AttributeError(f"{type(obj).__name__!r} object has no attribute 'stats_'")
        stats = engine.fold(obj.families_, *kept)
        state["stats_"] = stats
        state.pop(PENDING, None)
        return stats

    def __set__(self, obj, value) -> None:
        obj.__dict__.pop(PENDING, None)
        obj.__dict__["stats_"] = value

    def __delete__(self, obj) -> None:
        had = PENDING in obj.__dict__ or "stats_" in obj.__dict__
        obj.__dict__.pop(PENDING, None)
        if obj.__dict__.pop("stats_", None) is None and not had:
            raise AttributeError("stats_")


class _StatisticsProtocol:
    """Set-up, the statistics' algebra, install, unlearn and finalize."""

    if TYPE_CHECKING:  # what the host (BaseNB) supplies
        classes_: np.ndarray
        families_: Any
        params_: list
        n_features_in_: int
        stats_: Any
        class_log_prior_: np.ndarray
        _validate_X: Callable[..., Any]
        _blocks: Callable[..., Any]
        _make_families: Callable[..., Any]
        _publish: Callable[..., Any]
        _accumulate: Callable[..., Any]
        _check_y: Callable[..., Any]
        _start_partial_fit: Callable[..., Any]
        _scoring_params: Callable[..., Any]

    def _log_prior(self, class_count: np.ndarray) -> np.ndarray:
        return engine.log_class_prior(
            class_count,
            getattr(self, "class_prior", None),
            getattr(self, "fit_prior", True),
            getattr(self, "prior_alpha", 0.0),
        )

    # -- the estimator protocol (see nbayes.base) ------------------------------------------------
    def capabilities(self) -> frozenset[str]:
        """Explanations, candidate scoring, leaving features out, a generative joint
        probability; and a linear form once fitted where the families give one (see
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
        found = {base.EXPLANATIONS, base.CANDIDATE_SCORING, base.FEATURE_SUBSETS}
        found.add(base.JOINT_PROBABILITY)
        if hasattr(self, "params_") and _linear.is_linear(self.families_, self.params_):
            found.add(base.LINEAR)
        return frozenset(found)

    def setup(self, meta, summary=None) -> None:
        """Get ready to accumulate batches without learning from any (see
        :meth:`EstimatorProtocol.setup`): ``meta`` is a DataFrame with no rows (a table's
        columns) or the number of columns.

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
        check_params(self)
        self._forget()
        if isinstance(meta, (int, np.integer)):
            self.n_features_in_ = int(meta)
        else:
            names = list(meta.columns)
            self.n_features_in_ = len(names)
            # As scikit-learn: feature names are kept only when every column name is a string.
            if names and all(isinstance(c, str) for c in names):
                self.feature_names_in_ = np.asarray(names, dtype=object)
        self.families_ = self._make_families(self.n_features_in_)

    def setup_from(self, X) -> None:
        """Get ready to accumulate batches from a first batch, as ``partial_fit``'s first
        call sets up: columns, families and readings from its rows; vocabularies then grow
        with ``accumulate(..., mode="learn")``. Nothing is learned from ``X`` here.

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The first batch (:mod:`nbayes._training` accumulates it next).

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB()
        >>> model.setup_from([[1, 0], [0, 2]])
        >>> stats = model.accumulate([[1, 0], [0, 2]], Labels([0, 1], [1.0, 1.0], 2), mode="learn")
        >>> model.install(np.array(["a", "b"]), stats).predict([[3, 0]]).tolist()
        ['a']
        """
        check_params(self)
        for attr in ("classes_", "stats_", PENDING):  # a refit starts afresh
            self.__dict__.pop(attr, None)
        X = self._validate_X(X, reset=True)
        self._start_partial_fit(X)
        self.families_ = self._make_families(X.shape[1])

    def _forget(self) -> None:
        """Drop every fitted attribute (a fresh set-up follows)."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            del self.__dict__[name]
        self.__dict__.pop("_finalized", None)

    def accumulate(self, X, labels: Labels, *, mode: Mode = "count") -> dict:
        """Statistics of one batch (see :meth:`EstimatorProtocol.accumulate`).

        ``mode="learn"`` may grow category vocabularies, as ``partial_fit`` does.

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The rows to count, with the columns of :meth:`setup`.
        labels : Labels
            Class codes (indices into the classes the statistics are laid out over), sample
            weights and the number of classes.
        mode : {"learn", "count", "unlearn", "score"}, default="count"
            Why the batch is read (the modes of :mod:`nbayes.base`); decides
            what an unseen value does.

        Returns
        -------
        dict
            Statistics (as :mod:`nbayes.base` lays them out), over
            ``labels.n_classes`` classes.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> stats = model.accumulate([[1, 1]], Labels(np.array([1]), np.array([2.0]), 2))
        >>> stats["class_count"].tolist(), stats["groups"][0]["n_counts"].tolist()
        ([0.0, 2.0], [[0.0, 0.0], [2.0, 2.0]])
        """
        check_mode(mode)
        return self._accumulate(self._validate_X(X, reset=False), labels, mode)

    def merge_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` and ``b`` together; a DataError names the column
        whose sum would overflow float64 (finite input gives finite statistics).

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
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> more = model.accumulate([[1, 1]], Labels(np.array([0]), np.array([1.0]), 2))
        >>> model.merge_statistics(model.stats_, more)["class_count"].tolist()
        [3.0, 1.0]
        """
        merged = engine.merge(self.families_, a, b)
        engine.check_overflow(self.families_, merged, None, self._feature_names_per_block())
        return merged

    def subtract_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` without those of ``b`` (errors name the class and
        column that would go negative).

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
            ``b`` cannot be part of ``a`` (a count would become negative); the message names
            the class and column.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> row = model.accumulate([[1, 1]], Labels(np.array([0]), np.array([1.0]), 2))
        >>> model.subtract_statistics(model.stats_, row)["groups"][0]["n_counts"].tolist()
        [[2.0, 0.0], [0.0, 3.0]]
        """
        classes = getattr(self, "classes_", None)
        return engine.subtract(
            self.families_,
            a,
            b,
            class_names=None if classes is None else classes.tolist(),
            feature_names=self._feature_names_per_block(),
        )

    def clear_statistics(self, stats: dict) -> dict:
        """``stats`` of no rows, with the category counts per column kept.

        Parameters
        ----------
        stats : dict
            Statistics in this model's set-up.

        Returns
        -------
        dict
            The statistics of no rows, laid out as ``stats``.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.clear_statistics(model.stats_)["class_count"].tolist()
        [0.0, 0.0]
        """
        return engine.clear(self.families_, stats)

    def scale_statistics(self, stats: dict, factor: float) -> dict:
        """``stats`` with every row's weight multiplied by ``factor`` (>= 0).

        Parameters
        ----------
        stats : dict
            Statistics in this model's set-up.
        factor : float
            The weight multiplier, >= 0.

        Returns
        -------
        dict
            The scaled statistics, laid out as ``stats``.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.scale_statistics(model.stats_, 0.5)["class_count"].tolist()
        [1.0, 0.5]
        """
        return engine.scale(self.families_, stats, factor)

    def align_statistics(self, stats: dict, positions, n_classes: int) -> dict:
        """``stats`` laid out over ``n_classes`` classes, class ``i`` at ``positions[i]``.

        Parameters
        ----------
        stats : dict
            Statistics over ``len(positions)`` classes.
        positions : ndarray of int
            The new index of each class of ``stats``, all different and below ``n_classes``.
        n_classes : int
            The number of classes of the result.

        Returns
        -------
        dict
            Statistics over ``n_classes`` classes.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.align_statistics(model.stats_, np.array([0, 2]), 3)["class_count"].tolist()
        [2.0, 0.0, 1.0]
        """
        return engine.align_classes(self.families_, stats, positions, n_classes)

    def recode_statistics(self, other) -> dict:
        """``other``'s statistics in this model's encoding, ready for :func:`nbayes.merge`.
        Models with learned category vocabularies (MixedNB, CategoricalNB on values) extend
        their vocabularies and re-code ``other``'s counts.

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
        return other.stats_

    def install(self, classes, stats: dict, *, finalize: bool = True):
        """Become the fitted model of ``stats`` over ``classes`` and finalize; with
        ``finalize=False``, hold the statistics only, until :meth:`finalize` is called.
        Returns self.

        Parameters
        ----------
        classes : ndarray of shape (n_classes,)
            The class labels, sorted, in the order of the statistics' class axis.
        stats : dict
            Statistics in this model's set-up.
        finalize : bool, default=True
            False: hold the statistics only, without parameters (the model then makes
            :meth:`finalize_with` models and scores nothing itself until :meth:`finalize`
            is called; nothing is derived on reading an attribute). For a model just
            :meth:`setup`, by a caller that makes other finalizes of the statistics (a grid
            search's candidates) and never uses this model's own.

        Returns
        -------
        self
            The fitted model.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> twin = MultinomialNB()
        >>> twin.setup(2)
        >>> twin.install(model.classes_, model.stats_).predict([[0, 1]]).tolist()
        ['b']
        """
        self.classes_ = np.asarray(classes)
        self.stats_ = stats
        if finalize:
            self.finalize()
        else:
            for name in self._finalized_names():
                self.__dict__.pop(name, None)
        return self

    def unlearn(self, X, y, sample_weight=None):
        """Remove rows learned earlier, exactly: the model becomes the one never shown them.

        Statistics are additive, so unlearning subtracts the rows' statistics (counts
        directly, Gaussian moments with the inverse of the Chan update) and finalizes again.
        The result equals ``partial_fit`` on the remaining rows with the same ``classes_``
        to floating-point rounding; a class whose rows are all unlearned stays in
        ``classes_`` with weight zero.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows the model was trained on.
        y : array-like of shape (n_samples,)
            Their labels.
        sample_weight : array-like of shape (n_samples,), optional
            The weights the rows were learned with.

        Returns
        -------
        self
            The estimator, as if it had never seen those rows.

        Raises
        ------
        UnknownLabelError
            A label the model never learned.
        DataError
            The rows cannot all have been learned: a count or weight would become negative,
            a category code or a spread was never seen, or nothing would be left. Statistics
            are sufficient, so rows consistent with them cannot be told from learned ones.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> X = np.array([[3, 0], [2, 1], [0, 4]]); y = np.array([0, 0, 1])
        >>> model = MultinomialNB().fit(X, y).unlearn(X[1:2], y[1:2])
        >>> model.feature_count_.tolist()
        [[3.0, 0.0], [0.0, 4.0]]
        """
        check_is_fitted(self, "stats_")
        X = self._validate_X(X, reset=False)
        y = self._check_y(y, X)
        weights = check_sample_weight(sample_weight, X.shape[0])
        codes, row = label_codes(y, self.classes_)
        if row is not None:
            raise UnknownLabelError(
                f"Cannot unlearn row {row}: its label {show(y[row])} is not among classes "
                f"{self.classes_.tolist()!r}, so the model never learned it."
            )
        removed = self._accumulate(X, Labels(codes, weights, len(self.classes_)), "unlearn")
        stats = self.subtract_statistics(self.stats_, removed)
        if not stats["class_count"].any():
            raise DataError(
                "Cannot unlearn: these rows are everything the model learned, so nothing "
                "would be left to predict with. Start again with a new model instead."
            )
        old = self.stats_
        self.stats_ = stats
        try:
            self.finalize()
        except Exception:
            self.stats_ = old  # leave the model as it was if the remaining data is unusable
            self.finalize()
            raise
        return self

    def log_prior(self) -> float:
        """log p(parameters) under the priors whose modes the estimates are, up to a constant
        (see :meth:`EstimatorProtocol.log_prior`): each family's Dirichlet / Beta / Gamma
        pseudo-counts, and ``prior_alpha`` on a fitted class prior.

        Returns
        -------
        float
            The log prior density of the fitted parameters, up to a constant.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> X, y = [[2, 0], [1, 1], [0, 3]], ["a", "a", "b"]
        >>> round(MultinomialNB(alpha=2.0).fit(X, y).log_prior(), 3)
        -6.08
        """
        check_is_fitted(self, "stats_")
        # The scoring tables of this fitted state (made once, see _scoring_params) hold the
        # count families' log tables: EM scores a state and takes its prior, one layout.
        params = self._scoring_params()
        total = sum(fam.log_prior(p) for fam, p in zip(self.families_, params))
        prior_alpha = getattr(self, "prior_alpha", 0.0) or 0.0
        if getattr(self, "class_prior", None) is None and getattr(self, "fit_prior", True):
            total += prior_alpha * float(np.sum(self.class_log_prior_))
        return float(total)

    def _feature_names_per_block(self):
        names = getattr(self, "feature_names_in_", None)
        return None if names is None else [list(names)]

    def finalize(self) -> None:
        """Derive the parameters and the published attributes from ``stats_`` now.

        ``fit``, every ``partial_fit``, ``install``, ``unlearn`` and ``set_state`` finalize;
        nothing is derived later, on reading an attribute. Published tables that would cost
        a pass over a large vocabulary to lay out (CategoricalNB's ``feature_log_prob_``) are
        read-only properties computed from ``params_`` on each read, changing nothing.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [0, 3]], ["a", "b"])
        >>> twin = MultinomialNB()
        >>> twin.setup(2)
        >>> _ = twin.install(model.classes_, model.stats_, finalize=False)
        >>> twin.finalize()
        >>> twin.feature_log_prob_.shape
        (2, 2)
        """
        stats = self.stats_
        # What can fail (a zero variance, a bad class prior) runs before anything is set.
        params = engine.finalize(self.families_, stats)
        self._set_parameters(stats, params, self._log_prior(stats["class_count"]))

    def _set_parameters(self, stats: dict, params: list, log_prior: np.ndarray) -> None:
        """Set the parameters of ``stats`` and publish the familiar attributes, noting their
        names (``install(..., finalize=False)`` drops them all, not just ``params_``)."""
        before = set(self.__dict__)
        self.params_, self.class_log_prior_ = params, log_prior
        self.class_count_ = stats["class_count"]
        self._publish()
        added = set(self.__dict__) - before - {"_finalized"}
        self._finalized = tuple(sorted(added.union(self.__dict__.get("_finalized", ()))))

    def _finalized_names(self) -> tuple[str, ...]:
        """What :meth:`finalize` sets (``install(..., finalize=False)`` leaves them out)."""
        return ("params_", "class_log_prior_", "class_count_", *self.__dict__.get("_finalized", ()))
