"""
Shared-variance Gaussian naive Bayes is a logistic regression
=============================================================

With one variance per feature shared by the classes, the quadratic terms of the two class
scores cancel and the log-odds is linear: ``GaussianNB(var_pooling="shared", estimate="mle")``
has ``coef_`` and ``intercept_`` and ``predict_proba[:, 1]`` is their logistic sigmoid. Its
weights are fitted generatively (class means and a pooled variance) where logistic regression
fits them discriminatively; on data that match the model's assumptions the two boundaries
nearly coincide. Per-class variances make the boundary quadratic.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit
from sklearn.inspection import DecisionBoundaryDisplay
from sklearn.linear_model import LogisticRegression

from nbayes import GaussianNB

rng = np.random.default_rng(0)
X = np.vstack(
    [rng.normal([0, 0], [1.0, 1.5], (150, 2)), rng.normal([2.5, 2], [1.0, 1.5], (150, 2))]
)
y = np.repeat([0, 1], 150)

shared = GaussianNB(var_pooling="shared", estimate="mle").fit(X, y)
per_class = GaussianNB().fit(X, y)
logistic = LogisticRegression().fit(X, y)

assert np.allclose(expit(X @ shared.coef_[0] + shared.intercept_[0]), shared.predict_proba(X)[:, 1])

fig, ax = plt.subplots(figsize=(6, 5))
ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=12, edgecolor="k", linewidth=0.3)
for model, colour, name in (
    (shared, "C0", "Gaussian NB, shared variance (linear)"),
    (logistic, "C2", "logistic regression"),
    (per_class, "C3", "Gaussian NB, per-class variances (quadratic)"),
):
    DecisionBoundaryDisplay.from_estimator(
        model,
        X,
        response_method="predict_proba",
        plot_method="contour",
        levels=[0.5],
        colors=colour,
        ax=ax,
    )
    ax.plot([], [], color=colour, label=name)
ax.legend(loc="lower right", fontsize="small")
ax.set_title("Decision boundaries P(y=1 | x) = 0.5")

# %%
# The weights side by side:

print("Gaussian NB (shared)", shared.coef_[0].round(3), shared.intercept_.round(3))
print("logistic regression ", logistic.coef_[0].round(3), logistic.intercept_.round(3))
