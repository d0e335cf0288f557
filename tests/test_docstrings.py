"""Every public function, class and method of nbayes has a complete numpydoc docstring.

numpydoc's own validator checks the final ``__doc__`` of each public name (those in the
``__all__`` of the public modules, and the public methods of their classes, inherited ones
included where nbayes defines them), so the text filled in from shared places
(:mod:`nbayes._docstrings`, the estimator protocol) is checked as the reference pages show it.
"""

from __future__ import annotations

import importlib
import inspect

import pytest
from numpydoc.validate import validate

from nbayes import _docstrings

MODULES = [
    "nbayes",
    "nbayes.dask",
    "nbayes.plot",
    "nbayes.io",
    "nbayes.columns",
    "nbayes.model_selection",
    "nbayes.datasets",
    "nbayes.exceptions",
    "nbayes.testing",
]

#: numpydoc checks that every public docstring passes.
CODES = {
    "GL08": "no docstring",
    "PR01": "a parameter is not documented",
    "PR02": "a documented parameter does not exist",
    "PR06": "a parameter type spelt as a long name (integer, boolean, string)",
    "PR07": "a parameter without a description",
    "PR08": "a parameter description that does not start with a capital letter",
    "PR09": "a parameter description that does not end with a period",
    "PR10": "a parameter header without a space before or after its colon",
    "RT01": "no Returns section for a function that returns a value",
    "RT03": "a return value without a description",
    "RT04": "a return value description that does not start with a capital letter",
    "EX01": "no Examples section",
    "SS01": "no summary line",
    "SS03": "a summary that does not end with a period",
    "GL02": "closing quotes not on the line after the text",
    "GL07": "sections in a different order than numpydoc's",
    "SA03": "a See Also description that does not start with a capital letter",
}


def public_names() -> list[str]:
    """Dotted names of every public function and class, and of the public methods of each
    class that nbayes defines (inherited ones included, documented once where defined)."""
    names, seen = [], set()
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or id(obj) in seen:
                continue
            seen.add(id(obj))
            names.append(f"{module_name}.{name}")
            if not inspect.isclass(obj):
                continue
            for attr in dir(obj):  # bounded by the class's attributes
                value = inspect.getattr_static(obj, attr)
                if isinstance(value, (classmethod, staticmethod)):
                    value = value.__func__
                if attr.startswith("_") or not inspect.isfunction(value):
                    continue
                if value.__module__.startswith("nbayes") and id(value) not in seen:
                    seen.add(id(value))
                    names.append(f"{module_name}.{name}.{attr}")
    return names


def test_public_docstrings_are_complete():
    names = public_names()
    assert len(names) > 100  # the walk found the estimators' methods, not only the modules
    offenders = [
        f"{name}: {code} {message}"
        for name in names
        for code, message in validate(name)["errors"]
        if code in CODES
    ]
    assert not offenders, "\n".join(offenders)


def test_protocol_methods_take_the_protocol_sections():
    from nbayes import MixedNB, TextNB
    from nbayes.base import EstimatorProtocol

    protocol = EstimatorProtocol.merge_statistics.__doc__
    text = "The statistics of all their rows; ``a`` and ``b`` are left unchanged."
    assert text in protocol
    for cls in (TextNB, MixedNB):  # TextNB and BaseNB implement it each
        doc = cls.merge_statistics.__doc__
        assert "Parameters\n----------\na, b : dict" in doc
        assert text in doc and "Examples\n--------\n>>> " in doc
    # An implementation's own summary stays first; the protocol's sections follow it.
    assert MixedNB.merge_statistics.__doc__.startswith("Statistics of the rows of ``a`` and ``b``")


def test_wrapper_methods_share_one_text():
    from nbayes import TextNB
    from nbayes.dask import predict_log_proba as dask_predict_log_proba
    from nbayes.model_selection import GridSearchCV

    shared = "Columns in ``classes_`` order; each row sums to one."
    for method in (TextNB.predict_proba, GridSearchCV.predict_proba):
        assert shared in method.__doc__
    assert "It is\n    sent to each worker once" in dask_predict_log_proba.__doc__
    for module in ("nbayes.model_selection._grid", "nbayes.model_selection._selection"):
        source = inspect.getsource(importlib.import_module(module))
        assert shared not in source  # written once, in nbayes._docstrings


def test_a_placeholder_without_text_fails_at_import():
    def predict(self, X):
        """Predict.

        Parameters
        ----------
        {{X}}
        """

    with pytest.raises(KeyError, match=r"placeholder \{\{X\}\} has no text; given \['examples'\]"):
        _docstrings.shared_doc(examples=">>> 1")(predict)


def test_fit_parameters_come_from_one_place():
    import nbayes
    from nbayes.model_selection import FoldStatistics

    text = "an integer weight counts as that many copies of"
    assert text in " ".join(_docstrings.PARAMETERS["sample_weight"].split())
    for obj in (nbayes.GaussianNB.fit, nbayes.TextNB.partial_fit, nbayes.TAN.fit, FoldStatistics):
        assert text in " ".join(obj.__doc__.split()), obj
    for module in (
        "nbayes.estimators._base",
        "nbayes.estimators.text",
        "nbayes.model_selection._fold_statistics",
    ):
        assert text not in " ".join(inspect.getsource(importlib.import_module(module)).split())
