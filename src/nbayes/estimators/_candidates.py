"""Other finalizes of one model's statistics, and their scores (model selection): the
candidate-scoring capability of :class:`~._base.BaseNB` (see :mod:`nbayes.base`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .. import _engine as engine
from .._accel import kernels
from ..base import EstimatorProtocol
from ..distributions import Family
from ..distributions._arrays import compressed_view
from ..exceptions import ParameterError
from ._statistics import _StatisticsProtocol

#: Scores (floats) that :meth:`BaseNB.joint_log_scores_of` stacks at most at a time: 32 MB.
_STACK_BUDGET = 2**22


#: Held-out rows are scored over only the columns they hold (``Family.finalize_stacked``
#: with ``columns``) where they store fewer values than this many times the number of
#: columns. With more they touch nearly every column (a large text corpus's folds do), and
#: looking would be a wasted pass over them.
NARROW_FOLD_RATIO = 4
#: ... and where they hold at most this share of the columns.
NARROW_FOLD_SHARE = 0.5


def _held_columns(families, blocks: list, feature_names) -> tuple | None:
    """(the one CSR block over the columns it holds, their indices) when scoring it there
    saves most of the stacked tables of a grid search's candidates; None otherwise.

    The compiled pass lists the columns in the order they first appear in the block, which
    puts the words most rows hold near the start of the tables (in cache when the product
    reads them: a fifth faster on the held-out folds of Enron); the numpy code sorts them.
    Either order gives the same scores, bit for bit.

    The block is checked in full first (``prepare``), so that an error names the column
    of the user's data, not one of the narrowed block.
    """
    if len(blocks) != 1 or not sp.issparse(blocks[0]) or blocks[0].format != "csr":
        return None
    X = blocks[0]
    n_features = X.shape[1]
    if X.nnz >= NARROW_FOLD_RATIO * n_features:
        return None
    engine.prepare(families, blocks, feature_names, lazy=False)
    index = X.indices.dtype
    compiled = kernels()
    if compiled is not None and index in (np.int32, np.int64) and X.indices.flags.c_contiguous:
        # One compiled pass over the stored values instead of four numpy passes.
        position = np.full(n_features, -1, dtype=index)
        narrow_indices = np.empty_like(X.indices)
        columns = np.empty(n_features, dtype=index)
        n_held = compiled.held_columns(X.indices, position, narrow_indices, columns)
        columns = columns[:n_held].astype(np.intp)
    else:
        held = np.zeros(n_features, dtype=bool)
        held[X.indices] = True
        columns = np.flatnonzero(held)
        position = np.zeros(n_features, dtype=index)
        position[columns] = np.arange(columns.size, dtype=index)
        narrow_indices = position[X.indices]
    if columns.size > NARROW_FOLD_SHARE * n_features:
        return None
    narrow = compressed_view(
        sp.csr_matrix, X.data, narrow_indices, X.indptr, (X.shape[0], columns.size)
    )
    return narrow, columns


#: The parameters that decide a model's class prior in ``BaseNB._log_prior``.
PRIOR_PARAMS = ("class_prior", "fit_prior", "prior_alpha")


def _log_priors(shells: list, class_count: np.ndarray) -> list:
    """Each candidate's log class prior from ``class_count``; computed once for candidates
    whose prior parameters are the same objects (a grid that varies alpha, say), where the
    class derives its prior from those alone (``BaseNB._log_prior``)."""
    made: dict = {}
    out = []
    for i, shell in enumerate(shells):  # bounded by the candidates
        shared = type(shell)._log_prior is _StatisticsProtocol._log_prior
        key = tuple(id(getattr(shell, name, None)) for name in PRIOR_PARAMS) if shared else i
        if key not in made:
            made[key] = shell._log_prior(class_count)
        out.append(made[key])
    return out


class _CandidateScoring:
    """``finalize_with`` and the scores of several candidates over one pass of the data."""

    if TYPE_CHECKING:  # what the host (BaseNB) supplies
        classes_: np.ndarray
        families_: Any
        n_features_in_: int
        stats_: Any
        set_params: Callable[..., Any]
        install: Callable[..., Any]
        _validate_X: Callable[..., Any]
        _blocks: Callable[..., Any]
        _make_families: Callable[..., Any]
        _feature_names_per_block: Callable[..., Any]

    # -- other finalizes of the same statistics (model selection) -------------------------------
    #: Constructor parameters that only change finalize or scoring (see finalize_params).
    _finalize_only: frozenset[str] = frozenset()

    def finalize_params(self) -> frozenset[str]:
        """Names of the constructor parameters that only change finalize or scoring (see
        :meth:`EstimatorProtocol.finalize_params`).

        Returns
        -------
        frozenset of str
            The parameter names (empty when none can be changed this way).

        Raises
        ------
        ParameterError
            Where this model's set-up depends on which rows it learned in a way statistics do
            not undo (so a model of part of the rows cannot be made from statistics).

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> sorted(MultinomialNB().finalize_params())[:3]
        ['alpha', 'class_prior', 'decision_threshold']
        """
        return self._finalize_only

    def finalize_with(self, params: dict | None = None, stats: dict | None = None):
        """A new fitted model with other finalize-time parameters, over ``stats`` (default:
        this model's statistics), without reading any data (see
        :meth:`EstimatorProtocol.finalize_with`).

        Parameters
        ----------
        params : dict, optional
            New values of some of :meth:`finalize_params`.
        stats : dict, optional
            Statistics over ``classes_`` in this model's set-up, e.g. this model's minus
            those of some rows (:meth:`subtract_statistics`).

        Returns
        -------
        estimator
            A new estimator of the same class, fitted; ``get_params()`` shows ``params``.

        Raises
        ------
        ParameterError
            A name in ``params`` that is not in :meth:`finalize_params`.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> X = np.array([[3, 0], [2, 1], [0, 4]]); y = [0, 0, 1]
        >>> model = MultinomialNB().fit(X, y).finalize_with({"alpha": 0.5})
        >>> refit = MultinomialNB(alpha=0.5).fit(X, y)
        >>> np.allclose(model.feature_log_prob_, refit.feature_log_prob_)
        True
        """
        check_is_fitted(self, "stats_")
        model = self._candidate_shell(dict(params or {}))
        model.install(self.classes_, self.stats_ if stats is None else model._restrict(stats))
        return model

    def _remake_families(self) -> list[Family]:
        """The families of the current parameters for the fitted columns (finalize_with)."""
        return self._make_families(self.n_features_in_)

    def _restrict(self, stats: dict) -> dict:
        """``stats`` ready to install: models with category vocabularies drop the values
        that no row of ``stats`` holds (and re-code the counts); others take them as they
        are."""
        return stats

    def joint_log_scores_of(self, models, X):
        """:meth:`joint_log_scores` of X under each of ``models``, in order, from one pass
        over X where their families allow (see :meth:`EstimatorProtocol.joint_log_scores_of`).

        ``models`` are :meth:`finalize_with` of one model over the same statistics (the
        candidates of a grid search on one fold). Where every family can lay their parameter
        tables side by side (``Family.stack_params``), the candidates are scored together: one
        matrix product over X gives every candidate's scores, and X is checked once, not once
        per candidate. The scores are those of each model's own :meth:`joint_log_scores`.
        Candidates are stacked in groups whose scores take at most about 32 MB at a time.

        Parameters
        ----------
        models : iterable of estimators
            Fitted models made by :meth:`finalize_with` of one model over the same
            statistics (the candidates of a grid search on one fold).
        X : batch of rows, as the estimator's ``fit`` takes them
            The samples to score.

        Yields
        ------
        ndarray of shape (n_samples, n_classes), one per model

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> models = [model.finalize_with({"alpha": a}) for a in (0.5, 2.0)]
        >>> scores = list(model.joint_log_scores_of(models, [[1, 1]]))
        >>> [bool(np.allclose(s, m.joint_log_scores([[1, 1]]))) for s, m in zip(scores, models)]
        [True, True]
        """
        models = list(models)
        if not self._stackable(models):
            yield from EstimatorProtocol.joint_log_scores_of(self, models, X)
            return
        first = models[0]
        X = first._validate_X(X, reset=False)
        blocks = first._blocks(X, "score")
        n_classes = len(first.classes_)
        size = max(1, blocks[0].shape[0] * n_classes)
        per_group = max(1, _STACK_BUDGET // size)
        for start in range(0, len(models), per_group):  # bounded by the memory budget
            group = models[start : start + per_group]
            params = [
                fam.stack_params([m.params_[g] for m in group])
                for g, fam in enumerate(first.families_)
            ]
            jll = engine.joint_log_likelihood(
                first.families_,
                params,
                np.concatenate([m.class_log_prior_ for m in group]),
                blocks,
                first._feature_names_per_block(),
                normalised=False,
            )
            for i in range(len(group)):  # bounded by the group
                yield jll[:, i * n_classes : (i + 1) * n_classes]  # a view: no copy

    def joint_log_scores_with(self, params_list, stats: dict, X):
        """:meth:`joint_log_scores` of X under ``finalize_with(params, stats)`` for each of
        ``params_list``, in order (see :meth:`EstimatorProtocol.joint_log_scores_with`).

        Where every family finalizes several candidates in one vectorised pass
        (``Family.finalize_stacked``), no model is made: the candidates' tables are computed
        together, already laid out for one matrix product over X; where X is sparse and holds
        a small share of the columns (a held-out fold of a large vocabulary) and the family
        can (``Family.stacks_columns``), the tables of the columns X holds alone, and X is
        scored over those columns (the same scores: the other columns add nothing). Otherwise
        :meth:`finalize_with` per candidate and :meth:`joint_log_scores_of`.

        Parameters
        ----------
        params_list : list of dict
            Finalize-time parameters of each candidate (see :meth:`finalize_params`).
        stats : dict
            Statistics over ``classes_`` in this model's set-up (e.g. all rows minus a fold).
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The held-out rows to score.

        Yields
        ------
        ndarray of shape (n_samples, n_classes), one per candidate (views of one stacked
        array where the candidates were scored together)

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> X = np.array([[3, 0], [2, 1], [0, 4]])
        >>> model = MultinomialNB().fit(X, [0, 0, 1])
        >>> grid = [{"alpha": 0.1}, {"alpha": 2.0}]
        >>> scores = list(model.joint_log_scores_with(grid, model.stats_, X))
        >>> bool(np.allclose(scores[1], model.finalize_with(grid[1]).joint_log_scores(X)))
        True
        """
        check_is_fitted(self, "stats_")
        params_list = [dict(p or {}) for p in params_list]
        shells = [self._candidate_shell(p) for p in params_list]
        stacked = blocks = None
        names = self._feature_names_per_block()

        def finalize(columns=None) -> list | None:
            tables = [
                fam.finalize_stacked(s, [shell.families_[g] for shell in shells], columns)
                for g, (fam, s) in enumerate(zip(self.families_, stats["groups"]))
            ]
            return None if any(t is None for t in tables) else tables

        if (
            len(shells) > 1
            and len(self.classes_) > 1
            and type(self)._restrict is _CandidateScoring._restrict
        ):
            if len(self.families_) == 1 and self.families_[0].stacks_columns:
                X = self._validate_X(X, reset=False)
                blocks = self._blocks(X, "score")
                held = _held_columns(self.families_, blocks, names)
                if held is not None and (stacked := finalize(held[1])) is not None:
                    blocks = [held[0]]  # the held-out rows over the columns they hold
            if stacked is None:
                stacked = finalize()
        if stacked is None:
            models = [self.finalize_with(p, stats) for p in params_list]
            yield from self.joint_log_scores_of(models, X)
            return
        if blocks is None:
            X = self._validate_X(X, reset=False)
            blocks = self._blocks(X, "score")
        log_prior = np.concatenate(_log_priors(shells, stats["class_count"]))
        n_classes = len(self.classes_)
        jll = engine.joint_log_likelihood(
            self.families_, stacked, log_prior, blocks, names, normalised=False
        )
        for i in range(len(shells)):  # bounded by the candidates
            yield jll[:, i * n_classes : (i + 1) * n_classes]  # a view: no copy

    def _candidate_shell(self, params: dict):
        """This model's set-up with ``params`` set and its families remade, not finalized:
        what :meth:`finalize_with` builds before it installs the statistics."""
        allowed = self.finalize_params()
        refused = sorted(set(params) - allowed)
        if refused:
            raise ParameterError(
                f"{type(self).__name__}'s parameter(s) {refused!r} change what is counted, not "
                "only how the statistics are finalized, so a model with other values must be "
                "fitted again (scikit-learn's sklearn.model_selection.GridSearchCV does). "
                f"Parameters that only change the finalize: {sorted(allowed)!r}."
            )
        model = type(self).__new__(type(self))
        model.__dict__.update(self.__dict__)
        if any("__" in name for name in params):
            model.set_params(**params)
        else:  # names checked above; set_params would inspect the signature every time
            for name, value in params.items():  # bounded by the parameters
                setattr(model, name, value)
        model.families_ = model._remake_families()
        return model

    def _stackable(self, models: list) -> bool:
        """Whether :meth:`joint_log_scores_of` can score ``models`` in one product: fitted
        models of this class with the same classes (two or more, so that the class prior
        enters every stacked score as it enters each model's) and families that stack."""
        if len(models) < 2 or any(type(m) is not type(self) for m in models):
            return False
        for m in models:  # bounded by the candidates
            check_is_fitted(m, "stats_")
        first = models[0]
        if len(first.classes_) < 2:
            return False
        kinds = [type(f) for f in first.families_]
        for m in models:  # bounded by the candidates
            if not np.array_equal(m.classes_, first.classes_):
                return False
            if [type(f) for f in m.families_] != kinds:
                return False
        return all(f.stackable_params is not None for f in first.families_)
