"""scikit-learn compatible Naive Bayes estimators."""

from ._base import BaseNB
from .presets import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
)

__all__ = ["BaseNB", "BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB",
           "MultinomialNB", "PoissonNB"]
