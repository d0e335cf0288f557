"""The data the ecosystem suite fits and scores on: a train / test split, and the shapes of X
that scikit-learn's tools need (raw text as a one-column table, sparse matrices made dense)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp


@dataclass(frozen=True)
class Split:
    """A train / test split that the suite fits and scores on.

    Parameters
    ----------
    X_train, X_test : array-like, sparse matrix, DataFrame, or 1-d sequence of texts
        The samples. A 1-d sequence is raw text (one document per row); tools that need a
        2-d table get it as a one-column DataFrame named ``text``.
    y_train, y_test : array-like of shape (n_samples,)
        The labels (any type the estimator takes).
    name : str, default ""
        A name for messages and tables.

    Examples
    --------
    >>> from nbayes.testing import Split
    >>> Split([[0, 1], [1, 0]], ["a", "b"], [[1, 1]], ["a"]).n_classes
    2
    """

    X_train: Any
    y_train: Any
    X_test: Any
    y_test: Any
    name: str = ""

    @property
    def classes(self) -> np.ndarray:
        """The sorted labels of the training rows."""
        return np.unique(np.asarray(self.y_train))

    @property
    def n_classes(self) -> int:
        """How many classes the training rows hold."""
        return len(self.classes)

    @property
    def is_text(self) -> bool:
        """Whether X is raw text: a 1-d sequence of documents."""
        return _is_text(self.X_train)

    @property
    def has_strings(self) -> bool:
        """Whether X holds strings (raw text, a DataFrame column of text or categories, an
        object array): tools that convert X to numbers refuse it."""
        X = self.X_train
        if self.is_text:
            return True
        if isinstance(X, pd.DataFrame):
            return not all(pd.api.types.is_numeric_dtype(t) for t in X.dtypes)
        return not sp.issparse(X) and np.asarray(X).dtype.kind in "OUS"


def _is_text(X) -> bool:
    if isinstance(X, pd.DataFrame) or sp.issparse(X):
        return False
    return np.ndim(np.asarray(X, dtype=object)) == 1


def _table(X):
    """X as a 2-d table: raw text becomes a one-column DataFrame named ``text``."""
    if _is_text(X):
        return pd.DataFrame({"text": np.asarray(X, dtype=object)})
    return X


def _dense(X):
    return X.toarray() if sp.issparse(X) else X
