/* graph_test.h: what the graph driver tests share beyond drv_test.h: a
 * context/stream fixture with drv_fill_ptx's fill kernel loaded, kernel
 * node parameters for it and checks of what it wrote. */
#ifndef GRAPH_TEST_H
#define GRAPH_TEST_H

#include "drv_test.h"
#include <stdint.h>
#include <string.h>
#include <unistd.h>

typedef struct gt_fixture {
    CUcontext ctx;
    CUmodule mod;
    CUfunction fill;
    CUstream s;
} gt_fixture;

/* The primary context, the fill module and a non-blocking stream; -1 (the
 * failing calls printed) if any of them failed. */
static inline int gt_setup(gt_fixture *f)
{
    int before = drv_failures;
    memset(f, 0, sizeof *f);
    drv_test_primary_ctx(&f->ctx);
    OK(cuModuleLoadData(&f->mod, drv_fill_ptx));
    if (drv_failures != before)
        return -1;
    OK(cuModuleGetFunction(&f->fill, f->mod, "fill"));
    OK(cuStreamCreate(&f->s, CU_STREAM_NON_BLOCKING));
    return drv_failures == before ? 0 : -1;
}

static inline void gt_teardown(gt_fixture *f)
{
    OK(cuStreamDestroy(f->s));
    OK(cuModuleUnload(f->mod));
    OK(cuDevicePrimaryCtxRelease(0));
}

/* Kernel node parameters for fill(out, n, v); args must outlive the call. */
static inline CUDA_KERNEL_NODE_PARAMS gt_fill_params(const gt_fixture *f, void **args,
                                                     unsigned n)
{
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.func = f->fill;
    p.gridDimX = (n + 63) / 64;
    p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 64;
    p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = args;
    return p;
}

/* A 1D device-to-device copy of bytes. */
static inline CUDA_MEMCPY3D gt_copy_params(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = src;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dst;
    c.WidthInBytes = bytes;
    c.Height = 1;
    c.Depth = 1;
    return c;
}

/* A memset of n 32-bit words to v. */
static inline CUDA_MEMSET_NODE_PARAMS gt_set_params(CUdeviceptr dst, uint32_t v, unsigned n)
{
    CUDA_MEMSET_NODE_PARAMS m;
    memset(&m, 0, sizeof m);
    m.dst = dst;
    m.value = v;
    m.elementSize = 4;
    m.width = n;
    m.height = 1;
    return m;
}

/* Counts the words of d[0..n) (device memory) that differ from i * mul + v;
 * all of them if they cannot be read. */
static inline unsigned gt_check_words(CUdeviceptr d, unsigned n, uint32_t mul, uint32_t v)
{
    uint32_t h[4096];
    if (n > 4096 || cuMemcpyDtoH(h, d, n * 4) != CUDA_SUCCESS)
        return n ? n : 1;
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++)
        bad += h[i] != i * mul + v;
    return bad;
}

/* What fill(d, n, v) wrote: i * 3 + v. */
static inline unsigned gt_check_fill(CUdeviceptr d, unsigned n, uint32_t v)
{
    return gt_check_words(d, n, 3, v);
}

/* The constant v in every word. */
static inline unsigned gt_check_const(CUdeviceptr d, unsigned n, uint32_t v)
{
    return gt_check_words(d, n, 0, v);
}

/* The parameters of an IF conditional node on handle h with one body, in
 * context ctx (NULL: the current one). */
static inline CUgraphNodeParams gt_if_params(CUgraphConditionalHandle h, CUcontext ctx)
{
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    p.conditional.handle = h;
    p.conditional.type = CU_GRAPH_COND_TYPE_IF;
    p.conditional.size = 1;
    p.conditional.ctx = ctx;
    return p;
}

/* cuGraphDebugDotPrint(g, a temporary file, flags) read back into buf (cap
 * bytes, NUL-terminated, empty when the file cannot be read), the file then
 * removed; returns the call's result. */
static inline CUresult gt_dot(CUgraph g, unsigned flags, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/zn_graph_test_%d.dot", (int)getpid());
    CUresult r = cuGraphDebugDotPrint(g, path, flags);
    buf[0] = 0;
    FILE *fp = fopen(path, "r");
    if (fp) {
        buf[fread(buf, 1, cap - 1, fp)] = 0;
        fclose(fp);
    }
    unlink(path);
    return r;
}

#endif
