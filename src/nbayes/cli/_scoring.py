"""Scoring one chunk of a table: shared by ``nbayes predict`` and its Dask path.

It lives apart from both so that ``predict`` (which may hand work to the cluster) and
``_dask`` (whose workers score chunks) import it without importing each other.
"""

from __future__ import annotations

import numpy as np

from .._validation import rows_from


def predict_chunk(est, the_plan, chunk, offset: int, data: str, keep: tuple[str, ...], proba: bool):
    """The output rows of one chunk: ``keep`` columns, ``prediction``, ``proba_<class>``."""
    classes = np.asarray(est.classes_)
    X = the_plan.inputs(chunk, offset, data)
    with rows_from(offset):
        p = est.predict_proba(X)
    out = chunk[list(keep)].reset_index(drop=True)
    out["prediction"] = classes[np.argmax(p, axis=1)]
    if proba:
        for i, c in enumerate(classes):  # one column per class: bounded by K
            out[f"proba_{c}"] = p[:, i]
    return out
