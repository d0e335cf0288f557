"""``nbayes predict --interval`` and the report's table of credible intervals."""

import numpy as np
import pandas as pd
import pytest

from nbayes import TextNB
from nbayes.cli import main
from nbayes.io import load


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 80
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "height": rng.normal(y, 1.0),
            "colour": np.array(["red", "green", "blue"])[rng.integers(0, 3, n)],
            "label": np.array(["no", "yes"])[y],
        }
    )
    path = tmp_path_factory.mktemp("interval") / "data.csv"
    frame.to_csv(path, index=False)
    return path


def test_predict_interval_writes_the_model_bounds(capsys, table, tmp_path):
    model, out = tmp_path / "m.nbayes", tmp_path / "out.csv"
    assert run(capsys, "train", table, "-t", "label", "-o", model, "-q")[0] == 0
    status, _, err = run(
        capsys, "predict", model, table, "--proba", "--interval", "0.8",
        "--interval-draws", "300", "-o", out, "-q",
    )  # fmt: skip
    assert status == 0, err
    written = pd.read_csv(out)
    assert list(written.columns) == [
        "prediction", "proba_no", "proba_yes",
        "proba_no_lower", "proba_no_upper", "proba_yes_lower", "proba_yes_upper",
    ]  # fmt: skip
    est = load(model)
    frame = pd.read_csv(table).drop(columns="label")
    lower, upper = est.predict_proba_interval(frame, 0.8, 300, random_state=0)
    np.testing.assert_allclose(written[["proba_no_lower", "proba_yes_lower"]], lower)
    np.testing.assert_allclose(written[["proba_no_upper", "proba_yes_upper"]], upper)


def test_predict_interval_refuses_a_model_without_posterior(capsys, table, tmp_path):
    model = tmp_path / "kde.nbayes"
    run(capsys, "train", table, "-t", "label", "-o", model, "--continuous", "kde", "-q")
    status, out, err = run(capsys, "predict", model, table, "--interval", "0.9")
    assert status == 2 and out == ""
    assert "kde columns have no conjugate posterior" in err and "'gaussian'" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--interval", "1.2"], "between 0 and 1"),
        (["--interval", "0.9", "--interval-draws", "1"], "at least 2"),
        (["--interval", "0.9", "--keep", "proba_no_lower"], "own column"),
        (["--interval-draws", "50"], "add --interval LEVEL"),
    ],
)
def test_predict_interval_usage_errors(capsys, table, tmp_path, args, message):
    model = tmp_path / "m.nbayes"
    run(capsys, "train", table, "-t", "label", "-o", model, "-q")
    status, _, err = run(capsys, "predict", model, table, *args)
    assert status == 2 and message in err, err


def test_report_shows_intervals_for_a_sample_of_rows(capsys, table, tmp_path):
    pytest.importorskip("matplotlib")
    model, page = tmp_path / "m.nbayes", tmp_path / "r.html"
    run(capsys, "train", table, "-t", "label", "-o", model, "-q")
    assert run(capsys, "report", model, table, "-o", page)[0] == 0
    html = page.read_text()
    assert "<h3>How sure</h3>" in html and "90% credible interval" in html
    assert html.count("<tr>", html.index("How sure")) == 1 + 12  # header and the sample


def test_text_model_gives_intervals():
    texts = ["win cash now", "cheap cash prize", "lunch at noon", "see you at lunch"] * 3
    model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"] * 3)
    lower, upper = model.predict_proba_interval(["cash prize", "lunch"], random_state=0)
    proba = model.predict_proba(["cash prize", "lunch"])
    assert np.all((lower <= proba) & (proba <= upper))
