"""Model files written by nbayes 0.1.0 in format 1, one per kind of statistic, still load and
predict bit-identically: the probabilities recorded when each file was written must come back
exactly. The files in tests/data/format1_stats/ were written by :func:`make_fixtures` before the
statistics became typed values (issue 31); never rewrite them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nbayes import (
    AODE,
    KDB,
    TAN,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    DensityNB,
    GaussianNB,
    JointBayes,
    MixedNB,
    MultinomialNB,
    PoissonNB,
)
from nbayes.io import load, save

FIXTURES = Path(__file__).parent / "data" / "format1_stats"


def counts(seed: int = 3, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, (n, 4)).astype(np.float64)
    return X, np.where(X[:, 0] + rng.normal(0, 1, n) > 2, "spam", "ham")


def table(seed: int = 4, n: int = 40) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "temp": rng.normal(10, 5, n),
            "city": rng.choice(["Oslo", "Rome", "Lima"], n),
            "clicks": rng.poisson(3, n),
            "flag": rng.choice([True, False], n),
        }
    )
    df.loc[3, "temp"] = np.nan
    df.loc[5, "city"] = None
    return df, np.where(df["temp"].fillna(10) > 10, "warm", "cold")


def cases() -> dict:
    """Name -> (unfitted model, X, y): every family's statistics and every file layout."""
    X, y = counts()
    df, yt = table()
    cities = np.array(table()[0]["city"].fillna("none")).reshape(-1, 1)
    return {
        "multinomial": (MultinomialNB(alpha=0.5), X, y),
        "complement": (ComplementNB(), X, y),
        "bernoulli": (BernoulliNB(binarize=1.0, missing="ignore"), X, y),
        "poisson": (PoissonNB(), X, y),
        "gaussian": (GaussianNB(), X, y),
        "categorical": (CategoricalNB(), X.astype(np.int64), y),
        "categorical_values": (CategoricalNB(), cities, yt),
        "density": (DensityNB(), X, y),
        "mixed": (MixedNB(), df, yt),
        "aode": (AODE(), df.fillna({"temp": 0.0, "city": "none"}), yt),
        # The semi-naive models' count tables of orders 1, 2 and 3, their class counts and
        # JointBayes' table of vectors, written before they became typed values.
        "aode2": (AODE(n=2, missing="category"), df, yt),
        "tan": (TAN(), df, yt),
        "kdb": (KDB(k=2), df, yt),
        "jointbayes": (JointBayes(), df, yt),
        "jointbayes_backoff": (JointBayes(backoff=MixedNB()), df, yt),
    }


@pytest.mark.parametrize("name", sorted(cases()))
def test_files_of_format_1_predict_bit_identically(name, tmp_path):
    _, X, _ = cases()[name]
    path = FIXTURES / f"{name}.nbayes"
    loaded = load(path)
    expected = np.load(FIXTURES / f"{name}.npy", allow_pickle=False)
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)
    # A loaded model saves the same arrays again (its statistics came back exactly).
    again = load(save(loaded, tmp_path / "again.nbayes"))
    np.testing.assert_array_equal(again.predict_proba(X), expected)


@pytest.mark.parametrize("name", sorted(cases()))
def test_files_of_format_1_are_saved_again_byte_for_byte(name, tmp_path):
    # The typed statistics write exactly the manifest and arrays format 1 wrote.
    path = FIXTURES / f"{name}.nbayes"
    again = save(load(path), tmp_path / "again.nbayes")
    with zipfile.ZipFile(path) as old, zipfile.ZipFile(again) as new:
        assert sorted(new.namelist()) == sorted(old.namelist())
        assert json.loads(new.read("manifest.json")) == json.loads(old.read("manifest.json"))
        for member in old.namelist():
            assert new.read(member) == old.read(member), member


def make_fixtures() -> None:  # pragma: no cover - run by hand, once
    """Write the files and their recorded probabilities; never overwrite one."""
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, (model, X, y) in cases().items():
        path = FIXTURES / f"{name}.nbayes"
        if not path.exists():
            model.fit(X, y)
            save(model, path)
            np.save(FIXTURES / f"{name}.npy", model.predict_proba(X), allow_pickle=False)


if __name__ == "__main__":  # pragma: no cover
    make_fixtures()
