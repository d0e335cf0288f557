"""The plan of a model: which estimator reads which columns, and how a model file remembers it.

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

from ... import base
from .._common import CLIError, UsageError, name_inputs
from .._tables import conform
from ._estimators import PRESETS, SEMINAIVE


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
    #: The :class:`nbayes.calibration.CalibratedClassifierCV` of a calibrated model file
    #: (``estimator`` is then its fitted nbayes model); None: the model is not calibrated.
    calibrated: Any = None

    @property
    def scorer(self):
        """What gives the probabilities: the calibration if there is one, else the model."""
        return self.estimator if self.calibrated is None else self.calibrated

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
    from ...io import load, read_manifest
    from ...io._wrappers import is_wrapper

    model = load(path)
    if not is_wrapper(model):
        plan = Plan.from_model(model, read_manifest(path), text_column)
    else:
        # A calibration: the plan reads the table for its (first) fitted model.
        plan = Plan.from_model(
            model.calibrated_classifiers_[0].estimator, read_manifest(path), text_column
        )
        plan.calibrated = model
    name_inputs(plan.features)
    return plan


#: Share of distinct values from which categories are near-unique (a warning with the fix).
