/* zn_mma_h200.h: mma elements recorded on an H200, shared by the mma
 * tests. A recorded line is "K atype btype ctype A-row B-column C D" (A
 * and B as hex codes in k order, C and D as f16 or f32 bits): D[row][col]
 * of an mma whose other rows and columns do not matter for it. A test puts
 * up to 8 of them on the diagonal of one 16 x 8 mma (element e at
 * D[e][e]) and checks the batch here. */
#ifndef ZN_MMA_H200_H
#define ZN_MMA_H200_H

#include <stdio.h>
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

#endif
