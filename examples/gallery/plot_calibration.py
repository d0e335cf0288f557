"""
Calibration: reliability before and after
=========================================

Naive Bayes counts correlated evidence twice, so its probabilities are too sure. On UCI
Spambase (the project's shared data; 57 continuous word and character frequencies, a
quarter held out) Gaussian naive Bayes puts most messages at probability 0 or 1 and is often
wrong there. :class:`nbayes.calibration.CalibratedClassifierCV` learns an isotonic map from
cross-validated scores -- the folds from statistics, one pass over the data -- and the
reliability curve comes back to the diagonal, with a far lower log-loss.
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

import nbayes
from nbayes.calibration import CalibratedClassifierCV
from nbayes.plot import ReliabilityDisplay


def shared_data() -> Path:
    """``$NBAYES_DATA_DIR``, else ``shared/data`` beside the checkout or one of its parents."""
    if os.environ.get("NBAYES_DATA_DIR"):
        return Path(os.environ["NBAYES_DATA_DIR"])
    for parent in Path.cwd().resolve().parents:
        if (parent / "shared" / "data" / "adult").is_dir():
            return parent / "shared" / "data"
    raise FileNotFoundError("the shared data not found: set NBAYES_DATA_DIR to its folder")


data = pd.read_csv(shared_data() / "spambase" / "spambase.data", header=None)
X, y = data.iloc[:, :-1].to_numpy(), data.iloc[:, -1].map({0: "ham", 1: "spam"}).to_numpy()
X, X_test, y, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)

before = nbayes.GaussianNB().fit(X, y)
after = CalibratedClassifierCV(nbayes.GaussianNB(), method="isotonic", cv=5).fit(X, y)

fig, axes = plt.subplots(1, 2, figsize=(10, 4.8), layout="constrained")
for ax, (name, model) in zip(axes, (("Gaussian NB", before), ("calibrated", after))):
    proba = model.predict_proba(X_test)
    ReliabilityDisplay.from_predictions(y_test, proba[:, 1], pos_label="spam", ax=ax)
    loss = log_loss(y_test, proba, labels=model.classes_)
    ax.set_title(f"{name}: test log-loss {loss:.3f}")
fig.suptitle("UCI Spambase: reliability before and after isotonic calibration (5 folds)")
plt.show()
