"""
Kernel densities and MDL bins against the bell curve
====================================================

Gaussian naive Bayes reads every continuous column as one bell curve per class. On UCI Adult
(the project's shared data, a 6,000-row sample of the training file; the official test file
scored) ``age`` is skewed and ``hours-per-week`` spikes at 40: the kernel density (``"kde"``)
follows both, the MDL bins (``"binned"``) cut them where the class balance changes, and both
score the test rows better than the bell curve. Each panel is
:class:`nbayes.plot.ClassConditionalDisplay`: the learned density per class over the data's
histogram.
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.metrics import log_loss

import nbayes
from nbayes.plot import ClassConditionalDisplay


def shared_data() -> Path:
    """``$NBAYES_DATA_DIR``, else ``shared/data`` beside the checkout or one of its parents."""
    if os.environ.get("NBAYES_DATA_DIR"):
        return Path(os.environ["NBAYES_DATA_DIR"])
    for parent in Path.cwd().resolve().parents:
        if (parent / "shared" / "data" / "adult").is_dir():
            return parent / "shared" / "data"
    raise FileNotFoundError("UCI Adult not found: set NBAYES_DATA_DIR to the shared data folder")


NAMES = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status"]
NAMES += ["occupation", "relationship", "race", "sex", "capital-gain", "capital-loss"]
NAMES += ["hours-per-week", "native-country", "income"]
COLUMNS = ["age", "hours-per-week"]


def read(name: str, skip: int):
    df = pd.read_csv(
        shared_data() / "adult" / name, names=NAMES, skipinitialspace=True, skiprows=skip
    ).dropna(how="all")
    return df[COLUMNS].astype(float), df["income"].str.rstrip(".").to_numpy()


(X, y), (X_test, y_test) = read("adult.data.gz", 0), read("adult.test.gz", 1)
rows = np.random.default_rng(0).choice(len(y), 6000, replace=False)
X, y = X.iloc[rows], y[rows]

fig, axes = plt.subplots(3, 2, figsize=(9, 9.5), layout="constrained")
for row, family in zip(axes, ("gaussian", "kde", "binned")):
    model = nbayes.MixedNB(columns=[(family, COLUMNS)]).fit(X, y)
    loss = log_loss(y_test, model.predict_proba(X_test), labels=model.classes_)
    for ax, column in zip(row, COLUMNS):
        ClassConditionalDisplay.from_estimator(model, column, X, y, ax=ax)
        ax.set_title(f"{column}: {family} (test log-loss {loss:.4f})", fontsize=10)
fig.suptitle("UCI Adult: the bell curve, kernel densities and MDL bins")
plt.show()
