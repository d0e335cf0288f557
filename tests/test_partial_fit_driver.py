"""partial_fit is one step of the training driver (nbayes._training.update): the batch is
checked as every batch of fit is, coded against the declared classes, learned onto the
statistics and finalized once; a failed batch leaves the model as it was."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import nbayes
from nbayes.exceptions import DataError

SEMI_NAIVE = [nbayes.AODE(), nbayes.TAN(), nbayes.KDB(k=2), nbayes.JointBayes(min_count=2)]


def table(n=240, seed=0):
    rng = np.random.default_rng(seed)
    y = np.asarray(["a", "b", "c"])[rng.integers(0, 3, n)]
    df = pd.DataFrame(
        {
            "colour": np.where(rng.random(n) < 0.7, np.where(y == "a", "red", "blue"), "green"),
            "shape": np.where(rng.random(n) < 0.6, np.where(y == "c", "oval", "round"), "flat"),
            "spots": rng.random(n) < 0.5,
        }
    )
    return df, y


@pytest.mark.parametrize("model", SEMI_NAIVE, ids=lambda m: type(m).__name__)
def test_a_semi_naive_model_takes_classes_added_in_a_later_call(model):
    # The statistics of the known classes are laid out over the new ones first.
    df, y = table()
    early, late = y != "c", y == "c"
    stream = clone(model).partial_fit(df[early], y[early], classes=["a", "b"])
    stream.partial_fit(df[late], y[late], classes=["a", "b", "c"])
    once = clone(model).fit(pd.concat([df[early], df[late]]), np.concatenate([y[early], y[late]]))
    assert stream.classes_.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(stream.predict_proba(df), once.predict_proba(df), rtol=1e-12)


@pytest.mark.parametrize("make", [nbayes.MultinomialNB, nbayes.TAN], ids=lambda m: m.__name__)
def test_a_missing_label_is_refused_as_fit_refuses_it(make):
    X = (
        pd.DataFrame({"a": ["x", "y", "x"], "b": ["u", "u", "v"]})
        if make is nbayes.TAN
        else np.eye(3)
    )
    with pytest.raises(DataError, match=r"label at row 1 is missing \(nan\).*SemiSupervisedNB"):
        make().partial_fit(X, np.array([0.0, np.nan, 1.0]), classes=[0.0, 1.0])


def test_declared_classes_may_be_any_numbers():
    # The declared classes say what a class is: fractional labels are not "continuous".
    model = nbayes.MultinomialNB().partial_fit(np.eye(2), [0.5, 1.5], classes=[0.5, 1.5])
    assert model.classes_.tolist() == [0.5, 1.5]


def test_a_batch_its_backoff_refuses_leaves_a_joint_bayes_as_it_was():
    # JointBayes learns the batch (and the new colour) before its backoff refuses it.
    df, y = table()
    df["visits"] = np.arange(len(df)) % 4
    model = nbayes.JointBayes(
        bin_edges={"visits": [0.5, 2.5]},
        backoff=nbayes.MixedNB(columns=[("poisson", ["visits"])]),
    ).partial_fit(df[:100], y[:100], classes=["a", "b", "c"])
    before, counts = model.predict_proba(df), model.class_count_.copy()
    bad = df[100:].assign(colour="purple", visits=-1)
    with pytest.raises(DataError, match="non-negative integer counts"):
        model.partial_fit(bad, y[100:])
    np.testing.assert_array_equal(model.predict_proba(df), before)
    np.testing.assert_array_equal(model.class_count_, counts)
    assert "purple" not in model.categories_["colour"]
    model.partial_fit(df[100:], y[100:])  # and it goes on learning
    once = clone(model).fit(df, y)
    np.testing.assert_allclose(model.predict_proba(df), once.predict_proba(df), rtol=1e-12)
