"""scikit-learn compatible Naive Bayes estimators."""

from ._base import BaseNB
from ._merge import merge
from .presets import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
)

__all__ = ["BaseNB", "BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB",
           "MultinomialNB", "PoissonNB", "merge"]
