"""Grid-search candidates of MultinomialNB scored with log(n + a) = log a + log1p(n / a): a cell
without a count costs nothing per candidate (its log a enters once per row, times the row's
total), for whole counts and for TF-IDF values alike. The scores equal each candidate's own
finalize scored one by one (the logarithm of every cell) to rounding."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.model_selection import GridSearchCV as SklearnSearch
from sklearn.model_selection import StratifiedKFold

import nbayes
from nbayes._accel import kernels, numpy_only
from nbayes.distributions.multinomial import SMALL_COUNTS, _log1p_scores, _log1p_table
from nbayes.model_selection import GridSearchCV

ALPHAS = [1e-3, 0.05, 1.0, 7.5, 200.0]


def _words(n_rows: int = 400, n_words: int = 300, seed: int = 0):
    """Sparse word counts in four classes, each favouring its own words (so that many class x
    word cells hold no count), with a few counts beyond the looked-up range of small counts."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n_rows)
    words = (rng.zipf(1.4, (n_rows, 12)) + 60 * y[:, None]) % n_words
    rows = np.repeat(np.arange(n_rows), 12)
    X = sp.csr_matrix((np.ones(rows.size), (rows, words.ravel())), (n_rows, n_words)).tolil()
    X[0, 5] = 3 * SMALL_COUNTS  # a count past the table of small counts
    return sp.csr_matrix(X), np.array(["a", "b", "c", "d"])[y]


def _features(kind: str, layout: str):
    X, y = _words()
    if kind == "tfidf":
        X = TfidfTransformer().fit_transform(X)
    X = sp.csr_matrix(X)
    return (X if layout == "sparse" else X.toarray()), y


def _old_scores(model, alpha, stats, X):
    """The scores as one candidate's finalize makes them: log(n_kj + a) - log T_k on every
    cell of the class x word table."""
    counts = stats["groups"][0]["n_counts"]
    log_theta = (
        np.log(counts + alpha) - np.log(counts.sum(axis=1) + counts.shape[1] * alpha)[:, None]
    )
    dense = X.toarray() if sp.issparse(X) else X
    log_prior = model.finalize_with({"alpha": alpha}, stats).class_log_prior_
    return dense @ log_theta.T + log_prior


@pytest.mark.parametrize("code", ["as built", "numpy"])
@pytest.mark.parametrize("layout", ["sparse", "dense"])
@pytest.mark.parametrize("kind", ["counts", "tfidf"])
def test_stacked_candidates_equal_their_own_finalize(kind, layout, code):
    X, y = _features(kind, layout)
    model = nbayes.MultinomialNB().fit(X[:300], y[:300])
    grid = [{"alpha": a} for a in ALPHAS]
    if code == "numpy":
        with numpy_only():
            got = list(model.joint_log_scores_with(grid, model.stats_, X[300:]))
    else:
        got = list(model.joint_log_scores_with(grid, model.stats_, X[300:]))
    for params, scores in zip(grid, got):
        want = model.finalize_with(params).joint_log_scores(X[300:])
        np.testing.assert_allclose(scores, want, rtol=1e-12, atol=1e-9)
        old = _old_scores(model, params["alpha"], model.stats_, X[300:])
        np.testing.assert_allclose(scores, old, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("kind", ["counts", "tfidf"])
def test_cells_without_a_count_cost_nothing_per_candidate(kind):
    # The stacked table holds log1p(n / a) where a class counted the word and zero
    # elsewhere; log a - log T_k is one value per candidate and class, added per unit of a
    # row's total. (Whole counts take the compiled loop's looked-up logarithms where it is
    # built, hence the numpy code here.)
    X, y = _features(kind, "sparse")
    model = nbayes.MultinomialNB().fit(X, y)
    family = model.families_[0]
    shells = [model.finalize_with({"alpha": a}).families_[0] for a in ALPHAS]
    with numpy_only():
        params = family.finalize_stacked(model.stats_["groups"][0], shells)
    counts = model.stats_["groups"][0]["n_counts"]
    n_classes = counts.shape[0]
    weights_t = _log1p_table(params["log1p_cells"], n_classes)
    weights = weights_t.reshape(counts.shape[1], len(ALPHAS), n_classes)
    for c, a in enumerate(ALPHAS):
        np.testing.assert_array_equal(weights[:, c, :] == 0, counts.T == 0)
        np.testing.assert_allclose(weights[:, c, :], np.log1p(counts.T / a), rtol=1e-14)
        totals = counts.sum(axis=1) + counts.shape[1] * a
        np.testing.assert_allclose(
            params["per_count"][c * n_classes : (c + 1) * n_classes],
            np.log(a) - np.log(totals),
            rtol=1e-14,
        )
    # the table of log theta, where a reader asks for it, is the candidates' own
    laid = family.log_theta(params)
    for c, a in enumerate(ALPHAS):
        own = model.finalize_with({"alpha": a}).feature_log_prob_
        np.testing.assert_allclose(laid[c * n_classes : (c + 1) * n_classes], own, rtol=1e-12)


@pytest.mark.parametrize("dtypes", [("float64", "int32"), ("float32", "int64")])
def test_scores_over_the_columns_equal_the_tables_product(dtypes):
    # Where the compiled loops are built, sparse rows are scored column by column without
    # the (features, candidates x classes) table: the same sums, added in another order.
    X, y = _features("tfidf", "sparse")
    model = nbayes.MultinomialNB().fit(X[:300], y[:300])
    family = model.families_[0]
    shells = [model.finalize_with({"alpha": a}).families_[0] for a in ALPHAS]
    params = family.finalize_stacked(model.stats_["groups"][0], shells)
    empty = sp.csr_matrix((5, X.shape[1]))  # rows without a value
    held = sp.csr_matrix(sp.vstack([empty, X[300:]]), dtype=dtypes[0])
    held.indices, held.indptr = held.indices.astype(dtypes[1]), held.indptr.astype(dtypes[1])
    cells, n_classes = params["log1p_cells"], params["n_classes"]
    got = _log1p_scores(held, cells, n_classes)
    want = held.toarray().astype(np.float64) @ _log1p_table(cells, n_classes)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    assert (got[:5] == 0).all()


@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
def test_a_grid_search_over_tfidf_equals_scikit_learns(scoring):
    X, y = _features("tfidf", "sparse")
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    grid = {"alpha": ALPHAS}
    ours = GridSearchCV(nbayes.MultinomialNB(), grid, cv=cv, scoring=scoring).fit(X, y)
    theirs = SklearnSearch(nbayes.MultinomialNB(), grid, cv=cv, scoring=scoring).fit(X, y)
    for i in range(4):
        np.testing.assert_allclose(
            ours.cv_results_[f"split{i}_test_score"],
            theirs.cv_results_[f"split{i}_test_score"],
            rtol=1e-9,
            atol=1e-9,
        )
    assert ours.best_params_ == theirs.best_params_


def test_a_zero_pseudo_count_keeps_the_full_table():
    # a = 0 (the MLE, or MAP at alpha 1) gives zero probabilities: log a is -inf, so those
    # candidates take the logarithm of every cell, and their -inf scores stay.
    X, y = _features("counts", "sparse")
    model = nbayes.MultinomialNB().fit(X[:300], y[:300])
    grid = [{"alpha": 0.5}, {"estimate": "mle"}, {"alpha": 1.0, "estimate": "map"}]
    got = list(model.joint_log_scores_with(grid, model.stats_, X[300:]))
    with np.errstate(invalid="ignore"):
        for params, scores in zip(grid, got):
            want = model.finalize_with(params).joint_log_scores(X[300:])
            np.testing.assert_allclose(scores, want, rtol=1e-12)
    assert np.isneginf(got[1]).any()


def test_whole_counts_take_the_compiled_lookup_where_it_is_built():
    X, y = _features("counts", "sparse")
    model = nbayes.MultinomialNB().fit(X, y)
    family = model.families_[0]
    shells = [model.finalize_with({"alpha": a}).families_[0] for a in ALPHAS]
    params = family.finalize_stacked(model.stats_["groups"][0], shells)
    assert ("per_count" in params) == (kernels() is None)
    weighted = nbayes.MultinomialNB().fit(X, y, sample_weight=np.full(X.shape[0], 0.5))
    params = family.finalize_stacked(weighted.stats_["groups"][0], shells)
    assert "per_count" in params  # sums that are not whole: no table to look up
