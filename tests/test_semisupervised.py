"""SemiSupervisedNB: EM over labeled and unlabeled rows (Nigam et al. 2000), soft labels."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import train_test_split

from nbayes import (
    AODE,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    DataError,
    EMWarning,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    ParameterError,
    PoissonNB,
    SemiSupervisedNB,
    TextNB,
    base,
    load,
    save,
)
from nbayes._training import set_up
from nbayes._validation import rows_from
from nbayes.datasets import load_sms_spam
from nbayes.distributions import Labels, SoftLabels
from nbayes.estimators.semisupervised import AUTO_WEIGHTS, fold_of
from nbayes.exceptions import NotFittedError

RNG = np.random.default_rng(0)
N = 400
Y = RNG.integers(0, 2, N)
COUNTS = RNG.poisson(np.where(Y[:, None] == 0, [5, 1, 3, 1], [1, 5, 1, 3]))
NORMAL = RNG.normal(Y[:, None] * 2.0, 1.0, size=(N, 3))
CODES = np.minimum(COUNTS, 6)
#: 5 % of the labels kept, the others marked -1.
PARTIAL = np.where(RNG.random(N) < 0.05, Y, -1)
PARTIAL[:2] = [0, 1]  # both classes labeled whatever the draw


def _table():
    return pd.DataFrame(
        {"a": NORMAL[:, 0], "b": NORMAL[:, 1], "c": pd.Categorical(CODES[:, 0].astype(str))}
    )


CASES = {
    "multinomial": (MultinomialNB(), COUNTS),
    "bernoulli": (BernoulliNB(binarize=2), COUNTS),
    "categorical": (CategoricalNB(), CODES),
    "gaussian": (GaussianNB(), NORMAL),
    "poisson": (PoissonNB(), COUNTS),
    "mixed": (MixedNB(), _table()),
    "aode": (AODE(), pd.DataFrame(CODES.astype(str), columns=list("abcd"))),
    # Numeric columns: bin edges from a survey pass that sees the labeled rows' labels.
    "aode-numeric": (AODE(), NORMAL),
}


# -- soft labels through the accumulate path ---------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_soft_labels_count_as_rows_repeated_per_class_with_fractional_weights(name):
    est, X = CASES[name]
    K = 3
    resp = RNG.dirichlet(np.ones(K), size=N) * RNG.uniform(0.5, 2.0, size=(N, 1))
    resp[::7, 1] = 0.0  # exact zeros too
    soft = clone(est)
    soft.fit(X, np.arange(N) % K)  # set up (columns, vocabularies, bin edges)
    classes = np.arange(K)
    soft.install(classes, soft.accumulate(X, SoftLabels(resp), mode="count"))
    # The same rows, repeated once per class with hard labels and the fractions as weights.
    repeated = pd.concat([X] * K, ignore_index=True) if isinstance(X, pd.DataFrame) else None
    rows = repeated if repeated is not None else np.vstack([X] * K)
    hard = clone(soft)
    hard.fit(X, np.arange(N) % K)
    codes = np.repeat(classes, N)
    hard.install(classes, hard.accumulate(rows, Labels(codes, resp.T.ravel(), K), mode="count"))
    np.testing.assert_allclose(
        soft.predict_joint_log_proba(X), hard.predict_joint_log_proba(X), rtol=1e-10, atol=1e-9
    )


def test_soft_labels_refuse_a_code_per_row():
    with pytest.raises(TypeError, match="no class code per row"):
        _ = SoftLabels(np.ones((2, 2))).codes


# -- EM on every family --------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_em_fits_every_model_and_leaves_an_ordinary_model(name, tmp_path):
    est, X = CASES[name]
    em = SemiSupervisedNB(est, max_iter=15).fit(X, PARTIAL)
    assert em.classes_.tolist() == [0, 1]
    assert len(em.history_) == em.n_iter_ >= 2
    # The objective (log posterior) does not decrease. The semi-naive models smooth their
    # counts without a log_prior() (their objective is the likelihood alone), so a step may
    # lose a little there; EM still gains overall.
    steps = np.diff(em.history_)
    if name.startswith("aode"):
        assert em.history_[-1] > em.history_[0]
    else:
        assert steps.min() >= -1e-9 * abs(em.history_[-1]), steps
    assert em.score(X, Y) > 0.85
    # The fitted model is an ordinary nbayes model: saved, loaded, explained.
    path = tmp_path / "em.nbayes"
    save(em.estimator_, path)
    np.testing.assert_array_equal(load(path).predict(X), em.predict(X))
    if not name.startswith("aode"):
        assert em.estimator_.explain(X[:2] if not isinstance(X, pd.DataFrame) else X.iloc[:2])


def test_em_beats_the_labeled_only_model_on_gaussian_clusters():
    lab = PARTIAL >= 0
    supervised = GaussianNB().fit(NORMAL[lab], PARTIAL[lab]).score(NORMAL, Y)
    em = SemiSupervisedNB(GaussianNB()).fit(NORMAL, PARTIAL)
    assert em.score(NORMAL, Y) > supervised


def test_zero_iterations_give_the_labeled_only_model():
    lab = PARTIAL >= 0
    em = SemiSupervisedNB(MultinomialNB(alpha=0.5), max_iter=0).fit(COUNTS, PARTIAL)
    ref = MultinomialNB(alpha=0.5).fit(COUNTS[lab], PARTIAL[lab])
    np.testing.assert_allclose(em.predict_proba(COUNTS), ref.predict_proba(COUNTS), rtol=1e-12)
    assert em.history_ == [] and em.n_iter_ == 0


def test_unlabeled_weight_zero_keeps_the_labeled_only_model():
    em0 = SemiSupervisedNB(max_iter=0).fit(COUNTS, PARTIAL)
    em = SemiSupervisedNB(unlabeled_weight=0.0).fit(COUNTS, PARTIAL)
    np.testing.assert_allclose(em.predict_proba(COUNTS), em0.predict_proba(COUNTS), rtol=1e-12)


@pytest.mark.parametrize(
    "marked",
    [
        np.where(PARTIAL < 0, -1, PARTIAL),
        np.where(PARTIAL < 0, np.nan, PARTIAL.astype(float)),
        np.array([None if v < 0 else v for v in PARTIAL], dtype=object),
        np.array([np.nan if v < 0 else v for v in PARTIAL], dtype=object),
    ],
    ids=["minus-one", "float-nan", "object-none", "object-nan"],
)
def test_unlabeled_rows_are_marked_as_in_scikit_learn(marked):
    ref = SemiSupervisedNB().fit(COUNTS, PARTIAL)
    em = SemiSupervisedNB().fit(COUNTS, marked)
    np.testing.assert_allclose(em.history_, ref.history_, rtol=1e-12)
    assert [float(c) for c in em.classes_] == [0.0, 1.0]


def test_string_labels_with_none_for_unlabeled():
    y = np.array(["ham" if v == 0 else "spam" if v == 1 else None for v in PARTIAL], object)
    em = SemiSupervisedNB().fit(COUNTS, y)
    assert em.classes_.tolist() == ["ham", "spam"]
    assert set(em.predict(COUNTS).tolist()) == {"ham", "spam"}


# -- components ----------------------------------------------------------------------------------
def test_components_per_class_collapse_to_the_classes():
    em = SemiSupervisedNB(n_components=3, random_state=0).fit(COUNTS, PARTIAL)
    assert em.estimator_.classes_.tolist() == list(range(6))
    proba = em.predict_proba(COUNTS)
    assert proba.shape == (N, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(em.classes_[proba.argmax(axis=1)], em.predict(COUNTS))
    again = SemiSupervisedNB(n_components=3, random_state=0).fit(COUNTS, PARTIAL)
    np.testing.assert_array_equal(again.history_, em.history_)
    other = SemiSupervisedNB(n_components=3, random_state=1).fit(COUNTS, PARTIAL)
    assert other.history_[0] != em.history_[0]
    assert np.diff(em.history_).min() >= -1e-9 * abs(em.history_[-1])


def test_components_model_a_class_made_of_two_topics():
    # Class 0 is two topics (words 0-1 or words 2-3), class 1 a third (words 4-5): one
    # multinomial per class cannot tell a mixed document of class 0 from class 1.
    rng = np.random.default_rng(3)
    topic = rng.integers(0, 3, 3000)
    rates = np.array([[8, 8, 0.3, 0.3, 1, 1], [0.3, 0.3, 8, 8, 1, 1], [2, 0.3, 2, 0.3, 3, 3]])
    X = rng.poisson(rates[topic])
    y = (topic == 2).astype(int)
    partial = np.where(rng.random(y.size) < 0.05, y, -1)
    one = SemiSupervisedNB().fit(X, partial).score(X, y)
    two = SemiSupervisedNB(n_components=2, random_state=0).fit(X, partial).score(X, y)
    assert two > one + 0.005


# -- the estimator protocol ---------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::nbayes.EMWarning")
def test_em_by_the_protocol_over_shards_equals_fit():
    """Each EM pass driven by hand through the protocol -- two shards accumulated (the second
    first), merged, installed -- gives fit's model, with two components and held-out folds."""
    em = SemiSupervisedNB(MultinomialNB(), n_components=2, random_state=0, max_iter=5)
    ref = clone(em).fit(COUNTS, PARTIAL)
    assert isinstance(em, base.Model)
    classes, cut = np.array([0, 1]), 150
    em.begin(classes)
    set_up(em, COUNTS.shape[1], survey=None)
    passes = 0
    while em.needs_pass():
        with rows_from(cut):  # the shard's first row: it draws components and folds
            late = em.accumulate(COUNTS[cut:], Labels(PARTIAL[cut:], np.ones(N - cut), 2))
        early = em.accumulate(COUNTS[:cut], Labels(PARTIAL[:cut], np.ones(cut), 2))
        em.install(classes, em.merge_statistics(late, early))
        passes += 1
    assert passes == ref.n_iter_ + 2  # the labeled rows alone, the iterations, the check
    np.testing.assert_allclose(em.history_, ref.history_, rtol=1e-10)
    assert em.heldout_log_likelihood_ == pytest.approx(ref.heldout_log_likelihood_)
    np.testing.assert_allclose(
        em.predict_joint_log_proba(COUNTS), ref.predict_joint_log_proba(COUNTS), rtol=1e-10
    )


def test_protocol_statistics_subtract_and_align():
    em = SemiSupervisedNB(MultinomialNB(), max_iter=1, cv=None)
    em.begin(np.array([0, 1]))
    set_up(em, COUNTS.shape[1], survey=None)
    labels = Labels(PARTIAL, np.ones(N), 2)
    em.install(np.array([0, 1]), em.accumulate(COUNTS, labels))
    whole = em.accumulate(COUNTS, labels)
    part = em.accumulate(COUNTS[:100], labels[:100])
    rest = em.subtract_statistics(whole, part)
    with rows_from(100):
        want = em.accumulate(COUNTS[100:], labels[100:])
    for key in ("labeled", "unlabeled", "labeled_weight", "unlabeled_weight"):
        assert rest[key] == pytest.approx(want[key])
    np.testing.assert_allclose(rest["stats"]["class_count"], want["stats"]["class_count"])
    swapped = em.align_statistics(whole, np.array([1, 0]), 2)
    np.testing.assert_array_equal(
        swapped["stats"]["class_count"], whole["stats"]["class_count"][::-1]
    )


def test_protocol_outside_an_em_fit_says_how_to_fit():
    with pytest.raises(NotFittedError, match="learns by passes within an EM fit"):
        SemiSupervisedNB().setup(2)
    with pytest.raises(ParameterError, match="trains a model by EM itself; pass the model"):
        SemiSupervisedNB(SemiSupervisedNB()).fit(COUNTS, PARTIAL)


# -- chunks --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_components", [1, 2])
@pytest.mark.parametrize("name", ["multinomial", "gaussian", "mixed", "categorical"])
def test_chunked_em_equals_in_memory_em_per_iteration(name, n_components):
    est, X = CASES[name]
    w = RNG.uniform(0.5, 2.0, N)
    em = SemiSupervisedNB(est, n_components=n_components, random_state=0, max_iter=8)
    whole = clone(em).fit(X, PARTIAL, sample_weight=w)
    cuts = [0, 37, 150, 151, 300, N]
    take = (lambda a, s: a.iloc[s]) if isinstance(X, pd.DataFrame) else (lambda a, s: a[s])
    chunks = [(take(X, slice(a, b)), PARTIAL[a:b], w[a:b]) for a, b in itertools.pairwise(cuts)]
    chunked = clone(em).fit_chunks(chunks)
    np.testing.assert_allclose(chunked.history_, whole.history_, rtol=1e-10)
    np.testing.assert_allclose(
        chunked.predict_joint_log_proba(X), whole.predict_joint_log_proba(X), rtol=1e-10
    )


def test_chunks_from_a_callable_and_given_classes():
    chunks = [(COUNTS[:200], PARTIAL[:200]), (COUNTS[200:], PARTIAL[200:])]
    ref = SemiSupervisedNB().fit(COUNTS, PARTIAL)
    em = SemiSupervisedNB().fit_chunks(lambda: iter(chunks), classes=[0, 1])
    np.testing.assert_allclose(em.history_, ref.history_, rtol=1e-10)


def test_one_shot_iterator_is_refused():
    with pytest.raises(ParameterError, match="readable once per EM iteration"):
        SemiSupervisedNB().fit_chunks(iter([(COUNTS, PARTIAL)]))


def test_bad_chunk_and_unknown_label_name_the_row():
    with pytest.raises(DataError, match=r"tuple \(X, y\)"):
        SemiSupervisedNB().fit_chunks([COUNTS])
    chunks = [(COUNTS[:200], PARTIAL[:200]), (COUNTS[200:], np.full(200, 7))]
    with pytest.raises(DataError, match="Label 7 at row 200 is not among classes"):
        SemiSupervisedNB().fit_chunks(chunks, classes=[0, 1])


# -- errors --------------------------------------------------------------------------------------
def test_complement_nb_is_refused_with_the_reason():
    with pytest.raises(ParameterError, match="ComplementNB's scores are not probabilities"):
        SemiSupervisedNB(ComplementNB()).fit(COUNTS, PARTIAL)
    with pytest.raises(ParameterError, match="Use MultinomialNB"):
        SemiSupervisedNB(TextNB(ComplementNB())).fit(["a b", "c"], ["x", None])


@pytest.mark.parametrize(
    "params, match",
    [
        ({"unlabeled_weight": -1}, "'unlabeled_weight' must be a non-negative number"),
        ({"unlabeled_weight": np.inf}, "'unlabeled_weight' must be finite"),
        ({"n_components": 0}, "'n_components' must be an integer >= 1"),
        ({"max_iter": -1}, "'max_iter' must be >= 0"),
        ({"max_iter": 1.5}, "'max_iter' must be an integer"),
        ({"tol": -1}, "'tol' must be a number >= 0"),
        ({"estimator": "nb"}, "estimator must be an nbayes estimator"),
        ({"unlabeled_weight": "best"}, "a number, a list of candidates or 'auto'; got 'best'"),
        ({"unlabeled_weight": []}, "'unlabeled_weight' got no candidates"),
        ({"unlabeled_weight": [0.1, -1]}, "must be a non-negative number .*got -1"),
        ({"cv": 1}, "'cv' must be an integer >= 2 or None; got 1"),
        ({"unlabeled_weight": "auto", "cv": None}, "needs held-out labeled rows: set cv"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ParameterError, match=match):
        SemiSupervisedNB(**params).fit(COUNTS, PARTIAL)


def test_no_labeled_row_is_an_error():
    with pytest.raises(DataError, match="Every row is unlabeled"):
        SemiSupervisedNB().fit(COUNTS, np.full(N, -1))


def test_a_row_of_probability_zero_is_an_error():
    X = np.array([[3, 0], [0, 3], [2, 2]])
    with pytest.raises(DataError, match="Row 2 has probability zero under every class"):
        SemiSupervisedNB(MultinomialNB(estimate="mle")).fit(X, [0, 1, -1])


# -- real data -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sms():
    df = load_sms_spam()
    train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])
    return train, test


def test_log_likelihood_never_decreases_on_sms_spam(sms):
    train, _ = sms
    y = train["label"].to_numpy(dtype=object).copy()
    y[np.random.default_rng(0).random(y.size) >= 0.05] = None
    em = SemiSupervisedNB(TextNB(MultinomialNB()), max_iter=15, tol=0).fit(train["text"], y)
    assert em.n_iter_ == 15
    steps = np.diff(em.history_)
    assert steps.min() >= -1e-9 * abs(em.history_[-1]), steps
    assert em.history_[-1] > em.history_[0] + 1.0


# -- choosing lambda, and the warning when EM hurts ----------------------------------------------
@pytest.mark.parametrize("name", ["multinomial", "gaussian", "categorical", "mixed", "aode"])
def test_statistics_scaled_equal_rows_weighted(name):
    est, X = CASES[name]
    model = clone(est).fit(X, Y)
    w = RNG.uniform(0.5, 2.0, N)
    soft = RNG.dirichlet([1, 1], N) * w[:, None]
    scaled = model.scale_statistics(model.accumulate(X, SoftLabels(soft)), 0.3)
    direct = model.accumulate(X, SoftLabels(0.3 * soft))
    for a, b in zip(_arrays(scaled), _arrays(direct)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def _arrays(stats):
    if isinstance(stats, dict):
        return [a for k in sorted(stats) for a in _arrays(stats[k])]
    if isinstance(stats, list):
        return [a for part in stats for a in _arrays(part)]
    return [np.asarray(stats)]


def test_heldout_log_likelihood_is_that_of_the_folds_models():
    """The labeled-only figure is K-fold cross-validation of the labeled rows' model: the
    conditional log-likelihood of each fold under a fit on the other folds."""
    em = SemiSupervisedNB(MultinomialNB(alpha=0.5), max_iter=3).fit(COUNTS, PARTIAL)
    rows = np.flatnonzero(PARTIAL >= 0)
    folds = fold_of(rows, 5, seed=0)
    expected = 0.0
    for f in range(5):
        test, train = rows[folds == f], rows[folds != f]
        fitted = MultinomialNB(alpha=0.5).fit(COUNTS[train], PARTIAL[train])
        expected += fitted.predict_log_proba(COUNTS[test])[
            np.arange(test.size), PARTIAL[test]
        ].sum()
    assert em.heldout_log_likelihood_["labeled_only"] == pytest.approx(expected, rel=1e-10)


def _misleading_clusters():
    """Counts whose strongest structure (words 2 and 3) has nothing to do with the label."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 600)
    topic = rng.integers(0, 2, 600)
    X = rng.poisson(np.column_stack([2 + y, 3 - y, np.where(topic, 30, 1), np.where(topic, 1, 30)]))
    return X, np.where(rng.random(600) < 0.1, y, -1)


def test_em_that_lowers_the_heldout_likelihood_warns():
    X, partial = _misleading_clusters()
    with pytest.warns(
        EMWarning,
        match=(
            r"EM lowered the held-out log-likelihood of the labeled rows \(63 rows in 5 "
            r"folds\) from -266\.1 with the labeled rows alone to -1969\.\d+ with "
            r"unlabeled_weight=1"
        ),
    ) as caught:
        em = SemiSupervisedNB().fit(X, partial)
    assert em.heldout_log_likelihood_["em"] < em.heldout_log_likelihood_["labeled_only"]
    assert caught[0].filename == __file__  # the warning points at the user's fit call


def test_auto_weight_chooses_none_for_misleading_rows_and_some_for_helpful_ones(recwarn):
    X, partial = _misleading_clusters()
    em = SemiSupervisedNB(unlabeled_weight="auto").fit(X, partial)
    assert em.unlabeled_weight_ == 0.0
    alone = SemiSupervisedNB(max_iter=0).fit(X, partial)
    np.testing.assert_allclose(em.predict_proba(X), alone.predict_proba(X), rtol=1e-12)
    helped = SemiSupervisedNB(GaussianNB(), unlabeled_weight="auto").fit(NORMAL, PARTIAL)
    assert helped.unlabeled_weight_ == AUTO_WEIGHTS[-1]
    scores = helped.heldout_log_likelihood_
    assert scores["em"] > scores["labeled_only"]
    assert not [w for w in recwarn if w.category is EMWarning]


def test_the_choice_is_the_candidate_with_the_best_heldout_likelihood():
    """With one iteration every candidate starts from the labeled-only model: the choice is
    the candidate of the best held-out figure, its model is the fixed-lambda fit's, and the
    figure of lambda 0 is the cross-validation of the labeled rows alone."""
    candidates = [0.0, 0.05, 0.5, 2.0]
    chosen = SemiSupervisedNB(GaussianNB(), unlabeled_weight=candidates, max_iter=1)
    chosen.fit(NORMAL, PARTIAL)
    scores = chosen.unlabeled_weight_scores_
    assert list(scores) == candidates and chosen.unlabeled_weight_ == max(scores, key=scores.get)
    assert chosen.unlabeled_weight_ > 0
    fixed = SemiSupervisedNB(GaussianNB(), unlabeled_weight=chosen.unlabeled_weight_, max_iter=1)
    fixed.fit(NORMAL, PARTIAL)
    np.testing.assert_allclose(
        chosen.predict_proba(NORMAL), fixed.predict_proba(NORMAL), rtol=1e-12
    )
    assert scores[0.0] == pytest.approx(fixed.heldout_log_likelihood_["labeled_only"], rel=1e-12)
    assert fixed.unlabeled_weight_scores_ is None


@pytest.mark.parametrize("name", ["multinomial", "gaussian"])
def test_chunked_em_chooses_as_in_memory_em(name):
    est, X = CASES[name]
    em = SemiSupervisedNB(est, unlabeled_weight="auto", max_iter=6)
    whole = clone(em).fit(X, PARTIAL)
    chunks = [(X[a:b], PARTIAL[a:b]) for a, b in itertools.pairwise([0, 37, 150, 300, N])]
    chunked = clone(em).fit_chunks(chunks)
    assert chunked.unlabeled_weight_ == whole.unlabeled_weight_
    np.testing.assert_allclose(chunked.history_, whole.history_, rtol=1e-10)
    assert chunked.heldout_log_likelihood_ == pytest.approx(whole.heldout_log_likelihood_)


def test_no_folds_no_check():
    em = SemiSupervisedNB(cv=None).fit(COUNTS, PARTIAL)
    assert em.heldout_log_likelihood_ is None and em.unlabeled_weight_ == 1.0


def test_em_warning_is_public():
    import nbayes
    import nbayes.exceptions

    assert nbayes.EMWarning is nbayes.exceptions.EMWarning and "EMWarning" in nbayes.__all__
    assert issubclass(EMWarning, UserWarning)


# -- Dask ----------------------------------------------------------------------------------------
@pytest.mark.xdist_group("dask-cluster")
@pytest.mark.filterwarnings("ignore::nbayes.EMWarning")
@pytest.mark.parametrize("n_components", [1, 2])
@pytest.mark.parametrize("name", ["multinomial", "mixed", "text"])
def test_em_on_dask_equals_in_memory_em_per_iteration(dask_client, name, n_components):
    import dask.array as da
    import dask.dataframe as dd

    from nbayes import dask as nbdask

    w = RNG.uniform(0.5, 2.0, N)
    em = SemiSupervisedNB(
        CASES[name][0] if name != "text" else TextNB(),
        n_components=n_components,
        random_state=0,
        max_iter=6,
    )
    if name == "text":
        words = np.array(["cash prize now", "lunch at noon", "win cash", "meeting at noon"])
        X = pd.Series(words[Y * 2 + RNG.integers(0, 2, N)])
        local = clone(em).fit(X, PARTIAL, sample_weight=w)
        frame = pd.DataFrame({"text": X, "y": PARTIAL, "w": w})
        ddf = dd.from_pandas(frame, npartitions=4)
        distributed = nbdask.fit_semisupervised(clone(em), ddf["text"], ddf["y"], ddf["w"])
        probe = X
    elif name == "mixed":
        X = CASES[name][1]
        local = clone(em).fit(X, PARTIAL, sample_weight=w)
        ddf = dd.from_pandas(X.assign(y=PARTIAL, w=w), npartitions=3)
        distributed = nbdask.fit_semisupervised(clone(em), ddf, "y", "w")
        probe = X
    else:
        X = CASES[name][1]
        local = clone(em).fit(X, PARTIAL, sample_weight=w)
        distributed = nbdask.fit_semisupervised(
            clone(em), da.from_array(X, chunks=(90, -1)), PARTIAL, w
        )
        probe = X
    np.testing.assert_allclose(distributed.history_, local.history_, rtol=1e-10)
    np.testing.assert_allclose(
        distributed.predict_joint_log_proba(probe),
        local.predict_joint_log_proba(probe),
        rtol=1e-10,
    )
    assert distributed.heldout_log_likelihood_ == pytest.approx(local.heldout_log_likelihood_)


@pytest.mark.xdist_group("dask-cluster")
def test_em_on_dask_chooses_lambda_as_in_memory(dask_client):
    import dask.array as da

    from nbayes import dask as nbdask

    em = SemiSupervisedNB(unlabeled_weight="auto", max_iter=6)
    local = clone(em).fit(COUNTS, PARTIAL)
    distributed = nbdask.fit_semisupervised(
        clone(em), da.from_array(COUNTS, chunks=(90, -1)), PARTIAL
    )
    assert distributed.unlabeled_weight_ == local.unlabeled_weight_
    np.testing.assert_allclose(distributed.history_, local.history_, rtol=1e-10)


def test_labels_that_mark_missing_ones_without_any_unlabeled_row_warn():
    """y with '?' for its unlabeled rows (as files write them) had no unlabeled row by the
    -1 / None / NaN convention: EM ran on none and learned a class '?' without a word."""
    texts = ["win cash now", "cheap cash prize", "lunch at noon", "see you at lunch"] * 5
    marked = np.array(["spam", "ham"] + ["?"] * 18, dtype=object)
    with pytest.warns(UserWarning, match=r"the class '\?' holds 18 of 20 rows .* mark them: "
                      r"y\.replace\('\?', None\)") as caught:  # fmt: skip
        assert SemiSupervisedNB(TextNB()).fit(texts, marked).classes_.tolist() == [
            "?",
            "ham",
            "spam",
        ]
    assert caught[0].filename == __file__
    unmarked = pd.Series(marked).replace("?", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert SemiSupervisedNB(TextNB()).fit(texts, unmarked).classes_.tolist() == ["ham", "spam"]
        SemiSupervisedNB(TextNB()).fit(texts, np.array(["spam", "ham"] * 10))  # no marker
        # A word that is a frequent class ('none' as an answer) is a class, not a marker.
        answers = np.array(["spam", "ham", "none", "none"] * 5, dtype=object)
        SemiSupervisedNB(TextNB()).fit(texts, answers)
    rare = np.array(["spam", "ham"] * 9 + ["unknown", "spam"], dtype=object)  # 5 %: said
    with pytest.warns(UserWarning, match="the class 'unknown' holds 1 of 20 rows"):
        SemiSupervisedNB(TextNB()).fit(texts, rare)


def test_a_fold_without_labeled_weight_gets_a_uniform_class_prior():
    """Two labeled rows in one held-out fold left the other folds' labeled-only model with
    no class weight: its prior was log(0) - log(0), NaN, and so was the held-out
    log-likelihood that unlabeled_weight='auto' compares (0/0 is uniform elsewhere too)."""
    texts = ["win cash now", "cheap cash prize", "lunch at noon", "see you at lunch"] * 5
    y = np.array(["spam", "ham"] + [None] * 18, dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for weight in (1.0, "auto"):
            em = SemiSupervisedNB(TextNB(), unlabeled_weight=weight).fit(texts, y)
            assert np.isfinite(list(em.heldout_log_likelihood_.values())).all()
    empty = MultinomialNB().fit(np.eye(2), [0, 1], sample_weight=[1.0, 1.0])
    np.testing.assert_allclose(empty._log_prior(np.zeros(2)), np.log([0.5, 0.5]))
