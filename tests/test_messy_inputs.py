"""A corpus of messy tables, generated, for the automatic choices of ``nbayes train``.

Each generator writes a table whose columns a user would hand over as they are: short
multi-word strings (addresses, names, product titles), repeated multi-word categories, long
text next to numbers, near-unique identifiers, numbers written with a decimal comma or a
thousands separator, JSON records whose keys come and go, columns empty for the first rows,
dates and lists from Parquet. The tests train on them with ``--model auto`` and check what a
user expects: every column is modelled, ``auto`` is never clearly worse than ``--model mixed``,
each choice that re-reads or leaves out a column is said (even with ``--quiet``), and errors
name the fix without advising an option already in use.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from nbayes import MixedNB, load
from nbayes.cli import main
from nbayes.cli._models import string_profile
from nbayes.cli._tables import ReadOptions
from nbayes.cli.evaluate import evaluate
from nbayes.cli.train import train
from nbayes.exceptions import DataError

STREETS = ["Lake", "Oak", "Maple", "Pine", "Cedar", "Elm", "Hill", "Park", "River", "Sunset"]
STREET_KINDS = ["Dr", "St", "Ave", "Rd", "Ln"]
FIRST = ["John", "Mary", "Ann", "Bob", "Liz", "Tom", "Sue", "Max", "Eva", "Ian", "Kim", "Lou"]
LAST = ["Smith", "Jones", "Brown", "Lee", "Khan", "Diaz", "Wong", "Kim", "Ray", "Fox", "Li"]
BRANDS = ["Acme", "Zenith", "Orbit", "Nova", "Apex", "Vertex"]
ITEMS = ["Phone", "Laptop", "Cable", "Charger", "Case", "Tablet", "Mouse", "Screen"]
CITIES = ["New York City", "Rio de Janeiro", "Los Angeles CA", "Santa Fe", "San Jose"]


def _pick(rng, words, n):
    return np.asarray(words, dtype=object)[rng.integers(0, len(words), n)]


def messy_table(kind: str, n: int = 3000, seed: int = 0) -> pd.DataFrame:
    """A table with a label ``label`` (yes/no), numeric and category columns, and one messy
    column of the given kind. The label depends on income and age always; whether the messy
    column carries signal depends on the kind."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    df = pd.DataFrame(
        {
            "income": rng.normal(40000 + 12000 * y, 15000).round(2),
            "age": rng.normal(35 + 5 * y, 10).round().astype(int),
            "colour": np.where(rng.uniform(size=n) < 0.55 + 0.1 * y, "red", "blue"),
        }
    )
    number = rng.integers(1, 3000, n).astype(str)
    if kind == "addresses":  # near-unique, no signal: the house numbers are identifiers
        df["address"] = number + " " + _pick(rng, STREETS, n) + " " + _pick(rng, STREET_KINDS, n)
    elif kind == "addresses_signal":  # the street says something about the label
        street = np.where(y == 1, _pick(rng, STREETS[:5], n), _pick(rng, STREETS[5:], n))
        noisy = rng.uniform(size=n) < 0.3
        street[noisy] = _pick(rng, STREETS, int(noisy.sum()))
        df["address"] = number + " " + street + " " + _pick(rng, STREET_KINDS, n)
    elif kind == "names":  # first names carry signal, surnames do not
        first = np.where(y == 1, _pick(rng, FIRST[:6], n), _pick(rng, FIRST[6:], n))
        flip = rng.uniform(size=n) < 0.35
        first[flip] = _pick(rng, FIRST, int(flip.sum()))
        df["name"] = first + " " + _pick(rng, LAST, n) + " " + _pick(rng, LAST, n)
    elif kind == "titles":  # product titles: the brand carries signal
        brand = np.where(y == 1, _pick(rng, BRANDS[:3], n), _pick(rng, BRANDS[3:], n))
        flip = rng.uniform(size=n) < 0.3
        brand[flip] = _pick(rng, BRANDS, int(flip.sum()))
        df["title"] = brand + " " + _pick(rng, ITEMS, n) + " " + number + " Pro"
    elif kind == "cities":  # repeated multi-word values: categories
        df["city"] = np.where(y == 1, _pick(rng, CITIES[:3], n), _pick(rng, CITIES[2:], n))
    elif kind == "identifiers":  # one token, unique
        df["id"] = [f"u{i:06d}x" for i in rng.permutation(n)]
    elif kind == "free_text":  # sentences next to numbers
        good = np.asarray(["great", "lovely", "happy", "fine", "super"], dtype=object)
        bad = np.asarray(["awful", "broken", "sad", "poor", "late"], dtype=object)
        filler = "the parcel arrived on a rainy day and I opened it at home".split()
        mood = np.where(y == 1, _pick(rng, good, n), _pick(rng, bad, n))
        df["review"] = [" ".join([*rng.choice(filler, 9), m, *rng.choice(filler, 3)]) for m in mood]
    else:
        raise ValueError(kind)
    df["label"] = np.where(y == 1, "yes", "no")
    return df


KINDS = [
    "addresses",
    "addresses_signal",
    "names",
    "titles",
    "cities",
    "identifiers",
    "free_text",
]


def _split(df: pd.DataFrame, folder, stem: str = "data") -> tuple[str, str]:
    cut = int(len(df) * 0.7)
    train_path, test_path = folder / f"{stem}_train.csv", folder / f"{stem}_test.csv"
    df.iloc[:cut].to_csv(train_path, index=False)
    df.iloc[cut:].to_csv(test_path, index=False)
    return str(train_path), str(test_path)


def _accuracy(train_path, test_path, model, folder, **kwargs) -> tuple[float, object]:
    out = folder / f"{model}.nbayes"
    result = train(train_path, "label", str(out), model=model, **kwargs)
    return evaluate(str(out), test_path)["accuracy"], result


@pytest.mark.parametrize("kind", KINDS)
def test_auto_is_never_clearly_worse_than_mixed(kind, tmp_path):
    """On every kind of messy column, ``--model auto`` models every column but identifiers
    (issue 30: left out) and scores at least as well as ``--model mixed`` on held-out rows
    (up to noise)."""
    df = messy_table(kind)
    train_path, test_path = _split(df, tmp_path)
    auto, result = _accuracy(train_path, test_path, "auto", tmp_path)
    mixed, _ = _accuracy(train_path, test_path, "mixed", tmp_path)
    assert result.estimator == "MixedNB"
    left_out = {"id"} if kind == "identifiers" else set()
    assert sorted(result.features) == sorted(c for c in df.columns if c not in {"label", *left_out})
    assert auto >= mixed - 0.015, (kind, auto, mixed)


@pytest.mark.parametrize("kind", ["addresses_signal", "names", "titles", "free_text"])
def test_words_with_signal_beat_categories(kind, tmp_path):
    """Short texts that share words carry signal that categories of whole values miss."""
    train_path, test_path = _split(messy_table(kind), tmp_path)
    auto, _ = _accuracy(train_path, test_path, "auto", tmp_path)
    mixed, _ = _accuracy(train_path, test_path, "mixed", tmp_path)
    assert auto > mixed + 0.02, (kind, auto, mixed)


def test_address_column_is_read_as_words_with_the_other_columns(tmp_path):
    """The report's case: an address column must not make ``auto`` drop every other column."""
    train_path, test_path = _split(messy_table("addresses"), tmp_path)
    auto, result = _accuracy(train_path, test_path, "auto", tmp_path)
    model = load(result.output)
    assert isinstance(model, MixedNB)
    assert model.column_families_ == {
        "income": "gaussian",
        "age": "gaussian",
        "colour": "categorical",
        "address": "text",
    }
    assert auto > 0.65  # about 0.5 when the address was free text and the rest was dropped


@pytest.mark.parametrize(
    ("kind", "column", "role"),
    [
        ("addresses", "address", "words"),
        ("names", "name", "words"),
        ("titles", "title", "words"),
        ("cities", "city", "category"),
        ("identifiers", "id", "category"),
        ("free_text", "review", "text"),
    ],
)
def test_string_roles(kind, column, role):
    assert string_profile(messy_table(kind, n=600)[column]).role == role


def test_choices_that_reread_a_column_are_said_under_quiet(capsys, tmp_path):
    train_path, _ = _split(messy_table("addresses"), tmp_path)
    status = main(["train", train_path, "-t", "label", "-o", str(tmp_path / "m.nbayes"), "-q"])
    out, err = capsys.readouterr()
    assert status == 0 and out == ""
    assert "nbayes: warning: reading column 'address' as words" in err
    assert "name it in --categorical to read it as categories" in err
    # The advice holds: named there, the column is read as categories.
    status = main(
        [
            "train",
            train_path,
            "-t",
            "label",
            "-o",
            str(tmp_path / "c.nbayes"),
            "-q",
            "--categorical",
            "address",
        ]
    )
    assert status == 0 and "as words" not in capsys.readouterr().err


def test_text_model_alone_says_which_columns_it_leaves_out(capsys, tmp_path):
    train_path, _ = _split(messy_table("free_text", n=300), tmp_path)
    argv = ["train", train_path, "-t", "label", "-o", str(tmp_path / "m.nbayes"), "-q"]
    status = main([*argv, "--model", "multinomial", "--text-column", "review"])
    _, err = capsys.readouterr()
    assert status == 0
    assert "leaving out column(s) 'income', 'age', 'colour'" in err.replace("[", "")


def test_text_column_joins_the_other_columns_under_auto(tmp_path):
    train_path, _ = _split(messy_table("cities", n=300), tmp_path)
    result = train(train_path, "label", str(tmp_path / "m.nbayes"), text_column="city")
    assert load(result.output).column_families_["city"] == "text"
    assert len(result.features) == 4


def test_near_unique_identifiers_are_left_out_with_a_warning(capsys, tmp_path):
    """Issue 30: a code distinct in every row is an identifier, left out (it was a warning
    to --exclude it), with one warning that says how to keep it."""
    train_path, _ = _split(messy_table("identifiers", n=300), tmp_path)
    status = main(["train", train_path, "-t", "label", "-o", str(tmp_path / "m.nbayes"), "-q"])
    _, err = capsys.readouterr()
    assert status == 0
    assert err.count("leaving out column(s) ['id'], identifiers") == 1
    assert "name them in --features" in err
    assert "id" not in load(str(tmp_path / "m.nbayes")).feature_names_in_


# -- JSON lines whose records have different keys ------------------------------------------------
def _optional_key_records(n: int = 400, first_with_g: int = 150, seed: int = 1) -> pd.DataFrame:
    """Records where key ``g`` (strongly tied to the label) is absent from the first rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    g = np.where(rng.uniform(size=n) < 0.9, np.where(y == 1, "a", "b"), np.where(y, "b", "a"))
    df = pd.DataFrame({"x": rng.normal(y * 0.5), "g": g, "label": np.where(y, "yes", "no")})
    df["g"] = df["g"].astype(object)
    df.loc[: first_with_g - 1, "g"] = None
    return df


def _write_jsonl(df: pd.DataFrame, path) -> str:
    """One JSON record per row, leaving out the keys whose value is missing."""
    import json

    with open(path, "w", encoding="utf-8") as f:
        for record in df.to_dict(orient="records"):
            kept = {k: v for k, v in record.items() if v is not None and v == v}
            f.write(json.dumps(kept) + "\n")
    return str(path)


@pytest.mark.parametrize("chunk_rows", [None, 50, 100])
def test_json_columns_are_the_keys_of_every_record(tmp_path, chunk_rows):
    """A key missing from the first records (or from the whole first chunk) is a column."""
    path = _write_jsonl(_optional_key_records(), tmp_path / "opt.jsonl")
    out = tmp_path / "m.nbayes"
    result = train(path, "label", str(out), read=ReadOptions(chunk_rows=chunk_rows))
    assert result.features == ["x", "g"]
    model = load(out)
    assert model.column_families_ == {"x": "gaussian", "g": "categorical"}
    assert sorted(model.categories_["g"].tolist()) == ["a", "b"]
    # The key carries the signal: scoring uses it (0.5 without it).
    assert evaluate(str(out), path)["accuracy"] > 0.75


def test_json_key_only_in_the_last_record(tmp_path):
    df = _optional_key_records(n=300, first_with_g=299)
    path = _write_jsonl(df, tmp_path / "late.jsonl")
    result = train(path, "label", str(tmp_path / "m.nbayes"), read=ReadOptions(chunk_rows=40))
    assert result.features == ["x", "g"]


# -- columns empty in the first rows -------------------------------------------------------------
def _late_table(n: int = 400, empty: int = 200, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    df = pd.DataFrame(
        {
            "x": rng.normal(y * 0.3),
            "word": np.where(y == 1, "p", "q").astype(object),
            "amount": rng.normal(y * 3.0),
            "flag": np.where(y == 1, "true", "false").astype(object),
            "never": [None] * n,
            "label": np.where(y == 1, "yes", "no"),
        }
    )
    df.loc[: empty - 1, ["word", "amount", "flag"]] = None
    return df


@pytest.mark.parametrize("model", ["auto", "mixed"])
def test_columns_empty_at_first_are_typed_from_their_values(tmp_path, model):
    """Not from the empty first chunk: strings found later are categories, numbers Gaussian,
    and a column empty everywhere is left out (and said so)."""
    path, filled = tmp_path / "late.csv", tmp_path / "filled.csv"
    _late_table().to_csv(path, index=False)
    _late_table().iloc[200:].to_csv(filled, index=False)
    out = tmp_path / "m.nbayes"
    result = train(str(path), "label", str(out), model=model, read=ReadOptions(chunk_rows=100))
    families = load(out).column_families_
    assert families == {
        "x": "gaussian",
        "word": "categorical",
        "amount": "gaussian",
        "flag": "bernoulli",
    }
    assert any("'never'" in w and "empty in every row" in w for w in result.warnings)
    assert any("'word' is empty in the first 100 rows" in n for n in result.notes)
    assert evaluate(str(out), str(filled))["accuracy"] > 0.9


def test_text_after_numbers_names_the_fix_not_the_model_in_use(tmp_path):
    df = pd.DataFrame({"x": [1.5] * 150 + ["unknown"] + [2.0] * 49, "label": ["a", "b"] * 100})
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    with pytest.raises(Exception, match=r"'unknown' at row 150.*--exclude x") as info:
        train(
            str(path),
            "label",
            str(tmp_path / "m.nbayes"),
            model="mixed",
            read=ReadOptions(chunk_rows=100),
        )
    assert "--model" not in str(info.value)


# -- numbers written with other separators ------------------------------------------------------
def _european(values) -> list[str]:
    return [f"{v:,.2f}".replace(",", " ").replace(".", ",").replace(" ", ".") for v in values]


def test_decimal_comma_and_thousands_separator(tmp_path, capsys):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 400)
    price = rng.normal(1500 + 800 * y, 300)
    label = np.where(y == 1, "yes", "no")
    euro = tmp_path / "euro.csv"
    pd.DataFrame({"price": _european(price), "label": label}).to_csv(euro, sep=";", index=False)
    plain = tmp_path / "plain.csv"
    pd.DataFrame({"price": price.round(2), "label": label}).to_csv(plain, index=False)

    # Without the options: categories, and a warning that names them.
    status = main(["train", str(euro), "-t", "label", "-o", str(tmp_path / "a.nbayes"), "-q"])
    _, err = capsys.readouterr()
    assert status == 0
    assert "column 'price' holds numbers written as" in err
    assert "pass --decimal , --thousands ." in err

    # With them: the same model as the file written with a decimal point.
    argv = ["train", str(euro), "-t", "label", "-o", str(tmp_path / "b.nbayes"), "-q"]
    assert main([*argv, "--decimal", ",", "--thousands", "."]) == 0
    assert capsys.readouterr().err == ""
    assert main(["train", str(plain), "-t", "label", "-o", str(tmp_path / "c.nbayes")]) == 0
    euro_model, plain_model = load(tmp_path / "b.nbayes"), load(tmp_path / "c.nbayes")
    assert euro_model.column_families_ == {"price": "gaussian"}
    assert np.allclose(euro_model.params_[0]["mean"], plain_model.params_[0]["mean"])
    # The model remembers how its numbers were written: evaluate reads the file alike.
    euro_report = evaluate(str(tmp_path / "b.nbayes"), str(euro))
    assert euro_report["accuracy"] == evaluate(str(tmp_path / "c.nbayes"), str(plain))["accuracy"]


def test_decimal_comma_alone(tmp_path, capsys):
    path = tmp_path / "d.csv"
    pd.DataFrame({"v": ["3,5", "4,25", "10,0", "2,5"] * 30, "label": ["a", "b"] * 60}).to_csv(
        path, sep=";", index=False
    )
    assert main(["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes")]) == 0
    assert "pass --decimal ," in capsys.readouterr().err
    argv = ["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes"), "--decimal", ","]
    assert main(argv) == 0
    assert load(tmp_path / "m.nbayes").column_families_ == {"v": "gaussian"}


def test_decimal_options_are_for_csv(tmp_path, capsys):
    path = tmp_path / "p.parquet"
    pd.DataFrame({"v": [1.0, 2.0], "label": ["a", "b"]}).to_parquet(path)
    argv = ["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes"), "--decimal", ","]
    assert main(argv) == 2
    assert "--decimal and --thousands apply to CSV/TSV" in capsys.readouterr().err


def test_dates_written_as_text_become_calendar_features(tmp_path, capsys):
    """Issue 30: dates written as text were near-unique categories with a warning; they are
    read as calendar features now, which the choices table says."""
    path = tmp_path / "d.csv"
    when = pd.date_range("2024-01-01", periods=200, freq="h").astype(str)
    pd.DataFrame({"when": when, "x": range(200), "label": ["a", "b"] * 100}).to_csv(path)
    assert main(["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes")]) == 0
    out, err = capsys.readouterr()
    assert "written as text" not in err
    assert re.search(r"when\s+timestamp\s+calendar\s+dates written as ISO 8601", out), out
    families = load(str(tmp_path / "m.nbayes")).column_families_
    assert [c for c in families if c.startswith("when.")] == [
        "when.year",
        "when.month",
        "when.dayofweek",
        "when.hour",
    ]


# -- Parquet dates, lists and decimals ---------------------------------------------------------
@pytest.mark.parametrize(
    ("values", "message"),
    [
        (pd.to_timedelta(np.arange(60), unit="s"), r"'when' holds durations"),
        ([["a", "b"]] * 60, r"'when' holds lists or records \(e.g. \['a', 'b'\]\)"),
        ([{"k": 1}] * 60, r"'when' holds lists or records"),
    ],
)
def test_parquet_durations_and_lists_are_refused_with_the_fix(tmp_path, values, message):
    from nbayes.exceptions import DataError

    path = tmp_path / "p.parquet"
    pd.DataFrame({"when": values, "x": np.arange(60.0), "label": ["a", "b"] * 30}).to_parquet(path)
    with pytest.raises(DataError, match=message + r".*--exclude when"):
        train(str(path), "label", str(tmp_path / "m.nbayes"))
    # Left out, the rest trains.
    train(str(path), "label", str(tmp_path / "m.nbayes"), exclude=("when",))


@pytest.mark.parametrize(
    ("values", "parts"),
    [
        (pd.date_range("2024-01-01", periods=60, freq="h"), ["year", "month", "dayofweek", "hour"]),
        (
            [d.date() for d in pd.date_range("2024-01-01", periods=60)],
            ["year", "month", "dayofweek"],
        ),
    ],
)
def test_parquet_dates_become_calendar_features(tmp_path, values, parts):
    """Issue 30: Parquet timestamps and dates were refused; they give calendar features,
    and predict reads the same raw column."""
    path = tmp_path / "p.parquet"
    pd.DataFrame({"when": values, "x": np.arange(60.0), "label": ["a", "b"] * 30}).to_parquet(path)
    out = tmp_path / "m.nbayes"
    train(str(path), "label", str(out))
    assert [c for c in load(str(out)).column_families_ if c.startswith("when.")] == [
        f"when.{p}" for p in parts
    ]
    assert main(["predict", str(out), str(path), "-o", str(tmp_path / "p.csv")]) == 0
    with pytest.raises(DataError, match=r"--model gaussian models numbers or categories"):
        train(str(path), "label", str(out), model="gaussian")


def test_parquet_decimals_are_numbers(tmp_path):
    import decimal

    path = tmp_path / "p.parquet"
    amounts = [decimal.Decimal(f"{v:.2f}") for v in np.linspace(1, 100, 60)]
    pd.DataFrame({"amount": amounts, "label": ["a", "b"] * 30}).to_parquet(path)
    train(str(path), "label", str(tmp_path / "m.nbayes"))
    assert load(tmp_path / "m.nbayes").column_families_ == {"amount": "gaussian"}


@pytest.mark.parametrize("written", ["$1,234.50", "12.5%", "€ 99", "1 200 EUR"])
def test_numbers_with_a_unit_are_warned_about(tmp_path, capsys, written):
    path = tmp_path / "u.csv"
    rng = np.random.default_rng(0)
    values = [written.replace("1", str(d)) for d in rng.integers(1, 10, 200)]
    values = [f"{v}{i}" if "%" not in v and "EUR" not in v else v for i, v in enumerate(values)]
    pd.DataFrame({"amount": values, "label": ["a", "b"] * 100}).to_csv(path, index=False)
    argv = ["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes"), "-q"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "column 'amount' holds numbers with a currency sign or a unit" in err, err


def test_advice_names_only_the_separator_not_given(tmp_path, capsys):
    path = tmp_path / "e.csv"
    rng = np.random.default_rng(1)
    pd.DataFrame(
        {"price": _european(rng.uniform(1000, 9000, 120)), "label": ["a", "b"] * 60}
    ).to_csv(path, sep=";", index=False)
    argv = ["train", str(path), "-t", "label", "-o", str(tmp_path / "m.nbayes"), "-q"]
    assert main([*argv, "--decimal", ","]) == 0
    err = capsys.readouterr().err
    assert "pass --thousands ." in err and "--decimal" not in err.split("pass")[-1]


def test_a_row_index_written_with_the_table_is_left_out_unless_asked_for(capsys, tmp_path):
    # Sorted by label, the row numbers alone would separate the classes of the training file.
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=40), "y": np.repeat(["a", "b"], 20)})
    data = tmp_path / "indexed.csv"
    frame.to_csv(data)  # index=True: a first column with an empty header, 0 .. 39
    out = tmp_path / "m.nbayes"
    assert main(["train", str(data), "-t", "y", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "leaving out column(s) ['Unnamed: 0'], identifiers ('Unnamed: 0': named like a" in err
    assert list(load(out).feature_names_in_) == ["x"]
    assert main(["train", str(data), "-t", "y", "-o", str(out), "--features", "Unnamed: 0,x"]) == 0
    assert list(load(out).feature_names_in_) == ["Unnamed: 0", "x"]
    # Issue 30: a named row index is an identifier too, even shuffled (it was kept).
    frame.rename_axis("id").sample(frac=1, random_state=0).to_csv(data)
    assert main(["train", str(data), "-t", "y", "-o", str(out), "-q"]) == 0
    assert "leaving out column(s) ['id'], identifiers" in capsys.readouterr().err
    assert list(load(out).feature_names_in_) == ["x"]


def test_labels_that_differ_only_in_spaces_or_case_are_said(capsys, tmp_path):
    """A hand-typed or merged file writes one class as 'spam', 'spam ' and 'Spam': each
    spelling was trained as a class of its own without a word, splitting the class's rows
    (even with -q: it changes what the model learns)."""
    rng = np.random.default_rng(2)
    labels = np.asarray(["spam", "spam ", "Spam", "ham", " ham"], dtype=object)[
        rng.integers(0, 5, 300)
    ]
    frame = pd.DataFrame({"x": rng.normal(size=300), "label": labels})
    data = tmp_path / "labels.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "m.nbayes"
    assert main(["train", str(data), "-t", "label", "-o", str(out), "-q"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    counts = frame["label"].value_counts()
    spam = ", ".join(f"{c!r} ({counts[c]:,} rows)" for c in ["Spam", "spam"])
    assert f"the labels {spam} and 'spam ' ({counts['spam ']:,} rows) differ only" in err, err
    assert f"the labels ' ham' ({counts[' ham']:,} rows) and 'ham' ({counts['ham']:,} rows)" in err
    assert "df['label'] = df['label'].str.strip()" in err
    assert len(load(out).classes_) == 5  # said, not changed: the labels are the user's
    # Under EM (unlabeled rows marked '?') too, without row counts (the class weights then
    # hold the unlabeled rows' shares).
    frame.loc[::4, "label"] = "?"
    partly = tmp_path / "partly.csv"
    frame.to_csv(partly, index=False)
    argv = ["train", str(partly), "-t", "label", "--unlabeled-value", "?", "-o", str(out), "-q"]
    assert main(argv) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert "the labels 'Spam', 'spam' and 'spam ' differ only in spaces or letter case" in said
    frame["label"] = labels
    frame["label"] = frame["label"].str.strip().str.lower()
    clean = tmp_path / "clean.csv"
    frame.to_csv(clean, index=False)
    assert main(["train", str(clean), "-t", "label", "-o", str(out), "-q"]) == 0
    assert "differ only" not in capsys.readouterr().err
    # Evaluating the messy file with the clean model names the labels it does not know, and
    # which of them are its classes written another way (they count as errors).
    report = evaluate(str(out), str(data))
    assert report["unknown_labels"] == [" ham", "Spam", "spam "]
    assert report["rows_with_unknown_labels"] == int(counts[[" ham", "Spam", "spam "]].sum())
    assert main(["evaluate", str(out), str(data)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "have labels the model does not know: ' ham', 'Spam', 'spam '. They count as" in said
    assert (
        "(' ham', 'Spam', 'spam ' differ from the model's 'ham', 'spam' only in spaces or "
        "letter case: write them as the model does to score those rows.)" in said
    )
    assert main(["evaluate", str(out), str(clean)]) == 0
    assert "does not know" not in capsys.readouterr().out


def test_whole_numbers_that_are_row_numbers_are_left_out_even_shuffled(capsys, tmp_path):
    """Issue 30: a sequential identifier (1000, 1001, ...) was only warned of while in file
    order; a shuffled split hid it and the model learned which id ranges belong to which
    class. Distinct whole numbers that fill most of their range are row numbers, whatever
    their order, under a row number's name (a key's here; under another name a rank, kept
    with a warning); a short file, or numbers spread thin, are numbers."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame(
        {"key": np.arange(1000, 1200), "x": rng.normal(size=200), "y": np.repeat(["a", "b"], 100)}
    )
    data = tmp_path / "ids.csv"
    out = tmp_path / "m.nbayes"
    frame.sample(frac=0.7, random_state=0).to_csv(data, index=False)
    assert main(["train", str(data), "-t", "y", "-o", str(out), "-q"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "leaving out column(s) ['key'], identifiers ('key': whole numbers distinct in all" in err
    assert list(load(out).feature_names_in_) == ["x"]
    frame.head(25).to_csv(data, index=False)  # under 30 rows: not told from a count
    assert main(["train", str(data), "-t", "y", "-o", str(out)]) == 0
    frame.assign(key=frame["key"] ** 2).to_csv(data, index=False)
    assert main(["train", str(data), "-t", "y", "-o", str(out)]) == 0
    assert "identifiers" not in capsys.readouterr().err
    assert list(load(out).feature_names_in_) == ["key", "x"]
