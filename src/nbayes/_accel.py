"""The optional compiled loops (:mod:`nbayes._kernels`) and the switch that turns them off.

The loops are built at install time when a C compiler is present. Where they are not, or where
they are switched off, the families run their numpy code, which gives the same results (the
test suite checks both). Only the speed differs.
"""

from __future__ import annotations

import contextvars
import os
import sys
from contextlib import contextmanager
from importlib.util import find_spec
from types import ModuleType

#: The compiled module, None where it is not built, or _UNREAD before the first use: it is
#: loaded on first use (it imports numpy, which ``nbayes --version`` does without).
_UNREAD = ModuleType("unread")
_module: ModuleType | None = _UNREAD


def _load() -> ModuleType | None:
    global _module
    if _module is _UNREAD:
        compiled: ModuleType | None
        try:
            from . import _kernels as compiled
        except ImportError:  # built without a C compiler
            compiled = None
        _module = compiled
    return _module


def __getattr__(name: str):
    if name == "_compiled":  # the compiled module or None (tests read it)
        return _load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    compiled = _load()
    if compiled is None or not _ENABLED.get() or _switched_off():
        return None
    return compiled


def _switched_off() -> bool:
    return os.environ.get(ENV_VAR, "1").strip() in ("0", "false", "no", "off")


def describe(load: bool = True) -> str:
    """One line on which loops run here, for ``nbayes --version`` and benchmark reports.

    With ``load=False`` and the loops not loaded yet, the line is made without loading them
    (they import numpy): whether they are built from the installed files, and which copy
    runs from the processor's flags as Linux lists them (the loops ask the processor the
    same question); where the flags cannot be read, the loops are loaded after all.
    """
    if load or _module is not _UNREAD:
        compiled = _load()
        if compiled is None:
            return "compiled loops not built (numpy code only)"
        if kernels() is None:
            return "compiled loops switched off (numpy code only)"
        return f"compiled loops: {compiled.simd_variant()}"
    if find_spec(f"{__package__}._kernels") is None:
        return "compiled loops not built (numpy code only)"
    if not _ENABLED.get() or _switched_off():
        return "compiled loops switched off (numpy code only)"
    flags = _cpu_flags()
    if flags is None:
        return describe(load=True)
    return "compiled loops: " + ("avx2" if {"avx2", "fma"} <= flags else "baseline")


def _cpu_flags() -> set[str] | None:
    """The processor's feature flags from /proc/cpuinfo (Linux), None elsewhere. The kernel
    lists avx2 only where it also saves the AVX registers, which the loops' own check
    (``__builtin_cpu_supports``) asks for too."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        return None
    return None


@contextmanager
def numpy_only():
    """Context in which the engine and families run their numpy code (for tests and
    benchmarks that compare the two); worker threads inherit it."""
    token = _ENABLED.set(False)
    try:
        yield
    finally:
        _ENABLED.reset(token)
