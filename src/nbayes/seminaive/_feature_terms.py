"""Per-feature terms of AODE / A2DE and of the full-joint classifier, for ``explain``.

Neither model's score is a sum over features, so each needs a stated way of splitting it; both
splits add up exactly to log P(x, y) - log P(y).

AODE: log P(y, x) = logsumexp_S s_S(y) - log |Q(x)| over the qualifying parent sets S, with
s_S(y) = log P(y) + log P(x_S | y) + sum_l log P(x_l | y, x_S). Weighting each estimator by its
share of the average, pi_S(y) = exp(s_S(y) - logsumexp_S' s_S'(y)), gives exactly

    log P(y, x) - log P(y) = sum_S pi_S(y) [log P(x_S | y) + sum_l log P(x_l | y, x_S)]
                             + (H(pi(y)) - log |Q(x)|),

so feature l's term is its factors averaged with the weights pi_S (a super-parent's own factor
log P(x_S | y) is shared equally among the features of S), and the last bracket -- zero when
the estimators agree, negative when they disagree -- is shared equally among the features.

Full joint: the chain rule over the columns in order, with the model's own smoothed estimate
of every prefix, log P(x_1..x_j | y) = log P(y, x_1..x_j) - log P(y); feature j's term is the
step from the prefix before it (given the earlier features). The last step ends at the
model's score, so the terms add up to it. Rows scored by the backoff model get its terms.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from ..distributions._estimates import log_normalise
from .network import slot_codes


def aode_terms(X: np.ndarray, levels: list[dict], log_prior: np.ndarray):
    """(terms (rows, C, d), parents (rows, d, d) bool: which features condition each
    feature's term) of AnDE for code rows ``X`` (see the module docstring)."""
    Xs = slot_codes(X, levels[0]["n_categories"])
    n_rows, d = Xs.shape
    n_classes = log_prior.size
    terms = np.zeros((n_rows, n_classes, d))
    parents = np.zeros((n_rows, d, d), dtype=bool)
    todo = np.arange(n_rows)
    for level in levels:  # bounded: n + 1 levels
        if not todo.size:
            break
        found, level_terms, level_parents = _level_terms(Xs[todo], level, log_prior)
        terms[todo[found]] = level_terms[found]
        parents[todo[found]] = level_parents[found]
        todo = todo[~found]
    return terms, parents


def _level_terms(Xs: np.ndarray, level: dict, log_prior: np.ndarray):
    observed = Xs >= 0
    codes = np.where(observed, Xs, 0)
    n_rows, d = Xs.shape
    n, n_sets = level["n"], level["n_sets"]
    q_cols = level["q_cols"]
    # Each set's cell of the table, then one look-up per (set, feature) as in
    # aode.finalize_level: feature c's factor, or for the first parent of S the set's own
    # factor log P(x_S | y) (zero for S's other parents); a missing feature reads zeros.
    cell = np.broadcast_to(level["q_offsets"], (n_rows, n_sets)).copy()
    ok = np.ones((n_rows, n_sets), dtype=bool)
    for t in range(q_cols.shape[1]):  # bounded by n
        cell += codes[:, q_cols[:, t]] * level["q_strides"][:, t]
        ok &= observed[:, q_cols[:, t]]
    ok &= level["qualify"][cell]
    key = np.where(observed, level["child_offsets"] + codes, -1)
    idx = cell[:, :, None] * level["row_length"] + key[:, None, :]
    idx[np.broadcast_to(~observed[:, None, :], idx.shape)] = level["flat"].shape[0] - 1
    per_set = level["flat"][idx]  # (rows, sets, d, C)
    scores = per_set.sum(axis=2) + log_prior  # (rows, sets, C)
    n_ok = ok.sum(axis=1)
    masked = np.where(ok[:, :, None], scores, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        top = logsumexp(masked, axis=1)  # (rows, C)
        weight = np.where(ok[:, :, None], np.exp(masked - top[:, None, :]), 0.0)
        jll = top - np.log(np.maximum(n_ok, 1))[:, None]
        # Each look-up's factor goes to its feature, except a parent set's own factor (at
        # its first parent), shared by the set's features: one (sets, d, d) matrix.
        to_feature = np.broadcast_to(np.eye(d), (n_sets, d, d)).copy()
        if n:
            sets = np.arange(n_sets)
            to_feature[sets, q_cols[:, 0]] = 0.0
            for k in range(n):  # bounded by n (1 or 2)
                to_feature[sets, q_cols[:, 0], q_cols[:, k]] = 1.0 / n
        weighted = np.where(weight[:, :, None, :] > 0, per_set * weight[:, :, None, :], 0.0)
        terms = np.einsum("rsjc,sjd->rcd", weighted, to_feature)
        rest = jll - log_prior - terms.sum(axis=2)
    terms += rest[:, :, None] / d
    # Feature j's term conditions on the qualifying sets' features other than j.
    members = np.zeros((n_sets, d), dtype=bool)
    members[np.repeat(np.arange(n_sets), n), q_cols.ravel()] = True
    used = (ok.astype(np.int64) @ members.astype(np.int64)) > 0  # (rows, d)
    parents = np.broadcast_to(used[:, None, :], (n_rows, d, d)) & ~np.eye(d, dtype=bool)
    return n_ok > 0, terms, parents


def joint_terms(X: np.ndarray, stats: dict, a: float, log_prior: np.ndarray, jll):
    """Chain-rule terms (rows, C, d) of rows scored by their own stored vector, ending at
    their scores ``jll`` (rows, C) (see the module docstring)."""
    X = np.asarray(X, dtype=np.int64)
    n_rows, d = X.shape
    counts = stats["n_vectors"]  # (C, U)
    n_classes = counts.shape[0]
    total = counts.sum()
    steps = np.empty((n_rows, n_classes, d + 1))
    if not n_rows:
        return steps[:, :, 1:]
    log_class = log_normalise(counts.sum(axis=1) + a, total + n_classes * a, n_classes)
    steps[:, :, 0] = 0.0
    frame = pd.DataFrame(stats["vectors"])
    for j in range(1, d):  # bounded by the features: prefixes of 1 .. d-1 columns
        grouped = pd.DataFrame(counts.T).groupby([frame[c] for c in range(j)]).sum()
        keys = X[:, 0] if j == 1 else pd.MultiIndex.from_arrays(list(X[:, :j].T))
        where = grouped.index.get_indexer(keys)
        n_prefix = grouped.to_numpy()[where]  # (rows, C); every prefix of a stored vector
        n_x = n_prefix.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            log_joint = (
                np.log(n_x)
                - np.log(total)
                + log_normalise(n_prefix + a, n_x + n_classes * a, n_classes)
            )
        steps[:, :, j] = log_joint - log_class
    steps[:, :, d] = jll - log_prior
    return np.diff(steps, axis=2)


def given_text(parents: np.ndarray, names) -> np.ndarray:
    """(rows, d) descriptions of the features each term conditions on besides the class,
    from (rows, d, d) flags; one string per distinct pattern, not per row."""
    n_rows, d = parents.shape[:2]
    patterns, inverse = np.unique(parents.reshape(n_rows, -1), axis=0, return_inverse=True)
    texts = np.empty((len(patterns), d), dtype=object)
    for i, flags in enumerate(patterns.reshape(len(patterns), d, d)):  # distinct patterns
        texts[i] = [", ".join(str(names[p]) for p in np.flatnonzero(row)) for row in flags]
    return texts[inverse.ravel()] if n_rows else np.empty((0, d), dtype=object)
