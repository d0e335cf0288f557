"""Category values whose type changed between fit and predict.

A CSV column of codes read as text at fit and as integers at predict made every value
unseen: accuracy fell from 0.91 to 0.5 without a word. Values are now matched by what they
unambiguously stand for, and a column whose values are mostly unseen at predict is named in a
UserWarning.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.exceptions import DataError


@pytest.fixture
def coded():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=400)
    code = np.where(rng.uniform(size=400) < 0.9, y + 1, 2 - y)  # 1 or 2, tied to the class
    frame = pd.DataFrame({"code": code.astype(str), "x": rng.normal(size=400)})
    return frame, code, y


def quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args)


@pytest.mark.parametrize(
    "at_predict",
    [lambda c: c, lambda c: c.astype(float), lambda c: c.astype(np.int32)],
    ids=["int", "float", "int32"],
)
def test_text_at_fit_numbers_at_predict(coded, at_predict):
    frame, code, y = coded
    model = nbayes.MixedNB(unseen="error").fit(frame, y)
    expected = model.predict_proba(frame)
    got = quiet(model.predict_proba, frame.assign(code=at_predict(code)))
    np.testing.assert_array_equal(got, expected)
    assert (model.predict(frame.assign(code=at_predict(code))) == y).mean() > 0.85


@pytest.mark.parametrize("text", [lambda c: c.astype(str), lambda c: c.astype(float).astype(str)])
def test_numbers_at_fit_text_at_predict(coded, text):
    frame, code, y = coded
    numbers = frame.assign(code=code)
    model = nbayes.MixedNB(unseen="error").fit(numbers, y)
    got = quiet(model.predict_proba, numbers.assign(code=text(code)))
    np.testing.assert_array_equal(got, model.predict_proba(numbers))


def test_categorical_nb_values_change_type_too(coded):
    frame, code, y = coded
    model = nbayes.CategoricalNB().fit(frame[["code"]], y)
    got = quiet(model.predict_proba, pd.DataFrame({"code": code}))
    np.testing.assert_array_equal(got, model.predict_proba(frame[["code"]]))
    floats = nbayes.CategoricalNB().fit(pd.DataFrame({"c": ["1.5", "2.5", "1.5"]}), [0, 1, 0])
    assert floats.predict(pd.DataFrame({"c": [2.5, 1.5]})).tolist() == [1, 0]


def test_ambiguous_or_mixed_vocabularies_are_not_coerced():
    # "3" and "3.0" are both categories: 3.0 could be either.
    model = nbayes.MixedNB(unseen="error").fit(pd.DataFrame({"c": ["3", "3.0", "4"]}), [0, 1, 1])
    with pytest.raises(DataError, match=r"category 3.0 at row 0"):
        model.predict(pd.DataFrame({"c": [3.0]}))
    assert model.predict(pd.DataFrame({"c": [4]})).tolist() == [1]
    # A column that mixes text and numbers at fit: no unambiguous reading of "1".
    mixed = nbayes.MixedNB(unseen="error").fit(
        pd.DataFrame({"c": np.array([1, "a", 2], dtype=object)}), [0, 1, 1]
    )
    with pytest.raises(DataError, match=r"category '1' at row 0"):
        mixed.predict(pd.DataFrame({"c": ["1"]}))
    # Text that is not exactly a number stays unseen.
    ints = nbayes.MixedNB(unseen="error").fit(pd.DataFrame({"c": [1, 2, 1]}), [0, 1, 0])
    with pytest.raises(DataError, match=r"category '1 apple' at row 0"):
        ints.predict(pd.DataFrame({"c": ["1 apple"]}))


def test_learning_keeps_types_apart_as_fit_does(coded):
    # partial_fit must equal fit on the same rows, which keeps "1" and 1 apart.
    frame, code, y = coded
    model = nbayes.MixedNB().partial_fit(frame[:200], y[:200], classes=[0, 1])
    model.partial_fit(frame[200:].assign(code=code[200:]), y[200:])
    together = pd.concat([frame[:200], frame[200:].assign(code=code[200:].astype(object))])
    whole = nbayes.MixedNB().fit(together, y)
    assert sorted(map(repr, model.categories_["code"])) == ["'1'", "'2'", "1", "2"]
    np.testing.assert_allclose(model.predict_proba(frame), whole.predict_proba(frame))


def test_a_column_mostly_unseen_at_predict_is_named_in_a_warning(coded):
    frame, _, y = coded
    model = nbayes.MixedNB().fit(frame, y)
    new = frame.assign(code=np.where(np.arange(400) < 320, "9", frame["code"]))
    with pytest.warns(
        UserWarning,
        match=r"Column 'code' \(index 0\): 320 of its 400 values \(80%\) were never seen in "
        r"training, e.g. '9' of type str; training saw str values such as '1', '2'",
    ) as caught:
        model.predict(new)
    assert caught[0].filename == __file__  # points at the user's call
    # Half or less unseen, or fewer than 10 values: no warning.
    quiet(model.predict, frame.assign(code=np.where(np.arange(400) < 200, "9", frame["code"])))
    quiet(model.predict, new[:9])
    values = nbayes.CategoricalNB(unseen="smooth").fit(frame[["code"]], y)
    with pytest.warns(UserWarning, match=r"Column 'code' \(index 0\): 400 of its 400 values"):
        values.predict(pd.DataFrame({"code": np.full(400, "7")}))
