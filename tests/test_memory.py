"""predict_proba works in row chunks: its peak memory stays near the size of its input."""

import tracemalloc

import numpy as np
import pytest

import nbayes


@pytest.mark.parametrize(
    "cls, make",
    [
        (nbayes.GaussianNB, lambda r, s: r.normal(size=s)),
        (nbayes.MultinomialNB, lambda r, s: r.poisson(2.0, size=s).astype(float)),
        (nbayes.CategoricalNB, lambda r, s: r.integers(0, 6, size=s)),
    ],
)
def test_predict_proba_peak_memory_is_bounded_by_input_size(cls, make):
    rng = np.random.default_rng(0)
    X = make(rng, (300_000, 20))  # 48 MB, several times the engine's chunk budget
    model = cls().fit(X[:5000], rng.integers(0, 5, size=5000))
    tracemalloc.start()
    try:
        proba = model.predict_proba(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    extra = peak - proba.nbytes  # what prediction needed besides its own output
    assert extra < X.nbytes, f"peak {peak / 1e6:.0f} MB for a {X.nbytes / 1e6:.0f} MB input"


def test_mixed_predict_on_string_columns_stays_near_the_table_size():
    # Category columns are encoded one at a time from the frame's own storage: no object
    # array of every cell (a pointer and a Python string each) is made on the way.
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 100_000
    words = np.array(["red", "green", "blue", "cyan", "magenta", "yellow"])
    df = pd.DataFrame({f"c{j}": pd.array(rng.choice(words, n), dtype="string") for j in range(6)})
    df["x"] = rng.normal(size=n)
    y = rng.integers(0, 3, size=n)
    model = nbayes.MixedNB().fit(df, y)
    size = int(df.memory_usage(deep=True).sum())
    tracemalloc.start()
    try:
        # One thread: each worker thread holds one more chunk of temporaries (about 16 MB),
        # as large as the encoding this test is about on a table of this size.
        with nbayes.threads(1):
            model.predict_proba(df)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * size, f"peak {peak / 1e6:.1f} MB for a {size / 1e6:.1f} MB table"
