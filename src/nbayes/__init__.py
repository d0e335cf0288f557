"""nbayes: Naive Bayes that is exact, mergeable and fast.

Estimators follow scikit-learn's API; every model is built from additive sufficient statistics
(accumulate -> merge -> finalize), so ``fit``, ``partial_fit`` and distributed fits agree.

Importing nbayes loads nothing: each name below is imported on first use (PEP 562), so the
``nbayes`` command answers ``--help`` and ``--version`` without numpy, and a fit pays numpy,
pandas, scikit-learn's base classes and the estimators, not model selection
(:mod:`nbayes.model_selection`), Dask (:mod:`nbayes.dask`) or plotting (:mod:`nbayes.plot`),
which load when they are used.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ._version import __version__

if TYPE_CHECKING:  # the same names, for type checkers and readers
    from . import base, model_selection
    from ._accel import compiled_kernels
    from ._threads import get_threads, set_threads, threads
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

#: Public name -> the module that defines it (imported on first use of the name).
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "AODE",
            "KDB",
            "TAN",
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
        ),
        ".estimators",
    ),
    **dict.fromkeys(
        (
            "ColumnWarning",
            "DataError",
            "EMWarning",
            "ModelFormatError",
            "NBayesError",
            "NotFittedError",
            "ParameterError",
            "UnknownLabelError",
        ),
        ".exceptions",
    ),
    "compiled_kernels": "._accel",
    "get_threads": "._threads",
    "set_threads": "._threads",
    "threads": "._threads",
    "load": ".io",
    "save": ".io",
}
#: Modules reachable as attributes (``nbayes.model_selection.GridSearchCV``) without an
#: import of their own, as when this module imported them itself. Not ``nbayes.dask`` and
#: ``nbayes.plot``: their optional dependencies load on an explicit import only.
_SUBMODULES = frozenset(
    (
        "model_selection",
        "base",
        "columns",
        "estimators",
        "distributions",
        "io",
        "exceptions",
        "seminaive",
        "_accel",
        "_engine",
        "_output",
        "_threads",
        "_validation",
    )
)


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
    elif name in _SUBMODULES:
        value = import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'nbayes' has no attribute {name!r}")
    globals()[name] = value  # later reads cost nothing
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)


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
    "base",
    "compiled_kernels",
    "get_threads",
    "load",
    "merge",
    "model_selection",
    "save",
    "set_threads",
    "threads",
]
