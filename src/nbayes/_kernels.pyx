# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Compiled loops for the steps numpy cannot do in one pass over the data.

Each loop does what a numpy path in the families does, in one pass instead of several, with
the GIL released so that the engine's row chunks run on several cores. They are an optional
speed-up: :mod:`nbayes._accel` falls back to the numpy code where this module is not built,
and the test suite checks that both give the same results.

The callers validate shapes, dtypes and contiguity; these loops trust them.
"""

from libc.stdint cimport int64_t

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
    int nb_has_avx2()
    int nb_force_baseline


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


def count_subsets(const int64_t[:, ::1] codes, const Py_ssize_t[::1] classes,
                  const double[::1] weights, const Py_ssize_t[:, ::1] subsets,
                  const int64_t[:, ::1] strides, const int64_t[::1] offsets,
                  Py_ssize_t per_class, double[::1] counts):
    """Count tables of the semi-naive models: for every row i of positive weight and every
    subset s of features whose codes are all observed (>= 0),
    counts[classes[i] * per_class + offsets[s] + sum_t codes[i, subsets[s, t]] *
    strides[s, t]] += weights[i], in row order. Codes must lie below their features' category
    counts (the caller checks them)."""
    cdef Py_ssize_t n = codes.shape[0], n_sub = subsets.shape[0], m = subsets.shape[1]
    cdef Py_ssize_t i, s, t
    cdef int64_t c, key
    cdef double w
    cdef double *cell
    with nogil:
        for i in range(n):
            w = weights[i]
            if w == 0.0:
                continue
            cell = &counts[classes[i] * per_class]
            if m == 2:  # pairs, the common case: no inner loop
                for s in range(n_sub):
                    c = codes[i, subsets[s, 0]]
                    key = codes[i, subsets[s, 1]]
                    if c >= 0 and key >= 0:
                        cell[offsets[s] + c * strides[s, 0] + key] += w
                continue
            for s in range(n_sub):
                key = offsets[s]
                for t in range(m):
                    c = codes[i, subsets[s, t]]
                    if c < 0:
                        key = -1
                        break
                    key += c * strides[s, t]
                if key >= 0:
                    cell[key] += w


def gather_sums(const int64_t[:, ::1] codes, const Py_ssize_t[:, ::1] cols,
                const int64_t[:, ::1] strides, const int64_t[::1] offsets,
                const Py_ssize_t[::1] child, const double[:, ::1] table, Py_ssize_t group,
                double[:, ::1] out):
    """Scores of the semi-naive models: item k of row i is the table row
    offsets[k] + sum_t max(codes[i, cols[k, t]], 0) * strides[k, t] -- or the table's last
    row (zeros) where child[k] >= 0 names a feature missing in the row -- and
    out[i, g * C + c] is the sum of table[item, c] over the ``group`` consecutive items of
    group g."""
    cdef Py_ssize_t n = codes.shape[0], n_items = cols.shape[0], width = cols.shape[1]
    cdef Py_ssize_t n_classes = table.shape[1], zero = table.shape[0] - 1
    cdef Py_ssize_t i, k, t, c, g
    cdef int64_t key, code
    cdef double *row
    cdef const double *cell
    with nogil:
        for i in range(n):
            row = &out[i, 0]
            for k in range(n_items * n_classes // group):
                row[k] = 0.0
            for k in range(n_items):
                if child[k] >= 0 and codes[i, child[k]] < 0:
                    key = zero
                else:
                    key = offsets[k]
                    for t in range(width):
                        code = codes[i, cols[k, t]]
                        if code > 0:
                            key += code * strides[k, t]
                cell = &table[key, 0]
                g = (k // group) * n_classes
                for c in range(n_classes):
                    row[g + c] += cell[c]


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
