"""The tables of the compiled scoring loop of the categorical family: log theta by category
with the class axis last, and pair tables that score two small features in one lookup."""

from __future__ import annotations

import numpy as np

from ._base import Params
from ._categorical_layout import offsets_of

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
