"""Class labels: the fast integer path finds exactly what np.unique finds, for every dtype."""

import numpy as np
import pytest
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import nbayes
from nbayes._labels import fit_classes

LABELS = [
    np.array([3, 1, 1, -2]),
    np.array([-128, 127] * 200, dtype=np.int8),  # widened before subtracting
    np.array([2**63 - 1, 2**63 - 3], dtype=np.int64),  # differences wrap around, still exact
    np.array([-(2**63), -(2**63) + 5], dtype=np.int64),
    np.array([2**64 - 1, 2**64 - 3], dtype=np.uint64),
    np.array([2**32 - 1, 0] * 3, dtype=np.uint32),
    np.array([0, 10**12]),  # too wide a range: np.unique
    np.array([True, False]),
    np.array([1.0, 2.0, 2.0]),
    np.array(["spam", "ham", "spam"]),
]


@pytest.mark.parametrize("y", LABELS, ids=lambda y: f"{y.dtype}-{y.size}")
def test_fit_classes_equals_np_unique(y):
    got, want = fit_classes(y), np.unique(y)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("y", LABELS[:6], ids=lambda y: f"{y.dtype}-{y.size}")
def test_integer_labels_match_scikit_learn(y):
    X = np.ones((y.size, 2))
    ours, theirs = nbayes.MultinomialNB().fit(X, y), SkMultinomialNB().fit(X, y)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_continuous_labels_are_still_refused():
    with pytest.raises(ValueError, match="Unknown label type"):
        nbayes.GaussianNB().fit(np.ones((3, 1)), [0.5, 1.5, 2.25])


def test_string_label_codes_match_pandas_with_unsorted_classes_and_unknowns():
    import pandas as pd

    from nbayes._labels import label_codes

    rng = np.random.default_rng(0)
    classes = np.array(["spam", "ham", "eggs", "a", "zz"])  # order after enlarging classes
    y = rng.choice(np.array(["spam", "ham", "eggs", "a", "zz", "unknown", "", "zzz"]), 500)
    codes, first_unknown = label_codes(y, classes)
    want = pd.Index(classes).get_indexer(y)
    np.testing.assert_array_equal(codes, want)
    assert first_unknown == int(np.flatnonzero(want < 0)[0])
    codes, first_unknown = label_codes(y[np.isin(y, classes)], classes)
    assert first_unknown is None and codes.min() >= 0


def test_partial_fit_adds_string_classes_and_codes_them_in_their_order():
    X = np.array([[1, 0], [0, 1], [1, 1], [2, 0]])
    model = nbayes.MultinomialNB().partial_fit(X[:2], ["spam", "ham"], classes=["spam", "ham"])
    model.partial_fit(X[2:], ["eggs", "spam"], classes=["spam", "ham", "eggs"])
    assert model.classes_.tolist() == ["ham", "spam", "eggs"]
    np.testing.assert_array_equal(model.class_count_, [1, 2, 1])


@pytest.mark.parametrize("y", LABELS[:7], ids=lambda y: f"{y.dtype}-{y.size}")
def test_integer_label_codes_equal_pandas_for_every_dtype(y):
    # Integer labels inside the classes' range are coded from a lookup table; labels outside
    # it (or an unknown one inside it) must be found as pandas finds them.
    import pandas as pd

    from nbayes._labels import label_codes

    classes = np.unique(y)
    for labels in (y, np.concatenate([y, y[:1]]), classes[::-1]):
        codes, row = label_codes(labels, classes)
        np.testing.assert_array_equal(codes, pd.Index(classes).get_indexer(labels))
        assert row is None
    if classes.size > 1 and classes[0] < classes[-1] - 1:
        gap = np.array([classes[0] + 1], dtype=y.dtype)  # inside the range, not a class
        if gap[0] not in classes:
            assert label_codes(np.concatenate([y, gap]), classes)[1] == y.size
    codes, row = label_codes(np.array([0, 5, 7]), np.array([5, 7]))
    assert codes.tolist() == [-1, 0, 1] and row == 0
