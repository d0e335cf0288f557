"""
An ONNX round trip
==================

:func:`nbayes.export.to_onnx` writes a fitted model as an ONNX graph that any ONNX runtime
scores without Python or nbayes. A MixedNB on UCI Adult (the project's shared data: numbers
as Gaussians, categories with their missing values; 5,000 training rows) is exported, loaded
in ``onnxruntime`` and run on the official test file: every label agrees and the
probabilities agree to rounding.
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import onnxruntime as ort
import pandas as pd

import nbayes
from nbayes.export import to_onnx


def shared_data() -> Path:
    """``$NBAYES_DATA_DIR``, else ``shared/data`` beside the checkout or one of its parents."""
    if os.environ.get("NBAYES_DATA_DIR"):
        return Path(os.environ["NBAYES_DATA_DIR"])
    for parent in Path.cwd().resolve().parents:
        if (parent / "shared" / "data" / "adult").is_dir():
            return parent / "shared" / "data"
    raise FileNotFoundError("the shared data not found: set NBAYES_DATA_DIR to its folder")


NAMES = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status"]
NAMES += ["occupation", "relationship", "race", "sex", "capital-gain", "capital-loss"]
NAMES += ["hours-per-week", "native-country", "income"]
NUMBERS = ["age", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
CATEGORIES = ["workclass", "education", "marital-status", "occupation", "sex", "native-country"]


def read(name: str, skip: int):
    df = pd.read_csv(
        shared_data() / "adult" / name,
        names=NAMES,
        skipinitialspace=True,
        na_values="?",
        skiprows=skip,
    ).dropna(how="all")
    df[NUMBERS] = df[NUMBERS].astype(float)
    return df[NUMBERS + CATEGORIES], df["income"].str.rstrip(".").to_numpy()


(X, y), (X_test, y_test) = read("adult.data.gz", 0), read("adult.test.gz", 1)
X, y = X.iloc[:5000], y[:5000]
model = nbayes.MixedNB(columns=[("gaussian", NUMBERS), ("categorical", CATEGORIES)]).fit(X, y)

session = ort.InferenceSession(to_onnx(model, zipmap=False).SerializeToString())
# One input per column, in order (the names made safe for ONNX): numbers as double with NaN
# for a missing value, categories as strings with "" for a missing value.
feeds = {
    i.name: X_test[[column]].to_numpy(float)
    if column in NUMBERS
    else X_test[[column]].fillna("").to_numpy(object)
    for i, column in zip(session.get_inputs(), X_test.columns)
}
labels, proba = session.run(None, feeds)
ours = model.predict_proba(X_test)[:, 1]
print(f"labels agree on {np.mean(labels == model.predict(X_test)):.2%} of {len(y_test):,} rows")
print(f"largest probability difference: {np.abs(proba[:, 1] - ours).max():.1e}")

fig, ax = plt.subplots(figsize=(5, 5))
ax.plot(ours, proba[:, 1], ".", ms=2, alpha=0.4)
ax.plot([0, 1], [0, 1], color="grey", lw=0.8)
ax.set_xlabel("P(>50K): nbayes in Python")
ax.set_ylabel("P(>50K): the ONNX graph in onnxruntime")
ax.set_title(f"UCI Adult: {len(y_test):,} test rows, the same scores")
plt.show()
