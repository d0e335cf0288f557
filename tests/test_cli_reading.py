"""How the CLI reads DATA, by value: compressed and tab-separated files, a separator the sniffer
cannot tell, no quoting without a header, an unknown format. Each
trained model equals the same model fitted in Python on the table as pandas reads it."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from nbayes import GaussianNB, load
from nbayes.cli import main
from nbayes.cli._tables import ReadOptions, Table

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


@pytest.mark.parametrize("fmt", ["xml", "CSV"])
def test_an_unknown_format_is_a_usage_error(tmp_path, fmt):
    from nbayes.cli._common import UsageError

    (tmp_path / "x.csv").write_text("a,y\n1,s\n")
    with pytest.raises(UsageError, match=r"--format must be one of .*; got"):
        Table(str(tmp_path / "x.csv"), ReadOptions(format=fmt))
