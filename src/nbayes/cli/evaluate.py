"""``nbayes evaluate``: accuracy, log-loss, per-class scores and the confusion matrix.

Metrics are accumulated chunk by chunk with bounded memory: the confusion matrix and the summed
log-loss add up over chunks, and the final scores come from scikit-learn's metrics applied to
the confusion matrix's cells as weighted samples (exactly the same numbers as on all rows).
"""

from __future__ import annotations

import argparse
import json
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    confusion_matrix,
    log_loss,
    precision_recall_fscore_support,
)

from .._validation import rows_from
from ..exceptions import DataError
from ._common import format_table, plural
from ._models import class_labels, load_plan
from ._tables import ReadOptions, open_table, read_dtypes
from .predict import required_columns

HELP = "score a saved model on a labelled table"


@dataclass
class Scores:
    """Running totals for the metrics; :meth:`add` one chunk at a time."""

    classes: np.ndarray
    labels: list = field(default_factory=list)
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    log_loss_sum: float = 0.0
    log_loss_rows: int = 0
    rows: int = 0

    def __post_init__(self):
        self.labels = [str(c) for c in self.classes]
        self.matrix = np.zeros((len(self.labels),) * 2, dtype=np.int64)

    def add(self, y_true: np.ndarray, proba: np.ndarray) -> None:
        """Fold one chunk's true labels and predicted probabilities into the totals."""
        y_pred = np.asarray(self.labels, dtype=object)[np.argmax(proba, axis=1)]
        unseen = sorted(set(pd.unique(y_true).tolist()) - set(self.labels))
        if unseen:  # labels the model never saw: counted as errors, matrix grows
            self.labels.extend(unseen)
            grown = np.zeros((len(self.labels),) * 2, dtype=np.int64)
            grown[: self.matrix.shape[0], : self.matrix.shape[1]] = self.matrix
            self.matrix = grown
        self.matrix += confusion_matrix(y_true, y_pred, labels=self.labels)
        model_labels = np.asarray(self.labels[: len(self.classes)], dtype=object)
        known = np.isin(y_true, model_labels)
        if known.any():
            # log_loss reads probability columns in sorted label order.
            order = np.argsort(model_labels)
            self.log_loss_sum += log_loss(
                y_true[known], proba[known][:, order], labels=model_labels[order], normalize=False
            )
            self.log_loss_rows += int(known.sum())
        self.rows += len(y_true)

    def report(self) -> dict:
        """The metrics as a JSON-able dict."""
        n = len(self.labels)
        cells = self.matrix.ravel()
        keep = cells > 0
        labels = np.asarray(self.labels, dtype=object)
        y_true = labels[np.repeat(np.arange(n), n)[keep]]
        y_pred = labels[np.tile(np.arange(n), n)[keep]]
        weight = cells[keep]
        precision, recall, f1, support = precision_recall_fscore_support(
            y_true, y_pred, labels=self.labels, sample_weight=weight, zero_division=0
        )
        unknown = self.rows - self.log_loss_rows
        with warnings.catch_warnings():
            # A predicted class with no true rows is left out of the balanced accuracy, as
            # documented by scikit-learn; the warning says no more than that.
            warnings.filterwarnings("ignore", message="y_pred contains classes not in y_true")
            balanced = float(balanced_accuracy_score(y_true, y_pred, sample_weight=weight))
        return {
            "rows": self.rows,
            "accuracy": float(accuracy_score(y_true, y_pred, sample_weight=weight)),
            "balanced_accuracy": balanced,
            # Rows whose label the model does not know have probability zero: the log-loss
            # over all rows is infinite, so it is reported over the known labels only.
            "log_loss": self.log_loss_sum / self.log_loss_rows if self.log_loss_rows else None,
            "rows_with_unknown_labels": unknown,
            "classes": self.labels,
            "per_class": {
                c: {"precision": float(p), "recall": float(r), "f1": float(f), "support": int(s)}
                for c, p, r, f, s in zip(self.labels, precision, recall, f1, support)
            },
            "confusion_matrix": self.matrix.tolist(),
        }


def evaluate(
    model: str,
    data: str,
    target: str | None = None,
    *,
    text_column: str | None = None,
    read: ReadOptions | None = None,
    progress: bool = False,
) -> dict:
    """Score MODEL on the labelled table DATA; ``target`` defaults to the training target.

    Returns
    -------
    dict with ``rows``, ``accuracy``, ``balanced_accuracy``, ``log_loss``, ``per_class``
    (precision, recall, F1, support), ``classes`` and ``confusion_matrix`` (rows: true class,
    columns: predicted, in ``classes`` order).

    Examples
    --------
    >>> import os, tempfile
    >>> from nbayes.cli.train import train
    >>> folder = tempfile.mkdtemp()
    >>> data = os.path.join(folder, "fruit.csv")
    >>> with open(data, "w") as f:
    ...     _ = f.write("colour,weight,fruit\\nred,150,apple\\ngreen,170,apple\\n"
    ...                 "yellow,120,banana\\nyellow,130,banana\\n")
    >>> model = os.path.join(folder, "fruit.nbayes")
    >>> _ = train(data, "fruit", model)
    >>> report = evaluate(model, data)
    >>> report["accuracy"], report["confusion_matrix"]
    (1.0, [[2, 0], [0, 2]])
    """
    read = read or ReadOptions()
    the_plan = load_plan(model, text_column)
    target = target or the_plan.target
    if not target:
        raise DataError("The model does not record its target column; pass --target COL.")
    est = the_plan.estimator
    table = open_table(data, read, progress)
    columns = required_columns(table, the_plan, [target])
    scores = Scores(np.asarray(est.classes_))
    dtypes = {**read_dtypes(the_plan.schema), target: str}
    for offset, chunk in table.chunks(columns, dtypes, desc="evaluating"):
        y = class_labels(chunk[target], offset, data, target)
        with rows_from(offset):
            proba = est.predict_proba(the_plan.inputs(chunk, offset, data))
        scores.add(y, proba)
    if scores.rows == 0:
        raise DataError(f"{data}: no data rows.")
    return {"model": str(model), "data": str(data), "target": target, **scores.report()}


def format_report(report: dict) -> str:
    """The report as readable text: summary, per-class table, confusion matrix."""
    loss = report["log_loss"]
    lines = [
        f"{report['data']}: {plural(report['rows'], 'row')}, target {report['target']!r}",
        "",
        format_table(
            [
                ["accuracy", report["accuracy"]],
                ["balanced accuracy", report["balanced_accuracy"]],
                ["log-loss", "n/a" if loss is None else loss],
            ],
            ["metric", "value"],
        ),
    ]
    if report["rows_with_unknown_labels"]:
        lines.append(
            f"({plural(report['rows_with_unknown_labels'], 'row')} have labels the "
            "model does not know; log-loss leaves them out)"
        )
    per_class = [
        [c, v["precision"], v["recall"], v["f1"], v["support"]]
        for c, v in report["per_class"].items()
    ]
    lines += ["", format_table(per_class, ["class", "precision", "recall", "f1", "support"])]
    labels = report["classes"]
    matrix = [[f"true {c}", *row] for c, row in zip(labels, report["confusion_matrix"])]
    lines += [
        "",
        "confusion matrix (rows: true class, columns: predicted class)",
        format_table(matrix, ["", *[f"pred {c}" for c in labels]]),
    ]
    return "\n".join(lines)


def add_parser(subparsers, parents) -> argparse.ArgumentParser:
    p = subparsers.add_parser("evaluate", help=HELP, description=HELP + ".", parents=parents)
    p.add_argument("model", metavar="MODEL", help="model file written by `nbayes train`")
    p.add_argument("data", metavar="DATA", help="labelled table")
    p.add_argument(
        "--target",
        "-t",
        metavar="COL",
        help="label column (default: the one the model was trained on)",
    )
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    p.add_argument(
        "--text-column", metavar="COL", help="text column, for a text model saved from Python"
    )
    return p


def run(args) -> int:
    from . import read_options

    report = evaluate(
        args.model,
        args.data,
        args.target,
        text_column=args.text_column,
        read=read_options(args),
        progress=not args.quiet,
    )
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0
