"""Class labels: the fast integer path finds exactly what np.unique finds, for every dtype."""

import numpy as np
import pytest
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import nbayes
from nbayes.estimators._base import fit_classes

LABELS = [
    np.array([3, 1, 1, -2]),
    np.array([-128, 127] * 200, dtype=np.int8),         # widened before subtracting
    np.array([2**63 - 1, 2**63 - 3], dtype=np.int64),   # differences wrap around, still exact
    np.array([-2**63, -2**63 + 5], dtype=np.int64),
    np.array([2**64 - 1, 2**64 - 3], dtype=np.uint64),
    np.array([2**32 - 1, 0] * 3, dtype=np.uint32),
    np.array([0, 10**12]),                              # too wide a range: np.unique
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
