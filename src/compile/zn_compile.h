/* zn_compile.h: PTX IR -> LLVM IR (warp-SIMD) -> native code in process.
 *
 * The compiler knows PTX IR (ptx/ptx_ir.h) and the kernel ABI
 * (exec/zn_kernel_abi.h), nothing of the driver. Module-scope .global and
 * .const variables live in device memory that the CALLER allocates: it
 * passes their addresses in, and compiled code refers to them there.
 * The caller fills them from ptx_var.init before zn_compile(), which then
 * writes the addresses named in initialisers (ptx_var.relocs: functions,
 * variables) into that memory.
 */
#ifndef ZN_COMPILE_H
#define ZN_COMPILE_H

#include <stddef.h>
#include <stdint.h>
#include "../ptx/ptx_ir.h"
#include "../exec/zn_kernel_abi.h"

typedef struct zn_jit_module zn_jit_module;

/* Where each module-scope .global/.const variable lives (caller-owned). */
typedef struct zn_global_addr {
    const char *name;
    void *addr;
} zn_global_addr;

typedef struct zn_compile_opts {
    int opt_level;              /* 0..3, default 3 */
    const char *cpu;            /* NULL = host CPU */
    const char *features;       /* NULL = host features (of cpu if given) */
    const char *triple;         /* NULL = host; others: zn_compile_offline */
    const zn_global_addr *globals;
    uint32_t nglobals;
    int check;                  /* 1: memcheck code (docs/memcheck.md); zn_compile
                                 * sets it when ZINC_CHECK names memcheck */
    uint32_t block[3];          /* the code runs only in blocks of this shape
                                 * (zn_lower_shape.c; zn_jit_kernel_code sets it
                                 * for one kernel's unit); {0}: any shape */
} zn_compile_opts;

/* 1 when the ZINC_CHECK list names memcheck or racecheck (zn_lower_check.c;
 * both use the same checked code); the JIT then compiles with opts.check set. */
int zn_check_env(void);

/* What the driver and executor need to know of one kernel. */
typedef struct zn_kernel_info {
    const char *name;           /* the PTX .entry name */
    zn_kernel_fn fn;            /* runs one warp */
    zn_batch_fn batch;          /* coroutine kernels with a barrier in a loop:
                                 * resumes warps (zn_coro_batch.c); else NULL */
    zn_batch_fn start;          /* coroutine kernels: starts warps (zn_coro_batch.c) */
    uint32_t nparams;
    const uint32_t *param_offset; /* byte offset of each param in the buffer */
    const uint32_t *param_size;
    uint32_t param_bytes;       /* total parameter buffer size */
    uint32_t static_shared;     /* bytes of static .shared (dynamic follows,
                                 * aligned to 16) */
    uint32_t shared_declared;   /* of them, the .shared variables' own bytes:
                                 * what cuFuncGetAttribute reports, as a GPU
                                 * does (static_shared adds the bar.red scratch
                                 * and the rounding) */
    uint32_t local_bytes;       /* per-lane .local depot bytes (informative) */
    uint32_t stack_bytes;       /* native stack a warp needs, estimated */
    int uses_barrier;           /* has bar.sync/barrier: 1 warps as fibers,
                                 * 2 compiled as a coroutine (zn_lower_coro.c) */
    int polls;                  /* waits on other blocks' flags: blocks in order */
    uint32_t max_threads;       /* .maxntid product or 1024 */
    uint32_t reqntid[3];        /* 0 if not given */
    uint32_t cluster_dim[3];    /* .reqnctapercluster (__cluster_dims__), 0 if not given */
    int explicit_cluster;       /* .explicitcluster or .reqnctapercluster */
    uint32_t max_cluster_rank;  /* .maxclusterrank, 0 if not given */
} zn_kernel_info;

/* Compiles a parsed module, every kernel now (zn_jit_open eager). NULL on
 * failure with a message in err. m must outlive the result. */
zn_jit_module *zn_compile(const ptx_module *m, const zn_compile_opts *o,
                          char *err, size_t errlen);

/* ---- lazy compilation (zn_jit.c) ------------------------------------------
 * zn_jit_open binds the module's variables and fills every kernel's facts
 * (zn_kernel_info, fn NULL) without compiling anything unless eager: then
 * each kernel is compiled (in parallel, zn_jit_parallel.c). A kernel is a
 * unit of its own (with the .funcs it reaches) and is compiled, or loaded
 * from the kernel cache, by zn_jit_kernel_ready; a module whose
 * initialisers take function addresses is one unit, compiled at open.
 * m must outlive the result. Thread-safe: concurrent calls for the same
 * kernel compile it once. */
zn_jit_module *zn_jit_open(const ptx_module *m, const zn_compile_opts *o, int eager,
                           char *err, size_t errlen);
/* Makes k->fn usable (k from this module): 1 if it compiled or loaded it
 * now, 0 if it was ready, -1 with err. */
int zn_jit_kernel_ready(zn_jit_module *jm, const zn_kernel_info *k, char *err,
                        size_t errlen);
/* The code that runs kernel k in blocks of block[0] x block[1] x block[2]
 * threads. The first shape a kernel is launched with gets code compiled for
 * that shape alone (%ntid constants, zn_lower_shape.c); later launches of
 * the same shape run it, other shapes the generic code (k->fn), compiled
 * when first needed. block NULL: the generic code. A module compiled as one
 * unit, .reqntid kernels of another shape, and ZINC_NO_SPECIALIZE=1 get the
 * generic code. 1 if it compiled or loaded code now, 0 if it was ready, -1
 * with err. Thread-safe. */
typedef struct zn_kernel_code {
    zn_kernel_fn fn;
    zn_batch_fn batch;
    zn_batch_fn start;
} zn_kernel_code;
int zn_jit_kernel_code(zn_jit_module *jm, const zn_kernel_info *k, const uint32_t block[3],
                       zn_kernel_code *out, char *err, size_t errlen);
/* ZINC_NO_SPECIALIZE=1: no code for one block shape (A/B runs). */
bool zn_specialize_disabled(void);
/* Whether k->fn is usable now (nothing is compiled). */
bool zn_jit_kernel_loaded(zn_jit_module *jm, const zn_kernel_info *k);
typedef struct zn_jit_stats {
    uint32_t units;             /* units loaded (compiled or from the cache) */
    uint32_t compiled;          /* of them compiled in this process */
    uint32_t cached;            /* of them loaded from the kernel cache */
    double compile_ms;          /* wall time spent compiling and loading */
} zn_jit_stats;
void zn_jit_get_stats(zn_jit_module *jm, zn_jit_stats *s);
/* The optimisation level ZINC_OPT asks for (0..3; default 3). */
int zn_compile_env_opt(void);
/* CUDA_MODULE_LOADING=EAGER (1) or LAZY / unset (0). */
int zn_compile_env_eager(void);
void zn_jit_module_free(zn_jit_module *jm);

/* Kernel lookup by PTX name; NULL if absent. */
const zn_kernel_info *zn_jit_kernel(const zn_jit_module *jm, const char *name);
uint32_t zn_jit_kernel_count(const zn_jit_module *jm);
const zn_kernel_info *zn_jit_kernel_at(const zn_jit_module *jm, uint32_t i);

/* For the offline compiler and debugging: the LLVM IR text of the module
 * before optimisation (stage 0) and after (stage 1), malloc'd; NULL if not
 * kept. Kept only when ZINC_DUMP_IR or zn_compile_keep_ir(1). */
void zn_compile_keep_ir(int on);
char *zn_jit_ir_text(const zn_jit_module *jm, int stage);

/* ---- offline compilation (zinc oc) ----------------------------------------
 * The same pipeline for any LLVM target (o->triple/cpu/features; NULL =
 * host), keeping the output of each stage asked for. Module variables are
 * external symbols zg_<name> (o->globals is not needed). Nothing is loaded
 * and the kernel cache is not used. */
typedef enum zn_stage {
    ZN_STAGE_LLVM,          /* LLVM IR as translated */
    ZN_STAGE_LLVM_LINKED,   /* after linking the device library (none yet:
                             * the same as ZN_STAGE_LLVM) */
    ZN_STAGE_LLVM_OPT,      /* after optimisation */
    ZN_STAGE_ASM,           /* target assembly */
    ZN_STAGE_OBJ,           /* relocatable object file (ELF) */
    ZN_STAGE_COUNT
} zn_stage;

/* One kernel in an offline compile's report. */
typedef struct zn_offline_kernel {
    zn_kernel_info info;    /* fn is NULL */
    int64_t frame_bytes;    /* native stack frame from the assembly, -1: unknown */
    char *error;            /* code generation failed for it (else NULL) */
} zn_offline_kernel;

typedef struct zn_offline {
    char *out[ZN_STAGE_COUNT];  /* malloc'd output of each stage asked for */
    size_t len[ZN_STAGE_COUNT];
    double ms_lower, ms_opt, ms_codegen; /* time per stage */
    char *triple, *cpu;         /* the target as resolved */
    zn_offline_kernel *kernels;
    uint32_t nkernels;
} zn_offline;

/* Also measure each kernel's native frame (needs the assembly). */
#define ZN_OFFLINE_REPORT (1u << 31)

/* stages: a mask of 1u << zn_stage (| ZN_OFFLINE_REPORT). Returns 0, or -1 with a message in err
 * (a kernel whose code generation failed is reported in kernels[].error and
 * the others still compile: -1 only if none could). */
int zn_compile_offline(const ptx_module *m, const zn_compile_opts *o,
                       unsigned stages, zn_offline *out, char *err, size_t errlen);
void zn_offline_free(zn_offline *out);

#endif
