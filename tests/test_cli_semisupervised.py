"""``nbayes train --unlabeled-value VALUE``: semi-supervised EM from the command line (issue
17). Rows whose label is VALUE, or empty, are unlabeled; EM reads DATA in chunks, one pass
per iteration, and the saved model equals ``SemiSupervisedNB`` on the same rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes import MultinomialNB, SemiSupervisedNB, TextNB
from nbayes.cli import main


def run(capsys, *argv):
    """Run the command; return (exit status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def counts_table(rng, n=400, misleading=False):
    """Word counts and a label 0/1, with 5 % of the labels kept: -1 elsewhere, and a few
    empty label cells."""
    y = rng.integers(0, 2, n)
    if misleading:  # the strongest structure (words 2, 3) has nothing to do with the label
        topic = rng.integers(0, 2, n)
        rates = np.column_stack([2 + y, 3 - y, np.where(topic, 30, 1), np.where(topic, 1, 30)])
    else:
        rates = np.where(y[:, None] == 0, [5, 1, 3, 1], [1, 5, 1, 3])
    X = rng.poisson(rates)
    labels = np.where(rng.random(n) < (0.1 if misleading else 0.05), y, -1).astype(object)
    labels[:2] = [0, 1]
    labels[np.flatnonzero(labels == -1)[:3]] = None  # empty cells are unlabeled too
    frame = pd.DataFrame(X, columns=["w0", "w1", "w2", "w3"]).assign(label=labels)
    return frame, labels


def python_labels(labels):
    return np.array([None if v is None or v == -1 else v for v in labels], dtype=object)


def test_train_with_unlabeled_rows_equals_semisupervised_nb(tmp_path, capsys):
    frame, labels = counts_table(np.random.default_rng(0))
    data = tmp_path / "partly.csv"
    frame.to_csv(data, index=False)
    out_model = tmp_path / "em.nbayes"
    status, out, err = run(
        capsys, "train", data, "-t", "label", "--model", "multinomial",
        "--unlabeled-value", "-1", "--chunk-rows", 70, "-o", out_model,
    )  # fmt: skip
    assert status == 0, err
    X = frame.drop(columns="label").to_numpy()
    em = SemiSupervisedNB(MultinomialNB()).fit(X, python_labels(labels))
    n_labeled = int(sum(v is not None and v != -1 for v in labels))
    assert (
        f"semi-supervised EM: {n_labeled} labeled rows and {400 - n_labeled} unlabeled rows "
        f"(label '-1' or empty), {em.n_iter_} iterations (converged), unlabeled weight 1; "
        f"held-out log-likelihood of the labeled rows "
        f"{em.heldout_log_likelihood_['labeled_only']:.6g} alone"
    ) in out
    model = nbayes.load(out_model)
    assert model.classes_.tolist() == [0, 1] and model.classes_.dtype.kind == "i"
    np.testing.assert_allclose(model.predict_proba(X), em.predict_proba(X), rtol=1e-10)
    status, out, err = run(capsys, "predict", out_model, data, "-o", tmp_path / "p.csv")
    assert status == 0, err


def test_text_with_a_chosen_weight(tmp_path, capsys):
    rng = np.random.default_rng(1)
    words = np.array(["cash prize now", "win cash today", "lunch at noon", "meeting at noon"])
    y = rng.integers(0, 2, 300)
    texts = words[2 * (1 - y) + rng.integers(0, 2, 300)]
    labels = np.where(y == 1, "spam", "ham").astype(object)
    labels[rng.random(300) > 0.1] = "?"
    labels[:2] = ["ham", "spam"]
    data = tmp_path / "texts.csv"
    pd.DataFrame({"text": texts, "label": labels}).to_csv(data, index=False)
    status, out, err = run(
        capsys, "train", data, "-t", "label", "--text-column", "text",
        "--unlabeled-value", "?", "--unlabeled-weight", "auto", "-o", tmp_path / "t.nbayes",
    )  # fmt: skip
    assert status == 0, err
    marked = np.where(labels == "?", None, labels)
    em = SemiSupervisedNB(TextNB(MultinomialNB()), unlabeled_weight="auto").fit(texts, marked)
    assert f"unlabeled weight {em.unlabeled_weight_:g};" in out
    model = nbayes.load(tmp_path / "t.nbayes")
    np.testing.assert_allclose(model.predict_proba(texts), em.predict_proba(texts), rtol=1e-10)


def test_em_that_hurts_is_a_warning_on_stderr(tmp_path, capsys):
    frame, _ = counts_table(np.random.default_rng(1), n=600, misleading=True)
    data = tmp_path / "misleading.csv"
    frame.to_csv(data, index=False)
    status, _, err = run(
        capsys, "train", data, "-t", "label", "--model", "multinomial", "--quiet",
        "--unlabeled-value", "-1", "-o", tmp_path / "m.nbayes",
    )  # fmt: skip
    assert status == 0
    assert "nbayes: warning: EM lowered the held-out log-likelihood of the labeled rows" in err
    assert "Lower --unlabeled-weight, or pass --unlabeled-weight auto to choose it." in err


@pytest.mark.parametrize(
    "extra, status, message",
    [
        (["--unlabeled-weight", "-1"], 2, "must be a number >= 0 or 'auto'; got '-1'"),
        (["--em-iterations", "-1"], 2, "'max_iter' must be >= 0"),
    ],
)
def test_bad_options(tmp_path, capsys, extra, status, message):
    frame, _ = counts_table(np.random.default_rng(0))
    data = tmp_path / "partly.csv"
    frame.to_csv(data, index=False)
    got, _, err = run(
        capsys, "train", data, "-t", "label", "--unlabeled-value", "-1", *extra,
        "-o", tmp_path / "m.nbayes",
    )  # fmt: skip
    assert got == status and message in err
    assert not (tmp_path / "m.nbayes").exists()


def test_every_row_unlabeled_is_an_error(tmp_path, capsys):
    data = tmp_path / "none.csv"
    pd.DataFrame({"x": [1, 2, 3], "label": ["?", "?", None]}).to_csv(data, index=False)
    status, _, err = run(
        capsys, "train", data, "-t", "label", "--unlabeled-value", "?", "-o", tmp_path / "m"
    )
    assert status == 1
    assert "every row of the target column 'label' is '?' or empty (unlabeled)" in err


def test_help_names_the_options(capsys):
    assert main(["train", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--unlabeled-value VALUE rows whose label is VALUE" in text
    assert "--unlabeled-weight W" in text and "--em-iterations N" in text


@pytest.mark.xdist_group("dask-cluster")
@pytest.mark.parametrize("text", [False, True])
def test_train_on_the_cluster_equals_the_chunked_run(dask_client, tmp_path, capsys, text):
    """--dask runs EM as one distributed pass per iteration: the same model, the same note."""
    if text:
        rng = np.random.default_rng(2)
        words = np.array(["cash prize now", "win cash today", "lunch at noon", "meet at noon"])
        y = rng.integers(0, 2, 300)
        labels = np.where(y == 1, "spam", "ham").astype(object)
        labels[rng.random(300) > 0.1] = "?"
        frame = pd.DataFrame({"text": words[2 * (1 - y) + rng.integers(0, 2, 300)]})
        frame["label"] = labels
        options = ["--text-column", "text", "--unlabeled-value", "?"]
    else:
        frame, _ = counts_table(np.random.default_rng(0))
        options = ["--model", "multinomial", "--unlabeled-value", "-1"]
    data = tmp_path / "partly.csv"
    frame.to_csv(data, index=False)
    notes = {}
    for name, extra in (("d", ["--dask", dask_client.scheduler.address]), ("c", [])):
        status, out, err = run(
            capsys, "train", data, "-t", "label", *options, "-o", tmp_path / name, *extra
        )
        assert status == 0, err
        notes[name] = [line for line in out.splitlines() if "semi-supervised EM" in line]
    assert notes["d"] == notes["c"] and len(notes["d"]) == 1
    X = frame["text"] if text else frame.drop(columns="label")
    on_cluster, chunked = nbayes.load(tmp_path / "d"), nbayes.load(tmp_path / "c")
    np.testing.assert_allclose(on_cluster.predict_proba(X), chunked.predict_proba(X), rtol=1e-10)


def test_a_label_that_marks_missing_labels_is_said_with_the_option(tmp_path, capsys):
    """Unlabeled rows written as '?' trained a class '?' without a word, which then won every
    row like them (SMS with 2 % of its labels: accuracy 0.001 on a test split)."""
    frame, labels = counts_table(np.random.default_rng(3))
    frame["label"] = ["?" if v is None or v == -1 else f"c{v}" for v in labels]
    data = tmp_path / "partly.csv"
    frame.to_csv(data, index=False)
    status, _, err = run(capsys, "train", data, "-t", "label", "-o", tmp_path / "m.nbayes")
    assert status == 0, err
    n = int((frame["label"] == "?").sum())
    assert (
        f"warning: the label '?' ({n:,} rows, {n / len(frame):.0%}) often marks a missing "
        "label; it was trained as a class of its own. If those rows are unlabeled, pass "
        "--unlabeled-value '?' to learn from them by EM" in " ".join(err.split())
    )
    # The option it names trains by EM, and says nothing of the kind.
    status, _, err = run(
        capsys, "train", data, "-t", "label", "--unlabeled-value", "?", "-o", tmp_path / "em.nbayes"
    )
    assert status == 0, err
    assert "often marks a missing label" not in err
    assert nbayes.load(tmp_path / "em.nbayes").classes_.tolist() == ["c0", "c1"]
    # A class named like a word that is not a marker is not flagged.
    frame["label"] = np.where(frame["label"] == "?", "other", frame["label"])
    frame.to_csv(data, index=False)
    status, _, err = run(capsys, "train", data, "-t", "label", "-o", tmp_path / "m.nbayes")
    assert status == 0 and "often marks" not in err
