"""Parameter constraints: declared once per estimator class, checked once when fitting starts.

Every public estimator declares ``_parameter_constraints``, scikit-learn's table (see
``sklearn.utils._param_validation``): for each parameter of ``get_params()``, the kinds of
value it accepts (an ``Interval``, ``StrOptions``, ``"boolean"``, ``"array-like"``, a type,
``None``, ...). :func:`check_params` checks every parameter against it at the start of
``fit``, ``partial_fit`` and the protocol's ``setup``, never at construction, as scikit-learn
does (``set_params`` and ``clone`` keep any value), and raises a :class:`ParameterError`
that names the parameter, what it accepts and the value it got.

The table checks what a value is on its own. What depends on the data (one alpha per
feature, one prior probability per class, a column that the table lacks) is checked where
the data is known, in the families and the engine.

A class whose established wording is clearer than the generated one (or that tests and users
rely on) gives it in ``_parameter_messages``: parameter -> a sentence with ``{value}`` (the
value's repr) and ``{kind}`` (its type's name) to fill in, or a function of the value that
returns the sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    Options,
    StrOptions,
    _ArrayLikes,
    _Booleans,
    _Callables,
    _InstancesOf,
    _NoneConstraint,
    _RandomStates,
    make_constraint,
)

from .exceptions import ParameterError

__all__ = ["HasMethods", "Interval", "Options", "StrOptions", "check_params", "describe"]

#: Longest repr of a bad value that a message shows whole.
_SHOWN = 80
#: Most options that a message lists.
_LISTED = 12


def _accepts(constraint, value) -> bool:
    """Whether ``value`` satisfies ``constraint``; a bool is no number here (True is an
    Integral to Python, but ``n_bins=True`` is a mistake, not 1), and a dict no array."""
    if isinstance(value, (bool, np.bool_)) and isinstance(constraint, (Interval, Options)):
        return False
    if isinstance(value, (bool, np.bool_)) and isinstance(constraint, _InstancesOf):
        return constraint.type in (bool, object)
    if isinstance(value, Mapping) and isinstance(constraint, _ArrayLikes):
        return False  # one value per class or feature is a sequence, not keyed by name
    return constraint.is_satisfied_by(value)


def _phrase(constraint) -> str:
    """One constraint in words, to follow "must be"."""
    if isinstance(constraint, _NoneConstraint):
        return "None"
    if isinstance(constraint, Options):
        options = sorted(constraint.options, key=repr)
        if len(options) == 1:
            return repr(options[0])
        if len(options) > _LISTED:  # scikit-learn's scorer names
            return f"one of {len(options)} names such as {tuple(options[:3])!r}"
        return f"one of {tuple(options)!r}"
    if isinstance(constraint, Interval):
        kind = "an integer" if constraint.type is Integral else "a number"
        left, right = constraint.left, constraint.right
        low = ">=" if constraint.closed in ("left", "both") else ">"
        high = "<=" if constraint.closed in ("right", "both") else "<"
        if right == np.inf:
            return f"{kind} {low} {left}{' (or inf)' if high == '<=' else ''}"
        if left is not None and right is not None:
            return f"{kind} {low} {left} and {high} {right}"
        if left is not None:
            return f"{kind} {low} {left}"
        if right is not None:
            return f"{kind} {high} {right}"
        return f"a finite {kind.split()[-1]}"
    if isinstance(constraint, _Booleans):
        return "True or False"
    if isinstance(constraint, _ArrayLikes):
        return "an array"
    if isinstance(constraint, _Callables):
        return "a callable"
    if isinstance(constraint, _RandomStates):
        return "an int, a numpy RandomState or None"
    if isinstance(constraint, HasMethods):
        return f"an object with method(s) {', '.join(constraint.methods)}"
    if isinstance(constraint, _InstancesOf):
        if constraint.type is Integral:
            return "an integer"
        if constraint.type is Real:
            return "a number"
        name = constraint.type.__name__
        return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name}"
    return str(constraint)


def describe(constraints: list) -> str:
    """The accepted values of one parameter in words: "a number, an array or 'auto'"."""
    phrases = [_phrase(make_constraint(c)) for c in constraints]
    phrases = [p for i, p in enumerate(phrases) if p not in phrases[:i]]
    return phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} or {phrases[-1]}"


def check_params(estimator) -> None:
    """Check every parameter of ``estimator`` against its class's ``_parameter_constraints``.

    Raises
    ------
    ParameterError
        For the first parameter whose value none of its constraints accepts, naming the
        parameter, what it accepts and the value it got.
    TypeError
        If the class does not declare a parameter of ``get_params()`` (a bug of the class).

    Examples
    --------
    >>> from nbayes import MultinomialNB
    >>> from nbayes._params import check_params
    >>> check_params(MultinomialNB(fit_prior="yes"))
    Traceback (most recent call last):
    ...
    nbayes.exceptions.ParameterError: Parameter 'fit_prior' must be True or False; got 'yes'.
    """
    cls = type(estimator)
    declared = getattr(cls, "_parameter_constraints", {})
    messages = getattr(cls, "_parameter_messages", {})
    for name, value in estimator.get_params(deep=False).items():
        if name not in declared:
            raise TypeError(f"{cls.__name__} declares no constraints for parameter {name!r}.")
        allowed = declared[name]
        if allowed == "no_validation":
            continue
        if any(_accepts(make_constraint(c), value) for c in allowed):
            continue
        shown = repr(value)
        if len(shown) > _SHOWN:
            shown = f"{shown[: _SHOWN - 3]}..."
        message = messages.get(name)
        if callable(message):
            raise ParameterError(message(value))
        if message is not None:
            raise ParameterError(message.format(value=shown, kind=type(value).__name__))
        raise ParameterError(f"Parameter {name!r} must be {describe(allowed)}; got {shown}.")
