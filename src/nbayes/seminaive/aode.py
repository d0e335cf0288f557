"""Averaged n-dependence estimators: AODE (n=1, Webb, Boughton & Wang 2005) and A2DE (n=2,
Webb et al. 2012).

For a row x, every set S of n features whose observed values were seen at least
``min_parent_count`` times in training (a *qualifying* parent set) gives a one-dependence
(n-dependence) estimate of the joint

    P(y, x) = P(y) P(x_S | y) prod_{l not in S} P(x_l | y, x_S),

and AODE averages them: log P(y, x) = logsumexp_S(...) - log |Q(x)|. A row with no qualifying
parent set falls back to the level below (A2DE -> AODE -> naive Bayes, which is the level
n = 0 of the same formula). A missing child leaves its factor out; a parent set with a missing
or unseen value does not qualify. Every probability is smoothed with pseudo-count ``a`` (the
library's ``alpha`` / ``estimate`` vocabulary) over the counts of the rows that observed the
features involved, so missing values are left out exactly. P(y) P(x_S | y) rather than a
smoothed P(y, x_S) lets the class prior options (``class_prior``, ``fit_prior``) apply.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import logsumexp

from .._accel import kernels
from ..distributions._base import log_normalise, row_chunks
from . import _counts
from .network import log_conditional, row_major_strides, scope_counts, slot_codes


def _log_marginal(counts: np.ndarray, a: float) -> np.ndarray:
    """log P(x_S | y) over the cells of a block (C, K_1, ..., K_n), smoothed over all
    ``prod K`` cells, with an unseen slot on every axis (never used: such a set does not
    qualify)."""
    cells = int(np.prod(counts.shape[1:]))
    totals = counts.reshape(counts.shape[0], -1).sum(axis=1) + cells * a
    padded = np.pad(counts, [(0, 0)] + [(0, 1)] * (counts.ndim - 1))
    return log_normalise(padded + a, totals.reshape((-1,) + (1,) * (counts.ndim - 1)), cells)


def finalize_level(stats: dict, n: int, a: np.ndarray, min_parent_count: float) -> dict:
    """Scoring tables of the n-dependence estimators (n = 0 is naive Bayes).

    Items are (parent set S, term) pairs: the first term of each S is log P(x_S | y), the
    others log P(x_l | y, x_S) for every child l outside S. All terms are rows of one flat
    (cells + 1, C) table whose last row is zero (the term of a missing child).
    """
    n_cat = np.asarray(stats["n_categories"], dtype=np.int64)
    d = n_cat.size
    sets = list(itertools.combinations(range(d), n))
    blocks, cols, strides, children = [], [], [], []
    qualify, q_cols, q_strides = [], [], []
    # Bounded by the parent sets (d or d(d-1)/2) times the children: the tables' size, which
    # check_size has bounded.
    for s in sets:
        dims = n_cat[list(s)] + 1
        stride = row_major_strides(dims)
        if n:
            counts = _counts.block(stats, s)
            blocks.append(_log_marginal(counts, float(a[list(s)].mean())))
            seen = np.pad(counts.sum(axis=0), [(0, 1)] * n) >= max(min_parent_count, 1e-300)
            qualify.append(seen.ravel())
        else:
            blocks.append(np.zeros((stats["class_count"].size, 1)))
            qualify.append(np.ones(1, dtype=bool))
        cols.append([*list(s), 0])
        strides.append([*list(stride), 0])
        children.append(-1)
        q_cols.append(list(s))
        q_strides.append(list(stride))
        for child in range(d):
            if child in s:
                continue
            table = log_conditional(scope_counts(stats, child, s), float(a[child]))
            blocks.append(table)
            cols.append([*list(s), child])
            strides.append(list(row_major_strides(table.shape[1:])))
            children.append(child)
    sizes = [int(np.prod(b.shape[1:])) for b in blocks]
    flat = np.concatenate([b.reshape(b.shape[0], -1).T for b in blocks], axis=0)
    flat = np.concatenate([flat, np.zeros((1, flat.shape[1]))], axis=0)
    q_sizes = [q.size for q in qualify]
    return {
        "n": n,
        "n_categories": n_cat,
        "n_sets": len(sets),
        "flat": np.ascontiguousarray(flat),
        "offsets": np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64),
        "cols": np.asarray(cols, dtype=np.intp).reshape(len(cols), n + 1),
        "strides": np.asarray(strides, dtype=np.int64).reshape(len(cols), n + 1),
        "children": np.asarray(children, dtype=np.intp),
        "qualify": np.concatenate(qualify),
        "q_offsets": np.concatenate([[0], np.cumsum(q_sizes)[:-1]]).astype(np.int64),
        "q_cols": np.asarray(q_cols, dtype=np.intp).reshape(len(sets), n),
        "q_strides": np.asarray(q_strides, dtype=np.int64).reshape(len(sets), n),
    }


def finalize(stats: dict, n: int, a: np.ndarray, min_parent_count: float) -> list[dict]:
    """Tables of the levels n, n-1, ..., 0 (each the fallback of the one before)."""
    d = len(stats["n_categories"])
    return [finalize_level(stats, level, a, min_parent_count) for level in range(min(n, d), -1, -1)]


def log_joint(X: np.ndarray, levels: list[dict], log_prior: np.ndarray) -> np.ndarray:
    """AnDE's log P(y, x) for every row and class, shape (n_samples, n_classes)."""
    Xs = slot_codes(X, levels[0]["n_categories"])
    out = np.empty((Xs.shape[0], log_prior.size))
    todo = np.arange(Xs.shape[0])
    for level in levels:  # bounded: n + 1 levels
        if not todo.size:
            break
        # Temporaries per row: the items' terms (numpy) or only the per-set sums (compiled).
        items = level["cols"].shape[0] if kernels() is None else 4 * level["n_sets"]
        per_row = 8 * log_prior.size * max(items, 1) * 2
        left = []
        for rows in row_chunks(todo.size, per_row):
            idx = todo[rows]
            scores, found = _level_scores(Xs[idx], level, log_prior)
            out[idx[found]] = scores[found]
            left.append(idx[~found])
        todo = np.concatenate(left) if left else todo[:0]
    return out


def _set_sums(Xs, codes, observed, level, n_sets, log_prior) -> np.ndarray:
    """log P(y, x) of each parent set's estimator, (rows, sets, C), by one gather."""
    n_rows = Xs.shape[0]
    idx = np.broadcast_to(level["offsets"], (n_rows, level["offsets"].size)).copy()
    for t in range(level["cols"].shape[1]):  # bounded by n + 1
        idx += codes[:, level["cols"][:, t]] * level["strides"][:, t]
    children = level["children"]
    has_child = children >= 0
    missing_child = np.zeros(idx.shape, dtype=bool)
    missing_child[:, has_child] = ~observed[:, children[has_child]]
    idx[missing_child] = level["flat"].shape[0] - 1  # the zero row
    terms = level["flat"][idx]  # (rows, items, C)
    return terms.reshape(n_rows, n_sets, -1, log_prior.size).sum(axis=2) + log_prior


def _level_scores(Xs: np.ndarray, level: dict, log_prior: np.ndarray):
    """Scores of one chunk at one level and which rows had a qualifying parent set."""
    observed = Xs >= 0
    codes = np.where(observed, Xs, 0)
    n_sets, n_rows = level["n_sets"], Xs.shape[0]
    compiled = kernels()
    if compiled is not None:
        sums = np.empty((n_rows, n_sets * log_prior.size))
        compiled.gather_sums(
            np.ascontiguousarray(Xs, dtype=np.int64),
            level["cols"],
            level["strides"],
            level["offsets"],
            level["children"],
            level["flat"],
            level["cols"].shape[0] // n_sets,
            sums,
        )
        per_set = sums.reshape(n_rows, n_sets, log_prior.size) + log_prior
    else:
        per_set = _set_sums(Xs, codes, observed, level, n_sets, log_prior)
    q_idx = np.broadcast_to(level["q_offsets"], (n_rows, n_sets)).copy()
    ok = np.ones((n_rows, n_sets), dtype=bool)
    for t in range(level["q_cols"].shape[1]):  # bounded by n
        q_idx += codes[:, level["q_cols"][:, t]] * level["q_strides"][:, t]
        ok &= observed[:, level["q_cols"][:, t]]
    ok &= level["qualify"][q_idx]
    n_ok = ok.sum(axis=1)
    per_set = np.where(ok[:, :, None], per_set, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = logsumexp(per_set, axis=1) - np.log(np.maximum(n_ok, 1))[:, None]
    return scores, n_ok > 0
