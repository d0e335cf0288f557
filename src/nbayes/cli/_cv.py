"""``--alpha cv`` / ``--var-smoothing cv``: the value chosen over DATA's chunks by the
cross-validated log-loss that ``alpha="cv"`` minimises inside ``fit``.

After the training pass, two more passes over DATA: one counts each fold's rows (the row hash
of :mod:`nbayes._rowhash` on the row number picks the fold, so the folds do not depend on the
chunking and are those of :func:`nbayes.dask.fold_statistics` on the same rows), one scores each
fold's rows by the candidates finalized from the statistics of the other folds. Memory stays
bounded by a chunk and the candidate models; the rows are never held.
"""

from __future__ import annotations

from functools import reduce

import numpy as np

from .. import _engine as engine
from .. import base
from .._rowhash import hash_folds
from ..distributions import Labels
from ..estimators._base import CV_CANDIDATES, CV_FOLDS, CV_START
from ..estimators._folds import take_rows
from ..exceptions import DataError
from ._common import UsageError
from ._models import class_labels, inner

#: The options that may say "cv", by the parameter they set.
OPTIONS = {"alpha": "--alpha", "var_smoothing": "--var-smoothing"}


def cv_names(settings) -> list[str]:
    """The parameters the command line asks to choose by cross-validation, in the order
    ``fit`` chooses them (alpha first)."""
    return [p for p in OPTIONS if getattr(settings, p) == "cv"]


def start(plan, names: list[str]) -> None:
    """Give the plan's model a number where it was told "cv" (``partial_fit`` cannot choose),
    after checking that the model has each parameter at finalize time."""
    est = plan.estimator
    spec = base.inner_model(est)  # not fitted yet: TextNB's configured classifier
    allowed = spec.finalize_params()
    for name in names:  # at most two
        if name not in allowed:
            raise UsageError(f"{OPTIONS[name]} cv does not apply to --model {plan.model}.")
    values = {p: CV_START[p] for p in names}
    if "alpha" in names and spec.get_params().get("estimate") == "map":
        values["alpha"] = 1.0 + CV_CANDIDATES["alpha"][0]
    spec.set_params(**values)


def choose(table, plan, target: str, dtypes: dict, names: list[str], classes) -> dict:
    """Choose ``names`` by 5-fold cross-validated log-loss over DATA; the plan's model (its
    statistics installed, not finalized) becomes the fitted model with the chosen values.
    ``classes``: the :class:`nbayes._labels.ClassCodes` the training pass coded the labels
    in. Returns the chosen values."""
    est = plan.estimator
    model = inner(est)  # a text model's classifier, which counts the word counts
    n_classes = model.classes_.size
    columns = [*plan.features, target]

    def folds(desc: str):
        """(fold, rows of X, class codes) of every chunk and fold."""
        for offset, chunk in table.chunks(columns, dtypes, desc=desc):
            y = class_labels(chunk[target], offset, table.path, target)
            codes = classes.final_codes(y)
            if (codes < 0).any():
                unknown = int(np.flatnonzero(codes < 0)[0])
                raise DataError(
                    f"{table.path}: label {y[unknown]!r} at row {offset + unknown} was not "
                    "in the training pass; the data changed between the passes."
                )
            X = plan.inputs(chunk, offset, table.path)
            if model is not est:
                X = est.transform(X)
            fold = hash_folds(offset + np.arange(len(chunk)), CV_FOLDS)
            for k in range(CV_FOLDS):  # bounded by the number of folds
                rows = np.flatnonzero(fold == k)
                if rows.size:
                    yield k, take_rows(X, rows), codes[rows]

    counted: list = [None] * CV_FOLDS
    for k, X_k, c_k in folds("cross-validation: counting the folds"):
        labels = Labels(c_k, np.ones(c_k.size), n_classes)
        stats = model.accumulate(X_k, labels, mode="count")
        counted[k] = stats if counted[k] is None else model.merge_statistics(counted[k], stats)
    if any(s is None for s in counted):
        raise DataError(
            f"{OPTIONS[names[0]]} cv splits the rows into {CV_FOLDS} folds; {table.path} has "
            "too few rows for that. Give a number."
        )
    total = reduce(model.merge_statistics, counted)
    trains = [model.subtract_statistics(total, s) for s in counted]

    chosen: dict = {}
    for name in names:  # at most two: each at the best value of those before
        grid = CV_CANDIDATES[name]
        if name == "alpha" and model.get_params().get("estimate") == "map":
            grid = 1.0 + grid  # the MAP estimate needs alpha >= 1
        candidates = [{**chosen, name: float(v)} for v in grid]
        fold_models = [[model.finalize_with(c, stats) for c in candidates] for stats in trains]
        losses = np.zeros(grid.size)
        rows = 0
        for k, X_k, c_k in folds(f"cross-validation: scoring {name}"):
            for c, jll in enumerate(model.joint_log_scores_of(fold_models[k], X_k)):
                log_p = engine.normalise(np.array(jll), log=True)
                losses[c] -= log_p[np.arange(c_k.size), c_k].sum()
            rows += c_k.size
        chosen[name] = float(grid[int(np.argmin(losses))])
        plan.notes.append(
            f"{OPTIONS[name]} {chosen[name]:.4g}, chosen by {CV_FOLDS}-fold cross-validated "
            f"log-loss ({losses.min() / rows:.4g}) among {grid.size} values from {grid[0]:.3g} "
            f"to {grid[-1]:.3g}"
        )
    prefix = "classifier__" if model is not est else ""
    plan.estimator = est.finalize_with({prefix + k: v for k, v in chosen.items()})
    return chosen
