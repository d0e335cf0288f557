"""Bad input gets a clear error naming what, where and how to fix; degenerate input works."""

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes
from nbayes.exceptions import DataError, NotFittedError, ParameterError, UnknownLabelError

Y = np.array([0, 1, 0, 1])
COUNTS = np.array([[1, 0, 2], [0, 3, 1], [2, 2, 0], [0, 1, 4]], dtype=float)


def with_cell(X, row, col, value):
    X = np.array(X, dtype=float)
    X[row, col] = value
    return X


def test_unknown_label_in_partial_fit():
    m = nbayes.BernoulliNB().partial_fit(COUNTS, Y, classes=[0, 1])
    with pytest.raises(UnknownLabelError, match=r"Label 5 at row 2 is not among classes \[0, 1\]"):
        m.partial_fit(COUNTS, [0, 1, 5, 0])


def test_partial_fit_needs_classes_first():
    with pytest.raises(ParameterError, match="classes must be passed on the first call"):
        nbayes.GaussianNB().partial_fit(COUNTS, Y)


@pytest.mark.parametrize(
    "cls", [nbayes.MultinomialNB, nbayes.ComplementNB, nbayes.PoissonNB, nbayes.CategoricalNB]
)
@pytest.mark.parametrize("sparse", [False, True])
def test_negative_values_rejected_at_fit_and_predict(cls, sparse):
    bad = with_cell(COUNTS, 2, 1, -2)
    wrap = sp.csr_matrix if sparse else np.asarray
    with pytest.raises(
        DataError,
        match=r"[Cc]olumn index 1 must hold non-negative .* got -2.0 "
        r"at row 2.*Negative values in data",
    ):
        cls().fit(wrap(bad), Y)
    model = cls().fit(wrap(COUNTS), Y)
    with pytest.raises(DataError, match=r"[Cc]olumn index 1 .* got -2.0 at row 2"):
        model.predict(wrap(bad))


@pytest.mark.parametrize("cls", [nbayes.PoissonNB, nbayes.CategoricalNB])
def test_non_integer_values_rejected(cls):
    with pytest.raises(
        DataError,
        match=r"[Cc]olumn index 0 must hold non-negative integer .* "
        r"got 0.5 at row 3",
    ):
        cls().fit(with_cell(COUNTS, 3, 0, 0.5), Y)


def test_bernoulli_without_binarize_needs_zero_one():
    X = (COUNTS > 0).astype(float)
    with pytest.raises(
        DataError,
        match=r"[Cc]olumn index 2 must hold 0/1 values .* got 3.0 at "
        r"row 1.*binarize",
    ):
        nbayes.BernoulliNB(binarize=None).fit(with_cell(X, 1, 2, 3), Y)


@pytest.mark.parametrize(
    "cls",
    [
        nbayes.GaussianNB,
        nbayes.MultinomialNB,
        nbayes.BernoulliNB,
        nbayes.CategoricalNB,
        nbayes.PoissonNB,
        nbayes.ComplementNB,
    ],
)
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_nan_and_inf_rejected_with_a_hint(cls, value):
    with pytest.raises(
        DataError,
        match=r"[Cc]olumn index 1 must hold finite values \(no NaN or "
        r"inf\) for \w+ features; got (nan|inf) at row 2.*"
        r"missing='ignore'",
    ):
        cls().fit(with_cell(COUNTS, 2, 1, value), Y)


def test_missing_ignore_still_rejects_inf():
    with pytest.raises(DataError, match=r"finite values or NaN.*got inf at row 0"):
        nbayes.GaussianNB(missing="ignore").fit(with_cell(COUNTS, 0, 0, np.inf), Y)


def test_error_rows_count_from_the_start_of_the_data_not_the_chunk():
    X = np.ones((50_000, 40))
    X[43_210, 7] = -1.0
    with pytest.raises(DataError, match=r"got -1.0 at row 43210"):
        nbayes.MultinomialNB().fit(X, np.arange(50_000) % 2)


LAZY = [
    nbayes.GaussianNB,
    nbayes.MultinomialNB,
    nbayes.ComplementNB,
    nbayes.PoissonNB,
    lambda: nbayes.GaussianNB(estimate="posterior_predictive"),
]


@pytest.mark.parametrize("make", LAZY)
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("missing", ["error", "ignore"])
def test_bad_values_found_from_the_results_are_still_named(make, value, missing, monkeypatch):
    # Gaussian and count families find NaN and inf from their statistics and scores instead
    # of a pass over X; the error must still name the cell, past the first chunk, at fit and
    # at predict, and nothing may warn on the way (inf - inf makes NaN).
    import warnings

    import nbayes.distributions._arrays as base

    monkeypatch.setattr(base, "CHUNK_BYTES", 4096)
    rng = np.random.default_rng(0)
    X = rng.poisson(2.0, size=(3000, 6)).astype(float)
    y = np.arange(3000) % 3
    model = make().set_params(missing=missing)
    bad = with_cell(X, 2345, 4, value)
    if missing == "ignore" and np.isnan(value):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model.fit(bad, y).predict_proba(bad)  # missing, not bad
        return
    where = r"[Cc]olumn index 4 must hold finite values.* got -?(nan|inf) at row 2345"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DataError, match=where):
            make().set_params(missing=missing).fit(bad, y)
        model.fit(X, y)
        with pytest.raises(DataError, match=where):
            model.predict_proba(bad)


def test_error_names_dataframe_columns():
    import pandas as pd

    df = pd.DataFrame(COUNTS, columns=["free", "txt", "claim"])
    df.loc[1, "claim"] = -1
    with pytest.raises(DataError, match=r"Column 'claim' \(index 2\) must hold non-negative"):
        nbayes.MultinomialNB().fit(df, Y)


def test_wrong_number_of_features():
    model = nbayes.GaussianNB().fit(COUNTS, Y)
    with pytest.raises(ValueError, match="X has 2 features, but GaussianNB is expecting 3"):
        model.predict(COUNTS[:, :2])


def test_sparse_input_is_checked_as_scikit_learn_checks_it():
    # A numeric CSR matrix of the fitted width is taken as it is (no copy, no conversion);
    # any other still meets scikit-learn's checks and their messages.
    import pandas as pd

    model = nbayes.MultinomialNB().fit(sp.csr_matrix(COUNTS), Y)
    X = sp.csr_matrix(COUNTS.astype(np.int64))
    assert model._validate_X(X, reset=False) is X
    with pytest.raises(ValueError, match="X has 2 features, but MultinomialNB is expecting 3"):
        model.predict(sp.csr_matrix(COUNTS[:, :2]))
    with pytest.raises(ValueError, match="Found array with 0 sample"):
        model.predict(sp.csr_matrix((0, 3)))
    with pytest.raises(ValueError, match=r"[Cc]omplex data not supported"):
        model.predict(sp.csr_matrix(COUNTS.astype(complex)))
    np.testing.assert_array_equal(model.predict(sp.csc_matrix(COUNTS)), model.predict(COUNTS))
    named = nbayes.MultinomialNB().fit(pd.DataFrame(COUNTS, columns=["a", "b", "c"]), Y)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        named.predict(X)


@pytest.mark.parametrize(
    "prior, message",
    [
        ([0.5, 0.3, 0.2], r"must have one probability per class \(2\); got shape \(3,\)"),
        ([0.5, 0.6], r"must be non-negative and sum to 1; got sum 1.1"),
        ([1.5, -0.5], r"must be non-negative and sum to 1"),
    ],
)
def test_bad_priors(prior, message):
    with pytest.raises(ParameterError, match=r"'class_prior' " + message):
        nbayes.MultinomialNB(class_prior=prior).fit(COUNTS, Y)
    with pytest.raises(ParameterError, match=r"'priors' " + message):
        nbayes.GaussianNB(priors=prior).fit(COUNTS, Y)


def test_negative_sample_weight():
    with pytest.raises(
        DataError,
        match=r"sample_weight must be finite and non-negative; got "
        r"-1.0 at row 2",
    ):
        nbayes.GaussianNB().fit(COUNTS, Y, sample_weight=[1, 1, -1, 1])


@pytest.mark.parametrize(
    "X, message",
    [
        (np.array([1.0, 2.0, 3.0, 4.0]), "Expected 2D array, got 1D array"),
        (np.empty((0, 3)), "Found array with 0 sample"),
    ],
)
def test_one_dimensional_or_empty_X(X, message):
    with pytest.raises(ValueError, match=message):
        nbayes.GaussianNB().fit(X, Y[: X.shape[0]] if X.ndim == 2 else Y)


def test_bad_parameters():
    with pytest.raises(ParameterError, match=r"'estimate' must be one of"):
        nbayes.MultinomialNB(estimate="bayes").fit(COUNTS, Y)
    with pytest.raises(ParameterError, match=r"estimate='map' needs alpha >= 1"):
        nbayes.MultinomialNB(alpha=0.5, estimate="map").fit(COUNTS, Y)
    with pytest.raises(ParameterError, match=r"'alpha' must be finite and non-negative"):
        nbayes.BernoulliNB(alpha=-1).fit(COUNTS, Y)
    with pytest.raises(
        ParameterError,
        match=r"'alpha' must be a scalar or have one value per "
        r"feature \(3\); got shape \(2,\)",
    ):
        nbayes.MultinomialNB(alpha=[1, 2]).fit(COUNTS, Y)
    with pytest.raises(ParameterError, match=r"'missing' must be one of"):
        nbayes.GaussianNB(missing="drop").fit(COUNTS, Y)


@pytest.mark.parametrize(
    "make", [nbayes.MultinomialNB, nbayes.CategoricalNB, nbayes.MixedNB, nbayes.AODE, nbayes.TAN]
)
@pytest.mark.parametrize("alpha", [[1, "a", 2], {"a": 1}, None])
def test_an_alpha_that_is_not_numbers_is_a_parameter_error(make, alpha):
    # was numpy's "could not convert string to float: 'a'" (or "got nan" for None)
    with pytest.raises(ParameterError) as caught:
        make(alpha=alpha).fit(COUNTS.astype(int), Y)
    assert str(caught.value).startswith("Parameter 'alpha' must be ")
    assert str(caught.value).endswith(f"; got {alpha!r}.")


@pytest.mark.parametrize("make", [nbayes.AODE, nbayes.TAN, nbayes.KDB, nbayes.JointBayes])
def test_semi_naive_models_say_they_do_not_choose_alpha(make):
    with pytest.raises(ParameterError) as caught:
        make(alpha="cv").fit(COUNTS, Y)
    assert str(caught.value) == (
        "Parameter 'alpha' must be a non-negative number or one per feature; got 'cv'. This "
        "model does not choose alpha itself ('auto' and 'cv' are for the naive Bayes "
        "estimators); compare values with sklearn.model_selection.GridSearchCV."
    )


def test_unseen_category_code_at_predict():
    model = nbayes.CategoricalNB().fit(COUNTS.astype(int), Y)
    with pytest.raises(
        DataError,
        match=r"[Cc]olumn index 2 has category code 9 at row 1.*knows 5 "
        r"categories",
    ):
        model.predict(with_cell(COUNTS, 1, 2, 9))


def test_not_fitted():
    with pytest.raises(NotFittedError):
        nbayes.MultinomialNB().predict(COUNTS)


def test_mismatched_lengths():
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples|rows but y has"):
        nbayes.MultinomialNB().fit(COUNTS, Y[:3])


def test_raise_at_names_the_first_cell_in_row_major_order_and_passes_a_clean_mask():
    """The helper that families (the library's and a user's, see test_new_family.py) call
    with a mask of bad cells: a sparse mask may store cells that are False (a check over
    ``X.data`` marks every stored value), which never count; a mask with no True cell passes."""
    from nbayes._validation import raise_at

    X = sp.csr_matrix(np.array([[5.0, 0, 0, 0], [0, 0, 0, 7.0], [0, -2.0, 0, 0]]))
    mask = X.copy()
    mask.data = np.array([False, True, True])  # rows 0, 1, 2 in order: 5.0, 7.0, -2.0
    names = ["a", "b", "c", "d"]
    with pytest.raises(
        DataError,
        match=r"^Column 'd' \(index 3\) must hold small values for Test features; got 7\.0 "
        r"at row 11\. Fix it\.$",
    ):
        raise_at(mask, X, "small values", "Fix it.", "Test", names, row_offset=10)
    mask.data[:] = False
    assert raise_at(mask, X, "small values", "Fix it.", "Test", names) is None
    assert raise_at(np.zeros((3, 4), dtype=bool), X.toarray(), "x", "y", "Test") is None


# ---- degenerate but valid --------------------------------------------------------------------


def test_all_constant_gaussian_features():
    X = np.full((6, 3), 4.2)
    m = nbayes.GaussianNB().fit(X, [0, 0, 0, 1, 1, 1])
    proba = m.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba, 0.5)


def test_one_sample_partial_fit_batches():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(8, 3)), np.array([0, 1] * 4)
    for cls in (nbayes.GaussianNB, nbayes.MultinomialNB, nbayes.BernoulliNB):
        m = cls()
        data = np.abs(X) if cls is not nbayes.GaussianNB else X
        for i in range(8):
            m.partial_fit(data[i : i + 1], y[i : i + 1], classes=[0, 1])
            assert np.isfinite(m.predict_proba(data)).all()
        full = cls().fit(data, y)
        np.testing.assert_allclose(
            m.predict_log_proba(data), full.predict_log_proba(data), rtol=1e-9
        )


def test_class_not_yet_seen_in_partial_fit_is_finite():
    m = nbayes.GaussianNB().partial_fit(COUNTS[:1], [0], classes=[0, 1])
    assert np.isfinite(m.predict_proba(COUNTS)).all()
    np.testing.assert_allclose(m.predict_proba(COUNTS)[:, 0], 1.0)


@pytest.mark.parametrize(
    "cls",
    [
        nbayes.GaussianNB,
        nbayes.MultinomialNB,
        nbayes.BernoulliNB,
        nbayes.CategoricalNB,
        nbayes.PoissonNB,
        nbayes.ComplementNB,
    ],
)
def test_single_class(cls):
    m = cls().fit(COUNTS, [7, 7, 7, 7])
    np.testing.assert_array_equal(m.predict(COUNTS), [7, 7, 7, 7])
    np.testing.assert_allclose(m.predict_proba(COUNTS), 1.0)


def test_gaussian_zero_variance_without_floor_is_an_error():
    X = np.array([[1.0, 2.0], [1.0, 3.0], [1.0, 5.0], [3.0, 4.0]])
    with pytest.raises(ParameterError, match=r"zero variance and var_smoothing=0"):
        nbayes.GaussianNB(var_smoothing=0).fit(X, Y)


@pytest.mark.parametrize("value", [2.5, -1.0, np.nan])
@pytest.mark.parametrize("sparse", [False, True])
def test_whole_count_check_sees_every_block(value, sparse, monkeypatch):
    # The whole-number check of Poisson counts runs block by block (in cache); a bad value in
    # the last, partial block must still be found, and named.
    import scipy.sparse as sp

    import nbayes.distributions.multinomial as multinomial

    monkeypatch.setattr(multinomial, "WHOLE_CHECK_BLOCK", 8)
    X = np.arange(1, 61, dtype=float).reshape(20, 3)
    assert multinomial.plain_counts(X, integer=True)
    bad = X.copy()
    bad[19, 2] = value
    assert not multinomial.plain_counts(sp.csr_matrix(bad) if sparse else bad, integer=True)
    what = "finite values" if np.isnan(value) else "non-negative integer counts"
    with pytest.raises(DataError, match=rf"[Cc]olumn index 2 must hold {what}.* at row 19"):
        nbayes.PoissonNB().fit(sp.csr_matrix(bad) if sparse else bad, np.arange(20) % 2)


@pytest.mark.parametrize(
    ("labels", "shown"),
    [
        (["s", None, "s", "t"], "None"),
        ([1.0, np.nan, 1.0, 0.0], "nan"),
        (["s", "t", float("nan"), "t"], "nan"),
    ],
)
@pytest.mark.parametrize("make", [nbayes.MultinomialNB, nbayes.MixedNB, nbayes.TAN, nbayes.TextNB])
def test_a_missing_label_names_its_row_and_the_semi_supervised_way(make, labels, shown):
    # Sorting None among strings used to fail with "'<' not supported between ...".
    X = ["free prize", "hello there", "win cash", "see you"] if make is nbayes.TextNB else np.eye(4)
    row = next(i for i, v in enumerate(labels) if v is None or v != v)
    with pytest.raises(
        DataError, match=rf"label at row {row} is missing \({shown}\).*SemiSupervisedNB"
    ):
        make().fit(X, labels)


def test_an_infinite_value_is_not_called_missing():
    with pytest.raises(DataError, match=r"got inf at row 1\. Replace infinite values"):
        nbayes.GaussianNB().fit([[1.0, 2.0], [3.0, np.inf], [2.0, np.nan]], [0, 1, 1])
    with pytest.raises(DataError, match=r"got nan at row 1\. Impute or drop missing values"):
        nbayes.GaussianNB().fit([[1.0, 2.0], [3.0, np.nan], [2.0, np.inf]], [0, 1, 1])
