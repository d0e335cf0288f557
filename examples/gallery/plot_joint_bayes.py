"""
Naive Bayes against the full joint: a learning curve
====================================================

``JointBayes`` counts whole feature vectors per class -- the optimal classifier given enough
data -- and backs off to naive Bayes for vectors it has not seen. On UCI Adult's categorical
columns (the project's shared data; the official test split) the joint trails naive Bayes
with few training rows and overtakes it with many, most where the features are many: the
interactions the naive assumption drops are real, but the joint needs the rows to see them.
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import nbayes


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
COLUMNS = ["relationship", "education", "occupation", "marital-status", "workclass", "sex"]


def read(name: str, skip: int):
    df = pd.read_csv(
        shared_data() / "adult" / name,
        names=NAMES,
        skipinitialspace=True,
        na_values="?",
        skiprows=skip,
    ).dropna(how="all")
    return df[COLUMNS], df["income"].str.rstrip(".").to_numpy()


(X, y), (X_test, y_test) = read("adult.data.gz", 0), read("adult.test.gz", 1)
order = np.random.default_rng(0).permutation(len(y))
sizes = [100, 300, 1000, 3000, 10000, len(y)]

fig, ax = plt.subplots(figsize=(6.5, 4))
for d, style in ((3, "--"), (6, "-")):
    cols = COLUMNS[:d]
    naive, joint = [], []
    for n in sizes:  # bounded: six training sizes
        rows = order[:n]
        fits = (nbayes.CategoricalNB(unseen="smooth", missing="ignore"), nbayes.JointBayes())
        for scores, model in zip((naive, joint), fits):
            model.fit(X.iloc[rows][cols], y[rows])
            scores.append(np.mean(model.predict(X_test[cols]) == y_test))
    ax.plot(sizes, naive, style, color="C0", marker="o", label=f"naive Bayes, {d} features")
    ax.plot(sizes, joint, style, color="C1", marker="s", label=f"JointBayes, {d} features")
ax.set_xscale("log")
ax.set_xlabel("training rows")
ax.set_ylabel("test accuracy")
ax.set_title("UCI Adult: naive Bayes against the full joint")
ax.legend(fontsize="small")
