"""The optional compiled loops (:mod:`nbayes._kernels`) and the switch that turns them off.

The loops are built at install time when a C compiler is present. Where they are not, or where
they are switched off, the families run their numpy code, which gives the same results (the
test suite checks both). Only the speed differs.
"""

from __future__ import annotations

import contextvars
import os
from contextlib import contextmanager
from types import ModuleType

_compiled: ModuleType | None
try:
    from . import _kernels as _compiled
except ImportError:  # built without a C compiler
    _compiled = None

#: Set to 0 to run the numpy code even where the compiled loops are built.
ENV_VAR = "NBAYES_COMPILED"

_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar("nbayes_compiled", default=True)


def compiled_kernels() -> bool:
    """Whether nbayes runs its compiled loops here (built, and not switched off).

    They are built when nbayes is installed on a machine with a C compiler; the environment
    variable ``NBAYES_COMPILED=0`` switches them off. Without them nbayes gives the same
    results from its numpy code, more slowly for CategoricalNB and GaussianNB.

    Returns
    -------
    bool
        True where the compiled loops are built and not switched off.

    Examples
    --------
    >>> import nbayes
    >>> isinstance(nbayes.compiled_kernels(), bool)
    True
    """
    return kernels() is not None


def kernels():
    """The compiled module, or None where it is not built or switched off."""
    if _compiled is None or not _ENABLED.get():
        return None
    if os.environ.get(ENV_VAR, "1").strip() in ("0", "false", "no", "off"):
        return None
    return _compiled


def describe() -> str:
    """One line on which loops run here, for ``nbayes --version`` and benchmark reports."""
    if _compiled is None:
        return "compiled loops not built (numpy code only)"
    if kernels() is None:
        return "compiled loops switched off (numpy code only)"
    return f"compiled loops: {_compiled.simd_variant()}"


@contextmanager
def numpy_only():
    """Context in which the engine and families run their numpy code (for tests and
    benchmarks that compare the two); worker threads inherit it."""
    token = _ENABLED.set(False)
    try:
        yield
    finally:
        _ENABLED.reset(token)
