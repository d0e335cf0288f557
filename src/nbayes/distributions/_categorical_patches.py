"""Patches of :meth:`Categorical.finalize_onto
<nbayes.distributions.Categorical.finalize_onto>`: the numerators of the cells a batch counts,
laid over those of the last full finalize, so that one more batch costs its own cells only."""

from __future__ import annotations

import numpy as np

from ._base import Params, Stats
from ._categorical_layout import offsets_of

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
