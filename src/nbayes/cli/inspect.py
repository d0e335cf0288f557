"""``nbayes inspect``: what a model file holds -- classes, priors, columns, format."""

from __future__ import annotations

import argparse
import json
import os

import numpy as np

from .. import base
from ..io import load, read_manifest
from ._common import format_table, plural
from ._models import inner

HELP = "show what a model file holds: classes, priors, families per column, format"


def _families(model) -> list[dict]:
    """One entry per input column: its name and the family that models it."""
    if base.supports(model, base.TEXT_INPUT):
        vec = model.vectorizer_
        clf = model.classifier_
        if hasattr(vec, "vocabulary_"):
            what = f"{type(vec).__name__}, {len(vec.vocabulary_):,} words"
        else:
            what = f"{type(vec).__name__}, {vec.n_features:,} buckets"
        return [{"column": None, "family": clf.families_[0].name, "features": what}]
    if hasattr(model, "bin_edges") and hasattr(model, "categories_"):
        return _seminaive_columns(model)
    mapping = getattr(model, "column_families_", None)
    if isinstance(mapping, dict):
        return [{"column": str(c), "family": f} for c, f in mapping.items()]
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        names = [f"x{j}" for j in range(model.n_features_in_)]
    family = model.families_[0].name
    return [{"column": str(c), "family": family} for c in names]


def _seminaive_columns(model) -> list[dict]:
    """AODE / TAN / KDB / JointBayes: categories or bins per column, and the feature parents
    that TAN and KDB chose."""
    categories, edges = model.categories_, model.bin_edges_
    parents = getattr(model, "structure_", None)
    out = []
    for c in _columns_in_order(model):
        if c in edges:
            family = f"binned ({plural(edges[c].size + 1, 'bin')})"
        else:
            family = f"categorical ({plural(len(categories[c]), 'value')})"
        entry = {"column": str(c), "family": family}
        if parents is not None:
            entry["features"] = "parents: " + (", ".join(map(str, parents[c])) or "(root)")
        out.append(entry)
    return out


def _columns_in_order(model) -> list:
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return list(names)
    return [*model.categories_, *model.bin_edges_]


def inspect_model(path: str) -> dict:
    """Describe a model file (loads and checks it fully).

    Returns
    -------
    dict with ``estimator``, ``format_version``, ``classes``, ``class_count``, ``prior``,
    ``training_rows``, ``columns`` (family per column), ``params`` and the training metadata.

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
    >>> info = inspect_model(model)
    >>> info["format_version"], info["classes"], info["prior"]
    (1, ['apple', 'banana'], [0.5, 0.5])
    """
    from ..io._wrappers import is_wrapper

    model = load(path)
    manifest = read_manifest(path)
    calibration = None
    if is_wrapper(model):  # a calibration: its (first) fitted model is inspected
        calibration = {"method": model.method, "models": len(model.calibrated_classifiers_)}
        model = model.calibrated_classifiers_[0].estimator
    est = inner(model)
    info = manifest.get("metadata", {}).get("cli") or {}
    columns = _families(model)
    if base.supports(model, base.TEXT_INPUT) and info.get("text_column"):
        columns[0]["column"] = info["text_column"]
    params = {
        k: (repr(v) if hasattr(v, "get_params") else v)
        for k, v in model.get_params(deep=False).items()
    }
    return {
        "file": str(path),
        "size_bytes": os.path.getsize(path),
        "format_version": manifest["format_version"],
        "nbayes_version": manifest.get("nbayes_version"),
        "estimator": manifest["estimator"],
        "model": info.get("model"),
        "target": info.get("target"),
        "source": info.get("source"),
        "training_rows": info.get("rows"),
        "training_weight": float(np.sum(est.class_count_)),
        "classes": np.asarray(est.classes_).tolist(),  # with their type: 0, not "0"
        "class_count": [float(c) for c in est.class_count_],
        "prior": [float(p) for p in np.exp(est.class_log_prior_)],
        "columns": columns,
        "choices": _choices(info),
        "decision_threshold": _threshold(model, info),
        "calibration": calibration,
        "params": {
            k: v if isinstance(v, (int, float, str, bool, type(None))) else repr(v)
            for k, v in params.items()
        },
    }


def _choices(info: dict) -> list[dict]:
    """How ``nbayes train`` read each column (kind, family, why), as its metadata keeps it;
    empty for a model saved from Python or by an older nbayes."""
    rows = info.get("columns")
    if not isinstance(rows, list):
        return []
    return [
        dict(zip(("column", "kind", "family", "why"), map(str, row)))
        for row in rows
        if isinstance(row, list) and len(row) == 4
    ]


def _threshold(model, info: dict) -> float | None:
    """The log-odds decision threshold predict and evaluate use (None: the most probable
    class)."""
    from ._models import _stored_threshold
    from .predict import decision_threshold

    return decision_threshold(model, stored=_stored_threshold(info.get("decision_threshold")))


def format_inspection(info: dict) -> str:
    rows = info["training_rows"]
    lines = [
        f"{info['file']}: {info['estimator']}" + (f" ({info['model']})" if info["model"] else ""),
        f"format version {info['format_version']}, written by nbayes {info['nbayes_version']}, "
        f"{info['size_bytes']:,} bytes",
    ]
    if info["target"]:
        lines.append(
            f"target {info['target']!r}, trained on "
            f"{plural(rows, 'row') if rows is not None else '?'} of {info['source']}"
        )
    else:
        lines.append(f"trained on a total sample weight of {info['training_weight']:,.6g}")
    lines += [
        "",
        format_table(
            [
                [c, f"{int(n):,}" if float(n).is_integer() else f"{n:.6g}", p]
                for c, n, p in zip(info["classes"], info["class_count"], info["prior"])
            ],
            ["class", "count", "prior"],
        ),
    ]
    threshold = info.get("decision_threshold")
    if threshold is not None:
        lines.append(
            f"decision threshold: predicts {info['classes'][1]!r} when its log-odds exceed "
            f"{threshold:.4g} (probability above {1 / (1 + np.exp(-threshold)):.4g})"
        )
    calibration = info.get("calibration")
    if calibration is not None:
        lines.append(
            f"probabilities calibrated by {calibration['method']} "
            f"({plural(calibration['models'], 'calibrated model')})"
        )
    cols = info["columns"]
    with_features = any("features" in c for c in cols)
    table = [
        [c["column"] or "(text)", c["family"], *([c.get("features", "")] if with_features else [])]
        for c in cols
    ]
    headers = ["column", "family", *(["features"] if with_features else [])]
    lines += ["", format_table(table, headers, "l" * len(headers))]
    if info.get("choices"):
        lines += ["", "how nbayes train read each column:"]
        lines += [
            format_table(
                [[c["column"], c["kind"], c["family"], c["why"]] for c in info["choices"]],
                ["column", "kind", "family", "why"],
                "llll",
            )
        ]
    lines += [
        "",
        "parameters: "
        + ", ".join(
            f"{k}={v!r}" if isinstance(v, str) and not v.endswith(")") else f"{k}={v}"
            for k, v in info["params"].items()
        ),
    ]
    return "\n".join(lines)


def add_parser(subparsers, parents) -> argparse.ArgumentParser:
    p = subparsers.add_parser("inspect", help=HELP, description=HELP + ".", parents=parents)
    p.add_argument("model", metavar="MODEL", help="model file")
    p.add_argument("--json", action="store_true", help="print as JSON")
    return p


def run(args) -> int:
    info = inspect_model(args.model)
    print(json.dumps(info, indent=2) if args.json else format_inspection(info))
    return 0
