"""
Grid search from statistics against scikit-learn's
==================================================

:class:`nbayes.model_selection.GridSearchCV` counts each fold once and scores every candidate
smoothing from the fold statistics (subtracting the held-out fold, re-finalizing), where
scikit-learn's ``GridSearchCV`` refits the model for every candidate and fold. On the SMS Spam
Collection's word counts (the project's shared data) both search 20 values of ``alpha`` over
the same 5 folds: the scores are the same to rounding, the time is not.
"""

import csv
import os
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV as SklearnGridSearchCV
from sklearn.model_selection import StratifiedKFold

import nbayes
from nbayes.model_selection import GridSearchCV


def shared_data() -> Path:
    """``$NBAYES_DATA_DIR``, else ``shared/data`` beside the checkout or one of its parents."""
    if os.environ.get("NBAYES_DATA_DIR"):
        return Path(os.environ["NBAYES_DATA_DIR"])
    for parent in Path.cwd().resolve().parents:
        if (parent / "shared" / "data" / "adult").is_dir():
            return parent / "shared" / "data"
    raise FileNotFoundError("the shared data not found: set NBAYES_DATA_DIR to its folder")


def read_sms() -> pd.DataFrame:
    """The SMS Spam Collection: one message a line, its label, a tab, its text."""
    return pd.read_csv(
        shared_data() / "sms_spam_collection" / "SMSSpamCollection",
        sep="\t",
        names=["label", "text"],
        quoting=csv.QUOTE_NONE,
        encoding="utf-8",
    )


sms = read_sms()
X = CountVectorizer().fit_transform(sms["text"])
y = sms["label"].to_numpy()
grid = {"alpha": np.logspace(-3, 1, 20).tolist()}
cv = StratifiedKFold(5, shuffle=True, random_state=0)
searches, seconds = {}, {}
for name, search in (
    (
        "scikit-learn",
        SklearnGridSearchCV(nbayes.MultinomialNB(), grid, cv=cv, scoring="neg_log_loss"),
    ),
    ("nbayes", GridSearchCV(nbayes.MultinomialNB(), grid, cv=cv, scoring="neg_log_loss")),
):
    start = time.perf_counter()
    searches[name] = search.fit(X, y)
    seconds[name] = time.perf_counter() - start
ours, theirs = (searches[n].cv_results_["mean_test_score"] for n in ("nbayes", "scikit-learn"))
print(f"largest difference of the mean scores: {np.abs(ours - theirs).max():.2e}")

fig, (left, right) = plt.subplots(
    1, 2, figsize=(10, 3.8), width_ratios=[2, 1], layout="constrained"
)
left.plot(grid["alpha"], -theirs, "o", ms=9, mfc="none", label="scikit-learn")
left.plot(grid["alpha"], -ours, "x", color="C1", label="nbayes, from fold statistics")
left.set_xscale("log")
left.set_xlabel("alpha")
left.set_ylabel("cross-validated log-loss")
left.legend()
bars = right.bar(list(seconds), list(seconds.values()), color=["C0", "C1"])
right.bar_label(bars, fmt="%.2f s")
right.set_ylabel("seconds for the search")
fig.suptitle("SMS spam, 20 alphas x 5 folds: the same scores")
plt.show()
