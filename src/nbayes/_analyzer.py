"""nbayes' own word analyzer: scikit-learn's ``CountVectorizer`` and ``HashingVectorizer``
tokens and counts from compiled loops, on the engine's threads.

scikit-learn's default analyzer lowercases each text with ``str.lower()`` and finds its tokens
with the regular expression ``(?u)\\b\\w\\w+\\b``: maximal runs of two or more word characters,
a word character being one that ``str.isalnum()`` accepts, or ``_``. :mod:`nbayes._text` does
the same in C over the texts' own characters (ASCII texts are lowercased there; any other text
goes through ``str.lower()`` first, so that the special cases, such as the final sigma or
"İ", come out as Python makes them), and counts the tokens with a hash table instead of a
Python dict. The vectoriser objects stay scikit-learn's: a fitted CountVectorizer gets its
``vocabulary_`` from here, so that it still transforms, pickles and saves as before.

The analyzer covers the vectorisers' defaults and ``lowercase``, ``binary``, ``dtype``, word
n-grams (``ngram_range``), ``min_df``, ``max_df``, ``max_features``, a fixed ``vocabulary``
and, for hashing, ``n_features``, ``alternate_sign`` and ``norm``. Other settings (a custom
``token_pattern``, ``analyzer``, ``tokenizer``, ``preprocessor``, ``stop_words``,
``strip_accents``) make :func:`unsupported` say why, and the caller uses scikit-learn's
vectoriser.
"""

from __future__ import annotations

import math
import numbers
import weakref

import numpy as np
import scipy.sparse as sp

from ._threads import get_threads, map_chunks

#: scikit-learn's default token pattern, the one the compiled analyzer reproduces.
DEFAULT_PATTERN = r"(?u)\b\w\w+\b"

#: The text family's pattern (words that hold a letter), reproduced as mode 1.
LETTER_PATTERN = r"(?u)\b\w*[^\W\d_]\w*\b"

_MODES = {DEFAULT_PATTERN: 0, LETTER_PATTERN: 1}

# Longest word n-grams the analyzer builds (scikit-learn's beyond).
_MAX_N = 16

# Texts per piece of work below which splitting over threads costs more than it gains.
_MIN_PIECE = 512

# Lookup tables of fitted CountVectorizers' vocabularies, built at their first transform.
_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _loops():
    """The compiled module, or None where it is not built or the loops are switched off."""
    from ._accel import kernels

    if kernels() is None:  # the same switch (NBAYES_COMPILED, numpy_only) as the kernels
        return None
    try:
        from . import _text
    except ImportError:  # built without a C compiler
        return None
    return _text


def unsupported(vec) -> str | None:
    """Why the compiled analyzer cannot stand in for ``vec`` (None where it can): the first
    setting it does not cover, as a short phrase for ``summary()``."""
    if _loops() is None:
        return "nbayes' compiled analyzer is not built or is switched off"
    kind = type(vec).__name__
    if kind not in ("CountVectorizer", "HashingVectorizer"):
        return f"a {kind}"
    defaults = {
        "input": "content",
        "analyzer": "word",
        "tokenizer": None,
        "preprocessor": None,
        "stop_words": None,
        "strip_accents": None,
    }
    for key, default in defaults.items():
        if getattr(vec, key) != default:
            return f"{key}={getattr(vec, key)!r}"
    if vec.token_pattern not in _MODES:
        return f"token_pattern={vec.token_pattern!r}"
    try:
        low, high = vec.ngram_range
        words = all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in (low, high)
        )
    except (TypeError, ValueError):
        words = False
    if not words or not 1 <= low <= high <= _MAX_N:
        return f"ngram_range={vec.ngram_range!r}"
    if not isinstance(vec.lowercase, (bool, np.bool_)) or not isinstance(
        vec.binary, (bool, np.bool_)
    ):
        return "lowercase or binary not a bool"
    try:
        if np.dtype(vec.dtype).kind not in "iuf":
            return f"dtype={vec.dtype!r}"
    except TypeError:
        return f"dtype={vec.dtype!r}"
    if kind == "HashingVectorizer":
        n = vec.n_features
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or not 1 <= n < 2**31:
            return f"n_features={n!r}"
        if vec.norm not in (None, "l1", "l2") or not isinstance(vec.alternate_sign, bool):
            return f"norm={vec.norm!r}, alternate_sign={vec.alternate_sign!r}"
        return None
    for key in ("min_df", "max_df"):
        value = getattr(vec, key)
        whole = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        if not (whole and value >= 0) and not (isinstance(value, float) and 0.0 <= value <= 1.0):
            return f"{key}={value!r}"
    limit = vec.max_features
    if limit is not None and (
        not isinstance(limit, numbers.Integral) or isinstance(limit, bool) or limit < 1
    ):
        return f"max_features={limit!r}"
    return None


def _pieces(texts: list, per_thread: int) -> list[list]:
    """``texts`` cut into about ``per_thread`` pieces for each engine thread."""
    n = len(texts)
    count = max(1, min(get_threads() * per_thread, n // _MIN_PIECE))
    size = math.ceil(n / count) if n else 1
    return [texts[i : i + size] for i in range(0, n, size)] or [texts]


def _as_list(texts) -> list:
    return texts.tolist() if hasattr(texts, "tolist") else list(texts)


def _csr(parts: list, n_columns: int, dtype) -> sp.csr_matrix:
    """One CSR matrix from the (indptr, indices, data) of consecutive pieces of rows."""
    offsets = np.cumsum([0] + [p[0][-1] for p in parts[:-1]])
    indptr = np.concatenate([parts[0][0][:1]] + [p[0][1:] + o for p, o in zip(parts, offsets)])
    indices = np.concatenate([p[1] for p in parts])
    data = np.concatenate([p[2] for p in parts])
    return sp.csr_matrix(
        (data.astype(dtype, copy=False), indices, indptr), shape=(indptr.size - 1, n_columns)
    )


class VocabularyCounts:
    """Document and term frequencies of every word over chunks of texts, as a
    CountVectorizer without limits would count them; memory bounded by the vocabulary (the
    words' characters are copied into a compiled table, the texts are not kept)."""

    def __init__(self, vec):
        self.loops, self.mode = _loops(), _MODES[vec.token_pattern]
        self.ngrams = tuple(int(n) for n in vec.ngram_range)
        self.lowercase, self.binary = bool(vec.lowercase), bool(vec.binary)
        self.table = self.loops.Terms()
        self.doc_freq = np.zeros(0, dtype=np.int64)
        self.term_freq = np.zeros(0, dtype=np.int64)
        self.n_docs = 0

    def add(self, texts) -> sp.csr_matrix:
        """Count the words of one chunk of texts; return their counts, one row per text and
        one column per word counted so far (the order of :meth:`words`), as the vectoriser
        counts them (``binary``: ones)."""
        loops, mode, lowercase, (low, high) = self.loops, self.mode, self.lowercase, self.ngrams

        def learn(piece):
            table = loops.Terms()
            return table, table.count(loops.Texts(piece, lowercase), mode, True, low, high)

        texts = _as_list(texts)
        self.n_docs += len(texts)
        parts = []
        for local, (indptr, indices, data) in map_chunks(learn, _pieces(texts, 1)):
            columns = self.table.absorb(local)[indices]
            n = len(self.table)
            weights = None if self.binary else data
            self.doc_freq = _grown(self.doc_freq, n) + np.bincount(columns, minlength=n)
            self.term_freq = _grown(self.term_freq, n) + np.bincount(
                columns, weights=weights, minlength=n
            ).astype(np.int64)
            parts.append((indptr, columns, data))
        counts = _csr(parts, len(self.table), np.float64)
        if self.binary:
            counts.data.fill(1)
        return counts

    def words(self) -> list[str]:
        """The words counted, in the order of :attr:`doc_freq` and :attr:`term_freq`."""
        return self.table.words_of()


def _grown(counts: np.ndarray, n: int) -> np.ndarray:
    return np.concatenate([counts, np.zeros(n - counts.size, dtype=counts.dtype)])


def _sorted(indptr, indices, data) -> tuple:
    """CSR parts with each row's terms in column order, as scikit-learn gives them (sums
    over a row then add in the same order: equal probabilities, to the last bit)."""
    part = sp.csr_matrix(
        (data, indices, indptr), shape=(indptr.size - 1, int(indices.max(initial=0)) + 1)
    )
    part.sort_indices()
    return part.indptr, part.indices, part.data


def fit_transform(vec, texts, dtype=None) -> sp.csr_matrix:
    """``vec.fit_transform(texts)`` for a CountVectorizer that :func:`unsupported` accepts:
    sets ``vec.vocabulary_`` and ``vec.fixed_vocabulary_`` and returns the counts, equal to
    scikit-learn's (same vocabulary, same matrix, same errors for no words left)."""
    if vec.vocabulary is not None:  # a fixed vocabulary: scikit-learn checks and sets it
        vec.fit([])
        return transform(vec, texts, dtype)
    loops = _loops()
    mode, (low, high) = _MODES[vec.token_pattern], vec.ngram_range
    lowercase = bool(vec.lowercase)

    def learn(piece):
        table = loops.Terms()
        return table, table.count(loops.Texts(piece, lowercase), mode, True, low, high)

    learned = list(map_chunks(learn, _pieces(_as_list(texts), 1)))
    table, first = learned[0]
    parts = [first]
    for other, (indptr, indices, data) in learned[1:]:
        parts.append((indptr, table.absorb(other)[indices], data))
    words = table.words_of()
    if not words:
        raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
    order = np.array(sorted(range(len(words)), key=words.__getitem__), dtype=np.int64)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    counts = _csr(
        list(map_chunks(lambda p: _sorted(p[0], rank[p[1]], p[2]), parts)), order.size, None
    )
    if vec.binary:
        counts.data.fill(1)
    kept = _limit(vec, counts)
    vec.vocabulary_ = {words[j]: i for i, j in enumerate(order[kept].tolist())}
    vec.fixed_vocabulary_ = False
    if kept.size < order.size:
        code = np.full(order.size, -1, dtype=np.int64)
        code[kept] = np.arange(kept.size)
        new = code[counts.indices]
        keep = new >= 0
        indptr = np.concatenate([[0], np.cumsum(keep)])[counts.indptr]
        counts = sp.csr_matrix(
            (counts.data[keep], new[keep], indptr), shape=(counts.shape[0], kept.size)
        )
    return counts.astype(dtype or vec.dtype, copy=False)


def _limit(vec, counts: sp.csr_matrix) -> np.ndarray:
    """The columns (of sorted terms) that min_df / max_df / max_features keep, chosen as
    CountVectorizer.fit chooses them (the same argsort over the same int64 totals, so that
    ties at a max_features cut fall the same way)."""
    n_doc, n_terms = counts.shape
    max_df, min_df = vec.max_df, vec.min_df
    high = max_df if isinstance(max_df, (int, np.integer)) else max_df * n_doc
    low = min_df if isinstance(min_df, (int, np.integer)) else min_df * n_doc
    if high < low:
        raise ValueError("max_df corresponds to < documents than min_df")
    doc_freq = np.bincount(counts.indices, minlength=n_terms)
    mask = np.ones(n_terms, dtype=bool)
    if high is not None:
        mask &= doc_freq <= high
    if low is not None:
        mask &= doc_freq >= low
    limit = vec.max_features
    if limit is not None and mask.sum() > limit:
        totals = np.bincount(counts.indices, weights=counts.data, minlength=n_terms)
        totals = totals.astype(np.int64)
        chosen = (-totals[mask]).argsort()[:limit]
        new_mask = np.zeros(n_terms, dtype=bool)
        new_mask[np.where(mask)[0][chosen]] = True
        mask = new_mask
    kept = np.flatnonzero(mask)
    if kept.size == 0:
        raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    return kept


def _table(vec):
    """The compiled lookup table of ``vec.vocabulary_`` (kept while the vectoriser lives)."""
    vocabulary = vec.vocabulary_
    cached = _TABLES.get(vec)
    if cached is not None and cached[0] is vocabulary and cached[1] == len(vocabulary):
        return cached[2]
    table = _loops().Terms.of_words(list(vocabulary), list(vocabulary.values()))
    _TABLES[vec] = (vocabulary, len(vocabulary), table)
    return table


def transform(vec, texts, dtype=None) -> sp.csr_matrix:
    """``vec.transform(texts)`` for a fitted CountVectorizer that :func:`unsupported`
    accepts: the counts of its vocabulary's words, other words left out."""
    loops = _loops()
    mode, (low, high) = _MODES[vec.token_pattern], vec.ngram_range
    lowercase = bool(vec.lowercase)
    table = _table(vec)

    def count(piece):
        return _sorted(*table.count(loops.Texts(piece, lowercase), mode, False, low, high))

    parts = list(map_chunks(count, _pieces(_as_list(texts), 4)))
    counts = _csr(parts, len(vec.vocabulary_), None)
    if vec.binary:
        counts.data.fill(1)
    return counts.astype(dtype or vec.dtype, copy=False)


def hashing_transform(
    texts,
    n_features: int,
    *,
    lowercase: bool = True,
    token_pattern: str = DEFAULT_PATTERN,
    ngram_range: tuple[int, int] = (1, 1),
    alternate_sign: bool = True,
    binary: bool = False,
    norm: str | None = "l2",
    dtype=np.float64,
) -> sp.csr_matrix:
    """``HashingVectorizer(...).transform(texts)`` with these settings: each token's column
    is the signed 32-bit MurmurHash3 (seed 0) of its UTF-8 bytes, ``abs(h) % n_features``,
    its sign that of ``h`` under ``alternate_sign``; duplicates summed, then ``binary`` and
    ``norm`` applied as scikit-learn applies them."""
    loops = _loops()
    mode, (low, high) = _MODES[token_pattern], ngram_range

    def count(piece):
        texts = loops.Texts(piece, bool(lowercase))
        return loops.hash_counts(texts, mode, n_features, bool(alternate_sign), low, high)

    parts = list(map_chunks(count, _pieces(_as_list(texts), 4)))
    counts = _csr(parts, n_features, dtype)
    counts.sum_duplicates()
    if binary:
        counts.data.fill(1)
    if norm is not None:
        from sklearn.preprocessing import normalize

        counts = normalize(counts, norm=norm, copy=False)
    return counts


def vectorize(vec, texts, *, fit: bool = False, dtype=None) -> sp.csr_matrix:
    """``vec.fit_transform(texts)`` (fit) or ``vec.transform(texts)``, from the compiled
    analyzer where it covers ``vec``'s settings, otherwise from scikit-learn. ``dtype``: the
    compiled analyzer's values as this type instead of the vectoriser's (float64 for a model
    that would convert them to it anyway)."""
    if unsupported(vec) is not None:
        return vec.fit_transform(texts) if fit else vec.transform(texts)
    if type(vec).__name__ == "HashingVectorizer":
        return hashing_transform(
            texts,
            int(vec.n_features),
            lowercase=vec.lowercase,
            token_pattern=vec.token_pattern,
            ngram_range=tuple(vec.ngram_range),
            alternate_sign=vec.alternate_sign,
            binary=vec.binary,
            norm=vec.norm,
            dtype=dtype or vec.dtype,
        )
    if fit:
        return fit_transform(vec, texts, dtype)
    if not hasattr(vec, "vocabulary_"):
        if vec.vocabulary is None:  # not fitted: scikit-learn's error
            return vec.transform(texts)
        vec.fit([])  # a fixed vocabulary: scikit-learn checks it and sets vocabulary_
    return transform(vec, texts, dtype)
