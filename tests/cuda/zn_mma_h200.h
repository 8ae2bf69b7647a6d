/* zn_mma_h200.h: mma elements recorded on an H200, shared by the mma
 * tests. A recorded line is "K atype btype ctype A-row B-column C D" (A
 * and B as hex codes in k order, C and D as f16 or f32 bits): D[row][col]
 * of an mma whose other rows and columns do not matter for it. A test puts
 * up to 8 of them on the diagonal of one 16 x 8 mma (element e at
 * D[e][e]) and checks the batch here. */
#ifndef ZN_MMA_H200_H
#define ZN_MMA_H200_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "zn_test.h"

typedef struct zn_mma_case {
    int K;
    char ta[8], tb[8], tc[8], ha[80], hb[80];
    unsigned c, d;
} zn_mma_case;

/* 0, or -1 (reported) when line i does not parse */
static inline int zn_mma_case_parse(const char *line, int i, zn_mma_case *c)
{
    if (sscanf(line, "%d %7s %7s %7s %79s %79s %x %x", &c->K, c->ta, c->tb, c->tc, c->ha, c->hb,
               &c->c, &c->d) == 8)
        return 0;
    zt_fail("h200 case %d unreadable", i);
    return -1;
}

/* D[r][n] as the test's reference computes it for the batch's inputs */
typedef unsigned (*zn_mma_ref_fn)(const void *ctx, int r, int n);

/* every element of a 16 x 8 D against the reference (a random trial) */
static inline void zn_mma_check_all(const char *name, const char *mode, int trial,
                                    const unsigned *d, zn_mma_ref_fn ref, const void *ctx)
{
    for (int r = 0; r < 16; r++)
        for (int n = 0; n < 8; n++) {
            unsigned want = ref(ctx, r, n);
            if (d[r * 8 + n] != want)
                zt_fail("%s %s trial %d D[%d][%d]: got 0x%x want 0x%x", name, mode, trial, r, n,
                        d[r * 8 + n], want);
        }
}

/* d: the batch's 16 x 8 results; its first nb diagonal elements are the
 * recorded cases idx[] whose GPU results are want[]: each must equal both
 * the GPU's bits and the reference, every other element the reference.
 * Returns nb (the cases checked). */
static inline int zn_mma_h200_batch(const char *name, const unsigned *d, int nb, const int *idx,
                                    const unsigned *want, zn_mma_ref_fn ref, const void *ctx)
{
    for (int e = 0; e < nb; e++) {
        unsigned r = ref(ctx, e, e);
        if (r != want[e]) /* the reference itself is off the GPU */
            zt_fail("%s h200 case %d: reference 0x%x, the GPU gave 0x%x", name, idx[e], r,
                    want[e]);
        if (d[e * 8 + e] != want[e])
            zt_fail("%s h200 case %d: got 0x%x, the GPU gave 0x%x", name, idx[e], d[e * 8 + e],
                    want[e]);
    }
    for (int r = 0; r < 16; r++) /* and the rest against the reference */
        for (int n = 0; n < 8; n++)
            if (d[r * 8 + n] != ref(ctx, r, n))
                zt_fail("%s h200 batch D[%d][%d]: got 0x%x want 0x%x", name, r, n, d[r * 8 + n],
                        ref(ctx, r, n));
    return nb;
}

/* ---- the H200's tensor-core step, as the tests' host reference ---- */

/* an f16's value */
static inline double mma_half_value(unsigned h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31)
        return m ? NAN : s * INFINITY;
    return s * (e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25));
}

/* floor(log2 |v|) of a nonzero finite v, at least lo */
static inline int mma_xexp(double v, int lo)
{
    int e;
    frexp(v, &e);
    return e - 1 < lo ? lo : e - 1;
}

/* v rounded to f16 (nearest even, past 65504 an infinity), as a double */
static inline double mma_round_f16(double v)
{
    if (v == 0 || !isfinite(v))
        return v;
    int e = mma_xexp(v, -14);
    double r = ldexp(nearbyint(ldexp(fabs(v), 10 - e)), e - 10);
    return copysign(r > 65504 ? INFINITY : r, v);
}

/* v rounded toward zero to f32 (no overflow here) */
static inline double mma_rz_f32(double v)
{
    if (v == 0 || !isfinite(v))
        return v;
    int e = mma_xexp(v, -126);
    return copysign(ldexp(trunc(ldexp(fabs(v), 23 - e)), e - 23), v);
}

/* One tensor-core step: acc (the accumulator's value) plus the n products
 * a[i] * b[i] (f16 values or fp8 widened to f16). Every term is truncated
 * toward zero to a multiple of 2^(E - 26), E the largest nominal exponent
 * plus one, and the exact sum rounded once: to f16 (nearest even) or
 * toward zero to f32. Where every term is zero the result is the IEEE
 * sum's signed zero (signed_zero, the f16 test's C inside the step) or +0
 * (the fp8 test, whose C is added after the steps). */
static inline double mma_step(double acc, const double *a, const double *b, int n, bool f16,
                              bool signed_zero)
{
    double plain = acc;
    for (int i = 0; i < n; i++)
        plain += a[i] * b[i];
    if (!isfinite(plain)) /* an infinite or NaN operand: IEEE */
        return plain;
    int E = -100000;
    if (acc != 0)
        E = mma_xexp(acc, f16 ? -14 : -126) + 1;
    for (int i = 0; i < n; i++)
        if (a[i] != 0 && b[i] != 0 && mma_xexp(a[i], -14) + mma_xexp(b[i], -14) + 1 > E)
            E = mma_xexp(a[i], -14) + mma_xexp(b[i], -14) + 1;
    if (E == -100000)
        return signed_zero ? plain : 0.0;
    /* terms below 2^27 units of 2^(E - 26), at most 17 of them: exact */
    double s = trunc(ldexp(acc, 26 - E));
    for (int i = 0; i < n; i++)
        s += trunc(ldexp(a[i] * b[i], 26 - E));
    double v = ldexp(s, E - 26);
    return f16 ? mma_round_f16(v) : mma_rz_f32(v);
}

/* The host side both mma tests share (nvcc compiles them as C++): device
 * buffers for A (16 x 32) and B (32 x 8) elements of type E and C and D
 * (128 words each); one launch of a variant V (its .name and .kern) with D
 * poisoned first; REF(v, a, b, c, row, col), the test's reference for
 * D[row][col]; MAKE(v, mode, a, b, c), its random inputs. */
template <class V, class E,
          unsigned (*REF)(const V *, const E *, const E *, const unsigned *, int, int),
          void (*MAKE)(const V *, int, E *, E *, unsigned *)>
struct zn_mma_host {
    E *da, *db;
    unsigned *dc, *dd;
    const V *v;                 /* the last run's inputs, for at() */
    const E *a, *b;
    const unsigned *c;

    void alloc()
    {
        CK(cudaMalloc(&da, 16 * 32 * sizeof(E)));
        CK(cudaMalloc(&db, 32 * 8 * sizeof(E)));
        CK(cudaMalloc(&dc, 128 * 4));
        CK(cudaMalloc(&dd, 128 * 4));
    }

    void release()
    {
        CK(cudaFree(da));
        CK(cudaFree(db));
        CK(cudaFree(dc));
        CK(cudaFree(dd));
    }

    void run(const V *v_, const E *a_, const E *b_, const unsigned *c_, unsigned *d)
    {
        v = v_, a = a_, b = b_, c = c_;
        CK(cudaMemcpy(da, a, 16 * 32 * sizeof(E), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, b, 32 * 8 * sizeof(E), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dc, c, 128 * 4, cudaMemcpyHostToDevice));
        POISON(dd, 128 * 4);
        v->kern<<<1, 32>>>(da, db, dc, dd);
        CK_LAUNCH();
        CK(cudaMemcpy(d, dd, 128 * 4, cudaMemcpyDeviceToHost));
    }

    /* zn_mma_ref_fn over the last run's inputs (ctx: this) */
    static unsigned at(const void *ctx, int r, int n)
    {
        const zn_mma_host *h = (const zn_mma_host *)ctx;
        return REF(h->v, h->a, h->b, h->c, r, n);
    }

    /* The recorded cases (lines[0..n)) that v takes (TAKES), in batches of
     * up to 8 on one mma's diagonal: FILL(v, case, e, a, b) writes the
     * case's A row and B column as element e (false: unreadable). Returns
     * the cases checked. */
    int h200(const V *v_, const char *const *lines, int n,
             bool (*takes)(const V *, const zn_mma_case *),
             bool (*fill)(const V *, const zn_mma_case *, int, E *, E *))
    {
        E ha[16 * 32], hb[32 * 8];
        unsigned hc[128], want[8], d[128];
        int idx[8], nb = 0, checked = 0;
        for (int i = 0; i <= n; i++) {
            if (i < n) {
                zn_mma_case cs;
                if (zn_mma_case_parse(lines[i], i, &cs) || !takes(v_, &cs))
                    continue;
                if (nb == 0) {
                    memset(ha, 0, sizeof ha);
                    memset(hb, 0, sizeof hb);
                    memset(hc, 0, sizeof hc);
                }
                /* element nb: A row nb, B column nb, C[nb][nb] */
                if (!fill(v_, &cs, nb, ha, hb)) {
                    zt_fail("h200 case %d unreadable", i);
                    continue;
                }
                hc[nb * 8 + nb] = cs.c;
                want[nb] = cs.d;
                idx[nb++] = i;
                if (nb < 8)
                    continue;
            }
            if (nb == 0)
                continue;
            run(v_, ha, hb, hc, d);
            checked += zn_mma_h200_batch(v_->name, d, nb, idx, want, at, this);
            nb = 0;
        }
        return checked;
    }

    /* The whole test after zt_begin: 3 random mmas of every variant in
     * every input mode, then every recorded case, each exactly once. */
    int all(const V *vs, int nv, const char *const *modes, int nmodes, const char *const *lines,
            int n, bool (*takes)(const V *, const zn_mma_case *),
            bool (*fill)(const V *, const zn_mma_case *, int, E *, E *))
    {
        alloc();
        for (int vi = 0; vi < nv; vi++)
            for (int mode = 0; mode < nmodes; mode++)
                random(&vs[vi], mode, modes[mode], 3);
        int checked = 0;
        for (int vi = 0; vi < nv; vi++)
            checked += h200(&vs[vi], lines, n, takes, fill);
        if (checked != n)
            zt_fail("checked %d of %d h200 cases", checked, n);
        release();
        return zt_finish();
    }

    /* trials random mmas of v in input mode `mode`, every element checked */
    void random(const V *v_, int mode, const char *mode_name, int trials)
    {
        for (int trial = 0; trial < trials; trial++) {
            E ha[16 * 32], hb[32 * 8];
            unsigned hc[128], d[128];
            MAKE(v_, mode, ha, hb, hc);
            run(v_, ha, hb, hc, d);
            zn_mma_check_all(v_->name, mode_name, trial, d, at, this);
        }
    }
};

#endif
