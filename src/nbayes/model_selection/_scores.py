"""Stacked candidate scoring: the quick metrics (accuracy, log-loss) of a fold's
candidates, computed from their joint log scores side by side in one pass over the
held-out rows, as scikit-learn's scorers of those names compute them.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin

from .. import _engine as engine

#: Scorers that GridSearchCV computes itself from the stacked joint log scores of a fold's
#: candidates, as scikit-learn's scorers of these names compute them from ``predict`` and
#: ``predict_proba`` (the estimator's own ``score`` is accuracy).
QUICK_SCORING = ("accuracy", "neg_log_loss")


def _quick_metrics(estimator, scoring, keys: list) -> dict | None:
    """{metric key: quick scorer name} when every metric of ``scoring`` is a quick one."""
    if scoring is None:
        own = getattr(type(estimator), "score", None) is ClassifierMixin.score
        return {None: "accuracy"} if own else None
    if isinstance(scoring, str):
        return {None: scoring} if scoring in QUICK_SCORING else None
    names = scoring if isinstance(scoring, Mapping) else {k: k for k in scoring}
    if all(isinstance(names[k], str) and names[k] in QUICK_SCORING for k in keys):
        return {k: names[k] for k in keys}
    return None


def _scored_together(quick, estimator, candidates, codes: np.ndarray, n_classes: int):
    """The candidates of a fold that the quick metrics score: all, unless a decision
    threshold changes ``predict`` (accuracy) or the held-out rows lack a class, which
    scikit-learn's log-loss refuses (the scorer then reports it as it does)."""
    if quick is None or len(candidates) < 2:
        return []
    if "neg_log_loss" in quick.values() and np.unique(codes).size < n_classes:
        return []
    default = getattr(estimator, "decision_threshold", None)
    return [
        c
        for c, params in enumerate(candidates)
        if "accuracy" not in quick.values() or params.get("decision_threshold", default) is None
    ]


def _stored_values(part) -> int:
    """The values a held-out fold holds: stored values of a sparse matrix, cells of a
    table, one per text."""
    if sp.issparse(part):
        return int(part.nnz)
    shape = getattr(part, "shape", None)
    if shape is not None:
        return int(np.prod(shape))
    return len(part)


#: Held-out folds are scored on the worker threads (one fold each) where they hold at least
#: this many values on average: large folds then score in less time on several cores.
#: Smaller folds spend much of their time in Python, which runs on one thread at a time, so
#: threads would cost CPU time without saving any.
PARALLEL_FOLD_VALUES = 1_000_000


def _on_threads(parts: list) -> bool:
    """Whether the held-out folds ``parts`` are scored on the worker threads, one fold each:
    where they hold :data:`PARALLEL_FOLD_VALUES` values on average (read at call time)."""
    return sum(_stored_values(part) for part in parts) >= PARALLEL_FOLD_VALUES * len(parts)


#: Parameter-table cells (floats) of the candidates finalized together at most: 128 MB.
_GROUP_BUDGET = 2**24


def _groups(together: list, stats: dict) -> list[list[int]]:
    """``together`` cut into groups whose candidates' tables (about the size of the
    statistics each) stay within the budget, so memory does not grow with the grid."""
    cells = sum(np.size(v) for group in stats["groups"] for v in group.values())
    size = max(2, _GROUP_BUDGET // max(1, cells))
    return [together[i : i + size] for i in range(0, len(together), size)]


def _score_together(model, params_list, stats, X, codes, w, quick: dict):
    """{metric key: scores of the candidates ``params_list``} on held-out X, from their joint
    log scores (``joint_log_scores_with``: one finalize and one pass over X for all of them
    where the families allow); None where that fails, so that the candidates go one by one
    through the scorer, which reports the failure as scikit-learn's search would."""
    out = {k: np.empty(len(params_list)) for k in quick}
    try:
        scored = list(model.joint_log_scores_with(params_list, stats, X))
        together = _side_by_side(scored)
        for k, name in quick.items():  # bounded by the number of metrics
            if together is not None and (name == "accuracy" or np.isfinite(together).all()):
                # Every candidate's rows scored in one pass over the stacked scores (a
                # log-loss only where no row is impossible, which each candidate warns of).
                n, m, n_classes = together.shape
                per_row = row_scores(name, together.reshape(n * m, n_classes), np.repeat(codes, m))
                out[k][:] = QUICK_SIGN[name] * np.average(per_row.reshape(n, m), axis=0, weights=w)
                continue
            for i, jll in enumerate(scored):  # bounded by the candidates
                out[k][i] = _held_out_score(name, jll, codes, w)
    except Exception:  # noqa: BLE001 - the scorer reports it, candidate by candidate
        return None
    return out


def _side_by_side(scored: list) -> np.ndarray | None:
    """The candidates' scores as one (n, candidates, classes) array where they are the
    column blocks, in order, of one C-contiguous array (as ``joint_log_scores_with`` yields
    candidates it scored together); None otherwise."""
    base = scored[0].base if scored else None
    if not isinstance(base, np.ndarray) or base.ndim != 2 or not base.flags.c_contiguous:
        return None
    n, n_classes = scored[0].shape
    if base.shape != (n, n_classes * len(scored)):
        return None
    start = base.__array_interface__["data"][0]
    for i, jll in enumerate(scored):  # bounded by the candidates
        at = jll.__array_interface__["data"][0]
        if jll.base is not base or jll.strides != base.strides:
            return None
        if at != start + i * n_classes * base.itemsize:
            return None
    return base.reshape(n, len(scored), n_classes)


def _held_out_score(name: str, jll: np.ndarray, codes: np.ndarray, w) -> float:
    """scikit-learn's ``accuracy`` or ``neg_log_loss`` of joint log scores (n, C) of the
    held-out rows against their class codes, ``w`` their weights or None."""
    return QUICK_SIGN[name] * float(np.average(row_scores(name, jll, codes), weights=w))


#: Sign of a quick metric's score given the mean of its :func:`row_scores`.
QUICK_SIGN = {"accuracy": 1.0, "neg_log_loss": -1.0}


def row_scores(name: str, jll: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per held-out row, what ``accuracy`` (1 for a hit) or ``neg_log_loss`` (the log-loss)
    averages, from joint log scores (n, C) and class codes (n,). As scikit-learn's scorers:
    the prediction is the argmax (ties to the first class); the log-loss clips the
    probability of the true class to [eps, 1 - eps], and with two classes that of class 0
    is 1 - P(class 1)."""
    if name == "accuracy":
        # argmax: the first of tied classes; for two classes a strict comparison says it
        # without a pass over narrow rows.
        top = (jll[:, 1] > jll[:, 0]) if jll.shape[1] == 2 else np.argmax(jll, axis=1)
        return (top == codes).astype(np.float64)
    proba = engine.normalise(jll.copy(), log=False)
    if proba.shape[1] == 2:
        p_true = np.where(codes == 1, proba[:, 1], 1.0 - proba[:, 1])
    else:
        p_true = proba[np.arange(codes.size), codes]
    eps = np.finfo(np.float64).eps
    return -np.log(np.clip(p_true, eps, 1 - eps))


def _accepts_sample_weight(scorer) -> bool:
    """Whether scikit-learn's search would pass the weights on to ``scorer`` (it does, since
    1.9, when the metric takes them): scores are then weighted as the training is."""
    accepts = getattr(scorer, "_accept_sample_weight", None)
    if accepts is not None:
        return bool(accepts())
    return "sample_weight" in inspect.signature(scorer).parameters
