"""Public merge of models and exact unlearning, for every preset."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes
from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    DataError,
    GaussianNB,
    MultinomialNB,
    ParameterError,
    PoissonNB,
    UnknownLabelError,
)

PRESETS = [GaussianNB, MultinomialNB, ComplementNB, BernoulliNB, CategoricalNB, PoissonNB]


def make_data(estimator_cls, n=240, d=6, seed=0, n_classes=3):
    rng = np.random.default_rng(seed)
    y = np.array(["ham", "spam", "eggs"])[rng.integers(0, n_classes, n)]
    if estimator_cls is GaussianNB:
        # A large offset checks that moments merge and subtract without cancellation.
        X = 1e4 + rng.normal(size=(n, d)) * (1 + np.arange(d))
    else:
        X = rng.poisson(1.5, size=(n, d)).astype(np.float64)
    return X, y


def assert_same_model(a, b, rtol=1e-10, atol=1e-10):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.stats_["class_count"], b.stats_["class_count"], rtol=rtol)
    for ga, gb in zip(a.stats_["groups"], b.stats_["groups"]):
        assert ga.keys() == gb.keys()
        for key in ga:
            np.testing.assert_allclose(ga[key], gb[key], rtol=rtol, atol=atol, err_msg=key)
    for fam, pa, pb in zip(a.families_, a.params_, b.params_):
        pa, pb = fam.canonical_params(pa), fam.canonical_params(pb)
        for key in pa:
            np.testing.assert_allclose(pa[key], pb[key], rtol=rtol, atol=atol, err_msg=key)
    np.testing.assert_allclose(a.class_log_prior_, b.class_log_prior_, rtol=rtol)


@pytest.mark.parametrize("cls", PRESETS)
def test_merge_of_shards_equals_fit_on_union(cls):
    X, y = make_data(cls)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    cuts = [0, 70, 71, 180, len(y)]  # includes a one-row shard
    shards = [
        cls().fit(X[a:b], y[a:b], sample_weight=w[a:b])
        if b - a > 1
        else cls().partial_fit(X[a:b], y[a:b], classes=np.unique(y), sample_weight=w[a:b])
        for a, b in itertools.pairwise(cuts)
    ]
    # A shard that saw only some classes joins through partial_fit(classes=...).
    merged = nbayes.merge(*shards)
    assert_same_model(merged, cls().fit(X, y, sample_weight=w))
    np.testing.assert_array_equal(merged.predict(X), cls().fit(X, y, sample_weight=w).predict(X))


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB, CategoricalNB, PoissonNB])
def test_merge_sparse_shards(cls):
    X, y = make_data(cls)
    X = sp.csr_matrix(X)
    merged = nbayes.merge(cls().fit(X[:100], y[:100]), cls().fit(X[100:], y[100:]))
    assert_same_model(merged, cls().fit(X, y))


def test_merge_aligns_classes_listed_in_another_order_and_leaves_inputs_alone():
    X, y = make_data(MultinomialNB)
    eggs = y[:100] == "eggs"
    a = MultinomialNB().partial_fit(
        X[:100][~eggs], y[:100][~eggs], classes=["spam", "ham", "toast"]
    )
    a.partial_fit(X[:100][eggs], y[:100][eggs], classes=["spam", "ham", "toast", "eggs"])
    assert a.classes_.tolist() == ["ham", "spam", "toast", "eggs"]
    b = MultinomialNB().partial_fit(X[100:], y[100:], classes=["toast", "spam", "ham", "eggs"])
    before = a.feature_count_.copy()
    merged = nbayes.merge(b, a)
    np.testing.assert_array_equal(a.feature_count_, before)
    full = MultinomialNB().partial_fit(X, y, classes=["toast", "spam", "ham", "eggs"])
    assert_same_model(merged, full)


def test_merge_categorical_takes_the_union_of_category_codes():
    X = np.array([[0, 1], [1, 0], [2, 0], [0, 3]])
    y = np.array([0, 1, 0, 1])
    merged = nbayes.merge(CategoricalNB().fit(X[:2], y[:2]), CategoricalNB().fit(X[2:], y[2:]))
    full = CategoricalNB().fit(X, y)
    np.testing.assert_array_equal(merged.n_categories_, [3, 4])
    for got, want in zip(merged.feature_log_prob_, full.feature_log_prob_):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(
    "other, message",
    [
        (lambda X, y: GaussianNB().fit(X, y), r"model 2 \(GaussianNB\) into model 1 \(Multinomi"),
        (lambda X, y: MultinomialNB(alpha=0.5).fit(X, y), r"model 2 has alpha=0.5 but model 1 "),
        (
            lambda X, y: MultinomialNB().fit(X[:, :3], y),
            r"model 2 has 3 features but model 1 has 6",
        ),
        (
            lambda X, y: MultinomialNB().fit(X, np.where(y == "eggs", "ham", y)),
            r"only in model 1: \['eggs'\]; only in model 2: \[\]\).*classes=all_classes",
        ),
    ],
)
def test_merge_names_the_difference(other, message):
    X, y = make_data(MultinomialNB)
    with pytest.raises(ParameterError, match=message):
        nbayes.merge(MultinomialNB().fit(X, y), other(X, y))


def test_merge_rejects_unfitted_and_foreign_objects():
    X, y = make_data(MultinomialNB)
    with pytest.raises(nbayes.NotFittedError):
        nbayes.merge(MultinomialNB().fit(X, y), MultinomialNB())
    with pytest.raises(ParameterError, match="model 2 is a str"):
        nbayes.merge(MultinomialNB().fit(X, y), "model.nb")
    with pytest.raises(ParameterError, match="at least one"):
        nbayes.merge()


def test_merge_checks_column_names():
    import pandas as pd

    X, y = make_data(MultinomialNB)
    a = MultinomialNB().fit(pd.DataFrame(X, columns=list("abcdef")), y)
    b = MultinomialNB().fit(pd.DataFrame(X, columns=list("abcdeg")), y)
    with pytest.raises(ParameterError, match=r"model 2 was fitted on columns \['a'.*'g'\]"):
        nbayes.merge(a, b)


@pytest.mark.parametrize("cls", PRESETS)
@pytest.mark.parametrize("weighted", [False, True])
def test_unlearn_equals_training_without_the_rows(cls, weighted):
    X, y = make_data(cls)
    w = np.random.default_rng(2).uniform(0.1, 3.0, len(y)) if weighted else np.ones(len(y))
    forget = np.zeros(len(y), bool)
    forget[np.random.default_rng(3).choice(len(y), 60, replace=False)] = True
    model = cls().fit(X, y, sample_weight=w)
    model.unlearn(X[forget], y[forget], sample_weight=w[forget])
    kept = cls().fit(X[~forget], y[~forget], sample_weight=w[~forget])
    assert_same_model(model, kept, rtol=1e-9, atol=1e-9)
    # Learning the rows again restores the original model.
    model.partial_fit(X[forget], y[forget], sample_weight=w[forget])
    assert_same_model(model, cls().fit(X, y, sample_weight=w), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB, CategoricalNB, PoissonNB])
def test_unlearn_sparse(cls):
    X, y = make_data(cls)
    X = sp.csr_matrix(X)
    model = cls().fit(X, y).unlearn(X[:50], y[:50])
    assert_same_model(model, cls().fit(X[50:], y[50:]))


def test_unlearning_a_whole_class_keeps_it_with_zero_weight():
    X, y = make_data(GaussianNB)
    gone = y == "eggs"
    model = GaussianNB().fit(X, y).unlearn(X[gone], y[gone])
    want = GaussianNB().partial_fit(X[~gone], y[~gone], classes=np.unique(y))
    assert_same_model(model, want)
    assert model.class_count_[list(model.classes_).index("eggs")] == 0


def test_unlearn_gaussian_with_missing_values():
    X, y = make_data(GaussianNB)
    X[np.random.default_rng(4).random(X.shape) < 0.1] = np.nan
    model = GaussianNB(missing="ignore").fit(X, y).unlearn(X[:80], y[:80])
    assert_same_model(model, GaussianNB(missing="ignore").fit(X[80:], y[80:]), rtol=1e-9)


def test_unlearn_drops_category_codes_no_remaining_row_holds():
    X = np.array([[0, 1], [1, 0], [2, 0], [0, 3], [1, 1]])
    y = np.array([0, 1, 0, 1, 1])
    model = CategoricalNB().fit(X, y).unlearn(X[2:4], y[2:4])
    np.testing.assert_array_equal(model.n_categories_, [2, 2])
    assert_same_model(model, CategoricalNB().fit(X[[0, 1, 4]], y[[0, 1, 4]]))


def test_unlearn_rejects_rows_that_were_never_learned():
    X, y = make_data(MultinomialNB)
    model = MultinomialNB().fit(X[:100], y[:100])
    before = model.feature_log_prob_.copy()
    with pytest.raises(
        DataError,
        match=r"'n_counts' for class '\w+', column index \d would "
        r"become negative.*never learned",
    ):
        model.unlearn(X[:10] + 20, y[:10])
    np.testing.assert_array_equal(model.feature_log_prob_, before)  # unchanged on error
    with pytest.raises(UnknownLabelError, match=r"row 0: its label 'toast' is not among"):
        model.unlearn(X[:1], ["toast"])
    with pytest.raises(DataError, match="everything the model learned"):
        model.unlearn(X[:100], y[:100])
    with pytest.raises(DataError, match="class weight' for class 'eggs' would become negative"):
        model.unlearn(X[:100], y[:100], sample_weight=np.full(100, 2.0))


def test_unlearn_errors_name_the_column():
    import pandas as pd

    X, y = make_data(GaussianNB)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    model = GaussianNB().fit(df[:100], y[:100])
    with pytest.raises(DataError, match=r"class '\w+', column 'f0' \(index 0\).*not part of"):
        model.unlearn(df[:20] + 50.0, y[:20])
    cat = CategoricalNB().fit(np.array([[0], [1]]), [0, 1])
    with pytest.raises(
        DataError,
        match=r"category code 5 in the rows to unlearn.*never saw a "
        r"code above 1",
    ):
        cat.unlearn(np.array([[5]]), [0])
    with pytest.raises(
        DataError,
        match="'n_counts' for class 1, column index 0, category code 0 would become negative",
    ):
        cat.unlearn(np.array([[0]]), [1])
    bern = BernoulliNB().fit(np.array([[1], [1], [0]]), [0, 0, 0])
    with pytest.raises(DataError, match="'n_zeros' for class 0, column index 0"):
        bern.unlearn(np.array([[0], [0]]), [0, 0])


def test_unlearn_before_fit_raises_not_fitted():
    with pytest.raises(nbayes.NotFittedError):
        MultinomialNB().unlearn([[1, 2]], [0])


@pytest.mark.parametrize("cls", [GaussianNB, CategoricalNB])
def test_models_loaded_from_files_merge_and_unlearn(cls, tmp_path):
    X, y = make_data(cls)
    nbayes.save(cls().fit(X[:120], y[:120]), tmp_path / "a.nbayes")
    nbayes.save(cls().fit(X[120:], y[120:]), tmp_path / "b.nbayes")
    merged = nbayes.merge(nbayes.load(tmp_path / "a.nbayes"), nbayes.load(tmp_path / "b.nbayes"))
    assert_same_model(merged, cls().fit(X, y))
    nbayes.save(merged, tmp_path / "merged.nbayes")
    back = nbayes.load(tmp_path / "merged.nbayes").unlearn(X[120:], y[120:])
    assert_same_model(back, cls().fit(X[:120], y[:120]), rtol=1e-9, atol=1e-9)


# -- partial_fit derives parameters on first use ----------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        nbayes.MultinomialNB,
        nbayes.BernoulliNB,
        nbayes.GaussianNB,
        nbayes.CategoricalNB,
        nbayes.PoissonNB,
        nbayes.ComplementNB,
    ],
)
def test_partial_fit_finalizes_every_call_and_copies_stay_as_they_were(make):
    import copy
    import pickle

    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 5)).astype(float)
    y = rng.integers(0, 3, size=300)
    model = make()
    parts = np.array_split(np.arange(300), 4)
    for part in parts[:3]:
        model.partial_fit(X[part], y[part], classes=[0, 1, 2])
    assert "params_" in vars(model) and "class_log_prior_" in vars(model)
    earlier = make().fit(X[np.concatenate(parts[:3])], y[np.concatenate(parts[:3])])
    kept = [pickle.loads(pickle.dumps(model)), copy.deepcopy(model), copy.copy(model)]
    model.partial_fit(X[parts[3]], y[parts[3]])
    full = make().fit(X, y)
    np.testing.assert_allclose(
        model.predict_log_proba(X), full.predict_log_proba(X), rtol=1e-10, atol=1e-12
    )
    for other in kept:  # an earlier state, whatever later batches did
        np.testing.assert_allclose(
            other.predict_log_proba(X), earlier.predict_log_proba(X), rtol=1e-10, atol=1e-12
        )
        # Its statistics too: a later batch is added into a new table, not into these.
        for mine, fitted in zip(other.stats_["groups"], earlier.stats_["groups"]):
            for key, value in fitted.items():
                np.testing.assert_allclose(mine[key], value, rtol=1e-12, err_msg=key)
    for name in ("feature_log_prob_", "class_log_prior_", "theta_", "var_", "rate_"):
        if hasattr(full, name):
            a, b = getattr(model, name), getattr(full, name)
            for p, q in zip(a, b) if isinstance(b, list) else [(a, b)]:
                np.testing.assert_allclose(p, q, rtol=1e-10, err_msg=name)


def test_string_categories_stay_current_through_partial_fits():
    model = nbayes.CategoricalNB()
    model.partial_fit([["red"], ["blue"]], [0, 1], classes=[0, 1])
    model.partial_fit([["green"], ["red"]], [1, 0])
    assert model.categories_[0].tolist() == ["blue", "red", "green"]
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing_'"):
        _ = model.no_such_thing_


def test_a_batch_whose_statistics_cannot_be_finalized_is_refused_as_fit_refuses_them():
    X = np.array([[1.0, 2.0], [2.0, 3.0], [2.0, 5.0], [3.0, 4.0]])
    model = nbayes.GaussianNB(var_smoothing=0).partial_fit(X, [0, 0, 1, 1], classes=[0, 1])
    before = model.predict_log_proba(X)
    with pytest.raises(ParameterError, match="zero variance"):
        # class 2: one row, no spread
        model.partial_fit([[7.0, 7.0]], [2], classes=[0, 1, 2])
    # The model is as it was: classes, statistics and parameters.
    assert model.classes_.tolist() == [0, 1]
    np.testing.assert_array_equal(model.class_count_, [2, 2])
    np.testing.assert_array_equal(model.stats_["class_count"], [2, 2])
    np.testing.assert_array_equal(model.predict_log_proba(X), before)
    model.partial_fit([[7.0, 7.0], [8.0, 9.0]], [2, 2], classes=[0, 1, 2])  # with a spread
    assert model.predict(X).shape == (4,)


def test_counts_stay_current_after_a_failed_unlearn_and_a_partial_fit():
    X = np.array([[1.0], [2.0], [3.0], [5.0], [7.0]])
    model = GaussianNB(var_smoothing=0).partial_fit(X, [0, 0, 0, 1, 1], classes=[0, 1])
    with pytest.raises(ParameterError, match="zero variance"):
        model.unlearn(X[1:3], [0, 0])  # one row would be left: refused, finalized as it was
    model.partial_fit([[9.0]], [1])
    np.testing.assert_array_equal(model.class_count_, [3, 3])


def test_subtract_snaps_rounding_residue_to_exact_zero_and_refuses_real_negatives():
    from nbayes.distributions._arrays import subtract_nonnegative

    # 0.1 + 0.2 - 0.3 leaves 5.6e-17: rounding residue, exactly zero after subtracting
    a, b = np.array([[0.1 + 0.2, 5.0, 0.0]]), np.array([[0.3, 2.0, 0.0]])
    np.testing.assert_array_equal(subtract_nonnegative(a, b, "n"), [[0.0, 3.0, 0.0]])
    np.testing.assert_array_equal(subtract_nonnegative(b[:, :1], a[:, :1], "n"), [[0.0]])
    # a difference beyond the residue's slack is kept, however small against other cells
    kept = subtract_nonnegative(np.array([1e-3, 1e9]), np.array([0.0, 1.0]), "n")
    np.testing.assert_array_equal(kept, [1e-3, 1e9 - 1.0])
    with pytest.raises(DataError, match=r"'n' for class index 0, column index 1 would become"):
        subtract_nonnegative(a, np.array([[0.3, 6.0, 0.0]]), "n")


@pytest.mark.parametrize("make", [nbayes.BernoulliNB, nbayes.PoissonNB])
def test_observed_weights_stay_one_column_per_class_until_a_cell_is_missing(make):
    """Without missing cells every feature of a class observes the class weight: the
    statistics hold that one column (partial_fit then adds no class x feature table of
    it per batch), and they equal a fit's; a missing cell makes it a table."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(200, 6)).astype(float)
    y = rng.integers(0, 3, size=200)
    model = make(missing="ignore")
    for part in np.array_split(np.arange(200), 4):
        model.partial_fit(X[part], y[part], classes=[0, 1, 2])
    observed = model.stats_["groups"][0]["n_observed"]
    assert observed.strides[1] == 0 and not observed.flags.writeable
    np.testing.assert_array_equal(observed, np.repeat(model.class_count_[:, None], 6, axis=1))
    full = make(missing="ignore").fit(X, y)
    np.testing.assert_allclose(model.predict_log_proba(X), full.predict_log_proba(X), rtol=1e-12)
    holey = X[:10].copy()
    holey[0, 2] = np.nan
    model.partial_fit(holey, y[:10])
    observed = model.stats_["groups"][0]["n_observed"]
    assert observed.strides[1] != 0
    assert observed[y[0], 2] == observed[y[0], 1] - 1  # the missing cell was not observed
    refit = make(missing="ignore").fit(np.vstack([X, holey]), np.concatenate([y, y[:10]]))
    np.testing.assert_allclose(model.predict_log_proba(X), refit.predict_log_proba(X), rtol=1e-12)


@pytest.mark.parametrize(
    "make, reference",
    [
        (nbayes.MultinomialNB, "MultinomialNB"),
        (nbayes.ComplementNB, "ComplementNB"),
        (nbayes.BernoulliNB, "BernoulliNB"),
        (nbayes.PoissonNB, None),
    ],
)
def test_count_parameters_share_the_statistics_and_lay_tables_out_when_read(make, reference):
    """The count families' finalize (every partial_fit) keeps their parameters factored:
    the statistics' own tables (not copies) and per-class or per-word totals. The log tables
    are laid out for scoring and on reading ``feature_log_prob_`` (and PoissonNB's
    ``rate_``), equal to scikit-learn's after every batch."""
    import sklearn.naive_bayes

    rng = np.random.default_rng(3)
    X = rng.poisson(1.0, size=(120, 40)).astype(float)
    y = rng.integers(0, 3, size=120)
    ours = make(alpha=0.5)
    theirs = None if reference is None else getattr(sklearn.naive_bayes, reference)(alpha=0.5)
    seen = np.zeros(120, dtype=bool)
    for part in np.array_split(np.arange(120), 3):
        ours.partial_fit(X[part], y[part], classes=[0, 1, 2])
        seen[part] = True
        if theirs is None:
            theirs = make(alpha=0.5).fit(X[seen], y[seen])  # fit: no table is factored
            np.testing.assert_allclose(ours.rate_, theirs.rate_, rtol=1e-12)
        else:
            theirs.partial_fit(X[part], y[part], classes=[0, 1, 2])
        np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-12)
        if reference is None:
            theirs = None
    params, stats = ours.params_[0], ours.stats_["groups"][0]
    shape = (3, X.shape[1])  # classes x features
    tables = [k for k, v in params.items() if np.shape(v) == shape]
    assert tables and all(params[k] is stats[k] for k in tables), tables
    first, second = ours.feature_log_prob_, ours.feature_log_prob_
    assert first is not second and np.array_equal(first, second)  # laid out on each read
    with pytest.raises(AttributeError):
        ours.feature_log_prob_ = first
