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

/* out = init + the sum of the n_rows table rows pointed to by rows (n_classes wide each);
 * blocks of literal width keep the sums in registers, as in categorical_scores. */
NB_TARGET NB_INLINE void NB_NAME(sum_pointed)(double *out, const double *init,
                                              const double **rows, ptrdiff_t n_rows,
                                              ptrdiff_t n_classes)
{
    ptrdiff_t k = 0;
    for (; k + 8 <= n_classes; k += 8)
        nb_sum_rows(out + k, init + k, rows, n_rows, k, 8);
    if (k + 4 <= n_classes) {
        nb_sum_rows(out + k, init + k, rows, n_rows, k, 4);
        k += 4;
    }
    if (k + 2 <= n_classes) {
        nb_sum_rows(out + k, init + k, rows, n_rows, k, 2);
        k += 2;
    }
    if (k < n_classes)
        nb_sum_rows(out + k, init + k, rows, n_rows, k, 1);
}

/* The table row of one item of the semi-naive models: offset + sum_t code * stride over the
 * item's columns, each code clipped to [0, K_j] (K_j is the unseen slot; a missing code
 * reads 0 and is only ever read through a padding column of stride 0, or by a caller that
 * has checked it). */
NB_TARGET NB_INLINE const double *NB_NAME(item_row)(const int64_t *code,
                                                    const int64_t *n_categories,
                                                    const ptrdiff_t *cols,
                                                    const int64_t *strides, ptrdiff_t width,
                                                    int64_t offset, const double *flat,
                                                    ptrdiff_t n_classes)
{
    int64_t key = offset;
    for (ptrdiff_t t = 0; t < width; t++) {
        int64_t c = code[cols[t]];
        c = c < 0 ? 0 : c;
        c = c > n_categories[cols[t]] ? n_categories[cols[t]] : c;
        key += c * strides[t];
    }
    return flat + key * n_classes;
}

/* TAN / KDB: out[i] = init + sum_j of feature j's table row, for the rows without a missing
 * cell; rows with one get incomplete[i] = 1 (and out untouched) for the caller to sum out.
 * Returns the number of incomplete rows. `rows` is scratch room for d pointers. */
NB_TARGET static ptrdiff_t NB_NAME(network_scores)(
    const int64_t *codes, ptrdiff_t n, ptrdiff_t d, const int64_t *n_categories,
    ptrdiff_t width, const ptrdiff_t *cols, const int64_t *strides, const int64_t *offsets,
    const double *flat, ptrdiff_t n_classes, const double *init, double *out,
    unsigned char *incomplete, const double **rows)
{
    ptrdiff_t n_incomplete = 0;
    for (ptrdiff_t i = 0; i < n; i++) {
        const int64_t *code = codes + i * d;
        int missing = 0;
        for (ptrdiff_t j = 0; j < d; j++)
            missing |= code[j] < 0;
        incomplete[i] = (unsigned char)missing;
        if (missing) {
            n_incomplete++;
            continue;
        }
        for (ptrdiff_t j = 0; j < d; j++)
            rows[j] = NB_NAME(item_row)(code, n_categories, cols + j * width,
                                        strides + j * width, width, offsets[j], flat,
                                        n_classes);
        NB_NAME(sum_pointed)(out + i * n_classes, init, rows, d, n_classes);
    }
    return n_incomplete;
}

/* AnDE at one level (see nbayes.seminaive.aode.finalize_level for the layout): for each
 * row, every parent set s whose codes are observed and whose set cell (q_offsets[s] +
 * sum_t code * q_strides) qualifies scores init + the sum, over the row's observed
 * features c, of table row cell * row_length + child_offsets[c] + x_c; out[i] = log of the
 * mean over those sets of exp(score), found[i] = 1. A row with no qualifying set gets
 * found[i] = 0 and out untouched. Returns the number of rows found. Scratch room:
 * `scratch` n_sets * n_classes doubles, `keys` d, `rows` d pointers. */
NB_TARGET static ptrdiff_t NB_NAME(ande_scores)(
    const int64_t *codes, ptrdiff_t n, ptrdiff_t d, const int64_t *n_categories,
    const int64_t *child_offsets, int64_t row_length, ptrdiff_t n_sets, ptrdiff_t q_width,
    const ptrdiff_t *q_cols, const int64_t *q_strides, const int64_t *q_offsets,
    const unsigned char *qualify, const double *flat, ptrdiff_t n_classes,
    const double *init, double *out, unsigned char *found, double *scratch, int64_t *keys,
    const double **rows)
{
    ptrdiff_t n_found = 0;
    for (ptrdiff_t i = 0; i < n; i++) {
        const int64_t *code = codes + i * d;
        ptrdiff_t n_obs = 0, n_ok = 0;
        /* The row's look-ups within a set cell: the same for every parent set. */
        for (ptrdiff_t c = 0; c < d; c++) {
            int64_t x = code[c];
            if (x >= 0)
                keys[n_obs++] = (child_offsets[c] + (x > n_categories[c] ? n_categories[c] : x))
                                * n_classes;
        }
        for (ptrdiff_t s = 0; s < n_sets; s++) {
            int64_t cell = q_offsets[s];
            int ok = 1;
            for (ptrdiff_t t = 0; t < q_width; t++) {
                ptrdiff_t f = q_cols[s * q_width + t];
                int64_t x = code[f];
                if (x < 0) {
                    ok = 0;
                    break;
                }
                cell += (x > n_categories[f] ? n_categories[f] : x) * q_strides[s * q_width + t];
            }
            if (!ok || !qualify[cell])
                continue;
            const double *base = flat + cell * row_length * n_classes;
            for (ptrdiff_t t = 0; t < n_obs; t++)
                rows[t] = base + keys[t];
            NB_NAME(sum_pointed)(scratch + n_ok * n_classes, init, rows, n_obs, n_classes);
            n_ok++;
        }
        found[i] = n_ok > 0;
        if (!n_ok)
            continue;
        n_found++;
        /* log mean exp over the sets, per class, shifted by the class's maximum. */
        double *row = out + i * n_classes;
        for (ptrdiff_t c = 0; c < n_classes; c++)
            row[c] = -INFINITY;
        for (ptrdiff_t s = 0; s < n_ok; s++)
            for (ptrdiff_t c = 0; c < n_classes; c++)
                row[c] = scratch[s * n_classes + c] > row[c] ? scratch[s * n_classes + c] : row[c];
        for (ptrdiff_t s = 0; s < n_ok; s++)
            for (ptrdiff_t c = 0; c < n_classes; c++)
                scratch[s * n_classes + c] -= row[c] > -INFINITY ? row[c] : 0.0;
        for (ptrdiff_t k = 0; k < n_ok * n_classes; k++)
            scratch[k] = NB_NAME(exp_nonpositive)(scratch[k]);
        double log_n = log((double)n_ok);
        for (ptrdiff_t c = 0; c < n_classes; c++) {
            double total = 0.0;
            for (ptrdiff_t s = 0; s < n_ok; s++)
                total += scratch[s * n_classes + c];
            row[c] = row[c] > -INFINITY ? row[c] + log(total) - log_n : -INFINITY;
        }
    }
    return n_found;
}
