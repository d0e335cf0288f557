"""The nbayes command end to end on real data: train -> inspect -> predict -> evaluate -> explain,
and its error paths. Data files are converted under pytest's temporary folders."""

from __future__ import annotations

import gzip
import io
import json
import pickle
import re
import subprocess
import sys
import tarfile

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, balanced_accuracy_score, log_loss
from sklearn.model_selection import train_test_split

from nbayes import GaussianNB, MixedNB, MultinomialNB, TextNB, load, save
from nbayes.cli import main
from nbayes.cli._models import Settings
from nbayes.cli._tables import ReadOptions
from nbayes.cli.evaluate import evaluate
from nbayes.cli.explain import explain
from nbayes.cli.inspect import inspect_model
from nbayes.cli.predict import predict
from nbayes.cli.train import train
from nbayes.io import read_manifest

SMS_NAMES = "label,text"


def run(capsys, *argv):
    """Run the command; return (exit status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def sms_raw(shared_data):
    return shared_data / "sms_spam_collection" / "SMSSpamCollection"


@pytest.fixture(scope="module")
def sms_split(sms_raw, tmp_path_factory):
    """The raw SMS file split 75/25 into CSV files (the file's own rows, no header added)."""
    df = pd.read_csv(
        sms_raw,
        sep="\t",
        header=None,
        names=["label", "text"],
        quoting=3,
        dtype=str,
        keep_default_na=False,
    )
    train_df, test_df = train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])
    folder = tmp_path_factory.mktemp("sms")
    paths = {
        "train": folder / "train.csv",
        "test": folder / "test.csv",
        "test_parquet": folder / "test.parquet",
        "test_jsonl": folder / "test.jsonl.gz",
    }
    train_df.to_csv(paths["train"], index=False)
    test_df.to_csv(paths["test"], index=False)
    test_df.to_parquet(paths["test_parquet"], index=False)
    with gzip.open(paths["test_jsonl"], "wt", encoding="utf-8") as f:
        test_df.to_json(f, orient="records", lines=True, force_ascii=False)
    return paths, train_df, test_df


@pytest.fixture(scope="module")
def sms_model(sms_split, tmp_path_factory):
    paths, _, _ = sms_split
    out = tmp_path_factory.mktemp("sms_model") / "sms.nbayes"
    result = train(str(paths["train"]), "label", str(out))
    return out, result


# -- the whole chain on SMS spam ------------------------------------------------------------------
def test_sms_raw_file_trains_with_reading_options(capsys, sms_raw, tmp_path):
    """The distributed file itself: tab-separated, no header, quotes are plain text."""
    model = tmp_path / "raw.nbayes"
    status, out, err = run(
        capsys,
        "train",
        sms_raw,
        "--names",
        SMS_NAMES,
        "--sep",
        "tab",
        "--no-quoting",
        "--target",
        "label",
        "-o",
        model,
        "--chunk-rows",
        "1000",
    )
    assert status == 0, err
    assert "5,574 rows" in out and "ham: 4,827, spam: 747" in out
    info = inspect_model(str(model))
    assert info["training_rows"] == 5574 and info["classes"] == ["ham", "spam"]
    assert info["columns"][0]["column"] == "text"


def test_sms_train_inspect_predict_evaluate_explain(capsys, sms_split, sms_model, tmp_path):
    paths, train_df, test_df = sms_split
    model_path, result = sms_model
    assert result.estimator == "TextNB" and result.text_column == "text"
    assert result.rows == len(train_df) and result.classes == ["ham", "spam"]

    status, out, _ = run(capsys, "inspect", model_path)
    assert status == 0 and "format version 1" in out and "CountVectorizer" in out
    status, out, _ = run(capsys, "inspect", model_path, "--json")
    info = json.loads(out)
    assert info["estimator"] == "TextNB" and info["target"] == "label"
    assert info["class_count"] == [float((train_df["label"] == c).sum()) for c in ("ham", "spam")]
    np.testing.assert_allclose(sum(info["prior"]), 1.0)

    # The CLI model is the in-memory model: same vocabulary, same probabilities.
    reference = TextNB().fit(train_df["text"], train_df["label"])
    model = load(model_path)
    np.testing.assert_allclose(
        model.predict_proba(test_df["text"]), reference.predict_proba(test_df["text"]), rtol=1e-10
    )

    out_csv = tmp_path / "pred.csv"
    status, _, err = run(
        capsys,
        "predict",
        model_path,
        paths["test_parquet"],
        "--proba",
        "--keep",
        "label",
        "-o",
        out_csv,
        "--chunk-rows",
        "300",
    )
    assert status == 0, err
    pred = pd.read_csv(out_csv, dtype={"label": str, "prediction": str})
    assert list(pred.columns) == ["label", "prediction", "proba_ham", "proba_spam"]
    assert pred["label"].tolist() == test_df["label"].tolist()  # one row per input, in order
    assert pred["prediction"].tolist() == reference.predict(test_df["text"]).tolist()
    np.testing.assert_allclose(pred[["proba_ham", "proba_spam"]].sum(axis=1), 1.0)

    status, out, _ = run(capsys, "evaluate", model_path, paths["test_jsonl"], "--json")
    report = json.loads(out)
    truth, predicted = test_df["label"], reference.predict(test_df["text"])
    assert report["rows"] == len(test_df)
    assert report["accuracy"] == pytest.approx(accuracy_score(truth, predicted))
    assert report["accuracy"] > 0.97
    assert report["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(truth, predicted))
    assert report["log_loss"] == pytest.approx(
        log_loss(truth, reference.predict_proba(test_df["text"])), rel=1e-6
    )
    assert np.sum(report["confusion_matrix"]) == len(test_df)
    assert set(report["per_class"]) == {"ham", "spam"}
    status, text_report, _ = run(capsys, "evaluate", model_path, paths["test"])
    assert status == 0 and "accuracy" in text_report and "pred spam" in text_report

    status, out, _ = run(
        capsys, "explain", model_path, paths["test"], "--rows", "3", "-k", "5", "--json"
    )
    report = json.loads(out)
    vocabulary = set(model.get_feature_names_out())
    spam = report["top_features"]["spam"]
    assert len(spam) == 5 and {f["feature"] for f in spam} <= vocabulary
    assert [f["weight"] for f in spam] == sorted((f["weight"] for f in spam), reverse=True)
    assert [r["row"] for r in report["rows"]] == [0, 1, 2]
    assert [r["predicted"] for r in report["rows"]] == predicted[:3].tolist()
    for r in report["rows"]:
        assert all(f["feature"] in vocabulary and f["contribution"] != 0 for f in r["features"])
    status, out, _ = run(capsys, "explain", model_path)
    assert status == 0 and "class spam:" in out


def test_predict_streams_to_stdout_from_stdin(capsys, monkeypatch, sms_split, sms_model):
    paths, _, test_df = sms_split
    model_path, _ = sms_model
    data = paths["test"].read_bytes()
    monkeypatch.setattr(sys, "stdin", type("In", (), {"buffer": io.BytesIO(data)}))
    status, out, _ = run(capsys, "predict", model_path, "-", "--quiet")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "prediction" and len(lines) == len(test_df) + 1


@pytest.mark.parametrize("command", ["predict", "evaluate"])
def test_stdin_for_a_model_trained_without_header_loses_no_row(
    capsys, monkeypatch, tmp_path, command
):
    # The columns' names remembered from training (--names) apply to standard input without
    # a look ahead: a probe used to take the first 64 KB of the pipe away from the table.
    rng = np.random.default_rng(0)
    n = 8000  # about 90 KB: more than one read from the pipe
    label = rng.choice(["ham", "spam"], n)
    value = np.round(rng.normal(size=n) + (label == "spam"), 6)
    text = "".join(f"{a}\t{b}\n" for a, b in zip(label, value)).encode()
    (tmp_path / "train.tsv").write_bytes(text)
    model = tmp_path / "m.nbayes"
    argv = ["train", tmp_path / "train.tsv", "--names", "label,x", "-t", "label", "-o", model]
    assert run(capsys, *argv, "-q")[0] == 0
    monkeypatch.setattr(sys, "stdin", type("In", (), {"buffer": io.BytesIO(text)}))
    status, out, err = run(capsys, command, model, "-", "--quiet")
    assert status == 0, err
    if command == "predict":
        lines = out.splitlines()
        assert lines[0] == "prediction" and len(lines) == n + 1
    else:
        assert f"{n:,} rows" in out


def test_hashing_trains_in_one_pass(sms_split, tmp_path):
    paths, _, _ = sms_split
    out = tmp_path / "hash.nbayes"
    train(
        str(paths["train"]),
        "label",
        str(out),
        text_column="text",
        model="complement",
        settings=Settings(hashing=2**16),
    )
    report = evaluate(str(out), str(paths["test"]))
    assert report["accuracy"] > 0.95
    assert "HashingVectorizer" in inspect_model(str(out))["columns"][0]["features"]


# -- Enron: one e-mail per file, Latin-1 -----------------------------------------------------------
@pytest.fixture(scope="module")
def enron_csv(shared_data, tmp_path_factory):
    rows = []
    with tarfile.open(shared_data / "enron_spam_enron1" / "enron1.tar.gz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) == 3 and parts[1] in ("ham", "spam"):
                text = tar.extractfile(member).read().decode("latin-1")
                rows.append((parts[1], text))
    df = pd.DataFrame(rows, columns=["label", "text"])
    train_df, test_df = train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])
    folder = tmp_path_factory.mktemp("enron")
    train_df.to_csv(folder / "train.csv", index=False, encoding="latin-1")
    test_df.to_csv(folder / "test.csv", index=False, encoding="latin-1")
    return folder, len(train_df), len(test_df)


def test_enron_text_spam_filter(capsys, enron_csv):
    folder, n_train, n_test = enron_csv
    model = folder / "enron.nbayes"
    status, out, err = run(
        capsys,
        "train",
        folder / "train.csv",
        "--target",
        "label",
        "--text-column",
        "text",
        "--encoding",
        "latin-1",
        "-o",
        model,
    )
    assert status == 0, err
    assert f"{n_train:,} rows" in out
    report = evaluate(str(model), str(folder / "test.csv"), read=ReadOptions(encoding="latin-1"))
    assert report["rows"] == n_test
    assert report["accuracy"] > 0.95
    # The model remembers the encoding of its training file; one given now still wins.
    status, out, err = run(capsys, "evaluate", model, folder / "test.csv")
    assert status == 0, err
    assert f"accuracy           {report['accuracy']:.4f}" in out
    status, _, err = run(capsys, "evaluate", model, folder / "test.csv", "--encoding", "utf-8")
    assert status == 1 and "not valid utf-8" in err and "--encoding" in err


# -- numeric tables: Spambase and Adult -----------------------------------------------------------
@pytest.fixture(scope="module")
def spambase(shared_data):
    return shared_data / "spambase" / "spambase.data"


def test_spambase_chunked_training_equals_fit(capsys, spambase, tmp_path):
    for model_name, cls in (("gaussian", GaussianNB), ("multinomial", MultinomialNB)):
        model = tmp_path / f"{model_name}.nbayes"
        status, _, err = run(
            capsys,
            "train",
            spambase,
            "--no-header",
            "--target",
            "57",
            "--model",
            model_name,
            "-o",
            model,
            "--chunk-rows",
            "700",
        )
        assert status == 0, err
        df = pd.read_csv(spambase, header=None)
        df.columns = [str(c) for c in df.columns]
        X, y = df.drop(columns="57"), df["57"]
        reference = cls().fit(X, y)
        loaded = load(model)
        # The labels keep the file's type: integers, as pandas reads them.
        assert loaded.classes_.dtype == np.int64 and loaded.classes_.tolist() == [0, 1]
        np.testing.assert_allclose(
            loaded.predict_proba(X), reference.predict_proba(X), rtol=1e-9, atol=1e-12
        )
        report = evaluate(str(model), str(spambase), read=ReadOptions(header=False))
        assert report["accuracy"] == pytest.approx(reference.score(X, y))


def test_spambase_parquet_in_and_out(capsys, spambase, tmp_path):
    df = pd.read_csv(spambase, header=None, names=[f"f{i}" for i in range(57)] + ["spam"])
    df.to_parquet(tmp_path / "spambase.parquet", index=False)
    model = tmp_path / "m.nbayes"
    status, _, err = run(
        capsys,
        "train",
        tmp_path / "spambase.parquet",
        "--target",
        "spam",
        "--model",
        "gaussian",
        "--exclude",
        "f0,f1",
        "-o",
        model,
    )
    assert status == 0, err
    assert load(model).feature_names_in_.tolist() == [f"f{i}" for i in range(2, 57)]
    status, _, err = run(
        capsys,
        "predict",
        model,
        tmp_path / "spambase.parquet",
        "--proba",
        "-o",
        tmp_path / "out.parquet",
        "--chunk-rows",
        "1000",
    )
    assert status == 0, err
    out = pd.read_parquet(tmp_path / "out.parquet")
    assert len(out) == len(df) and list(out.columns) == ["prediction", "proba_0", "proba_1"]
    features = [f"f{i}" for i in range(2, 57)]
    reference = GaussianNB().fit(df[features], df["spam"])  # labels keep their type
    assert out["prediction"].tolist() == reference.predict(df[features]).tolist()
    np.testing.assert_allclose(
        out[["proba_0", "proba_1"]].to_numpy(),
        reference.predict_proba(df[features]),
        rtol=1e-9,
        atol=1e-300,
    )


@pytest.fixture(scope="module")
def adult(shared_data, tmp_path_factory):
    names = [
        "age",
        "workclass",
        "fnlwgt",
        "education",
        "education_num",
        "marital_status",
        "occupation",
        "relationship",
        "race",
        "sex",
        "capital_gain",
        "capital_loss",
        "hours_per_week",
        "native_country",
        "income",
    ]
    folder = tmp_path_factory.mktemp("adult")
    for part, skip in (("data", 0), ("test", 1)):
        df = pd.read_csv(
            shared_data / "adult" / f"adult.{part}.gz",
            header=None,
            names=names,
            skipinitialspace=True,
            skiprows=skip,
            na_values="?",
        )
        df["income"] = df["income"].str.rstrip(".")
        df.to_csv(folder / f"{part}.csv", index=False)
    return folder


def test_adult_mixed_columns(capsys, adult):
    model = adult / "mixed.nbayes"
    status, out, err = run(capsys, "train", adult / "data.csv", "--target", "income", "-o", model)
    assert status == 0, err
    assert "MixedNB (mixed) on 32,561 rows, 14 columns" in out
    info = inspect_model(str(model))
    families = {c["column"]: c["family"] for c in info["columns"]}
    assert families["workclass"] == "categorical" and families["fnlwgt"] == "gaussian"
    report = evaluate(str(model), str(adult / "test.csv"))
    assert report["rows"] == 16281 and report["accuracy"] > 0.82
    report = explain(str(model), str(adult / "test.csv"), k=3, rows=2)
    assert all("=" in f["feature"] for f in report["top_features"][">50K"])
    assert {f["feature"] for f in report["rows"][0]["features"]} <= set(families)


def test_adult_categorical_in_chunks_equals_fit(adult):
    model = adult / "categorical.nbayes"
    train(
        str(adult / "data.csv"),
        "income",
        str(model),
        model="categorical",
        read=ReadOptions(chunk_rows=4000),
    )
    df = pd.read_csv(adult / "data.csv")
    test = pd.read_csv(adult / "test.csv")
    features = [c for c in df.columns if c != "income"]
    reference = MixedNB(columns=[("categorical", features)]).fit(df[features], df["income"])
    loaded = load(model)
    assert loaded.classes_.tolist() == ["<=50K", ">50K"]
    for column in ("workclass", "age"):
        assert sorted(map(str, loaded.categories_[column])) == sorted(
            map(str, reference.categories_[column])
        )
    np.testing.assert_allclose(
        predict_table(model, test), reference.predict_proba(test[features]), rtol=1e-9
    )


def predict_table(model, frame):
    """Probabilities from the model file through the CLI's own reading of a table."""
    from nbayes.cli._models import load_plan

    plan = load_plan(str(model))
    return plan.estimator.predict_proba(plan.inputs(frame, 0, "test"))


def test_mixed_model_saved_from_python_reads_a_table(capsys, adult):
    df = pd.read_csv(adult / "data.csv")
    features = [c for c in df.columns if c != "income"]
    model = save(MixedNB().fit(df[features], df["income"]), adult / "python.nbayes")
    status, out, err = run(
        capsys, "evaluate", model, adult / "test.csv", "--target", "income", "--json"
    )
    assert status == 0, err
    assert json.loads(out)["accuracy"] > 0.82


def test_adult_numeric_columns(capsys, adult):
    model = adult / "numeric.nbayes"
    numeric = "age,fnlwgt,education_num,capital_gain,capital_loss,hours_per_week"
    status, _, err = run(
        capsys,
        "train",
        adult / "data.csv",
        "--target",
        "income",
        "--model",
        "gaussian",
        "--features",
        numeric,
        "-o",
        model,
    )
    assert status == 0, err
    report = evaluate(str(model), str(adult / "test.csv"))
    assert report["rows"] == 16281 and report["accuracy"] > 0.75
    status, _, err = run(
        capsys,
        "train",
        adult / "data.csv",
        "--target",
        "income",
        "--model",
        "gaussian",
        "-o",
        adult / "x.nbayes",
    )
    assert status == 1 and "column 'workclass' must hold numbers" in err


# -- error paths ----------------------------------------------------------------------------------
def test_errors_are_one_line_with_exit_status(capsys, tmp_path, sms_split, sms_model):
    paths, _, _ = sms_split
    model_path, _ = sms_model
    good = paths["train"]
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("label,text\n")
    (tmp_path / "bad.csv").write_text("label,text\nham,hello there\nspam,win,cash\n")
    (tmp_path / "evil.nbayes").write_bytes(pickle.dumps({"x": 1}))
    (tmp_path / "cut.nbayes").write_bytes(model_path.read_bytes()[:500])
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    out = tmp_path / "m.nbayes"
    cases = [
        (["train", good, "--target", "category", "-o", out], 1, "no target column 'category'"),
        (["train", tmp_path / "empty.csv", "--target", "label", "-o", out], 1, "is empty"),
        (["train", tmp_path / "header.csv", "--target", "label", "-o", out], 1, "no data rows"),
        (
            ["train", tmp_path / "bad.csv", "--target", "label", "-o", out],
            1,
            "malformed row.*line 3",
        ),
        (
            ["train", good, "--target", "label", "--model", "bayesian", "-o", out],
            2,
            "invalid choice: 'bayesian'",
        ),
        (
            [
                "train",
                good,
                "--target",
                "label",
                "--model",
                "gaussian",
                "--text-column",
                "text",
                "-o",
                out,
            ],
            2,
            "cannot model a text column",
        ),
        (["train", good, "--target", "label", "--alpha", "-1", "-o", out], 2, "alpha"),
        (["train", tmp_path / "absent.csv", "--target", "label", "-o", out], 1, "no such file"),
        (["train", good, "-o", out], 2, "required: --target"),
        (["predict", model_path, tmp_path / "other.csv"], 1, "lacks column.*'text'.*trained on"),
        (["predict", tmp_path / "evil.nbayes", good], 1, "looks like a Python pickle"),
        (["predict", tmp_path / "cut.nbayes", good], 1, "damaged or truncated"),
        (["predict", tmp_path / "absent.nbayes", good], 1, "does not exist"),
        (["evaluate", model_path, good, "--target", "nope"], 1, "no column.*'nope'"),
        (["predict", model_path, good, "--keep", "nope"], 1, "no column.*'nope'"),
        ([], 2, ""),
    ]
    for argv, status, message in cases:
        got, stdout, err = run(capsys, *argv)
        assert got == status, (argv, err)
        assert stdout == "", argv
        if message:
            assert "Traceback" not in err
            assert err.strip().splitlines()[-1].startswith("nbayes: error: "), err
            assert re.search(message, err), (argv, err)
    assert not out.exists()
    status, _, err = run(capsys, "train", good, "--target", "category", "-o", out, "--debug")
    assert status == 1 and "Traceback" in err


def test_unlabelled_rows_and_unknown_labels(capsys, tmp_path, sms_model):
    model_path, _ = sms_model
    (tmp_path / "nolabel.csv").write_text("label,text\nham,hello\n,win cash now\n")
    status, _, err = run(
        capsys,
        "train",
        tmp_path / "nolabel.csv",
        "--target",
        "label",
        "--text-column",
        "text",
        "-o",
        tmp_path / "m.nbayes",
    )
    assert status == 1 and "empty at row 1" in err
    assert "learn from them too with --unlabeled-value '' (semi-supervised EM)" in err
    (tmp_path / "new.csv").write_text("label,text\nham,see you at lunch\nphish,verify account\n")
    report = evaluate(str(model_path), str(tmp_path / "new.csv"))
    assert report["classes"] == ["ham", "spam", "phish"]
    assert report["rows_with_unknown_labels"] == 1 and report["accuracy"] <= 0.5


def test_classes_first_seen_late_are_sorted(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    df["y"] = np.repeat(["zeta", "beta", "alpha"], 100)  # each class first seen in a new chunk
    df.to_csv(tmp_path / "late.csv", index=False)
    train(
        str(tmp_path / "late.csv"),
        "y",
        str(tmp_path / "m.nbayes"),
        model="gaussian",
        read=ReadOptions(chunk_rows=100),
    )
    model = load(tmp_path / "m.nbayes")
    reference = GaussianNB().fit(df[["a", "b", "c"]], df["y"])
    assert model.classes_.tolist() == ["alpha", "beta", "zeta"]
    np.testing.assert_allclose(
        model.predict_proba(df[["a", "b", "c"]]),
        reference.predict_proba(df[["a", "b", "c"]]),
        rtol=1e-9,
    )
    df.to_json(tmp_path / "late.jsonl", orient="records", lines=True)  # JSON lines read too
    train(
        str(tmp_path / "late.jsonl"),
        "y",
        str(tmp_path / "j.nbayes"),
        model="gaussian",
        read=ReadOptions(chunk_rows=70),
    )
    np.testing.assert_allclose(
        load(tmp_path / "j.nbayes").predict_proba(df[["a", "b", "c"]]),
        reference.predict_proba(df[["a", "b", "c"]]),
        rtol=1e-9,
    )


def test_model_saved_from_python_can_be_used(capsys, tmp_path, sms_split):
    paths, train_df, _ = sms_split
    model = save(TextNB().fit(train_df["text"], train_df["label"]), tmp_path / "py.nbayes")
    status, _, err = run(capsys, "predict", model, paths["test"])
    assert status == 2 and "--text-column" in err
    status, out, _ = run(
        capsys,
        "evaluate",
        model,
        paths["test"],
        "--text-column",
        "text",
        "--target",
        "label",
        "--json",
    )
    assert status == 0 and json.loads(out)["accuracy"] > 0.97
    assert read_manifest(model)["metadata"] == {}


def test_progress_bar_only_on_a_terminal(monkeypatch, capsys, sms_split, tmp_path):
    paths, _, _ = sms_split
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    main(["predict", str(tmp_path / "none.nbayes"), str(paths["test"])])  # error: no bar
    capsys.readouterr()
    out = tmp_path / "m.nbayes"
    main(["train", str(paths["train"]), "--target", "label", "-o", str(out), "--chunk-rows", "500"])
    assert "training" in capsys.readouterr().err
    main(
        [
            "train",
            str(paths["train"]),
            "--target",
            "label",
            "-o",
            str(out),
            "--quiet",
            "--chunk-rows",
            "500",
        ]
    )
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_optional_data_may_follow_the_options(capsys, sms_split, sms_model, tmp_path):
    # explain and report take DATA optionally: after options it is DATA still, not refused.
    paths, _, _ = sms_split
    model_path, _ = sms_model
    status, out, err = run(capsys, "explain", model_path, "--top", "2", paths["test"], "-q")
    assert status == 0, err
    assert "row 0: predicted" in out
    page = tmp_path / "r.html"
    status, _, err = run(capsys, "report", model_path, "-o", page, paths["test"], "-q")
    assert status == 0, err
    assert "accuracy" in page.read_text()
    status, _, err = run(capsys, "explain", model_path, paths["test"], paths["test"])
    assert status == 2 and "unrecognized arguments:" in err


def test_python_dash_m_and_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.startswith("nbayes ") and "compiled loops" in out
    done = subprocess.run(
        [sys.executable, "-m", "nbayes", "train"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and "nbayes: error:" in done.stderr
    assert "usage: nbayes train" in done.stderr


def test_predict_worker_writes_jsonl(sms_split, sms_model, tmp_path):
    paths, _, test_df = sms_split
    model_path, _ = sms_model
    result = predict(str(model_path), str(paths["test"]), str(tmp_path / "p.jsonl"), keep=("text",))
    rows = pd.read_json(tmp_path / "p.jsonl", lines=True)
    assert result.rows == len(test_df) == len(rows)
    assert rows["text"].tolist() == test_df["text"].tolist()


def test_explain_worker_on_a_gaussian_model(spambase, tmp_path):
    model = tmp_path / "g.nbayes"
    opts = ReadOptions(header=False)
    train(str(spambase), "57", str(model), model="gaussian", read=opts)
    report = explain(str(model), str(spambase), k=3, rows=2, read=opts)
    assert set(report["top_features"]) == {"0", "1"}
    assert len(report["rows"]) == 2 and all(len(r["features"]) <= 3 for r in report["rows"])


def test_chunk_size_counts_rows_not_lines(tmp_path):
    """Quoted fields spanning lines (e-mails) must not make the automatic chunk too large."""
    from nbayes.cli._tables import CHUNK_BYTES, open_table

    body = "line one\nline two\n" * 50  # about 900 bytes over 100 lines per row
    pd.DataFrame({"label": ["ham", "spam"] * 2000, "text": [body] * 4000}).to_csv(
        tmp_path / "mail.csv", index=False
    )
    rows = open_table(str(tmp_path / "mail.csv"), ReadOptions()).chunk_rows()
    assert rows == pytest.approx(CHUNK_BYTES / (len(body) + 8), rel=0.05)


def test_free_text_detection():
    from nbayes.cli._models import looks_like_text

    emails = pd.Series(["please find the report attached and call me tomorrow"] * 50)
    places = pd.Series(["New York City", "Rio de Janeiro", "Los Angeles CA"] * 50)
    messages = pd.Series([f"see you at {i} pm ok" for i in range(60)])
    assert looks_like_text(emails) and looks_like_text(messages)
    assert not looks_like_text(places) and not looks_like_text(pd.Series(["a", "b"] * 9))


def test_threads_option_sets_the_engine_threads(capsys, spambase, tmp_path, monkeypatch):
    import nbayes
    from nbayes import _engine

    seen = []
    accumulate = _engine.accumulate

    def spy(*args, **kwargs):
        seen.append(nbayes.get_threads())
        return accumulate(*args, **kwargs)

    monkeypatch.setattr(_engine, "accumulate", spy)
    model = tmp_path / "m.nbayes"
    status, _, err = run(
        capsys,
        "train",
        spambase,
        "--no-header",
        "--target",
        "57",
        "--model",
        "gaussian",
        "-o",
        model,
        "--threads",
        "1",
    )
    assert status == 0, err
    assert seen and set(seen) == {1}
    assert nbayes.get_threads() >= 1  # the option holds for the command only
    status, _, err = run(
        capsys, "train", spambase, "--no-header", "--target", "57", "-o", model, "--threads", "0"
    )
    assert status == 2 and "--threads: must be at least 1" in err
