"""Plots of fitted models, following scikit-learn's Display convention.

``SomeDisplay.from_estimator(model, ...)`` computes what to draw and draws it;
``display.plot(ax=...)`` draws it again anywhere. matplotlib is an optional dependency
(``pip install "nbayes[plot]"``), imported only when something is drawn. The confusion
matrix is scikit-learn's own: ``sklearn.metrics.ConfusionMatrixDisplay.from_estimator``.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from nbayes import MultinomialNB
>>> from nbayes.plot import ThresholdDisplay
>>> X, y = [[3, 0], [2, 1], [0, 4], [1, 3]], ["ham", "ham", "spam", "spam"]
>>> display = ThresholdDisplay.from_estimator(MultinomialNB().fit(X, y), X, y)
>>> display.recall.tolist()
[1.0, 1.0, 1.0, 0.5]
"""

from ._model import ClassConditionalDisplay, TopFeaturesDisplay
from ._scores import ReliabilityDisplay, ThresholdDisplay
from ._structure import StructureDisplay

__all__ = [
    "ClassConditionalDisplay",
    "ReliabilityDisplay",
    "StructureDisplay",
    "ThresholdDisplay",
    "TopFeaturesDisplay",
]
