"""``nbayes evaluate``: accuracy, log-loss, per-class scores and the confusion matrix.

Metrics are accumulated chunk by chunk with bounded memory: each chunk's labels become integer
codes (compared with the model's classes by value, so ``1.0`` is the class ``1``), the
confusion matrix counts (true code, predicted code) pairs, and the log-loss adds up the
probabilities of the true classes. Every score is then a few sums over that matrix, equal to
scikit-learn's metrics on all rows.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from .._validation import rows_from, spelling_key
from ..exceptions import DataError
from ._common import format_table, plural
from ._labels import describe, label_codes
from ._models import class_labels, load_plan
from ._scoring import predicted_codes
from ._tables import ReadOptions, open_table, read_dtypes
from .predict import (
    add_threshold_options,
    decision_threshold,
    remembered_reading,
    required_columns,
)

HELP = "score a saved model on a labelled table"
#: Beyond this many classes the text report shows the most frequent ones (--full: all).
SHOWN_CLASSES = 20


@dataclass
class Scores:
    """Running totals for the metrics; :meth:`add` one chunk at a time.

    Parameters
    ----------
    classes : ndarray
        The model's classes, in its column order.
    threshold : float, optional
        A log-odds decision threshold (two classes), as :func:`.predict.predicted_codes`.
    """

    classes: np.ndarray
    threshold: float | None = None
    unknown: list = field(default_factory=list)
    log_loss_sum: float = 0.0
    log_loss_rows: int = 0
    rows: int = 0

    def __post_init__(self):
        self.classes = np.asarray(self.classes)
        # Rows: the true label (the classes, then labels the model does not know, in order of
        # appearance); columns: the predicted class. Sparse: hundreds of classes confuse few
        # pairs.
        self.matrix = sparse.csr_matrix((len(self.classes), len(self.classes)), dtype=np.int64)

    def add(self, y_true, proba: np.ndarray) -> None:
        """Fold one chunk's true labels and predicted probabilities into the totals."""
        y_true = y_true if isinstance(y_true, pd.Series) else pd.Series(np.asarray(y_true))
        n_classes = len(self.classes)
        codes = label_codes(y_true, self.classes)
        unknown = codes < 0
        if unknown.any():  # labels the model never saw: counted as errors, matrix grows
            spelled = y_true[unknown].astype(str).to_numpy(dtype=object)
            self.unknown.extend(sorted(set(pd.unique(spelled).tolist()) - set(self.unknown)))
            codes[unknown] = n_classes + pd.Index(self.unknown).get_indexer(spelled)
            self.matrix.resize((n_classes + len(self.unknown), n_classes))
        predicted = predicted_codes(proba, self.threshold)
        pairs = codes.astype(np.int64) * n_classes + predicted
        pairs, counts = np.unique(pairs, return_counts=True)
        self.matrix = self.matrix + sparse.csr_matrix(
            (counts, (pairs // n_classes, pairs % n_classes)), shape=self.matrix.shape
        )
        known = np.flatnonzero(~unknown)
        # scikit-learn's log_loss clips probabilities to [eps, 1 - eps] before the log.
        eps = np.finfo(proba.dtype).eps
        p = np.clip(proba[known, codes[known]], eps, 1 - eps)
        self.log_loss_sum -= float(np.log(p).sum())
        self.log_loss_rows += known.size
        self.rows += len(codes)

    @property
    def labels(self) -> list:
        """The classes, then the labels the model does not know."""
        return [*self.classes.tolist(), *self.unknown]

    def report(self, full_matrix: bool = True) -> dict:
        """The metrics as a JSON-able dict; ``full_matrix=False`` leaves the confusion matrix
        out (None) when it has more than :data:`SHOWN_CLASSES` rows."""
        matrix = self.matrix.tocsr()
        n = matrix.shape[0]
        true_rows = np.asarray(matrix.sum(axis=1)).ravel()
        predicted = np.zeros(n)
        predicted[: matrix.shape[1]] = np.asarray(matrix.sum(axis=0)).ravel()
        hits = np.zeros(n)
        hits[: matrix.shape[1]] = matrix.diagonal()
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(predicted > 0, hits / predicted, 0.0)
            recall = np.where(true_rows > 0, hits / true_rows, 0.0)
            f1 = np.where(
                hits > 0, 2 * hits / (2 * hits + (predicted - hits) + (true_rows - hits)), 0.0
            )
        present = true_rows > 0
        labels = self.labels
        square = None
        if full_matrix or n <= SHOWN_CLASSES:
            square = np.zeros((n, n), dtype=np.int64)
            square[:, : matrix.shape[1]] = matrix.toarray()
            square = square.tolist()
        return {
            "rows": self.rows,
            "accuracy": float(hits.sum() / self.rows) if self.rows else None,
            # The mean recall over the classes present, as scikit-learn's.
            "balanced_accuracy": float(recall[present].mean()) if present.any() else None,
            # Rows whose label the model does not know have probability zero: the log-loss
            # over all rows is infinite, so it is reported over the known labels only.
            "log_loss": self.log_loss_sum / self.log_loss_rows if self.log_loss_rows else None,
            "rows_with_unknown_labels": self.rows - self.log_loss_rows,
            "unknown_labels": list(self.unknown),
            "classes": labels,
            "per_class": {
                str(c): {
                    "precision": float(p),
                    "recall": float(r),
                    "f1": float(f),
                    "support": int(s),
                }
                for c, p, r, f, s in zip(labels, precision, recall, f1, true_rows)
            },
            "confusion_matrix": square,
            "confusions": _confusions(matrix, labels),
        }


def _confusions(matrix, labels: list) -> list[dict]:
    """The off-diagonal cells of the confusion matrix, most rows first."""
    cells = matrix.tocoo()
    off = (cells.row != cells.col) & (cells.data > 0)
    rows, cols, counts = cells.row[off], cells.col[off], cells.data[off]
    order = np.lexsort((cols, rows, -counts))
    return [
        {"true": labels[i], "predicted": labels[j], "rows": int(c)}
        for i, j, c in zip(rows[order].tolist(), cols[order].tolist(), counts[order].tolist())
    ]


def evaluate(
    model: str,
    data: str,
    target: str | None = None,
    *,
    text_column: str | None = None,
    read: ReadOptions | None = None,
    progress: bool = False,
    threshold: float | None = None,
    threshold_scale: str = "log_odds",
    full: bool = True,
) -> dict:
    """Score MODEL on the labelled table DATA; ``target`` defaults to the training target.

    Labels are compared with the model's classes by value (``1.0`` is the class ``1``). The
    predictions follow the model's ``decision_threshold`` (as ``model.predict``), or
    ``threshold`` (log-odds, or a probability with ``threshold_scale="proba"``) when given.

    Returns
    -------
    dict with ``rows``, ``accuracy``, ``balanced_accuracy``, ``log_loss``, ``per_class``
    (precision, recall, F1, support), ``classes``, ``confusion_matrix`` (rows: true class,
    columns: predicted, in ``classes`` order; None with ``full=False`` and more than
    ``SHOWN_CLASSES`` labels) and ``confusions`` (its off-diagonal cells, most rows first).

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
    read = remembered_reading(the_plan, data, read)
    target = target or the_plan.target
    if not target:
        raise DataError("The model does not record its target column; pass --target COL.")
    est = the_plan.estimator
    classes = np.asarray(est.classes_)
    cut = decision_threshold(est, threshold, threshold_scale, the_plan.threshold)
    scores = Scores(classes, cut)
    for _, _, y, proba in scored_chunks(the_plan, data, target, read, progress):
        scores.add(y, proba)
    check_scores(scores, data, target)
    return {"model": str(model), "data": str(data), "target": target, **scores.report(full)}


def scored_chunks(the_plan, data: str, target: str, read: ReadOptions, progress: bool = False):
    """Read the labelled table DATA chunk by chunk and score it.

    Yields
    ------
    (offset, inputs, y, proba)
        The chunk's first row number, the model's inputs (as ``the_plan.inputs``), its labels
        (a Series indexed from 0; none may be missing) and ``predict_proba`` of the inputs.
    """
    est = the_plan.estimator
    table = open_table(data, read, progress)
    columns = required_columns(table, the_plan, [target])
    dtypes = read_dtypes(the_plan.schema)
    if np.asarray(est.classes_).dtype.kind not in "iuf":
        # Text and boolean classes compare as text; numbers are read as numbers (1.0 == 1).
        dtypes[target] = str
    for offset, chunk in table.chunks(columns, dtypes, desc="evaluating"):
        y = chunk[target]
        class_labels(y, offset, data, target, rows="evaluation")  # no label may be missing
        inputs = the_plan.inputs(chunk, offset, data)
        with rows_from(offset):
            proba = est.predict_proba(inputs)
        yield offset, inputs, y.reset_index(drop=True), proba
    table.say_line_breaks()


def check_scores(scores: Scores, data: str, target: str) -> None:
    """Refuse an evaluation of no rows, or of no row whose label the model knows."""
    classes = scores.classes
    if scores.rows == 0:
        raise DataError(f"{data}: no data rows.")
    if scores.log_loss_rows == 0:
        raise DataError(
            f"{data}: none of the {plural(scores.rows, 'label')} in column {target!r} is a "
            f"class of the model, which knows {describe(classes)}; the file has "
            f"{describe(np.asarray(scores.unknown, dtype=object))}. Is {target!r} the "
            "column the model was trained to predict (--target), and are its labels "
            "spelled the same way?"
        )


def _shown(labels: list, most: int = 5) -> str:
    """A few labels, quoted, and how many more there are."""
    shown = ", ".join(repr(v) for v in labels[:most])
    return shown if len(labels) <= most else f"{shown} and {len(labels) - most:,} more"


def unknown_label_notes(report: dict) -> list[str]:
    """What an evaluation report says of rows whose label the model does not know: which
    labels, how they count, and those that differ from a class only in spaces or case."""
    if not report["rows_with_unknown_labels"]:
        return []
    unknown = report["unknown_labels"]
    return [
        f"{plural(report['rows_with_unknown_labels'], 'row')} have labels the model does not "
        f"know: {_shown(unknown)}. They count as errors; log-loss leaves them out.",
        *_lookalike_labels(unknown, report["classes"]),
    ]


def _lookalike_labels(unknown: list, classes: list) -> list[str]:
    """A sentence naming the unknown labels that differ from a class of the model only in
    spaces or letter case: the file likely writes that class another way."""
    by_key = {spelling_key(c): c for c in classes if isinstance(c, str) and c not in unknown}
    alike = [u for u in unknown if spelling_key(u) in by_key]
    if not alike:
        return []
    matched = list(dict.fromkeys(by_key[spelling_key(u)] for u in alike))
    return [
        f"{_shown(alike)} differ from the model's {_shown(matched)} only in spaces or letter "
        "case: write them as the model does to score those rows."
    ]


def format_report(report: dict, full: bool = False) -> str:
    """The report as readable text: summary, per-class table, confusion matrix.

    With more than :data:`SHOWN_CLASSES` labels and not ``full``, the per-class table shows
    the most frequent classes and the confusion matrix gives way to the most frequent
    confusions.
    """
    loss = report["log_loss"]
    lines = [
        f"{report['data']}: {plural(report['rows'], 'row')}, target {report['target']!r}",
        "",
        format_table(
            [
                ["accuracy", _number(report["accuracy"])],
                ["balanced accuracy", _number(report["balanced_accuracy"])],
                ["log-loss", _number(loss)],
            ],
            ["metric", "value"],
        ),
    ]
    lines += [f"({note})" for note in unknown_label_notes(report)]
    labels = report["classes"]
    per_class = [
        [c, v["precision"], v["recall"], v["f1"], v["support"]]
        for c, v in report["per_class"].items()
    ]
    summarise = not full and len(labels) > SHOWN_CLASSES
    if summarise:
        # The most frequent true labels (stable: ties keep the class order).
        per_class = sorted(per_class, key=lambda row: -row[4])[:SHOWN_CLASSES]
    lines += ["", format_table(per_class, ["class", "precision", "recall", "f1", "support"])]
    if summarise:
        lines.append(
            f"(the {SHOWN_CLASSES} most frequent of {len(labels):,} classes; --full shows "
            "every class and the confusion matrix)"
        )
        confusions = report["confusions"][:SHOWN_CLASSES]
        lines += ["", "most frequent confusions"]
        lines.append(
            format_table(
                [[c["true"], c["predicted"], c["rows"]] for c in confusions],
                ["true class", "predicted class", "rows"],
                "llr",
            )
            if confusions
            else "(none: every row is predicted right)"
        )
    else:
        matrix = [[f"true {c}", *row] for c, row in zip(labels, report["confusion_matrix"])]
        lines += [
            "",
            "confusion matrix (rows: true class, columns: predicted class)",
            format_table(matrix, ["", *[f"pred {c}" for c in labels]]),
        ]
    return "\n".join(lines)


def _number(value):
    return "n/a" if value is None else value


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
        "--full",
        action="store_true",
        help=f"with more than {SHOWN_CLASSES} classes, show every class and the whole "
        "confusion matrix (default: the most frequent ones)",
    )
    add_threshold_options(p)
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
        threshold=args.threshold,
        threshold_scale=args.threshold_scale,
        full=args.full or args.json,
    )
    print(json.dumps(report, indent=2) if args.json else format_report(report, args.full))
    return 0
