"""Which estimator a command uses for which columns, and how a model file remembers it.

``nbayes train`` turns ``--model`` and the columns of DATA into a :class:`Plan`: the estimator,
its input columns, their types, and how to turn a chunk into the estimator's input. The plan's
description is stored in the model file's metadata (``metadata["cli"]``), so ``predict``,
``evaluate`` and ``explain`` read DATA exactly as ``train`` did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import base, estimators
from .._validation import (
    FREQUENT_CATEGORY,
    MISSING_MARKERS,
    is_missing_marker,
    likely_missing_marker,
)
from ..columns import (
    ROLE_SAMPLE,
    ColumnReading,
    StringProfile,
    code_text,
    date_format,
    format_choices,
    read_column,
    string_profile,
)
from ..distributions import Binned
from ..estimators import (
    AODE,
    KDB,
    TAN,
    BernoulliNB,
    ComplementNB,
    DensityNB,
    GaussianNB,
    JointBayes,
    MultinomialNB,
    PoissonNB,
    TextNB,
)
from ..exceptions import DataError
from ._common import CLIError, UsageError, names
from ._labels import typed_classes
from ._tables import _BOOLS, _unmodelled, conform, infer_kind, na_values_option

MODELS = (
    "auto",
    "gaussian",
    "bernoulli",
    "multinomial",
    "complement",
    "categorical",
    "poisson",
    "density",
    "mixed",
    "aode",
    "tan",
    "kdb",
    "joint",
)
#: --continuous choices: how the numeric columns of the mixed model (--model auto / mixed)
#: are read (a family of MixedNB), and the reading of --model density.
CONTINUOUS = ("gaussian", "kde", "binned", "density")
#: --model choices for a numeric table, each one preset over every feature column.
PRESETS = {
    "gaussian": GaussianNB,
    "bernoulli": BernoulliNB,
    "multinomial": MultinomialNB,
    "complement": ComplementNB,
    "poisson": PoissonNB,
    "density": DensityNB,
}
#: --model choices beyond the naive assumption: categories as they are, numbers cut into bins.
SEMINAIVE = {"aode": AODE, "tan": TAN, "kdb": KDB, "joint": JointBayes}
#: --model choices for a text column (the count model behind the vectoriser).
TEXT_MODELS = {
    "multinomial": MultinomialNB,
    "complement": ComplementNB,
    "bernoulli": BernoulliNB,
    "poisson": PoissonNB,
}


def mixed_nb():
    """The MixedNB class, or a clear error when this nbayes does not have it."""
    cls = getattr(estimators, "MixedNB", None)
    if cls is None:
        raise UsageError(
            "--model mixed / categorical needs MixedNB, which this nbayes lacks; "
            "use a numeric model (--model gaussian) or a text column."
        )
    return cls


@dataclass
class Settings:
    """Model options from the command line (None: the estimator's default)."""

    alpha: float | str | None = None
    estimate: str | None = None
    var_smoothing: float | str | None = None
    #: Family of the numeric columns in the mixed model, or the reading of --model density.
    continuous: str | None = None
    hashing: int | None = None
    min_df: float = 1
    max_features: int | None = None
    ngrams: int = 1
    lowercase: bool = True
    #: Semi-naive models: AODE's super-parents (1 or 2), KDB's k, how numbers are binned.
    parents: int | None = None
    k: int | None = None
    binning: str | None = None
    n_bins: int | None = None


@dataclass
class Plan:
    """How one model reads a table.

    Attributes
    ----------
    model : str
        The resolved ``--model`` choice (never "auto").
    target : str
    features : list of str
        Input columns, in the estimator's order (the text column for text models).
    text_column : str or None
    schema : dict
        Kind of every feature column (``int``, ``float``, ``bool``, ``str``) from training.
    estimator : the nbayes estimator
    notes : list of str
        What was chosen, for the user (printed unless --quiet).
    warnings : list of str
        Choices that leave out or re-read a column, and columns that will carry little
        information, each with its fix (printed on stderr even with --quiet).
    """

    model: str
    target: str
    features: list[str]
    text_column: str | None
    schema: dict[str, str]
    # Any: the estimators derive from scikit-learn's classes, which carry no types.
    estimator: Any = None
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: How ``train`` read a CSV: ``{"header": bool, "names": [...] or None}`` (None: the
    #: model does not say).
    reading: dict | None = None
    #: Log-odds decision threshold kept by ``train --threshold`` (for a model without the
    #: parameter); None: the model decides alone.
    threshold: float | None = None
    #: How each input column is read (:class:`nbayes.columns.ColumnReading`, with the family
    #: this model gives it), for the choices table of ``train`` and ``inspect``.
    choices: list = field(default_factory=list)

    @property
    def is_text(self) -> bool:
        return self.text_column is not None

    def inputs(self, frame: pd.DataFrame, offset: int, path: str, scoring: bool = False):
        """The estimator's input for one chunk (converted to the training column types;
        ``scoring``: rows a trained model scores, see :func:`conform`)."""
        if self.is_text:
            return frame[self.text_column]
        numeric = self.model if self.model in PRESETS else None
        # The estimator's column order is ``features`` (the stored schema may be re-ordered).
        schema = {c: self.schema[c] for c in self.features}
        return conform(frame, schema, offset, path, numeric=numeric, scoring=scoring)

    def metadata(self, rows: int, source: str) -> dict:
        return {
            "target": self.target,
            "model": self.model,
            "features": self.features,
            "text_column": self.text_column,
            "schema": self.schema,
            "rows": rows,
            "source": source,
            "columns": [
                [str(r.column), r.kind, r.family or "left out", r.why] for r in self.choices
            ],
        }

    @classmethod
    def from_model(cls, model, manifest: dict, text_column: str | None = None) -> Plan:
        """The plan stored by ``nbayes train``, or one derived from a model saved from Python."""
        info = manifest.get("metadata", {}).get("cli")
        if isinstance(info, dict):
            try:
                return cls(
                    model=info["model"],
                    target=info["target"],
                    features=list(info["features"]),
                    text_column=text_column or info.get("text_column"),
                    schema=dict(info["schema"]),
                    estimator=model,
                    reading=info.get("read") if isinstance(info.get("read"), dict) else None,
                    threshold=_stored_threshold(info.get("decision_threshold")),
                )
            except (KeyError, TypeError):
                pass  # fall through: derive what we can from the estimator itself
        if base.supports(model, base.TEXT_INPUT):
            if text_column is None:
                raise UsageError(
                    "This text model was saved from Python and does not record "
                    "its text column; pass --text-column COL."
                )
            return cls(
                model="text",
                target="",
                features=[text_column],
                text_column=text_column,
                schema={text_column: "str"},
                estimator=model,
            )
        names = getattr(model, "feature_names_in_", None)
        if names is None:
            raise CLIError(
                "This model was trained without column names, so it cannot read a "
                "table; train it with `nbayes train` or on a DataFrame."
            )
        names = [str(n) for n in names]
        kind = "float" if base.supports(model, base.NUMERIC_INPUT) else None
        model_name = next(
            (k for k, c in {**PRESETS, **SEMINAIVE}.items() if type(model) is c), "mixed"
        )
        # Without the training's record of column types, pass columns on as read and let
        # the estimator judge them.
        schema = {n: kind or "any" for n in names}
        return cls(
            model=model_name,
            target="",
            features=names,
            text_column=None,
            schema=schema,
            estimator=model,
        )


def _stored_threshold(value) -> float | None:
    """The log-odds threshold in a model file's metadata: a finite number, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise CLIError(
            f"The model file's decision_threshold is {value!r}; expected a finite number of "
            "log-odds. Retrain the model, or pass --threshold."
        )
    return float(value)


def load_plan(path: str, text_column: str | None = None) -> Plan:
    """Load a model file and the plan that says how it reads a table."""
    from ..io import load, read_manifest

    model = load(path)
    return Plan.from_model(model, read_manifest(path), text_column)


#: Share of distinct values from which categories are near-unique (a warning with the fix).
NEAR_UNIQUE = 0.5


def looks_like_text(series: pd.Series) -> bool:
    """Free text or short texts (words) rather than categories; see :func:`string_profile`."""
    return string_profile(series).role != "category"


_NUMBER_STYLES = (
    # (pattern of every value, separator a value must use, options that read them)
    (r"^[+-]?\d+,\d+$", ",", ("--decimal", ",")),
    (r"^[+-]?(\d{1,3}(\.\d{3})+|\d+)(,\d+)?$", ".", ("--decimal", ",", "--thousands", ".")),
    (r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$", ",", ("--thousands", ",")),
    (r"^[+-]?(\d{1,3}( \d{3})+|\d+)([.,]\d+)?$", " ", ("--thousands", "' '")),
)


def number_style(series: pd.Series) -> tuple[str, ...] | None:
    """Options that would read a column of strings as numbers ("1.234,5", "12,5", "1,234"),
    or None when its values are not numbers written that way."""
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return None
    values = values.str.strip()
    for pattern, sep, options in _NUMBER_STYLES:  # a handful of styles
        if values.str.match(pattern).all() and values.str.contains(sep, regex=False).any():
            return options
    return None


#: A number with a currency sign or a per cent sign, in any of the styles above.
_UNITS = r"^[+-]?\s*[$€£¥]?\s*[+-]?\d[\d.,' ]*\s*(%|[$€£¥]|EUR|USD|GBP)?$"


def has_units(series: pd.Series) -> bool:
    """Whether a column of strings holds numbers written with a currency or per cent sign."""
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return False
    values = values.str.strip()
    return bool(
        values.str.match(_UNITS).all() and values.str.contains(r"[$€£¥%]|EUR|USD|GBP").any()
    )


def number_markers(series: pd.Series) -> list[str] | None:
    """The few values (at most 3) that keep a column of numbers from reading as numbers,
    such as ``?`` in "39, ?, 41"; None when its values are not mostly numbers."""
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return None
    values = values.str.strip()
    other = values[pd.to_numeric(values, errors="coerce").isna()]
    if other.empty or len(other) * 2 > len(values) or other.nunique() > 3:
        return None
    shares = other.value_counts() / len(values)
    # A word or letter that is a frequent value is a real category ('K', kindergarten, among
    # school grades 1 to 12), not a marker; signs and the usual words are markers at any share.
    frequent = [
        v
        for v, share in shares.items()  # at most 3 values
        if share >= FREQUENT_CATEGORY and any(ch.isalpha() for ch in v) and not is_missing_marker(v)
    ]
    if frequent:
        return None
    return sorted(other.unique().tolist())


def marker_note(column: str, series: pd.Series, read) -> str | None:
    """A note for a category column holding a value that often marks a missing cell."""
    if "--na-values" in read.given or number_markers(series) is not None:
        return None  # given, or warned of as numbers
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return None
    stripped = values.str.strip()
    found = stripped[stripped.str.lower().isin(MISSING_MARKERS)]
    if found.empty:
        return None
    marker = found.value_counts().index[0]
    if not likely_missing_marker(marker, float((stripped == marker).mean())):
        return None  # a frequent category ('none' as a religion): not a missing value
    return (
        f"column {column!r} has the value {marker!r} in {int((stripped == marker).sum()):,} of "
        f"the first {len(values):,} rows, modelled as a category of its own; if it marks a "
        f"missing value, pass {na_values_option([marker])}"
    )


def _string_warnings(column: str, series: pd.Series, profile: StringProfile, read) -> list[str]:
    """Warnings for a string column read as categories that will carry little information."""
    markers = number_markers(series)
    if markers is not None and "--na-values" not in read.given:
        n = int(series.dropna().iloc[:ROLE_SAMPLE].str.strip().isin(markers).sum())
        return [
            f"column {column!r} holds numbers but for {', '.join(map(repr, markers))} (in "
            f"{n:,} of the first {min(series.notna().sum(), ROLE_SAMPLE):,} values), so it is "
            f"read as categories, one per number; to read those as missing and the column as "
            f"numbers, pass {na_values_option(markers)}"
        ]
    style = number_style(series)
    if style is not None:
        pairs = list(zip(style[::2], style[1::2]))
        missing = [f"{flag} {value}" for flag, value in pairs if flag not in read.given]
        fix = f"pass {' '.join(missing)}" if missing else "check the separators of this column"
        return [
            f"column {column!r} holds numbers written as {series.dropna().iloc[0]!r}, which "
            f"are read as text ({profile.distinct:.0%} distinct values in the first rows, "
            f"so near-unique categories); to read them as numbers {fix}"
        ]
    if has_units(series):
        return [
            f"column {column!r} holds numbers with a currency sign or a unit (e.g. "
            f"{series.dropna().iloc[0]!r}), which are read as text ({profile.distinct:.0%} "
            "distinct values in the first rows, so near-unique categories); remove the sign "
            f"before training to model them as numbers, or leave it out with --exclude {column}"
        ]
    if profile.role == "category" and profile.distinct >= NEAR_UNIQUE and profile.n_values >= 50:
        if date_format(series) is not None:  # the typology's rule: see nbayes.columns
            return [
                f"column {column!r} holds dates or times written as text (e.g. "
                f"{series.dropna().iloc[0]!r}), read as near-unique categories that carry "
                "almost no information; convert it to numbers or categories (day of week, "
                f"hour, number of days) before training, or leave it out with --exclude {column}"
            ]
        return [
            f"column {column!r} has near-unique values ({profile.describe()}): as categories "
            f"it carries almost no information; leave it out with --exclude {column} if it "
            "is an identifier"
        ]
    return []


def _chosen(reading: ColumnReading, family: str | None) -> ColumnReading:
    """``reading`` with the family the command's model gives the column."""
    from dataclasses import replace

    return replace(reading, family=family)


def _told(plan: Plan, choices: list[ColumnReading]) -> Plan:
    """``plan`` with its choices, which its notes show as a table."""
    plan.choices = choices
    if choices:
        lines = format_choices(choices)
        plan.notes.insert(0, "how each column is read:\n  " + "\n  ".join(lines))
    return plan


def _reading(column: str, values: pd.Series) -> ColumnReading:
    """The library's reading of a column (:mod:`nbayes.columns`), as MixedNB makes it on
    the same chunk: a column of true/false values with gaps is read as booleans, as
    :func:`conform` converts it."""
    if infer_kind(values, column) == "bool" and values.dtype.kind == "O":
        values = values.map(_BOOLS.get, na_action="ignore").astype("boolean")
    return read_column(values, column)


def _coded_warning(column: str, reading: ColumnReading) -> str:
    """The warning for a number column that codes missing values with a number."""
    codes = [code_text(c) for c in reading.codes]
    return (
        f"column {column!r} holds {' and '.join(codes)} repeated far outside its other values "
        f"({reading.why.split('; ')[0]}), most likely a code for a missing value, which is "
        f"modelled as a number; to read it as missing, pass {na_values_option(codes)}"
    )


def choose_plan(
    first: pd.DataFrame,
    target: str,
    model: str,
    *,
    text_column: str | None = None,
    features: list[str] | None = None,
    exclude: tuple[str, ...] = (),
    settings: Settings | None = None,
    later: dict[str, pd.Series] | None = None,
    read=None,
    categorical: tuple[str, ...] = (),
) -> Plan:
    """Choose the estimator and its input columns from the first chunk of DATA.

    ``later`` holds, for columns empty throughout ``first``, a chunk of their values found
    further down (or an empty Series: empty everywhere); their kinds come from there, never
    from the empty first rows. ``read`` (the ReadOptions) says which options were given, so
    that advice names only options not already in use. ``categorical`` names columns read
    as categories whatever their kind (``--categorical``: an identifier kept, dates as
    their written values, integers as categories).
    """
    settings = settings or Settings()
    later = later or {}
    read = _Given.of(read)
    columns = [str(c) for c in first.columns]
    if target not in columns:
        raise DataError(
            f"DATA has no target column {target!r}; its columns are "
            f"{names(columns)}. Pass the label column with --target."
        )
    named = (("--exclude", exclude), ("--features", features or []), ("--categorical", categorical))
    for name, cols in named:
        absent = [c for c in cols if c not in columns]
        if absent:
            raise DataError(
                f"{name} names column(s) {names(absent)} that DATA lacks; its "
                f"columns are {names(columns)}."
            )
    notes: list[str] = []
    warns: list[str] = []
    if text_column is not None:
        if text_column not in columns:
            raise DataError(
                f"DATA has no text column {text_column!r}; its columns are {names(columns)}."
            )
        if text_column == target:
            raise UsageError("--text-column and --target must be different columns.")
    candidates = [c for c in (features or columns) if c != target and c not in exclude]
    empty = [c for c in candidates if c in later and later[c].isna().all()]
    if empty:
        warns.append(
            f"leaving out column(s) {names(empty)}: empty in every row of DATA, so they "
            "carry no information"
        )
        candidates = [c for c in candidates if c not in empty]
    sample = {c: later.get(c, first[c]) for c in candidates}
    readings = {c: _reading(c, sample[c]) for c in candidates}
    left: list[ColumnReading] = []  # identifiers left out: in the choices table too
    if features is None:
        ids = [c for c in candidates if readings[c].kind == "identifier" and c not in categorical]
        if ids:
            warns.append(
                f"leaving out column(s) {names(ids)}, identifiers ("
                + "; ".join(f"{c!r}: {readings[c].why}" for c in ids)
                + "): as features they would let the model learn which rows belong to which "
                "class, and new rows would not have their values; name them in --features "
                "to model them"
            )
            candidates = [c for c in candidates if c not in ids]
            left = [readings[c] for c in ids]
    for c in candidates:  # bounded by the table's width
        if readings[c].kind == "coded number":
            warns.append(_coded_warning(c, readings[c]))
    sample = {c: sample[c] for c in candidates}
    # (A date column empty in the first chunk is read as written: MixedNB learns the written
    # form of dates from the first batch, which has none of them.)
    dates = [
        c
        for c in candidates
        if readings[c].kind == "timestamp" and c not in categorical and c not in later
    ]
    profiles = {
        c: string_profile(sample[c]) for c in candidates if infer_kind(sample[c], c) == "str"
    }
    texts = [
        c
        for c, p in profiles.items()
        if p.role != "category" and c not in dates and c not in categorical
    ]
    if text_column is None and model in TEXT_MODELS and features is None:
        # A count model over one column of text; other columns cannot join it.
        if len(texts) == 1 and len(candidates) == 1:
            text_column = texts[0]
    if text_column is None and model == "auto" and candidates == texts and len(texts) == 1:
        text_column = texts[0]  # the only input is text: a text model with a vocabulary
    if text_column is not None and model not in ("auto", "mixed", *TEXT_MODELS):
        raise UsageError(
            f"--model {model} cannot model a text column; use one of {sorted(TEXT_MODELS)} "
            "(the text column alone) or auto / mixed (with the other columns)."
        )
    if text_column is not None and (
        model in TEXT_MODELS or (model == "auto" and candidates == [text_column])
    ):
        name = "multinomial" if model == "auto" else model
        if text_column in profiles:
            notes.append(
                f"reading {text_column!r} as free text ({profiles[text_column].describe()})"
            )
        ignored = [c for c in candidates if c != text_column]
        if ignored:
            warns.append(
                f"--model {model} models the text column {text_column!r} only: leaving out "
                f"column(s) {names(ignored)}; use --model auto to model them too"
            )
        return _told(
            Plan(
                name,
                target,
                [text_column],
                text_column,
                {text_column: "str"},
                text_estimator(name, settings),
                notes,
                warns,
            ),
            [_chosen(readings[text_column], "text"), *left],
        )
    if not candidates:
        raise DataError(f"DATA has no feature columns besides the target {target!r}.")
    schema = {c: infer_kind(sample[c], c) for c in candidates}
    for c in categorical:  # read as categories: their values as written
        if c in schema and schema[c] == "datetime":
            raise UsageError(
                f"--categorical names column {c!r}, which holds dates or times as values; "
                "name a column of dates written as text, or leave it to the calendar features."
            )
    if categorical and model not in ("auto", "mixed", "categorical", *SEMINAIVE):
        raise UsageError(
            f"--categorical applies to --model auto, mixed, categorical and the semi-naive "
            f"models; --model {model} reads every column one way."
        )
    stamped = [c for c in candidates if schema[c] == "datetime"]
    if stamped and model not in ("auto", "mixed", "categorical", *SEMINAIVE):
        raise _unmodelled(
            stamped[0],
            f"dates or times ({sample[stamped[0]].dtype})",
            f"--model {model} models numbers or categories; --model auto reads them as "
            "calendar features, or convert them to numbers or categories such as the day of "
            "week",
        )
    _check_seminaive_options(model, settings)
    if model in SEMINAIVE:
        if text_column is not None:
            raise UsageError(
                f"--model {model} reads every column as categories or binned numbers; it "
                "cannot model a text column (--text-column). Use --model auto or a text model."
            )
        for c, p in profiles.items():
            if c in dates:  # calendar features, as the estimator reads them
                continue
            warns.extend(_string_warnings(c, sample[c], p, read))
            notes.extend(filter(None, [marker_note(c, sample[c], read)]))
            if p.role != "category":
                warns.append(
                    f"column {c!r} holds free text ({p.describe()}); --model {model} reads "
                    f"it as categories; leave it out with --exclude {c}, or use --model auto"
                )
        # The estimator reads the table as MixedNB does (identifiers out, dates as calendar
        # features); identifiers named in --features are kept as categories, as its
        # 'categorical' keeps them.
        kept_ids = [c for c in candidates if readings[c].kind == "identifier"]
        binned = [
            c
            for c in candidates
            if schema[c] in ("int", "float") and c not in categorical and c not in kept_ids
        ]
        if binned:
            notes.append(
                f"cutting numeric column(s) {names(binned)} into bins "
                f"({_binning_words(settings)}), edges from every row of DATA"
            )
        families = {c: "binned" for c in binned} | {c: "calendar" for c in dates}
        return _told(
            Plan(
                model,
                target,
                candidates,
                None,
                schema,
                seminaive_estimator(model, settings, (*categorical, *kept_ids)),
                notes,
                warns,
            ),
            [_chosen(readings[c], families.get(c, "categorical")) for c in candidates] + left,
        )
    auto = model == "auto"
    if auto:
        model = _auto_model(schema)
    if model in PRESETS:
        if settings.alpha is not None and model == "gaussian":
            raise UsageError("--alpha does not apply to --model gaussian; use --var-smoothing.")
        return _told(
            Plan(
                model,
                target,
                candidates,
                None,
                schema,
                preset_estimator(model, settings),
                notes,
                warns,
            ),
            [_chosen(readings[c], model) for c in candidates] + left,
        )
    cls = mixed_nb()
    groups: dict[str, list[str]] = {}
    if model == "categorical" and settings.continuous is not None:
        raise UsageError("--continuous does not apply to --model categorical (no numeric columns).")
    if model == "categorical":
        groups["categorical"] = [c for c in candidates if c not in dates]
    else:
        if categorical:
            groups["categorical"] = [c for c in candidates if c in categorical]
        words = [c for c in texts if auto]
        if text_column is not None and text_column not in words:
            words.append(text_column)
        if words:
            groups["text"] = [c for c in candidates if c in words]
            for c in groups["text"]:
                why = f" ({profiles[c].describe()})" if c in profiles else ""
                warns.append(
                    f"reading column {c!r} as words, modelled with the other columns{why}; "
                    f"name it in --categorical to read it as categories"
                    if auto and c != text_column
                    else f"reading column {c!r} as words, modelled with the other columns"
                )
        if settings.continuous not in (None, "gaussian"):
            # The columns MixedNB would model as normal densities get the chosen family.
            numeric = [
                c
                for c in candidates
                if c not in words and c not in categorical and readings[c].family == "gaussian"
            ]
            if numeric:
                groups[settings.continuous] = numeric
                notes.append(
                    f"reading numeric column(s) {names(numeric)} with the "
                    f"{settings.continuous!r} family (--continuous)"
                )
        for c in candidates:
            if (
                c in later
                and c not in words
                and c not in categorical
                and c not in groups.get(settings.continuous or "", [])
            ):
                # Empty in the first chunk: its family comes from the rows that have values
                # (MixedNB would infer it from the empty first batch).
                family = readings[c].family or readings[c].kept_family or "categorical"
                family = "categorical" if family == "calendar" else family
                groups.setdefault(family, []).append(c)
                notes.append(
                    f"column {c!r} is empty in the first {len(first):,} rows; typed "
                    f"{schema[c]} from the rows further down that hold values"
                )
    if dates:  # the same reading as MixedNB's, named (--model categorical reads them too)
        groups["calendar"] = dates
    taken = {c for cols in groups.values() for c in cols}
    for c in candidates:  # identifiers named in --features: kept, with their family
        if readings[c].kind == "identifier" and c not in taken and c not in categorical:
            groups.setdefault(readings[c].kept_family or "categorical", []).append(c)
    for c, p in profiles.items():
        if c not in groups.get("text", []) and c not in dates and c not in categorical:
            warns.extend(_string_warnings(c, sample[c], p, read))
            notes.extend(filter(None, [marker_note(c, sample[c], read)]))
    params: dict = {}
    for key in ("alpha", "estimate", "var_smoothing"):
        if getattr(settings, key) is not None:
            params[key] = getattr(settings, key)
    spec = [
        (text_family(settings) if family == "text" else family, cols)
        for family, cols in groups.items()
    ]
    params["columns"] = spec if spec or model == "categorical" else "auto"
    chosen = {c: family for family, cols in groups.items() for c in cols}
    choices = [_chosen(readings[c], chosen.get(c, readings[c].family)) for c in candidates] + left
    return _told(
        Plan(model, target, candidates, None, schema, cls(**params), notes, warns), choices
    )


@dataclass(frozen=True)
class _Given:
    """The reading options given on the command line (for advice that names others)."""

    given: frozenset

    @classmethod
    def of(cls, read) -> _Given:
        if read is None:
            return cls(frozenset())
        given = set()
        if getattr(read, "decimal", ".") != ".":
            given.add("--decimal")
        if getattr(read, "thousands", None):
            given.add("--thousands")
        if getattr(read, "na_values", ()):
            given.add("--na-values")
        return cls(frozenset(given))


def text_family(settings: Settings):
    """The text family of a words column inside MixedNB, from the text options."""
    from ..distributions import Text

    if settings.max_features is not None:
        raise UsageError(
            "--max-features applies to a text model over one column (TextNB); a text column "
            "inside the mixed model hashes its words instead (size it with --hashing N)."
        )
    if settings.ngrams != 1:
        raise UsageError(
            "--ngrams applies to a text model over one column (TextNB); a text column "
            "inside the mixed model uses single words."
        )
    min_df = settings.min_df
    if not float(min_df).is_integer() or min_df < 1:
        raise UsageError(
            "--min-df as a fraction applies to a text model over one column (TextNB); inside "
            "the mixed model give a number of occurrences (e.g. --min-df 2)."
        )
    params: dict = {"min_count": int(min_df), "lowercase": settings.lowercase}
    if settings.hashing:
        params["n_buckets"] = int(settings.hashing)
    for key in ("alpha", "estimate"):
        if getattr(settings, key) is not None:
            params[key] = getattr(settings, key)
    return Text(**params)


def _auto_model(schema: dict[str, str]) -> str:
    """MixedNB when available (each column gets its own family), else Gaussian for numbers."""
    if getattr(estimators, "MixedNB", None) is not None:
        return "mixed"
    text = [c for c, k in schema.items() if k == "str"]
    if text:
        raise UsageError(
            f"Column(s) {names(text)} hold text; pass --text-column for free "
            "text or --exclude them."
        )
    return "gaussian"


def _check_seminaive_options(model: str, settings: Settings) -> None:
    """The semi-naive options belong to their models: a usage error elsewhere."""
    given = {
        "--parents": (settings.parents, ("aode",)),
        "--k": (settings.k, ("kdb",)),
        "--binning": (settings.binning, tuple(SEMINAIVE)),
        "--n-bins": (settings.n_bins, tuple(SEMINAIVE)),
    }
    for flag, (value, models) in given.items():  # four options
        if value is not None and model not in models:
            raise UsageError(
                f"{flag} applies to --model {' / '.join(models)}; got --model {model}."
            )
    if model in SEMINAIVE and settings.continuous is not None:
        raise UsageError(
            f"--continuous applies to --model density, mixed or auto; --model {model} bins its "
            "numeric columns (--binning, --n-bins)."
        )
    if model in SEMINAIVE and settings.var_smoothing is not None:
        raise UsageError(f"--var-smoothing does not apply to --model {model}; use --alpha.")
    if settings.n_bins is not None and settings.binning not in ("quantile", "binned"):
        raise UsageError(
            "--n-bins sets the number of quantile bins (or grid bins); pass --binning quantile "
            "(or binned) too."
        )
    if settings.binning == "binned" and settings.n_bins is not None and settings.n_bins < 2:
        raise UsageError(
            f"--n-bins must be at least 2 with --binning binned; got {settings.n_bins}."
        )


#: Grid bins of ``--binning binned`` by default: on Adult and Spambase 1024 bins cut within
#: 0.1 point of accuracy of the exact MDL cuts, 256 bins up to 1.3 points below.
GRID_BINS = 1024


def _binning_words(settings: Settings) -> str:
    if settings.binning == "quantile":
        return f"{settings.n_bins or 5} equal-frequency bins"
    if settings.binning == "binned":
        return f"supervised MDL cuts on a grid of {settings.n_bins or GRID_BINS} bins"
    return "supervised MDL cuts"


def seminaive_estimator(name: str, settings: Settings, categorical=()):
    """AODE / TAN / KDB / JointBayes with the command line's options (``categorical``: the
    columns of --categorical)."""
    params: dict = {}
    if categorical:
        params["categorical"] = list(categorical)
    for key in ("alpha", "estimate", "binning", "n_bins"):
        if getattr(settings, key) is not None:
            params[key] = getattr(settings, key)
    if settings.binning == "binned":  # the binned family's cuts, on its grid
        params["binning"] = Binned(bins=params.pop("n_bins", GRID_BINS))
    if settings.alpha in ("auto", "cv"):
        raise UsageError(
            f"--alpha {settings.alpha} does not apply to --model {name}; give a number."
        )
    if settings.parents is not None:
        params["n"] = settings.parents
    if settings.k is not None:
        params["k"] = settings.k
    return SEMINAIVE[name](**params)


def preset_estimator(name: str, settings: Settings):
    cls = PRESETS[name]
    params: dict = {}
    if name == "density":
        if settings.estimate is not None:
            raise UsageError("--estimate does not apply to --model density.")
        if settings.continuous is not None:
            params["density"] = "auto" if settings.continuous == "density" else settings.continuous
        for key in ("alpha", "var_smoothing"):
            if getattr(settings, key) is not None:
                params[key] = getattr(settings, key)
        return cls(**params)
    if settings.continuous is not None:
        raise UsageError(
            f"--continuous applies to --model density, mixed or auto; --model {name} reads "
            "every column one way."
        )
    if name == "gaussian":
        if settings.var_smoothing is not None:
            params["var_smoothing"] = settings.var_smoothing
        if settings.estimate not in (None, "mle"):
            raise UsageError("--model gaussian supports --estimate mle only.")
    else:
        if settings.alpha is not None:
            params["alpha"] = settings.alpha
        if settings.estimate is not None:
            params["estimate"] = settings.estimate
    return cls(**params)


def text_estimator(name: str, settings: Settings) -> TextNB:
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

    common = {"ngram_range": (1, settings.ngrams), "lowercase": settings.lowercase}
    if settings.hashing:
        vectorizer = HashingVectorizer(
            n_features=settings.hashing, alternate_sign=False, norm=None, **common
        )
    else:
        min_df = settings.min_df
        min_df = int(min_df) if float(min_df).is_integer() and min_df >= 1 else float(min_df)
        vectorizer = CountVectorizer(min_df=min_df, max_features=settings.max_features, **common)
    params = {}
    if settings.alpha is not None:
        params["alpha"] = settings.alpha
    if settings.estimate is not None:
        params["estimate"] = settings.estimate
    return TextNB(TEXT_MODELS[name](**params), vectorizer)


def inner(model):
    """The estimator that holds the statistics (inside TextNB for text models)."""
    return base.inner_model(model)


def sort_classes(model, strings: bool = False) -> None:
    """Give the classes their file's type and sorted order, permuting every class-axis
    statistic to match.

    Training from chunks learns classes as strings (see :mod:`._labels`) in the order they
    appear (a later chunk may add one); typing and sorting them makes the model the same as
    ``fit`` on all rows with the labels as pandas reads them: ``2`` before ``10``.
    ``strings``: the file typed the labels as strings; keep them so.
    """
    est = inner(model)
    typed = typed_classes(est.classes_.tolist(), strings)
    order = np.argsort(typed, kind="stable")
    est.classes_ = typed[order]
    if est is not model:  # a wrapper keeps its inner model's classes
        model.classes_ = est.classes_
    if np.array_equal(order, np.arange(order.size)):
        return
    # Class i of the statistics goes to place argsort(order)[i]; classes_ is sorted already.
    positions = np.argsort(order, kind="stable")
    model.install(est.classes_, model.align_statistics(est.stats_, positions, order.size))


def class_labels(
    series: pd.Series, offset: int, path: str, target: str, rows: str = "training"
) -> np.ndarray:
    """Labels of one chunk as strings; an empty label is an error naming its row.

    ``rows`` names the rows in that message ("training", "evaluation").
    """
    missing = series.isna().to_numpy()
    if missing.any():
        row = offset + int(np.flatnonzero(missing)[0])
        raise DataError(
            f"{path}: the target column {target!r} is empty at row {row}; every "
            f"{rows} row needs a label. Drop or fill unlabelled rows"
            + (
                ", or learn from them too with --unlabeled-value '' (semi-supervised EM)."
                if rows == "training"
                else "."
            )
        )
    return series.astype(str).to_numpy(dtype=object)
