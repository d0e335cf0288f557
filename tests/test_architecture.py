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
    *sorted((SRC / "io").glob("*.py")),
    SRC / "estimators" / "_merge.py",
    SRC / "estimators" / "_explain.py",
    *sorted((SRC / "cli").glob("*.py")),
    *sorted((SRC / "plot").glob("*.py")),
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
#: splitmix64's constants).
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
