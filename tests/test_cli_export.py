"""``nbayes export``: the SQL it writes scores a table in DuckDB as ``nbayes predict`` does,
the ONNX path writes a graph (where the ONNX half is installed), and its errors."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from nbayes.cli import main
from nbayes.cli.train import train

duckdb = pytest.importorskip("duckdb")

TABLE = (
    "colour,weight,fruit\n"
    "red,150,apple\ngreen,170,apple\nred,160,apple\nred,,apple\n"
    "yellow,120,banana\nyellow,130,banana\ngreen,125,banana\n"
)


@pytest.fixture
def fruit(tmp_path):
    data = tmp_path / "fruit.csv"
    data.write_text(TABLE + "purple,140,banana\n,,apple\n")  # unseen, missing
    return data


def scored_by_sql(sql_file, data) -> pd.DataFrame:
    con = duckdb.connect()
    con.execute(f"CREATE TABLE fruit AS SELECT * FROM read_csv('{data}')")
    return con.execute(sql_file.read_text()).fetchdf()


def predicted(model, data, tmp_path, capsys) -> pd.DataFrame:
    out = tmp_path / "pred.csv"
    assert main(["predict", str(model), str(data), "--proba", "-o", str(out)]) == 0
    capsys.readouterr()
    return pd.read_csv(out)


def test_the_exported_query_scores_as_nbayes_predict(fruit, tmp_path, capsys):
    model = tmp_path / "fruit.nbayes"
    assert main(["train", str(fruit), "--target", "fruit", "-o", str(model)]) == 0
    sql = tmp_path / "fruit.sql"
    argv = ["export", str(model), "--format", "sql", "--table", "fruit", "-o", str(sql)]
    assert main(argv) == 0
    got, want = scored_by_sql(sql, fruit), predicted(model, fruit, tmp_path, capsys)
    assert got["prediction"].tolist() == want["prediction"].tolist()
    for c in ("proba_apple", "proba_banana"):
        np.testing.assert_allclose(got[c], want[c], rtol=0, atol=1e-9)


def test_the_threshold_kept_by_train_decides_the_exported_prediction(fruit, tmp_path, capsys):
    model = tmp_path / "fruit.nbayes"
    train(str(fruit), "fruit", str(model), threshold=0.999, threshold_scale="proba")
    sql = tmp_path / "fruit.sql"
    argv = ["export", str(model), "--format", "sql", "--table", "fruit", "-o", str(sql)]
    assert main(argv) == 0
    got, want = scored_by_sql(sql, fruit), predicted(model, fruit, tmp_path, capsys)
    assert got["prediction"].tolist() == want["prediction"].tolist()
    assert "banana" not in got["prediction"].tolist()[:4]


def test_sqlite_dialect_is_written(fruit, tmp_path):
    model = tmp_path / "fruit.nbayes"
    train(str(fruit), "fruit", str(model))
    sql = tmp_path / "fruit.sql"
    assert (
        main(["export", str(model), "--format", "sql", "--dialect", "sqlite", "-o", str(sql)]) == 0
    )
    assert sql.read_text().startswith("SELECT *,") and "FROM t;" in sql.read_text()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--format", "sql", "--dialect", "duckbd"], "dialect='duckbd' is not a SQL dialect"),
        (["--format", "onnx", "--dialect", "sqlite"], "apply to --format sql"),
        (["--format", "xml"], "invalid choice: 'xml'"),
    ],
)
def test_usage_errors_say_what_to_change(fruit, tmp_path, capsys, extra, message):
    model = tmp_path / "fruit.nbayes"
    train(str(fruit), "fruit", str(model))
    capsys.readouterr()
    assert main(["export", str(model), *extra, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nbayes: error:") or "usage:" in err
    assert message in err and not (tmp_path / "out").exists()


def test_the_model_file_is_never_overwritten(fruit, tmp_path, capsys):
    model = tmp_path / "fruit.nbayes"
    train(str(fruit), "fruit", str(model))
    before = model.read_bytes()
    assert main(["export", str(model), "--format", "sql", "-o", str(model)]) == 2
    assert "is the model file itself" in capsys.readouterr().err
    assert model.read_bytes() == before


@pytest.mark.skipif(
    importlib.util.find_spec("nbayes.export._onnx") is None, reason="the ONNX export is absent"
)
def test_onnx_export_writes_a_graph(fruit, tmp_path):
    onnx = pytest.importorskip("onnx")
    model = tmp_path / "fruit.nbayes"
    train(str(fruit), "fruit", str(model))
    out = tmp_path / "fruit.onnx"
    assert main(["export", str(model), "--format", "onnx", "-o", str(out)]) == 0
    onnx.checker.check_model(onnx.load(str(out)))


@pytest.mark.skipif(
    importlib.util.find_spec("nbayes.export._onnx") is None, reason="the ONNX export is absent"
)
def test_the_threshold_kept_by_train_decides_the_onnx_label(fruit, tmp_path, capsys):
    ort = pytest.importorskip("onnxruntime")
    model = tmp_path / "fruit.nbayes"
    train(str(fruit), "fruit", str(model), threshold=0.999, threshold_scale="proba")
    out = tmp_path / "fruit.onnx"
    assert main(["export", str(model), "--format", "onnx", "-o", str(out)]) == 0
    table = pd.read_csv(fruit)
    feeds = {
        "colour": table[["colour"]].fillna("").to_numpy(dtype=object),
        "weight": table[["weight"]].to_numpy(dtype=np.float64),
    }
    label = ort.InferenceSession(str(out)).run(None, feeds)[0]
    want = predicted(model, fruit, tmp_path, capsys)["prediction"].tolist()
    assert "banana" not in want[:4]  # the threshold, not the most probable class, decides
    assert label.tolist() == want


@pytest.mark.parametrize("form", ["sql", "onnx"])
@pytest.mark.parametrize(
    "train_args, fix",
    [
        (["--continuous", "kde", "--categorical", "when"], "nbayes train --continuous gaussian"),
        ([], "nbayes train --categorical when"),  # calendar features of the dates
    ],
)
def test_refusals_say_which_training_option_makes_the_model_exportable(
    tmp_path, capsys, form, train_args, fix
):
    if form == "onnx":
        pytest.importorskip("skl2onnx")
    rows = [f"{100 + 0.37 * i:.2f},2021-0{1 + i % 9}-1{i % 10},{'ab'[i % 2]}" for i in range(40)]
    data = tmp_path / "dated.csv"
    data.write_text("weight,when,fruit\n" + "\n".join(rows) + "\n")
    model = tmp_path / "m.nbayes"
    assert main(["train", str(data), "-t", "fruit", "-o", str(model), "-q", *train_args]) == 0
    capsys.readouterr()
    assert main(["export", str(model), "--format", form, "-o", str(tmp_path / "out")]) == 2
    assert fix in capsys.readouterr().err


def test_dash_writes_the_query_to_standard_output_in_any_dialect_case(fruit, tmp_path, capsys):
    model = tmp_path / "fruit.nbayes"
    train(str(fruit), "fruit", str(model))
    capsys.readouterr()
    argv = ["export", str(model), "--format", "sql", "--dialect", "SQLite", "-o", "-"]
    assert main(argv) == 0
    query = capsys.readouterr().out
    assert query.startswith("SELECT *,") and query.endswith(";\n")
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("form", ["sql", "onnx"])
def test_threshold_given_to_export_decides_as_given_to_predict(fruit, tmp_path, capsys, form):
    if form == "onnx":
        pytest.importorskip("onnxruntime")
    model = tmp_path / "fruit.nbayes"
    train(str(fruit), "fruit", str(model))
    out = tmp_path / f"fruit.{form}"
    rule = ["--threshold", "0.999", "--threshold-scale", "proba"]
    table = ["--table", "fruit"] if form == "sql" else []
    assert main(["export", str(model), "--format", form, *table, "-o", str(out), *rule]) == 0
    pred = tmp_path / "pred.csv"
    assert main(["predict", str(model), str(fruit), "-o", str(pred), *rule]) == 0
    want = pd.read_csv(pred)["prediction"].tolist()
    if form == "sql":
        got = scored_by_sql(out, fruit)["prediction"].tolist()
    else:
        import onnxruntime as ort

        table = pd.read_csv(fruit)
        feeds = {
            "colour": table[["colour"]].fillna("").to_numpy(dtype=object),
            "weight": table[["weight"]].to_numpy(dtype=np.float64),
        }
        got = ort.InferenceSession(str(out)).run(None, feeds)[0].tolist()
    assert "banana" not in want[:4] and got == want


@pytest.mark.parametrize("form", ["sql", "onnx"])
def test_a_calibrated_model_file_is_refused_with_the_training_option_to_drop(
    tmp_path, capsys, form
):
    # The library's refusal named CalibratedClassifierCV, a structure between columns and
    # "the naive Bayes model it is built on": nothing a command-line user can act on.
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b"], 200)
    data = tmp_path / "t.csv"
    pd.DataFrame({"x": rng.normal(y == "b", 1.0), "y": y}).to_csv(data, index=False)
    model = tmp_path / "m.nbayes"
    train(str(data), "y", str(model), calibration="sigmoid")
    capsys.readouterr()
    assert main(["export", str(model), "--format", form, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "is calibrated (nbayes train --calibration)" in err
    assert "Train without --calibration" in err and "CalibratedClassifierCV" not in err
    assert not (tmp_path / "out").exists()
