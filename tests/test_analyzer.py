"""nbayes' compiled analyzer gives scikit-learn's tokens, vocabulary and counts, to the bit.

Compared with CountVectorizer / HashingVectorizer on the shared corpora (SMS, Enron), on every
Unicode character, and on generated multilingual text (accents, combining marks, CJK, digits
of other scripts, underscores, emoji, mixed scripts, characters whose lowercase is longer, the
final sigma); then TextNB, the text family, SemiSupervisedNB and grid searches over texts
against the scikit-learn pipeline they stand in for.
"""

from __future__ import annotations

import os
import tarfile

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.pipeline import make_pipeline

import nbayes
from nbayes import MultinomialNB, SemiSupervisedNB, TextNB, _analyzer
from nbayes._accel import numpy_only
from nbayes.datasets import load_sms_spam
from nbayes.distributions.text import Text

try:
    from nbayes import _text
except ImportError:  # built without a C compiler
    _text = None

needs_loops = pytest.mark.skipif(
    _text is None or _analyzer.unsupported(CountVectorizer()) is not None,
    reason="nbayes._text is not built (no C compiler at install) or NBAYES_COMPILED=0",
)


def test_compiled_analyzer_built_where_required(monkeypatch):
    monkeypatch.delenv("NBAYES_COMPILED", raising=False)
    if os.environ.get("NBAYES_REQUIRE_COMPILED") == "1":
        assert _text is not None, "nbayes._text was not built: pip install -e . needs a C compiler"
    if _text is None:
        pytest.skip("nbayes._text is not built (no C compiler at install)")
    assert _analyzer.unsupported(CountVectorizer()) is None
    with numpy_only():
        assert "not built or is switched off" in _analyzer.unsupported(CountVectorizer())


def assert_same_matrix(ours, theirs):
    assert ours.shape == theirs.shape
    assert ours.dtype == theirs.dtype
    assert (sp.csr_matrix(ours) != sp.csr_matrix(theirs)).nnz == 0


def assert_like_count_vectorizer(texts, other=None, **settings):
    """Vocabulary, fit_transform and transform (of ``other``) equal CountVectorizer's."""
    theirs = CountVectorizer(**settings)
    ours = CountVectorizer(**settings)
    try:
        expected = theirs.fit_transform(texts)
    except ValueError as exc:  # no words: the same error
        with pytest.raises(ValueError, match=str(exc)[:20]):
            _analyzer.vectorize(ours, texts, fit=True)
        return
    got = _analyzer.vectorize(ours, texts, fit=True)
    assert ours.vocabulary_ == theirs.vocabulary_
    assert_same_matrix(got, expected)
    other = texts if other is None else other
    assert_same_matrix(_analyzer.vectorize(ours, other), theirs.transform(other))


def assert_like_hashing_vectorizer(texts, **settings):
    vec = HashingVectorizer(**settings)
    assert _analyzer.unsupported(vec) is None
    assert_same_matrix(_analyzer.vectorize(vec, texts), vec.transform(texts))


# -- real text ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sms_texts():
    return load_sms_spam()["text"].tolist()


@pytest.fixture(scope="module")
def enron_texts(shared_data):
    with tarfile.open(shared_data / "enron_spam_enron1" / "enron1.tar.gz") as tar:
        return [
            tar.extractfile(m).read().decode("latin-1")
            for m in tar.getmembers()
            if m.isfile() and m.name.endswith(".txt")
        ]


@needs_loops
@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"lowercase": False},
        {"binary": True, "dtype": np.float32},
        {"min_df": 3, "max_df": 0.5},
        {"min_df": 0.001, "max_df": 40},
        {"max_features": 1000},
        {"max_features": 50, "min_df": 2, "binary": True},
        {"ngram_range": (1, 2), "min_df": 2},
        {"ngram_range": (2, 3), "max_features": 3000},
    ],
)
def test_sms_counts_equal_count_vectorizer(sms_texts, settings):
    assert_like_count_vectorizer(sms_texts[:4000], sms_texts[4000:], **settings)


@needs_loops
def test_enron_counts_and_hashes_equal_scikit_learn(enron_texts):
    assert_like_count_vectorizer(enron_texts[:3000], enron_texts[3000:])
    assert_like_hashing_vectorizer(enron_texts)
    assert_like_hashing_vectorizer(enron_texts, n_features=2**10, alternate_sign=False, norm=None)
    assert_like_hashing_vectorizer(enron_texts[:1000], ngram_range=(1, 2))


@needs_loops
def test_every_character_is_read_as_python_reads_it():
    # Each character c between two letters and alone: tokens show whether c is a word
    # character (re's \w), whether lower() keeps it one, and how it lowercases.
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    texts = [
        " ".join(f"q{c}z {c}{c} {c}" for c in chars[i : i + 4096])
        for i in range(0, len(chars), 4096)
    ]
    assert_like_count_vectorizer(texts)
    assert_like_count_vectorizer(texts, lowercase=False)
    assert_like_count_vectorizer(texts, token_pattern=_analyzer.LETTER_PATTERN)
    assert_like_hashing_vectorizer(texts, n_features=2**18)


# -- generated multilingual text ---------------------------------------------------------------
# fmt: off
PIECES = [
    "a", "Z", "é", "É", "e\u0301", "\u0301", "ñ", "ß", "ẞ", "İ", "\u0131", "Σ", "\u03c3", "ς",
    "ΐ", "ǅ", "ﬁ", "Ⅻ", "½", "²", "٣", "७", "0", "9", "_", "東", "京", "日本", "한국어",
    "Привет", "مرحبا", "हिन्दी", "😀", "👍🏽", "\u200d", "\ufeff", "\ud800", " ", "  ", "\t",
    "\n", ".", ",", "-", "'", "!", "ÀÉÎÕÜ", "word", "Word", "WORD", "x1", "_x_", "\u0149",
    "ǰ", "ﬃ",
]
# fmt: on

texts_strategy = st.lists(
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=30).map("".join),
    min_size=1,
    max_size=12,
)


@needs_loops
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=texts_strategy,
    other=texts_strategy,
    lowercase=st.booleans(),
    binary=st.booleans(),
    limits=st.sampled_from(
        [{}, {"min_df": 2}, {"max_df": 0.6}, {"max_features": 3}, {"min_df": 0.3, "max_df": 3}]
    ),
    ngram_range=st.sampled_from([(1, 1), (1, 2), (2, 2), (1, 3), (3, 4)]),
)
def test_generated_text_counts_equal_count_vectorizer(
    texts, other, lowercase, binary, limits, ngram_range
):
    assert_like_count_vectorizer(
        texts, other, lowercase=lowercase, binary=binary, ngram_range=ngram_range, **limits
    )
    assert_like_count_vectorizer(
        texts, other, lowercase=lowercase, token_pattern=_analyzer.LETTER_PATTERN
    )


@needs_loops
@settings(max_examples=150, deadline=None)
@given(
    texts=texts_strategy,
    n_features=st.sampled_from([1, 2, 7, 2**10, 2**20]),
    alternate_sign=st.booleans(),
    norm=st.sampled_from([None, "l1", "l2"]),
    lowercase=st.booleans(),
    binary=st.booleans(),
    ngram_range=st.sampled_from([(1, 1), (1, 2), (2, 3)]),
)
def test_generated_text_hashes_equal_hashing_vectorizer(
    texts, n_features, alternate_sign, norm, lowercase, binary, ngram_range
):
    assert_like_hashing_vectorizer(
        texts,
        n_features=n_features,
        alternate_sign=alternate_sign,
        norm=norm,
        lowercase=lowercase,
        binary=binary,
        ngram_range=ngram_range,
    )


@needs_loops
@settings(max_examples=200, deadline=None)
@given(key=st.binary(max_size=40), seed=st.integers(0, 2**32 - 1))
def test_murmurhash_equals_scikit_learns(key, seed):
    from sklearn.utils import murmurhash3_32

    assert _text.murmurhash3_32(key, seed) == murmurhash3_32(key, seed=seed)


@needs_loops
def test_threads_split_the_texts_without_changing_the_counts(sms_texts):
    texts = sms_texts * 2
    with nbayes.threads(1):
        one = _analyzer.vectorize(CountVectorizer(), texts, fit=True)
    with nbayes.threads(2):
        vec = CountVectorizer()
        two = _analyzer.vectorize(vec, texts, fit=True)
    assert_same_matrix(one, two)
    assert_same_matrix(two, vec.transform(texts))


@needs_loops
def test_edge_cases_match():
    assert_like_count_vectorizer(["", "a", "!!"])  # no words: scikit-learn's error
    assert_like_count_vectorizer(["aa bb", "aa"], min_df=2, max_df=1)  # max_df < min_df
    assert_like_count_vectorizer(["aa bb", "cc"], min_df=3)  # nothing left after limits
    assert_like_count_vectorizer(["aa bb", "bb"], ["", "bb zz"], vocabulary=["bb", "zz", "yy"])
    vec = CountVectorizer(vocabulary=["bb", "aa"])  # fixed: transform without fit
    assert_same_matrix(_analyzer.vectorize(vec, ["aa bb bb"]), vec.transform(["aa bb bb"]))
    with pytest.raises(Exception, match=r"not fitted|Vocabulary"):  # scikit-learn's error
        _analyzer.vectorize(CountVectorizer(), ["aa"])
    with pytest.raises(TypeError, match="text 1 is a int"):
        _analyzer.vectorize(CountVectorizer(), ["aa", 3], fit=True)


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"token_pattern": r"\b\w+\b"}, "token_pattern"),
        ({"ngram_range": (2, 1)}, "ngram_range=(2, 1)"),
        ({"ngram_range": (1, 20)}, "ngram_range=(1, 20)"),
        ({"ngram_range": (1.0, 2)}, "ngram_range=(1.0, 2)"),
        ({"ngram_range": 2}, "ngram_range=2"),
        ({"analyzer": "char"}, "analyzer='char'"),
        ({"stop_words": "english"}, "stop_words='english'"),
        ({"strip_accents": "unicode"}, "strip_accents"),
        ({"tokenizer": str.split, "token_pattern": None}, "tokenizer"),
        ({"preprocessor": str.strip}, "preprocessor"),
        ({"min_df": -1}, "min_df=-1"),
        ({"max_df": 1.5}, "max_df=1.5"),
        ({"max_features": 0}, "max_features=0"),
        ({"dtype": np.bool_}, "dtype"),
    ],
)
def test_settings_it_does_not_cover_are_named(settings, reason):
    vec = CountVectorizer(**settings)
    if _text is not None:
        assert reason in _analyzer.unsupported(vec)
    assert _analyzer.unsupported(HashingVectorizer(n_features=0)) is not None
    assert _analyzer.unsupported(HashingVectorizer(norm="max")) is not None
    assert _analyzer.unsupported(TfidfLike()) is not None


class TfidfLike:
    """Not a vectoriser the analyzer knows."""


# -- the estimators over texts ------------------------------------------------------------------
@pytest.fixture(scope="module")
def sms_split():
    df = load_sms_spam()
    return df["text"][:4000], df["label"][:4000], df["text"][4000:], df["label"][4000:]


def test_textnb_predicts_as_the_scikit_learn_pipeline(sms_split):
    X, y, X_test, _ = sms_split
    model = TextNB(MultinomialNB(alpha=0.5)).fit(X, y)
    pipe = make_pipeline(CountVectorizer(), SkMultinomialNB(alpha=0.5)).fit(X, y)
    np.testing.assert_array_equal(model.predict(X_test), pipe.predict(X_test))
    np.testing.assert_allclose(
        model.predict_proba(X_test), pipe.predict_proba(X_test), rtol=1e-9, atol=1e-12
    )
    row = model.summary().loc["(text)"]
    assert row["analyzer"].startswith("nbayes (compiled)" if _text is not None else "scikit")
    assert row["features"] == f"CountVectorizer, {len(model.vectorizer_.vocabulary_):,} words"
    assert row["family"] == "multinomial"


def test_textnb_falls_back_to_scikit_learn_and_says_why(sms_split):
    X, y, X_test, _ = sms_split
    vec = CountVectorizer(stop_words="english", min_df=2)
    model = TextNB(vectorizer=vec).fit(X, y)
    pipe = make_pipeline(CountVectorizer(stop_words="english", min_df=2), SkMultinomialNB())
    pipe.fit(X, y)
    np.testing.assert_array_equal(model.predict(X_test), pipe.predict(X_test))
    analyzer = model.summary().loc["(text)", "analyzer"]
    assert analyzer.startswith("scikit-learn (nbayes' analyzer does not cover ")
    assert "stop_words='english'" in analyzer or "not built" in analyzer
    bigrams = TextNB(vectorizer=CountVectorizer(ngram_range=(1, 2))).fit(X, y)
    pipe = make_pipeline(CountVectorizer(ngram_range=(1, 2)), SkMultinomialNB()).fit(X, y)
    np.testing.assert_array_equal(bigrams.predict(X_test), pipe.predict(X_test))
    hashing = TextNB(vectorizer=HashingVectorizer(alternate_sign=False, norm=None)).fit(X, y)
    assert hashing.summary().loc["(text)", "features"] == "HashingVectorizer, 1,048,576 buckets"


def test_textnb_without_the_loops_gives_the_same_model(sms_split):
    X, y, X_test, _ = sms_split
    model = TextNB().fit(X, y)
    with numpy_only():
        plain = TextNB().fit(X, y)
        assert plain.summary().loc["(text)", "analyzer"].startswith("scikit-learn")
        expected = plain.predict_proba(X_test)
    # numpy_only() switches the classifier's compiled loops off too: a few ulps apart.
    np.testing.assert_allclose(model.predict_proba(X_test), expected, rtol=1e-12, atol=1e-15)
    assert model.vectorizer_.vocabulary_ == plain.vectorizer_.vocabulary_
    assert_same_matrix(model.transform(X_test), plain.vectorizer_.transform(X_test))


def test_learn_vocabulary_equals_fit_over_all_chunks(sms_split):
    X, _y, _, _ = sms_split
    for limits in ({}, {"min_df": 2, "max_features": 500}, {"binary": True, "max_df": 0.2}):
        streamed = TextNB(vectorizer=CountVectorizer(**limits)).learn_vocabulary(
            [X[i : i + 700] for i in range(0, len(X), 700)]
        )
        whole = CountVectorizer(**limits).fit(X)
        assert streamed.vectorizer_.vocabulary_ == whole.vocabulary_


def test_grid_search_over_textnb_picks_the_pipelines_alpha(sms_split):
    X, y, _, _ = sms_split
    alphas = [0.1, 0.5, 1.0]
    ours = GridSearchCV(TextNB(), {"classifier__alpha": alphas}, cv=3).fit(X, y)
    theirs = GridSearchCV(
        make_pipeline(CountVectorizer(), SkMultinomialNB()),
        {"multinomialnb__alpha": alphas},
        cv=3,
    ).fit(X, y)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"]
    )


def test_semisupervised_over_texts_sees_the_same_counts(sms_split):
    X, y, X_test, _ = sms_split
    labels = np.asarray(y, dtype=object).copy()
    labels[1000:] = None
    model = SemiSupervisedNB(TextNB(), max_iter=3, cv=None).fit(X, labels)
    with numpy_only():
        plain = SemiSupervisedNB(TextNB(), max_iter=3, cv=None).fit(X, labels)
        expected = plain.predict_proba(X_test)
    np.testing.assert_allclose(model.predict_proba(X_test), expected, rtol=1e-9, atol=1e-12)


def test_text_family_hashes_as_hashing_vectorizer(sms_texts):
    import pandas as pd

    column = pd.Series([*sms_texts[:2000], None, "", "Ⅻ 12 x_1 İstanbul"], dtype=object)
    fam = Text(n_buckets=2**12)
    got = fam.encode(column)
    with numpy_only():
        expected = fam.encode(column)
    assert_same_matrix(got, expected)


@pytest.mark.parametrize("dtype", ["string", "str", object])
def test_texts_of_a_string_column_read_as_a_list(sms_split, dtype):
    import pandas as pd

    X, y, X_test, _ = sms_split
    texts = [*X.tolist()[:-1], None]
    column = pd.Series(texts, dtype=dtype)
    model = TextNB().fit(column, y)
    plain = TextNB().fit([*X.tolist()[:-1], ""], y)
    assert model.vectorizer_.vocabulary_ == plain.vectorizer_.vocabulary_
    np.testing.assert_array_equal(model.predict_proba(X_test), plain.predict_proba(X_test))
