"""What the smoothed discrete presets share: scikit-learn's alpha floor, their finalize-time
parameters and their base class.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._params import StrOptions
from .._validation import user_stacklevel
from ._base import BaseNB
from ._constraints import (
    ALPHA_MESSAGE,
    CLASS_PRIOR,
    SMOOTHING,
    THRESHOLD,
)

_ALPHA_FLOOR = 1e-10  # scikit-learn's floor when force_alpha=False


def _effective_alpha(alpha, force_alpha: bool):
    """scikit-learn's rule: with force_alpha=False, alpha below 1e-10 is raised to 1e-10.

    ``"auto"`` passes through: the family chooses alpha from the statistics at finalize time.
    """
    if alpha is None or isinstance(alpha, str):
        return alpha  # check_alpha names it as given
    try:
        a = np.asarray(alpha, dtype=np.float64)
    except (TypeError, ValueError):
        return alpha  # check_alpha names it
    if not force_alpha and np.any(a < _ALPHA_FLOOR):
        warnings.warn(
            f"alpha too small, setting alpha = {_ALPHA_FLOOR}; use force_alpha=True to keep "
            "it (zero counts then give probability zero).",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        a = np.maximum(a, _ALPHA_FLOOR)
    return a if a.ndim else float(a)


#: Finalize-time parameters of the smoothed discrete presets (see BaseNB.finalize_params).
_DISCRETE_FINALIZE = frozenset(
    {
        "alpha",
        "force_alpha",
        "fit_prior",
        "class_prior",
        "estimate",
        "prior_alpha",
        "decision_threshold",
        "threshold_scale",
    }
)


class _DiscreteNB(BaseNB):
    """Common parameters of the smoothed discrete presets."""

    _finalize_only = _DISCRETE_FINALIZE
    _parameter_constraints: ClassVar[dict] = {
        **SMOOTHING,
        "force_alpha": ["boolean"],
        **CLASS_PRIOR,
        "missing": [StrOptions({"error", "ignore"})],
        **THRESHOLD,
    }
    _parameter_messages: ClassVar[dict] = {"alpha": ALPHA_MESSAGE}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True  # as scikit-learn: blobs are not counts
        return tags

    def _alpha(self):
        return _effective_alpha(self._resolved("alpha"), self.force_alpha)

    def _publish(self):
        stats = self.stats_["groups"][0]
        key = next(iter(self.families_[0].class_keys))
        self.feature_count_ = stats[key]
        self._publish_alpha()

    @property
    def feature_log_prob_(self):
        """(n_classes, n_features) log probability of each feature (ComplementNB: its
        weights, PoissonNB: log rates); computed from ``params_`` on each read, a pass over
        the table (keep the result rather than read it in a loop)."""
        check_is_fitted(self, "params_")
        return self.families_[0].feature_log_table(self.params_[0])

    def _publish_alpha(self):
        """``alpha_``: the smoothing used, a float for a scalar or ``"auto"`` alpha."""
        alpha = self.params_[0]["alpha"]
        self.alpha_ = float(alpha[0]) if np.ndim(self.alpha) == 0 and alpha.size else alpha
