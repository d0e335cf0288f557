"""The grid families (kde, binned, density): the grid against an exact binning, order
independence, the kernel reading against scipy's gaussian_kde, the MDL cut points against a
brute-force Fayyad-Irani on the raw values, tails, errors, and what unlearning keeps.

The conformance suite (tests/conformance.py) runs on all three through the registry.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import nbayes
from nbayes._discretise import mdl_cuts
from nbayes.distributions import Binned, Density, Kernel, Labels
from nbayes.distributions.density import READINGS, grid_of
from nbayes.exceptions import DataError, ParameterError


def labels_of(codes, weights=None, k=None):
    codes = np.asarray(codes)
    weights = np.ones(len(codes)) if weights is None else np.asarray(weights, float)
    return Labels(codes, weights, int(codes.max()) + 1 if k is None else k)


def two_classes(rng, n0=30, n1=40):
    x0 = rng.normal(0, 1, n0)
    x1 = rng.lognormal(0, 0.7, n1) + 1
    X = np.concatenate([x0, x1])[:, None]
    return X, np.r_[np.zeros(n0, int), np.ones(n1, int)], (x0, x1)


# -- the grid ---------------------------------------------------------------------------------
@pytest.mark.parametrize("bins", [2, 7, 64, 256])
def test_grid_is_the_smallest_power_of_two_that_holds_the_range(bins):
    rng = np.random.default_rng(bins)
    lo = rng.normal(size=200) * 10.0 ** rng.integers(-5, 6, 200)
    hi = lo + np.abs(rng.normal(size=200)) * 10.0 ** rng.integers(-8, 6, 200)
    level, start = grid_of(lo, hi, bins)
    width = np.ldexp(1.0, level.astype(np.int32))
    assert np.all(start * width <= lo) and np.all(hi < (start + bins) * width)
    np.testing.assert_array_equal(start, np.floor(lo / width))
    # One level finer does not fit (unless the magnitude bound holds the level up).
    finer = np.floor(hi / (width / 2)) - np.floor(lo / (width / 2)) > bins - 1
    _, exponent = np.frexp(np.maximum(np.abs(lo), np.abs(hi)))
    assert np.all(finer | (level == exponent - 30))


def test_counts_are_the_exact_histogram_on_the_grid():
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=500), rng.exponential(100.0, 500), np.full(500, 3.25)]
    codes = rng.integers(0, 3, 500)
    w = rng.uniform(0.5, 2.0, 500)
    fam = Density(bins=32)
    st = fam.accumulate(X, labels_of(codes, w))
    level, start = grid_of(X.min(axis=0), X.max(axis=0), 32)
    counts = st["n_grid"].reshape(3, 3, 32)
    for j in range(3):  # bounded: three features, three classes
        edges = (start[j] + np.arange(33)) * np.ldexp(1.0, int(level[j]))
        for k in range(3):
            want, _ = np.histogram(X[codes == k, j], bins=edges, weights=w[codes == k])
            np.testing.assert_allclose(counts[k, j], want, rtol=1e-12)
    np.testing.assert_array_equal(st["lo"], X.min(axis=0))
    np.testing.assert_array_equal(st["hi"], X.max(axis=0))


def test_any_order_and_chunking_gives_the_same_counts_bit_for_bit():
    # Integer weights make the sums exact, so the grids must agree exactly, not just closely:
    # shards with small ranges (fine grids) arriving in any order coarsen to the same bins.
    rng = np.random.default_rng(1)
    X = np.sort(rng.standard_cauchy(size=(300, 2)), axis=0)  # sorted: each shard its own range
    codes = rng.integers(0, 2, 300)
    fam = Density(bins=16)
    whole = fam.accumulate(X, labels_of(codes))
    cuts = [0, 3, 50, 51, 200, 300]
    shards = [
        fam.accumulate(X[a:b], labels_of(codes[a:b], k=2)) for a, b in itertools.pairwise(cuts)
    ]
    for order in ([0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]):
        acc = fam.zeros(2, 2)
        for i in order:
            acc = fam.merge(acc, shards[i])
        np.testing.assert_array_equal(acc["n_grid"], whole["n_grid"])
        np.testing.assert_array_equal(acc["lo"], whole["lo"])
        np.testing.assert_array_equal(acc["hi"], whole["hi"])


def test_memory_is_bins_per_class_and_feature_whatever_the_rows():
    rng = np.random.default_rng(2)
    fam = Kernel(bins=40)
    small = fam.accumulate(rng.normal(size=(10, 3)), labels_of(rng.integers(0, 2, 10), k=2))
    big = fam.accumulate(rng.normal(size=(20_000, 3)) * 1e6, labels_of(rng.integers(0, 2, 20_000)))
    assert small["n_grid"].shape == big["n_grid"].shape == (2, 3 * 40)


def test_zero_weight_rows_do_not_widen_the_range():
    X = np.array([[0.0], [1.0], [1000.0]])
    st = Density(bins=8).accumulate(X, labels_of([0, 1, 1], [1.0, 1.0, 0.0]))
    assert st["hi"].tolist() == [1.0]


def test_unlearning_the_extremes_keeps_the_grid_of_all_rows():
    # The documented limit: unlearning cannot refine the bins; the counts are those of the
    # remaining rows on the grid of all rows (and learning the rows back restores the fit).
    rng = np.random.default_rng(3)
    X = np.r_[rng.normal(size=(60, 1)), [[40.0]]]
    y = np.r_[rng.integers(0, 2, 60), 1]
    model = nbayes.MixedNB(columns=[("kde", [0])]).fit(X, y)
    model.unlearn(X[-1:], y[-1:])
    kept = nbayes.MixedNB(columns=[("kde", [0])]).fit(X[:-1], y[:-1])
    fam = model.families_[0]
    got, fresh = model.stats_["groups"][0], kept.stats_["groups"][0]
    assert got["hi"][0] == 40.0 and fresh["hi"][0] < 40.0
    moved = fam._on_grid(fresh, grid_of(got["lo"], got["hi"], fam.bins))
    np.testing.assert_allclose(moved.reshape(2, -1), got["n_grid"], atol=1e-12)
    model.partial_fit(X[-1:], y[-1:])
    np.testing.assert_allclose(
        model.predict_proba(X), nbayes.MixedNB(columns=[("kde", [0])]).fit(X, y).predict_proba(X)
    )


def test_unlearning_values_outside_the_learned_range_is_refused():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    model = nbayes.MixedNB(columns=[("binned", [0])]).fit(X, [0, 0, 1, 1])
    with pytest.raises(
        DataError,
        match=r"values of column 0 \(index 0\) from 7 to 7, outside the range .* \(0 to 3\)",
    ):
        model.unlearn(np.array([[7.0]]), [1])


# -- the kernel reading ---------------------------------------------------------------------------
@pytest.mark.parametrize("bandwidth", ["silverman", "scott", 0.3])
def test_bandwidths_are_scipys_rules(bandwidth):
    X, codes, parts = two_classes(np.random.default_rng(0))
    fam = Kernel(bandwidth=bandwidth)
    p = fam.finalize(fam.accumulate(X, labels_of(codes)))
    want = [stats.gaussian_kde(x, bw_method=bandwidth).factor * x.std(ddof=1) for x in parts]
    np.testing.assert_allclose(p["bandwidth"][:, 0], want, rtol=1e-12)


@pytest.mark.parametrize("bins, tol", [(64, 0.06), (256, 0.015), (1024, 0.004)])
def test_kernel_density_is_scipys_gaussian_kde_within_the_binning_error(bins, tol):
    # The documented error: about w / 2h in log-density within the data (w the bin width, h
    # the bandwidth), shrinking as bins grow. Measured: 0.058, 0.011, 0.0026.
    X, codes, parts = two_classes(np.random.default_rng(0))
    fam = Kernel(bins=bins)
    p = fam.finalize(fam.accumulate(X, labels_of(codes)))
    w = np.ldexp(1.0, int(p["level"][0]))
    for k, x in enumerate(parts):
        inside = np.linspace(x.min(), x.max(), 300)
        got = fam.log_likelihood_terms(p, inside[:, None])[:, k, 0]
        want = stats.gaussian_kde(x, bw_method="silverman").logpdf(inside)
        assert np.abs(got - want).max() <= tol
        assert tol <= w / p["bandwidth"][k, 0]


def test_kernel_tails_decay_like_a_gaussian_of_the_bandwidth():
    X, codes, parts = two_classes(np.random.default_rng(0))
    fam = Kernel()
    p = fam.finalize(fam.accumulate(X, labels_of(codes)))
    far = np.array([[X.max() + 50.0], [X.max() + 60.0], [1e300], [-1e300]])
    t = fam.log_likelihood_terms(p, far)
    assert np.isfinite(t).all()
    want = stats.gaussian_kde(parts[0], bw_method="silverman").logpdf(far[:2, 0])
    # 50 bandwidths beyond the data the exact density is 1e-700: compare the decay.
    h = p["bandwidth"][0, 0]
    step = t[1, 0, 0] - t[0, 0, 0]
    exact_step = -((far[1, 0] - parts[0].max()) ** 2 - (far[0, 0] - parts[0].max()) ** 2) / (
        2 * h**2
    )
    assert step == pytest.approx(exact_step, rel=0.02)
    assert np.all(want == -np.inf) or np.all(np.isfinite(want))


def test_an_underflowing_gap_between_modes_stays_finite_and_ordered():
    X = np.r_[np.zeros(20), np.full(20, 1000.0) + np.arange(20) * 0.01][:, None]
    fam = Kernel(bins=1024)
    p = fam.finalize(fam.accumulate(X, labels_of(np.zeros(40, int))))
    gap = np.linspace(1, 999, 50)[:, None]
    t = fam.log_likelihood_terms(p, gap)[:, 0, 0]
    assert np.isfinite(t).all()
    assert t[:25].tolist() == sorted(t[:25], reverse=True)  # falls away from the first mode


# -- the binned reading ---------------------------------------------------------------------------
def brute_force_mdl(x, y):
    """Fayyad-Irani on raw values: cut points (midpoints) by recursion over all boundaries."""

    def entropy(labels):
        if len(labels) == 0:
            return 0.0
        _, c = np.unique(labels, return_counts=True)
        p = c / c.sum()
        return float(-(p * np.log2(p)).sum())

    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    cuts = []

    def split(lo, hi):
        xs, ys = x[lo:hi], y[lo:hi]
        n = hi - lo
        best = None
        for i in range(1, n):  # bounded: a reference on small data
            if xs[i] == xs[i - 1]:
                continue
            e = (i * entropy(ys[:i]) + (n - i) * entropy(ys[i:])) / n
            if best is None or e < best[0] - 1e-12:
                best = (e, i)
        if best is None:
            return
        e, i = best
        h = entropy(ys)
        k, k1, k2 = (len(np.unique(v)) for v in (ys, ys[:i], ys[i:]))
        delta = np.log2(3.0**k - 2) - (k * h - k1 * entropy(ys[:i]) - k2 * entropy(ys[i:]))
        if h - e > (np.log2(n - 1) + delta) / n:
            cuts.append((xs[i - 1] + xs[i]) / 2)
            split(lo, lo + i)
            split(lo + i, hi)

    split(0, len(x))
    return sorted(cuts)


@pytest.mark.parametrize("seed", range(4))
def test_mdl_cuts_equal_fayyad_irani_on_the_raw_values(seed):
    # Integer values spanning fewer than ``bins`` units: one value per bin, so the grid loses
    # nothing and the cuts must be those of the textbook algorithm on the raw values.
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.integers(0, 3, n)
    x = np.round(rng.normal(y * 6.0, 4.0)).astype(float)
    fam = Binned(bins=256)
    p = fam.finalize(fam.accumulate(x[:, None], labels_of(y)))
    want = brute_force_mdl(x, y)
    # Interval boundaries on the grid, in value units (bin edges between occupied bins).
    w = np.ldexp(1.0, int(p["level"][0]))
    ids = p["interval"][0]
    edges = (p["start"][0] + np.flatnonzero(np.diff(ids)) + 1) * w
    assert p["n_intervals"][0] == len(want) + 1 >= 2
    # Both put each cut between the same two neighbouring values.
    values = np.unique(x)
    np.testing.assert_array_equal(
        np.searchsorted(values, edges), np.searchsorted(values, np.asarray(want))
    )


def test_binned_probabilities_are_the_smoothed_interval_frequencies():
    X = np.array([[0.0], [1.0], [2.0], [5.0], [6.0], [7.0], [6.0]])
    y = np.array([0, 0, 0, 1, 1, 1, 0])
    fam = Binned(bins=8, alpha=0.5, discretize="equal_frequency", n_intervals=2)
    p = fam.finalize(fam.accumulate(X, labels_of(y)))
    # Half the weight (3.5 rows) is reached at 5: the cut lies between 5 and 6, on the bin
    # edge halfway (6), so the intervals are 6 and 2 bins of width 1 wide.
    assert p["n_intervals"].tolist() == [2]
    probs = np.exp(p["interval_log_prob"][:, 0, :2])
    np.testing.assert_allclose(probs, [[3.5 / 5, 1.5 / 5], [1.5 / 4, 2.5 / 4]])
    t = fam.log_likelihood_terms(p, np.array([[-100.0], [1.5], [6.5], [100.0]]))[:, :, 0]
    first, second = probs[:, 0] / 6, probs[:, 1] / 2
    np.testing.assert_allclose(np.exp(t), [first, first, second, second])


def test_equal_frequency_intervals_hold_equal_shares():
    x = np.arange(100.0)[:, None]
    fam = Binned(discretize="equal_frequency", n_intervals=4, bins=128)
    p = fam.finalize(fam.accumulate(x, labels_of(np.zeros(100, int))))
    ids = p["interval"][0][:100]
    assert np.bincount(ids).tolist() == [25, 25, 25, 25]


def test_a_feature_that_does_not_tell_the_classes_apart_gets_no_cut():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(400, 1))
    y = rng.integers(0, 2, 400)
    fam = Binned()
    p = fam.finalize(fam.accumulate(x, labels_of(y)))
    assert p["n_intervals"].tolist() == [1]


# -- auto -----------------------------------------------------------------------------------------
def test_auto_picks_a_reading_per_column_and_summary_reports_it():
    rng = np.random.default_rng(6)
    n = 2000
    y = rng.integers(0, 2, n)
    df = pd.DataFrame(
        {
            "normal": rng.normal(y * 1.0, 1.0),
            "bimodal": rng.normal(0, 0.3, n) + np.where(y == 1, 3 * rng.integers(0, 2, n), 1.5),
            "steps": np.where(y == 1, rng.uniform(0, 3, n), rng.uniform(2, 5, n)) * 10.0,
        }
    )
    model = nbayes.MixedNB(columns=[("density", list(df.columns))]).fit(df, y)
    readings = model.summary()["family"].to_dict()
    assert readings == {
        "normal": "density (gaussian)",
        "bimodal": "density (kde)",
        "steps": "density (binned)",
    }
    assert model.families_[0].column_readings(model.params_[0]) == [
        "gaussian",
        "kde",
        "binned",
    ]
    assert set(READINGS) == {"gaussian", "kde", "binned"}


# -- MixedNB, missing values, errors ------------------------------------------------------------
def test_missing_cells_are_marginalised_in_every_reading():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    Xm = X.copy()
    Xm[::7, 1] = np.nan
    for name in ("kde", "binned", "density"):
        model = nbayes.MixedNB(columns=[(name, [0, 1])]).fit(Xm, y)
        complete = nbayes.MixedNB(columns=[(name, [0, 1])]).fit(
            np.delete(X, np.s_[::7], axis=0), np.delete(y, np.s_[::7])
        )
        terms = model.explain(Xm[:10]).terms
        assert terms[0, :, 1].tolist() == [0.0, 0.0]  # row 0 is missing column 1
        assert model.summary().loc[1, "missing"] == pytest.approx(29 / 200)
        assert complete.n_features_in_ == 2


def test_bad_parameters_are_named():
    with pytest.raises(ParameterError, match=r"'bins' must be an integer >= 2; got 1"):
        Kernel(bins=1)
    with pytest.raises(ParameterError, match=r"'bandwidth' must be one of .* got 'wide'"):
        Kernel(bandwidth="wide")
    with pytest.raises(ParameterError, match=r"'bandwidth' must be .* positive number; got -1"):
        Kernel(bandwidth=-1)
    with pytest.raises(ParameterError, match=r"'discretize' must be one of"):
        Binned(discretize="chi2")
    with pytest.raises(ParameterError, match=r"'reading' must be one of"):
        Density(reading="histogram")
    with pytest.raises(ParameterError, match=r"'n_intervals' must be a positive integer"):
        Binned(n_intervals=0)


def test_sparse_and_infinite_input_are_refused_with_the_column():
    import scipy.sparse as sp

    with pytest.raises(DataError, match="needs dense input"):
        Kernel().prepare(sp.csr_matrix(np.ones((2, 2))))
    with pytest.raises(
        DataError, match=r"Column index 1 must hold finite values .* got inf at row 1"
    ):
        Kernel().prepare(np.array([[1.0, 2.0], [1.0, np.inf]]))


def test_mdl_ties_go_to_the_first_candidate():
    counts = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    assert mdl_cuts(counts) == []  # four rows never pay for a cut
    assert mdl_cuts(np.repeat(counts, 1, axis=1) * 50) == [1, 2, 3]


@pytest.mark.parametrize("density", ["kde", "binned", "auto"])
def test_compiled_loops_equal_the_numpy_code(density):
    from nbayes._accel import kernels, numpy_only

    if kernels() is None:
        pytest.skip("compiled loops not built")
    rng = np.random.default_rng(8)
    X = np.c_[rng.lognormal(size=3000), rng.normal(size=3000), rng.exponential(size=3000)]
    X[::13, 1] = np.nan
    X[5, 0] = 1e6  # far beyond the lattice: the Gaussian tail
    y = rng.integers(0, 3, 3000)
    w = rng.integers(0, 3, 3000).astype(float)
    fast = nbayes.DensityNB(density=density, missing="ignore").fit(X, y, sample_weight=w)
    with numpy_only():
        slow = nbayes.DensityNB(density=density, missing="ignore").fit(X, y, sample_weight=w)
        want = slow.predict_joint_log_proba(X)
    np.testing.assert_array_equal(
        fast.stats_["groups"][0]["n_grid"], slow.stats_["groups"][0]["n_grid"]
    )
    np.testing.assert_allclose(fast.predict_joint_log_proba(X), want, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(
        fast.predict_joint_log_proba(X.astype(np.float32)),
        fast.predict_joint_log_proba(X.astype(np.float32).astype(np.float64)),
        rtol=1e-12,
    )


def test_top_features_rank_by_the_slope_at_the_mean():
    # The normal reading's slope at the overall mean is GaussianNB's, exactly (a central
    # difference of a quadratic); a kernel column that separates the classes ranks first.
    rng = np.random.default_rng(9)
    X = np.c_[rng.normal(size=500), rng.normal(size=500) * 3]
    y = (X[:, 0] + rng.normal(0, 0.3, 500) > 0).astype(int)
    normal = nbayes.DensityNB(density="gaussian").fit(X, y)
    gauss = nbayes.GaussianNB().fit(X, y)
    np.testing.assert_allclose(
        normal.families_[0].feature_weights(normal.params_[0]),
        gauss.families_[0].feature_weights(gauss.params_[0]),
        rtol=1e-6,
    )
    ranked = nbayes.MixedNB(columns=[("kde", [0, 1])]).fit(X, y).top_features(1)
    assert ranked["feature"].tolist() == ["x0", "x1"]
    assert ranked["weight"].iloc[0] > 1.0
