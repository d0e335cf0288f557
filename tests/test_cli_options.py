"""``nbayes train`` options end to end: every option that sets a model parameter reaches the
saved model (its parameters and the probabilities they give), and each bad value gets its
own message. Small synthetic tables, so the file runs in a few seconds."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

from nbayes import (
    BernoulliNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    PoissonNB,
    TextNB,
)
from nbayes.cli import main
from nbayes.cli._models import load_plan

WORDS = "cash prize win free call now meeting lunch report Budget Team tomorrow".split()


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """Small tables: counts, real numbers, mixed columns and free text, label column ``y``."""
    rng = np.random.default_rng(0)
    folder = tmp_path_factory.mktemp("options")
    n = 90
    y = np.array(["x", "y", "z"])[np.arange(n) % 3]
    counts = pd.DataFrame(
        rng.poisson([[1, 3, 0.5]] * n + np.arange(n)[:, None] % 3), columns=["a", "b", "c"]
    )
    numeric = pd.DataFrame(
        rng.normal(size=(n, 3)) + (np.arange(n) % 3)[:, None], columns=["p", "q", "r"]
    )
    mixed = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "weight": rng.normal(150, 20, n).round(1),
            "size": rng.choice(["S", "M", "L"], n),
        }
    )
    texts = [" ".join(rng.choice(WORDS[4 * (i % 3) : 4 * (i % 3) + 6], size=9)) for i in range(n)]
    paths = {}
    for name, frame in (
        ("counts", counts),
        ("numeric", numeric),
        ("mixed", mixed),
        ("text", pd.DataFrame({"text": texts})),
    ):
        paths[name] = folder / f"{name}.csv"
        frame.assign(y=y).to_csv(paths[name], index=False)
    return paths


_names = itertools.count()


def train_cli(capsys, path, *options):
    """Train with the CLI; return (loaded model, the model's input for the training table,
    labels as the CLI reads them)."""
    out = path.parent / f"model{next(_names)}.nbayes"
    status, _, err = run(capsys, "train", path, "--target", "y", "-o", out, "--quiet", *options)
    assert status == 0, err
    plan = load_plan(str(out))
    frame = pd.read_csv(path, dtype={"y": str})
    return plan.estimator, plan.inputs(frame, 0, str(path)), frame["y"].to_numpy()


def assert_same_model(got, want, X):
    assert type(got) is type(want)
    assert got.get_params(deep=False) == want.get_params(deep=False) or isinstance(got, TextNB)
    np.testing.assert_allclose(got.predict_log_proba(X), want.predict_log_proba(X), rtol=1e-10)


PRESET_CASES = [
    ("counts", ["--model", "multinomial", "--alpha", "0.3"], MultinomialNB(alpha=0.3)),
    ("counts", ["--model", "multinomial", "--alpha", "auto"], MultinomialNB(alpha="auto")),
    (
        "counts",
        ["--model", "multinomial", "--alpha", "2.5", "--estimate", "map"],
        MultinomialNB(alpha=2.5, estimate="map"),
    ),
    ("counts", ["--model", "complement", "--alpha", "0.5"], ComplementNB(alpha=0.5)),
    (
        "counts",
        ["--model", "poisson", "--alpha", "3", "--estimate", "map"],
        PoissonNB(alpha=3.0, estimate="map"),
    ),
    (
        "counts",
        ["--model", "bernoulli", "--alpha", "0.25", "--estimate", "posterior_mean"],
        BernoulliNB(alpha=0.25),
    ),
    ("counts", ["--model", "bernoulli", "--estimate", "mle"], BernoulliNB(estimate="mle")),
    ("numeric", ["--model", "gaussian", "--var-smoothing", "0.01"], GaussianNB(var_smoothing=0.01)),
    (
        "numeric",
        ["--model", "gaussian", "--var-smoothing", "auto"],
        GaussianNB(var_smoothing="auto"),
    ),
    ("numeric", ["--model", "gaussian", "--estimate", "mle"], GaussianNB()),
]


@pytest.mark.parametrize(("table", "options", "expected"), PRESET_CASES)
def test_model_options_reach_the_saved_preset(capsys, tables, table, options, expected):
    model, X, y = train_cli(capsys, tables[table], *options)
    assert_same_model(model, clone(expected).fit(X, y), X)


def test_options_change_the_model(capsys, tables):
    # The values above are not the defaults: the same training without them differs.
    default, X, _ = train_cli(capsys, tables["counts"], "--model", "multinomial")
    smoothed, _, _ = train_cli(capsys, tables["counts"], "--model", "multinomial", "--alpha", "0.3")
    assert default.alpha == 1.0 and smoothed.alpha == 0.3
    assert not np.allclose(default.predict_log_proba(X), smoothed.predict_log_proba(X))


@pytest.mark.parametrize(
    ("options", "columns", "params"),
    [
        (["--model", "mixed"], "auto", {}),
        (
            ["--model", "mixed", "--alpha", "1.5", "--estimate", "map", "--var-smoothing", "0.1"],
            "auto",
            {"alpha": 1.5, "estimate": "map", "var_smoothing": 0.1},
        ),
        (
            ["--model", "categorical", "--alpha", "2", "--features", "colour,size"],
            [("categorical", ["colour", "size"])],
            {"alpha": 2.0},
        ),
        (
            ["--model", "categorical", "--estimate", "mle", "--exclude", "weight"],
            [("categorical", ["colour", "size"])],
            {"estimate": "mle"},
        ),
    ],
)
def test_model_options_reach_the_saved_mixed_model(capsys, tables, options, columns, params):
    model, X, y = train_cli(capsys, tables["mixed"], *options)
    expected = MixedNB(columns=columns, **params).fit(X, y)
    assert isinstance(model, MixedNB)
    assert {k: model.get_params()[k] for k in params} == params
    assert list(X.columns) == (
        ["colour", "size"] if columns != "auto" else ["colour", "weight", "size"]
    )
    np.testing.assert_allclose(
        model.predict_log_proba(X), expected.predict_log_proba(X), rtol=1e-10
    )


@pytest.mark.parametrize(
    ("options", "vectorizer", "classifier"),
    [
        ([], CountVectorizer(), MultinomialNB()),
        (["--model", "complement", "--alpha", "0.4"], CountVectorizer(), ComplementNB(alpha=0.4)),
        (
            ["--model", "bernoulli", "--estimate", "map", "--alpha", "2"],
            CountVectorizer(),
            BernoulliNB(alpha=2.0, estimate="map"),
        ),
        (["--model", "poisson"], CountVectorizer(), PoissonNB()),
        (
            ["--hashing", "64"],
            HashingVectorizer(n_features=64, alternate_sign=False, norm=None),
            MultinomialNB(),
        ),
        (
            ["--hashing"],
            HashingVectorizer(n_features=2**20, alternate_sign=False, norm=None),
            MultinomialNB(),
        ),
        (["--ngrams", "2"], CountVectorizer(ngram_range=(1, 2)), MultinomialNB()),
        (["--min-df", "20"], CountVectorizer(min_df=20), MultinomialNB()),
        (["--min-df", "0.3"], CountVectorizer(min_df=0.3), MultinomialNB()),
        (["--max-features", "4"], CountVectorizer(max_features=4), MultinomialNB()),
        (["--no-lowercase"], CountVectorizer(lowercase=False), MultinomialNB()),
    ],
)
def test_text_options_reach_the_saved_vectorizer(capsys, tables, options, vectorizer, classifier):
    model, X, y = train_cli(capsys, tables["text"], "--text-column", "text", *options)
    expected = TextNB(classifier, vectorizer).fit(X, y)
    assert isinstance(model, TextNB)
    got_vec, want_vec = model.vectorizer_, expected.vectorizer_
    assert type(got_vec) is type(want_vec)
    assert got_vec.get_params() == want_vec.get_params()
    assert type(model.classifier_) is type(classifier)
    assert model.classifier_.get_params() == classifier.get_params()
    if isinstance(want_vec, CountVectorizer):
        assert model.get_feature_names_out().tolist() == expected.get_feature_names_out().tolist()
    np.testing.assert_allclose(
        model.predict_log_proba(X), expected.predict_log_proba(X), rtol=1e-10
    )


def test_text_vocabulary_options_pick_the_words(capsys, tables):
    # The vocabulary options are not only stored: they choose which words the model knows.
    full, _, _ = train_cli(capsys, tables["text"], "--text-column", "text")
    few, _, _ = train_cli(capsys, tables["text"], "--text-column", "text", "--max-features", "4")
    upper, _, _ = train_cli(capsys, tables["text"], "--text-column", "text", "--no-lowercase")
    pairs, _, _ = train_cli(capsys, tables["text"], "--text-column", "text", "--ngrams", "2")
    words = set(full.get_feature_names_out())
    assert words == {w.lower() for w in WORDS}
    assert len(few.get_feature_names_out()) == 4 and set(few.get_feature_names_out()) < words
    assert {"Budget", "Team"} <= set(upper.get_feature_names_out())
    assert any(" " in f for f in pairs.get_feature_names_out())


@pytest.mark.parametrize(
    ("table", "options", "status", "message"),
    [
        (
            "counts",
            ["--alpha", "abc"],
            2,
            r"argument --alpha: must be a number, 'auto' or 'cv'; got 'abc'",
        ),
        (
            "counts",
            ["--var-smoothing", "tiny"],
            2,
            r"argument --var-smoothing: must be a number, 'auto' or 'cv'; got 'tiny'",
        ),
        ("counts", ["--estimate", "bayes"], 2, r"argument --estimate: invalid choice: 'bayes'"),
        ("counts", ["--model", "multinomial", "--alpha", "-1"], 2, r"alpha"),
        (
            "numeric",
            ["--model", "gaussian", "--alpha", "0.5"],
            2,
            r"--alpha does not apply to --model gaussian; use --var-smoothing",
        ),
        (
            "numeric",
            ["--model", "gaussian", "--estimate", "map"],
            2,
            r"--model gaussian supports --estimate mle only",
        ),
        ("numeric", ["--model", "gaussian", "--var-smoothing", "-1"], 2, r"var_smoothing"),
        ("counts", ["--model", "multinomial", "--estimate", "map", "--alpha", "0.5"], 2, r"alpha"),
        (
            "text",
            ["--text-column", "text", "--hashing", "many"],
            2,
            r"argument --hashing: must be a whole number; got 'many'",
        ),
        (
            "text",
            ["--text-column", "text", "--ngrams", "two"],
            2,
            r"argument --ngrams: must be a whole number; got 'two'",
        ),
        (
            "text",
            ["--text-column", "text", "--max-features", "x"],
            2,
            r"argument --max-features: must be a whole number; got 'x'",
        ),
        (
            "text",
            ["--text-column", "text", "--min-df", "x"],
            2,
            r"argument --min-df: must be a number of texts .* got 'x'",
        ),
        (
            "text",
            ["--text-column", "text", "--model", "gaussian"],
            2,
            r"--model gaussian cannot model a text column",
        ),
        ("text", ["--text-column", "nope"], 1, r"DATA has no text column 'nope'"),
        (
            "text",
            ["--text-column", "y"],
            2,
            r"--text-column and --target must be different columns",
        ),
        (
            "counts",
            ["--features", "a,nope"],
            1,
            r"--features names column\(s\) \['nope'\] that DATA lacks",
        ),
        (
            "counts",
            ["--exclude", "nope"],
            1,
            r"--exclude names column\(s\) \['nope'\] that DATA lacks",
        ),
        (
            "counts",
            ["--exclude", "a,b,c"],
            1,
            r"DATA has no feature columns besides the target 'y'",
        ),
    ],
)
def test_bad_option_values_are_named(capsys, tables, tmp_path, table, options, status, message):
    out = tmp_path / "m.nbayes"
    got, stdout, err = run(capsys, "train", tables[table], "--target", "y", "-o", out, *options)
    assert (got, stdout) == (status, ""), err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("nbayes: error: ") and re.search(message, last), err
    assert not out.exists()
