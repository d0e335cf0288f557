/* The loops of _kernels_loops.h compiled twice on x86-64 -- for the baseline instruction set
 * and for AVX2 with FMA -- and picked when called by what the CPU supports. Elsewhere they
 * are compiled once, for the target. One build then runs fast on every x86-64 machine. */
#ifndef NB_KERNELS_SIMD_H
#define NB_KERNELS_SIMD_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define NB_INLINE static inline __attribute__((always_inline))
#else
#define NB_INLINE static inline
#endif

/* 2^k for an integer-valued k in [-1022, 1023], written straight into the exponent bits. */
NB_INLINE double nb_pow2(double k)
{
    double t = k + 6755399441055744.0; /* k now sits in the low mantissa bits */
    uint64_t bits;
    memcpy(&bits, &t, 8);
    bits = (bits - UINT64_C(0x4338000000000000) + 1023) << 52;
    memcpy(&t, &bits, 8);
    return t;
}

/* out[k] = init[k] + sum_r rows[r][first + k] for k < width; called with a literal width,
 * so the class loop unrolls and its sums stay in registers. */
NB_INLINE void nb_sum_rows(double *out, const double *init, const double **rows,
                           ptrdiff_t n_rows, ptrdiff_t first, const int width)
{
    double acc[8];
    for (int k = 0; k < width; k++)
        acc[k] = init[k];
    for (ptrdiff_t r = 0; r < n_rows; r++) {
        const double *src = rows[r] + first;
        for (int k = 0; k < width; k++)
            acc[k] += src[k];
    }
    for (int k = 0; k < width; k++)
        out[k] = acc[k];
}

/* Vectors of 4 and 2 doubles at any 8-byte-aligned address, where the compiler has them:
 * one add of a row's class weights to a cell's class-minor counts (soft_count_codes), which
 * the compilers do not find for the scalar loop. Elsewhere the loop stays scalar. */
#if defined(__GNUC__) || defined(__clang__)
#define NB_VECTORS 1
typedef double nb_v4 __attribute__((vector_size(32), aligned(8), may_alias));
typedef double nb_v2 __attribute__((vector_size(16), aligned(8), may_alias));
#endif

/* The parameters of categorical_scores, shared by its copies and the dispatcher. */
#define NB_CATEGORICAL_SCORES_PARAMS \
    const int64_t *codes, ptrdiff_t n, ptrdiff_t d, const ptrdiff_t *offsets, \
    const int64_t *n_categories, const double *table, const double *unseen_table, \
    const double *nothing, ptrdiff_t n_pairs, const ptrdiff_t *pair_a, \
    const ptrdiff_t *pair_b, const ptrdiff_t *pair_offsets, const double *pair_table, \
    ptrdiff_t n_singles, const ptrdiff_t *singles, ptrdiff_t n_classes, const double *init, \
    int64_t lowest, ptrdiff_t *n_below, double *out, const double **rows

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NB_DISPATCH 1
#define NB_TARGET __attribute__((target("avx2,fma")))
#define NB_NAME(f) nb_##f##_avx2
#include "_kernels_loops.h"
#undef NB_TARGET
#undef NB_NAME
#endif

#define NB_TARGET
#define NB_NAME(f) nb_##f##_base
#include "_kernels_loops.h"
#undef NB_TARGET
#undef NB_NAME

/* Set by the tests to run the baseline loops on a machine that has AVX2. */
static int nb_force_baseline = 0;

static inline int nb_has_avx2(void)
{
#ifdef NB_DISPATCH
    static int known = -1;
    if (nb_force_baseline)
        return 0;
    if (known < 0)
        known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return known;
#else
    return 0;
#endif
}

static ptrdiff_t nb_categorical_scores(NB_CATEGORICAL_SCORES_PARAMS)
{
#ifdef NB_DISPATCH
    if (nb_has_avx2())
        return nb_categorical_scores_avx2(codes, n, d, offsets, n_categories, table,
                                          unseen_table, nothing, n_pairs, pair_a, pair_b,
                                          pair_offsets, pair_table, n_singles, singles,
                                          n_classes, init, lowest, n_below, out, rows);
#endif
    return nb_categorical_scores_base(codes, n, d, offsets, n_categories, table,
                                      unseen_table, nothing, n_pairs, pair_a, pair_b,
                                      pair_offsets, pair_table, n_singles, singles,
                                      n_classes, init, lowest, n_below, out, rows);
}

static ptrdiff_t nb_normalise_rows(double *jll, ptrdiff_t n, ptrdiff_t n_classes,
                                   int log_space)
{
#ifdef NB_DISPATCH
    if (nb_has_avx2())
        return nb_normalise_rows_avx2(jll, n, n_classes, log_space);
#endif
    return nb_normalise_rows_base(jll, n, n_classes, log_space);
}

static void nb_em_responsibilities(double *scores, ptrdiff_t n, ptrdiff_t S,
                                   const ptrdiff_t *codes, ptrdiff_t M,
                                   const double *row_weight, double *top, double *total)
{
#ifdef NB_DISPATCH
    if (nb_has_avx2()) {
        nb_em_responsibilities_avx2(scores, n, S, codes, M, row_weight, top, total);
        return;
    }
#endif
    nb_em_responsibilities_base(scores, n, S, codes, M, row_weight, top, total);
}

#define NB_SOFT_COUNT_ARGS codes, n, d, weights, ws0, ws1, K, offsets, counts, lowest, limit, \
    scratch
static ptrdiff_t nb_soft_count_codes(const int64_t *codes, ptrdiff_t n, ptrdiff_t d,
                                     const double *weights, ptrdiff_t ws0, ptrdiff_t ws1,
                                     ptrdiff_t K, const ptrdiff_t *offsets, double *counts,
                                     int64_t lowest, int64_t limit, double *scratch)
{
#ifdef NB_DISPATCH
    if (nb_has_avx2())
        return nb_soft_count_codes_avx2(NB_SOFT_COUNT_ARGS);
#endif
    return nb_soft_count_codes_base(NB_SOFT_COUNT_ARGS);
}

#define NB_SOFT_MOMENTS_ARGS X, n, d, weights, ws0, ws1, K, shift, sum_dev, sum_sq, dev
static void nb_soft_moment_sums_f64(const double *X, ptrdiff_t n, ptrdiff_t d,
                                    const double *weights, ptrdiff_t ws0, ptrdiff_t ws1,
                                    ptrdiff_t K, const double *shift, double *sum_dev,
                                    double *sum_sq, double *dev)
{
#ifdef NB_DISPATCH
    if (nb_has_avx2()) {
        nb_soft_moment_sums_f64_avx2(NB_SOFT_MOMENTS_ARGS);
        return;
    }
#endif
    nb_soft_moment_sums_f64_base(NB_SOFT_MOMENTS_ARGS);
}

static void nb_soft_moment_sums_f32(const float *X, ptrdiff_t n, ptrdiff_t d,
                                    const double *weights, ptrdiff_t ws0, ptrdiff_t ws1,
                                    ptrdiff_t K, const double *shift, double *sum_dev,
                                    double *sum_sq, double *dev)
{
#ifdef NB_DISPATCH
    if (nb_has_avx2()) {
        nb_soft_moment_sums_f32_avx2(NB_SOFT_MOMENTS_ARGS);
        return;
    }
#endif
    nb_soft_moment_sums_f32_base(NB_SOFT_MOMENTS_ARGS);
}

#define NB_NETWORK_SCORES_ARGS codes, n, d, n_categories, width, cols, strides, offsets, \
    flat, n_classes, init, out, incomplete, rows
static ptrdiff_t nb_network_scores(
    const int64_t *codes, ptrdiff_t n, ptrdiff_t d, const int64_t *n_categories,
    ptrdiff_t width, const ptrdiff_t *cols, const int64_t *strides, const int64_t *offsets,
    const double *flat, ptrdiff_t n_classes, const double *init, double *out,
    unsigned char *incomplete, const double **rows)
{
#ifdef NB_DISPATCH
    if (nb_has_avx2())
        return nb_network_scores_avx2(NB_NETWORK_SCORES_ARGS);
#endif
    return nb_network_scores_base(NB_NETWORK_SCORES_ARGS);
}

#define NB_ANDE_SCORES_ARGS codes, n, d, n_categories, child_offsets, row_length, n_sets, \
    q_width, q_cols, q_strides, q_offsets, qualify, flat, n_classes, init, out, found, \
    scratch, keys, rows
static ptrdiff_t nb_ande_scores(
    const int64_t *codes, ptrdiff_t n, ptrdiff_t d, const int64_t *n_categories,
    const int64_t *child_offsets, int64_t row_length, ptrdiff_t n_sets, ptrdiff_t q_width,
    const ptrdiff_t *q_cols, const int64_t *q_strides, const int64_t *q_offsets,
    const unsigned char *qualify, const double *flat, ptrdiff_t n_classes,
    const double *init, double *out, unsigned char *found, double *scratch, int64_t *keys,
    const double **rows)
{
#ifdef NB_DISPATCH
    if (nb_has_avx2())
        return nb_ande_scores_avx2(NB_ANDE_SCORES_ARGS);
#endif
    return nb_ande_scores_base(NB_ANDE_SCORES_ARGS);
}

/* out (n, width) = X @ W for CSR X (data, indices, indptr; indptr may start anywhere in
 * data) and W (n_features, width): each row's products added in the order of its stored
 * values, with separate multiplies and adds, as scipy.sparse adds them, so the sums are
 * the same bit for bit. Its AVX2 copy is built without FMA for that reason (a fused
 * multiply-add rounds once). The rows of W that the values some places ahead will read
 * are fetched early: a grid search's stacked tables are larger than the cache. */
#if defined(__GNUC__) || defined(__clang__)
#define NB_RESTRICT __restrict__
#define NB_FETCH(p) __builtin_prefetch(p)
#else
#define NB_RESTRICT
#define NB_FETCH(p) ((void)0)
#endif
#define NB_FETCH_AHEAD 16

#define NB_CSR_PRODUCT(NAME, VALUE, INDEX, TARGET)                                          \
    TARGET static void NAME(const VALUE *data, const INDEX *indices, const INDEX *indptr,   \
                            ptrdiff_t n, const double *W, ptrdiff_t width, double *out)    \
    {                                                                                       \
        const ptrdiff_t last = (ptrdiff_t)indptr[n];                                        \
        for (ptrdiff_t i = 0; i < n; i++) {                                                 \
            double *NB_RESTRICT row = out + i * width;                                      \
            for (ptrdiff_t k = 0; k < width; k++)                                           \
                row[k] = 0.0;                                                               \
            for (ptrdiff_t p = (ptrdiff_t)indptr[i]; p < (ptrdiff_t)indptr[i + 1]; p++) {   \
                if (p + NB_FETCH_AHEAD < last) {                                            \
                    const double *ahead =                                                   \
                        W + (ptrdiff_t)indices[p + NB_FETCH_AHEAD] * width;                 \
                    for (ptrdiff_t k = 0; k < width; k += 8)                                \
                        NB_FETCH(ahead + k);                                                \
                    NB_FETCH(ahead + width - 1);                                            \
                }                                                                           \
                const double x = (double)data[p];                                           \
                const double *NB_RESTRICT w = W + (ptrdiff_t)indices[p] * width;            \
                for (ptrdiff_t k = 0; k < width; k++)                                       \
                    row[k] += x * w[k];                                                     \
            }                                                                               \
        }                                                                                   \
    }

#ifdef NB_DISPATCH
#define NB_AVX2_ONLY __attribute__((target("avx2")))
#define NB_CSR_PRODUCTS(SUFFIX, VALUE, INDEX)                                               \
    NB_CSR_PRODUCT(nb_csr_product_##SUFFIX##_avx2, VALUE, INDEX, NB_AVX2_ONLY)              \
    NB_CSR_PRODUCT(nb_csr_product_##SUFFIX##_base, VALUE, INDEX, )                          \
    static void nb_csr_product_##SUFFIX(const VALUE *data, const INDEX *indices,            \
                                        const INDEX *indptr, ptrdiff_t n, const double *W,  \
                                        ptrdiff_t width, double *out)                       \
    {                                                                                       \
        if (nb_has_avx2())                                                                  \
            nb_csr_product_##SUFFIX##_avx2(data, indices, indptr, n, W, width, out);        \
        else                                                                                \
            nb_csr_product_##SUFFIX##_base(data, indices, indptr, n, W, width, out);        \
    }
#else
#define NB_CSR_PRODUCTS(SUFFIX, VALUE, INDEX)                                               \
    NB_CSR_PRODUCT(nb_csr_product_##SUFFIX, VALUE, INDEX, )
#endif

NB_CSR_PRODUCTS(f64_i32, double, int32_t)
NB_CSR_PRODUCTS(f64_i64, double, int64_t)
NB_CSR_PRODUCTS(f32_i32, float, int32_t)
NB_CSR_PRODUCTS(f32_i64, float, int64_t)
NB_CSR_PRODUCTS(i64_i32, int64_t, int32_t)
NB_CSR_PRODUCTS(i64_i64, int64_t, int64_t)
NB_CSR_PRODUCTS(i32_i32, int32_t, int32_t)
NB_CSR_PRODUCTS(i32_i64, int32_t, int64_t)

/* out[:, c*K:(c+1)*K] = X @ W_c for each candidate c, X in CSC (data, row indices, indptr
 * over n_cols columns) and W_c zero but for its cells: column j's cells are
 * cell_ptr[j]..cell_ptr[j+1], cell q holding logged[c * n_cells + q] in class cell_class[q].
 * Candidate by candidate, each column's K values are laid out once in w and added to the
 * rows the column holds, in acc (n_rows, K): those sums stay in cache. acc comes zeroed
 * and is left zeroed. Each row adds its products in the order of the columns. */
#define NB_CSC_TABLE_PRODUCT(NAME, INDEX, TARGET)                                           \
    TARGET static void NAME(const double *data, const INDEX *rows, const INDEX *indptr,     \
                            ptrdiff_t n_cols, const int64_t *cell_ptr,                      \
                            const int64_t *cell_class, const double *logged,                \
                            ptrdiff_t n_cells, ptrdiff_t m, ptrdiff_t K, double *acc,       \
                            double *w, ptrdiff_t n_rows, double *out)                       \
    {                                                                                       \
        for (ptrdiff_t c = 0; c < m; c++) {                                                 \
            const double *values = logged + c * n_cells;                                    \
            for (ptrdiff_t j = 0; j < n_cols; j++) {                                        \
                if (indptr[j] == indptr[j + 1])                                             \
                    continue;                                                               \
                for (ptrdiff_t k = 0; k < K; k++)                                           \
                    w[k] = 0.0;                                                             \
                for (int64_t q = cell_ptr[j]; q < cell_ptr[j + 1]; q++)                     \
                    w[cell_class[q]] = values[q];                                           \
                for (ptrdiff_t p = (ptrdiff_t)indptr[j]; p < (ptrdiff_t)indptr[j + 1]; p++) { \
                    const double x = data[p];                                               \
                    double *NB_RESTRICT row = acc + (ptrdiff_t)rows[p] * K;                 \
                    for (ptrdiff_t k = 0; k < K; k++)                                       \
                        row[k] += x * w[k];                                                 \
                }                                                                           \
            }                                                                               \
            for (ptrdiff_t i = 0; i < n_rows; i++) {                                        \
                memcpy(out + i * m * K + c * K, acc + i * K, K * sizeof(double));           \
                memset(acc + i * K, 0, K * sizeof(double));                                 \
            }                                                                               \
        }                                                                                   \
    }

#ifdef NB_DISPATCH
#define NB_CSC_TABLE_PRODUCTS(SUFFIX, INDEX)                                                \
    NB_CSC_TABLE_PRODUCT(nb_csc_table_product_##SUFFIX##_avx2, INDEX, NB_AVX2_ONLY)         \
    NB_CSC_TABLE_PRODUCT(nb_csc_table_product_##SUFFIX##_base, INDEX, )                     \
    static void nb_csc_table_product_##SUFFIX(                                              \
        const double *data, const INDEX *rows, const INDEX *indptr, ptrdiff_t n_cols,       \
        const int64_t *cell_ptr, const int64_t *cell_class, const double *logged,           \
        ptrdiff_t n_cells, ptrdiff_t m, ptrdiff_t K, double *acc, double *w,                \
        ptrdiff_t n_rows, double *out)                                                      \
    {                                                                                       \
        if (nb_has_avx2())                                                                  \
            nb_csc_table_product_##SUFFIX##_avx2(data, rows, indptr, n_cols, cell_ptr,      \
                                                 cell_class, logged, n_cells, m, K, acc, w, \
                                                 n_rows, out);                              \
        else                                                                                \
            nb_csc_table_product_##SUFFIX##_base(data, rows, indptr, n_cols, cell_ptr,      \
                                                 cell_class, logged, n_cells, m, K, acc, w, \
                                                 n_rows, out);                              \
    }
#else
#define NB_CSC_TABLE_PRODUCTS(SUFFIX, INDEX)                                                \
    NB_CSC_TABLE_PRODUCT(nb_csc_table_product_##SUFFIX, INDEX, )
#endif

NB_CSC_TABLE_PRODUCTS(i32, int32_t)
NB_CSC_TABLE_PRODUCTS(i64, int64_t)

#endif
