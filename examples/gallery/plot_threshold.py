"""
Precision and recall against the log-odds threshold
===================================================

A spam filter on the SMS Spam Collection bundled with nbayes. ``predict`` calls a message spam
when the log-odds log P(spam | x) / P(ham | x) exceed a threshold, 0 by default; moving the
threshold (``decision_threshold``) trades recall for precision. The second plot is the
reliability curve: naive Bayes counts correlated words as independent evidence, so its
probabilities are more extreme than the frequencies they predict.
"""

import matplotlib.pyplot as plt
from sklearn.model_selection import train_test_split

from nbayes import MultinomialNB, TextNB
from nbayes.datasets import load_sms_spam
from nbayes.plot import ReliabilityDisplay, ThresholdDisplay

sms = load_sms_spam()
train, test = train_test_split(sms, test_size=0.25, random_state=0, stratify=sms["label"])
model = TextNB().fit(train["text"], train["label"])

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
ThresholdDisplay.from_estimator(model, test["text"], test["label"], pos_label="spam", ax=left)
left.set_xlim(-20, 20)
ReliabilityDisplay.from_estimator(
    model, test["text"], test["label"], pos_label="spam", strategy="quantile", ax=right
)
fig.tight_layout()

# %%
# A threshold of 4 (the model must find spam e^4 ≈ 55 times likelier than ham) keeps
# almost every ham message out of the spam folder at a small cost in recall.

strict = TextNB(MultinomialNB(decision_threshold=4.0)).fit(train["text"], train["label"])
caught = (strict.predict(test["text"]) == "spam")[test["label"].to_numpy() == "spam"].mean()
print(f"spam caught at threshold 4: {caught:.3f}")
