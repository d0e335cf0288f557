"""scikit-learn compatible Naive Bayes estimators."""

from .. import _registry
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

#: Estimator class name -> class. Model files (nbayes.io) instantiate estimators only from this
#: table, which :func:`nbayes.base.register` fills: register a model with it, not here.
REGISTRY = _registry.REGISTRY

# The shipped models, registered as another package registers its own; ``nbayes train --model``
# lists their names in this order.
_registry.register(GaussianNB, cli_name="gaussian")
_registry.register(BernoulliNB, cli_name="bernoulli")
_registry.register(MultinomialNB, cli_name="multinomial")
_registry.register(ComplementNB, cli_name="complement")
_registry.register(PoissonNB, cli_name="poisson")
_registry.register(DensityNB, cli_name="density")
_registry.register(MixedNB, cli_name="mixed", layout="mixed")
_registry.register(AODE, cli_name="aode", layout="seminaive")
_registry.register(TAN, cli_name="tan", layout="seminaive")
_registry.register(KDB, cli_name="kdb", layout="seminaive")
_registry.register(JointBayes, cli_name="joint", layout="seminaive")
_registry.register(CategoricalNB, layout="categorical")
_registry.register(TextNB, layout="text")

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
