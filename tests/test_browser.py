"""The documentation and two reports, opened in headless Chromium as a person would open them:
no console error, no failed load, every image decoded, every expected figure there.

Screenshots are saved to ``$NBAYES_SCREENSHOTS`` (default: ``screenshots/`` under pytest's
temporary folder) for a person to look at. Without Chromium these tests are skipped, except
under CI=true, where .ci/run installs it and its absence is a failure.
"""

import os
from pathlib import Path

import pytest
from _browser import chromium, open_page
from conftest import require_tool

pytestmark = pytest.mark.xdist_group("reports")


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    require_tool(chromium() is not None, "chromium not installed (apt-get install chromium)")
    folder = os.environ.get("NBAYES_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def check(url: str, screenshot: Path, min_images: int = 0):
    page = open_page(url, screenshot)
    assert page.errors == [], f"{url}: {page.errors}"
    assert page.broken_images == [], f"{url}: images that did not load {page.broken_images}"
    assert len(page.images) >= min_images, f"{url}: {len(page.images)} images"
    assert screenshot.stat().st_size > 10_000  # a picture, not a blank page
    return page


def test_docs_index_api_and_gallery_pages_open_cleanly(docs_site, shots):
    html = docs_site / "html"
    index = check((html / "index.html").as_uri(), shots / "docs-index.png")
    assert index.title.startswith("nbayes")
    check((html / "api.html").as_uri(), shots / "docs-api.png")
    page = check(
        (html / "generated" / "nbayes.MixedNB.html").as_uri(), shots / "docs-api-mixednb.png"
    )
    assert page.title.startswith("nbayes.MixedNB")
    check(
        (html / "generated" / "nbayes.plot.ClassConditionalDisplay.html").as_uri(),
        shots / "docs-api-classconditionaldisplay.png",
    )
    gallery = check((html / "auto_examples" / "index.html").as_uri(), shots / "docs-gallery.png")
    assert len(gallery.images) >= 12  # a thumbnail per example
    check(
        (html / "auto_examples" / "plot_adult_displays.html").as_uri(),
        shots / "docs-example-adult.png",
        min_images=3,
    )


@pytest.mark.parametrize(
    "example",
    ["densities", "em_labels", "seminaive", "grid_search", "calibration", "onnx"],
)
def test_the_new_gallery_pages_show_their_figures(docs_site, shots, example):
    url = (docs_site / "html" / "auto_examples" / f"plot_{example}.html").as_uri()
    page = check(url, shots / f"docs-example-{example}.png", min_images=1)
    drawn = [i for i in page.images if f"sphx_glr_plot_{example}_001" in i["src"]]
    assert drawn and all(i["width"] > 300 and i["shown"] > 300 for i in drawn)


def test_sms_demo_report_opens_with_every_figure_drawn(sms_report_file, shots):
    path, result = sms_report_file
    page = check(path.as_uri(), shots / "report-sms.png", min_images=result["figures"])
    assert len(page.images) == result["figures"] == 6
    assert all(image["shown"] > 100 for image in page.images)


def test_adult_report_opens_with_every_figure_drawn(adult_report_file, shots):
    path, result = adult_report_file
    page = check(path.as_uri(), shots / "report-adult.png", min_images=result["figures"])
    assert len(page.images) == result["figures"] == 19
    assert all(image["shown"] > 100 for image in page.images)


def test_adult_tan_report_opens_with_its_structure_drawn(adult_tan_report_file, shots):
    path, result = adult_tan_report_file
    page = check(path.as_uri(), shots / "report-adult-tan.png", min_images=result["figures"])
    assert len(page.images) == result["figures"] == 5  # structure, evidence, three of scores
    assert all(image["shown"] > 100 for image in page.images)
    assert page.images[0]["width"] > 600  # the learned tree over Adult's 14 columns


def test_the_checks_catch_a_broken_image_a_console_error_and_a_missing_page(tmp_path, shots):
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!DOCTYPE html><html><head><link rel="icon" href="data:,"><title>bad</title></head>'
        '<body><img src="missing.png" alt="x"><script>console.error("boom")</script></body></html>'
    )
    page = open_page(bad.as_uri(), shots / "bad.png")
    assert "console.error: boom" in page.errors
    assert any("missing.png" in e for e in page.errors)  # the failed load, from the log
    assert [i["src"].rsplit("/", 1)[-1] for i in page.broken_images] == ["missing.png"]
    gone = open_page((tmp_path / "nowhere.html").as_uri(), shots / "nowhere.png")
    assert gone.errors == ["navigation: net::ERR_FILE_NOT_FOUND"]
