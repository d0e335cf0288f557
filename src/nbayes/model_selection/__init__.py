"""Model selection from statistics: exact cross-validation without refits.

Naive Bayes learns additive statistics, so the model trained on every row outside a
cross-validation fold is the statistics of all rows minus those of the fold
(:meth:`~nbayes.estimators.BaseNB.subtract_statistics`), and a candidate smoothing, variance
floor, class prior or decision threshold is only another finalize of the same statistics
(:meth:`~nbayes.estimators.BaseNB.finalize_with`). :class:`GridSearchCV` therefore reads the
data once to count each fold, and once more per fold and candidate to score it; it never fits
a candidate. Its fold scores are those of scikit-learn's ``GridSearchCV`` over the same
estimator, to floating-point rounding.

Everything here uses estimators through the protocol of :mod:`nbayes.base`.
The package holds one concern per module: ``_fold_statistics`` (:class:`FoldStatistics`),
``_scores`` (the candidates of a fold scored side by side), ``_grid`` (:class:`GridSearchCV`)
and ``_selection`` (:class:`FeatureSelectionCV`).
"""

from __future__ import annotations

from ._fold_statistics import FoldStatistics
from ._grid import GridSearchCV
from ._scores import QUICK_SCORING as QUICK_SCORING
from ._scores import QUICK_SIGN as QUICK_SIGN
from ._scores import _side_by_side as _side_by_side
from ._scores import row_scores as row_scores
from ._selection import SELECTION_SCORING as SELECTION_SCORING
from ._selection import FeatureSelectionCV

__all__ = ["FeatureSelectionCV", "FoldStatistics", "GridSearchCV"]
