"""Dates written as whole numbers (YYMMDD, YYYYMMDD, as Ecdat/Garch's ``date``) are read as
dates: calendar features, in the library, the command line, model files and on Dask."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from test_columns import _cli_equals_api
from test_dask_columns import _agree

from nbayes import ColumnWarning, MixedNB, load, save
from nbayes.columns import read_column


def _days(n: int, start: str = "1980-01-02") -> pd.DatetimeIndex:
    return pd.bdate_range(start, periods=n)


def test_whole_numbers_that_are_all_dates_are_dates():
    days = _days(300)
    six = pd.Series(days.strftime("%y%m%d").astype(int), name="date")
    eight = pd.Series(days.strftime("%Y%m%d").astype(int), name="day")
    for column, form, shown in ((six, "%y%m%d", "YYMMDD"), (eight, "%Y%m%d", "YYYYMMDD")):
        reading = read_column(column)
        assert (reading.kind, reading.date_format) == ("timestamp", form)
        assert reading.parts == ("year", "month", "dayofweek")
        assert reading.why.startswith(f"dates written as whole numbers {shown} (e.g. ")


@pytest.mark.parametrize(
    "values",
    [
        np.arange(100_000, 100_300),  # six digits, months 00..03 and days past 31
        np.random.default_rng(0).integers(10_000_000, 99_999_999, 300),  # codes
        np.tile([800102, 800103, 800104], 100),  # too few distinct values to tell
        np.r_[_days(299).strftime("%y%m%d").astype(int), 12345],  # a value of five digits
        np.r_[_days(299).strftime("%y%m%d").astype(int), 801332],  # one is no date
    ],
)
def test_other_whole_numbers_stay_numbers(values):
    assert read_column(pd.Series(values), "x").kind != "timestamp"


def _garch(n=400, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    days = _days(n)
    return pd.DataFrame(
        {
            "date": days.strftime("%y%m%d").astype(int),
            "dm": rng.normal(size=n),
            "day": days.day_name().str.lower(),
        }
    ).sample(frac=1.0, random_state=seed)


def test_the_weekday_is_learnt_from_a_number_date(tmp_path):
    frame = _garch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ColumnWarning)
        model = MixedNB().fit(frame[["date", "dm"]], frame["day"])
    assert model.column_choices_.loc["date", "kind"] == "timestamp"
    assert (model.predict(frame[["date", "dm"]]) == frame["day"]).mean() > 0.99
    path = tmp_path / "m.nbayes"
    save(model, path)
    again = load(path)
    np.testing.assert_allclose(
        again.predict_proba(frame[["date", "dm"]]), model.predict_proba(frame[["date", "dm"]])
    )


def test_cli_api_and_dask_agree_on_a_number_date(tmp_path):
    frame = _garch()
    path = tmp_path / "garch.csv"
    frame.to_csv(path, index=False)
    cli, api = _cli_equals_api(path, "day", tmp_path)
    assert "date" in cli.feature_names_in_
    assert api.column_choices_.loc["date", "kind"] == "timestamp"
    _agree(frame, "day")


def test_a_semi_naive_model_reads_a_number_date_as_a_calendar(tmp_path, capsys):
    from nbayes.cli import main

    path = tmp_path / "garch.csv"
    _garch().to_csv(path, index=False)
    out = tmp_path / "m.nbayes"
    assert main(["train", str(path), "-t", "day", "-o", str(out), "--model", "aode"]) == 0
    said = capsys.readouterr().out
    assert "cutting numeric column(s) ['dm'] into bins" in said  # not the date
    assert load(out).column_choices_.loc["date", "family"] == "calendar"
