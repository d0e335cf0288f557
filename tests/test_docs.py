"""The documentation: the user guide's examples run, and the Sphinx site builds with warnings as
errors, with a reference page for every public name and every gallery example drawn."""

import doctest
import importlib
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted([*DOCS.glob("*.rst"), *(DOCS / "user_guide").glob("*.rst")])
GALLERY = sorted((DOCS.parent / "examples" / "gallery").glob("plot_*.py"))


@pytest.mark.parametrize("page", [p for p in PAGES if p.name != "api.rst"], ids=lambda p: p.name)
def test_user_guide_examples_run(page, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    result = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"


def test_every_user_guide_page_is_in_the_toctree():
    index = (DOCS / "user_guide" / "index.rst").read_text()
    for page in (DOCS / "user_guide").glob("*.rst"):
        if page.name != "index.rst":
            assert f"\n   {page.stem}\n" in index, page.name


def test_the_api_reference_lists_every_name_of_every_public_all():
    import sys

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        nbayes_api = importlib.import_module("nbayes_api")
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    text = nbayes_api.api_rst()
    import types

    import nbayes

    for name in nbayes.__all__:
        if isinstance(getattr(nbayes, name), types.ModuleType):  # a section of its own
            assert f".. automodule:: nbayes.{name}\n" in text, name
        elif not name.startswith("_"):
            assert f"\n   {name}\n" in text, name
    assert "\n   ClassConditionalDisplay\n" in text and ".. currentmodule:: nbayes.plot" in text


@pytest.mark.xdist_group("reports")
def test_the_site_builds_with_warnings_as_errors(docs_site):
    html = docs_site / "html"
    import types

    import nbayes

    for name in nbayes.__all__:
        if not name.startswith("_") and not isinstance(getattr(nbayes, name), types.ModuleType):
            assert (html / "generated" / f"nbayes.{name}.html").is_file(), name
    for example in GALLERY:
        page = (html / "auto_examples" / f"{example.stem}.html").read_text()
        assert f"sphx_glr_{example.stem}_001.png" in page, f"{example.name} drew no figure"
    guide = (html / "user_guide" / "plotting.html").read_text()
    assert 'href="../generated/nbayes.plot.ClassConditionalDisplay.html' in guide
