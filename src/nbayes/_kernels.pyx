# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Compiled loops for the steps numpy cannot do in one pass over the data.

Each loop does what a numpy path in the families does, in one pass instead of several, with
the GIL released so that the engine's row chunks run on several cores. They are an optional
speed-up: :mod:`nbayes._accel` falls back to the numpy code where this module is not built,
and the test suite checks that both give the same results.

The callers validate shapes, dtypes and contiguity; these loops trust them.
"""

from libc.math cimport exp, log, INFINITY
from libc.stdint cimport int64_t

import numpy as np

ctypedef fused real:
    float
    double


cdef inline void _sum_rows(double *out, const double **rows, Py_ssize_t n_rows,
                           Py_ssize_t first, Py_ssize_t width) noexcept nogil:
    # out[k] = sum_r rows[r][first + k] for k < width. Called with a literal width, so the
    # compiler unrolls the class loop and keeps the sums in registers.
    cdef double acc[8]
    cdef Py_ssize_t r, k
    for k in range(width):
        acc[k] = 0.0
    for r in range(n_rows):
        for k in range(width):
            acc[k] += rows[r][first + k]
    for k in range(width):
        out[first + k] = acc[k]


def categorical_scores(const int64_t[:, ::1] codes, const Py_ssize_t[::1] offsets,
                       const int64_t[::1] n_categories, const double[:, ::1] table,
                       const double[:, ::1] unseen_table, double[:, ::1] out):
    """out[i] = sum_j table[offsets[j] + codes[i, j]] over the classes, for codes (n, d),
    table (sum K_j, n_classes) and out (n, n_classes).

    A negative code (missing) adds nothing; a code >= n_categories[j] adds unseen_table[j]
    (zeros to drop the factor, the prior mass for "smooth"). Adding -inf needs no special
    case: the table holds no +inf, so no NaN can arise.
    """
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], n_classes = out.shape[1]
    cdef Py_ssize_t i, j, k
    cdef int64_t c
    nothing_array = np.zeros(n_classes)
    cdef const double[::1] nothing = nothing_array
    rows_array = np.empty(max(d, 1), dtype=np.uintp)
    cdef size_t[::1] rows_memory = rows_array
    cdef const double **rows = <const double **> &rows_memory[0]
    with nogil:
        for i in range(n):
            # The table row each feature adds, then the sums class block by class block.
            for j in range(d):
                c = codes[i, j]
                if c < 0:
                    rows[j] = &nothing[0]
                elif c >= n_categories[j]:
                    rows[j] = &unseen_table[j, 0]
                else:
                    rows[j] = &table[offsets[j] + c, 0]
            k = 0
            while k + 8 <= n_classes:
                _sum_rows(&out[i, 0], rows, d, k, 8)
                k += 8
            if k + 4 <= n_classes:
                _sum_rows(&out[i, 0], rows, d, k, 4)
                k += 4
            if k + 2 <= n_classes:
                _sum_rows(&out[i, 0], rows, d, k, 2)
                k += 2
            if k < n_classes:
                _sum_rows(&out[i, 0], rows, d, k, 1)


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
                Py_ssize_t per_class, double[::1] counts):
    """counts[classes[i] * per_class + offsets[j] + codes[i, j]] += weights[i], skipping
    negative (missing) codes and rows of zero weight; weights are added in row order."""
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], i, j
    cdef double w
    cdef double *cell
    with nogil:
        for i in range(n):
            w = weights[i]
            if w == 0.0:
                continue
            cell = &counts[classes[i] * per_class]
            for j in range(d):
                if codes[i, j] >= 0:
                    cell[offsets[j] + codes[i, j]] += w


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


def normalise_rows(double[:, ::1] jll, bint log_space):
    """Each row of joint log-likelihoods becomes its posterior (or log posterior), in place;
    returns how many rows every class ruled out (those become uniform).

    One pass per row while it sits in cache: maximum, exp of the shifted scores, their sum.
    """
    cdef Py_ssize_t n = jll.shape[0], n_classes = jll.shape[1], i, k
    cdef Py_ssize_t impossible = 0
    cdef double top, total, scale
    cdef double *row
    with nogil:
        for i in range(n):
            row = &jll[i, 0]
            top = -INFINITY
            for k in range(n_classes):
                if row[k] > top:
                    top = row[k]
            if not (top > -INFINITY and top < INFINITY):
                impossible += 1
                for k in range(n_classes):
                    row[k] = 0.0
                top = 0.0
            total = 0.0
            if log_space:
                for k in range(n_classes):
                    row[k] -= top
                    total += exp(row[k])
                scale = log(total)
                for k in range(n_classes):
                    row[k] -= scale
            else:
                for k in range(n_classes):
                    row[k] = exp(row[k] - top)
                    total += row[k]
                for k in range(n_classes):
                    row[k] /= total
    return impossible
