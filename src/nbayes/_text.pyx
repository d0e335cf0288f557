# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Compiled word tokens and counts (see _text_loops.h); :mod:`nbayes._analyzer` drives them.

Texts are prepared once with the GIL (:class:`Texts`: str.lower() where it changes more than
ASCII letters), then tokenised and counted without it, so that the engine's threads count
chunks of texts side by side.
"""

from cpython.object cimport PyObject
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

import numpy as np


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object o)
    int PyUnicode_KIND(object o)
    void *PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    int PyUnicode_READY(object o) except -1
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)


cdef extern from "_text_loops.h" nogil:
    ctypedef struct nbt_text:
        const void *data
        Py_ssize_t len
        int kind
        int ascii_lower
    ctypedef struct nbt_key:
        uint64_t hash
        const void *data
        Py_ssize_t len
        int kind
        unsigned char head[16]
    ctypedef struct nbt_table:
        int64_t *slots
        Py_ssize_t mask
        nbt_key *keys
        Py_ssize_t n, cap
    ctypedef struct nbt_out:
        int64_t *indptr
        int64_t *indices
        double *data
        Py_ssize_t nnz, cap
    void nbt_init()
    int nbt_table_init(nbt_table *tb, Py_ssize_t expected)
    void nbt_table_free(nbt_table *tb)
    Py_ssize_t nbt_insert(nbt_table *tb, uint64_t h, const nbt_text *t, Py_ssize_t start,
                          Py_ssize_t len)
    Py_ssize_t nbt_insert_key(nbt_table *tb, const nbt_key *o)
    uint64_t nbt_hash(const nbt_text *t, Py_ssize_t start, Py_ssize_t len)
    int nbt_out_init(nbt_out *o, Py_ssize_t n_texts, Py_ssize_t cap)
    void nbt_out_free(nbt_out *o)
    int nbt_count(const nbt_text *texts, Py_ssize_t n_texts, int mode, int min_n, int max_n,
                  nbt_table *tb, int learn, nbt_out *out)
    int nbt_hash_count(const nbt_text *texts, Py_ssize_t n_texts, int mode, int min_n,
                       int max_n, int64_t n_features, int alternate_sign, nbt_out *out)
    unsigned int nbt_murmur3(const unsigned char *p, Py_ssize_t len, unsigned int seed)

from libc.stdlib cimport malloc, free

nbt_init()

#: Token patterns: 0 is scikit-learn's default (?u)\b\w\w+\b, 1 the text family's words.
PATTERNS = (r"(?u)\b\w\w+\b", r"(?u)\b\w*[^\W\d_]\w*\b")


cdef class Texts:
    """A sequence of str prepared for the loops: each text lowercased as str.lower() does
    (in the loops for ASCII texts), and kept alive while keys point into it."""
    cdef nbt_text *texts
    cdef Py_ssize_t n
    cdef list keep
    cdef object source

    def __cinit__(self, texts, bint lowercase):
        cdef Py_ssize_t i, n = len(texts)
        self.texts = <nbt_text *>malloc((n if n else 1) * sizeof(nbt_text))
        if self.texts == NULL:
            raise MemoryError()
        self.n = n
        self.keep = []
        self.source = texts
        for i in range(n):
            text = texts[i]
            if not isinstance(text, str):
                raise TypeError(f"text {i} is a {type(text).__name__}, not a str")
            PyUnicode_READY(text)
            if lowercase and not PyUnicode_IS_ASCII(text):
                text = text.lower()
                self.keep.append(text)
            self.texts[i].data = PyUnicode_DATA(text)
            self.texts[i].len = PyUnicode_GET_LENGTH(text)
            self.texts[i].kind = PyUnicode_KIND(text)
            self.texts[i].ascii_lower = 1 if (lowercase and PyUnicode_IS_ASCII(text)) else 0

    def __dealloc__(self):
        free(self.texts)

    def __len__(self):
        return self.n


cdef object _csr_parts(nbt_out *out, Py_ssize_t n_texts):
    indptr = np.empty(n_texts + 1, dtype=np.int64)
    indices = np.empty(out.nnz, dtype=np.int64)
    data = np.empty(out.nnz, dtype=np.float64)
    cdef int64_t[::1] p = indptr
    cdef int64_t[::1] q = indices
    cdef double[::1] r = data
    memcpy(&p[0], out.indptr, (n_texts + 1) * sizeof(int64_t))
    if out.nnz:
        memcpy(&q[0], out.indices, out.nnz * sizeof(int64_t))
        memcpy(&r[0], out.data, out.nnz * sizeof(double))
    return indptr, indices, data


cdef class Terms:
    """A table of terms (their characters copied into it): learned from texts
    (:meth:`count` with learn), or given (:meth:`of_words`)."""
    cdef nbt_table table
    cdef object codes  # for of_words: the column of each key, or None

    def __cinit__(self):
        if nbt_table_init(&self.table, 0) < 0:
            raise MemoryError()
        self.codes = None

    def __dealloc__(self):
        nbt_table_free(&self.table)

    def __len__(self):
        return self.table.n

    @staticmethod
    def of_words(words, codes):
        """A lookup table of ``words`` (str), ``codes[i]`` the column of ``words[i]``.
        A repeated word keeps its first code."""
        cdef Terms self = Terms()
        cdef Py_ssize_t i, j, n = len(words)
        cdef nbt_text word_text
        kept = list(words)
        found = np.full(n, -1, dtype=np.int64)
        cdef int64_t[::1] where = found
        for i in range(n):
            word = kept[i]
            if not isinstance(word, str):
                raise TypeError(f"word {i} is a {type(word).__name__}, not a str")
            PyUnicode_READY(word)
            word_text.data = PyUnicode_DATA(word)
            word_text.len = PyUnicode_GET_LENGTH(word)
            word_text.kind = PyUnicode_KIND(word)
            word_text.ascii_lower = 0
            j = nbt_insert(&self.table, nbt_hash(&word_text, 0, word_text.len), &word_text, 0,
                           word_text.len)
            if j < 0:
                raise MemoryError()
            if where[j] < 0:
                where[j] = i
        given = np.asarray(codes, dtype=np.int64)
        self.codes = given[found[: self.table.n]].copy()
        return self

    def count(self, Texts texts, int mode, bint learn, int min_n=1, int max_n=1):
        """CSR parts (indptr, indices, data) of the term counts of ``texts`` (word n-grams
        for n from ``min_n`` to ``max_n``): columns are key codes in this table (learn: new
        terms join it) or, for :meth:`of_words`, the given codes (terms outside it left
        out)."""
        cdef nbt_out out
        cdef int status
        if nbt_out_init(&out, texts.n, 1024) < 0:
            nbt_out_free(&out)
            raise MemoryError()
        try:
            with nogil:
                status = nbt_count(texts.texts, texts.n, mode, min_n, max_n, &self.table,
                                   learn, &out)
            if status < 0:
                raise MemoryError()
            indptr, indices, data = _csr_parts(&out, texts.n)
        finally:
            nbt_out_free(&out)
        if self.codes is not None:
            indices = self.codes[indices]
        return indptr, indices, data

    def absorb(self, Terms other):
        """Codes in this table of ``other``'s terms (in ``other``'s code order); its new
        terms join this table."""
        cdef Py_ssize_t i, j = 0, n = other.table.n
        codes = np.empty(n, dtype=np.int64)
        cdef int64_t[::1] out = codes
        cdef nbt_key *k
        with nogil:
            for i in range(n):
                k = &other.table.keys[i]
                j = nbt_insert_key(&self.table, k)
                if j < 0:
                    break
                out[i] = j
        if n and j < 0:
            raise MemoryError()
        return codes

    def words_of(self):
        """The terms as str, in code order."""
        cdef Py_ssize_t i, n = self.table.n
        cdef nbt_key *k
        cdef object text
        words = [None] * n
        for i in range(n):
            k = &self.table.keys[i]
            words[i] = _word(k)
        return words


cdef object _word(nbt_key *k):
    return PyUnicode_FromKindAndData(k.kind, k.data, k.len)


def hash_counts(Texts texts, int mode, int64_t n_features, bint alternate_sign, int min_n=1,
                int max_n=1):
    """CSR parts of HashingVectorizer's features of ``texts`` (word n-grams for n from
    ``min_n`` to ``max_n``) before duplicates are summed."""
    cdef nbt_out out
    cdef int status
    if nbt_out_init(&out, texts.n, 1024) < 0:
        nbt_out_free(&out)
        raise MemoryError()
    try:
        with nogil:
            status = nbt_hash_count(texts.texts, texts.n, mode, min_n, max_n, n_features,
                                    alternate_sign, &out)
        if status < 0:
            raise MemoryError()
        return _csr_parts(&out, texts.n)
    finally:
        nbt_out_free(&out)


def murmurhash3_32(bytes key, unsigned int seed=0):
    """Signed MurmurHash3 (x86, 32 bits) of ``key``: scikit-learn's murmurhash3_32."""
    cdef int h = <int>nbt_murmur3(<const unsigned char *>key, len(key), seed)
    return h
