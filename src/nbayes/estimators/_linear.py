"""The linear face of Naive Bayes: class scores as ``features(x) @ W.T + b``.

For Bernoulli, Multinomial, Complement, Poisson and Categorical (on one-hot codes) features, and
Gaussian features with one variance per feature shared by the classes, the log joint likelihood
is linear in a fixed feature map of x, up to a term that is the same for every class. So for two
classes the log-odds are ``w @ x + b`` -- the model is a logistic regression whose weights were
estimated generatively -- and for more classes the posterior is a softmax of linear scores.

Each family provides its own weights (``Family.linear_weights``) and feature map
(``Family.linear_features``); this module only stacks the column groups and adds the prior.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .. import _engine as engine
from ..distributions import Family


def is_linear(families: Sequence[Family], params: Sequence) -> bool:
    """Whether every column group has a linear form under its fitted parameters."""
    return all(f.is_linear(p) for f, p in zip(families, params))


def linear_form(
    families: Sequence[Family], params: Sequence, log_prior: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per-class weights W (n_classes, n_linear) and intercepts b (n_classes,) of all groups.

    The class prior enters the intercept exactly when the scores use it (not for Complement NB
    with several classes). Call only when :func:`is_linear` holds.
    """
    weights, intercept = [], np.zeros(log_prior.shape[0])
    if engine.uses_class_prior(families, log_prior.shape[0]):
        intercept = intercept + log_prior
    for fam, p in zip(families, params):  # bounded by the number of column groups
        W, b = fam.linear_weights(p)
        weights.append(W)
        intercept = intercept + b
    return np.hstack(weights), intercept


def contrast(W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's shapes: (1, m) and (1,) log-odds of ``classes_[1]`` against ``classes_[0]``
    for two classes, the per-class W and b otherwise."""
    if W.shape[0] == 2:
        with np.errstate(invalid="ignore"):  # -inf - -inf under MLE: no defined weight
            return (W[1] - W[0])[None, :], np.atleast_1d(b[1] - b[0])
    return W, b


def linear_design(families: Sequence[Family], params: Sequence, blocks: Sequence):
    """The matrix that :func:`linear_form`'s columns apply to: each group's feature map of its
    prepared block, stacked (sparse when any group is sparse)."""
    parts = [f.linear_features(p, X) for f, p, X in zip(families, params, blocks)]
    if len(parts) == 1:
        return parts[0]
    if any(sp.issparse(X) for X in parts):
        return sp.hstack(parts, format="csr")
    return np.hstack([np.asarray(X, dtype=np.float64) for X in parts])


def linear_names(
    families: Sequence[Family], params: Sequence, block_names: Sequence[Sequence[str]]
) -> np.ndarray:
    """Names of the linear columns, e.g. ``"colour=2"`` for a one-hot category."""
    names: list[str] = []
    for fam, p, cols in zip(families, params, block_names):
        names.extend(fam.linear_feature_names(p, cols))
    return np.asarray(names, dtype=str)


RANKINGS = ("weight", "impact")


def top_features(
    families: Sequence[Family],
    stats: dict,
    params: Sequence,
    class_index: int,
    names: np.ndarray,
    k: int | None,
    by: str = "weight",
) -> pd.DataFrame:
    """The ``k`` features that most favour one class.

    ``weight``: the class's weight minus that of its strongest rival, per unit of the feature
    (the log-odds weight for two classes). ``impact``: that weight times the feature's mean in
    the class's training rows, i.e. its average share of the class's log-odds.
    """
    W = np.hstack([f.feature_weights(p) for f, p in zip(families, params)])
    weight = W[class_index]
    if W.shape[0] > 1:
        rivals = np.delete(W, class_index, axis=0).max(axis=0)
        with np.errstate(invalid="ignore"):
            weight = weight - rivals
    table = {"feature": names, "weight": weight}
    score = weight
    if by == "impact":
        means = np.hstack(
            [
                f.feature_means(s, p, stats["class_count"])
                for f, s, p in zip(families, stats["groups"], params)
            ]
        )
        with np.errstate(invalid="ignore"):
            score = table["impact"] = means[class_index] * weight
    order = np.argsort(-np.where(np.isnan(score), -np.inf, score), kind="stable")
    if k is not None:
        order = order[:k]
    return pd.DataFrame({key: col[order] for key, col in table.items()})
