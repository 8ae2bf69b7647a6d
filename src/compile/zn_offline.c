/* zn_offline.c: the offline compiler's pipeline (zinc oc): the same
 * lowering and optimisation as the JIT, for any LLVM target, keeping the
 * output of every stage asked for and a resource report per kernel. Code
 * generation runs guarded (zn_codegen_guard.c): a kernel the backend
 * cannot compile is reported and left out, the others still compile. */
#include "zn_pipeline.h"
#include "zn_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *module_text(LLVMModuleRef mod, size_t *len)
{
    char *t = LLVMPrintModuleToString(mod);
    char *d = strdup(t);
    LLVMDisposeMessage(t);
    *len = strlen(d);
    return d;
}

static void keep(zn_offline *out, unsigned stages, zn_stage s, char *text, size_t len)
{
    if (stages & (1u << s)) {
        out->out[s] = text;
        out->len[s] = len;
    } else {
        free(text);
    }
}

/* Native frame size of function sym in assembly text, or -1: the stack
 * adjustment of its prologue (x86-64: pushes + sub rsp; AArch64: stp/str
 * with pre-decrement + sub sp; AMDGPU: the s32 bump, or the highest scratch
 * offset of a leaf). */
static int64_t frame_bytes(const char *s, const char *sym)
{
    char label[700];
    snprintf(label, sizeof label, "\n%.600s:", sym);
    const char *p = strstr(s, label);
    if (!p)
        return -1;
    const char *end = strstr(p + 1, "\n.Lfunc_end");
    int64_t pushes = 0, scratch = 0;
    for (const char *q = strchr(p + 1, '\n'); q && (!end || q < end); q = strchr(q + 1, '\n')) {
        const char *l = q + 1, *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(len < 255 ? len : 255), l);
        const char *t = line + strspn(line, " \t");
        const char *pre = strstr(t, "[sp, #-");
        const char *off = strstr(t, "s32 offset:");
        long long n;
        if (!strncmp(t, "pushq", 5))
            pushes += 8;
        else if (sscanf(t, "subq $%lld, %%rsp", &n) == 1)
            return n + pushes;
        else if (sscanf(t, "sub sp, sp, #%lld", &n) == 1)
            return (strstr(t, "lsl #12") ? n << 12 : n) + pushes;
        else if (pre && strstr(pre, "]!") && (!strncmp(t, "st", 2)) &&
                 sscanf(pre, "[sp, #-%lld]!", &n) == 1)
            pushes += n;
        else if (sscanf(t, "s_addk_i32 s32, 0x%llx", &n) == 1 && n < 0x8000)
            return n;
        else if (off && sscanf(off, "s32 offset:%lld", &n) == 1 && n + 4 > scratch)
            scratch = n + 4;
        else if (!strncmp(t, "ret", 3) || !strncmp(t, "s_setpc_b64", 11))
            break;
    }
    return pushes + scratch;
}

static void fill_kernels(const ptx_module *pm, zn_offline *out)
{
    uint32_t nk = 0;
    for (uint32_t i = 0; i < pm->nfuncs; i++)
        nk += pm->funcs[i].is_entry && !pm->funcs[i].is_decl;
    out->kernels = calloc(nk + 1, sizeof *out->kernels);
    for (uint32_t i = 0; i < pm->nfuncs; i++) {
        const ptx_func *f = &pm->funcs[i];
        if (!f->is_entry || f->is_decl)
            continue;
        zn_offline_kernel *k = &out->kernels[out->nkernels++];
        zn_kernel_facts(pm, f, &k->info);
        k->frame_bytes = -1;
    }
}

/* The kernel a lowering error names ("... (in 'k')"), or NULL. */
static zn_offline_kernel *failed_kernel(zn_offline *out, const char *err)
{
    const char *in = strstr(err, " (in '");
    while (in && strstr(in + 1, " (in '"))
        in = strstr(in + 1, " (in '");
    if (!in)
        return NULL;
    in += 6;
    size_t n = strcspn(in, "'");
    for (uint32_t i = 0; i < out->nkernels; i++)
        if (strlen(out->kernels[i].info.name) == n && !strncmp(out->kernels[i].info.name, in, n))
            return &out->kernels[i];
    return NULL;
}

/* Lowers the module; a kernel that fails to lower is recorded and left
 * out (compiled as a prototype), and the others are tried again. The PTX
 * module is changed only while this runs. */
static LLVMModuleRef build_skipping(const ptx_module *pm, const zn_compile_opts *o,
                                    const zn_target *t, LLVMContextRef ctx,
                                    zn_offline *out, char *err, size_t errlen)
{
    bool *skipped = calloc(pm->nfuncs + 1, sizeof *skipped);
    LLVMModuleRef mod;
    for (;;) {
        mod = zn_build_ir(pm, o, t, ctx, err, errlen);
        zn_offline_kernel *k = mod ? NULL : failed_kernel(out, err);
        if (!k || k->error)
            break;
        k->error = strdup(err);
        for (uint32_t i = 0; i < pm->nfuncs; i++) {
            ptx_func *f = (ptx_func *)&pm->funcs[i];
            if (f->is_entry && !f->is_decl && !strcmp(f->name, k->info.name)) {
                f->is_decl = true;
                skipped[i] = true;
            }
        }
    }
    for (uint32_t i = 0; i < pm->nfuncs; i++)
        if (skipped[i])
            ((ptx_func *)&pm->funcs[i])->is_decl = false;
    free(skipped);
    return mod;
}

/* Whole-module code generation failed: tries each kernel alone to find
 * which fail, records why, and drops them from mod. Returns how many are
 * left. */
static uint32_t isolate_failures(LLVMModuleRef mod, const zn_target *t, zn_offline *out,
                                 LLVMCodeGenFileType kind)
{
    uint32_t ok = 0;
    char sym[600], err[512];
    for (uint32_t i = 0; i < out->nkernels; i++) {
        zn_offline_kernel *k = &out->kernels[i];
        if (k->error)
            continue;
        LLVMModuleRef one = LLVMCloneModule(mod);
        for (uint32_t j = 0; j < out->nkernels; j++) {
            if (j == i)
                continue;
            snprintf(sym, sizeof sym, "zk_%s", out->kernels[j].info.name);
            zn_drop_kernel(one, sym);
        }
        zn_strip_unused(one, t);
        char *bytes = NULL;
        size_t n = 0;
        if (zn_guarded_emit(one, t, kind, &bytes, &n, err, sizeof err)) {
            k->error = strdup(err);
        } else {
            free(bytes);
            ok++;
        }
        LLVMDisposeModule(one);
    }
    for (uint32_t i = 0; i < out->nkernels; i++)
        if (out->kernels[i].error) {
            snprintf(sym, sizeof sym, "zk_%s", out->kernels[i].info.name);
            zn_drop_kernel(mod, sym);
        }
    zn_strip_unused(mod, t);
    return ok;
}

/* Assembly and/or object; with failing kernels left out. */
static int codegen(LLVMModuleRef mod, const zn_target *t, unsigned stages, bool report,
                   zn_offline *out, char *err, size_t errlen)
{
    bool want_asm = (stages & (1u << ZN_STAGE_ASM)) || report;
    bool want_obj = stages & (1u << ZN_STAGE_OBJ);
    LLVMCodeGenFileType first = want_asm ? LLVMAssemblyFile : LLVMObjectFile;
    if (!want_asm && !want_obj)
        return 0;
    char *bytes = NULL;
    size_t n = 0;
    double t0 = zn_now_ms();
    if (zn_guarded_emit(mod, t, first, &bytes, &n, err, errlen)) {
        if (!out->nkernels || !isolate_failures(mod, t, out, first))
            return -1;
        if (zn_guarded_emit(mod, t, first, &bytes, &n, err, errlen))
            return -1;
    }
    if (want_asm) {
        char sym[600];
        for (uint32_t i = 0; i < out->nkernels; i++) {
            snprintf(sym, sizeof sym, "zk_%s", out->kernels[i].info.name);
            if (!out->kernels[i].error)
                out->kernels[i].frame_bytes = frame_bytes(bytes, sym);
        }
        keep(out, stages, ZN_STAGE_ASM, bytes, n);
        if (want_obj && zn_guarded_emit(mod, t, LLVMObjectFile, &bytes, &n, err, errlen))
            return -1;
    }
    if (want_obj)
        keep(out, stages, ZN_STAGE_OBJ, bytes, n);
    out->ms_codegen = zn_now_ms() - t0;
    return 0;
}

int zn_compile_offline(const ptx_module *pm, const zn_compile_opts *o, unsigned stages,
                       zn_offline *out, char *err, size_t errlen)
{
    zn_compile_opts defaults = {.opt_level = 3};
    memset(out, 0, sizeof *out);
    err[0] = 0;
    if (!o)
        o = &defaults;
    zn_target t;
    if (zn_target_init(&t, o, err, errlen))
        return -1;
    out->triple = strdup(t.triple);
    out->cpu = strdup(t.cpu);
    fill_kernels(pm, out);
    bool report = stages & ZN_OFFLINE_REPORT;

    LLVMContextRef ctx = LLVMContextCreate();
    double t0 = zn_now_ms();
    LLVMModuleRef mod = build_skipping(pm, o, &t, ctx, out, err, errlen);
    out->ms_lower = zn_now_ms() - t0;
    int rc = mod ? 0 : -1;
    size_t n = 0;
    if (!rc && (stages & (3u << ZN_STAGE_LLVM))) {
        char *ir = module_text(mod, &n);
        /* no device library yet: "linked" is the module as translated */
        if (stages & (1u << ZN_STAGE_LLVM_LINKED))
            keep(out, stages, ZN_STAGE_LLVM_LINKED, strdup(ir), n);
        keep(out, stages, ZN_STAGE_LLVM, ir, n);
    }
    if (!rc) {
        t0 = zn_now_ms();
        rc = zn_optimise(mod, &t, err, errlen);
        out->ms_opt = zn_now_ms() - t0;
    }
    if (!rc && (stages & (1u << ZN_STAGE_LLVM_OPT))) {
        char *ir = module_text(mod, &n);
        keep(out, stages, ZN_STAGE_LLVM_OPT, ir, n);
    }
    if (!rc)
        rc = codegen(mod, &t, stages, report, out, err, errlen);
    if (mod)
        LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    zn_target_fini(&t);
    return rc;
}

void zn_offline_free(zn_offline *out)
{
    for (int s = 0; s < ZN_STAGE_COUNT; s++)
        free(out->out[s]);
    for (uint32_t i = 0; i < out->nkernels; i++) {
        zn_kernel_info *k = &out->kernels[i].info;
        free((void *)k->name);
        free((void *)k->param_offset);
        free((void *)k->param_size);
        free(out->kernels[i].error);
    }
    free(out->kernels);
    free(out->triple);
    free(out->cpu);
    memset(out, 0, sizeof *out);
}
