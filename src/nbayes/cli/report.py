"""``nbayes report``: one self-contained HTML page about a model, and how it does on data.

The page holds the model's summary (classes, priors, columns and families, smoothing, file
format), the words or columns that drive each class, each column's class-conditional
distribution as the model scores it (:mod:`nbayes.plot`), and -- given a labelled table --
the metrics, the confusion matrix, precision and recall against the log-odds threshold and
the reliability of the probabilities. Figures are inline PNGs: the file opens anywhere, with
no network. A large model stays readable: the top ``--top`` features per class, at most
``--max-features`` distribution plots, the most frequent classes, the rest summarised.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np
import pandas as pd

from .. import base
from .._output import output_file
from .._version import __version__
from ..exceptions import ParameterError
from ..io import load
from ..io._wrappers import is_wrapper
from . import _calibration_report, _html, _pictures
from ._common import check_output, plural
from ._models import inner, load_plan
from ._tables import ReadOptions
from .evaluate import SHOWN_CLASSES, Scores, check_scores, scored_chunks, unknown_label_notes
from .inspect import inspect_model
from .predict import add_threshold_options, decision_threshold, remembered_reading

HELP = "write an HTML report of a model (and of its scores on a labelled table)"
#: Rows of DATA kept for the plots that need every row's score (threshold, calibration,
#: histograms); the metrics use all rows.
PLOT_ROWS = 100_000
#: Distribution plots drawn at most (the columns that weigh most first).
MAX_FEATURES = 24
#: Features listed per class.
TOP_K = 15
#: Classes whose top features are drawn (the most frequent).
MAX_CLASSES = 8
#: Rows of the summary's tables (classes, columns) before the rest is summarised.
MAX_ROWS = 40
#: Rows whose credible interval the evaluation shows, its level and the models drawn.
INTERVAL_ROWS = 12
INTERVAL_LEVEL = 0.9
INTERVAL_DRAWS = 400


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


# -- the model -----------------------------------------------------------------------------------
def _summary(info: dict, est) -> str:
    facts = [
        ["estimator", info["estimator"] + (f" ({info['model']})" if info["model"] else "")],
        ["file", f"{info['file']} ({info['size_bytes']:,} bytes)"],
        ["format", f"version {info['format_version']}, written by nbayes {info['nbayes_version']}"],
    ]
    if info["target"]:
        rows = info["training_rows"]
        facts.append(["target", info["target"]])
        facts.append(["trained on", f"{rows:,} rows of {info['source']}" if rows else "?"])
    facts.append(["training weight", f"{info['training_weight']:,.6g}"])
    if info["decision_threshold"] is not None:
        facts.append(
            [
                "decision threshold",
                f"log-odds {info['decision_threshold']:.4g} for {info['classes'][1]}",
            ]
        )
    params = inner(est).get_params(deep=False)  # TextNB: its classifier's
    smoothing = {
        k: v
        for k, v in params.items()
        if k in ("alpha", "estimate", "prior_alpha", "var_smoothing", "fit_prior", "missing")
    }
    facts.append(["smoothing", ", ".join(f"{k}={v}" for k, v in smoothing.items()) or "-"])
    parts = [_html.table(facts, ["", ""])]
    order = np.argsort(-np.asarray(info["class_count"]), kind="stable")
    classes = [
        [str(info["classes"][i]), float(info["class_count"][i]), float(info["prior"][i])]
        for i in order[:MAX_ROWS]
    ]
    parts += ["<h3>Classes</h3>", _html.table(classes, ["class", "training weight", "prior"])]
    if len(order) > MAX_ROWS:
        parts.append(_html.note(f"The {MAX_ROWS} most frequent of {len(order):,} classes."))
    parts += ["<h3>Columns</h3>", *_columns(info, est)]
    parts += ["<h3>Parameters</h3>", _pictures.parameters(est.get_params(deep=False))]
    return _html.section("summary", "Model", parts)[2]


def _columns(info: dict, est) -> list[str]:
    summary = getattr(est, "summary", None)
    if callable(summary):  # MixedNB: family, group, categories and missing share per column
        frame = summary().reset_index(names="column")
        rows = frame.astype(object).where(frame.notna(), "").to_numpy().tolist()
        headers = list(frame.columns)
    else:
        rows = [
            [c["column"] or "(text)", c["family"], c.get("features", "")] for c in info["columns"]
        ]
        headers = ["column", "family", "features"]
    counts = pd.Series([r[1] for r in rows]).value_counts()
    parts = [_html.table(rows[:MAX_ROWS], headers)]
    if len(rows) > MAX_ROWS:
        parts.append(
            _html.note(
                f"The first {MAX_ROWS} of {len(rows):,} columns; families: "
                + ", ".join(f"{f} {n:,}" for f, n in counts.items())
                + "."
            )
        )
    return parts


def _ranked_classes(est) -> list:
    counts = np.asarray(est.class_count_ if hasattr(est, "class_count_") else [])
    classes = list(est.classes_)
    if counts.size != len(classes):
        return classes
    return [classes[i] for i in np.argsort(-counts, kind="stable")]


def _top_features(est, top_k: int) -> tuple[str, list[str]]:
    """The section of top features per class, and the features they name (best first)."""
    from ..plot import TopFeaturesDisplay

    shown = _ranked_classes(est)[:MAX_CLASSES]
    try:
        tables = {c: est.top_features(c, k=top_k) for c in shown}  # bounded: MAX_CLASSES
    except (NotImplementedError, AttributeError) as exc:
        return _html.section("features", "Top features", [_html.note(str(exc))])[2], []
    fig = _figure(4.2 * len(shown), 1.2 + 0.28 * top_k)
    axes = fig.subplots(1, len(shown), squeeze=False)[0]
    TopFeaturesDisplay(tables).plot(ax=axes)
    parts = [
        _html.note(
            "Log-odds weight of each feature for the class against its strongest rival, per "
            "occurrence or unit (for two classes, the weights of the linear form coef_)."
        ),
        _html.figure(fig, "top features per class"),
    ]
    if len(est.classes_) > len(shown):
        parts.append(
            _html.note(f"The {len(shown)} most frequent of {len(est.classes_):,} classes.")
        )
    named = [f for i in range(top_k) for t in tables.values() for f in t["feature"][i : i + 1]]
    return _html.section("features", "Top features", parts)[2], list(dict.fromkeys(named))


def _columns_to_draw(est, named: list[str], max_features: int) -> tuple[list, int]:
    """Which features get a distribution plot: the top-weighted first (a one-hot name
    ``column=value`` stands for its column), then the others in order."""
    if base.supports(est, base.TEXT_INPUT):
        return named[:max_features], len(est.get_feature_names_out())
    names = getattr(est, "feature_names_in_", None)
    labels = (
        [f"x{j}" for j in range(est.n_features_in_)] if names is None else [str(n) for n in names]
    )
    known = set(labels)
    first = []
    for name in named:  # bounded: top_k x MAX_CLASSES names
        column = name if name in known else name.rpartition("=")[0]
        if column in known:
            first.append(column)
    order = list(dict.fromkeys([*first, *labels]))
    return order[:max_features], len(labels)


def _distributions(est, named, max_features, inputs, y) -> str:
    """The section of class-conditional distributions: one plot per column, and the
    word-like columns (shares, mean counts) side by side in one chart."""
    from ..plot import ClassConditionalDisplay

    features, total = _columns_to_draw(est, named, max_features)
    figures: list[str] = []
    grouped: list = []
    refused: dict[str, list[str]] = {}
    for feature in features:  # bounded by max_features
        data = None
        if isinstance(inputs, pd.DataFrame) and feature in inputs.columns:
            data = inputs[feature].to_numpy()
        try:
            dist = est.feature_distribution(feature, data=data)
        except (ParameterError, NotImplementedError) as exc:
            refused.setdefault(str(exc), []).append(str(feature))
            continue
        if dist.kind in ("share", "mean"):
            grouped.append(dist)
            continue
        fig = _figure(4.6, 3.2)
        labels = None if y is None or data is None else np.asarray(y)
        ClassConditionalDisplay(dist, data=data, labels=labels, max_values=15).plot(
            ax=fig.subplots()
        )
        figures.append(_html.figure(fig, f"distribution of {feature}"))
    if grouped:
        first = grouped[0]
        combined = replace(
            first,
            feature="top words" if base.supports(est, base.TEXT_INPUT) else "features",
            values=np.asarray([d.feature for d in grouped], dtype=object),
            probability=np.hstack([d.probability for d in grouped]),
        )
        fig = _figure(min(2 + 0.45 * len(grouped) * len(first.classes), 14), 3.6)
        ClassConditionalDisplay(combined, max_values=len(grouped)).plot(ax=fig.subplots())
        figures.insert(0, _html.figure(fig, "class-conditional shares of the top features"))
    parts = [
        _html.note(
            "P(x | class) of each column as the model scores it: bars for categories, 0/1 and "
            "counts, densities for continuous columns"
            + (" (with the data's histogram per class)" if y is not None else "")
            + "; for word counts, each word's share of the class's words."
        ),
        f'<div class="figures">{"".join(figures)}</div>',
    ]
    drawn = len(features) - sum(len(v) for v in refused.values())
    if total > drawn:
        parts.append(_html.note(f"{drawn} of {total:,} features drawn, the top-weighted first."))
    parts += [_html.note(f"Not drawn ({', '.join(cols)}): {why}") for why, cols in refused.items()]
    return _html.section("distributions", "Class-conditional distributions", parts)[2]


# -- the data ------------------------------------------------------------------------------------
def _evaluation(plan, metrics: dict, inputs, y, proba, cut) -> str:
    from sklearn.metrics import ConfusionMatrixDisplay

    from ..plot import ReliabilityDisplay, ThresholdDisplay
    from ..plot._common import positive_log_odds

    est = plan.estimator
    summary = [
        ["rows", metrics["rows"]],
        ["accuracy", metrics["accuracy"]],
        ["balanced accuracy", metrics["balanced_accuracy"]],
        ["log-loss", metrics["log_loss"]],
    ]
    parts = [_html.table(summary, ["metric", "value"])]
    parts += [_html.note(note) for note in unknown_label_notes(metrics)]
    per_class = sorted(
        (
            [c, v["precision"], v["recall"], v["f1"], v["support"]]
            for c, v in metrics["per_class"].items()
        ),
        key=lambda row: -row[4],
    )
    parts.append(
        _html.table(per_class[:MAX_ROWS], ["class", "precision", "recall", "f1", "support"])
    )
    figures = []
    if metrics["confusion_matrix"] is not None and len(metrics["classes"]) <= SHOWN_CLASSES:
        n = len(metrics["classes"])
        fig = _figure(2.5 + 0.5 * n, 2 + 0.5 * n)
        ConfusionMatrixDisplay(
            np.asarray(metrics["confusion_matrix"]), display_labels=metrics["classes"]
        ).plot(ax=fig.subplots(), colorbar=False, values_format="d")
        figures.append(_html.figure(fig, "confusion matrix"))
    else:
        confusions = [
            [c["true"], c["predicted"], c["rows"]] for c in metrics["confusions"][:MAX_ROWS]
        ]
        parts += [
            "<h3>Most frequent confusions</h3>",
            _html.table(confusions, ["true", "predicted", "rows"]),
        ]
    if len(est.classes_) == 2:
        log_odds, pos = positive_log_odds(est, inputs, None)
        fig = _figure(5, 3.6)
        ax = fig.subplots()
        cut = 0.0 if cut is None else cut
        ThresholdDisplay.from_predictions(y, log_odds, pos_label=pos, threshold=cut, ax=ax)
        # Confident rows reach log-odds of hundreds: show the middle 98 % and the threshold.
        lo, hi = np.quantile(log_odds, [0.01, 0.99])
        lo, hi = min(lo, cut), max(hi, cut)
        ax.set_xlim(lo - 0.05 * (hi - lo) - 1e-9, hi + 0.05 * (hi - lo) + 1e-9)
        figures.append(_html.figure(fig, "precision and recall against the threshold"))
        if plan.calibrated is None:  # else drawn before and after calibration, below
            fig = _figure(4.2, 3.8)
            ReliabilityDisplay.from_predictions(y, proba[:, 1], pos_label=pos, ax=fig.subplots())
            figures.append(_html.figure(fig, "reliability curve"))
    else:
        parts.append(
            _html.note("The threshold and reliability plots are drawn for two-class models.")
        )
    parts.append(f'<div class="figures">{"".join(figures)}</div>')
    if metrics["rows"] > len(y):
        parts.append(
            _html.note(f"Plots of scores use the first {len(y):,} of {metrics['rows']:,} rows.")
        )
    parts += _calibration_report.section(plan, inputs, y, proba, _html.figure)
    if plan.calibrated is None:
        parts += _intervals(est, inputs, y, proba)
    else:
        parts += [
            "<h3>How sure</h3>",
            _html.note(
                "Credible intervals bound the model's own probabilities; this model's "
                "probabilities are calibrated, so none are shown."
            ),
        ]
    return _html.section("evaluation", f"Evaluation on {metrics['data']}", parts)[2]


def _intervals(est, inputs, y, proba) -> list[str]:
    """How sure the model is on a sample of rows: the credible interval of the predicted
    class's probability (``predict_proba_interval``), or why the model has none."""
    from ..estimators._interval import interval_refusal

    title = "<h3>How sure</h3>"
    refusal = interval_refusal(inner(est))
    if refusal is not None:
        return [title, _html.note(refusal)]
    rows = np.sort(
        np.random.default_rng(0).choice(len(y), min(INTERVAL_ROWS, len(y)), replace=False)
    )
    lower, upper = est.predict_proba_interval(
        inputs.iloc[rows], INTERVAL_LEVEL, INTERVAL_DRAWS, random_state=0
    )
    best = proba[rows].argmax(axis=1)
    classes = np.asarray(est.classes_)
    table = [
        [int(r), str(y[r]), str(classes[k]), proba[r, k], lower[i, k], upper[i, k]]
        for i, (r, k) in enumerate(zip(rows, best))
    ]
    headers = ["row", "label", "predicted", "probability", "lower", "upper"]
    level = f"{INTERVAL_LEVEL:.0%}"
    return [
        title,
        _html.table(table, headers),
        _html.note(
            f"{level} credible interval of the predicted class's probability on a random "
            f"sample of rows (numbered from 0), from {INTERVAL_DRAWS} models drawn from the "
            "posterior over the parameters: a wide interval means the training data leave "
            "that probability uncertain (few rows, a rare category)."
        ),
    ]


def _score(plan, data, target, read, progress, threshold, threshold_scale):
    """Metrics over all rows of DATA, and the first PLOT_ROWS rows' inputs, labels and
    probabilities for the plots."""
    est = plan.estimator
    cut = decision_threshold(est, threshold, threshold_scale, plan.threshold)
    scores = Scores(np.asarray(est.classes_), cut)
    kept: list = []
    n_kept = 0
    for _, inputs, y, proba in scored_chunks(plan, data, target, read, progress):
        scores.add(y, proba)
        if n_kept < PLOT_ROWS:
            take = min(PLOT_ROWS - n_kept, len(y))
            kept.append((inputs.iloc[:take], y.iloc[:take], proba[:take]))
            n_kept += take
    check_scores(scores, data, target)
    metrics = {"data": str(data), **scores.report(False)}
    inputs = pd.concat([k[0] for k in kept], ignore_index=True)
    y = pd.concat([k[1] for k in kept], ignore_index=True).to_numpy()
    proba = np.vstack([k[2] for k in kept])
    return metrics, inputs, y, proba, cut


def report(
    model: str,
    data: str | None = None,
    output: str = "report.html",
    *,
    target: str | None = None,
    text_column: str | None = None,
    read: ReadOptions | None = None,
    progress: bool = False,
    threshold: float | None = None,
    threshold_scale: str = "log_odds",
    top_k: int = TOP_K,
    max_features: int = MAX_FEATURES,
) -> dict:
    """Write the HTML report of MODEL (scored on the labelled table DATA, if given) to
    ``output``.

    Returns
    -------
    dict with ``output``, ``bytes`` (the file's size), ``figures`` (inline images) and
    ``sections`` (their anchors).

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
    >>> result = report(model, data, os.path.join(folder, "fruit.html"))
    >>> result["sections"], result["figures"]
    (['summary', 'features', 'evidence', 'distributions', 'evaluation'], 7)
    """
    from ..plot._common import require_matplotlib

    require_matplotlib()
    check_output(output, MODEL=model, DATA=data)
    if top_k < 1 or max_features < 0:
        raise ParameterError(
            f"--top must be at least 1 and --max-features at least 0; got {top_k} and "
            f"{max_features}."
        )
    info = inspect_model(model)
    inputs = y = None
    evaluation = None
    if data is None:  # no table to read: the model alone (it may have no column names)
        est = load(model)
        if is_wrapper(est):  # a calibration: its (first) fitted model; DATA shows the rest
            est = est.calibrated_classifiers_[0].estimator
    else:
        plan = load_plan(model, text_column)
        est = plan.estimator
        read = remembered_reading(plan, data, read or ReadOptions())
        target = target or plan.target
        if not target:
            raise ParameterError("The model does not record its target column; pass --target COL.")
        metrics, inputs, y, proba, cut = _score(
            plan, data, target, read, progress, threshold, threshold_scale
        )
        evaluation = _evaluation(plan, metrics, inputs, y, proba, cut)
    features, named = _top_features(est, top_k)
    bodies = [("summary", "Model", _summary(info, est))]
    shape = _pictures.structure(est) + _pictures.joint_counts(est, inputs)
    if shape:
        bodies.append(_html.section("structure", "Structure", shape))
    bodies.append(("features", "Top features", features))
    if inputs is not None:
        evidence = _pictures.evidence(est, inputs)
        bodies.append(_html.section("evidence", "Share of the evidence", evidence))
    bodies.append(
        ("distributions", "Distributions", _distributions(est, named, max_features, inputs, y))
    )
    if evaluation is not None:
        bodies.append(("evaluation", "Evaluation", evaluation))
    title = f"nbayes report: {info['file']}"
    subtitle = f"{info['estimator']}, written by nbayes {__version__}" + (
        f"; scored on {data}" if data else ""
    )
    page = _html.page(title, subtitle, bodies)
    encoded = page.encode("utf-8")
    with output_file(output) as f:
        f.write(encoded)
    return {
        "output": str(output),
        "bytes": len(encoded),
        "figures": page.count("<img "),
        "sections": [anchor for anchor, _, _ in bodies],
    }


def add_parser(subparsers, parents) -> argparse.ArgumentParser:
    p = subparsers.add_parser("report", help=HELP, description=HELP + ".", parents=parents)
    p.add_argument("model", metavar="MODEL", help="model file")
    p.add_argument("data", metavar="DATA", nargs="?", help="labelled table to score (optional)")
    p.add_argument(
        "-o",
        "--output",
        default="report.html",
        metavar="FILE",
        help="the HTML file (default report.html)",
    )
    p.add_argument(
        "--target", "-t", metavar="COL", help="label column of DATA (default: the training target)"
    )
    p.add_argument(
        "--top",
        type=int,
        default=TOP_K,
        metavar="K",
        help=f"features listed per class (default {TOP_K})",
    )
    p.add_argument(
        "--max-features",
        type=int,
        default=MAX_FEATURES,
        metavar="N",
        help=f"distribution plots at most, top-weighted first (default {MAX_FEATURES})",
    )
    add_threshold_options(p)
    p.add_argument(
        "--text-column", metavar="COL", help="text column, for a text model saved from Python"
    )
    return p


def run(args) -> int:
    from . import read_options

    result = report(
        args.model,
        args.data,
        args.output,
        target=args.target,
        text_column=args.text_column,
        read=read_options(args),
        progress=not args.quiet,
        threshold=args.threshold,
        threshold_scale=args.threshold_scale,
        top_k=args.top,
        max_features=args.max_features,
    )
    print(
        f"{result['output']}: {result['bytes']:,} bytes, {plural(result['figures'], 'figure')}",
    )
    return 0
