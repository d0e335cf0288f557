"""nbayes.model_selection: cross-validation from fold statistics equals scikit-learn's
GridSearchCV over the same estimator (which refits every candidate on every fold), on
synthetic data for every estimator and on the real data sets, with sample weights."""

from __future__ import annotations

import functools
import tarfile
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _adult import ADULT_COLUMNS
from sklearn.exceptions import FitFailedWarning
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
from sklearn.metrics import accuracy_score, log_loss, make_scorer
from sklearn.model_selection import GridSearchCV as SklearnSearch
from sklearn.model_selection import KFold, StratifiedKFold, TimeSeriesSplit

import nbayes
from nbayes.exceptions import DataError, NotFittedError, ParameterError
from nbayes.model_selection import GridSearchCV

TOL = 1e-9


def assert_same_search(ours, theirs, n_splits: int, metrics=("score",)) -> None:
    """Every fold score equal to 1e-9, the same ranks and the same best candidate."""
    for m in metrics:
        for i in range(n_splits):
            np.testing.assert_allclose(
                ours.cv_results_[f"split{i}_test_{m}"],
                theirs.cv_results_[f"split{i}_test_{m}"],
                rtol=TOL,
                atol=TOL,
            )
        np.testing.assert_array_equal(
            ours.cv_results_[f"rank_test_{m}"], theirs.cv_results_[f"rank_test_{m}"]
        )
    assert ours.cv_results_["params"] == theirs.cv_results_["params"]
    if getattr(theirs, "best_params_", None) is not None:
        assert ours.best_params_ == theirs.best_params_


def both(estimator, grid, X, y, w=None, cv=None, **kw):
    cv = cv or StratifiedKFold(3, shuffle=True, random_state=0)
    ours = GridSearchCV(estimator, grid, cv=cv, **kw).fit(X, y, sample_weight=w)
    theirs = SklearnSearch(estimator, grid, cv=cv, **kw).fit(X, y, sample_weight=w)
    return ours, theirs


# -- synthetic data, every estimator --------------------------------------------------------------
def _synthetic(n: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam"], n, p=[0.6, 0.4])
    counts = rng.poisson(1.0 + 1.5 * (y == "spam")[:, None] * (np.arange(8) < 3), (n, 8))
    table = pd.DataFrame(
        {
            # "rare" values land in one fold only: the fold models must not know them
            "city": rng.choice(
                ["Oslo", "Rome", "Lima", "rare1", "rare2", None],
                n,
                p=[0.35, 0.3, 0.3, 0.01, 0.01, 0.03],
            ),
            "rooms": rng.integers(1, 5, n),
            "area": rng.normal(80, 20, n) + 10 * (y == "spam"),
            "garden": rng.random(n) < 0.4,
        }
    )
    weights = rng.choice([0.0, 0.5, 1.0, 2.5], n, p=[0.1, 0.3, 0.4, 0.2])
    return counts, table, y, weights


CASES = {
    "MultinomialNB": (nbayes.MultinomialNB(), {"alpha": [0.01, 1.0], "fit_prior": [True, False]}),
    "ComplementNB": (nbayes.ComplementNB(), {"alpha": [0.1, 1.0], "norm": [False, True]}),
    "BernoulliNB": (nbayes.BernoulliNB(binarize=1.0), {"alpha": [0.5, 2.0]}),
    "PoissonNB": (nbayes.PoissonNB(), {"alpha": [0.5, 2.0], "beta": [0.1, 1.0]}),
    "CategoricalNB": (
        nbayes.CategoricalNB(),
        {"alpha": [1.0, 2.5], "estimate": ["posterior_mean", "map"]},
    ),
    "GaussianNB": (
        nbayes.GaussianNB(),
        {"var_smoothing": [1e-9, 1e-2], "var_pooling": ["per_class", "shared"]},
    ),
    "GaussianNB-threshold": (nbayes.GaussianNB(), {"decision_threshold": [-1.0, 0.0, 2.0]}),
    "MixedNB": (nbayes.MixedNB(), {"alpha": [0.1, 1.0], "prior_alpha": [0.0, 5.0]}),
    "MixedNB-unseen": (nbayes.MixedNB(), {"unseen": ["smooth", "ignore"]}),
    "CategoricalNB-values": (nbayes.CategoricalNB(unseen="smooth"), {"alpha": [0.2, 1.0]}),
    "TextNB-hashing": (
        nbayes.TextNB(
            vectorizer=HashingVectorizer(n_features=2**10, alternate_sign=False, norm=None)
        ),
        {"classifier__alpha": [0.1, 1.0]},
    ),
}


def _data_for(name, counts, table, y):
    if name.startswith("MixedNB"):
        return table
    if name == "CategoricalNB-values":
        return table[["city"]].fillna("none").astype(object)
    if name == "CategoricalNB":
        return np.minimum(counts, 3)
    if name.startswith("GaussianNB"):
        return counts + np.random.default_rng(3).normal(size=counts.shape)
    if name.startswith("TextNB"):
        words = np.array(["cash", "prize", "lunch", "noon", "meet", "win", "now", "see"])
        return [" ".join(np.repeat(words, row)) for row in counts]
    return counts


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("scoring", ["neg_log_loss", "accuracy"])
def test_every_fold_score_equals_scikit_learns_search(name, scoring):
    counts, table, y, w = _synthetic()
    estimator, grid = CASES[name]
    X = _data_for(name, counts, table, y)
    ours, theirs = both(estimator, grid, X, y, w, scoring=scoring)
    assert_same_search(ours, theirs, 3)
    # refit: the finalize of all the statistics is the fit on all rows
    refit = theirs.best_estimator_
    np.testing.assert_allclose(
        ours.predict_proba(X), refit.predict_proba(X), rtol=1e-10, atol=1e-12
    )
    assert repr(ours.best_estimator_) == repr(refit)


STACKED = {
    "MultinomialNB": (
        nbayes.MultinomialNB,
        [{"alpha": 0.01}, {"alpha": 1.0, "fit_prior": False}, {"estimate": "mle"}],
    ),
    "ComplementNB": (nbayes.ComplementNB, [{"alpha": 0.1}, {"alpha": 1.0, "norm": True}]),
    "BernoulliNB": (nbayes.BernoulliNB, [{"alpha": 0.5}, {"alpha": 2.0}, {"estimate": "mle"}]),
    "PoissonNB": (nbayes.PoissonNB, [{"alpha": 0.5, "beta": 0.1}, {"alpha": 2.0}]),
}


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", sorted(STACKED))
def test_the_candidates_of_a_fold_are_scored_in_one_product(name, sparse, monkeypatch):
    # Each candidate's scores are its own joint_log_scores (-inf under the MLE included),
    # from one pass of the engine over the held-out rows for all of them.
    counts, _, y, _ = _synthetic()
    counts[:, 7] = 0
    counts[250:, 7] = np.arange(50) % 2  # a word the training rows never hold: MLE -inf
    X = sp.csr_matrix(counts) if sparse else counts
    cls, grid = STACKED[name]
    model = cls(missing="ignore") if name != "ComplementNB" else cls()
    model.fit(X[:250], y[:250])
    models = [model.finalize_with(params) for params in grid]
    calls = []
    engine_score = nbayes._engine.joint_log_likelihood
    monkeypatch.setattr(
        nbayes._engine,
        "joint_log_likelihood",
        lambda *a, **k: calls.append(1) or engine_score(*a, **k),
    )
    got = list(model.joint_log_scores_of(models, X[200:]))
    assert len(calls) == 1 and len(got) == len(models)
    with np.errstate(invalid="ignore"):
        for m, scores in zip(models, got):
            np.testing.assert_allclose(scores, m.joint_log_scores(X[200:]), rtol=1e-13)
    if name == "MultinomialNB":
        assert np.isneginf(got[2]).any()


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_candidates_are_finalized_together_where_the_family_can(name, monkeypatch):
    # joint_log_scores_with(params, stats, X) equals finalize_with(params, stats) scored one
    # by one; MultinomialNB makes every candidate's table in one vectorised pass (its
    # finalize is never called), the others finalize each candidate.
    counts, _, y, w = _synthetic()
    counts[100:, 7] = 0
    counts[:100, 7] = np.arange(100) % 2  # a word only the rows taken out hold
    cls = getattr(nbayes, name)
    model = cls().fit(counts, y, sample_weight=w)
    stats = model.subtract_statistics(
        model.stats_, cls().fit(counts[:100], y[:100], sample_weight=w[:100]).stats_
    )
    grid = [
        {"alpha": 0.01},
        {"alpha": 2.0, "fit_prior": False},
        {"alpha": 1.5, "estimate": "map"},
        {"alpha": 1.0, "class_prior": [0.3, 0.7]},
    ]
    if name == "MultinomialNB":
        grid.append({"alpha": np.linspace(0.1, 2.0, counts.shape[1])})
        grid.append({"estimate": "mle"})
    want = [model.finalize_with(p, stats).joint_log_scores(counts[:100]) for p in grid]
    calls = []
    family = type(model.families_[0])
    finalize = family.finalize
    monkeypatch.setattr(
        family,
        "finalize",
        lambda self, s: calls.append(1) or finalize(self, s),
    )
    got = list(model.joint_log_scores_with(grid, stats, counts[:100]))
    with np.errstate(invalid="ignore"):
        for g, wnt in zip(got, want):
            np.testing.assert_allclose(g, wnt, rtol=1e-13)
    assert len(calls) == (0 if name == "MultinomialNB" else len(grid))
    if name == "MultinomialNB":
        assert np.isneginf(got[-1]).any()  # the MLE's zero probabilities


def _sparse_words(n_rows: int, n_words: int = 400, seed: int = 0):
    """Sparse word counts: a few words a row, so held-out rows hold few of the columns."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam"], n_rows)
    words = rng.zipf(1.3, (n_rows, 4)) % n_words + 100 * (y == "spam")[:, None]
    rows = np.repeat(np.arange(n_rows), 4)
    X = sp.csr_matrix((np.ones(rows.size), (rows, words.ravel() % n_words)), (n_rows, n_words))
    return X, y


def test_a_sparse_fold_is_scored_over_the_columns_it_holds(monkeypatch):
    # The candidates' tables are made for the columns the held-out rows hold (a fraction
    # of a large vocabulary), normalised over all words: the scores are every candidate's
    # own, the MLE's -inf and per-word alphas included.
    X, y = _sparse_words(600)
    model = nbayes.MultinomialNB().fit(X[:500], y[:500])
    held = np.unique(X[500:].indices)
    assert held.size < X.shape[1] // 2
    grid = [
        {"alpha": 0.01},
        {"alpha": 2.0, "fit_prior": False},
        {"alpha": 1.5, "estimate": "map"},
        {"estimate": "mle"},
        {"alpha": np.linspace(0.1, 2.0, X.shape[1])},
    ]
    asked = []
    family = type(model.families_[0])
    stacked = family.finalize_stacked

    def recorded(self, s, fams, columns=None):
        asked.append(columns)
        return stacked(self, s, fams, columns)

    monkeypatch.setattr(family, "finalize_stacked", recorded)
    got = list(model.joint_log_scores_with(grid, model.stats_, X[500:]))
    # the columns the rows hold, in the order they first appear there where the compiled
    # pass finds them (sorted by the numpy code): either order gives the same scores
    np.testing.assert_array_equal(np.sort(asked[0]), held)
    with np.errstate(invalid="ignore"):
        for params, scores in zip(grid, got):
            want = model.finalize_with(params).joint_log_scores(X[500:])
            np.testing.assert_allclose(scores, want, rtol=1e-12)
    assert np.isneginf(got[3]).any()  # words the MLE gives no probability
    # the tables of those columns are the columns of the full tables
    fams = [model._candidate_shell(p).families_[0] for p in grid]
    full = model.families_[0].finalize_stacked(model.stats_["groups"][0], fams)
    part = model.families_[0].finalize_stacked(model.stats_["groups"][0], fams, held)
    np.testing.assert_array_equal(part["log_theta"], full["log_theta"][:, held])


def test_a_bad_value_in_a_sparse_fold_is_named_at_its_own_column():
    # The rows are checked before they are narrowed to the columns they hold.
    X, y = _sparse_words(600)
    model = nbayes.MultinomialNB().fit(X[:500], y[:500])
    grid = [{"alpha": 0.1}, {"alpha": 1.0}]
    bad = X[500:].tolil()
    bad[3, 397] = -1.0
    with pytest.raises(DataError, match=r"Column index 397 must hold non-negative.*-1.0 at row 3"):
        list(model.joint_log_scores_with(grid, model.stats_, bad.tocsr()))
    bad[3, 397] = np.inf
    with pytest.raises(DataError, match=r"[Cc]olumn index 397\b"):
        list(model.joint_log_scores_with(grid, model.stats_, bad.tocsr()))


def test_candidates_are_scored_in_groups_within_the_memory_budget(monkeypatch):
    monkeypatch.setattr(nbayes.model_selection._scores, "_GROUP_BUDGET", 1)  # two at a time
    sizes = []
    scores_with = nbayes.MultinomialNB.joint_log_scores_with

    def counted(self, params_list, stats, X):
        sizes.append(len(params_list))
        return scores_with(self, params_list, stats, X)

    monkeypatch.setattr(nbayes.MultinomialNB, "joint_log_scores_with", counted)
    counts, _, y, w = _synthetic()
    grid = {"alpha": [0.1, 0.5, 1.0, 2.0, 5.0]}
    ours, theirs = both(nbayes.MultinomialNB(), grid, counts, y, w, scoring="neg_log_loss")
    assert sizes == [2, 2, 1] * 3
    assert_same_search(ours, theirs, 3)


def test_families_that_do_not_stack_are_scored_one_candidate_at_a_time(monkeypatch):
    counts, _, y, _ = _synthetic()
    X = counts + np.random.default_rng(1).normal(size=counts.shape)
    model = nbayes.GaussianNB().fit(X, y)
    models = [model.finalize_with({"var_smoothing": v}) for v in (1e-9, 1e-2)]
    got = list(model.joint_log_scores_of(models, X))
    for m, scores in zip(models, got):
        np.testing.assert_array_equal(scores, m.joint_log_scores(X))


def test_accuracy_and_log_loss_are_computed_from_the_stacked_scores(monkeypatch):
    # The quick metrics never call predict / predict_proba per candidate, and give what
    # scikit-learn's scorers give through them (a callable scorer takes that path).
    counts, _, y, w = _synthetic()
    calls = []
    for method in ("predict", "predict_proba"):
        original = getattr(nbayes.MultinomialNB, method)

        @functools.wraps(original)
        def counted(self, X, _original=original):
            calls.append(1)
            return _original(self, X)

        monkeypatch.setattr(nbayes.MultinomialNB, method, counted)
    grid = {"alpha": [0.01, 0.3, 3.0]}
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    quick = GridSearchCV(
        nbayes.MultinomialNB(), grid, cv=cv, scoring=["neg_log_loss", "accuracy"], refit=False
    ).fit(counts, y, sample_weight=w)
    assert calls == []
    scorers = {
        "neg_log_loss": make_scorer(
            log_loss, greater_is_better=False, response_method="predict_proba"
        ),
        "accuracy": make_scorer(accuracy_score),
    }
    slow = GridSearchCV(nbayes.MultinomialNB(), grid, cv=cv, scoring=scorers, refit=False)
    slow.fit(counts, y, sample_weight=w)
    assert len(calls) == 2 * 9
    assert_same_search(quick, slow, 3, metrics=("neg_log_loss", "accuracy"))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.FitFailedWarning")
@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
@pytest.mark.filterwarnings("ignore:Scoring failed")
def test_a_held_out_fold_without_a_class_fails_the_log_loss_as_in_scikit_learn():
    counts, _, _, _ = _synthetic(90)
    y = np.array(["ham"] * 45 + ["spam"] * 45)  # KFold(3): fold 0 holds ham only
    ours, theirs = both(
        nbayes.MultinomialNB(),
        {"alpha": [0.1, 1.0]},
        counts,
        y,
        cv=KFold(3),
        scoring="neg_log_loss",
    )
    assert np.isnan(ours.cv_results_["split0_test_score"]).all()
    assert_same_search(ours, theirs, 3)
    # with several metrics, the accuracy of that fold is still scored (as scikit-learn does)
    metrics = ["neg_log_loss", "accuracy"]
    ours, theirs = both(
        nbayes.MultinomialNB(),
        {"alpha": [0.1, 1.0]},
        counts,
        y,
        cv=KFold(3),
        scoring=metrics,
        refit="accuracy",
    )
    assert not np.isnan(ours.cv_results_["split0_test_accuracy"]).any()
    assert_same_search(ours, theirs, 3, metrics=metrics)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.FitFailedWarning")
@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
def test_a_value_only_one_fold_holds_is_unseen_to_that_folds_model():
    # "rare" is in fold 0 only: the model of folds 1 and 2 has never seen it (unseen="error"
    # makes scikit-learn's refit fail on it too), and K_j of "city" is one smaller there.
    y = np.array(["a", "b"] * 6)
    city = np.array(["x", "y", "z"] * 4, dtype=object)
    city[0] = "rare"
    X = pd.DataFrame({"city": city})
    cv = KFold(3)
    folds = nbayes.model_selection.FoldStatistics(nbayes.MixedNB(), X, y, list(cv.split(X)))
    model = folds.train_model(0)
    assert model.categories_["city"].tolist() == ["x", "y", "z"]
    refit = nbayes.MixedNB().fit(X.iloc[4:], y[4:])
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), refit.predict_joint_log_proba(X), rtol=1e-12
    )
    strict = nbayes.MixedNB(unseen="error")
    ours, theirs = both(strict, {"alpha": [1.0]}, X, y, cv=cv)
    assert np.isnan(ours.cv_results_["split0_test_score"]).all()
    assert_same_search(ours, theirs, 3)


def test_a_split_that_would_read_a_column_otherwise_is_said_with_the_fix():
    # "rating" has 21 distinct values, one of them in row 0 only: over all rows it is past
    # max_int_categories (Gaussian); over the training rows of split 0 (rows 20..59) it is
    # not (categorical), which scikit-learn's search, refitting each split, would follow.
    rng = np.random.default_rng(0)
    y = np.array(["a", "b"] * 30)
    rating = np.concatenate([[20], rng.integers(0, 20, 59)])
    rating[21:41] = np.arange(20)  # every value 0..19 in split 0's training rows
    X = pd.DataFrame({"rating": rating, "size": rng.normal(size=60)})
    model = nbayes.MixedNB(max_int_categories=20)
    assert model.infer_families(X)["rating"] == "gaussian"
    assert model.infer_families(X.iloc[20:])["rating"] == "categorical"
    cv = KFold(3)
    with pytest.warns(UserWarning) as caught:
        GridSearchCV(model, {"alpha": [1.0]}, cv=cv).fit(X, y)
    (said,) = [str(w.message) for w in caught if "reads column" in str(w.message)]
    assert caught[0].filename == __file__
    assert said.startswith(
        "MixedNB reads column 'rating' as gaussian over all 60 rows but as categorical over "
        "the 40 training rows of split 0:"
    )
    assert said.endswith(
        "Name the families to make both agree: columns=[('gaussian', ['rating'])]."
    )
    # Named as the warning says: no warning, and the search is scikit-learn's again.
    named = nbayes.MixedNB(max_int_categories=20, columns=[("gaussian", ["rating"])])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours, theirs = both(named, {"alpha": [0.5, 1.0]}, X, y, cv=cv)
    assert_same_search(ours, theirs, 3)


def test_cv_results_has_scikit_learns_keys_and_timings():
    counts, _, y, w = _synthetic()
    ours, theirs = both(nbayes.MultinomialNB(), {"alpha": [0.5, 1.0, 2.0]}, counts, y, w)
    assert set(theirs.cv_results_) == set(ours.cv_results_)
    assert ours.cv_results_["param_alpha"].tolist() == [0.5, 1.0, 2.0]
    assert (ours.cv_results_["mean_fit_time"] >= 0).all() and ours.count_time_ > 0
    assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=TOL)
    assert ours.best_index_ == theirs.best_index_ and ours.n_splits_ == 3
    assert ours.classes_.tolist() == ["ham", "spam"]
    assert ours.score(counts, y) == pytest.approx(theirs.score(counts, y))


def test_several_metrics_and_refit_by_name():
    counts, _, y, w = _synthetic()
    scoring = ["neg_log_loss", "accuracy", "roc_auc", "balanced_accuracy"]
    ours, theirs = both(
        nbayes.ComplementNB(),
        {"alpha": [0.1, 1.0, 3.0]},
        counts,
        y,
        w,
        scoring=scoring,
        refit="neg_log_loss",
    )
    assert_same_search(ours, theirs, 3, metrics=scoring)
    assert set(theirs.cv_results_) == set(ours.cv_results_)


def test_repeated_and_group_splitters():
    from sklearn.model_selection import GroupKFold, RepeatedStratifiedKFold

    counts, _, y, w = _synthetic(200)
    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=2, random_state=1)
    assert_same_search(*both(nbayes.MultinomialNB(), {"alpha": [0.3, 3.0]}, counts, y, w, cv=cv), 4)
    groups = np.arange(200) % 7
    ours = GridSearchCV(nbayes.MultinomialNB(), {"alpha": [0.3, 3.0]}, cv=GroupKFold(3))
    theirs = SklearnSearch(nbayes.MultinomialNB(), {"alpha": [0.3, 3.0]}, cv=GroupKFold(3))
    assert_same_search(ours.fit(counts, y, groups=groups), theirs.fit(counts, y, groups=groups), 3)


# -- refusals -----------------------------------------------------------------------------------
def test_a_parameter_that_changes_the_statistics_is_refused():
    counts, _, y, _ = _synthetic(60)
    with pytest.raises(ParameterError, match=r"'binarize'.*sklearn.model_selection.GridSearchCV"):
        GridSearchCV(nbayes.BernoulliNB(), {"binarize": [0.0, 1.0]}).fit(counts, y)
    with pytest.raises(ParameterError, match=r"'missing'.*refits every candidate"):
        GridSearchCV(nbayes.MultinomialNB(), {"missing": ["error", "ignore"]}).fit(counts, y)


@pytest.mark.parametrize("cls", [nbayes.AODE, nbayes.TAN, nbayes.KDB, nbayes.JointBayes])
def test_semi_naive_models_are_refused_with_the_reason(cls):
    with pytest.raises(ParameterError, match="learns its bin edges and categories"):
        GridSearchCV(cls(), {}).fit(pd.DataFrame({"a": ["x", "y"] * 10}), [0, 1] * 10)


def test_text_with_a_learned_vocabulary_is_refused_with_the_reason():
    with pytest.raises(ParameterError, match=r"learns its CountVectorizer vocabulary.*Hashing"):
        GridSearchCV(nbayes.TextNB(), {"classifier__alpha": [1.0]}).fit(
            ["a b", "c"] * 5, [0, 1] * 5
        )
    # a fixed vocabulary is fine
    fixed = nbayes.TextNB(vectorizer=CountVectorizer(vocabulary=["cash", "lunch"]))
    texts, y = ["cash now", "lunch at noon", "cash cash", "lunch"] * 5, [1, 0, 1, 0] * 5
    ours, theirs = both(fixed, {"classifier__alpha": [0.1, 1.0]}, texts, y, cv=KFold(2))
    assert_same_search(ours, theirs, 2)


def test_a_splitter_that_trains_on_part_of_the_rest_is_refused():
    counts, _, y, _ = _synthetic(60)
    with pytest.raises(ParameterError, match="complement of the test part"):
        GridSearchCV(nbayes.MultinomialNB(), {"alpha": [1.0]}, cv=TimeSeriesSplit(3)).fit(counts, y)
    # as many training rows as the complement, but one repeated (and one left out), or one
    # taken from the test fold; a test fold that names a row twice
    rows = np.arange(60)
    bad = [
        (np.r_[rows[20:59], 20], rows[:20]),
        (np.r_[rows[21:], 0], rows[:20]),
        (rows[20:], np.r_[rows[:19], 0]),
    ]
    for split in bad:
        with pytest.raises(ParameterError, match="complement of the test part"):
            GridSearchCV(nbayes.MultinomialNB(), {"alpha": [1.0]}, cv=[split]).fit(counts, y)


def test_a_class_absent_outside_a_fold_is_an_error():
    X, y = np.ones((6, 2)), np.array([0, 0, 0, 0, 1, 1])
    with pytest.raises(DataError, match=r"Class 1 has no row outside test fold 2.*Stratified"):
        GridSearchCV(nbayes.MultinomialNB(), {"alpha": [1.0]}, cv=KFold(3)).fit(X, y)


def test_a_failing_candidate_gets_error_score_or_raises():
    counts, _, y, _ = _synthetic(60)
    grid = {"alpha": [1.0, -1.0]}
    with pytest.warns(FitFailedWarning, match="failed on split 0") as caught:
        search = GridSearchCV(nbayes.MultinomialNB(), grid, cv=2).fit(counts, y)
    assert caught[0].filename == __file__
    assert np.isnan(search.cv_results_["mean_test_score"][1])
    assert search.best_params_ == {"alpha": 1.0} and search.cv_results_["rank_test_score"][1] == 2
    with pytest.raises(ParameterError, match="alpha"):
        GridSearchCV(nbayes.MultinomialNB(), grid, cv=2, error_score="raise").fit(counts, y)


def test_finalize_with_refuses_statistics_parameters_and_leaves_the_model_alone():
    counts, _, y, _ = _synthetic(60)
    model = nbayes.MultinomialNB().fit(counts, y)
    before = model.feature_log_prob_.copy()
    other = model.finalize_with({"alpha": 0.1})
    assert other.alpha == 0.1 and model.alpha == 1.0
    np.testing.assert_array_equal(model.feature_log_prob_, before)
    with pytest.raises(ParameterError, match=r"\['missing'\] change what is counted"):
        model.finalize_with({"missing": "ignore"})


# -- the real data sets (3 folds, two or three candidates each) -----------------------------------
def _sms(shared_data):
    df = pd.read_csv(
        shared_data / "sms_spam_collection" / "SMSSpamCollection",
        sep="\t",
        header=None,
        names=["label", "text"],
        quoting=3,
        dtype=str,
        keep_default_na=False,
    )
    return df["text"].tolist(), df["label"].to_numpy()


def _enron(shared_data):
    texts, labels = [], []
    with tarfile.open(shared_data / "enron_spam_enron1" / "enron1.tar.gz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) == 3 and parts[1] in ("ham", "spam"):
                texts.append(tar.extractfile(member).read().decode("latin-1"))
                labels.append(parts[1])
    return texts, np.array(labels)


def _weights(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).choice([0.0, 0.5, 1.0, 3.0], n, p=[0.05, 0.2, 0.5, 0.25])


def test_sms_text_search_equals_scikit_learn(shared_data):
    texts, y = _sms(shared_data)
    hashing = HashingVectorizer(n_features=2**16, alternate_sign=False, norm=None)
    w = _weights(len(y))
    ours, theirs = both(
        nbayes.TextNB(vectorizer=hashing),
        {"classifier__alpha": [0.05, 1.0]},
        texts,
        y,
        w,
        scoring="neg_log_loss",
    )
    assert_same_search(ours, theirs, 3)
    counts = CountVectorizer().fit_transform(texts)
    ours, theirs = both(
        nbayes.BernoulliNB(),
        {"alpha": [0.1, 1.0], "fit_prior": [True, False]},
        counts,
        y,
        w,
        scoring="f1_macro",
    )
    assert_same_search(ours, theirs, 3)


def test_enron_search_equals_scikit_learn(shared_data):
    texts, y = _enron(shared_data)
    counts = CountVectorizer(min_df=2).fit_transform(texts)
    w = _weights(len(y), 1)
    for estimator, grid, scoring in (
        (nbayes.MultinomialNB(), {"alpha": [0.01, 0.3, 1.0]}, "neg_log_loss"),
        (nbayes.ComplementNB(), {"alpha": [0.1, 1.0]}, "balanced_accuracy"),
    ):
        assert_same_search(*both(estimator, grid, counts, y, w, scoring=scoring), 3)


def test_enron_folds_scored_over_the_words_they_hold_equal_scikit_learn(shared_data, monkeypatch):
    # The benchmark's setting: every word of the vocabulary, five folds, each of which holds
    # about a third of the words and is scored over those alone.
    texts, y = _enron(shared_data)
    counts = CountVectorizer().fit_transform(texts)
    family = nbayes.distributions.Multinomial
    asked, stacked = [], family.finalize_stacked

    def recorded(self, s, fams, columns=None):
        asked.append(None if columns is None else columns.size)
        return stacked(self, s, fams, columns)

    monkeypatch.setattr(family, "finalize_stacked", recorded)
    metrics = ["accuracy", "neg_log_loss"]
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    grid = {"alpha": [0.001, 0.1, 10.0]}
    ours, theirs = both(
        nbayes.MultinomialNB(), grid, counts, y, cv=cv, scoring=metrics, refit="neg_log_loss"
    )
    assert_same_search(ours, theirs, 5, metrics=metrics)
    assert len(asked) == 5 and all(0 < a < counts.shape[1] / 2 for a in asked)


def test_spambase_search_equals_scikit_learn(shared_data):
    data = np.loadtxt(shared_data / "spambase" / "spambase.data", delimiter=",")
    X, y = data[:, :-1], data[:, -1].astype(int)
    w = _weights(len(y), 2)
    grid = {"var_smoothing": [1e-9, 1e-3, 1e-1], "decision_threshold": [None, 2.0]}
    assert_same_search(*both(nbayes.GaussianNB(), grid, X, y, w, scoring="accuracy"), 3)
    assert_same_search(
        *both(nbayes.MultinomialNB(), {"alpha": [0.1, 1.0]}, X, y, w, scoring="roc_auc"), 3
    )


def test_adult_mixed_search_equals_scikit_learn(shared_data):
    df = pd.read_csv(
        shared_data / "adult" / "adult.data.gz",
        names=ADULT_COLUMNS,
        skipinitialspace=True,
        na_values="?",
    ).dropna(how="all")
    df = df.iloc[:12000]  # time: enough rows for rare categories to be missing from folds
    X, y = df.drop(columns="income"), df["income"].to_numpy()
    w = _weights(len(y), 3)
    # Integer columns with at most 200 values are categories in every fold alike (the "auto"
    # limit grows with the rows a fit sees, and a fold sees fewer than all).
    mixed = nbayes.MixedNB(max_int_categories=200)
    grid = {"alpha": [0.1, 1.0], "var_smoothing": [1e-9, 1e-3]}
    assert_same_search(*both(mixed, grid, X, y, w, scoring="neg_log_loss"), 3)


# -- alpha="cv" and var_smoothing="cv" inside fit --------------------------------------------------
def pooled_cv_log_loss(estimator, X, y, w):
    """scikit-learn's way, refitting per fold: the weighted log-loss of cross_val_predict
    over the folds alpha="cv" uses (5 stratified, shuffled with random_state=0)."""
    from sklearn.model_selection import cross_val_predict

    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    log_p = cross_val_predict(
        estimator, X, y, cv=cv, method="predict_log_proba", params={"sample_weight": w}
    )
    codes = np.searchsorted(np.unique(y), y)
    picked = log_p[np.arange(len(y)), codes]
    keep = w > 0
    return -np.dot(w[keep], picked[keep]) / w.sum()


CV_CASES = {
    "MultinomialNB": (nbayes.MultinomialNB(alpha="cv"), "alpha"),
    "BernoulliNB-map": (nbayes.BernoulliNB(alpha="cv", estimate="map", binarize=1.0), "alpha"),
    "ComplementNB": (nbayes.ComplementNB(alpha="cv"), "alpha"),
    "GaussianNB": (nbayes.GaussianNB(var_smoothing="cv"), "var_smoothing"),
    "MixedNB": (nbayes.MixedNB(alpha="cv", var_smoothing="cv"), "alpha"),
}


@pytest.mark.parametrize("name", sorted(CV_CASES))
def test_cv_smoothing_equals_scikit_learns_refits(name):
    counts, table, y, w = _synthetic(240, seed=4)
    model, param = CV_CASES[name]
    X = {"MixedNB": table, "GaussianNB": counts + 0.3 * np.arange(8)}.get(name, counts)
    fitted = type(model)(**model.get_params()).fit(X, y, sample_weight=w)
    assert getattr(fitted, param) == "cv"  # the parameter stays; the choice is recorded
    found = fitted.cv_results_[param]
    # every candidate's loss equals scikit-learn's refits over the same folds (a few: time)
    for k in (0, 6, 12):
        refit = type(model)(
            **{
                **model.get_params(),
                **{p: 1.0 if p == "alpha" else 1e-9 for p in fitted.cv_results_},
            }
        )
        refit.set_params(**{param: found["candidates"][k]})
        assert found["log_loss"][k] == pytest.approx(pooled_cv_log_loss(refit, X, y, w), rel=1e-9)
    best = found["candidates"][int(np.argmin(found["log_loss"]))]
    chosen = {
        p: fitted.cv_results_[p]["candidates"][int(np.argmin(fitted.cv_results_[p]["log_loss"]))]
        for p in fitted.cv_results_
    }
    assert chosen[param] == best
    # the fitted model is the fit on all rows at the chosen values
    plain = type(model)(**{**model.get_params(), **chosen}).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(fitted.predict_proba(X), plain.predict_proba(X), rtol=1e-10)


def test_cv_smoothing_on_sms_text(shared_data):
    texts, y = _sms(shared_data)
    counts = CountVectorizer().fit_transform(texts)
    fitted = nbayes.MultinomialNB(alpha="cv").fit(counts, y)
    found = fitted.cv_results_["alpha"]
    k = int(np.argmin(found["log_loss"]))
    assert fitted.alpha_ == found["candidates"][k]
    ones = np.ones(len(y))
    assert found["log_loss"][k] == pytest.approx(
        pooled_cv_log_loss(nbayes.MultinomialNB(alpha=fitted.alpha_), counts, y, ones), rel=1e-9
    )
    text = nbayes.TextNB(classifier=nbayes.MultinomialNB(alpha="cv")).fit(texts, y)
    assert text.classifier_.alpha_ == fitted.alpha_


def test_cv_smoothing_needs_all_rows_in_fit():
    counts, _, y, _ = _synthetic(60)
    with pytest.raises(
        ParameterError, match=r"alpha='cv' is chosen by cross-validation inside fit"
    ):
        nbayes.MultinomialNB(alpha="cv").partial_fit(counts, y, classes=["ham", "spam"])
    with pytest.raises(DataError, match=r"at least two rows of every class; class 'b' has one"):
        nbayes.MultinomialNB(alpha="cv").fit(counts[:5], ["a", "a", "a", "a", "b"])
    # after fit, partial_fit keeps learning with the chosen value
    model = nbayes.MultinomialNB(alpha="cv").fit(counts, y)
    chosen = model.alpha_
    assert model.partial_fit(counts[:7], y[:7]).alpha_ == chosen


# -- greedy feature selection from statistics ------------------------------------------------
def refit_cv_score(estimator, X, y, cv, columns, w=None, scoring="neg_log_loss"):
    """scikit-learn's way: refit on the columns for every fold, mean of the fold scores."""
    from sklearn.base import clone
    from sklearn.metrics import accuracy_score, log_loss

    Xs = X.iloc[:, columns] if isinstance(X, pd.DataFrame) else X[:, columns]
    out = []
    for train, test in cv.split(Xs, y):
        fit_w = None if w is None else w[train]
        model = clone(estimator).fit(
            Xs.iloc[train] if hasattr(Xs, "iloc") else Xs[train], y[train], sample_weight=fit_w
        )
        X_test = Xs.iloc[test] if hasattr(Xs, "iloc") else Xs[test]
        score_w = None if w is None else w[test]
        if scoring == "accuracy":
            out.append(accuracy_score(y[test], model.predict(X_test), sample_weight=score_w))
        else:
            proba = model.predict_proba(X_test)
            out.append(-log_loss(y[test], proba, sample_weight=score_w, labels=model.classes_))
    return float(np.mean(out))


@pytest.mark.parametrize(
    ("direction", "scoring"), [("forward", "neg_log_loss"), ("backward", "accuracy")]
)
def test_feature_selection_scores_equal_refits_on_the_columns(direction, scoring):
    _, table, y, w = _synthetic(300, seed=5)
    rng = np.random.default_rng(5)
    X = table.assign(noise=rng.normal(size=300), flag=rng.random(300) < 0.5)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = nbayes.model_selection.FeatureSelectionCV(
        nbayes.MixedNB(max_int_categories=20), direction=direction, scoring=scoring, cv=cv
    ).fit(X, y, sample_weight=w)
    # every subset on the path scores as refits on its columns do
    names = list(X.columns)
    current = set() if direction == "forward" else set(names)
    for step in search.path_:
        if step["action"] == "add":
            current.add(step["feature"])
        elif step["action"] == "remove":
            current.discard(step["feature"])
        if not current:
            continue
        columns = [names.index(c) for c in sorted(current, key=names.index)]
        expected = refit_cv_score(
            nbayes.MixedNB(max_int_categories=20), X, y, cv, columns, w, scoring
        )
        assert step["score"] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert sorted(current, key=names.index) == list(np.asarray(names)[search.support_])
    assert search.score_ == search.path_[-1]["score"]
    selected = search.transform(X)
    assert list(selected.columns) == list(np.asarray(names)[search.support_])
    np.testing.assert_allclose(
        search.predict_proba(X),
        nbayes.MixedNB(max_int_categories=20)
        .fit(selected, y, sample_weight=w)
        .predict_proba(selected),
    )


def test_feature_selection_picks_what_scikit_learns_sequential_selector_picks(shared_data):
    from sklearn.feature_selection import SequentialFeatureSelector
    from sklearn.preprocessing import OrdinalEncoder

    df = pd.read_csv(shared_data / "mushroom" / "agaricus-lepiota.data", header=None)
    df = df.sample(2000, random_state=0)  # and 6 of the 22 columns: time
    X = OrdinalEncoder(dtype=np.int64).fit_transform(df.loc[:, [1, 2, 3, 5, 9, 20]])
    y = df[0].to_numpy()
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    codes = nbayes.CategoricalNB(unseen="smooth")
    ours = nbayes.model_selection.FeatureSelectionCV(codes, n_features_to_select=2, cv=cv).fit(X, y)
    theirs = SequentialFeatureSelector(
        codes, n_features_to_select=2, scoring="neg_log_loss", cv=cv
    ).fit(X, y)
    assert ours.support_.tolist() == theirs.get_support().tolist()
    columns = np.flatnonzero(ours.support_)
    assert ours.score_ == pytest.approx(
        refit_cv_score(nbayes.MixedNB(), X, y, cv, columns), rel=1e-9
    )


def test_feature_selection_refuses_normalised_families_and_unknown_metrics():
    counts, table, y, _ = _synthetic(60)
    select = nbayes.model_selection.FeatureSelectionCV
    with pytest.raises(ParameterError, match="normalises its per-word parameters"):
        select(nbayes.MultinomialNB()).fit(counts, y)
    with pytest.raises(ParameterError, match=r"scoring must be one of.*SequentialFeatureSelector"):
        select(nbayes.BernoulliNB(), scoring="roc_auc").fit(counts, y)
    with pytest.raises(ParameterError, match="direction must be"):
        select(nbayes.BernoulliNB(), direction="sideways").fit(counts, y)
    mixed = nbayes.MixedNB(
        columns=[("poisson", ["rooms"]), ("multinomial", ["area"])], remainder="drop"
    )
    with pytest.raises(ParameterError, match=r"\['multinomial'\] families normalise"):
        select(mixed, cv=2).fit(table.assign(area=table["area"].round().clip(0)), y)


def test_candidates_scored_together_are_measured_in_one_pass():
    # The stacked scores are read as one (rows, candidates, classes) array; scores that are
    # not column blocks of one array in order are measured candidate by candidate.
    from nbayes.model_selection import _side_by_side

    jll = np.arange(24.0).reshape(4, 6).copy()  # owns its data, as the engine's output
    views = [jll[:, i * 2 : (i + 1) * 2] for i in range(3)]
    np.testing.assert_array_equal(_side_by_side(views)[:, 1], views[1])
    assert _side_by_side(views[::-1]) is None
    assert _side_by_side([v.copy() for v in views]) is None
    assert _side_by_side(views[:2]) is None  # not the whole array


@pytest.mark.parametrize(
    "estimator, grid",
    [
        (nbayes.MultinomialNB(alpha=-1.0), {"alpha": [0.1, 1.0]}),
        (nbayes.MultinomialNB(class_prior=[0.2, 0.3, 0.5]), {"class_prior": [None, [0.4, 0.6]]}),
    ],
)
def test_a_setting_every_candidate_replaces_is_never_finalized(estimator, grid):
    # As in scikit-learn's search, the estimator's own value of a parameter the grid sets
    # is never used: the model of all rows holds the statistics, not finalized, until asked.
    counts, _, y, w = _synthetic()
    ours, theirs = both(estimator, grid, counts, y, w)
    assert_same_search(ours, theirs, 3)
    X, y = np.array([[3, 0], [0, 4], [2, 1], [1, 3]]), np.array([0, 1, 0, 1])
    splits = list(KFold(2).split(X))
    folds = nbayes.model_selection.FoldStatistics(nbayes.MultinomialNB(), X, y, splits)
    want = nbayes.MultinomialNB().fit(X, y)
    assert not hasattr(folds.model, "feature_log_prob_")  # reading finalizes nothing
    with pytest.raises(NotFittedError, match="call finalize"):
        folds.model.predict(X)
    folds.model.finalize()
    np.testing.assert_allclose(folds.model.feature_log_prob_, want.feature_log_prob_)
    np.testing.assert_array_equal(folds.model.predict(X), want.predict(X))


def test_best_estimator_drops_what_only_zero_weight_rows_hold():
    # A category that only zero-weight rows hold is not learned by the refit on those rows,
    # so the best estimator must not keep it either.
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(60, 2))
    y = rng.integers(0, 2, 60)
    w = np.ones(60)
    w[:3] = 0
    table = pd.DataFrame({"a": np.array(list("xyz"))[codes[:, 0]], "b": codes[:, 1] * 1.5})
    table.loc[:2, "a"] = "rare"
    search = GridSearchCV(nbayes.MixedNB(unseen="ignore"), {"alpha": [0.5, 1.0]}, cv=KFold(3))
    search.fit(table, y, sample_weight=w)
    refit = nbayes.MixedNB(unseen="ignore", **search.best_params_).fit(table, y, sample_weight=w)
    np.testing.assert_allclose(
        search.best_estimator_.predict_proba(table), refit.predict_proba(table), atol=1e-12
    )
