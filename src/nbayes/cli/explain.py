"""``nbayes explain``: the most indicative features of each class, and why rows were classified
as they were.

The maths lives in the estimators (``top_features`` and ``explain``); this command only reads
the model and the first rows of DATA and prints the result.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from .._validation import rows_from
from ..exceptions import DataError
from ._common import format_table
from ._models import load_plan
from ._tables import ReadOptions, open_table, read_dtypes
from .predict import remembered_reading, required_columns

HELP = "show the most indicative features per class, and what drove predictions for DATA"


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    return value


def _value(v):
    """Whole numbers (counts, codes) without decimals."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def explain(
    model: str,
    data: str | None = None,
    *,
    k: int = 10,
    rows: int = 5,
    by: str = "weight",
    text_column: str | None = None,
    read: ReadOptions | None = None,
) -> dict:
    """Top ``k`` features of every class, and for the first ``rows`` rows of DATA the ``k``
    features that pushed each prediction most.

    Returns
    -------
    dict with ``classes``, ``top_features`` (class -> list of {feature, weight[, impact]})
    and ``rows`` (list of {row, predicted, runner_up, log_odds, features: [...]}).

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
    >>> report = explain(model, data, k=1, rows=1)
    >>> report["top_features"]["banana"][0]["feature"], report["rows"][0]["predicted"]
    ('colour=yellow', 'apple')
    """
    read = read or ReadOptions()
    plan = load_plan(model, text_column)
    if data is not None:
        read = remembered_reading(plan, data, read)
    est = plan.estimator
    classes = [c for c in np.asarray(est.classes_).tolist()]
    top: dict = {}
    linear = True
    for c in classes:  # one table per class: bounded by K
        try:
            frame = est.top_features(c, k=k, by=by)
        except NotImplementedError:  # AODE, TAN, ...: no weight per feature value alone
            linear = False
            break
        top[str(c)] = [
            {key: _jsonable(v) for key, v in rec.items()} for rec in frame.to_dict(orient="records")
        ]
    report: dict[str, Any] = {
        "model": str(model),
        "classes": [str(c) for c in classes],
        "top_features": top if linear else None,
        "rows": [],
    }
    if data is None:
        return report
    read = ReadOptions(**{**read.__dict__, "chunk_rows": max(1, rows)})
    table = open_table(data, read)
    columns = required_columns(table, plan)
    reader = table.chunks(columns, read_dtypes(plan.schema))
    first = next(reader, None)
    reader.close()
    if first is None:
        raise DataError(f"{data}: no data rows.")
    offset, chunk = first
    chunk = chunk.iloc[:rows]
    inputs = plan.inputs(chunk, offset, data, scoring=True)
    with rows_from(offset):
        ex = est.explain(inputs)
        calibrated = None if plan.calibrated is None else _calibrated(plan, inputs)
    for i in range(len(chunk)):  # a handful of rows, capped by --rows
        frame = ex.to_frame(i, k)
        frame = frame[frame["contribution"] != 0]
        features = [
            {key: _jsonable(v) for key, v in rec.items()} for rec in frame.to_dict(orient="records")
        ]
        if ex.given is not None:
            row_values = dict(zip(ex.feature_names.tolist(), ex.values[i].tolist()))
            for rec in features:  # at most k
                rec["given_values"] = _given_values(rec.get("given") or "", row_values)
        report["rows"].append(
            {
                "row": offset + i,
                "predicted": str(ex.predicted_class[i]),
                "runner_up": str(ex.runner_up_class[i]),
                "log_odds": float(ex.log_odds[i]),
                "features": features,
            }
        )
        if calibrated is not None:
            report["rows"][-1]["calibration"] = calibrated(i, ex.predicted_class[i])
    return report


def _calibrated(plan, inputs):
    """For a calibrated model: ``at(i, predicted)``, what the calibration made of row i's
    probability of the model's predicted class, and its own prediction."""
    classes = np.asarray(plan.estimator.classes_)
    own = plan.estimator.predict_proba(inputs)
    calibrated = plan.calibrated.predict_proba(inputs)
    prediction = plan.calibrated.predict(inputs)

    def at(i: int, predicted) -> dict:
        c = int(np.flatnonzero(classes == predicted)[0])
        return {
            "method": plan.calibrated.method,
            "model_probability": float(own[i, c]),
            "calibrated_probability": float(calibrated[i, c]),
            "calibrated_prediction": str(prediction[i]),
        }

    return at


#: Beyond this many parents a term is shown as averaged over them (AODE's super-parents).
SHOWN_PARENTS = 3


def _given_values(given: str, row_values: dict) -> str:
    """What a term is conditioned on, with the row's values: "colour=red" for TAN's parent,
    "averaged over 21 super-parents" for AODE's, "(class only)" for none."""
    parents = [p for p in given.split(", ") if p]
    if not parents:
        return "(class only)"
    if len(parents) > SHOWN_PARENTS:
        return f"averaged over {len(parents)} super-parents"
    if any(p not in row_values for p in parents):  # a name holding ", ": shown as given
        return given
    return ", ".join(f"{p}={_value(row_values[p])}" for p in parents)


def format_explanation(report: dict, by: str = "weight") -> str:
    if report["top_features"] is None:
        lines = [
            "no weights per feature and class: this model's features depend on each other "
            "(a feature's weight depends on its parents' values); see the rows below"
        ]
    else:
        lines = [
            f"most indicative features per class ({by}: log-odds against the strongest "
            "other class, per unit of the feature)"
        ]
    for c, feats in (report["top_features"] or {}).items():
        lines += [
            "",
            f"class {c}:",
            format_table([[f["feature"], f[by]] for f in feats], ["feature", by]),
        ]
    for r in report["rows"]:
        lines += [
            "",
            f"row {r['row']}: predicted {r['predicted']} over {r['runner_up']} "
            f"(log-odds {r['log_odds']:+.3f}); features that pushed it most:",
        ]
        if r["features"]:
            # Models beyond the naive assumption name what each term is conditioned on.
            given = any("given" in f for f in r["features"])
            lines.append(
                format_table(
                    [
                        [f["feature"], _value(f["value"]), f"{f['contribution']:+.3f}"]
                        + ([f.get("given_values") or "(class only)"] if given else [])
                        for f in r["features"]
                    ],
                    ["feature", "value", "contribution"] + (["given"] if given else []),
                    "lrr" + ("l" if given else ""),
                )
            )
        else:
            lines.append("(no feature moved it: the class prior decided)")
        cal = r.get("calibration")
        if cal is not None:
            changed = (
                ""
                if cal["calibrated_prediction"] == r["predicted"]
                else f"; the calibrated prediction is {cal['calibrated_prediction']}"
            )
            lines.append(
                f"calibration ({cal['method']}): P({r['predicted']}) "
                f"{cal['model_probability']:.4f} -> {cal['calibrated_probability']:.4f}{changed}"
            )
    return "\n".join(lines)


def add_parser(subparsers, parents) -> argparse.ArgumentParser:
    p = subparsers.add_parser("explain", help=HELP, description=HELP + ".", parents=parents)
    p.add_argument("model", metavar="MODEL", help="model file")
    p.add_argument("data", metavar="DATA", nargs="?", help="rows to explain (optional)")
    p.add_argument(
        "-k",
        "--top",
        type=int,
        default=10,
        metavar="K",
        help="features to show per class and per row (default 10)",
    )
    p.add_argument(
        "--rows",
        type=int,
        default=5,
        metavar="N",
        help="explain the first N rows of DATA (default 5)",
    )
    p.add_argument(
        "--by",
        choices=("weight", "impact"),
        default="weight",
        help="rank features by their weight per unit, or by weight x typical value",
    )
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.add_argument(
        "--text-column", metavar="COL", help="text column, for a text model saved from Python"
    )
    return p


def run(args) -> int:
    from . import read_options
    from ._common import UsageError

    if args.top < 1 or args.rows < 1:
        raise UsageError("-k/--top and --rows must be at least 1.")
    report = explain(
        args.model,
        args.data,
        k=args.top,
        rows=args.rows,
        by=args.by,
        text_column=args.text_column,
        read=read_options(args),
    )
    print(json.dumps(report, indent=2) if args.json else format_explanation(report, args.by))
    return 0
