"""The grid families from the command line: ``--model density`` and ``--continuous``."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from nbayes import DensityNB, MixedNB, load
from nbayes.cli import main
from nbayes.cli._models import Settings
from nbayes.cli.train import train


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    n = 600
    y = rng.choice(["ham", "spam"], n)
    spam = y == "spam"
    df = pd.DataFrame(
        {
            "caps": np.where(rng.uniform(size=n) < 0.6, 0.0, rng.exponential(np.where(spam, 5, 1))),
            "length": rng.lognormal(np.where(spam, 3.0, 4.0), 0.5),
            "hour": rng.integers(0, 24, n),
            "sender": rng.choice(["a", "b", "c"], n),
            "label": y,
        }
    )
    path = tmp_path / "mail.csv"
    df.to_csv(path, index=False)
    return path, df


def test_model_density_trains_densitynb_and_predicts(capsys, table, tmp_path):
    _, df = table
    numeric = tmp_path / "numeric.csv"
    df.drop(columns="sender").to_csv(numeric, index=False)
    out = tmp_path / "m.nbayes"
    status, _, err = run(
        capsys, "train", numeric, "--target", "label", "-o", out, "--model", "density",
        "--continuous", "binned",
    )  # fmt: skip
    assert status == 0, err
    model = load(out)
    assert isinstance(model, DensityNB) and model.density == "binned"
    X = df[["caps", "length", "hour"]].astype(float)
    want = DensityNB(density="binned").fit(X, df["label"]).predict_proba(X)
    np.testing.assert_allclose(model.predict_proba(X), want, rtol=1e-10)
    status, text, err = run(capsys, "predict", out, numeric)
    assert status == 0, err
    assert text.splitlines()[1:3] == list(model.predict(X[:2]))


def test_continuous_sets_the_family_of_the_numeric_columns_of_the_mixed_model(table, tmp_path):
    path, _ = table
    result = train(
        str(path), "label", str(tmp_path / "m.nbayes"), settings=Settings(continuous="kde")
    )
    model = load(result.output)
    assert isinstance(model, MixedNB)
    # "hour" has 24 values in 600 rows: categories under the integer rule, as without the option.
    assert model.column_families_ == {
        "caps": "kde",
        "length": "kde",
        "hour": "categorical",
        "sender": "categorical",
    }
    assert any("--continuous" in note for note in result.notes)


def test_continuous_density_reports_its_choices_in_inspect(capsys, table, tmp_path):
    path, _ = table
    out = tmp_path / "m.nbayes"
    status, _, err = run(
        capsys, "train", path, "--target", "label", "-o", out, "--continuous", "density"
    )
    assert status == 0, err
    summary = load(out).summary()
    assert summary.loc["caps", "family"].startswith("density (")


@pytest.mark.parametrize(
    "args, message",
    [
        (("--model", "gaussian", "--continuous", "kde"), r"--continuous applies to --model "),
        (("--model", "categorical", "--continuous", "kde"), r"--continuous does not apply"),
        (("--model", "tan", "--continuous", "kde"), r"--model tan bins its numeric columns"),
        (("--model", "density", "--estimate", "map"), r"--estimate does not apply"),
        (("--continuous", "histogram"), r"invalid choice: 'histogram'"),
    ],
)
def test_continuous_misuse_is_a_usage_error(capsys, table, tmp_path, args, message):
    _, df = table
    numeric = tmp_path / "numeric.csv"
    df.drop(columns="sender").to_csv(numeric, index=False)
    status, _, err = run(
        capsys, "train", numeric, "--target", "label", "-o", tmp_path / "m.nbayes", *args
    )
    assert status == 2
    assert re.search(message, err), err
