"""Train and evaluate a spam filter on the SMS Spam Collection bundled with nbayes.

Run: python examples/spam_quickstart.py
"""

from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import accuracy_score, classification_report
from sklearn.model_selection import train_test_split

from nbayes import MultinomialNB
from nbayes.datasets import load_sms_spam


def main() -> None:
    df = load_sms_spam()
    train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])
    vectorizer = CountVectorizer()
    X_train = vectorizer.fit_transform(train["text"])
    model = MultinomialNB(alpha=1.0).fit(X_train, train["label"])
    predicted = model.predict(vectorizer.transform(test["text"]))
    print(f"SMS spam, {len(train)} training / {len(test)} test messages")
    print(f"accuracy: {accuracy_score(test['label'], predicted):.4f}")
    print(classification_report(test["label"], predicted, digits=4))


if __name__ == "__main__":
    main()
