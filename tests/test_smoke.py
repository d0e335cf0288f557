"""Fast end-to-end smoke test of the presets on the bundled SMS spam data."""

from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split

from nbayes import BernoulliNB, ComplementNB, MultinomialNB
from nbayes.datasets import load_sms_spam


def test_sms_spam_filters_reach_published_accuracy():
    df = load_sms_spam()
    assert df.shape == (5574, 2)
    train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])
    vec = CountVectorizer()
    X_train, X_test = vec.fit_transform(train["text"]), vec.transform(test["text"])
    for model, floor in [(MultinomialNB(), 0.98), (ComplementNB(), 0.97), (BernoulliNB(), 0.97)]:
        assert model.fit(X_train, train["label"]).score(X_test, test["label"]) > floor
