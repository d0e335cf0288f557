"""Class labels of the command line: as strings per chunk, then typed and sorted once."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import base
from ..._labels import typed_classes
from ...exceptions import DataError


def inner(model):
    """The estimator that holds the statistics (inside TextNB for text models)."""
    return base.inner_model(model)


def sort_classes(model, strings: bool = False) -> None:
    """Give the classes their file's type and sorted order, permuting every class-axis
    statistic to match.

    Training from chunks learns classes as strings (see :mod:`.._labels`) in the order they
    appear (a later chunk may add one); typing and sorting them makes the model the same as
    ``fit`` on all rows with the labels as pandas reads them: ``2`` before ``10``.
    ``strings``: the file typed the labels as strings; keep them so.
    """
    est = inner(model)
    typed = typed_classes(est.classes_.tolist(), strings)
    order = np.argsort(typed, kind="stable")
    est.classes_ = typed[order]
    if est is not model:  # a wrapper keeps its inner model's classes
        model.classes_ = est.classes_
    if np.array_equal(order, np.arange(order.size)):
        return
    # Class i of the statistics goes to place argsort(order)[i]; classes_ is sorted already.
    positions = np.argsort(order, kind="stable")
    model.install(est.classes_, model.align_statistics(est.stats_, positions, order.size))


def class_labels(
    series: pd.Series, offset: int, path: str, target: str, rows: str = "training"
) -> np.ndarray:
    """Labels of one chunk as strings; an empty label is an error naming its row.

    ``rows`` names the rows in that message ("training", "evaluation").
    """
    missing = series.isna().to_numpy()
    if missing.any():
        row = offset + int(np.flatnonzero(missing)[0])
        raise DataError(
            f"{path}: the target column {target!r} is empty at row {row}; every "
            f"{rows} row needs a label. Drop or fill unlabelled rows"
            + (
                ", or learn from them too with --unlabeled-value '' (semi-supervised EM)."
                if rows == "training"
                else "."
            )
        )
    return series.astype(str).to_numpy(dtype=object)
