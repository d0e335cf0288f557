"""Text models in one pass: ``TextNB.fit_chunks`` and ``nbayes train --text-column``, which
reads DATA once. The model equals ``TextNB.fit`` on all rows: the same vocabulary, the same
statistics to the bit, the same predictions, whatever the chunking, the vocabulary limits,
the count model and the analyzer (compiled, or scikit-learn's)."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pandas as pd
import pytest
from _reads import count_reads, passes
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

from nbayes import BernoulliNB, ComplementNB, MultinomialNB, PoissonNB, TextNB, load
from nbayes._accel import numpy_only
from nbayes.cli import main
from nbayes.datasets import load_sms_spam
from nbayes.exceptions import DataError

# Words of several scripts and kinds, mixed into the texts.
PIECES = [
    "Ünïcode",
    "ÇA ça",
    "東京 大阪",
    "emoji 🙂🙂 x",
    "snake_case_word",
    "12 345 ٣٤",
    "ΣΊΣΥΦΟΣ",
    "İstanbul",
    "straße STRASSE",
    "naïve café",
]


@pytest.fixture(scope="module")
def texts_csv(tmp_path_factory):
    """SMS texts with multilingual words mixed in, an empty and a missing text, and a class
    that appears only in the last rows, as a CSV."""
    df = load_sms_spam()[:3000].reset_index(drop=True)
    rng = np.random.default_rng(0)
    extra = rng.choice(PIECES, len(df))
    text = (df["text"] + " " + extra).astype(object)
    text[5], text[9] = "", np.nan
    label = df["label"].astype(object)
    label[-150:] = "late"
    path = tmp_path_factory.mktemp("texts") / "texts.csv"
    pd.DataFrame({"text": text, "label": label}).to_csv(path, index=False)
    return path


def flat(stats: dict) -> dict:
    """Every array of a model's statistics by its key (``groups0.n_counts``)."""
    out = {"class_count": np.asarray(stats["class_count"])}
    for i, group in enumerate(stats["groups"]):
        out.update({f"groups{i}.{k}": np.asarray(v) for k, v in group.items()})
    return out


@pytest.mark.parametrize(
    "options, classifier, vectorizer",
    [
        ([], MultinomialNB(), CountVectorizer()),
        (["--min-df", "2"], MultinomialNB(), CountVectorizer(min_df=2)),
        (["--max-features", "300"], MultinomialNB(), CountVectorizer(max_features=300)),
        (
            ["--ngrams", "2", "--min-df", "0.002", "--no-lowercase"],
            MultinomialNB(),
            CountVectorizer(ngram_range=(1, 2), min_df=0.002, lowercase=False),
        ),
        (["--model", "bernoulli"], BernoulliNB(), CountVectorizer()),
        (["--model", "complement", "--min-df", "3"], ComplementNB(), CountVectorizer(min_df=3)),
        (["--model", "poisson"], PoissonNB(), CountVectorizer()),
    ],
)
def test_chunked_training_equals_fit_on_all_rows(
    texts_csv, tmp_path, capsys, options, classifier, vectorizer
):
    out = tmp_path / "m.nbayes"
    argv = ["train", texts_csv, "--text-column", "text", "-t", "label", "-o", out, "-q"]
    status = main([str(a) for a in [*argv, "--chunk-rows", "400", *options]])
    assert status == 0, capsys.readouterr().err
    model = load(out)
    df = pd.read_csv(texts_csv, dtype=str, keep_default_na=False)
    whole = TextNB(classifier, vectorizer).fit(df["text"], df["label"])
    assert model.vectorizer_.vocabulary_ == whole.vectorizer_.vocabulary_
    np.testing.assert_array_equal(model.classes_, whole.classes_)
    ours, theirs = flat(model.classifier_.stats_), flat(whole.classifier_.stats_)
    assert ours.keys() == theirs.keys()
    for key in ours:  # counts: equal to the bit
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)
    np.testing.assert_array_equal(
        model.predict_proba(df["text"][:500]), whole.predict_proba(df["text"][:500])
    )


@pytest.mark.parametrize("options", [[], ["--min-df", "2", "--max-features", "500"]])
def test_text_training_reads_the_file_once(texts_csv, tmp_path, monkeypatch, capsys, options):
    """Every reader the table opens is counted: one of them reads the whole file (the
    training pass); the others read the start (the first chunk, for the column types)."""
    data = tmp_path / "texts.csv"  # several times the reading buffer
    head, body = texts_csv.read_text().split("\n", 1)
    data.write_text(head + "\n" + body * 20)
    size = data.stat().st_size
    readers = count_reads(monkeypatch)
    out = tmp_path / "m.nbayes"
    argv = ["train", data, "--text-column", "text", "-t", "label", "-o", out, "-q"]
    assert main([str(a) for a in [*argv, "--chunk-rows", "4000", *options]]) == 0
    capsys.readouterr()
    read = [r.n for r in readers]
    assert passes(readers, size) == 1, read
    assert sum(read) - size < size / 2, read  # the starts: a chunk or two


def assert_same_model(model: TextNB, whole: TextNB) -> None:
    assert getattr(model.vectorizer_, "vocabulary_", None) == getattr(
        whole.vectorizer_, "vocabulary_", None
    )
    np.testing.assert_array_equal(model.classes_, whole.classes_)
    assert model.classes_.dtype == whole.classes_.dtype
    ours, theirs = flat(model.classifier_.stats_), flat(whole.classifier_.stats_)
    assert ours.keys() == theirs.keys()
    for key in ours:
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


@pytest.fixture(scope="module")
def sms():
    df = load_sms_spam()[:2000]
    return df["text"].tolist(), df["label"].tolist()


def chunked(texts, labels, size: int):
    return [(texts[i : i + size], labels[i : i + size]) for i in range(0, len(texts), size)]


@pytest.mark.parametrize(
    "vectorizer",
    [
        CountVectorizer(min_df=2, max_features=400),
        CountVectorizer(binary=True, max_df=0.3),
        CountVectorizer(vocabulary=["call", "free", "ok", "lunch"]),
        HashingVectorizer(n_features=512, alternate_sign=False, norm=None),
    ],
)
@pytest.mark.parametrize("compiled", [True, False])
def test_fit_chunks_equals_fit(sms, vectorizer, compiled):
    """With the compiled analyzer and with scikit-learn's (numpy_only), learned, fixed and
    hashed features; a chunk of texts without a word and a class first seen late."""
    texts, labels = list(sms[0]), list(sms[1])
    texts[600:700] = ["!!"] * 100  # a whole chunk without a word
    labels[-100:] = ["late"] * 100
    with nullcontext() if compiled else numpy_only():
        model = TextNB(BernoulliNB(), vectorizer).fit_chunks(chunked(texts, labels, 100))
        whole = TextNB(BernoulliNB(), vectorizer).fit(texts, labels)
        np.testing.assert_array_equal(
            model.predict_proba(texts[:300]), whole.predict_proba(texts[:300])
        )
        summary = model.summary().loc["(text)", "analyzer"]
    assert summary.startswith("nbayes" if compiled else "scikit-learn")
    assert_same_model(model, whole)


def test_fit_chunks_says_what_is_wrong(sms):
    texts, labels = sms
    with pytest.raises(DataError, match="no chunks"):
        TextNB().fit_chunks([])
    with pytest.raises(DataError, match="row 1002 is missing"):
        TextNB().fit_chunks(
            [*chunked(texts[:1000], labels[:1000], 500), (["a b"] * 5, ["x", "y", None, "y", "x"])]
        )
    with pytest.raises(DataError, match="4 texts but labels of shape"):
        TextNB().fit_chunks([(texts[:4], labels[:3])])
    fitted = TextNB().fit(texts[:50], labels[:50])
    vocabulary = fitted.vectorizer_.vocabulary_
    with pytest.raises(DataError, match="No words are left"):
        fitted.fit_chunks([(["!", "?"], ["a", "b"])])
    assert fitted.vectorizer_.vocabulary_ is vocabulary  # the model as it was
    assert (
        fitted.predict(texts[:3]).tolist()
        == TextNB().fit(texts[:50], labels[:50]).predict(texts[:3]).tolist()
    )
