"""How the CLI reads DATA, by value: compressed and tab-separated files, a separator the sniffer
cannot tell, no quoting without a header, an unknown format. Each
trained model equals the same model fitted in Python on the table as pandas reads it."""

from __future__ import annotations

import gzip
import io
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from nbayes import GaussianNB, MixedNB, load
from nbayes.cli import main
from nbayes.cli._tables import ReadOptions, Table
from nbayes.exceptions import DataError

ROWS = pd.DataFrame(
    {
        "a": [1.0, 2.0, 3.5, 4.0, 0.5, 2.5],
        "b": [0.1, 0.4, 0.2, 0.9, 0.3, 0.8],
        "y": ["s", "t", "s", "t", "s", "t"],
    }
)


def train(capsys, data, *options):
    model = data.parent / "m.nbayes"
    status = main(
        ["train", str(data), "-t", "y", "-m", "gaussian", "-o", str(model), "-q", *options]
    )
    err = capsys.readouterr().err
    assert status == 0, err
    return load(model)


def assert_fits_rows(model, frame=ROWS):
    reference = GaussianNB().fit(frame[["a", "b"]], frame["y"])
    np.testing.assert_allclose(model.theta_, reference.theta_, rtol=1e-12)
    np.testing.assert_allclose(model.var_, reference.var_, rtol=1e-12)
    assert model.classes_.tolist() == ["s", "t"]


def test_gzipped_csv_and_tsv(capsys, tmp_path):
    with gzip.open(tmp_path / "rows.csv.gz", "wt") as f:
        ROWS.to_csv(f, index=False)
    assert_fits_rows(train(capsys, tmp_path / "rows.csv.gz"))
    ROWS.to_csv(tmp_path / "rows.tsv", sep="\t", index=False)
    assert_fits_rows(train(capsys, tmp_path / "rows.tsv"))


def test_separator_the_sniffer_cannot_tell_falls_back_to_comma(capsys, tmp_path):
    # One column of numbers only: csv.Sniffer raises, and a comma is assumed.
    data = tmp_path / "one.csv"
    data.write_text("y\ns\nt\ns\n")
    assert Table(str(data), ReadOptions()).sep == ","


def test_no_quoting_without_a_header(capsys, tmp_path):
    data = tmp_path / "plain.csv"
    data.write_text(ROWS.to_csv(index=False, header=False).replace("s\n", '"s\n'))
    model = train(capsys, data, "--no-header", "--names", "a,b,y", "--no-quoting")
    assert model.classes_.tolist() == ['"s', "t"]  # the quote is text
    rows = ROWS.assign(y=ROWS["y"].replace("s", '"s'))
    reference = GaussianNB().fit(rows[["a", "b"]], rows["y"])
    np.testing.assert_allclose(model.theta_, reference.theta_, rtol=1e-12)


def test_no_quoting_without_a_header_or_names_numbers_the_columns(capsys, tmp_path):
    # With quoting, the lone quote of row 1 would swallow the rows after it into one field.
    data = tmp_path / "plain.csv"
    data.write_text(ROWS.to_csv(index=False, header=False).replace("s\n", '"s\n', 1))
    model = tmp_path / "m.nbayes"
    status = main(["train", str(data), "-t", "2", "-m", "gaussian", "-o", str(model), "-q",
                   "--no-header", "--no-quoting"])  # fmt: skip
    assert status == 0, capsys.readouterr().err
    got = load(model)
    assert got.feature_names_in_.tolist() == ["0", "1"]
    assert got.classes_.tolist() == ['"s', "s", "t"]
    rows = ROWS.assign(y=['"s', *ROWS["y"][1:]])
    reference = GaussianNB().fit(rows[["a", "b"]].to_numpy(), rows["y"])
    np.testing.assert_allclose(got.theta_, reference.theta_, rtol=1e-12)


def test_the_same_character_for_thousands_and_decimals_is_a_usage_error(capsys, tmp_path):
    ROWS.to_csv(tmp_path / "rows.csv", index=False)
    status = main(["train", str(tmp_path / "rows.csv"), "-t", "y", "-o", str(tmp_path / "m"),
                   "--decimal", ",", "--thousands", ","])  # fmt: skip
    assert status == 2
    assert "--thousands and --decimal must differ; both are ','" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_json_lines_without_a_key_have_no_data_rows_or_no_target(capsys, tmp_path):
    data = tmp_path / "blank.jsonl"
    data.write_text("\n\n")
    status = main(["train", str(data), "-t", "y", "-o", str(tmp_path / "m.nbayes")])
    assert status == 1
    assert capsys.readouterr().err == f"nbayes: error: {data}: no data rows.\n"
    data.write_text("{}\n{}\n")  # records, but not one key
    status = main(["train", str(data), "-t", "y", "-o", str(tmp_path / "m.nbayes")])
    assert status == 1
    assert "has no target column 'y'; its columns are []" in capsys.readouterr().err
    assert not (tmp_path / "m.nbayes").exists()


def test_reading_columns_a_file_lacks_names_them_and_the_columns_it_has(tmp_path):
    from nbayes.exceptions import DataError

    ROWS.to_csv(tmp_path / "rows.csv", index=False)
    table = Table(str(tmp_path / "rows.csv"), ReadOptions())
    with pytest.raises(
        DataError, match=r"rows\.csv: no column\(s\) \['c'\]; the columns are \['a', 'b', 'y'\]\."
    ):
        next(table.chunks(["a", "c"]))
    offset, frame = next(table.chunks(["b", "y"]))
    assert offset == 0 and frame.columns.tolist() == ["b", "y"] and len(frame) == 6


def test_a_fraction_after_the_first_chunk_of_an_integer_column_is_kept(capsys, tmp_path):
    # The first chunk types k as integers (a categorical column of 0..4); the last row's 2.5
    # is its own category, neither rounded to 2 nor a reason to turn 0..4 into floats.
    k = [*(i % 5 for i in range(299)), 2.5]
    table = pd.DataFrame({"k": pd.Series(k, dtype=object), "y": [i % 2 for i in range(300)]})
    table.to_csv(tmp_path / "k.csv", index=False)  # 0, 1, ..., 2.5 as written here
    model = tmp_path / "m.nbayes"
    status = main(["train", str(tmp_path / "k.csv"), "-t", "y", "-o", str(model), "-q",
                   "--chunk-rows", "50"])  # fmt: skip
    assert status == 0, capsys.readouterr().err
    vocabulary = load(model).get_state()["layout"]["vocabularies"][0]
    assert vocabulary["values"].tolist() == ["0", "1", "2", "3", "4", "2.5"]
    assert vocabulary["kinds"].tolist() == ["i"] * 5 + ["f"]
    proba = load(model).predict_proba(pd.DataFrame({"k": [2.5, 2]}))
    np.testing.assert_allclose(proba, [[1 / 3, 2 / 3], [0.5, 0.5]], rtol=1e-12)


def test_a_character_cut_short_by_the_end_of_the_file_is_located(capsys, tmp_path):
    data = tmp_path / "cut.csv"
    data.write_bytes(b"x,y\n1,a\n2,caf\xc3")  # the first byte of an "\u00e9", then nothing
    status = main(["train", str(data), "-t", "y", "-o", str(tmp_path / "m.nbayes")])
    assert status == 1
    assert capsys.readouterr().err == (
        f"nbayes: error: {data}: the text is not valid utf-8 (unexpected end of data on line 3, "
        "byte 13 of the file, its last character); pass the right --encoding, e.g. latin-1.\n"
    )


def test_zstd_input_without_zstandard_says_what_to_install(capsys, tmp_path, monkeypatch):
    # Was "unexpected ImportError ... (this is a bug in nbayes)".
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if it were not installed
    data = tmp_path / "rows.csv.zst"
    data.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(20))
    status = main(["train", str(data), "-t", "y", "-o", str(tmp_path / "m.nbayes")])
    assert status == 1
    assert capsys.readouterr().err == (
        f"nbayes: error: {data}: reading zstd-compressed data needs the zstandard package "
        "(pip install zstandard); or decompress it first (zstd -d).\n"
    )
    assert not (tmp_path / "m.nbayes").exists()


@pytest.mark.parametrize("fmt", ["xml", "CSV"])
def test_an_unknown_format_is_a_usage_error(tmp_path, fmt):
    from nbayes.cli._common import UsageError

    (tmp_path / "x.csv").write_text("a,y\n1,s\n")
    with pytest.raises(UsageError, match=r"--format must be one of .*; got"):
        Table(str(tmp_path / "x.csv"), ReadOptions(format=fmt))


def test_a_separator_ending_every_data_row_keeps_each_value_in_its_column(capsys, tmp_path):
    # Read by pandas' defaults, the first field of such rows becomes an index and every value
    # moves one column to the left (a = b's values, b = the labels, y = empty).
    data = tmp_path / "trailing.csv"
    lines = [f"{a},{b},{y}," for a, b, y in ROWS.itertuples(index=False)]
    data.write_text("a,b,y\n" + "\n".join(lines) + "\n")
    assert_fits_rows(train(capsys, data))


@pytest.mark.parametrize(
    ("text", "options", "message"),
    [
        # The header names two columns, the rows hold three fields.
        ("a,y\n1,2,s\n3,4,t\n", [], "more fields than the header line has names"),
        ("1,2,s\n3,4,t\n", ["--names", "a,y"], "more fields than the 2 names given"),
    ],
)
def test_rows_longer_than_the_column_names_are_refused(capsys, tmp_path, text, options, message):
    data = tmp_path / "long.csv"
    data.write_text(text)
    status = main(["train", str(data), "-t", "y", "-o", str(tmp_path / "m.nbayes"), *options])
    err = capsys.readouterr().err
    assert status == 1
    assert message in err and "--sep, now ','" in err
    assert not (tmp_path / "m.nbayes").exists()


def test_a_quote_that_joins_lines_is_said_with_the_fix(capsys, tmp_path):
    # As in the SMS Spam Collection: a message that starts with a quote character opens a
    # quoted field, which runs on over the following lines and swallows their rows.
    data = tmp_path / "sms.tsv"
    data.write_text('ham\t"Hi there\nspam\tWin cash\nham\tok" bye\nspam\ta prize\n')
    model = tmp_path / "m.nbayes"
    argv = ["train", str(data), "--names", "label,text", "-t", "label", "-o", str(model), "-q"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "1 value(s) of column 'text' run over several lines, the first at row 0" in err
    assert "pass --no-quoting" in err
    assert load(model).class_count_.sum() == 2  # three lines became one row
    assert main([*argv, "--no-quoting"]) == 0
    assert "several lines" not in capsys.readouterr().err
    assert load(model).class_count_.sum() == 4
    for command in (["predict", str(model), str(data)], ["evaluate", str(model), str(data)]):
        assert main([*command, "-q"]) == 0
        assert "run over several lines, the first at row 0" in capsys.readouterr().err
    # A quoted paragraph over several lines holds no row of the file: nothing to say.
    reviews = tmp_path / "reviews.csv"
    reviews.write_text('review,stars,y\n"great, really\nI mean it",5,p\n"bad\nawful",1,n\n')
    assert main(["train", str(reviews), "-t", "y", "-o", str(model), "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_values_that_mark_missing_cells_are_said_and_read_with_na_values(capsys, tmp_path):
    # As UCI's Adult writes them: "?" for a missing value, after a ", " separator.
    rng = np.random.default_rng(0)
    ages = rng.integers(20, 70, 60).astype(str).astype(object)
    work = rng.choice(["Private", "State-gov"], 60).astype(object)
    ages[::7], work[::5] = "?", "?"
    y = np.array(["s", "t"] * 30)
    data = tmp_path / "people.csv"
    lines = [f"{a}, {w},{c}" for a, w, c in zip(ages, work, y)]
    data.write_text("age,work,y\n" + "\n".join(lines) + "\n")
    model = tmp_path / "m.nbayes"
    argv = ["train", str(data), "-t", "y", "-o", str(model)]
    assert main(argv) == 0
    said = capsys.readouterr()
    assert (
        "warning: column 'age' holds numbers but for '?' (in 9 of the first 60 values), so it "
        "is read as categories, one per number; to read those as missing and the column as "
        "numbers, pass --na-values='?'" in said.err
    )
    assert (
        "column 'work' has the value '?' in 12 of the first 60 rows, modelled as a category of "
        "its own; if it marks a missing value, pass --na-values='?'" in said.out + said.err
    )
    assert load(model).column_families_["age"] == "categorical"

    assert main([*argv, "--na-values", "?"]) == 0
    said = capsys.readouterr()
    assert "--na-values" not in said.out + said.err
    fitted = load(model)
    table = pd.DataFrame(
        {
            "age": pd.to_numeric(pd.Series(ages).replace("?", np.nan)),
            "work": pd.Series(" " + work).replace(" ?", np.nan),
        }
    )
    assert fitted.column_families_ == {"age": "gaussian", "work": "categorical"}
    assert fitted.categories_["work"].tolist() == [" Private", " State-gov"]
    reference = MixedNB().fit(table, y)
    np.testing.assert_allclose(fitted.predict_proba(table), reference.predict_proba(table))
    # predict reads the file as training did, without being told again
    out = tmp_path / "p.csv"
    assert main(["predict", str(model), str(data), "-o", str(out), "--proba", "-q"]) == 0
    written = pd.read_csv(out)
    np.testing.assert_allclose(written.iloc[:, -2:].to_numpy(), reference.predict_proba(table))

    table.assign(y=y).to_parquet(tmp_path / "people.parquet")
    assert main(["predict", str(model), str(tmp_path / "people.parquet"), "--na-values", "?"]) == 2
    assert "--na-values applies to CSV/TSV" in capsys.readouterr().err


def test_a_marker_past_the_first_rows_of_a_number_column_names_na_values(capsys, tmp_path):
    data = tmp_path / "late.csv"
    rows = [f"{20 + i % 50},{'st'[i % 2]}" for i in range(3_000)]
    rows[2_500] = "?,s"  # in the third chunk of 1,000 rows
    data.write_text("age,y\n" + "\n".join(rows) + "\n")
    model = str(tmp_path / "m.nbayes")
    argv = ["train", str(data), "-t", "y", "-o", model, "-q", "--chunk-rows", "1000"]
    assert main(argv) == 1
    assert "If '?' marks a missing value, pass --na-values='?'." in capsys.readouterr().err
    assert main([*argv, "--na-values=?"]) == 0
    assert load(model).class_count_.sum() == 3_000


def test_spaces_after_every_separator_are_skipped_and_remembered(capsys, tmp_path):
    """UCI files write "39, State-gov, <=50K": labels, categories and column names began
    with a space (classes ' <=50K', and -t had to name ' label')."""
    rng = np.random.default_rng(1)
    age = rng.integers(20, 70, 80)
    work = rng.choice(["Private", "State-gov", "?"], 80)
    y = np.where(age > 45, ">50K", "<=50K")
    data = tmp_path / "adult_like.csv"
    rows = [f"{a}, {w}, {c}" for a, w, c in zip(age, work, y)]
    data.write_text("age, work, label\n" + "\n".join(rows) + "\n")
    model = tmp_path / "m.nbayes"
    argv = ["train", str(data), "-t", "label", "--na-values", "?", "-o", str(model)]
    assert main(argv) == 0
    said = capsys.readouterr()
    assert "every ',' in the first lines is followed by a space: those spaces are skipped" in (
        " ".join(said.out.split())
    )
    assert "classes <=50K: " in said.out
    fitted = load(model)
    assert fitted.feature_names_in_.tolist() == ["age", "work"]
    assert fitted.categories_["work"].tolist() == ["Private", "State-gov"]
    table = pd.DataFrame({"age": age, "work": pd.Series(work).replace("?", np.nan)})
    reference = MixedNB().fit(table, y)
    np.testing.assert_allclose(fitted.predict_proba(table), reference.predict_proba(table))
    # predict and evaluate read the file as training did, without being told again
    out = tmp_path / "p.csv"
    assert main(["predict", str(model), str(data), "-o", str(out), "-q"]) == 0
    assert pd.read_csv(out)["prediction"].tolist() == reference.predict(table).tolist()
    assert main(["evaluate", str(model), str(data)]) == 0
    assert "<=50K" in capsys.readouterr().out
    # --dask reads it alike
    assert main([*argv, "--dask", "local", "-q"]) == 0
    np.testing.assert_allclose(load(model).predict_proba(table), reference.predict_proba(table))
    # Separators without spaces (or only some spaced) are read as they were.
    data.write_text("age,work,label\n" + "\n".join(r.replace(", ", ",", 1) for r in rows))
    assert main(argv) == 0
    assert "followed by a space" not in capsys.readouterr().out
    assert load(model).classes_.tolist() == [" <=50K", " >50K"]  # as written


def test_a_header_that_names_a_column_twice_is_said(capsys, monkeypatch, tmp_path):
    """pandas reads a repeated header name as 'a.1' without a word."""
    data = tmp_path / "twice.csv"
    # 25 rows: column 'a' (0, 1, ...) is too short to be told from a count (an identifier).
    text = "a,b,a,y\n" + "".join(f"{i},{'xy'[i % 2]},{i % 3},{'st'[i % 2]}\n" for i in range(25))
    data.write_text(text)
    model = tmp_path / "m.nbayes"
    assert main(["train", str(data), "-t", "y", "-o", str(model), "-q"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "warning: the header names column 'a' 2 times; the repeats are read as 'a.1'. Rename "
        "them in the file so that each name says what its column holds" in err
    )
    assert load(model).feature_names_in_.tolist() == ["a", "b", "a.1"]
    # Standard input too (the sample comes from what was read), and not with --names.
    monkeypatch.setattr(sys, "stdin", type("In", (), {"buffer": io.BytesIO(text.encode())}))
    assert main(["train", "-", "-t", "y", "-o", str(model), "-q"]) == 0
    assert "names column 'a' 2 times" in capsys.readouterr().err
    rows = tmp_path / "rows.csv"
    rows.write_text(text.split("\n", 1)[1])
    names = ["train", str(rows), "--no-header", "--names", "a,b,c,y", "-t", "y", "-o", str(model)]
    assert main(names) == 0
    assert "2 times" not in capsys.readouterr().err


def test_the_encoding_given_at_training_is_remembered(capsys, tmp_path):
    """A file read with --encoding latin-1 at training had to be given it again for predict
    and evaluate, or they stopped at its first accented byte; the model remembers it, as it
    remembers the numbers' separators, and an --encoding given then still wins."""
    rng = np.random.default_rng(5)
    towns = np.asarray(["Orléans", "Besançon", "Nîmes", "Paris"], dtype=object)
    frame = pd.DataFrame({"ville": towns[rng.integers(0, 4, 120)], "prix": rng.integers(1, 9, 120)})
    frame["étiquette"] = np.where(frame["ville"].isin(["Paris", "Nîmes"]), "chère", "pas chère")
    data, model = tmp_path / "latin.csv", tmp_path / "m.nbayes"
    frame.to_csv(data, index=False, encoding="latin-1")
    assert main(["train", str(data), "-t", "étiquette", "-o", str(model)]) == 1
    assert "not valid utf-8" in capsys.readouterr().err
    argv = ["train", str(data), "-t", "étiquette", "-o", str(model), "--encoding", "latin-1"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["predict", str(model), str(data)]) == 0
    predicted = capsys.readouterr().out.splitlines()[1:]
    assert predicted == frame["étiquette"].tolist()
    assert main(["evaluate", str(model), str(data)]) == 0
    assert "accuracy           1.0000" in capsys.readouterr().out
    frame.to_csv(data, index=False, encoding="utf-8")  # the same table, now written as UTF-8
    assert main(["predict", str(model), str(data), "--encoding", "utf-8"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == frame["étiquette"].tolist()


def test_a_pipe_read_leaves_no_temporary_file_to_the_garbage_collector():
    """What a pipe brought is kept in a spooled temporary file; it closes with the replay,
    so no ResourceWarning ('unclosed file') is left for a later command to say."""
    import gc

    from nbayes.cli._tables import _Replay

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        replay = _Replay(lambda: io.BytesIO(b"a,y\n1,s\n2,t\n"), "standard input")
        replay.read_all()
        del replay
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)], caught


def test_a_repeated_name_is_found_in_a_header_read_without_quoting(tmp_path):
    """With --no-quoting the header is split as its rows are (a quote is a character of the
    name); a compressed file that holds no text has no header to judge."""
    data = tmp_path / "twice.csv"
    data.write_text('a,"b",a,y\n1,x,2,s\n')
    said = Table(str(data), ReadOptions(quoting=False)).repeated_names_warning()
    assert said.startswith("the header names column 'a' 2 times; the repeats are read as 'a.1'")
    empty = tmp_path / "empty.csv.gz"
    empty.write_bytes(gzip.compress(b""))
    assert Table(str(empty), ReadOptions()).repeated_names_warning() is None


def test_a_json_lines_file_without_records_has_no_columns(tmp_path):
    data = tmp_path / "blank.jsonl"
    data.write_text("\n\n")
    with pytest.raises(DataError, match=r"blank\.jsonl: no data rows"):
        assert not Table(str(data), ReadOptions()).columns


@pytest.mark.parametrize(
    ("first_line", "target", "why"),
    [
        ("p,x,s,p,e", "0", "its names repeat 'p'"),  # pandas reads the second p as p.1
        ("39,State-gov,77516,e", "income", "names such as '39' and '77516' are numbers"),
        ("a,b,c,e", "4", None),  # a number as the target: the columns of --no-header
    ],
)
def test_a_first_line_of_data_read_as_the_header_is_said(capsys, tmp_path, first_line, target, why):
    data = tmp_path / "headerless.csv"
    data.write_text(first_line + "\n" + first_line + "\n")
    status = main(["train", str(data), "-t", target, "-o", str(tmp_path / "m.nbayes")])
    err = capsys.readouterr().err
    assert status == 1
    assert f"has no target column {target!r}" in err
    said = "If the first line of DATA is data" + (f" ({why})" if why else "")
    assert said + ", not a header, pass --no-header" in err
    # A header of names, and a target name that is not a number: nothing about headers.
    data.write_text("a,b,y\n1,2,x\n")
    main(["train", str(data), "-t", "label", "-o", str(tmp_path / "m.nbayes")])
    assert "--no-header" not in capsys.readouterr().err
