"""Texts read from TextNB's input X: one str per row, as the column layout reads a text
column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._columns import ColumnLayout, one_text_column


def read_texts(X, vectorizer, where: str = "X") -> pd.Series | np.ndarray:
    """One str per row of X, read as the column layout reads a text column: its errors name
    the column (X's own, where it has a name) and the row; bytes are decoded as
    ``vectorizer`` decodes them, and a missing text is an empty one.

    Accepts a 1-D sequence, a Series, a one-column DataFrame or an (n, 1) array. Texts that
    are all str already come back as they are (an object array), without a copy.
    """
    column, name = one_text_column(X, where)
    if column.dtype == object:
        values = column.to_numpy()
        if pd.api.types.infer_dtype(values, skipna=False) == "string":
            return values  # every row a str: nothing to decode or fill in
    elif isinstance(column.dtype, pd.StringDtype):  # a string column holds no bytes
        return column.to_numpy(dtype=object, na_value="")
    layout = ColumnLayout(
        [np.array([0])], [False], None if name is None else [name], "ignore", "ignore"
    )
    return layout.texts(
        column,
        0,
        encoding=getattr(vectorizer, "encoding", "utf-8"),
        decode_error=getattr(vectorizer, "decode_error", "strict"),
    )


def _weighted_texts(texts, sample_weight) -> np.ndarray | None:
    """The texts of the rows whose weight is not zero, where some weight is zero (else None):
    the vocabulary is learned from those, so that a zero weight equals a dropped row. Weights
    that are not one per row are left to the classifier's own check."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight)
    if weights.ndim != 1 or len(weights) != len(texts) or weights.dtype.kind not in "iuf":
        return None
    keep = weights != 0
    return None if keep.all() else np.asarray(texts, dtype=object)[keep]
