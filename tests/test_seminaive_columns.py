"""Issue 30 for the semi-naive models: AODE, TAN, KDB and JointBayes read a DataFrame by the
column typology of :mod:`nbayes.columns`, as ``MixedNB(columns="auto")`` does: identifiers
left out with one ColumnWarning that says how to keep them (name them in ``categorical``),
timestamps as calendar features; ``nbayes train`` makes the same choices on the same file and
gives the same probabilities; model files keep the reading and the choices table.
"""

from __future__ import annotations

import json
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest
from test_columns import messy_frame

from nbayes import AODE, KDB, TAN, ColumnWarning, JointBayes, MixedNB, load, save
from nbayes.cli import main
from nbayes.cli._models import load_plan
from nbayes.exceptions import DataError, NotFittedError

MODELS = {"aode": AODE, "tan": TAN, "kdb": KDB, "joint": JointBayes}


def _fit(cls, X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ColumnWarning)
        return cls(**params).fit(X, y)


def _cli_choices(path) -> list:
    with zipfile.ZipFile(path) as z:
        manifest = json.loads(z.read("manifest.json"))
    return [row[:3] for row in manifest["metadata"]["cli"]["columns"]]


def _api_choices(model) -> list:
    table = model.column_choices_
    return sorted([str(c), *table.loc[c, ["kind", "family"]].tolist()] for c in table.index)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_cli_and_api_make_the_same_choices_and_probabilities(tmp_path, capsys, name):
    frame = messy_frame()
    path = tmp_path / "messy.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "m.nbayes"
    assert main(["train", str(path), "-t", "label", "--model", name, "-o", str(out)]) == 0
    printed, err = capsys.readouterr()
    assert "leaving out column(s) ['rownames', 'code'], identifiers" in err
    assert "when      timestamp     calendar" in printed
    read = pd.read_csv(path)
    X, y = read.drop(columns="label"), read["label"]
    api = _fit(MODELS[name], X, y)
    assert sorted(_cli_choices(out)) == _api_choices(api)
    plan = load_plan(str(out))
    assert list(plan.estimator.feature_names_in_) == list(api.feature_names_in_)
    np.testing.assert_allclose(
        plan.estimator.predict_proba(plan.inputs(read, 0, str(path))),
        api.predict_proba(X),
        atol=1e-12,
    )
    assert main(["predict", str(out), str(path), "-o", str(tmp_path / "p.csv"), "--proba"]) == 0
    assert main(["evaluate", str(out), str(path)]) == 0
    err = capsys.readouterr().err
    assert all(line.startswith("nbayes: warning: ") for line in err.splitlines() if line), err


def test_an_identifier_named_is_kept_from_the_cli_and_the_api(tmp_path, capsys):
    frame = messy_frame()
    path = tmp_path / "messy.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "k.nbayes"
    argv = ["train", str(path), "-t", "label", "--model", "tan", "-o", str(out), "-q"]
    assert main([*argv, "--features", "rownames,city,when"]) == 0
    read = pd.read_csv(path)
    X = read[["rownames", "city", "when"]]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ColumnWarning)  # named: no warning
        api = TAN(categorical=["rownames"]).fit(X, read["label"])
    assert sorted(_cli_choices(out)) == _api_choices(api)
    assert api.column_choices_.loc["rownames", "family"] == "categorical"
    np.testing.assert_allclose(load(str(out)).predict_proba(X), api.predict_proba(X), atol=1e-12)


def test_identifiers_are_left_out_with_one_warning_that_says_how_to_keep_them():
    frame = pd.DataFrame({"id": np.arange(100), "city": ["Oslo", "Rome"] * 50})
    y = np.repeat([0, 1], 50)
    with pytest.warns(ColumnWarning) as caught:
        model = AODE().fit(frame, y)
    (said,) = [str(w.message) for w in caught]
    assert "AODE leaves out column(s) ['id']" in said
    assert "name it in categorical=['id']" in said
    assert list(model.feature_names_in_) == ["city"]
    # New rows need only the modelled columns, in any order; by position, every column.
    assert model.predict(frame[["city"]]).tolist() == model.predict(frame).tolist()
    assert model.predict(frame.to_numpy()).tolist() == model.predict(frame).tolist()
    with pytest.raises(DataError, match=r"lacks column\(s\) \['city'\]"):
        model.predict(frame[["id"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ColumnWarning)
        kept = AODE(categorical=["id"]).fit(frame, y)  # named: the user's choice
    assert list(kept.feature_names_in_) == ["id", "city"]
    with pytest.raises(DataError, match="every column of X is an identifier"):
        _fit(TAN, frame[["id"]], y)


def test_dates_are_calendar_features_and_arrays_are_read_as_given():
    n = 140
    when = pd.date_range("2024-01-01", periods=n, freq="D")
    frame = pd.DataFrame({"when": when.strftime("%Y-%m-%d"), "x": np.arange(n) % 3})
    y = np.where(when.day_of_week >= 5, "weekend", "weekday")
    model = TAN().fit(frame, y)
    assert list(model.feature_names_in_) == ["x", "when.year", "when.month", "when.dayofweek"]
    assert model.score(frame, y) == 1.0  # the weekday is in the calendar, not in the words
    assert model.column_choices_.loc["when", "family"] == "calendar"
    explained = model.explain(frame.iloc[:2]).to_frame(0)
    assert "when.dayofweek" in explained["feature"].tolist()
    # A datetime dtype too; an array's columns are modelled as they are, with no choices.
    stamped = frame.assign(when=when)
    assert TAN().fit(stamped, y).predict(stamped).tolist() == model.predict(frame).tolist()
    array = TAN().fit(frame.to_numpy(), y)
    with pytest.raises(NotFittedError, match="fitted on a DataFrame"):
        array.column_choices_  # noqa: B018


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_files_keep_the_reading_and_the_choices(tmp_path, name):
    frame = messy_frame().drop(columns="label")
    y = messy_frame()["label"]
    params = {"backoff": AODE()} if name == "joint" else {}
    model = _fit(MODELS[name], frame, y, **params)
    path = tmp_path / "m.nbayes"
    save(model, path)
    again = load(path)
    pd.testing.assert_frame_equal(again.column_choices_, model.column_choices_)
    np.testing.assert_array_equal(again.predict_proba(frame), model.predict_proba(frame))
    # A table modelled as given keeps layout version 1, readable by older nbayes.
    plain = tmp_path / "p.nbayes"
    save(_fit(MODELS[name], frame[["city"]], y, **params), plain)
    with zipfile.ZipFile(plain) as z:
        assert json.loads(z.read("manifest.json"))["state"]["seminaive"]["version"] == 1


def test_mixed_model_files_keep_the_choices_and_older_files_still_load(tmp_path):
    frame = messy_frame()
    X, y = frame.drop(columns="label"), frame["label"]
    model = _fit(MixedNB, X, y)
    path = tmp_path / "m.nbayes"
    save(model, path)
    again = load(path)
    pd.testing.assert_frame_equal(again.column_choices_, model.column_choices_)
    pd.testing.assert_frame_equal(again.summary(), model.summary())
    # A file written before the choices were kept: no choices table, the same predictions.
    del model.__dict__["_choices"]
    old = tmp_path / "old.nbayes"
    save(model, old)
    with zipfile.ZipFile(old) as z:
        assert "choices" not in json.loads(z.read("manifest.json"))["state"]["mixed"]
    older = load(old)
    np.testing.assert_array_equal(older.predict_proba(X), again.predict_proba(X))
    with pytest.raises(NotFittedError, match="older nbayes"):
        older.column_choices_  # noqa: B018


@pytest.mark.parametrize("cls", [MixedNB, TAN])
def test_explain_names_calendar_features_after_the_names_given(cls):
    n = 120
    when = pd.date_range("2024-01-01", periods=n, freq="D")
    frame = pd.DataFrame(
        {"when": when.strftime("%Y-%m-%d"), "x": np.arange(n) % 3 * 1.5, "id": np.arange(n)}
    )
    y = np.where(when.day_of_week >= 5, "weekend", "weekday")
    model = _fit(cls, frame, y)
    named = model.explain(frame.iloc[:2], feature_names=["W", "X", "I"]).to_frame(0)
    assert sorted(named["feature"]) == ["W.dayofweek", "W.month", "W.year", "X"]
    with pytest.raises(Exception, match="one name per input column"):
        model.explain(frame.iloc[:2], feature_names=["W", "X"])
    # Fitted on an array: the calendar features of column x0.
    array = _fit(cls, frame[["when", "x"]].to_numpy(), y)
    shown = array.explain(frame[["when", "x"]].to_numpy()[:1]).to_frame(0)["feature"]
    expected = {"x0", "x1"} if cls is TAN else {"x0.year", "x0.month", "x0.dayofweek", "x1"}
    assert set(shown) == expected
