"""``nbayes predict``: classify every row of a table, streaming, in input order."""

from __future__ import annotations

import argparse
import csv
import os
import shlex
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._labels import describe
from ..estimators._base import THRESHOLD_SCALES, log_odds_threshold
from ..estimators._interval import interval_refusal
from ..exceptions import DataError, ParameterError
from ._common import UsageError, check_output, names
from ._models import inner, load_plan
from ._scoring import interval_columns, predict_chunk
from ._tables import ReadOptions, TableWriter, detect_format, is_pipe, open_table, read_dtypes

HELP = "classify every row of a table with a saved model"


@dataclass
class PredictResult:
    rows: int
    output: str | None
    classes: list


def required_columns(table, plan, extra=()) -> list[str]:
    """The columns the model reads plus ``extra``; a missing one is a DataError."""
    have = table.columns
    missing = [c for c in plan.features if c not in have]
    if missing:
        raise DataError(
            f"{table.path}: lacks column(s) {names(missing)} that the model was trained on (it "
            f"reads {names(plan.features)}; this file has {names(have)}). Was the model "
            "trained on other data?"
        )
    absent = [c for c in extra if c not in have]
    if absent:
        raise DataError(
            f"{table.path}: no column(s) {names(absent)}; the columns are {names(have)}."
        )
    return list(dict.fromkeys([*plan.features, *extra]))


def _output_columns(classes, proba: bool, interval: bool = False) -> list[str]:
    return [
        "prediction",
        *([f"proba_{c}" for c in classes] if proba else []),
        *(interval_columns(classes) if interval else []),
    ]


def _check_keep(keep: tuple[str, ...], classes, proba: bool, interval: bool = False) -> None:
    """``--keep`` never overwrites a user's column with one of ours (nor the reverse)."""
    clash = [c for c in keep if c in _output_columns(classes, proba, interval)]
    if clash:
        raise UsageError(
            f"--keep {names(clash)}: the output has its own column(s) of that name, which "
            "would overwrite the copied one. Rename the column in DATA, or leave it out of "
            "--keep."
        )


def _empty_output(table, keep: tuple[str, ...], classes, proba: bool, interval: bool = False):
    """The header-only output of a header-only DATA: the columns :func:`predict_chunk` makes."""
    import pandas as pd

    out = pd.DataFrame({c: pd.Series(dtype=object) for c in keep})
    out["prediction"] = pd.Series(np.asarray(classes)[:0])
    for c in _output_columns(classes, proba, interval)[1:]:  # a few per class: bounded by K
        out[c] = pd.Series(dtype=np.float64)
    return out


def remembered_reading(plan, data: str | None, read: ReadOptions) -> ReadOptions:
    """``read`` with the ``--no-header`` / ``--names`` given at training, when the user gives
    neither now and DATA is a CSV/TSV; likewise the numbers' separators, the missing-value
    markers, the spaces after separators and the encoding.

    Names apply only to a file with as many fields as names: a file with fewer (say, without
    the label column) would otherwise have its columns silently shifted.
    """
    stored = plan.reading or {}
    numbers: dict[str, Any] = {k: stored.get(k) for k in ("decimal", "thousands") if stored.get(k)}
    csv_data = (read.format or detect_format(data or "-")[0]) in ("csv", "tsv")
    if numbers and read.decimal == "." and read.thousands is None and csv_data:
        read = replace(read, **numbers)  # numbers written as at training (1.234,5)
    if stored.get("na_values") and not read.na_values and csv_data:
        read = replace(read, na_values=tuple(stored["na_values"]))  # missing marked as then
    if stored.get("skip_spaces") and csv_data:
        read = replace(read, skip_spaces=True)  # values without the space after ", "
    if stored.get("encoding") and not read.encoding_given and csv_data:
        read = replace(read, encoding=stored["encoding"])  # text encoded as then (latin-1)
    if data is None or read.names is not None or not read.header or stored.get("header", True):
        return read
    columns = stored.get("names")
    remembered = replace(read, header=False, names=tuple(columns) if columns else None)
    if is_pipe(data):
        # A pipe can be read once: a probe would take its first rows away from the table
        # read next. Names and --no-header apply to CSV only, so they can go as they are.
        return remembered
    probe = open_table(data, replace(read, header=False))
    if probe.format not in ("csv", "tsv"):
        return read
    if columns:
        fields = len(probe.columns)
        lines = probe.first_lines(2)
        if (
            fields < len(columns)
            and len(lines) == 2
            and _fields(lines[1], probe.sep) == len(columns)
        ):
            raise DataError(
                f"{data}: its first line, {lines[0][:60]!r}, has {fields} field(s) where "
                f"the next has {len(columns)}, as the model's columns: a title or a comment, "
                f"not a row. Remove that line and run again, e.g. with {_without_first_line(data)}."
            )
        if fields != len(columns):
            raise DataError(
                f"{data}: the model was trained on a file without header whose columns "
                f"were named {names(columns)} (--names); this file's first line has "
                f"{fields} field(s). Pass --names for this file, or --no-header to number "
                "its columns."
            )
    return remembered


def _without_first_line(path: str) -> str:
    """A shell command that writes ``path`` without its first line to a new CSV."""
    name = os.path.basename(path)
    stem = name.split(".")[0] or "data"
    source = f"tail -n +2 {shlex.quote(path)}"
    if name.endswith(".gz"):
        source = f"zcat {shlex.quote(path)} | tail -n +2"
    return f"`{source} > {shlex.quote(stem + '-rows.csv')}`"


def _fields(line: str, sep: str) -> int:
    """The fields of one CSV line, as the csv module splits it."""
    return len(next(csv.reader([line], delimiter=sep), []))


def threshold_option(threshold: float, scale: str) -> float:
    """``--threshold`` on ``--threshold-scale`` in log-odds; a bad pair is a usage error."""
    try:
        log_odds = log_odds_threshold(threshold, scale)
    except ParameterError as exc:
        raise UsageError(
            f"--threshold {threshold} does not fit --threshold-scale {scale}: {exc}"
        ) from None
    if log_odds is None:  # only a missing threshold means the argmax rule
        raise UsageError("--threshold needs a number.")
    return float(log_odds)


def decision_threshold(
    model, threshold: float | None = None, scale: str = "log_odds", stored: float | None = None
) -> float | None:
    """The log-odds threshold that decides between two classes, or None for the most
    probable class: ``threshold`` (on ``scale``) when given, else the model's own
    ``decision_threshold`` -- the rule its ``predict`` follows --, else ``stored`` (log-odds
    kept by ``nbayes train --threshold`` for a model without that parameter)."""
    n_classes = len(model.classes_)
    if threshold is not None:
        if n_classes != 2:
            raise UsageError(
                f"--threshold applies to a model of two classes; this one has {n_classes} "
                f"({describe(np.asarray(model.classes_))})."
            )
        return threshold_option(threshold, scale)
    est = inner(model)
    own = log_odds_threshold(
        getattr(est, "decision_threshold", None),
        getattr(est, "threshold_scale", "log_odds"),
        n_classes,
    )
    return stored if own is None else own


def predict(
    model: str,
    data: str,
    output: str | None = None,
    *,
    proba: bool = False,
    keep: tuple[str, ...] = (),
    text_column: str | None = None,
    read: ReadOptions | None = None,
    out_format: str | None = None,
    progress: bool = False,
    dask: str | None = None,
    threshold: float | None = None,
    threshold_scale: str = "log_odds",
    interval: float | None = None,
    interval_draws: int = 1000,
) -> PredictResult:
    """Write one prediction per row of DATA, in order, to ``output`` (stdout when None).

    Columns: the ``keep`` columns of DATA, ``prediction``, and with ``proba`` one
    ``proba_<class>`` column per class. With ``dask`` (``local``, ``local:N`` or
    ``tcp://HOST:PORT``) the partitions of DATA are classified in parallel on that cluster.
    The prediction follows the model's ``decision_threshold`` as ``model.predict`` does;
    ``threshold`` (log-odds, or a probability of the second class with
    ``threshold_scale="proba"``) replaces it.

    With ``interval`` (a level such as 0.9) two more columns per class,
    ``proba_<class>_lower`` and ``proba_<class>_upper``, bound P(class | row) by the central
    credible interval of that level over ``interval_draws`` models drawn from the posterior
    over the parameters (``predict_proba_interval``, seed 0: the same bounds on every run).

    Returns
    -------
    PredictResult

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
    >>> _ = predict(model, data, os.path.join(folder, "out.csv"), keep=("colour",))
    >>> print(open(os.path.join(folder, "out.csv")).read().strip())
    colour,prediction
    red,apple
    green,apple
    yellow,banana
    yellow,banana
    """
    read = read or ReadOptions()
    check_output(output, MODEL=model, DATA=data)
    plan = load_plan(model, text_column)
    read = remembered_reading(plan, data, read)
    est = plan.estimator
    keep = tuple(dict.fromkeys(keep))
    _check_keep(keep, est.classes_, proba, interval is not None)
    cut = decision_threshold(est, threshold, threshold_scale, plan.threshold)
    if interval is not None and plan.calibrated is not None:
        raise UsageError(
            "--interval bounds the model's own probabilities, and this model file is "
            "calibrated; its probabilities are the calibration's. Train without "
            "--calibration for intervals."
        )
    bounds = check_interval(est, interval, interval_draws, dask)
    table = open_table(data, read, progress)
    columns = required_columns(table, plan, keep)
    rows = 0
    with TableWriter(output, out_format) as writer:
        if dask is not None:
            from ._dask import predict_on_cluster

            rows = predict_on_cluster(dask, table, plan, columns, keep, proba, writer, cut)
        for offset, chunk in (
            []
            if dask is not None
            else table.chunks(columns, read_dtypes(plan.schema), desc="predicting")
        ):
            writer.write(
                predict_chunk(plan.scorer, plan, chunk, offset, data, keep, proba, cut, bounds)
            )
            rows += len(chunk)
        if rows == 0:  # a header and no rows: the output is a header and no rows
            writer.write(_empty_output(table, keep, est.classes_, proba, interval is not None))
    table.say_line_breaks()
    return PredictResult(rows=rows, output=output, classes=np.asarray(est.classes_).tolist())


def check_interval(est, level: float | None, draws: int, dask: str | None):
    """The ``predict_proba_interval`` arguments of ``--interval`` (None without it); a model
    without a conjugate posterior, a bad level or ``--dask`` is a usage error, found before
    any row is read."""
    if level is None:
        return None
    if dask is not None:
        raise UsageError("--interval runs in this process; leave out --dask to use it.")
    if not 0 < level < 1:
        raise UsageError(f"--interval must be a level between 0 and 1 (e.g. 0.9); got {level}.")
    if draws < 2:
        raise UsageError(f"--interval-draws must be at least 2; got {draws}.")
    refusal = interval_refusal(inner(est))
    if refusal is not None:
        raise UsageError(f"--interval: {refusal}")
    return {"level": level, "n_samples": draws, "random_state": 0}


def _number(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number; got {value!r}") from None
    if np.isnan(number):
        raise argparse.ArgumentTypeError("must be a number; got NaN")
    return number


def add_threshold_options(p: argparse.ArgumentParser, default: str | None = None) -> None:
    """``--threshold`` and ``--threshold-scale`` (train, predict and evaluate)."""
    p.add_argument(
        "--threshold",
        type=_number,
        metavar="T",
        help="for a model of two classes: predict the second class exactly when its "
        "log-odds exceed T ("
        + (default or "default: the model's own decision threshold, else the most probable class")
        + ")",
    )
    p.add_argument(
        "--threshold-scale",
        choices=THRESHOLD_SCALES,
        default="log_odds",
        help="read --threshold as log-odds (default) or as a probability of the second class",
    )


def add_parser(subparsers, parents) -> argparse.ArgumentParser:
    p = subparsers.add_parser("predict", help=HELP, description=HELP + ".", parents=parents)
    p.add_argument("model", metavar="MODEL", help="model file written by `nbayes train`")
    p.add_argument("data", metavar="DATA", help="table to classify (- for CSV on stdin)")
    p.add_argument("--proba", action="store_true", help="add one probability column per class")
    p.add_argument(
        "--keep",
        action="append",
        default=[],
        metavar="COL",
        help="copy this input column to the output (repeatable, or comma-separated); a "
        "column named like an output column (prediction, proba_<class>) is refused",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file (.csv, .tsv, .jsonl, .parquet; .gz/.bz2/.xz/.zst compress text "
        "formats); default: CSV on stdout. An existing file is replaced only once every row "
        "was written (a failure or Ctrl-C leaves it as it was); a named pipe or device is "
        "written into; MODEL and DATA themselves are refused",
    )
    p.add_argument(
        "--output-format",
        choices=("csv", "tsv", "jsonl", "parquet"),
        help="output format (default: from the OUT suffix)",
    )
    add_threshold_options(p)
    p.add_argument(
        "--interval",
        type=_number,
        metavar="LEVEL",
        help="add proba_<class>_lower and proba_<class>_upper: the credible interval of "
        "that level (e.g. 0.9) of each class probability, from models drawn from the "
        "posterior over the parameters",
    )
    p.add_argument(
        "--interval-draws",
        type=int,
        metavar="N",
        help="models drawn for --interval (default: 1000; time and memory grow with N)",
    )
    p.add_argument(
        "--text-column", metavar="COL", help="text column, for a text model saved from Python"
    )
    p.add_argument(
        "--dask",
        metavar="CLUSTER",
        help="classify partitions in parallel on Dask: local, local:N (N worker "
        "processes) or tcp://HOST:PORT (a running scheduler)",
    )
    return p


def run(args) -> int:
    from .._output import special_target
    from . import read_options, split_list

    keep = tuple(c for item in args.keep for c in split_list(item) or ())
    if args.interval_draws is not None and args.interval is None:
        raise UsageError(
            "--interval-draws sets the draws of --interval; add --interval LEVEL (e.g. 0.9) "
            "or leave --interval-draws out."
        )
    result = predict(
        args.model,
        args.data,
        args.output,
        proba=args.proba,
        keep=keep,
        text_column=args.text_column,
        read=read_options(args),
        out_format=args.output_format,
        progress=not args.quiet,
        dask=args.dask,
        threshold=args.threshold,
        threshold_scale=args.threshold_scale,
        interval=args.interval,
        interval_draws=1000 if args.interval_draws is None else args.interval_draws,
    )
    # Standard output is free when OUT is a file (standard error is for warnings and errors).
    if args.output and not args.quiet and not special_target(args.output):
        print(f"wrote {result.rows:,} predictions to {args.output}")
    return 0
