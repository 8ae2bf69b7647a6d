/* zn_test_harness.h: a minimal in-test executor for compiled kernels: runs
 * every warp of every block in order on this thread (no barriers), with
 * runtime services that record what the kernel asked for. */
#ifndef ZN_TEST_HARNESS_H
#define ZN_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "compile/zn_compile.h"

extern int zt_failures;
#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            zt_failures++;                                                    \
        }                                                                     \
    } while (0)

typedef struct zt_dim { uint32_t x, y, z; } zt_dim;
#define ZT_DIM1(a) ((zt_dim){(a), 1, 1})

/* What the runtime services saw. */
typedef struct zt_record {
    int nprintf, nassert, nbarrier;
    int printf_lane[64];
    int printf_arg0[64];
    char last_fmt[128];
} zt_record;
extern zt_record zt_rec;

/* n words of `poison` (a kernel's output: unwritten words show); NULL on
 * failure (reported). */
uint32_t *zt_poisoned(size_t n, uint32_t poison);

/* Parses and compiles a PTX file; module .global/.const variables get
 * malloc'd storage with their initial values. NULL on failure (reported). */
zn_jit_module *zt_load(const char *path, const ptx_module **pm_out);
zn_jit_module *zt_load_text(const char *text, const ptx_module **pm_out);
/* The same for another CPU (an LLVM CPU name and its own features; it
 * must run on this host): code paths chosen by target feature. */
zn_jit_module *zt_load_text_cpu(const char *text, const char *cpu);
/* Compiles `text` twice, with the switch `var` unset (mods[0]) and set to 1
 * (mods[1]), and fails the test when the two LLVM IRs are the same (the
 * switch did nothing); `var` is unset again after. */
void zt_load_switched(const char *text, const char *var, zn_jit_module *mods[2]);
/* Frees the modules and globals zt_load made (after zn_jit_module_free). */
void zt_cleanup(void);
/* Packs args (pointers to each value) by the kernel's parameter layout and
 * runs the grid with the in-test harness. Returns the first non-OK status. */
int zt_run(const zn_jit_module *jm, const char *kernel, zt_dim grid, zt_dim block,
           uint32_t dyn_shared, void **args);
/* The same through zn_exec_launch (fibers, barriers). */
int zt_run_exec(const zn_jit_module *jm, const char *kernel, zt_dim grid,
                zt_dim block, uint32_t dyn_shared, void **args);

/* A kernel(.param .u64 pin, .param .u64 pout) with one u32 in and one out
 * per thread, run on `blocks` blocks of `block` threads: in[i] =
 * (i * 2654435761) >> shift, out poisoned, and every out[i] checked against
 * want(the inputs of i's block, i's index in it, block); the first four
 * mismatches are reported with `mode`. */
typedef uint32_t (*zt_want_u32)(const uint32_t *block_in, uint32_t t, uint32_t block);
void zt_run_u32(const zn_jit_module *jm, const char *kernel, uint32_t blocks, uint32_t block,
                unsigned shift, zt_want_u32 want, const char *mode);
/* The same through zn_exec_launch (barriers in blocks of several warps). */
void zt_run_u32_exec(const zn_jit_module *jm, const char *kernel, uint32_t blocks,
                     uint32_t block, unsigned shift, zt_want_u32 want, const char *mode);
/* PTX of a kernel NAME(.param .u64 pin, .param .u64 pout) for zt_run_u32:
 * its prologue declares %p<8>, %r<32>, %rd<12> and leaves the thread's
 * input in %r5 and its output's address in %rd5; `body` follows and ends
 * the function. The text is in one of two static buffers, used in turn. */
const char *zt_u32_kernel(const char *name, const char *body);
/* Each case compiled with the switch `var` unset and set
 * (zt_load_switched) and both run with zt_run_u32 on 4 blocks of 128 and
 * 3 of 48 threads (a partial last warp), reported as mode[0] and mode[1]. */
typedef struct zt_u32_case {
    const char *name, *body;
    zt_want_u32 want;
} zt_u32_case;
void zt_run_switched(const zt_u32_case *cases, int n, const char *var,
                     const char *const mode[2], unsigned shift);
/* the lanes of thread t's warp in a block of `block` threads, as a mask */
static inline uint32_t zt_warp_lanes(uint32_t t, uint32_t block)
{
    uint32_t first = t / 32 * 32, n = block - first < 32 ? block - first : 32;
    return n == 32 ? 0xffffffffu : (1u << n) - 1;
}

/* occurrences of needle in hay (IR text checks) */
static inline size_t zt_count(const char *hay, const char *needle)
{
    size_t c = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        c++;
    return c;
}

#endif
