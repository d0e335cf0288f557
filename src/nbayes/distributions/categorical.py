"""Categorical family: each feature takes one of K_j categories, coded 0 .. K_j - 1.

Codes are what the family sees; the estimators map any hashable values (strings, booleans,
pandas categoricals) to codes with a stored vocabulary. Two codes are special: ``-1``
(:data:`MISSING_CODE`) is a missing cell, and any code ``>= K_j`` is a category the model never
saw, handled by the ``unseen`` policy. Encoders mark unseen values with :data:`UNSEEN_CODE`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._accel import kernels
from .._validation import check_finite, column_label, raise_at, row_offset, show
from ..exceptions import DataError, ParameterError
from ._arrays import (
    compressed_view,
    dot,
    linear_tables,
    ones,
    safe_ratio,
    split_inf,
)
from ._base import Family, Params, Stats
from ._categorical_counts import (
    _bincount_codes,
    _compiled_counts,
    _compiled_soft_counts,
    _count_in_batch_layout,
    _count_ranges,
)
from ._categorical_layout import MISSING_CODE, UNSEEN_CODE, _segment_sums, expand, offsets_of
from ._categorical_patches import MAX_PATCHES, _counts_before, _numerators
from ._categorical_tables import compiled_tables
from ._estimates import log_normalise, pseudo_count, sum_shifted_lgamma, weighted_log_sum
from ._labels import Labels, SoftLabels, accumulate_by_class
from .statistics import CategoryCounts

#: Policies for a category not seen in training.
UNSEEN = ("error", "ignore", "smooth")


class Categorical(Family):
    """One categorical distribution per class and feature, Dirichlet(alpha) prior.

    Features are integer codes ``0 .. K_j - 1`` (string categories are encoded by the
    estimators). Counts live in one flat (n_classes, sum_j K_j) array so that fitting is one
    ``bincount`` and scoring one sparse one-hot product for all classes and features.

    Parameters
    ----------
    alpha : float, array of shape (n_features,) or "auto", default=1.0
        theta_kjc = (n_kjc + a) / (n_kj + K_j a) under posterior_mean. "auto" maximises the
        Dirichlet-multinomial evidence of the training codes.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    min_categories : int or array of shape (n_features,), optional
        Minimum K_j, for categories that never occur in the training data.
    missing : {"error", "ignore"}, default="error"
        "ignore" skips missing cells (NaN, or the code -1 in integer input) at fit and
        marginalises them at predict.
    unseen : {"error", "ignore", "smooth"}, default="error"
        What a code ``>= K_j`` at predict means. "error" raises a DataError; "ignore" drops the
        factor (as for a missing value); "smooth" gives it the prior mass of a category with
        no observations, ``a / (n_kj + K_j a)`` per class (zero under ``estimate="mle"``).

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Categorical, Labels
    >>> fam = Categorical(alpha=1.0)
    >>> X = fam.prepare(np.array([[0], [2], [2]]))
    >>> stats = fam.accumulate(X, Labels(np.zeros(3, int), np.ones(3), 1))
    >>> np.exp(fam.log_theta(fam.finalize(stats))).round(3).tolist()
    [[0.333, 0.167, 0.5]]
    """

    name = "categorical"
    soft_labels = True  # one-hot codes times the weight matrix (see _soft_counts)
    statistics = (CategoryCounts.at("n_counts", "n_categories"),)
    shared_params = ("alpha", "estimate")

    def __init__(
        self,
        alpha=1.0,
        estimate="posterior_mean",
        min_categories=None,
        missing="error",
        unseen="error",
    ):
        super().__init__(alpha=alpha, estimate=estimate, missing=missing)
        if unseen not in UNSEEN:
            raise ParameterError(f"Parameter 'unseen' must be one of {UNSEEN}; got {unseen!r}.")
        self.min_categories = min_categories
        self.unseen = unseen

    def get_params(self) -> dict:
        mc = self.min_categories
        return {
            **super().get_params(),
            "min_categories": mc.tolist() if isinstance(mc, np.ndarray) else mc,
            "unseen": self.unseen,
        }

    def prepare(self, X, feature_names=None, lazy=False):
        """Return int64 codes (dense or sparse); missing cells become -1 when ignored."""
        family = "Categorical"
        if sp.issparse(X):
            vals = X.data
        else:
            vals = np.asarray(X)
        if lazy and self._checked_by_loops(X):
            return X
        if vals.dtype.kind in "iub":
            # The minimum settles the usual case in one pass without an n x d temporary;
            # -1 marks a missing cell (as in pandas codes) when missing values are ignored.
            lowest = MISSING_CODE if self.missing == "ignore" and not sp.issparse(X) else 0
            if vals.size == 0 or vals.min() >= lowest:
                bad = np.zeros(0, dtype=bool)
            else:
                bad = (vals < 0) & (vals != MISSING_CODE) if lowest < 0 else vals < 0
            nan = None
        else:
            check_finite(X, family, feature_names, allow_nan=self.missing == "ignore")
            nan = np.isnan(vals)
            with np.errstate(invalid="ignore"):
                bad = ((vals < 0) | (np.mod(vals, 1) != 0)) & ~nan
        if bad.any():
            mask = X.copy() if sp.issparse(X) else bad
            if sp.issparse(X):
                mask.data = bad
            raise_at(
                mask,
                X,
                "non-negative integer category codes",
                "Negative values in data or fractional codes are not categories: encode "
                "them as 0, 1, 2, ... (MixedNB and string input do this for you).",
                family,
                feature_names,
            )
        if sp.issparse(X):
            X = X.tocsr().astype(np.int64)
            return X
        codes = (
            np.where(nan, 0, vals).astype(np.int64)
            if nan is not None
            else vals.astype(np.int64, copy=False)
        )
        if nan is not None:
            codes[nan] = MISSING_CODE
        return codes

    @staticmethod
    def _checked_by_loops(X) -> bool:
        """Whether the compiled loops will check these codes while they count or score them:
        ``prepare(lazy=True)`` then leaves them unchecked (saving a pass), and a code below
        the allowed range makes the result NaN, which :meth:`check_result` turns into the
        error ``prepare`` gives."""
        return (
            kernels() is not None
            and isinstance(X, np.ndarray)
            and X.ndim == 2
            and X.dtype == np.int64
            and X.flags.c_contiguous
        )

    def check_result(self, X, result, feature_names=None) -> None:
        values = result["n_counts"] if isinstance(result, dict) else result
        # The compiled loops mark a batch with a code below the allowed range by filling its
        # result with NaN, which no valid counts or scores hold: one element tells.
        if values.size and np.isnan(values.flat[0]):
            self.prepare(X, feature_names)  # raises, naming the first bad cell

    @property
    def _lowest_code(self) -> int:
        """The smallest valid code in dense input: -1 (missing) where missing cells are
        ignored, else 0."""
        return MISSING_CODE if self.missing == "ignore" else 0

    def accumulate(self, X, labels: Labels) -> Stats:
        if isinstance(labels, SoftLabels):
            return self._soft_counts(X, labels)
        n_classes, d = labels.n_classes, X.shape[1]
        if sp.issparse(X):
            # Implicit zeros are category 0: count the stored codes, derive category 0 from
            # the class totals, so sparse input is never densified.
            coo = X.tocoo()
            n_cat = np.ones(d, dtype=np.int64)
            kept = labels.weights[coo.row] > 0
            row, col, code = coo.row[kept], coo.col[kept], coo.data[kept]
            np.maximum.at(n_cat, col, code + 1)
            off = offsets_of(n_cat)
            total = int(n_cat.sum())
            idx = labels.codes[row] * total + off[col] + code
            counts = np.bincount(
                idx, weights=labels.weights[row], minlength=n_classes * total
            ).reshape(n_classes, total)
            counts[:, off] = labels.class_weight[:, None] - _segment_sums(counts, n_cat)
            return {"n_counts": counts, "n_categories": n_cat}
        compiled = kernels()
        if compiled is not None:
            return _compiled_counts(compiled, X, labels, self._lowest_code)
        if self.missing == "error" and np.all(labels.weights == 1.0):
            return self._count_codes(X, labels)
        # Rows of zero weight add no categories either: zero weight must equal a dropped row.
        observed = (X >= 0) & (labels.weights > 0)[:, None]
        n_cat = np.where(observed, X, 0).max(axis=0, initial=0) + 1
        off = offsets_of(n_cat)
        total = int(n_cat.sum())
        idx = labels.codes[:, None] * total + off[None, :] + X
        w = np.broadcast_to(labels.weights[:, None], X.shape)
        if observed.all():
            idx, w = idx.ravel(), w.ravel()
        else:
            idx, w = idx[observed], w[observed]
        counts = np.bincount(idx, weights=w, minlength=n_classes * total)
        return {"n_counts": counts.reshape(n_classes, total), "n_categories": n_cat}

    def _soft_counts(self, X, labels: SoftLabels) -> Stats:
        """Counts under soft labels: the sparse one-hot codes (rows x categories of all
        columns) times the weight matrix, one product whatever the number of classes."""
        if sp.issparse(X) or X.shape[0] == 0:
            return accumulate_by_class(self.accumulate, self.merge, X, labels)
        compiled = kernels()
        if compiled is not None:
            return _compiled_soft_counts(compiled, X, labels, self._lowest_code)
        n, d = X.shape
        # Rows of zero weight add no categories either: zero weight must equal a dropped row.
        observed = (X >= 0) & (labels.weights > 0)[:, None]
        n_cat = np.where(observed, X, 0).max(axis=0, initial=0) + 1
        off = offsets_of(n_cat)
        total = int(n_cat.sum())
        columns = off[None, :] + X
        if observed.all():
            indptr = np.arange(0, n * d + 1, d)
            indices = columns.ravel()
        else:
            indptr = np.concatenate([[0], np.cumsum(observed.sum(axis=1))])
            indices = columns[observed]
        onehot = sp.csr_matrix(
            (np.ones(indices.size), indices.astype(np.intp), indptr), shape=(n, total)
        )
        counts = np.ascontiguousarray(np.asarray(onehot.T @ labels.matrix).T)
        return {"n_counts": counts, "n_categories": n_cat}

    @staticmethod
    def _count_codes(X: np.ndarray, labels: Labels) -> Stats:
        """The usual case of :meth:`accumulate`: every cell observed, every weight 1.

        One unweighted bincount over in-place offset codes, with no masks and no weight
        array, in the layout of :func:`_count_in_batch_layout`.
        """

        def count(offsets, per_class, limit):
            return _bincount_codes(X, labels, offsets, per_class)

        return _count_in_batch_layout(
            X, labels.n_classes, count, lambda: X.max(axis=0, initial=0) + 1
        )

    def batch_delta(self, X, labels: Labels, feature_names=None) -> Stats | None:
        """The counts of a batch over the range of codes each column holds in it: a
        ``"n_counts"`` table of shape (n_classes, sum of the ranges' widths), with each
        column's ``"low"`` code and ``"width"`` (0: nothing counted) and the
        ``"n_categories"`` the batch implies. :meth:`add_deltas` adds it to statistics.

        On a large vocabulary that grows batch by batch (``partial_fit``), new values take
        the highest codes, so the batch's own table in the usual layout (one cell per class
        and code up to its largest) would span the whole vocabulary. None where the batch is
        sparse or the labels soft (use :meth:`accumulate`).
        """
        if sp.issparse(X) or isinstance(labels, SoftLabels):
            return None
        codes = np.ascontiguousarray(self.prepare(X, feature_names), dtype=np.int64)
        # What accumulate counts: observed cells of rows of positive weight (zero weight
        # must equal a dropped row, which adds no category either).
        counted = (codes >= 0) & (labels.weights > 0)[:, None]
        high = np.where(counted, codes, -1).max(axis=0, initial=-1)
        none = np.iinfo(np.int64).max
        low = np.where(counted, codes, none).min(axis=0, initial=none)
        width = np.where(high >= 0, high - low + 1, 0)
        low = np.where(high >= 0, low, 0)
        per_class = int(width.sum())
        counts = _count_ranges(codes, labels, counted, offsets_of(width) - low, per_class)
        return {"n_counts": counts, "low": low, "width": width, "n_categories": high + 1}

    def add_deltas(self, stats: Stats, deltas) -> Stats:
        """``stats`` plus the :meth:`batch_delta` of each batch of ``deltas``, in order (the
        same sums as merging the batches one by one), in a new table laid out once for the
        categories of all of them; ``stats`` stays untouched."""
        n_cat = stats["n_categories"]
        for delta in deltas:  # bounded: callers fold a few batches at a time
            n_cat = np.maximum(n_cat, delta["n_categories"])
        counts = expand(stats["n_counts"], stats["n_categories"], n_cat)
        if counts is stats["n_counts"]:
            counts = counts.copy()
        off = offsets_of(n_cat)
        for delta in deltas:
            width = delta["width"]
            per_class = int(width.sum())
            if per_class:
                shift = off + delta["low"] - offsets_of(width)
                counts[:, np.repeat(shift, width) + np.arange(per_class)] += delta["n_counts"]
        return {"n_counts": counts, "n_categories": n_cat}

    def n_samples(self, stats):
        return _segment_sums(stats["n_counts"], stats["n_categories"]).max(axis=1, initial=0.0)

    def cannot_overflow(self, stats: Stats, total_weight: float) -> bool:
        # A row adds its weight to one category per feature at most, so all the counts
        # together sum to at most (number of features) x (total weight); the margin covers
        # rounding. A large vocabulary then needs no pass per partial_fit batch.
        return bool(np.isfinite(4.0 * max(stats["n_categories"].size, 1) * total_weight))

    def overflowed(self, stats: Stats) -> int | None:
        # Counts are laid out flat per (feature, category): name the feature.
        j = super().overflowed(stats)
        if j is None or j < 0:
            return j
        return int(np.searchsorted(offsets_of(stats["n_categories"]), j, side="right") - 1)

    def observed_weight(self, stats):
        return _segment_sums(stats["n_counts"], stats["n_categories"]).sum(axis=0)

    def final_categories(self, stats: Stats) -> np.ndarray:
        n_cat = stats["n_categories"]
        if self.min_categories is not None:
            mc = np.asarray(self.min_categories)
            if (
                mc.ndim > 1
                or (mc.ndim == 1 and mc.size != n_cat.size)
                or np.any(mc < 1)
                or mc.dtype.kind not in "iu"
            ):
                raise ParameterError(
                    "Parameter 'min_categories' must be a positive integer or one per feature "
                    f"({n_cat.size}); got {self.min_categories!r}."
                )
            n_cat = np.maximum(n_cat, mc)
        return n_cat

    def finalize(self, stats: Stats) -> Params:
        """Parameters in two parts: ``"log_numer"``, log(n_kjc + a) per class and category,
        and ``"log_norm"``, log(n_kj + K_j a) per class and feature; log theta is their
        difference (:meth:`log_theta`). A batch then changes the numerators of the cells it
        counts only, and :meth:`finalize_onto` derives the parameters after it from those
        before at the cost of the batch and of the (classes, features) normalisers."""
        n_cat = self.final_categories(stats)
        counts = expand(stats["n_counts"], stats["n_categories"], n_cat)
        alpha = self.resolve_alpha(stats, n_cat.size)
        a = pseudo_count(alpha, self.estimate)
        log_numer = counts + np.repeat(a, n_cat)
        with np.errstate(divide="ignore"):
            np.log(log_numer, out=log_numer)
        return {
            "log_numer": log_numer,
            "numer_categories": n_cat,
            "patches": (),
            **self._normalisers(_segment_sums(counts, n_cat), n_cat, alpha),
        }

    def _normalisers(
        self, totals: np.ndarray, n_cat: np.ndarray, alpha: np.ndarray, log_pseudo=None
    ) -> Params:
        """The (classes, features) part of the parameters, from the count totals
        (``log_pseudo``: log of the pseudo-count, when known)."""
        a = pseudo_count(alpha, self.estimate)
        smoothed = totals + n_cat * a
        with np.errstate(divide="ignore"):
            log_norm = np.log(smoothed)
            if log_pseudo is None:
                log_pseudo = np.log(np.broadcast_to(a, n_cat.shape).astype(np.float64))
        return {
            "n_categories": n_cat,
            "alpha": alpha,
            "totals": totals,
            "log_norm": log_norm,
            "log_pseudo": log_pseudo,
            # The mass a category with no observations gets: what "smooth" gives unseen values.
            "log_unseen": log_normalise(np.broadcast_to(a, totals.shape), smoothed, n_cat + 1),
        }

    def finalize_onto(self, params: Params, stats: Stats, delta: Stats) -> Params | None:
        """:meth:`finalize` after one more batch, whose :meth:`batch_delta` is ``delta``,
        from ``params``, those of the statistics before it, in time proportional to the
        batch and the (classes, features) normalisers: the numerators of the cells the batch
        counts, with their counts, are kept as a patch (``"patches"``); the others are
        shared with ``params``, which stays untouched. ``stats`` are statistics of the
        model up to the batch before (with or without the batches of the patches added).
        None where a full :meth:`finalize` is needed (``alpha="auto"`` depends on every
        count; :data:`MAX_PATCHES` patches or as many cells as the table collected)."""
        if isinstance(self.alpha, str) or "log_numer" not in params:
            return None
        patches = params["patches"]
        held = sum(p["values"].size for p in patches) + delta["n_counts"].size
        if len(patches) >= MAX_PATCHES or held > max(params["log_numer"].size, 2**16):
            return None
        low, width = delta["low"], delta["width"]
        totals, counted = params["totals"], width > 0
        start = offsets_of(width)
        if counted.any():
            totals = totals.copy()
            totals[:, counted] += np.add.reduceat(delta["n_counts"], start[counted], axis=1)
        n_cat = np.maximum(params["n_categories"], delta["n_categories"])
        alpha = params["alpha"]
        out = {**params, **self._normalisers(totals, n_cat, alpha, params["log_pseudo"])}
        if counted.any():
            counts = _counts_before(stats, patches, low, width, start)
            counts += delta["n_counts"]
            values = counts + np.repeat(pseudo_count(alpha, self.estimate), width)
            with np.errstate(divide="ignore"):
                np.log(values, out=values)
            patch = {"low": low, "width": width, "counts": counts, "values": values}
            out["patches"] = (*patches, patch)
        return out

    @staticmethod
    def log_theta(params: Params) -> np.ndarray:
        """log theta, shape (n_classes, sum_j K_j): the numerators of :meth:`finalize` (with
        their patches) minus the normalisers. A new array: a pass over the whole table."""
        n_cat, log_norm = params["n_categories"], params["log_norm"]
        if not params["patches"] and np.array_equal(params["numer_categories"], n_cat):
            out = params["log_numer"] - np.repeat(log_norm, n_cat, axis=1)
        else:
            out = _numerators(params)
            out -= np.repeat(log_norm, n_cat, axis=1)
        empty = np.isneginf(log_norm)
        if empty.any():  # no data and no pseudo-count: uniform 1/K, as log_normalise
            uniform = np.broadcast_to(-np.log(n_cat.astype(np.float64)), log_norm.shape)
            out = np.where(np.repeat(empty, n_cat, axis=1), np.repeat(uniform, n_cat, axis=1), out)
        return out

    def canonical_params(self, params: Params) -> Params:
        # Patches laid into the numerators: what finalize of the merged statistics gives.
        if not params["patches"] and np.array_equal(
            params["numer_categories"], params["n_categories"]
        ):
            return params
        return {
            **params,
            "log_numer": _numerators(params),
            "numer_categories": params["n_categories"],
            "patches": (),
        }

    def log_prior(self, params: Params) -> float:
        # Dirichlet(a + 1) per class and feature, whose mode the smoothed estimate is.
        a = pseudo_count(params["alpha"], self.estimate)
        return weighted_log_sum(
            np.repeat(a, params["n_categories"])[None, :], self.log_theta(params)
        )

    def evidence_function(self, stats: Stats):
        # Dirichlet-multinomial per class and feature: Gamma(K_j a) / Gamma(n_kj + K_j a)
        # prod_c Gamma(n_kjc + a) / Gamma(a), with the categories reserved by min_categories.
        n_cat = self.final_categories(stats)
        counts = expand(stats["n_counts"], stats["n_categories"], n_cat)
        cells = sum_shifted_lgamma(counts)
        totals = _segment_sums(counts, n_cat)
        # One term per distinct number of categories: bounded by the number of features.
        by_size = [(float(k), sum_shifted_lgamma(totals[:, n_cat == k])) for k in np.unique(n_cat)]
        return lambda a: cells(a) - sum(fun(k * a) for k, fun in by_size)

    def linear_weights(self, params: Params):
        # One weight per (feature, category): the score is the one-hot codes times log theta.
        log_theta = self.log_theta(params)
        return log_theta, np.zeros(log_theta.shape[0])

    def feature_means(self, stats, params, class_count):
        n_cat = params["n_categories"]
        counts = expand(stats["n_counts"], stats["n_categories"], n_cat)
        return safe_ratio(counts, np.repeat(_segment_sums(counts, n_cat), n_cat, axis=1))

    def linear_features(self, params: Params, X):
        """Sparse one-hot codes, one column per (feature, category); missing cells are all-zero
        rows of their feature, which drops the factor exactly as the model does."""
        return self._onehot(params, X)

    def linear_feature_names(self, params: Params, names) -> list[str]:
        n_cat = params["n_categories"]
        return [f"{name}={c}" for name, k in zip(names, n_cat) for c in range(int(k))]

    def _split(self, params: Params, codes: np.ndarray):
        """Known-category mask and unseen-category mask of dense codes; applies ``unseen``."""
        n_cat = params["n_categories"]
        observed = codes >= 0
        unseen = codes >= n_cat[None, :]
        if not unseen.any():
            return observed, None
        if self.unseen == "error":
            r, j = np.argwhere(unseen)[0]
            code = codes[r, j]
            what = "an unseen category" if code >= UNSEEN_CODE else f"category code {show(code)}"
            raise DataError(
                f"{column_label(j).capitalize()} has {what} at row {r + row_offset()}, "
                f"but the model knows {n_cat[j]} categories (codes 0..{n_cat[j] - 1}). Refit "
                "or partial_fit with the new category, set min_categories to reserve room for "
                "it, or pass unseen='ignore' (drop the factor) or 'smooth' (prior mass)."
            )
        return observed & ~unseen, unseen

    def _onehot(self, params: Params, X) -> sp.csr_matrix:
        """Sparse (n_samples, sum K_j) indicator of each row's known categories; missing
        cells, and unseen ones unless ``unseen="error"`` rejects them, are dropped (the
        linear form of :meth:`linear_features`; "smooth" mass is added by the scorers)."""
        onehot = self._onehot_unseen(params, X)[0]
        onehot.data = onehot.data.copy()  # the user's own, not the shared read-only ones
        return onehot

    def _onehot_unseen(self, params: Params, X):
        """:meth:`_onehot` plus the unseen-cell mask (None when there is none); its data is a
        shared read-only vector of ones, for scoring."""
        n_cat = params["n_categories"]
        off = offsets_of(n_cat)
        codes = X.toarray() if sp.issparse(X) else X
        n, total = codes.shape[0], int(n_cat.sum())
        # 32-bit indices when they fit, so scipy takes the arrays as they are.
        index = np.int32 if max(total, codes.size) < np.iinfo(np.int32).max else np.int64
        # Maxima find unseen codes without an n x d temporary: the whole chunk's first (one
        # fast pass), per column only when some code reaches the smallest category count.
        unseen = None
        if codes.size and codes.max() >= n_cat.min() and np.any(codes.max(axis=0) >= n_cat):
            known, unseen = self._split(params, codes)
        else:
            known = codes >= 0 if self.missing == "ignore" else None  # else prepare() saw none
        if known is None or known.all():
            cols = np.add(codes, off, dtype=index).ravel()
            indptr = np.arange(n + 1, dtype=index) * codes.shape[1]
        else:
            cols = (np.where(known, codes, 0) + off[None, :])[known].astype(index)
            indptr = np.concatenate([[0], np.cumsum(known.sum(axis=1))]).astype(index)
        # Every column index is a known category by now: scipy's checks are not needed.
        return compressed_view(sp.csr_matrix, ones(cols.size), cols, indptr, (n, total)), unseen

    def _unseen_ok_sparse(self, params: Params) -> bool:
        return self.unseen != "smooth" or not np.isneginf(params["log_unseen"]).any()

    def scoring_params(self, params: Params) -> Params:
        # The finite weights and the -inf cells (zero counts under the MLE) as contiguous
        # (categories, classes) tables for the one-hot product (small, and the fallback
        # whatever runs later); the compiled loop's tables (pair tables up to a few MB) only
        # where that loop runs.
        log_theta = self.log_theta(params)
        ready = {**params, "log_theta": log_theta, **linear_tables(log_theta)}
        if kernels() is not None:
            unseen = params["log_unseen"] if self.unseen == "smooth" else None
            ready["compiled"] = compiled_tables(log_theta, params["n_categories"], unseen)
        return ready

    def joint_log_likelihood(self, params: Params, X) -> np.ndarray:
        params = self.ready(params)
        if self._scores_sparse(params, X):
            return self._sparse_jll(params, X)
        compiled = kernels()
        if compiled is not None and "compiled" in params:
            jll = np.empty((X.shape[0], params["log_theta"].shape[0]))
            self._compiled_jll(compiled, params, X, jll, 0.0)
            return jll
        onehot, unseen = self._onehot_unseen(params, X)
        jll = dot(onehot, params["weights_t"])
        hits = None if params["impossible_t"] is None else dot(onehot, params["impossible_t"])
        if unseen is not None and self.unseen == "smooth":
            log_u, hit_u = split_inf(params["log_unseen"])
            u = unseen.astype(np.float64)
            jll += u @ log_u.T
            if hit_u is not None:
                hits = u @ hit_u.T + (0.0 if hits is None else hits)
        if hits is not None:
            jll[hits > 0] = -np.inf
        return jll

    def joint_log_likelihood_into(self, params: Params, X, out: np.ndarray, base) -> bool:
        compiled = kernels()
        params = self.ready(params)
        if compiled is None or "compiled" not in params or self._scores_sparse(params, X):
            return False
        self._compiled_jll(compiled, params, X, out, base)
        return True

    def _scores_sparse(self, params: Params, X) -> bool:
        """Whether sparse X is scored without densifying it (see :meth:`_sparse_jll`)."""
        return (
            sp.issparse(X)
            and not np.isneginf(params["log_theta"]).any()
            and self._unseen_ok_sparse(params)
        )

    def _compiled_jll(self, compiled, params: Params, X, out: np.ndarray, base) -> None:
        """``out = base + joint_log_likelihood(X)`` for dense codes in one compiled pass: each
        cell adds its category's row of log theta (missing cells nothing, unseen ones
        ``unseen_t``); the pass counts the unseen cells, which ``unseen="error"`` then
        rejects."""
        codes = np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.int64)
        base = np.ascontiguousarray(np.broadcast_to(base, out.shape[1:]), dtype=np.float64)
        n_unseen, n_below = compiled.categorical_scores(
            codes, params["compiled"], out, base, self._lowest_code
        )
        if n_below:
            out.fill(np.nan)  # see check_result
        elif n_unseen and self.unseen == "error":
            self._split(params, codes)  # raises, naming the first unseen cell

    def _sparse_jll(self, params: Params, X) -> np.ndarray:
        """Score sparse codes without densifying: every feature starts at category 0 and each
        stored code adds the difference to its own category."""
        n_cat = params["n_categories"]
        off = offsets_of(n_cat)
        coo = X.tocoo()
        unseen = coo.data >= n_cat[coo.col]
        log_theta = params["log_theta"]
        base = log_theta[:, off]
        jll = np.tile(base.sum(axis=1), (X.shape[0], 1))
        if unseen.any():
            if self.unseen == "error":
                k = np.flatnonzero(unseen)[0]
                raise DataError(
                    f"{column_label(int(coo.col[k])).capitalize()} has category code "
                    f"{show(coo.data[k])} at row {coo.row[k] + row_offset()}, but the model "
                    f"knows {n_cat[coo.col[k]]} categories. Refit with the new category, set "
                    "min_categories, or pass unseen='ignore' or 'smooth'."
                )
            # An unseen cell replaces its feature's category-0 baseline by its own term.
            u = sp.csr_matrix(
                (np.ones(int(unseen.sum())), (coo.row[unseen], coo.col[unseen])), shape=X.shape
            )
            own = params["log_unseen"] if self.unseen == "smooth" else 0.0
            jll += np.asarray(u @ (own - base).T)
            keep = ~unseen
            coo = sp.coo_matrix((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=X.shape)
        delta = log_theta - np.repeat(base, n_cat, axis=1)
        onehot = sp.csr_matrix(
            (np.ones(coo.nnz), (coo.row, off[coo.col] + coo.data)),
            shape=(X.shape[0], log_theta.shape[1]),
        )
        return jll + np.asarray(onehot @ delta.T)

    def log_likelihood_terms(self, params, X) -> np.ndarray:
        codes = X.toarray() if sp.issparse(X) else X
        n_cat = params["n_categories"]
        known, unseen = self._split(params, codes)
        flat = np.where(known, codes, 0) + offsets_of(n_cat)[None, :]
        t = self.log_theta(params)[:, flat].transpose(1, 0, 2)
        t = np.where(known[:, None, :], t, 0.0)
        if unseen is not None and self.unseen == "smooth":
            t = np.where(unseen[:, None, :], params["log_unseen"][None], t)
        return t

    def example_data(self, rng, n_samples, n_features):
        return rng.integers(0, rng.integers(2, 6, size=n_features), size=(n_samples, n_features))

    def reference_log_density(self, params, X):
        # Each feature is a multinomial with one trial over its categories.
        from scipy import stats

        n_cat = params["n_categories"]
        theta = np.exp(self.log_theta(params))
        out = np.empty((X.shape[0], theta.shape[0], n_cat.size))
        for j, (lo, c) in enumerate(zip(offsets_of(n_cat), n_cat)):  # bounded: features
            onehot = np.eye(c)[X[:, j]]
            for k in range(theta.shape[0]):  # bounded: classes
                out[:, k, j] = stats.multinomial.logpmf(onehot, 1, theta[k, lo : lo + c])
        return out
