/* exec_test.h: checks and small helpers shared by the executor's tests. */
#ifndef EXEC_TEST_H
#define EXEC_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zn_exec.h"

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,         \
                    __LINE__, #cond);                                      \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

#define CHECK_EQ(a, b)                                                     \
    do {                                                                   \
        long long va_ = (long long)(a), vb_ = (long long)(b);              \
        if (va_ != vb_) {                                                  \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                 \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

/* Thread index (x-major) of a lane, as a kernel computes %tid. */
static inline void test_tid(const zn_warp_ctx *w, uint32_t lane, uint32_t tid[3])
{
    const zn_block_ctx *b = w->block;
    uint32_t t = w->warpid * 32 + lane;
    tid[0] = t % b->ntid[0];
    tid[1] = t / b->ntid[0] % b->ntid[1];
    tid[2] = t / (b->ntid[0] * b->ntid[1]);
}

static inline uint64_t test_block_linear(const zn_block_ctx *b)
{
    return b->ctaid[0] + (uint64_t)b->nctaid[0] * (b->ctaid[1] + (uint64_t)b->nctaid[1] * b->ctaid[2]);
}

static inline double test_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Deterministic pseudo-random numbers (xorshift). */
static inline uint32_t test_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static inline zn_launch test_launch(zn_kernel_fn fn, uint32_t gx, uint32_t gy, uint32_t gz,
                                    uint32_t bx, uint32_t by, uint32_t bz, const void *params)
{
    zn_launch l;
    memset(&l, 0, sizeof l);
    l.fn = fn;
    l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = gz;
    l.block[0] = bx, l.block[1] = by, l.block[2] = bz;
    l.params = params;
    return l;
}

/* Reads the kernel parameter at offset off (params are a packed buffer). */
#define TEST_PARAM(w, type, off) (*(type const *)((w)->block->params + (off)))

#endif
