"""``nbayes train/predict/evaluate/explain/inspect --model aode|tan|kdb|joint`` on a messy CSV:
string categories with gaps, true/false, a numeric column with gaps and a small integer column.

Training reads DATA in chunks; the numeric columns' bin edges come from a first pass over
every row (the estimator's survey), so the model equals ``fit`` on the whole table.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.cli import main
from nbayes.cli._models import SEMINAIVE, load_plan
from nbayes.cli._tables import read_dtypes
from nbayes.cli.evaluate import evaluate
from nbayes.cli.explain import explain
from nbayes.cli.inspect import inspect_model
from nbayes.distributions import Binned


def run(capsys, *argv):
    """Run the command; return (exit status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def messy(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 300
    y = rng.choice(["yes", "no"], n)
    size = np.round(rng.normal(size=n) + 1.5 * (y == "yes"), 3)
    size[rng.random(n) < 0.1] = np.nan
    df = pd.DataFrame(
        {
            "colour": rng.choice(["red", "blue", "green", None], n),
            "size": size,
            "doors": rng.integers(0, 4, n),
            "flag": rng.choice(["true", "false"], n),
            "label": y,
        }
    )
    path = tmp_path_factory.mktemp("messy") / "messy.csv"
    df.to_csv(path, index=False)
    return path


def as_trained(path, model_path):
    """The table as ``nbayes train`` converts it (the plan stored in the model file)."""
    plan = load_plan(str(model_path))
    raw = pd.read_csv(path, dtype={**read_dtypes(plan.schema), "label": str})
    return plan, plan.inputs(raw, 0, str(path)), raw["label"].to_numpy()


@pytest.mark.parametrize(
    "model, options, params",
    [
        ("aode", [], {}),
        ("aode", ["--parents", "2"], {"n": 2}),
        ("tan", ["--alpha", "0.5"], {"alpha": 0.5}),
        ("kdb", ["--k", "1", "--binning", "quantile", "--n-bins", "3"], {"k": 1}),
        ("tan", ["--binning", "binned", "--n-bins", "64"], {"binning": Binned(bins=64)}),
        ("joint", [], {}),
    ],
)
def test_train_in_chunks_equals_fit_on_the_whole_table(
    capsys, tmp_path, messy, model, options, params
):
    out_path = tmp_path / f"{model}.nbayes"
    status, out, err = run(
        capsys,
        "train",
        messy,
        "-t",
        "label",
        "-o",
        out_path,
        "-m",
        model,
        "--chunk-rows",
        37,
        *options,
    )
    assert status == 0, err
    assert "cutting numeric column(s) ['size', 'doors'] into bins" in out
    plan, X, y = as_trained(messy, out_path)
    loaded = nbayes.load(out_path)
    assert type(loaded) is SEMINAIVE[model]
    assert plan.model == model
    assert loaded.get_params()["bin_edges"] is not None  # fixed by the first pass
    # fit on all rows, with the same settings but no edges given, finds the same edges.
    local = type(loaded)(**{**loaded.get_params(), "bin_edges": None}).fit(X, y)
    for key, value in params.items():
        assert loaded.get_params()[key] == value
    assert local.bin_edges_["size"].size > 0
    for column in ("size", "doors"):
        np.testing.assert_array_equal(loaded.bin_edges_[column], local.bin_edges_[column])
    assert {k: v.tolist() for k, v in loaded.categories_.items()} == {
        k: v.tolist() for k, v in local.categories_.items()
    }
    np.testing.assert_array_equal(loaded.classes_, ["no", "yes"])
    np.testing.assert_allclose(loaded.predict_proba(X), local.predict_proba(X), rtol=1e-10)
    assert getattr(loaded, "structure_", None) == getattr(local, "structure_", None)

    # predict and evaluate read DATA as train did.
    status, out, err = run(capsys, "predict", out_path, messy, "--proba")
    assert status == 0, err
    got = pd.read_csv(pd.io.common.StringIO(out))
    np.testing.assert_allclose(
        got[["proba_no", "proba_yes"]].to_numpy(), local.predict_proba(X), rtol=1e-9
    )
    assert got["prediction"].tolist() == local.predict(X).tolist()
    report = evaluate(str(out_path), str(messy))
    assert report["rows"] == len(y)
    assert report["accuracy"] == pytest.approx(np.mean(local.predict(X) == y))


def test_inspect_shows_bins_categories_and_parents(capsys, tmp_path, messy):
    out_path = tmp_path / "tan.nbayes"
    assert run(capsys, "train", messy, "-t", "label", "-o", out_path, "-m", "tan")[0] == 0
    info = inspect_model(str(out_path))
    model = nbayes.load(out_path)
    columns = {c["column"]: c for c in info["columns"]}
    assert list(columns) == ["colour", "size", "doors", "flag"]
    assert columns["colour"]["family"] == "categorical (3 values)"
    bins = model.bin_edges_["size"].size + 1
    assert columns["size"]["family"] == f"binned ({bins} bin{'s' if bins > 1 else ''})"
    for column, parents in model.structure_.items():
        assert columns[column]["features"] == "parents: " + (", ".join(parents) or "(root)")
    status, out, _ = run(capsys, "inspect", out_path)
    assert status == 0 and "categorical (3 values)" in out


@pytest.mark.parametrize("kind", ["tan", "aode", "joint"])
def test_explain_per_row_with_the_parents_of_each_term(capsys, tmp_path, messy, kind):
    out_path = tmp_path / f"{kind}.nbayes"
    assert run(capsys, "train", messy, "-t", "label", "-o", out_path, "-m", kind)[0] == 0
    report = explain(str(out_path), str(messy), k=10, rows=3)
    assert report["top_features"] is None  # no weight per feature value alone
    _, X, _ = as_trained(messy, out_path)
    model = nbayes.load(out_path)
    ex = model.explain(X.iloc[:3])
    for i, row in enumerate(report["rows"]):
        assert row["predicted"] == ex.predicted_class[i]
        assert row["log_odds"] == pytest.approx(ex.log_odds[i])
        total = sum(f["contribution"] for f in row["features"])
        assert ex.prior_log_odds[i] + total == pytest.approx(row["log_odds"])
        shown = {f["feature"]: f["given"] for f in row["features"]}
        assert shown == {
            name: ex.given[i, j] for j, name in enumerate(ex.feature_names) if name in shown
        }
        # The text shows the parents' values in this row (TAN's one parent), or how many
        # super-parents a term is averaged over (AODE's, more than three).
        values = dict(zip(ex.feature_names, ex.values[i]))
        for f in row["features"]:
            parents = [p for p in f["given"].split(", ") if p]
            expected = (
                "(class only)"
                if not parents
                else f"averaged over {len(parents)} super-parents"
                if len(parents) > 3
                else ", ".join(f"{p}={_shown(values[p])}" for p in parents)
            )
            assert f["given_values"] == expected
    status, out, err = run(capsys, "explain", out_path, messy, "--rows", "1")
    assert status == 0, err
    assert out.startswith("no weights per feature and class: this model's features depend")
    assert "contribution  given" in out
    first = report["rows"][0]["features"][0]
    assert f"{first['contribution']:+.3f}  {first['given_values']}" in out


def _shown(value):
    return int(value) if isinstance(value, float) and value.is_integer() else value


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-m", "aode", "--k", "1"], r"--k applies to --model kdb; got --model aode"),
        (["-m", "tan", "--parents", "2"], r"--parents applies to --model aode; got --model tan"),
        (["-m", "mixed", "--binning", "quantile"], r"--binning applies to --model aode / tan"),
        (["-m", "kdb", "--n-bins", "4"], r"--n-bins sets the number of quantile bins"),
        (
            ["-m", "tan", "--binning", "binned", "--n-bins", "1"],
            r"--n-bins must be at least 2 with --binning binned; got 1",
        ),
        (["-m", "joint", "--var-smoothing", "1e-3"], r"--var-smoothing does not apply"),
        (["-m", "aode", "--alpha", "auto"], r"--alpha auto does not apply to --model aode"),
    ],
)
def test_options_of_other_models_are_usage_errors(capsys, tmp_path, messy, argv, message):
    status, _, err = run(capsys, "train", messy, "-t", "label", "-o", tmp_path / "m", *argv)
    assert status == 2
    assert re.search(message, err), err
