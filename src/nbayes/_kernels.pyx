# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Compiled loops for the steps numpy cannot do in one pass over the data.

Each loop does what a numpy path in the families does, in one pass instead of several, with
the GIL released so that the engine's row chunks run on several cores. They are an optional
speed-up: :mod:`nbayes._accel` falls back to the numpy code where this module is not built,
and the test suite checks that both give the same results.

The callers validate shapes, dtypes and contiguity; these loops trust them.
"""

from libc.stdint cimport int32_t, int64_t

import numpy as np

ctypedef fused real:
    float
    double


cdef extern from "_kernels_simd.h" nogil:
    Py_ssize_t nb_categorical_scores(
        const int64_t *codes, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t *offsets,
        const int64_t *n_categories, const double *table, const double *unseen_table,
        const double *nothing, Py_ssize_t n_pairs, const Py_ssize_t *pair_a,
        const Py_ssize_t *pair_b, const Py_ssize_t *pair_offsets, const double *pair_table,
        Py_ssize_t n_singles, const Py_ssize_t *singles, Py_ssize_t n_classes,
        const double *init, int64_t lowest, Py_ssize_t *n_below, double *out,
        const double **rows)
    Py_ssize_t nb_normalise_rows(double *jll, Py_ssize_t n, Py_ssize_t n_classes,
                                 int log_space)
    Py_ssize_t nb_soft_count_codes(
        const int64_t *codes, Py_ssize_t n, Py_ssize_t d, const double *weights,
        Py_ssize_t ws0, Py_ssize_t ws1, Py_ssize_t K, const Py_ssize_t *offsets,
        double *counts, int64_t lowest, int64_t limit, double *scratch)
    void nb_soft_moment_sums_f64(
        const double *X, Py_ssize_t n, Py_ssize_t d, const double *weights, Py_ssize_t ws0,
        Py_ssize_t ws1, Py_ssize_t K, const double *shift, double *sum_dev, double *sum_sq,
        double *dev)
    void nb_soft_moment_sums_f32(
        const float *X, Py_ssize_t n, Py_ssize_t d, const double *weights, Py_ssize_t ws0,
        Py_ssize_t ws1, Py_ssize_t K, const double *shift, double *sum_dev, double *sum_sq,
        double *dev)
    void nb_em_responsibilities(double *scores, Py_ssize_t n, Py_ssize_t S,
                                const Py_ssize_t *codes, Py_ssize_t M,
                                const double *row_weight, double *top, double *total)
    int nb_has_avx2()
    int nb_force_baseline
    Py_ssize_t nb_network_scores(
        const int64_t *codes, Py_ssize_t n, Py_ssize_t d, const int64_t *n_categories,
        Py_ssize_t width, const Py_ssize_t *cols, const int64_t *strides,
        const int64_t *offsets, const double *flat, Py_ssize_t n_classes, const double *init,
        double *out, unsigned char *incomplete, const double **rows)
    Py_ssize_t nb_ande_scores(
        const int64_t *codes, Py_ssize_t n, Py_ssize_t d, const int64_t *n_categories,
        const int64_t *child_offsets, int64_t row_length, Py_ssize_t n_sets,
        Py_ssize_t q_width, const Py_ssize_t *q_cols, const int64_t *q_strides,
        const int64_t *q_offsets, const unsigned char *qualify, const double *flat,
        Py_ssize_t n_classes, const double *init, double *out, unsigned char *found,
        double *scratch, int64_t *keys, const double **rows)


def simd_variant(force_baseline=None):
    """Which copy of the loops runs: "avx2" or "baseline". ``force_baseline`` (for tests)
    switches to the baseline copy (True) or back (False), for the whole process."""
    global nb_force_baseline
    if force_baseline is not None:
        nb_force_baseline = 1 if force_baseline else 0
    return "avx2" if nb_has_avx2() else "baseline"


cdef inline const Py_ssize_t *_first(const Py_ssize_t[::1] a) noexcept nogil:
    return &a[0] if a.shape[0] else NULL


def categorical_scores(const int64_t[:, ::1] codes, dict tables, double[:, ::1] out,
                       const double[::1] base, int64_t lowest):
    """out[i] = base + sum over j of the table row of code codes[i, j], for codes (n, d),
    out (n, n_classes) and base (n_classes,), with ``tables`` from
    :func:`nbayes.distributions.categorical.compiled_tables`. Returns the number of unseen
    cells and the number of codes below ``lowest`` (0, or -1 where missing cells are
    allowed), which callers reject.

    A negative code (missing) adds nothing; a code >= n_categories[j] adds unseen_t[j] (zeros
    to drop the factor, the prior mass for "smooth"). Adding -inf needs no special case: the
    tables hold no +inf, so no NaN can arise.
    """
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], n_classes = out.shape[1]
    cdef const Py_ssize_t[::1] offsets = tables["offsets"]
    cdef const int64_t[::1] n_categories = tables["n_categories"]
    cdef const double[:, ::1] table = tables["log_theta_t"]
    cdef const double[:, ::1] unseen_table = tables["unseen_t"]
    cdef const Py_ssize_t[::1] pair_a = tables["pair_a"]
    cdef const Py_ssize_t[::1] pair_b = tables["pair_b"]
    cdef const Py_ssize_t[::1] pair_offsets = tables["pair_offsets"]
    cdef const double[:, ::1] pair_table = tables["pair_table"]
    cdef const Py_ssize_t[::1] singles = tables["singles"]
    cdef Py_ssize_t n_unseen = 0, n_below = 0
    if n == 0:
        return 0, 0
    if d == 0:
        out[:, :] = base
        return 0, 0
    nothing_array = np.zeros(n_classes)
    cdef const double[::1] nothing = nothing_array
    rows_array = np.empty(d, dtype=np.uintp)
    cdef size_t[::1] rows = rows_array
    cdef const double *first_pair_row = &pair_table[0, 0] if pair_table.shape[0] else NULL
    with nogil:
        n_unseen = nb_categorical_scores(
            &codes[0, 0], n, d, &offsets[0], &n_categories[0], &table[0, 0],
            &unseen_table[0, 0], &nothing[0], pair_a.shape[0], _first(pair_a), _first(pair_b),
            _first(pair_offsets), first_pair_row, singles.shape[0], _first(singles),
            n_classes, &base[0], lowest, &n_below, &out[0, 0], <const double **> &rows[0])
    return n_unseen, n_below


def column_max_codes(const int64_t[:, ::1] codes, const double[::1] weights):
    """Largest code of each column over the rows of positive weight (-1 where none)."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], i, j
    top_array = np.full(d, -1, dtype=np.int64)
    cdef int64_t[::1] top = top_array
    with nogil:
        for i in range(n):
            if weights[i] > 0:
                for j in range(d):
                    if codes[i, j] > top[j]:
                        top[j] = codes[i, j]
    return top_array


def count_codes(const int64_t[:, ::1] codes, const Py_ssize_t[::1] classes,
                const double[::1] weights, const Py_ssize_t[::1] offsets,
                Py_ssize_t per_class, double[::1] counts, int64_t lowest, int64_t limit):
    """counts[classes[i] * per_class + offsets[j] + codes[i, j]] += weights[i] in row order,
    skipping negative (missing) codes and rows of zero weight. Returns the number of codes
    below ``lowest`` (0, or -1 where missing cells are allowed), which callers reject; or -1,
    at once, at the first counted code >= ``limit`` (it does not fit the layout)."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], i, j
    cdef Py_ssize_t n_below = 0
    cdef int64_t c
    cdef double w
    cdef double *cell
    with nogil:
        for i in range(n):
            w = weights[i]
            cell = &counts[classes[i] * per_class]
            for j in range(d):
                c = codes[i, j]
                if c < 0:
                    n_below += c < lowest
                elif w != 0.0:
                    if c >= limit:
                        n_below = -1
                        break
                    cell[offsets[j] + c] += w
            if n_below < 0:
                break
    return n_below


def class_moment_sums(const real[:, ::1] X, const Py_ssize_t[::1] classes,
                      const double[::1] weights, const double[::1] shift,
                      double[:, ::1] sum_dev, double[:, ::1] sum_sq):
    """Per-class sums of w (x - shift) and w (x - shift)^2 in one pass over X (n, d)."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, j
    cdef double w, dev
    cdef double *s
    cdef double *q
    cdef const real *x
    with nogil:
        for i in range(n):
            w = weights[i]
            s = &sum_dev[classes[i], 0]
            q = &sum_sq[classes[i], 0]
            x = &X[i, 0]
            for j in range(d):
                dev = x[j] - shift[j]
                s[j] += w * dev
                q[j] += w * dev * dev


def soft_count_codes(const int64_t[:, ::1] codes, const double[:, :] weights,
                     const Py_ssize_t[::1] offsets, double[::1] counts,
                     int64_t lowest, int64_t limit):
    """:func:`count_codes` under soft labels, class-minor: counts[(offsets[j] + codes[i, j])
    * K + k] += weights[i, k] for every class k (weights (n, K), in any memory layout), in
    row order, so that a cell's K classes sit together. Missing cells (negative codes) count
    nowhere. Returns the number of codes below ``lowest``, or -1 at the first counted code
    >= ``limit``."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], K = weights.shape[1]
    cdef Py_ssize_t n_below = 0
    if n == 0 or K == 0:
        return 0
    scratch_array = np.zeros(K)
    cdef double[::1] scratch = scratch_array
    with nogil:
        n_below = nb_soft_count_codes(
            &codes[0, 0] if d else NULL, n, d, &weights[0, 0],
            weights.strides[0] // sizeof(double), weights.strides[1] // sizeof(double), K,
            _first(offsets), &counts[0] if counts.shape[0] else NULL, lowest, limit,
            &scratch[0])
    return n_below


def soft_moment_sums(const real[:, ::1] X, const double[:, :] weights,
                     const double[::1] shift, double[:, ::1] sum_dev, double[:, ::1] sum_sq):
    """:func:`class_moment_sums` under soft labels: every class k adds weights[i, k]
    (x_i - shift) and weights[i, k] (x_i - shift)^2, in one pass over X (n, d); weights
    (n, K) in any memory layout."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], K = weights.shape[1]
    if n == 0 or d == 0 or K == 0:
        return
    dev_array = np.zeros(2 * d)
    cdef double[::1] dev = dev_array  # a row's deviations and their squares
    cdef Py_ssize_t ws0 = weights.strides[0] // sizeof(double)
    cdef Py_ssize_t ws1 = weights.strides[1] // sizeof(double)
    with nogil:
        if real is double:
            nb_soft_moment_sums_f64(&X[0, 0], n, d, &weights[0, 0], ws0, ws1, K, &shift[0],
                                    &sum_dev[0, 0], &sum_sq[0, 0], &dev[0])
        else:
            nb_soft_moment_sums_f32(&X[0, 0], n, d, &weights[0, 0], ws0, ws1, K, &shift[0],
                                    &sum_dev[0, 0], &sum_sq[0, 0], &dev[0])


def normalise_rows(double[:, ::1] jll, bint log_space):
    """Each row of joint log-likelihoods becomes its posterior (or log posterior), in place;
    returns how many rows every class ruled out (those become uniform).

    One pass per row while it sits in cache: maximum, exp of the shifted scores, their sum.
    """
    cdef Py_ssize_t impossible = 0
    if jll.shape[0] == 0:
        return 0
    with nogil:
        impossible = nb_normalise_rows(&jll[0, 0], jll.shape[0], jll.shape[1], log_space)
    return impossible


def em_responsibilities(double[:, ::1] scores, const Py_ssize_t[::1] codes, Py_ssize_t M,
                        const double[::1] row_weight, double[::1] top, double[::1] total):
    """EM's E-step in place: each row of joint log-likelihoods (n, S) becomes its posterior
    times ``row_weight[i]`` -- over all S sub-classes for an unlabeled row (``codes[i] <
    0``), over its own class's M sub-classes ``codes[i] * M ..`` for a labeled one (the
    others 0). ``top[i] + log(total[i])`` is the log-sum-exp of its scores over the same
    sub-classes: ``top`` their maximum (NaN if one is NaN), ``total`` the sum of their exp
    shifted by it. Rows of zero ``row_weight`` become 0, with top 0 and total 1."""
    if scores.shape[0] == 0:
        return
    with nogil:
        nb_em_responsibilities(&scores[0, 0], scores.shape[0], scores.shape[1], &codes[0], M,
                               &row_weight[0], &top[0], &total[0])


def count_tables(const int64_t[:, ::1] codes, const Py_ssize_t[::1] classes,
                 const double[::1] weights, const int64_t[::1] n_categories,
                 const int64_t[::1] offsets1, double[:, ::1] counts1,
                 const int64_t[::1] offsets2, double[:, ::1] counts2,
                 const Py_ssize_t[:, ::1] triples, const int64_t[:, ::1] strides3,
                 const int64_t[::1] offsets3, double[:, ::1] counts3):
    """The count tables of orders 1, 2 and 3 of the semi-naive models in one pass over the
    rows (see nbayes.seminaive._counts): for each row of non-zero weight and each feature,
    pair and triple of features whose codes are all observed, the row's weight is added to
    the cell of its class. ``counts2`` (``counts3``) with no columns skips that order; the
    pairs are all pairs (a < b) in lexicographic order, each block K_a x K_b row-major.
    Returns the first row holding a code outside -1 .. K_j - 1 (nothing is counted from
    it on), or -1."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], n_tri = triples.shape[0]
    cdef bint pairs = counts2.shape[1] > 0, tri = counts3.shape[1] > 0
    cdef Py_ssize_t i, a, b, s
    cdef int64_t ca, cb, cc
    cdef double w
    cdef const int64_t *code
    cdef double *c1
    cdef double *c2
    cdef double *c3
    cdef Py_ssize_t bad = -1
    with nogil:
        for i in range(n):
            code = &codes[i, 0]
            for a in range(d):
                if code[a] < -1 or code[a] >= n_categories[a]:
                    bad = i
            if bad >= 0:
                break
            w = weights[i]
            if w == 0.0:
                continue
            c1 = &counts1[classes[i], 0]
            for a in range(d):
                if code[a] >= 0:
                    c1[offsets1[a] + code[a]] += w
            if pairs:
                c2 = &counts2[classes[i], 0]
                s = 0
                for a in range(d):
                    ca = code[a]
                    if ca < 0:
                        s += d - a - 1
                        continue
                    for b in range(a + 1, d):
                        cb = code[b]
                        if cb >= 0:
                            c2[offsets2[s] + ca * n_categories[b] + cb] += w
                        s += 1
            if tri:
                c3 = &counts3[classes[i], 0]
                for s in range(n_tri):
                    ca = code[triples[s, 0]]
                    cb = code[triples[s, 1]]
                    cc = code[triples[s, 2]]
                    if ca >= 0 and cb >= 0 and cc >= 0:
                        c3[offsets3[s] + ca * strides3[s, 0] + cb * strides3[s, 1] + cc] += w
    return bad


def network_scores(const int64_t[:, ::1] codes, const int64_t[::1] n_categories,
                   const Py_ssize_t[:, ::1] cols, const int64_t[:, ::1] strides,
                   const int64_t[::1] offsets, const double[:, ::1] flat,
                   const double[::1] init, double[:, ::1] out, unsigned char[::1] incomplete):
    """TAN / KDB scores of the rows without missing cells (see nb_network_scores in
    _kernels_loops.h); returns how many rows have one (marked in ``incomplete``)."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], result = 0
    if n == 0:
        return 0
    if d == 0:
        out[:, :] = init
        return 0
    rows_array = np.empty(d, dtype=np.uintp)
    cdef size_t[::1] rows = rows_array
    with nogil:
        result = nb_network_scores(
            &codes[0, 0], n, d, &n_categories[0], cols.shape[1], &cols[0, 0], &strides[0, 0],
            &offsets[0], &flat[0, 0], out.shape[1], &init[0], &out[0, 0], &incomplete[0],
            <const double **> &rows[0])
    return result


def ande_scores(const int64_t[:, ::1] codes, dict level, const double[::1] init,
                double[:, ::1] out, unsigned char[::1] found):
    """AnDE scores at one level (see nb_ande_scores in _kernels_loops.h) from the tables of
    nbayes.seminaive.aode.finalize_level; returns how many rows had a qualifying set."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], result = 0
    cdef Py_ssize_t n_sets = level["n_sets"], n_classes = out.shape[1]
    cdef const int64_t[::1] n_categories = level["n_categories"]
    cdef const int64_t[::1] child_offsets = level["child_offsets"]
    cdef int64_t row_length = level["row_length"]
    cdef const double[:, ::1] flat = level["flat"]
    cdef const Py_ssize_t[:, ::1] q_cols = level["q_cols"]
    cdef const int64_t[:, ::1] q_strides = level["q_strides"]
    cdef const int64_t[::1] q_offsets = level["q_offsets"]
    cdef const unsigned char[::1] qualify = np.asarray(level["qualify"]).view(np.uint8)
    if n == 0:
        return 0
    if d == 0:
        out[:, :] = init
        found[:] = 1
        return n
    scratch_array = np.empty(n_sets * n_classes)
    keys_array = np.empty(d, dtype=np.int64)
    rows_array = np.empty(d, dtype=np.uintp)
    cdef double[::1] scratch = scratch_array
    cdef int64_t[::1] keys = keys_array
    cdef size_t[::1] rows = rows_array
    with nogil:
        result = nb_ande_scores(
            &codes[0, 0], n, d, &n_categories[0], &child_offsets[0], row_length, n_sets,
            q_cols.shape[1], &q_cols[0, 0], &q_strides[0, 0], &q_offsets[0], &qualify[0],
            &flat[0, 0], n_classes, &init[0], &out[0, 0], &found[0], &scratch[0], &keys[0],
            <const double **> &rows[0])
    return result


def present_values(const int64_t[:, ::1] values, const int64_t[::1] low,
                   const int64_t[::1] offsets, int64_t[::1] counts):
    """counts[offsets[j] + values[i, j] - low[j]] += 1 for every cell, in one pass over the
    rows (the callers take ``low`` and ``offsets`` from the columns' ranges)."""
    cdef Py_ssize_t n = values.shape[0], d = values.shape[1], i, j
    with nogil:
        for i in range(n):
            for j in range(d):
                counts[offsets[j] + values[i, j] - low[j]] += 1


def look_up_values(const int64_t[:, ::1] values, const int64_t[::1] low,
                   const int64_t[::1] offsets, const int64_t[::1] table, int64_t[:, ::1] out):
    """out[i, j] = table[offsets[j] + values[i, j] - low[j]], in one pass over the rows."""
    cdef Py_ssize_t n = values.shape[0], d = values.shape[1], i, j
    with nogil:
        for i in range(n):
            for j in range(d):
                out[i, j] = table[offsets[j] + values[i, j] - low[j]]


def grid_scores(const real[:, ::1] X, const double[::1] scale, const double[::1] origin,
                const double[:, :, ::1] table, const double[:, :, ::1] slope,
                const double[:, ::1] curve, bint interpolate, double[:, ::1] out):
    """out[i, k] += the grid family's log-density of every cell of row i under class k, in one
    pass over X (n, m) (:meth:`nbayes.distributions.Density._kde_terms` and
    ``_binned_terms`` in numpy).

    The lattice position of x in feature j is ``u = x * scale[j] - origin[j]``; ``table`` and
    ``slope`` are (m, L, n_classes). With ``interpolate``: ``table[j, i] + frac *
    slope[j, i]`` at ``i = clip(floor(u), 0, L - 2)``, minus ``curve[j, k] * (t + t^2)`` for
    ``t`` lattice units beyond either end (the Gaussian tail); otherwise the nearest bin,
    ``table[j, clip(floor(u), 0, L - 1)]``. A NaN cell (missing) adds nothing.
    """
    cdef Py_ssize_t n = X.shape[0], m = X.shape[1], K = out.shape[1]
    cdef Py_ssize_t L = table.shape[1], i, j, k, at
    cdef double x, u, pos, frac, over
    cdef const double *t
    cdef const double *s
    cdef double *o
    with nogil:
        for i in range(n):
            o = &out[i, 0]
            for j in range(m):
                x = X[i, j]
                if x != x:
                    continue
                u = x * scale[j] - origin[j]
                if u < -1e9:
                    u = -1e9
                elif u > 1e9:
                    u = 1e9
                pos = u // 1.0
                if interpolate:
                    over = 0.0
                    if u < 0:
                        over = -u
                        pos = 0
                    elif u > L - 1:
                        over = u - (L - 1)
                    if pos > L - 2:
                        pos = L - 2
                    at = <Py_ssize_t>pos
                    frac = u - pos
                    t = &table[j, at, 0]
                    s = &slope[j, at, 0]
                    if over > 0:
                        over = over * (1.0 + over)
                        for k in range(K):
                            o[k] += t[k] + frac * s[k] - over * curve[j, k]
                    else:
                        for k in range(K):
                            o[k] += t[k] + frac * s[k]
                else:
                    if pos < 0:
                        pos = 0
                    elif pos > L - 1:
                        pos = L - 1
                    t = &table[j, <Py_ssize_t>pos, 0]
                    for k in range(K):
                        o[k] += t[k]


def grid_counts(const real[:, ::1] X, const Py_ssize_t[::1] classes,
                const double[::1] weights, const double[::1] scale, const double[::1] start,
                double[:, ::1] counts):
    """counts[classes[i], j * bins + b] += weights[i] for the grid bin
    ``b = floor(x * scale[j]) - start[j]`` of every cell of X (n, d), in one pass
    (:meth:`nbayes.distributions.Density.accumulate` in numpy). Rows of weight zero and NaN
    cells (missing) add nothing; ``bins = counts.shape[1] // d``."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, j, b
    cdef Py_ssize_t bins = counts.shape[1] // d if d else 0
    cdef double w, x, pos
    cdef double *c
    with nogil:
        for i in range(n):
            w = weights[i]
            if not w > 0:
                continue
            c = &counts[classes[i], 0]
            for j in range(d):
                x = X[i, j]
                if x != x:
                    continue
                pos = (x * scale[j]) // 1.0 - start[j]
                if pos < 0:
                    pos = 0
                elif pos > bins - 1:
                    pos = bins - 1
                c[j * bins + <Py_ssize_t>pos] += w


# -- a persistent hash table of text values (category look-up) ---------------------------------

from cpython.unicode cimport PyUnicode_Check
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.mem cimport PyMem_Malloc, PyMem_Realloc, PyMem_Free
from libc.stdint cimport uint64_t
from libc.string cimport memcmp, memcpy


cdef extern from "Python.h":
    # NULL with an exception set where the text has no UTF-8 form (a lone surrogate).
    const char *PyUnicode_AsUTF8AndSize(object text, Py_ssize_t *size)
    void PyErr_Clear()


cdef inline uint64_t _mix(uint64_t h) noexcept nogil:
    h ^= h >> 30
    h *= 0xbf58476d1ce4e5b9ULL
    h ^= h >> 27
    h *= 0x94d049bb133111ebULL
    return h ^ (h >> 31)


cdef inline uint64_t _hash_text(const char *p, Py_ssize_t n) noexcept nogil:
    """64-bit hash of n bytes: eight at a time, each word mixed in, then a final mix."""
    cdef uint64_t h = 0x9e3779b97f4a7c15ULL ^ <uint64_t> n
    cdef uint64_t w
    while n >= 8:
        memcpy(&w, p, 8)
        h = (h ^ (w * 0xff51afd7ed558ccdULL)) * 0xc4ceb9fe1a85ec53ULL
        h = (h << 29) | (h >> 35)
        p += 8
        n -= 8
    if n:
        w = 0
        memcpy(&w, p, n)
        h = (h ^ (w * 0xff51afd7ed558ccdULL)) * 0xc4ceb9fe1a85ec53ULL
    return _mix(h)


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define NB_PREFETCH(p) __builtin_prefetch(p)
    #else
    #define NB_PREFETCH(p) ((void)0)
    #endif
    """
    void NB_PREFETCH(const void *p) nogil


#: Probes fetch the slot of the value this many places ahead, so that several cache misses
#: of a large table are in flight at once instead of one per probe.
cdef Py_ssize_t PREFETCH_AHEAD = 8


cdef class _Scratch:
    """Per-call arrays of :class:`TextTable`: each value's UTF-8 bytes, size and hash."""

    cdef const char **text
    cdef Py_ssize_t *size
    cdef uint64_t *hash

    def __cinit__(self, Py_ssize_t n):
        self.text = <const char **> PyMem_Malloc(max(n, 1) * sizeof(char *))
        self.size = <Py_ssize_t *> PyMem_Malloc(max(n, 1) * sizeof(Py_ssize_t))
        self.hash = <uint64_t *> PyMem_Malloc(max(n, 1) * sizeof(uint64_t))
        if not (self.text and self.size and self.hash):
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.text)
        PyMem_Free(self.size)
        PyMem_Free(self.hash)


cdef class TextTable:
    """Text value -> int64 code, kept between calls and grown in place: the category look-up
    of :class:`nbayes.estimators._encoding.Vocabulary` for a column of text.

    It answers as a dict of str keys would (texts are equal when their UTF-8 bytes are), in
    one compiled pass over a list of values, without a Python object per probe: a dict of a
    million strings costs several cache misses per probe, a miss more than a hit, and this
    table one or two. Values that are not str are never found (no text equals them); adding
    one, or a text with no UTF-8 form, raises TypeError with the table unchanged (the caller
    then keeps a dict).

    Slots hold (hash, entry) pairs, open addressing with linear probing at most half full;
    entries hold the key's bytes (one growing buffer) and its code.
    """

    cdef int64_t *slots          # 2 per slot: hash, entry (-1: empty)
    cdef Py_ssize_t n_slots      # a power of two
    cdef int64_t *starts         # key i is bytes[starts[i]:starts[i + 1]]
    cdef int64_t *codes
    cdef char *data
    cdef Py_ssize_t n_entries, entry_room, n_bytes, byte_room

    def __cinit__(self):
        self.n_slots = 16
        self.slots = <int64_t *> PyMem_Malloc(2 * self.n_slots * sizeof(int64_t))
        self.entry_room = 16
        self.starts = <int64_t *> PyMem_Malloc((self.entry_room + 1) * sizeof(int64_t))
        self.codes = <int64_t *> PyMem_Malloc(self.entry_room * sizeof(int64_t))
        self.byte_room = 256
        self.data = <char *> PyMem_Malloc(self.byte_room)
        if not (self.slots and self.starts and self.codes and self.data):
            raise MemoryError()
        cdef Py_ssize_t s
        for s in range(self.n_slots):
            self.slots[2 * s + 1] = -1
        self.starts[0] = 0
        self.n_entries = 0
        self.n_bytes = 0

    def __dealloc__(self):
        PyMem_Free(self.slots)
        PyMem_Free(self.starts)
        PyMem_Free(self.codes)
        PyMem_Free(self.data)

    def __len__(self):
        return self.n_entries

    def __reduce__(self):
        raise TypeError("TextTable is a cache: rebuild it rather than pickle it")

    cdef inline Py_ssize_t _find(self, const char *p, Py_ssize_t n, uint64_t h) noexcept nogil:
        """Slot of the key (its entry >= 0), or the empty slot where it would go."""
        cdef Py_ssize_t mask = self.n_slots - 1
        cdef Py_ssize_t s = <Py_ssize_t> (h & <uint64_t> mask)
        cdef int64_t e
        while True:
            e = self.slots[2 * s + 1]
            if e < 0:
                return s
            if (<uint64_t> self.slots[2 * s] == h
                    and self.starts[e + 1] - self.starts[e] == n
                    and memcmp(self.data + self.starts[e], p, n) == 0):
                return s
            s = (s + 1) & mask

    cdef int _grow_slots(self) except -1:
        cdef Py_ssize_t old_n = self.n_slots, s, t, mask
        cdef int64_t *old = self.slots
        cdef int64_t *new = <int64_t *> PyMem_Malloc(4 * old_n * sizeof(int64_t))
        if not new:
            raise MemoryError()
        mask = 2 * old_n - 1
        for s in range(2 * old_n):
            new[2 * s + 1] = -1
        for s in range(old_n):
            if old[2 * s + 1] >= 0:
                t = <Py_ssize_t> (<uint64_t> old[2 * s] & <uint64_t> mask)
                while new[2 * t + 1] >= 0:
                    t = (t + 1) & mask
                new[2 * t] = old[2 * s]
                new[2 * t + 1] = old[2 * s + 1]
        self.slots = new
        self.n_slots = 2 * old_n
        PyMem_Free(old)
        return 0

    cdef int _reserve(self, Py_ssize_t entries, Py_ssize_t n_bytes) except -1:
        """Room for ``entries`` more keys of ``n_bytes`` bytes in all; each buffer doubles
        when full, so growing key by key copies each key about twice in all."""
        cdef Py_ssize_t room
        cdef void *p
        while 2 * (self.n_entries + entries) > self.n_slots:
            self._grow_slots()
        if self.n_entries + entries > self.entry_room:
            room = max(2 * self.entry_room, self.n_entries + entries)
            p = PyMem_Realloc(self.starts, (room + 1) * sizeof(int64_t))
            if not p:
                raise MemoryError()
            self.starts = <int64_t *> p
            p = PyMem_Realloc(self.codes, room * sizeof(int64_t))
            if not p:
                raise MemoryError()
            self.codes = <int64_t *> p
            self.entry_room = room
        if self.n_bytes + n_bytes > self.byte_room:
            room = max(2 * self.byte_room, self.n_bytes + n_bytes)
            p = PyMem_Realloc(self.data, room)
            if not p:
                raise MemoryError()
            self.data = <char *> p
            self.byte_room = room
        return 0

    cdef Py_ssize_t _read(self, list values, const char **text, Py_ssize_t *size,
                          uint64_t *hash, bint strict) except -1:
        """The UTF-8 bytes and hash of each value (size -1: not text, or no UTF-8 form),
        in a first pass, so that the probes can prefetch their slots. With ``strict`` such
        a value raises TypeError instead. Returns the total number of bytes."""
        cdef Py_ssize_t n = PyList_GET_SIZE(values), i, total = 0
        cdef object v
        for i in range(n):
            v = <object> PyList_GET_ITEM(values, i)
            size[i] = -1
            if not PyUnicode_Check(v):
                if strict:
                    raise TypeError(f"not text: {type(v).__name__}")
                continue
            text[i] = PyUnicode_AsUTF8AndSize(v, &size[i])
            if text[i] == NULL:  # no UTF-8 form: no key (all have one) equals it
                PyErr_Clear()
                size[i] = -1
                if strict:
                    raise TypeError("text without a UTF-8 form")
                continue
            hash[i] = _hash_text(text[i], size[i])
            total += size[i]
        return total

    def lookup(self, list values):
        """Code of each value (a list), -1 where the table does not hold it."""
        cdef Py_ssize_t n = PyList_GET_SIZE(values), i, s
        out_array = np.full(n, -1, dtype=np.int64)
        cdef int64_t[::1] out = out_array
        scratch = _Scratch(n)
        self._read(values, scratch.text, scratch.size, scratch.hash, False)
        cdef const char **text = scratch.text
        cdef Py_ssize_t *size = scratch.size
        cdef uint64_t *hash = scratch.hash
        cdef Py_ssize_t mask = self.n_slots - 1
        for i in range(n):
            if i + PREFETCH_AHEAD < n and size[i + PREFETCH_AHEAD] >= 0:
                NB_PREFETCH(&self.slots[2 * (hash[i + PREFETCH_AHEAD] & <uint64_t> mask)])
            if size[i] < 0:
                continue
            s = self._find(text[i], size[i], hash[i])
            if self.slots[2 * s + 1] >= 0:
                out[i] = self.codes[self.slots[2 * s + 1]]
        return out_array

    def find_or_add(self, list values, int64_t first):
        """Code of each value (a list of distinct str), adding those the table lacks with
        the codes ``first``, ``first + 1``, ... in list order; returns the codes and the mask
        of the added values. TypeError, with nothing added, where a value is not str or has
        no UTF-8 form. One probe per value where a look-up and an add take two."""
        cdef Py_ssize_t n = PyList_GET_SIZE(values), i, s, mask
        cdef int64_t e
        scratch = _Scratch(n)
        # Read (and checked) first: a failure leaves the table as it was.
        total = self._read(values, scratch.text, scratch.size, scratch.hash, True)
        self._reserve(n, total)
        cdef const char **text = scratch.text
        cdef Py_ssize_t *size = scratch.size
        cdef uint64_t *hash = scratch.hash
        out_array = np.empty(n, dtype=np.int64)
        added_array = np.zeros(n, dtype=bool)
        cdef int64_t[::1] out = out_array
        cdef unsigned char[::1] added = added_array.view(np.uint8)
        mask = self.n_slots - 1
        for i in range(n):
            if i + PREFETCH_AHEAD < n:
                NB_PREFETCH(&self.slots[2 * (hash[i + PREFETCH_AHEAD] & <uint64_t> mask)])
            s = self._find(text[i], size[i], hash[i])
            e = self.slots[2 * s + 1]
            if e >= 0:
                out[i] = self.codes[e]
                continue
            e = self.n_entries
            memcpy(self.data + self.n_bytes, text[i], size[i])
            self.n_bytes += size[i]
            self.starts[e + 1] = self.n_bytes
            self.codes[e] = first
            out[i] = first
            added[i] = 1
            first += 1
            self.slots[2 * s] = <int64_t> hash[i]
            self.slots[2 * s + 1] = e
            self.n_entries += 1
        return out_array, added_array

    def add(self, list values, const int64_t[::1] codes):
        """Map each value (a list of str) to its code, as ``dict.update(zip(values, codes))``
        does: a value already held takes the new code. TypeError, with nothing added, where
        a value is not str or has no UTF-8 form."""
        cdef Py_ssize_t n = PyList_GET_SIZE(values), i, size, s, total = 0
        cdef const char *p
        cdef uint64_t h
        cdef int64_t e
        cdef object v
        if codes.shape[0] != n:
            raise ValueError("values and codes differ in length")
        for i in range(n):  # checked first: a failure leaves the table as it was
            v = <object> PyList_GET_ITEM(values, i)
            if not PyUnicode_Check(v):
                raise TypeError(f"not text: {type(v).__name__}")
            p = PyUnicode_AsUTF8AndSize(v, &size)
            if p == NULL:
                PyErr_Clear()
                raise TypeError("text without a UTF-8 form")
            total += size
        self._reserve(n, total)
        for i in range(n):
            v = <object> PyList_GET_ITEM(values, i)
            p = PyUnicode_AsUTF8AndSize(v, &size)
            h = _hash_text(p, size)
            s = self._find(p, size, h)
            e = self.slots[2 * s + 1]
            if e >= 0:
                self.codes[e] = codes[i]
                continue
            e = self.n_entries
            memcpy(self.data + self.n_bytes, p, size)
            self.n_bytes += size
            self.starts[e + 1] = self.n_bytes
            self.codes[e] = codes[i]
            self.slots[2 * s] = <int64_t> h
            self.slots[2 * s + 1] = e
            self.n_entries += 1


ctypedef fused stored_value:
    float
    double
    int32_t
    int64_t

ctypedef fused stored_index:
    int32_t
    int64_t


cdef extern from "_kernels_simd.h" nogil:
    void nb_csr_product_f64_i32(const double *data, const int32_t *indices,
                                const int32_t *indptr, Py_ssize_t n, const double *W,
                                Py_ssize_t width, double *out)
    void nb_csr_product_f64_i64(const double *data, const int64_t *indices,
                                const int64_t *indptr, Py_ssize_t n, const double *W,
                                Py_ssize_t width, double *out)
    void nb_csr_product_f32_i32(const float *data, const int32_t *indices,
                                const int32_t *indptr, Py_ssize_t n, const double *W,
                                Py_ssize_t width, double *out)
    void nb_csr_product_f32_i64(const float *data, const int64_t *indices,
                                const int64_t *indptr, Py_ssize_t n, const double *W,
                                Py_ssize_t width, double *out)
    void nb_csr_product_i64_i32(const int64_t *data, const int32_t *indices,
                                const int32_t *indptr, Py_ssize_t n, const double *W,
                                Py_ssize_t width, double *out)
    void nb_csr_product_i64_i64(const int64_t *data, const int64_t *indices,
                                const int64_t *indptr, Py_ssize_t n, const double *W,
                                Py_ssize_t width, double *out)
    void nb_csr_product_i32_i32(const int32_t *data, const int32_t *indices,
                                const int32_t *indptr, Py_ssize_t n, const double *W,
                                Py_ssize_t width, double *out)
    void nb_csr_product_i32_i64(const int32_t *data, const int64_t *indices,
                                const int64_t *indptr, Py_ssize_t n, const double *W,
                                Py_ssize_t width, double *out)


def csr_dense_product(const stored_value[::1] data, const stored_index[::1] indices,
                      const stored_index[::1] indptr, const double[:, ::1] W,
                      double[:, ::1] out):
    """out = X @ W for a CSR matrix X of out.shape[0] rows (its data, indices, indptr) and
    W (n_features, width): row i of out is the sum over row i's stored values, in their
    order, of value * W[column], as scipy.sparse's product adds them (the same sums), in
    one pass over the row while its output sits in cache. indptr may start anywhere in
    data (a view of some rows). The loop is ``nb_csr_product`` of _kernels_simd.h."""
    cdef Py_ssize_t n = out.shape[0], width = out.shape[1]
    if n == 0 or width == 0:
        return
    cdef const stored_value *values = &data[0] if data.shape[0] else NULL
    cdef const stored_index *columns = &indices[0] if indices.shape[0] else NULL
    with nogil:
        if stored_value is double and stored_index is int32_t:
            nb_csr_product_f64_i32(values, columns, &indptr[0], n, &W[0, 0], width, &out[0, 0])
        elif stored_value is double and stored_index is int64_t:
            nb_csr_product_f64_i64(values, columns, &indptr[0], n, &W[0, 0], width, &out[0, 0])
        elif stored_value is float and stored_index is int32_t:
            nb_csr_product_f32_i32(values, columns, &indptr[0], n, &W[0, 0], width, &out[0, 0])
        elif stored_value is float and stored_index is int64_t:
            nb_csr_product_f32_i64(values, columns, &indptr[0], n, &W[0, 0], width, &out[0, 0])
        elif stored_value is int64_t and stored_index is int32_t:
            nb_csr_product_i64_i32(values, columns, &indptr[0], n, &W[0, 0], width, &out[0, 0])
        elif stored_value is int64_t and stored_index is int64_t:
            nb_csr_product_i64_i64(values, columns, &indptr[0], n, &W[0, 0], width, &out[0, 0])
        elif stored_value is int32_t and stored_index is int32_t:
            nb_csr_product_i32_i32(values, columns, &indptr[0], n, &W[0, 0], width, &out[0, 0])
        else:
            nb_csr_product_i32_i64(values, columns, &indptr[0], n, &W[0, 0], width, &out[0, 0])


def held_columns(const stored_index[::1] indices, stored_index[::1] position,
                 stored_index[::1] narrow, stored_index[::1] columns):
    """The columns that ``indices`` (a CSR block's) hold, in one pass over them: writes the
    held columns into ``columns`` in the order they first appear and each stored value's
    place among them into ``narrow`` (the block's indices over the held columns alone);
    returns how many are held. ``position`` (n_features,) must come in all -1; it holds
    each held column's place.

    First appearance puts the words most rows hold near the start of a table laid out by
    these places (they appear early), so a product over the block finds them in cache."""
    cdef Py_ssize_t nnz = indices.shape[0], p
    cdef stored_index n_held = 0, j
    with nogil:
        for p in range(nnz):
            j = indices[p]
            if position[j] < 0:
                position[j] = n_held
                columns[n_held] = j
                n_held += 1
            narrow[p] = position[j]
    return n_held


cdef extern from "_kernels_simd.h" nogil:
    void nb_csc_table_product_i32(
        const double *data, const int32_t *rows, const int32_t *indptr, Py_ssize_t n_cols,
        const int64_t *cell_ptr, const int64_t *cell_class, const double *logged,
        Py_ssize_t n_cells, Py_ssize_t m, Py_ssize_t K, double *acc, double *w,
        Py_ssize_t n_rows, double *out)
    void nb_csc_table_product_i64(
        const double *data, const int64_t *rows, const int64_t *indptr, Py_ssize_t n_cols,
        const int64_t *cell_ptr, const int64_t *cell_class, const double *logged,
        Py_ssize_t n_cells, Py_ssize_t m, Py_ssize_t K, double *acc, double *w,
        Py_ssize_t n_rows, double *out)


def csc_sparse_table_product(const double[::1] data, const stored_index[::1] rows,
                             const stored_index[::1] indptr, const int64_t[::1] cell_ptr,
                             const int64_t[::1] cell_class, const double[:, ::1] logged,
                             double[:, ::1] out):
    """out[:, c*K:(c+1)*K] = X @ W_c for every candidate c of ``logged`` (candidates,
    cells), where X is a CSC matrix of out.shape[0] rows (its data, row indices and indptr
    over its columns) and W_c a (columns, K) table, K = out.shape[1] // candidates, zero but
    for its cells: column j's cells are ``cell_ptr[j]:cell_ptr[j + 1]``, cell q holding
    ``logged[c, q]`` in class ``cell_class[q]``.

    Candidate by candidate, each column's K values are laid out once and added to the rows
    the column holds, whose K sums of that candidate stay in cache: no (columns,
    candidates x K) table is made. Each row adds its products in the order of the columns.
    The loop is ``nb_csc_table_product`` of _kernels_simd.h."""
    cdef Py_ssize_t m = logged.shape[0], n = out.shape[0], n_cols = indptr.shape[0] - 1
    cdef Py_ssize_t K = out.shape[1] // m if m else 0
    if n == 0 or K == 0:
        return
    cdef double[::1] acc = np.zeros(n * K)
    cdef double[::1] w = np.zeros(K)
    cdef const double *values = &data[0] if data.shape[0] else NULL
    cdef const stored_index *held = &rows[0] if rows.shape[0] else NULL
    cdef const double *cells = &logged[0, 0] if logged.shape[1] else NULL
    cdef const int64_t *classes = &cell_class[0] if cell_class.shape[0] else NULL
    with nogil:
        if stored_index is int32_t:
            nb_csc_table_product_i32(values, held, &indptr[0], n_cols, &cell_ptr[0], classes,
                                     cells, logged.shape[1], m, K, &acc[0], &w[0], n,
                                     &out[0, 0])
        else:
            nb_csc_table_product_i64(values, held, &indptr[0], n_cols, &cell_ptr[0], classes,
                                     cells, logged.shape[1], m, K, &acc[0], &w[0], n,
                                     &out[0, 0])


def csr_class_sums(const stored_value[::1] data, const stored_index[::1] indices,
                   const stored_index[::1] indptr, const Py_ssize_t[::1] codes,
                   const double[::1] weights, double[:, ::1] out):
    """out[codes[i], j] += weights[i] * X[i, j] for every stored value of a CSR matrix X of
    codes.shape[0] rows, in row order (the order of numpy's bincount over the same values,
    so the sums are the same), in one pass: the per-class column sums of a hard labelling.
    ``out`` (n_classes, n_features) comes in zeroed; codes must lie in range."""
    cdef Py_ssize_t n = codes.shape[0], i, p
    cdef double w
    cdef double *row
    with nogil:
        for i in range(n):
            w = weights[i]
            row = &out[codes[i], 0]
            for p in range(indptr[i], indptr[i + 1]):
                row[indices[p]] += w * <double> data[p]


def stacked_log_cells(const double[:, ::1] counts, const int64_t[::1] columns,
                      const double[::1] pseudo, const double[:, ::1] log_small,
                      const double[::1] log_totals, double[:, ::1] out, int64_t[::1] rest):
    """The candidates' multinomial log tables of the columns ``columns`` side by side:
    out[h, c * n_classes + k] = log(counts[k, columns[h]] + pseudo[c]) - log_totals[c *
    n_classes + k], where the count is a whole number below ``log_small.shape[1]``, looked
    up in ``log_small[c, count]`` (the caller's logarithms of those very sums, so the cell
    is what it computes). Other cells get counts + pseudo and their first flat index (that
    of candidate 0) goes to ``rest``, for the caller to take their logarithm; returns how
    many went there."""
    cdef Py_ssize_t n_classes = counts.shape[0], m = pseudo.shape[0]
    cdef Py_ssize_t n_rows = out.shape[0], width = out.shape[1], small = log_small.shape[1]
    cdef Py_ssize_t h, c, k, j, q, n_rest = 0
    cdef double n
    cdef double *row
    with nogil:
        for h in range(n_rows):
            j = columns[h]
            row = &out[h, 0]
            for k in range(n_classes):
                n = counts[k, j]
                if n >= 0 and n < small and n == <double> <Py_ssize_t> n:
                    q = <Py_ssize_t> n
                    for c in range(m):
                        row[c * n_classes + k] = log_small[c, q] - log_totals[c * n_classes + k]
                else:
                    for c in range(m):
                        row[c * n_classes + k] = n + pseudo[c]
                    rest[n_rest] = h * width + k
                    n_rest += 1
    return n_rest


def lookup_log_cells(const double[:, ::1] counts, const double[:, ::1] log_small,
                     const double[::1] minus, double[:, ::1] out, int64_t[::1] rest):
    """A family's log table from its counts: out[k, j] = log_small[k, n] - minus[k] where
    n = counts[k, j] is a whole number below ``log_small.shape[1]`` (``log_small`` holds the
    caller's own logarithms of the cell values those counts give, so the cell is what the
    caller computes). The flat indices of the other cells go to ``rest``, in order, for the
    caller to take their logarithm; returns how many went there, or -1 where more cells than
    ``rest`` holds did (fractional weights, large counts: the caller takes its own path)."""
    cdef Py_ssize_t n_classes = counts.shape[0], n_features = counts.shape[1]
    cdef Py_ssize_t capacity = rest.shape[0]
    cdef Py_ssize_t k, j, q, n_rest = 0
    cdef double n, shift, small = <double> log_small.shape[1]
    cdef bint full = False
    cdef const double *table
    cdef const double *row
    cdef double *dst
    with nogil:
        for k in range(n_classes):
            if full:
                break
            table = &log_small[k, 0]
            row = &counts[k, 0]
            dst = &out[k, 0]
            shift = minus[k]
            for j in range(n_features):
                n = row[j]
                q = <Py_ssize_t> n if n >= 0 and n < small else -1
                if q >= 0 and <double> q == n:
                    dst[j] = table[q] - shift
                elif n_rest < capacity:
                    rest[n_rest] = k * n_features + j
                    n_rest += 1
                else:
                    full = True
                    break
    return -1 if full else n_rest
