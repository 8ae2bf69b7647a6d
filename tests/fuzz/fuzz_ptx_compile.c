/* fuzz_ptx_compile.c: PTX text -> ptx_parse -> zn_compile (LLVM, ORC JIT).
 *
 * Whatever the front end accepts, the compiler either compiles or refuses
 * with a message; it never crashes or hangs. Inputs over ZN_FUZZ_MAX_PTX
 * bytes are skipped (LLVM's time grows with the input; libFuzzer's per-input
 * timeout flags a hang). Module variables get host memory, as the driver
 * gives them device memory. No kernel is run. */
#include "zn_fuzz.h"
#include "compile/zn_compile.h"

#include <string.h>

#define ZN_FUZZ_MAX_PTX 12000

void zn_fuzz_init(void)
{
    /* every input is new: the disk cache would only grow */
    setenv("CUDA_CACHE_DISABLE", "1", 1);
}

void zn_fuzz_one(const uint8_t *data, size_t size)
{
    if (size > ZN_FUZZ_MAX_PTX)
        return;
    char err[512];
    ptx_module *m = ptx_parse((const char *)data, size, "fuzz", err, sizeof err);
    if (!m)
        return;
    zn_global_addr *g = calloc(m->nvars + 1, sizeof *g);
    uint32_t ng = 0;
    int too_big = 0;
    for (uint32_t i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        if (v->space != PTX_SPACE_GLOBAL && v->space != PTX_SPACE_CONST)
            continue;
        if (v->size > (1u << 20)) {     /* the front end accepts huge arrays */
            too_big = 1;
            break;
        }
        void *p = calloc(1, v->size + 16);
        if (v->init)
            memcpy(p, v->init, v->size);
        g[ng].name = v->name;
        g[ng++].addr = p;
    }
    if (!too_big) {
        /* both optimisation levels: O0 keeps what O3 folds away */
        zn_compile_opts o = {.opt_level = size & 1 ? 0 : 3, .globals = g, .nglobals = ng};
        err[0] = 0;
        zn_jit_module *jm = zn_compile(m, &o, err, sizeof err);
        if (jm) {
            for (uint32_t i = 0; i < zn_jit_kernel_count(jm); i++) {
                const zn_kernel_info *ki = zn_jit_kernel_at(jm, i);
                ZN_FUZZ_CHECK(ki && ki->fn && ki->name, "kernel %u without code", i);
                ZN_FUZZ_CHECK(zn_jit_kernel(jm, ki->name) == ki, "lookup of %s", ki->name);
            }
            zn_jit_module_free(jm);
        } else {
            ZN_FUZZ_CHECK(err[0] != 0, "compile failed without a message");
        }
    }
    for (uint32_t i = 0; i < ng; i++)
        free(g[i].addr);
    free(g);
    ptx_module_free(m);
}
