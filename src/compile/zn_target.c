/* zn_target.c: which machine the code is for. The JIT compiles for this
 * host (its CPU name and features); the offline compiler also for other
 * CPUs, other architectures and AMD GPUs. */
#include "zn_pipeline.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <llvm-c/Target.h>

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

static void llvm_init_once(void)
{
    LLVMInitializeAllTargetInfos();
    LLVMInitializeAllTargets();
    LLVMInitializeAllTargetMCs();
    LLVMInitializeAllAsmPrinters();
    zn_llvm_options();
}

void zn_llvm_init(void)
{
    pthread_once(&llvm_once, llvm_init_once);
}

double zn_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

bool zn_large_code_model(void)
{
    const char *s = getenv("ZINC_LARGE_CODE_MODEL");
    return s && *s && strcmp(s, "0");
}

bool zn_features_have(const char *features, const char *feat)
{
    size_t n = strlen(feat);
    for (const char *p = features; p && *p;) {
        if (p[0] == '+' && !strncmp(p + 1, feat, n) && (p[1 + n] == ',' || !p[1 + n]))
            return true;
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return false;
}

void zn_target_fini(zn_target *t)
{
    if (t->tm)
        LLVMDisposeTargetMachine(t->tm);
    free(t->triple);
    free(t->cpu);
    free(t->features);
    memset(t, 0, sizeof *t);
}

static char *dup_llvm(char *s)
{
    char *d = strdup(s ? s : "");
    LLVMDisposeMessage(s);
    return d;
}

int zn_target_init(zn_target *t, const zn_compile_opts *o, char *err, size_t errlen)
{
    zn_llvm_init();
    memset(t, 0, sizeof *t);
    t->opt = o->opt_level < 0 ? 0 : o->opt_level > 3 ? 3 : o->opt_level;
    char *host = dup_llvm(LLVMGetDefaultTargetTriple());
    t->host = !o->triple || !*o->triple || !strcmp(o->triple, host);
    t->triple = t->host ? host : strdup(o->triple);
    if (!t->host)
        free(host);
    t->amdgpu = !strncmp(t->triple, "amdgcn", 6);
    if (o->cpu && *o->cpu) {
        /* another CPU: its own features, not this host's */
        t->cpu = strdup(o->cpu);
        t->features = strdup(o->features ? o->features : "");
    } else if (t->host) {
        t->cpu = dup_llvm(LLVMGetHostCPUName());
        t->features = o->features ? strdup(o->features) : dup_llvm(LLVMGetHostCPUFeatures());
    } else {
        t->cpu = strdup("generic");
        t->features = strdup(o->features ? o->features : "");
    }

    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(t->triple, &target, &msg)) {
        snprintf(err, errlen, "no LLVM target for '%s': %s", t->triple, msg);
        LLVMDisposeMessage(msg);
        zn_target_fini(t);
        return -1;
    }
    /* -O0 (ZINC_OPT=0) skips the IR optimisation pipeline but selects
     * instructions as -O1 does: LLVM 19's fast instruction selector put a
     * 64-byte-aligned zmm spill at rsp+0x84f0 (48 mod 64) in the printf
     * test kernel, a fault the other levels do not have. */
    LLVMCodeGenOptLevel lvl = t->opt == 0 ? LLVMCodeGenLevelLess
                            : t->opt == 1 ? LLVMCodeGenLevelLess
                            : t->opt == 2 ? LLVMCodeGenLevelDefault
                            : LLVMCodeGenLevelAggressive;
    /* Position-independent: variables are external symbols defined at load
     * time anywhere in the address space (reached through the GOT), so an
     * object does not depend on where this run put them. */
    LLVMRelocMode reloc = t->amdgpu ? LLVMRelocDefault : LLVMRelocPIC;
    /* The small code model, as LLJIT itself asks for when it links with
     * JITLink (LLVM 19 does on x86-64 ELF): JITLink puts a whole object in
     * one allocation, so its constant pool is in reach of rip-relative
     * addressing, and references to other objects' symbols go through the
     * GOT and stubs it builds (a target out of reach is a link error, never
     * a wrong address). The large model (LLVM's JIT default) loaded every
     * constant as movabs + GOT base + index, which the register allocator
     * cannot rematerialise: a loop's constants were copied to the stack at
     * each warp's entry (25 zmm in mmvq_thin's kernel) and reloaded. */
    LLVMCodeModel cm = !t->host ? LLVMCodeModelDefault
                     : zn_large_code_model() ? LLVMCodeModelJITDefault : LLVMCodeModelSmall;
    t->tm = LLVMCreateTargetMachine(target, t->triple, t->cpu, t->features, lvl,
                                    reloc, cm);
    if (!t->tm) {
        snprintf(err, errlen, "cannot create a target machine for %s (cpu %s)",
                 t->triple, t->cpu);
        zn_target_fini(t);
        return -1;
    }
    return 0;
}
