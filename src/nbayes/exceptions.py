"""Exception types raised by nbayes.

Every error follows one template: what is wrong, where (parameter, column, first bad row),
what was received, and how to fix it. All types subclass ``ValueError`` or ``TypeError`` so
that code written against scikit-learn keeps catching them.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sklearn.exceptions import NotFittedError

__all__ = [
    "ColumnWarning",
    "DataError",
    "EMWarning",
    "ModelFormatError",
    "NBayesError",
    "NotFittedError",
    "ParameterError",
    "UnknownLabelError",
    "UnseenCategoryWarning",
]


class NBayesError(Exception):
    """Base class of every error that nbayes raises on purpose.

    Examples
    --------
    >>> import nbayes
    >>> try:
    ...     nbayes.MultinomialNB(alpha=-1).fit([[1]], [0])
    ... except nbayes.NBayesError as exc:
    ...     print(type(exc).__name__)
    ParameterError
    """


class DataError(NBayesError, ValueError):
    """Input data outside a family's domain (negative counts, NaN, wrong shape, ...).

    Examples
    --------
    >>> import nbayes
    >>> nbayes.MultinomialNB().fit([[-1, 2]], [0])
    Traceback (most recent call last):
    ...
    nbayes.exceptions.DataError: Column index 0 must hold non-negative counts for Multinomial ...
    """


class ParameterError(NBayesError, ValueError):
    """An estimator or family parameter that is invalid or inconsistent.

    Examples
    --------
    >>> import nbayes
    >>> nbayes.MultinomialNB(alpha=-1).fit([[1]], [0])
    Traceback (most recent call last):
    ...
    nbayes.exceptions.ParameterError: Parameter 'alpha' must be finite and non-negative; got -1.0.
    """


class UnknownLabelError(DataError):
    """A label that is not among the estimator's classes.

    Examples
    --------
    >>> import nbayes
    >>> model = nbayes.MultinomialNB().fit([[1, 0], [0, 1]], ["a", "b"])
    >>> model.unlearn([[1, 0]], ["c"])
    Traceback (most recent call last):
    ...
    nbayes.exceptions.UnknownLabelError: Cannot unlearn row 0: its label 'c' is not among ...
    """


class ModelFormatError(NBayesError, ValueError):
    """A model file that cannot be read safely (corrupt, unknown, newer format).

    Examples
    --------
    >>> import os, tempfile
    >>> import nbayes
    >>> path = os.path.join(tempfile.mkdtemp(), "not-a-model.nbayes")
    >>> with open(path, "w") as f:
    ...     _ = f.write("hello")
    >>> try:
    ...     nbayes.load(path)
    ... except nbayes.ModelFormatError:
    ...     print("refused")
    refused
    """


class ColumnWarning(UserWarning):
    """A column read "auto" that the model leaves out or that likely codes missing values.

    :class:`nbayes.MixedNB` under ``columns="auto"`` leaves identifiers out (values distinct
    in every row, or a row index) and reports numbers that use a value such as 999999 for
    "missing" (see :mod:`nbayes.columns`); the message names the column and the fix.

    Examples
    --------
    >>> import warnings
    >>> from nbayes import ColumnWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("MixedNB leaves out column(s) ['id']", ColumnWarning)
    >>> caught[0].category.__name__
    'ColumnWarning'
    """


class EMWarning(UserWarning):
    """Semi-supervised EM lowered the held-out log-likelihood of the labeled rows.

    :class:`nbayes.SemiSupervisedNB` compares, on held-out folds of the labeled rows, the
    model of the labeled rows alone with the EM model; when the unlabeled rows make the
    labeled ones less likely, the model's assumptions likely fit the data badly enough that
    the unlabeled rows mislead it (Nigam et al. 2000). Lower ``unlabeled_weight`` or let it be
    chosen (``unlabeled_weight="auto"``).

    Examples
    --------
    >>> import warnings
    >>> from nbayes import EMWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("EM lowered the held-out log-likelihood", EMWarning)
    >>> caught[0].category.__name__
    'EMWarning'
    """


def __getattr__(name: str):
    # scikit-learn's own NotFittedError (code written against scikit-learn catches it), read
    # on first use: importing sklearn.exceptions loads scikit-learn's base, which the
    # command line's --help and --version do without.
    if name == "NotFittedError":
        from sklearn.exceptions import NotFittedError

        globals()[name] = NotFittedError
        return NotFittedError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnseenCategoryWarning(UserWarning):
    """Most values of a category column at predict time were never seen in training.

    A column that names or numbers the rows (an identifier) gives this warning on every new
    file: leave it out of training. Otherwise the new file likely writes the column in
    another way than the training data (another type, spelling or unit).

    Examples
    --------
    >>> import warnings
    >>> from nbayes.exceptions import UnseenCategoryWarning
    >>> issubclass(UnseenCategoryWarning, UserWarning)
    True
    """
