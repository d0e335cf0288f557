"""One row hash for folds: the command line's ``--alpha cv``, Dask's fold statistics and the
held-out folds of EM put the same rows in the same folds."""

from __future__ import annotations

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes import _rowhash
from nbayes import dask as nbdask
from nbayes.cli import _folds, main
from nbayes.estimators import semisupervised


def _table(n=360, seed=4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam"], n, p=[0.6, 0.4])
    return pd.DataFrame(
        {
            "colour": np.where(rng.random(n) < 0.2 + 0.5 * (y == "spam"), "red", "blue"),
            "size": rng.normal(1.5 * (y == "spam"), 1.0),
            "y": y,
        }
    )


def test_folds_depend_on_the_key_only():
    keys = np.arange(1000)
    folds = _rowhash.hash_folds(keys, 5)
    assert np.array_equal(folds[300:400], _rowhash.hash_folds(keys[300:400], 5))
    assert np.bincount(folds, minlength=5).min() > 150  # about a fifth each
    other = _rowhash.hash_folds(keys, 5, seed=7)
    assert np.array_equal(other[10:20], _rowhash.hash_folds(keys[10:20], 5, seed=7))
    assert 0.1 < np.mean(other == folds) < 0.3  # another seed, another assignment
    # Keys of any type: a DataFrame's index of strings.
    assert _rowhash.hash_folds(np.array(["a", "b", "a"], dtype=object), 3)[[0]].tolist() == (
        _rowhash.hash_folds(np.array(["a"], dtype=object), 3).tolist()
    )


def test_every_fold_user_calls_the_one_hash():
    assert nbdask.hash_folds is _rowhash.hash_folds
    assert semisupervised.fold_of is _rowhash.hash_folds
    assert _folds.hash_folds is _rowhash.hash_folds  # --alpha cv and --calibration


def test_cli_dask_and_em_put_the_same_rows_in_the_same_folds(tmp_path, monkeypatch, capsys):
    table = _table()
    n = len(table)
    data = tmp_path / "t.csv"
    table.to_csv(data, index=False)
    seen: list = []

    def spy(keys, n_folds, seed=0):
        seen.append((np.asarray(keys).copy(), n_folds, seed))
        return _rowhash.hash_folds(keys, n_folds, seed)

    monkeypatch.setattr(_folds, "hash_folds", spy)
    out = tmp_path / "m.nbayes"
    argv = ["train", str(data), "-t", "y", "-o", str(out), "--alpha", "cv", "--chunk-rows", "100"]
    assert main(argv) == 0
    capsys.readouterr()
    # Each pass over DATA hashes every row number once, chunk by chunk, into 5 folds.
    counting = [keys for keys, n_folds, seed in seen if n_folds == 5 and seed == 0]
    assert np.array_equal(np.concatenate(counting)[:n], np.arange(n))
    cli_folds = _rowhash.hash_folds(np.arange(n), 5)

    # Dask: a DataFrame with the default index hashes the same keys, the row numbers.
    ddf = dd.from_pandas(table, npartitions=3)
    stats = nbdask.fold_statistics(nbayes.MixedNB(), ddf, "y", n_folds=5)
    for k in range(5):  # bounded by the folds
        train = stats.train_model(k, {"alpha": 1.0})
        rows = cli_folds != k
        want = [np.sum(table["y"].to_numpy()[rows] == c) for c in train.classes_]
        np.testing.assert_array_equal(train.class_count_, want)

    # EM's held-out folds (no random_state: seed 0) are the same function of the row number.
    labeled = np.flatnonzero(np.arange(n) % 3 > 0)
    assert np.array_equal(semisupervised.fold_of(labeled, 5, 0), cli_folds[labeled])


@pytest.mark.parametrize("n_folds", [3, 5])
def test_dask_array_positions_hash_like_row_numbers(n_folds):
    import dask.array as da

    table = _table(200, seed=5)
    X = table[["size"]].to_numpy()
    y = table["y"].to_numpy()
    stats = nbdask.fold_statistics(
        nbayes.GaussianNB(), da.from_array(X, chunks=(70, 1)), y, n_folds=n_folds
    )
    folds = _rowhash.hash_folds(np.arange(len(y)), n_folds)
    for k in range(n_folds):  # bounded by the folds
        model = stats.train_model(k, {})
        want = [np.sum(y[folds != k] == c) for c in model.classes_]
        np.testing.assert_array_equal(model.class_count_, want)
