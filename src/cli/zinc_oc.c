/* zinc_oc.c: `zinc oc`, the offline compiler (like ptxas): PTX, a fatbin
 * or a CUDA binary in; any stage of Zinc's pipeline out (docs/oc.md). It
 * uses the driver's own libraries: ptx/ to parse, compile/ to compile. */
#include "zinc_cli.h"
#include "zinc_oc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "compile/zn_compile.h"
#include "ptx/ptx_ir.h"

#ifndef ZINC_VERSION
#define ZINC_VERSION "unknown"
#endif

/* What --emit can ask for: name, file extension, compiler stage (-1: the
 * PTX printed back by the front end). */
#define OC_OUTPUTS(X)                                          \
    X(ptx,         "ptx",       -1)                            \
    X(llvm,        "ll",        ZN_STAGE_LLVM)                 \
    X(llvm_linked, "linked.ll", ZN_STAGE_LLVM_LINKED)          \
    X(llvm_opt,    "opt.ll",    ZN_STAGE_LLVM_OPT)             \
    X(asm,         "s",         ZN_STAGE_ASM)                  \
    X(obj,         "o",         ZN_STAGE_OBJ)

enum {
#define X(name, ext, stage) OC_##name,
    OC_OUTPUTS(X)
#undef X
    OC_COUNT
};

static const struct oc_output {
    const char *name, *ext;
    int stage;
} outputs[] = {
#define X(name, ext, stage) {#name, ext, stage},
    OC_OUTPUTS(X)
#undef X
};

typedef struct oc_opts {
    const char *input, *output, *arch, *features;
    unsigned emit;              /* 1 << OC_* */
    unsigned block[3];          /* --block: code for that shape only; 0: any */
    int opt, verbose, ignore_errors;
} oc_opts;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: zinc oc [options] INPUT\n"
        "  INPUT                 a .ptx file, a fatbin, or a CUDA executable/library\n"
        "  --emit LIST           comma-separated: ptx llvm llvm-linked llvm-opt asm obj\n"
        "                        (default obj)\n"
        "  -o FILE|DIR           output file (one output) or folder (several); - = stdout\n"
        "  -O0 .. -O3            optimisation level (default 3)\n"
        "  --arch, --gpu-name T  native (default), x86-64-v2/v3/v4, an LLVM CPU name,\n"
        "                        aarch64, gfx1030, gfx1100 (sm_XX means native)\n"
        "  --features F          LLVM target features (+avx2,-avx512f)\n"
        "  --block X[,Y[,Z]]     compile for blocks of that shape only, as the driver\n"
        "                        does for a kernel's first launch\n"
        "  -v, --verbose         resource report per kernel and stage times (stderr)\n"
        "  --ignore-errors       skip kernels and modules that fail (and say which)\n"
        "  --version             print the version\n");
}

static int parse_emit(const char *list, unsigned *emit)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
        int i = 0;
        for (char *c = s; *c; c++)
            if (*c == '-')
                *c = '_';
        while (i < OC_COUNT && strcmp(outputs[i].name, s))
            i++;
        if (i == OC_COUNT) {
            fprintf(stderr, "zinc oc: unknown --emit stage '%s'\n", s);
            return -1;
        }
        *emit |= 1u << i;
    }
    return 0;
}

/* "X[,Y[,Z]]", each at least 1 and at most 1024 threads in all */
static int parse_block(const char *v, unsigned block[3])
{
    unsigned long n[3] = {1, 1, 1};
    const char *p = v;
    bool ok = true;
    for (int d = 0; d < 3 && ok; d++) {
        char *end;
        errno = 0;
        n[d] = strtoul(p, &end, 10);
        ok = end != p && !errno && n[d] >= 1 && n[d] <= 1024;
        p = end;
        if (*p != ',')
            break;
        p++;
    }
    if (!ok || *p || n[0] * n[1] * n[2] > 1024) {
        fprintf(stderr, "zinc oc: --block wants X[,Y[,Z]] of at most 1024 threads, not '%s'\n",
                v);
        return -1;
    }
    for (int d = 0; d < 3; d++)
        block[d] = (unsigned)n[d];
    return 0;
}

/* 0, 1 (done: --version/--help), or -1 (bad usage). */
static int parse_args(int argc, char **argv, oc_opts *o)
{
    *o = (oc_opts){.opt = 3, .arch = "native"};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--version")) {
            printf("zinc oc %s (PTX -> LLVM %s)\n", ZINC_VERSION, "19");
            return 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = 1;
        } else if (!strcmp(a, "--ignore-errors")) {
            o->ignore_errors = 1;
        } else if (!strncmp(a, "-O", 2) && a[2] >= '0' && a[2] <= '3' && !a[3]) {
            o->opt = a[2] - '0';
        } else if (!strncmp(a, "--emit=", 7)) {
            if (parse_emit(a + 7, &o->emit))
                return -1;
        } else if (!strncmp(a, "--arch=", 7) || !strncmp(a, "--gpu-name=", 11) ||
                   !strncmp(a, "-arch=", 6)) {
            o->arch = strchr(a, '=') + 1;
        } else if (!strncmp(a, "--features=", 11)) {
            o->features = a + 11;
        } else if (v && !strcmp(a, "--block")) {
            if (parse_block(v, o->block))
                return -1;
            i++;
        } else if (v && (!strcmp(a, "--emit") || !strcmp(a, "-o") || !strcmp(a, "--arch") ||
                         !strcmp(a, "--gpu-name") || !strcmp(a, "-arch") ||
                         !strcmp(a, "--features") || !strcmp(a, "--output-file"))) {
            if (!strcmp(a, "--emit") && parse_emit(v, &o->emit))
                return -1;
            if (!strcmp(a, "-o") || !strcmp(a, "--output-file"))
                o->output = v;
            else if (!strcmp(a, "--features"))
                o->features = v;
            else if (strcmp(a, "--emit"))
                o->arch = v;
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "zinc oc: unknown or incomplete option '%s'\n", a);
            return -1;
        } else if (o->input) {
            fprintf(stderr, "zinc oc: one input at a time ('%s' and '%s')\n", o->input, a);
            return -1;
        } else {
            o->input = a;
        }
    }
    if (!o->input) {
        fprintf(stderr, "zinc oc: no input file\n");
        return -1;
    }
    if (!o->emit)
        o->emit = 1u << OC_obj;
    return 0;
}

/* --arch -> triple and CPU for the compiler. */
static void target_of(const char *arch, zn_compile_opts *c)
{
    if (!strcmp(arch, "native") || !strncmp(arch, "sm_", 3) || !strncmp(arch, "compute_", 8))
        return;
    if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64")) {
        c->triple = "aarch64-linux-gnu";
        c->cpu = "generic";
    } else if (!strncmp(arch, "gfx", 3)) {
        c->triple = "amdgcn-amd-amdhsa";
        c->cpu = arch;
    } else {
        c->cpu = arch; /* x86-64-v3, znver4, ... on this host's triple */
    }
}

static int write_out(const char *path, const char *data, size_t len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
    if (!f) {
        fprintf(stderr, "zinc oc: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t w = fwrite(data, 1, len, f);
    int bad = w != len;
    if (f != stdout)
        bad |= fclose(f) != 0;
    else
        fflush(f);
    if (bad)
        fprintf(stderr, "zinc oc: error writing %s\n", path);
    return bad ? -1 : 0;
}

/* Where output `which` of module m goes. */
static void out_path(const oc_opts *o, unsigned nmods, unsigned m, int which, char *buf,
                     size_t n)
{
    int several = __builtin_popcount(o->emit) > 1 || nmods > 1;
    if (o->output && !several) {
        snprintf(buf, n, "%s", o->output);
        return;
    }
    const char *base = strrchr(o->input, '/') ? strrchr(o->input, '/') + 1 : o->input;
    char stem[256];
    snprintf(stem, sizeof stem, "%s", base);
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
        *dot = 0;
    char idx[16] = "";
    if (nmods > 1)
        snprintf(idx, sizeof idx, ".%u", m);
    snprintf(buf, n, "%s%s%s%s.%s", o->output ? o->output : "", o->output ? "/" : "",
             stem, idx, outputs[which].ext);
}

/* A compiler message "ptx:L:C: ..." with the module's name for "ptx". */
static void print_err(const char *prefix, const zn_oc_module *mod, const char *what,
                      const char *msg)
{
    if (!strncmp(msg, "ptx:", 4))
        fprintf(stderr, "%s%s%s%s:%s\n", prefix, what, what[0] ? ": " : "", mod->name, msg + 4);
    else
        fprintf(stderr, "%s%s%s%s: %s\n", prefix, what, what[0] ? ": " : "", mod->name, msg);
}

static void report(const zn_oc_module *mod, const zn_offline *r, double ms_parse)
{
    for (uint32_t i = 0; i < r->nkernels; i++) {
        const zn_offline_kernel *k = &r->kernels[i];
        const zn_kernel_info *ki = &k->info;
        fprintf(stderr, "zinc oc info    : Compiling entry function '%s' for '%s' (cpu %s)\n",
                ki->name, r->triple, r->cpu);
        if (k->error) {
            print_err("zinc oc error   : ", mod, "", k->error);
            continue;
        }
        char frame[32];
        if (k->frame_bytes >= 0)
            snprintf(frame, sizeof frame, "%lld", (long long)k->frame_bytes);
        else
            snprintf(frame, sizeof frame, "unknown");
        fprintf(stderr, "zinc oc info    : Function properties for %s\n"
                "    %s bytes stack frame, %u bytes static shared, %u bytes local per lane, "
                "%u bytes params, %u bytes warp stack (estimate), uses barrier: %s, "
                "polls other blocks: %s, vector width 32\n",
                ki->name, frame, ki->static_shared, ki->local_bytes, ki->param_bytes,
                ki->stack_bytes,
                ki->uses_barrier == 2 ? "coroutine" : ki->uses_barrier ? "fibers" : "no",
                ki->polls ? "yes" : "no");
    }
    fprintf(stderr, "zinc oc info    : %s: %u kernel(s); parse %.1f ms, lower %.1f ms, "
            "optimise %.1f ms, codegen %.1f ms\n",
            mod->name, r->nkernels, ms_parse, r->ms_lower, r->ms_opt, r->ms_codegen);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Compiles one module and writes its outputs; 0, or 1 on an error. */
static int compile_one(const oc_opts *o, const zn_oc_inputs *in, unsigned m)
{
    const zn_oc_module *mod = &in->mods[m];
    char err[2048], path[4096];
    double t0 = now_ms();
    ptx_module *pm = ptx_parse(mod->text, mod->len, mod->name, err, sizeof err);
    double ms_parse = now_ms() - t0;
    if (!pm) {
        fprintf(stderr, "zinc oc: %s\n", err);
        return 1;
    }
    int bad = 0;
    if (o->emit & (1u << OC_ptx)) {
        char *text = ptx_print(pm);
        out_path(o, in->n, m, OC_ptx, path, sizeof path);
        bad |= write_out(path, text, strlen(text)) != 0;
        free(text);
    }
    unsigned stages = o->verbose ? ZN_OFFLINE_REPORT : 0;
    for (int i = 0; i < OC_COUNT; i++)
        if (outputs[i].stage >= 0 && (o->emit & (1u << i)))
            stages |= 1u << outputs[i].stage;
    if (stages) {
        zn_compile_opts co = {.opt_level = o->opt, .features = o->features,
                              .block = {o->block[0], o->block[1], o->block[2]}};
        target_of(o->arch, &co);
        zn_offline r;
        int rc = zn_compile_offline(pm, &co, stages, &r, err, sizeof err);
        if (o->verbose)
            report(mod, &r, ms_parse);
        for (uint32_t k = 0; k < r.nkernels; k++)
            if (r.kernels[k].error) {
                char what[300];
                snprintf(what, sizeof what, "kernel '%s' %s", r.kernels[k].info.name,
                         o->ignore_errors ? "skipped" : "failed");
                print_err("zinc oc: ", mod, what, r.kernels[k].error);
                bad |= !o->ignore_errors;
            }
        if (rc) {
            print_err("zinc oc: ", mod, "", err);
            bad = 1;
        }
        for (int i = 0; !rc && i < OC_COUNT; i++) {
            int s = outputs[i].stage;
            if (s < 0 || !(o->emit & (1u << i)) || !r.out[s])
                continue;
            out_path(o, in->n, m, i, path, sizeof path);
            bad |= write_out(path, r.out[s], r.len[s]) != 0;
        }
        zn_offline_free(&r);
    }
    ptx_module_free(pm);
    return bad;
}

int zinc_cmd_oc(int argc, char **argv)
{
    oc_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc) {
        if (rc < 0)
            usage(stderr);
        return rc < 0 ? 1 : 0;
    }
    zn_oc_inputs in;
    char err[1024];
    if (zinc_oc_read(o.input, &in, err, sizeof err)) {
        fprintf(stderr, "zinc oc: %s: %s\n", o.input, err);
        return 1;
    }
    int several = __builtin_popcount(o.emit) > 1 || in.n > 1;
    if (o.output && several && strcmp(o.output, "-") &&
        mkdir(o.output, 0755) && errno != EEXIST) {
        fprintf(stderr, "zinc oc: cannot create folder %s: %s\n", o.output, strerror(errno));
        zinc_oc_inputs_free(&in);
        return 1;
    }
    if (o.output && several && !strcmp(o.output, "-")) {
        fprintf(stderr, "zinc oc: -o - takes one output of one module\n");
        zinc_oc_inputs_free(&in);
        return 1;
    }
    int failed = 0, bad = 0;
    for (unsigned m = 0; m < in.n; m++) {
        int b = compile_one(&o, &in, m);
        failed += b;
        if (b && o.ignore_errors)
            fprintf(stderr, "zinc oc: %s: skipped (--ignore-errors)\n", in.mods[m].name);
        bad |= b && !o.ignore_errors;
    }
    if (o.ignore_errors && failed == (int)in.n)
        bad = 1; /* nothing at all compiled */
    zinc_oc_inputs_free(&in);
    return bad ? 1 : 0;
}
