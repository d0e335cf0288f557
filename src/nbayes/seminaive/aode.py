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
from .._threads import map_chunks
from ..distributions._arrays import row_chunks
from ..distributions._estimates import log_normalise
from . import _counts
from .network import log_conditional, row_major_strides, scope_counts, score_pieces, slot_codes


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

    Every *set cell* -- a parent set S with one value (or the unseen slot) per parent --
    owns one row of ``R = sum_j (K_j + 1)`` table rows of C log values, a slot of
    ``K_c + 1`` rows per feature c at ``child_offsets[c]``: for a child c outside S,
    log P(x_c | y, x_S) for each value of x_c; in the slot of S's first parent, at that
    parent's value, log P(x_S | y) (the estimator's own factor); zeros elsewhere. An
    estimator's score for a row is then its prior plus the sum, over the row's observed
    features c, of table row ``cell * R + child_offsets[c] + x_c``: one look-up per
    feature, the same offsets for every parent set. The last row of ``flat`` is zeros (a
    missing child, for the numpy path).
    """
    n_cat = np.asarray(stats["n_categories"], dtype=np.int64)
    d = n_cat.size
    n_classes = stats["class_count"].size
    sets = list(itertools.combinations(range(d), n))
    slots = n_cat + 1
    child_offsets = np.concatenate([[0], np.cumsum(slots)[:-1]]).astype(np.int64)
    row_length = int(slots.sum())
    set_cells = [int(np.prod(slots[list(s)])) for s in sets]
    q_offsets = np.concatenate([[0], np.cumsum(set_cells)[:-1]]).astype(np.int64)
    flat = np.zeros((sum(set_cells), row_length, n_classes))
    qualify = np.ones(sum(set_cells), dtype=bool)
    # Bounded by the parent sets (1, d or d(d-1)/2) times the children: the tables' size,
    # which check_size has bounded.
    for s, start, cells in zip(sets, q_offsets.tolist(), set_cells):
        block = flat[start : start + cells]  # (cells, R, C), a view
        if n:
            counts = _counts.block(stats, s)
            seen = np.pad(counts.sum(axis=0), [(0, 1)] * n) >= max(min_parent_count, 1e-300)
            qualify[start : start + cells] = seen.ravel()
            marginal = _log_marginal(counts, float(a[list(s)].mean())).reshape(n_classes, cells)
            first = s[0]
            value = np.arange(cells) // (cells // slots[first])  # the first parent's value
            block[np.arange(cells), child_offsets[first] + value] = marginal.T
        for child in range(d):  # bounded by the features
            if child in s:
                continue
            table = log_conditional(scope_counts(stats, child, s), float(a[child]))
            lo = child_offsets[child]
            table = table.reshape(n_classes, cells, -1)
            block[:, lo : lo + slots[child]] = table.transpose(1, 2, 0)
    flat = np.concatenate([flat.reshape(-1, n_classes), np.zeros((1, n_classes))])
    q_strides = [row_major_strides(slots[list(s)]) for s in sets]
    return {
        "n": n,
        "n_categories": n_cat,
        "n_sets": len(sets),
        "flat": flat,
        "child_offsets": child_offsets,
        "row_length": row_length,
        "qualify": qualify,
        "q_offsets": q_offsets,
        "q_cols": np.asarray(sets, dtype=np.intp).reshape(len(sets), n),
        "q_strides": np.asarray(q_strides, dtype=np.int64).reshape(len(sets), n),
    }


def finalize(stats: dict, n: int, a: np.ndarray, min_parent_count: float) -> list[dict]:
    """Tables of the levels n, n-1, ..., 0 (each the fallback of the one before)."""
    d = len(stats["n_categories"])
    return [finalize_level(stats, level, a, min_parent_count) for level in range(min(n, d), -1, -1)]


def log_joint(X: np.ndarray, levels: list[dict], log_prior: np.ndarray) -> np.ndarray:
    """AnDE's log P(y, x) for every row and class, shape (n_samples, n_classes)."""
    X = np.ascontiguousarray(X, dtype=np.int64)
    compiled = kernels()
    init = np.ascontiguousarray(log_prior, dtype=np.float64)
    out = np.empty((X.shape[0], log_prior.size))
    todo = None  # all rows
    for level in levels:  # bounded: n + 1 levels
        rows_X = X if todo is None else X[todo]
        scores = out if todo is None else np.empty((todo.size, log_prior.size))
        found = np.zeros(rows_X.shape[0], dtype=bool)

        def score(rows: slice, rows_X=rows_X, scores=scores, found=found, level=level):
            if compiled is not None:  # one pass: look-ups, sums and the average per row
                compiled.ande_scores(
                    rows_X[rows], level, init, scores[rows], found[rows].view(np.uint8)
                )
            else:
                scores[rows], found[rows] = _level_scores(rows_X[rows], level, init)

        # Pieces of rows on the engine's threads (numpy's: bounded temporaries).
        per_row = 8 * log_prior.size * level["n_sets"] * max(level["n_categories"].size, 1)
        pieces = score_pieces(rows_X.shape[0]) if compiled else row_chunks(rows_X.shape[0], per_row)
        for _ in map_chunks(score, pieces):
            pass
        if todo is not None:
            out[todo[found]] = scores[found]
        todo = np.flatnonzero(~found) if todo is None else todo[~found]
        if not todo.size:
            break
    return out


def _level_scores(X: np.ndarray, level: dict, log_prior: np.ndarray):
    """Scores of one chunk at one level and which rows had a qualifying parent set."""
    Xs = slot_codes(X, level["n_categories"])
    observed = Xs >= 0
    codes = np.where(observed, Xs, 0)
    n_sets = level["n_sets"]
    cell = np.broadcast_to(level["q_offsets"], (Xs.shape[0], n_sets)).copy()
    ok = np.ones((Xs.shape[0], n_sets), dtype=bool)
    for t in range(level["q_cols"].shape[1]):  # bounded by n
        cell += codes[:, level["q_cols"][:, t]] * level["q_strides"][:, t]
        ok &= observed[:, level["q_cols"][:, t]]
    ok &= level["qualify"][cell]
    # One look-up per (set, feature): row cell * R + child_offsets[c] + x_c, or the zero
    # row for a missing child.
    key = np.where(observed, level["child_offsets"] + codes, -1)
    idx = cell[:, :, None] * level["row_length"] + key[:, None, :]
    idx[np.broadcast_to(~observed[:, None, :], idx.shape)] = level["flat"].shape[0] - 1
    per_set = level["flat"][idx].sum(axis=2) + log_prior  # (rows, sets, C)
    n_ok = ok.sum(axis=1)
    per_set = np.where(ok[:, :, None], per_set, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = logsumexp(per_set, axis=1) - np.log(np.maximum(n_ok, 1))[:, None]
    return scores, n_ok > 0
