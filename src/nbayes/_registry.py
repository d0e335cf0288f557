"""The one place a model is registered: its class, its model-file layout and its ``--model``
name. Public as :func:`nbayes.base.register` and :func:`nbayes.base.unregister`.

Model files (:mod:`nbayes.io`) build estimators only from the registered classes and write
each in its layout; ``nbayes train --model NAME`` offers the registered names, read from here
when the command runs. :mod:`nbayes.estimators` registers the shipped models with
:func:`register` when it is imported, as another package registers its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._capabilities import NUMERIC_INPUT, capabilities
from .exceptions import ParameterError

#: Model-file layouts (:mod:`nbayes.io` writes and reads each) -> what a file of it holds.
LAYOUTS: dict[str, str] = {
    "preset": "the classes, features and each column group's family and statistics (BaseNB)",
    "categorical": "the preset layout and the vocabulary of category values (CategoricalNB)",
    "mixed": "the preset layout and the table's columns, groups and vocabularies (MixedNB)",
    "text": "a vectoriser and the registered count model behind it (TextNB)",
    "seminaive": "count tables, bin edges and a vocabulary (AODE, TAN, KDB, JointBayes)",
}
#: ``--model`` names the command line gives its own choices (a model picked from the
#: columns; MixedNB reading every column as categories): no registered model's.
CLI_OWN_NAMES = ("auto", "categorical")
_CLI_NAME = re.compile(r"[a-z][a-z0-9-]*")

#: Estimator class name -> class, in the order of registration: ``nbayes.estimators.REGISTRY``.
REGISTRY: dict[str, type] = {}


@dataclass(frozen=True)
class Registration:
    """How a registered model is saved and named on the command line."""

    cls: type
    layout: str
    cli_name: str | None
    #: What ``cls()`` declares (:mod:`nbayes.base`), read once for the command line's
    #: choice of how to build it; empty without a ``cli_name``.
    capabilities: frozenset[str]


_REGISTERED: dict[str, Registration] = {}


def register(model_class: type, *, cli_name: str | None = None, layout: str = "preset") -> None:
    """Register a model class for model files and, with a ``cli_name``, ``nbayes train``.

    The one registration a model needs. Model files name a model by its class name and build
    it only from the registered classes, in the layout it was registered with; a
    ``cli_name`` adds it to the choices of ``nbayes train --model``, read when the command
    runs. The command line builds a model that reads one matrix of numbers (it declares
    :data:`nbayes.base.NUMERIC_INPUT`) over every column read as a number, with its defaults
    and ``--alpha`` / ``--estimate`` when given; the semi-naive models and MixedNB are the
    other kinds it builds. Every model nbayes ships is registered by this function when
    :mod:`nbayes.estimators` is imported.

    Parameters
    ----------
    model_class : type
        The model class, implementing the protocol of :mod:`nbayes.base` and constructible
        with no arguments (model files pass its parameters by name).
    cli_name : str, optional
        Its ``--model`` name: lower-case letters, digits and hyphens, starting with a letter,
        neither another model's nor ``auto`` or ``categorical``. None leaves it off the
        command line.
    layout : {"preset", "categorical", "mixed", "text", "seminaive"}, default="preset"
        How a model file holds it: "preset" suits any model built from families over column
        groups (a subclass of ``nbayes.estimators.BaseNB``); the others are the layouts of
        CategoricalNB, MixedNB, TextNB and the semi-naive models.

    Raises
    ------
    TypeError
        ``model_class`` is not a class.
    ParameterError
        A class of the same name, or the ``cli_name``, is taken; the layout is unknown; or
        the command line cannot build the model under a ``cli_name``.

    See Also
    --------
    unregister : Undo a registration.

    Examples
    --------
    >>> import os, tempfile
    >>> import nbayes
    >>> from nbayes.base import NUMERIC_INPUT, register, unregister
    >>> from nbayes.distributions import Bernoulli
    >>> from nbayes.estimators import BaseNB
    >>> class PresenceNB(BaseNB):
    ...     '''Presence (x > 0) of each feature, with a Beta(alpha, alpha) prior.'''
    ...     _parameter_constraints = {"alpha": [float]}
    ...     def __init__(self, *, alpha=1.0):
    ...         self.alpha = alpha
    ...     def _make_families(self, n_features):
    ...         return [Bernoulli(alpha=self.alpha, binarize=0.0)]
    ...     def capabilities(self):
    ...         return super().capabilities() | {NUMERIC_INPUT}
    >>> register(PresenceNB, cli_name="presence")  # nbayes train --model presence, too
    >>> model = PresenceNB().fit([[0, 3], [2, 0], [0, 1]], ["a", "b", "a"])
    >>> path = nbayes.save(model, os.path.join(tempfile.mkdtemp(), "presence.nbayes"))
    >>> type(nbayes.load(path)).__name__
    'PresenceNB'
    >>> unregister(PresenceNB)
    """
    if not isinstance(model_class, type):
        raise TypeError(
            f"register() takes a model class; got {type(model_class).__name__} "
            f"{model_class!r}. Pass the class itself, e.g. register(MyNB)."
        )
    name = model_class.__name__
    if name in REGISTRY:
        taken = REGISTRY[name]
        fix = (
            f"unregister({name}) first to change its registration"
            if taken is model_class
            else "model files name a model by its class name: rename the class"
        )
        raise ParameterError(
            f"A model named {name!r} is registered already ({taken.__module__}.{name}); {fix}."
        )
    if layout not in LAYOUTS:
        raise ParameterError(
            f"layout must be one of {sorted(LAYOUTS)}; got {layout!r}. 'preset' suits a model "
            "built from families (a subclass of nbayes.estimators.BaseNB)."
        )
    declared: frozenset[str] = frozenset()
    if cli_name is not None:
        _check_cli_name(cli_name)
        declared = capabilities(model_class())
        if NUMERIC_INPUT not in declared and layout not in ("seminaive", "mixed"):
            raise ParameterError(
                f"The command line cannot build {name} as --model {cli_name}: it builds a "
                "model that declares nbayes.base.NUMERIC_INPUT (every column read as a "
                "number), a semi-naive model or MixedNB. Register it without cli_name, or "
                "declare NUMERIC_INPUT in its capabilities() if it reads a matrix of numbers."
            )
    REGISTRY[name] = model_class
    _REGISTERED[name] = Registration(model_class, layout, cli_name, declared)


def _check_cli_name(cli_name) -> None:
    if not isinstance(cli_name, str) or not _CLI_NAME.fullmatch(cli_name):
        raise ParameterError(
            f"cli_name must be lower-case letters, digits and hyphens starting with a letter "
            f"(a --model name such as 'presence'); got {cli_name!r}."
        )
    owner = next((r.cls.__name__ for r in _REGISTERED.values() if r.cli_name == cli_name), None)
    if owner is not None or cli_name in CLI_OWN_NAMES:
        by = f"{owner}'s" if owner else "the command line's own choice"
        raise ParameterError(
            f"--model {cli_name} is taken ({by}); give the model another cli_name."
        )


def unregister(model_class: type) -> None:
    """Undo :func:`register`: the class leaves the choices of model files and the CLI.

    Parameters
    ----------
    model_class : type
        A registered model class.

    Raises
    ------
    ParameterError
        ``model_class`` is not registered.

    See Also
    --------
    register : Register a model class.

    Examples
    --------
    >>> from nbayes.base import register, unregister
    >>> from nbayes.estimators import REGISTRY, GaussianNB
    >>> class WideGaussianNB(GaussianNB):
    ...     '''GaussianNB under another name.'''
    >>> register(WideGaussianNB)
    >>> "WideGaussianNB" in REGISTRY
    True
    >>> unregister(WideGaussianNB)
    >>> "WideGaussianNB" in REGISTRY
    False
    """
    name = getattr(model_class, "__name__", None)
    if name not in REGISTRY or REGISTRY[name] is not model_class:
        raise ParameterError(
            f"{model_class!r} is not registered, so there is nothing to unregister; the registered "
            f"models are {sorted(REGISTRY)}."
        )
    del REGISTRY[name]
    del _REGISTERED[name]


def registrations() -> dict[str, Registration]:
    """Registered class name -> its registration, in the order they were made."""
    return dict(_REGISTERED)
