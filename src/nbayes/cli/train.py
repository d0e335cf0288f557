"""``nbayes train``: learn a model from a table, chunk by chunk, and save it.

Memory stays bounded whatever the file size: DATA is read in chunks, each chunk's additive
statistics are accumulated and merged, and the model is finalized once, at the end (the
training driver, :mod:`nbayes._training`). What must be known before the statistics can be
added up is handled without holding the data:

* class labels are learned append-only (a chunk may bring a new class; the statistics grow a
  zero row for it), then typed and sorted once at the end, so the result equals ``fit`` on
  all rows;
* category vocabularies (MixedNB) are append-only the same way: codes never change;
* a text vocabulary grows the same way, its words put in order at the end
  (:meth:`TextNB.fit_chunks`: one pass); ``--hashing`` replaces it by a fixed number of hash
  buckets.
"""

from __future__ import annotations

import argparse
import shlex
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import _training as training
from .. import base
from .._labels import is_string_kind, typed_classes
from .._validation import likely_missing_marker, rows_from, spelling_key
from ..estimators.semisupervised import EM_ADVICE
from ..exceptions import DataError, EMWarning
from ..io import save
from . import _arg_types, _calibrate, _cv, _text_pass
from ._common import UsageError, check_output, plural, say_warning
from ._models import (
    CONTINUOUS,
    SEMINAIVE,
    Settings,
    choose_plan,
    class_labels,
    inner,
    model_names,
)
from ._tables import ReadOptions, open_table, read_dtypes

HELP = "learn a model from a table (CSV/TSV, Parquet, JSON lines) and save it"


@dataclass
class TrainResult:
    """What ``train`` did: the model file, its estimator and the data it saw."""

    output: Path
    estimator: str
    model: str
    rows: int
    classes: list
    class_counts: list
    features: list
    text_column: str | None
    seconds: float
    notes: list
    warnings: list


#: EM_ADVICE in the command line's words.
_EM_ADVICE_CLI = "Lower --unlabeled-weight, or pass --unlabeled-weight auto to choose it."


def train(
    data: str,
    target: str,
    output: str,
    *,
    model: str = "auto",
    text_column: str | None = None,
    features: list[str] | None = None,
    exclude: tuple[str, ...] = (),
    categorical: tuple[str, ...] = (),
    settings: Settings | None = None,
    read: ReadOptions | None = None,
    progress: bool = False,
    dask: str | None = None,
    threshold: float | None = None,
    threshold_scale: str = "log_odds",
    unlabeled_value: str | None = None,
    unlabeled_weight: float | str = 1.0,
    em_iterations: int = 30,
    calibration: str | None = None,
) -> TrainResult:
    """Train a model on DATA in chunks and save it to ``output``.

    Parameters
    ----------
    data : str
        Path of a CSV/TSV, Parquet or JSON-lines file (``-`` for CSV on standard input).
    target : str
        The label column.
    output : str
        Where to write the model file.
    model : str
        One of ``model_names()`` (the registered models' ``--model`` names); "auto" picks a
        text model for a free-text column and MixedNB (one family per column) otherwise.
    text_column, features, exclude, categorical, settings, read, progress
        See ``nbayes train --help``.
    dask : str, optional
        ``local``, ``local:N`` or ``tcp://HOST:PORT``: read DATA with dask.dataframe and train
        on that cluster (one task per partition, statistics merged in a tree); the model
        equals the one trained without it.
    threshold, threshold_scale : float and {"log_odds", "proba"}, optional
        A decision threshold for a model of two classes, kept in the model file: predict and
        evaluate (and, for the presets, the loaded model's ``predict``) decide with it.
    unlabeled_value : str, optional
        Semi-supervised training: rows whose label is this value (as written in the file),
        or empty, are unlabeled; the model is trained by EM
        (:class:`nbayes.SemiSupervisedNB`) over the labeled and unlabeled rows, one pass
        over DATA per iteration.
    unlabeled_weight : float or "auto", default 1
        EM's weight of an unlabeled row (lambda); "auto" chooses it from held-out labeled
        rows.
    em_iterations : int, default 30
        Most EM iterations.
    calibration : {"sigmoid", "isotonic", "temperature"}, optional
        Save a calibration of the model on hashed folds (:mod:`nbayes.cli._calibrate`).

    Returns
    -------
    TrainResult

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
    >>> result = train(data, "fruit", model)
    >>> result.estimator, result.rows, result.classes
    ('MixedNB', 4, ['apple', 'banana'])
    """
    start = time.perf_counter()
    if threshold is not None:
        from .predict import threshold_option

        threshold_option(threshold, threshold_scale)  # a bad value fails before training
    settings = settings or Settings()
    read = read or ReadOptions()
    _calibrate.check(calibration, unlabeled_value)
    chosen = _cv.cv_names(settings)
    if chosen and unlabeled_value is not None:
        raise UsageError(
            f"{_cv.OPTIONS[chosen[0]]} cv scores the folds' labeled rows under a model trained "
            "on labels alone; it does not combine with --unlabeled-value, where EM trains on "
            f"the unlabeled rows too. Give {_cv.OPTIONS[chosen[0]]} a number or 'auto'."
        )
    names = model_names()
    if model not in names:
        raise UsageError(f"--model must be one of {names}; got {model!r}.")
    check_output(output, DATA=data)
    table = open_table(data, read, progress)
    spaced = table.find_spaced_separators()
    reader = table.chunks()
    first = next(reader, None)
    if first is None:
        raise DataError(f"{data}: no data rows.")
    head = first[1]
    if table.format == "jsonl":
        if next(reader, None) is None:  # the first chunk is the whole file, and its keys
            table.set_columns(head.columns)  # are all the keys
        # Records may each lack some keys: the columns are those of every record.
        head = head.reindex(columns=table.columns)
    empty = [
        c
        for c in head.columns
        if c != target
        and c not in exclude
        and (features is None or c in features)
        and head[c].isna().all()
    ]
    reader.close()
    later = _values_further_down(table, empty) if empty else {}
    plan = choose_plan(
        head,
        target,
        model,
        text_column=text_column,
        features=features,
        exclude=tuple(exclude),
        categorical=tuple(categorical),
        settings=settings,
        later=later,
        read=replace(read, format=table.format),  # advice names CSV options for CSV only
    )
    if spaced:
        plan.notes.append(
            f"every {table.sep!r} in the first lines is followed by a space: those spaces are "
            "skipped, so that values, labels and column names do not begin with one (the "
            "model remembers it for predict and evaluate)"
        )
    est = plan.estimator
    dtypes = {**read_dtypes(plan.schema), target: str}
    scores = None  # the out-of-fold scores of a calibration, where the cluster made them
    if unlabeled_value is not None:
        rows = _train_by_em(
            table,
            plan,
            target,
            dtypes,
            unlabeled_value,
            unlabeled_weight,
            em_iterations,
            dask=dask,
            first=first[1],
        )
        est = plan.estimator
    else:
        if chosen:
            _cv.start(plan, chosen)
        if dask is not None:
            from ._dask import train_on_cluster

            rows, scores = train_on_cluster(
                dask, table, plan, target, first[1], calibration is not None, chosen
            )
        else:
            rows = _train_in_chunks(table, plan, target, dtypes, not chosen)
            if chosen:
                _cv.choose(table, plan, target, dtypes, chosen)
        est = plan.estimator
    # --no-header / --names / --decimal / --thousands / --na-values / --encoding are
    # remembered, so predict and evaluate read such files alike.
    opts = table.options
    reading: dict[str, Any] = {"header": opts.header, "names": list(opts.names or []) or None}
    if opts.encoding != ReadOptions.encoding:
        reading.update(encoding=opts.encoding)
    if opts.decimal != "." or opts.thousands:
        reading.update(decimal=opts.decimal, thousands=opts.thousands)
    if opts.na_values:
        reading.update(na_values=list(opts.na_values))
    if opts.skip_spaces:
        reading.update(skip_spaces=True)
    metadata = {"cli": {**plan.metadata(rows, Path(data).name), "read": reading}}
    if threshold is not None:
        log_odds = _set_threshold(est, threshold, threshold_scale)
        metadata["cli"]["decision_threshold"] = log_odds
        second = np.asarray(est.classes_).tolist()[1]
        plan.notes.append(
            f"predicting {second!r} when its log-odds exceed {log_odds:.4g} "
            f"(probability above {1 / (1 + np.exp(-log_odds)):.4g})"
        )
    # est itself without a calibration
    saved = _calibrate.calibrate(table, plan, target, dtypes, calibration, scores)
    path = save(saved, output, metadata=metadata)
    joined = table.line_break_warning()
    if joined:
        plan.warnings.append(joined)
    repeated = table.repeated_names_warning()
    if repeated:
        plan.warnings.append(repeated)
    inner = base.inner_model(est)
    # Under EM the class weights include the unlabeled rows' shares: no row counts then.
    labeled = inner.class_count_ if unlabeled_value is None else None
    if labeled is not None:
        plan.warnings.extend(_marker_classes(inner.classes_, labeled))
    plan.warnings.extend(_lookalike_classes(inner.classes_, labeled, target))
    if len(inner.classes_) == 1:
        plan.warnings.append(
            f"column {target!r} holds one class only ({inner.classes_.tolist()[0]!r}) in DATA: the "
            "model predicts it for every row; check --target, or train on rows of every class"
        )
    return TrainResult(
        output=path,
        estimator=type(est).__name__,
        model=plan.model,
        rows=rows,
        classes=inner.classes_.tolist(),
        class_counts=inner.class_count_.tolist(),
        features=plan.features,
        text_column=plan.text_column,
        seconds=time.perf_counter() - start,
        notes=plan.notes,
        warnings=plan.warnings,
    )


def _marker_classes(classes, counts) -> list[str]:
    """Warnings for classes whose label often marks a missing one ('?', 'unknown', ...): a
    file whose unlabeled rows say '?' would otherwise train a class '?' without a word, and
    predict it for every row like them."""
    total = float(np.sum(counts))
    return [
        f"the label {c!r} ({n:,.0f} rows, {n / total:.0%}) often marks a missing label; it was "
        f"trained as a class of its own. If those rows are unlabeled, pass --unlabeled-value "
        f"{shlex.quote(c)} to learn from them by EM (semi-supervised), or leave them out of DATA"
        for c, n in zip(classes, counts)
        if likely_missing_marker(c, n / total if total else 0.0)
    ]


def _lookalike_classes(classes, counts, target: str) -> list[str]:
    """Warnings for labels that differ only in spaces or letter case ('spam', 'spam ',
    'Spam'): hand-typed or merged files write one class so, and each spelling would
    otherwise be trained as a class of its own without a word, splitting its rows.
    ``counts``: each class's rows, or None (not said)."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for k, c in enumerate(classes):
        if isinstance(c, str):
            rows = "" if counts is None else f" ({float(counts[k]):,.0f} rows)"
            groups.setdefault(spelling_key(c), []).append((c, rows))
    out = []
    for spellings in groups.values():  # bounded by the number of classes
        if len(spellings) < 2:
            continue
        named = [f"{c!r}{rows}" for c, rows in spellings]
        listed = ", ".join(named[:-1]) + " and " + named[-1]
        out.append(
            f"the labels {listed} differ only in spaces or letter case; each was trained as a "
            "class of its own. If they are one class, write them alike in DATA (with pandas: "
            f"df[{target!r}] = df[{target!r}].str.strip(), and .str.lower() where case does not "
            "matter)"
        )
    return out


def _set_threshold(model, threshold: float, scale: str) -> float:
    """Give a two-class model its decision threshold; return it in log-odds (for the file).

    Estimators with a ``decision_threshold`` parameter (the presets, also inside a text
    model) take it, so that ``nbayes.load(...).predict`` follows it too; for the others
    (MixedNB) the command line keeps it in the model file's metadata.
    """
    from .predict import decision_threshold

    log_odds = decision_threshold(model, threshold, scale)
    if log_odds is None:  # only a missing threshold means the argmax rule
        raise UsageError("--threshold needs a number.")
    est = inner(model)
    if "decision_threshold" in est.get_params():
        est.set_params(decision_threshold=threshold, threshold_scale=scale)
    return float(log_odds)


#: Beyond this many classes ``nbayes train`` lists the most frequent ones (--full: all).
SHOWN_CLASSES = 20


def class_summary(classes: list, counts: list, full: bool = False) -> str:
    """``classes a: 3, b: 2``; with more than :data:`SHOWN_CLASSES` classes (and not
    ``full``), the most frequent ones and how many there are."""
    pairs = [f"{c}: {int(n):,}" for c, n in zip(classes, counts)]
    if full or len(pairs) <= SHOWN_CLASSES:
        return "classes " + ", ".join(pairs)
    top = np.argsort(-np.asarray(counts, dtype=np.float64), kind="stable")[:SHOWN_CLASSES]
    return (
        f"{len(pairs):,} classes, the most frequent {', '.join(pairs[i] for i in top)} "
        "(--full lists every class)"
    )


def _train_in_chunks(table, plan, target: str, dtypes: dict, finalize: bool = True) -> int:
    """Train the plan's model over the chunks of DATA with :func:`nbayes._training.train`:
    every chunk accumulated, the labels typed once, one finalize (none with ``finalize``
    False: ``--alpha cv`` finalizes its choice). Returns the row count.

    Labels are read as strings; they get the type the file gave them once every class is
    known (:func:`typed_classes`).
    """
    if plan.is_text:
        return _text_pass.train(table, plan, target, dtypes, finalize)
    columns = [*plan.features, target]
    surveyed = plan.model in SEMINAIVE and _bin_edges_pass(table, plan, target, dtypes)
    seen = {"rows": 0, "strings": False}  # what the chunks showed, as they are read

    def chunks():
        desc = "training (pass 2/2)" if surveyed else "training"
        for offset, chunk in table.chunks(columns, dtypes, desc=desc):
            # A CSV's labels are read as text (dtypes); other formats say what they hold.
            seen["strings"] = seen["strings"] or (
                table.format in ("parquet", "jsonl") and is_string_kind(chunk[target])
            )
            seen["rows"] += len(chunk)
            y = class_labels(chunk[target], offset, table.path, target)
            yield plan.inputs(chunk, offset, table.path), y

    training.train(
        plan.estimator,
        chunks(),
        typed=lambda labels: typed_classes(labels.tolist(), bool(seen["strings"])),
        finalize=finalize,
    )
    return int(seen["rows"])


def _train_by_em(
    table,
    plan,
    target: str,
    dtypes: dict,
    unlabeled_value: str,
    unlabeled_weight: float | str,
    max_iter: int,
    dask: str | None = None,
    first: pd.DataFrame | None = None,
) -> int:
    """Train by semi-supervised EM over the chunks of DATA, or on the ``dask`` cluster (one
    pass per iteration): rows whose label is ``unlabeled_value`` or empty are unlabeled.
    The labels are read as strings and typed once (:func:`typed_classes`), after the
    first pass. The fitted model replaces the plan's estimator; what EM did goes to the
    plan's notes (and its warning to warnings). Returns the row count."""
    import warnings

    from ..estimators.semisupervised import SemiSupervisedNB

    columns = [*plan.features, target]
    counts = {"rows": 0, "unlabeled": 0, "strings": False}

    def chunks():
        counts.update(rows=0, unlabeled=0)
        for offset, chunk in table.chunks(columns, dtypes, desc="EM pass"):
            labels = chunk[target]
            counts["strings"] = counts["strings"] or (
                table.format in ("parquet", "jsonl") and is_string_kind(labels)
            )
            unlabeled = (
                labels.isna().to_numpy() | (labels.astype(str) == unlabeled_value).to_numpy()
            )
            y = np.empty(len(chunk), dtype=object)  # None marks an unlabeled row
            y[~unlabeled] = labels[~unlabeled].astype(str).to_numpy(dtype=object)
            counts["rows"] += len(chunk)
            counts["unlabeled"] += int(unlabeled.sum())
            yield plan.inputs(chunk, offset, table.path), y

    em = SemiSupervisedNB(plan.estimator, unlabeled_weight=unlabeled_weight, max_iter=max_iter)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", EMWarning)
        try:
            if dask is None:
                em.fit_chunks(
                    chunks,
                    typed=lambda labels: typed_classes(labels.tolist(), bool(counts["strings"])),
                )
            else:
                from ._dask import em_on_cluster

                counts["rows"], counts["unlabeled"] = em_on_cluster(
                    dask, table, plan, target, first, em, unlabeled_value
                )
        except DataError as exc:
            if "Every row is unlabeled" in str(exc):
                raise DataError(
                    f"{table.path}: every row of the target column {target!r} is "
                    f"{unlabeled_value!r} or empty (unlabeled); EM needs some labeled rows "
                    "of each class to start from."
                ) from None
            raise
    plan.warnings.extend(
        str(w.message).replace(EM_ADVICE, _EM_ADVICE_CLI) for w in caught if w.category is EMWarning
    )
    plan.estimator = em.estimator_
    rows, unlabeled = counts["rows"], counts["unlabeled"]
    held = em.heldout_log_likelihood_
    plan.notes.append(
        f"semi-supervised EM: {plural(rows - unlabeled, 'labeled row')} and "
        f"{plural(unlabeled, 'unlabeled row')} (label {unlabeled_value!r} or empty), "
        f"{plural(em.n_iter_, 'iteration')}"
        f"{' (converged)' if em.converged_ else ''}, unlabeled weight {em.unlabeled_weight_:g}"
        + (
            ""
            if held is None
            else f"; held-out log-likelihood of the labeled rows {held['labeled_only']:.6g} "
            f"alone, {held['em']:.6g} with EM"
        )
    )
    return rows


def _bin_edges_pass(table, plan, target: str, dtypes: dict) -> bool:
    """First pass for a semi-naive model with numeric columns: their bin edges from every row
    (the survey of the estimator protocol, as ``nbayes.dask`` runs it), fixed in the
    estimator's ``bin_edges`` so that ``partial_fit`` over the chunks equals ``fit`` on all
    rows. Returns whether a pass was made (none without numeric columns)."""
    from sklearn.base import clone

    est = plan.estimator
    empty = pd.DataFrame({c: pd.Series([], dtype=object) for c in plan.features})
    meta = plan.inputs(empty, 0, table.path)  # the columns and types, no rows
    # Dates become calendar features (categories) when the model reads its first rows; the
    # survey wants only the numeric columns' edges, which it finds without them.
    dates = {r.column for r in plan.choices if r.family == "calendar"}
    meta = meta[[c for c in meta.columns if plan.schema.get(c) != "datetime" and c not in dates]]
    step = est.survey_step(meta)
    if step is None or not step.labels:
        return False
    summary = None
    columns = [*plan.features, target]
    for offset, chunk in table.chunks(columns, dtypes, desc="bin edges (pass 1/2)"):
        y = class_labels(chunk[target], offset, table.path, target)
        X = plan.inputs(chunk, offset, table.path)
        with rows_from(offset):
            part = step.summarize(X[step.columns], y, None)
        summary = part if summary is None else step.combine(summary, part)
    if summary is None:
        return False
    probe = clone(est)
    probe.setup(meta, step.finish(None, summary))
    est.set_params(bin_edges={c: e.tolist() for c, e in probe.bin_edges_.items()})
    return True


def _values_further_down(table, columns: list[str]) -> dict[str, pd.Series]:
    """For columns empty throughout the first chunk: their values in the first chunk that has
    some (as that chunk reads them, so that their kind is inferred as for any column), or an
    empty Series for a column empty in every row. Reads only as far as needed."""
    found: dict[str, pd.Series] = {}
    for _, chunk in table.chunks(columns, desc="typing columns empty at first"):
        for c in columns:  # bounded by the number of empty columns
            if c not in found and chunk[c].notna().any():
                found[c] = chunk[c].dropna()
        if len(found) == len(columns):
            break
    return {c: found.get(c, pd.Series(dtype=object)) for c in columns}


# -- command line -------------------------------------------------------------------------------
def add_parser(subparsers, parents) -> argparse.ArgumentParser:
    p = subparsers.add_parser("train", help=HELP, description=HELP + ".", parents=parents)
    p.add_argument("data", metavar="DATA", help="training table (CSV/TSV, Parquet, JSON lines)")
    p.add_argument("--target", "-t", required=True, metavar="COL", help="the label column")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="MODEL",
        help="model file to write (e.g. model.nbayes). An existing file is replaced only "
        "once training succeeded (a failure or Ctrl-C leaves it as it was); a named pipe or "
        "device is written into; DATA itself is refused",
    )
    p.add_argument(
        "--model",
        "-m",
        default="auto",
        choices=model_names(),
        help="model family (default: auto -- a text model for a free-text column, "
        "otherwise one family per column)",
    )
    p.add_argument(
        "--text-column", metavar="COL", help="a column of free text, vectorised into word counts"
    )
    p.add_argument(
        "--features",
        metavar="COLS",
        help="comma-separated input columns (default: all but the target)",
    )
    p.add_argument(
        "--exclude", metavar="COLS", default="", help="comma-separated columns to leave out"
    )
    p.add_argument(
        "--categorical",
        metavar="COLS",
        default="",
        help="comma-separated columns read as categories whatever their kind (an identifier "
        "kept, dates as written, integers as categories); for --model auto / mixed / "
        "categorical and the semi-naive models",
    )
    p.add_argument(
        "--alpha",
        type=_arg_types.number_auto_or_cv,
        help="smoothing (Dirichlet/Beta prior), default 1; 'auto' maximises the evidence; "
        "'cv' chooses it by 5-fold cross-validated log-loss on hashed folds (two more passes "
        "over DATA, three with --dask, which chooses the same value)",
    )
    _calibrate.add_argument(p)
    p.add_argument(
        "--estimate",
        choices=("posterior_mean", "map", "mle"),
        help="estimate of discrete parameters (default posterior_mean)",
    )
    p.add_argument(
        "--continuous",
        choices=CONTINUOUS,
        help="how numeric columns are read: gaussian (the default: a normal density per "
        "class), kde (kernel density), binned (supervised MDL discretisation) or density "
        "(whichever fits each column best); for --model auto / mixed / density",
    )
    p.add_argument(
        "--var-smoothing",
        type=_arg_types.number_auto_or_cv,
        help="Gaussian variance floor (default 1e-9), 'auto', or 'cv' (as for --alpha)",
    )
    text = p.add_argument_group("text options")
    text.add_argument(
        "--hashing",
        type=_arg_types.at_least_one("buckets"),
        metavar="N",
        nargs="?",
        const=2**20,
        help="hash words into N buckets (default 2^20) instead of a vocabulary: "
        "one pass over the data, but no readable words in explanations",
    )
    text.add_argument(
        "--min-df",
        type=_arg_types.min_df,
        default=1,
        help="keep words in at least this many texts (or this fraction)",
    )
    text.add_argument(
        "--max-features",
        type=_arg_types.at_least_one("words"),
        metavar="N",
        help="keep only the N most frequent words",
    )
    text.add_argument(
        "--ngrams",
        type=_arg_types.at_least_one("words per n-gram"),
        default=1,
        metavar="N",
        help="use word n-grams up to N (default 1)",
    )
    text.add_argument(
        "--no-lowercase", dest="lowercase", action="store_false", help="keep upper case distinct"
    )
    semi = p.add_argument_group("options of --model aode / tan / kdb / joint")
    semi.add_argument(
        "--parents",
        type=int,
        choices=(1, 2),
        help="AODE's super-parents per estimator: 1 (AODE, default) or 2 (A2DE)",
    )
    semi.add_argument(
        "--k",
        type=_arg_types.whole_number,
        metavar="K",
        help="KDB's feature parents per feature (default 2; 0 is naive Bayes)",
    )
    semi.add_argument(
        "--binning",
        choices=("mdl", "quantile", "binned"),
        help="how numeric columns are cut: supervised MDL cuts (default), --n-bins "
        "equal-frequency bins, or MDL cuts as the binned family makes them on a grid of "
        "--n-bins bins (memory bounded by the grid, whatever the number of distinct values); "
        "the edges come from every row (a first pass over DATA)",
    )
    semi.add_argument(
        "--n-bins",
        type=_arg_types.at_least_one("bins"),
        metavar="N",
        help="equal-frequency bins per numeric column with --binning quantile (default 5), "
        "grid bins with --binning binned (default 1024)",
    )
    em = p.add_argument_group("semi-supervised training (EM over labeled and unlabeled rows)")
    em.add_argument(
        "--unlabeled-value",
        metavar="VALUE",
        help="rows whose label is VALUE (as written in DATA, e.g. -1 or '?'), or empty, are "
        "unlabeled: the model is trained by EM (Nigam et al. 2000) on the labeled and "
        "unlabeled rows, one pass over DATA per iteration, and saved as an ordinary model",
    )
    em.add_argument(
        "--unlabeled-weight",
        type=_arg_types.weight_or_auto,
        default=1.0,
        metavar="W",
        help="weight of an unlabeled row relative to a labeled one (default 1); 'auto' "
        "chooses it from held-out labeled rows",
    )
    em.add_argument(
        "--em-iterations",
        type=_arg_types.whole_number,
        default=30,
        metavar="N",
        help="most EM iterations (default 30)",
    )
    from .predict import add_threshold_options

    add_threshold_options(p, "kept in the model file for predict and evaluate")
    p.add_argument(
        "--full",
        action="store_true",
        help=f"list every class after training (default: the {SHOWN_CLASSES} most frequent "
        f"when there are more)",
    )
    p.add_argument(
        "--dask",
        metavar="CLUSTER",
        help="train in parallel on Dask: local, local:N (N worker processes) or "
        "tcp://HOST:PORT (a running scheduler); DATA is read with "
        "dask.dataframe, one task per partition (--alpha cv, --var-smoothing cv and "
        "--calibration run their fold passes there too)",
    )
    return p


def run(args) -> int:
    from . import read_options, split_list

    settings = Settings(
        alpha=args.alpha,
        estimate=args.estimate,
        var_smoothing=args.var_smoothing,
        continuous=args.continuous,
        hashing=args.hashing,
        min_df=args.min_df,
        max_features=args.max_features,
        ngrams=args.ngrams,
        lowercase=args.lowercase,
        parents=args.parents,
        k=args.k,
        binning=args.binning,
        n_bins=args.n_bins,
    )
    result = train(
        args.data,
        args.target,
        args.output,
        model=args.model,
        text_column=args.text_column,
        features=split_list(args.features),
        exclude=tuple(split_list(args.exclude) or ()),
        categorical=tuple(split_list(args.categorical) or ()),
        settings=settings,
        read=read_options(args),
        progress=not args.quiet,
        dask=args.dask,
        threshold=args.threshold,
        threshold_scale=args.threshold_scale,
        unlabeled_value=args.unlabeled_value,
        unlabeled_weight=args.unlabeled_weight,
        em_iterations=args.em_iterations,
        calibration=args.calibration,
    )
    for warning in result.warnings:  # choices that leave out or re-read a column: always said
        say_warning(warning)
    if not args.quiet:
        for note in result.notes:
            print(f"nbayes: {note}")
        what = (
            f"text column {result.text_column!r}"
            if result.text_column
            else plural(len(result.features), "column")
        )
        print(
            f"trained {result.estimator} ({result.model}) on {plural(result.rows, 'row')}, "
            f"{what}; {class_summary(result.classes, result.class_counts, args.full)}"
        )
        print(f"saved {result.output} in {result.seconds:.1f} s")
    return 0
