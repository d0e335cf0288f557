/* Word tokens and counts of texts for nbayes._text (see _text.pyx).
 *
 * A token is what Python's re finds with scikit-learn's default token pattern
 * (?u)\b\w\w+\b: a maximal run of word characters (Python's \w for str patterns: a character
 * that str.isalnum() accepts, or '_') at least two long. The text family's pattern
 * (?u)\b\w*[^\W\d_]\w*\b is a maximal run that holds a letter (a word character that is not a
 * decimal digit nor '_'). The texts come lowercased by str.lower() where lowercasing can change
 * more than ASCII letters; ASCII texts are lowercased here, which is the same.
 *
 * Everything here runs without the GIL: the texts are read through their PyUnicode data,
 * which the caller keeps alive, and the character classes come from the interpreter's own
 * tables (Py_UNICODE_ISALNUM, Py_UNICODE_ISDECIMAL), which need no interpreter state.
 */
#ifndef NB_TEXT_LOOPS_H
#define NB_TEXT_LOOPS_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const void *data;
    Py_ssize_t len;
    int kind;        /* PyUnicode kind: 1, 2 or 4 bytes a character */
    int ascii_lower; /* an ASCII text still to lowercase (A-Z -> a-z) as it is read */
} nbt_text;

/* A term of a table: its characters (lowercased where the texts were), one byte each where
 * every character is below 256, four bytes each otherwise -- one spelling per term, so that
 * two keys are the same term exactly when their bytes are equal. */
#define NBT_HEAD 16
typedef struct {
    uint64_t hash;
    const void *data; /* in the table's arena */
    Py_ssize_t len;
    int kind;         /* 1 or 4 */
    unsigned char head[NBT_HEAD]; /* a copy of a short one-byte term: compared in place */
} nbt_key;

/* Blocks the terms' characters are copied into; never moved, freed with the table. */
typedef struct nbt_block {
    struct nbt_block *next;
    size_t used, cap;
    char data[];
} nbt_block;

/* Open addressing over keys; a slot holds key index + 1 (0: empty) in its low 32 bits and
 * the high 32 bits of the key's hash in its high ones, so that a probe reads a key only
 * where the hashes agree. */
typedef struct {
    int64_t *slots;
    Py_ssize_t mask;
    nbt_key *keys;
    Py_ssize_t n, cap;
    nbt_block *arena;
} nbt_table;

/* A document-term matrix in CSR parts, grown as tokens come. */
typedef struct {
    int64_t *indptr; /* n_texts + 1 */
    int64_t *indices;
    double *data;
    Py_ssize_t nnz, cap;
} nbt_out;

enum { NBT_WORD = 1, NBT_LETTER = 2 };

#if defined(__GNUC__) || defined(__clang__)
#define NBT_PREFETCH(p) __builtin_prefetch(p)
#else
#define NBT_PREFETCH(p) ((void)0)
#endif

/* Tokens looked up together: their table slots, then their keys, are fetched from memory
 * side by side rather than one miss after another. */
#define NBT_BATCH 32

static unsigned char nbt_class[256];
static unsigned char nbt_lower[256];

static void nbt_init(void) {
    for (int c = 0; c < 256; c++) {
        unsigned char k = 0;
        if (c == '_' || Py_UNICODE_ISALNUM((Py_UCS4)c)) k |= NBT_WORD;
        if (Py_UNICODE_ISALNUM((Py_UCS4)c) && !Py_UNICODE_ISDECIMAL((Py_UCS4)c)) k |= NBT_LETTER;
        nbt_class[c] = k;
        nbt_lower[c] = (unsigned char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
    }
}

static inline int nbt_classify(Py_UCS4 c) {
    if (c < 256) return nbt_class[c];
    if (!Py_UNICODE_ISALNUM(c)) return 0;
    return Py_UNICODE_ISDECIMAL(c) ? NBT_WORD : (NBT_WORD | NBT_LETTER);
}

static inline Py_UCS4 nbt_at(const nbt_text *t, Py_ssize_t i) {
    switch (t->kind) {
    case 1: {
        Py_UCS4 c = ((const Py_UCS1 *)t->data)[i];
        return t->ascii_lower ? nbt_lower[c] : c;
    }
    case 2: return ((const Py_UCS2 *)t->data)[i];
    default: return ((const Py_UCS4 *)t->data)[i];
    }
}

#define NBT_FNV_START 0xcbf29ce484222325ULL
#define NBT_FNV_PRIME 0x100000001b3ULL
#define NBT_FINISH(h) ((h) ^ ((h) >> 29))

/* The next token of t at or after *pos: 1 with [*start, *start + *len) and its hash (that
 * of nbt_hash), or 0 at the end. mode 0: runs of two or more word characters; mode 1: runs
 * that hold a letter. */
static inline int nbt_next(const nbt_text *t, Py_ssize_t *pos, int mode, Py_ssize_t *start,
                           Py_ssize_t *len, uint64_t *hash) {
    Py_ssize_t i = *pos, n = t->len;
    if (t->kind == 1) {
        const Py_UCS1 *s = (const Py_UCS1 *)t->data;
        const unsigned char *cls = nbt_class;
        if (t->ascii_lower) {
            for (;;) {
                while (i < n && !(cls[s[i]] & NBT_WORD)) i++;
                if (i >= n) break;
                Py_ssize_t b = i;
                int letter = 0;
                uint64_t h = NBT_FNV_START;
                for (; i < n; i++) {
                    unsigned char c = s[i];
                    int k = cls[c];
                    if (!(k & NBT_WORD)) break;
                    letter |= k;
                    h = (h ^ nbt_lower[c]) * NBT_FNV_PRIME;
                }
                if (mode == 0 ? i - b >= 2 : (letter & NBT_LETTER) != 0) {
                    *pos = i; *start = b; *len = i - b; *hash = NBT_FINISH(h);
                    return 1;
                }
            }
        } else {
            for (;;) {
                while (i < n && !(cls[s[i]] & NBT_WORD)) i++;
                if (i >= n) break;
                Py_ssize_t b = i;
                int letter = 0;
                uint64_t h = NBT_FNV_START;
                for (; i < n; i++) {
                    unsigned char c = s[i];
                    int k = cls[c];
                    if (!(k & NBT_WORD)) break;
                    letter |= k;
                    h = (h ^ c) * NBT_FNV_PRIME;
                }
                if (mode == 0 ? i - b >= 2 : (letter & NBT_LETTER) != 0) {
                    *pos = i; *start = b; *len = i - b; *hash = NBT_FINISH(h);
                    return 1;
                }
            }
        }
    } else {
        for (;;) {
            while (i < n && !(nbt_classify(nbt_at(t, i)) & NBT_WORD)) i++;
            if (i >= n) break;
            Py_ssize_t b = i;
            int letter = 0, k;
            uint64_t h = NBT_FNV_START;
            Py_UCS4 c;
            while (i < n && ((k = nbt_classify(c = nbt_at(t, i))) & NBT_WORD)) {
                letter |= k;
                h = (h ^ c) * NBT_FNV_PRIME;
                i++;
            }
            if (mode == 0 ? i - b >= 2 : (letter & NBT_LETTER) != 0) {
                *pos = i; *start = b; *len = i - b; *hash = NBT_FINISH(h);
                return 1;
            }
        }
    }
    *pos = n;
    return 0;
}

static inline uint64_t nbt_hash(const nbt_text *t, Py_ssize_t start, Py_ssize_t len) {
    uint64_t h = NBT_FNV_START;
    if (t->kind == 1) {
        const Py_UCS1 *s = (const Py_UCS1 *)t->data + start;
        const unsigned char *low = nbt_lower;
        if (t->ascii_lower)
            for (Py_ssize_t i = 0; i < len; i++) h = (h ^ low[s[i]]) * 0x100000001b3ULL;
        else
            for (Py_ssize_t i = 0; i < len; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
    } else {
        for (Py_ssize_t i = 0; i < len; i++) h = (h ^ nbt_at(t, start + i)) * 0x100000001b3ULL;
    }
    return NBT_FINISH(h);
}

static inline Py_UCS4 nbt_key_at(const nbt_key *k, Py_ssize_t i) {
    return k->kind == 1 ? ((const Py_UCS1 *)k->data)[i] : ((const Py_UCS4 *)k->data)[i];
}

static inline int nbt_same(const nbt_key *k, const nbt_text *t, Py_ssize_t start,
                           Py_ssize_t len) {
    if (k->len != len) return 0;
    if (k->kind == 1 && t->kind == 1) {
        const Py_UCS1 *a = len <= NBT_HEAD ? k->head : (const Py_UCS1 *)k->data;
        const Py_UCS1 *b = (const Py_UCS1 *)t->data + start;
        if (!t->ascii_lower) return memcmp(a, b, (size_t)len) == 0;
        for (Py_ssize_t i = 0; i < len; i++)
            if (a[i] != nbt_lower[b[i]]) return 0;
        return 1;
    }
    for (Py_ssize_t i = 0; i < len; i++)
        if (nbt_key_at(k, i) != nbt_at(t, start + i)) return 0;
    return 1;
}

/* Room for size bytes in the table's arena (aligned for four-byte characters). */
static void *nbt_alloc(nbt_table *tb, size_t size) {
    size = (size + 7) & ~(size_t)7;
    nbt_block *b = tb->arena;
    if (!b || b->used + size > b->cap) {
        size_t cap = size > 65536 ? size : 65536;
        nbt_block *nb = (nbt_block *)malloc(sizeof(nbt_block) + cap);
        if (!nb) return NULL;
        nb->next = b; nb->used = 0; nb->cap = cap;
        tb->arena = b = nb;
    }
    void *p = b->data + b->used;
    b->used += size;
    return p;
}

/* Copy token [start, start + len) of t into the arena as k's characters; -1: no memory. */
static int nbt_store(nbt_table *tb, nbt_key *k, const nbt_text *t, Py_ssize_t start,
                     Py_ssize_t len) {
    Py_UCS4 top = 0;
    if (t->kind != 1)
        for (Py_ssize_t i = 0; i < len; i++) {
            Py_UCS4 c = nbt_at(t, start + i);
            if (c > top) top = c;
        }
    k->kind = top < 256 ? 1 : 4;
    void *p = nbt_alloc(tb, (size_t)(len ? len : 1) * (size_t)k->kind);
    if (!p) return -1;
    if (k->kind == 1)
        for (Py_ssize_t i = 0; i < len; i++) ((Py_UCS1 *)p)[i] = (Py_UCS1)nbt_at(t, start + i);
    else
        for (Py_ssize_t i = 0; i < len; i++) ((Py_UCS4 *)p)[i] = nbt_at(t, start + i);
    k->data = p;
    k->len = len;
    if (k->kind == 1 && len <= NBT_HEAD) memcpy(k->head, p, (size_t)len);
    return 0;
}

static int nbt_table_init(nbt_table *tb, Py_ssize_t expected) {
    Py_ssize_t size = 1024;
    while (size < 2 * expected) size *= 2;
    tb->slots = (int64_t *)calloc((size_t)size, sizeof(int64_t));
    tb->cap = size / 2;
    tb->keys = (nbt_key *)malloc((size_t)tb->cap * sizeof(nbt_key));
    tb->mask = size - 1;
    tb->n = 0;
    tb->arena = NULL;
    if (!tb->slots || !tb->keys) {
        free(tb->slots); free(tb->keys);
        tb->slots = NULL; tb->keys = NULL;
        return -1;
    }
    return 0;
}

static void nbt_table_free(nbt_table *tb) {
    while (tb->arena) {
        nbt_block *next = tb->arena->next;
        free(tb->arena);
        tb->arena = next;
    }
    free(tb->slots); free(tb->keys);
    tb->slots = NULL; tb->keys = NULL; tb->n = 0;
}

static int nbt_table_grow(nbt_table *tb) {
    Py_ssize_t size = (tb->mask + 1) * 2;
    int64_t *slots = (int64_t *)calloc((size_t)size, sizeof(int64_t));
    nbt_key *keys = (nbt_key *)realloc(tb->keys, (size_t)(size / 2) * sizeof(nbt_key));
    if (!slots || !keys) {
        free(slots);
        if (keys) tb->keys = keys;
        return -1;
    }
    tb->keys = keys;
    tb->cap = size / 2;
    tb->mask = size - 1;
    for (Py_ssize_t j = 0; j < tb->n; j++) {
        Py_ssize_t s = (Py_ssize_t)(keys[j].hash & (uint64_t)tb->mask);
        while (slots[s]) s = (s + 1) & tb->mask;
        slots[s] = (int64_t)((keys[j].hash >> 32) << 32 | (uint64_t)(j + 1));
    }
    free(tb->slots);
    tb->slots = slots;
    return 0;
}

/* Index of the token in tb, or -1 where it is not there. */
static inline Py_ssize_t nbt_find(const nbt_table *tb, uint64_t h, const nbt_text *t,
                                  Py_ssize_t start, Py_ssize_t len) {
    Py_ssize_t s = (Py_ssize_t)(h & (uint64_t)tb->mask);
    const uint64_t tag = h >> 32;
    for (;;) {
        uint64_t v = (uint64_t)tb->slots[s];
        if (!v) return -1;
        if ((v >> 32) == tag) {
            Py_ssize_t j = (Py_ssize_t)(v & 0xffffffffu) - 1;
            const nbt_key *k = &tb->keys[j];
            if (k->hash == h && nbt_same(k, t, start, len)) return j;
        }
        s = (s + 1) & tb->mask;
    }
}

/* Index of the token in tb, added at the end where it is new; -1: out of memory. */
static inline Py_ssize_t nbt_insert(nbt_table *tb, uint64_t h, const nbt_text *t,
                                    Py_ssize_t start, Py_ssize_t len) {
    Py_ssize_t s = (Py_ssize_t)(h & (uint64_t)tb->mask);
    const uint64_t tag = h >> 32;
    for (;;) {
        uint64_t v = (uint64_t)tb->slots[s];
        if (!v) break;
        if ((v >> 32) == tag) {
            Py_ssize_t j = (Py_ssize_t)(v & 0xffffffffu) - 1;
            const nbt_key *k = &tb->keys[j];
            if (k->hash == h && nbt_same(k, t, start, len)) return j;
        }
        s = (s + 1) & tb->mask;
    }
    if (tb->n >= tb->cap) {
        if (tb->n >= 0x7fffffff || nbt_table_grow(tb) < 0) return -1;
        s = (Py_ssize_t)(h & (uint64_t)tb->mask);
        while (tb->slots[s]) s = (s + 1) & tb->mask;
    }
    nbt_key *k = &tb->keys[tb->n];
    k->hash = h;
    if (nbt_store(tb, k, t, start, len) < 0) return -1;
    tb->n++;
    tb->slots[s] = (int64_t)(tag << 32 | (uint64_t)tb->n);
    return tb->n - 1;
}

/* Index in tb of another table's key, added (its characters copied) where it is new. */
static Py_ssize_t nbt_insert_key(nbt_table *tb, const nbt_key *o) {
    nbt_text t;
    t.data = o->data; t.len = o->len; t.kind = o->kind; t.ascii_lower = 0;
    return nbt_insert(tb, o->hash, &t, 0, o->len);
}

static int nbt_out_init(nbt_out *o, Py_ssize_t n_texts, Py_ssize_t cap) {
    o->indptr = (int64_t *)malloc((size_t)(n_texts + 1) * sizeof(int64_t));
    o->cap = cap < 16 ? 16 : cap;
    o->indices = (int64_t *)malloc((size_t)o->cap * sizeof(int64_t));
    o->data = (double *)malloc((size_t)o->cap * sizeof(double));
    o->nnz = 0;
    if (!o->indptr || !o->indices || !o->data) return -1;
    o->indptr[0] = 0;
    return 0;
}

static void nbt_out_free(nbt_out *o) {
    free(o->indptr); free(o->indices); free(o->data);
    o->indptr = NULL; o->indices = NULL; o->data = NULL;
}

static inline int nbt_out_push(nbt_out *o, int64_t index, double value) {
    if (o->nnz >= o->cap) {
        Py_ssize_t cap = o->cap * 2;
        int64_t *indices = (int64_t *)realloc(o->indices, (size_t)cap * sizeof(int64_t));
        if (!indices) return -1;
        o->indices = indices;
        double *data = (double *)realloc(o->data, (size_t)cap * sizeof(double));
        if (!data) return -1;
        o->data = data;
        o->cap = cap;
    }
    o->indices[o->nnz] = index;
    o->data[o->nnz++] = value;
    return 0;
}

/* Term counts of texts: with learn, every new token joins tb (codes in order of first
 * sight); without, tokens outside tb are left out. Each row holds a term once, in order of
 * first sight in the text. Returns 0, or -1 when out of memory. */
/* Word n-grams as scikit-learn joins them: the tokens of one text, then each run of n of
 * them (min_n <= n <= max_n) as one term, its tokens' characters with a space between, in a
 * four-byte buffer read as a text of its own. */
typedef struct {
    Py_ssize_t *start, *len; /* the tokens of the current text */
    Py_ssize_t n, cap;
    Py_UCS4 *buf;
    Py_ssize_t buf_cap;
} nbt_grams;

static void nbt_grams_free(nbt_grams *g) {
    free(g->start); free(g->len); free(g->buf);
    g->start = NULL; g->len = NULL; g->buf = NULL;
}

/* The tokens of t into g; -1: out of memory. */
static int nbt_grams_tokens(nbt_grams *g, const nbt_text *t, int mode) {
    Py_ssize_t pos = 0, start, len;
    uint64_t h;
    g->n = 0;
    while (nbt_next(t, &pos, mode, &start, &len, &h)) {
        if (g->n >= g->cap) {
            Py_ssize_t cap = g->cap ? 2 * g->cap : 256;
            Py_ssize_t *s2 = (Py_ssize_t *)realloc(g->start, (size_t)cap * sizeof(Py_ssize_t));
            if (!s2) return -1;
            g->start = s2;
            Py_ssize_t *l2 = (Py_ssize_t *)realloc(g->len, (size_t)cap * sizeof(Py_ssize_t));
            if (!l2) return -1;
            g->len = l2;
            g->cap = cap;
        }
        g->start[g->n] = start;
        g->len[g->n++] = len;
    }
    return 0;
}

/* Tokens i .. i + n - 1 of t joined by spaces, as the text *out; -1: out of memory. */
static int nbt_grams_join(nbt_grams *g, const nbt_text *t, Py_ssize_t i, Py_ssize_t n,
                          nbt_text *out) {
    Py_ssize_t size = n - 1;
    for (Py_ssize_t q = i; q < i + n; q++) size += g->len[q];
    if (size > g->buf_cap) {
        Py_ssize_t cap = g->buf_cap ? g->buf_cap : 256;
        while (cap < size) cap *= 2;
        Py_UCS4 *b2 = (Py_UCS4 *)realloc(g->buf, (size_t)cap * sizeof(Py_UCS4));
        if (!b2) return -1;
        g->buf = b2;
        g->buf_cap = cap;
    }
    Py_ssize_t m = 0;
    for (Py_ssize_t q = i; q < i + n; q++) {
        if (q > i) g->buf[m++] = ' ';
        for (Py_ssize_t c = 0; c < g->len[q]; c++) g->buf[m++] = nbt_at(t, g->start[q] + c);
    }
    out->data = g->buf; out->len = m; out->kind = 4; out->ascii_lower = 0;
    return 0;
}

/* The terms of one text in turn: its tokens (max_n 1), or its n-grams for n from min_n to
 * max_n (the tokens themselves where min_n is 1). */
typedef struct {
    const nbt_text *t;
    int mode, min_n, max_n;
    Py_ssize_t pos, uni_i, gram_n, gram_i;
    nbt_grams *g;
    nbt_text joined;
} nbt_cursor;

static int nbt_cursor_start(nbt_cursor *c, const nbt_text *t, int mode, int min_n, int max_n,
                            nbt_grams *g) {
    c->t = t; c->mode = mode; c->min_n = min_n; c->max_n = max_n; c->g = g;
    c->pos = 0; c->uni_i = 0; c->gram_n = min_n > 1 ? min_n : 2; c->gram_i = 0;
    return max_n > 1 ? nbt_grams_tokens(g, t, mode) : 0;
}

/* 1 with the next term (in *src at [*start, *start + *len), hash *h), 0 at the end, -1 when
 * out of memory. */
static inline int nbt_cursor_next(nbt_cursor *c, const nbt_text **src, Py_ssize_t *start,
                                  Py_ssize_t *len, uint64_t *h) {
    if (c->max_n == 1) {
        *src = c->t;
        return nbt_next(c->t, &c->pos, c->mode, start, len, h);
    }
    nbt_grams *g = c->g;
    if (c->min_n == 1 && c->uni_i < g->n) {
        Py_ssize_t i = c->uni_i++;
        *src = c->t; *start = g->start[i]; *len = g->len[i];
        *h = nbt_hash(c->t, *start, *len);
        return 1;
    }
    while (c->gram_n <= c->max_n && c->gram_n <= g->n) {
        if (c->gram_i + c->gram_n <= g->n) {
            if (nbt_grams_join(g, c->t, c->gram_i++, c->gram_n, &c->joined) < 0) return -1;
            *src = &c->joined; *start = 0; *len = c->joined.len;
            *h = nbt_hash(&c->joined, 0, *len);
            return 1;
        }
        c->gram_n++;
        c->gram_i = 0;
    }
    return 0;
}

static int nbt_count(const nbt_text *texts, Py_ssize_t n_texts, int mode, int min_n,
                     int max_n, nbt_table *tb, int learn, nbt_out *out) {
    /* Per term: the last text it was seen in, and where its count is in out. */
    typedef struct { int64_t last, where; } seen_t;
    Py_ssize_t seen_cap = tb->n + 1024;
    seen_t *seen = (seen_t *)malloc((size_t)seen_cap * sizeof(seen_t));
    nbt_grams g = {NULL, NULL, 0, 0, NULL, 0};
    if (!seen) return -1;
    for (Py_ssize_t j = 0; j < seen_cap; j++) seen[j].last = -1;
    for (Py_ssize_t d = 0; d < n_texts; d++) {
        nbt_cursor cur;
        const nbt_text *src;
        Py_ssize_t start, len;
        uint64_t h;
        int more;
        if (max_n == 1) {
            /* Tokens in batches: fetch their slots, then their keys and counts, then count. */
            const nbt_text *t = &texts[d];
            Py_ssize_t pos = 0, bs[NBT_BATCH], bl[NBT_BATCH];
            uint64_t bh[NBT_BATCH];
            for (;;) {
                int m = 0;
                while (m < NBT_BATCH && nbt_next(t, &pos, mode, &bs[m], &bl[m], &bh[m])) {
                    NBT_PREFETCH(&tb->slots[bh[m] & (uint64_t)tb->mask]);
                    m++;
                }
                if (!m) break;
                for (int q = 0; q < m; q++) {
                    uint64_t v = (uint64_t)tb->slots[bh[q] & (uint64_t)tb->mask];
                    Py_ssize_t j = (Py_ssize_t)(v & 0xffffffffu) - 1;
                    if (v && (v >> 32) == (bh[q] >> 32)) {
                        NBT_PREFETCH(&tb->keys[j]);
                        if (j < seen_cap) NBT_PREFETCH(&seen[j]);
                    }
                }
                for (int q = 0; q < m; q++) {
                    Py_ssize_t j = learn ? nbt_insert(tb, bh[q], t, bs[q], bl[q])
                                         : nbt_find(tb, bh[q], t, bs[q], bl[q]);
                    if (j < 0) {
                        if (learn) goto fail;
                        continue;
                    }
                    if (j >= seen_cap) {
                        Py_ssize_t cap = seen_cap * 2;
                        while (cap <= j) cap *= 2;
                        seen_t *grown = (seen_t *)realloc(seen, (size_t)cap * sizeof(seen_t));
                        if (!grown) goto fail;
                        seen = grown;
                        for (Py_ssize_t r = seen_cap; r < cap; r++) seen[r].last = -1;
                        seen_cap = cap;
                    }
                    if (seen[j].last == d) {
                        out->data[seen[j].where] += 1.0;
                    } else {
                        seen[j].last = d;
                        seen[j].where = out->nnz;
                        if (nbt_out_push(out, j, 1.0) < 0) goto fail;
                    }
                }
                if (m < NBT_BATCH) break;
            }
            out->indptr[d + 1] = out->nnz;
            continue;
        }
        if (nbt_cursor_start(&cur, &texts[d], mode, min_n, max_n, &g) < 0) goto fail;
        while ((more = nbt_cursor_next(&cur, &src, &start, &len, &h)) != 0) {
            if (more < 0) goto fail;
            Py_ssize_t j = learn ? nbt_insert(tb, h, src, start, len)
                                 : nbt_find(tb, h, src, start, len);
            if (j < 0) {
                if (learn) goto fail;
                continue;
            }
            if (j >= seen_cap) {
                Py_ssize_t cap = seen_cap * 2;
                while (cap <= j) cap *= 2;
                seen_t *grown = (seen_t *)realloc(seen, (size_t)cap * sizeof(seen_t));
                if (!grown) goto fail;
                seen = grown;
                for (Py_ssize_t q = seen_cap; q < cap; q++) seen[q].last = -1;
                seen_cap = cap;
            }
            if (seen[j].last == d) {
                out->data[seen[j].where] += 1.0;
            } else {
                seen[j].last = d;
                seen[j].where = out->nnz;
                if (nbt_out_push(out, j, 1.0) < 0) goto fail;
            }
        }
        out->indptr[d + 1] = out->nnz;
    }
    free(seen);
    nbt_grams_free(&g);
    return 0;
fail:
    free(seen);
    nbt_grams_free(&g);
    return -1;
}

/* MurmurHash3 (x86, 32 bits) of len bytes, as scikit-learn's murmurhash3_32. */
static inline uint32_t nbt_rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static uint32_t nbt_murmur3(const unsigned char *p, Py_ssize_t len, uint32_t seed) {
    const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
    uint32_t h = seed, k;
    Py_ssize_t blocks = len / 4;
    for (Py_ssize_t i = 0; i < blocks; i++) {
        memcpy(&k, p + 4 * i, 4);
        k *= c1; k = nbt_rotl(k, 15); k *= c2;
        h ^= k; h = nbt_rotl(h, 13); h = h * 5 + 0xe6546b64u;
    }
    const unsigned char *tail = p + 4 * blocks;
    k = 0;
    switch (len & 3) {
    case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1:
        k ^= tail[0];
        k *= c1; k = nbt_rotl(k, 15); k *= c2; h ^= k;
    }
    h ^= (uint32_t)len;
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    return h;
}

/* Hashed term counts as scikit-learn's HashingVectorizer makes them before it sums
 * duplicates: one entry a token, its column from the signed MurmurHash3 (seed 0) of the
 * token's UTF-8 bytes, its value -1 for a negative hash when alternate_sign is set.
 * Returns 0, or -1 when out of memory. */
static int nbt_hash_count(const nbt_text *texts, Py_ssize_t n_texts, int mode, int min_n,
                          int max_n, int64_t n_features, int alternate_sign, nbt_out *out) {
    Py_ssize_t cap = 256;
    unsigned char *buf = (unsigned char *)malloc((size_t)cap);
    nbt_grams g = {NULL, NULL, 0, 0, NULL, 0};
    if (!buf) return -1;
    for (Py_ssize_t d = 0; d < n_texts; d++) {
        nbt_cursor cur;
        const nbt_text *t;
        Py_ssize_t start, len;
        uint64_t unused;
        int more;
        if (nbt_cursor_start(&cur, &texts[d], mode, min_n, max_n, &g) < 0) goto fail;
        while ((more = nbt_cursor_next(&cur, &t, &start, &len, &unused)) != 0) {
            if (more < 0) goto fail;
            if (4 * len > cap) {
                while (4 * len > cap) cap *= 2;
                unsigned char *b2 = (unsigned char *)realloc(buf, (size_t)cap);
                if (!b2) goto fail;
                buf = b2;
            }
            Py_ssize_t m = 0;
            if (t->kind == 1 && t->ascii_lower) {
                const Py_UCS1 *s = (const Py_UCS1 *)t->data + start;
                for (Py_ssize_t i = 0; i < len; i++) buf[m++] = nbt_lower[s[i]];
            } else {
                for (Py_ssize_t i = 0; i < len; i++) {
                    Py_UCS4 c = nbt_at(t, start + i); /* never a surrogate: not a word char */
                    if (c < 0x80) {
                        buf[m++] = (unsigned char)c;
                    } else if (c < 0x800) {
                        buf[m++] = (unsigned char)(0xC0 | (c >> 6));
                        buf[m++] = (unsigned char)(0x80 | (c & 0x3F));
                    } else if (c < 0x10000) {
                        buf[m++] = (unsigned char)(0xE0 | (c >> 12));
                        buf[m++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
                        buf[m++] = (unsigned char)(0x80 | (c & 0x3F));
                    } else {
                        buf[m++] = (unsigned char)(0xF0 | (c >> 18));
                        buf[m++] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
                        buf[m++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
                        buf[m++] = (unsigned char)(0x80 | (c & 0x3F));
                    }
                }
            }
            int32_t h = (int32_t)nbt_murmur3(buf, m, 0);
            int64_t column;
            if (h == INT32_MIN)
                column = (2147483647LL - (n_features - 1)) % n_features;
            else
                column = (int64_t)(h < 0 ? -(int64_t)h : (int64_t)h) % n_features;
            double value = (alternate_sign && h < 0) ? -1.0 : 1.0;
            if (nbt_out_push(out, column, value) < 0) goto fail;
        }
        out->indptr[d + 1] = out->nnz;
    }
    free(buf);
    nbt_grams_free(&g);
    return 0;
fail:
    free(buf);
    nbt_grams_free(&g);
    return -1;
}

#endif
