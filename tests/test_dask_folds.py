"""Cross-validation fold statistics in one distributed pass (nbayes.dask.fold_statistics)
equal the in-memory FoldStatistics of the same folds, for a fold column and for hashed row
keys, on arrays (sparse blocks) and on DataFrames with a survey pass (MixedNB)."""

import sys

import cloudpickle
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.model_selection import PredefinedSplit

import nbayes
from nbayes import DataError, ParameterError, UnknownLabelError
from nbayes import dask as nbdask
from nbayes.model_selection import FoldStatistics, GridSearchCV

cloudpickle.register_pickle_by_value(sys.modules[__name__])
pytestmark = pytest.mark.xdist_group("dask-cluster")


@pytest.fixture
def client(dask_client):
    return dask_client


def assert_same_folds(got: FoldStatistics, want: FoldStatistics, X, params: dict) -> None:
    np.testing.assert_array_equal(got.classes, want.classes)
    assert len(got.test_stats) == len(want.test_stats)
    for i in range(len(want.test_stats)):  # the model of the rows outside every fold
        a, b = got.train_model(i, params), want.train_model(i, params)
        np.testing.assert_allclose(
            a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=1e-10
        )
        np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=1e-12)


def _counts(n=500, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam"], n)
    X = rng.poisson(1.0 + (y == "spam")[:, None] * (np.arange(12) < 4), (n, 12))
    return X, y, rng.uniform(0.0, 2.0, n)


def test_hashed_row_positions_on_sparse_array_blocks(client):
    X, y, w = _counts()
    dX = da.from_array(X, chunks=(120, 12)).map_blocks(sp.csr_matrix)
    got = nbdask.fold_statistics(nbayes.MultinomialNB(), dX, y, sample_weight=w, n_folds=4)
    ids = nbdask.hash_folds(np.arange(len(y)), 4)
    want = FoldStatistics(nbayes.MultinomialNB(), X, y, list(PredefinedSplit(ids).split()), w)
    assert_same_folds(got, want, X, {"alpha": 0.3})
    assert np.bincount(ids).min() > 80  # the hash spreads the rows over the folds


def test_fold_column_of_a_mixed_table_with_a_survey_pass(client):
    rng = np.random.default_rng(2)
    n = 400
    df = pd.DataFrame(
        {
            "city": rng.choice(["Oslo", "Rome", "Lima", "rare"], n, p=[0.4, 0.3, 0.29, 0.01]),
            "area": rng.normal(80, 20, n),
            "label": rng.choice(["a", "b"], n),
            "weight": rng.choice([0.0, 1.0, 2.0], n, p=[0.1, 0.6, 0.3]),
            "fold": rng.integers(0, 3, n),
        }
    )
    ddf = dd.from_pandas(df, npartitions=4)
    got = nbdask.fold_statistics(
        nbayes.MixedNB(), ddf, "label", folds="fold", sample_weight="weight", n_folds=3
    )
    X = df[["city", "area"]]
    splits = list(PredefinedSplit(df["fold"].to_numpy()).split())
    want = FoldStatistics(nbayes.MixedNB(), X, df["label"].to_numpy(), splits, df["weight"])
    assert_same_folds(got, want, X, {"alpha": 0.5, "var_smoothing": 1e-3})


def test_hashed_index_of_a_dataframe_and_a_search_over_the_folds(client):
    X, y, _ = _counts(300, seed=3)
    df = pd.DataFrame(X, columns=[f"w{j}" for j in range(12)]).assign(label=y)
    ddf = dd.from_pandas(df, npartitions=3)
    got = nbdask.fold_statistics(nbayes.PoissonNB(), ddf, "label", n_folds=3)
    ids = nbdask.hash_folds(df.index, 3)
    splits = list(PredefinedSplit(ids).split())
    want = FoldStatistics(nbayes.PoissonNB(), df.drop(columns="label"), y, splits)
    assert_same_folds(got, want, df.drop(columns="label"), {"alpha": 2.0})
    # the in-memory search over the same folds uses exactly these statistics
    search = GridSearchCV(nbayes.PoissonNB(), {"alpha": [0.5, 2.0]}, cv=splits)
    search.fit(df.drop(columns="label"), y)
    assert search.n_splits_ == 3


def test_fold_ids_outside_the_folds_are_refused(client):
    X, y, _ = _counts(100)
    dX = da.from_array(X, chunks=(50, 12))
    bad = np.zeros(100, dtype=int)
    bad[70] = 5
    with pytest.raises(DataError, match=r"folds must hold integers 0..2 \(n_folds=3\); got 5"):
        nbdask.fold_statistics(nbayes.MultinomialNB(), dX, y, folds=bad, n_folds=3)
    with pytest.raises(DataError, match="Fold 2 has no rows"):
        nbdask.fold_statistics(nbayes.MultinomialNB(), dX, y, folds=np.arange(100) % 2, n_folds=3)


def test_a_label_outside_classes_is_named_at_its_row_of_the_data():
    X, y, _ = _counts(300)
    y = y.astype(object)
    y[257] = "eggs"
    dX = da.from_array(X, chunks=(100, 12))
    with pytest.raises(
        UnknownLabelError, match=r"partition 2 \(rows 200\.\.299\): Label 'eggs' at row 257"
    ):
        nbdask.fold_statistics(nbayes.MultinomialNB(), dX, y, n_folds=3, classes=["ham", "spam"])


# -- held-out scoring on the cluster: nbayes.dask.grid_search ------------------------------------
def assert_same_scores(got, want, n_folds: int, metrics: list[str]) -> None:
    for m in metrics:
        for i in range(n_folds):
            np.testing.assert_allclose(
                got.cv_results_[f"split{i}_test_{m}"],
                want.cv_results_[f"split{i}_test_{m}"],
                rtol=1e-10,
                atol=1e-10,
            )
    assert got.best_params_ == want.best_params_


def test_grid_search_scores_held_out_rows_on_the_partitions(client):
    # Sparse array blocks, hashed folds, weights, two metrics: every fold score equals the
    # in-memory search over the same folds (candidates scored stacked on each partition).
    X, y, w = _counts(600, seed=4)
    dX = da.from_array(X, chunks=(130, 12)).map_blocks(sp.csr_matrix)
    grid = {"alpha": [0.01, 0.5, 3.0], "fit_prior": [True, False]}
    metrics = ["neg_log_loss", "accuracy"]
    got = nbdask.grid_search(
        nbayes.MultinomialNB(),
        grid,
        dX,
        y,
        sample_weight=w,
        n_folds=4,
        scoring=metrics,
        refit="neg_log_loss",
    )
    splits = list(PredefinedSplit(nbdask.hash_folds(np.arange(len(y)), 4)).split())
    want = GridSearchCV(
        nbayes.MultinomialNB(), grid, cv=splits, scoring=metrics, refit="neg_log_loss"
    ).fit(X, y, sample_weight=w)
    assert_same_scores(got, want, 4, metrics)
    np.testing.assert_allclose(
        got.best_estimator_.predict_proba(X), want.best_estimator_.predict_proba(X), rtol=1e-10
    )


def test_grid_search_on_a_mixed_table_with_a_fold_column(client):
    rng = np.random.default_rng(5)
    n = 300
    df = pd.DataFrame(
        {
            "city": rng.choice(["Oslo", "Rome", "Lima"], n),
            "area": rng.normal(80, 20, n),
            "label": rng.choice(["a", "b", "c"], n),
            "fold": rng.integers(0, 3, n),
        }
    )
    df.loc[df["label"] == "c", "area"] += 15
    grid = {"var_smoothing": [1e-9, 1e-2], "alpha": [0.5, 2.0]}
    ddf = dd.from_pandas(df, npartitions=3)
    got = nbdask.grid_search(nbayes.MixedNB(), grid, ddf, "label", folds="fold", n_folds=3)
    X = df[["city", "area"]]
    splits = list(PredefinedSplit(df["fold"].to_numpy()).split())
    want = GridSearchCV(nbayes.MixedNB(), grid, cv=splits, scoring="neg_log_loss")
    want.fit(X, df["label"].to_numpy())
    assert_same_scores(got, want, 3, ["score"])


def test_grid_search_refuses_metrics_that_do_not_add_up_over_rows():
    X, y, _ = _counts(100)
    with pytest.raises(ParameterError, match=r"'neg_log_loss' or 'accuracy'.*got 'roc_auc'"):
        nbdask.grid_search(
            nbayes.MultinomialNB(), {"alpha": [1.0]}, da.from_array(X), y, scoring="roc_auc"
        )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.FitFailedWarning")
@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
def test_grid_search_log_loss_of_a_fold_without_a_class_is_nan_as_in_memory():
    # Local threads (no cluster): fold 0 holds "ham" rows only, which scikit-learn's log-loss
    # refuses; the accuracy of that fold is still scored.
    X, _, _ = _counts(90)
    y = np.array(["ham"] * 45 + ["spam"] * 45)
    ids = np.repeat([0, 1, 2], 30)
    dX = da.from_array(X, chunks=(40, 12))
    metrics = ["neg_log_loss", "accuracy"]
    got = nbdask.grid_search(
        nbayes.MultinomialNB(),
        {"alpha": [0.1, 1.0]},
        dX,
        y,
        folds=ids,
        n_folds=3,
        scoring=metrics,
        refit="accuracy",
    )
    want = GridSearchCV(
        nbayes.MultinomialNB(),
        {"alpha": [0.1, 1.0]},
        cv=list(PredefinedSplit(ids).split()),
        scoring=metrics,
        refit="accuracy",
    ).fit(X, y)
    assert np.isnan(got.cv_results_["split0_test_neg_log_loss"]).all()
    assert not np.isnan(got.cv_results_["split0_test_accuracy"]).any()
    for m in metrics:
        for i in range(3):
            np.testing.assert_allclose(
                got.cv_results_[f"split{i}_test_{m}"],
                want.cv_results_[f"split{i}_test_{m}"],
                rtol=1e-10,
            )
