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
    subtract_nonnegative,
)
from ._base import Family, Params, Stats
from ._estimates import log_normalise, pseudo_count, sum_shifted_lgamma, weighted_log_sum
from ._labels import Labels, SoftLabels, accumulate_by_class

#: Code of a missing cell (as in pandas' Categorical codes).
MISSING_CODE = -1
#: Code an encoder gives a value outside its vocabulary; any code >= K_j is treated alike.
UNSEEN_CODE = 2**62
#: Policies for a category not seen in training.
UNSEEN = ("error", "ignore", "smooth")


def offsets_of(n_categories: np.ndarray) -> np.ndarray:
    """Start of each feature's block in the flat (class, category) layout."""
    n_categories = np.asarray(n_categories)
    out = np.zeros(n_categories.size, dtype=np.intp)
    np.cumsum(n_categories[:-1], out=out[1:])
    return out


def expand(counts: np.ndarray, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Re-lay flat per-category counts from ``old`` to larger ``new`` categories per feature."""
    if np.array_equal(old, new):
        return counts
    if old.size <= 64:
        # A block copy per feature (bounded: a few dozen) runs at memory speed; growing a
        # large vocabulary chunk by chunk relays these arrays once per chunk.
        out = np.zeros((counts.shape[0], int(new.sum())))
        for a, b, n in zip(offsets_of(old).tolist(), offsets_of(new).tolist(), old.tolist()):
            out[:, b : b + n] = counts[:, a : a + n]
        return out
    feature = np.repeat(np.arange(old.size), old)
    local = np.arange(old.sum()) - offsets_of(old)[feature]
    out = np.zeros((counts.shape[0], int(new.sum())))
    out[:, offsets_of(new)[feature] + local] = counts
    return out


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
    class_keys = ("n_counts",)
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

    def zeros(self, n_classes, n_features) -> Stats:
        return {
            "n_counts": np.zeros((n_classes, n_features)),
            "n_categories": np.ones(n_features, dtype=np.int64),
        }

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

    def merge(self, a: Stats, b: Stats) -> Stats:
        n_cat = np.maximum(a["n_categories"], b["n_categories"])
        counts = expand(a["n_counts"], a["n_categories"], n_cat)
        more = expand(b["n_counts"], b["n_categories"], n_cat)
        if counts is a["n_counts"]:  # the inputs stay untouched: add into a new array
            counts = counts + more
        else:  # a fresh array already: add in place (one pass less over a large vocabulary)
            counts += more
        return {"n_counts": counts, "n_categories": n_cat}

    def subtract(self, a, b, class_names=None, feature_names=None) -> Stats:
        n_cat = a["n_categories"]
        unseen = b["n_categories"] > n_cat
        if unseen.any():
            j = int(np.flatnonzero(unseen)[0])
            raise DataError(
                f"Cannot unlearn: {column_label(j, feature_names)} has category code "
                f"{b['n_categories'][j] - 1} in the rows to unlearn, but the model never saw a "
                f"code above {n_cat[j] - 1}, so those rows were never learned."
            )
        feature = np.repeat(np.arange(n_cat.size), n_cat)
        local = np.arange(int(n_cat.sum())) - offsets_of(n_cat)[feature]

        def column_of(flat: int) -> str:
            j = int(feature[flat])
            return f"{column_label(j, feature_names)}, category code {int(local[flat])}"

        counts = subtract_nonnegative(
            a["n_counts"],
            expand(b["n_counts"], b["n_categories"], n_cat),
            "n_counts",
            class_names,
            column_of=column_of,
        )
        # Trailing codes that no row holds any more would not exist in a model trained on the
        # remaining rows; drop them so that unlearning equals refitting.
        held = counts.any(axis=0)
        kept = np.ones(n_cat.size, dtype=np.int64)
        np.maximum.at(kept, feature[held], local[held] + 1)
        return {"n_counts": counts[:, local < kept[feature]], "n_categories": kept}

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


#: Features with at most this many categories are scored in pairs by the compiled loop: one
#: row of a pair table (the two features' log theta summed) per pair of cells.
PAIR_MAX_CATEGORIES = 32
#: Room for pair tables, per model. Within it the tables stay in cache; a pair of cells then
#: costs about what one cell costs.
PAIR_TABLE_BYTES = 4 * 2**20


def compiled_tables(
    log_theta: np.ndarray, n_categories: np.ndarray, log_unseen: np.ndarray | None
) -> Params:
    """Tables of the compiled scoring loop: log theta as (categories, classes) rows, the row
    unseen codes add (``log_unseen`` for "smooth", else zeros), and pair tables for
    consecutive small features (see :data:`PAIR_MAX_CATEGORIES`)."""
    n_classes, d = log_theta.shape[0], n_categories.size
    n_cat = np.ascontiguousarray(n_categories, dtype=np.int64)
    off = offsets_of(n_cat)
    table = np.ascontiguousarray(log_theta.T)
    small = np.flatnonzero(n_cat <= PAIR_MAX_CATEGORIES)
    pair_a, pair_b, pair_rows, used = [], [], [], 0
    for a, b in zip(small[0::2], small[1::2]):
        size = int(n_cat[a] * n_cat[b])
        if (used + size) * n_classes * 8 > PAIR_TABLE_BYTES:
            break
        pair_a.append(a)
        pair_b.append(b)
        pair_rows.append(
            (
                table[off[a] : off[a] + n_cat[a], None, :]
                + table[None, off[b] : off[b] + n_cat[b], :]
            ).reshape(size, n_classes)
        )
        used += size
    singles = np.setdiff1d(np.arange(d), np.concatenate([pair_a, pair_b]).astype(np.intp))
    unseen = np.zeros((d, n_classes)) if log_unseen is None else log_unseen.T
    return {
        "offsets": off,
        "n_categories": n_cat,
        "log_theta_t": table,
        "unseen_t": np.ascontiguousarray(unseen),
        "pair_a": np.array(pair_a, dtype=np.intp),
        "pair_b": np.array(pair_b, dtype=np.intp),
        "pair_offsets": offsets_of(np.array([len(r) for r in pair_rows], dtype=np.intp)),
        "pair_table": np.concatenate(pair_rows) if pair_rows else np.zeros((0, n_classes)),
        "singles": singles.astype(np.intp),
    }


#: Room per feature the compiled counting loop tries first: most categorical features have
#: fewer categories, and then no pass for the batch's largest code is needed.
FIRST_STRIDE = 16


def _count_in_batch_layout(
    X: np.ndarray, n_classes: int, count, column_sizes, first_stride: int | None = None
) -> Stats:
    """Statistics from ``count(offsets, per_class, limit)``, which returns the (n_classes,
    per_class) counts with each feature's codes starting at its offset, or None where a code
    reaches ``limit``.

    Every feature gets room for the largest code of the whole batch (one fast pass, where
    per-column maxima cost several; or ``first_stride`` if every code fits it) and the room
    no row of positive weight uses is cut from the counts afterwards. A batch whose codes
    vary widely in range keeps exact per-column room, sized by ``column_sizes()``.
    """
    d = X.shape[1]
    room = max(4 * X.size, 2**16)  # count cells beyond this: per-column room instead
    if first_stride and n_classes * d * first_stride <= room:
        counts = count(np.arange(d, dtype=np.intp) * first_stride, d * first_stride, first_stride)
        if counts is not None:
            return _trimmed(counts, n_classes, d, first_stride)
    stride = max(int(X.max(initial=0)), 0) + 1
    if n_classes * d * stride > room:
        n_cat = column_sizes()
        return {
            "n_counts": count(offsets_of(n_cat), int(n_cat.sum()), np.iinfo(np.int64).max),
            "n_categories": n_cat.astype(np.int64),
        }
    return _trimmed(
        count(np.arange(d, dtype=np.intp) * stride, d * stride, stride), n_classes, d, stride
    )


def _trimmed(counts: np.ndarray, n_classes: int, d: int, stride: int) -> Stats:
    """Statistics from counts with room for ``stride`` codes per feature: each feature's
    categories run up to its largest observed code (at least one)."""
    counts = counts.reshape(n_classes, d, stride)
    seen = np.asarray(counts.any(axis=0))
    n_cat = np.where(seen.any(axis=1), stride - np.argmax(seen[:, ::-1], axis=1), 1)
    kept = np.arange(stride)[None, :] < n_cat[:, None]
    return {"n_counts": counts[:, kept], "n_categories": n_cat.astype(np.int64)}


def _compiled_counts(compiled, X: np.ndarray, labels: Labels, lowest: int) -> Stats:
    """:meth:`Categorical.accumulate` of dense codes by the compiled counting loop, in the
    layout of :func:`_count_in_batch_layout`. Missing cells (negative codes) and rows of zero
    weight count nowhere, as in the numpy code; a code below ``lowest`` makes every count
    NaN (see :meth:`Categorical.check_result`)."""
    codes = np.ascontiguousarray(X, dtype=np.int64)
    weights = np.ascontiguousarray(labels.weights)

    def count(offsets, per_class, limit):
        counts = np.zeros(labels.n_classes * per_class)
        n_below = compiled.count_codes(
            codes,
            np.ascontiguousarray(labels.codes),
            weights,
            offsets,
            per_class,
            counts,
            lowest,
            limit,
        )
        if n_below < 0:
            return None
        if n_below:
            counts.fill(np.nan)
        return counts.reshape(labels.n_classes, per_class)

    return _count_in_batch_layout(
        codes,
        labels.n_classes,
        count,
        lambda: np.maximum(compiled.column_max_codes(codes, weights), 0) + 1,
        first_stride=FIRST_STRIDE,
    )


def _count_ranges(
    codes: np.ndarray, labels: Labels, counted: np.ndarray, offsets: np.ndarray, per_class: int
) -> np.ndarray:
    """(n_classes, per_class) sums of the weights of the ``counted`` cells, the code ``c`` of
    column ``j`` at ``offsets[j] + c`` (see :meth:`Categorical.batch_delta`)."""
    compiled = kernels()
    if compiled is not None:
        out = np.zeros(labels.n_classes * per_class)
        compiled.count_codes(
            codes,
            np.ascontiguousarray(labels.codes),
            np.ascontiguousarray(labels.weights),
            np.ascontiguousarray(offsets, dtype=np.intp),
            per_class,
            out,
            MISSING_CODE,
            np.iinfo(np.int64).max,
        )
        return out.reshape(labels.n_classes, per_class)
    key = (labels.codes * per_class)[:, None] + offsets[None, :] + codes
    weights = np.broadcast_to(labels.weights[:, None], codes.shape)
    sums = np.bincount(
        key[counted], weights=weights[counted], minlength=labels.n_classes * per_class
    )
    return sums.reshape(labels.n_classes, per_class)


def _compiled_soft_counts(compiled, X: np.ndarray, labels: SoftLabels, lowest: int) -> Stats:
    """:func:`_compiled_counts` under soft labels: one pass over the codes adding each row's
    weight in every class (EM's M-step), where the numpy path builds a sparse one-hot of
    the codes and multiplies it by the weights."""
    codes = np.ascontiguousarray(X, dtype=np.int64)
    weights = labels.matrix  # (n, n_classes), read in place whatever its layout

    def count(offsets, per_class, limit):
        # Class-minor (a cell's classes side by side: one cache line per cell and row),
        # transposed to the class-major layout at the end.
        counts = np.zeros(per_class * labels.n_classes)
        n_below = compiled.soft_count_codes(codes, weights, offsets, counts, lowest, limit)
        if n_below < 0:
            return None
        if n_below:
            counts.fill(np.nan)
        return np.ascontiguousarray(counts.reshape(per_class, labels.n_classes).T)

    return _count_in_batch_layout(
        codes,
        labels.n_classes,
        count,
        lambda: np.maximum(compiled.column_max_codes(codes, labels.weights), 0) + 1,
        first_stride=FIRST_STRIDE,
    )


def _bincount_codes(
    X: np.ndarray, labels: Labels, offsets: np.ndarray, per_class: int
) -> np.ndarray:
    """Counts of each (class, feature, code) as float64 (n_classes, per_class), the feature's
    codes starting at ``offsets``: one bincount over keys built in place (two passes)."""
    idx = np.add(X, offsets, dtype=np.int64)
    idx += (labels.codes * per_class)[:, None]
    counts = np.bincount(idx.ravel(), minlength=labels.n_classes * per_class)
    return counts.reshape(labels.n_classes, per_class).astype(np.float64)


def _segment_sums(counts: np.ndarray, n_cat: np.ndarray) -> np.ndarray:
    """Per-feature totals of a flat (n_classes, sum K_j) array, shape (n_classes, n_features)."""
    return (
        np.add.reduceat(counts, offsets_of(n_cat), axis=1)
        if counts.shape[1]
        else np.zeros((counts.shape[0], n_cat.size))
    )


#: :meth:`Categorical.finalize_onto` records at most this many batches' numerators as patches
#: before a full finalize lays them out again (as :data:`engine.PENDING_BATCHES`).
MAX_PATCHES = 64


def _numerators(params: Params) -> np.ndarray:
    """The log numerators of :meth:`Categorical.finalize` over every category: those of the
    last full finalize, with each patch laid over them in order (a new array)."""
    n_cat, base = params["n_categories"], params["log_numer"]
    # Cells no count reached hold the pseudo-count alone.
    out = np.empty((base.shape[0], int(n_cat.sum())))
    out[:] = np.repeat(params["log_pseudo"], n_cat)
    off = offsets_of(n_cat)
    base_cat = params["numer_categories"]
    out[:, _positions(off, np.zeros_like(base_cat), base_cat)] = base
    for patch in params["patches"]:  # bounded: MAX_PATCHES
        out[:, _positions(off, patch["low"], patch["width"])] = patch["values"]
    return out


def _positions(offsets: np.ndarray, low, width: np.ndarray) -> np.ndarray:
    """Flat positions of codes ``low[j] .. low[j] + width[j] - 1`` of every column ``j`` in
    the layout whose columns start at ``offsets``, column by column."""
    return np.repeat(offsets + low - offsets_of(width), width) + np.arange(int(width.sum()))


def _counts_before(
    stats: Stats, patches: tuple, low: np.ndarray, width: np.ndarray, start: np.ndarray
) -> np.ndarray:
    """Counts over codes ``low[j] .. low[j] + width[j] - 1`` of each column ``j``, shape
    (n_classes, width.sum()), laid out from ``start`` (``offsets_of(width)``), of the
    statistics that ``patches`` were made up to: a cell's newest patch holds its count; a
    cell no patch holds was not counted since ``stats``'s own (whether or not they include
    the batches of the patches), which hold it."""
    out = np.zeros((stats["n_counts"].shape[0], int(width.sum())))
    counted = width > 0
    held = np.zeros(width.size, dtype=bool)
    newest = np.zeros(width.size, dtype=np.intp)
    if patches:
        lows = np.array([p["low"] for p in patches])
        widths = np.array([p["width"] for p in patches])
        # A patch whose range holds a column's whole range hides the older ones there (and
        # the statistics).
        holds = (widths > 0) & (lows <= low) & (lows + widths >= low + width)
        held = holds.any(axis=0)
        newest = np.where(held, len(patches) - 1 - np.argmax(holds[::-1], axis=0), 0)
    n_base = stats["n_categories"]
    covered = np.clip(np.minimum(low + width, n_base) - low, 0, None)
    covered[~counted | held] = 0
    _copy_ranges(out, start, stats["n_counts"], offsets_of(n_base) + low, covered)
    if patches:
        lo = np.maximum(lows, low)
        overlap = np.clip(np.minimum(lows + widths, low + width) - lo, 0, None)
        overlap[:, ~counted] = 0
        overlap[widths == 0] = 0
        overlap[np.arange(len(patches))[:, None] < newest[None, :]] = 0
        for i in np.flatnonzero(overlap.any(axis=1)).tolist():  # oldest first; MAX_PATCHES
            patch = patches[i]
            src_start = offsets_of(patch["width"]) + lo[i] - patch["low"]
            _copy_ranges(out, start + lo[i] - low, patch["counts"], src_start, overlap[i])
    return out


def _copy_ranges(
    out: np.ndarray, out_start: np.ndarray, src: np.ndarray, src_start: np.ndarray, lengths
) -> None:
    """``out[:, out_start[j] + t] = src[:, src_start[j] + t]`` for ``t < lengths[j]``, every
    column ``j``: a slice per column where few columns have cells, else one gather."""
    columns = np.flatnonzero(lengths)
    if columns.size > 16:
        into, take = _positions(out_start, 0, lengths), _positions(src_start, 0, lengths)
        out[:, into] = src[:, take]
        return
    for j in columns.tolist():  # bounded: at most 16
        n, a, b = int(lengths[j]), int(out_start[j]), int(src_start[j])
        out[:, a : a + n] = src[:, b : b + n]
