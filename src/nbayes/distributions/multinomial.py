"""Multinomial family: counts (word counts in a document) and their complement variant."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._accel import kernels
from .._validation import raise_at
from ._arrays import dot, linear_tables, log_linear, safe_ratio
from ._base import Family, Params, Stats
from ._estimates import (
    check_alpha,
    log_normalise,
    lookup_log,
    one_pseudo_count,
    pseudo_count,
    sum_shifted_lgamma,
    weighted_log_sum,
)
from ._labels import Labels, class_sums
from .statistics import ClassSums


def plain_counts(X, integer: bool = False) -> bool:
    """Whether every value of X is a non-negative (whole, with ``integer``) number, judged
    without temporaries as large as X: the minimum, and truncation changing nothing. NaN
    makes it False (the minimum is NaN); +inf passes."""
    vals = X.data if sp.issparse(X) else X
    if vals.size == 0:
        return True
    if integer and vals.dtype.kind not in "iub":
        return _whole_and_non_negative(vals.ravel(order="K"))
    with np.errstate(invalid="ignore"):
        return bool(vals.min() >= 0)


#: Values per block of the whole-number check: a block, its truncation and their comparison
#: stay in a core's L2 cache, so the values are read from memory once instead of three times.
WHOLE_CHECK_BLOCK = 2**17


def _whole_and_non_negative(flat: np.ndarray) -> bool:
    size = min(flat.size, WHOLE_CHECK_BLOCK)
    truncated, equal = np.empty(size), np.empty(size, dtype=bool)
    with np.errstate(invalid="ignore"):
        for start in range(0, flat.size, WHOLE_CHECK_BLOCK):
            block = flat[start : start + WHOLE_CHECK_BLOCK]
            n = block.size
            if not block.min() >= 0:
                return False
            np.trunc(block, out=truncated[:n])
            if not np.equal(truncated[:n], block, out=equal[:n]).all():
                return False
    return True


def check_non_negative(X, family: str, feature_names=None, integer: bool = False) -> None:
    """Raise a DataError at the first negative (or, with ``integer``, fractional) value."""
    if plain_counts(X, integer):
        return
    vals = X.data if sp.issparse(X) else X
    with np.errstate(invalid="ignore"):
        bad = vals < 0
        if integer:
            bad |= np.mod(vals, 1) != 0
        bad &= ~np.isnan(vals)
    if not bad.any():
        return
    mask = bad
    if sp.issparse(X):
        mask = X.copy()
        mask.data = bad
    what = "non-negative integer counts" if integer else "non-negative counts"
    fix = (
        "Negative values in data are not counts"
        + (" and counts are whole numbers" if integer else "")
        + "; check the column or choose another family (e.g. Gaussian)."
    )
    raise_at(mask, X, what, fix, family, feature_names)


def check_counts(family: Family, X, feature_names, lazy: bool, integer: bool) -> None:
    """Finite, non-negative (whole) counts. Lazily, when the quick test passes, only inf is
    left to check (in the statistics or scores); otherwise NaN and inf are named first."""
    if lazy and plain_counts(X, integer):
        return
    family.check_finite(X, feature_names)
    check_non_negative(X, type(family).__name__, feature_names, integer=integer)


def count_data(rng: np.random.Generator, n_samples: int, n_features: int) -> np.ndarray:
    """Poisson counts with a rate per feature: example data of the count families."""
    rate = rng.uniform(0.2, 4, size=n_features)
    return rng.poisson(rate, size=(n_samples, n_features)).astype(np.float64)


#: Counts below this many, whole numbers, have the logarithms of their smoothed cells looked up
#: in a table made once per candidate (:func:`_compiled_log_cells`).
SMALL_COUNTS = 512


def _compiled_log_cells(compiled, counts, columns, pseudo, log_totals) -> np.ndarray:
    """The stacked log tables of ``finalize_stacked`` for one pseudo-count per candidate,
    from the compiled loop: (features or ``columns``, candidates x classes).

    Most cells of a word-count table are small whole counts (a fold of Enron: 99% below
    512), so their logarithms log(n + a) are looked up in a table of log(0..511 + a) per
    candidate, made here by numpy's log of the same sums; the few other cells take numpy's
    log after the loop. The numpy code takes the log of every cell: the same values, with
    two passes fewer over a table of several megabytes.
    """
    n_classes, n_features = counts.shape
    picked = np.arange(n_features) if columns is None else np.asarray(columns, dtype=np.int64)
    m = pseudo.shape[0]
    log_small = np.log(np.arange(SMALL_COUNTS, dtype=np.float64)[None, :] + pseudo[:, None])
    out = np.empty((picked.shape[0], m * n_classes))
    rest = np.empty(picked.shape[0] * n_classes, dtype=np.int64)
    n_rest = compiled.stacked_log_cells(
        np.ascontiguousarray(counts, dtype=np.float64),
        picked,
        np.ascontiguousarray(pseudo, dtype=np.float64),
        log_small,
        log_totals,
        out,
        rest,
    )
    if n_rest:
        flat = (rest[:n_rest, None] + n_classes * np.arange(m)).ravel()
        cells = out.ravel()[flat]
        np.log(cells, out=cells)
        cells -= log_totals[flat % out.shape[1]]
        out.ravel()[flat] = cells
    return out


#: Cells of a count table looked at to tell whole counts (word counts) from other sums
#: (TF-IDF, weighted rows) when choosing how to lay out stacked candidates.
WHOLE_SAMPLE = 1 << 16


def _looks_whole(counts: np.ndarray) -> bool:
    """Whether the first cells of the count table are whole numbers. Only the speed rests on
    it: either layout gives the same scores for any table."""
    sample = counts.ravel()[:WHOLE_SAMPLE]
    return bool(np.array_equal(np.trunc(sample), sample))


def _stacked_log1p_cells(counts, columns, pseudo, log_totals) -> tuple[dict, np.ndarray]:
    """The stacked candidates of ``finalize_stacked`` for one positive pseudo-count a per
    candidate, with zero cells left out: log(n + a) = log a + log1p(n / a), so

        x . log theta_k = sum_j x_j log1p(n_kj / a) + (sum_j x_j) (log a - log T_k),

    where the first sum runs over the cells with a count only (most cells of a class x
    vocabulary table hold none), and the second term is one value per row and column of
    scores: ``(cells, per_count)``. ``cells`` holds the counted cells by feature (features
    or ``columns``): feature j's are ``cell_ptr[j]:cell_ptr[j + 1]``, with their classes in
    ``cell_class`` and their log1p(n / a) in ``logged`` (candidates, cells); ``per_count``
    is (candidates x classes,). The logarithms cost the counted cells per candidate, whole
    counts (word counts) or not (TF-IDF sums), not the whole table, and no (features,
    candidates x classes) table is made unless a reader asks for one
    (:func:`_log1p_table`).
    """
    n_classes = counts.shape[0]
    cells = counts.T if columns is None else counts.T[columns]  # (features, classes)
    rows, classes = np.nonzero(cells)  # by feature, then class
    values = cells[rows, classes]
    whole = values.size and values.max() < SMALL_COUNTS and np.array_equal(np.trunc(values), values)
    if whole:  # word counts: log1p(n / a) looked up in one table per candidate
        table = np.log1p(np.arange(SMALL_COUNTS, dtype=np.float64)[None, :] / pseudo[:, None])
        logged = table[:, values.astype(np.intp)]  # (candidates, counted cells)
    else:
        logged = np.divide(values[None, :], pseudo[:, None])
        np.log1p(logged, out=logged)
    cell_ptr = np.zeros(cells.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=cells.shape[0]), out=cell_ptr[1:])
    per_count = np.repeat(np.log(pseudo), n_classes) - log_totals
    counted = {"cell_ptr": cell_ptr, "cell_class": classes.astype(np.int64), "logged": logged}
    return counted, per_count


def _log1p_table(cells: dict, n_classes: int) -> np.ndarray:
    """The (features, candidates x classes) table of :func:`_stacked_log1p_cells`'
    ``cells``: candidate c's class k is column c * K + k, zero where no count."""
    cell_ptr, logged = cells["cell_ptr"], cells["logged"]
    n_features, m = cell_ptr.shape[0] - 1, logged.shape[0]
    rows = np.repeat(np.arange(n_features), np.diff(cell_ptr))
    weights_t = np.zeros((n_features, m * n_classes))
    weights_t.reshape(n_features, m, n_classes)[rows, :, cells["cell_class"]] = logged.T
    return weights_t


def _log1p_scores(X, cells: dict, n_classes: int) -> np.ndarray:
    """X @ :func:`_log1p_table` (rows, candidates x classes). For a CSR X where the
    compiled loops are built, over X's columns (CSC) candidate by candidate, without the
    table: each row adds its products in the order of its columns, where the table's
    product adds them in the order of its stored values (the same sums to rounding)."""
    compiled = kernels()
    width = cells["logged"].shape[0] * n_classes
    if compiled is None or not sp.issparse(X) or X.format != "csr":
        return dot(X, _log1p_table(cells, n_classes))
    by_column = X.tocsc()
    if by_column.indices.dtype != by_column.indptr.dtype:
        by_column.indptr = by_column.indptr.astype(by_column.indices.dtype)
    out = np.empty((X.shape[0], width))
    compiled.csc_sparse_table_product(
        np.asarray(by_column.data, dtype=np.float64),
        by_column.indices,
        by_column.indptr,
        cells["cell_ptr"],
        cells["cell_class"],
        cells["logged"],
        out,
    )
    return out


class Multinomial(Family):
    """Multinomial over the features with a symmetric Dirichlet(alpha) prior per class.

    The log-likelihood is the full multinomial log-pmf, including the class-independent
    coefficient log(n! / prod x_j!) (returned by :meth:`log_normalizer`). scikit-learn omits
    that coefficient from ``predict_joint_log_proba``; posteriors are identical.

    Parameters
    ----------
    alpha : float, array of shape (n_features,) or "auto", default=1.0
        Dirichlet concentration: theta_kj = (n_kj + a) / (n_k + D a) under posterior_mean.
        "auto" maximises the Dirichlet-multinomial evidence of the training counts.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    missing : {"error", "ignore"}, default="error"

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Multinomial, Labels
    >>> fam = Multinomial(alpha=1.0)
    >>> labels = Labels(np.array([0, 0]), np.ones(2), n_classes=1)
    >>> stats = fam.accumulate(np.array([[2., 0.], [1., 1.]]), labels)
    >>> np.exp(fam.log_theta(fam.finalize(stats))).round(3).tolist()
    [[0.667, 0.333]]
    """

    name = "multinomial"
    soft_labels = True  # every statistic is a class sum or a class weight
    finite_shows_in_result = True
    statistics = (ClassSums.at("n_counts"),)
    fresh_batches = True  # accumulate makes every table anew
    stackable_params: tuple[str, ...] | None = ("log_theta",)
    stacks_columns = True
    shared_params = ("alpha", "estimate")
    integer_counts = False

    def prepare(self, X, feature_names=None, lazy=False):
        check_counts(self, X, feature_names, lazy, self.integer_counts)
        return X if sp.issparse(X) else np.asarray(X, dtype=np.float64)

    def accumulate(self, X, labels: Labels) -> Stats:
        return {"n_counts": class_sums(self._zero_missing(X), labels)}

    def n_samples(self, stats):
        return stats["n_counts"].sum(axis=1)

    def finalize(self, stats: Stats) -> Params:
        """Parameters in factored form: the counts (the statistics' own table, shared, never
        changed), the pseudo-counts a and each class's smoothed total n_k + D a; log theta is
        log(n_kj + a) - log(n_k + D a), laid out by :meth:`log_theta` when scoring tables
        are made or a table is read. partial_fit finalizes every batch, and this costs the
        classes, not the class x word table: the scoring tables are made once per fitted
        state, at its first prediction (scikit-learn takes the logarithms every batch)."""
        counts = stats["n_counts"]
        alpha = self.resolve_alpha(stats, counts.shape[1])
        a = pseudo_count(alpha, self.estimate)
        # Each class's n_k + D a, as finalize_stacked sums it (no table of smoothed cells).
        totals = counts.sum(axis=1) + a.sum()
        return {"n_counts": counts, "totals": totals, "pseudo": a, "alpha": alpha}

    def log_theta(self, params: Params) -> np.ndarray:
        """log theta, shape (n_classes, n_features), from :meth:`finalize`'s factored
        parameters (a new table: a pass over it), or the table itself where the parameters
        hold one (candidates stacked by a grid search, subclasses' own finalize)."""
        if "log_theta" in params:
            return params["log_theta"]
        if "per_count" in params:  # stacked candidates (finalize_stacked): a new table
            weights_t = _log1p_table(params["log1p_cells"], params["n_classes"])
            return (weights_t + params["per_count"]).T
        counts, totals, a = params["n_counts"], params["totals"], params["pseudo"]
        a0 = one_pseudo_count(a)
        if a0 is not None and (totals > 0).all():  # most logarithms looked up (lookup_log)
            with np.errstate(divide="ignore"):
                log_theta = lookup_log(counts, lambda n, k: n + a0, np.log(totals))
            if log_theta is not None:
                return log_theta
        return log_normalise(counts + a, totals[:, None], counts.shape[1], own=True)

    def feature_log_table(self, params: Params) -> np.ndarray:
        """The table a preset publishes as ``feature_log_prob_``: log theta (Complement: its
        weights)."""
        return self.log_theta(params)

    def laid_out(self, params: Params) -> Params:
        if "log_theta" in params:
            return params
        return {"log_theta": self.log_theta(params), "alpha": params["alpha"]}

    def finalize_stacked(self, stats: Stats, families, columns=None) -> Params | None:
        if any(type(f) is not Multinomial for f in (self, *families)):
            return None  # subclasses finalize otherwise (Complement weights, Text's words)
        counts = stats["n_counts"]
        n_classes, n_features = counts.shape
        # One pseudo-count per candidate where alpha is one number (the usual grid): it is
        # validated as one number, and no candidates x features table of it is made.
        scalar = all(np.ndim(f.alpha) == 0 and not isinstance(f.alpha, str) for f in families)
        if scalar:
            alphas = [check_alpha(f.alpha, 1, f.estimate) for f in families]  # validated
        else:
            alphas = [f.resolve_alpha(stats, n_features) for f in families]
        # (candidates, 1) or (candidates, features)
        a = np.stack([pseudo_count(al, f.estimate) for al, f in zip(alphas, families)])
        a_sum = n_features * a if scalar else a.sum(axis=1, keepdims=True)
        # Each candidate's totals n_k + D a (what its finalize sums cell by cell), and its
        # cells, over the columns asked for only: a held-out fold of a large vocabulary
        # holds a fraction of the words, and the others' parameters are never read.
        totals = counts.sum(axis=1)[None, :] + a_sum  # (candidates, classes)
        # The cells of every candidate side by side, in the layout the scoring product reads
        # (features, candidates x classes): tiled rows of the counts plus each candidate's
        # pseudo-counts, whose logarithms are then taken in place. Every pass runs along
        # rows of candidates x classes values, not along the short class axis.
        compiled = kernels()
        with np.errstate(divide="ignore", invalid="ignore"):
            log_totals = np.log(totals).ravel()
            # Whole counts go to the compiled loop where it is built: it looks the logarithms
            # of every cell up in one pass, faster than the passes below. Other sums (TF-IDF)
            # have no table to look up: there the cells without a count are what costs
            # nothing.
            log1p_cells = compiled is None or not _looks_whole(counts)
            if scalar and (a > 0).all() and log1p_cells:  # zero cells cost nothing
                cells, per_count = _stacked_log1p_cells(counts, columns, a[:, 0], log_totals)
                return {
                    "log1p_cells": cells,
                    "n_classes": n_classes,
                    "per_count": per_count,
                    "alpha": np.broadcast_to(alphas[0], (n_features,)),
                    "scoring_ready": True,
                }
            if scalar and compiled is not None:
                log_t = _compiled_log_cells(compiled, counts, columns, a[:, 0], log_totals)
            else:
                cells = counts.T if columns is None else counts.T[columns]  # (features, classes)
                log_t = np.tile(cells, (1, len(families)))
                if scalar:
                    log_t += np.repeat(a[:, 0], n_classes)
                else:
                    log_t += np.repeat(
                        (a if columns is None else a[:, columns]).T, n_classes, axis=1
                    )
                np.log(log_t, out=log_t)
                log_t -= log_totals
        empty = (totals == 0).ravel()  # no data and no pseudo-count: uniform, as log_normalise
        if empty.any():
            log_t[:, empty] = -np.log(n_features)
        # (candidates x classes, features), the transposed view the product reads without a copy
        params = {"log_theta": log_t.T, "alpha": np.broadcast_to(alphas[0], (n_features,))}
        if (a > 0).all():
            # Every probability is positive: the scoring tables are the table itself, with no
            # -inf to split off (which would be a pass over it to find none).
            params.update(weights_t=log_t, impossible_t=None, scoring_ready=True)
        return params

    def log_prior(self, params: Params) -> float:
        # Dirichlet(a + 1) per class, whose mode the smoothed estimate is.
        a = pseudo_count(params["alpha"], self.estimate)
        return weighted_log_sum(a[None, :], self.log_theta(params))

    def evidence_function(self, stats: Stats):
        # Dirichlet-multinomial per class: Gamma(D a) / Gamma(N_k + D a) prod_j
        # Gamma(n_kj + a) / Gamma(a); the multinomial coefficients do not depend on a. Complement
        # NB smooths the same counts, so it inherits this criterion.
        counts = stats["n_counts"]
        n_features = counts.shape[1]
        cells = sum_shifted_lgamma(counts)
        totals = sum_shifted_lgamma(counts.sum(axis=1))
        return lambda a: cells(a) - totals(n_features * a)

    def feature_means(self, stats, params, class_count):
        return safe_ratio(stats["n_counts"], class_count[:, None])

    def linear_weights(self, params: Params):
        log_theta = self.log_theta(params)
        return log_theta, np.zeros(log_theta.shape[0])

    def scoring_params(self, params: Params) -> Params:
        log_theta = self.log_theta(params)
        return {**params, "log_theta": log_theta, **linear_tables(log_theta)}

    def joint_log_likelihood(self, params: Params, X) -> np.ndarray:
        params = self.ready(params)
        X = self._zero_missing(X)
        if "per_count" in params:  # stacked candidates: each count's log a - log T_k
            jll = _log1p_scores(X, params["log1p_cells"], params["n_classes"])
            lengths = np.asarray(X.sum(axis=1), dtype=np.float64).reshape(-1, 1)
            jll += lengths * params["per_count"]
            return jll
        return log_linear(X, params)

    def log_normalizer(self, params: Params, X) -> np.ndarray:
        X = self._zero_missing(X)
        if sp.issparse(X):
            per_value = X.copy()
            per_value.data = gammaln(per_value.data + 1)
            sum_lgamma = np.asarray(per_value.sum(axis=1)).ravel()
        else:
            sum_lgamma = gammaln(X + 1).sum(axis=1)
        n = np.asarray(X.sum(axis=1)).ravel()
        return gammaln(n + 1) - sum_lgamma

    def log_likelihood_terms(self, params: Params, X) -> np.ndarray:
        X = self._zero_missing(X)
        X = X.toarray() if sp.issparse(X) else X
        with np.errstate(invalid="ignore"):
            t = X[:, None, :] * self.log_theta(params)[None]
        t = np.where(X[:, None, :] == 0, 0.0, t)
        # The coefficient log(n!/prod x!) is class-independent; spread it as -lgamma(x+1) per
        # feature plus lgamma(n+1) on the first feature so the terms add up to the log-pmf.
        t -= gammaln(X + 1)[:, None, :]
        t[:, :, 0] += gammaln(X.sum(axis=1) + 1)[:, None]
        return t

    def example_data(self, rng, n_samples, n_features):
        return count_data(rng, n_samples, n_features)

    def reference_log_density(self, params, X):
        # The multinomial does not factorise over features: one value per row and class.
        from scipy import stats

        theta = np.exp(self.log_theta(params))
        n = X.sum(axis=1)
        return np.stack([stats.multinomial.logpmf(X, n, t) for t in theta], axis=1)  # classes


class Complement(Multinomial):
    """Complement Naive Bayes weights (Rennie et al., 2003) over multinomial counts.

    Each class is scored by how badly the *other* classes' word distribution explains the
    document: w_kj = -log theta~_kj with theta~ estimated from the complement counts. The scores
    are not log-probabilities and, as in the paper and scikit-learn, ignore the class prior when
    there is more than one class.

    Parameters
    ----------
    alpha : float or array of shape (n_features,), default=1.0
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    norm : bool, default=False
        Normalise the weights per class (the paper's step 7).
    missing : {"error", "ignore"}, default="error"

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Complement, Labels
    >>> fam = Complement()
    >>> labels = Labels(np.array([0, 1]), np.ones(2), n_classes=2)
    >>> stats = fam.accumulate(np.array([[3., 0.], [0., 2.]]), labels)
    >>> fam.log_theta(fam.finalize(stats)).round(3).tolist()
    [[1.386, 0.288], [0.223, 1.609]]
    """

    name = "complement"
    stacks_columns = False  # its weights are finalized otherwise
    uses_class_prior = False

    def __init__(self, alpha=1.0, estimate="posterior_mean", norm: bool = False, missing="error"):
        super().__init__(alpha=alpha, estimate=estimate, missing=missing)
        self.norm = norm

    def get_params(self) -> dict:
        return {**super().get_params(), "norm": self.norm}

    def finalize(self, stats: Stats) -> Params:
        """Factored as :meth:`Multinomial.finalize`: the counts, each word's smoothed total
        over the classes and each class's complement total; the weights are laid out by
        :meth:`log_theta`."""
        counts = stats["n_counts"]
        alpha = self.resolve_alpha(stats, counts.shape[1])
        a = pseudo_count(alpha, self.estimate)
        columns = counts.sum(axis=0) + a  # the complement cell of a class without the word
        return {
            "n_counts": counts,
            "columns": columns,
            "totals": columns.sum() - counts.sum(axis=1),  # the complement's, per class
            "norm": self.norm,
            "alpha": alpha,
        }

    def log_theta(self, params: Params) -> np.ndarray:
        """The complement weights, shape (n_classes, n_features): -log theta~, or with
        ``norm`` log theta~ over its sum per class (a new table)."""
        if "log_theta" in params:
            return params["log_theta"]
        counts, totals = params["n_counts"], params["totals"][:, None]
        complement = np.subtract(params["columns"], counts)
        if not params["norm"] and (totals > 0).all():
            # The weights -(log c - log t) as log t - log c, in one pass less over the table
            # than a negation after: the same bits (rounding is symmetric).
            with np.errstate(divide="ignore"):
                logged = np.log(complement, out=complement)
                return np.subtract(np.log(totals), logged, out=logged)
        logged = log_normalise(complement, totals, counts.shape[1], own=True)
        if params["norm"]:
            logged /= logged.sum(axis=1, keepdims=True)
            return logged
        return np.negative(logged, out=logged)

    def log_normalizer(self, params, X):
        return np.zeros(X.shape[0])

    def log_likelihood_terms(self, params, X):
        X = self._zero_missing(X)
        X = X.toarray() if sp.issparse(X) else X
        return X[:, None, :] * self.log_theta(params)[None]

    def reference_log_density(self, params, X):
        # Complement weights score how badly the other classes explain x: not a normalised
        # density of x given the class, so scipy.stats has nothing to compare with. The
        # scores are checked against scikit-learn's ComplementNB (test_parity_sklearn.py).
        return None
