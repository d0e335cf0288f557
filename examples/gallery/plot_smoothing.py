"""
Laplace smoothing, MAP and MLE on a tiny spam table
===================================================

Four spam and four ham messages, five words. The three estimates of P(word | class) that
nbayes offers differ most where counts are small: the maximum-likelihood estimate gives a word
never seen in spam probability zero, so one such word rules spam out whatever else the
message says; the posterior mean under a Dirichlet(alpha) prior (Lidstone smoothing; Laplace's
at alpha = 1) pulls every estimate towards uniform, more as alpha grows. The MAP estimate under
Dirichlet(alpha) is the posterior mean under Dirichlet(alpha - 1): MAP at alpha = 2 is Laplace.
"""

import matplotlib.pyplot as plt
import numpy as np

from nbayes import MultinomialNB

words = ["free", "prize", "meeting", "lunch", "call"]
X = np.array(
    [
        [2, 1, 0, 0, 1],  # spam
        [1, 2, 0, 0, 0],
        [3, 0, 0, 0, 1],
        [1, 1, 0, 0, 2],
        [0, 0, 2, 1, 1],  # ham
        [0, 0, 1, 2, 0],
        [0, 0, 1, 1, 1],
        [1, 0, 2, 0, 0],
    ]
)
y = ["spam"] * 4 + ["ham"] * 4

settings = {
    "MLE": {"estimate": "mle"},
    "Lidstone (posterior mean, alpha=0.5)": {"alpha": 0.5},
    "Laplace (posterior mean, alpha=1)": {"alpha": 1.0},
}
fig, ax = plt.subplots(figsize=(7, 3.5))
width = 0.8 / len(settings)
for i, (name, params) in enumerate(settings.items()):
    model = MultinomialNB(**params).fit(X, y)
    spam = list(model.classes_).index("spam")
    theta = np.exp(model.feature_log_prob_[spam])
    ax.bar(np.arange(len(words)) + (i - 1) * width, theta, width, label=name)
ax.set_xticks(np.arange(len(words)), words)
ax.set_ylabel("P(word | spam)")
ax.set_title("Estimates of P(word | spam) from four messages")
ax.legend()

# %%
# "Let's have lunch, free call" contains a word never seen in spam: under the MLE its
# probability of spam is exactly zero, under the smoothed estimates it is merely small.

message = np.array([[1, 0, 0, 1, 1]])
for name, params in settings.items():
    model = MultinomialNB(**params).fit(X, y)
    p_spam = model.predict_proba(message)[0, list(model.classes_).index("spam")]
    print(f"{name:38s} P(spam | message) = {p_spam:.3f}")

laplace = MultinomialNB(alpha=1.0).fit(X, y)
map_2 = MultinomialNB(alpha=2.0, estimate="map").fit(X, y)
print(
    "MAP at alpha=2 equals Laplace:",
    np.allclose(laplace.feature_log_prob_, map_2.feature_log_prob_),
)
