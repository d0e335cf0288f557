"""Probability calibration from fold statistics.

:class:`CalibratedClassifierCV` is a drop-in for scikit-learn's: the calibrators (Platt's
sigmoid, isotonic regression, temperature scaling) are scikit-learn's own, fitted on the same
out-of-fold decision values, but those values come from the fold statistics of
:mod:`nbayes.model_selection`: the model of the rows outside a fold is the statistics of all
rows minus those of the fold, so the data is counted once and no fold model is refitted.
Models that cannot be made from statistics (no ``candidate_scoring`` capability, or a set-up
that depends on the rows) are refitted per fold, as scikit-learn does.

One concern per module: ``_out_of_fold`` (the fold models and their decision values) and
``_calibrated`` (:class:`CalibratedClassifierCV`).
"""

from __future__ import annotations

from ._calibrated import CalibratedClassifierCV

__all__ = ["CalibratedClassifierCV"]
