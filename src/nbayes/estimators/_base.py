"""The shared scikit-learn estimator around the engine.

Subclasses say which families cover which columns (``_make_families`` / ``_blocks``) and which
fitted attributes to publish; fitting, incremental fitting, label handling and prediction live
once in the parts that ``BaseNB`` composes: :mod:`._fitting`, :mod:`._statistics` (the
estimator protocol of :mod:`nbayes.base` that Dask, merge, model files and the CLI use),
:mod:`._state`, :mod:`._candidates`, :mod:`._prediction` and :mod:`._interpretation`; the
checks of what they are given are in :mod:`._inputs`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import validate_data

from ..base import EstimatorProtocol, Mode
from ..distributions import Family
from ._candidates import _CandidateScoring
from ._candidates import _held_columns as _held_columns
from ._fitting import CV_CANDIDATES as CV_CANDIDATES
from ._fitting import CV_FOLDS as CV_FOLDS
from ._fitting import CV_START as CV_START
from ._fitting import _Fitting
from ._inputs import THRESHOLD_SCALES as THRESHOLD_SCALES
from ._inputs import check_sample_weight as check_sample_weight
from ._inputs import log_odds_threshold as log_odds_threshold
from ._interpretation import _Interpretation
from ._interval import IntervalMixin
from ._prediction import _Prediction
from ._state import _State
from ._statistics import PENDING as PENDING
from ._statistics import Statistics, _StatisticsProtocol


class BaseNB(
    _Fitting,
    _StatisticsProtocol,
    _State,
    _CandidateScoring,
    _Prediction,
    _Interpretation,
    IntervalMixin,
    ClassifierMixin,
    BaseEstimator,
    EstimatorProtocol,
):
    """Naive Bayes classifier over column groups, each modelled by one family."""

    stats_ = Statistics()

    # -- what subclasses provide --------------------------------------------------------------
    def _make_families(self, n_features: int) -> list[Family]:
        raise NotImplementedError

    def _validate_X(self, X, reset: bool):
        # Sparse integer counts (CountVectorizer's output) keep their dtype: converting them
        # copies the matrix and makes scipy sort and deduplicate its indices (a large share of
        # a predict); the families cast stored values where they need floats.
        if (
            not reset
            and sp.issparse(X)
            and X.format == "csr"
            and X.dtype.kind in "biuf"
            and X.shape[0] > 0
            and X.shape[1] == getattr(self, "n_features_in_", None)
            and not hasattr(self, "feature_names_in_")
        ):
            # What scikit-learn's checks would find of a numeric CSR matrix of the fitted
            # width is known already: it is returned as it is, without their per-call cost
            # (a grid search checks every held-out fold).
            return X
        dtype = "numeric" if sp.issparse(X) else (np.float64, np.float32)
        return validate_data(
            self, X, reset=reset, accept_sparse="csr", dtype=dtype, ensure_all_finite=False
        )

    def _blocks(self, X, mode: Mode = "score", counted: np.ndarray | None = None) -> list:
        """One matrix per family; presets use all columns in one block. ``mode`` says why the
        batch is read (see :mod:`nbayes.base`); encoders decide by it what an unseen value
        does. ``counted`` (learning only) marks the rows of non-zero weight: category
        vocabularies learn from those alone, so that a zero-weight row is a dropped row."""
        return [X]

    def _publish(self) -> None:
        """Set the familiar fitted attributes (feature_log_prob_, theta_, ...)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            tags.input_tags.sparse = all(f.sparse_ok for f in self._make_families(1))
        except ValueError:  # invalid parameters are reported by fit, not when asked for tags
            tags.input_tags.sparse = True
        tags.input_tags.allow_nan = getattr(self, "missing", "error") == "ignore"
        return tags
