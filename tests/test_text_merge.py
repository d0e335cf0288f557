"""TextNB through nbayes.merge and unlearn: word counts re-coded over the union of learned
vocabularies (the column layout's Vocabulary), so shards fitted apart merge into the model
of all their texts."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
from sklearn.model_selection import train_test_split

import nbayes
from nbayes import BernoulliNB, ComplementNB, MultinomialNB, ParameterError, PoissonNB, TextNB
from nbayes.datasets import load_sms_spam


@pytest.fixture(scope="module")
def sms():
    df = load_sms_spam()
    train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(train))
    return train, test, weights


def shards(n: int, parts: int = 3):
    return np.array_split(np.arange(n), parts)


@pytest.mark.parametrize(
    "classifier", [MultinomialNB(alpha=0.3), BernoulliNB(), ComplementNB(), PoissonNB()]
)
def test_shards_with_their_own_vocabularies_merge_into_the_fit_on_all(sms, classifier):
    train, test, w = sms
    models = [
        TextNB(classifier).fit(train["text"].iloc[s], train["label"].iloc[s], sample_weight=w[s])
        for s in shards(len(train))
    ]
    sizes = [len(m.vectorizer_.vocabulary_) for m in models]
    merged = nbayes.merge(*models)
    whole = TextNB(classifier).fit(train["text"], train["label"], sample_weight=w)
    # The union of the shards' words, in another order than the fit on all texts.
    assert len(merged.vectorizer_.vocabulary_) == len(whole.vectorizer_.vocabulary_) > max(sizes)
    assert sorted(merged.get_feature_names_out()) == whole.get_feature_names_out().tolist()
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(test["text"]),
        whole.predict_joint_log_proba(test["text"]),
        rtol=1e-10,
    )
    assert [len(m.vectorizer_.vocabulary_) for m in models] == sizes  # inputs untouched


def test_a_merged_model_saves_explains_and_unlearns(sms, tmp_path):
    train, test, _ = sms
    parts = shards(len(train), 2)
    a, b = (TextNB().fit(train["text"].iloc[s], train["label"].iloc[s]) for s in parts)
    merged = nbayes.merge(a, b)
    loaded = nbayes.load(nbayes.save(merged, tmp_path / "m.nbayes"))
    np.testing.assert_array_equal(
        loaded.predict_proba(test["text"]), merged.predict_proba(test["text"])
    )
    # A word only b's texts held is explained by name, with its evidence.
    only_b = sorted(set(b.vectorizer_.vocabulary_) - set(a.vectorizer_.vocabulary_))[0]
    why = merged.explain([f"{only_b} {only_b}"])
    at = why.feature_names.tolist().index(only_b)
    assert why.values[0, at] == 2 and np.all(why.terms[0, :, at] != 0)
    # Unlearning b's texts leaves a's counts over the merged vocabulary: partial_fit of a's
    # texts with that vectoriser.
    merged.unlearn(train["text"].iloc[parts[1]], train["label"].iloc[parts[1]])
    fixed = CountVectorizer(vocabulary=merged.vectorizer_.vocabulary_)
    again = TextNB(vectorizer=fixed).partial_fit(
        train["text"].iloc[parts[0]], train["label"].iloc[parts[0]], classes=["ham", "spam"]
    )
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(test["text"]),
        again.predict_joint_log_proba(test["text"]),
        rtol=1e-10,
    )


@pytest.mark.parametrize(
    "vectorizer",
    [
        HashingVectorizer(alternate_sign=False, norm=None, n_features=2**12),
        CountVectorizer(vocabulary=["cash", "prize", "lunch", "noon", "win"]),
    ],
)
def test_hashing_and_fixed_vocabularies_merge_without_recoding(sms, vectorizer):
    train, test, _ = sms
    models = [
        TextNB(vectorizer=vectorizer).partial_fit(
            train["text"].iloc[s], train["label"].iloc[s], classes=["ham", "spam"]
        )
        for s in shards(len(train))
    ]
    whole = TextNB(vectorizer=vectorizer).fit(train["text"], train["label"])
    np.testing.assert_allclose(
        nbayes.merge(*models).predict_joint_log_proba(test["text"]),
        whole.predict_joint_log_proba(test["text"]),
        rtol=1e-10,
    )


def test_vocabularies_learned_under_limits_are_refused_with_the_reason(sms):
    train, _, _ = sms
    a, b = (
        TextNB(vectorizer=CountVectorizer(min_df=2)).fit(
            train["text"].iloc[s], train["label"].iloc[s]
        )
        for s in shards(len(train), 2)
    )
    with pytest.raises(ParameterError, match=r"learned under limits \(min_df=2.*learn_vocab"):
        nbayes.merge(a, b)


def test_models_with_other_settings_are_refused_naming_the_setting():
    texts, y = ["cash now", "lunch at noon", "cash prize", "noon lunch"], [1, 0, 1, 0]
    a = TextNB(MultinomialNB(alpha=0.5)).fit(texts, y)
    with pytest.raises(ParameterError, match=r"classifier__alpha=1.0 but model 1 has .*=0.5"):
        nbayes.merge(a, TextNB().fit(texts, y))
    with pytest.raises(ParameterError, match=r"vectorizer__lowercase=False"):
        nbayes.merge(
            a, TextNB(MultinomialNB(alpha=0.5), CountVectorizer(lowercase=False)).fit(texts, y)
        )
    with pytest.raises(ParameterError, match="BernoulliNB classifier but model 1 a Multinomial"):
        nbayes.merge(TextNB().fit(texts, y), TextNB(BernoulliNB()).fit(texts, y))
    with pytest.raises(ParameterError, match=r"model 2 \(MultinomialNB\) into model 1 \(TextNB\)"):
        nbayes.merge(a, MultinomialNB().fit(np.eye(4), y))
    with pytest.raises(ParameterError, match="classes"):
        nbayes.merge(a, TextNB(MultinomialNB(alpha=0.5)).fit(texts, [1, 0, 2, 0]))
