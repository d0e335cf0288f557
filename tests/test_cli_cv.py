"""`nbayes train --alpha cv / --var-smoothing cv`: chosen over the file's chunks by the
cross-validated log-loss, the same figures as refitting each fold."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss

import nbayes
from nbayes.cli import main
from nbayes.estimators._base import CV_CANDIDATES
from nbayes.estimators.semisupervised import fold_of


def _table(n=900, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam"], n, p=[0.7, 0.3])
    spam = y == "spam"
    return pd.DataFrame(
        {
            "colour": np.where(
                rng.random(n) < 0.3 + 0.4 * spam, "red", rng.choice(["blue", "green"], n)
            ),
            "size": rng.normal(2.0 * spam, 1.0),
            "shop": rng.choice([f"s{i}" for i in range(40)], n),
            "y": y,
        }
    )


def _refit_losses(make, name, X, y):
    """Each candidate's log-loss summed over the rows, refitting on the other folds; the
    folds are the command line's (a hash of the row number)."""
    fold = fold_of(np.arange(len(y)), 5, 0)
    losses = []
    for value in CV_CANDIDATES[name]:
        total = 0.0
        for k in range(5):
            test = fold == k
            model = make(**{name: value}).fit(X[~test], y[~test])
            proba = model.predict_proba(X[test])
            total += log_loss(y[test], proba, labels=model.classes_, normalize=False)
        losses.append(total)
    return np.array(losses)


def _note(out: str, option: str) -> tuple[float, float]:
    found = re.search(rf"{option} (\S+), chosen by 5-fold cross-validated log-loss \((\S+)\)", out)
    assert found, out
    return float(found.group(1)), float(found.group(2))


@pytest.mark.parametrize("chunk_rows", [None, "100"])
def test_alpha_cv_is_the_value_refits_of_the_folds_choose(capsys, tmp_path, chunk_rows):
    table = _table()
    data = tmp_path / "shop.csv"
    table.to_csv(data, index=False)
    model_file = tmp_path / "m.nbayes"
    argv = ["train", str(data), "-t", "y", "-o", str(model_file), "--alpha", "cv"]
    if chunk_rows:
        argv += ["--chunk-rows", chunk_rows]
    assert main(argv) == 0
    alpha, loss = _note(capsys.readouterr().out, "--alpha")
    X, y = table.drop(columns="y"), table["y"].to_numpy()
    losses = _refit_losses(nbayes.MixedNB, "alpha", X, y)
    best = int(np.argmin(losses))
    assert alpha == pytest.approx(CV_CANDIDATES["alpha"][best], rel=1e-3)
    assert loss == pytest.approx(losses[best] / len(y), rel=1e-3)
    fitted = nbayes.load(model_file)
    assert fitted.alpha == CV_CANDIDATES["alpha"][best]  # the saved model is an ordinary one
    reference = nbayes.MixedNB(alpha=fitted.alpha).fit(X, y)
    np.testing.assert_allclose(fitted.predict_proba(X), reference.predict_proba(X), rtol=1e-9)


def test_var_smoothing_cv_for_a_gaussian_model(capsys, tmp_path):
    table = _table(seed=1)[["size", "y"]]
    data = tmp_path / "sizes.csv"
    table.to_csv(data, index=False)
    argv = ["train", str(data), "-t", "y", "-m", "gaussian", "-o", str(tmp_path / "m.nbayes")]
    assert main([*argv, "--var-smoothing", "cv"]) == 0
    chosen, _ = _note(capsys.readouterr().out, "--var-smoothing")
    X, y = table[["size"]], table["y"].to_numpy()
    losses = _refit_losses(nbayes.GaussianNB, "var_smoothing", X, y)
    assert chosen == pytest.approx(CV_CANDIDATES["var_smoothing"][int(np.argmin(losses))], rel=1e-3)


def test_alpha_cv_on_a_text_column(capsys, tmp_path):
    rng = np.random.default_rng(2)
    spam_words, ham_words = ["win", "cash", "prize", "now"], ["lunch", "see", "you", "home"]
    y = rng.choice(["ham", "spam"], 400)
    texts = [
        " ".join([*rng.choice(spam_words if c == "spam" else ham_words, 4).tolist(), "now"])
        for c in y
    ]
    data = tmp_path / "texts.csv"
    pd.DataFrame({"text": texts, "label": y}).to_csv(data, index=False)
    model_file = tmp_path / "m.nbayes"
    assert main(["train", str(data), "-t", "label", "-o", str(model_file), "--alpha", "cv"]) == 0
    alpha, _ = _note(capsys.readouterr().out, "--alpha")
    assert nbayes.load(model_file).classifier_.alpha == pytest.approx(alpha, rel=1e-3)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["-m", "tan", "--alpha", "cv"],
            "--alpha cv does not apply to --model tan; give a number.",
        ),
        (["--alpha", "cv", "--unlabeled-value", "?"], "it does not combine with --unlabeled-value"),
        (["-m", "gaussian", "--var-smoothing", "x"], "must be a number, 'auto' or 'cv'; got 'x'"),
    ],
)
def test_alpha_cv_where_it_does_not_apply_is_a_usage_error(capsys, tmp_path, options, message):
    data = tmp_path / "shop.csv"
    _table(60).to_csv(data, index=False)
    assert main(["train", str(data), "-t", "y", "-o", str(tmp_path / "m.nbayes"), *options]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("options", [["--text-column", "note"], []])
def test_alpha_cv_with_words_beside_other_columns_is_refused_before_training(
    capsys, tmp_path, options
):
    # The words' family keeps its own alpha, which the cross-validation would not reach: it
    # once failed after the training pass with the library's "must be a number ... got 'cv'".
    rng = np.random.default_rng(3)
    table = _table(120)
    words = ["red car", "blue van", "old bike", "new boat", "fast train", "slow cart"]
    table["note"] = [" ".join(rng.choice(words, 5)) for _ in range(len(table))]
    data = tmp_path / "shop.csv"
    table.to_csv(data, index=False)
    model_file = tmp_path / "m.nbayes"
    argv = ["train", str(data), "-t", "y", "-o", str(model_file), "--alpha", "cv", *options]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--alpha cv applies to a text model over one column" in err
    assert "('note')" in err and "--alpha auto" in err and "got 'cv'" not in err
    assert not model_file.exists()
    argv[argv.index("cv")] = "auto"
    assert main(argv) == 0 and model_file.exists()


def _texts(n=500, seed=5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam"], n, p=[0.7, 0.3])
    words = {"ham": ["see", "you", "lunch", "ok", "call"], "spam": ["win", "free", "call", "now"]}
    return pd.DataFrame({"text": [" ".join(rng.choice(words[c], 5)) for c in y], "y": y})


@pytest.mark.xdist_group("dask-cluster")  # the session's one cluster (tests/conftest.py)
@pytest.mark.parametrize("case", ["mixed", "texts", "spambase"])
def test_cv_on_a_dask_cluster_equals_the_chunked_run(
    capsys, tmp_path, dask_client, monkeypatch, request, case
):
    from nbayes.cli import _dask

    # Partitions of unequal sizes: the rows must be numbered across them as train numbers
    # them, or the folds would differ.
    read = _dask.read_frame
    monkeypatch.setattr(_dask, "read_frame", lambda *a: read(*a).repartition(npartitions=3))
    if case == "spambase":
        path = request.getfixturevalue("shared_data") / "spambase" / "spambase.data"
        frame = pd.read_csv(path, header=None)
        X = frame.drop(columns=57).set_axis([str(c) for c in range(57)], axis=1)
        options = ["--no-header", "-t", "57", "-m", "gaussian", "--var-smoothing", "cv"]
    else:
        table = _table(seed=7) if case == "mixed" else _texts()
        path = tmp_path / "data.csv"
        table.to_csv(path, index=False)
        X = table["text"] if case == "texts" else table.drop(columns="y")
        options = ["-t", "y", "--alpha", "cv"]
        if case == "mixed":  # both parameters, chosen one after the other
            options += ["--var-smoothing", "cv"]
    notes, models = {}, {}
    for name, extra in (("d", ["--dask", dask_client.scheduler.address]), ("c", [])):
        assert main(["train", str(path), *options, "-o", str(tmp_path / name), *extra]) == 0
        out = capsys.readouterr().out
        notes[name] = [line for line in out.splitlines() if "chosen by 5-fold" in line]
        models[name] = nbayes.load(tmp_path / name)
    assert notes["d"] == notes["c"] and len(notes["c"]) == (2 if case == "mixed" else 1)
    on_cluster, chunked = models["d"], models["c"]
    if case == "texts":
        on_cluster, chunked = on_cluster.classifier_, chunked.classifier_
    for name in ("alpha", "var_smoothing"):
        if name in chunked.get_params():
            assert on_cluster.get_params()[name] == chunked.get_params()[name]
    np.testing.assert_allclose(
        models["d"].predict_proba(X), models["c"].predict_proba(X), rtol=0, atol=1e-12
    )
