"""missing="ignore", value by value, for every preset family.

For the families whose parameters are per feature (Bernoulli, Categorical, Gaussian, Poisson), a
missing cell is marginalised exactly: a row missing column j scores like a model trained without
column j, and a model trained with column j missing on some rows learns column j from the other
rows only. The count families whose parameters are shared across features (Multinomial,
Complement) drop the cell's factor, i.e. read it as a zero count, at fit and at predict.
"""

import numpy as np
import pytest
from _cases import make_case
from sklearn.base import clone

PER_FEATURE = ["bernoulli", "categorical", "gaussian", "poisson"]
SHARED = ["multinomial", "complement"]
#: GaussianNB's variance floor is var_smoothing x the largest feature variance, so leaving a
#: column out may move the floor (by 1e-9 of a variance); everything else is exact.
RTOL = {"gaussian": 1e-8}


def case(name, seed=4):
    model, X, y = make_case(name, n=90, d=4, k=3, seed=seed)
    return model.set_params(missing="ignore"), X.astype(np.float64), y


def with_nan(X, rows, column):
    X = X.copy()
    X[rows, column] = np.nan
    return X


@pytest.mark.parametrize("column", [0, 2])
@pytest.mark.parametrize("name", PER_FEATURE)
def test_a_missing_cell_scores_like_a_model_without_its_column(name, column):
    model, X, y = case(name)
    full = clone(model).fit(X, y)
    others = [c for c in range(X.shape[1]) if c != column]
    without = clone(model).fit(X[:, others], y)
    rows = np.arange(0, 90, 3)
    got = full.predict_joint_log_proba(with_nan(X, rows, column))
    rtol = RTOL.get(name, 1e-12)
    np.testing.assert_allclose(
        got[rows], without.predict_joint_log_proba(X[rows][:, others]), rtol=rtol
    )
    # The other rows are untouched.
    rest = np.setdiff1d(np.arange(90), rows)
    np.testing.assert_array_equal(got[rest], full.predict_joint_log_proba(X[rest]))
    np.testing.assert_allclose(
        full.predict_proba(with_nan(X, rows, column))[rows],
        without.predict_proba(X[rows][:, others]),
        rtol=rtol,
        atol=1e-15,
    )


@pytest.mark.parametrize("name", PER_FEATURE)
def test_training_learns_a_column_from_the_rows_that_have_it(name):
    model, X, y = case(name, seed=8)
    column, rows = 1, np.arange(5, 90, 4)  # every class keeps rows that have the column
    trained = clone(model).fit(with_nan(X, rows, column), y)
    observed = np.setdiff1d(np.arange(90), rows)
    others = [c for c in range(X.shape[1]) if c != column]
    # Per-feature terms of the log-likelihood (the class prior is left out of them).
    terms = trained.explain(X).terms
    full_terms = clone(model).fit(X[:, others], y).explain(X[:, others]).terms
    only_j = clone(model).fit(X[observed][:, [column]], y[observed])
    rtol = RTOL.get(name, 1e-12)
    np.testing.assert_allclose(terms[:, :, others], full_terms, rtol=rtol, atol=1e-12)
    np.testing.assert_allclose(
        terms[:, :, column], only_j.explain(X[:, [column]]).terms[:, :, 0], rtol=rtol, atol=1e-12
    )
    # The class prior still counts every row.
    np.testing.assert_array_equal(trained.class_count_, np.bincount(y))


@pytest.mark.parametrize("name", SHARED)
def test_count_models_read_a_missing_count_as_zero(name):
    model, X, y = case(name)
    rows, column = np.arange(0, 90, 3), 2
    zero = with_nan(X, rows, column)
    zero[rows, column] = 0
    nan = with_nan(X, rows, column)
    full = clone(model).fit(X, y)
    np.testing.assert_allclose(
        full.predict_joint_log_proba(nan), full.predict_joint_log_proba(zero), rtol=1e-12
    )
    np.testing.assert_array_equal(full.explain(nan).terms[rows, :, column], 0.0)
    trained, reference = clone(model).fit(nan, y), clone(model).fit(zero, y)
    np.testing.assert_array_equal(trained.feature_count_, reference.feature_count_)
    np.testing.assert_allclose(trained.feature_log_prob_, reference.feature_log_prob_, rtol=1e-12)
    assert not np.allclose(trained.feature_log_prob_, full.feature_log_prob_)
