"""Architecture rules checked on the source: no import cycles inside the package.

The import graph is read with ``ast`` (nothing is imported). Every ``import`` counts, at the
top of a module or inside a function: a function-level import is a dependency all the same,
only deferred, and a cycle hidden that way still ties the modules together. Imports under
``if TYPE_CHECKING:`` are left out, since they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "nbayes"


def _module_name(path: Path, root: Path) -> str:
    parts = ["nbayes", *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    """Modules of the package that ``module`` imports (at any depth of its code)."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                # ``from . import x`` depends on the module ``x`` where x is one (running
                # the package's __init__ is not counted, as for any parent package); else
                # ``x`` is a name defined by the module ``target``.
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    edges = set()
    for name in found:
        # ``import a.b.c`` runs a, a.b and a.b.c; the deepest known module is the dependency.
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            edges.add(name)
    return edges


def import_graph(root: Path = SRC) -> dict[str, set[str]]:
    """Module -> modules of the package it imports, for every module under ``root``."""
    files = {_module_name(p, root): p for p in root.rglob("*.py")}
    # Compiled extensions (the optional loops) are modules too, with no imports to follow.
    compiled = {
        _module_name(p.with_name(p.name.split(".")[0] + ".py"), root)
        for p in root.rglob("*")
        if p.suffix in (".so", ".pyd", ".pyx")
    }
    known = set(files) | compiled
    return {
        name: _imports(ast.parse(path.read_text()), name, path.name == "__init__.py", known)
        for name, path in files.items()
    }


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of ``graph`` with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def connect(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return sorted(found)


def test_the_package_has_no_import_cycles():
    cycles = strongly_connected(import_graph())
    assert not cycles, "modules that import each other (directly or in a loop): " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


def test_the_cycle_check_finds_a_cycle_through_a_function_level_import(tmp_path):
    pkg = tmp_path / "nbayes"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import a\n")
    (pkg / "sub" / "a.py").write_text("from ..b import f\n")
    (pkg / "b.py").write_text("def f():\n    from .sub.a import g\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import x\n"
    )
    (pkg / "d.py").write_text("from . import c\n")
    graph = import_graph(pkg)
    assert graph["nbayes.sub.a"] == {"nbayes.b"}
    assert graph["nbayes.c"] == set()  # TYPE_CHECKING imports never run
    assert strongly_connected(graph) == [["nbayes.b", "nbayes.sub.a"]]


@pytest.mark.parametrize("module", ["nbayes.estimators._base", "nbayes.io"])
def test_the_import_graph_sees_the_package(module):
    assert module in import_graph()


def test_estimators_and_families_do_not_import_the_persistence_code():
    graph = import_graph()
    below = [m for m in graph if m.startswith(("nbayes.estimators", "nbayes.distributions"))]
    offenders = {
        m: sorted(graph[m]) for m in below if any(t.startswith("nbayes.io") for t in graph[m])
    }
    assert not offenders, f"model files are owned by nbayes.io; these import it: {offenders}"


# -- nothing outside an estimator's module touches its private attributes ---------------------
ESTIMATOR_MODULES = sorted((SRC / "estimators").glob("*.py"))
#: Modules that use estimators only through the protocol (see nbayes/base.py).
CONSUMERS = [
    *sorted((SRC / "dask").glob("*.py")),
    *sorted((SRC / "model_selection").glob("*.py")),
    *sorted((SRC / "calibration").glob("*.py")),
    *sorted((SRC / "io").glob("*.py")),
    SRC / "estimators" / "_merge.py",
    SRC / "estimators" / "_explain.py",
    *sorted((SRC / "cli").glob("*.py")),
    *sorted((SRC / "plot").glob("*.py")),
    *sorted((SRC / "export").glob("*.py")),
]


def estimator_private_names() -> set[str]:
    """Names starting with one underscore that estimator classes define: methods, class
    attributes and attributes they set on ``self``."""
    names: set[str] = set()
    for path in ESTIMATOR_MODULES:
        for cls in ast.walk(ast.parse(path.read_text())):
            if not isinstance(cls, ast.ClassDef):
                continue
            for node in ast.walk(cls):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(node.name)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    if isinstance(node.value, ast.Name) and node.value.id == "self":
                        names.add(node.attr)
                elif isinstance(node, ast.Assign):
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def private_uses(source: str, private: set[str]) -> list[tuple[int, str]]:
    """(line, name) of every ``obj._name`` or ``getattr(obj, "_name")`` with ``_name`` in
    ``private``, except on ``self`` / ``cls`` (a consumer's own classes)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in private:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append((node.lineno, node.attr))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in private
        ):
            found.append((node.lineno, node.args[1].value))
    return sorted(found)


def test_consumers_use_estimators_only_through_the_protocol():
    private = estimator_private_names()
    assert {"_validate_X", "_blocks", "_layout", "_columns"} <= private  # the scan sees them
    offenders = {
        str(path.relative_to(SRC)): uses
        for path in CONSUMERS
        if (uses := private_uses(path.read_text(), private))
    }
    assert not offenders, f"private estimator attributes used outside the estimators: {offenders}"


def test_the_private_use_scan_finds_attribute_and_getattr_uses():
    source = (
        "def f(model):\n"
        "    model._finalize()\n"
        "    return getattr(model, '_vocabs', None)\n"
        "class T:\n"
        "    def g(self):\n"
        "        return self._finalize\n"
    )
    assert private_uses(source, {"_finalize", "_vocabs"}) == [(2, "_finalize"), (3, "_vocabs")]


# -- one home per concept -------------------------------------------------------------------------
#: A concept, the module that is its one home, and what gives away a second implementation
#: elsewhere: a function or class whose name holds one of the words, or a line of code holding
#: one of the fragments (the MDL threshold's ``log2(3**k - 2)``, pandas' hash of rows,
#: splitmix64's constants, scikit-learn's label encoder or a ``np.unique`` of the labels).
HOMES = {
    "discretisation": (
        "_discretise.py",
        ("mdl", "entropy", "equal_frequency", "quantile_edges"),
        ("3.0**k", "3**k"),
    ),
    "row hash": (
        "_rowhash.py",
        ("splitmix", "row_hash", "hash_folds", "fold_of"),
        ("hash_array", "0x9E3779B97F4A7C15", "0xBF58476D1CE4E5B9"),
    ),
    "tree reduce": ("dask/_parts.py", ("tree_reduce",), ("whilelen(tasks)",)),
    # Every fold's statistics are counted in one pass of the training driver, in memory, on
    # the command line and on Dask alike.
    "fold statistics": ("_training.py", ("count_folds", "merge_folds", "merge_counts"), ()),
    # Classes are found and labels coded by fit_classes and label_codes: no other encoder.
    "labels": (
        "estimators/_inputs.py",
        (),
        ("LabelEncoder()", "unique(y,return_inverse=True)"),
    ),
}


def second_homes(concept: str, root: Path = SRC) -> list[str]:
    """``path:line name`` of every definition or code fragment of ``concept`` outside its home."""
    home, words, fragments = HOMES[concept]
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == home:
            continue
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and any(
                w in node.name.lower() for w in words
            ):
                found.append(f"{rel}:{node.lineno} {node.name}")
        for number, line in enumerate(source.splitlines(), 1):
            code = line.split("#")[0].replace(" ", "")
            found += [f"{rel}:{number} {f}" for f in fragments if f in code]
    return found


@pytest.mark.parametrize("concept", sorted(HOMES))
def test_each_concept_has_one_home(concept):
    assert (SRC / HOMES[concept][0]).exists()
    offenders = second_homes(concept)
    assert not offenders, f"{concept} belongs in {HOMES[concept][0]}; found elsewhere: {offenders}"


def test_the_one_home_scan_finds_a_second_implementation(tmp_path):
    pkg = tmp_path / "nbayes"
    pkg.mkdir()
    (pkg / "_discretise.py").write_text("def mdl_cuts(c):\n    return 3.0**k - 2\n")
    (pkg / "other.py").write_text("def _mdl_cuts(u, c):\n    t = np.log2(3.0 ** k - 2)\n")
    assert second_homes("discretisation", pkg) == ["other.py:1 _mdl_cuts", "other.py:2 3.0**k"]
    (pkg / "folds.py").write_text("def fold_of(r, k):\n    return pd.util.hash_array(r) % k\n")
    assert second_homes("row hash", pkg) == ["folds.py:1 fold_of", "folds.py:2 hash_array"]
    (pkg / "cv.py").write_text("def merge_counts(model, *counted):\n    return counted\n")
    assert second_homes("fold statistics", pkg) == ["cv.py:1 merge_counts"]
    (pkg / "fit.py").write_text(
        "enc = LabelEncoder().fit(y)\nc, k = np.unique(y, return_inverse=True)\n"
    )
    assert second_homes("labels", pkg) == [
        "fit.py:1 LabelEncoder()",
        "fit.py:2 unique(y,return_inverse=True)",
    ]


# -- modules of one concern -----------------------------------------------------------------------
#: Most lines a module of the package may have; a longer one holds more than one concern. The
#: compiled kernels (``.pyx``) are not counted.
MAX_MODULE_LINES = 800


def module_lengths(root: Path = SRC) -> dict[str, int]:
    """Lines of every Python module under ``root``, by path relative to it."""
    return {
        path.relative_to(root).as_posix(): len(path.read_text().splitlines())
        for path in sorted(root.rglob("*.py"))
    }


def oversized(root: Path = SRC, allowed: frozenset[str] | set[str] = frozenset()) -> dict:
    """Modules under ``root`` over :data:`MAX_MODULE_LINES` lines that ``allowed`` does not
    name, with their lengths."""
    return {
        path: n
        for path, n in module_lengths(root).items()
        if n > MAX_MODULE_LINES and path not in allowed
    }


def test_no_module_is_over_the_size_limit():
    offenders = oversized()
    assert not offenders, (
        f"modules over {MAX_MODULE_LINES} lines hold more than one concern; split them into "
        f"modules of one concern each (a package re-exporting the old names): {offenders}"
    )


def test_the_size_scan_finds_a_long_module(tmp_path):
    pkg = tmp_path / "nbayes"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "short.py").write_text("x = 1\n" * MAX_MODULE_LINES)
    (pkg / "sub" / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    (pkg / "kernels.pyx").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    assert oversized(pkg) == {"sub/long.py": MAX_MODULE_LINES + 1}
    assert oversized(pkg, {"sub/long.py"}) == {}


# -- consumers ask for capabilities, never for a class -------------------------------------------
#: Roots of the estimator classes: a class of nbayes/estimators that derives from one of these
#: (or from such a class) is a concrete nbayes estimator.
ESTIMATOR_ROOTS = {"BaseEstimator", "ClassifierMixin", "EstimatorProtocol"}


def estimator_classes(root: Path = SRC) -> dict[str, str]:
    """Estimator class name -> the module (path under ``root``) that defines it."""
    bases: dict[str, tuple[str, set[str]]] = {}
    for path in sorted((root / "estimators").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                names = {
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                }
                bases[node.name] = (path.relative_to(root).as_posix(), names)
    found: dict[str, str] = {}
    changed = True
    while changed:  # a fixpoint over the class hierarchy: bounded by the classes
        changed = False
        for name, (module, parents) in bases.items():
            if name not in found and parents & (ESTIMATOR_ROOTS | set(found)):
                found[name] = module
                changed = True
    return found


def _names_in(node: ast.AST) -> list[str]:
    """Class names in the second argument of isinstance: a name, an attribute, or a tuple."""
    if isinstance(node, ast.Tuple):
        return [n for elt in node.elts for n in _names_in(elt)]
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    return []


def _is_type_name(node: ast.AST) -> bool:
    """``type(x).__name__`` or ``x.__class__.__name__``."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "__name__"
        and (
            (isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "type")
            or (isinstance(node.value, ast.Attribute) and node.value.attr == "__class__")
        )
    )


def _strings_in(node: ast.AST) -> list[str] | None:
    """The str constants of a constant or a tuple/list/set of them; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        parts = [_strings_in(elt) for elt in node.elts]
        return None if any(p is None for p in parts) else [s for p in parts for s in p or []]
    return None


def class_switches(root: Path = SRC) -> list[str]:
    """``path:line what`` of every switch on a concrete estimator class outside its module:
    ``isinstance`` / ``issubclass`` against it, ``type(x) is`` it, and comparisons of a class
    name (``type(x).__name__`` against an estimator's name or in a set of names not written
    out, or any value against a string that is an estimator's name). Equality of a class
    name with a name read from elsewhere (a model file's record) is a check, not a switch."""
    classes = estimator_classes(root)
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            hits: list[str] = []
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", "") in ("isinstance", "issubclass")
                and len(node.args) == 2
            ):
                hits = [n for n in _names_in(node.args[1]) if n in classes]
            elif isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                names = [s for side in sides if (s := _strings_in(side)) is not None]
                strings = [n for group in names for n in group]
                hits = [n for n in strings if n in classes]
                membership = any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops)
                if membership and any(_is_type_name(s) for s in sides) and len(names) < 1:
                    hits.append("type(...).__name__ against names not written out")
                if any(
                    isinstance(s, ast.Call) and getattr(s.func, "id", "") == "type" for s in sides
                ):
                    hits += [n for s in sides for n in _names_in(s) if n in classes]
            found += [f"{rel}:{node.lineno} {hit}" for hit in hits if classes.get(hit, None) != rel]
    return found


#: Switches that stay, each with its reason. None today.
ALLOWED_SWITCHES: dict[str, str] = {}


def test_consumers_ask_for_capabilities_not_classes():
    classes = estimator_classes()
    assert {"BaseNB", "MultinomialNB", "TextNB", "SemiSupervisedNB", "JointBayes"} <= set(classes)
    offenders = [s for s in class_switches() if s.split(" ", 1)[0] not in ALLOWED_SWITCHES]
    assert not offenders, (
        "switches on a concrete estimator class or its name outside its module; declare a "
        f"capability (nbayes.base) and ask supports(model, ...) instead: {offenders}"
    )


def test_the_switch_scan_finds_isinstance_and_name_comparisons(tmp_path):
    pkg = tmp_path / "nbayes"
    (pkg / "estimators").mkdir(parents=True)
    (pkg / "estimators" / "text.py").write_text(
        "class TextNB(BaseEstimator):\n"
        "    def f(self, x):\n"
        "        return isinstance(x, TextNB)\n"  # its own module: allowed
    )
    (pkg / "estimators" / "presets.py").write_text("class MultinomialNB(TextNB):\n    pass\n")
    (pkg / "cli.py").write_text(
        "def f(m, names):\n"
        "    a = isinstance(m, (int, TextNB))\n"
        "    b = type(m).__name__ in ('MultinomialNB', 'Other')\n"
        "    c = type(m).__name__ not in names\n"
        "    d = m == 'TextNB'\n"
        "    e = type(m).__name__ == 'HashingVectorizer'\n"  # not ours
        "    g = type(m) is MultinomialNB\n"
        "    h = type(m).__name__ == stored['estimator']\n"  # a record checked: allowed
    )
    assert class_switches(pkg) == [
        "cli.py:2 TextNB",
        "cli.py:3 MultinomialNB",
        "cli.py:4 type(...).__name__ against names not written out",
        "cli.py:5 TextNB",
        "cli.py:7 MultinomialNB",
    ]
