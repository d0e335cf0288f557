/* Hot loops of nbayes._kernels. _kernels_simd.h includes this file twice, once per
 * instruction set: NB_NAME(f) gives each copy its own names and NB_TARGET its target. */

/* exp(x) for x <= 0 (or -inf), to within 1 ulp of the C library's exp, subnormal results
 * included. libm's exp is a scalar call; this one vectorises, which is what lets posterior
 * normalisation keep up with the scoring loops. x = k ln2 + r with |r| <= ln2 / 2, exp(r) by
 * its Taylor polynomial to degree 13 (error below 2e-17), 2^k as two factors so that results
 * down to the smallest subnormal come out right. */
NB_TARGET NB_INLINE double NB_NAME(exp_nonpositive)(double x)
{
    const double shifter = 6755399441055744.0; /* 1.5 * 2^52: adding it rounds to an integer */
    x = x > -746.0 ? x : -746.0;               /* below this exp is 0; also maps -inf */
    double k = (x * 1.4426950408889634 + shifter) - shifter;
    double r = (x - k * 0.6931471803691238) - k * 1.9082149292705877e-10; /* ln2 hi + lo */
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    double half = (k * 0.5 + shifter) - shifter;
    return p * nb_pow2(half) * nb_pow2(k - half);
}

/* out[i] = init + the sum over row i's cells of their table rows (see categorical_scores in
 * _kernels.pyx); returns the number of unseen cells (codes >= n_categories) and adds the
 * number of codes below `lowest` to *n_below. Cells of the
 * feature pairs (pair_a[g], pair_b[g]) whose codes are both known add one row of pair_table,
 * which holds the two features' rows summed, so a row adds about half as many rows; other
 * cells add their own. `rows` is scratch room for d pointers. */
NB_TARGET static ptrdiff_t NB_NAME(categorical_scores)(NB_CATEGORICAL_SCORES_PARAMS)
{
#define NB_CELL_ROW(j, c) ((c) < 0 ? nothing \
                           : (c) >= n_categories[j] ? unseen_table + (j) * n_classes \
                           : table + (offsets[j] + (c)) * n_classes)
    ptrdiff_t n_unseen = 0, below = 0;
    for (ptrdiff_t i = 0; i < n; i++) {
        const int64_t *code = codes + i * d;
        ptrdiff_t n_rows = 0;
        for (ptrdiff_t g = 0; g < n_pairs; g++) {
            ptrdiff_t a = pair_a[g], b = pair_b[g];
            int64_t ca = code[a], cb = code[b];
            if (ca >= 0 && ca < n_categories[a] && cb >= 0 && cb < n_categories[b]) {
                rows[n_rows++] = pair_table
                    + (pair_offsets[g] + ca * n_categories[b] + cb) * n_classes;
            } else {
                n_unseen += (ca >= n_categories[a]) + (cb >= n_categories[b]);
                below += (ca < lowest) + (cb < lowest);
                rows[n_rows++] = NB_CELL_ROW(a, ca);
                rows[n_rows++] = NB_CELL_ROW(b, cb);
            }
        }
        for (ptrdiff_t s = 0; s < n_singles; s++) {
            int64_t c = code[singles[s]];
            n_unseen += c >= n_categories[singles[s]];
            below += c < lowest;
            rows[n_rows++] = NB_CELL_ROW(singles[s], c);
        }
        /* Class blocks of literal width: the sums stay in registers. */
        double *row = out + i * n_classes;
        ptrdiff_t k = 0;
        for (; k + 8 <= n_classes; k += 8)
            nb_sum_rows(row + k, init + k, rows, n_rows, k, 8);
        if (k + 4 <= n_classes) {
            nb_sum_rows(row + k, init + k, rows, n_rows, k, 4);
            k += 4;
        }
        if (k + 2 <= n_classes) {
            nb_sum_rows(row + k, init + k, rows, n_rows, k, 2);
            k += 2;
        }
        if (k < n_classes)
            nb_sum_rows(row + k, init + k, rows, n_rows, k, 1);
    }
#undef NB_CELL_ROW
    *n_below += below;
    return n_unseen;
}

/* Rows of joint log-likelihoods become posteriors (log_space: log posteriors) in place;
 * returns the number of rows that every class ruled out, which become uniform. */
NB_TARGET static ptrdiff_t NB_NAME(normalise_rows)(double *jll, ptrdiff_t n,
                                                   ptrdiff_t n_classes, int log_space)
{
    ptrdiff_t impossible = 0;
    for (ptrdiff_t i = 0; i < n; i++) {
        double *row = jll + i * n_classes;
        double top = -INFINITY, total = 0.0;
        for (ptrdiff_t k = 0; k < n_classes; k++)
            top = row[k] > top ? row[k] : top;
        if (!(top > -INFINITY && top < INFINITY)) {
            impossible++;
            for (ptrdiff_t k = 0; k < n_classes; k++)
                row[k] = 0.0;
            top = 0.0;
        }
        if (log_space) {
            for (ptrdiff_t k = 0; k < n_classes; k++) {
                row[k] -= top;
                total += NB_NAME(exp_nonpositive)(row[k]);
            }
            double log_total = log(total);
            for (ptrdiff_t k = 0; k < n_classes; k++)
                row[k] -= log_total;
        } else {
            for (ptrdiff_t k = 0; k < n_classes; k++) {
                row[k] = NB_NAME(exp_nonpositive)(row[k] - top);
                total += row[k];
            }
            for (ptrdiff_t k = 0; k < n_classes; k++)
                row[k] /= total;
        }
    }
    return impossible;
}
