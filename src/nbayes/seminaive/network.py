"""Bayesian network classifiers with the class as every feature's parent: TAN and KDB.

Each feature j has a conditional table P(x_j | y, x_{pa(j)}) estimated from the count table of
order ``1 + len(pa(j))`` that holds its scope, and the joint is

    log P(y, x) = log P(y) + sum_j log P(x_j | y, x_{pa(j)}).

Scoring gathers each row's cell of every table (one fancy index per row chunk). A missing cell
is summed out exactly: rows are grouped by their pattern of missing cells and, per pattern,
the tables that involve a missing feature are multiplied and summed over its values with one
``einsum`` (variable elimination), vectorised over the pattern's rows. A category never seen
in training gets the smoothed mass of a category without observations, ``a / (n + K_j a)``,
as the categorical family's ``unseen="smooth"``; a parent value never seen leaves its child's
table empty, which smoothing makes uniform.
"""

from __future__ import annotations

import numpy as np

from .._accel import kernels
from .._threads import map_chunks
from ..distributions._arrays import row_chunks
from ..distributions._estimates import log_normalise
from ..exceptions import DataError
from . import _counts
from ._structure import kdb_parents, tan_parents


def structure(stats: dict, k: int) -> list[tuple[int, ...]]:
    """Parents of every feature: TAN's tree for ``k=None``, KDB(k) otherwise."""
    mi = _counts.class_mutual_information(stats)
    cmi = (
        _counts.conditional_mutual_information(stats)
        if mi.size > 1 and (k is None or k > 0)
        else np.zeros((mi.size, mi.size))
    )
    if k is None:
        return [() if p < 0 else (int(p),) for p in tan_parents(mi, cmi)]
    return kdb_parents(mi, cmi, k)


def scope_counts(stats: dict, child: int, parents: tuple[int, ...]) -> np.ndarray:
    """Counts n(y, x_parents..., x_child), shape (C, K_p1, ..., K_child), from the table of
    order ``len(parents) + 1``."""
    scope = (*parents, child)
    order = np.argsort(scope)
    counts = _counts.block(stats, np.asarray(scope)[order])
    # Axes of the block follow increasing feature index; put them back in scope order.
    return np.moveaxis(counts, list(range(1, len(scope) + 1)), list(order + 1))


def log_conditional(counts: np.ndarray, a: float) -> np.ndarray:
    """log P(child | y, parents) with pseudo-count ``a`` from counts (C, ..., K_child), with
    one more slot on every feature axis for an unseen category: an unseen parent value has
    no counts (uniform child under smoothing), an unseen child the mass ``a / (n + K a)``."""
    k = counts.shape[-1]
    padded = np.pad(counts, [(0, 0)] + [(0, 1)] * (counts.ndim - 1))
    totals = padded[..., :k].sum(axis=-1, keepdims=True) + k * a
    return log_normalise(padded + a, totals, k)


def finalize(stats: dict, parents: list[tuple[int, ...]], a: np.ndarray) -> dict:
    """Scoring tables of the network with these parents and per-feature pseudo-counts ``a``.

    Returns a dict of plain arrays and lists: ``log_cpt`` (one table per feature, axes
    (class, parents..., child), each feature axis with an unseen slot), ``scope``, and the
    flat form used for complete rows (``flat`` (cells + 1, C), ``offsets``, ``cols``,
    ``strides``)."""
    n_cat = np.asarray(stats["n_categories"], dtype=np.int64)
    tables, scopes = [], []
    for j, pa in enumerate(parents):  # bounded by the features
        tables.append(log_conditional(scope_counts(stats, j, pa), float(a[j])))
        scopes.append((*pa, j))
    return {
        "n_categories": n_cat,
        "parents": parents,
        "scope": scopes,
        "log_cpt": tables,
        **flat_tables(tables, scopes, n_cat.size),
    }


def flat_tables(tables, scopes, d: int) -> dict:
    """All tables as rows of one (cells, C) array, for one gather per row chunk: feature j's
    cell for a row is ``offsets[j] + sum_t x[cols[j, t]] * strides[j, t]`` (codes with the
    unseen slot; padding columns have stride 0)."""
    width = max((len(s) for s in scopes), default=1)
    cols = np.zeros((d, width), dtype=np.intp)
    strides = np.zeros((d, width), dtype=np.int64)
    sizes = []
    for j, (table, scope) in enumerate(zip(tables, scopes)):  # bounded by the features
        dims = np.asarray(table.shape[1:], dtype=np.int64)
        cols[j, : len(scope)] = scope
        strides[j, : len(scope)] = row_major_strides(dims)
        sizes.append(int(dims.prod()))
    flat = np.concatenate(
        [t.reshape(t.shape[0], -1).T for t in tables] or [np.zeros((0, 1))], axis=0
    )
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return {
        "flat": np.ascontiguousarray(flat),
        "offsets": offsets,
        "cols": cols,
        "strides": strides,
    }


#: Rows per piece of compiled scoring (pieces run on the engine's threads).
SCORE_PIECE_ROWS = 1 << 14


def score_pieces(n: int):
    """Row slices of compiled scoring: fixed pieces, whatever the thread count."""
    return (slice(a, min(a + SCORE_PIECE_ROWS, n)) for a in range(0, n, SCORE_PIECE_ROWS))


def row_major_strides(dims) -> np.ndarray:
    """Strides of a row-major array of shape ``dims`` (in elements)."""
    dims = np.asarray(dims, dtype=np.int64)
    if not dims.size:
        return dims
    return np.cumprod(np.append(dims[1:], 1)[::-1])[::-1].astype(np.int64)


def slot_codes(X: np.ndarray, n_categories: np.ndarray) -> np.ndarray:
    """Codes with every unseen code (``>= K_j``) moved to the unseen slot K_j; -1 stays."""
    X = np.asarray(X, dtype=np.int64)
    return np.minimum(X, n_categories[None, :])


def log_joint(X: np.ndarray, net: dict, log_prior: np.ndarray) -> np.ndarray:
    """log P(y, x_observed) for every row and class, shape (n_samples, n_classes)."""
    compiled = kernels()
    if compiled is not None:
        X = np.ascontiguousarray(X, dtype=np.int64)
        out = np.empty((X.shape[0], log_prior.size))
        incomplete = np.empty(X.shape[0], dtype=np.uint8)
        init = np.ascontiguousarray(log_prior, dtype=np.float64)

        def score(rows: slice) -> int:
            return compiled.network_scores(
                X[rows],
                net["n_categories"],
                net["cols"],
                net["strides"],
                net["offsets"],
                net["flat"],
                init,
                out[rows],
                incomplete[rows],
            )

        # Rows with a missing cell are left for the variable elimination below.
        if not sum(map_chunks(score, score_pieces(X.shape[0]))):
            return out
        rest = np.flatnonzero(incomplete)
        Xs = slot_codes(X[rest], net["n_categories"])
    else:
        Xs = slot_codes(X, net["n_categories"])
        out = np.empty((Xs.shape[0], log_prior.size))
        has_missing = (Xs < 0).any(axis=1)
        done = np.flatnonzero(~has_missing)
        for rows in row_chunks(done.size, 8 * log_prior.size * max(Xs.shape[1], 1)):
            out[done[rows]] = log_prior + _gather(Xs[done[rows]], net).sum(axis=1)
        rest = np.flatnonzero(has_missing)
        Xs = Xs[rest]
    if rest.size:
        patterns, group = np.unique(Xs < 0, axis=0, return_inverse=True)
        order = np.argsort(group, kind="stable")
        bounds = np.searchsorted(group[order], np.arange(len(patterns) + 1))
        # Bounded by the distinct patterns of missing cells, each vectorised over its rows.
        for p, pattern in enumerate(patterns):
            mine = order[bounds[p] : bounds[p + 1]]
            out[rest[mine]] = _eliminate(Xs[mine], np.flatnonzero(pattern), net, log_prior)
    return out


def feature_terms(X: np.ndarray, net: dict, log_likelihood: np.ndarray) -> np.ndarray:
    """Per-feature terms log P(x_j | y, x_pa(j)), shape (n_samples, n_classes, n_features),
    adding up to ``log_likelihood`` (log P(x | y), from :func:`log_joint`): the tables that
    involve a missing cell are summed out together, and what they give is shared equally
    among the row's missing features."""
    Xs = slot_codes(X, net["n_categories"])
    missing = Xs < 0
    touched = np.zeros(Xs.shape, dtype=bool)
    for j, scope in enumerate(net["scope"]):  # bounded by the features
        touched[:, j] = missing[:, list(scope)].any(axis=1)
    terms = np.where(touched[:, :, None], 0.0, _gather(np.maximum(Xs, 0), net))
    terms = terms.transpose(0, 2, 1)  # (rows, C, d)
    rest = log_likelihood - terms.sum(axis=2)
    n_missing = missing.sum(axis=1)
    share = np.where(n_missing[:, None] > 0, rest / np.maximum(n_missing, 1)[:, None], 0.0)
    return terms + np.where(missing[:, None, :], share[:, :, None], 0.0)


def _gather(Xs: np.ndarray, net: dict, features=None) -> np.ndarray:
    """Each row's log table value of every feature (or of ``features``), (rows, f, C)."""
    cols, strides, offsets = net["cols"], net["strides"], net["offsets"]
    if features is not None:
        cols, strides, offsets = cols[features], strides[features], offsets[features]
    idx = np.broadcast_to(offsets, (Xs.shape[0], offsets.size)).copy()
    for t in range(cols.shape[1]):  # bounded by the scope width (k + 1)
        idx += Xs[:, cols[:, t]] * strides[:, t]
    return net["flat"][idx]


def _eliminate(Xs: np.ndarray, hidden: np.ndarray, net: dict, log_prior: np.ndarray):
    """log P(y, x_observed) for rows sharing the missing features ``hidden``: the tables
    that touch them are summed over their values by variable elimination (one einsum)."""
    n_cat = net["n_categories"]
    # einsum labels axes with 52 letters: rows, classes and one per missing feature.
    if hidden.size > 50:
        raise DataError(
            f"A row has {hidden.size} missing features; exact marginalisation sums over at "
            "most 50 at once. Drop mostly-empty columns or rows before predicting."
        )
    letter = {int(f): i for i, f in enumerate(hidden)}
    touched = [j for j, s in enumerate(net["scope"]) if any(f in letter for f in s)]
    plain = np.setdiff1d(np.arange(len(net["scope"])), touched)
    base = log_prior + (_gather(Xs, net, plain).sum(axis=1) if plain.size else 0.0)
    base = np.broadcast_to(base, (Xs.shape[0], log_prior.size)).copy()
    operands = []
    for j in touched:  # bounded by the features
        scope = net["scope"][j]
        hid = [f for f in scope if f in letter]
        index = []
        for f in scope:  # bounded by the scope width
            if f in letter:
                shape = [1] * (1 + len(hid))
                shape[1 + hid.index(f)] = int(n_cat[f])  # real categories, no unseen slot
                index.append(np.arange(n_cat[f]).reshape(shape))
            else:
                index.append(Xs[:, f].reshape([-1] + [1] * len(hid)))
        values = np.moveaxis(net["log_cpt"][j], 0, -1)[tuple(index)]  # (rows, hid..., C)
        values = np.moveaxis(values, -1, 1)  # (rows, C, hid...); rows is 1 if all hidden
        values = np.broadcast_to(values, (Xs.shape[0], *values.shape[1:]))
        axes = tuple(range(2, values.ndim))
        shift = values.max(axis=axes)
        shift = np.where(np.isfinite(shift), shift, 0.0)
        base += shift
        operands += [
            np.exp(values - shift.reshape(shift.shape + (1,) * len(axes))),
            [0, 1] + [2 + letter[f] for f in hid],
        ]
    if not operands:
        return base
    summed = np.einsum(*operands, [0, 1], optimize=True)
    with np.errstate(divide="ignore"):
        return base + np.log(summed)


__all__ = ["finalize", "kdb_parents", "log_joint", "structure", "tan_parents"]
