"""``--dask``: train and predict on a Dask cluster, reading DATA with dask.dataframe.

``--dask local`` starts a cluster of worker processes on this machine (one per CPU, or N with
``local:N``) and closes it afterwards; ``--dask tcp://HOST:PORT`` uses a running scheduler.
Every partition of DATA is converted exactly as ``train`` converts a chunk (the same plan,
from the same first rows), so the model equals the one trained without ``--dask``.
"""

from __future__ import annotations

import functools
import os
import re
import warnings
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from .. import _training as training
from .._labels import typed_classes
from .._threads import threads
from ..exceptions import ColumnWarning, DataError, NBayesError
from . import _calibrate, _cv, _folds
from ._common import CLIError, UsageError
from ._models import class_labels, inner
from ._scoring import predict_chunk
from ._tables import Table, missing_markers

_SPEC = re.compile(r"^local(?::(\d+))?$")
#: Column that carries the labels next to the features inside each partition.
LABEL = "__nbayes_label__"
#: Partial results combined per node of the tree reduces of the fold passes (``--alpha cv``,
#: ``--calibration``).
SPLIT_EVERY = 8


def dask_modules():
    """nbayes.dask and dask.dataframe, or a clear install hint."""
    try:
        import dask.dataframe as dd

        from .. import dask as nbdask
    except ImportError:
        raise CLIError('--dask needs Dask: pip install "nbayes[dask]".') from None
    return nbdask, dd


@contextmanager
def connect(spec: str):
    """A ``distributed.Client`` for ``local``, ``local:N`` or ``tcp://HOST:PORT``."""
    dask_modules()
    import logging

    from distributed import Client, LocalCluster

    match = _SPEC.match(spec)
    if match:
        workers = int(match.group(1) or os.cpu_count() or 1)
        if workers < 1:
            raise UsageError(f"--dask local:N needs N >= 1; got {spec!r}.")
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    if not re.match(r"^(tcp|tls|ucx|inproc)://\S+$", spec):
        raise UsageError(f"--dask must be local, local:N or tcp://HOST:PORT; got {spec!r}.")
    try:
        client = Client(spec, timeout="20s")
    except OSError as exc:
        raise CLIError(
            f"--dask {spec}: cannot reach the Dask scheduler ({exc}). Is it "
            "running (`dask scheduler`), and is the address right?"
        ) from None
    with client:
        yield client


def read_frame(table: Table, columns: list[str], schema: dict):
    """DATA as a dask DataFrame of ``columns``, read the way :class:`Table` reads chunks.

    CSV columns get fixed types from ``schema`` (the kinds found in the first rows): Dask
    reads partitions independently and cannot let each one guess its own.
    """
    _, dd = dask_modules()
    path, opts = table.path, table.options
    if table.is_stream:
        raise UsageError(
            f"--dask reads files, not standard input or pipes ({path}); give DATA as a file name."
        )
    if table.format == "parquet":
        return dd.read_parquet(path, columns=list(columns))
    # A compressed file cannot be split; it becomes one partition.
    blocksize = None if table.compression else "64MB"
    if table.format == "jsonl":
        frame = dd.read_json(
            path,
            lines=True,
            blocksize=blocksize,
            encoding=opts.encoding,
            compression=table.compression or "infer",
            dtype=False,
        )
        frame.columns = [str(c) for c in frame.columns]
        return frame[list(columns)]
    kwargs: dict[str, Any] = dict(
        sep=table.sep,
        encoding=opts.encoding,
        usecols=list(columns),
        dtype={c: "float64" if schema.get(c) in ("int", "float") else object for c in columns},
        blocksize=blocksize,
        compression=table.compression,
        on_bad_lines="error",
        skip_blank_lines=True,
        index_col=False,  # as the in-memory reader: never an index from the data
        na_values=missing_markers(opts.na_values),
        skipinitialspace=opts.skip_spaces,
    )
    if opts.names:
        kwargs.update(header=None, names=list(opts.names))
    elif not opts.header:
        kwargs.update(header=None, names=table.columns)
    if not opts.quoting:
        import csv

        kwargs.update(quoting=csv.QUOTE_NONE)
    return dd.read_csv(path, **kwargs)


def _in_partition(exc: NBayesError, partition_info) -> NBayesError:
    number = (partition_info or {}).get("number", "?")
    return type(exc)(
        f"{exc} (in partition {number} of DATA; row numbers count from the partition's start)"
    )


def _training_partition(
    frame: pd.DataFrame, plan, target: str, path: str, partition_info=None
) -> pd.DataFrame:
    """One partition as the estimator's input plus a label column (as ``train`` does)."""
    try:
        X = plan.inputs(frame, 0, path)
        y = class_labels(frame[target], 0, path, target)
    except NBayesError as exc:
        raise _in_partition(exc, partition_info) from exc
    out = X.to_frame() if isinstance(X, pd.Series) else X.copy()
    out[LABEL] = pd.Series(y, index=out.index, dtype=object)
    return out


@contextmanager
def _parse_errors(table: Table):
    """pandas' parse errors from the workers, phrased for the command line."""
    try:
        yield
    except NBayesError:
        raise
    except ValueError as exc:
        if "could not convert" not in str(exc) and "Unable to parse" not in str(exc):
            raise
        raise DataError(
            f"{table.path}: a column that holds numbers in its first rows holds text further "
            f"down ({exc}). Drop the column (--exclude), or run without --dask to have the "
            "row named."
        ) from None


def train_on_cluster(
    spec: str,
    table: Table,
    plan,
    target: str,
    first: pd.DataFrame,
    calibrate: bool = False,
    cv_names: list[str] | None = None,
) -> tuple[int, tuple | None]:
    """Fit ``plan.estimator`` on every row of DATA on the cluster, its labels typed once
    (:func:`typed_classes`) and finalized once; return the row count and, where
    ``calibrate``, the out-of-fold scores of :func:`out_of_fold_on_cluster` (else None).
    ``cv_names``: the parameters to choose by cross-validation first
    (:func:`choose_on_cluster`; the plan's estimator is then the fitted model with the
    chosen values)."""
    dask_modules()
    from ..dask._fit import statistics

    columns = [*plan.features, target]
    scores = None
    with connect(spec):
        raw = read_frame(table, columns, plan.schema)
        meta = _training_partition(first[columns].iloc[:0], plan, target, table.path)
        frame = raw.map_partitions(_training_partition, plan, target, table.path, meta=meta)
        est = plan.estimator
        with _parse_errors(table):
            if plan.is_text:
                X, y = frame[plan.text_column], frame[LABEL]
            else:
                X, y = frame, LABEL
            meta, summary, labels, stats = statistics(est, X, y)
        with warnings.catch_warnings():  # the survey's set-up warned of its column choices
            warnings.simplefilter("ignore", ColumnWarning)
            est.setup(meta, summary)
        training.install(est, labels, stats, typed_classes, finalize=not cv_names)
        with _parse_errors(table):
            # The fold passes number the rows as train numbers them: by partition offsets.
            offsets = _offsets(raw) if cv_names or calibrate else []
            if cv_names:
                choose_on_cluster(raw, plan, target, table.path, cv_names, offsets)
            if calibrate:
                scores = out_of_fold_on_cluster(raw, plan, target, table.path, offsets)
    return round(float(inner(plan.estimator).class_count_.sum())), scores


def _offsets(raw) -> list[int]:
    """The first row of each partition of ``raw``, counted over DATA (one pass)."""
    import dask

    (lengths,) = dask.compute(raw.map_partitions(len))
    return np.concatenate([[0], np.cumsum(np.asarray(lengths))[:-1]]).astype(int).tolist()


def _fold_counts(est, plan, target: str, path: str, block) -> list:
    """:func:`~._folds.count_chunk` of one partition, its rows numbered from its offset."""
    model = inner(est)
    with threads(1):  # one partition per worker thread already
        found = _folds.chunk_folds(est, model, plan, target, path, block.offset, block.X)
        return _folds.count_chunk(model, found)


def _fold_scores(est, models: list, plan, target: str, path: str, block):
    """:func:`~._calibrate.chunk_scores` of one partition, its rows numbered from its offset."""
    with threads(1):
        found = _folds.chunk_folds(est, inner(est), plan, target, path, block.offset, block.X)
        return _calibrate.chunk_scores(models, found, len(block.X))


def _fold_losses(est, fold_models: list, plan, target: str, path: str, block):
    """:func:`~._cv.chunk_losses` of one partition, its rows numbered from its offset."""
    with threads(1):
        found = _folds.chunk_folds(est, inner(est), plan, target, path, block.offset, block.X)
        return _cv.chunk_losses(fold_models, found)


def _joined_scores(*parts):
    """The scores and codes of consecutive partitions, in their order."""
    parts = tuple(p for p in parts if p[1].size)
    if not parts:
        return np.empty((0, 1)), np.empty(0, dtype=np.intp)
    return np.concatenate([v for v, _ in parts]), np.concatenate([c for _, c in parts])


def _counted_on_cluster(shipped, raw, plan, target: str, path: str, offsets: list) -> list:
    """The statistics of each fold (:func:`~._folds.count_chunk`) over all partitions of
    ``raw``, for the estimator ``shipped`` (delayed)."""
    from ..dask._parts import map_reduce

    return map_reduce(
        _fold_counts,
        (shipped, plan, target, path),
        raw,
        functools.partial(training.merge_folds, inner(plan.estimator)),
        SPLIT_EVERY,
        offsets=offsets,
    )


def choose_on_cluster(raw, plan, target: str, path: str, names: list[str], offsets: list) -> dict:
    """:func:`nbayes.cli._cv.choose` on the partitions of ``raw`` (DATA's columns, their first
    rows at ``offsets``): one pass counts the folds, one per parameter scores them; the
    folds, candidates and choice (:func:`~._cv.choose_from`) are those of the chunked
    passes. Returns the chosen values."""
    import dask

    from ..dask._parts import map_reduce

    shipped = dask.delayed(plan.estimator)  # once per worker, not with every task

    def score(name: str, fold_models: list) -> tuple:
        args = (shipped, dask.delayed(fold_models), plan, target, path)
        return map_reduce(_fold_losses, args, raw, _cv.add_losses, SPLIT_EVERY, offsets=offsets)

    def count() -> list:
        return _counted_on_cluster(shipped, raw, plan, target, path, offsets)

    return _cv.choose_from(plan, names, path, count, score)


def out_of_fold_on_cluster(
    raw, plan, target: str, path: str, offsets: list
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`nbayes.cli._calibrate.out_of_fold` on the partitions of ``raw`` (DATA's
    columns, their first rows at ``offsets``, whose sums number the rows as ``train``
    numbers them): one pass counts the folds and one scores them. The folds, fold models
    and scores are those of the chunked passes; the scores come back in row order."""
    import dask

    from ..dask._parts import map_reduce

    est, model = _calibrate.fold_model(plan)
    shipped = dask.delayed(est)  # once per worker, not with every task
    counted = _counted_on_cluster(shipped, raw, plan, target, path, offsets)
    models = dask.delayed(_calibrate.fold_models(model, counted, path))
    return map_reduce(
        _fold_scores,
        (shipped, models, plan, target, path),
        raw,
        _joined_scores,
        SPLIT_EVERY,
        offsets=offsets,
    )


def _em_partition(
    frame: pd.DataFrame,
    plan,
    target: str,
    path: str,
    unlabeled_value: str,
    partition_info=None,
) -> pd.DataFrame:
    """One partition as the estimator's input plus a label column in which None marks an
    unlabeled row (label ``unlabeled_value`` or empty), as ``train --unlabeled-value``
    reads it."""
    try:
        X = plan.inputs(frame, 0, path)
    except NBayesError as exc:
        raise _in_partition(exc, partition_info) from exc
    labels = frame[target]
    unlabeled = labels.isna().to_numpy() | (labels.astype(str) == unlabeled_value).to_numpy()
    y = np.where(unlabeled, None, labels.astype(str).to_numpy(dtype=object))
    out = X.to_frame() if isinstance(X, pd.Series) else X.copy()
    out[LABEL] = pd.Series(y, index=out.index, dtype=object)
    return out


def em_on_cluster(
    spec: str, table: Table, plan, target: str, first: pd.DataFrame, em, unlabeled_value: str
) -> tuple[int, int]:
    """Run the SemiSupervisedNB ``em`` over every row of DATA on the cluster, one distributed
    pass per iteration; return the row count and the unlabeled row count."""
    import dask

    nbdask, _ = dask_modules()
    columns = [*plan.features, target]
    with connect(spec):
        raw = read_frame(table, columns, plan.schema)
        args = (plan, target, table.path, unlabeled_value)
        meta = _em_partition(first[columns].iloc[:0], *args)
        frame = raw.map_partitions(_em_partition, *args, meta=meta)
        with _parse_errors(table):
            if plan.is_text:
                nbdask.fit_semisupervised(
                    em, frame[plan.text_column], frame[LABEL], typed=typed_classes
                )
            else:
                nbdask.fit_semisupervised(em, frame, LABEL, typed=typed_classes)
            rows, unlabeled = dask.compute(frame.shape[0], frame[LABEL].isna().sum())
    return int(rows), int(unlabeled)


def _predicted(
    frame: pd.DataFrame,
    model,
    plan,
    keep: tuple,
    proba: bool,
    path: str,
    threshold: float | None = None,
    partition_info=None,
) -> pd.DataFrame:
    try:
        return predict_chunk(model, plan, frame, 0, path, keep, proba, threshold)
    except NBayesError as exc:
        raise _in_partition(exc, partition_info) from exc


def _predict_meta(raw_meta: pd.DataFrame, keep: tuple, classes, proba: bool) -> pd.DataFrame:
    """The empty frame with the output columns of :func:`predict_chunk`."""
    out = raw_meta[list(keep)].iloc[:0].reset_index(drop=True)
    out["prediction"] = pd.Series(np.asarray(classes)[:0])
    if proba:  # one block for all classes, as predict_chunk makes
        columns = [f"proba_{c}" for c in np.asarray(classes).tolist()]
        out = pd.concat([out, pd.DataFrame(np.empty((0, len(columns))), columns=columns)], axis=1)
    return out


def predict_on_cluster(
    spec: str,
    table: Table,
    plan,
    columns: list[str],
    keep: tuple,
    proba: bool,
    writer,
    threshold: float | None = None,
) -> int:
    """Predict every partition of DATA on the cluster and write them in input order."""
    import dask

    dask_modules()
    with connect(spec) as client:
        raw = read_frame(table, columns, plan.schema)
        est = plan.scorer  # the calibration of a calibrated model
        model = dask.delayed(est)  # shipped once per worker, not with every task
        meta = _predict_meta(raw._meta, keep, est.classes_, proba)
        out = raw.map_partitions(
            _predicted, model, plan, keep, proba, table.path, threshold, meta=meta
        )
        rows = 0
        # Partitions run in parallel; each result is written, in order, as soon as it and
        # all before it are done.
        for future in client.compute(list(out.to_delayed())):
            with _parse_errors(table):
                part = future.result()
            if len(part):
                writer.write(part)
                rows += len(part)
            future.release()
    return rows
