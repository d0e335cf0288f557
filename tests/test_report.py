"""`nbayes report`: one self-contained HTML file with the model, its plots and its scores."""

import base64
import io
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.cli import main
from nbayes.cli._common import UsageError
from nbayes.cli.evaluate import evaluate
from nbayes.cli.report import MAX_FEATURES, report
from nbayes.cli.train import train

pytest.importorskip("matplotlib")
from PIL import Image

IMAGE = re.compile(r'<img alt="([^"]*)" src="data:image/png;base64,([^"]+)">')


def images(page: str) -> dict[str, tuple[int, int]]:
    """alt text -> (width, height) of every inline PNG (each one decodes as an image)."""
    out = {}
    for alt, data in IMAGE.findall(page):
        with Image.open(io.BytesIO(base64.b64decode(data))) as im:
            assert im.format == "PNG"
            out[alt] = im.size
    return out


def self_contained(page: str) -> None:
    """No script, and nothing loaded from anywhere: every src/href is inline or an anchor."""
    assert "<script" not in page
    for ref in re.findall(r'(?:src|href)="([^"]*)"', page):
        assert ref.startswith(("data:", "#")), ref


@pytest.fixture
def mixed_csv(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    y = rng.choice(["yes", "no"], n, p=[0.3, 0.7])
    frame = pd.DataFrame(
        {
            "colour": np.where(y == "yes", rng.choice(["red", "blue"], n), "green"),
            "height": rng.normal(np.where(y == "yes", 180, 165), 8).round(1),
            "visits": rng.poisson(np.where(y == "yes", 4, 1)),
            "bought": y,
        }
    )
    path = tmp_path / "shop.csv"
    frame.to_csv(path, index=False)
    model = tmp_path / "shop.nbayes"
    train(str(path), "bought", str(model), model="mixed")
    return model, path


def test_report_with_data_holds_summary_plots_and_metrics(mixed_csv, tmp_path):
    model, data = mixed_csv
    out = tmp_path / "report.html"
    result = report(str(model), str(data), str(out))
    page = out.read_text()
    assert result["sections"] == ["summary", "features", "evidence", "distributions", "evaluation"]
    assert result["bytes"] == len(page.encode())
    self_contained(page)
    drawn = images(page)
    assert set(drawn) == {
        "top features per class",
        "share of the evidence per feature",
        "distribution of colour",
        "distribution of height",
        "distribution of visits",
        "confusion matrix",
        "precision and recall against the threshold",
        "reliability curve",
    }
    assert result["figures"] == len(drawn) == 8
    assert all(w > 100 and h > 100 for w, h in drawn.values())
    # the summary: classes with their priors, every column with its family, the smoothing
    assert "<td>MixedNB (mixed)</td>" in page
    assert re.search(r"<td>no</td><td class=\"num\">2\d\d</td>", page)
    for column in ("colour", "height", "visits"):
        assert f"<td>{column}</td>" in page
    assert "alpha=1.0, estimate=posterior_mean" in page
    # the metrics are those of `nbayes evaluate`
    scores = evaluate(str(model), str(data))
    assert f'<td>accuracy</td><td class="num">{scores["accuracy"]:.4g}</td>' in page
    assert f'<td>log-loss</td><td class="num">{scores["log_loss"]:.4g}</td>' in page


def test_report_without_data_describes_the_model_only(mixed_csv, tmp_path):
    model, _ = mixed_csv
    out = tmp_path / "model.html"
    result = report(str(model), None, str(out))
    page = out.read_text()
    assert result["sections"] == ["summary", "features", "distributions"]
    assert "confusion matrix" not in images(page) and len(images(page)) == 4
    self_contained(page)


def test_several_classes_say_why_threshold_plots_are_missing(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(size=300), "y": rng.choice(["a", "b", "c"], 300)})
    frame.to_csv(tmp_path / "three.csv", index=False)
    train(str(tmp_path / "three.csv"), "y", str(tmp_path / "three.nbayes"))
    report(str(tmp_path / "three.nbayes"), str(tmp_path / "three.csv"), str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text()
    assert "threshold and reliability plots are drawn for two-class models" in page
    assert "confusion matrix" in images(page)
    assert "reliability curve" not in images(page)


def test_a_100k_word_model_stays_small_and_readable(tmp_path):
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(100_000)])
    docs = [" ".join(words[rng.integers(0, 100_000, 40)]) for _ in range(3000)]
    docs.append(" ".join(words))  # every word once
    model = nbayes.TextNB().fit(docs, [*rng.choice(["a", "b"], 3000), "a"])
    path = tmp_path / "big.nbayes"
    nbayes.save(model, path)
    result = report(str(path), None, str(tmp_path / "big.html"))
    page = (tmp_path / "big.html").read_text()
    assert result["bytes"] < 1_000_000
    assert f"{MAX_FEATURES} of 100,000 features drawn, the top-weighted first." in page
    assert set(images(page)) == {
        "top features per class",
        "class-conditional shares of the top features",
    }


def test_models_without_per_feature_terms_say_so(tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(["p", "q"], 100), "b": rng.choice(["r", "s"], 100)})
    nbayes.save(nbayes.TAN().fit(X, rng.choice([0, 1], 100)), tmp_path / "tan.nbayes")
    report(str(tmp_path / "tan.nbayes"), None, str(tmp_path / "tan.html"))
    page = (tmp_path / "tan.html").read_text()
    assert "TAN is not linear: no per-feature weights." in page
    assert "Not drawn (a, b): TAN does not model its columns one at a time" in page
    assert set(images(page)) == {"learned structure"}


def test_a_text_column_of_a_mixed_model_is_named_with_the_reason(tmp_path):
    X = pd.DataFrame({"title": ["red car", "blue bike", "old car", "new bike"] * 10})
    X["n"] = np.arange(40.0)
    model = nbayes.MixedNB(columns=[("text", ["title"])]).fit(X, ["a", "b"] * 20)
    nbayes.save(model, tmp_path / "m.nbayes")
    report(str(tmp_path / "m.nbayes"), None, str(tmp_path / "m.html"))
    page = (tmp_path / "m.html").read_text()
    assert "Not drawn (title): Column &#x27;title&#x27; is read as words" in page
    assert "distribution of n" in images(page)


def test_report_command_writes_the_file_and_refuses_to_overwrite_its_input(
    mixed_csv, tmp_path, capsys
):
    model, data = mixed_csv
    out = tmp_path / "r.html"
    assert main(["report", str(model), str(data), "-o", str(out), "-q"]) == 0
    assert re.fullmatch(r"\S+r\.html: [\d,]+ bytes, 8 figures\n", capsys.readouterr().out)
    with pytest.raises(UsageError, match=r"-o .* is DATA .*which this command reads"):
        report(str(model), str(data), str(data))
    assert main(["report", str(model), "-o", str(model)]) == 2
    assert "is MODEL" in capsys.readouterr().err
    assert main(["report", str(model), "--top", "0", "-o", str(out)]) == 2


def test_report_without_matplotlib_gives_the_install_hint(mixed_csv, tmp_path):
    model, _ = mixed_csv
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from nbayes.cli import main\n"
        f"sys.exit(main(['report', {str(model)!r}, '-o', {str(tmp_path / 'x.html')!r}]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 1
    assert 'pip install "nbayes[plot]"' in out.stderr
    assert not (tmp_path / "x.html").exists()


# -- the two real models -----------------------------------------------------------------
@pytest.mark.xdist_group("reports")
def test_sms_demo_model_report(sms_report_file):
    out, _ = sms_report_file
    page = out.read_text()
    self_contained(page)
    assert set(images(page)) == {
        "top features per class",
        "share of the evidence per feature",
        "class-conditional shares of the top features",
        "confusion matrix",
        "precision and recall against the threshold",
        "reliability curve",
    }
    assert '<td>accuracy</td><td class="num">0.9842</td>' in page  # as `nbayes demo` prints
    assert "<td>CountVectorizer, 7,431 words</td>" in page


@pytest.mark.xdist_group("reports")
def test_adult_mixed_nb_report(adult_report_file):
    out, result = adult_report_file
    page = out.read_text()
    self_contained(page)
    drawn = images(page)
    # top features, share of the evidence, every column, scores
    assert len(drawn) == result["figures"] == 1 + 1 + 14 + 3
    assert '<td>accuracy</td><td class="num">0.8391</td>' in page  # user guide, mixed.rst
    assert result["bytes"] < 3_000_000
