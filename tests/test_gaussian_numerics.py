"""Gaussian numerics at large offsets: no catastrophic cancellation in fit or scoring."""

import numpy as np
import pytest
from scipy import stats

import nbayes


@pytest.mark.parametrize("offset", [1e6, -3e7])
def test_large_offset_matches_direct_per_class_computation(offset):
    rng = np.random.default_rng(0)
    n, d, k = 3000, 6, 3
    y = rng.integers(0, k, size=n)
    X = offset + rng.normal(size=(n, d)) + 0.5 * y[:, None]
    model = nbayes.GaussianNB().fit(X, y)

    # Fit: two-pass per-class moments computed directly.
    for c in range(k):
        rows = X[y == c]
        np.testing.assert_allclose(model.theta_[c], rows.mean(axis=0), rtol=1e-14)
        np.testing.assert_allclose(model.var_[c] - model.epsilon_, rows.var(axis=0), rtol=1e-9)

    # Scoring: the per-class density straight from scipy, without any expansion.
    Xt = offset + rng.normal(size=(500, d)) + 0.7
    direct = np.stack(
        [
            stats.norm.logpdf(Xt, model.theta_[c], np.sqrt(model.var_[c])).sum(axis=1)
            + np.log(model.class_prior_[c])
            for c in range(k)
        ],
        axis=1,
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(Xt), direct, rtol=1e-6)
    posterior = direct - np.logaddexp.reduce(direct, axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_log_proba(Xt), posterior, rtol=1e-6, atol=1e-9)


def test_partial_fit_with_large_offset_equals_fit():
    rng = np.random.default_rng(1)
    X = 1e6 + rng.normal(size=(2000, 4))
    y = rng.integers(0, 2, size=2000)
    full = nbayes.GaussianNB().fit(X, y)
    inc = nbayes.GaussianNB()
    for part in np.array_split(np.arange(2000), 7):
        inc.partial_fit(X[part], y[part], classes=[0, 1])
    np.testing.assert_allclose(inc.var_, full.var_, rtol=1e-9)
    np.testing.assert_allclose(
        inc.predict_log_proba(X), full.predict_log_proba(X), rtol=1e-9, atol=1e-12
    )


def test_far_apart_classes_keep_precision():
    rng = np.random.default_rng(2)
    X = np.concatenate([rng.normal(size=(500, 2)) - 1e5, rng.normal(size=(500, 2)) + 1e5])
    y = np.repeat([0, 1], 500)
    model = nbayes.GaussianNB().fit(X, y)
    np.testing.assert_allclose(model.var_[0] - model.epsilon_, X[:500].var(axis=0), rtol=1e-9)
    direct = stats.norm.logpdf(X[:5], model.theta_[0], np.sqrt(model.var_[0])).sum(axis=1)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X[:5])[:, 0], direct + np.log(0.5), rtol=1e-6
    )


def assert_moments_equal_two_pass(X, y, w, mean_rtol, mean_atol, m2_atol):
    """GaussianNB's weighted class moments against a direct weighted two-pass computation."""
    moments = nbayes.GaussianNB().fit(X, y, sample_weight=w).stats_["groups"][0]
    for c in np.unique(y):
        rows, wc = X[y == c], w[y == c]
        mean = np.average(rows, axis=0, weights=wc)
        m2 = ((rows - mean) ** 2 * wc[:, None]).sum(axis=0)
        np.testing.assert_allclose(moments["mean"][c], mean, rtol=mean_rtol, atol=mean_atol)
        np.testing.assert_allclose(moments["m2"][c], m2, rtol=1e-10, atol=m2_atol)


def test_one_pass_moments_fall_back_per_column_where_they_would_cancel():
    # Columns 0-1: classes far apart relative to their spread (one-pass sums would cancel);
    # column 2: constant within each class; columns 3-4: ordinary. Weighted rows throughout.
    rng = np.random.default_rng(3)
    n = 4000
    y = rng.integers(0, 3, size=n)
    w = rng.uniform(0.1, 3.0, size=n)
    X = np.column_stack(
        [
            rng.normal(size=(n, 2)) * 1e-3 + 1e4 * y[:, None],
            7.0 * y,
            rng.normal(size=(n, 2)) + 1e6,
        ]
    )
    # Means are exact up to rounding of the data's scale (values up to 2e4 here).
    assert_moments_equal_two_pass(X, y, w, mean_rtol=1e-14, mean_atol=1e-10, m2_atol=1e-20)


@pytest.mark.parametrize("offset", [0.0, 50.0, 1e6])
def test_one_pass_sums_stay_exact_when_later_rows_move_away(offset):
    # The one-pass sums are shifted by the batch's first row. A class that only appears later
    # may lie far from it: the sums reveal the cancellation and those columns are summed
    # again exactly, so the moments match a weighted two-pass whatever the offset.
    rng = np.random.default_rng(4)
    n = 3000
    y = rng.integers(0, 3, size=n)
    y[:500] = rng.integers(0, 2, size=500)  # class 2 only further on
    w = rng.uniform(0.5, 2.0, size=n)
    X = rng.normal(size=(n, 4))
    X[y == 2, 1] += offset  # far from zero, ordinary spread
    X[y == 2, 3] = offset  # far from zero, no spread at all
    # Column 3 of class 2 has no spread: its M2 is rounding either way.
    assert_moments_equal_two_pass(X, y, w, mean_rtol=1e-12, mean_atol=1e-12, m2_atol=1e-9)
