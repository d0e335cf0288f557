"""scikit-learn compatible Naive Bayes estimators."""

from ._base import BaseNB
from ._merge import merge
from .mixed import MixedNB
from .presets import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
)
from .text import TextNB

#: Estimator name -> class. Model files (nbayes.io) instantiate estimators only from this table;
#: a new estimator that should be saveable adds itself here.
REGISTRY: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        BernoulliNB,
        CategoricalNB,
        ComplementNB,
        GaussianNB,
        MixedNB,
        MultinomialNB,
        PoissonNB,
        TextNB,
    )
}

__all__ = [
    "REGISTRY",
    "BaseNB",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "MixedNB",
    "MultinomialNB",
    "PoissonNB",
    "TextNB",
    "merge",
]
