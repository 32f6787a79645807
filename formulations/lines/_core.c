/* The compiled line-solving core: settling one line (seed 003's Settle, bit-parallel over
 * multi-word bit sets, so lines of any length) and the propagation queue over rows and columns
 * with a memo of settled lines shared by every engine.
 *
 * The algorithms are those described in formulations/lines/settle.py and engine.py; this file
 * is their only implementation. A line of n cells is held as ceil((n + 1) / 64) words per
 * colour (bit positions 0..n: position n is the boundary after the last cell, needed by the
 * forward and backward passes); bits above position n are always zero.
 *
 * Python sees ints (one position bit set per line and colour, as before); they are converted to
 * words at the boundary. Built by setup.py (plain C API, no Cython), see docs/line_core.md.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

typedef uint64_t u64;

#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#define POPC(x) ((int)__builtin_popcountll(x))
#define CTZ(x) ((int)__builtin_ctzll(x))
#define CLZ(x) ((int)__builtin_clzll(x))
#else
#define INLINE static inline
static int POPC(u64 x) { int c = 0; while (x) { x &= x - 1; c++; } return c; }
static int CTZ(u64 x) { int c = 0; while (!(x & 1)) { x >>= 1; c++; } return c; }
static int CLZ(u64 x) { int c = 0; while (!(x >> 63)) { x <<= 1; c++; } return c; }
#endif

/* ---------------------------------------------------------------------------------------------
 * Python ints <-> little-endian words
 * ------------------------------------------------------------------------------------------- */

static int int_to_words(PyObject *o, u64 *w, int nw)
{
    if (!PyLong_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "line masks must be ints");
        return -1;
    }
    if (nw == 1) {
        unsigned long long v = PyLong_AsUnsignedLongLong(o);
        if (v == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        w[0] = v;
        return 0;
    }
#if PY_VERSION_HEX >= 0x030D0000
    {
        Py_ssize_t need = PyLong_AsNativeBytes(o, w, (Py_ssize_t)nw * 8,
                                               Py_ASNATIVEBYTES_LITTLE_ENDIAN
                                               | Py_ASNATIVEBYTES_UNSIGNED_BUFFER
                                               | Py_ASNATIVEBYTES_REJECT_NEGATIVE);
        if (need < 0)
            return -1;
        if (need > (Py_ssize_t)nw * 8) {
            PyErr_SetString(PyExc_OverflowError, "line mask longer than its line");
            return -1;
        }
    }
#else
    if (_PyLong_AsByteArray((PyLongObject *)o, (unsigned char *)w, (size_t)nw * 8, 1, 0) < 0)
        return -1;
#endif
#if !PY_LITTLE_ENDIAN
    for (int i = 0; i < nw; i++)
        w[i] = __builtin_bswap64(w[i]);
#endif
    return 0;
}

static PyObject *words_to_int(const u64 *w, int nw)
{
    if (nw == 1)
        return PyLong_FromUnsignedLongLong(w[0]);
    int used = nw;
    while (used > 1 && !w[used - 1])
        used--;
    if (used == 1)
        return PyLong_FromUnsignedLongLong(w[0]);
#if PY_LITTLE_ENDIAN
    const u64 *src = w;
#else
    u64 tmp[used];
    for (int i = 0; i < used; i++)
        tmp[i] = __builtin_bswap64(w[i]);
    const u64 *src = tmp;
#endif
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(src, (size_t)used * 8, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray((const unsigned char *)src, (size_t)used * 8, 1, 0);
#endif
}

/* ---------------------------------------------------------------------------------------------
 * Bit sets of nw words (positions 0..n; the top word masked by `top`)
 * ------------------------------------------------------------------------------------------- */

INLINE int nwords(int n) { return n / 64 + 1; }
INLINE u64 topmask(int n) { int b = (n % 64) + 1; return b == 64 ? ~(u64)0 : (((u64)1 << b) - 1); }
/* cells 0..n-1 of word i */
INLINE u64 fullword(int n, int i)
{
    int lo = i * 64;
    if (n >= lo + 64) return ~(u64)0;
    if (n <= lo) return 0;
    return ((u64)1 << (n - lo)) - 1;
}

INLINE void bs_copy(u64 *d, const u64 *s, int nw) { for (int i = 0; i < nw; i++) d[i] = s[i]; }
INLINE void bs_zero(u64 *d, int nw) { for (int i = 0; i < nw; i++) d[i] = 0; }
INLINE int bs_any(const u64 *s, int nw) { u64 a = 0; for (int i = 0; i < nw; i++) a |= s[i]; return a != 0; }
INLINE int bs_eq(const u64 *a, const u64 *b, int nw)
{ for (int i = 0; i < nw; i++) if (a[i] != b[i]) return 0; return 1; }
INLINE int bs_bit(const u64 *s, int p) { return (int)(s[p >> 6] >> (p & 63)) & 1; }
INLINE void bs_setbit(u64 *s, int p) { s[p >> 6] |= (u64)1 << (p & 63); }

/* d = s >> k (d may be s: words are read at or above the one written) */
INLINE void bs_shr(u64 *d, const u64 *s, int k, int nw)
{
    int q = k >> 6, r = k & 63;
    for (int i = 0; i < nw; i++) {
        u64 lo = (i + q < nw) ? s[i + q] : 0;
        u64 hi = (i + q + 1 < nw) ? s[i + q + 1] : 0;
        d[i] = r ? ((lo >> r) | (hi << (64 - r))) : lo;
    }
}

/* d = (s << k) & top-masked (d may be s: written from the top down) */
INLINE void bs_shl(u64 *d, const u64 *s, int k, int nw, u64 top)
{
    int q = k >> 6, r = k & 63;
    for (int i = nw - 1; i >= 0; i--) {
        u64 hi = (i - q >= 0) ? s[i - q] : 0;
        u64 lo = (i - q - 1 >= 0) ? s[i - q - 1] : 0;
        d[i] = r ? ((hi << r) | (lo >> (64 - r))) : hi;
    }
    d[nw - 1] &= top;
}

/* f = ((W + (e & W)) ^ W) | e : e extended over the runs of cells that may be background */
INLINE void bs_extend(u64 *f, const u64 *W, const u64 *e, int nw, u64 top)
{
    u64 carry = 0;
    for (int i = 0; i < nw; i++) {
        u64 a = W[i], b = e[i] & W[i];
        u64 s = a + b;
        u64 c1 = s < a;
        u64 s2 = s + carry;
        u64 c2 = s2 < s;
        carry = c1 | c2;
        f[i] = (s2 ^ a) | e[i];
    }
    f[nw - 1] &= top;
}

/* r = positions s with cells s .. s+L-1 all in `mask` (doubling AND); t: scratch */
INLINE void bs_fit(u64 *r, const u64 *mask, int L, int nw, u64 *t)
{
    bs_copy(r, mask, nw);
    int c = 1;
    while (c + c <= L) {
        bs_shr(t, r, c, nw);
        for (int i = 0; i < nw; i++) r[i] &= t[i];
        c += c;
    }
    if (L > c) {
        bs_shr(t, r, L - c, nw);
        for (int i = 0; i < nw; i++) r[i] &= t[i];
    }
}

/* acc |= cells covered by a block of L starting at any position of `starts`; r, t: scratch */
INLINE void bs_smear_or(u64 *acc, const u64 *starts, int L, int nw, u64 top, u64 *r, u64 *t)
{
    bs_copy(r, starts, nw);
    int c = 1;
    while (c + c <= L) {
        bs_shl(t, r, c, nw, top);
        for (int i = 0; i < nw; i++) r[i] |= t[i];
        c += c;
    }
    if (L > c) {
        bs_shl(t, r, L - c, nw, top);
        for (int i = 0; i < nw; i++) r[i] |= t[i];
    }
    for (int i = 0; i < nw; i++) acc[i] |= r[i];
}

#define MAX_LEVELS 40  /* Kogge-Stone levels: shifts 1, 2, 4, ... <= n */

/* Scratch words settle needs for a line of m blocks and nw words */
static size_t settle_scratch(int m, int nw, int ncol)
{
    return (size_t)nw * (3 * (size_t)(m + 1) + 2 * (size_t)m + MAX_LEVELS + 16 + (size_t)ncol);
}

/* ---------------------------------------------------------------------------------------------
 * Black and white: W (may be background), K (may be black) -> narrowed (outW, outK); 0 = no fit
 * ------------------------------------------------------------------------------------------- */

INLINE int settle_bw_impl(int n, int nw, int m, const int *lens, const u64 *W, const u64 *K,
                          u64 *outW, u64 *outK, u64 *scr)
{
    u64 top = topmask(n);
    if (!m) {
        for (int i = 0; i < nw; i++) {
            if (W[i] != fullword(n, i)) return 0;
            outW[i] = W[i];
            outK[i] = 0;
        }
        return 1;
    }
    u64 *F = scr, *S = F + (size_t)(m + 1) * nw, *G = S + (size_t)m * nw;
    u64 *e = G + (size_t)MAX_LEVELS * nw, *st = e + nw, *r = st + nw, *t = r + nw, *x = t + nw;
    u64 *v = x + nw, *y = v + nw, *wh = y + nw, *bl = wh + nw, *r2 = bl + nw;
    int shs[MAX_LEVELS];

    bs_zero(e, nw);
    e[0] = 1;
    bs_extend(F, W, e, nw, top);
    bs_copy(st, F, nw);
    for (int k = 0; k < m; k++) {
        int L = lens[k];
        u64 *s = S + (size_t)k * nw;
        u64 any = 0;
        if (L == 1) {
            for (int i = 0; i < nw; i++) { s[i] = st[i] & K[i]; any |= s[i]; }
        } else {
            bs_fit(r, K, L, nw, t);
            for (int i = 0; i < nw; i++) { s[i] = st[i] & r[i]; any |= s[i]; }
        }
        if (!any) return 0;
        bs_shl(e, s, L, nw, top);
        u64 *f = F + (size_t)(k + 1) * nw;
        bs_extend(f, W, e, nw, top);
        for (int i = 0; i < nw; i++) st[i] = f[i] & W[i];
        bs_shl(st, st, 1, nw, top);
    }
    const u64 *Fm = F + (size_t)m * nw;
    if (!bs_bit(Fm, n)) return 0;
    /* the backward closure from position n, over runs of cells that may be background */
    bs_zero(x, nw);
    bs_setbit(x, n);
    int nl = 0, sh = 1;
    bs_copy(G, W, nw);
    while (sh <= n && nl < MAX_LEVELS - 1 && bs_any(G + (size_t)nl * nw, nw)) {
        u64 *g = G + (size_t)nl * nw, *g2 = g + nw;
        shs[nl] = sh;
        bs_shr(t, x, sh, nw);
        for (int i = 0; i < nw; i++) x[i] |= t[i] & g[i];
        bs_shr(t, g, sh, nw);
        for (int i = 0; i < nw; i++) g2[i] = g[i] & t[i];
        sh += sh;
        nl++;
    }
    bs_shr(t, x, 1, nw);
    for (int i = 0; i < nw; i++) { wh[i] = Fm[i] & t[i]; bl[i] = 0; }
    /* ends = x */
    u64 *ends = x;
    for (int k = m - 1; k >= 0; k--) {
        int L = lens[k];
        const u64 *s = S + (size_t)k * nw;
        bs_shr(v, ends, L, nw);
        u64 any = 0;
        for (int i = 0; i < nw; i++) { v[i] &= s[i]; any |= v[i]; }
        if (!any) return 0;
        if (L == 1) {
            for (int i = 0; i < nw; i++) bl[i] |= v[i];
        } else {
            bs_smear_or(bl, v, L, nw, top, r2, t);
        }
        for (int l = 0; l < nl; l++) {  /* Kogge-Stone, stopped at the first level adding nothing */
            const u64 *g = G + (size_t)l * nw;
            bs_shr(t, v, shs[l], nw);
            u64 add = 0;
            for (int i = 0; i < nw; i++) { y[i] = v[i] | (t[i] & g[i]); add |= y[i] ^ v[i]; }
            if (!add) break;
            bs_copy(v, y, nw);
        }
        bs_shr(v, v, 1, nw);
        const u64 *Fk = F + (size_t)k * nw;
        for (int i = 0; i < nw; i++) {
            wh[i] |= Fk[i] & v[i];
            ends[i] = v[i] & W[i];
        }
    }
    for (int i = 0; i < nw; i++) {
        wh[i] &= W[i];
        if ((wh[i] | bl[i]) != fullword(n, i)) return 0;
    }
    bs_copy(outW, wh, nw);
    bs_copy(outK, bl, nw);
    return 1;
}

static int settle_bw_n(int n, int nw, int m, const int *lens, const u64 *W, const u64 *K,
                       u64 *outW, u64 *outK, u64 *scr)
{
    if (nw == 1)  /* specialised by the compiler for one word */
        return settle_bw_impl(n, 1, m, lens, W, K, outW, outK, scr);
    if (nw == 2)
        return settle_bw_impl(n, 2, m, lens, W, K, outW, outK, scr);
    return settle_bw_impl(n, nw, m, lens, W, K, outW, outK, scr);
}

/* ---------------------------------------------------------------------------------------------
 * Colour: valid starts per block (V), forward F and backward B sets; 0 = no fit
 * masks: ncol bit sets of nw words, index 0 the background
 * ------------------------------------------------------------------------------------------- */

INLINE int valid_starts_impl(int n, int nw, int m, const int *lens, const int *cidx,
                             const unsigned char *gaps, const u64 *masks,
                             u64 *V, u64 *F, u64 *B, u64 *scr)
{
    u64 top = topmask(n);
    const u64 *W = masks;
    u64 *S = scr, *G = S + (size_t)m * nw;
    u64 *e = G + (size_t)MAX_LEVELS * nw, *st = e + nw, *r = st + nw, *t = r + nw;
    int shs[MAX_LEVELS];

    bs_zero(e, nw);
    e[0] = 1;
    bs_extend(F, W, e, nw, top);
    bs_copy(st, F, nw);
    for (int k = 0; k < m; k++) {
        int L = lens[k];
        u64 *s = S + (size_t)k * nw;
        bs_fit(r, masks + (size_t)cidx[k] * nw, L, nw, t);
        u64 any = 0;
        for (int i = 0; i < nw; i++) { s[i] = st[i] & r[i]; any |= s[i]; }
        if (!any) return 0;
        bs_shl(e, s, L, nw, top);
        u64 *f = F + (size_t)(k + 1) * nw;
        bs_extend(f, W, e, nw, top);
        if (k < m - 1 && gaps[k]) {
            for (int i = 0; i < nw; i++) st[i] = f[i] & W[i];
            bs_shl(st, st, 1, nw, top);
        } else {
            bs_copy(st, f, nw);
        }
    }
    if (!bs_bit(F + (size_t)m * nw, n)) return 0;
    int nl = 0, sh = 1;
    bs_copy(G, W, nw);
    while (sh <= n && nl < MAX_LEVELS - 1 && bs_any(G + (size_t)nl * nw, nw)) {
        u64 *g = G + (size_t)nl * nw, *g2 = g + nw;
        shs[nl] = sh;
        bs_shr(t, g, sh, nw);
        for (int i = 0; i < nw; i++) g2[i] = g[i] & t[i];
        sh += sh;
        nl++;
    }
#define DOWN(X) do { for (int l_ = 0; l_ < nl; l_++) { const u64 *g_ = G + (size_t)l_ * nw; \
        bs_shr(t, (X), shs[l_], nw); for (int i_ = 0; i_ < nw; i_++) (X)[i_] |= t[i_] & g_[i_]; } } while (0)
    u64 *Bm = B + (size_t)m * nw;
    bs_zero(Bm, nw);
    bs_setbit(Bm, n);
    DOWN(Bm);
    u64 *ends = r;
    bs_copy(ends, Bm, nw);
    for (int k = m - 1; k >= 0; k--) {
        int L = lens[k];
        u64 *v = V + (size_t)k * nw;
        const u64 *s = S + (size_t)k * nw;
        bs_shr(v, ends, L, nw);
        u64 any = 0;
        for (int i = 0; i < nw; i++) { v[i] &= s[i]; any |= v[i]; }
        if (!any) return 0;
        u64 *bk = B + (size_t)k * nw;
        bs_copy(bk, v, nw);
        DOWN(bk);
        if (k) {
            if (gaps[k - 1]) {
                bs_shr(ends, bk, 1, nw);
                for (int i = 0; i < nw; i++) ends[i] &= W[i];
            } else {
                bs_copy(ends, bk, nw);
            }
        }
    }
#undef DOWN
    return 1;
}

static int valid_starts_n(int n, int nw, int m, const int *lens, const int *cidx,
                          const unsigned char *gaps, const u64 *masks, u64 *V, u64 *F, u64 *B,
                          u64 *scr)
{
    if (nw == 1)
        return valid_starts_impl(n, 1, m, lens, cidx, gaps, masks, V, F, B, scr);
    return valid_starts_impl(n, nw, m, lens, cidx, gaps, masks, V, F, B, scr);
}

/* out: ncol bit sets; 0 = no fit */
static int settle_colour_n(int n, int nw, int m, const int *lens, const int *cidx,
                           const unsigned char *gaps, int ncol, const u64 *masks, u64 *out,
                           u64 *scr)
{
    u64 top = topmask(n);
    if (!m) {
        for (int i = 0; i < nw; i++)
            if (masks[i] != fullword(n, i)) return 0;
        bs_copy(out, masks, nw);
        bs_zero(out + nw, (ncol - 1) * nw);
        return 1;
    }
    u64 *V = scr, *F = V + (size_t)m * nw, *B = F + (size_t)(m + 1) * nw;
    u64 *rest = B + (size_t)(m + 1) * nw;
    if (!valid_starts_n(n, nw, m, lens, cidx, gaps, masks, V, F, B, rest))
        return 0;
    u64 *t = rest, *r = t + nw, *t2 = r + nw;
    bs_zero(out, (size_t)ncol * nw);
    for (int k = 0; k <= m; k++) {
        bs_shr(t, B + (size_t)k * nw, 1, nw);
        const u64 *f = F + (size_t)k * nw;
        for (int i = 0; i < nw; i++) out[i] |= f[i] & t[i];
    }
    for (int i = 0; i < nw; i++) out[i] &= masks[i];
    for (int k = 0; k < m; k++)
        bs_smear_or(out + (size_t)cidx[k] * nw, V + (size_t)k * nw, lens[k], nw, top, r, t2);
    for (int i = 0; i < nw; i++) {
        u64 u = 0;
        for (int c = 0; c < ncol; c++) u |= out[(size_t)c * nw + i];
        if (u != fullword(n, i)) return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------------------------------------
 * One line's spec from Python: (n, lens, cidx, gaps)
 * ------------------------------------------------------------------------------------------- */

typedef struct {
    int n, m, nw;
    int *lens, *cidx;
    unsigned char *gaps;
} Spec;

static void spec_free(Spec *s)
{
    PyMem_Free(s->lens);
    PyMem_Free(s->cidx);
    PyMem_Free(s->gaps);
    s->lens = s->cidx = NULL;
    s->gaps = NULL;
}

static int int_seq(PyObject *seq, int **out, Py_ssize_t *len)
{
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (!fast) return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(fast);
    int *a = PyMem_Malloc(sizeof(int) * (size_t)(k ? k : 1));
    if (!a) { Py_DECREF(fast); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < k; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) { PyMem_Free(a); Py_DECREF(fast); return -1; }
        a[i] = (int)v;
    }
    Py_DECREF(fast);
    *out = a;
    *len = k;
    return 0;
}

/* spec = (n, lens, cidx, gaps) with gaps of length m - 1 (or m: the last one is ignored) */
static int spec_from(PyObject *n_obj, PyObject *lens, PyObject *cidx, PyObject *gaps, Spec *s,
                     int ncol)
{
    Py_ssize_t m, mc, mg;
    memset(s, 0, sizeof(*s));
    long n = PyLong_AsLong(n_obj);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (n < 0 || n > (1L << 24)) { PyErr_SetString(PyExc_ValueError, "bad line length"); return -1; }
    s->n = (int)n;
    s->nw = nwords((int)n);
    if (int_seq(lens, &s->lens, &m) < 0) return -1;
    s->m = (int)m;
    for (Py_ssize_t k = 0; k < m; k++)
        if (s->lens[k] < 1) { spec_free(s); PyErr_SetString(PyExc_ValueError, "block length < 1"); return -1; }
    if (cidx == NULL || cidx == Py_None) {
        s->cidx = PyMem_Malloc(sizeof(int) * (size_t)(m ? m : 1));
        for (Py_ssize_t k = 0; k < m; k++) s->cidx[k] = 1;
    } else {
        if (int_seq(cidx, &s->cidx, &mc) < 0) { spec_free(s); return -1; }
        if (mc != m) { spec_free(s); PyErr_SetString(PyExc_ValueError, "cidx and lens differ in length"); return -1; }
        for (Py_ssize_t k = 0; k < m; k++)
            if (s->cidx[k] < 1 || s->cidx[k] >= ncol) {
                spec_free(s); PyErr_SetString(PyExc_ValueError, "block colour index out of range"); return -1;
            }
    }
    s->gaps = PyMem_Malloc((size_t)(m ? m : 1));
    memset(s->gaps, 1, (size_t)(m ? m : 1));
    if (gaps != NULL && gaps != Py_None) {
        int *g;
        if (int_seq(gaps, &g, &mg) < 0) { spec_free(s); return -1; }
        for (Py_ssize_t k = 0; k < mg && k < m; k++) s->gaps[k] = g[k] != 0;
        PyMem_Free(g);
    }
    return 0;
}

static int spec_from_tuple(PyObject *spec, Spec *s, int ncol)
{
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 4) {
        PyErr_SetString(PyExc_TypeError, "a line spec is (n, lens, cidx, gaps)");
        return -1;
    }
    return spec_from(PyTuple_GET_ITEM(spec, 0), PyTuple_GET_ITEM(spec, 1),
                     PyTuple_GET_ITEM(spec, 2), PyTuple_GET_ITEM(spec, 3), s, ncol);
}

static int masks_in(PyObject *masks, int ncol, int nw, u64 *buf)
{
    for (int c = 0; c < ncol; c++) {
        PyObject *o = PySequence_GetItem(masks, c);
        if (!o) return -1;
        int rc = int_to_words(o, buf + (size_t)c * nw, nw);
        Py_DECREF(o);
        if (rc < 0) return -1;
    }
    return 0;
}

static PyObject *masks_out(const u64 *buf, int ncol, int nw)
{
    PyObject *t = PyTuple_New(ncol);
    if (!t) return NULL;
    for (int c = 0; c < ncol; c++) {
        PyObject *o = words_to_int(buf + (size_t)c * nw, nw);
        if (!o) { Py_DECREF(t); return NULL; }
        PyTuple_SET_ITEM(t, c, o);
    }
    return t;
}

/* ---------------------------------------------------------------------------------------------
 * Module-level functions on one line
 * ------------------------------------------------------------------------------------------- */

PyDoc_STRVAR(settle_bw_doc,
"settle_bw(n, lens, W, K) -> (white, black) | None\n\n"
"One black-and-white line: W the cells that may be background, K those that may be black;\n"
"the cells each keeps in some valid placement, or None when no placement fits.");

static PyObject *py_settle_bw(PyObject *self, PyObject *args)
{
    PyObject *n_obj, *lens, *Wo, *Ko;
    if (!PyArg_ParseTuple(args, "OOOO", &n_obj, &lens, &Wo, &Ko)) return NULL;
    Spec s;
    if (spec_from(n_obj, lens, NULL, NULL, &s, 2) < 0) return NULL;
    int nw = s.nw;
    size_t need = (size_t)nw * 4 + settle_scratch(s.m, nw, 2);
    u64 *buf = PyMem_Calloc(need, sizeof(u64));
    PyObject *res = NULL;
    if (!buf) { spec_free(&s); return PyErr_NoMemory(); }
    u64 *W = buf, *K = W + nw, *oW = K + nw, *oK = oW + nw, *scr = oK + nw;
    if (int_to_words(Wo, W, nw) < 0 || int_to_words(Ko, K, nw) < 0) goto done;
    W[nw - 1] &= topmask(s.n) >> 1;  /* cells 0..n-1 only */
    K[nw - 1] &= topmask(s.n) >> 1;
    if (!settle_bw_n(s.n, nw, s.m, s.lens, W, K, oW, oK, scr)) {
        res = Py_None;
        Py_INCREF(res);
        goto done;
    }
    res = PyTuple_New(2);
    if (!res) goto done;
    PyTuple_SET_ITEM(res, 0, words_to_int(oW, nw));
    PyTuple_SET_ITEM(res, 1, words_to_int(oK, nw));
    if (!PyTuple_GET_ITEM(res, 0) || !PyTuple_GET_ITEM(res, 1)) Py_CLEAR(res);
done:
    PyMem_Free(buf);
    spec_free(&s);
    return res;
}

PyDoc_STRVAR(settle_masks_doc,
"settle_masks(spec, masks) -> tuple | None\n\n"
"Narrow one line's per-colour position masks (index 0 the background) to the union of its\n"
"valid placements; None when no placement fits. spec = (n, lens, cidx, gaps).");

static PyObject *py_settle_masks(PyObject *self, PyObject *args)
{
    PyObject *spec, *masks;
    if (!PyArg_ParseTuple(args, "OO", &spec, &masks)) return NULL;
    Py_ssize_t nc = PySequence_Size(masks);
    if (nc < 0) return NULL;
    if (nc < 1) { PyErr_SetString(PyExc_ValueError, "a line needs a background mask"); return NULL; }
    int ncol = (int)nc;
    Spec s;
    if (spec_from_tuple(spec, &s, ncol) < 0) return NULL;
    int nw = s.nw;
    size_t need = (size_t)nw * 2 * ncol + settle_scratch(s.m, nw, ncol);
    u64 *buf = PyMem_Calloc(need, sizeof(u64));
    PyObject *res = NULL;
    if (!buf) { spec_free(&s); return PyErr_NoMemory(); }
    u64 *in = buf, *out = in + (size_t)nw * ncol, *scr = out + (size_t)nw * ncol;
    if (masks_in(masks, ncol, nw, in) < 0) goto done;
    for (int c = 0; c < ncol; c++) in[(size_t)c * nw + nw - 1] &= topmask(s.n) >> 1;
    int ok = ncol == 2
        ? settle_bw_n(s.n, nw, s.m, s.lens, in, in + nw, out, out + nw, scr)
        : settle_colour_n(s.n, nw, s.m, s.lens, s.cidx, s.gaps, ncol, in, out, scr);
    if (!ok) { res = Py_None; Py_INCREF(res); goto done; }
    res = masks_out(out, ncol, nw);
done:
    PyMem_Free(buf);
    spec_free(&s);
    return res;
}

PyDoc_STRVAR(valid_starts_doc,
"valid_starts(spec, masks) -> list[int] | None\n\n"
"Per block, the bit set of start positions used by some valid placement; None: no fit.");

static PyObject *py_valid_starts(PyObject *self, PyObject *args)
{
    PyObject *spec, *masks;
    if (!PyArg_ParseTuple(args, "OO", &spec, &masks)) return NULL;
    Py_ssize_t nc = PySequence_Size(masks);
    if (nc < 0) return NULL;
    if (nc < 1) { PyErr_SetString(PyExc_ValueError, "a line needs a background mask"); return NULL; }
    int ncol = (int)nc;
    Spec s;
    if (spec_from_tuple(spec, &s, ncol) < 0) return NULL;
    int nw = s.nw, m = s.m;
    size_t need = (size_t)nw * ncol + (size_t)nw * (3 * (size_t)m + 2) + settle_scratch(m, nw, ncol);
    u64 *buf = PyMem_Calloc(need, sizeof(u64));
    PyObject *res = NULL;
    if (!buf) { spec_free(&s); return PyErr_NoMemory(); }
    u64 *in = buf, *V = in + (size_t)nw * ncol, *F = V + (size_t)m * nw;
    u64 *B = F + (size_t)(m + 1) * nw, *scr = B + (size_t)(m + 1) * nw;
    if (masks_in(masks, ncol, nw, in) < 0) goto done;
    for (int c = 0; c < ncol; c++) in[(size_t)c * nw + nw - 1] &= topmask(s.n) >> 1;
    if (!m) {
        res = PyList_New(0);
        goto done;
    }
    if (!valid_starts_n(s.n, nw, m, s.lens, s.cidx, s.gaps, in, V, F, B, scr)) {
        res = Py_None;
        Py_INCREF(res);
        goto done;
    }
    res = PyList_New(m);
    if (!res) goto done;
    for (int k = 0; k < m; k++) {
        PyObject *o = words_to_int(V + (size_t)k * nw, nw);
        if (!o) { Py_CLEAR(res); goto done; }
        PyList_SET_ITEM(res, k, o);
    }
done:
    PyMem_Free(buf);
    spec_free(&s);
    return res;
}

/* ---------------------------------------------------------------------------------------------
 * The memo of settled lines, shared by every engine: (spec id, masks) -> same / fail / new masks
 * ------------------------------------------------------------------------------------------- */

enum { R_SAME = 1, R_FAIL = 2, R_NEW = 3 };

static struct {
    u64 *arena;           /* entries: [hash, sid << 32 | kw << 2 | kind, key[kw], (val[kw])] */
    size_t used, cap;     /* words */
    size_t *table;        /* arena offset + 1 of each entry; 0 = empty */
    size_t tcap, count;
    long long clears;
} memo;

static size_t MEMO_MAX_BYTES = (size_t)256 << 20;  /* memory bound of the memo, beside its entry count */

/* In front of it, for lines whose masks fit in FAST_KW words (lines of up to 64 cells with at
 * most three colours, background included: every tournament line): a direct-mapped table of 64-byte slots, key and result inline,
 * so that a lookup touches one cache line instead of a table slot and then its arena entry (a
 * profile of the compiled search on tournament puzzles, `perf record`, put 40 % of core_prop's
 * samples on that second, dependent miss; docs/line_core.md, tenth step). A line overwrites
 * whatever its slot held. A clear bumps a salt mixed into the stored hash: an older entry never
 * matches again (its key and hash would both have to match, and the salt differs). */
#define FAST_KW 3
#ifndef FAST_BITS
#define FAST_BITS 15  /* 32,768 slots, 2 MiB: 2^13-2^16 measured alike, 2^18 slower */
#endif
typedef struct { u64 h, tag, key[FAST_KW], val[FAST_KW]; } FastSlot;

static struct {
    FastSlot *slot;       /* NULL until first used, or when it could not be had */
    void *raw;            /* what calloc gave (slot is it aligned to 64 bytes) */
    u64 salt;
    size_t count;         /* lines written since the last clear (the memo's bound counts them) */
    int failed;
} fast;

static FastSlot *fast_table(void)
{
    if (!fast.slot && !fast.failed) {
        /* calloc, not an aligned malloc and memset: a block this large comes from fresh
           zeroed pages (mmap), so only the pages a search touches are faulted in. Zeroing
           the 2 MiB cost every process about 1.5 ms (512 page faults), as much as a whole
           30x30 janko puzzle's uniqueness proof. h 0 never matches: hashes are odd. */
        void *p = calloc(1, (sizeof(FastSlot) << FAST_BITS) + 64);
        if (!p) {
            fast.failed = 1;  /* the arena memo serves alone */
            return NULL;
        }
        fast.raw = p;
        fast.slot = (FastSlot *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
    }
    return fast.slot;
}

static void memo_clear(void)
{
    memo.used = 0;
    memo.count = 0;
    if (memo.table) memset(memo.table, 0, memo.tcap * sizeof(size_t));
    fast.salt += 0x9E3779B97F4A7C16ULL;  /* even: a salted hash stays odd, never 0 */
    fast.count = 0;
    memo.clears++;
}

static void memo_free(void)
{
    PyMem_Free(memo.arena);
    PyMem_Free(memo.table);
    memset(&memo, 0, sizeof(memo));
    free(fast.raw);
    memset(&fast, 0, sizeof(fast));
}

INLINE u64 memo_hash(int sid, int kw, const u64 *key)
{
    u64 h = ((u64)(unsigned)sid * 0x9E3779B97F4A7C15ULL) ^ (u64)kw;
    for (int i = 0; i < kw; i++) {
        h ^= key[i];
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    return h | 1;
}

/* the entry of (sid, key) or NULL */
INLINE const u64 *memo_find(int sid, int kw, const u64 *key, u64 h)
{
    if (!memo.tcap) return NULL;
    size_t mask = memo.tcap - 1, i = (size_t)(h >> 1) & mask;
    u64 tag = ((u64)(unsigned)sid << 32) | ((u64)kw << 2);
    for (;;) {
        size_t o = memo.table[i];
        if (!o) return NULL;
        const u64 *e = memo.arena + o - 1;
        if (e[0] == h && (e[1] & ~(u64)3) == tag && bs_eq(e + 2, key, kw))
            return e;
        i = (i + 1) & mask;
    }
}

static int memo_grow_table(void)
{
    size_t ncap = memo.tcap ? memo.tcap * 2 : 4096;
    size_t *nt = PyMem_Calloc(ncap, sizeof(size_t));
    if (!nt) return -1;
    for (size_t i = 0; i < memo.tcap; i++) {
        size_t o = memo.table[i];
        if (!o) continue;
        size_t j = (size_t)(memo.arena[o - 1] >> 1) & (ncap - 1);
        while (nt[j]) j = (j + 1) & (ncap - 1);
        nt[j] = o;
    }
    PyMem_Free(memo.table);
    memo.table = nt;
    memo.tcap = ncap;
    return 0;
}

/* store (sid, key) -> kind [, val]; -1 on no memory (the memo stays usable) */
static int memo_add(int sid, int kw, const u64 *key, u64 h, int kind, const u64 *val)
{
    size_t words = 2 + (size_t)kw + (kind == R_NEW ? (size_t)kw : 0);
    if ((memo.used + words) * 8 > MEMO_MAX_BYTES)
        memo_clear();
    if (memo.used + words > memo.cap) {
        size_t ncap = memo.cap ? memo.cap * 2 : 65536;
        while (ncap < memo.used + words) ncap *= 2;
        u64 *na = PyMem_Realloc(memo.arena, ncap * sizeof(u64));
        if (!na) return -1;
        memo.arena = na;
        memo.cap = ncap;
    }
    if ((memo.count + 1) * 2 > memo.tcap && memo_grow_table() < 0)
        return -1;
    u64 *e = memo.arena + memo.used;
    e[0] = h;
    e[1] = ((u64)(unsigned)sid << 32) | ((u64)kw << 2) | (u64)kind;
    bs_copy(e + 2, key, kw);
    if (kind == R_NEW) bs_copy(e + 2 + kw, val, kw);
    size_t mask = memo.tcap - 1, i = (size_t)(h >> 1) & mask;
    while (memo.table[i]) i = (i + 1) & mask;
    memo.table[i] = memo.used + 1;
    memo.used += words;
    memo.count++;
    return 0;
}

PyDoc_STRVAR(clear_cache_doc, "clear_cache(): forget every settled line.");
static PyObject *py_clear_cache(PyObject *self, PyObject *noargs)
{
    memo_clear();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(cache_info_doc, "cache_info() -> (entries, bytes, clears) of the settled-line memo.");
static PyObject *py_cache_info(PyObject *self, PyObject *noargs)
{
    return Py_BuildValue("(nnL)", (Py_ssize_t)(memo.count + fast.count), (Py_ssize_t)(memo.used * 8),
                         memo.clears);
}

/* ---------------------------------------------------------------------------------------------
 * Core: one puzzle's lines and the propagation queue
 * ------------------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    int h, w, C, nlines;
    Spec *specs;
    int *sids;
    size_t *off;     /* per line: first word of its C masks in `buf` */
    u64 *buf;        /* the state as words, during a propagation */
    u64 *res, *scr;  /* a settled line, settle's scratch */
    int *queue, *rnd;
    unsigned char *inq, *dirty, *loaded;
    long long solves;
    long long removed;
    PyObject *conflict;
    u64 *wio;        /* non-NULL: propagate this packed state (words laid out as buf) in place */
    u64 *touch;      /* with wio, non-NULL: the bit set of the lines settled gets them (Core.dfs) */
    long long *lstamp, stamp;  /* with wio, non-NULL: lstamp[line] = stamp for lines narrowed */
} Core;

static void Core_dealloc(Core *c)
{
    if (c->specs)
        for (int l = 0; l < c->nlines; l++) spec_free(&c->specs[l]);
    PyMem_Free(c->specs);
    PyMem_Free(c->sids);
    PyMem_Free(c->off);
    PyMem_Free(c->buf);
    PyMem_Free(c->res);
    PyMem_Free(c->scr);
    PyMem_Free(c->queue);
    PyMem_Free(c->rnd);
    PyMem_Free(c->inq);
    PyMem_Free(c->dirty);
    PyMem_Free(c->loaded);
    Py_XDECREF(c->conflict);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int Core_init(Core *c, PyObject *args, PyObject *kw)
{
    PyObject *specs, *sids;
    int C, h;
    static char *kwlist[] = {"specs", "sids", "C", "h", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOii", kwlist, &specs, &sids, &C, &h)) return -1;
    if (c->specs) { PyErr_SetString(PyExc_RuntimeError, "Core initialised twice"); return -1; }
    Py_ssize_t nl = PySequence_Size(specs);
    if (nl < 0) return -1;
    if (PySequence_Size(sids) != nl) { PyErr_SetString(PyExc_ValueError, "one sid per line"); return -1; }
    if (C < 2 || C > 64) { PyErr_SetString(PyExc_ValueError, "2 to 64 colour indices"); return -1; }
    if (h < 0 || h > nl) { PyErr_SetString(PyExc_ValueError, "bad height"); return -1; }
    c->nlines = (int)nl;
    c->C = C;
    c->h = h;
    c->w = (int)nl - h;
    c->specs = PyMem_Calloc((size_t)(nl ? nl : 1), sizeof(Spec));
    c->sids = PyMem_Calloc((size_t)(nl ? nl : 1), sizeof(int));
    c->off = PyMem_Calloc((size_t)nl + 1, sizeof(size_t));
    c->queue = PyMem_Calloc((size_t)(nl ? nl : 1), sizeof(int));
    c->rnd = PyMem_Calloc((size_t)(nl ? nl : 1), sizeof(int));
    c->inq = PyMem_Calloc((size_t)(nl ? nl : 1), 1);
    c->dirty = PyMem_Calloc((size_t)(nl ? nl : 1), 1);
    c->loaded = PyMem_Calloc((size_t)(nl ? nl : 1), 1);
    if (!c->specs || !c->sids || !c->off || !c->queue || !c->rnd || !c->inq || !c->dirty
        || !c->loaded) {
        PyErr_NoMemory();
        return -1;
    }
    size_t maxscr = 0, maxkw = 0;
    for (Py_ssize_t l = 0; l < nl; l++) {
        PyObject *sp = PySequence_GetItem(specs, l);
        if (!sp) return -1;
        int rc = spec_from_tuple(sp, &c->specs[l], C);
        Py_DECREF(sp);
        if (rc < 0) return -1;
        Spec *s = &c->specs[l];
        if (s->n != (l < h ? c->w : h)) {
            PyErr_SetString(PyExc_ValueError, "a line's length is not the grid's");
            return -1;
        }
        PyObject *so = PySequence_GetItem(sids, l);
        if (!so) return -1;
        long sid = PyLong_AsLong(so);
        Py_DECREF(so);
        if (sid == -1 && PyErr_Occurred()) return -1;
        c->sids[l] = (int)sid;
        c->off[l + 1] = c->off[l] + (size_t)C * s->nw;
        size_t sc = settle_scratch(s->m, s->nw, C) + (size_t)s->nw * (3 * (size_t)s->m + 2);
        if (sc > maxscr) maxscr = sc;
        if ((size_t)C * s->nw > maxkw) maxkw = (size_t)C * s->nw;
    }
    c->buf = PyMem_Calloc(c->off[nl] ? c->off[nl] : 1, sizeof(u64));
    c->res = PyMem_Calloc(maxkw ? maxkw : 1, sizeof(u64));
    c->scr = PyMem_Calloc(maxscr ? maxscr : 1, sizeof(u64));
    if (!c->buf || !c->res || !c->scr) { PyErr_NoMemory(); return -1; }
    c->conflict = PyLong_FromLong(0);
    return c->conflict ? 0 : -1;
}

static PyObject *line_masks_tuple(const u64 *m, int C, int nw) { return masks_out(m, C, nw); }

/* the C masks of line l of a Python state list into buf */
static int core_load(Core *c, PyObject *state, int l)
{
    int C = c->C, nw = c->specs[l].nw;
    for (int ci = 0; ci < C; ci++)
        if (int_to_words(PyList_GET_ITEM(state, (Py_ssize_t)l * C + ci),
                         c->buf + c->off[l] + (size_t)ci * nw, nw) < 0)
            return -1;
    c->loaded[l] = 1;
    return 0;
}

PyDoc_STRVAR(propagate_doc,
"propagate(state, lines, deps, record, clock, cache_size) -> bool\n\n"
"Settle lines until nothing changes, starting from `lines` (None: all); the state list is\n"
"narrowed in place. False on a contradiction. `deps` (a list of ints, or None) is updated as\n"
"Engine.propagate describes; `record` (a list, or None) gets one (line, round, old masks,\n"
"new masks, changed cells) tuple per line update that narrowed cells; `clock` (an object with\n"
"check(stage), or None) is called every 256 line updates, and so are pending signals.\n"
"Afterwards `solves`, `removed` and `conflict` hold the counts and the failing line's deps.");

/* the body of propagate: the first queue is `first[0..nfirst)` in order (NULL: every line) */
static PyObject *core_prop(Core *c, PyObject *state, const int *first, int nfirst, PyObject *deps,
                           PyObject *record, PyObject *clock, Py_ssize_t cache_size)
{
    int C = c->C, h = c->h, nl = c->nlines;
    /* the bound counts the slots' writes too: "emptied whenever it outgrows cache_size" holds
     * for every line, while the memo's table grows with its own entries only */
    if (cache_size >= 0 && memo.count + fast.count > (size_t)cache_size) memo_clear();
    if (!nl) Py_RETURN_TRUE;

    /* the state as words, line by line when first touched (a probe touches few lines); a
     * packed state (c->wio, laid out as buf) is worked on in place, buf pointing at it until
     * the end (no copy in or out: two state copies a probe in Core.dfs) */
    u64 *own_buf = c->buf;
    if (c->wio) {
        c->buf = c->wio;
        memset(c->loaded, 1, (size_t)nl);
    } else {
        memset(c->loaded, 0, (size_t)nl);
    }
#define LOAD(L) (c->loaded[L] ? 0 : core_load(c, state, (L)))
    /* the first queue */
    int head = 0, tail = 0, size = 0;
    memset(c->inq, 0, (size_t)nl);
    if (!first) {
        for (int l = 0; l < nl; l++) { c->inq[l] = 1; c->queue[tail++] = l; size++; }
    } else {
        for (int k = 0; k < nfirst; k++) {
            int l = first[k];
            if (!c->inq[l]) { c->inq[l] = 1; c->queue[tail] = l; tail = (tail + 1) % (nl ? nl : 1); size++; }
        }
    }
    if (tail == nl) tail = 0;
    if (record) memset(c->rnd, 0, sizeof(int) * (size_t)nl);

    long long solves = 0, removed = 0;
    unsigned tick = 0;
    int ok = 1, err = 0;
    while (size) {
        if ((++tick & 255) == 0) {
            if (PyErr_CheckSignals() < 0) { err = 1; break; }
            if (clock) {
                PyObject *r = PyObject_CallMethod(clock, "check", "s", "line solving");
                if (!r) { err = 1; break; }
                Py_DECREF(r);
            }
        }
        int lid = c->queue[head];
        head = (head + 1) % nl;
        size--;
        c->inq[lid] = 0;
        if (c->touch) c->touch[lid >> 6] |= (u64)1 << (lid & 63);
        Spec *s = &c->specs[lid];
        int nw = s->nw, kw = C * nw;
        if (LOAD(lid) < 0) { err = 1; break; }
        u64 *old = c->buf + c->off[lid];
        u64 hsh = memo_hash(c->sids[lid], kw, old);
        int kind = 0, hit = 0;
        const u64 *res = NULL, *e;
        FastSlot *fs = kw <= FAST_KW ? fast_table() : NULL;
        u64 salted = hsh ^ fast.salt, tag = ((u64)(unsigned)c->sids[lid] << 32) | ((u64)kw << 2);
        if (fs) {
            fs += (hsh >> 1) & (((size_t)1 << FAST_BITS) - 1);
            if (fs->h == salted && (fs->tag & ~(u64)3) == tag && bs_eq(fs->key, old, kw)) {
                kind = (int)(fs->tag & 3);
                res = fs->val;
                hit = 1;
            }
        } else if ((e = memo_find(c->sids[lid], kw, old, hsh))) {
            kind = (int)(e[1] & 3);
            res = e + 2 + kw;
            hit = 1;
        }
        if (!hit) {
            solves++;
            int fits = C == 2
                ? settle_bw_n(s->n, nw, s->m, s->lens, old, old + nw, c->res, c->res + nw, c->scr)
                : settle_colour_n(s->n, nw, s->m, s->lens, s->cidx, s->gaps, C, old, c->res, c->scr);
            kind = !fits ? R_FAIL : bs_eq(old, c->res, kw) ? R_SAME : R_NEW;
            res = c->res;
            if (fs) {  /* the slot gets this line */
                fs->h = salted;
                fs->tag = tag | (u64)kind;
                bs_copy(fs->key, old, kw);
                bs_copy(fs->val, c->res, kw);
                fast.count++;
            } else if (memo_add(c->sids[lid], kw, old, hsh, kind, c->res) < 0) {
                PyErr_NoMemory();
                err = 1;
                break;
            }
        }
        if (kind == R_SAME) continue;
        if (kind == R_FAIL) {
            if (deps) {
                PyObject *d = PyList_GET_ITEM(deps, lid);
                Py_INCREF(d);
                Py_SETREF(c->conflict, d);
            }
            ok = 0;
            break;
        }
        PyObject *rec_old = NULL;
        if (record && !(rec_old = line_masks_tuple(old, C, nw))) { err = 1; break; }
        int other, bitpos;
        if (lid < h) { other = h; bitpos = lid; }
        else { other = 0; bitpos = lid - h; }
        PyObject *dl = NULL;
        if (deps) {
            dl = PyList_GET_ITEM(deps, lid);
            int truth = PyObject_IsTrue(dl);
            if (truth < 0) { Py_XDECREF(rec_old); err = 1; break; }
            if (!truth) dl = NULL;
            else Py_INCREF(dl);
        }
        u64 *changed = c->res == res ? c->scr : c->res;  /* scratch for the record */
        if (record) bs_zero(changed, nw);
        for (int ci = 0; ci < C; ci++) {
            u64 *o = old + (size_t)ci * nw;
            const u64 *r = res + (size_t)ci * nw;
            for (int i = 0; i < nw; i++) {
                u64 d = o[i] ^ r[i];
                if (!d) continue;
                if (record) changed[i] |= d;
                removed += POPC(d);
                o[i] = r[i];
                while (d) {
                    int p = i * 64 + CTZ(d);
                    d &= d - 1;
                    int ol = other + p;
                    int onw = c->specs[ol].nw;
                    if (LOAD(ol) < 0) { err = 1; break; }
                    c->buf[c->off[ol] + (size_t)ci * onw + (bitpos >> 6)] &= ~((u64)1 << (bitpos & 63));
                    c->dirty[ol] = 1;
                    if (dl) {
                        PyObject *cur = PyList_GET_ITEM(deps, ol);
                        PyObject *nv = PyNumber_Or(cur, dl);
                        if (!nv) { err = 1; break; }
                        PyList_SetItem(deps, ol, nv);
                    }
                    if (!c->inq[ol]) {
                        c->inq[ol] = 1;
                        c->queue[tail] = ol;
                        tail = (tail + 1) % nl;
                        size++;
                        if (record) c->rnd[ol] = c->rnd[lid] + 1;
                    }
                }
                if (err) break;
            }
            if (err) break;
        }
        Py_XDECREF(dl);
        c->dirty[lid] = 1;
        if (err) { Py_XDECREF(rec_old); break; }
        if (record) {
            PyObject *rec_new = line_masks_tuple(old, C, nw);
            PyObject *ch = words_to_int(changed, nw);
            PyObject *t = (rec_new && ch) ? Py_BuildValue("(iiOOO)", lid, c->rnd[lid], rec_old, rec_new, ch) : NULL;
            Py_XDECREF(rec_old);
            Py_XDECREF(rec_new);
            Py_XDECREF(ch);
            if (!t || PyList_Append(record, t) < 0) { Py_XDECREF(t); err = 1; break; }
            Py_DECREF(t);
        }
    }
#undef LOAD
    c->solves += solves;
    c->removed = removed;
    if (c->wio) {  /* the packed state has the narrowed words */
        c->buf = own_buf;
        if (c->lstamp)
            for (int l = 0; l < nl; l++)
                if (c->dirty[l]) c->lstamp[l] = c->stamp;
        memset(c->dirty, 0, (size_t)nl);
        if (err) return NULL;
        if (ok) Py_RETURN_TRUE;
        Py_RETURN_FALSE;
    }
    /* the state list gets the narrowed lines (also after a contradiction or an error) */
    {
        PyObject *exc_t = NULL, *exc_v = NULL, *exc_tb = NULL;
        if (err) PyErr_Fetch(&exc_t, &exc_v, &exc_tb);
        int C_ = C;
        for (int l = 0; l < nl; l++) {
            if (!c->dirty[l]) continue;
            c->dirty[l] = 0;
            int nw = c->specs[l].nw;
            for (int ci = 0; ci < C_; ci++) {
                PyObject *o = words_to_int(c->buf + c->off[l] + (size_t)ci * nw, nw);
                if (!o) { if (!err) { err = 1; PyErr_Fetch(&exc_t, &exc_v, &exc_tb); } else PyErr_Clear(); continue; }
                PyList_SetItem(state, (Py_ssize_t)l * C_ + ci, o);
            }
        }
        if (err) { PyErr_Restore(exc_t, exc_v, exc_tb); return NULL; }
    }
    if (ok) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyObject *Core_propagate(Core *c, PyObject *args)
{
    PyObject *state, *lines, *deps, *record, *clock;
    Py_ssize_t cache_size;
    if (!PyArg_ParseTuple(args, "O!OOOOn", &PyList_Type, &state, &lines, &deps, &record, &clock,
                          &cache_size))
        return NULL;
    int C = c->C, nl = c->nlines;
    if (PyList_GET_SIZE(state) != (Py_ssize_t)nl * C) {
        PyErr_SetString(PyExc_ValueError, "state has the wrong length");
        return NULL;
    }
    if (deps == Py_None) deps = NULL;
    else if (!PyList_Check(deps) || PyList_GET_SIZE(deps) != nl) {
        PyErr_SetString(PyExc_ValueError, "deps must be a list with one int per line");
        return NULL;
    }
    if (record == Py_None) record = NULL;
    else if (!PyList_Check(record)) { PyErr_SetString(PyExc_TypeError, "record must be a list"); return NULL; }
    if (clock == Py_None) clock = NULL;
    if (lines == Py_None) return core_prop(c, state, NULL, 0, deps, record, clock, cache_size);
    int *first = NULL, nfirst = 0, cap = 0;
    PyObject *it = PyObject_GetIter(lines);
    if (!it) return NULL;
    PyObject *o;
    while ((o = PyIter_Next(it))) {
        long l = PyLong_AsLong(o);
        Py_DECREF(o);
        if (l == -1 && PyErr_Occurred()) break;
        if (l < 0 || l >= nl) { PyErr_SetString(PyExc_IndexError, "line out of range"); break; }
        if (nfirst == cap) {
            int ncap = cap ? 2 * cap : 16;
            int *nf = PyMem_Realloc(first, (size_t)ncap * sizeof(int));
            if (!nf) { PyErr_NoMemory(); break; }
            first = nf;
            cap = ncap;
        }
        first[nfirst++] = (int)l;
    }
    Py_DECREF(it);
    PyObject *r = PyErr_Occurred() ? NULL
        : core_prop(c, state, first ? first : &nfirst, nfirst, deps, record, clock, cache_size);
    PyMem_Free(first);
    return r;
}


/* probs[line][colour][cell] as a double (lists or tuples, indices checked) */
static int prob_at(PyObject *line, int ci, int p, double *out)
{
    if (!PyList_Check(line) && !PyTuple_Check(line)) goto bad;
    if (ci >= PySequence_Fast_GET_SIZE(line)) goto bad;
    PyObject *col = PySequence_Fast_GET_ITEM(line, ci);
    if (!PyList_Check(col) && !PyTuple_Check(col)) goto bad;
    if (p >= PySequence_Fast_GET_SIZE(col)) goto bad;
    *out = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(col, p));
    if (*out == -1.0 && PyErr_Occurred()) return -1;
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "probs[line][colour][cell] out of shape");
    return -1;
}

/* Python's tuple order on (score, i, j, colour) */
typedef struct { double score; int i, j, ci; } Ranked;
INLINE int ranked_less(const Ranked *a, const Ranked *b)
{
    if (a->score != b->score) return a->score < b->score;
    if (a->i != b->i) return a->i < b->i;
    if (a->j != b->j) return a->j < b->j;
    return a->ci < b->ci;
}

PyDoc_STRVAR(rank_doc,
"rank(state, probs, k) -> list[(i, j, colour index)]\n\n"
"The k open cells whose likeliest colour is nearest to one half, nearest first: per cell the\n"
"row's and the column's shares (probs[line][colour index][cell], floats) multiplied colour by\n"
"colour and normalised over their sum (cells whose sum is 0 skipped); ties by (row, column).");

static PyObject *Core_rank(Core *c, PyObject *args)
{
    PyObject *state, *probs;
    int k;
    if (!PyArg_ParseTuple(args, "O!O!i", &PyList_Type, &state, &PyList_Type, &probs, &k)) return NULL;
    int C = c->C, h = c->h;
    if (PyList_GET_SIZE(state) != (Py_ssize_t)c->nlines * C || PyList_GET_SIZE(probs) != c->nlines) {
        PyErr_SetString(PyExc_ValueError, "state or probs of the wrong length");
        return NULL;
    }
    if (k < 1) return PyList_New(0);
    Ranked *best = PyMem_Calloc((size_t)k, sizeof(Ranked));
    int nb = 0;
    double comb[64];
    if (!best) return PyErr_NoMemory();
    for (int i = 0; i < h; i++) {
        Spec *s = &c->specs[i];
        int nw = s->nw;
        u64 *m = c->buf + c->off[i];
        for (int ci = 0; ci < C; ci++)
            if (int_to_words(PyList_GET_ITEM(state, (Py_ssize_t)i * C + ci), m + (size_t)ci * nw, nw) < 0)
                goto fail;
        PyObject *pr = PyList_GET_ITEM(probs, i);
        for (int wd = 0; wd < nw; wd++) {
            u64 seen = 0, unk = 0;
            for (int ci = 0; ci < C; ci++) { u64 x = m[(size_t)ci * nw + wd]; unk |= seen & x; seen |= x; }
            while (unk) {
                int j = wd * 64 + CTZ(unk);
                unk &= unk - 1;
                PyObject *pc = PyList_GET_ITEM(probs, h + j);
                double total = 0.0;
                int top = 0;
                for (int ci = 0; ci < C; ci++) {
                    double a, b;
                    if (prob_at(pr, ci, j, &a) < 0 || prob_at(pc, ci, i, &b) < 0) goto fail;
                    comb[ci] = a * b;
                    total += comb[ci];
                    if (comb[ci] > comb[top]) top = ci;
                }
                if (total <= 0) continue;
                Ranked r = {fabs(comb[top] / total - 0.5), i, j, top};
                if (nb == k && !ranked_less(&r, &best[k - 1])) continue;
                int p = nb < k ? nb++ : k - 1;
                while (p > 0 && ranked_less(&r, &best[p - 1])) { best[p] = best[p - 1]; p--; }
                best[p] = r;
            }
        }
    }
    PyObject *out = PyList_New(nb);
    if (!out) goto fail;
    for (int q = 0; q < nb; q++) {
        PyObject *t = Py_BuildValue("(iii)", best[q].i, best[q].j, best[q].ci);
        if (!t) { Py_DECREF(out); goto fail; }
        PyList_SET_ITEM(out, q, t);
    }
    PyMem_Free(best);
    return out;
fail:
    PyMem_Free(best);
    return NULL;
}

PyDoc_STRVAR(domains_doc,
"domains(state, colours) -> tuple of row tuples\n\n"
"Cell domains from a state: bit colours[ci] set when colour index ci is still possible.");

static PyObject *Core_domains(Core *c, PyObject *args)
{
    PyObject *state, *colours;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &state, &colours)) return NULL;
    int C = c->C, h = c->h, w = c->w;
    if (PyList_GET_SIZE(state) != (Py_ssize_t)c->nlines * C || PySequence_Size(colours) != C) {
        PyErr_SetString(PyExc_ValueError, "state or colours of the wrong length");
        return NULL;
    }
    PyObject *bitobj[64];
    u64 bit[64];
    int small = 1;
    for (int ci = 0; ci < C; ci++) {
        PyObject *o = PySequence_GetItem(colours, ci);
        if (!o) return NULL;
        long col = PyLong_AsLong(o);
        Py_DECREF(o);
        if (col == -1 && PyErr_Occurred()) return NULL;
        if (col < 0) { PyErr_SetString(PyExc_ValueError, "negative colour"); return NULL; }
        if (col > 62) small = 0;
        bit[ci] = col > 62 ? 0 : (u64)1 << col;
        bitobj[ci] = NULL;
        if (col > 62) {
            PyObject *one = PyLong_FromLong(1), *sh = PyLong_FromLong(col);
            bitobj[ci] = (one && sh) ? PyNumber_Lshift(one, sh) : NULL;
            Py_XDECREF(one);
            Py_XDECREF(sh);
            if (!bitobj[ci]) { for (int q = 0; q < ci; q++) Py_XDECREF(bitobj[q]); return NULL; }
        }
    }
    PyObject *out = PyTuple_New(h);
    if (!out) goto fail;
    for (int i = 0; i < h; i++) {
        int nw = c->specs[i].nw;
        u64 *m = c->buf + c->off[i];
        for (int ci = 0; ci < C; ci++)
            if (int_to_words(PyList_GET_ITEM(state, (Py_ssize_t)i * C + ci), m + (size_t)ci * nw, nw) < 0)
                goto fail;
        PyObject *row = PyTuple_New(w);
        if (!row) goto fail;
        PyTuple_SET_ITEM(out, i, row);
        for (int j = 0; j < w; j++) {
            PyObject *d;
            if (small) {
                u64 v = 0;
                for (int ci = 0; ci < C; ci++)
                    if (m[(size_t)ci * nw + (j >> 6)] >> (j & 63) & 1) v |= bit[ci];
                d = PyLong_FromUnsignedLongLong(v);
            } else {
                d = PyLong_FromLong(0);
                for (int ci = 0; d && ci < C; ci++) {
                    if (!(m[(size_t)ci * nw + (j >> 6)] >> (j & 63) & 1)) continue;
                    PyObject *b = bitobj[ci] ? (Py_INCREF(bitobj[ci]), bitobj[ci]) : PyLong_FromUnsignedLongLong(bit[ci]);
                    PyObject *nd = b ? PyNumber_Or(d, b) : NULL;
                    Py_XDECREF(b);
                    Py_DECREF(d);
                    d = nd;
                }
            }
            if (!d) goto fail;
            PyTuple_SET_ITEM(row, j, d);
        }
    }
    for (int ci = 0; ci < C; ci++) Py_XDECREF(bitobj[ci]);
    return out;
fail:
    Py_XDECREF(out);
    for (int ci = 0; ci < C; ci++) Py_XDECREF(bitobj[ci]);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Placement shares (seed 004's probabilities), exact counts in 128 bits
 * ------------------------------------------------------------------------------------------- */

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;
#define SHARES_MAX_N 127  /* a line of n cells has at most 2^n placements (their starts differ) */

/* a / b as Python's int true division gives it: correctly rounded */
static PyObject *share_of(u128 a, u128 b)
{
    if (b < ((u128)1 << 53))  /* both exact as doubles: IEEE division is correctly rounded */
        return PyFloat_FromDouble((double)(u64)a / (double)(u64)b);
    u64 wa[2] = {(u64)a, (u64)(a >> 64)}, wb[2] = {(u64)b, (u64)(b >> 64)};
    PyObject *pa = words_to_int(wa, 2), *pb = pa ? words_to_int(wb, 2) : NULL;
    PyObject *q = pb ? PyNumber_TrueDivide(pa, pb) : NULL;
    Py_XDECREF(pa);
    Py_XDECREF(pb);
    return q;
}
#endif

PyDoc_STRVAR(shares_doc,
"shares(line, masks) -> list[list[float]] | None\n\n"
"Seed 004's probabilities for one line of the puzzle given its masks (one int per colour\n"
"index): per colour index and cell, the share of the valid placements that paint the cell that\n"
"colour (all 0.0 when none fits). The counts are exact (128-bit: lines of up to 127 cells);\n"
"None for a longer line, whose counts the caller makes with Python's integers.");

static PyObject *Core_shares(Core *c, PyObject *args)
{
    int line;
    PyObject *masks;
    if (!PyArg_ParseTuple(args, "iO", &line, &masks)) return NULL;
    if (line < 0 || line >= c->nlines) { PyErr_SetString(PyExc_IndexError, "no such line"); return NULL; }
    const Spec *s = &c->specs[line];
    const int n = s->n, m = s->m, C = c->C, nw = s->nw;
    if (PySequence_Size(masks) != C) { PyErr_SetString(PyExc_ValueError, "one mask per colour index"); return NULL; }
#ifndef __SIZEOF_INT128__
    Py_RETURN_NONE;
#else
    if (n > SHARES_MAX_N) Py_RETURN_NONE;
    u64 mw[64 * 2];
    if (masks_in(masks, C, nw, mw) < 0) return NULL;
    /* run[ci][p]: cells p, p+1, ... allowing colour ci in a row (only the colours of blocks) */
    size_t np2 = (size_t)n + 2;
    size_t need = (size_t)C * np2 * sizeof(short) + (size_t)(m + 1) * np2 * sizeof(u128)
                  + 3 * np2 * sizeof(u128) + (size_t)C * np2 * sizeof(u128) + np2;
    char *mem = PyMem_Calloc(1, need);
    if (!mem) return PyErr_NoMemory();
    u128 *S = (u128 *)mem;                       /* (m + 1) rows of n + 2 */
    u128 *A = S + (size_t)(m + 1) * np2;         /* prefix counts */
    u128 *ends = A + np2;
    u128 *A2 = ends + np2;
    u128 *paint = A2 + np2;                       /* C rows: difference arrays */
    short *run = (short *)(paint + (size_t)C * np2);
    unsigned char *white = (unsigned char *)(run + (size_t)C * np2);
    for (int p = 0; p < n; p++) white[p] = mw[p >> 6] >> (p & 63) & 1;
    unsigned char used[64] = {0};
    for (int k = 0; k < m; k++) used[s->cidx[k]] = 1;
    for (int ci = 1; ci < C; ci++) {
        if (!used[ci]) continue;
        const u64 *M = mw + (size_t)ci * nw;
        short *r = run + (size_t)ci * np2;
        r[n] = 0;
        for (int p = n - 1; p >= 0; p--) r[p] = (M[p >> 6] >> (p & 63) & 1) ? (short)(r[p + 1] + 1) : 0;
    }
#define FITS(k, st) (run[(size_t)s->cidx[k] * np2 + (st)] >= s->lens[k])
#define GAP(k) ((k) < m - 1 && s->gaps[k])
#define SR(k) (S + (size_t)(k) * np2)
    /* suffix: S[k][p] = placements of blocks k.. on cells p..n-1 */
    SR(m)[n] = 1;
    for (int p = n - 1; p >= 0; p--) SR(m)[p] = white[p] ? SR(m)[p + 1] : 0;
    for (int k = m - 1; k >= 0; k--) {
        int L = s->lens[k], g = GAP(k);
        u128 *row = SR(k), *nxt = SR(k + 1);
        for (int p = n - 1; p >= 0; p--) {
            u128 total = white[p] ? row[p + 1] : 0;
            if (p + L <= n && FITS(k, p)) {
                int e = p + L;
                if (!g) total += nxt[e];
                else if (e < n && white[e]) total += nxt[e + 1];
            }
            row[p] = total;
        }
    }
    u128 total = SR(0)[0];
    PyObject *out = PyList_New(C);
    if (!out) { PyMem_Free(mem); return NULL; }
    if (total) {
        A[0] = 1;
        for (int p = 1; p <= n; p++) A[p] = white[p - 1] ? A[p - 1] : 0;
        for (int k = 0; k < m; k++) {
            int L = s->lens[k], g = GAP(k), before_gap = k > 0 && GAP(k - 1);
            u128 *nxt = SR(k + 1), *diff = paint + (size_t)s->cidx[k] * np2;
            memset(ends, 0, np2 * sizeof(u128));
            for (int st = 0; st + L <= n; st++) {
                if (!FITS(k, st)) continue;
                u128 pre = before_gap ? (st >= 1 && white[st - 1] ? A[st - 1] : 0) : A[st];
                if (!pre) continue;
                int e = st + L;
                ends[e] += pre;
                u128 post = !g ? nxt[e] : (e < n && white[e] ? nxt[e + 1] : 0);
                u128 ways = pre * post;  /* <= total: no overflow */
                if (ways) { diff[st] += ways; diff[e] -= ways; }  /* mod 2^128: sums exact */
            }
            u128 acc = 0;
            for (int p = 0; p <= n; p++) {
                acc = ends[p] + ((p && white[p - 1]) ? acc : 0);
                A2[p] = acc;
            }
            memcpy(A, A2, np2 * sizeof(u128));
        }
    }
    /* coloured[p] reuses ends */
    u128 *coloured = ends;
    memset(coloured, 0, np2 * sizeof(u128));
    for (int ci = 0; ci < C; ci++) {
        PyObject *lst = PyList_New(n);
        if (!lst) goto fail;
        PyList_SET_ITEM(out, ci, lst);
    }
    for (int ci = 1; ci < C; ci++) {
        u128 acc = 0, *diff = paint + (size_t)ci * np2;
        PyObject *lst = PyList_GET_ITEM(out, ci);
        for (int p = 0; p < n; p++) {
            acc += diff[p];
            coloured[p] += acc;
            PyObject *f = total ? share_of(acc, total) : PyFloat_FromDouble(0.0);
            if (!f) goto fail;
            PyList_SET_ITEM(lst, p, f);
        }
    }
    {
        PyObject *lst = PyList_GET_ITEM(out, 0);
        for (int p = 0; p < n; p++) {
            PyObject *f = total ? share_of(total - coloured[p], total) : PyFloat_FromDouble(0.0);
            if (!f) goto fail;
            PyList_SET_ITEM(lst, p, f);
        }
    }
#undef FITS
#undef GAP
#undef SR
    PyMem_Free(mem);
    return out;
fail:
    PyMem_Free(mem);
    Py_DECREF(out);
    return NULL;
#endif
}

PyDoc_STRVAR(reprobe_doc,
"reprobe(prev, state, deps, clock, cache_size) -> None | (ok, child, cut)\n\n"
"An earlier probe's state `prev` narrowed by the node's `state` (AND, slot by slot): None when\n"
"that changes nothing; else the narrowed copy propagated from the lines it changed (taken in\n"
"the order of a Python set of their ids, as `propagate` would get them), with `cut` the row\n"
"colour bits the narrowing removed. `deps`, `clock`, `cache_size` as in `propagate`.");

static PyObject *Core_reprobe(Core *c, PyObject *args)
{
    PyObject *prev, *state, *deps, *clock;
    Py_ssize_t cache_size;
    if (!PyArg_ParseTuple(args, "O!O!OOn", &PyList_Type, &prev, &PyList_Type, &state, &deps,
                          &clock, &cache_size))
        return NULL;
    int C = c->C, h = c->h, nl = c->nlines;
    Py_ssize_t ns = (Py_ssize_t)nl * C;
    if (PyList_GET_SIZE(prev) != ns || PyList_GET_SIZE(state) != ns) {
        PyErr_SetString(PyExc_ValueError, "states of the wrong length");
        return NULL;
    }
    PyObject *child = PyList_New(ns), *lines = PySet_New(NULL);
    u64 *a = c->res, *b;  /* scratch: c->res holds C * (longest line's words) >= 2 lines */
    long long cut = 0;
    int any = 0;
    if (!child || !lines) goto fail;
    for (Py_ssize_t k = 0; k < ns; k++) {
        int l = (int)(k / C), nw = c->specs[l].nw;
        PyObject *po = PyList_GET_ITEM(prev, k), *so = PyList_GET_ITEM(state, k);
        PyObject *out;
        if (po == so) {  /* the same int object: nothing to narrow (the usual case) */
            Py_INCREF(po);
            out = po;
        } else {
            b = a + nw;
            if (int_to_words(po, a, nw) < 0 || int_to_words(so, b, nw) < 0) goto fail;
            u64 diff = 0;
            for (int i = 0; i < nw; i++) {
                u64 x = a[i] & b[i];
                u64 d = a[i] ^ x;
                diff |= d;
                if (k < (Py_ssize_t)h * C) cut += POPC(d);
                b[i] = x;
            }
            if (!diff) {
                Py_INCREF(po);
                out = po;
            } else {
                out = words_to_int(b, nw);
                if (!out) goto fail;
                any = 1;
                PyObject *lo = PyLong_FromLong(l);
                if (!lo || PySet_Add(lines, lo) < 0) { Py_XDECREF(lo); Py_DECREF(out); goto fail; }
                Py_DECREF(lo);
            }
        }
        PyList_SET_ITEM(child, k, out);
    }
    if (!any) {
        Py_DECREF(child);
        Py_DECREF(lines);
        Py_RETURN_NONE;
    }
    if (deps != Py_None && (!PyList_Check(deps) || PyList_GET_SIZE(deps) != nl)) {
        PyErr_SetString(PyExc_ValueError, "deps must be a list with one int per line");
        goto fail;
    }
    /* the first queue in the order of the set's iteration, as propagate(child, lines) took it */
    int *first = PyMem_Malloc((size_t)(nl ? nl : 1) * sizeof(int)), nfirst = 0;
    if (!first) { PyErr_NoMemory(); goto fail; }
    {
        PyObject *it = PyObject_GetIter(lines), *key;
        if (!it) { PyMem_Free(first); goto fail; }
        while ((key = PyIter_Next(it)) && nfirst < nl) {
            first[nfirst++] = (int)PyLong_AsLong(key);
            Py_DECREF(key);
        }
        Py_XDECREF(key);
        Py_DECREF(it);
    }
    PyObject *ok = core_prop(c, child, first, nfirst, deps == Py_None ? NULL : deps, NULL,
                             clock == Py_None ? NULL : clock, cache_size);
    PyMem_Free(first);
    if (!ok) goto fail;
    PyObject *res = Py_BuildValue("(NNL)", ok, child, cut);
    Py_DECREF(lines);
    return res;
fail:
    Py_XDECREF(child);
    Py_XDECREF(lines);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Probing: one probe (try_probe) and one probe sequence (probe_seq) of the search
 * ------------------------------------------------------------------------------------------- */

/* Packed states: without backjumping (deps None) a probe's state is kept as one bytes object
 * holding its words laid out as `buf` (line by line, colour by colour), not as a list of ints:
 * a probe then copies and narrows 2-4 KB of words instead of making a list and an int per
 * changed slot (issue 42). Python sees lists: `unpack` turns a packed state into one. */
static int state_to_words(Core *c, PyObject *st, u64 *w)
{
    int C = c->C;
    for (int l = 0; l < c->nlines; l++) {
        int nw = c->specs[l].nw;
        for (int ci = 0; ci < C; ci++)
            if (int_to_words(PyList_GET_ITEM(st, (Py_ssize_t)l * C + ci), w + c->off[l] + (size_t)ci * nw, nw) < 0)
                return -1;
    }
    return 0;
}

static PyObject *words_to_state(Core *c, const u64 *w)
{
    int C = c->C;
    PyObject *st = PyList_New((Py_ssize_t)c->nlines * C);
    if (!st) return NULL;
    for (int l = 0; l < c->nlines; l++) {
        int nw = c->specs[l].nw;
        for (int ci = 0; ci < C; ci++) {
            PyObject *o = words_to_int(w + c->off[l] + (size_t)ci * nw, nw);
            if (!o) { Py_DECREF(st); return NULL; }
            PyList_SET_ITEM(st, (Py_ssize_t)l * C + ci, o);
        }
    }
    return st;
}

INLINE u64 *pack_words(PyObject *b) { return (u64 *)PyBytes_AS_STRING(b); }

/* a new reference: a state list as it is, a packed state unpacked */
static PyObject *as_state(Core *c, PyObject *o)
{
    if (!PyBytes_Check(o)) { Py_INCREF(o); return o; }
    if (PyBytes_GET_SIZE(o) != (Py_ssize_t)(c->off[c->nlines] * sizeof(u64))) {
        PyErr_SetString(PyExc_ValueError, "a packed state of another grid");
        return NULL;
    }
    return words_to_state(c, pack_words(o));
}

PyDoc_STRVAR(unpack_doc,
"unpack(state) -> list\n\n"
"A probe memo's state as a state list (a packed state, bytes, unpacked; a list as it is).");

static PyObject *Core_unpack(Core *c, PyObject *o) { return as_state(c, o); }

/* set cell (i, j) of a Python state list to colour index ci; colour bits removed, -1 on error */
static long long core_assign(Core *c, PyObject *st, int i, int j, int ci)
{
    int C = c->C, h = c->h;
    int nwr = c->specs[i].nw, nwc = c->specs[h + j].nw;
    u64 *a = c->res, *b = c->res + nwr;  /* scratch, free between propagations */
    long long removed = 0;
    for (int k = 0; k < C; k++) {
        if (k == ci) continue;
        PyObject *ro = PyList_GET_ITEM(st, (Py_ssize_t)i * C + k);
        if (int_to_words(ro, a, nwr) < 0) return -1;
        if (!(a[j >> 6] >> (j & 63) & 1)) continue;
        removed++;
        a[j >> 6] &= ~((u64)1 << (j & 63));
        PyObject *co = PyList_GET_ITEM(st, (Py_ssize_t)(h + j) * C + k);
        if (int_to_words(co, b, nwc) < 0) return -1;
        b[i >> 6] &= ~((u64)1 << (i & 63));
        PyObject *nr = words_to_int(a, nwr), *nc = words_to_int(b, nwc);
        if (!nr || !nc) { Py_XDECREF(nr); Py_XDECREF(nc); return -1; }
        PyList_SetItem(st, (Py_ssize_t)i * C + k, nr);
        PyList_SetItem(st, (Py_ssize_t)(h + j) * C + k, nc);
    }
    return removed;
}

typedef struct {
    PyObject *state, *deps, *memo, *B, *seq, *clock;
    long long bits, done;
    Py_ssize_t cache_size;
    long long probes, reused;
    u64 *node;  /* deps None: the node's state as words, and the probes' states packed */
} ProbeCtx;

/* propagate a packed state's words in place from lines first[0..n) */
static PyObject *prop_packed(Core *c, ProbeCtx *x, u64 *w, const int *first, int n)
{
    c->wio = w;
    PyObject *r = core_prop(c, NULL, first, n, NULL, NULL, x->clock == Py_None ? NULL : x->clock,
                            x->cache_size);
    c->wio = NULL;
    return r;
}

/* one probe (i, j, ci): ok (1/0, -1 error), with new references *child, *cdeps, and *left */
static int core_try(Core *c, ProbeCtx *x, int i, int j, int ci, PyObject **child_out,
                    PyObject **cdeps_out, long long *left_out)
{
    int h = c->h, nl = c->nlines;
    PyObject *key = PyTuple_New(3);
    PyObject *child = NULL, *cdeps = NULL, *r = NULL;
    int ok = -1;
    long long left = 0;
    if (!key) return -1;
    {
        PyObject *ko[3] = {PyLong_FromLong(i), PyLong_FromLong(j), PyLong_FromLong(ci)};
        for (int t = 0; t < 3; t++) {
            if (!ko[t]) { for (int u = 0; u < 3; u++) Py_XDECREF(ko[u]); Py_DECREF(key); return -1; }
        }
        for (int t = 0; t < 3; t++) PyTuple_SET_ITEM(key, t, ko[t]);
    }
    PyObject *old = PyDict_GetItemWithError(x->memo, key);  /* borrowed */
    if (!old && PyErr_Occurred()) goto out;
    if (old) {
        if (!PyTuple_Check(old) || PyTuple_GET_SIZE(old) != 4) {
            PyErr_SetString(PyExc_TypeError, "a probe memo entry is (state, deps, bits, sequence)");
            goto out;
        }
        Py_INCREF(old);  /* the memo entry may be replaced below */
        PyObject *o0 = PyTuple_GET_ITEM(old, 0), *o1 = PyTuple_GET_ITEM(old, 1);
        PyObject *o2 = PyTuple_GET_ITEM(old, 2), *o3 = PyTuple_GET_ITEM(old, 3);
        int same = PyObject_RichCompareBool(o3, x->seq, Py_EQ);
        long long obits = PyLong_AsLongLong(o2);
        if (same < 0 || (obits == -1 && PyErr_Occurred())) { Py_DECREF(old); goto out; }
        if (same) {
            child = o0; Py_INCREF(child);
            cdeps = o1; Py_INCREF(cdeps);
            left = obits;
            ok = 1;
            Py_DECREF(old);
            goto out;
        }
        if (PyBytes_Check(o0)) {  /* packed: the same steps as Core_reprobe, on words */
            size_t T = c->off[nl];
            if (!x->node || PyBytes_GET_SIZE(o0) != (Py_ssize_t)(T * sizeof(u64))) {
                PyErr_SetString(PyExc_ValueError, "a packed probe state without a packed node");
                Py_DECREF(old);
                goto out;
            }
            const u64 *pw = pack_words(o0);
            PyObject *nb = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(T * sizeof(u64)));
            PyObject *lines = nb ? PySet_New(NULL) : NULL;
            if (!lines) { Py_XDECREF(nb); Py_DECREF(old); goto out; }
            u64 *nwd = pack_words(nb);
            long long cut = 0;
            int any = 0, C = c->C;
            for (int l = 0; l < nl; l++) {
                size_t a0 = c->off[l], a1 = a0 + (size_t)C * c->specs[l].nw;
                u64 diff = 0;
                for (size_t q = a0; q < a1; q++) {
                    u64 v = pw[q] & x->node[q], d = pw[q] ^ v;
                    diff |= d;
                    if (l < h) cut += POPC(d);
                    nwd[q] = v;
                }
                if (!diff) continue;
                any = 1;
                PyObject *lo = PyLong_FromLong(l);
                if (!lo || PySet_Add(lines, lo) < 0) {
                    Py_XDECREF(lo); Py_DECREF(lines); Py_DECREF(nb); Py_DECREF(old); goto out;
                }
                Py_DECREF(lo);
            }
            if (!any) {  /* nothing changed: the earlier state as it is */
                Py_DECREF(lines);
                Py_DECREF(nb);
                x->reused++;
                PyObject *e = PyTuple_Pack(4, o0, o1, o2, x->seq);
                if (!e || PyDict_SetItem(x->memo, key, e) < 0) { Py_XDECREF(e); Py_DECREF(old); goto out; }
                Py_DECREF(e);
                child = o0; Py_INCREF(child);
                cdeps = o1; Py_INCREF(cdeps);
                left = obits;
                ok = 1;
                Py_DECREF(old);
                goto out;
            }
            /* the first queue in the order of the set's iteration, as Core_reprobe takes it */
            int first[nl], nfirst = 0;
            PyObject *it = PyObject_GetIter(lines), *lo;
            while (it && (lo = PyIter_Next(it))) {
                first[nfirst++] = (int)PyLong_AsLong(lo);
                Py_DECREF(lo);
            }
            Py_XDECREF(it);
            Py_DECREF(lines);
            if (PyErr_Occurred()) { Py_DECREF(nb); Py_DECREF(old); goto out; }
            x->probes++;
            PyObject *res = prop_packed(c, x, nwd, first, nfirst);
            if (!res) { Py_DECREF(nb); Py_DECREF(old); goto out; }
            ok = res == Py_True;
            Py_DECREF(res);
            child = nb;
            cdeps = Py_None; Py_INCREF(cdeps);
            left = obits - cut - c->removed;
            Py_DECREF(old);
            goto stored;
        }
        if (x->deps != Py_None) {
            cdeps = PyList_New(nl);
            if (!cdeps) { Py_DECREF(old); goto out; }
            for (int l = 0; l < nl; l++) {
                PyObject *v = PyNumber_Or(PyList_GET_ITEM(o1, l), PyList_GET_ITEM(x->deps, l));
                if (!v) { Py_DECREF(old); goto out; }
                PyList_SET_ITEM(cdeps, l, v);
            }
        } else {
            cdeps = Py_None; Py_INCREF(cdeps);
        }
        PyObject *a = Py_BuildValue("(OOOOn)", o0, x->state, cdeps, x->clock, x->cache_size);
        r = a ? Core_reprobe(c, a) : NULL;
        Py_XDECREF(a);
        if (!r) { Py_DECREF(old); goto out; }
        if (r == Py_None) {  /* nothing changed: the earlier state as it is */
            x->reused++;
            PyObject *e = PyTuple_Pack(4, o0, o1, o2, x->seq);
            if (!e || PyDict_SetItem(x->memo, key, e) < 0) { Py_XDECREF(e); Py_DECREF(old); goto out; }
            Py_DECREF(e);
            child = o0; Py_INCREF(child);
            Py_SETREF(cdeps, o1); Py_INCREF(cdeps);
            left = obits;
            ok = 1;
            Py_DECREF(old);
            goto out;
        }
        x->probes++;
        ok = PyObject_IsTrue(PyTuple_GET_ITEM(r, 0));
        child = PyTuple_GET_ITEM(r, 1); Py_INCREF(child);
        left = obits - PyLong_AsLongLong(PyTuple_GET_ITEM(r, 2)) - c->removed;
        Py_DECREF(old);
    } else if (x->node) {  /* packed: the node's words, the cell set, propagated */
        size_t T = c->off[nl];
        int C = c->C, nwr = c->specs[i].nw, nwc = c->specs[h + j].nw;
        child = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(T * sizeof(u64)));
        if (!child) goto out;
        u64 *cw = pack_words(child);
        memcpy(cw, x->node, T * sizeof(u64));
        long long rem = 0;
        for (int k = 0; k < C; k++) {
            if (k == ci) continue;
            u64 *rw = cw + c->off[i] + (size_t)k * nwr;
            if (!(rw[j >> 6] >> (j & 63) & 1)) continue;
            rem++;
            rw[j >> 6] &= ~((u64)1 << (j & 63));
            cw[c->off[h + j] + (size_t)k * nwc + (i >> 6)] &= ~((u64)1 << (i & 63));
        }
        cdeps = Py_None; Py_INCREF(cdeps);
        x->probes++;
        int first[2] = {i, h + j};
        PyObject *res = prop_packed(c, x, cw, first, 2);
        if (!res) goto out;
        ok = res == Py_True;
        Py_DECREF(res);
        left = x->bits - rem - c->removed;
    } else {
        child = PyList_GetSlice(x->state, 0, PyList_GET_SIZE(x->state));
        if (!child) goto out;
        long long rem = core_assign(c, child, i, j, ci);
        if (rem < 0) goto out;
        if (x->deps != Py_None) {
            cdeps = PyList_GetSlice(x->deps, 0, nl);
            if (!cdeps) goto out;
            for (int l = 0; l < 2; l++) {
                Py_ssize_t at = l ? h + j : i;
                PyObject *v = PyNumber_Or(PyList_GET_ITEM(cdeps, at), x->B);
                if (!v) goto out;
                PyList_SetItem(cdeps, at, v);
            }
        } else {
            cdeps = Py_None; Py_INCREF(cdeps);
        }
        x->probes++;
        int first[2] = {i, h + j};
        PyObject *res = core_prop(c, child, first, 2, cdeps == Py_None ? NULL : cdeps, NULL,
                                  x->clock == Py_None ? NULL : x->clock, x->cache_size);
        if (!res) goto out;
        ok = res == Py_True;
        Py_DECREF(res);
        left = x->bits - rem - c->removed;
    }
stored:
    if (ok < 0) goto out;
    if (ok && left != x->done) {
        PyObject *lo = PyLong_FromLongLong(left);
        PyObject *e = lo ? PyTuple_Pack(4, child, cdeps, lo, x->seq) : NULL;
        Py_XDECREF(lo);
        if (!e || PyDict_SetItem(x->memo, key, e) < 0) { Py_XDECREF(e); ok = -1; goto out; }
        Py_DECREF(e);
    } else if (PyDict_DelItem(x->memo, key) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_KeyError)) { ok = -1; goto out; }
        PyErr_Clear();
    }
out:
    Py_XDECREF(r);
    Py_DECREF(key);
    if (ok < 0) {
        Py_XDECREF(child);
        Py_XDECREF(cdeps);
        return -1;
    }
    *child_out = child;
    *cdeps_out = cdeps;
    *left_out = left;
    return ok;
}

static int probe_ctx(PyObject *args, ProbeCtx *x, PyObject **extra, const char *fmt)
{
    memset(x, 0, sizeof(*x));
    if (!PyArg_ParseTuple(args, fmt, &PyList_Type, &x->state, &x->deps, &x->bits, &x->memo,
                          &x->B, &x->seq, &x->done, &x->clock, &x->cache_size, extra))
        return -1;
    if (!PyDict_Check(x->memo)) { PyErr_SetString(PyExc_TypeError, "memo must be a dict"); return -1; }
    if (x->deps != Py_None && (!PyList_Check(x->deps))) {
        PyErr_SetString(PyExc_TypeError, "deps must be a list or None");
        return -1;
    }
    return 0;
}

/* deps None: the node's words (x->node, to be freed with PyMem_Free); 0 or -1 */
static int probe_node(Core *c, ProbeCtx *x)
{
    x->node = NULL;
    if (x->deps != Py_None) return 0;
    if (PyList_GET_SIZE(x->state) != (Py_ssize_t)c->nlines * c->C) {
        PyErr_SetString(PyExc_ValueError, "state has the wrong length");
        return -1;
    }
    x->node = PyMem_Malloc((c->off[c->nlines] + 1) * sizeof(u64));
    if (!x->node) { PyErr_NoMemory(); return -1; }
    if (state_to_words(c, x->state, x->node) < 0) { PyMem_Free(x->node); x->node = NULL; return -1; }
    return 0;
}

PyDoc_STRVAR(try_probe_doc,
"try_probe(state, deps, bits, memo, B, seq, done, clock, cache_size, (i, j, ci))\n"
"    -> (ok, child, cdeps, left, probes, reused)\n\n"
"One probe of the search (see search._Search._try, whose body this is).");

static PyObject *Core_try_probe(Core *c, PyObject *args)
{
    ProbeCtx x;
    PyObject *cell, *child, *cdeps;
    long long left;
    if (probe_ctx(args, &x, &cell, "O!OLOOOLOnO") < 0) return NULL;
    int i, j, ci;
    if (!PyArg_ParseTuple(cell, "iii", &i, &j, &ci)) return NULL;
    if (i < 0 || i >= c->h || j < 0 || j >= c->w || ci < 0 || ci >= c->C) {
        PyErr_Format(PyExc_IndexError, "try_probe: cell (%d, %d) colour %d outside the %dx%d "
                     "grid of %d colours", i, j, ci, c->h, c->w, c->C);
        return NULL;
    }
    if (probe_node(c, &x) < 0) return NULL;
    int ok = core_try(c, &x, i, j, ci, &child, &cdeps, &left);
    PyMem_Free(x.node);
    if (ok < 0) return NULL;
    PyObject *st = as_state(c, child);
    Py_DECREF(child);
    if (!st) { Py_DECREF(cdeps); return NULL; }
    return Py_BuildValue("(ONNLLL)", ok ? Py_True : Py_False, st, cdeps, left, x.probes, x.reused);
}

/* ---------------------------------------------------------------------------------------------
 * The frontier of a probe sequence: rows and cell masks to probe, in order
 * ------------------------------------------------------------------------------------------- */

/* x << 1 and x >> 1 on nw words */
INLINE void shl1(const u64 *x, u64 *o, int nw)
{
    for (int q = nw - 1; q >= 0; q--) o[q] = (x[q] << 1) | (q ? x[q - 1] >> 63 : 0);
}
INLINE void shr1(const u64 *x, u64 *o, int nw)
{
    for (int q = 0; q < nw; q++) o[q] = (x[q] >> 1) | (q + 1 < nw ? x[q + 1] << 63 : 0);
}

/* Neighbours of the cells changed since `recent`, then of those changed since `ref` (`recent`
 * is not `ref`), then undecided cells with two or more decided neighbours (edges count as
 * decided); when none, every undecided cell. Rows `rows[k]` and masks `masks[k*nw..]`, k < *nout
 * (at most 3h entries); `srow` the node's row slots (h*C*nw words). 0, or -1 with an error. */
static int core_frontier(Core *c, const u64 *srow, PyObject *ref, PyObject *recent, int nw,
                         int *rows, u64 *masks, int *nout)
{
    int C = c->C, h = c->h, w = c->w, nout_ = 0;
    size_t rw = (size_t)h * C * nw;
    u64 *unk = PyMem_Calloc((size_t)h * nw * 3 + rw + 4 * (size_t)nw + 1, sizeof(u64));
    if (!unk) { PyErr_NoMemory(); return -1; }
    u64 *taken = unk + (size_t)h * nw, *ch = taken + (size_t)h * nw, *since = ch + (size_t)h * nw;
    u64 *t1 = since + rw, *t2 = t1 + nw, *full = t2 + nw, *mm = full + nw;
    for (int q = 0; q < nw; q++) full[q] = fullword(w, q);
    for (int i = 0; i < h; i++)
        for (int q = 0; q < nw; q++) {
            u64 seen = 0, u = 0;
            for (int ci = 0; ci < C; ci++) { u64 v = srow[((size_t)i * C + ci) * nw + q]; u |= seen & v; seen |= v; }
            unk[(size_t)i * nw + q] = u;
        }
    PyObject *passes[2] = {recent, ref};
    for (int ps = recent == ref ? 1 : 0; ps < 2; ps++) {
        PyObject *sl = passes[ps];
        if (!PyList_Check(sl) || PyList_GET_SIZE(sl) < (Py_ssize_t)h * C) {
            PyErr_SetString(PyExc_TypeError, "ref and recent are states (lists)");
            goto fail;
        }
        for (Py_ssize_t k = 0; k < (Py_ssize_t)h * C; k++)
            if (int_to_words(PyList_GET_ITEM(sl, k), since + (size_t)k * nw, nw) < 0) goto fail;
        for (int i = 0; i < h; i++)
            for (int q = 0; q < nw; q++) {
                u64 d = 0;
                for (int ci = 0; ci < C; ci++) {
                    size_t at = ((size_t)i * C + ci) * nw + q;
                    d |= since[at] ^ srow[at];
                }
                ch[(size_t)i * nw + q] = d;
            }
        for (int i = 0; i < h; i++) {
            const u64 *ci_ = ch + (size_t)i * nw;
            shl1(ci_, t1, nw);
            shr1(ci_, t2, nw);
            u64 any = 0;
            for (int q = 0; q < nw; q++) {
                u64 v = t1[q] | t2[q] | (i ? ch[(size_t)(i - 1) * nw + q] : 0)
                        | (i + 1 < h ? ch[(size_t)(i + 1) * nw + q] : 0);
                v &= unk[(size_t)i * nw + q] & ~taken[(size_t)i * nw + q];
                mm[q] = v;
                any |= v;
            }
            if (!any) continue;
            for (int q = 0; q < nw; q++) taken[(size_t)i * nw + q] |= mm[q];
            rows[nout_] = i;
            memcpy(masks + (size_t)nout_ * nw, mm, (size_t)nw * sizeof(u64));
            nout_++;
        }
    }
    int any_out = nout_ > 0;
    for (int i = 0; i < h; i++) {
        const u64 *ui = unk + (size_t)i * nw, *ti = taken + (size_t)i * nw;
        u64 any = 0;
        for (int q = 0; q < nw; q++) any |= ui[q] & ~ti[q];
        if (!any) continue;
        /* dec = full & ~unk; left = ((dec << 1) | 1) & full; right = (dec >> 1) | top */
        u64 *dec = mm;
        for (int q = 0; q < nw; q++) dec[q] = full[q] & ~ui[q];
        shl1(dec, t1, nw);
        shr1(dec, t2, nw);
        t1[0] |= 1;
        t2[(w - 1) >> 6] |= (u64)1 << ((w - 1) & 63);
        u64 got = 0;
        u64 out[nw];
        for (int q = 0; q < nw; q++) {
            u64 left = t1[q] & full[q], right = t2[q];
            u64 up = i ? full[q] & ~unk[(size_t)(i - 1) * nw + q] : full[q];
            u64 down = i + 1 < h ? full[q] & ~unk[(size_t)(i + 1) * nw + q] : full[q];
            u64 v = ((left & right) | ((left | right) & (up | down)) | (up & down)) & ui[q] & ~ti[q];
            out[q] = v;
            got |= v;
        }
        if (!got) continue;
        any_out = 1;
        rows[nout_] = i;
        memcpy(masks + (size_t)nout_ * nw, out, (size_t)nw * sizeof(u64));
        nout_++;
    }
    if (!any_out)  /* cannot happen while cells are open (the top-left open cell qualifies) */
        for (int i = 0; i < h; i++) {
            u64 got = 0;
            for (int q = 0; q < nw; q++) {
                mm[q] = unk[(size_t)i * nw + q] & ~taken[(size_t)i * nw + q];
                got |= mm[q];
            }
            if (!got) continue;
            rows[nout_] = i;
            memcpy(masks + (size_t)nout_ * nw, mm, (size_t)nw * sizeof(u64));
            nout_++;
        }
    PyMem_Free(unk);
    *nout = nout_;
    return 0;
fail:
    PyMem_Free(unk);
    return -1;
}

PyDoc_STRVAR(frontier_doc,
"frontier(state, ref, recent) -> list[(row, cell mask)]\n\n"
"The rows and cell masks a probe sequence at `state` probes, in order (what probe_seq walks):\n"
"neighbours of the cells changed since `recent`, then of those changed since `ref` (unless\n"
"`recent` is `ref`), then undecided cells with two or more decided neighbours, edges counting\n"
"as decided; when none, every undecided cell.");

static PyObject *Core_frontier(Core *c, PyObject *args)
{
    PyObject *state, *ref, *recent, *out = NULL;
    if (!PyArg_ParseTuple(args, "O!OO", &PyList_Type, &state, &ref, &recent)) return NULL;
    int C = c->C, h = c->h, nwr = h ? c->specs[0].nw : 1, nf = 0;
    if (PyList_GET_SIZE(state) != (Py_ssize_t)c->nlines * C) {
        PyErr_SetString(PyExc_ValueError, "state has the wrong length");
        return NULL;
    }
    u64 *srow = PyMem_Calloc((size_t)h * C * nwr + 1, sizeof(u64));
    int *rows = PyMem_Calloc(3 * (size_t)h + 1, sizeof(int));
    u64 *masks = PyMem_Calloc((3 * (size_t)h + 1) * nwr, sizeof(u64));
    if (!srow || !rows || !masks) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < (Py_ssize_t)h * C; k++)
        if (int_to_words(PyList_GET_ITEM(state, k), srow + (size_t)k * nwr, nwr) < 0) goto done;
    if (core_frontier(c, srow, ref, recent, nwr, rows, masks, &nf) < 0) goto done;
    out = PyList_New(nf);
    for (int f = 0; out && f < nf; f++) {
        PyObject *mo = words_to_int(masks + (size_t)f * nwr, nwr);
        PyObject *t = mo ? Py_BuildValue("(iN)", rows[f], mo) : NULL;
        if (!t) { Py_CLEAR(out); break; }
        PyList_SET_ITEM(out, f, t);
    }
done:
    PyMem_Free(srow);
    PyMem_Free(rows);
    PyMem_Free(masks);
    return out;
}

/* a monotonic clock in seconds (the caller gives time left, not a time point: the epochs of
 * Python's perf_counter and of this clock need not agree) */
static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

PyDoc_STRVAR(probe_seq_doc,
"probe_seq(state, deps, bits, memo, B, seq, done, clock, cache_size, (ref, recent, tick, left))\n"
"    -> (narrowed, payload, probes, reused)\n\n"
"One probe sequence (see search._Search.probe): the frontier's cells (neighbours of the cells\n"
"changed since the state `recent`, then since `ref`, then undecided cells with two or more\n"
"decided neighbours, edges counting as decided) probed colour by colour, skipping a colour an\n"
"earlier probe of the sequence\n"
"implied; before every probe, `tick()` (or None) is called once `left` seconds have passed\n"
"since the call began (it raises the caller's out-of-time error). narrowed False: payload is the\n"
"best probe (i, j, ci, child, cdeps, left) or None; True: payload is (i, j, ci, child or None)\n"
"of the first probe that contradicted (None) or completed the grid.");

static PyObject *Core_probe_seq(Core *c, PyObject *args)
{
    ProbeCtx x;
    PyObject *extra, *ref, *recent, *tick;
    double left;
    if (probe_ctx(args, &x, &extra, "O!OLOOOLOnO") < 0) return NULL;
    if (!PyArg_ParseTuple(extra, "OOOd", &ref, &recent, &tick, &left)) return NULL;
    if (probe_node(c, &x) < 0) return NULL;
    const double end = monotonic_s() + left;
    int C = c->C, h = c->h;
    if (PyList_GET_SIZE(x.state) != (Py_ssize_t)c->nlines * C) {
        PyErr_SetString(PyExc_ValueError, "state has the wrong length");
        return NULL;
    }
    int nwr = h ? c->specs[0].nw : 1;
    size_t rw = (size_t)h * C * nwr;  /* words of the row slots of one state */
    u64 *srow = PyMem_Calloc(rw ? rw : 1, sizeof(u64)), *pad = NULL, *tried = NULL;
    u64 *m = PyMem_Calloc(2 * (size_t)nwr, sizeof(u64)), *w = m ? m + nwr : NULL;
    size_t ntried = 0, tcap = 0;
    PyObject *best = NULL, *result = NULL;
    long long best_left = (long long)1 << 62;
    int *frows = PyMem_Calloc(3 * (size_t)h + 1, sizeof(int)), nfront = 0;
    u64 *fmasks = PyMem_Calloc((3 * (size_t)h + 1) * nwr, sizeof(u64));
    if (!srow || !m || !frows || !fmasks) {
        PyMem_Free(srow); PyMem_Free(m); PyMem_Free(frows); PyMem_Free(fmasks); PyMem_Free(x.node);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < (Py_ssize_t)h * C; k++)
        if (int_to_words(PyList_GET_ITEM(x.state, k), srow + (size_t)k * nwr, nwr) < 0) goto done;
    if (core_frontier(c, srow, ref, recent, nwr, frows, fmasks, &nfront) < 0) goto done;
    for (int f = 0; f < nfront; f++) {
        int i = frows[f];
        memcpy(m, fmasks + (size_t)f * nwr, (size_t)nwr * sizeof(u64));
        for (int wd = 0; wd < nwr; wd++) {
            while (m[wd]) {
                int j = wd * 64 + CTZ(m[wd]);
                m[wd] &= m[wd] - 1;
                u64 low = (u64)1 << (j & 63);
                for (int ci = 0; ci < C; ci++) {
                    if (!(srow[((size_t)i * C + ci) * nwr + wd] & low)) continue;
                    if (C == 2) {
                        if (pad && !(pad[((size_t)i * C + 1 - ci) * nwr + wd] & low)) continue;
                    } else {
                        int implied = 0;
                        for (size_t t = 0; t < ntried && !implied; t++) {
                            const u64 *tr = tried + t * rw;
                            int all = 1;
                            for (int k = 0; k < C && all; k++)
                                if (k != ci && (tr[((size_t)i * C + k) * nwr + wd] & low)) all = 0;
                            implied = all;
                        }
                        if (implied) continue;
                    }
                    if (tick != Py_None && monotonic_s() > end) {
                        PyObject *r = PyObject_CallNoArgs(tick);
                        if (!r) goto done;
                        Py_DECREF(r);
                    }
                    if (PyErr_CheckSignals() < 0) goto done;
                    PyObject *child, *cdeps;
                    long long left;
                    int ok = core_try(c, &x, i, j, ci, &child, &cdeps, &left);
                    if (ok < 0) goto done;
                    if (ok && left != x.done) {
                        u64 *dst;
                        if (C == 2) {
                            if (!pad && !(pad = PyMem_Malloc((rw ? rw : 1) * sizeof(u64)))) {
                                Py_DECREF(child); Py_DECREF(cdeps); PyErr_NoMemory(); goto done;
                            }
                            dst = pad;
                        } else {
                            if (ntried == tcap) {
                                size_t ncap = tcap ? tcap * 2 : 8;
                                u64 *nt = PyMem_Realloc(tried, ncap * (rw ? rw : 1) * sizeof(u64));
                                if (!nt) { Py_DECREF(child); Py_DECREF(cdeps); PyErr_NoMemory(); goto done; }
                                tried = nt;
                                tcap = ncap;
                            }
                            dst = tried + ntried * rw;
                        }
                        /* dst = child's row slots (C > 2, or the first probe), else dst &= them;
                         * a slot that is the node's own int object is the node's (which
                         * contains every probe's), read from srow */
                        if (C != 2 || ntried == 0)
                            memcpy(dst, srow, rw * sizeof(u64));
                        if (PyBytes_Check(child)) {  /* packed: its row slots lead its words */
                            const u64 *cw = pack_words(child);
                            for (size_t q = 0; q < rw; q++) dst[q] &= cw[q];
                        } else
                        for (Py_ssize_t k = 0; k < (Py_ssize_t)h * C; k++) {
                            PyObject *co = PyList_GET_ITEM(child, k);
                            if (co == PyList_GET_ITEM(x.state, k)) continue;
                            if (int_to_words(co, w, nwr) < 0) {
                                Py_DECREF(child); Py_DECREF(cdeps); goto done;
                            }
                            for (int q = 0; q < nwr; q++) dst[(size_t)k * nwr + q] &= w[q];
                        }
                        ntried++;  /* C == 2: counts the probes ANDed into pad */
                        if (left < best_left) {
                            best_left = left;
                            PyObject *b = Py_BuildValue("(iiiOOL)", i, j, ci, child, cdeps, left);
                            if (!b) { Py_DECREF(child); Py_DECREF(cdeps); goto done; }
                            Py_XSETREF(best, b);
                        }
                        Py_DECREF(child);
                        Py_DECREF(cdeps);
                        continue;
                    }
                    PyObject *st = ok ? as_state(c, child) : Py_None;
                    if (!ok) Py_INCREF(st);
                    result = st ? Py_BuildValue("(O(iiiN)LL)", Py_True, i, j, ci, st, x.probes,
                                                x.reused) : NULL;
                    Py_DECREF(child);
                    Py_DECREF(cdeps);
                    goto done;
                }
            }
        }
    }
    if (PyErr_Occurred()) goto done;
    if (best && PyBytes_Check(PyTuple_GET_ITEM(best, 3))) {  /* the best probe's state unpacked */
        PyObject *st = as_state(c, PyTuple_GET_ITEM(best, 3));
        if (!st) goto done;
        PyObject *b = Py_BuildValue("(OOONOO)", PyTuple_GET_ITEM(best, 0), PyTuple_GET_ITEM(best, 1),
                                    PyTuple_GET_ITEM(best, 2), st, PyTuple_GET_ITEM(best, 4),
                                    PyTuple_GET_ITEM(best, 5));
        if (!b) goto done;
        Py_SETREF(best, b);
    }
    result = Py_BuildValue("(OOLL)", Py_False, best ? best : Py_None, x.probes, x.reused);
done:
    PyMem_Free(x.node);
    Py_XDECREF(best);
    PyMem_Free(frows);
    PyMem_Free(fmasks);
    PyMem_Free(srow);
    PyMem_Free(m);
    PyMem_Free(pad);
    PyMem_Free(tried);
    return result;
}

/* ---------------------------------------------------------------------------------------------
 * The compiled depth-first search (issue 42, fourth step; docs/line_core.md, "A compiled
 * search"), black-and-white puzzles only: Core.dfs. It uses the Core, its memo of settled lines
 * and core_prop on packed states.
 *
 * One node, on a packed state S (the words of Core's `buf` layout) already propagated:
 *
 *  1. a probe pass: every open cell, row by row, both colours: a copy of S with the cell set,
 *     propagated from its row and column (with `skip_implied`, a (cell, colour) that an
 *     earlier probe of the same pass implied is skipped: its consequences are a subset of that
 *     probe's; but the cell then has no two cuts to score or to reuse, and solve_lines leaves it
 *     off: on taai2011 it settled 62 of 100 puzzles within 50,000 probes against 73). A probe that
 *     contradicts is a failed literal: its colour is removed from S, S propagated (the node is
 *     dead when that contradicts). A probe that completes the grid is a solution: recorded, then
 *     its colour is removed the same way (that branch is explored). When both colours of a
 *     cell were probed and neither contradicted, S keeps only what one of the two fixed points
 *     allows (the cells both agree on are decided), propagated. A pass that changed S is
 *     followed by another;
 *  2. after a pass that changed nothing, a branch on the cell whose two probes cut the most
 *     (the larger min(a, b) + 1.85 log(1 + |a - b|), a and b the colour bits the two probes
 *     removed; nonosolve's / LalaFrogKK's score), the colour whose probe cut less first (the
 *     Python search's `hybrid` rule's order). When the first child's subtree is explored, its
 *     colour is removed from S and the node goes on (the second child, counted as a node).
 *
 * Incremental probing (`incremental`, solve_lines' default; nonosolve's stamps): every line of
 * S carries the stamp of its last change and every cell the stamp of its last two probes and
 * the set of lines their propagations settled; a cell none of whose lines has changed since is
 * not probed again (its probes would settle the same lines the same way: same cuts, no
 * contradiction), its cuts are reused for the branching score. The stamps and cuts are saved
 * before a first child and put back after it.
 *
 * Luby restarts (`restart_base`; solve_lines: 300 nodes a unit for a first solution, none for
 * uniqueness), the first colour's order and score noise are options; a restart begins again
 * from the root as its failed literals and explored first children narrowed it.
 *
 * The search stops when it has enough solutions, at a node or probe budget (the rest is then
 * the CDCL fallback's, from the root), at the deadline, or on a pending signal (read every
 * DFS_TICK probes, and by core_prop every 256 line updates).
 * ------------------------------------------------------------------------------------------- */

#define DFS_TICK 64  /* probes between two reads of the clock and of pending signals */

enum { DFS_EXHAUSTED = 0, DFS_ENOUGH = 1, DFS_BUDGET = 2, DFS_TIMEOUT = 3, DFS_RESTART = 4,
       DFS_ERROR = -1 };

typedef struct {
    Core *c;
    size_t W;                 /* words of a packed state */
    long long done;           /* colour bits of a decided grid */
    long long nodes, probes, failed, agreed, found;
    long long max_nodes, max_probes, want;
    long long run_budget, run_nodes;  /* restarts: nodes of this run, -1 never */
    int order, run_order;     /* first colour: 0 white, 1 black, 2 larger cut, 3 smaller cut */
    double noise, run_noise;  /* restarts: scores times 1 + noise * uniform(0, 1) */
    u64 rng;
    /* incremental probing (nonosolve's stamps): a cell's probes are made again only when a line
     * their propagation settled has changed since. One block, saved per depth: */
    int incr, tw;             /* on; words of a bit set of lines */
    int skip_implied;         /* skip a colour an earlier probe of the pass implied */
    long long gstamp;
    u64 *info;                /* [lstamp nl][pst cells][cut0 cells][cut1 cells][touched cells x tw] */
    size_t info_words;
    u64 **saved;              /* per depth: the block before the first child */
    int nsaved;
    u64 *touched;             /* the lines a cell's probes settled, collected */
    int max_depth, ndepth;
    double end;               /* monotonic deadline, 0: none */
    Py_ssize_t cache_size;
    u64 **level;              /* per depth: the node's state (allocated on first use) */
    u64 *t0, *t1, *skip;      /* the two probes of a cell; colours implied within a pass */
    PyObject *sols;           /* the solutions found, packed (bytes) */
} Dfs;

static int dfs_prop_node(Dfs *D, u64 *s, const int *first, int n);

/* propagate w in place from lines first[0..n): 1 consistent, 0 contradiction, -1 error */
static int dfs_prop(Dfs *D, u64 *w, const int *first, int n)
{
    Core *c = D->c;
    c->wio = w;
    PyObject *r = core_prop(c, NULL, first, n, NULL, NULL, NULL, D->cache_size);
    c->wio = NULL;
    if (!r) return -1;
    int ok = r == Py_True;
    Py_DECREF(r);
    return ok;
}

INLINE int dfs_bit(const u64 *line, int p) { return (int)(line[p >> 6] >> (p & 63) & 1); }
INLINE void dfs_clear(u64 *line, int p) { line[p >> 6] &= ~((u64)1 << (p & 63)); }

/* remove colour ci from cell (i, j) of w (no propagation) */
static void dfs_remove(Dfs *D, u64 *w, int i, int j, int ci)
{
    Core *c = D->c;
    int h = c->h;
    dfs_clear(w + c->off[i] + (size_t)ci * c->specs[i].nw, j);
    dfs_clear(w + c->off[h + j] + (size_t)ci * c->specs[h + j].nw, i);
}

/* remove ci from (i, j) and propagate: 1 consistent, 0 contradiction, -1 error; *bits updated */
static int dfs_narrow(Dfs *D, u64 *w, int i, int j, int ci, long long *bits)
{
    int first[2] = {i, D->c->h + j};
    dfs_remove(D, w, i, j, ci);
    int r = dfs_prop_node(D, w, first, 2);
    if (r > 0) *bits -= 1 + D->c->removed;
    return r;
}

/* probe (i, j, ci) of s into t: 1 consistent (then *left its colour bits), 0 contradiction */
static int dfs_probe(Dfs *D, const u64 *s, u64 *t, int i, int j, int ci, long long bits,
                     long long *left)
{
    memcpy(t, s, D->W * sizeof(u64));
    D->probes++;
    int first[2] = {i, D->c->h + j};
    dfs_remove(D, t, i, j, 1 - ci);
    int r = dfs_prop(D, t, first, 2);
    if (r > 0) *left = bits - 1 - D->c->removed;
    return r;
}

static int dfs_solution(Dfs *D, const u64 *w)
{
    PyObject *b = PyBytes_FromStringAndSize((const char *)w, (Py_ssize_t)(D->W * sizeof(u64)));
    if (!b || PyList_Append(D->sols, b) < 0) { Py_XDECREF(b); return DFS_ERROR; }
    Py_DECREF(b);
    D->found++;
    return D->found >= D->want ? DFS_ENOUGH : DFS_EXHAUSTED;
}

/* the clock, pending signals and the budgets, before a probe */
static int dfs_tick(Dfs *D)
{
    if (D->max_probes >= 0 && D->probes >= D->max_probes) return DFS_BUDGET;
    if ((D->probes & (DFS_TICK - 1)) == 0) {
        if (PyErr_CheckSignals() < 0) return DFS_ERROR;
        if (D->end > 0 && monotonic_s() > D->end) return DFS_TIMEOUT;
    }
    return DFS_EXHAUSTED;
}

/* the block of ``bytes`` at ``depth`` in a pool of per-depth blocks (grown on demand, kept
   for the whole search): the child states and the saved stamps each have one */
static u64 *dfs_pool(u64 ***pool, int *npool, int depth, size_t bytes)
{
    if (depth >= *npool) {
        int n = *npool ? *npool * 2 : 64;
        while (n <= depth) n *= 2;
        u64 **nl = PyMem_Realloc(*pool, (size_t)n * sizeof(u64 *));
        if (!nl) { PyErr_NoMemory(); return NULL; }
        for (int k = *npool; k < n; k++) nl[k] = NULL;
        *pool = nl;
        *npool = n;
    }
    if (!(*pool)[depth] && !((*pool)[depth] = PyMem_Malloc(bytes)))
        PyErr_NoMemory();
    return (*pool)[depth];
}

static u64 *dfs_level(Dfs *D, int depth)
{
    return dfs_pool(&D->level, &D->ndepth, depth, D->W * sizeof(u64) + 8);
}

#define LSTAMP(D) ((long long *)(D)->info)
#define PST(D) ((long long *)(D)->info + (D)->c->nlines)
#define CUT0(D) (PST(D) + (size_t)(D)->c->h * (D)->c->w)
#define CUT1(D) (CUT0(D) + (size_t)(D)->c->h * (D)->c->w)
#define PTOUCH(D, cell) ((D)->info + (D)->c->nlines + 3 * (size_t)(D)->c->h * (D)->c->w \
                         + (size_t)(cell) * (D)->tw)

/* propagate s (the node's state) from first[0..n), the lines it narrows stamped */
static int dfs_prop_node(Dfs *D, u64 *s, const int *first, int n)
{
    Core *c = D->c;
    if (!D->incr) return dfs_prop(D, s, first, n);
    c->lstamp = LSTAMP(D);
    c->stamp = ++D->gstamp;
    for (int k = 0; k < n; k++) LSTAMP(D)[first[k]] = c->stamp;
    int r = dfs_prop(D, s, first, n);
    c->lstamp = NULL;
    return r;
}

/* the cell's probes, made on an earlier state, still hold: no line they settled has changed */
static int dfs_still(Dfs *D, int cell)
{
    long long t = PST(D)[cell];
    if (t <= 0) return 0;
    const u64 *tb = PTOUCH(D, cell);
    const long long *ls = LSTAMP(D);
    for (int q = 0; q < D->tw; q++) {
        u64 b = tb[q];
        while (b) {
            int l = q * 64 + CTZ(b);
            b &= b - 1;
            if (ls[l] > t) return 0;
        }
    }
    return 1;
}

static u64 *dfs_saved(Dfs *D, int depth)
{
    return dfs_pool(&D->saved, &D->nsaved, depth, D->info_words * sizeof(u64));
}

/* mark in skip the (cell, colour)s that the probe state t decides and s leaves open */
static void dfs_implied(Dfs *D, const u64 *s, const u64 *t)
{
    Core *c = D->c;
    for (int i = 0; i < c->h; i++) {
        int nw = c->specs[i].nw;
        const u64 *s0 = s + c->off[i], *s1 = s0 + nw, *t0 = t + c->off[i], *t1 = t0 + nw;
        u64 *k0 = D->skip + c->off[i], *k1 = k0 + nw;
        for (int q = 0; q < nw; q++) {
            u64 open = s0[q] & s1[q];
            k0[q] |= open & t0[q] & ~t1[q];
            k1[q] |= open & t1[q] & ~t0[q];
        }
    }
}

/* s &= a | b (what one of two fixed points allows); the lines changed go to first[], count n */
static long long dfs_agree(Dfs *D, u64 *s, const u64 *a, const u64 *b, int *first, int *n)
{
    Core *c = D->c;
    long long cut = 0;
    *n = 0;
    for (int l = 0; l < c->nlines; l++) {
        size_t o = c->off[l], e = c->off[l + 1];
        int changed = 0;
        for (size_t q = o; q < e; q++) {
            u64 v = s[q] & (a[q] | b[q]);
            if (v != s[q]) {
                changed = 1;
                if (l < c->h) cut += POPC(s[q] ^ v);
                s[q] = v;
            }
        }
        if (changed) first[(*n)++] = l;
    }
    return cut;
}

/* the subtree of the node at `depth` (its state D->level[depth], propagated, `bits` colour bits) */
INLINE double dfs_urand(Dfs *D)
{
    D->rng ^= D->rng << 13;
    D->rng ^= D->rng >> 7;
    D->rng ^= D->rng << 17;
    return (double)(D->rng >> 11) * (1.0 / 9007199254740992.0);
}

static int dfs_node(Dfs *D, int depth, long long bits)
{
    Core *c = D->c;
    int h = c->h, r;
    u64 *s = D->level[depth];
    int *first = c->rnd;  /* core_prop uses rnd only with a record */
    if (depth > D->max_depth) D->max_depth = depth;
    for (;;) {  /* the node, then (after its first child) its second child in place */
        if (D->max_nodes >= 0 && D->nodes >= D->max_nodes) return DFS_BUDGET;
        if (D->run_budget >= 0 && ++D->run_nodes > D->run_budget) return DFS_RESTART;
        D->nodes++;
        int changed, bi, bj, bc = 0;
        double best_score;
        do {  /* probe passes until one changes nothing */
            if (bits == D->done) return dfs_solution(D, s);
            changed = 0;
            best_score = -1.0;
            bi = bj = -1;
            memset(D->skip, 0, D->W * sizeof(u64));
            for (int i = 0; i < h; i++) {
                int nw = c->specs[i].nw, n = c->specs[i].n;
                for (int j = 0; j < n; j++) {
                    const u64 *row = s + c->off[i];
                    if (!(dfs_bit(row, j) && dfs_bit(row + nw, j))) continue;  /* decided */
                    long long cut[2] = {-1, -1};
                    int okc[2] = {0, 0};
                    int cell = i * c->w + j;
                    if (D->incr && dfs_still(D, cell)) {  /* its two probes as they were */
                        cut[0] = CUT0(D)[cell];
                        cut[1] = CUT1(D)[cell];
                        okc[0] = okc[1] = 1;
                        goto score;
                    }
                    if (D->incr) {
                        PST(D)[cell] = 0;
                        memset(D->touched, 0, (size_t)D->tw * sizeof(u64));
                        c->touch = D->touched;
                    }
                    for (int ci = 0; ci < 2; ci++) {
                        if (D->skip_implied && dfs_bit(D->skip + c->off[i] + (size_t)ci * nw, j))
                            continue;
                        if ((r = dfs_tick(D)) != DFS_EXHAUSTED) return r;
                        u64 *t = ci ? D->t1 : D->t0;
                        long long left = 0;
                        int ok = dfs_probe(D, s, t, i, j, ci, bits, &left);
                        if (ok < 0) { c->touch = NULL; return DFS_ERROR; }
                        if (ok && left == D->done) {  /* a solution: that branch is explored */
                            if ((r = dfs_solution(D, t)) != DFS_EXHAUSTED) return r;
                            ok = 0;
                        } else if (!ok) {
                            D->failed++;
                        }
                        if (!ok) {  /* the other colour is the cell's */
                            c->touch = NULL;
                            int got = dfs_narrow(D, s, i, j, ci, &bits);
                            if (got < 0) return DFS_ERROR;
                            if (!got) return DFS_EXHAUSTED;  /* the node is dead */
                            if (bits == D->done) return dfs_solution(D, s);
                            changed = 1;
                            break;
                        }
                        okc[ci] = 1;
                        cut[ci] = bits - left;
                        dfs_implied(D, s, t);
                    }
                    c->touch = NULL;
                    if (!(okc[0] && okc[1])) continue;
                    if (D->incr) {  /* both probes made on this state: kept for later passes */
                        PST(D)[cell] = ++D->gstamp;
                        CUT0(D)[cell] = cut[0];
                        CUT1(D)[cell] = cut[1];
                        memcpy(PTOUCH(D, cell), D->touched, (size_t)D->tw * sizeof(u64));
                    }
                    int nf;
                    long long agreed = dfs_agree(D, s, D->t0, D->t1, first, &nf);
                    if (agreed) {  /* what both colours' fixed points decide */
                        D->agreed++;
                        int got = dfs_prop_node(D, s, first, nf);
                        if (got < 0) return DFS_ERROR;
                        if (!got) return DFS_EXHAUSTED;  /* cannot happen: t0 is inside */
                        bits -= agreed + c->removed;
                        if (bits == D->done) return dfs_solution(D, s);
                        changed = 1;
                    }
                score:;
                    long long a = cut[0], b = cut[1];
                    double sc = (double)(a < b ? a : b)
                        + 1.85 * log(1.0 + (double)(a > b ? a - b : b - a));
                    if (D->run_noise > 0) sc *= 1.0 + D->run_noise * dfs_urand(D);
                    if (sc > best_score) {
                        best_score = sc;
                        bi = i; bj = j;
                        switch (D->run_order) {
                        case 0: bc = 0; break;
                        case 1: bc = 1; break;
                        case 2: bc = a >= b ? 0 : 1; break;
                        default: bc = a <= b ? 0 : 1;
                        }
                    }
                }
            }
        } while (changed);
        if (bi < 0) {  /* every open cell's colours were implied by other probes: the first one */
            for (int i = 0; i < h && bi < 0; i++) {
                int nw = c->specs[i].nw;
                const u64 *row = s + c->off[i];
                for (int j = 0; j < c->specs[i].n; j++)
                    if (dfs_bit(row, j) && dfs_bit(row + nw, j)) { bi = i; bj = j; bc = 0; break; }
            }
        }
        if (bi < 0)  /* no open cell, yet the grid is not complete: a cell with no colour left
                        (a state Core.dfs was handed, never one it propagated): the node is dead */
            return DFS_EXHAUSTED;
        /* the first child: the branch cell with the colour whose probe cut less */
        u64 *child = dfs_level(D, depth + 1);
        if (!child) return DFS_ERROR;
        long long left = 0;
        if ((r = dfs_tick(D)) != DFS_EXHAUSTED) return r;
        int ok = dfs_probe(D, s, child, bi, bj, bc, bits, &left);
        if (ok < 0) return DFS_ERROR;
        if (ok) {
            u64 *keep = NULL;
            if (D->incr && left != D->done) {  /* the block kept; the child's lines stamped */
                if (!(keep = dfs_saved(D, depth))) return DFS_ERROR;
                memcpy(keep, D->info, D->info_words * sizeof(u64));
                long long st = ++D->gstamp;
                for (int l = 0; l < c->nlines; l++)
                    if (memcmp(s + c->off[l], child + c->off[l],
                               (c->off[l + 1] - c->off[l]) * sizeof(u64)))
                        LSTAMP(D)[l] = st;
            }
            r = left == D->done ? dfs_solution(D, child) : dfs_node(D, depth + 1, left);
            if (r != DFS_EXHAUSTED) return r;
            if (keep) memcpy(D->info, keep, D->info_words * sizeof(u64));
        }
        /* the second child: the other colour, in place */
        int got = dfs_narrow(D, s, bi, bj, bc, &bits);
        if (got < 0) return DFS_ERROR;
        if (!got) return DFS_EXHAUSTED;
    }
}

/* the first colour's rule of restart run `run` (from 0) under option `order`: 0-3 that rule on
 * even runs and its mirror (white / black, larger / smaller cut) on odd ones; 4 the cycle
 * smaller cut, white, larger cut, black; 5 smaller cut and white by turns */
static int dfs_run_order(int order, long long run)
{
    static const int cycle4[4] = {3, 0, 2, 1};
    if (order == 4) return cycle4[run % 4];
    if (order == 5) return run % 2 == 0 ? 3 : 0;
    if (run % 2 == 0) return order;
    return order == 0 ? 1 : order == 1 ? 0 : order == 2 ? 3 : 2;
}

/* Luby's sequence 1 1 2 1 1 2 4 ... (i from 0) */
static long long dfs_luby(long long i)
{
    long long size = 1, seq = 0;
    while (size < i + 1) { seq++; size = 2 * size + 1; }
    while (size - 1 != i) { size = (size - 1) >> 1; seq--; i = i % size; }
    return 1LL << seq;
}

PyDoc_STRVAR(dfs_doc,
"dfs(state, max_solutions, max_nodes, max_probes, seconds_left, cache_size[, restart_base,\n"
"    order, noise, incremental, skip_implied]) -> (code, solutions, nodes, probes, failed,\n"
"    agreed, max_depth)\n\n"
"The compiled depth-first search (black-and-white puzzles; see the comment above it in _core.c)\n"
"from a propagated\n"
"state list. code 0: the tree was explored (the solutions are all there are); 1: max_solutions\n"
"found; 2: the node or probe budget (-1: none) ran out; 3: seconds_left (<= 0: no limit)\n"
"passed. solutions: packed states (bytes; Core.unpack makes them state lists).\n"
"restart_base > 0 (max_solutions 1 only): Luby restarts of restart_base nodes a unit from the\n"
"root (as narrowed by explored subtrees), the first colour's order swapped every other run,\n"
"scores times 1 + noise * uniform(0, 1) from the third run. order: the first colour (0 white,\n"
"1 black, 2 the larger cut, 3 the smaller cut; 4 those four in turn over the restarts, 5 the\n"
"smaller cut and white in turn). incremental: a cell's two probes are made again\n"
"only when a line their propagation settled has changed since (nonosolve's stamps).\n"
"skip_implied (default true; solve_lines passes false): a colour an earlier probe of the same\n"
"pass implied is not probed.");
static PyObject *Core_dfs(Core *c, PyObject *args)
{
    PyObject *state;
    long long want, max_nodes, max_probes;
    double left_s, noise = 0.5;
    Py_ssize_t cache_size;
    long long restart_base = 0;
    int order = 3, incr = 0, skip_implied = 1;
    if (!PyArg_ParseTuple(args, "O!LLLdn|Lidpp", &PyList_Type, &state, &want, &max_nodes,
                          &max_probes, &left_s, &cache_size, &restart_base, &order, &noise,
                          &incr, &skip_implied))
        return NULL;
    if (c->C != 2) { PyErr_SetString(PyExc_ValueError, "dfs: black-and-white puzzles only"); return NULL; }
    if (PyList_GET_SIZE(state) != (Py_ssize_t)c->nlines * c->C) {
        PyErr_SetString(PyExc_ValueError, "state has the wrong length");
        return NULL;
    }
    Dfs D;
    memset(&D, 0, sizeof(D));
    D.c = c;
    D.W = c->off[c->nlines];
    D.want = want < 1 ? 1 : want;
    D.max_nodes = max_nodes;
    D.max_probes = max_probes;
    D.cache_size = cache_size;
    D.end = left_s > 0 ? monotonic_s() + left_s : 0;
    D.order = order;
    D.noise = noise;
    D.rng = 0x9E3779B97F4A7C15ULL;
    D.incr = incr;
    D.skip_implied = skip_implied;
    D.tw = (c->nlines + 63) / 64;
    D.info_words = (size_t)c->nlines + (size_t)c->h * c->w * (3 + (size_t)D.tw);
    PyObject *result = NULL;
    size_t bytes = (D.W ? D.W : 1) * sizeof(u64);
    D.t0 = PyMem_Malloc(bytes);
    D.t1 = PyMem_Malloc(bytes);
    D.skip = PyMem_Malloc(bytes);
    D.info = PyMem_Calloc(D.info_words ? D.info_words : 1, sizeof(u64));
    D.touched = PyMem_Calloc((size_t)D.tw + 1, sizeof(u64));
    if (!D.info || !D.touched) { PyErr_NoMemory(); goto out; }
    D.sols = PyList_New(0);
    u64 *root = D.sols ? dfs_level(&D, 0) : NULL;
    if (!D.t0 || !D.t1 || !D.skip || !D.sols || !root) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto out; }
    if (state_to_words(c, state, root) < 0) goto out;
    long long bits = 0;
    for (int i = 0; i < c->h; i++)
        for (size_t q = c->off[i]; q < c->off[i + 1]; q++) bits += POPC(root[q]);
    D.done = (long long)c->h * c->w;
    int code;
    if (!(c->h && c->w)) {
        code = dfs_solution(&D, root);
    } else if (restart_base <= 0 || D.want > 1) {
        D.run_budget = -1;
        D.run_order = dfs_run_order(D.order, 0);
        code = dfs_node(&D, 0, bits);
    } else {
        for (long long run = 0;; run++) {
            D.run_budget = restart_base * dfs_luby(run);
            D.run_nodes = 0;
            D.run_order = dfs_run_order(D.order, run);
            D.run_noise = run < 2 ? 0.0 : D.noise;
            code = dfs_node(&D, 0, bits);
            if (code != DFS_RESTART) break;
            memset(D.info, 0, D.info_words * sizeof(u64));  /* no probe of a run holds */
            bits = 0;  /* the root as the runs' explored subtrees narrowed it */
            for (int i = 0; i < c->h; i++)
                for (size_t q = c->off[i]; q < c->off[i + 1]; q++) bits += POPC(root[q]);
        }
    }
    if (code == DFS_ERROR) goto out;
    if (code == DFS_ENOUGH && D.found < D.want) code = DFS_EXHAUSTED;
    result = Py_BuildValue("(iOLLLLi)", code, D.sols, D.nodes, D.probes, D.failed, D.agreed,
                           D.max_depth);
out:
    for (int k = 0; k < D.ndepth; k++) PyMem_Free(D.level[k]);
    PyMem_Free(D.level);
    PyMem_Free(D.t0);
    PyMem_Free(D.t1);
    PyMem_Free(D.skip);
    PyMem_Free(D.info);
    PyMem_Free(D.touched);
    for (int k = 0; k < D.nsaved; k++) PyMem_Free(D.saved[k]);
    PyMem_Free(D.saved);
    c->touch = NULL;
    c->lstamp = NULL;
    Py_XDECREF(D.sols);
    return result;
}

/* ---------------------------------------------------------------------------------------------
 * The CDCL fallback's input, compiled (issue 42, twelfth step): Core.order_cnf is
 * cdcl._order_cnf_py (the order encoding of a black-and-white state) and Core.probe_clauses is
 * cdcl._probe_clauses_py (the binary clauses of probing every open cell both ways), clause for
 * clause in the same order; the Python versions stay as the reference the tests compare with.
 * Built in Python they took about 20 ms of a tournament residual's ~35 ms before its solve.
 * ------------------------------------------------------------------------------------------- */

#define LIT_T 0x7fffffff     /* a constant literal while a clause is built: true (dropped clause) */
#define LIT_F (-LIT_T)       /* false (dropped literal); -LIT_T, so negation maps one to the other */

/* append the clause lits[0..k) to `out` unless a literal is LIT_T, without its LIT_F literals
 * (cdcl's `add`): 0, -1 on error */
static int cnf_emit(PyObject *out, const int *lits, int k)
{
    int keep = 0;
    for (int i = 0; i < k; i++) {
        if (lits[i] == LIT_T) return 0;
        if (lits[i] != LIT_F) keep++;
    }
    PyObject *cl = PyList_New(keep);
    if (!cl) return -1;
    for (int i = 0, q = 0; i < k; i++) {
        if (lits[i] == LIT_F) continue;
        PyObject *o = PyLong_FromLong(lits[i]);
        if (!o) { Py_DECREF(cl); return -1; }
        PyList_SET_ITEM(cl, q++, o);
    }
    /* a list of ints cannot be part of a cycle: untracked, the tens of thousands of clauses of
     * a residual cost the collector nothing (tracked, its passes took 80 % of this function's
     * time on tournament residuals; the Python version loses as much) */
    PyObject_GC_UnTrack(cl);
    int r = PyList_Append(out, cl);
    Py_DECREF(cl);
    return r;
}

INLINE int cnf_emit2(PyObject *out, int a, int b) { int l[2] = {a, b}; return cnf_emit(out, l, 2); }

static int cnf_meta(PyObject *meta, int var, PyObject *kind, int line, int k, int p)
{
    if (!meta) return 0;
    PyObject *key = PyLong_FromLong(var);
    PyObject *val = key ? Py_BuildValue("(Oiii)", kind, line, k, p) : NULL;
    if (val) PyObject_GC_UnTrack(val);  /* a string and ints: no cycle (as the clauses) */
    int r = val ? PyDict_SetItem(meta, key, val) : -1;
    Py_XDECREF(key);
    Py_XDECREF(val);
    return r;
}

/* first / last set bit of a bit set of nw words (one is set) */
static int bs_lowest(const u64 *s, int nw)
{
    for (int i = 0; i < nw; i++) if (s[i]) return 64 * i + CTZ(s[i]);
    return -1;
}
static int bs_highest(const u64 *s, int nw)
{
    for (int i = nw - 1; i >= 0; i--) if (s[i]) return 64 * i + 63 - CLZ(s[i]);
    return -1;
}

typedef struct { int lo, hi, base; } CnfBlock;  /* first and last valid start, variable of lo */

/* block k "starts at or before p" as a literal: LIT_F before its first valid start, LIT_T from
 * its last one on */
INLINE int cnf_at_or_before(const CnfBlock *b, int k, int p)
{
    return p < b[k].lo ? LIT_F : p >= b[k].hi ? LIT_T : b[k].base + (p - b[k].lo);
}

PyDoc_STRVAR(order_cnf_doc,
"order_cnf(state, meta) -> (clauses, variables) | None\n\n"
"The order encoding of a black-and-white state (formulations.lines.cdcl._order_cnf_py, clause\n"
"for clause): cell (i, j) black is variable i * w + j + 1; None when some line has no placement\n"
"left. meta (a dict or None) receives what each variable past the cells means.");
static PyObject *Core_order_cnf(Core *c, PyObject *args)
{
    PyObject *state, *meta;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &state, &meta)) return NULL;
    if (c->C != 2) { PyErr_SetString(PyExc_ValueError, "order_cnf: black-and-white puzzles only"); return NULL; }
    if (PyList_GET_SIZE(state) != (Py_ssize_t)c->nlines * 2) {
        PyErr_SetString(PyExc_ValueError, "state has the wrong length");
        return NULL;
    }
    if (meta == Py_None) meta = NULL;
    else if (!PyDict_Check(meta)) { PyErr_SetString(PyExc_TypeError, "meta must be a dict or None"); return NULL; }
    int h = c->h, w = c->w, maxn = 1, maxm = 1, maxnw = 1;
    for (int l = 0; l < c->nlines; l++) {
        const Spec *s = &c->specs[l];
        if (s->n > maxn) maxn = s->n;
        if (s->m > maxm) maxm = s->m;
        if (s->nw > maxnw) maxnw = s->nw;
    }
    size_t W = c->off[c->nlines];
    size_t scr_words = (size_t)maxnw * (3 * (size_t)maxm + 2) + settle_scratch(maxm, maxnw, 2);
    u64 *words = PyMem_Calloc(W + scr_words + 1, sizeof(u64));
    CnfBlock *blk = PyMem_Calloc((size_t)maxm, sizeof(CnfBlock));
    int *cover = PyMem_Calloc((size_t)maxn * (maxm + 1), sizeof(int));  /* per cell: count, vars */
    unsigned char *forced = PyMem_Calloc((size_t)maxn, 1);
    int *lits = PyMem_Calloc((size_t)maxm + 2, sizeof(int));
    PyObject *out = PyList_New(0), *Y = PyUnicode_InternFromString("Y");
    PyObject *Cv = PyUnicode_InternFromString("C"), *result = NULL;
    if (!words || !blk || !cover || !forced || !lits || !out || !Y || !Cv) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    if (state_to_words(c, state, words) < 0) goto done;
#define CELL(line, p) ((line) < h ? (line) * w + (p) + 1 : (p) * w + ((line) - h) + 1)
    for (int i = 0; i < h; i++) {  /* decided cells (rows carry every cell) */
        const u64 *Wm = words + c->off[i], *Km = Wm + c->specs[i].nw;
        for (int j = 0; j < w; j++) {
            int white = bs_bit(Wm, j), black = bs_bit(Km, j);
            if (!(white || black)) { result = Py_None; Py_INCREF(result); goto done; }
            if (white != black) {
                int u = black ? i * w + j + 1 : -(i * w + j + 1);
                if (cnf_emit(out, &u, 1) < 0) goto done;
            }
        }
    }
    int top = h * w;
    for (int line = 0; line < c->nlines; line++) {
        const Spec *s = &c->specs[line];
        int n = s->n, m = s->m, nw = s->nw;
        if (!m) {
            for (int p = 0; p < n; p++) {
                int u = -CELL(line, p);
                if (cnf_emit(out, &u, 1) < 0) goto done;
            }
            continue;
        }
        u64 *V = words + W, *F = V + (size_t)m * nw, *B = F + (size_t)(m + 1) * nw;
        u64 *scr = B + (size_t)(m + 1) * nw;
        if (!valid_starts_n(n, nw, m, s->lens, s->cidx, s->gaps, words + c->off[line], V, F, B, scr)) {
            result = Py_None;
            Py_INCREF(result);
            goto done;
        }
        for (int k = 0; k < m; k++) {
            const u64 *v = V + (size_t)k * nw;
            blk[k].lo = bs_lowest(v, nw);
            blk[k].hi = bs_highest(v, nw);
            blk[k].base = top + 1;
            for (int p = blk[k].lo; p < blk[k].hi; p++)
                if (cnf_meta(meta, ++top, Y, line, k, p) < 0) goto done;
        }
        for (int k = 0; k < m; k++) {
            const u64 *v = V + (size_t)k * nw;
            int lo = blk[k].lo, hi = blk[k].hi;
            for (int p = lo; p < hi - 1; p++)
                if (cnf_emit2(out, -(blk[k].base + p - lo), blk[k].base + p + 1 - lo) < 0) goto done;
            for (int p = lo + 1; p <= hi; p++)
                if (!bs_bit(v, p)  /* not a valid start: at or before p means before p */
                    && cnf_emit2(out, -cnf_at_or_before(blk, k, p), cnf_at_or_before(blk, k, p - 1)) < 0)
                    goto done;
            if (k + 1 < m)
                for (int p = blk[k + 1].lo; p <= blk[k + 1].hi; p++)
                    if (cnf_emit2(out, -cnf_at_or_before(blk, k + 1, p),
                                  cnf_at_or_before(blk, k, p - s->lens[k] - 1)) < 0)
                        goto done;
        }
        memset(forced, 0, (size_t)n);
        for (int p = 0; p < n; p++) cover[(size_t)p * (maxm + 1)] = 0;
        for (int k = 0; k < m; k++) {
            int L = s->lens[k];
            for (int p = blk[k].lo; p < blk[k].hi + L; p++) {
                int a = cnf_at_or_before(blk, k, p), b = -cnf_at_or_before(blk, k, p - L);
                if (a == LIT_F || b == LIT_F) continue;
                if (a == LIT_T && b == LIT_T) { forced[p] = 1; continue; }
                top++;
                if (cnf_meta(meta, top, Cv, line, k, p) < 0) goto done;
                int three[3] = {top, -a, -b};
                if (cnf_emit2(out, -top, a) < 0 || cnf_emit2(out, -top, b) < 0
                    || cnf_emit(out, three, 3) < 0 || cnf_emit2(out, -top, CELL(line, p)) < 0)
                    goto done;
                int *cv = cover + (size_t)p * (maxm + 1);
                cv[1 + cv[0]++] = top;
            }
        }
        for (int p = 0; p < n; p++) {  /* a black cell is covered by a block */
            if (forced[p]) {
                int u = CELL(line, p);
                if (cnf_emit(out, &u, 1) < 0) goto done;
                continue;
            }
            const int *cv = cover + (size_t)p * (maxm + 1);
            lits[0] = -CELL(line, p);
            for (int q = 0; q < cv[0]; q++) lits[1 + q] = cv[1 + q];
            if (cnf_emit(out, lits, 1 + cv[0]) < 0) goto done;
        }
    }
#undef CELL
    result = Py_BuildValue("(Oi)", out, top);
done:
    PyMem_Free(words);
    PyMem_Free(blk);
    PyMem_Free(cover);
    PyMem_Free(forced);
    PyMem_Free(lits);
    Py_XDECREF(out);
    Py_XDECREF(Y);
    Py_XDECREF(Cv);
    return result;
}

PyDoc_STRVAR(probe_clauses_doc,
"probe_clauses(state, limit, running, clock, cache_size) -> list | None\n\n"
"The clauses of probing every open cell of a black-and-white state both ways\n"
"(formulations.lines.cdcl._probe_clauses_py, clause for clause): a cell literal implies each\n"
"cell literal its propagation decided; a unit for a probe that contradicts; at most `limit`\n"
"literals (`running`: that function's first accounting). None when both colours of a cell\n"
"contradict. `clock` and `cache_size` as in propagate.");
static PyObject *Core_probe_clauses(Core *c, PyObject *args)
{
    PyObject *state, *clock;
    long long limit;
    int running;
    Py_ssize_t cache_size;
    if (!PyArg_ParseTuple(args, "O!LpOn", &PyList_Type, &state, &limit, &running, &clock,
                          &cache_size))
        return NULL;
    if (c->C != 2) { PyErr_SetString(PyExc_ValueError, "probe_clauses: black-and-white puzzles only"); return NULL; }
    if (PyList_GET_SIZE(state) != (Py_ssize_t)c->nlines * 2) {
        PyErr_SetString(PyExc_ValueError, "state has the wrong length");
        return NULL;
    }
    if (clock == Py_None) clock = NULL;
    int h = c->h, w = c->w;
    size_t W = c->off[c->nlines];
    u64 *root = PyMem_Calloc(2 * W + 1, sizeof(u64)), *t = NULL;
    PyObject *out = PyList_New(0), *result = NULL;
    if (!root || !out) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto done; }
    t = root + W;
    if (state_to_words(c, state, root) < 0) goto done;
    long long lits = 0, cells = 0;
    for (int i = 0; i < h; i++) {
        int nw = c->specs[i].nw;
        const u64 *Wm = root + c->off[i], *Km = Wm + nw;
        for (int q = 0; q < nw; q++) {
            u64 open = Wm[q] & Km[q];
            while (open) {
                int j = 64 * q + CTZ(open);
                open &= open - 1;
                int v = i * w + j + 1, failed = 0;
                /* the deadline and Ctrl-C between cells: one probe's propagation may be too
                 * short for core_prop's own check every 256 line updates */
                if (++cells % 16 == 0) {
                    if (PyErr_CheckSignals() < 0) goto done;
                    if (clock) {
                        PyObject *ck = PyObject_CallMethod(clock, "check", "s", "probe clauses");
                        if (!ck) goto done;
                        Py_DECREF(ck);
                    }
                }
                for (int ci = 1; ci >= 0; ci--) {
                    int lit = ci ? v : -v;
                    Py_ssize_t before = PyList_GET_SIZE(out);
                    memcpy(t, root, W * sizeof(u64));
                    t[c->off[i] + (size_t)(1 - ci) * nw + (j >> 6)] &= ~((u64)1 << (j & 63));
                    const Spec *cs = &c->specs[h + j];
                    t[c->off[h + j] + (size_t)(1 - ci) * cs->nw + (i >> 6)] &= ~((u64)1 << (i & 63));
                    int first[2] = {i, h + j};
                    c->wio = t;
                    PyObject *r = core_prop(c, NULL, first, 2, NULL, NULL, clock, cache_size);
                    c->wio = NULL;
                    if (!r) goto done;
                    int ok = r == Py_True;
                    Py_DECREF(r);
                    if (!ok) {
                        int u = -lit;
                        if (cnf_emit(out, &u, 1) < 0) goto done;
                        failed++;
                        continue;
                    }
                    for (int row = 0; row < h; row++) {
                        int rw = c->specs[row].nw;
                        const u64 *W0 = root + c->off[row], *K0 = W0 + rw;
                        const u64 *W1 = t + c->off[row], *K1 = W1 + rw;
                        /* a cell that lost white became black, one that lost black became white */
                        for (int pass = 0; pass < 2; pass++)
                            for (int x = 0; x < rw; x++) {
                                u64 d = pass == 0 ? W0[x] & ~W1[x] : K0[x] & ~K1[x];
                                while (d) {
                                    int col = 64 * x + CTZ(d);
                                    d &= d - 1;
                                    int u = row * w + col + 1;
                                    if (u != v && cnf_emit2(out, -lit, pass == 0 ? u : -u) < 0)
                                        goto done;
                                }
                            }
                    }
                    Py_ssize_t now = PyList_GET_SIZE(out);
                    lits += 2 * (long long)(running ? now : now - before);
                    if (lits > limit) { result = out; Py_INCREF(result); goto done; }
                }
                if (failed == 2) { result = Py_None; Py_INCREF(result); goto done; }
            }
        }
    }
    result = out;
    Py_INCREF(result);
done:
    PyMem_Free(root);
    Py_XDECREF(out);
    return result;
}

static PyObject *Core_get_solves(Core *c, void *x) { return PyLong_FromLongLong(c->solves); }
static int Core_set_solves(Core *c, PyObject *v, void *x)
{
    long long n = PyLong_AsLongLong(v);
    if (n == -1 && PyErr_Occurred()) return -1;
    c->solves = n;
    return 0;
}
static PyObject *Core_get_removed(Core *c, void *x) { return PyLong_FromLongLong(c->removed); }
static PyObject *Core_get_conflict(Core *c, void *x) { Py_INCREF(c->conflict); return c->conflict; }

static PyGetSetDef Core_getset[] = {
    {"solves", (getter)Core_get_solves, (setter)Core_set_solves, "lines settled (memo misses)", NULL},
    {"removed", (getter)Core_get_removed, NULL, "colour bits removed by the last propagation", NULL},
    {"conflict", (getter)Core_get_conflict, NULL, "deps of the line that failed last", NULL},
    {NULL}
};

static PyMethodDef Core_methods[] = {
    {"propagate", (PyCFunction)Core_propagate, METH_VARARGS, propagate_doc},
    {"order_cnf", (PyCFunction)Core_order_cnf, METH_VARARGS, order_cnf_doc},
    {"probe_clauses", (PyCFunction)Core_probe_clauses, METH_VARARGS, probe_clauses_doc},
    {"rank", (PyCFunction)Core_rank, METH_VARARGS, rank_doc},
    {"reprobe", (PyCFunction)Core_reprobe, METH_VARARGS, reprobe_doc},
    {"try_probe", (PyCFunction)Core_try_probe, METH_VARARGS, try_probe_doc},
    {"probe_seq", (PyCFunction)Core_probe_seq, METH_VARARGS, probe_seq_doc},
    {"domains", (PyCFunction)Core_domains, METH_VARARGS, domains_doc},
    {"shares", (PyCFunction)Core_shares, METH_VARARGS, shares_doc},
    {"frontier", (PyCFunction)Core_frontier, METH_VARARGS, frontier_doc},
    {"unpack", (PyCFunction)Core_unpack, METH_O, unpack_doc},
    {"dfs", (PyCFunction)Core_dfs, METH_VARARGS, dfs_doc},
    {NULL}
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "formulations.lines._core.Core",
    .tp_basicsize = sizeof(Core),
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Core(specs, sids, C, h): one puzzle's lines (rows first) for propagation.",
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
    .tp_init = (initproc)Core_init,
    .tp_new = PyType_GenericNew,
};

static PyMethodDef module_methods[] = {
    {"settle_bw", py_settle_bw, METH_VARARGS, settle_bw_doc},
    {"settle_masks", py_settle_masks, METH_VARARGS, settle_masks_doc},
    {"valid_starts", py_valid_starts, METH_VARARGS, valid_starts_doc},
    {"clear_cache", py_clear_cache, METH_NOARGS, clear_cache_doc},
    {"cache_info", py_cache_info, METH_NOARGS, cache_info_doc},
    {NULL}
};

static void module_free(void *m) { memo_free(); }

static struct PyModuleDef coremodule = {
    PyModuleDef_HEAD_INIT, "formulations.lines._core",
    "The compiled line-solving core (see formulations/lines/_core.c).", -1, module_methods,
    NULL, NULL, NULL, module_free,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&coremodule);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
