"""``nbayes train --text-column``: a text model learned in one pass over DATA.

A CountVectorizer's vocabulary is known only at the end of the data, yet it needs no pass of
its own. Each chunk's words join one compiled table of words in order of first appearance
(:class:`nbayes._analyzer.VocabularyCounts`, which also adds up each word's document and term
frequencies) and the chunk's counts are accumulated over the words seen so far; the
statistics of earlier chunks are widened to new words as TextNB widens them for
:func:`nbayes.merge` (those texts held none of them). At the end, min_df / max_df /
max_features choose the words from their frequencies over all texts, as
``CountVectorizer.fit`` does, and the statistics of the kept words are put in the
vocabulary's alphabetical order: the model equals the one a vocabulary pass followed by
``partial_fit`` over the chunks makes, and ``TextNB.fit`` on all rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from .. import _analyzer
from .._validation import rows_from
from ..distributions import Labels
from ..estimators.text import TextNB, _feature_axes, read_texts
from ._labels import is_string_kind
from ._models import class_labels


def applies(est) -> bool:
    """Whether ``est`` learns a vocabulary that the compiled analyzer counts: a TextNB over
    a CountVectorizer without a fixed vocabulary."""
    if not isinstance(est, TextNB):
        return False
    vec = est._new_vectorizer()
    return (
        type(vec).__name__ == "CountVectorizer"
        and vec.vocabulary is None
        and _analyzer.unsupported(vec) is None
    )


def train(table, the_plan, target: str, dtypes: dict) -> tuple[int, bool]:
    """Fit the plan's TextNB (see :func:`applies`) over the chunks of DATA in one pass;
    return the row count and whether the file typed the labels as strings. Classes keep
    their order of appearance (``sort_classes`` sorts them)."""
    est, text = the_plan.estimator, the_plan.text_column
    vec, clf = est._new_vectorizer(), est._new_classifier()
    words = _analyzer.VocabularyCounts(vec)
    est.classifier_ = clf  # merge_statistics widens statistics to the classifier's width
    classes: dict = {}  # label -> code, append-only
    stats, width, rows, strings = None, 0, 0, False
    # The texts as the parser makes them (str objects), not through pandas' string dtype.
    dtypes = {**dtypes, text: object}
    for offset, chunk in _read_ahead(table.chunks([text, target], dtypes, desc="training")):
        strings = strings or (
            table.format in ("parquet", "jsonl") and is_string_kind(chunk[target])
        )
        y = class_labels(chunk[target], offset, table.path, target)
        known = len(classes)
        for label in pd.unique(y):  # bounded by the number of classes
            classes.setdefault(label, len(classes))
        with rows_from(offset):
            counts = words.add(read_texts(chunk[text], vec))
        if counts.shape[1] > width:  # room for twice the words: few widenings
            width = max(2 * width, counts.shape[1])
            clf.setup(width)
        counts.resize((counts.shape[0], width))
        codes = pd.Index(list(classes)).get_indexer(y)
        part = clf.accumulate(counts, Labels(codes, np.ones(codes.size), len(classes)))
        if stats is None:
            stats = part
        else:
            if len(classes) > known:
                stats = clf.align_statistics(stats, np.arange(known), len(classes))
            stats = est.merge_statistics(stats, part)
        rows += len(chunk)
    est._set_vocabulary(  # raises DataError when no word is left
        vec,
        pd.Series(words.doc_freq, index=words.words(), dtype=np.float64),
        pd.Series(words.term_freq, index=words.words(), dtype=np.float64),
        words.n_docs,
    )
    kept = pd.Index(words.words()).get_indexer(list(vec.vocabulary_))
    group = {
        key: value if axis is None else np.take(value, kept, axis=axis)
        for key, (value, axis) in _feature_axes(clf.families_[0], stats["groups"][0]).items()
    }
    clf.setup(kept.size)
    clf.install(np.asarray(list(classes), dtype=object), {**stats, "groups": [group]})
    est.classes_ = clf.classes_
    return rows, strings


def _read_ahead(chunks: Iterator) -> Iterator:
    """The items of ``chunks``, each next one read on another thread while the caller works
    on the last: the parser's own loop releases the GIL, and a core that would wait for the
    tokenising threads parses instead."""
    with ThreadPoolExecutor(1, thread_name_prefix="nbayes-read") as pool:
        ahead = pool.submit(next, chunks, None)
        while (item := ahead.result()) is not None:
            ahead = pool.submit(next, chunks, None)
            yield item
