"""The command line keeps labels' types and compares them by value; evaluate counts integer
codes; predict and evaluate follow decision thresholds. Inputs are generated messy files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    log_loss,
    precision_recall_fscore_support,
)

from nbayes import BernoulliNB, GaussianNB, MultinomialNB, TextNB, load, save
from nbayes.cli import main
from nbayes.cli._labels import typed_classes
from nbayes.cli.evaluate import Scores, evaluate
from nbayes.cli.predict import predict
from nbayes.cli.train import train


def run(capsys, *argv):
    """Run the command; return (exit status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def numbers_table(n=400, seed=0, labels=None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = (x + rng.normal(size=n) > 0.8).astype(int) if labels is None else labels(rng, n)
    return pd.DataFrame({"x": x, "colour": rng.choice(["red", "blue"], n), "y": y})


# -- point 4: labels keep their type and compare by value -----------------------------------------
@pytest.mark.parametrize(
    "labels, want",
    [
        (["10", "2", "-1"], [10, 2, -1]),
        (["0.5", "1.0"], [0.5, 1.0]),
        (["True", "False"], [True, False]),
        (["01", "1"], ["01", "1"]),  # two spellings of one number: identifiers
        (["0", "-0"], ["0", "-0"]),
        (["1.0", "1.00"], ["1.0", "1.00"]),
        (["nan", "1"], ["nan", "1"]),
        (["a", "1"], ["a", "1"]),
        (["99999999999999999999", "1"], ["99999999999999999999", "1"]),  # beyond int64
    ],
)
def test_typed_classes_read_labels_as_pandas_would_or_keep_them_as_text(labels, want):
    got = typed_classes(labels)
    assert got.tolist() == want
    assert [type(v) for v in got.tolist()] == [type(v) for v in want]


def test_integer_labels_stay_integers_in_model_and_outputs(tmp_path):
    numbers_table().to_csv(tmp_path / "train.csv", index=False)
    model = tmp_path / "m.nbayes"
    result = train(str(tmp_path / "train.csv"), "y", str(model))
    assert result.classes == [0, 1]
    loaded = load(model)
    assert loaded.classes_.dtype == np.int64
    predict(str(model), str(tmp_path / "train.csv"), str(tmp_path / "out.jsonl"), proba=True)
    first = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[0])
    assert isinstance(first["prediction"], int)
    assert set(first) == {"prediction", "proba_0", "proba_1"}
    predict(str(model), str(tmp_path / "train.csv"), str(tmp_path / "out.parquet"))
    assert pd.read_parquet(tmp_path / "out.parquet")["prediction"].dtype == np.int64


def test_numeric_classes_sort_numerically(tmp_path):
    frame = numbers_table(labels=lambda rng, n: rng.choice([2, 10, 1], n))
    frame.to_csv(tmp_path / "train.csv", index=False)
    result = train(str(tmp_path / "train.csv"), "y", str(tmp_path / "m.nbayes"), read=None)
    assert result.classes == [1, 2, 10]  # as strings they sorted "1", "10", "2"


def test_chunked_training_equals_fit_on_typed_labels(tmp_path):
    # Classes appear in a later chunk; the model equals fit on the labels pandas reads.
    frame = numbers_table(labels=lambda rng, n: np.where(np.arange(n) < 300, 10, 2))
    frame["y"] = np.where(np.arange(len(frame)) % 7 == 0, 1, frame["y"])
    frame[["x", "y"]].to_csv(tmp_path / "train.csv", index=False)
    from nbayes.cli import read_options  # noqa: F401 - the CLI's own reading options
    from nbayes.cli._tables import ReadOptions

    model = tmp_path / "m.nbayes"
    train(
        str(tmp_path / "train.csv"),
        "y",
        str(model),
        model="gaussian",
        read=ReadOptions(chunk_rows=50),
    )
    reference = GaussianNB().fit(frame[["x"]], frame["y"])
    loaded = load(model)
    np.testing.assert_array_equal(loaded.classes_, reference.classes_)
    np.testing.assert_allclose(
        loaded.predict_proba(frame[["x"]]), reference.predict_proba(frame[["x"]]), rtol=1e-9
    )


def test_evaluation_labels_written_as_floats_match_integer_classes(capsys, tmp_path):
    frame = numbers_table()
    frame.to_csv(tmp_path / "train.csv", index=False)
    frame.assign(y=frame["y"].astype(float)).to_csv(tmp_path / "floats.csv", index=False)
    model = tmp_path / "m.nbayes"
    train(str(tmp_path / "train.csv"), "y", str(model))
    ints = evaluate(str(model), str(tmp_path / "train.csv"))
    floats = evaluate(str(model), str(tmp_path / "floats.csv"))
    assert floats["accuracy"] == ints["accuracy"] > 0.7
    assert floats["rows_with_unknown_labels"] == 0
    assert floats["confusion_matrix"] == ints["confusion_matrix"]
    # JSON lines with 1.0 and Parquet with floats too.
    frame.assign(y=frame["y"].astype(float)).to_json(
        tmp_path / "floats.jsonl", orient="records", lines=True
    )
    assert evaluate(str(model), str(tmp_path / "floats.jsonl"))["accuracy"] == ints["accuracy"]


def test_labels_that_match_no_class_are_refused_not_scored_zero(capsys, tmp_path):
    frame = numbers_table()
    frame.to_csv(tmp_path / "train.csv", index=False)
    frame.assign(y=np.where(frame["y"] == 1, "yes", "no")).to_csv(
        tmp_path / "words.csv", index=False
    )
    model = tmp_path / "m.nbayes"
    train(str(tmp_path / "train.csv"), "y", str(model))
    status, out, err = run(capsys, "evaluate", model, tmp_path / "words.csv")
    assert status == 1 and out == ""
    assert "none of the 400 labels in column 'y' is a class of the model" in err
    assert "[0, 1] (integers)" in err and "'no', 'yes'" in err


def test_string_classes_keep_their_dtype_through_a_model_file(tmp_path):
    X = np.array([[1, 0], [0, 2], [3, 1]])
    for y in (
        pd.Series(["b", "a", "b"], dtype=object),
        np.array(["b", "a", "b"]),
        np.array([3, 1, 3]),
    ):
        model = MultinomialNB().fit(X, y)
        loaded = load(save(model, tmp_path / "m.nbayes"))
        assert loaded.classes_.dtype == model.classes_.dtype
        assert loaded.predict(X).dtype == model.predict(X).dtype
        text = TextNB().fit(["aa bb", "bb cc", "aa aa"], y)
        loaded = load(save(text, tmp_path / "t.nbayes"))
        assert loaded.classes_.dtype == text.classes_.dtype
        assert loaded.predict(["aa"]).dtype == text.predict(["aa"]).dtype


def test_float_labels_in_an_object_array_can_be_saved(tmp_path):
    X = np.array([[1, 0], [0, 2]])
    model = MultinomialNB().fit(X, np.array([1.0, 2.0]))
    model.classes_ = model.classes_.astype(object)  # as pandas hands them over
    loaded = load(save(model, tmp_path / "m.nbayes"))
    assert loaded.classes_.tolist() == [1.0, 2.0] and loaded.classes_.dtype == object


def test_old_model_files_still_load(shared_data):
    from pathlib import Path

    folder = Path(__file__).parent / "data"
    for name in ("multinomial_format1.nbayes", "text_format1.nbayes"):
        model = load(folder / name)
        assert len(model.classes_) >= 2


def test_string_labels_from_parquet_stay_strings(tmp_path):
    frame = numbers_table(labels=lambda rng, n: rng.choice(["1", "2"], n))
    frame.to_parquet(tmp_path / "train.parquet", index=False)
    result = train(str(tmp_path / "train.parquet"), "y", str(tmp_path / "m.nbayes"))
    assert result.classes == ["1", "2"]
    frame.assign(y=frame["y"].astype(int)).to_parquet(tmp_path / "ints.parquet", index=False)
    result = train(str(tmp_path / "ints.parquet"), "y", str(tmp_path / "i.nbayes"))
    assert result.classes == [1, 2]


# -- point 12: evaluate counts integer codes; scores equal scikit-learn's -------------------------
def test_scores_equal_scikit_learn_with_unknown_labels_and_chunks():
    rng = np.random.default_rng(3)
    classes = np.array(["ant", "bee", "cat"], dtype=object)
    y = rng.choice(np.array(["ant", "bee", "cat", "dog", "eel"], dtype=object), 3000)
    proba = rng.dirichlet(np.ones(3), 3000)
    proba[:5] = [1.0, 0.0, 0.0]  # clipped like scikit-learn's
    scores = Scores(classes)
    for start in range(0, 3000, 700):
        scores.add(pd.Series(y[start : start + 700]), proba[start : start + 700])
    report = scores.report()
    pred = classes[np.argmax(proba, axis=1)]
    labels = ["ant", "bee", "cat", "dog", "eel"]
    assert report["classes"] == labels
    assert report["accuracy"] == pytest.approx(accuracy_score(y, pred), abs=1e-15)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert report["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y, pred))
    p, r, f, s = precision_recall_fscore_support(y, pred, labels=labels, zero_division=0)
    for i, c in enumerate(labels):
        got = report["per_class"][c]
        assert [got["precision"], got["recall"], got["f1"], got["support"]] == pytest.approx(
            [p[i], r[i], f[i], s[i]]
        )
    known = np.isin(y, classes)
    assert report["log_loss"] == pytest.approx(log_loss(y[known], proba[known], labels=classes))
    assert report["rows_with_unknown_labels"] == int((~known).sum())
    from sklearn.metrics import confusion_matrix

    assert report["confusion_matrix"] == confusion_matrix(y, pred, labels=labels).tolist()
    top = report["confusions"][0]
    assert top["rows"] == max(c["rows"] for c in report["confusions"])


# -- point 11: one class --------------------------------------------------------------------------
def test_evaluate_a_one_class_model(capsys, tmp_path):
    (tmp_path / "one.csv").write_text("x,y\n1,a\n2,a\n3,a\n")
    model = tmp_path / "one.nbayes"
    train(str(tmp_path / "one.csv"), "y", str(model))
    status, _, err = run(capsys, "evaluate", model, tmp_path / "one.csv")
    assert status == 0, err
    report = evaluate(str(model), str(tmp_path / "one.csv"))
    assert report["accuracy"] == 1.0 and report["confusion_matrix"] == [[3]]
    assert report["log_loss"] == pytest.approx(0.0, abs=1e-12)
    (tmp_path / "two.csv").write_text("x,y\n1,a\n2,b\n")
    report = evaluate(str(model), str(tmp_path / "two.csv"))
    assert report["accuracy"] == 0.5 and report["rows_with_unknown_labels"] == 1
    assert report["confusion_matrix"] == [[1, 0], [1, 0]]


def test_grid_search_over_textnb_defaults():
    from sklearn.model_selection import GridSearchCV

    texts = ["cheap cash now", "win cash", "lunch at noon", "see you at lunch"] * 5
    labels = ["spam", "spam", "ham", "ham"] * 5
    search = GridSearchCV(
        TextNB(), {"classifier__alpha": [0.1, 1.0], "vectorizer__ngram_range": [(1, 1)]}, cv=2
    )
    search.fit(texts, labels)
    assert search.best_params_["classifier__alpha"] in (0.1, 1.0)
    assert search.best_estimator_.classifier_.alpha == search.best_params_["classifier__alpha"]
    assert TextNB().classifier is None  # the defaults themselves are untouched


# -- point 2: thresholds --------------------------------------------------------------------------
@pytest.fixture
def thresholded(tmp_path):
    """A model saved from Python with a decision threshold, and its training table."""
    rng = np.random.default_rng(5)
    n = 1000
    X = pd.DataFrame({"a": rng.integers(0, 2, n), "b": rng.integers(0, 2, n)})
    y = (rng.random(n) < 0.1 + 0.5 * X["a"] + 0.3 * X["b"]).astype(int)
    model = BernoulliNB(decision_threshold=1.0).fit(X, y)  # log-odds -1.6, -0.5, 0.7, 1.8
    path = tmp_path / "t.nbayes"
    save(model, path)
    X.assign(y=y).to_csv(tmp_path / "data.csv", index=False)
    return model, path, tmp_path / "data.csv", X, y


def test_predict_and_evaluate_follow_the_models_threshold(capsys, thresholded, tmp_path):
    model, path, data, X, y = thresholded
    want = model.predict(X)
    assert 0 < want.mean() < model.predict_proba(X).argmax(axis=1).mean()  # it matters
    predict(str(path), str(data), str(tmp_path / "out.csv"))
    got = pd.read_csv(tmp_path / "out.csv")["prediction"].to_numpy()
    np.testing.assert_array_equal(got, want)
    report = evaluate(str(path), str(data), "y")
    assert report["accuracy"] == pytest.approx(accuracy_score(y, want))


def test_threshold_option_on_both_scales(capsys, thresholded, tmp_path):
    model, path, data, X, y = thresholded
    for option, scale in ((["--threshold", "-0.5"], "log_odds"), (["--threshold", "0.3"], "proba")):
        value = float(option[1])
        status, out, err = run(capsys, "predict", path, data, *option, "--threshold-scale", scale)
        assert status == 0, err
        got = pd.read_csv(__import__("io").StringIO(out))["prediction"].to_numpy()
        want = model.set_params(decision_threshold=value, threshold_scale=scale).predict(X)
        np.testing.assert_array_equal(got, want)
        status, out, err = run(
            capsys, "evaluate", path, data, "-t", "y", *option, "--threshold-scale", scale, "--json"
        )
        assert json.loads(out)["accuracy"] == pytest.approx(accuracy_score(y, want))


def test_threshold_errors_are_usage_errors(capsys, tmp_path, thresholded):
    _, path, data, _, _ = thresholded
    status, _, err = run(
        capsys, "predict", path, data, "--threshold", "1.5", "--threshold-scale", "proba"
    )
    assert status == 2 and "strictly between 0 and 1" in err
    status, _, err = run(capsys, "predict", path, data, "--threshold", "nan")
    assert status == 2 and "must be a number" in err
    frame = numbers_table(labels=lambda rng, n: rng.choice(["a", "b", "c"], n))
    frame.to_csv(tmp_path / "three.csv", index=False)
    train(str(tmp_path / "three.csv"), "y", str(tmp_path / "three.nbayes"))
    status, _, err = run(
        capsys, "predict", tmp_path / "three.nbayes", tmp_path / "three.csv", "--threshold", "0"
    )
    assert status == 2
    assert "--threshold applies to a model of two classes; this one has 3" in err
