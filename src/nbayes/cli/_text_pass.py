"""``nbayes train --text-column``: a text model learned in one pass over DATA.

The vocabulary needs no pass of its own: ``TextNB.fit_chunks`` grows it as the chunks
come and puts it in order at the end, so that the model equals ``fit`` on all rows. The next
chunk is parsed on another thread while the last one is tokenised.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from .._labels import is_string_kind, typed_classes
from ..estimators import _text_chunks as text_chunks
from ..estimators.text import read_texts
from ._models import class_labels


def train(table, plan, target: str, dtypes: dict, finalize: bool = True) -> int:
    """Fit the plan's TextNB over the chunks of DATA in one pass, its labels typed once
    (:func:`typed_classes`) and finalized once (not at all with ``finalize`` False, as
    :func:`nbayes._training.train`); return the row count."""
    text = plan.text_column
    seen = {"rows": 0, "strings": False}  # what the chunks showed, as they are read
    # The texts as the parser makes them (str objects), not through pandas' string dtype.
    dtypes = {**dtypes, text: object}

    def chunks():
        for offset, chunk in _read_ahead(table.chunks([text, target], dtypes, desc="training")):
            seen["strings"] = seen["strings"] or (
                table.format in ("parquet", "jsonl") and is_string_kind(chunk[target])
            )
            seen["rows"] += len(chunk)
            yield chunk[text], class_labels(chunk[target], offset, table.path, target)

    text_chunks.train(
        plan.estimator,
        chunks(),
        read_texts,
        typed=lambda labels: typed_classes(labels.tolist(), bool(seen["strings"])),
        finalize=finalize,
    )
    return int(seen["rows"])


def _read_ahead(chunks: Iterator) -> Iterator:
    """The items of ``chunks``, each next one read on another thread while the caller works
    on the last: the parser's own loop releases the GIL, and a core that would wait for the
    tokenising threads parses instead."""
    with ThreadPoolExecutor(1, thread_name_prefix="nbayes-read") as pool:
        ahead = pool.submit(next, chunks, None)
        while (item := ahead.result()) is not None:
            ahead = pool.submit(next, chunks, None)
            yield item
