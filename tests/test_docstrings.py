"""Every public function, class and method of nbayes has a complete numpydoc docstring.

numpydoc's own validator checks the final ``__doc__`` of each public name (those in the
``__all__`` of the public modules, and the public methods of their classes, inherited ones
included where nbayes defines them). Each docstring is written out in full in the source, so
what a reader sees there is what ``help()`` and the reference pages show; the texts that
several of them share are checked here to say the same thing in the same words.
"""

from __future__ import annotations

import importlib
import inspect

from numpydoc.docscrape import NumpyDocString
from numpydoc.validate import validate

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


def section(obj, title: str) -> list:
    """The ``title`` section of ``obj``'s docstring as numpydoc parses it."""
    return NumpyDocString(inspect.getdoc(obj))[title]


def description(obj, parameter: str) -> str:
    """The description of ``parameter`` in ``obj``'s docstring, on one line."""
    (param,) = [p for p in section(obj, "Parameters") if p.name == parameter]
    return " ".join(" ".join(param.desc).split())


def test_prediction_methods_say_the_same():
    from nbayes import GaussianNB, SemiSupervisedNB, TextNB
    from nbayes.dask import predict_log_proba as dask_predict_log_proba
    from nbayes.model_selection import FeatureSelectionCV, GridSearchCV

    shared = "Columns in ``classes_`` order; each row sums to one."
    for method in (TextNB.predict_proba, GridSearchCV.predict_proba):
        assert shared in method.__doc__
    assert "It is\n    sent to each worker once" in inspect.getdoc(dask_predict_log_proba)
    owners = (GaussianNB, TextNB, SemiSupervisedNB, GridSearchCV, FeatureSelectionCV)
    for name in ("predict", "predict_proba", "predict_log_proba", "decision_function"):
        methods = [getattr(cls, name) for cls in owners if name in vars(cls)]
        assert len(methods) >= 3, name
        assert len({repr(section(m, "Returns")) for m in methods}) == 1, name


def test_shared_parameters_say_the_same():
    import nbayes
    from nbayes.model_selection import FoldStatistics

    weight = description(nbayes.GaussianNB.fit, "sample_weight")
    assert "an integer weight counts as that many copies of" in weight
    for obj in (nbayes.TextNB.partial_fit, nbayes.TAN.fit, FoldStatistics):
        assert description(obj, "sample_weight") == weight, obj
    presets = ["BernoulliNB", "MultinomialNB", "ComplementNB", "PoissonNB", "CategoricalNB"]
    threshold = description(nbayes.GaussianNB, "decision_threshold")
    assert "Raise it to make e.g. a spam filter less aggressive." in threshold
    for name in presets:
        assert description(getattr(nbayes, name), "decision_threshold") == threshold, name
    prior = description(nbayes.BernoulliNB, "prior_alpha")
    for name in ["MultinomialNB", "CategoricalNB"]:
        assert description(getattr(nbayes, name), "prior_alpha") == prior, name
