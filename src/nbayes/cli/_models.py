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

from .. import estimators
from ..estimators import (
    BernoulliNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
    TextNB,
)
from ..exceptions import DataError
from ._common import CLIError, UsageError, names
from ._labels import typed_classes
from ._tables import conform, infer_schema

MODELS = (
    "auto",
    "gaussian",
    "bernoulli",
    "multinomial",
    "complement",
    "categorical",
    "poisson",
    "mixed",
)
#: --model choices for a numeric table, each one preset over every feature column.
PRESETS = {
    "gaussian": GaussianNB,
    "bernoulli": BernoulliNB,
    "multinomial": MultinomialNB,
    "complement": ComplementNB,
    "poisson": PoissonNB,
}
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
    hashing: int | None = None
    min_df: float = 1
    max_features: int | None = None
    ngrams: int = 1
    lowercase: bool = True


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
    """

    model: str
    target: str
    features: list[str]
    text_column: str | None
    schema: dict[str, str]
    # Any: the estimators derive from scikit-learn's classes, which carry no types.
    estimator: Any = None
    notes: list[str] = field(default_factory=list)
    #: How ``train`` read a CSV: ``{"header": bool, "names": [...] or None}`` (None: the
    #: model does not say).
    reading: dict | None = None
    #: Log-odds decision threshold kept by ``train --threshold`` (for a model without the
    #: parameter); None: the model decides alone.
    threshold: float | None = None

    @property
    def is_text(self) -> bool:
        return self.text_column is not None

    def inputs(self, frame: pd.DataFrame, offset: int, path: str):
        """The estimator's input for one chunk (converted to the training column types)."""
        if self.is_text:
            return frame[self.text_column]
        numeric = self.model if self.model in PRESETS else None
        # The estimator's column order is ``features`` (the stored schema may be re-ordered).
        schema = {c: self.schema[c] for c in self.features}
        return conform(frame, schema, offset, path, numeric=numeric)

    def metadata(self, rows: int, source: str) -> dict:
        return {
            "target": self.target,
            "model": self.model,
            "features": self.features,
            "text_column": self.text_column,
            "schema": self.schema,
            "rows": rows,
            "source": source,
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
        if isinstance(model, TextNB):
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
        kind = "float" if type(model).__name__ in {c.__name__ for c in PRESETS.values()} else None
        model_name = next((k for k, c in PRESETS.items() if type(model) is c), "mixed")
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


def looks_like_text(series: pd.Series) -> bool:
    """A free-text column: sentences (a median of 8+ words), or values of 3+ words that are
    mostly distinct. Short repeated strings ("New York City") stay categories."""
    values = series.dropna().iloc[:2000]  # a sample decides; e-mails are long to split
    if values.empty or values.map(type).ne(str).any():
        return False
    words = values.str.split().str.len().median()
    return words >= 8 or (words >= 3 and values.nunique() >= 0.5 * len(values))


def plan(
    first: pd.DataFrame,
    target: str,
    model: str,
    *,
    text_column: str | None = None,
    features: list[str] | None = None,
    exclude: tuple[str, ...] = (),
    settings: Settings | None = None,
) -> Plan:
    """Choose the estimator and its input columns from the first chunk of DATA."""
    settings = settings or Settings()
    columns = [str(c) for c in first.columns]
    if target not in columns:
        raise DataError(
            f"DATA has no target column {target!r}; its columns are "
            f"{names(columns)}. Pass the label column with --target."
        )
    for name, cols in (("--exclude", exclude), ("--features", features or [])):
        absent = [c for c in cols if c not in columns]
        if absent:
            raise DataError(
                f"{name} names column(s) {names(absent)} that DATA lacks; its "
                f"columns are {names(columns)}."
            )
    notes = []
    if text_column is not None:
        if text_column not in columns:
            raise DataError(
                f"DATA has no text column {text_column!r}; its columns are {names(columns)}."
            )
        if text_column == target:
            raise UsageError("--text-column and --target must be different columns.")
    candidates = [c for c in (features or columns) if c != target and c not in exclude]
    if text_column is None and model in ("auto", *TEXT_MODELS) and features is None:
        texts = [c for c in candidates if looks_like_text(first[c])]
        if len(texts) == 1 and (model == "auto" or len(candidates) == 1):
            text_column = texts[0]
            notes.append(f"reading {text_column!r} as free text")
    if text_column is not None:
        name = "multinomial" if model == "auto" else model
        if name not in TEXT_MODELS:
            raise UsageError(
                f"--model {model} cannot model a text column; use one of "
                f"{sorted(TEXT_MODELS)} (or auto)."
            )
        ignored = [c for c in candidates if c != text_column]
        if ignored:
            notes.append(f"ignoring column(s) {names(ignored)} next to the text column")
        return Plan(
            name,
            target,
            [text_column],
            text_column,
            {text_column: "str"},
            text_estimator(name, settings),
            notes,
        )
    if not candidates:
        raise DataError(f"DATA has no feature columns besides the target {target!r}.")
    schema = infer_schema(first[candidates])
    if model == "auto":
        model = _auto_model(schema)
    if model in PRESETS:
        if settings.alpha is not None and model == "gaussian":
            raise UsageError("--alpha does not apply to --model gaussian; use --var-smoothing.")
        return Plan(
            model, target, candidates, None, schema, preset_estimator(model, settings), notes
        )
    cls = mixed_nb()
    columns_arg = "auto" if model == "mixed" else [("categorical", candidates)]
    params = {"columns": columns_arg}
    for key in ("alpha", "estimate", "var_smoothing"):
        if getattr(settings, key) is not None:
            params[key] = getattr(settings, key)
    return Plan(model, target, candidates, None, schema, cls(**params), notes)


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


def preset_estimator(name: str, settings: Settings):
    cls = PRESETS[name]
    params = {}
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
    """The BaseNB estimator that holds the statistics (inside TextNB for text models)."""
    return model.classifier_ if isinstance(model, TextNB) else model


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
    if isinstance(model, TextNB):
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
            f"{rows} row needs a label. Drop or fill unlabelled rows."
        )
    return series.astype(str).to_numpy(dtype=object)
