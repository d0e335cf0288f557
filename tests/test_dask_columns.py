"""nbayes.dask reads columns as MixedNB.fit does: the survey gathers what the rules of
nbayes.columns read, part by part, and the readings, families and probabilities are those of
``MixedNB().fit`` on the computed frame."""

from __future__ import annotations

import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from test_columns import gapped_frame, messy_frame

from nbayes import ColumnWarning, MixedNB
from nbayes import dask as nbdask
from nbayes.columns import _survey as columns_survey
from nbayes.columns import coded_missing
from nbayes.columns._coded import codes_from_counts


def _agree(frame: pd.DataFrame, target: str, npartitions: int = 3, same_why=True, **params):
    """Fit MixedNB on ``frame`` in Dask partitions and on the computed frame; assert the same
    choices and probabilities, and return the Dask model."""
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    full = ddf.compute()
    X, y = full.drop(columns=[target]), full[target]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ColumnWarning)
        api = MixedNB(**params).fit(X, y)
        with dask.config.set(scheduler="synchronous"):
            got = nbdask.fit(MixedNB(**params), ddf.drop(columns=[target]), ddf[target])
    columns = ["kind", "family"] + (["why"] if same_why else [])
    pd.testing.assert_frame_equal(got.column_choices_[columns], api.column_choices_[columns])
    assert got.column_families_ == api.column_families_
    np.testing.assert_allclose(got.predict_proba(X), api.predict_proba(X), rtol=0, atol=1e-9)
    return got


def messier_frame(n=400, seed=1) -> pd.DataFrame:
    """Dates of every kind, identifiers, coded missing values, booleans with gaps, strings."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    days = pd.date_range("2021-03-01", periods=n, freq="D")
    return pd.DataFrame(
        {
            "row": rng.permutation(n) + 100,  # shuffled row numbers
            "patient_id": rng.integers(0, 60, n),  # a subject's identifier
            "stamp": pd.date_range("2022-01-01", periods=n, freq="5h", tz="Europe/Oslo"),
            "day": days,  # a datetime without a time of day
            "dotted": days.strftime("%d.%m.%Y"),
            "iso": pd.Series(days.strftime("%Y-%m-%dT08:00:00+01:00")).where(rng.random(n) > 0.1),
            "score": np.where(rng.random(n) < 0.05, -99.0, rng.normal(50 + 5 * y, 8)),
            "count": np.where(rng.random(n) < 0.04, -1, rng.integers(0, 40, n)),
            "gaps": pd.Series(np.where(rng.random(n) < 0.1, None, rng.random(n) < 0.5)),
            "bools": rng.random(n) < 0.2 + 0.2 * y,
            "small": rng.integers(0, 5, n),
            "same": 7,
            "nothing": np.nan,
            "ticket": [f"T-{i:04d}" for i in rng.permutation(n)],  # codes distinct per row
            "address": [
                f"{k} {rng.choice(['Oak', 'Elm', 'Main'])} street" for k in rng.integers(1, 400, n)
            ],
            "label": np.array(["a", "b", "c"])[y],
        }
    )


def test_a_messy_table_is_read_as_fit_reads_it():
    got = _agree(messy_frame(), "label")
    assert got.column_choices_.loc["rownames", "kind"] == "identifier"
    assert got.column_choices_.loc["when", "kind"] == "timestamp"
    assert got.column_choices_.loc["income", "kind"] == "coded number"


@pytest.mark.parametrize("convert_string", [True, False])
def test_a_messier_table_is_read_as_fit_reads_it(convert_string):
    with dask.config.set({"dataframe.convert-string": convert_string}):
        got = _agree(messier_frame(), "label", npartitions=4)
    kinds = got.column_choices_["kind"]
    assert kinds[["row", "patient_id", "ticket"]].eq("identifier").all()
    assert kinds[["stamp", "day", "dotted", "iso"]].eq("timestamp").all()
    assert kinds[["score", "count"]].eq("coded number").all()
    assert kinds["bools"] == "boolean"
    assert kinds["gaps"] == ("category" if convert_string else "boolean")
    assert (kinds["same"], kinds["nothing"], kinds["address"]) == (
        "constant",
        "empty",
        "short text",
    )
    assert got.column_choices_.loc["stamp", "why"].endswith("dayofweek, hour")  # local times
    assert got.column_choices_.loc["day", "why"].endswith("month, dayofweek")


def test_whole_numbers_with_a_gap_in_one_partition_are_read_as_fit_reads_them():
    got = _agree(gapped_frame(gap_at=(250,)), "label")
    assert got.column_families_["rating"] == got.column_families_["visits"] == "categorical"


def test_groups_and_limits_are_read_as_fit_reads_them():
    frame = messier_frame(n=300, seed=2)
    _agree(frame, "label", max_int_categories=3)
    _agree(frame, "label", columns=[("calendar", ["dotted"]), ("gaussian", ["small"])])
    _agree(frame, "label", columns=[("categorical", ["score"])], remainder="drop")


def test_past_the_cap_the_readings_are_those_of_fit(monkeypatch):
    """Number columns with more distinct values than the survey keeps: identifiers, codes and
    the family still come out as fit reads them (only the evidence of an integer column no
    longer counts its distinct values)."""
    monkeypatch.setattr(columns_survey, "CAP", 50)
    rng = np.random.default_rng(3)
    n = 600
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "rownumber": rng.permutation(n),  # distinct in every row: kept whole
            "case_nr": rng.permutation(n) * 7 + 3,  # a code: whole numbers distinct
            "amount": np.where(rng.random(n) < 0.05, 9999, rng.integers(0, 3000, n)),
            "level": np.where(rng.random(n) < 0.05, -1, rng.integers(0, 900, n)),
            "weight": np.where(rng.random(n) < 0.05, 999.0, rng.normal(60 + 3 * y, 5)),
            "gappy": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
            "label": y,
        }
    )
    got = _agree(frame, "label", same_why=False)
    kinds = got.column_choices_["kind"]
    assert kinds[["rownumber", "case_nr"]].eq("identifier").all()
    assert kinds[["amount", "level", "weight"]].eq("coded number").all()
    assert got.column_choices_.loc["amount", "why"].startswith("integers with more than 50")


@pytest.mark.parametrize("seed", range(20))
def test_codes_from_the_extremes_are_the_codes_of_all_values(seed):
    """Only the least and greatest values can code a missing value: the survey's extremes
    give the codes that every value gives."""
    rng = np.random.default_rng(seed)
    n = 500
    x = rng.choice([rng.normal(0, 30, n), rng.integers(0, 80, n).astype(float)])
    for code in rng.choice([-1.0, -9.0, -99.0, 99.0, 999.0, 99999.0], rng.integers(0, 3)):
        x[rng.random(n) < rng.choice([0.002, 0.01, 0.05])] = code
    values, counts = np.unique(x, return_counts=True)
    summary = columns_survey._past_cap(
        columns_survey.ColumnSummary(n, x[:10], values.astype(object), counts), track=False
    )
    got = codes_from_counts(*summary.extremes, summary.n_finite)
    assert got == coded_missing(pd.Series(x))


def test_shared_tables_are_read_as_fit_reads_them(shared_data, tmp_path):
    """Every table of ../shared/data that the column agreement test reads, written to CSV as a
    user would, subsampled."""
    from test_real_tables import load_adult, load_mushroom

    (X, y), _ = load_adult(shared_data)
    adult = X.assign(income=y).sample(n=3000, random_state=0).reset_index()
    X, y = load_mushroom(shared_data)
    mushroom = X.assign(label=y).sample(n=2000, random_state=0)
    spam = pd.read_csv(shared_data / "spambase" / "spambase.data", header=None)
    spam.columns = [f"c{j}" for j in range(spam.shape[1])]
    sms = pd.read_csv(
        shared_data / "sms_spam_collection" / "SMSSpamCollection",
        sep="\t",
        header=None,
        names=["label", "text"],
        quoting=3,
    )
    tables = [
        (adult, "income", False),
        (mushroom, "label", True),
        (spam.sample(n=2000, random_state=0), "c57", True),
        (sms.sample(n=1500, random_state=0), "label", True),
    ]
    for j, (table, target, index) in enumerate(tables):  # four tables
        path = tmp_path / f"t{j}.csv"
        table.to_csv(path, index=index)
        got = _agree(pd.read_csv(path), target)
        assert "identifier" in got.column_choices_["kind"].tolist()  # the written row index


def test_a_dask_fit_warns_once_of_each_choice():
    frame = messier_frame(n=200, seed=4)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    with pytest.warns(ColumnWarning) as record, dask.config.set(scheduler="synchronous"):
        nbdask.fit(MixedNB(), ddf.drop(columns=["label"]), ddf["label"])
    said = [str(w.message) for w in record if issubclass(w.category, ColumnWarning)]
    assert len(said) == len(set(said)) == 3  # the identifiers, and each of two coded columns
