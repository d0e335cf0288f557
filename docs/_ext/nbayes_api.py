"""Write ``api.rst`` from the public modules' ``__all__``, so every public name has a page
and a name added to ``__all__`` appears in the reference by itself.

It runs before autosummary (a lower priority number runs first), which then writes one stub
page per name into ``generated/``.
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path

#: (module, section title, one line on what it holds), in the order of the reference.
MODULES = [
    ("nbayes", "nbayes", "Estimators, model files, merging, threads and errors."),
    ("nbayes.plot", "nbayes.plot", "Plots in scikit-learn's Display convention (matplotlib)."),
    ("nbayes.dask", "nbayes.dask", "Distributed fit and prediction with Dask."),
    ("nbayes.datasets", "nbayes.datasets", "The data sets that ship with nbayes."),
    ("nbayes.io", "nbayes.io", "Safe model files."),
    ("nbayes.export", "nbayes.export", "Fitted models as ONNX graphs and SQL queries."),
    (
        "nbayes.calibration",
        "nbayes.calibration",
        "Probability calibration from fold statistics (scikit-learn's calibrators).",
    ),
    (
        "nbayes.columns",
        "nbayes.columns",
        "Column reading: the typology of kinds, shared by the library and the command line.",
    ),
    ("nbayes.distributions", "nbayes.distributions", "Feature families, to extend nbayes."),
    (
        "nbayes.base",
        "nbayes.base",
        "The model protocol and the capabilities a model declares, to extend nbayes.",
    ),
    (
        "nbayes.testing",
        "nbayes.testing",
        "scikit-learn's meta-estimators and displays around an estimator (a test suite).",
    ),
]


def public_names(module: str) -> list[str]:
    """The module's ``__all__`` without dunder names (``__version__``), type aliases
    (``Params = dict[str, Any]``: no page of their own) and modules (a section of their own)."""
    mod = importlib.import_module(module)
    return sorted(
        n
        for n in mod.__all__
        if not n.startswith("_")
        and not isinstance(getattr(mod, n), (types.GenericAlias, types.ModuleType))
    )


def sections() -> list[tuple[str, str, str]]:
    """MODULES, then every public module that one of them exports (``nbayes.model_selection``
    in ``nbayes.__all__``), titled by the first line of its docstring."""
    found = list(MODULES)
    for module, _, _ in found:  # grows while it runs: submodules are appended
        mod = importlib.import_module(module)
        for name in sorted(mod.__all__):
            value = getattr(mod, name)
            full = f"{module}.{name}"
            if isinstance(value, types.ModuleType) and full not in [m for m, _, _ in found]:
                blurb = (value.__doc__ or "").strip().splitlines()[0] if value.__doc__ else ""
                found.append((full, full, blurb))
    return found


def api_rst() -> str:
    lines = [
        ".. This file is written by docs/_ext/nbayes_api.py from __all__; do not edit.",
        "",
        "API reference",
        "=============",
        "",
        "Every public name of nbayes, from each module's ``__all__``.",
        "",
    ]
    for module, title, blurb in sections():
        lines += [title, "-" * len(title), "", f".. automodule:: {module}", "   :no-members:", ""]
        lines += [blurb, "", f".. currentmodule:: {module}", "", ".. autosummary::"]
        lines += ["   :toctree: generated", "   :nosignatures:", ""]
        lines += [f"   {name}" for name in public_names(module)]
        lines.append("")
    return "\n".join(lines)


def write_api(app) -> None:
    target = Path(app.srcdir) / "api.rst"
    text = api_rst()
    if not target.exists() or target.read_text() != text:  # unchanged: no rebuild
        target.write_text(text)


def setup(app):
    app.connect("builder-inited", write_api, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
