"""Finite input gives finite statistics, or fit refuses it naming the column and row.

One value of 1e200 used to make GaussianNB's var_ NaN (every prediction 0.5 / 0.5) and the
model unsavable ("the file is corrupt"); counts near 1e308 summed to inf in the count
families. What fit accepts must save, load and score.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import nbayes
from nbayes.cli import main
from nbayes.exceptions import DataError


def table(rng, n=100):
    y = rng.integers(0, 2, size=n)
    return rng.normal(size=(n, 2)) + y[:, None], y


@pytest.mark.parametrize("layout", [np.ascontiguousarray, np.asfortranarray])
def test_gaussian_refuses_a_value_whose_square_overflows(layout):
    # C order runs the compiled moment loop, Fortran order numpy's fallback.
    X, y = table(np.random.default_rng(0))
    X[5, 1] = 1e200
    with pytest.raises(
        DataError,
        match=r"Column index 1: values too large for the gaussian family.*float64.*"
        r"largest magnitude is 1e\+200 at row 5\. Rescale",
    ):
        nbayes.GaussianNB().fit(layout(X), y)
    X[5, 1] = -1e200
    with pytest.raises(DataError, match=r"-1e\+200 at row 5"):
        nbayes.GaussianNB(var_smoothing="auto").fit(layout(X), y)


def test_mixed_names_the_column_and_a_batch_that_overflows_leaves_the_model_alone(tmp_path):
    X, y = table(np.random.default_rng(1))
    df = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": np.where(y == 1, "x", "y")})
    df.loc[17, "b"] = 1e200
    with pytest.raises(DataError, match=r"Column 'b' \(index 1\).*1e\+200 at row 17"):
        nbayes.MixedNB().fit(df, y)
    # Each batch finite on its own, their sum not: the second partial_fit is refused and
    # the model keeps what it had, which still saves and loads.
    df.loc[17, "b"], df.loc[60, "b"] = 1e154, -1e154
    y[17] = y[60] = 0
    model = nbayes.MixedNB().partial_fit(df[:50], y[:50], classes=[0, 1])
    before = model.predict_proba(df[:50])
    with pytest.raises(DataError, match=r"Column 'b' \(index 1\): values too large"):
        model.partial_fit(df[50:], y[50:])
    np.testing.assert_array_equal(model.predict_proba(df[:50]), before)
    path = nbayes.save(model, tmp_path / "m.nbayes")
    np.testing.assert_array_equal(nbayes.load(path).predict_proba(df[:50]), before)


@pytest.mark.parametrize("value", [1e150, 1.3e154])
def test_large_finite_values_that_fit_accepts_save_load_and_score(tmp_path, value):
    # 1.3e154 in the first row: squared deviations from that row overflow, those from the
    # class means do not, and the moments are summed again around the means.
    X, y = table(np.random.default_rng(2))
    X[0, 1] = value
    model = nbayes.GaussianNB().fit(X, y)
    assert np.all(np.isfinite(model.var_)) and model.var_.max() > 1e297
    proba = nbayes.load(nbayes.save(model, tmp_path / "g.nbayes")).predict_proba(X)
    np.testing.assert_array_equal(proba, model.predict_proba(X))
    assert np.all(np.isfinite(proba))


@pytest.mark.parametrize("cls", [nbayes.MultinomialNB, nbayes.PoissonNB, nbayes.ComplementNB])
@pytest.mark.parametrize("sparse", [False, True])
def test_counts_that_sum_past_the_float64_range_are_refused(cls, sparse):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, size=60)
    y[:2] = 0
    C = rng.poisson(3, size=(60, 3)).astype(float)
    C[0, 1] = C[1, 1] = 1e308  # each finite, their sum is not
    with pytest.raises(
        DataError, match=r"Column index 1: values too large.*sums of the values.*1e\+308 at row 0"
    ):
        cls().fit(sp.csr_matrix(C) if sparse else C, y)


def test_counts_of_one_class_that_sum_past_the_range_over_columns_are_refused():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, size=60)
    C = rng.poisson(3, size=(60, 3)).astype(float)
    C[0, 1] = C[0, 2] = 1e308  # finite per column, not over the row
    with pytest.raises(DataError, match=r"The multinomial columns together: values too large"):
        nbayes.MultinomialNB().fit(C, y)


def test_merging_models_whose_sums_overflow_is_refused():
    X, y = table(np.random.default_rng(5))
    X[y == 0, 1] = 0.0
    X[0, 1], X[1, 1] = 1e154, -1e154
    y[:2] = 0
    a = nbayes.GaussianNB().fit(X[[0, *range(2, 50)]], y[[0, *range(2, 50)]])
    b = nbayes.GaussianNB().fit(X[1:], y[1:])
    with pytest.raises(DataError, match=r"Column index 1: values too large for the gaussian"):
        nbayes.merge(a, b)


def test_cli_train_refuses_a_huge_value_with_the_column_and_row(tmp_path, capsys):
    X, y = table(np.random.default_rng(6), n=40)
    df = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y})
    df.loc[17, "b"] = 1e200
    df.to_csv(tmp_path / "huge.csv", index=False)
    data, out = str(tmp_path / "huge.csv"), str(tmp_path / "m.nbayes")
    status = main(["train", data, "-t", "y", "--model", "gaussian", "-o", out])
    err = capsys.readouterr().err
    assert status == 1
    assert "Column 'b' (index 1): values too large for the gaussian family" in err
    assert "1e+200 at row 17" in err
    assert not (tmp_path / "m.nbayes").exists()


@pytest.mark.parametrize(
    "params", [{}, {"estimate": "posterior_predictive"}, {"var_pooling": "shared"}]
)
def test_a_value_too_far_to_score_is_named_not_answered_uniformly(params):
    # A finite value whose squared distance from the means overflows made every class -inf:
    # a uniform posterior with a warning about alpha=0. It is named instead, with no warning.
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.arange(200) % 2
    model = nbayes.GaussianNB(**params).fit(X, y)
    far = X[:3].copy()
    far[1, 2] = 1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DataError, match=r"[Cc]olumn index 2 .*got 1e\+200 at row 1\. Rescale"):
            model.predict_proba(far)
    np.testing.assert_allclose(model.predict_proba(X[:3]).sum(axis=1), 1.0)


def test_a_mixed_gaussian_column_too_far_to_score_is_named():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(100, 2)), columns=["a", "b"])
    y = np.arange(100) % 2
    model = nbayes.MixedNB().fit(frame, y)
    far = frame.iloc[:4].copy()
    far.loc[3, "b"] = -1e180
    with pytest.raises(DataError, match=r"[Cc]olumn 'b' \(index 1\).*got -1e\+180 at row 3"):
        model.predict(far)
