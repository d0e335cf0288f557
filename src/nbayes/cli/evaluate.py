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
import shlex
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from .. import base
from .._labels import describe, written_label_codes
from .._validation import rows_from, spelling_key
from ..columns import input_column, read_column
from ..exceptions import DataError
from ._common import format_table, names, plural, say_warning
from ._models import class_labels, inner, load_plan
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
#: ``evaluate`` warns when the accuracy is more than this below the majority-class baseline.
WORSE_BY = 0.01
#: Rows of DATA kept to find the columns that mislead the model (when it does worse).
BLAME_ROWS = 2_000
#: A column is named when, alone with the prior, it raises the log-loss of the kept rows by
#: more than this (nats per row) over the prior alone: it pushes rows towards wrong classes.
BLAME_NATS = 0.02
#: Columns named at most.
BLAME_MOST = 3
#: Cells (rows x classes x columns) of the per-column terms computed to name them.
BLAME_CELLS = 4_000_000
#: Distinct whole numbers (in the rows judged) up to which a float column read as a bell
#: curve is advised to be read as categories: integers that an empty cell made floats
#: (survival/pbc's 0/1 ``ascites``), which as integers would have been categories. Kept well
#: under MixedNB's least limit for integers (20): the rows judged hold fewer values than
#: training did.
FEW_WHOLE = 10


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
        codes = written_label_codes(y_true, self.classes)
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
    plan = load_plan(model, text_column)
    read = remembered_reading(plan, data, read)
    target = target or plan.target
    if not target:
        raise DataError("The model does not record its target column; pass --target COL.")
    est = plan.estimator
    classes = np.asarray(est.classes_)
    cut = decision_threshold(est, threshold, threshold_scale, plan.threshold)
    scores = Scores(classes, cut)
    own = None if plan.calibrated is None else Scores(classes, cut)  # before calibration
    kept: list = []  # the first rows' inputs and labels, to name misleading columns
    for _, inputs, y, proba in scored_chunks(plan, data, target, read, progress):
        scores.add(y, proba)
        if own is not None:
            own.add(y, est.predict_proba(inputs))
        if sum(len(k[1]) for k in kept) < BLAME_ROWS:
            kept.append((inputs, y))
    check_scores(scores, data, target)
    report = {"model": str(model), "data": str(data), "target": target, **scores.report(full)}
    report.update(baseline(est, scores))
    if own is not None:
        report["calibration"] = plan.calibrated.method
        report["uncalibrated_log_loss"] = own.report(False)["log_loss"]
    report["misleading_columns"] = []
    if (
        report["accuracy"] is not None
        and report["baseline_accuracy"] is not None
        and report["accuracy"] < report["baseline_accuracy"] - WORSE_BY
    ):
        report["misleading_columns"] = misleading_columns(plan, kept)
    return report


def baseline(est, scores: Scores) -> dict:
    """The majority-class baseline: the accuracy on DATA of always predicting the class the
    model saw most often in training (its largest class count, or prior)."""
    model = inner(est)
    counts = getattr(model, "class_count_", None)
    if counts is None:
        counts = np.exp(
            np.asarray(getattr(model, "class_log_prior_", np.zeros(len(scores.classes))))
        )
    majority = int(np.argmax(np.asarray(counts, dtype=float)))
    true_rows = np.asarray(scores.matrix.sum(axis=1)).ravel()
    return {
        "baseline_class": scores.classes[majority].item()
        if hasattr(scores.classes[majority], "item")
        else scores.classes[majority],
        "baseline_accuracy": float(true_rows[majority] / scores.rows) if scores.rows else None,
    }


def misleading_columns(plan, kept: list) -> list[dict]:
    """The columns that, each alone with the class prior, score the kept rows of DATA worse
    than the prior alone (a higher log-loss by over :data:`BLAME_NATS` per row), worst first,
    at most :data:`BLAME_MOST`; each with why its reading may be to blame and the fix.

    This is the naive model's own evidence split by column (``explain``'s terms): a column
    read with the wrong family, or one that does not carry over from training to DATA,
    pushes rows towards wrong classes on its own."""
    est = plan.estimator
    if plan.is_text or not kept or not base.supports(est, base.EXPLANATIONS):
        return []
    n_classes, n_features = len(est.classes_), len(plan.features)
    # explain's terms are rows x classes x columns: keep them near 32 MB.
    n_rows = max(100, min(BLAME_ROWS, BLAME_CELLS // max(n_classes * n_features, 1)))
    inputs = pd.concat([k[0] for k in kept], ignore_index=True).iloc[:n_rows]
    y = pd.concat([k[1] for k in kept], ignore_index=True).iloc[:n_rows]
    codes = written_label_codes(y, np.asarray(est.classes_))
    known = codes >= 0
    if not known.any():
        return []
    explained = est.explain(inputs.loc[known] if isinstance(inputs, pd.DataFrame) else inputs)
    codes = codes[known]
    rows = np.arange(codes.size)
    floor = np.log(np.finfo(float).eps)

    def loss(log_joint: np.ndarray) -> float:
        """Mean log-loss of the true classes under (n_rows, n_classes) joint scores."""
        log_joint = np.nan_to_num(log_joint, nan=floor, neginf=floor)
        top = log_joint.max(axis=1, keepdims=True)
        log_post = log_joint - top - np.log(np.exp(log_joint - top).sum(axis=1, keepdims=True))
        return float(-np.maximum(log_post[rows, codes], floor).mean())

    prior = np.asarray(explained.log_prior, dtype=float)
    prior_loss = loss(np.broadcast_to(prior, (codes.size, prior.size)))
    # (n_features, n_rows, n_classes): each column alone with the prior.
    alone = prior[None, None, :] + np.moveaxis(np.asarray(explained.terms, dtype=float), 2, 0)
    harm = np.array([loss(a) for a in alone]) - prior_loss  # bounded by the features
    families = _families(est)
    out = []
    for j in np.argsort(-harm, kind="stable")[:BLAME_MOST]:  # a few columns
        if not harm[j] > BLAME_NATS:
            break
        name = str(explained.feature_names[j])
        columns = inputs.columns if isinstance(inputs, pd.DataFrame) else ()
        source = input_column(name, columns)  # 'Date' for the calendar feature 'Date.year'
        values = None if source is None else inputs[source]
        out.append(
            {
                "column": name,
                "family": families.get(name),
                "log_loss_increase": float(harm[j]),
                "advice": _advice(
                    source or name, families.get(name), values, plan.schema.get(source or name)
                ),
            }
        )
    return out


def _families(est) -> dict[str, str]:
    """Column name -> family name of a mixed model (empty for other models)."""
    groups = getattr(inner(est), "column_groups_", None) or []
    return {str(c): str(family) for family, columns in groups for c in columns}


def _advice(column: str, family: str | None, values, written: str | None = None) -> str:
    """Why a misleading column's reading may be to blame, and what to try at training
    (``written``: the column's type in the training file, ``"int"``, ``"float"``, ...)."""
    quoted = shlex.quote(column)
    numbers = None
    if values is not None:
        numbers = pd.to_numeric(values, errors="coerce").dropna().to_numpy(dtype=float)
        if (
            numbers.size >= 20
            and numbers.size == len(values)
            and bool(np.all(numbers == np.round(numbers)))
            and np.unique(numbers).size == numbers.size
            and np.abs(numbers).max() < 2**53
            # by the rule that leaves identifiers out (and warns of ranks) at training: distinct
            # measurements (prices, horsepower, counts) are not row numbers
            and read_column(pd.Series(numbers.astype(np.int64)), column).kind
            in ("identifier", "rank")
        ):
            return (
                "whole numbers distinct in every row, as an identifier's are; if it numbers or "
                f"names the rows, leave it out with --exclude {quoted}"
            )
    if family == "gaussian" and numbers is not None and numbers.size >= 10:
        q1, q3 = np.percentile(numbers, [25, 75])
        spread = q3 - q1
        far = (numbers < q1 - 3 * spread) | (numbers > q3 + 3 * spread)
        if far.any():
            common, count = np.unique(numbers[far], return_counts=True)
            code = common[np.argmax(count)]
            if count.max() >= max(3, 0.01 * numbers.size) and looks_like_code(code):
                code_text = f"{code:.15g}"
                return (
                    f"the value {code_text} repeats far outside the bulk of its numbers, as a "
                    f"code for a missing value does; if it is one, train with --na-values "
                    f"{shlex.quote(code_text)}"
                )
        distinct = np.unique(numbers)
        whole = bool(np.all(distinct == np.round(distinct)))
        if written in (None, "float") and distinct.size <= FEW_WHOLE and whole:
            return (
                f"whole numbers with {distinct.size} distinct values here, read as a bell "
                "curve (gaussian), as floats are (an empty cell makes integers floats); train "
                f"with --categorical {quoted} to read them as categories"
            )
        if far.any():
            return (
                "a heavy-tailed number read as a bell curve (gaussian); train with "
                "--continuous binned or --continuous density"
            )
        return "read as a bell curve (gaussian); try --continuous binned or density"
    read = f"read as {family}, it" if family else "it"
    return (
        f"{read} scores these rows worse on its own than the class prior does; if it does not "
        "describe the rows (an identifier) or DATA writes it otherwise than the training "
        f"file, leave it out with --exclude {quoted}"
    )


def looks_like_code(value: float) -> bool:
    """Whether a number is written as codes for a missing value are: 99, 999, 9999, ...
    (also stored as a float32, 999999.375), -1, -9, -99, ..."""
    whole = f"{abs(value):.0f}" if abs(value) < 1e15 else ""
    nines = len(whole) >= 2 and set(whole) == {"9"}
    return nines or (value < 0 and (whole == "1" or set(whole) == {"9"}))


def baseline_warning(report: dict) -> str | None:
    """The warning for a model that does worse than the majority-class baseline, or None."""
    accuracy, base = report.get("accuracy"), report.get("baseline_accuracy")
    if accuracy is None or base is None or not accuracy < base - WORSE_BY:
        return None
    named = report.get("misleading_columns") or []
    if named:
        blame = "; ".join(f"{c['column']!r}: {c['advice']}" for c in named)
        blame = f"the columns that mislead it most on these rows: {blame}"
    else:
        blame = (
            "no column misleads it on its own here: the columns may not predict the target, "
            "or DATA may differ from the training file"
        )
    return (
        f"the accuracy {accuracy:.3f} is below the majority-class baseline {base:.3f} "
        f"(always predicting {report['baseline_class']!r}, the most frequent class in "
        f"training); {blame}"
    )


def scored_chunks(plan, data: str, target: str, read: ReadOptions, progress: bool = False):
    """Read the labelled table DATA chunk by chunk and score it.

    Yields
    ------
    (offset, inputs, y, proba)
        The chunk's first row number, the model's inputs (as ``plan.inputs``), its labels
        (a Series indexed from 0; none may be missing) and ``predict_proba`` of the inputs
        (the calibrated probabilities of a calibrated model).
    """
    est = plan.estimator
    table = open_table(data, read, progress)
    if target not in table.columns:
        raise DataError(
            f"{table.path}: no column {target!r} (the label column); the columns are "
            f"{names(table.columns)}. Pass the label column with --target."
        )
    columns = required_columns(table, plan, [target])
    dtypes = read_dtypes(plan.schema)
    if np.asarray(est.classes_).dtype.kind not in "iuf":
        # Text and boolean classes compare as text; numbers are read as numbers (1.0 == 1).
        dtypes[target] = str
    for offset, chunk in table.chunks(columns, dtypes, desc="evaluating"):
        y = chunk[target]
        class_labels(y, offset, data, target, rows="evaluation")  # no label may be missing
        inputs = plan.inputs(chunk, offset, data, scoring=True)
        with rows_from(offset):
            proba = plan.scorer.predict_proba(inputs)
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
                ["majority baseline", _number(report.get("baseline_accuracy"))],
                ["balanced accuracy", _number(report["balanced_accuracy"])],
                ["log-loss", _number(loss)],
            ],
            ["metric", "value"],
        ),
    ]
    if report.get("calibration"):
        lines.append(
            f"(probabilities calibrated by {report['calibration']}; the model's own "
            f"log-loss: {report['uncalibrated_log_loss']:.4f})"
        )
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
    warning = baseline_warning(report)
    if warning:
        say_warning(warning)
    print(json.dumps(report, indent=2) if args.json else format_report(report, args.full))
    return 0
