/* zn_trace.h: private to the tracing libcuda.so.1 (build/lib/trace).
 *
 * Every driver entry point is a wrapper that logs the call and forwards it
 * to a target driver (Zinc's by default, NVIDIA's when ZINC_TRACE_TARGET
 * names one). Typed wrappers come from zn_trace_sigs.def; pointers without
 * a signature (other cuGetProcAddress answers, export-table slots) get a
 * generic x86-64 trampoline (zn_trace_tramp_x86_64.S). See docs/trace.md.
 */
#ifndef ZN_TRACE_H
#define ZN_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ZN_TR_API __attribute__((visibility("default")))

typedef int CUresult;
typedef unsigned long long zn_dptr;

enum { ZN_TR_MAX_ARGS = 12, ZN_TR_MAX_DEPTH = 32 };

/* ---- parameter kinds (zn_trace_kinds.def) ---- */
typedef enum zn_tr_kind {
#define K(name, ctype, out) ZN_TK_##name,
#include "zn_trace_kinds.def"
#undef K
} zn_tr_kind;

/* ---- hooks: extra work around some calls (zn_trace_hooks.c) ---- */
#define ZN_TR_HOOKS(X) X(none) X(proc) X(export) X(libload) X(libfile) X(modload) \
    X(modfile) X(getkernel) X(getfunc) X(kfunc) X(libmod) X(launch) X(launchex) X(copy)

typedef enum zn_tr_hook {
#define X(h) ZN_TH_##h,
    ZN_TR_HOOKS(X)
#undef X
} zn_tr_hook;

/* ---- the signature table (zn_trace_wrappers.c) ---- */
typedef struct zn_tr_sig {
    const char *name;
    zn_tr_hook hook;
    uint8_t nargs;
    uint8_t kinds[ZN_TR_MAX_ARGS];
    void *wrapper;          /* our exported wrapper */
} zn_tr_sig;

typedef enum zn_tr_sig_id {
#define S0(sym, hook) ZN_TS_##sym,
#define S1(sym, hook, ...) ZN_TS_##sym,
#define S2(sym, hook, ...) ZN_TS_##sym,
#define S3(sym, hook, ...) ZN_TS_##sym,
#define S4(sym, hook, ...) ZN_TS_##sym,
#define S5(sym, hook, ...) ZN_TS_##sym,
#define S6(sym, hook, ...) ZN_TS_##sym,
#define S7(sym, hook, ...) ZN_TS_##sym,
#define S8(sym, hook, ...) ZN_TS_##sym,
#define S9(sym, hook, ...) ZN_TS_##sym,
#define S10(sym, hook, ...) ZN_TS_##sym,
#define S11(sym, hook, ...) ZN_TS_##sym,
#include "zn_trace_sigs.def"
#undef S0
#undef S1
#undef S2
#undef S3
#undef S4
#undef S5
#undef S6
#undef S7
#undef S8
#undef S9
#undef S10
#undef S11
    ZN_TS_COUNT
} zn_tr_sig_id;

extern const zn_tr_sig zn_tr_sigs[ZN_TS_COUNT];
/* The target's function for each row (NULL when it lacks the symbol). */
extern void *zn_tr_real[ZN_TS_COUNT];

/* ---- one call in flight (lives on the wrapper's stack) ---- */
typedef struct zn_tr_frame {
    int sig;                /* zn_tr_sig_id, or -1 for a trampoline */
    const char *name;       /* trampolines: "cuFoo" or "export:role[slot]" */
    const uint64_t *av;     /* arguments as 64-bit words */
    int nargs;
    const uint8_t *kinds;   /* NULL: print av as hex */
    uint64_t t0;            /* ns since the trace started */
    size_t line_at;         /* where this call's line goes in the thread buffer */
    int depth;
    CUresult result;
    void *hook_state;       /* launch capture between pre and post */
} zn_tr_frame;

/* zn_trace_log.c: the per-thread call stack and log.txt. enter/leave run
 * the row's hooks; leave writes the line (with the result) where the call
 * began, so nested calls follow their parent, indented. */
void zn_tr_enter(zn_tr_frame *f);
void zn_tr_leave(zn_tr_frame *f, CUresult r);
uint64_t zn_tr_now_ns(void);
int zn_tr_thread_id(void);
/* Appends a free-form note line ("# ...") to log.txt at the current depth. */
void zn_tr_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void zn_tr_note_text(const char *text, size_t len);
/* Writes log.txt out; final: and every later line at once. */
void zn_tr_log_flush(bool final);

/* zn_trace_fmt.c */
const char *zn_tr_result_name(CUresult r);   /* NULL when unknown */
/* Formats argument i of f into out; after = the call returned (out-params). */
size_t zn_tr_fmt_arg(char *out, size_t n, zn_tr_kind k, uint64_t v, bool after, bool ok);

/* zn_trace_init.c: the target, the output folder, settings. */
typedef struct zn_tr_config {
    char dir[4096];         /* output folder */
    bool capture;           /* ZINC_TRACE_CAPTURE=1 */
    bool sync;              /* ZINC_TRACE_SYNC=1 (or capture): wait for each launch/copy */
    void *target;           /* dlopen handle of the target driver */
    char target_path[4096];
    int pid;
} zn_tr_config;
extern zn_tr_config zn_tr_cfg;
void zn_tr_init(void);      /* idempotent; every wrapper calls it first */
/* Waits for all work of the current context (the target's cuCtxSynchronize). */
void zn_tr_sync(void);
/* Opens DIR/relpath for writing (folders created); NULL on failure. */
FILE *zn_tr_open(const char *relpath, const char *mode);
bool zn_tr_write_file(const char *relpath, const void *data, size_t n);
/* The wrapper of the target's function fn, or NULL (zn_trace_proc.c). */
void *zn_tr_wrapper_of(void *fn);
void zn_tr_proc_init(void);
/* cuGetProcAddress(_v2) post-hook: hands out wrappers (zn_trace_proc.c). */
void zn_tr_proc_hook(zn_tr_frame *f);
/* Calls the target's entry point of row `sig` (no logging). */
#define ZN_TR_REAL(sym) ((zn_tr_real_##sym##_fn)zn_tr_real[ZN_TS_##sym])

/* zn_trace_timeline.c: timeline.json (Chrome trace events). */
/* An API call's complete event, with its ",\n", into ev (0 if no room). */
size_t zn_tr_tl_fmt_call(char *ev, size_t n, const char *name, uint64_t t0, uint64_t t1,
                         int tid);
void zn_tr_tl_append(const char *events, size_t n);
void zn_tr_tl_stream(const char *name, uint64_t stream, uint64_t t0, uint64_t t1,
                     const char *args_json);
void zn_tr_tl_close(void);

/* zn_trace_tramp.c: a generic forwarder for fn, logged as `name`; returns
 * fn itself when the pool is exhausted. nshow: arguments to print. */
void *zn_tr_tramp(const char *name, void *fn, int nshow);

/* zn_trace_export.c */
void zn_tr_export_hook(zn_tr_frame *f, bool post);

/* zn_trace_modules.c: module images, handle names, parameter layouts. */
typedef struct zn_tr_param { uint32_t offset, size; } zn_tr_param;
typedef struct zn_tr_module zn_tr_module;
typedef struct zn_tr_kernel {
    const char *name;
    zn_tr_module *mod;
    uint64_t mod_handle;    /* the CUlibrary or CUmodule it came from */
    bool lib;               /* mod_handle is a CUlibrary */
    int nparams;            /* -1: unknown (no PTX) */
    zn_tr_param *params;
    uint32_t param_bytes;
} zn_tr_kernel;
void zn_tr_module_hook(zn_tr_frame *f, bool post);
void zn_tr_handle_hook(zn_tr_frame *f, bool post);
/* The kernel a CUfunction/CUkernel handle names (params resolved), or NULL. */
zn_tr_kernel *zn_tr_kernel_of(uint64_t handle);
int zn_tr_module_id(const zn_tr_module *m);
/* The PTX file (relative to the trace folder) that defines kernel k. */
const char *zn_tr_kernel_ptx(const zn_tr_kernel *k);
/* Module-scope .global/.const variables of k's PTX: calls cb for each. */
void zn_tr_module_globals(const zn_tr_kernel *k,
                          void (*cb)(void *u, const char *name, uint64_t size), void *u);

/* zn_trace_launch.c */
void zn_tr_launch_hook(zn_tr_frame *f, bool post);
/* cuLaunchKernel's extra = { BUFFER_POINTER(1), p, BUFFER_SIZE(2), &size,
 * END(0) }: the parameter bytes, laid out at their offsets. */
bool zn_tr_extra_buffer(void **extra, const void **buf, size_t *size);
void zn_tr_copy_hook(zn_tr_frame *f, bool post);

/* zn_trace_capture.c: --capture of one launch's buffers. */
typedef struct zn_tr_launch {
    int id;
    zn_tr_kernel *k;
    unsigned grid[3], block[3], shmem;
    uint64_t stream;
    void **params;          /* kernelParams */
    void **extra;
} zn_tr_launch;
void *zn_tr_capture_before(const zn_tr_launch *l);
void zn_tr_capture_after(void *state, CUresult r);

/* zn_trace_map.c: a pointer-keyed hash map (grows; thread-safe). */
typedef struct zn_tr_map zn_tr_map;
zn_tr_map *zn_tr_map_new(void);
void *zn_tr_map_get(zn_tr_map *m, uint64_t key);
void zn_tr_map_put(zn_tr_map *m, uint64_t key, void *value);

/* Typedefs of the target's entry points the tracer calls itself. */
typedef CUresult (*zn_tr_real_cuCtxSynchronize_fn)(void);
typedef CUresult (*zn_tr_real_cuMemcpyDtoH_v2_fn)(void *dst, zn_dptr src, size_t n);
typedef CUresult (*zn_tr_real_cuPointerGetAttribute_fn)(void *data, int attr, zn_dptr p);
typedef CUresult (*zn_tr_real_cuLibraryGetGlobal_fn)(zn_dptr *p, size_t *n, void *lib,
                                                     const char *name);
typedef CUresult (*zn_tr_real_cuModuleGetGlobal_v2_fn)(zn_dptr *p, size_t *n, void *mod,
                                                       const char *name);
typedef CUresult (*zn_tr_real_cuDriverGetVersion_fn)(int *v);
typedef CUresult (*zn_tr_real_cuDeviceGetCount_fn)(int *n);
typedef CUresult (*zn_tr_real_cuDeviceGetUuid_fn)(void *uuid, int dev);
typedef CUresult (*zn_tr_real_cuDeviceGetAttribute_fn)(int *v, int attr, int dev);
typedef CUresult (*zn_tr_real_cuGetProcAddress_v2_fn)(const char *s, void **pfn, int ver,
                                                      uint64_t flags, int *status);

#endif
