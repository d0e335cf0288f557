"""``--alpha cv`` / ``--var-smoothing cv``: the value chosen over DATA's chunks by the
cross-validated log-loss that ``alpha="cv"`` minimises inside ``fit``.

After the training pass, two more passes over DATA: one counts each fold's rows (the row hash
of :mod:`nbayes._rowhash` on the row number picks the fold, so the folds do not depend on the
chunking and are those of :func:`nbayes.dask.fold_statistics` on the same rows:
:mod:`._folds`), one scores each fold's rows by the candidates finalized from the statistics
of the other folds (one scoring pass per parameter chosen). Memory stays bounded by a chunk
and the candidate models; the rows are never held.

With ``--dask`` the same passes run on the partitions of DATA
(:func:`nbayes.cli._dask.choose_on_cluster`): the same folds, the same candidates and the
same choice (:func:`choose_from`), so the chosen value and the model are those of the
chunked passes.
"""

from __future__ import annotations

import numpy as np

from .. import _engine as engine
from .. import _training as training
from .. import base
from ..estimators._fitting import CV_FOLDS, cv_choice, cv_grid, cv_start
from . import _folds
from ._common import UsageError
from ._models import inner

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
            raise UsageError(
                f"{OPTIONS[name]} cv does not apply to --model {plan.model}; give a number."
            )
    spec.set_params(**cv_start(names, spec.get_params().get("estimate")))


def choose(table, plan, target: str, dtypes: dict, names: list[str]) -> dict:
    """Choose ``names`` by 5-fold cross-validated log-loss over the chunks of DATA (two more
    passes: one counts the folds, one scores them per parameter); the plan's model (its
    statistics installed, not finalized) becomes the fitted model with the chosen values.
    Returns the chosen values."""
    est = plan.estimator
    model = inner(est)  # a text model's classifier, which counts the word counts
    columns = [*plan.features, target]

    def pieces(desc: str):
        """:func:`._folds.chunk_folds` of every chunk."""
        for offset, chunk in table.chunks(columns, dtypes, desc=desc):
            yield _folds.chunk_folds(est, model, plan, target, table.path, offset, chunk)

    def count() -> list:
        counted: list = [None] * CV_FOLDS
        for found in pieces("cross-validation: counting the folds"):
            counted = training.merge_folds(model, counted, _folds.count_chunk(model, found))
        return counted

    def score(name: str, fold_models: list) -> tuple[np.ndarray, int]:
        desc = f"cross-validation: scoring {name}"
        return add_losses(*(chunk_losses(fold_models, found) for found in pieces(desc)))

    return choose_from(plan, names, table.path, count, score)


def chunk_losses(fold_models: list, pieces) -> tuple[np.ndarray, int]:
    """Each candidate's log-loss summed over the rows of one chunk (``pieces`` of
    :func:`._folds.chunk_folds`), each row scored by the candidates of its fold, all in one
    pass over its rows; and the number of rows."""
    losses = np.zeros(len(fold_models[0]))
    rows = 0
    for k, _, X_k, c_k in pieces:
        models = fold_models[k]
        for c, jll in enumerate(models[0].joint_log_scores_of(models, X_k)):
            log_p = engine.normalise(np.array(jll), log=True)
            losses[c] -= log_p[np.arange(c_k.size), c_k].sum()
        rows += c_k.size
    return losses, rows


def add_losses(*parts: tuple[np.ndarray, int]) -> tuple[np.ndarray, int]:
    """The sum of the (losses, rows) of :func:`chunk_losses` of several chunks."""
    return np.sum([p[0] for p in parts], axis=0), sum(p[1] for p in parts)


def choose_from(plan, names: list[str], path: str, count, score) -> dict:
    """The choice of :func:`choose`, wherever the passes run (over chunks, or on the
    partitions of ``--dask``): ``count()`` returns the statistics of each fold
    (:func:`._folds.count_chunk` merged over all rows), ``score(name, fold_models)`` the
    summed (losses, rows) of :func:`chunk_losses` over all rows. Each parameter is chosen
    in turn (alpha first) at the best value of those before: the candidate of least
    log-loss. The plan's model becomes the fitted model with the chosen values, and a note
    says what was chosen."""
    est = plan.estimator
    model = inner(est)
    advice = "Give a number."
    trains = _folds.outside_folds(model, count(), f"{OPTIONS[names[0]]} cv", path, advice)
    chosen: dict = {}
    for name in names:  # at most two: each at the best value of those before
        grid = cv_grid(name, model.get_params().get("estimate"))
        candidates = [{**chosen, name: float(v)} for v in grid]
        fold_models = [[model.finalize_with(c, stats) for c in candidates] for stats in trains]
        losses, rows = score(name, fold_models)
        chosen[name] = cv_choice(grid, losses)
        plan.notes.append(
            f"{OPTIONS[name]} {chosen[name]:.4g}, chosen by {CV_FOLDS}-fold cross-validated "
            f"log-loss ({losses.min() / rows:.4g}) among {grid.size} values from {grid[0]:.3g} "
            f"to {grid[-1]:.3g}"
        )
    prefix = "classifier__" if model is not est else ""
    plan.estimator = est.finalize_with({prefix + k: v for k, v in chosen.items()})
    return chosen
