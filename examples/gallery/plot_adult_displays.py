"""
A mixed table: what MixedNB learned on UCI Adult
================================================

``MixedNB`` models Adult's table as it comes: strings as categories, missing values
marginalised, and here age and hours per week as Gaussians (left to ``columns="auto"``,
integer columns with few distinct values are categories). The displays of
:mod:`nbayes.plot` show what it learned -- each column's class-conditional distribution (with
the test data's histogram under each density), the column values that weigh most for each
class -- and how its scores behave on the official test split: the confusion matrix
(scikit-learn's own display) and the reliability curve.
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.metrics import ConfusionMatrixDisplay

from nbayes import MixedNB
from nbayes.plot import ClassConditionalDisplay, ReliabilityDisplay, TopFeaturesDisplay


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


def read(name: str, skip: int):
    df = pd.read_csv(
        shared_data() / "adult" / name,
        names=NAMES,
        skipinitialspace=True,
        na_values="?",
        skiprows=skip,
    ).dropna(how="all")
    return df.drop(columns="income"), df["income"].str.rstrip(".")


(X, y), (X_test, y_test) = read("adult.data.gz", 0), read("adult.test.gz", 1)
model = MixedNB(columns=[("gaussian", ["age", "hours-per-week"])]).fit(X, y)
print(model.summary().head(6))

fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
for ax, feature in zip(axes, ["age", "hours-per-week", "relationship"]):
    ClassConditionalDisplay.from_estimator(model, feature, X_test, y_test, ax=ax)
fig.tight_layout()

# %%
# The one-hot columns (``column=value``) that weigh most for each class:

TopFeaturesDisplay.from_estimator(model, k=8)

# %%
# Scores on the test split:

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
ConfusionMatrixDisplay.from_estimator(model, X_test, y_test, ax=left, colorbar=False)
ReliabilityDisplay.from_estimator(model, X_test, y_test, pos_label=">50K", ax=right)
fig.tight_layout()
