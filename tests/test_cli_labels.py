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
from nbayes._labels import typed_classes
from nbayes.cli import main
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


def test_boolean_classes_match_every_spelling_pandas_reads_as_a_boolean(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = x + rng.normal(size=200) > 0.5
    table = pd.DataFrame({"x": x, "y": np.where(y, "True", "False")})
    table.to_csv(tmp_path / "t.csv", index=False)
    model = tmp_path / "m.nbayes"
    train(str(tmp_path / "t.csv"), "y", str(model))
    assert load(model).classes_.tolist() == [False, True]
    reference = evaluate(str(model), str(tmp_path / "t.csv"))
    assert reference["accuracy"] > 0.7
    # CSV text spelled four ways each, and JSON booleans: the same rows, the same scores.
    spelled = np.where(
        y,
        np.array(["true", "1", "TRUE", "True"])[np.arange(200) % 4],
        np.array(["false", "0", "FALSE", "False"])[np.arange(200) % 4],
    )
    pd.DataFrame({"x": x, "y": spelled}).to_csv(tmp_path / "spelled.csv", index=False)
    pd.DataFrame({"x": x, "y": y}).to_json(tmp_path / "t.jsonl", orient="records", lines=True)
    for other in ("spelled.csv", "t.jsonl"):
        report = evaluate(str(model), str(tmp_path / other))
        assert report["rows_with_unknown_labels"] == 0
        assert report["confusion_matrix"] == reference["confusion_matrix"]
        assert report["accuracy"] == reference["accuracy"]


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


# -- point 14: messages and options ---------------------------------------------------------------
def test_encoding_error_says_where(capsys, tmp_path):
    (tmp_path / "latin.csv").write_bytes("x,y\n1,caf\xe9\n2,b\n".encode("latin-1"))
    status, _, err = run(capsys, "train", tmp_path / "latin.csv", "-t", "y", "-o", tmp_path / "m")
    assert status == 1
    assert "{exc.start}" not in err
    # The line and the byte of the file, not an offset within the parser's block.
    assert "(invalid continuation byte on line 2, byte 9 of the file, after '1,caf')" in err


def test_encoding_error_far_into_a_compressed_file_names_its_line(capsys, tmp_path):
    import gzip

    rows = "x,y\n" + "1,plain\n" * 300_000 + "2,caf\xe9\n"
    with gzip.open(tmp_path / "late.csv.gz", "wb") as f:
        f.write(rows.encode("latin-1"))
    status, _, err = run(capsys, "train", tmp_path / "late.csv.gz", "-t", "y", "-o", tmp_path / "m")
    assert status == 1
    byte = len("x,y\n" + "1,plain\n" * 300_000 + "2,caf")
    assert f"on line 300002, byte {byte} of the file, after '2,caf')" in err


def test_missing_evaluation_label_speaks_of_evaluation_rows(capsys, tmp_path):
    numbers_table().to_csv(tmp_path / "train.csv", index=False)
    train(str(tmp_path / "train.csv"), "y", str(tmp_path / "m.nbayes"))
    frame = numbers_table()
    frame.loc[7, "y"] = None
    frame.to_csv(tmp_path / "gaps.csv", index=False)
    status, _, err = run(capsys, "evaluate", tmp_path / "m.nbayes", tmp_path / "gaps.csv")
    assert status == 1
    assert "empty at row 7; every evaluation row needs a label" in err


@pytest.mark.parametrize(
    "option, message",
    [
        (["--hashing", "-5"], "argument --hashing: must be at least 1 (buckets); got -5"),
        (["--hashing", "0"], "argument --hashing: must be at least 1 (buckets); got 0"),
        (["--max-features", "-3"], "argument --max-features: must be at least 1 (words); got -3"),
        (["--ngrams", "0"], "argument --ngrams: must be at least 1 (words per n-gram); got 0"),
        (["--ngrams", "two"], "argument --ngrams: must be a whole number; got 'two'"),
        (["--min-df", "2.5"], "argument --min-df: must be a number of texts (a whole number"),
        (["--min-df", "-1"], "argument --min-df: must be a number of texts"),
    ],
)
def test_numeric_options_are_usage_errors(capsys, tmp_path, option, message):
    (tmp_path / "t.csv").write_text("text,y\nhello there you,a\nbye now friend,b\n")
    status, _, err = run(
        capsys, "train", tmp_path / "t.csv", "-t", "y", "-o", tmp_path / "m", *option
    )
    assert status == 2
    assert message in err
    assert not (tmp_path / "m").exists()


def test_fractional_and_whole_min_df_still_work(tmp_path):
    from nbayes.cli._models import Settings

    (tmp_path / "t.csv").write_text("text,y\nhello there you,a\nbye now friend,b\nhello friend,a\n")
    for min_df in (0.5, 2.0):
        result = train(
            str(tmp_path / "t.csv"),
            "y",
            str(tmp_path / "m.nbayes"),
            text_column="text",
            settings=Settings(min_df=min_df),
        )
        assert result.classes == ["a", "b"]


@pytest.fixture
def many_classes(tmp_path):
    rng = np.random.default_rng(0)
    k = rng.integers(0, 150, 3000)
    frame = pd.DataFrame({"x": k + rng.normal(size=k.size) * 3, "y": [f"c{i}" for i in k]})
    frame.to_csv(tmp_path / "many.csv", index=False)
    return tmp_path / "many.csv"


def test_many_classes_are_summarised_unless_full(capsys, tmp_path, many_classes):
    model = tmp_path / "many.nbayes"
    status, out, _ = run(capsys, "train", many_classes, "-t", "y", "-o", model)
    assert status == 0
    assert "150 classes, the most frequent" in out and "(--full lists every class)" in out
    assert out.count(": ") <= 25  # 20 classes shown, not 150
    status, out, _ = run(capsys, "train", many_classes, "-t", "y", "-o", model, "--full")
    assert out.count(", c") >= 149
    status, out, _ = run(capsys, "evaluate", model, many_classes)
    assert status == 0
    assert "(the 20 most frequent of 150 classes; --full shows every class" in out
    assert "most frequent confusions" in out and "confusion matrix (rows" not in out
    assert len(out.splitlines()) < 70
    status, out, _ = run(capsys, "evaluate", model, many_classes, "--full")
    assert "confusion matrix (rows: true class" in out
    assert len(out.splitlines()) > 300
    report = evaluate(str(model), str(many_classes))
    assert len(report["confusion_matrix"]) == 150  # the API and --json keep everything


def test_many_classes_predict_without_performance_warnings(tmp_path, many_classes):
    import warnings

    model = tmp_path / "many.nbayes"
    train(str(many_classes), "y", str(model))
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.PerformanceWarning)
        predict(str(model), str(many_classes), str(tmp_path / "out.csv"), proba=True)
    out = pd.read_csv(tmp_path / "out.csv")
    assert out.shape == (3000, 151)
    np.testing.assert_allclose(out.filter(like="proba_").sum(axis=1), 1.0)


def test_wide_characters_align(capsys, tmp_path):
    from nbayes.cli._common import display_width, format_table

    rng = np.random.default_rng(1)
    labels = np.array(["猫", "犬", "cat"])
    k = rng.integers(0, 3, 300)
    pd.DataFrame({"x": k + rng.normal(size=300), "y": labels[k]}).to_csv(
        tmp_path / "cjk.csv", index=False
    )
    train(str(tmp_path / "cjk.csv"), "y", str(tmp_path / "m.nbayes"))
    status, out, _ = run(capsys, "evaluate", tmp_path / "m.nbayes", tmp_path / "cjk.csv")
    assert status == 0
    matrix = out.split("confusion matrix")[1].splitlines()[1:]
    assert len({display_width(line) for line in matrix}) == 1  # every row ends in one column
    table = format_table([["猫猫", 1], ["a", 22]], ["class", "n"]).splitlines()
    assert [display_width(line) for line in table] == [9, 9, 9, 9]


def test_json_lines_probabilities_keep_full_precision(tmp_path):
    numbers_table().to_csv(tmp_path / "train.csv", index=False)
    model = tmp_path / "m.nbayes"
    train(str(tmp_path / "train.csv"), "y", str(model))
    predict(str(model), str(tmp_path / "train.csv"), str(tmp_path / "out.jsonl"), proba=True)
    predict(str(model), str(tmp_path / "train.csv"), str(tmp_path / "out.csv"), proba=True)
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    # The CSV writer writes floats in full; Python's float() reads them back exactly.
    exact = pd.read_csv(tmp_path / "out.csv", dtype=str)["proba_1"].map(float).tolist()
    assert [r["proba_1"] for r in rows] == exact
    assert len(str(rows[0]["proba_1"])) > 12  # pandas' writer stopped at 10 decimals


def test_names_and_no_header_are_remembered(capsys, tmp_path):
    frame = numbers_table()
    frame.to_csv(tmp_path / "plain.csv", index=False, header=False)
    model = tmp_path / "m.nbayes"
    status, _, err = run(
        capsys, "train", tmp_path / "plain.csv", "--names", "x,colour,y", "-t", "y", "-o", model
    )
    assert status == 0, err
    status, out, err = run(capsys, "evaluate", model, tmp_path / "plain.csv", "--json")
    assert status == 0, err
    assert json.loads(out)["rows"] == len(frame)  # the first row is data, not a header
    status, out, err = run(capsys, "predict", model, tmp_path / "plain.csv")
    assert status == 0, err
    assert len(out.splitlines()) == len(frame) + 1
    status, out, err = run(capsys, "explain", model)  # no DATA: nothing to read
    assert status == 0, err
    status, out, err = run(capsys, "explain", model, tmp_path / "plain.csv", "--rows", "1")
    assert status == 0, err
    frame[["x", "colour"]].to_csv(tmp_path / "short.csv", index=False, header=False)
    status, _, err = run(capsys, "predict", model, tmp_path / "short.csv")
    assert status == 1
    assert "columns were named ['x', 'colour', 'y'] (--names); this file's first line has 2" in err
    # A title line above the rows (UCI Adult's test file: '|1x3 Cross validator') is said as
    # such, with a command that drops it: --names would not help.
    titled = tmp_path / "titled.csv"
    titled.write_text("|1x3 Cross validator\n" + (tmp_path / "plain.csv").read_text())
    status, _, err = run(capsys, "evaluate", model, titled)
    assert status == 1
    assert "its first line, '|1x3 Cross validator', has 1 field(s) where the next has 3" in err
    assert f"`tail -n +2 {titled} > titled-rows.csv`" in err and "--names" not in err
    # --no-header alone: the columns are numbered at predict time too.
    status, _, err = run(
        capsys, "train", tmp_path / "plain.csv", "--no-header", "-t", "2", "-o", model
    )
    assert status == 0, err
    status, out, err = run(capsys, "predict", model, tmp_path / "short.csv")
    assert status == 0, err
    assert len(out.splitlines()) == len(frame) + 1


def test_train_threshold_is_kept_for_predict_and_evaluate(capsys, tmp_path):
    frame = numbers_table(n=1000)
    frame.to_csv(tmp_path / "train.csv", index=False)
    model = tmp_path / "m.nbayes"
    status, out, err = run(
        capsys, "train", tmp_path / "train.csv", "-t", "y", "-o", model,
        "--threshold", "0.3", "--threshold-scale", "proba",
    )  # fmt: skip
    assert status == 0, err
    assert "predicting 1 when its log-odds exceed -0.8473 (probability above 0.3)" in out
    loaded = load(model)  # MixedNB has no decision_threshold: the CLI keeps it
    X = frame[["x", "colour"]]
    want = np.where(loaded.predict_proba(X)[:, 1] > 0.3, 1, 0)
    assert (
        0 < want.mean() < loaded.predict(X).mean() + 0.5 and want.mean() > loaded.predict(X).mean()
    )
    predict(str(model), str(tmp_path / "train.csv"), str(tmp_path / "out.csv"))
    np.testing.assert_array_equal(pd.read_csv(tmp_path / "out.csv")["prediction"], want)
    report = evaluate(str(model), str(tmp_path / "train.csv"))
    assert report["accuracy"] == pytest.approx(accuracy_score(frame["y"], want))
    status, out, _ = run(capsys, "inspect", model)
    assert "decision threshold: predicts 1 when its log-odds exceed -0.8473" in out
    status, out, _ = run(capsys, "inspect", model, "--json")
    assert json.loads(out)["classes"] == [0, 1]
    # A preset takes the threshold itself: the loaded model's predict follows it in Python.
    frame[["x", "y"]].to_csv(tmp_path / "numbers.csv", index=False)
    status, _, err = run(
        capsys, "train", tmp_path / "numbers.csv", "-t", "y", "-o", model, "--model", "gaussian",
        "--threshold", "-1", "-q",
    )  # fmt: skip
    assert status == 0, err
    gaussian = load(model)
    assert (gaussian.decision_threshold, gaussian.threshold_scale) == (-1.0, "log_odds")
    predict(str(model), str(tmp_path / "numbers.csv"), str(tmp_path / "out.csv"))
    got = pd.read_csv(tmp_path / "out.csv")["prediction"].to_numpy()
    np.testing.assert_array_equal(got, gaussian.predict(frame[["x"]]))


def test_train_threshold_errors(capsys, tmp_path):
    frame = numbers_table(labels=lambda rng, n: rng.choice(["a", "b", "c"], n))
    frame.to_csv(tmp_path / "three.csv", index=False)
    model = tmp_path / "m.nbayes"
    status, _, err = run(capsys, "train", tmp_path / "three.csv", "-t", "y", "-o", model,
                         "--threshold", "1")  # fmt: skip
    assert status == 2 and "applies to a model of two classes; this one has 3" in err
    assert not model.exists()
    status, _, err = run(capsys, "train", tmp_path / "three.csv", "-t", "y", "-o", model,
                         "--threshold", "1", "--threshold-scale", "proba")  # fmt: skip
    assert status == 2 and "strictly between 0 and 1; got 1.0" in err
