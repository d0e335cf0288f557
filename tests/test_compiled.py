"""The compiled loops (nbayes._kernels) give what the numpy code gives.

Every estimator path that has a compiled loop is run twice, once as installed and once under
``numpy_only()``, and the results compared: counts exactly, sums and probabilities to a few
units in the last place (the loops add in another order). CI sets NBAYES_REQUIRE_COMPILED=1,
so there the loops must have been built.
"""

import os
import platform
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes
from nbayes import CategoricalNB, DataError, GaussianNB
from nbayes._accel import _compiled, kernels, numpy_only
from nbayes.distributions import Categorical, Labels

needs_compiled = pytest.mark.skipif(
    _compiled is None or kernels() is None,
    reason="nbayes._kernels is not built (no C compiler at install) or NBAYES_COMPILED=0",
)


def test_compiled_kernels_built_where_required(monkeypatch):
    monkeypatch.delenv("NBAYES_COMPILED", raising=False)
    built = _compiled is not None
    if os.environ.get("NBAYES_REQUIRE_COMPILED") == "1":
        assert built, "nbayes._kernels was not built: pip install -e . needs a C compiler"
    if not built:
        pytest.skip("nbayes._kernels is not built (no C compiler at install)")
    assert nbayes.compiled_kernels()
    with numpy_only():
        assert not nbayes.compiled_kernels()


def test_environment_switches_them_off(monkeypatch):
    monkeypatch.setenv("NBAYES_COMPILED", "0")
    assert not nbayes.compiled_kernels()


@pytest.fixture(params=["as_built", "baseline"], autouse=True)
def simd_variant(request):
    """Every test runs with the loops the CPU picks and with the baseline x86-64 copy."""
    if _compiled is None:
        yield None
        return
    _compiled.simd_variant(force_baseline=request.param == "baseline")
    try:
        yield _compiled.simd_variant()
    finally:
        _compiled.simd_variant(force_baseline=False)


def both_ways(run):
    """``run()`` with the compiled loops (as installed) and with the numpy code."""
    compiled = run()
    with numpy_only():
        plain = run()
    return compiled, plain


def assert_same_model(a, b):
    for fam, pa, pb in zip(a.families_, a.params_, b.params_):
        pa, pb = fam.canonical_params(pa), fam.canonical_params(pb)
        for key in pa:
            np.testing.assert_allclose(pa[key], pb[key], rtol=1e-13, atol=0, err_msg=key)
    np.testing.assert_array_equal(a.class_count_, b.class_count_)


def codes_with_categories(rng, n, n_categories):
    return np.column_stack([rng.integers(0, k, n) for k in n_categories])


# Category counts that make pairs, odd features out, and features too large to pair.
CATEGORY_SETS = [[10] * 7, [2, 3, 40, 5, 1, 33, 7, 12], [50], [4, 4]]


@needs_compiled
@pytest.mark.parametrize("n_classes", [1, 2, 3, 5, 8, 9, 20])
@pytest.mark.parametrize("n_categories", CATEGORY_SETS)
def test_categorical_same_fit_and_posteriors(n_classes, n_categories):
    rng = np.random.default_rng(n_classes * 100 + len(n_categories))
    X = codes_with_categories(rng, 600, n_categories)
    y = rng.integers(0, n_classes, 600)
    y[:n_classes] = np.arange(n_classes)

    def run():
        model = CategoricalNB().fit(X, y)
        return (
            model,
            model.predict_proba(X),
            model.predict_log_proba(X),
            model.predict_joint_log_proba(X),
        )

    (fast, *compiled), (plain, *numpy) = both_ways(run)
    assert_same_model(fast, plain)
    for c, p in zip(compiled, numpy):
        np.testing.assert_allclose(c, p, rtol=1e-12, atol=1e-300)


@needs_compiled
@pytest.mark.parametrize("unseen", ["ignore", "smooth"])
def test_categorical_weights_missing_and_unseen(unseen):
    rng = np.random.default_rng(7)
    X = codes_with_categories(rng, 500, [3, 6, 2, 9, 4]).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, 4, 500)
    w = rng.choice([0.0, 0.5, 1.0, 3.0], 500)
    X_new = codes_with_categories(rng, 300, [5, 8, 2, 12, 4]).astype(float)
    X_new[rng.random(X_new.shape) < 0.1] = np.nan

    def run():
        model = CategoricalNB(missing="ignore", unseen=unseen).fit(X, y, sample_weight=w)
        return model, model.predict_proba(X_new), model.predict_log_proba(X_new)

    (fast, *compiled), (plain, *numpy) = both_ways(run)
    assert_same_model(fast, plain)
    for c, p in zip(compiled, numpy):
        np.testing.assert_allclose(c, p, rtol=1e-12)


@needs_compiled
def test_categorical_zero_probabilities_and_impossible_rows():
    # MLE tables hold -inf; a row that every class rules out becomes uniform, with a warning.
    X = np.array([[0, 0], [1, 1], [0, 1]])
    y = np.array([0, 1, 1])
    X_new = np.array([[0, 0], [1, 0], [1, 1]])

    def run():
        model = CategoricalNB(estimate="mle").fit(X, y)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            proba = model.predict_proba(X_new)
        return proba, model.predict_joint_log_proba(X_new), len(caught)

    compiled, plain = both_ways(run)
    np.testing.assert_array_equal(compiled[0], plain[0])
    np.testing.assert_array_equal(compiled[1], plain[1])
    assert compiled[2] == plain[2] == 1
    np.testing.assert_array_equal(compiled[0][1], [0.5, 0.5])


@needs_compiled
def test_categorical_errors_name_the_same_cell():
    X = np.array([[0, 1], [1, 0], [1, 1]])
    model = CategoricalNB().fit(X, [0, 1, 1])
    bad = np.array([[0, 1], [1, 1], [1, 4]])
    messages = []
    for context in (nbayes.threads(1), numpy_only()):
        with context, pytest.raises(DataError, match="row 2") as info:
            model.predict_proba(bad)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    with pytest.raises(DataError, match="negative"):
        model.predict_proba(np.array([[0, -1]]))


@needs_compiled
@pytest.mark.parametrize("shape", [(0, 3), (4, 0)])
def test_categorical_loop_on_empty_chunks(shape):
    # The engine never sends these, but the loop must not read past empty arrays.
    fam = Categorical()
    params = fam.ready(
        fam.finalize(
            fam.accumulate(
                np.zeros((2, shape[1]), dtype=np.int64), Labels(np.array([0, 1]), np.ones(2), 2)
            )
        )
    )
    jll = np.full((shape[0], 2), np.nan)
    base = np.array([-1.0, -2.0])
    _compiled.categorical_scores(np.zeros(shape, dtype=np.int64), params["compiled"], jll, base, 0)
    np.testing.assert_array_equal(jll, np.broadcast_to(base, (shape[0], 2)))


@needs_compiled
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_classes", [2, 7])
def test_gaussian_same_moments(dtype, n_classes):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 6)) * [1, 10, 0.1, 1, 5, 1] + [0, 100, -3, 1e4, 0, 7]
    X = X.astype(dtype)
    y = rng.integers(0, n_classes, 2000)
    w = rng.choice([0.0, 1.0, 2.5], 2000)

    def run():
        model = GaussianNB().fit(X, y, sample_weight=w)
        return model, model.predict_proba(X), model.predict_log_proba(X)

    (fast, *compiled), (plain, *numpy) = both_ways(run)
    for key in ("theta_", "var_"):
        np.testing.assert_allclose(getattr(fast, key), getattr(plain, key), rtol=1e-10)
    for c, p in zip(compiled, numpy):
        np.testing.assert_allclose(c, p, rtol=1e-9, atol=1e-300)


@needs_compiled
def test_gaussian_far_offsets_still_exact():
    # Class means ~1e9 spreads away from the first row: the one-pass sums lose digits, which
    # the exactness check catches and sums again around the class means.
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 500)
    X = rng.normal(size=(1000, 2)) + np.where(y[:, None] == 0, 0.0, 1e9)
    model = GaussianNB(var_smoothing=0.0).fit(X, y)
    for k in (0, 1):
        np.testing.assert_allclose(model.var_[k], X[y == k].var(axis=0), rtol=1e-9)


@needs_compiled
def test_normalisation_matches_numpy_over_the_whole_exponent_range():
    # Scores spread from 0 down past -745 (where exp underflows), subnormal results included.
    rng = np.random.default_rng(11)
    jll = -np.abs(rng.normal(scale=300, size=(5000, 13)))
    jll[:, 0] = 0.0
    jll[::7, 3] = -np.inf
    jll[5, 5] = -744.9  # a subnormal probability
    jll[9] = -np.inf  # every class rules the row out
    expect = np.exp(jll - 0.0)
    expect[9] = 1.0
    expect /= expect.sum(axis=1, keepdims=True)
    proba = jll.copy()
    assert _compiled.normalise_rows(proba, False) == 1
    np.testing.assert_allclose(proba, expect, rtol=1e-15, atol=1e-320)
    assert proba[5, 5] > 0
    log_proba = jll.copy()
    _compiled.normalise_rows(log_proba, True)
    shifted = np.where(np.isneginf(jll).all(axis=1, keepdims=True), 0.0, jll)
    expect_log = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))  # top is 0
    np.testing.assert_allclose(log_proba, expect_log, rtol=1e-15, atol=1e-13)


@needs_compiled
@pytest.mark.parametrize("missing, bad_code", [("error", -1), ("ignore", -2)])
def test_bad_codes_rejected_as_by_numpy(missing, bad_code):
    # prepare() leaves integer codes to the compiled loops, which must reject what it would:
    # the same error, naming the same row and column, at fit (even in a row of zero weight)
    # and at predict, with the columns' names.
    import pandas as pd

    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.integers(0, 3, size=(5000, 4)), columns=["a", "b", "c", "d"])
    y = rng.integers(0, 2, 5000)
    w = np.ones(5000)
    bad = X.copy()
    bad.iloc[4321, 2] = bad_code
    w[4321] = 0.0
    model = CategoricalNB(missing=missing).fit(X, y)
    messages = []
    for context in (nbayes.threads(2), numpy_only()):
        with context:
            for run in (
                lambda: CategoricalNB(missing=missing).fit(bad, y, sample_weight=w),
                lambda: model.predict_proba(bad),
            ):
                with pytest.raises(DataError) as info:
                    run()
                messages.append(str(info.value))
    assert messages[0] == messages[2] and messages[1] == messages[3]
    assert "row 4321" in messages[0] and "'c'" in messages[0]


@needs_compiled
@pytest.mark.parametrize("big_row", [0, 2500, 4999])
def test_counting_layouts_agree(big_row):
    # The counting loop first tries room for 16 codes per feature and recounts in the batch's
    # own layout when a code does not fit (wherever it sits); a code seen only in a row of
    # zero weight adds no category either way.
    rng = np.random.default_rng(big_row)
    X = rng.integers(0, 5, size=(5000, 3))
    y = rng.integers(0, 3, 5000)
    for weights in (np.ones(5000), np.where(np.arange(5000) == big_row, 0.0, 1.0)):
        X_big = X.copy()
        X_big[big_row, 1] = 40

        def run(X_big=X_big, weights=weights):
            return CategoricalNB().fit(X_big, y, sample_weight=weights)

        fast, plain = both_ways(run)
        assert_same_model(fast, plain)
        np.testing.assert_array_equal(fast.n_categories_, plain.n_categories_)


def _soft_labels(rng, n, n_classes, class_major):
    """EM's responsibilities: rows spread over the classes, some rows of weight zero; laid
    out class-major (as the E-step makes them) or row-major."""
    from nbayes.distributions import SoftLabels

    weights = rng.dirichlet(np.ones(n_classes), n) * rng.uniform(0.5, 2.0, (n, 1))
    weights[rng.random(n) < 0.1] = 0.0
    weights[rng.random((n, n_classes)) < 0.2] = 0.0
    return SoftLabels(np.ascontiguousarray(weights.T).T if class_major else weights)


def _stats_equal(a, b, rtol):
    assert sorted(a) == sorted(b)
    for key in a:
        np.testing.assert_allclose(a[key], b[key], rtol=rtol, atol=1e-12, err_msg=key)


@needs_compiled
@pytest.mark.parametrize("class_major", [True, False])
@pytest.mark.parametrize(
    "missing, n_classes",
    [
        ("error", 2),
        ("error", 3),
        ("error", 4),
        ("error", 5),  # 5 and 11 classes: no unrolled copy of the compiled loop
        ("error", 8),
        ("ignore", 1),
        ("ignore", 6),
        ("ignore", 11),
    ],
)
def test_categorical_soft_counts(class_major, missing, n_classes):
    rng = np.random.default_rng(7)
    X = codes_with_categories(rng, 3000, [2, 3, 40, 5, 1, 33])
    if missing == "ignore":
        X[rng.random(X.shape) < 0.1] = -1
    X[:, 2] = np.where(X[:, 2] == 39, 3, X[:, 2])  # a code never seen in a column
    labels = _soft_labels(rng, X.shape[0], n_classes, class_major)
    family = Categorical(missing=missing)
    compiled, plain = both_ways(lambda: family.accumulate(X, labels))
    _stats_equal(compiled, plain, rtol=1e-12)
    # Rows of zero weight add no categories: the last code is only in such a row.
    X[:, 4] = 0
    X[np.flatnonzero(labels.weights == 0)[0], 4] = 5
    compiled, plain = both_ways(lambda: family.accumulate(X, labels))
    assert compiled["n_categories"][4] == plain["n_categories"][4] == 1


@needs_compiled
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("class_major", [True, False])
@pytest.mark.parametrize("n_classes", [1, 4, 5])
def test_gaussian_soft_moments(dtype, class_major, n_classes):
    from nbayes.distributions import Gaussian

    rng = np.random.default_rng(8)
    X = (rng.normal(size=(4000, 6)) * [1, 10, 1e-3, 5, 1, 1] + [0, 1e4, 3, -7, 0, 1]).astype(dtype)
    labels = _soft_labels(rng, X.shape[0], n_classes, class_major)
    compiled, plain = both_ways(lambda: Gaussian().accumulate(X, labels))
    _stats_equal(compiled, plain, rtol=1e-9)


@needs_compiled
@pytest.mark.parametrize("n_classes, n_components", [(2, 1), (4, 1), (3, 2), (5, 1), (2, 5)])
def test_em_responsibilities_match_numpy(n_classes, n_components):
    """EM's E-step (posteriors within a labeled row's class, over every sub-class for an
    unlabeled row; weighted; log-sum-exp) from the compiled loop equals the numpy code,
    including rows of zero weight and rows that every allowed sub-class rules out."""
    from nbayes.estimators.semisupervised import responsibilities

    rng = np.random.default_rng(9)
    n, S = 1000, n_classes * n_components
    scores = rng.normal(-40.0, 15.0, (n, S))
    scores[rng.random((n, S)) < 0.05] = -np.inf  # sub-classes that rule a row out
    scores[5] = [-1000.0] * S  # far below zero: exp underflows unless shifted
    scores[6] = -np.inf  # every sub-class rules the row out
    codes = np.where(rng.random(n) < 0.3, rng.integers(0, n_classes, n), -1)
    codes[6] = -1
    codes[7] = 0
    scores[7, :n_components] = -np.inf  # a labeled row its own class rules out
    row_weight = rng.uniform(0.5, 2.0, n)
    row_weight[rng.random(n) < 0.1] = 0.0
    row_weight[6:8] = 1.0
    compiled, plain = both_ways(
        lambda: responsibilities(scores.copy(), codes, n_components, row_weight)
    )
    ok = np.isfinite(plain[1])
    assert not ok[6] and not ok[7]  # log-likelihood -inf: EM rejects these rows
    np.testing.assert_array_equal(compiled[1][~ok], plain[1][~ok])
    np.testing.assert_allclose(compiled[1][ok], plain[1][ok], rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(compiled[0][ok], plain[0][ok], rtol=1e-13, atol=1e-300)
    resp = compiled[0][ok]
    np.testing.assert_allclose(resp.sum(axis=1), row_weight[ok], rtol=1e-13)
    # A labeled row's weight stays within its class's components.
    labeled = np.flatnonzero(ok & (codes >= 0))
    own = np.zeros((n, S), dtype=bool)
    own[labeled[:, None], codes[labeled, None] * n_components + np.arange(n_components)] = True
    assert np.all(compiled[0][labeled][~own[labeled]] == 0.0)
    # NaN among the scores makes the log-likelihood NaN (never a silent number).
    scores[3, 0], codes[3], row_weight[3] = np.nan, -1, 1.0
    compiled, plain = both_ways(
        lambda: responsibilities(scores.copy(), codes, n_components, row_weight)
    )
    assert np.isnan(compiled[1][3]) and np.isnan(plain[1][3])


def test_em_responsibilities_same_on_any_number_of_threads():
    """The E-step runs in row chunks on the worker threads: each row's result is its own,
    so the chunking changes nothing."""
    from nbayes.estimators.semisupervised import responsibilities

    rng = np.random.default_rng(10)
    n = 30_000
    scores = rng.normal(-30.0, 10.0, (n, 3))
    codes = np.where(rng.random(n) < 0.1, rng.integers(0, 3, n), -1)
    weights = rng.uniform(0.0, 2.0, n)
    with nbayes.threads(1):
        one = responsibilities(scores.copy(), codes, 1, weights)
    with nbayes.threads(3):
        three = responsibilities(scores.copy(), codes, 1, weights)
    np.testing.assert_array_equal(one[0], three[0])
    np.testing.assert_array_equal(one[1], three[1])


# -- sparse products and grid-search tables (issue 19, point 6) --------------------------------

#: Where the compiled product adds with separate multiplies and adds, as scipy does: its sums
#: are scipy's bit for bit (elsewhere a compiler may fuse them, one rounding fewer).
EXACT_PRODUCT = platform.machine().lower() in ("x86_64", "amd64")


def _random_csr(rng, n, d, value_dtype, index_dtype, density=0.2):
    X = sp.random(n, d, density=density, format="csr", random_state=rng, dtype=np.float64)
    X.data = np.round(X.data * 20).astype(value_dtype) if value_dtype.kind == "i" else X.data
    X = sp.csr_matrix(X, dtype=value_dtype)
    X.data[X.indptr[3] : X.indptr[4]] = 0  # an empty row
    X.eliminate_zeros()
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    return X


@needs_compiled
@pytest.mark.parametrize("value_dtype", ["float64", "float32", "int64", "int32"])
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("width", [1, 3, 20])
def test_sparse_product_is_scipys(value_dtype, index_dtype, width):
    from nbayes._engine import _slice
    from nbayes.distributions._arrays import dot

    rng = np.random.default_rng(width)
    X = _random_csr(rng, 60, 40, np.dtype(value_dtype), np.dtype(index_dtype))
    W = rng.normal(-3.0, 2.0, (40, width))
    for part in (X, _slice(X, slice(7, 50)), _slice(X, slice(3, 4)), X[:0]):
        fast, plain = both_ways(lambda part=part: dot(part, W))
        assert fast.shape == plain.shape == (part.shape[0], width)
        if EXACT_PRODUCT:
            np.testing.assert_array_equal(fast, plain)
        else:
            np.testing.assert_allclose(fast, plain, rtol=1e-13, atol=1e-12)


@needs_compiled
def test_sparse_product_carries_non_finite_values_as_scipy():
    from nbayes.distributions._arrays import dot

    X = sp.csr_matrix(np.array([[1.0, 0.0, np.nan], [0.0, np.inf, 1.0], [2.0, 0.0, 0.0]]))
    W = np.array([[1.0, -2.0], [0.5, 0.0], [-1.0, 3.0]])
    fast, plain = both_ways(lambda: dot(X, W))
    np.testing.assert_array_equal(fast, plain)  # NaN where scipy has NaN, inf where inf


@needs_compiled
@pytest.mark.parametrize("n_classes", [5, 9])
def test_sparse_class_sums_of_many_classes_are_bincounts(n_classes):
    from nbayes.distributions._labels import _sparse_class_sums

    rng = np.random.default_rng(n_classes)
    for value_dtype, index_dtype in [("float64", "int32"), ("int64", "int64")]:
        X = _random_csr(rng, 300, 50, np.dtype(value_dtype), np.dtype(index_dtype))
        for weights in (np.ones(300), rng.choice([0.0, 0.5, 1.0, 3.0], 300)):
            labels = Labels(rng.integers(0, n_classes, 300), weights, n_classes)
            fast, plain = both_ways(lambda X=X, labels=labels: _sparse_class_sums(X, labels))
            np.testing.assert_array_equal(fast, plain)  # the same sums in the same order


@needs_compiled
def test_held_columns_give_the_same_block_both_ways():
    from nbayes.estimators._base import _held_columns

    rng = np.random.default_rng(3)
    X = _random_csr(rng, 80, 400, np.dtype("float64"), np.dtype("int32"), density=0.004)
    families = nbayes.MultinomialNB().fit(X, rng.integers(0, 2, 80)).families_
    fast, plain = both_ways(lambda: _held_columns(families, [X], None))
    np.testing.assert_array_equal(np.sort(fast[1]), plain[1])  # the same columns
    for narrow, columns in (fast, plain):  # each block is X over its columns
        assert narrow.shape == (80, columns.size)
        np.testing.assert_array_equal(columns[narrow.indices], X.indices)
        np.testing.assert_array_equal(narrow.data, X.data)


@needs_compiled
@pytest.mark.parametrize("columns", [None, "held"])
def test_stacked_multinomial_tables_are_numpys(columns):
    # Small whole counts are looked up, the others (large, fractional) take numpy's log, and
    # an empty class or a zero pseudo-count gives what the numpy code gives (-inf, uniform).
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 40, (3, 300)).astype(np.float64)
    counts[0, :10] = [511, 512, 513, 10**6, 0.5, 2.25, 1e-300, 7, 0, 3]
    counts[2] = 0.0  # a class without rows
    model = nbayes.MultinomialNB().fit(np.eye(3), [0, 1, 2])
    stats = {"n_counts": counts}
    grid = [
        {"alpha": 0.001},
        {"alpha": 1.0},
        {"alpha": 0.0, "force_alpha": True},
        {"alpha": 2.5, "estimate": "map"},
        {"estimate": "mle"},
    ]
    fams = [model._candidate_shell(p).families_[0] for p in grid]
    picked = None if columns is None else rng.permutation(300)[:120]  # any order
    fast, plain = both_ways(lambda: fams[0].finalize_stacked(stats, fams, picked))
    np.testing.assert_array_equal(fast["log_theta"], plain["log_theta"])
    assert np.isneginf(fast["log_theta"]).any()


@needs_compiled
@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
def test_grid_search_fold_scores_same_both_ways_and_on_any_number_of_threads(scoring, monkeypatch):
    from sklearn.model_selection import StratifiedKFold

    from nbayes import model_selection
    from nbayes.model_selection import GridSearchCV

    monkeypatch.setattr(model_selection._scores, "PARALLEL_FOLD_VALUES", 1)  # folds on the threads

    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, 900)
    X = _random_csr(rng, 900, 3000, np.dtype("int64"), np.dtype("int32"), density=0.002)
    X = sp.hstack([X, (y[:, None] == np.arange(3)) * 2], format="csr")  # words of a class
    weights = rng.choice([0.5, 1.0, 2.0], 900)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    grid = {"alpha": [0.0001, 0.01, 0.3, 1.0, 7.0]}

    def run():
        search = GridSearchCV(nbayes.MultinomialNB(), grid, cv=cv, scoring=scoring)
        search.fit(X, y, sample_weight=weights)
        return np.column_stack([search.cv_results_[f"split{i}_test_score"] for i in range(5)])

    with nbayes.threads(1):
        one, plain = both_ways(run)
    with nbayes.threads(3):
        three = run()
    np.testing.assert_array_equal(one, three)
    np.testing.assert_allclose(one, plain, rtol=1e-12, atol=1e-12)


def _count_tables(rng):
    """Class x word tables as partial_fit meets them: small whole counts, zeros, a few large
    counts, a class without data, and fractional weights (every cell then takes numpy's
    log); the small tables take numpy's path."""
    for n_classes, n_features in [(2, 300), (20, 5000), (3, 100_000)]:
        counts = rng.poisson(rng.gamma(0.3, 3, size=(n_classes, n_features))).astype(float)
        large = counts.copy()
        large[0, :5] = 1e6
        empty = counts.copy()
        empty[-1] = 0
        yield from (counts, large, empty, counts * 0.5)


def _same_bits(a, b):
    return np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a), np.signbit(b))


def _bernoulli_stats(counts):
    observed = np.repeat(counts.max(axis=1, keepdims=True) + 3, counts.shape[1], axis=1)
    return {"n_ones": counts, "n_observed": observed}


def _poisson_stats(counts):
    return {"n_sum": counts, "n_observed": _bernoulli_stats(counts)["n_observed"]}


@needs_compiled
@pytest.mark.parametrize(
    "family_name, module, stats_of",
    [
        ("Bernoulli", "bernoulli", _bernoulli_stats),
        ("Multinomial", "multinomial", lambda counts: {"n_counts": counts}),
        ("Poisson", "poisson", _poisson_stats),
    ],
)
def test_logarithms_looked_up_are_numpys_bit_for_bit(family_name, module, stats_of):
    """The count families' log tables (made by finalize, or from its factored parameters
    when scoring) look the logarithms of small whole counts up
    (distributions._estimates.lookup_log): the same bits as numpy's path."""

    def laid_out(family, stats):
        params = family.finalize(stats)
        return {**params, "table": family.feature_log_table(params)}

    from nbayes import distributions
    from nbayes.distributions import _estimates

    looked_up = []
    lookup = _estimates.lookup_log

    def spy(*args):
        out = lookup(*args)
        looked_up.append(out is not None)
        return out

    rng = np.random.default_rng(0)
    settings = [(1.0, "posterior_mean"), (0.01, "posterior_mean"), (2.0, "map"), (1.0, "mle")]
    for counts in _count_tables(rng):
        stats = stats_of(counts)
        for alpha, estimate in settings:
            family = getattr(distributions, family_name)(alpha=alpha, estimate=estimate)
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(f"nbayes.distributions.{module}.lookup_log", spy)
                compiled, plain = both_ways(lambda f=family, s=stats: laid_out(f, s))
            for key, value in plain.items():
                assert _same_bits(np.asarray(compiled[key]), np.asarray(value)), (family, key)
    assert any(looked_up) and not all(looked_up)  # both paths were taken
