"""Start-up: what ``import nbayes`` and each command import, and Ctrl-C while they import.

Every check runs a fresh interpreter (``sys.modules`` of this one holds everything the suite
imported). Times are not tested here; ``python -m benchmarks.startup`` measures them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from nbayes.cli import COMMAND_HELP, COMMANDS

#: Libraries that nbayes loads only when a feature needs them.
OPTIONAL = (
    "sklearn.model_selection",
    "sklearn.metrics",
    "sklearn.feature_extraction",
    "dask",
    "distributed",
    "matplotlib",
    "nbayes.model_selection",
    "nbayes.dask",
    "nbayes.plot",
)
NUMERICAL = ("numpy", "scipy", "pandas", "sklearn", "pyarrow", "joblib", "threadpoolctl")

#: Prints, as JSON, the modules that running ``CODE`` loaded beyond those loaded first by
#: ``BEFORE`` (both given as arguments), without the package's own.
LOADED = """
import json, sys
exec(sys.argv[1])
before = set(sys.modules)
exec(sys.argv[2])
new = sorted(m for m in set(sys.modules) - before if not m.startswith("nbayes"))
print(json.dumps({"new": new, "all": sorted(sys.modules)}), file=sys.stderr)
"""


def loaded(code: str, before: str = "pass", cwd=None) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", LOADED, before, code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stderr.strip().splitlines()[-1])


def tops(modules) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_importing_nbayes_imports_no_numerical_library():
    found = loaded("import nbayes")
    assert not tops(found["all"]) & set(NUMERICAL)
    assert not set(found["all"]) & set(OPTIONAL)


def test_a_fit_imports_numpy_pandas_scikit_learns_base_and_the_estimators_only():
    # What a fit needs beyond numpy, pandas and sklearn.base (which import scipy.stats and
    # pyarrow themselves): the estimators, and scikit-learn's label checks.
    code = (
        "import nbayes, numpy as np; nbayes.MultinomialNB().fit(np.eye(3), [0, 1, 1]); "
        "nbayes.GaussianNB().fit(np.eye(3), [0, 1, 1]); nbayes.TextNB"
    )
    found = loaded(code, before="import numpy, pandas, sklearn.base, scipy.sparse")
    assert not set(found["all"]) & set(OPTIONAL), set(found["all"]) & set(OPTIONAL)
    beyond = {m for m in found["new"] if not m.startswith("sklearn.utils.")}
    assert not tops(beyond) & set(NUMERICAL), beyond


def test_public_names_still_import_and_list():
    import nbayes

    for name in nbayes.__all__:
        assert getattr(nbayes, name) is not None, name
    assert set(nbayes.__all__) <= set(dir(nbayes))
    with pytest.raises(ImportError, match="GridSearchCV"):  # a name nbayes never had
        from nbayes import GridSearchCV  # noqa: F401


def test_the_lazy_table_the_type_checking_imports_and_all_agree():
    import ast
    from pathlib import Path

    import nbayes

    source = Path(nbayes.__file__).read_text()
    checked = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for imp in node.body:
                checked.update(alias.asname or alias.name for alias in imp.names)
    assert set(nbayes._LAZY) | {"base", "model_selection"} == checked  # public submodules
    assert checked | {"__version__"} == set(nbayes.__all__)


@pytest.mark.parametrize("argv", [["--version"], ["--help"], [], ["misspelt"]])
def test_help_and_version_import_no_numerical_library(argv):
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['nbayes', *{argv!r}]\n"
        "try:\n"
        "    runpy.run_module('nbayes', run_name='__main__', alter_sys=True)\n"
        "except SystemExit:\n"
        "    pass\n"
    )
    found = loaded(code)
    assert not tops(found["all"]) & set(NUMERICAL), tops(found["all"]) & set(NUMERICAL)


def test_version_says_which_loops_run_without_loading_them():
    from nbayes._accel import describe

    proc = subprocess.run(
        [sys.executable, "-m", "nbayes", "--version"], capture_output=True, text=True, check=True
    )
    assert proc.stdout.strip().endswith(f"({describe()})")  # the loaded loops' own answer


def test_the_help_lists_each_commands_own_help():
    from importlib import import_module

    assert tuple(COMMAND_HELP) == COMMANDS
    for name in COMMANDS:
        assert import_module(f"nbayes.cli.{name}").HELP == COMMAND_HELP[name], name


def test_predict_imports_the_estimator_not_model_selection_or_text(tmp_path):
    data = tmp_path / "small.csv"
    data.write_text("size,colour,fruit\n3,red,apple\n5,green,pear\n4,red,apple\n6,green,pear\n")
    model = tmp_path / "small.nbayes"
    fit = f"from nbayes.cli import main; main(['train', {str(data)!r}, '-t', 'fruit', "
    fit += f"'-o', {str(model)!r}, '-q'])"
    subprocess.run([sys.executable, "-c", fit], check=True, timeout=120)
    found = loaded(
        f"from nbayes.cli import main; main(['predict', {str(model)!r}, {str(data)!r}])",
        before="import numpy, pandas, sklearn.base, scipy.sparse",
    )
    assert not set(found["all"]) & set(OPTIONAL), set(found["all"]) & set(OPTIONAL)
    assert "nbayes.cli.train" not in found["all"] and "nbayes.cli.report" not in found["all"]


#: Runs ``python -m nbayes ARGS`` in this interpreter with Ctrl-C pressed (SIGINT sent to the
#: process itself) at the moment module ``argv[1]`` starts to be imported.
INTERRUPTED_IMPORT = """
import importlib.abc, os, runpy, signal, sys, time

target = sys.argv[1]


class Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target_module=None):
        if name == target:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler raises before this ends
            sys.exit("the interrupt did not stop the command")
        return None


sys.meta_path.insert(0, Interrupt())
sys.argv = ["nbayes", *sys.argv[2:]]
runpy.run_module("nbayes", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize(
    ("module", "command"),
    [
        ("nbayes.cli.train", "train"),  # the command's own module
        ("numpy", "train"),  # the first numerical library
        ("pandas", "predict"),
        ("sklearn.base", "train"),
        ("nbayes.estimators.presets", "train"),
        ("scipy.sparse", "evaluate"),
    ],
)
def test_ctrl_c_while_a_command_imports_exits_130_with_one_line(tmp_path, module, command):
    data = tmp_path / "small.csv"
    data.write_text("size,fruit\n3,apple\n5,pear\n")
    argv = {
        "train": ["train", data, "-t", "fruit", "-o", tmp_path / "m.nbayes"],
        "predict": ["predict", tmp_path / "m.nbayes", data],
        "evaluate": ["evaluate", tmp_path / "m.nbayes", data],
    }[command]
    proc = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IMPORT, module, *map(str, argv)],
        capture_output=True,
        timeout=120,
    )
    assert (proc.returncode, proc.stderr) == (130, b"nbayes: interrupted\n")
    assert not (tmp_path / "m.nbayes").exists()
