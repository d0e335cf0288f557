"""The CLI's text output of ``explain`` and its error paths end to end: OSError and unexpected
exceptions at the top level (with and without ``--debug``), bad boolean columns, malformed JSON
lines, unreadable Parquet. Tiny hand-made tables whose answers are known in closed form."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from nbayes.cli import main

# Multinomial, alpha = 1: ham counts (a, b) = (5, 1) -> theta = (6/8, 2/8); spam (1, 5) ->
# (2/8, 6/8); so a word's weight is +-log 3 = +-1.0986 and the prior log-odds log(3/2) = 0.405.
COUNTS = "a,b,y\n3,0,ham\n2,1,ham\n0,2,spam\n1,3,spam\n0,0,ham\n"
LOG3, PRIOR = math.log(3), math.log(1.5)

EXPLAIN_TEXT = f"""\
most indicative features per class (weight: log-odds against the strongest other class, per unit of the feature)

class ham:
feature   weight
-------  -------
a         1.0986
b        -1.0986

class spam:
feature   weight
-------  -------
b         1.0986
a        -1.0986

row 0: predicted ham over spam (log-odds {3 * LOG3 + PRIOR:+.3f}); features that pushed it most:
feature  value  contribution
-------  -----  ------------
a            3        {3 * LOG3:+.3f}

row 1: predicted ham over spam (log-odds {LOG3 + PRIOR:+.3f}); features that pushed it most:
feature  value  contribution
-------  -----  ------------
a            2        {2 * LOG3:+.3f}
b            1        {-LOG3:+.3f}

row 2: predicted spam over ham (log-odds {2 * LOG3 - PRIOR:+.3f}); features that pushed it most:
feature  value  contribution
-------  -----  ------------
b            2        {2 * LOG3:+.3f}

row 3: predicted spam over ham (log-odds {2 * LOG3 - PRIOR:+.3f}); features that pushed it most:
feature  value  contribution
-------  -----  ------------
b            3        {3 * LOG3:+.3f}
a            1        {-LOG3:+.3f}

row 4: predicted ham over spam (log-odds {PRIOR:+.3f}); features that pushed it most:
(no feature moved it: the class prior decided)
"""  # noqa: E501 - the header line is one line of output


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def counts_model(capsys, tmp_path):
    data = tmp_path / "counts.csv"
    data.write_text(COUNTS)
    model = tmp_path / "m.nbayes"
    status, _, err = run(
        capsys, "train", data, "-t", "y", "-m", "multinomial", "-o", model, "--quiet"
    )
    assert status == 0, err
    return model, data


def test_explain_prints_the_closed_form_tables(capsys, counts_model):
    model, data = counts_model
    status, out, err = run(capsys, "explain", model, data, "-k", "2", "--rows", "5")
    assert (status, err) == (0, "")
    assert out == EXPLAIN_TEXT


def test_explain_by_impact_without_data(capsys, counts_model):
    # impact = weight x the feature's mean within the class: ham a 5/3 log 3, spam b 5/2 log 3.
    model, _ = counts_model
    status, out, _ = run(capsys, "explain", model, "--by", "impact", "-k", "1")
    assert status == 0
    assert out.splitlines() == [
        "most indicative features per class (impact: log-odds against the strongest other "
        "class, per unit of the feature)",
        "",
        "class ham:",
        "feature  impact",
        "-------  ------",
        f"a        {5 / 3 * LOG3:.4f}",
        "",
        "class spam:",
        "feature  impact",
        "-------  ------",
        f"b        {5 / 2 * LOG3:.4f}",
    ]
    status, _, err = run(capsys, "explain", model, "-k", "0")
    assert status == 2 and "nbayes: error: -k/--top and --rows must be at least 1." in err


# -- top-level handling -------------------------------------------------------------------------
def test_os_error_names_the_file(capsys, tmp_path):
    folder = tmp_path / "a_folder.csv"
    folder.mkdir()
    status, out, err = run(capsys, "train", folder, "-t", "y", "-o", tmp_path / "m.nbayes")
    assert (status, out) == (1, "")
    assert err == f"nbayes: error: {folder}: is a folder, not a data file.\n"


@pytest.mark.parametrize(
    ("exc", "message"),
    [
        (OSError("the disk went away"), "nbayes: error: the disk went away"),
        (MemoryError(), "nbayes: error: MemoryError"),
        (
            RuntimeError("boom"),
            "nbayes: error: unexpected RuntimeError: boom (this is a bug in nbayes; run with "
            "--debug for the traceback and report it)",
        ),
        (
            KeyError("k"),
            "nbayes: error: unexpected KeyError: 'k' (this is a bug in nbayes; run with "
            "--debug for the traceback and report it)",
        ),
    ],
)
def test_other_exceptions_become_one_line(capsys, monkeypatch, counts_model, exc, message):
    import nbayes.cli.predict as predict_command

    def fail(*args, **kwargs):
        raise exc

    monkeypatch.setattr(predict_command, "predict", fail)
    model, data = counts_model
    status, out, err = run(capsys, "predict", model, data)
    assert (status, out) == (1, "")
    assert err == message + "\n"  # one line, no traceback
    status, out, err = run(capsys, "predict", model, data, "--debug")
    assert (status, out) == (1, "")
    assert err.startswith("Traceback (most recent call last):")
    assert f"in fail\n    raise exc\n{type(exc).__name__}" in err
    assert err.endswith(message + "\n")


# -- reading faults -----------------------------------------------------------------------------
def test_bad_boolean_cell_is_named(capsys, tmp_path):
    # The first chunk (2 rows) reads as true/false; a later row holds something else.
    data = tmp_path / "flags.csv"
    data.write_text("flag,x,y\nTrue,1.5,a\nFalse,2.5,b\ntrue,1.0,a\nmaybe,0.5,b\n")
    model = tmp_path / "m.nbayes"
    status, out, err = run(
        capsys, "train", data, "-t", "y", "-m", "mixed", "-o", model, "--chunk-rows", "2"
    )
    assert (status, out) == (1, "")
    assert err == (
        f"nbayes: error: {data}: column 'flag' holds true/false values in its first rows but "
        "'maybe' at row 3.\n"
    )
    assert not model.exists()
    # Trained on good rows, the same cell is named when predicting.
    good = tmp_path / "good.csv"
    good.write_text("flag,x,y\nTrue,1.5,a\nFalse,2.5,b\nTrue,1.0,a\nFalse,0.5,b\n")
    status, _, err = run(capsys, "train", good, "-t", "y", "-m", "mixed", "-o", model, "-q")
    assert status == 0, err
    for name in ("out.csv", "out.parquet", "out.jsonl.gz"):
        # The first chunk's predictions are not left behind: no new file, and an old one
        # keeps its content.
        output = tmp_path / name
        status, out, err = run(capsys, "predict", model, data, "--chunk-rows", "3", "-o", output)
        assert (status, out) == (1, "") and not output.exists(), name
        output.write_text("the user's own file\n")
        status, out, err = run(capsys, "predict", model, data, "--chunk-rows", "3", "-o", output)
        assert (status, out) == (1, "") and output.read_text() == "the user's own file\n"
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    assert re.search(r"column 'flag' holds true/false values .* but 'maybe' at row 3\.", err)


@pytest.mark.parametrize(
    "lines",
    [
        '{"x": 1.0, "y": "a"}\n{"x": 2.0, "y": "b"\n',  # cut short
        '{"x": 1.0, "y": "a"}\nnot json at all\n',
        '{"x": 1.0, "y": "a"}\n[2.0, "b"]\n',  # not an object
        '{"x": 1.0, "y": "a"} {"x": 2.0, "y": "b"}\n',  # two records on one line
    ],
)
def test_malformed_json_lines(capsys, tmp_path, lines):
    data = tmp_path / "rows.jsonl"
    data.write_text(lines)
    status, out, err = run(capsys, "train", data, "-t", "y", "-o", tmp_path / "m.nbayes")
    assert (status, out) == (1, "")
    assert err.startswith(f"nbayes: error: {data}: malformed JSON line ("), err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty."),
        (b"PAR1", "not a readable Parquet file (Parquet file size is 4 bytes"),
        (b"PAR1 this is not parquet PAR1", "not a readable Parquet file ("),
        (b"a,b,y\n1,2,x\n", "not a readable Parquet file (Parquet magic bytes not found"),
    ],
    ids=["empty", "magic-only", "garbage", "csv"],
)
def test_unreadable_parquet(capsys, tmp_path, content, message, counts_model):
    data = tmp_path / "table.parquet"
    data.write_bytes(content)
    model, _ = counts_model
    for argv in (
        ["train", data, "-t", "y", "-o", tmp_path / "new.nbayes"],
        ["predict", model, data],
        ["evaluate", model, data],
    ):
        status, out, err = run(capsys, *argv)
        assert (status, out) == (1, ""), argv
        assert err.startswith(f"nbayes: error: {data}: {message}"), err
        assert len(err.splitlines()) == 1
    assert not (tmp_path / "new.nbayes").exists()


def test_parquet_with_a_bad_column_type(capsys, tmp_path, counts_model):
    # A readable Parquet file whose column holds text where the model needs counts.
    model, _ = counts_model
    data = tmp_path / "words.parquet"
    pd.DataFrame({"a": ["one", "two"], "b": [1, 2], "y": ["ham", "spam"]}).to_parquet(data)
    status, out, err = run(capsys, "predict", model, data)
    assert (status, out) == (1, "")
    assert re.search(r"column 'a' must hold numbers .*; got 'one' at row 0", err), err


def test_evaluate_without_the_label_column_says_how_to_name_it(capsys, tmp_path):
    train = tmp_path / "train.csv"
    pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": ["a", "a", "b", "b"]}).to_csv(train, index=False)
    test = tmp_path / "test.csv"
    pd.DataFrame({"x": [1.5, 3.5], "label": ["a", "b"]}).to_csv(test, index=False)
    model = tmp_path / "m.nbayes"
    assert main(["train", str(train), "-t", "y", "-o", str(model), "-q"]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(model), str(test)]) == 1
    err = capsys.readouterr().err
    assert "no column 'y' (the label column)" in err
    assert "Pass the label column with --target." in err
    assert main(["evaluate", str(model), str(test), "-t", "label"]) == 0
