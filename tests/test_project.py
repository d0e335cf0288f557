"""Project habits that CI enforces: one version, a formatter- and linter-clean tree, a
type-checked package."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nbayes
from nbayes.cli import main
from nbayes.io import read_manifest

ROOT = Path(__file__).resolve().parents[1]
CODE = ["src", "tests", "benchmarks", "examples"]


def test_the_version_is_defined_once(capsys, tmp_path):
    version = nbayes.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?\w+)?", version)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^dynamic = \["version"\]', pyproject, re.MULTILINE)
    assert 'version = { attr = "nbayes._version.__version__" }' in pyproject
    # The installed metadata, the command and model files all say the same.
    assert importlib.metadata.version("nbayes") == version
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith(f"nbayes {version} ")
    model = nbayes.GaussianNB().fit(np.array([[0.0], [1.0]]), [0, 1])
    assert read_manifest(nbayes.save(model, tmp_path / "m.nbayes"))["nbayes_version"] == version
    # Nothing else writes the number down.
    quoted = re.compile(rf"""["']{re.escape(version)}["']""")
    sources = [ROOT / "setup.py", ROOT / "pyproject.toml"]
    for folder in ("src", "benchmarks", "examples"):
        sources += (ROOT / folder).rglob("*.py")
    elsewhere = [
        str(p.relative_to(ROOT))
        for p in sources
        if p.name != "_version.py" and quoted.search(p.read_text(encoding="utf-8"))
    ]
    assert not elsewhere


def ruff(*args: str) -> subprocess.CompletedProcess:
    if shutil.which("ruff") is None and importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *CODE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_ruff_check_is_clean():
    done = ruff("check", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean():
    done = ruff("format", "--check", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_is_clean():
    # The settings are pyproject's [tool.mypy]: the package under src/nbayes.
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    done = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_coverage_floor_names_the_modules_under_it(tmp_path, capsys):
    import json

    from coverage_floor import FLOOR, UNTRUSTED_INPUT
    from coverage_floor import main as floor

    def summary(covered, total):
        return {"summary": {"covered_branches": covered, "num_branches": total}}

    files = {f"src/nbayes/{m}": summary(100, 100) for m in UNTRUSTED_INPUT}
    report = tmp_path / "coverage.json"
    report.write_text(json.dumps({"files": files}))
    assert floor([str(report)]) == 0
    files["src/nbayes/cli/_tables/_table.py"] = summary(92, 100)
    del files["src/nbayes/io/_plain.py"]
    report.write_text(json.dumps({"files": files}))
    assert floor([str(report)]) == 1
    out, err = capsys.readouterr()
    assert "cli/_tables/_table.py         92.0 %   < floor" in out
    assert "io/_plain.py                 not measured" in out
    assert err == f"coverage_floor: under {FLOOR:.0f} %: io/_plain.py, cli/_tables/_table.py\n"
    assert floor([str(tmp_path / "absent.json")]) == 1
    assert "run the tests with `--cov --cov-report=json` first" in capsys.readouterr().err
