"""The statistics algebra every family must obey (property-based).

fit == partial_fit over any chunking == a merge tree of shard statistics; integer sample
weights == duplicated rows; zero weight == dropped row.

The property tests draw the shape of the data (rows, features, classes, density) as well as
its seed, so a failure shrinks to a small case.
"""

import itertools
import os
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from _cases import CASES, make_case
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from nbayes import _engine as engine
from nbayes.distributions import Labels

SETTINGS = settings(max_examples=15, deadline=None)
NAMES = sorted(CASES)
SPARSE_NAMES = [n for n in NAMES if CASES[n][2]]
#: (name, sparse) pairs that apply: dense for every case, sparse where the family takes it.
#: Inapplicable pairs are not generated, so no parametrised case passes without testing.
NAME_SPARSE = [(n, False) for n in NAMES] + [(n, True) for n in SPARSE_NAMES]


def assert_same_model(a, b, X):
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=1e-12)
    for pa, pb in zip(a.params_, b.params_):
        for key in pa:
            np.testing.assert_allclose(pa[key], pb[key], rtol=1e-9, atol=1e-12, err_msg=key)
    ja, jb = a.predict_joint_log_proba(X), b.predict_joint_log_proba(X)
    # Scores of a class with (near) zero variance reach 1e9; judge rounding against that scale.
    scale = np.abs(jb[np.isfinite(jb)]).max(initial=1.0)
    np.testing.assert_allclose(ja, jb, rtol=1e-9, atol=1e-14 * scale)


@st.composite
def cases(draw, name, sparse=False):
    """(estimator, X, y) of the named case with a drawn shape; shrinks towards 2 classes,
    2 rows, 1 feature, dense data."""
    k = draw(st.integers(2, 4))
    n = draw(st.integers(k, 60))
    d = draw(st.integers(1, 6))
    density = draw(st.sampled_from([1.0, 0.5, 0.1])) if CASES[name][2] else 1.0
    seed = draw(st.integers(0, 2**32 - 1))
    return make_case(name, n=n, d=d, k=k, seed=seed, sparse=sparse, density=density)


def cut_points(draw_fractions, n):
    return sorted({int(f * n) for f in draw_fractions} | {0, n})


@pytest.mark.parametrize(("name", "sparse"), NAME_SPARSE)
@SETTINGS
@given(fractions=st.lists(st.floats(0, 1), min_size=1, max_size=6), data=st.data())
def test_partial_fit_over_any_chunking_equals_fit(name, sparse, fractions, data):
    model, X, y = data.draw(cases(name, sparse))
    full = clone(model).fit(X, y)
    bounds = cut_points(fractions, X.shape[0])
    for lo, hi in itertools.pairwise(bounds):
        if hi > lo:
            model.partial_fit(X[lo:hi], y[lo:hi], classes=np.unique(y))
    assert_same_model(model, full, X)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(
    fractions=st.lists(st.floats(0, 1), min_size=1, max_size=7),
    order=st.randoms(use_true_random=False),
    data=st.data(),
)
def test_merge_tree_of_shards_equals_fit(name, fractions, order, data):
    model, X, y = data.draw(cases(name))
    full = clone(model).fit(X, y)
    families, n_classes = full.families_, len(full.classes_)
    codes = np.searchsorted(full.classes_, y)
    bounds = cut_points(fractions, X.shape[0])
    shards = [
        engine.accumulate(families, [X[lo:hi]], Labels(codes[lo:hi], np.ones(hi - lo), n_classes))
        for lo, hi in itertools.pairwise(bounds)
    ]
    shards.append(engine.zeros(families, n_classes, [X.shape[1]]))  # the identity
    order.shuffle(shards)
    while len(shards) > 1:  # a random binary tree of merges
        i = order.randrange(len(shards) - 1)
        shards[i : i + 2] = [engine.merge(families, shards[i], shards[i + 1])]
    merged = clone(full)
    merged.__dict__.update({k: v for k, v in full.__dict__.items() if k.endswith("_")})
    merged.stats_ = shards[0]
    merged._finalize()
    assert_same_model(merged, full, X)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_integer_weights_equal_duplicated_rows(name, data):
    model, X, y = data.draw(cases(name))
    n, k = len(y), len(np.unique(y))
    w = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    w[:k] = np.maximum(w[:k], 1)  # keep every class present (make_case puts them first)
    weighted = clone(model).fit(X, y, sample_weight=w)
    rows = np.repeat(np.arange(n), w)
    duplicated = clone(model).fit(X[rows], y[rows])
    assert_same_model(weighted, duplicated, X[rows])


@pytest.mark.parametrize(("name", "sparse"), NAME_SPARSE)
def test_zero_weight_equals_dropped_row(name, sparse):
    model, X, y = make_case(name, seed=3, sparse=sparse)
    w = np.ones(X.shape[0])
    w[10:20] = 0
    keep = w > 0
    assert_same_model(
        clone(model).fit(X, y, sample_weight=w), clone(model).fit(X[keep], y[keep]), X[keep]
    )


@pytest.mark.parametrize("name", SPARSE_NAMES)
def test_sparse_equals_dense(name):
    model, X, y = make_case(name, seed=5)
    dense = clone(model).fit(X, y)
    sparse = clone(model).fit(sp.csr_matrix(X), y)
    assert_same_model(sparse, dense, X)
    np.testing.assert_allclose(
        sparse.predict_log_proba(sp.csr_matrix(X)),
        dense.predict_log_proba(X),
        rtol=1e-10,
        atol=1e-12,
    )


@pytest.mark.parametrize("name", NAMES)
def test_small_chunks_inside_the_engine_change_nothing(name):
    model, X, y = make_case(name, n=200, seed=9)
    full = clone(model).fit(X, y)
    codes = np.searchsorted(full.classes_, y)
    tiny = engine.accumulate(full.families_, [X], Labels(codes, np.ones(200), 3), budget=1)
    for a, b in zip(tiny["groups"], full.stats_["groups"]):
        for key in a:
            np.testing.assert_allclose(a[key], b[key], rtol=1e-10, atol=1e-12)
    jll = engine.joint_log_likelihood(
        full.families_, full.params_, full.class_log_prior_, [X], budget=1
    )
    np.testing.assert_allclose(jll, full.predict_joint_log_proba(X), rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_float32_input_gives_float64_results(name):
    model, X, y = make_case(name, seed=11)
    X32 = X.astype(np.float32)
    a, b = clone(model).fit(X32, y), clone(model).fit(X.astype(np.float64), y)
    assert a.predict_proba(X32).dtype == np.float64
    np.testing.assert_allclose(
        a.predict_log_proba(X32), b.predict_log_proba(X), rtol=1e-5, atol=1e-6
    )


def test_ci_runs_the_property_tests_reproducibly():
    # .ci/run exports CI=true, which loads conftest's derandomized "ci" profile.
    ci_script = Path(__file__).resolve().parents[1] / ".ci" / "run"
    assert re.search(r"^export CI=true\b", ci_script.read_text(), re.MULTILINE)
    assert settings.get_profile("ci").derandomize
    if os.environ.get("CI") == "true":
        assert settings.default.derandomize
