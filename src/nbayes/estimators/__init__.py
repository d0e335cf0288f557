"""scikit-learn compatible Naive Bayes estimators."""

from ._base import BaseNB
from ._merge import merge
from .density import DensityNB
from .mixed import MixedNB
from .presets import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
)
from .seminaive import AODE, KDB, TAN, JointBayes
from .semisupervised import SemiSupervisedNB
from .text import TextNB

#: Estimator name -> class. Model files (nbayes.io) instantiate estimators only from this table;
#: a new estimator that should be saveable adds itself here.
REGISTRY: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        AODE,
        BernoulliNB,
        CategoricalNB,
        ComplementNB,
        DensityNB,
        GaussianNB,
        JointBayes,
        KDB,
        MixedNB,
        MultinomialNB,
        PoissonNB,
        TAN,
        TextNB,
    )
}

__all__ = [
    "AODE",
    "KDB",
    "REGISTRY",
    "TAN",
    "BaseNB",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "DensityNB",
    "GaussianNB",
    "JointBayes",
    "MixedNB",
    "MultinomialNB",
    "PoissonNB",
    "SemiSupervisedNB",
    "TextNB",
    "merge",
]
