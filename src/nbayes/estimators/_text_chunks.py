"""``TextNB.fit_chunks``: a text model from chunks of texts in one pass, its vocabulary
learned on the way.

A CountVectorizer's vocabulary is known only at the end of the data, yet it needs no pass of
its own. Each chunk's words join a table of the words in order of first appearance, which also
adds up each word's document and term frequencies (:class:`nbayes._analyzer.VocabularyCounts`,
compiled; :class:`_Words` with scikit-learn's vectoriser where the compiled analyzer does not
cover the settings), and the chunk's counts are accumulated over the words seen so far. The
statistics of earlier chunks are widened to new words as TextNB widens them for
:func:`nbayes.merge` (those texts held none of them); the width doubles when words outgrow
it, so that they are widened a few times only. At the end, min_df / max_df / max_features
choose the words from their frequencies over all texts as ``CountVectorizer.fit`` does, the
kept words' statistics are put in the vocabulary's alphabetical order and the classes in
sorted order: the model equals ``fit`` on all rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import clone

from .. import _analyzer
from .._labels import ClassCodes
from .._params import check_params
from .._validation import row_offset, rows_from
from ..distributions import Labels
from ..exceptions import DataError

if TYPE_CHECKING:
    from .text import TextNB


#: What fit_chunks sets on the model (and puts back as it was when it fails).
_FITTED = ("vectorizer_", "classifier_", "classes_")


def fit_chunks(model: TextNB, vec, chunks: Iterable, **driver) -> TextNB:
    """:meth:`TextNB.fit_chunks` with ``vec``, a new vectoriser of the model's, over
    ``chunks`` of (texts as ``read_texts`` gives them, labels); errors name rows of all the
    chunks together, and leave the model as it was. ``driver``: ``typed`` and ``finalize``
    as :func:`nbayes._training.train` takes them."""
    before = {k: model.__dict__[k] for k in _FITTED if k in model.__dict__}
    try:
        return _fit(model, vec, chunks, **driver)
    except BaseException:
        for name in _FITTED:
            model.__dict__.pop(name, None)
        model.__dict__.update(before)
        raise


def train(model: TextNB, chunks: Iterable, read_texts, **driver) -> TextNB:
    """:meth:`TextNB.fit_chunks` over ``chunks`` of (texts, labels), with the options of the
    training driver (:func:`nbayes._training.train`: ``typed``, ``finalize``):
    the command line types its labels once and finalizes once. ``read_texts`` is
    :func:`nbayes.estimators.text.read_texts` (passed in: that module imports this one)."""
    check_params(model)
    vec = model._new_vectorizer()
    return fit_chunks(model, vec, ((read_texts(X, vec), y) for X, y in chunks), **driver)


def _fit(
    model: TextNB,
    vec,
    chunks: Iterable,
    typed=None,
    finalize: bool = True,
) -> TextNB:
    clf = model._new_classifier()
    learned = not model._is_hashing(vec) and vec.vocabulary is None
    if learned:
        compiled = _analyzer.unsupported(vec) is None
        words = _analyzer.VocabularyCounts(vec) if compiled else _Words(vec)
    elif not model._is_hashing(vec):
        vec.fit([""])  # a fixed vocabulary: validates it and sets vocabulary_
    model.vectorizer_, model.classifier_ = vec, clf  # merge_statistics widens to clf's width
    classes = ClassCodes()  # in order of appearance
    stats, width, rows, objects = None, 0, 0, False
    pairs = iter(chunks)
    while True:
        with rows_from(rows):  # the texts are read as the next pair is made
            pair = next(pairs, None)
            if pair is None:
                break
            texts, y = pair
            y = _labels(y, len(texts))
            objects = objects or y.dtype == object
            if learned:
                counts = words.add(texts)
            else:
                counts = _analyzer.vectorize(vec, texts, dtype=np.float64)
        known = len(classes)
        codes = classes.add(y)
        if not width or counts.shape[1] > width:  # room for one word at least
            width = max(2 * width, counts.shape[1], 1) if learned else counts.shape[1]
            clf.setup(width)
        counts.resize((counts.shape[0], width))
        part = clf.accumulate(counts, Labels(codes, np.ones(codes.size), len(classes)))
        if stats is None:
            stats = part
        else:
            if len(classes) > known:
                stats = clf.align_statistics(stats, np.arange(known), len(classes))
            stats = model.merge_statistics(stats, part)
        rows += len(texts)
    if stats is None:
        raise DataError("fit_chunks got no chunks of texts; pass at least one (X, y) pair.")
    if learned:
        stats = _kept_words(model, vec, words, stats)
    if typed is None:  # labels as the chunks typed them
        typed = (lambda labels: labels) if objects else (lambda labels: np.asarray(labels.tolist()))
    labels, positions = classes.order(typed)  # the sorted place of each class
    clf.setup(len(vec.vocabulary_) if learned else width)
    clf.install(labels, clf.align_statistics(stats, positions, labels.size), finalize=finalize)
    model.classes_ = clf.classes_
    return model


def _labels(y, n_texts: int) -> np.ndarray:
    """The labels of a chunk as ``fit`` types them, checked: one per text, none missing (a
    list is looked at as objects, where numpy would turn a NaN among strings into "nan")."""
    given = np.asarray(y, dtype=object) if isinstance(y, (list, tuple)) else np.asarray(y)
    if given.ndim != 1 or given.shape[0] != n_texts:
        raise DataError(
            f"A chunk has {n_texts} texts but labels of shape {given.shape}; give one label "
            "per text."
        )
    missing = pd.isna(given)
    if missing.any():
        row = row_offset() + int(np.flatnonzero(missing)[0])
        raise DataError(
            f"The label of row {row} is missing; every row needs one. Drop or fill unlabelled "
            "rows, or learn from them with SemiSupervisedNB."
        )
    return np.asarray(y) if isinstance(y, (list, tuple)) else given


def _kept_words(model: TextNB, vec, words, stats: dict) -> dict:
    """Fix ``vec``'s vocabulary from the words' frequencies over all texts (raising
    DataError when none is left) and return the statistics of its words, in its order."""
    names = words.words()
    model._set_vocabulary(
        vec,
        pd.Series(words.doc_freq, index=names, dtype=np.float64),
        pd.Series(words.term_freq, index=names, dtype=np.float64),
        words.n_docs,
    )
    kept = pd.Index(names).get_indexer(list(vec.vocabulary_))
    family = model.classifier_.families_[0]
    group = {
        key: value if axis is None else np.take(value, kept, axis=axis)
        for key, (value, axis) in _feature_axes(family, stats["groups"][0]).items()
    }
    return {**stats, "groups": [group]}


class _Words:
    """The interface of :class:`nbayes._analyzer.VocabularyCounts` over scikit-learn's
    vectoriser, for settings the compiled analyzer does not cover: each chunk is counted by
    the vectoriser fitted on it alone, its words coded in order of first appearance."""

    def __init__(self, vec) -> None:
        self.one = clone(vec).set_params(min_df=1, max_df=1.0, max_features=None)
        self.codes: dict[str, int] = {}
        self.doc_freq = np.zeros(0, dtype=np.int64)
        self.term_freq = np.zeros(0, dtype=np.int64)
        self.n_docs = 0

    def add(self, texts) -> sp.csr_matrix:
        """Count the words of one chunk of texts; return their counts over the words so far."""
        self.n_docs += len(texts)
        try:
            counts = self.one.fit_transform(texts).tocsr()
        except ValueError:  # no word in this chunk: scikit-learn's "empty vocabulary"
            return sp.csr_matrix((len(texts), len(self.codes)))
        setdefault, codes = self.codes.setdefault, self.codes
        code = np.array([setdefault(w, len(codes)) for w in self.one.get_feature_names_out()])
        columns, n = code[counts.indices], len(codes)
        self.doc_freq = _grown(self.doc_freq, n) + np.bincount(columns, minlength=n)
        self.term_freq = _grown(self.term_freq, n) + np.bincount(
            columns, weights=counts.data, minlength=n
        ).astype(np.int64)
        return sp.csr_matrix(
            (counts.data.astype(np.float64), columns, counts.indptr), shape=(len(texts), n)
        )

    def words(self) -> list[str]:
        """The words counted, in the order of :attr:`doc_freq` and :attr:`term_freq`."""
        return list(self.codes)


def _grown(counts: np.ndarray, n: int) -> np.ndarray:
    return np.concatenate([counts, np.zeros(n - counts.size, dtype=counts.dtype)])


def _feature_axes(family, group: dict) -> dict:
    """key -> (array, axis of the words or None) of one family's statistics, the axis found
    by comparing the family's empty statistics over one and over two features."""
    one, two = family.zeros(1, 1), family.zeros(1, 2)
    out = {}
    for key, value in group.items():
        a, b = np.shape(one[key]), np.shape(two[key])
        axis = next((i for i, (p, q) in enumerate(zip(a, b)) if p != q), None)
        out[key] = (value, axis)
    return out
