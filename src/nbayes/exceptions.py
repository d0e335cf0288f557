"""Exception types raised by nbayes.

Every error follows one template: what is wrong, where (parameter, column, first bad row),
what was received, and how to fix it. All types subclass ``ValueError`` or ``TypeError`` so
that code written against scikit-learn keeps catching them.
"""

from sklearn.exceptions import NotFittedError

__all__ = [
    "DataError",
    "ModelFormatError",
    "NBayesError",
    "NotFittedError",
    "ParameterError",
    "UnknownLabelError",
]


class NBayesError(Exception):
    """Base class of every error that nbayes raises on purpose."""


class DataError(NBayesError, ValueError):
    """Input data outside a family's domain (negative counts, NaN, wrong shape, ...)."""


class ParameterError(NBayesError, ValueError):
    """An estimator or family parameter that is invalid or inconsistent."""


class UnknownLabelError(DataError):
    """A label that is not among the estimator's classes."""


class ModelFormatError(NBayesError, ValueError):
    """A model file that cannot be read safely (corrupt, unknown, newer format)."""
