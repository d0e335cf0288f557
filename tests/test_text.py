"""TextNB: a scikit-learn vectoriser feeding an nbayes count model, in memory and streamed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from sklearn.model_selection import train_test_split

from nbayes import (
    BernoulliNB,
    ComplementNB,
    DataError,
    GaussianNB,
    MultinomialNB,
    ParameterError,
    TextNB,
    load,
    save,
)
from nbayes.datasets import load_sms_spam


@pytest.fixture(scope="module")
def sms():
    df = load_sms_spam()
    train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])
    return train, test


def chunks(frame, size=700):
    return [frame.iloc[i : i + size] for i in range(0, len(frame), size)]


def test_fit_matches_a_hand_built_pipeline(sms):
    train, test = sms
    model = TextNB(MultinomialNB(alpha=0.5)).fit(train["text"], train["label"])
    vec = CountVectorizer().fit(train["text"])
    ref = MultinomialNB(alpha=0.5).fit(vec.transform(train["text"]), train["label"])
    np.testing.assert_array_equal(
        model.predict_proba(test["text"]), ref.predict_proba(vec.transform(test["text"]))
    )
    assert model.score(test["text"], test["label"]) > 0.97
    assert model.get_feature_names_out().tolist() == vec.get_feature_names_out().tolist()


@pytest.mark.parametrize("stop_words", [None, "english"], ids=["compiled", "scikit-learn"])
def test_a_zero_weight_drops_the_row_from_the_vocabulary_too(sms, stop_words):
    # The words of a row of weight 0 were learned (15,542 words against 12,227 on SMS).
    train, test = sms
    weights = np.ones(len(train))
    weights[::3] = 0
    vectorizer = CountVectorizer(stop_words=stop_words)
    weighted = TextNB(vectorizer=vectorizer).fit(train["text"], train["label"], weights)
    kept = weights > 0
    dropped = TextNB(vectorizer=vectorizer).fit(train["text"][kept], train["label"][kept])
    assert weighted.vectorizer_.vocabulary_ == dropped.vectorizer_.vocabulary_
    np.testing.assert_array_equal(
        weighted.predict_proba(test["text"]), dropped.predict_proba(test["text"])
    )


@pytest.mark.parametrize(
    "vectorizer",
    [
        CountVectorizer(),
        CountVectorizer(min_df=2, max_df=0.5),
        CountVectorizer(max_features=800),
        CountVectorizer(min_df=0.002, ngram_range=(1, 2), binary=True),
    ],
    ids=["plain", "min-max-df", "max-features", "fraction-bigrams-binary"],
)
def test_vocabulary_pass_plus_partial_fit_equals_fit(sms, vectorizer):
    train, test = sms
    streamed = TextNB(ComplementNB(), vectorizer)
    streamed.learn_vocabulary(part["text"] for part in chunks(train))
    for part in chunks(train):
        streamed.partial_fit(part["text"], part["label"], classes=["ham", "spam"])
    whole = TextNB(ComplementNB(), vectorizer).fit(train["text"], train["label"])
    assert streamed.vectorizer_.vocabulary_ == whole.vectorizer_.vocabulary_
    np.testing.assert_allclose(
        streamed.predict_proba(test["text"]), whole.predict_proba(test["text"]), rtol=1e-10
    )


def test_hashing_streams_in_one_pass(sms):
    train, test = sms
    hashing = HashingVectorizer(n_features=2**16, alternate_sign=False, norm=None)
    model = TextNB(MultinomialNB(alpha=0.1), hashing)
    for part in chunks(train):
        model.partial_fit(part["text"], part["label"], classes=["ham", "spam"])
    whole = TextNB(MultinomialNB(alpha=0.1), hashing).fit(train["text"], train["label"])
    np.testing.assert_allclose(
        model.predict_proba(test["text"]), whole.predict_proba(test["text"]), rtol=1e-10
    )
    assert model.score(test["text"], test["label"]) > 0.97
    assert model.get_feature_names_out()[:2].tolist() == ["hash_0", "hash_1"]


@pytest.mark.parametrize(
    "make",
    [
        lambda: TextNB(),
        lambda: TextNB(BernoulliNB(alpha=0.5), CountVectorizer(ngram_range=(1, 2), min_df=2)),
        lambda: TextNB(
            MultinomialNB(),
            HashingVectorizer(n_features=2**12, alternate_sign=False, norm=None, dtype=np.float32),
        ),
    ],
    ids=["default", "bernoulli-bigrams", "hashing"],
)
def test_model_file_round_trip_and_continued_learning(sms, tmp_path, make):
    train, test = sms
    model = make().fit(train["text"][:3000], train["label"][:3000])
    loaded = load(save(model, tmp_path / "text.nbayes"))
    assert loaded.get_params(deep=True).keys() == model.get_params(deep=True).keys()
    assert repr(loaded.vectorizer) == repr(model.vectorizer)
    np.testing.assert_array_equal(
        loaded.predict_proba(test["text"]), model.predict_proba(test["text"])
    )
    loaded.partial_fit(train["text"][3000:], train["label"][3000:])
    model.partial_fit(train["text"][3000:], train["label"][3000:])
    np.testing.assert_allclose(
        loaded.predict_proba(test["text"]), model.predict_proba(test["text"]), rtol=1e-12
    )


def test_explanations_name_words(sms):
    train, test = sms
    model = TextNB().fit(train["text"], train["label"])
    top = model.top_features("spam", k=5)
    vocabulary = set(model.get_feature_names_out())
    assert set(top["feature"]) <= vocabulary and (top["weight"] > 0).all()
    ex = model.explain(test["text"][:3])
    np.testing.assert_allclose(ex.joint_log_proba, model.predict_joint_log_proba(test["text"][:3]))
    assert set(ex.to_frame(0, 3)["feature"]) <= vocabulary


def test_inputs_may_be_lists_frames_or_columns_with_missing_texts():
    texts = ["cheap pills now", None, "meeting at noon", np.nan]
    model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
    frame = pd.DataFrame({"body": texts})
    np.testing.assert_array_equal(model.predict_proba(frame), model.predict_proba(texts))
    np.testing.assert_array_equal(
        model.predict_proba(np.array(texts, dtype=object)[:, None]), model.predict_proba(texts)
    )
    with pytest.raises(DataError, match="one string"):
        model.predict("cheap pills")
    with pytest.raises(DataError, match="one text column"):
        model.predict(frame.assign(other=1))


def test_bytes_texts_are_decoded_as_the_vectorizer_says_and_a_bad_one_is_named():
    """Texts read as bytes take the vectoriser's encoding, as CountVectorizer itself decodes
    them; a text that is not in it is a DataError naming the column, the row and the fix
    (it was a bare UnicodeDecodeError, and the vectoriser's encoding was not used)."""
    words = ["café ouvert le soir", "win cash now", "fermé à midi"]
    y = ["open", "spam", "closed"]
    latin = [w.encode("latin-1") for w in words]
    model = TextNB(vectorizer=CountVectorizer(encoding="latin-1")).fit(latin, y)
    plain = TextNB().fit(words, y)
    assert model.get_feature_names_out().tolist() == plain.get_feature_names_out().tolist()
    np.testing.assert_array_equal(model.predict_proba(latin), plain.predict_proba(words))
    mixed = pd.DataFrame({"message": [words[0].encode(), words[1], latin[2], None]})
    labels = [*y, "spam"]
    with pytest.raises(DataError) as err:
        TextNB().fit(mixed, labels)
    message = str(err.value)
    assert "Column 'message' (index 0)" in message and "row 2" in message
    assert "not utf-8" in message and "encoding='latin-1'" in message
    lenient = TextNB(vectorizer=CountVectorizer(decode_error="replace")).fit(mixed, labels)
    assert "café" in lenient.get_feature_names_out().tolist()  # row 0 is utf-8
    with pytest.raises(DataError, match="'klingon' is not one Python knows"):
        TextNB(vectorizer=CountVectorizer(encoding="klingon")).fit(latin, y)


def test_bad_configurations_are_refused(tmp_path):
    texts, y = ["aa bb cc", "dd ee ff"], ["x", "y"]
    with pytest.raises(ParameterError, match="classifier must be one of"):
        TextNB(GaussianNB()).fit(texts, y)
    with pytest.raises(ParameterError, match="CountVectorizer or a HashingVectorizer"):
        TextNB(vectorizer=TfidfVectorizer()).fit(texts, y)
    with pytest.raises(ParameterError, match="alternate_sign=False, norm=None"):
        TextNB(vectorizer=HashingVectorizer()).fit(texts, y)
    with pytest.raises(ParameterError, match="needs a fixed vocabulary"):
        TextNB().partial_fit(texts, y, classes=["x", "y"])
    with pytest.raises(ParameterError, match="no vocabulary to learn"):
        TextNB(vectorizer=HashingVectorizer(alternate_sign=False, norm=None)).learn_vocabulary(
            [texts]
        )
    with pytest.raises(DataError, match="No words are left"):
        TextNB(vectorizer=CountVectorizer(min_df=5)).learn_vocabulary([texts])
    with pytest.raises(DataError, match="No words to learn from"):
        TextNB().fit(["a", "b"], y)
    custom = TextNB(vectorizer=CountVectorizer(tokenizer=str.split, token_pattern=None))
    custom.fit(texts, y)
    with pytest.raises(ParameterError, match="cannot be saved"):
        save(custom, tmp_path / "custom.nbayes")
    assert not (tmp_path / "custom.nbayes").exists()


def test_fixed_vocabulary_allows_partial_fit_from_the_start():
    model = TextNB(vectorizer=CountVectorizer(vocabulary=["cash", "lunch", "prize"]))
    model.partial_fit(["cash prize", "lunch soon"], ["spam", "ham"], classes=["ham", "spam"])
    assert model.predict(["prize prize"]).tolist() == ["spam"]
    assert model.classifier_.n_features_in_ == 3
