/* zn_nvrtc.c: Zinc's libnvrtc.so.13, NVIDIA's NVRTC (the CUDA toolkit's
 * runtime C++ compiler) behind one change.
 *
 * Programs that ask NVRTC for a real architecture (--gpu-architecture=
 * sm_XX) get machine code for an NVIDIA GPU, a "cubin", which Zinc cannot
 * run; CUDA's samples and libraries such as PyTorch's JIT ask for it
 * whenever NVRTC knows the device's architecture. Here such a program is
 * compiled for compute_XX instead (PTX for the same architecture, the same
 * C++ and the same macros but __CUDA_ARCH__'s real-architecture forms),
 * and nvrtcGetCUBINSize/nvrtcGetCUBIN hand out that PTX, NUL-terminated,
 * which Zinc's cuModuleLoadData and cuLink* accept. ZINC_LOG=1 says so once
 * per program. Likewise a program compiled with -dlto (link-time
 * optimisation: NVVM IR, which Zinc cannot compile) is compiled to PTX,
 * and nvrtcGetLTOIRSize/nvrtcGetLTOIR hand out that PTX: Zinc's
 * libnvJitLink and cuLinkAddData (CU_JIT_INPUT_NVVM) take it as their
 * LTO input. Everything else is forwarded unchanged to NVIDIA's library:
 * $ZINC_NVRTC_LIB, else $CUDA_PATH/lib64/libnvrtc.so.13, else
 * /usr/local/cuda/lib64/libnvrtc.so.13 (Zinc's LD_AUDIT library lets this
 * layer open it by path). Without it every call fails with
 * NVRTC_ERROR_INTERNAL_ERROR and the log says why. */
#define _GNU_SOURCE
#include <nvrtc.h>

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/zn_log.h"
#include "zn_nvrtc_arch.h"

#define API __attribute__((visibility("default")))

/* ---- NVIDIA's library ------------------------------------------------------- */

#define NV_FUNCS(X)                                                                      \
    X(const char *, nvrtcGetErrorString, (nvrtcResult r))                               \
    X(nvrtcResult, nvrtcVersion, (int *major, int *minor))                              \
    X(nvrtcResult, nvrtcGetNumSupportedArchs, (int *n))                                 \
    X(nvrtcResult, nvrtcGetSupportedArchs, (int *archs))                                \
    X(nvrtcResult, nvrtcCreateProgram, (nvrtcProgram *p, const char *src,               \
      const char *name, int nh, const char *const *headers, const char *const *names))  \
    X(nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram *p))                              \
    X(nvrtcResult, nvrtcCompileProgram, (nvrtcProgram p, int n, const char *const *o))  \
    X(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram p, size_t *n))                        \
    X(nvrtcResult, nvrtcGetPTX, (nvrtcProgram p, char *ptx))                            \
    X(nvrtcResult, nvrtcGetCUBINSize, (nvrtcProgram p, size_t *n))                      \
    X(nvrtcResult, nvrtcGetCUBIN, (nvrtcProgram p, char *cubin))                        \
    X(nvrtcResult, nvrtcGetLTOIRSize, (nvrtcProgram p, size_t *n))                      \
    X(nvrtcResult, nvrtcGetLTOIR, (nvrtcProgram p, char *ir))                           \
    X(nvrtcResult, nvrtcGetOptiXIRSize, (nvrtcProgram p, size_t *n))                    \
    X(nvrtcResult, nvrtcGetOptiXIR, (nvrtcProgram p, char *ir))                         \
    X(nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram p, size_t *n))                 \
    X(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram p, char *log))                     \
    X(nvrtcResult, nvrtcAddNameExpression, (nvrtcProgram p, const char *const e))       \
    X(nvrtcResult, nvrtcGetLoweredName, (nvrtcProgram p, const char *const e,           \
      const char **lowered))                                                            \
    X(nvrtcResult, nvrtcGetPCHHeapSize, (size_t *n))                                    \
    X(nvrtcResult, nvrtcSetPCHHeapSize, (size_t n))                                     \
    X(nvrtcResult, nvrtcGetPCHCreateStatus, (nvrtcProgram p))                           \
    X(nvrtcResult, nvrtcGetPCHHeapSizeRequired, (nvrtcProgram p, size_t *n))            \
    X(nvrtcResult, nvrtcSetFlowCallback, (nvrtcProgram p, int (*cb)(void *, void *),    \
      void *payload))

#define NV_PTR(ret, name, params) ret(*name) params;
static struct { NV_FUNCS(NV_PTR) } nv;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;
static bool nv_ok;

static bool is_self(const char *path)
{
    Dl_info info;
    char a[PATH_MAX], b[PATH_MAX];
    return dladdr((void *)&is_self, &info) && info.dli_fname && realpath(info.dli_fname, a) &&
           realpath(path, b) && strcmp(a, b) == 0;
}

static void nv_open(void)
{
    char path[PATH_MAX];
    const char *env = getenv("ZINC_NVRTC_LIB"), *cuda = getenv("CUDA_PATH");
    if (env && *env)
        snprintf(path, sizeof path, "%s", env);
    else
        snprintf(path, sizeof path, "%s/lib64/libnvrtc.so.13", cuda && *cuda ? cuda : "/usr/local/cuda");
    if (is_self(path)) {
        zn_log(ZN_LOG_ERROR, "nvrtc: %s is Zinc's own libnvrtc, not NVIDIA's", path);
        return;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        zn_log(ZN_LOG_ERROR, "nvrtc: cannot load NVIDIA's NVRTC (set ZINC_NVRTC_LIB): %s", dlerror());
        return;
    }
    nv_ok = true;
#define NV_SYM(ret, name, params)                                                \
    *(void **)&nv.name = dlsym(h, #name);                                        \
    if (!nv.name) {                                                              \
        zn_log(ZN_LOG_ERROR, "nvrtc: %s has no %s", path, #name);                \
        nv_ok = false;                                                           \
    }
    NV_FUNCS(NV_SYM)
}

static bool nv_ready(void)
{
    pthread_once(&nv_once, nv_open);
    return nv_ok;
}

/* ---- programs compiled to PTX in place of a cubin or LTO IR ---------------- */

enum { AS_CUBIN = 1, AS_LTOIR = 2 };    /* what the program's PTX stands in for */

typedef struct marked_prog {
    nvrtcProgram p;
    unsigned as;
} marked_prog;

static pthread_mutex_t ptx_lock = PTHREAD_MUTEX_INITIALIZER;
static marked_prog *ptx_progs;
static size_t ptx_n, ptx_cap;

static bool ptx_find(nvrtcProgram p, size_t *at)
{
    for (size_t i = 0; i < ptx_n; i++)
        if (ptx_progs[i].p == p) {
            *at = i;
            return true;
        }
    return false;
}

/* records what p's PTX stands in for (as: AS_* bits; 0 forgets p) */
static void ptx_mark(nvrtcProgram p, unsigned as)
{
    pthread_mutex_lock(&ptx_lock);
    size_t at;
    bool had = ptx_find(p, &at);
    if (had && !as) {
        ptx_progs[at] = ptx_progs[--ptx_n];
    } else if (had) {
        ptx_progs[at].as = as;
    } else if (as) {
        if (ptx_n == ptx_cap) {
            size_t cap = ptx_cap ? 2 * ptx_cap : 16;
            marked_prog *g = realloc(ptx_progs, cap * sizeof *g);
            if (g)
                ptx_progs = g, ptx_cap = cap;
        }
        if (ptx_n < ptx_cap)
            ptx_progs[ptx_n++] = (marked_prog){p, as};
    }
    pthread_mutex_unlock(&ptx_lock);
}

static bool ptx_marked(nvrtcProgram p, unsigned as)
{
    pthread_mutex_lock(&ptx_lock);
    size_t at;
    bool r = ptx_find(p, &at) && (ptx_progs[at].as & as);
    pthread_mutex_unlock(&ptx_lock);
    return r;
}

/* ---- the API ----------------------------------------------------------------- */

API const char *nvrtcGetErrorString(nvrtcResult r)
{
    if (!nv_ready())
        return r == NVRTC_SUCCESS ? "NVRTC_SUCCESS"
                                  : "NVRTC_ERROR (Zinc: NVIDIA's libnvrtc is not available)";
    return nv.nvrtcGetErrorString(r);
}

API nvrtcResult nvrtcCompileProgram(nvrtcProgram p, int n, const char *const *opts)
{
    if (!nv_ready())
        return NVRTC_ERROR_INTERNAL_ERROR;
    if (n < 0 || (n > 0 && !opts))
        return nv.nvrtcCompileProgram(p, n, opts);
    bool changed = false, lto = false;
    char **o = zn_nvrtc_ptx_opts(opts, n, &changed);
    if (!o)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    int k = zn_nvrtc_strip_dlto(o, n, &lto);
    nvrtcResult r = nv.nvrtcCompileProgram(p, k, (const char *const *)o);
    zn_nvrtc_free_opts(o, k);
    ptx_mark(p, (changed ? AS_CUBIN : 0) | (lto ? AS_LTOIR : 0));
    if (changed)
        zn_log(ZN_LOG_WARN, "nvrtc: a real architecture (sm_XX) was asked for: compiled to PTX "
                            "for compute_XX, which nvrtcGetCUBIN returns");
    if (lto)
        zn_log(ZN_LOG_WARN, "nvrtc: -dlto (NVVM IR) was asked for: compiled to PTX, which "
                            "nvrtcGetLTOIR returns for Zinc's nvJitLink and cuLink*");
    return r;
}

API nvrtcResult nvrtcGetCUBINSize(nvrtcProgram p, size_t *n)
{
    if (!nv_ready())
        return NVRTC_ERROR_INTERNAL_ERROR;
    return ptx_marked(p, AS_CUBIN) ? nv.nvrtcGetPTXSize(p, n) : nv.nvrtcGetCUBINSize(p, n);
}

API nvrtcResult nvrtcGetCUBIN(nvrtcProgram p, char *cubin)
{
    if (!nv_ready())
        return NVRTC_ERROR_INTERNAL_ERROR;
    return ptx_marked(p, AS_CUBIN) ? nv.nvrtcGetPTX(p, cubin) : nv.nvrtcGetCUBIN(p, cubin);
}

API nvrtcResult nvrtcGetLTOIRSize(nvrtcProgram p, size_t *n)
{
    if (!nv_ready())
        return NVRTC_ERROR_INTERNAL_ERROR;
    return ptx_marked(p, AS_LTOIR) ? nv.nvrtcGetPTXSize(p, n) : nv.nvrtcGetLTOIRSize(p, n);
}

API nvrtcResult nvrtcGetLTOIR(nvrtcProgram p, char *ir)
{
    if (!nv_ready())
        return NVRTC_ERROR_INTERNAL_ERROR;
    return ptx_marked(p, AS_LTOIR) ? nv.nvrtcGetPTX(p, ir) : nv.nvrtcGetLTOIR(p, ir);
}

API nvrtcResult nvrtcDestroyProgram(nvrtcProgram *p)
{
    if (!nv_ready())
        return NVRTC_ERROR_INTERNAL_ERROR;
    if (p)
        ptx_mark(*p, 0);
    return nv.nvrtcDestroyProgram(p);
}

/* the rest: forwarded as they are */
#define FWD(ret, name, params, args)                  \
    API ret name params                               \
    {                                                 \
        if (!nv_ready())                              \
            return NVRTC_ERROR_INTERNAL_ERROR;        \
        return nv.name args;                          \
    }
FWD(nvrtcResult, nvrtcVersion, (int *major, int *minor), (major, minor))
FWD(nvrtcResult, nvrtcGetNumSupportedArchs, (int *n), (n))
FWD(nvrtcResult, nvrtcGetSupportedArchs, (int *archs), (archs))
FWD(nvrtcResult, nvrtcCreateProgram, (nvrtcProgram *p, const char *src, const char *name, int nh,
    const char *const *headers, const char *const *names), (p, src, name, nh, headers, names))
FWD(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram p, size_t *n), (p, n))
FWD(nvrtcResult, nvrtcGetPTX, (nvrtcProgram p, char *ptx), (p, ptx))
FWD(nvrtcResult, nvrtcGetOptiXIRSize, (nvrtcProgram p, size_t *n), (p, n))
FWD(nvrtcResult, nvrtcGetOptiXIR, (nvrtcProgram p, char *ir), (p, ir))
FWD(nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram p, size_t *n), (p, n))
FWD(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram p, char *log), (p, log))
FWD(nvrtcResult, nvrtcAddNameExpression, (nvrtcProgram p, const char *const e), (p, e))
FWD(nvrtcResult, nvrtcGetLoweredName, (nvrtcProgram p, const char *const e, const char **lowered),
    (p, e, lowered))
FWD(nvrtcResult, nvrtcGetPCHHeapSize, (size_t *n), (n))
FWD(nvrtcResult, nvrtcSetPCHHeapSize, (size_t n), (n))
FWD(nvrtcResult, nvrtcGetPCHCreateStatus, (nvrtcProgram p), (p))
FWD(nvrtcResult, nvrtcGetPCHHeapSizeRequired, (nvrtcProgram p, size_t *n), (p, n))
FWD(nvrtcResult, nvrtcSetFlowCallback, (nvrtcProgram p, int (*cb)(void *, void *), void *payload),
    (p, cb, payload))
