"""Class labels of the command line: as strings per chunk (the training driver types and sorts
them once, with :func:`nbayes._labels.typed_classes`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import base
from ...exceptions import DataError


def inner(model):
    """The estimator that holds the statistics (inside TextNB for text models)."""
    return base.inner_model(model)


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
