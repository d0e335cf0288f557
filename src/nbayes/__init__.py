"""nbayes: Naive Bayes that is exact, mergeable and fast.

Estimators follow scikit-learn's API; every model is built from additive sufficient statistics
(accumulate -> merge -> finalize), so ``fit``, ``partial_fit`` and distributed fits agree.
Importing nbayes loads only numpy, scipy, scikit-learn and pandas.
"""

from . import model_selection
from ._accel import compiled_kernels
from ._threads import get_threads, set_threads, threads
from ._version import __version__
from .estimators import (
    AODE,
    KDB,
    TAN,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    DensityNB,
    GaussianNB,
    JointBayes,
    MixedNB,
    MultinomialNB,
    PoissonNB,
    SemiSupervisedNB,
    TextNB,
    merge,
)
from .exceptions import (
    ColumnWarning,
    DataError,
    EMWarning,
    ModelFormatError,
    NBayesError,
    NotFittedError,
    ParameterError,
    UnknownLabelError,
)
from .io import load, save

__all__ = [
    "AODE",
    "KDB",
    "TAN",
    "BernoulliNB",
    "CategoricalNB",
    "ColumnWarning",
    "ComplementNB",
    "DataError",
    "DensityNB",
    "EMWarning",
    "GaussianNB",
    "JointBayes",
    "MixedNB",
    "ModelFormatError",
    "MultinomialNB",
    "NBayesError",
    "NotFittedError",
    "ParameterError",
    "PoissonNB",
    "SemiSupervisedNB",
    "TextNB",
    "UnknownLabelError",
    "__version__",
    "compiled_kernels",
    "get_threads",
    "load",
    "merge",
    "model_selection",
    "save",
    "set_threads",
    "threads",
]
