"""One discretisation for every model that bins numbers: DensityNB, MixedNB's binned columns
and the semi-naive models cut a feature at the same places, ties included."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes._discretise import equal_frequency_cuts, mdl_cuts, mdl_edges, mdl_value_edges
from nbayes.distributions import Binned, Labels

# Class weights per position (value 1..5) whose candidate cuts 1 and 4 are mirror images,
# so mathematically tied. Before the one module, the grid families cut at [1, 2] and the
# semi-naive models at [1, 4]: their rounding of the entropies differed, and ``np.argmin``
# took the later candidate.
MIRROR = np.array([[0, 8, 16], [16, 8, 0], [0, 8, 16], [16, 8, 0], [0, 8, 16]], dtype=float)


def rows_of(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A value column (1, 2, ...) and labels with ``counts[i, k]`` rows of value i + 1, class k."""
    i, k = np.nonzero(counts)
    reps = counts[i, k].astype(int)
    return np.repeat(i + 1.0, reps), np.repeat(k, reps)


def grid_edges(params: dict) -> list[float]:
    """Interval boundaries of a grid family's params, feature 0, in value units."""
    w = np.ldexp(1.0, int(params["level"][0]))
    ids = params["interval"][0]
    return ((params["start"][0] + np.flatnonzero(np.diff(ids)) + 1) * w).tolist()


def test_tied_candidates_go_to_the_first_and_mirror_images_cut_alike():
    assert mdl_cuts(MIRROR.T) == [1, 2]
    # The mirror image of the positions cuts at the mirror image of the first candidates:
    # the rule is "first", not "whatever rounding favours".
    assert mdl_cuts(MIRROR[::-1].T) == [1, 2]


def test_a_gain_equal_to_the_threshold_makes_no_cut():
    # One class over two values: gain 0, threshold (log2(1) + log2(1) - 0) / 2 = 0.
    assert mdl_cuts(np.array([[1.0, 1.0]])) == []
    # Alternating classes: four rows never pay for the cuts, two hundred do.
    counts = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    assert mdl_cuts(counts) == []
    assert mdl_cuts(counts * 50) == [1, 2, 3]


def test_every_consumer_cuts_the_tied_column_at_the_same_places():
    x, y = rows_of(MIRROR)
    values = np.arange(1.0, 6.0)
    want = [1.0, 2.0]  # after value 1 and after value 2
    assert mdl_edges(x, y, 3).tolist() == want
    assert mdl_value_edges(values, MIRROR).tolist() == want
    # Interval of each value: the grid families put a value on a cut's boundary after it.
    bins = [0, 1, 2, 2, 2]

    def intervals(params):
        return np.searchsorted(grid_edges(params), values, side="right").tolist()

    fam = Binned(bins=16)
    p = fam.finalize(fam.accumulate(x[:, None], Labels(y, np.ones(y.size), 3)))
    assert intervals(p) == bins
    X = pd.DataFrame({"x": x})
    density = nbayes.DensityNB(density="binned", bins=16).fit(X, y)
    assert intervals(density.params_[0]) == bins
    mixed = nbayes.MixedNB(columns=[(Binned(bins=16), ["x"])]).fit(X, y)
    assert intervals(mixed.params_[0]) == bins
    # The semi-naive models: MDL on the distinct values, or the Binned family's grid.
    Xs = X.assign(z=np.where(y == 0, "a", "b"))
    assert nbayes.AODE(binning="mdl").fit(Xs, y).bin_edges_["x"].tolist() == want
    grid = nbayes.AODE(binning=Binned(bins=16)).fit(Xs, y).bin_edges_["x"]
    assert np.searchsorted(grid, values, side="left").tolist() == bins


@pytest.mark.parametrize("seed", range(3))
def test_mdl_on_values_equals_mdl_on_the_grid_for_patterned_counts(seed):
    # Repeated class patterns make many exact ties; integer values one per grid bin lose
    # nothing to the grid, so the two views of one column must give the same cuts.
    rng = np.random.default_rng(seed)
    for _ in range(30):  # bounded: a few random patterns per seed
        n_values, n_classes = int(rng.integers(3, 9)), int(rng.integers(2, 4))
        base = rng.integers(0, 3, (int(rng.integers(1, 4)), n_classes)).astype(float)
        counts = np.tile(base, (n_values, 1))[:n_values] * rng.integers(1, 30)
        counts = counts[counts.sum(axis=1) > 0]
        if len(counts) < 2:
            continue
        x, y = rows_of(counts)
        edges = mdl_edges(x, y, n_classes)
        fam = Binned(bins=16)
        p = fam.finalize(fam.accumulate(x[:, None], Labels(y, np.ones(y.size), n_classes)))
        values = np.arange(1.0, len(counts) + 1)
        on_grid = np.asarray(grid_edges(p))
        np.testing.assert_array_equal(
            np.searchsorted(edges, values, side="left"),
            np.searchsorted(on_grid, values, side="right"),
        )


def test_equal_frequency_cuts_after_the_position_that_reaches_each_share():
    assert equal_frequency_cuts(np.array([1.0, 1.0, 1.0, 1.0]), 2) == [2]
    # A position holding more than a share takes the cuts that fall in it, once.
    assert equal_frequency_cuts(np.array([6.0, 1.0, 1.0, 1.0, 1.0]), 3) == [1, 2]
    assert equal_frequency_cuts(np.array([5.0]), 4) == []
