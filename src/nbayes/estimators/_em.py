"""One EM pass of SemiSupervisedNB over a batch (module-level: Dask runs it on the workers),
the sums a pass gives, and the held-out figures that choose ``unlabeled_weight``.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass
from functools import reduce

import numpy as np
from scipy.special import logsumexp
from sklearn.utils import _safe_indexing

from .. import base
from .._accel import kernels
from .._rowhash import hash_folds, row_hash
from .._threads import get_threads, map_chunks
from .._validation import show, user_stacklevel
from ..base import EstimatorProtocol
from ..distributions import SoftLabels
from ..exceptions import DataError, EMWarning

#: How to act on an EMWarning (the command line says it with its own options).
EM_ADVICE = "Lower unlabeled_weight, or let SemiSupervisedNB choose it (unlabeled_weight='auto')."


# -- one batch of one EM pass (module-level: Dask runs it on the workers) -----------------------
@dataclass
class PassResult:
    """What one pass over the data gives: statistics and the weighted log-likelihood sums.

    ``labeled`` and ``unlabeled`` are sums of ``weight * log p(row)`` (the labeled rows with
    their class, the unlabeled ones marginalised over the classes) under the model that
    scored the pass; ``labeled_weight`` and ``unlabeled_weight`` are the sums of the rows'
    sample weights (before lambda).
    """

    stats: dict
    labeled: float = 0.0
    unlabeled: float = 0.0
    labeled_weight: float = 0.0
    unlabeled_weight: float = 0.0
    #: With held-out folds (``StepSettings.n_folds``), ``stats`` are the labeled rows' alone;
    #: ``folds`` splits them by fold and ``unlabeled_stats`` are the unlabeled rows' with
    #: weight lambda = 1, so that the M-step of any lambda is a merge of statistics.
    folds: list | None = None
    unlabeled_stats: dict | None = None
    #: The first pass with folds: the labeled rows of each fold, as (X, codes, weights)
    #: pieces (one per batch), to score the models of the other folds' rows on.
    held_out: list | None = None

    def merge(self, other: PassResult, model: EstimatorProtocol) -> PassResult:
        both = model.merge_statistics
        folds = unlabeled = held_out = None
        # Batches of one pass agree on these: all None, or all present.
        if self.folds is not None and other.folds is not None:
            folds = [both(a, b) for a, b in zip(self.folds, other.folds)]
        if self.unlabeled_stats is not None and other.unlabeled_stats is not None:
            unlabeled = both(self.unlabeled_stats, other.unlabeled_stats)
        if self.held_out is not None and other.held_out is not None:
            held_out = [a + b for a, b in zip(self.held_out, other.held_out)]
        return PassResult(
            both(self.stats, other.stats),
            self.labeled + other.labeled,
            self.unlabeled + other.unlabeled,
            self.labeled_weight + other.labeled_weight,
            self.unlabeled_weight + other.unlabeled_weight,
            folds,
            unlabeled,
            held_out,
        )

    def subtract(self, other: PassResult, model: EstimatorProtocol) -> PassResult:
        """The pass's sums without those of ``other``, a part of its rows scored by the same
        model (the inverse of :meth:`merge`)."""
        if self.held_out is not None or other.held_out is not None:
            raise DataError(
                "The first pass of EM keeps the held-out labeled rows themselves, which cannot "
                "be subtracted; subtract the statistics of a later pass, or refit."
            )
        minus = model.subtract_statistics
        folds = unlabeled = None
        if self.folds is not None and other.folds is not None:
            folds = [minus(a, b) for a, b in zip(self.folds, other.folds)]
        if self.unlabeled_stats is not None and other.unlabeled_stats is not None:
            unlabeled = minus(self.unlabeled_stats, other.unlabeled_stats)
        return PassResult(
            minus(self.stats, other.stats),
            self.labeled - other.labeled,
            self.unlabeled - other.unlabeled,
            self.labeled_weight - other.labeled_weight,
            self.unlabeled_weight - other.unlabeled_weight,
            folds,
            unlabeled,
        )

    def aligned(
        self, model: EstimatorProtocol, positions: np.ndarray, n_classes: int, n_components: int
    ) -> PassResult:
        """The pass laid out over ``n_classes`` classes, class ``k`` moved to
        ``positions[k]`` with its ``n_components`` sub-classes (and the held-out rows'
        codes with it)."""
        M = n_components
        subs = (np.asarray(positions, dtype=np.intp)[:, None] * M + np.arange(M)).ravel()

        def align(stats):
            return None if stats is None else model.align_statistics(stats, subs, n_classes * M)

        held_out = None
        if self.held_out is not None:
            where = np.asarray(positions, dtype=np.intp)
            held_out = [[(X, where[c], w) for X, c, w in fold] for fold in self.held_out]
        return PassResult(
            align(self.stats),
            self.labeled,
            self.unlabeled,
            self.labeled_weight,
            self.unlabeled_weight,
            None if self.folds is None else [align(f) for f in self.folds],
            align(self.unlabeled_stats),
            held_out,
        )

    def total(self, model: EstimatorProtocol, unlabeled_weight: float) -> dict:
        """The M-step's statistics: the labeled rows' plus lambda times the unlabeled rows'."""
        if self.unlabeled_stats is None:
            return self.stats
        return model.merge_statistics(
            self.stats, model.scale_statistics(self.unlabeled_stats, unlabeled_weight)
        )


@dataclass(frozen=True)
class StepSettings:
    """How a batch is weighted in a pass (plain data, shipped to Dask workers)."""

    n_sub_classes: int  # classes x components
    n_components: int
    unlabeled_weight: float
    seed: int
    init: bool  # the first pass: labeled rows only, components drawn at random
    n_folds: int = 0  # > 0: labeled rows split into held-out folds (see PassResult)
    fold_seed: int = 0


def component_shares(rows: np.ndarray, n_components: int, seed: int) -> np.ndarray:
    """Random Dirichlet(1) shares of each row over ``n_components``, shape (n, M).

    Drawn from a counter-based hash of (seed, global row index), not from a stream: the share
    of a row does not depend on how the rows are chunked or partitioned, so in-memory, chunked
    and Dask EM start from the same model.

    Examples
    --------
    >>> import numpy as np
    >>> a = component_shares(np.arange(6), 3, seed=0)
    >>> b = component_shares(np.arange(4, 6), 3, seed=0)  # the same rows in another chunk
    >>> bool(np.allclose(a.sum(axis=1), 1)), bool(np.array_equal(a[4:], b))
    (True, True)
    """
    keys = rows.astype(np.uint64)[:, None] * np.uint64(n_components) + np.arange(
        n_components, dtype=np.uint64
    )
    bits = row_hash(keys, seed)
    uniform = ((bits >> np.uint64(11)).astype(np.float64) + 0.5) / 2.0**53
    gaps = -np.log(uniform)  # exponential draws; normalised they are Dirichlet(1)
    return gaps / gaps.sum(axis=1, keepdims=True)


def _softmax_columns(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The softmax of each column of class-major scores (n_classes, n) and its log-sum-exp,
    in place; a column of -inf gives NaN and -inf. Reductions over the class axis of a
    (K, n) array are K element-wise passes over contiguous rows, several times faster than
    reducing each of n short rows of an (n, K) array."""
    top = scores.max(axis=0)
    top[~np.isfinite(top)] = 0.0
    scores -= top
    np.exp(scores, out=scores)
    total = scores.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scores /= total
        return scores, top + np.log(total)


def responsibilities(
    scores: np.ndarray, codes: np.ndarray, n_components: int, row_weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """EM's E-step: ``(resp, loglik)`` from the joint log-likelihoods (n, S) of a batch.

    ``resp[i]`` is row i's posterior times ``row_weight[i]``: over all S sub-classes for an
    unlabeled row (``codes[i] == -1``), over its own class's components (sub-classes
    ``codes[i] * M .. codes[i] * M + M - 1``, the others 0) for a labeled one. ``loglik[i]``
    is the log-sum-exp of the row's scores over the same sub-classes: log p(x) or
    log p(x, y). Rows of zero ``row_weight`` get zeros and loglik 0; a row whose sub-classes
    all score -inf gets loglik -inf (NaN or +inf scores a non-finite loglik too).

    ``scores`` is overwritten: with the compiled loops ``resp`` is ``scores`` itself, made
    in one pass over the rows; without them, a class-major copy seen through its transpose.
    Either way an (n, S) array that the M-step's soft labels read in place.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.log([[0.1, 0.3], [0.2, 0.2], [0.5, 0.1]])
    >>> resp, loglik = responsibilities(scores, np.array([-1, 1, -1]), 1, np.array([1, 2, 0.0]))
    >>> resp.round(3).tolist(), loglik.round(3).tolist()
    ([[0.25, 0.75], [0.0, 2.0], [0.0, 0.0]], [-0.916, -1.609, 0.0])
    """
    compiled = kernels()
    n = scores.shape[0]
    codes = np.ascontiguousarray(codes, dtype=np.intp)
    row_weight = np.ascontiguousarray(row_weight, dtype=np.float64)
    if compiled is not None:
        resp = np.require(scores, np.float64, ["C", "W"])  # a copy only where needed
        loglik, total = np.empty(n), np.empty(n)

        def step(rows: slice) -> None:  # row chunks on the worker threads (the loop is nogil)
            compiled.em_responsibilities(
                resp[rows],
                codes[rows],
                int(n_components),
                row_weight[rows],
                loglik[rows],
                total[rows],
            )

        # In place, so no memory budget to keep: one chunk per thread (at least 8192 rows).
        size = max(8192, -(-n // get_threads()))
        for _ in map_chunks(step, (slice(a, min(a + size, n)) for a in range(0, n, size))):
            pass
        with np.errstate(divide="ignore", invalid="ignore"):
            loglik += np.log(total)  # numpy's log vectorises, the C library's does not
        return resp, loglik
    # Class-major: the reductions run over the short class axis (see _softmax_columns).
    scores_t = np.array(scores.T, dtype=np.float64, order="C")
    rows = np.flatnonzero(codes >= 0)
    if rows.size:
        # A labeled row may belong to its own class's components only.
        own = np.zeros((rows.size, scores_t.shape[0]), dtype=bool)
        cols = codes[rows, None] * n_components + np.arange(n_components)
        np.put_along_axis(own, cols, True, axis=1)
        scores_t[:, rows] = np.where(own.T, scores_t[:, rows], -np.inf)
    resp_t, loglik = _softmax_columns(scores_t)
    resp_t *= row_weight
    idle = row_weight == 0
    if idle.any():
        resp_t[:, idle] = 0.0  # NaN posteriors of rows that weigh nothing
        loglik[idle] = 0.0
    return resp_t.T, loglik


def em_batch(
    model: EstimatorProtocol,
    X,
    codes: np.ndarray,
    weights: np.ndarray,
    first_row: int,
    settings: StepSettings,
) -> PassResult:
    """One batch of an EM pass: responsibilities under ``model`` (E-step), then the batch's
    statistics with them as soft labels (its share of the M-step).

    Parameters
    ----------
    model : fitted (or, for the first pass, set-up) nbayes estimator over K x M sub-classes
        (class ``k``'s components are sub-classes ``k * M .. k * M + M - 1``).
    codes : ndarray of shape (n,)
        Class index of each labeled row, -1 for an unlabeled one.
    weights : ndarray of shape (n,)
        Sample weights.
    first_row : int
        Index of the batch's first row in all the data (draws the initial components).
    settings : StepSettings
    """
    n, M = codes.shape[0], settings.n_components
    labeled = codes >= 0
    lam = settings.unlabeled_weight
    if settings.init:
        # The labeled-only model: each labeled row in its class, spread at random over the
        # class's components; unlabeled rows weigh nothing yet.
        if M == 1:
            share = np.ones((n, 1))
        else:
            share = component_shares(first_row + np.arange(n), M, settings.seed)
        resp = np.zeros((n, settings.n_sub_classes))
        cols = np.maximum(codes, 0)[:, None] * M + np.arange(M)
        np.put_along_axis(resp, cols, share * np.where(labeled, weights, 0.0)[:, None], axis=1)
        stats = model.accumulate(X, SoftLabels(resp), mode="count")
        if not labeled.all():
            # The unlabeled rows count nothing yet, but their categories belong to the model
            # from the start (where the statistics carry the categories, as for integer codes):
            # their statistics cleared keep the categories and no counts.
            seen = np.zeros_like(resp)
            seen[:, 0] = np.where(labeled, 0.0, np.maximum(weights, 1.0))
            unl = model.accumulate(X, SoftLabels(seen), mode="count")
            stats = model.merge_statistics(stats, model.clear_statistics(unl))
        held_out = None
        if settings.n_folds:
            # Rows of weight zero say nothing about any model (and 0 * -inf is NaN).
            rows = np.flatnonzero(labeled & (weights > 0))
            folds = hash_folds(first_row + rows, settings.n_folds, settings.fold_seed)
            held_out = []
            for f in range(settings.n_folds):  # bounded by the number of folds
                mine = rows[folds == f]
                held_out.append(
                    [(_safe_indexing(X, mine), codes[mine], weights[mine])] if mine.size else []
                )
        return PassResult(
            stats,
            labeled_weight=float(weights[labeled].sum()),
            unlabeled_weight=float(weights[~labeled].sum()),
            held_out=held_out,
        )
    rows = np.flatnonzero(labeled)
    split = settings.n_folds > 0
    # Split: the unlabeled rows are counted with weight 1 and scaled by lambda afterwards.
    scale = 1.0 if split else lam
    row_weight = weights if scale == 1.0 else np.where(labeled, weights, scale * weights)
    resp, loglik = responsibilities(model.joint_log_scores(X), codes, M, row_weight)
    ll = loglik * weights
    total = float(ll.sum())
    if not np.isfinite(total):  # -inf in a row that weighs something
        row = int(np.flatnonzero(~np.isfinite(ll))[0])
        raise DataError(
            f"Row {first_row + row} has probability zero under every class it may belong "
            f"to (log-likelihood {show(loglik[row])}), so EM cannot weigh it. Use a "
            "smoothed estimate (alpha > 0, estimate='posterior_mean') or drop the row."
        )
    # Totals over all rows less those over the labeled ones (few): no copy of the rest.
    labeled_ll, labeled_weight = float(ll[rows].sum()), float(weights[rows].sum())
    result = PassResult(
        {},
        labeled=labeled_ll,
        unlabeled=total - labeled_ll,
        labeled_weight=labeled_weight,
        unlabeled_weight=float(weights.sum()) - labeled_weight,
    )
    if not split:
        result.stats = model.accumulate(X, SoftLabels(resp), mode="count")
        return result
    # Held-out folds: each fold's labeled rows counted apart (they are few: a copy of them
    # is cheap), the unlabeled rows in one product over all rows with the labeled ones at 0.
    own_resp = resp[rows]
    resp[rows] = 0.0
    result.unlabeled_stats = model.accumulate(X, SoftLabels(resp), mode="count")
    folds = hash_folds(first_row + rows, settings.n_folds, settings.fold_seed)
    result.folds = []
    for f in range(settings.n_folds):  # bounded by the number of folds
        mine = folds == f
        result.folds.append(
            model.accumulate(
                _safe_indexing(X, rows[mine]), SoftLabels(own_resp[mine]), mode="count"
            )
            if mine.any()
            else model.clear_statistics(result.unlabeled_stats)
        )
    result.stats = reduce(model.merge_statistics, result.folds)
    return result


def _encoder(model):
    """(the model that counts encoded rows, the encoding) for a model whose features are a
    fixed map of its input once set up -- TextNB's vectoriser: in memory the texts are
    vectorised once rather than twice per iteration (scoring and counting). Others: the
    model itself and no encoding."""
    if base.supports(model, base.INNER_MODEL):
        return base.inner_model(model), model.encode
    return model, None


class _HeldOut:
    """The labeled rows of each held-out fold, and their log-likelihood under the model of
    the statistics of the other folds' labeled rows plus lambda times the unlabeled rows'
    (one install of merged statistics per fold and candidate: no refit, no pass)."""

    def __init__(self, model: EstimatorProtocol, sub_classes, n_components: int, pieces):
        # A scratch copy to install the candidate models in, leaving the EM model alone.
        self.model, self.scratch = model, copy.deepcopy(model)
        self.sub_classes, self.M, self.pieces = sub_classes, n_components, pieces
        self.n_rows = sum(codes.size for fold in pieces for _, codes, _ in fold)

    def log_likelihood(self, result: PassResult, candidates: list[float]) -> np.ndarray:
        """Sum over the folds of the weighted log p(x, y) of the fold's labeled rows, for
        each candidate lambda."""
        model, out = self.model, np.zeros(len(candidates))
        assert result.folds is not None and result.unlabeled_stats is not None
        for fold, rows in zip(result.folds, self.pieces):  # bounded by the number of folds
            if not rows:
                continue
            others = model.subtract_statistics(result.stats, fold)
            for j, lam in enumerate(candidates):  # bounded by the candidates
                unlabeled = model.scale_statistics(result.unlabeled_stats, lam)
                self.scratch.install(self.sub_classes, model.merge_statistics(others, unlabeled))
                for X, codes, weights in rows:  # one piece per batch
                    jll = self.scratch.predict_joint_log_proba(X)
                    cols = codes[:, None] * self.M + np.arange(self.M)
                    own = logsumexp(np.take_along_axis(jll, cols, axis=1), axis=1)
                    out[j] += float(weights @ (own - logsumexp(jll, axis=1)))
        return out


class EMRun:
    """One EM fit in progress: the model being fitted, the pass to run next and what the
    passes so far found. :class:`~nbayes.SemiSupervisedNB` holds one between its passes;
    each pass is a pass of the training driver (accumulate every batch with :func:`em_batch`,
    merge, then :meth:`install` the M-step), wherever the batches are (memory, chunks,
    Dask partitions).

    Parameters
    ----------
    outer : nbayes estimator
        The model to fit, unfitted (a clone of the user's), set up before :meth:`plan`.
    classes : ndarray
        The classes, sorted.
    n_components : int
        Mixture components per class.
    in_memory : bool
        Whether every pass sees the same batches, so that a fixed encoding of their features
        (TextNB's vectoriser) may be applied once (see :func:`_encoder`).
    """

    def __init__(self, outer, classes: np.ndarray, n_components: int, in_memory: bool):
        self.outer, self.classes, self.M, self.in_memory = outer, classes, n_components, in_memory
        self.model, self.encode = outer, None
        self.next: StepSettings | None = None  # the settings of the pass to run next
        self.history: list[float] = []
        self.converged, self.done = False, False
        self.scores: dict | None = None
        self.heldout_log_likelihood: dict[str, float] | None = None

    def __getstate__(self) -> dict:
        # Dask ships the estimator to its workers every pass: they need the model and the
        # pass's settings, not the held-out rows or the model that scores them.
        return {**self.__dict__, "held": None, "start": None, "result": None, "stats": None}

    def working_model(self):
        """The model that EM scores and counts with, once ``outer`` is set up: in memory,
        the inner model of an encoding wrapper (see :func:`_encoder`), else ``outer``."""
        if self.in_memory:
            self.model, self.encode = _encoder(self.outer)
        return self.model

    def plan(self, settings: tuple, candidates: list[float], em: dict) -> None:
        """Plan the first pass, after :meth:`working_model`.

        ``settings`` are the :class:`StepSettings` of the first pass, of the iterations and
        of the final check; ``em`` holds ``max_iter``, ``tol`` and ``cv``."""
        self.next, self.step, self.check = settings
        self.candidates, self.choosing = candidates, len(candidates) > 1
        self.lam = candidates[-1]
        self.previous: float | None = None  # the lambda before the last choice
        self.max_iter, self.tol, self.cv = int(em["max_iter"]), float(em["tol"]), em["cv"]
        self.held: _HeldOut | None = None
        self.result: PassResult | None = None

    @property
    def sub_classes(self) -> np.ndarray:
        """The classes of the model: the classes, or K x M sub-class numbers."""
        return self.classes if self.M == 1 else np.arange(len(self.classes) * self.M)

    def install(self, result: PassResult) -> None:
        """The M-step of the pass just run, and the plan of the next pass (None when EM is
        done: converged, out of iterations, or the final check run)."""
        assert self.next is not None
        model, settings = self.model, self.next
        if settings.init:
            if result.labeled_weight <= 0:
                raise DataError(
                    "The labeled rows have weight zero: EM needs labeled rows to start from."
                )
            model.install(self.sub_classes, result.stats)
            if settings.n_folds:
                self.held = _HeldOut(model, self.sub_classes, self.M, result.held_out)
            self.start, self.stats = result, result.stats
        elif settings is self.check:
            self.result = result
            return self._finish()
        else:
            self._iterate(result)
        if not self.converged and len(self.history) < self.max_iter:
            self.next = self.step
        elif self.choosing or self.held is None or self.result is None or not self.held.n_rows:
            self._finish()
        else:
            # One more pass, with the folds apart: the statistics of the M-step that would
            # follow the final model, enough to compare with the labeled rows alone (one pass
            # per fit, where counting the folds on every pass would cost time on each).
            self.next = self.check

    def _iterate(self, result: PassResult) -> None:
        model = self.model
        if self.choosing:
            # The M-step of every candidate is a merge of this pass's statistics: keep the
            # one whose models of the labeled rows outside each fold best predict the fold's.
            assert self.held is not None
            scores = self.held.log_likelihood(result, self.candidates)
            self.previous, self.lam = self.lam, self.candidates[int(np.argmax(scores))]
            self.scores = dict(zip(self.candidates, scores.tolist()))
        lam = self.lam
        self.history.append(result.labeled + lam * result.unlabeled + model.log_prior())
        self.stats = result.total(model, lam)
        model.install(self.sub_classes, self.stats)
        self.result = result
        scale = self.start.labeled_weight + lam * self.start.unlabeled_weight
        settled = self.previous is None or self.previous == lam
        history = self.history
        if len(history) > 1 and settled and history[-1] - history[-2] < self.tol * scale:
            self.converged = True

    def _finish(self) -> None:
        self.next, self.done = None, True
        held, result = self.held, self.result
        if held is not None and result is not None and held.n_rows:
            self._check_heldout(held, result)
        if self.model is not self.outer:
            self.outer.install(self.sub_classes, self.stats)

    def _check_heldout(self, held: _HeldOut, result: PassResult) -> None:
        """Record the held-out log-likelihood of the labeled rows with and without the
        unlabeled ones, and warn (EMWarning) where EM lowered it."""
        lam = self.lam
        alone, em = held.log_likelihood(result, [0.0, lam])
        self.heldout_log_likelihood = {"labeled_only": float(alone), "em": float(em)}
        if em < alone - 1e-9 * abs(alone):
            warnings.warn(
                f"EM lowered the held-out log-likelihood of the labeled rows ({held.n_rows} "
                f"rows in {self.cv} folds) from {alone:.6g} with the labeled rows alone to "
                f"{em:.6g} with unlabeled_weight={lam:g}: the model's assumptions likely fit "
                f"the data badly enough that the unlabeled rows mislead it. {EM_ADVICE}",
                EMWarning,
                stacklevel=user_stacklevel(),
            )
