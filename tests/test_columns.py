"""Issue 30: one column reading (:mod:`nbayes.columns`) for the library and the command line.

Every kind of the typology has its rule tested here, with the cases where it must stay
silent; MixedNB and ``nbayes train`` make the same choices and give the same probabilities
on the same file; identifiers are left out with one warning that says how to keep them;
dates become calendar features that predict reads from the raw column and model files keep;
reading never crashes on a mixed column in any input format (a property test).
"""

from __future__ import annotations

import io
import json
import re
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nbayes import ColumnWarning, MixedNB, load, save
from nbayes.cli import main
from nbayes.cli._models import load_plan
from nbayes.cli.train import train
from nbayes.columns import (
    Calendar,
    calendar_features,
    choices_from_state,
    choices_state,
    choices_table,
    coded_missing,
    date_format,
    format_choices,
    looks_like_index_name,
    read_column,
    read_columns,
    string_profile,
)
from nbayes.columns._identifiers import rank_evidence
from nbayes.exceptions import DataError, ModelFormatError, NotFittedError, ParameterError

RNG = np.random.default_rng(30)


def kind(values, name="x", **kwargs) -> str:
    series = values if isinstance(values, pd.Series) else pd.Series(values)
    return read_column(series, name, **kwargs).kind


# -- the typology, kind by kind -------------------------------------------------------------
def test_empty_and_constant_columns():
    assert kind([np.nan] * 5) == "empty"
    assert read_column(pd.Series([np.nan] * 5), "e").family == "gaussian"
    assert read_column(pd.Series([None] * 5, dtype=object), "e").family == "categorical"
    constant = read_column(pd.Series(np.zeros(30)), "pixel")
    assert (constant.kind, constant.family) == ("constant", "gaussian")
    assert constant.why == "one value (0.0) in every row"
    assert kind(["p"] * 30) == "constant"


def test_booleans_with_gaps_are_booleans():
    assert kind(pd.Series([True, None, False], dtype=object)) == "boolean"
    assert kind(pd.Series([True, pd.NA, False], dtype="boolean")) == "boolean"
    assert kind(np.array([True, False])) == "boolean"
    # Strings spelled true/false are categories (two values), not Python booleans.
    assert kind(["True", "False", "True"]) == "category"


@pytest.mark.parametrize("name", ["id", "ID", "rownames", "index", "Unnamed: 0", "patient_id"])
def test_identifiers_named_like_a_row_index(name):
    shuffled = RNG.permutation(np.arange(1, 201))[:140]  # a 70 % split, shuffled
    reading = read_column(pd.Series(shuffled), name)
    assert (reading.kind, reading.family) == ("identifier", None)
    assert "named like a row index" in reading.why
    assert reading.kept_family == "gaussian"
    assert read_column(pd.Series([f"P{i:04d}" for i in shuffled]), name).kind == "identifier"
    assert looks_like_index_name(name)


def test_a_column_named_like_a_row_index_identifies_subjects_too():
    # As Rdatasets' survival/bladder ('id': 85 patients over 340 rows), MASS/crabs ('index':
    # 1..50 in each group) and MASS/biopsy ('ID' with a few samples twice): new rows bring
    # new subjects, and a subject on both sides of a split teaches the model the subject.
    patients = np.repeat(np.arange(1, 86), 4)
    reading = read_column(pd.Series(RNG.permutation(patients)), "id")
    assert (reading.kind, reading.family) == ("identifier", None)
    assert "85 distinct values over 340 rows" in reading.why
    assert kind(np.tile(np.arange(1, 51), 4), "index") == "identifier"
    assert kind([f"S{i % 40}" for i in range(120)], "sample_id") == "identifier"
    assert kind(pd.Series([1.0, np.nan, *range(2, 60)]), "id") == "identifier"  # a gap
    # Few distinct values, or measurements, keep their kind whatever the name.
    assert kind(np.tile(np.arange(1, 6), 20), "id") == "number"
    assert kind(RNG.normal(size=100).round(2), "id") == "number"


def test_identifier_rules_stay_silent_on_measurements():
    # Floats distinct in every row are measurements.
    assert kind(RNG.normal(size=300), "weight") == "number"
    # Whole-number floats named id are identifiers; without the name, numbers.
    assert kind(np.arange(100.0), "id") == "identifier"
    assert kind(np.arange(100.0), "count") == "number"
    # Distinct integers spread thin over their range are amounts, not row numbers.
    assert kind(RNG.choice(10**6, size=300, replace=False), "income") == "number"
    # Unnamed row numbers need 30 rows; named ones 20; without the name, a gap or a repeat
    # makes numbers.
    assert kind(np.arange(25), "n") == "number"
    assert kind(np.arange(10), "id") == "number"
    assert kind(pd.Series([1.0, np.nan, *range(2, 60)]), "n") == "number"
    assert kind(pd.Series([1, 1, *range(2, 60)]), "n") == "number"  # a repeat
    # Codes distinct in every row are identifiers; numbers written as text, or repeated
    # codes, are not.
    assert kind([f"A-{i}" for i in range(60)]) == "identifier"
    assert kind([f"{i},50" for i in range(60)]) != "identifier"
    assert kind([f"A-{i % 30}" for i in range(60)]) == "category"
    assert not looks_like_index_name("idea") and not looks_like_index_name("paid")
    # Years of a yearly series and ranks fill their range as row numbers do; their names say
    # they are measures (Ecdat/bankingCrises' year in a 70 % split, HSAUR/Forbes2000's rank).
    years = RNG.choice(np.arange(1800, 2011), 148, replace=False)
    for name in ("year", "Year", "birth_year", "time", "rank"):
        assert kind(years, name) == "number", name
    assert kind(RNG.permutation(np.arange(1, 2001)), "rank") == "number"
    assert kind(years, "obs") == kind(years, "idcase") == "identifier"


def test_ranks_are_kept_with_a_warning_and_row_numbers_left_out(tmp_path, capsys):
    # HistData/Guerry's Wealth: a rank of 1..86 (70 % of it in a split), informative; only
    # the name tells it from the row numbers that fill their range the same way.
    rng = np.random.default_rng(3)
    n = 86
    y = rng.integers(0, 2, n)
    wealth = np.argsort(np.argsort(rng.normal(2.0 * y, 1.0))) + 1  # a rank of 1..86
    rows = rng.permutation(n)[:60]
    wealth_rows = pd.Series(wealth[rows])
    reading = read_column(wealth_rows, "Wealth")
    assert (reading.kind, reading.family) == ("rank", "gaussian")
    assert "a rank or an ordering" in reading.why
    for name in ("rownames", "id", "Unnamed: 0", "X", "", "obs", "idcase", "row_nr", "i"):
        assert kind(wealth_rows, name) == "identifier", name
    frame = pd.DataFrame(
        {"X": rows + 1, "Wealth": wealth_rows, "label": np.where(y[rows] == 1, "a", "b")}
    )
    with pytest.warns(ColumnWarning, match=r"models column\(s\) \['Wealth'\] as numbers") as got:
        model = MixedNB().fit(frame[["X", "Wealth"]], frame["label"])
    assert model.column_families_["Wealth"] == "gaussian" and "X" not in model.column_families_
    assert sum("Wealth" in str(w.message) for w in got) == 1
    path = tmp_path / "guerry.csv"
    frame.to_csv(path, index=False)
    assert main(["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes")]) == 0
    err = capsys.readouterr().err
    assert err.count("'Wealth'") == 1 and "--exclude Wealth" in err, err
    assert "leaving out column(s) ['X'], identifiers" in err
    assert load(str(tmp_path / "m.nbayes")).column_families_["Wealth"] == "gaussian"
    # Two ranks: the fix names --exclude for whichever of them numbers the rows.
    frame["Lottery"] = rng.permutation(60) + 1
    frame.to_csv(path, index=False)
    assert main(["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes")]) == 0
    err = capsys.readouterr().err
    assert "['Wealth', 'Lottery'] as numbers" in err, err
    assert "if one of them numbers the rows, train again with --exclude and its name" in err


def test_codes_names_and_row_names_of_the_corpus_are_identifiers():
    # Ecdat/Bids' docno, Ecdat/Caschool's distcod, ggplot2/midwest's PID: codes by name.
    codes = pd.Series(RNG.choice(np.arange(61382, 75440), 80, replace=False))
    assert kind(codes, "distcod") == kind(codes, "docno") == kind(codes, "PID") == "identifier"
    assert kind(codes, "income") == "number"
    # A code's ending as a word of its own, not the end of an ordinary word.
    assert kind(codes, "case_no") == kind(codes, "DocNum") == "identifier"
    for measure in ("casino", "maximum", "premium", "sodium", "Volcano"):
        assert kind(codes, measure) == "number", measure
    # pscl/ca2006's district: 37 whole numbers of 1..53, distinct, under a name that is not
    # a row number's: kept as a rank, with a warning (see the test of ranks).
    assert kind(RNG.choice(np.arange(1, 54), 37, replace=False), "district") == "rank"
    # geepack/koch's row names 17.1, 17.2 ...; psych/msq's subjects 6.1, 6.2 ... repeated.
    names = pd.Series([i + k / 10 for i in range(1, 40) for k in (1, 2)])
    assert kind(names, "rownames") == "identifier" and kind(names, "index") == "number"
    assert kind(pd.concat([names] * 3), "ID") == "identifier"
    assert kind(names.sample(frac=1.0, random_state=0) - 20.05, "id") == "number"  # negatives
    # Names distinct in every row of a table under 50 rows (Zelig/PErisk's countries,
    # HistData/DrinksWages' trades); short texts whose words recur are not names.
    countries = [f"Country{i}" for i in range(42)] + ["Gambia, The", "Papua New Guinea"]
    assert kind(countries) == "identifier"  # one name of three words among 44
    assert kind([f"shop hand {i}" for i in range(40)]) != "identifier"
    assert kind([f"{w} street" for w in countries]) != "identifier"


def test_timestamps_in_the_written_forms_of_the_issue():
    forms = [
        "2022-02-11T00:00:00Z",
        "2022-02-11T08:30:00+01:00",
        "2022-02-11 08:30:00",
        "2022-02-11",
        "2/11/22",
        "2/11/2022",
        "11.02.2022",
        "11.02.22",
        "2022/02/11 08:30",
        "2/11/2022 8:30",
        # Two-digit years with a time: once read as names distinct in every row, left out.
        "2/11/22 8:30",
        "02/11/22 08:30:15",
        "13/02/22 08:30",
        "11.02.22 08:30",
    ]
    for text in forms:  # Friday 11 February 2022 in every form (13/02 in the 13th's)
        form = date_format(pd.Series([text] * 3))
        assert form is not None, text
        parts = calendar_features(pd.Series([text], name="t"), ("year", "month", "dayofweek"), form)
        day = 6 if text.startswith("13/") else 4
        assert parts.iloc[0].tolist() == [2022, 2, day], (text, form)
    assert date_format(pd.Series(["2/11/22"])) == "%m/%d/%y"
    stamps = pd.Series(pd.date_range("2020-03-01 08:00", periods=60, freq="7h"))
    reading = read_column(stamps.dt.strftime("%m/%d/%y %H:%M"), "when")
    assert (reading.kind, reading.parts[-1]) == ("timestamp", "hour")
    # Day first where a day is over 12; month first on a tie.
    assert date_format(pd.Series(["13/02/2022", "11/02/2022"])) == "%d/%m/%Y"
    assert date_format(pd.Series(["a", "b"])) is None
    assert date_format(pd.Series([1, 2])) is None
    assert date_format(pd.Series(["2022-13-45"] * 3)) is None


@pytest.mark.parametrize(
    ("written", "form"),
    [
        (["64-03-01", "70-05-02", "10-01-01", "99-12-31"], "%y-%m-%d"),
        (["3/1/64", "5/2/70", "1/1/10", "12/31/99"], "%m/%d/%y"),
        (["01.03.64", "02.05.70", "01.01.10", "31.12.99"], "%d.%m.%y"),
        ([640301, 700502, 100101, 991231, *range(800102, 800109)], "%y%m%d"),  # 10 dates
    ],
)
def test_two_digit_years_in_the_future_go_back_a_century(written, form):
    # Python's cutoff puts 64 in 2064; a birth date written 3/1/64 was in 1964. Years up to
    # the current one stay in this century.
    series = pd.Series(written * 5, name="born")
    reading = read_column(series, "born")
    assert (reading.kind, reading.date_format) == ("timestamp", form)
    features = calendar_features(series, ("year", "dayofweek"), form)
    assert features["born.year"].iloc[:4].tolist() == [1964, 1970, 2010, 1999]
    assert features["born.dayofweek"].iloc[0] == 6  # 1 March 1964 was a Sunday
    four_digits = pd.Series(["3/1/2064", "5/2/1970"] * 10)
    assert calendar_features(four_digits, ("year",), "%m/%d/%Y").iloc[0, 0] == 2064


def test_calendar_features_in_local_time_and_with_hours_only_where_written():
    days = pd.Series(pd.date_range("2022-02-07", periods=7).strftime("%Y-%m-%dT00:00:00Z"))
    reading = read_column(days, "day")
    assert reading.kind == "timestamp" and reading.parts == ("year", "month", "dayofweek")
    assert "calendar features year, month, dayofweek" in reading.why
    features = calendar_features(days.rename("day"), reading.parts, reading.date_format)
    assert features["day.dayofweek"].tolist() == list(range(7))
    stamp = pd.Series(["2022-02-11T23:30:00-05:00", "nonsense", None], name="t")
    out = calendar_features(stamp, ("dayofweek", "hour"), "ISO8601")
    assert out.iloc[0].tolist() == [4, 23]  # Friday 23:30 where it was written
    assert out.iloc[1:].isna().all().all()
    aware = pd.Series(pd.date_range("2024-01-01", periods=3, freq="h", tz="Europe/Oslo"))
    assert read_column(aware, "t").parts == ("year", "month", "dayofweek", "hour")
    assert calendar_features(aware.rename("t"), ("hour",))["t.hour"].tolist() == [0, 1, 2]
    dates = pd.Series([pd.Timestamp("2024-01-01").date(), None], dtype=object, name="d")
    assert read_column(dates).kind == "timestamp"
    assert calendar_features(dates, ("month",))["d.month"].tolist()[0] == 1


def test_numbers_with_coded_missing_values():
    ages = np.concatenate([RNG.integers(18, 90, 300), [999] * 12])
    reading = read_column(pd.Series(ages), "age")
    assert reading.kind == "coded number" and reading.codes == (999.0,)
    assert "999 repeated far outside the other values" in reading.why
    income = np.concatenate([RNG.normal(5e4, 1e4, 300), [999999.375] * 5])
    assert coded_missing(pd.Series(income)) == (999999.375,)
    # The advice names the value as written: replace([999999], ...) would match nothing.
    frame = pd.DataFrame({"income": income, "x": RNG.normal(size=len(income))})
    with pytest.warns(ColumnWarning, match=re.escape("replace([999999.375], np.nan)")):
        MixedNB().fit(frame, RNG.choice(["a", "b"], len(income)))
    assert "999999.375 repeated" in read_column(frame["income"], "income").why
    counts = np.concatenate([RNG.integers(0, 40, 300), [-1] * 9])
    assert coded_missing(pd.Series(counts)) == (-1.0,)
    assert coded_missing(pd.Series(np.r_[RNG.integers(1, 6, 60), [-99] * 4])) == (-99.0,)
    # Silent: a top-code near the other values (Adult's 99999 capital gains), -1 in a
    # sentiment of three values, a code seen twice, 99 inside the values, text.
    gains = np.r_[np.zeros(300), RNG.integers(1000, 41310, 60), [41310], [99999] * 10]
    assert coded_missing(pd.Series(gains)) == ()
    assert coded_missing(pd.Series(RNG.integers(-1, 2, 300))) == ()
    assert coded_missing(pd.Series(np.r_[RNG.integers(18, 90, 300), [999] * 2])) == ()
    assert coded_missing(pd.Series(RNG.integers(0, 120, 300))) == ()
    assert coded_missing(pd.Series(["999"] * 10)) == ()
    assert coded_missing(pd.Series([999.0] * 4 + [1.0, 2.0])) == ()  # too few others


def test_numbers_categories_and_texts():
    assert read_column(pd.Series(RNG.integers(0, 5, 100)), "n").family == "categorical"
    assert read_column(pd.Series(RNG.integers(0, 500, 100)), "n").family == "gaussian"
    assert read_column(pd.Series(RNG.integers(0, 50, 100)), "n", max_int_categories=60).family == (
        "categorical"
    )
    assert kind(pd.Series(["a", "b"] * 5, dtype="category")) == "category"
    sentence = "the parcel arrived on a rainy day and I was happy with it"
    assert kind([f"{sentence} {i}" for i in range(30)]) == "free text"
    streets = [f"{i} {s} Street" for i, s in zip(range(60), ["Oak", "Elm", "Lake"] * 20)]
    assert kind(streets) == "short text"
    assert kind([[1], [2]]) == "category"  # lists: categories refuse them with their own fix
    assert string_profile(pd.Series([1, 2])).role == "category"


def test_choices_table_and_its_text():
    table = pd.DataFrame(
        {"id": np.arange(60), "city": ["Oslo", "Rome"] * 30, "v": RNG.normal(size=60)}
    )
    readings = read_columns(table)
    choices = choices_table(readings)
    assert choices.loc["id", "family"] == "left out"
    assert choices.loc["city"].tolist() == ["category", "categorical", "2 distinct values"]
    lines = format_choices(readings, width=60)
    assert lines[0].split() == ["column", "kind", "family", "why"]
    assert all(len(line) <= 60 for line in lines) and lines[1].endswith("...")
    assert readings[0].warning() is not None and readings[1].warning() is None
    assert readings[0].feature_names() == [] and readings[1].feature_names() == ["city"]


def test_the_choices_read_back_from_a_model_file_s_plain_data():
    """A model file keeps the readings as plain data; they read back with their kinds,
    families, evidence and calendar parts (none for a file fitted on no column)."""
    when = pd.date_range("2024-01-01", periods=60, freq="h").strftime("%Y-%m-%d %H:%M")
    readings = read_columns(pd.DataFrame({"id": np.arange(60), "when": when}))
    back = choices_from_state(choices_state(readings))
    assert choices_table(back).equals(choices_table(readings))
    assert [r.parts for r in back] == [(), ("year", "month", "dayofweek", "hour")]
    assert choices_from_state([]) == [] and choices_from_state(None) is None
    with pytest.raises(ValueError, match="the column choice"):
        choices_from_state([["when", "timestamp", "calendar", "dates", ["minute"]]])


# -- MixedNB ----------------------------------------------------------------------------------
def weekday_table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    days = pd.date_range("2022-01-01", periods=n, freq="D")
    frame = pd.DataFrame(
        {
            "rownames": np.arange(1, n + 1),
            "day": days.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "noise": rng.normal(size=n),
        }
    )
    return frame, np.asarray(days.day_name())


def test_mixed_leaves_out_identifiers_with_one_warning_and_reads_dates_as_a_calendar():
    frame, y = weekday_table()
    order = np.random.default_rng(1).permutation(len(y))  # a shuffled split
    train_rows, test_rows = order[:280], order[280:]
    with pytest.warns(ColumnWarning) as caught:
        model = MixedNB().fit(frame.iloc[train_rows], y[train_rows])
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "leaves out column(s) ['rownames']" in message
    assert "columns=[('gaussian', ['rownames'])]" in message
    assert "rownames" not in model.column_families_
    assert model.column_families_["day.dayofweek"] == "categorical"
    assert (model.predict(frame.iloc[test_rows]) == y[test_rows]).mean() > 0.95
    choices = model.column_choices_
    assert choices.loc["rownames", "family"] == "left out"
    assert choices.loc["day", "kind"] == "timestamp"
    assert model.summary().loc["day.dayofweek", "kind"] == "timestamp"
    assert list(model.feature_names_in_) == ["rownames", "day", "noise"]
    # Kept by naming it; read as categories by naming them so.
    kept = MixedNB(columns=[("gaussian", ["rownames"]), ("categorical", ["day"])])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ColumnWarning)
        kept.fit(frame.iloc[train_rows], y[train_rows])
    assert kept.column_families_ == {
        "rownames": "gaussian",
        "day": "categorical",
        "noise": "gaussian",
    }
    assert kept.column_choices_.loc["rownames", "kind"] == "named"


def test_infer_families_explains_and_the_calendar_group_names_dates():
    frame, y = weekday_table(100)
    table = MixedNB().infer_families(frame, explain=True)
    assert table.columns.tolist() == ["kind", "family", "why"]
    assert table["kind"].tolist() == ["identifier", "timestamp", "number"]
    families = MixedNB().infer_families(frame.drop(columns="rownames"))
    assert families == {
        "noise": "gaussian",
        "day.year": "categorical",
        "day.month": "categorical",
        "day.dayofweek": "categorical",
    }
    named = MixedNB(columns=[("calendar", ["day"])], remainder="drop").fit(frame, y)
    assert list(named.column_families_) == ["day.year", "day.month", "day.dayofweek"]
    with pytest.raises(ParameterError, match="'noise' is named in a 'calendar' group"):
        MixedNB(columns=[("calendar", ["noise"])]).fit(frame, y)
    with pytest.raises(ParameterError, match="every column is an identifier"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ColumnWarning)
            MixedNB().fit(frame[["rownames"]], y)
    with pytest.raises(NotFittedError, match=r"call fit, or infer_families\(X, explain=True\)"):
        MixedNB().column_choices_  # noqa: B018


def test_coded_missing_values_are_reported_by_the_library():
    ages = np.concatenate([RNG.integers(18, 90, 200), [999] * 10])
    frame = pd.DataFrame({"age": ages})
    with pytest.warns(
        ColumnWarning, match=r"Column 'age' holds 999 .*\.replace\(\[999\], np\.nan\)"
    ):
        model = MixedNB().fit(frame, RNG.integers(0, 2, len(ages)))
    assert model.column_choices_.loc["age", "kind"] == "coded number"


def test_calendar_features_live_in_the_model_file(tmp_path):
    frame, y = weekday_table(300)
    frame = frame.drop(columns="rownames")
    model = MixedNB().fit(frame, y)
    path = tmp_path / "m.nbayes"
    save(model, path)
    again = load(path)
    assert again.column_families_ == model.column_families_
    np.testing.assert_array_equal(again.predict_proba(frame), model.predict_proba(frame))
    # Merged and partially fitted models keep the expansion.
    more = MixedNB().fit(frame, y)
    more.partial_fit(frame.iloc[:50], y[:50])
    assert more.predict(frame.iloc[:5]).tolist() == list(y[:5])
    # A file without calendar features keeps layout version 1, readable by older nbayes.
    plain = tmp_path / "p.nbayes"
    save(MixedNB().fit(frame[["noise"]], y), plain)
    assert _layout(plain)["version"] == 1 and "calendar" not in _layout(plain)
    assert _layout(path)["version"] == 2


def _layout(path) -> dict:
    with zipfile.ZipFile(path) as z:
        manifest = json.loads(z.read("manifest.json"))
    return manifest["state"]["mixed"]


@pytest.mark.parametrize(
    "calendar",
    [
        "x",
        [[0, "ISO8601"]],
        [[True, "ISO8601", ["year"]]],
        [[0, "%Q", ["year"]]],
        [[0, None, ["week"]]],
        [[0, None, []]],
        [[5, None, ["year"]]],
    ],
)
def test_forged_calendar_entries_are_refused(tmp_path, calendar):
    frame, y = weekday_table(60)
    model = MixedNB().fit(frame.drop(columns="rownames"), y)
    path = tmp_path / "m.nbayes"
    save(model, path)
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    manifest = json.loads(files["manifest.json"])
    manifest["state"]["mixed"]["calendar"] = calendar
    files["manifest.json"] = json.dumps(manifest).encode()
    forged = tmp_path / "forged.nbayes"
    with zipfile.ZipFile(forged, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    with pytest.raises(ModelFormatError):
        load(forged)


def test_calendar_state_round_trip():
    calendar = Calendar([1], ["ISO8601"], [("year", "hour")])
    assert Calendar.from_state(calendar.state()).state() == calendar.state()
    assert calendar.names(["a", "when"]) == ["when.year", "when.hour"]
    assert not Calendar() and calendar


# -- the command line: the same choices and probabilities as the library -----------------------
def _cli_equals_api(path, target, tmp_path, **read_csv):
    out = tmp_path / "m.nbayes"
    train(str(path), target, str(out), model="mixed")
    plan = load_plan(str(out))
    frame = pd.read_csv(path, **read_csv)
    X, y = frame.drop(columns=[target]), frame[target]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ColumnWarning)
        api = MixedNB().fit(X, y)
    cli = plan.estimator
    assert cli.column_families_ == api.column_families_
    np.testing.assert_allclose(
        cli.predict_proba(plan.inputs(frame, 0, str(path))), api.predict_proba(X), atol=1e-12
    )
    return cli, api


def test_cli_and_api_agree_on_the_shared_tables(shared_data, tmp_path):
    from test_real_tables import load_adult, load_mushroom

    (X, y), _ = load_adult(shared_data)
    adult = X.assign(income=y).sample(n=6000, random_state=0).reset_index()
    adult.to_csv(tmp_path / "adult.csv", index=False)
    cli, _ = _cli_equals_api(tmp_path / "adult.csv", "income", tmp_path)
    assert "index" not in cli.feature_names_in_  # the shuffled row index is left out
    X, y = load_mushroom(shared_data)
    X.assign(label=y).sample(frac=0.7, random_state=0).to_csv(tmp_path / "mushroom.csv")
    _cli_equals_api(tmp_path / "mushroom.csv", "label", tmp_path)
    spam = pd.read_csv(shared_data / "spambase" / "spambase.data", header=None)
    spam.columns = [f"c{j}" for j in range(spam.shape[1])]
    spam.sample(frac=0.7, random_state=0).to_csv(tmp_path / "spambase.csv")
    _cli_equals_api(tmp_path / "spambase.csv", "c57", tmp_path)
    sms = pd.read_csv(
        shared_data / "sms_spam_collection" / "SMSSpamCollection",
        sep="\t",
        header=None,
        names=["label", "text"],
        quoting=3,
    )
    sms.sample(frac=0.3, random_state=0).to_csv(tmp_path / "sms.csv")  # free text as categories
    cli, api = _cli_equals_api(tmp_path / "sms.csv", "label", tmp_path)
    assert api.column_choices_.loc["text", "kind"] == "free text"


def messy_frame(n=300, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    flag = np.where(rng.random(n) < 0.05, None, rng.random(n) < 0.3 + 0.4 * y).astype(object)
    income = np.where(rng.random(n) < 0.05, 999999, rng.integers(1000, 90000, n))
    return pd.DataFrame(
        {
            "rownames": rng.permutation(n) + 1,
            "when": pd.date_range("2023-01-01", periods=n, freq="7h").strftime("%m/%d/%Y %H:%M"),
            "flag": flag,
            "income": income,
            "city": rng.choice(["Oslo", "Rome", "Lima"], n),
            "code": [f"K{i:05d}" for i in rng.permutation(n)],
            "label": np.where(y == 1, "yes", "no"),
        }
    )


def test_cli_and_api_agree_on_a_messy_table_and_say_the_same(tmp_path, capsys):
    frame = messy_frame()
    path = tmp_path / "messy.csv"
    frame.to_csv(path, index=False)
    cli, api = _cli_equals_api(path, "label", tmp_path)
    assert set(cli.feature_names_in_) == {"when", "flag", "income", "city"}
    assert api.column_choices_.loc["when", "why"].startswith("dates written as %m/%d/%Y %H:%M")
    assert main(["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes")]) == 0
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line]
    assert all(line.startswith("nbayes: warning: ") for line in lines), err
    assert "ColumnWarning" not in err
    assert "leaving out column(s) ['rownames', 'code'], identifiers" in err
    assert "column 'income' holds 999999 repeated far outside" in err
    assert "pass --na-values=999999" in err
    assert "how each column is read:" in out
    assert "when      timestamp     calendar" in out
    assert main(["inspect", str(tmp_path / "m.nbayes")]) == 0
    shown = capsys.readouterr().out
    assert "how nbayes train read each column:" in shown and "left out" in shown
    # Kept when named in --features: modelled, with the family it would have.
    argv = ["train", str(path), "-t", "label", "-o", str(tmp_path / "k.nbayes"), "-q"]
    assert main([*argv, "--features", "rownames,city,when"]) == 0
    assert load(str(tmp_path / "k.nbayes")).column_families_["rownames"] == "gaussian"
    # Evaluate and predict read the raw date column of new rows.
    assert main(["evaluate", str(tmp_path / "m.nbayes"), str(path)]) == 0
    assert (
        main(["predict", str(tmp_path / "m.nbayes"), str(path), "-o", str(tmp_path / "p.csv")]) == 0
    )
    assert "never seen in training" not in capsys.readouterr().err


def gapped_frame(n=300, seed=0, gap_at=(17,)) -> pd.DataFrame:
    """Whole numbers (a code 1..5, a count) with one empty cell each, which pandas reads as
    floats, beside a measure with a fraction and a gap."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "rating": rng.integers(1, 4, n) + 2 * y,
            "visits": rng.poisson(2 + 4 * y),
            "weight": rng.normal(60 + 5 * y, 8).round(1),
            "label": np.where(y == 1, "yes", "no"),
        }
    ).astype({"rating": float, "visits": float})
    for row in gap_at:
        frame.loc[row, ["rating", "visits", "weight"]] = np.nan
    return frame


def test_whole_numbers_with_a_gap_are_read_as_without_it():
    frame = gapped_frame()
    whole = frame.dropna().astype({"rating": int, "visits": int})
    for column in ("rating", "visits"):
        gapped, full = read_column(frame[column], column), read_column(whole[column], column)
        assert (gapped.kind, gapped.family) == (full.kind, full.family) == ("number", "categorical")
        assert "distinct values and gaps" in gapped.why
    assert read_column(frame["weight"], "weight").family == "gaussian"  # fractions: a measure
    with_fraction = frame["rating"].where(frame.index != 3, 2.5)
    assert read_column(with_fraction, "rating").family == "gaussian"
    assert read_column(frame["rating"].dropna(), "rating").family == "gaussian"  # no gap: floats


def test_cli_and_api_agree_on_whole_numbers_with_a_gap(tmp_path, capsys):
    path = tmp_path / "gapped.csv"
    gapped_frame().to_csv(path, index=False)  # written as 3.0, 5.0, ..., and one empty cell
    _, api = _cli_equals_api(path, "label", tmp_path)
    expected = {"rating": "categorical", "visits": "categorical", "weight": "gaussian"}
    assert {c: api.column_families_[c] for c in expected} == expected
    assert main(["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"rating +number +categorical +integers with 5 distinct values and gaps", out)


@pytest.mark.parametrize("model", ["categorical", "aode"])
def test_dates_under_other_models(tmp_path, model):
    path = tmp_path / "d.csv"
    messy_frame().to_csv(path, index=False)
    trained = load(train(str(path), "label", str(tmp_path / "m.nbayes"), model=model).output)
    if model == "categorical":
        assert trained.column_families_["when.hour"] == "categorical"
    else:
        assert "when.hour" in trained.categories_  # calendar features, as MixedNB's


def test_a_true_false_column_with_one_empty_cell_trains(tmp_path, capsys):
    """Why 4 of issue 30: pandas reads such a column as Python booleans and NaN, which the
    check for values spanning lines took for text and crashed on."""
    path = tmp_path / "b.csv"
    path.write_text("a,flag,y\n1,True,x\n2,,y\n3,False,x\n4,True,y\n")
    model = tmp_path / "b.nbayes"
    assert main(["train", str(path), "-t", "y", "-o", str(model), "-q"]) == 0
    assert load(str(model)).column_families_["flag"] == "bernoulli"
    assert main(["evaluate", str(model), str(path)]) == 0
    assert main(["predict", str(model), str(path), "-o", str(tmp_path / "p.csv")]) == 0
    assert "this is a bug" not in capsys.readouterr().err


# -- never a crash on a mixed column (property test) --------------------------------------------
CELL = st.one_of(
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=False, width=32),
    st.sampled_from(
        ["", "a", "b c", "?", "999", "1,5", "2022-02-11", "2022-02-11T00:00:00Z", "3/4/22"]
    ),
    st.text(alphabet="abc ,;\"'\n\t\\", max_size=6),
    st.dates().map(str),
    st.none(),
)


def _write(frame: pd.DataFrame, path, fmt: str) -> None:
    if fmt == "csv":
        frame.to_csv(path, index=False)
    elif fmt == "tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif fmt == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.astype({"mixed": str}).to_parquet(path) if frame["mixed"].map(
            type
        ).nunique() > 1 else frame.to_parquet(path)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    cells=st.lists(CELL, min_size=2, max_size=30),
    fmt=st.sampled_from(["csv", "tsv", "jsonl", "parquet"]),
)
def test_reading_never_reaches_a_bug_on_mixed_columns(tmp_path_factory, cells, fmt):
    folder = tmp_path_factory.mktemp("mixed")
    n = len(cells)
    frame = pd.DataFrame(
        {
            "mixed": pd.Series(cells, dtype=object),
            "x": np.arange(n, dtype=float) % 3,
            "y": ["a", "b"] * (n // 2) + ["a"] * (n % 2),
        }
    )
    path = folder / f"t.{fmt}"
    try:
        _write(frame, path, fmt)
    except Exception:  # noqa: BLE001 - a table pandas cannot write is no input to read
        return
    err = io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(err):
        status = main(["train", str(path), "-t", "y", "-o", str(folder / "m.nbayes"), "-q"])
        if status == 0:
            status = main(
                ["predict", str(folder / "m.nbayes"), str(path), "-o", str(folder / "p.csv")]
            )
    assert status in (0, 1), err.getvalue()
    assert "this is a bug in nbayes" not in err.getvalue(), err.getvalue()
    # The library's reading of the same column never raises.
    read_column(frame["mixed"], "mixed")


def test_categorical_option_overrides_the_reading_by_name(tmp_path, capsys):
    path = tmp_path / "messy.csv"
    messy_frame().to_csv(path, index=False)
    out = tmp_path / "c.nbayes"
    argv = ["train", str(path), "-t", "label", "-o", str(out), "--categorical", "rownames,when"]
    assert main(argv) == 0
    families = load(str(out)).column_families_
    assert families["rownames"] == families["when"] == "categorical"
    assert "when.month" not in families
    said = capsys.readouterr()
    assert "['rownames', 'code']" not in said.err and "['code']" in said.err
    assert re.search(r"when\s+category\s+categorical", said.out) is None  # the kind stays
    assert re.search(r"when\s+timestamp\s+categorical", said.out), said.out
    assert main([*argv[:6], "--categorical", "rownames", "--model", "gaussian"]) == 2
    assert main([*argv[:6], "--categorical", "nope"]) == 1
    assert main([*argv[:6], "--categorical", "city", "--model", "aode"]) == 0


def test_a_date_column_empty_in_the_first_chunk_is_read_as_written(tmp_path):
    n = 400
    frame = pd.DataFrame(
        {
            "x": RNG.normal(size=n),
            "when": [None] * 300 + list(pd.date_range("2024-01-01", periods=100).astype(str)),
            "y": ["a", "b"] * (n // 2),
        }
    )
    path = tmp_path / "late.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "m.nbayes"
    assert main(["train", str(path), "-t", "y", "-o", str(out), "-q", "--chunk-rows", "100"]) == 0
    assert load(str(out)).column_families_["when"] == "categorical"


def test_a_left_out_column_is_not_needed_to_predict(tmp_path):
    df = pd.DataFrame(
        {
            "id": np.arange(1000, 1300),
            "color": RNG.choice(["red", "green", "blue"], 300),
            "weight": RNG.normal(70, 10, 300),
        }
    )
    y = np.where(df["weight"] > 70, "heavy", "light")
    with pytest.warns(ColumnWarning, match="leaves out column"):
        model = MixedNB().fit(df, y)
    reloaded = load(save(model, tmp_path / "m.nbayes"))
    for m in (model, reloaded):
        np.testing.assert_array_equal(
            m.predict_proba(df.drop(columns="id")), model.predict_proba(df)
        )
        with pytest.raises(DataError, match=r"lacks column\(s\) \['color'\]"):
            m.predict_proba(df.drop(columns=["id", "color"]))
    dropped = MixedNB(columns=[("gaussian", ["weight"])], remainder="drop").fit(df, y)
    np.testing.assert_array_equal(dropped.predict_proba(df[["weight"]]), dropped.predict_proba(df))


def test_the_identifier_rules_at_their_edges():
    # A rank with one empty cell does not label every row: a number, not a rank.
    wealth = pd.Series(np.random.default_rng(1).permutation(40) + 1, dtype="Int64")
    assert rank_evidence("Wealth", wealth, 40) is not None
    wealth[5] = pd.NA
    assert rank_evidence("Wealth", wealth, 40) is None
    assert kind(wealth, "Wealth") == "number"
    # R's row names with a fraction (12.5, 13.5, ...), distinct in every row: an identifier.
    halves = read_column(pd.Series([i + 0.5 for i in range(40)]), "rownames")
    assert (halves.kind, halves.why) == (
        "identifier",
        "named like a row index, values distinct in all 40 rows",
    )
    # Values named like a row index that repeat but mix numbers and strings: not a subject's
    # identifier (neither whole numbers nor codes), a category.
    mixed = pd.Series([i if i % 2 else f"s{i}" for i in range(30)] * 2, dtype=object)
    assert kind(mixed, "id") == "category"
    # Distinct whole numbers under a row number's name that do not fill their range (case
    # numbers drawn from 1..10,000) are not row numbers: a number column.
    sparse = pd.Series(np.random.default_rng(2).choice(np.arange(1, 10_001), 40, replace=False))
    assert kind(sparse, "obs") == "number"
    # Distinct values that are not all strings are not names or codes either.
    assert kind(pd.Series([i if i % 2 else f"s{i}" for i in range(40)], dtype=object)) != (
        "identifier"
    )
