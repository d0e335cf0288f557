"""``nbayes export``: write a saved model as an ONNX graph or as one SQL query."""

from __future__ import annotations

import argparse
import sys

from .._output import output_file, same_file
from ..io import load, read_manifest
from ._common import CLIError, UsageError
from ._models import _stored_threshold
from .predict import add_threshold_options, decision_threshold

HELP = "write a saved model as an ONNX graph or a SQL query that scores a table"
FORMATS = ("onnx", "sql")


def export(
    model: str,
    output: str,
    format: str = "sql",
    dialect: str = "duckdb",
    table: str = "t",
    threshold: float | None = None,
    threshold_scale: str = "log_odds",
) -> None:
    """Write the model file ``model`` as ``format`` to ``output`` (``"-"``: standard output).

    ``sql``: one ``SELECT`` over ``table`` that adds ``prediction`` and ``proba_<class>``
    columns (:func:`nbayes.export.to_sql`), in ``dialect``. ``onnx``: the serialised graph of
    :func:`nbayes.export.to_onnx`. Both decide two classes as ``nbayes predict`` does: by
    ``threshold`` (on ``threshold_scale``) when given, else the model's own threshold.

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
    >>> export(model, os.path.join(folder, "fruit.sql"), dialect="sqlite", table="fruit")
    >>> open(os.path.join(folder, "fruit.sql")).read()[:9]
    'SELECT *,'
    """
    if format not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}; got {format!r}.")
    if same_file(model, output):
        raise UsageError(f"-o {output} is the model file itself; write the export elsewhere.")
    fitted = load(model)
    from ..io._wrappers import is_wrapper

    if is_wrapper(fitted):  # a calibration: the library's refusal names Python classes
        raise UsageError(
            f"{model} is calibrated (nbayes train --calibration); the export writes a "
            "model's own probabilities, which the calibration changes. Train without "
            "--calibration to export the model."
        )
    stored = _stored_threshold(
        (read_manifest(model).get("metadata", {}).get("cli") or {}).get("decision_threshold")
    )
    threshold = decision_threshold(fitted, threshold, threshold_scale, stored=stored)
    if format == "sql":
        from ..export import to_sql

        data = to_sql(fitted, table=table, dialect=dialect, threshold=threshold) + ";\n"
        payload = data.encode("utf-8")
    else:
        try:
            from ..export import to_onnx
        except ImportError as exc:
            raise CLIError(
                f"--format onnx needs the export extra ({exc}); install it with "
                "pip install 'nbayes[export]', or export --format sql."
            ) from None
        payload = to_onnx(fitted, threshold=threshold).SerializeToString()
    if output == "-":  # standard output, as for nbayes predict: `nbayes export ... -o - | duckdb`
        sys.stdout.buffer.write(payload)
        sys.stdout.flush()
        return
    with output_file(output) as f:
        f.write(payload)


def add_parser(subparsers, parents) -> argparse.ArgumentParser:
    p = subparsers.add_parser("export", help=HELP, description=HELP + ".", parents=parents)
    p.add_argument("model", metavar="MODEL", help="model file (from nbayes train or nbayes.save)")
    p.add_argument(
        "--format", choices=FORMATS, required=True, help="onnx: an ONNX graph; sql: one SELECT"
    )
    p.add_argument(
        "--dialect",
        help="SQL dialect, as sqlglot names them: duckdb, sqlite, postgres, bigquery, ... "
        "(default: duckdb)",
    )
    p.add_argument("--table", help="the table the query scores (default: t)")
    add_threshold_options(p)
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="file to write; - for standard output"
    )
    return p


def run(args) -> int:
    if args.format == "onnx" and (args.dialect or args.table):
        raise UsageError("--dialect and --table apply to --format sql; drop them for onnx.")
    export(
        args.model,
        args.output,
        args.format,
        args.dialect or "duckdb",
        args.table or "t",
        threshold=args.threshold,
        threshold_scale=args.threshold_scale,
    )
    return 0
