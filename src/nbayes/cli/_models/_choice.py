"""The model plan ``nbayes train`` chooses from ``--model`` and the columns of DATA."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

import pandas as pd

from ... import estimators
from ...columns import (
    ColumnReading,
    format_choices,
    string_profile,
)
from ...exceptions import DataError
from .._common import UsageError, names
from .._tables import _unmodelled, infer_kind
from ._estimators import (
    PRESETS,
    SEMINAIVE,
    TEXT_MODELS,
    Settings,
    _binning_words,
    _check_seminaive_options,
    mixed_nb,
    preset_estimator,
    seminaive_estimator,
    text_estimator,
    text_family,
)
from ._hints import _coded_warning, _reading, _string_warnings, marker_note
from ._plan import Plan


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
            + _headerless_hint(columns, target, read)
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
        ranks = [c for c in candidates if readings[c].kind == "rank" and c not in categorical]
        if ranks:
            fix = (
                f"if it numbers the rows, train again with --exclude {shlex.quote(ranks[0])}"
                if len(ranks) == 1
                else "if one of them numbers the rows, train again with --exclude and its "
                f"name (e.g. --exclude {shlex.quote(ranks[0])})"
            )
            warns.append(
                f"modelling column(s) {names(ranks)} as numbers: whole numbers distinct in "
                f"every row that fill most of their range, a rank or an ordering; {fix} (as "
                "a feature, a row number lets the model learn which rows belong to which "
                "class)"
            )
    for c in candidates:  # bounded by the table's width
        if readings[c].kind == "coded number":
            warns.append(_coded_warning(c, readings[c], read))
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
                    f"it as categories; leave it out with --exclude {shlex.quote(str(c))}, "
                    "or use --model auto"
                )
        # The estimator reads the table as MixedNB does (identifiers out, dates as calendar
        # features); identifiers named in --features are kept as categories, as its
        # 'categorical' keeps them.
        kept_ids = [c for c in candidates if readings[c].kind == "identifier"]
        binned = [
            c
            for c in candidates
            if schema[c] in ("int", "float")
            and c not in categorical
            and c not in kept_ids
            and c not in dates  # dates written as numbers (YYMMDD): calendar features
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
        (text_family(settings, cols) if family == "text" else family, cols)
        for family, cols in groups.items()
    ]
    params["columns"] = spec if spec or model == "categorical" else "auto"
    chosen = {c: family for family, cols in groups.items() for c in cols}
    choices = [_chosen(readings[c], chosen.get(c, readings[c].family)) for c in candidates] + left
    return _told(
        Plan(model, target, candidates, None, schema, cls(**params), notes, warns), choices
    )


def _headerless_hint(columns: list[str], target: str, read) -> str:
    """Advice for a CSV whose first line is data, read as its header: names that repeat
    (pandas reads a second ``p`` as ``p.1``), names that are numbers, or a number given as
    the target (the columns of ``--no-header`` are numbered)."""
    if read is None or not _Given.of(read).csv or not getattr(read, "header", True):
        return ""
    if getattr(read, "names", None):
        return ""
    repeated = [c for c in columns if re.fullmatch(r"(.+)\.[1-9][0-9]*", c)]
    repeated = [c.rsplit(".", 1)[0] for c in repeated if c.rsplit(".", 1)[0] in columns]
    numbers = [c for c in columns if pd.notna(pd.to_numeric(c, errors="coerce"))]
    if repeated:
        why = f" (its names repeat {repeated[0]!r})"
    elif len(numbers) >= 2:
        why = f" (names such as {numbers[0]!r} and {numbers[1]!r} are numbers)"
    elif target.isdigit():
        why = ""
    else:
        return ""
    return (
        f" If the first line of DATA is data{why}, not a header, pass --no-header: the "
        "columns are then numbered 0, 1, 2, ..., or name them with --no-header --names."
    )


@dataclass(frozen=True)
class _Given:
    """The reading options given on the command line (for advice that names others), and
    whether DATA is CSV/TSV (the only formats they apply to)."""

    given: frozenset
    csv: bool = True

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
        return cls(frozenset(given), getattr(read, "format", None) in (None, "csv", "tsv"))


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
