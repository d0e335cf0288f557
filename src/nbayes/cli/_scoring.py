"""Scoring one chunk of a table: shared by ``nbayes predict`` and its Dask path.

It lives apart from both so that ``predict`` (which may hand work to the cluster) and
``_dask`` (whose workers score chunks) import it without importing each other.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import rows_from


def predicted_codes(proba: np.ndarray, threshold: float | None) -> np.ndarray:
    """Index of the predicted class of each row: the most probable one, or with a log-odds
    ``threshold`` the second class exactly when its log-odds exceed it.

    The log-odds come from the probabilities; they agree with the model's own to about
    1e-15 (the smaller probability keeps full relative precision), so only a row within that
    distance of the threshold could be decided otherwise than by ``model.predict``.
    """
    if threshold is None:
        return np.argmax(proba, axis=1)
    with np.errstate(divide="ignore"):  # a probability that underflowed: log-odds +-inf
        log_odds = np.log(proba[:, 1]) - np.log(proba[:, 0])
    return (log_odds > threshold).astype(np.intp)


def predict_chunk(
    est,
    plan,
    chunk,
    offset: int,
    data: str,
    keep: tuple[str, ...],
    proba: bool,
    threshold: float | None = None,
    interval: dict | None = None,
):
    """The output rows of one chunk: ``keep`` columns, ``prediction``, ``proba_<class>``;
    ``threshold`` as :func:`predicted_codes`; with ``interval`` (the keywords of
    ``predict_proba_interval``) the bounds of :func:`interval_columns`."""
    classes = np.asarray(est.classes_)
    X = plan.inputs(chunk, offset, data, scoring=True)
    with rows_from(offset):
        p = est.predict_proba(X)
    out = chunk[list(keep)].reset_index(drop=True)
    out["prediction"] = classes[predicted_codes(p, threshold)]
    if proba:
        # One block for all classes: a column at a time fragments the frame (pandas warns
        # past 100 classes, and every later column copies).
        probabilities = pd.DataFrame(p, columns=[f"proba_{c}" for c in classes.tolist()])
        out = pd.concat([out, probabilities], axis=1)
    if interval is not None:
        with rows_from(offset):
            lower, upper = est.predict_proba_interval(X, **interval)
        bounds = np.stack([lower, upper], axis=2).reshape(len(out), -1)
        out = pd.concat([out, pd.DataFrame(bounds, columns=interval_columns(classes))], axis=1)
    return out


def interval_columns(classes) -> list[str]:
    """``proba_<class>_lower``, ``proba_<class>_upper`` for each class in turn."""
    return [f"proba_{c}_{end}" for c in np.asarray(classes).tolist() for end in ("lower", "upper")]
