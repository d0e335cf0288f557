"""Partitions of Dask collections and the one tree reduce that every distributed pass of
:mod:`nbayes.dask` runs: map a function over the partitions, then combine the partial
results ``split_every`` at a time in a tree of depth log_k(n), then compute once."""

from __future__ import annotations

from typing import Any, NamedTuple

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

from ..exceptions import DataError

#: Columns that carry labels and weights next to the features inside each partition.
_Y, _W = "__nbayes_y__", "__nbayes_sample_weight__"
#: Column that carries each row's fold next to the features inside each partition.
_F = "__nbayes_fold__"
#: Name of the column that holds texts given as a dask Series.
_TEXT = "__nbayes_text__"


def _row_partitions(X) -> tuple[list, list[int] | None]:
    """Delayed row blocks of array X and each block's first row (None where Dask does not
    know)."""
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise DataError(f"X must be 2-dimensional (rows, features); got shape {X.shape}.")
        if X.numblocks[1] > 1:
            # Every family needs whole rows; columns of one row block are joined once here.
            X = X.rechunk({1: -1})
        blocks = list(X.to_delayed()[:, 0])
        sizes = X.chunks[0]
        if any(np.isnan(s) for s in sizes):
            return blocks, None
        return blocks, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int).tolist()
    raise DataError(
        f"X must be a dask array or dask DataFrame; got {type(X).__name__}. For data in memory "
        "call the estimator's own fit, or wrap it: dask.array.from_array(X, chunks=...)."
    )


def _vector_partitions(v, X, name: str) -> list:
    """Delayed blocks of labels or weights, aligned with the row blocks of array X."""
    n_parts = X.numblocks[0]
    if isinstance(v, dd.DataFrame):
        raise DataError(
            f"{name} must be one column (a dask Series or 1-d array); got a "
            f"DataFrame with columns {list(v.columns)!r}."
        )
    if isinstance(v, dd.Series):
        parts = list(v.to_delayed())
    elif isinstance(v, da.Array):
        if v.ndim != 1:
            raise DataError(f"{name} must be 1-dimensional; got shape {v.shape}.")
        row_chunks = X.chunks[0]
        known = not any(np.isnan(c) for c in row_chunks + v.chunks[0])
        if known and v.chunks[0] != row_chunks:
            if v.shape[0] != X.shape[0]:
                raise DataError(
                    f"X has {X.shape[0]} rows but {name} has {v.shape[0]}; they must match."
                )
            v = v.rechunk({0: row_chunks})
        parts = list(v.to_delayed())
    else:
        arr = np.asarray(v)
        if arr.ndim != 1 or arr.shape[0] != X.shape[0]:
            raise DataError(
                f"X has {X.shape[0]} rows but {name} has shape {arr.shape}; give one value per row."
            )
        parts = list(da.from_array(arr, chunks=(X.rechunk({1: -1}).chunks[0],)).to_delayed())
    if len(parts) != n_parts:
        raise DataError(
            f"X has {n_parts} row blocks but {name} has {len(parts)}; they must be chunked "
            "alike (rechunk one to the other's chunks)."
        )
    return parts


def _frame_partitions(X, y, sample_weight) -> tuple[Any, Any]:
    """Features, labels and weights of a dask DataFrame joined into one frame per partition.

    ``y`` and ``sample_weight`` may be column names of X or dask Series. Joining them with
    ``assign`` lets Dask align the partitions (it may fuse a one-column read into fewer
    partitions than the features have), exactly as pandas' ``assign`` aligns rows.
    """
    extra = {}
    for key, v, name in ((_Y, y, "y"), (_W, sample_weight, "sample_weight")):
        if v is None:
            continue
        if isinstance(v, str):
            if v not in X.columns:
                raise DataError(
                    f"{name}={v!r} is not a column of X; columns are {list(X.columns)!r}."
                )
            extra[key] = X[v]
            X = X.drop(columns=[v])
        elif isinstance(v, dd.Series):
            extra[key] = v
        else:
            raise DataError(
                f"With a dask DataFrame X, {name} must be a column name of X or a dask Series "
                f"(e.g. a column of the same DataFrame); got {type(v).__name__}."
            )
    try:
        frame = X.assign(**extra)
    except ValueError as exc:
        raise DataError(
            f"Cannot align the partitions of y / sample_weight with X: {exc} "
            "Take them from the same DataFrame as X."
        ) from exc
    return X, frame


def _unbox(part):
    """A partition's result: map_partitions boxes it in a one-element Series."""
    return part.iloc[0] if isinstance(part, pd.Series) else part


def _node(combine, args: tuple, *parts):
    """One node of :func:`tree_reduce`: ``combine(*args, *children)``, children unboxed."""
    return combine(*args, *[_unbox(p) for p in parts])


def tree_reduce(tasks: list, combine, split_every: int, args: tuple = ()):
    """Delayed reduction of the delayed partial results ``tasks`` by ``combine(*args,
    *children)``, ``split_every`` children per node: a tree of depth log_k(n).

    ``args`` (delayed objects such as a shipped model included) lead every call. With one
    task the task itself comes back, unreduced (a partition's boxed result: :func:`_unbox`
    it); with none, ``combine(*args)``.
    """
    node = dask.delayed(_node, pure=True)
    while len(tasks) > 1:
        tasks = [
            node(combine, args, *tasks[i : i + split_every])
            for i in range(0, len(tasks), split_every)
        ]
    return tasks[0] if tasks else node(combine, args)


class Block(NamedTuple):
    """One partition as a map step of :func:`map_reduce` sees it: its features, labels,
    weights, folds, number and first row. A DataFrame partition carries its labels, weights
    and folds as columns of ``X`` (``y``, ``w``, ``f`` None)."""

    X: Any
    y: Any = None
    w: Any = None
    f: Any = None
    number: int = 0
    offset: int | None = None


def _frame_step(part, step, offsets, *args, partition_info=None) -> pd.Series:
    """``step(*args, block)`` of one DataFrame partition, boxed in a one-element Series:
    through ``map_partitions`` Dask fuses it with the reading of the partition into one task,
    so no partition waits in memory between reading and the step."""
    number = (partition_info or {}).get("number", 0)
    block = Block(part, number=number, offset=None if offsets is None else offsets[number])
    return pd.Series([step(*args, block)], dtype=object)


def _block_step(step, args: tuple, X, y, w, f, number: int, offset):
    return step(*args, Block(X, y, w, f, number, offset))


def map_reduce(step, args: tuple, parts, combine, split_every: int, **options):
    """One map over the partitions and one tree reduce, computed: ``step(*args, block)``
    of every partition (a :class:`Block`), combined by :func:`tree_reduce` with
    ``combine``. Returns the combined result (a single partition's result as it is).

    ``parts`` is a dask DataFrame (the features plus the label, weight and fold columns) or
    a list of delayed array blocks ``(X, y, weight, fold, first row)``. ``options``:
    ``reduce_args`` (leading every ``combine`` call) and ``offsets`` (the first row of each
    DataFrame partition, where known).
    """
    if isinstance(parts, dd.DataFrame):
        boxed = parts.map_partitions(
            _frame_step,
            step,
            options.get("offsets"),
            *args,
            meta=pd.Series(dtype=object),
            enforce_metadata=False,
        )
        tasks = list(boxed.to_delayed())
    else:
        run = dask.delayed(_block_step, pure=True)
        tasks = [
            run(step, args, X, y, w, f, i, offset) for i, (X, y, w, f, offset) in enumerate(parts)
        ]
    tree = tree_reduce(tasks, combine, split_every, options.get("reduce_args", ()))
    (result,) = dask.compute(tree)
    return _unbox(result)
