"""
Fitting on Dask partitions
==========================

A model's statistics are additive, so :func:`nbayes.dask.fit` counts every partition on its
own and adds the counts up in a tree: the result is an ordinary fitted model, equal to the
in-memory fit to floating-point rounding. Here a table of mixed columns is split into eight
partitions (Dask's threaded scheduler; pass a ``distributed.Client`` for a cluster), and the
class-conditional distributions of both fits are drawn on top of each other.
"""

import dask.dataframe as dd
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import nbayes
from nbayes import dask as nbdask
from nbayes.plot import ClassConditionalDisplay

rng = np.random.default_rng(0)
n = 20_000
label = rng.choice(["churn", "stay"], n, p=[0.2, 0.8])
frame = pd.DataFrame(
    {
        "monthly_fee": rng.normal(np.where(label == "churn", 60, 45), 12),
        "plan": np.where(
            label == "churn", rng.choice(["basic", "plus"], n), rng.choice(["plus", "pro"], n)
        ),
        "label": label,
    }
)
parts = dd.from_pandas(frame, npartitions=8)

columns = [("gaussian", ["monthly_fee"]), ("categorical", ["plan"])]
distributed = nbdask.fit(
    nbayes.MixedNB(columns=columns), parts[["monthly_fee", "plan"]], parts["label"]
)
in_memory = nbayes.MixedNB(columns=columns).fit(frame[["monthly_fee", "plan"]], frame["label"])

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for ax, feature in zip(axes, ["monthly_fee", "plan"]):
    ClassConditionalDisplay.from_estimator(distributed, feature, ax=ax)
    if feature == "monthly_fee":  # the in-memory fit's curves, dotted, on the same axes
        for line in ClassConditionalDisplay.from_estimator(in_memory, feature).lines_:
            ax.plot(*line.get_data(), "k:", linewidth=1)
fig.tight_layout()

# %%
# The two models predict the same probabilities:

X = frame[["monthly_fee", "plan"]]
gap = np.abs(distributed.predict_proba(X) - in_memory.predict_proba(X)).max()
print(f"largest difference in predict_proba: {gap:.1e}")
