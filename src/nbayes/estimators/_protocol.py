"""The estimator protocol's former home; it lives in :mod:`nbayes.base` now. This module keeps
the old imports working for one release (no warning): import from :mod:`nbayes.base`."""

from ..base import MODES, EstimatorProtocol, Mode, SurveyStep, check_mode

__all__ = ["MODES", "EstimatorProtocol", "Mode", "SurveyStep", "check_mode"]
