"""Every public function, class and method of nbayes has a complete numpydoc docstring.

numpydoc's own validator checks the final ``__doc__`` of each public name (those in the
``__all__`` of the public modules, and the public methods of their classes, inherited ones
included where nbayes defines them). Each docstring is written out in full in the source, so
what a reader sees there is what ``help()`` and the reference pages show; the texts that
several of them share are checked here to say the same thing in the same words.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

from numpydoc.docscrape import NumpyDocString
from numpydoc.validate import validate

MODULES = [
    "nbayes",
    "nbayes.dask",
    "nbayes.plot",
    "nbayes.io",
    "nbayes.export",
    "nbayes.columns",
    "nbayes.model_selection",
    "nbayes.calibration",
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


def test_protocol_methods_repeat_the_protocol_sections():
    from nbayes import MixedNB, TextNB
    from nbayes.base import EstimatorProtocol

    protocol = EstimatorProtocol.merge_statistics
    text = "The statistics of all their rows; ``a`` and ``b`` are left unchanged."
    assert text in inspect.getdoc(protocol)
    for cls in (TextNB, MixedNB):  # TextNB and BaseNB implement it each
        for title in ("Parameters", "Returns"):
            assert section(cls.merge_statistics, title) == section(protocol, title), cls
        assert "Examples\n--------\n>>> " in inspect.getdoc(cls.merge_statistics)
    # An implementation's own summary stays first.
    assert inspect.getdoc(MixedNB.merge_statistics).startswith("Statistics of the rows of ``a``")


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
        # Each owner's own method, where nbayes defines it (a mixin's too), not scikit-learn's.
        methods = [
            m
            for cls in owners
            if (m := getattr(cls, name, None)) is not None and m.__module__.startswith("nbayes.")
        ]
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


# -- written out, never assembled ------------------------------------------------------------------
SRC = Path(__file__).resolve().parents[1] / "src" / "nbayes"


def _name(node: ast.AST) -> str:
    """The last identifier of a (called) name or attribute (``f`` of ``a.f`` and ``a.f()``)."""
    if isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def assembled_docstrings(root: Path = SRC) -> list[str]:
    """``path:line what`` of every place under ``root`` that builds a docstring at run time: an
    assignment to ``__doc__``, a docstring position holding an expression (``+``, ``%``, an
    f-string, ``.format``) rather than a literal, a decorator named for docstrings, or an import
    from a docstring helper module."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        where = path.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_name(t) == "__doc__" for t in targets):
                    found.append((where, node.lineno, "assigns __doc__"))
            if isinstance(node, ast.Call) and _name(node) == "setattr" and len(node.args) > 1:
                if isinstance(node.args[1], ast.Constant) and node.args[1].value == "__doc__":
                    found.append((where, node.lineno, "assigns __doc__"))
            if isinstance(node, ast.ImportFrom) and "docstring" in (node.module or ""):
                found.append((where, node.lineno, f"imports {node.module}"))
            if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
                continue
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, (ast.BinOp, ast.JoinedStr)):
                found.append((where, first.lineno, "docstring built by an expression"))
            if isinstance(first, ast.Expr) and _name(first.value) == "format":
                found.append((where, first.lineno, "docstring built by .format"))
            for decorator in getattr(node, "decorator_list", []):
                if "doc" in _name(decorator).lower():
                    found.append((where, decorator.lineno, f"@{_name(decorator)}"))
    return [f"{where}:{line} {what}" for where, line, what in sorted(found)]


def test_docstrings_are_written_out_in_the_source():
    offenders = assembled_docstrings()
    assert not offenders, (
        "docstrings are written out in full where they are defined, so that the source reads "
        "as help() shows it; write this one out: " + "; ".join(offenders)
    )


def test_the_assembly_scan_finds_each_way_of_building_a_docstring(tmp_path):
    (tmp_path / "literal.py").write_text('"""Fine."""\n\n\ndef f():\n    """Fine too."""\n')
    (tmp_path / "built.py").write_text(
        "from ._docstrings import shared_parameters\n\n\n"
        "def f():\n    'A' + TEXT\n\n\n"
        "def g():\n    '{x}'.format(x=1)\n\n\n"
        "@shared_doc('predict')\ndef h():\n    pass\n\n\n"
        "class C:\n    __doc__ = 'A' % 1\n\n\n"
        "f.__doc__ = TEXT\nsetattr(g, '__doc__', TEXT)\n"
    )
    assert assembled_docstrings(tmp_path) == [
        "built.py:1 imports _docstrings",
        "built.py:5 docstring built by an expression",
        "built.py:9 docstring built by .format",
        "built.py:12 @shared_doc",
        "built.py:18 assigns __doc__",
        "built.py:21 assigns __doc__",
        "built.py:22 assigns __doc__",
    ]
