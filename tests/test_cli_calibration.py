"""`nbayes train --calibration`: one calibrator on the out-of-fold scores of the hashed folds,
the same as nbayes.calibration over those folds; used by predict, evaluate, explain, inspect
and report."""

from __future__ import annotations

import io
import json
import re
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import brier_score_loss, log_loss

import nbayes
from nbayes.calibration import CalibratedClassifierCV
from nbayes.cli import main
from nbayes.cli._calibration_report import expected_calibration_error
from nbayes.estimators.semisupervised import fold_of
from nbayes.exceptions import UnseenCategoryWarning

METHODS = ["sigmoid", "isotonic", "temperature"]


def _table(n=900, seed=0, classes=("ham", "spam")):
    rng = np.random.default_rng(seed)
    y = rng.choice(list(classes), n)
    shift = np.searchsorted(np.asarray(sorted(classes)), y)
    return pd.DataFrame(
        {
            "size": rng.normal(1.5 * shift, 1.0),
            "weight": rng.normal(-shift, 2.0),
            "y": y,
        }
    )


def _train(tmp_path, table, method, *extra):
    data = tmp_path / "data.csv"
    table.to_csv(data, index=False)
    model = tmp_path / "m.nbayes"
    argv = ["train", str(data), "-t", "y", "-m", "gaussian", "-o", str(model)]
    assert main([*argv, "--calibration", method, *extra]) == 0
    return data, model


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("chunk_rows", [None, "100"])
@pytest.mark.parametrize("classes", [("ham", "spam"), ("a", "b", "c")], ids=["two", "three"])
def test_the_calibration_is_that_of_the_hashed_folds(capsys, tmp_path, method, chunk_rows, classes):
    table = _table(classes=classes)
    extra = ["--chunk-rows", chunk_rows] if chunk_rows else []
    _, model = _train(tmp_path, table, method, *extra)
    out = capsys.readouterr().out
    assert f"calibrated by {method} on the out-of-fold scores of 5 hashed folds (900 rows)" in out
    loaded = nbayes.load(model)
    assert type(loaded) is CalibratedClassifierCV and loaded.method == method
    X, y = table[["size", "weight"]], table["y"].to_numpy()
    fold = fold_of(np.arange(len(y)), 5, 0)
    splits = [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(5)]
    reference = CalibratedClassifierCV(
        nbayes.GaussianNB(), method=method, cv=splits, ensemble=False
    ).fit(X, y)
    np.testing.assert_allclose(loaded.predict_proba(X), reference.predict_proba(X), atol=1e-9)


def test_predict_evaluate_explain_and_inspect_use_the_calibration(capsys, tmp_path):
    table = _table(seed=2)
    data, model = _train(tmp_path, table, "isotonic")
    capsys.readouterr()
    calibrated = nbayes.load(model)
    X = table[["size", "weight"]]
    own = calibrated.calibrated_classifiers_[0].estimator.predict_proba(X)
    proba = calibrated.predict_proba(X)
    assert not np.allclose(own, proba)

    assert main(["predict", str(model), str(data), "--proba"]) == 0
    written = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(written[["proba_ham", "proba_spam"]], proba, rtol=1e-12)
    assert (written["prediction"] == calibrated.predict(X)).all()

    assert main(["evaluate", str(model), str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["calibration"] == "isotonic"
    assert report["log_loss"] == pytest.approx(log_loss(table["y"], proba), rel=1e-9)
    assert report["uncalibrated_log_loss"] == pytest.approx(log_loss(table["y"], own), rel=1e-9)
    assert main(["evaluate", str(model), str(data)]) == 0
    own_loss = report["uncalibrated_log_loss"]
    line = f"(probabilities calibrated by isotonic; the model's own log-loss: {own_loss:.4f})"
    assert line in capsys.readouterr().out

    assert main(["explain", str(model), str(data), "--rows", "2"]) == 0
    lines = re.findall(
        r"calibration \(isotonic\): P\((\w+)\) (\S+) -> (\S+)", capsys.readouterr().out
    )
    assert len(lines) == 2
    for i, (label, before, after) in enumerate(lines):
        k = ["ham", "spam"].index(label)
        assert float(before) == pytest.approx(own[i, k], abs=1e-4)
        assert float(after) == pytest.approx(proba[i, k], abs=1e-4)

    assert main(["inspect", str(model)]) == 0
    assert "probabilities calibrated by isotonic (1 calibrated model)" in capsys.readouterr().out


def test_what_cannot_be_calibrated_is_refused_before_reading(capsys, tmp_path):
    table = _table()
    data, model = _train(tmp_path, table, "sigmoid")
    capsys.readouterr()
    assert main(["predict", str(model), str(data), "--interval", "0.9"]) == 2
    assert "--interval bounds the model's own probabilities" in capsys.readouterr().err
    argv = ["train", str(data), "-t", "y", "-o", str(tmp_path / "x.nbayes")]
    assert main([*argv, "--calibration", "sigmoid", "--unlabeled-value", "?"]) == 2
    assert "does not combine with --unlabeled-value" in capsys.readouterr().err
    argv = ["train", str(data), "-t", "y", "-m", "tan", "-o", str(tmp_path / "t.nbayes")]
    assert main([*argv, "--calibration", "sigmoid"]) == 2
    assert "needs fold models made from statistics" in capsys.readouterr().err


def test_the_report_shows_the_metrics_before_and_after(tmp_path):
    from nbayes.cli.report import report

    table = _table(seed=3)
    data, model = _train(tmp_path, table, "sigmoid")
    report(str(model), str(data), str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text()
    calibrated = nbayes.load(model)
    X, y = table[["size", "weight"]], table["y"]
    own = calibrated.calibrated_classifiers_[0].estimator.predict_proba(X)
    proba = calibrated.predict_proba(X)
    codes = (y == "spam").to_numpy().astype(int)
    assert "<th>metric</th><th>model&#x27;s own</th><th>calibrated</th>" in page
    for p in (own, proba):
        for value in (
            log_loss(codes, p),
            brier_score_loss(codes, p[:, 1]),
            expected_calibration_error(p, codes),
        ):
            assert f"{value:.4g}" in page
    assert 'alt="reliability before and after calibration"' in page
    assert "Calibrated by sigmoid" in page

    plain = tmp_path / "plain.nbayes"
    assert main(["train", str(data), "-t", "y", "-m", "gaussian", "-o", str(plain), "-q"]) == 0
    report(str(plain), str(data), str(tmp_path / "p.html"))
    page = (tmp_path / "p.html").read_text()
    assert f"{expected_calibration_error(own, codes):.4g}" in page
    assert "before and after calibration" not in page
    assert "<th>metric</th><th>probabilities</th>" in page


def test_the_report_of_a_calibrated_model_without_data_shows_its_model(tmp_path):
    from nbayes.cli.report import report

    _, model = _train(tmp_path, _table(seed=4), "sigmoid")
    result = report(str(model), None, str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text()
    assert result["sections"] == ["summary", "features", "distributions"]
    assert result["figures"] > 0 and "weight" in page


def test_expected_calibration_error_bins_the_top_label_confidence():
    proba = np.array([[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.4, 0.6], [0.0, 1.0]])
    codes = np.array([0, 1, 1, 1, 1])
    # bins of 1/15: {0.9, 0.9} accuracy 1/2, {0.8} 1, {0.6} 1, {1.0} (the last bin) 1
    expected = (2 * 0.4 + 0.2 + 0.4 + 0.0) / 5
    assert expected_calibration_error(proba, codes) == pytest.approx(expected)
    assert expected_calibration_error(np.eye(3), np.arange(3)) == 0.0


@pytest.mark.parametrize("hashing", [True, False], ids=["hashing", "vocabulary"])
def test_a_text_model_is_calibrated_on_its_word_counts(capsys, tmp_path, hashing):
    from sklearn.base import clone

    rng = np.random.default_rng(4)
    y = rng.choice(["ham", "spam"], 600, p=[0.7, 0.3])
    words = {
        "ham": ["see", "you", "at", "lunch", "ok", "call"],
        "spam": ["win", "free", "call", "now", "prize", "ok"],
    }
    texts = [" ".join(rng.choice(words[c], 5)) for c in y]
    table = pd.DataFrame({"text": texts, "y": y})
    data = tmp_path / "texts.csv"
    table.to_csv(data, index=False)
    model = tmp_path / "t.nbayes"
    argv = ["train", str(data), "-t", "y", "-o", str(model), "--calibration", "sigmoid", "-q"]
    assert main([*argv, *(["--hashing", "4096"] if hashing else [])]) == 0
    loaded = nbayes.load(model)
    proba = loaded.predict_proba(texts)
    assert main(["predict", str(model), str(data), "--proba"]) == 0
    written = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(written[["proba_ham", "proba_spam"]], proba, rtol=1e-12)
    if hashing:  # no vocabulary learned: the folds' statistics are exactly the refits'
        fold = fold_of(np.arange(len(y)), 5, 0)
        splits = [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(5)]
        inner = clone(loaded.calibrated_classifiers_[0].estimator)
        reference = CalibratedClassifierCV(inner, cv=splits, ensemble=False).fit(texts, y)
        np.testing.assert_allclose(proba, reference.predict_proba(texts), atol=1e-9)


@pytest.mark.xdist_group("dask-cluster")  # the session's one cluster (tests/conftest.py)
def test_predict_on_a_dask_cluster_uses_the_calibration(capsys, tmp_path, dask_client):
    table = _table(seed=5)
    data, model = _train(tmp_path, table, "temperature")
    address = dask_client.scheduler.address
    for name, extra in (("d.csv", ["--dask", address]), ("c.csv", [])):
        argv = ["predict", str(model), str(data), "--proba", "-o", str(tmp_path / name)]
        assert main([*argv, *extra]) == 0
    on_cluster = pd.read_csv(tmp_path / "d.csv")
    pd.testing.assert_frame_equal(on_cluster, pd.read_csv(tmp_path / "c.csv"))
    proba = nbayes.load(model).predict_proba(table[["size", "weight"]])
    np.testing.assert_allclose(on_cluster[["proba_ham", "proba_spam"]], proba, rtol=1e-12)


def _texts(n=600, seed=4):
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam"], n, p=[0.7, 0.3])
    words = {
        "ham": ["see", "you", "at", "lunch", "ok", "call"],
        "spam": ["win", "free", "call", "now", "prize", "ok"],
    }
    return pd.DataFrame({"text": [" ".join(rng.choice(words[c], 5)) for c in y], "y": y})


def _same_model_files(a, b) -> None:
    """The same entries, manifests and integer arrays; float arrays equal to the rounding of
    merges in another order (Gaussian moments) and of the calibrators' optimisers."""
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        assert za.namelist() == zb.namelist()
        for name in za.namelist():  # bounded by the entries of a model file
            if not name.endswith(".npy"):
                assert za.read(name) == zb.read(name), name
                continue
            x, y = np.load(io.BytesIO(za.read(name))), np.load(io.BytesIO(zb.read(name)))
            if x.dtype.kind == "f":
                np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-9, err_msg=name)
            else:
                np.testing.assert_array_equal(x, y, err_msg=name)


@pytest.mark.xdist_group("dask-cluster")  # the session's one cluster (tests/conftest.py)
@pytest.mark.parametrize(
    "method, data",
    [
        ("sigmoid", "two"),
        ("isotonic", "three"),
        ("temperature", "three"),
        ("sigmoid", "texts"),
    ],
)
def test_calibration_on_a_dask_cluster_equals_the_chunked_run(
    capsys, tmp_path, dask_client, monkeypatch, method, data
):
    from nbayes.cli import _dask

    # Partitions of unequal sizes: the rows must be numbered across them as train numbers
    # them, or the folds would differ.
    read = _dask.read_frame
    monkeypatch.setattr(_dask, "read_frame", lambda *a: read(*a).repartition(npartitions=3))
    if data == "texts":
        table, model = _texts(), []
    else:
        classes = ("ham", "spam") if data == "two" else ("a", "b", "c")
        table, model = _table(seed=6, classes=classes), ["-m", "gaussian"]
    path = tmp_path / "data.csv"
    table.to_csv(path, index=False)
    notes = {}
    for name, extra in (("d", ["--dask", dask_client.scheduler.address]), ("c", [])):
        argv = ["train", str(path), "-t", "y", *model, "-o", str(tmp_path / name)]
        assert main([*argv, "--calibration", method, *extra]) == 0
        out = capsys.readouterr().out
        notes[name] = [line for line in out.splitlines() if "calibrated by" in line]
    assert notes["d"] == notes["c"] and len(notes["c"]) == 1
    _same_model_files(tmp_path / "d", tmp_path / "c")
    X = table["text"] if data == "texts" else table[["size", "weight"]]
    on_cluster, chunked = nbayes.load(tmp_path / "d"), nbayes.load(tmp_path / "c")
    np.testing.assert_allclose(on_cluster.predict_proba(X), chunked.predict_proba(X), atol=1e-9)


def _rare_categories(n=300, seed=0):
    """A table whose 'surname' holds mostly once-seen values (a few repeat, so it is a
    category, not an identifier): most of a held-out fold's surnames are new to its folds."""
    rng = np.random.default_rng(seed)
    table = _table(n, seed)
    names = [f"name{i:03d}" for i in range(n - 20)] + [f"name{i:03d}" for i in range(20)]
    table.insert(0, "surname", rng.permutation(names))
    return table


def test_the_calibration_folds_say_nothing_of_unseen_categories(capsys, tmp_path):
    data = tmp_path / "data.csv"
    _rare_categories().to_csv(data, index=False)
    argv = ["train", str(data), "-t", "y", "--features", "surname,size,weight"]
    assert main([*argv, "-o", str(tmp_path / "m.nbayes"), "--calibration", "sigmoid"]) == 0
    err = capsys.readouterr().err
    assert "never seen in training" not in err and "unseen" not in err, err


def test_calibrating_in_python_says_nothing_of_the_folds_unseen_categories():
    table = _rare_categories()
    X, y = table[["surname", "size", "weight"]], table["y"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenCategoryWarning)
        for ensemble in (True, False):
            CalibratedClassifierCV(nbayes.MixedNB(), cv=5, ensemble=ensemble).fit(X, y)
