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

/* Parses and compiles a PTX file; module .global/.const variables get
 * malloc'd storage with their initial values. NULL on failure (reported). */
zn_jit_module *zt_load(const char *path, const ptx_module **pm_out);
zn_jit_module *zt_load_text(const char *text, const ptx_module **pm_out);
/* The same for another CPU (an LLVM CPU name and its own features; it
 * must run on this host): code paths chosen by target feature. */
zn_jit_module *zt_load_text_cpu(const char *text, const char *cpu);
/* Frees the modules and globals zt_load made (after zn_jit_module_free). */
void zt_cleanup(void);
/* Packs args (pointers to each value) by the kernel's parameter layout and
 * runs the grid with the in-test harness. Returns the first non-OK status. */
int zt_run(const zn_jit_module *jm, const char *kernel, zt_dim grid, zt_dim block,
           uint32_t dyn_shared, void **args);
/* The same through zn_exec_launch (fibers, barriers). */
int zt_run_exec(const zn_jit_module *jm, const char *kernel, zt_dim grid,
                zt_dim block, uint32_t dyn_shared, void **args);

/* occurrences of needle in hay (IR text checks) */
static inline size_t zt_count(const char *hay, const char *needle)
{
    size_t c = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        c++;
    return c;
}

#endif
