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

/* LLVM's targets, once per process. */
void zn_llvm_init(void);
/* From o->triple/cpu/features (NULL: this host); 0 or -1 with err. */
int zn_target_init(zn_target *t, const zn_compile_opts *o, char *err, size_t errlen);
void zn_target_fini(zn_target *t);

/* Lowers and verifies the PTX module into a new LLVM module in ctx, for
 * target t; NULL with err. *static_shared gets the shared layout's size. */
LLVMModuleRef zn_build_ir(const ptx_module *pm, const zn_compile_opts *o,
                          const zn_target *t, LLVMContextRef ctx, char *err,
                          size_t errlen);
/* The new pass manager's default<On> pipeline; 0 or -1. */
int zn_optimise(LLVMModuleRef mod, const zn_target *t, char *err, size_t errlen);
/* Code generation into memory (object or assembly); 0 or -1. */
int zn_emit(LLVMModuleRef mod, const zn_target *t, LLVMCodeGenFileType kind,
            LLVMMemoryBufferRef *out, char *err, size_t errlen);

/* Kernel facts from the PTX alone (no lowering): fills every field but fn.
 * static_shared is the module's shared layout size. */
void zn_kernel_facts(const ptx_module *pm, const ptx_func *f, zn_kernel_info *k);
uint32_t zn_module_static_shared(const ptx_module *pm);

/* The cache key of compiling pm for t with o (zn_jit_cache.c). */
void zn_compile_key(const ptx_module *pm, const zn_compile_opts *o,
                    const zn_target *t, zn_cache_key *key);

/* Milliseconds since an arbitrary origin (stage timings). */
double zn_now_ms(void);

#endif
