/* zn_pipeline.h: the compiler's stages, shared by the in-process JIT
 * (zn_jit.c), the kernel cache (zn_jit_cache.c) and the offline compiler
 * (zn_offline.c). Private to compile/. */
#ifndef ZN_PIPELINE_H
#define ZN_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include "zn_compile.h"
#include "zn_cache.h"

/* A resolved target: triple, CPU and features as LLVM spells them. */
typedef struct zn_target {
    char *triple, *cpu, *features;   /* malloc'd */
    LLVMTargetMachineRef tm;
    int opt;                         /* 0..3 */
    bool host;                       /* runs in this process */
    bool amdgpu;
} zn_target;

/* Whether an LLVM feature string ("+avx2,-avx512f,...") enables feat. */
bool zn_features_have(const char *features, const char *feat);
/* LLVM's targets, once per process. */
void zn_llvm_init(void);
/* LLVM's command-line options Zinc sets (zn_build.c); called by
 * zn_llvm_init. */
void zn_llvm_options(void);
/* From o->triple/cpu/features (NULL: this host); 0 or -1 with err. */
int zn_target_init(zn_target *t, const zn_compile_opts *o, char *err, size_t errlen);
void zn_target_fini(zn_target *t);
/* ZINC_LARGE_CODE_MODEL: JIT code in LLVM's large code model instead of the
 * small one (zn_target.c; in the cache key) */
bool zn_large_code_model(void);

/* Lowers and verifies the PTX module into a new LLVM module in ctx, for
 * target t; NULL with err. *static_shared gets the shared layout's size. */
LLVMModuleRef zn_build_ir(const ptx_module *pm, const zn_compile_opts *o,
                          const zn_target *t, LLVMContextRef ctx, char *err,
                          size_t errlen);
/* The same for the functions in want[] only (indexed like pm->funcs;
 * NULL: all); the others are declared, not defined. */
LLVMModuleRef zn_build_ir_subset(const ptx_module *pm, const zn_compile_opts *o,
                                 const zn_target *t, LLVMContextRef ctx, const bool *want,
                                 char *err, size_t errlen);
/* Gives every definition but the function `keep` internal linkage. */
void zn_internalize(LLVMModuleRef mod, const char *keep);
/* LLVM instructions in function f (zn_build.c) */
uint64_t zn_func_instrs(LLVMValueRef f);
/* The new pass manager's default<On> pipeline; 0 or -1. */
int zn_optimise(LLVMModuleRef mod, const zn_target *t, char *err, size_t errlen);
/* After the optimiser: fcmps of half vectors widened to float where the
 * target has no half compare (zn_half_fcmp.c). */
void zn_widen_half_fcmp(LLVMModuleRef mod, const zn_target *t);
/* the kernel's function attribute (zn_lower_coro.c: a barrier in a loop)
 * that asks zn_coro_batch for a zk_K.batch */
#define ZN_ATTR_BATCH_INLINE "zn-batch-inline"
/* Those kernels' zk_K.batch and every coroutine kernel's zk_K.start
 * (zn_coro_batch.c), after the optimiser; 0 or -1 with err. */
int zn_coro_batch(LLVMModuleRef mod, const zn_target *t, char *err, size_t errlen);
/* ZINC_NO_CORO_BATCH=1: no batch functions (A/B runs; in the cache key). */
bool zn_coro_batch_disabled(void);
/* ZINC_NO_CORO_START=1: no start loops (zk_K.start; A/B runs, in the
 * cache key). */
bool zn_coro_start_disabled(void);
/* Code generation into memory (object or assembly); 0 or -1. */
int zn_emit(LLVMModuleRef mod, const zn_target *t, LLVMCodeGenFileType kind,
            LLVMMemoryBufferRef *out, char *err, size_t errlen);

/* Kernel facts from the PTX alone (no lowering): fills every field but fn.
 * static_shared is the module's shared layout size. */
void zn_kernel_facts(const ptx_module *pm, const ptx_func *f, zn_kernel_info *k);
/* A shared layout's size (zn_lmod's static_shared) and its variables'
 * declared bytes (shared_declared). */
typedef struct zn_shared_size {
    uint32_t layout, declared;
} zn_shared_size;
zn_shared_size zn_module_static_shared(const ptx_module *pm);
/* the static shared size of the unit of kernel pm->funcs[entry] (its own
 * variables only; zn_shared_layout) */
zn_shared_size zn_unit_static_shared(const ptx_module *pm, uint32_t entry);
/* zn_kernel_facts with the module's shared size already computed. */
void zn_kernel_facts_shared(const ptx_module *pm, const ptx_func *f, zn_shared_size shared,
                            zn_kernel_info *k);

/* ---- compiled units (zn_jit_split.c) ----
 * Whether each kernel can be compiled on its own: not when an initialiser
 * takes a function's address (that address must be one for the module). */
bool zn_jit_splittable(const ptx_module *pm);
/* ZINC_NO_CORO: kernels with barriers stay on fibers (zn_lower_coro.c) */
bool zn_coro_disabled(void);
/* ZINC_NO_LAZY_BARRIER: warps wait at every block barrier
 * (zn_lower_lazybar.c; in the cache key) */
bool zn_lazy_barrier_disabled(void);
/* ZINC_NO_DEAD_REGS: registers not ended after their last live block
 * (zn_lower_deadregs.c; in the cache key) */
bool zn_dead_regs_disabled(void);
/* ZINC_NO_GRID_INTERLEAVE: grid-stride loops do not yield per iteration
 * (zn_lower_coro.c) */
bool zn_grid_interleave_disabled(void);
/* ZINC_NO_DIRECT_BRANCHES: lanes go on to the next block through the resume
 * chain (zn_lower_func.c; in the cache key) */
bool zn_direct_branches_disabled(void);
/* ZINC_NO_LANECMP: branches on lane-affine compares test the vector mask
 * only (zn_lower_lanecmp.c; in the cache key) */
bool zn_lanecmp_disabled(void);
/* ZINC_NO_STREAM_STORES, and the bytes a launch writes through a store
 * before it goes around the cache: ZINC_STREAM_MIN_BYTES or the last-level
 * cache's size (zn_lower_stream.c; both in the cache key) */
bool zn_stream_stores_disabled(void);
uint64_t zn_stream_min_bytes(void);
/* ZINC_NO_THREAD_JUMPS: branches to trampolines not threaded (zn_lower_thread.c) */
bool zn_thread_jumps_disabled(void);
/* want[i] (pm->nfuncs entries) = the function with a body at pm->funcs[i]
 * is reachable from the kernel at index entry (calls, function addresses). */
void zn_jit_closure(const ptx_module *pm, uint32_t entry, bool *want);

/* The cache key of compiling pm for t with o (zn_jit_cache.c). */
void zn_compile_key(const ptx_module *pm, const zn_compile_opts *o,
                    const zn_target *t, zn_cache_key *key);

/* One unit's object for the in-process target (zn_jit_parallel.c):
 * entry = pm->funcs index of the kernel, or -1 for the whole module. ir
 * (two slots) gets the IR texts when not NULL. NULL with err on failure. */
LLVMMemoryBufferRef zn_jit_compile_unit(const ptx_module *pm, const zn_compile_opts *o,
                                        int64_t entry, char **ir, char *err, size_t errlen);
typedef struct zn_unit_job {
    int64_t entry;              /* in: as for zn_jit_compile_unit */
    LLVMMemoryBufferRef obj;    /* out: NULL on failure, with err */
    char err[512];
    double ms;                  /* out: compile time */
} zn_unit_job;
/* Compiles jobs[0..n) on up to zn_compile_threads() threads. */
void zn_jit_compile_units(const ptx_module *pm, const zn_compile_opts *o, zn_unit_job *jobs,
                          uint32_t n);
/* ZINC_COMPILE_THREADS, else ZINC_THREADS, else the CPUs we may use. */
unsigned zn_compile_threads(void);

/* The key of the unit of one kernel, from the module's key; block: its
 * code for blocks of that shape (NULL: any). */
void zn_compile_unit_key(const zn_cache_key *module_key, const char *kernel,
                         const uint32_t *block, zn_cache_key *key);
/* The symbol of kernel's code: zk_<kernel>, or zk_<kernel>.b<X>x<Y>x<Z> for
 * blocks of one shape (block non-NULL; both in one JIT). */
void zn_kernel_symbol(const char *kernel, const uint32_t *block, char *out, size_t n);

/* Milliseconds since an arbitrary origin (stage timings). */
double zn_now_ms(void);

/* ZINC_PERF_MAP=1 (zn_jit_perfmap.c): a unit's functions, scanned from its
 * object before the JIT takes it (NULL when off), then written to
 * /tmp/perf-<pid>.map once its kernel's address is known. */
typedef struct zn_perfmap zn_perfmap;
zn_perfmap *zn_perfmap_scan(LLVMMemoryBufferRef obj);
void zn_perfmap_write(zn_perfmap *pm, const char *kernel_sym, uint64_t addr);
void zn_perfmap_free(zn_perfmap *pm);

#endif
