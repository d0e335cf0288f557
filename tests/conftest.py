"""Shared fixtures: real datasets from ../shared/data (skip or fail by NBAYES_REQUIRE_DATA)."""

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests with a fixed seed so that a run is reproducible; locally they
# explore new examples each time.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")


def _find_data_dir() -> Path:
    """``$NBAYES_DATA_DIR``, else ``shared/data`` beside the checkout or beside one of its
    parents (a git worktree under ``wt/<name>`` finds the same ``../shared/data`` as main)."""
    if os.environ.get("NBAYES_DATA_DIR"):
        return Path(os.environ["NBAYES_DATA_DIR"])
    root = Path(__file__).resolve().parents[1]
    for parent in root.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return root.parent / "shared" / "data"


DATA_DIR = _find_data_dir()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder of the real datasets; skip when absent, fail in CI (NBAYES_REQUIRE_DATA=1)."""
    if DATA_DIR.is_dir():
        return DATA_DIR
    reason = f"real datasets not found at {DATA_DIR} (see ../shared/data/README.md)"
    if os.environ.get("NBAYES_REQUIRE_DATA") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def dask_client():
    """One Dask cluster of two worker processes for the whole session. Tests that use it carry
    ``pytest.mark.xdist_group("dask-cluster")``, so one xdist worker runs them all and the
    suite starts one cluster, not one per xdist worker."""
    import logging

    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            worker_dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(lambda: __import__("nbayes.dask"))  # workers import once, up front
        yield client


# The reports of the two real models (SMS demo, Adult MixedNB), built once per
# session: test_report.py checks their content, test_browser.py opens them in Chromium. Tests
# that use them carry ``pytest.mark.xdist_group("reports")``, so one xdist worker builds them.
@pytest.fixture(scope="session")
def sms_report_file(tmp_path_factory):
    from _reports import sms_report

    return sms_report(tmp_path_factory.mktemp("sms-report"))


@pytest.fixture(scope="session")
def adult_report_file(tmp_path_factory, shared_data):
    from _reports import adult_report

    return adult_report(tmp_path_factory.mktemp("adult-report"), shared_data)


@pytest.fixture(scope="session")
def adult_tan_report_file(tmp_path_factory, shared_data):
    from _reports import adult_tan_report

    return adult_tan_report(tmp_path_factory.mktemp("adult-tan-report"), shared_data)


def require_tool(available: bool, reason: str) -> None:
    """Skip a test whose tool (Sphinx, Chromium) is missing here; in CI (CI=true, where
    .ci/run installs them) fail instead, so that the check never silently stops running."""
    if available:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI installs it: see .ci/run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory, shared_data):
    """The Sphinx site built once with warnings as errors, gallery included: the folder
    holding ``html/``. Tests that use it carry ``pytest.mark.xdist_group("reports")``."""
    import importlib.util
    import io
    from contextlib import redirect_stderr, redirect_stdout

    missing = [
        m
        for m in ("sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme", "matplotlib")
        if importlib.util.find_spec(m) is None
    ]
    require_tool(not missing, f'{", ".join(missing)} not installed: pip install -e ".[docs]"')
    from sphinx.cmd.build import build_main

    out = tmp_path_factory.mktemp("docs")
    docs = Path(__file__).resolve().parents[1] / "docs"
    log = io.StringIO()
    os.environ.setdefault("NBAYES_DATA_DIR", str(shared_data))  # the gallery's UCI Adult
    with redirect_stdout(log), redirect_stderr(log):
        status = build_main(
            [
                "-W",
                "--keep-going",
                "-q",
                "-b",
                "html",
                "-d",
                str(out / "doctrees"),
                str(docs),
                str(out / "html"),
            ]
        )
    assert status == 0, f"sphinx-build -W failed:\n{log.getvalue()[-5000:]}"
    return out
