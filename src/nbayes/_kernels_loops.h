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

/* EM's E-step in place (see em_responsibilities in _kernels.pyx): row i of scores (n, S)
 * becomes its posterior over the sub-classes it may belong to -- all S for an unlabeled row
 * (codes[i] < 0), those of its own class, codes[i] * M .. codes[i] * M + M - 1, for a labeled
 * one; the others 0 -- times row_weight[i]. top[i] and total[i] are the maximum of those
 * scores and the sum of their exp shifted by it (log-sum-exp: top + log(total)); a row of
 * zero row_weight becomes zeros with top 0 and total 1. NaN among the scores gives top NaN.
 * Rows go in blocks: the exp of a whole block is one flat loop, which vectorises where a
 * row of a few classes would not. */
#define NB_EM_BLOCK 256
/* One block of rows [start, end); called with a literal S where it is small, so that the
 * class loops unroll (a row of a few classes is too short for a loop to pay). */
NB_TARGET NB_INLINE void NB_NAME(em_block)(double *scores, ptrdiff_t start, ptrdiff_t end,
                                           const ptrdiff_t S, const ptrdiff_t *codes,
                                           ptrdiff_t M, const double *row_weight, double *top,
                                           double *total)
{
    for (ptrdiff_t i = start; i < end; i++) {
        double *row = scores + i * S;
        if (codes[i] >= 0) { /* a labeled row: its own class's components only */
            ptrdiff_t lo = codes[i] * M, hi = lo + M;
            for (ptrdiff_t k = 0; k < S; k++)
                row[k] = k >= lo && k < hi ? row[k] : -INFINITY;
        }
        double t = row[0];
        int nan = 0;
        for (ptrdiff_t k = 1; k < S; k++)
            t = row[k] > t ? row[k] : t;
        for (ptrdiff_t k = 0; k < S; k++)
            nan |= row[k] != row[k];
        top[i] = nan ? NAN : t;
        double shift = t > -INFINITY && t < INFINITY ? t : 0.0;
        for (ptrdiff_t k = 0; k < S; k++)
            row[k] -= shift;
    }
    double *flat = scores + start * S;
    for (ptrdiff_t j = 0; j < (end - start) * S; j++)
        flat[j] = NB_NAME(exp_nonpositive)(flat[j]);
    for (ptrdiff_t i = start; i < end; i++) { /* branch-free: rows of weight 0 are rare */
        double *row = scores + i * S;
        double w = row_weight[i], sum = 0.0;
        for (ptrdiff_t k = 0; k < S; k++)
            sum += row[k];
        int idle = w == 0.0;
        double scale = idle ? 0.0 : w / sum;
        for (ptrdiff_t k = 0; k < S; k++)
            row[k] = idle ? 0.0 : row[k] * scale;
        top[i] = idle ? 0.0 : top[i];
        total[i] = idle ? 1.0 : sum;
    }
}

NB_TARGET static void NB_NAME(em_responsibilities)(double *scores, ptrdiff_t n, ptrdiff_t S,
                                                   const ptrdiff_t *codes, ptrdiff_t M,
                                                   const double *row_weight, double *top,
                                                   double *total)
{
    for (ptrdiff_t start = 0; start < n; start += NB_EM_BLOCK) {
        ptrdiff_t end = n - start > NB_EM_BLOCK ? start + NB_EM_BLOCK : n;
#define NB_EM_CASE(width)                                                                  \
    case width:                                                                            \
        NB_NAME(em_block)(scores, start, end, width, codes, M, row_weight, top, total);   \
        break;
        switch (S) {
            NB_EM_CASE(2)
            NB_EM_CASE(3)
            NB_EM_CASE(4)
            NB_EM_CASE(6)
            NB_EM_CASE(8)
        default:
            NB_NAME(em_block)(scores, start, end, S, codes, M, row_weight, top, total);
        }
#undef NB_EM_CASE
    }
}

/* EM's M-step for category codes (see soft_count_codes in _kernels.pyx): every counted cell
 * adds row i's K weights (weights[i * ws0 + k * ws1]) to its K class-minor counts. The
 * weights sit in locals and the counts behind a restrict pointer, so that the adds of a cell
 * need no reloads (Cython's memoryviews cost about three times as much here). Returns the
 * number of codes below `lowest`, or -1 at the first counted code >= `limit`. */
NB_TARGET NB_INLINE ptrdiff_t NB_NAME(soft_count_rows)(
    const int64_t *codes, ptrdiff_t n, ptrdiff_t d, const double *weights, ptrdiff_t ws0,
    ptrdiff_t ws1, const ptrdiff_t K, const ptrdiff_t *offsets, double *restrict counts,
    int64_t lowest, int64_t limit, double *restrict row)
{
    ptrdiff_t n_below = 0;
#ifdef NB_VECTORS
/* The loop below with a row's weights in one vector, where they sit side by side. */
#define NB_SOFT_VECTOR_ROWS(vector)                                                        \
    for (ptrdiff_t i = 0; i < n; i++) {                                                    \
        const int64_t *code = codes + i * d;                                               \
        vector w = *(const vector *)(weights + i * ws0);                                   \
        for (ptrdiff_t j = 0; j < d; j++) {                                                \
            int64_t c = code[j];                                                           \
            if (c < 0) {                                                                   \
                n_below += c < lowest;                                                     \
                continue;                                                                  \
            }                                                                              \
            if (c >= limit)                                                                \
                return -1;                                                                 \
            *(vector *)(counts + (offsets[j] + c) * K) += w;                               \
        }                                                                                  \
    }                                                                                      \
    return n_below;
    if (K == 4 && ws1 == 1) {
        NB_SOFT_VECTOR_ROWS(nb_v4)
    }
    if (K == 2 && ws1 == 1) {
        NB_SOFT_VECTOR_ROWS(nb_v2)
    }
#undef NB_SOFT_VECTOR_ROWS
#endif
    for (ptrdiff_t i = 0; i < n; i++) {
        const int64_t *code = codes + i * d;
        for (ptrdiff_t k = 0; k < K; k++)
            row[k] = weights[i * ws0 + k * ws1];
        for (ptrdiff_t j = 0; j < d; j++) {
            int64_t c = code[j];
            if (c < 0) {
                n_below += c < lowest;
                continue;
            }
            if (c >= limit)
                return -1;
            double *restrict cell = counts + (offsets[j] + c) * K;
            for (ptrdiff_t k = 0; k < K; k++)
                cell[k] += row[k];
        }
    }
    return n_below;
}

NB_TARGET static ptrdiff_t NB_NAME(soft_count_codes)(
    const int64_t *codes, ptrdiff_t n, ptrdiff_t d, const double *weights, ptrdiff_t ws0,
    ptrdiff_t ws1, ptrdiff_t K, const ptrdiff_t *offsets, double *counts, int64_t lowest,
    int64_t limit, double *scratch)
{
    double row[8];
#define NB_SOFT_CASE(width)                                                                 \
    case width:                                                                             \
        return NB_NAME(soft_count_rows)(codes, n, d, weights, ws0, ws1, width, offsets,    \
                                        counts, lowest, limit, row);
    switch (K) { /* the common few classes with a literal width: the adds unroll */
        NB_SOFT_CASE(1)
        NB_SOFT_CASE(2)
        NB_SOFT_CASE(3)
        NB_SOFT_CASE(4)
        NB_SOFT_CASE(6)
        NB_SOFT_CASE(8)
    default:
        return NB_NAME(soft_count_rows)(codes, n, d, weights, ws0, ws1, K, offsets, counts,
                                        lowest, limit, scratch);
    }
#undef NB_SOFT_CASE
}

/* EM's M-step for Gaussian moments (see soft_moment_sums in _kernels.pyx): every class k adds
 * w (x_i - shift) and w (x_i - shift)^2 with w = weights[i * ws0 + k * ws1], in one pass
 * over X (n, d); one copy for double X, one for float. dev is room for a row's deviations
 * and their squares (2 d). */
#define NB_SOFT_MOMENTS(suffix, real)                                                       \
    NB_TARGET static void NB_NAME(soft_moment_sums_##suffix)(                               \
        const real *X, ptrdiff_t n, ptrdiff_t d, const double *weights, ptrdiff_t ws0,      \
        ptrdiff_t ws1, ptrdiff_t K, const double *shift, double *restrict sum_dev,          \
        double *restrict sum_sq, double *restrict dev)                                      \
    {                                                                                       \
        double *restrict sq = dev + d;                                                      \
        for (ptrdiff_t i = 0; i < n; i++) {                                                 \
            const real *x = X + i * d;                                                      \
            for (ptrdiff_t j = 0; j < d; j++) {                                             \
                dev[j] = x[j] - shift[j];                                                   \
                sq[j] = dev[j] * dev[j];                                                    \
            }                                                                               \
            for (ptrdiff_t k = 0; k < K; k++) {                                             \
                double w = weights[i * ws0 + k * ws1];                                      \
                if (w == 0.0)                                                               \
                    continue;                                                               \
                double *restrict s = sum_dev + k * d, *restrict q = sum_sq + k * d;         \
                for (ptrdiff_t j = 0; j < d; j++) {                                         \
                    s[j] += w * dev[j];                                                     \
                    q[j] += w * sq[j];                                                      \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
    }
NB_SOFT_MOMENTS(f64, double)
NB_SOFT_MOMENTS(f32, float)
#undef NB_SOFT_MOMENTS

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
