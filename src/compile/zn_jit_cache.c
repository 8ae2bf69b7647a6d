/* zn_jit_cache.c: the kernel cache key of a compile. Everything that can
 * change the object goes in: the PTX (printed back from the IR, so that
 * comments and spacing do not matter), the compiler's version and build,
 * the options, and the target: triple, CPU, features. The addresses of
 * module variables do not: objects refer to them by symbol. */
#include "zn_pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_str(zn_blake2b *s, const char *tag, const char *v)
{
    /* tag, length, bytes: no two different inputs concatenate alike */
    uint64_t n = v ? strlen(v) : 0;
    zn_blake2b_update(s, tag, strlen(tag) + 1);
    zn_blake2b_update(s, &n, sizeof n);
    if (n)
        zn_blake2b_update(s, v, n);
}

void zn_compile_key(const ptx_module *pm, const zn_compile_opts *o,
                    const zn_target *t, zn_cache_key *key)
{
    zn_blake2b s;
    char num[128];
    zn_blake2b_init(&s, 32);
    add_str(&s, "format", "zinc-kernel-cache-key-1");
    add_str(&s, "compiler", ZINC_COMPILER_VERSION);
    add_str(&s, "build", zn_build_id());
    add_str(&s, "triple", t->triple);
    add_str(&s, "cpu", t->cpu);
    add_str(&s, "features", t->features);
    snprintf(num, sizeof num, "O%d pic%s%s%s%s%s%s%s%s%s%s%s", t->opt,
             zn_large_code_model() ? " large" : "", o->check ? " memcheck" : "",
             zn_coro_disabled() ? " fibers" : "",
             zn_grid_interleave_disabled() ? " gs-whole" : "",
             zn_thread_jumps_disabled() ? " no-thread" : "",
             zn_coro_batch_disabled() ? " no-batch" : "",
             zn_coro_start_disabled() ? " no-start" : "",
             zn_lazy_barrier_disabled() ? " no-lazybar" : "",
             zn_dead_regs_disabled() ? " no-deadregs" : "",
             zn_direct_branches_disabled() ? " no-direct" : "",
             zn_lanecmp_disabled() ? " no-lanecmp" : "");
    add_str(&s, "options", num);
    /* its default depends on the CPU, already in the key */
    add_str(&s, "no-conflict-add", getenv("ZINC_NO_CONFLICT_ADD"));
    /* window loads and their tests carried in loops (A/B switches) */
    add_str(&s, "no-window", getenv("ZINC_NO_WINDOW"));
    add_str(&s, "no-winslot", getenv("ZINC_NO_WINSLOT"));
    /* non-temporal stores: on or off, and the launch size their test uses */
    snprintf(num, sizeof num, "%s min %llu", zn_stream_stores_disabled() ? "off" : "on",
             (unsigned long long)zn_stream_min_bytes());
    add_str(&s, "stream-stores", num);
    if (o->check) {
        /* memcheck reports name PTX and .loc lines, which the printed PTX
         * does not carry */
        for (uint32_t i = 0; i < pm->nfiles; i++)
            add_str(&s, "file", pm->files[i]);
        for (uint32_t f = 0; f < pm->nfuncs; f++)
            for (uint32_t k = 0; k < pm->funcs[f].nins; k++) {
                const ptx_ins *in = &pm->funcs[f].ins[k];
                uint32_t pos[3] = {in->line, in->loc_file, in->loc_line};
                zn_blake2b_update(&s, pos, sizeof pos);
            }
    }
    char *text = ptx_print(pm);
    add_str(&s, "ptx", text);
    free(text);
    zn_blake2b_final(&s, key->b);
}

void zn_compile_unit_key(const zn_cache_key *module_key, const char *kernel,
                         const uint32_t *block, zn_cache_key *key)
{
    zn_blake2b s;
    zn_blake2b_init(&s, 32);
    add_str(&s, "format", "zinc-kernel-unit-key-1");
    zn_blake2b_update(&s, module_key->b, sizeof module_key->b);
    add_str(&s, "kernel", kernel);
    if (block) {
        char shape[48];
        snprintf(shape, sizeof shape, "%ux%ux%u", block[0], block[1], block[2]);
        add_str(&s, "block", shape);
    }
    zn_blake2b_final(&s, key->b);
}
