"""The training driver (nbayes._training.train) checks every batch as fit checks its data, and
keeps the labels' type: the command line and nbayes.dask get fit's checks through it."""

import numpy as np
import pytest

from nbayes import CategoricalNB, GaussianNB, MultinomialNB
from nbayes._labels import ClassCodes
from nbayes._training import count_folds, install, merge_folds, train
from nbayes.distributions import Labels
from nbayes.exceptions import DataError

X = np.array([[2, 0], [1, 1], [0, 3], [1, 2]])


def test_a_batch_whose_labels_and_rows_differ_in_number_is_refused():
    batches = [(X[:2], [0, 1]), (X[2:], [0, 1, 1])]
    with pytest.raises(DataError, match="X has 2 rows but y has 3 labels"):
        train(MultinomialNB(), batches)


def test_a_negative_weight_is_refused_naming_its_row_over_all_batches():
    batches = [(X[:2], [0, 1], [1.0, 1.0]), (X[2:], [0, 1], [1.0, -2.0])]
    with pytest.raises(DataError, match=r"got -2\.0 at row 3\. Use 0 to drop a row"):
        train(MultinomialNB(), batches)


def test_weights_may_be_zero_in_one_batch_but_not_in_all():
    batches = [(X[:2], [0, 1], [0.0, 0.0]), (X[2:], [0, 1], [1.0, 1.0])]
    assert train(MultinomialNB(), batches).class_count_.tolist() == [1.0, 1.0]
    with pytest.raises(DataError, match="zero for every row"):
        train(MultinomialNB(), [(X, [0, 1, 0, 1], np.zeros(4))])


def test_a_missing_label_is_refused_naming_its_row():
    batches = [(X[:2], ["a", "b"]), (X[2:], ["a", None])]
    with pytest.raises(DataError, match="label at row 3 is missing"):
        train(MultinomialNB(), batches)


def test_continuous_targets_are_refused_as_scikit_learn_refuses_them():
    with pytest.raises(ValueError, match="Unknown label type"):
        train(GaussianNB(), [(X, [0.5, 1.5, 0.25, 2.5])])


def test_a_column_vector_of_labels_is_flattened_with_scikit_learns_warning():
    with pytest.warns(UserWarning, match="column-vector y"):
        model = train(MultinomialNB(), [(X, np.array([[0], [1], [0], [1]]))])
    assert model.classes_.tolist() == [0, 1]


@pytest.mark.parametrize(
    "y",
    [
        np.array(["b", "a", "b", "a"], dtype=object),
        np.array(["b", "a", "b", "a"]),
        np.array([3, 1, 3, 1], dtype=np.int8),
        np.array([True, False, True, False]),
    ],
    ids=lambda y: str(y.dtype),
)
def test_labels_keep_the_type_fit_gives_them(y):
    batches = [(X[:2], y[:2]), (X[2:], y[2:])]
    model, reference = (
        train(CategoricalNB(), batches),
        CategoricalNB().fit(X, np.unique(y)[[1, 0, 1, 0]]),
    )
    assert model.classes_.dtype == reference.classes_.dtype
    np.testing.assert_array_equal(model.classes_, reference.classes_)


def test_class_codes_seeded_with_known_classes_code_in_their_order():
    codes = ClassCodes(np.array(["a", "b"]))
    assert codes.add(np.array(["b", "c", "a"])).tolist() == [1, 2, 0]
    classes, positions = codes.order()
    assert classes.tolist() == ["a", "b", "c"] and positions.tolist() == [0, 1, 2]


def test_install_keeps_the_type_of_the_labels_it_is_given():
    model = MultinomialNB()
    model.setup(2)
    stats = model.accumulate(X[:2], Labels([0, 1], [1.0, 1.0], 2))
    classes = install(model, [10, 2], stats).classes_
    assert classes.dtype == np.int64 and classes.tolist() == [2, 10]
    assert model.class_count_.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("estimator", [MultinomialNB, GaussianNB])
def test_fold_statistics_are_those_of_each_folds_rows_however_they_come(estimator):
    rng = np.random.default_rng(0)
    rows = rng.poisson(2.0, (60, 3)).astype(float)
    codes, weights, folds = rng.integers(0, 2, 60), rng.uniform(0.5, 2.0, 60), np.arange(60) % 4

    def pieces(taken):
        by_fold = [(k, taken[folds[taken] == k]) for k in range(4)]  # bounded by the folds
        return [(k, rows[r], codes[r], weights[r]) for k, r in by_fold if r.size]

    model = estimator()
    model.setup(3)
    chunks = np.array_split(np.arange(60), 7)
    counted = merge_folds(model, *(count_folds(model, pieces(c), 4, 2) for c in chunks))
    for k, stats in enumerate(counted):  # bounded by the folds
        # The statistics of fold k's rows, gathered from 7 chunks, make fit's model of them.
        in_fold = folds == k
        want = estimator().fit(rows[in_fold], codes[in_fold], sample_weight=weights[in_fold])
        fresh = estimator()
        fresh.setup(3)
        got = fresh.install(np.array([0, 1]), stats)
        np.testing.assert_allclose(
            got.predict_joint_log_proba(rows), want.predict_joint_log_proba(rows), rtol=1e-12
        )
