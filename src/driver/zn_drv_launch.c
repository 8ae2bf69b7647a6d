/* zn_drv_launch.c: cuLaunchKernel and its relatives.
 *
 * A launch checks its configuration against the device and kernel limits
 * (CUDA_ERROR_INVALID_VALUE when it does not fit), packs the parameters at
 * the offsets of the PTX .param list into a kernel op (so the caller's
 * arguments may change as soon as the call returns), and submits it to
 * its stream, whose thread runs the grid on the executor.
 * The launch itself succeeds; a fault inside the kernel becomes the
 * context's sticky error, returned by the next call and every call after.
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

CUresult zn_kstatus_error(int st)
{
    switch (st) {
    case ZN_KSTATUS_OK: return CUDA_SUCCESS;
    case ZN_KSTATUS_ASSERT: return CUDA_ERROR_ASSERT;
    case ZN_KSTATUS_ILLEGAL_ADDRESS: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case ZN_KSTATUS_ILLEGAL_INSTRUCTION: return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    case ZN_KSTATUS_MISALIGNED: return CUDA_ERROR_MISALIGNED_ADDRESS;
    default: return CUDA_ERROR_LAUNCH_FAILED;   /* trap and anything else */
    }
}

CUresult zn_launch_check(const zn_func *f, const unsigned g[3], const unsigned b[3],
                             unsigned shmem)
{
    const zn_kernel_info *ki = f->ki;
    if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2])
        return CUDA_ERROR_INVALID_VALUE;
    if (g[0] > 2147483647u || g[1] > 65535 || g[2] > 65535)
        return CUDA_ERROR_INVALID_VALUE;
    if (b[0] > 1024 || b[1] > 1024 || b[2] > 64)
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    uint32_t max = ki->max_threads && ki->max_threads < 1024 ? ki->max_threads : 1024;
    if (threads > max)
        return CUDA_ERROR_INVALID_VALUE;
    if (ki->reqntid[0] && (b[0] != ki->reqntid[0] || b[1] != (ki->reqntid[1] ? ki->reqntid[1] : 1)
                           || b[2] != (ki->reqntid[2] ? ki->reqntid[2] : 1)))
        return CUDA_ERROR_INVALID_VALUE;
    if (shmem > (unsigned)f->max_dyn_shared ||
        (uint64_t)shmem + ki->static_shared > (uint64_t)zn_drv_dev.sm->smem_optin)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* Builds the PTX parameter buffer from kernelParams or from extra. */
CUresult zn_launch_pack(const zn_kernel_info *ki, void **params, void **extra,
                            uint8_t *buf)
{
    if (params && extra)
        return CUDA_ERROR_INVALID_VALUE;
    if (params) {
        for (uint32_t i = 0; i < ki->nparams; i++) {
            if (!params[i])
                return CUDA_ERROR_INVALID_VALUE;
            memcpy(buf + ki->param_offset[i], params[i], ki->param_size[i]);
        }
        return CUDA_SUCCESS;
    }
    if (extra) {
        const void *src = NULL;
        size_t size = 0;
        for (int i = 0; extra[i] != ZN_CU_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == ZN_CU_LAUNCH_PARAM_BUFFER_POINTER)
                src = extra[i + 1];
            else if (extra[i] == ZN_CU_LAUNCH_PARAM_BUFFER_SIZE)
                size = extra[i + 1] ? *(const size_t *)extra[i + 1] : 0;
            else
                return CUDA_ERROR_INVALID_VALUE;
        }
        if (ki->param_bytes && (!src || size < ki->param_bytes))
            return CUDA_ERROR_INVALID_VALUE;
        if (ki->param_bytes)
            memcpy(buf, src, ki->param_bytes);
        return CUDA_SUCCESS;
    }
    return ki->nparams ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult zn_op_kernel(zn_op **out, const zn_func *f, const unsigned g[3], const unsigned b[3],
                      unsigned shmem, void **params, void **extra)
{
    CUresult r = zn_launch_check(f, g, b, shmem);
    if (r != CUDA_SUCCESS) {
        zn_log(ZN_LOG_WARN, "launch of %s: invalid configuration grid (%u,%u,%u) block "
               "(%u,%u,%u) dynamic shared %u", f->name, g[0], g[1], g[2], b[0], b[1], b[2],
               shmem);
        return r;
    }
    r = zn_func_code(f, b, NULL);   /* compiled now: errors go to the launch */
    if (r != CUDA_SUCCESS)
        return r;
    /* zeroed: padding between parameters reads as 0 */
    zn_op *op = zn_op_new(ZN_OP_KERNEL, f->ki->param_bytes);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    r = zn_launch_pack(f->ki, params, extra, op->data);
    if (r != CUDA_SUCCESS) {
        free(op);
        return r;
    }
    /* the function's or kernel's cluster shape; cuLaunchKernelEx and kernel
     * node attributes may give another (zn_drv_cluster.c) */
    r = zn_cluster_resolve(f, g, NULL, false, op->u.k.cl, &op->u.k.cl_explicit);
    if (r != CUDA_SUCCESS) {
        free(op);
        return r;
    }
    op->u.k.f = f;
    memcpy(op->u.k.g, g, sizeof op->u.k.g);
    memcpy(op->u.k.b, b, sizeof op->u.k.b);
    op->u.k.shmem = shmem;
    *out = op;
    return CUDA_SUCCESS;
}

/* CUDA_LAUNCH_BLOCKING=1: every launch returns when its grid is done. */
static bool launch_blocking(void)
{
    static atomic_int v = -1;   /* launches come from many threads */
    int x = atomic_load_explicit(&v, memory_order_relaxed);
    if (x < 0) {
        const char *e = getenv("CUDA_LAUNCH_BLOCKING");
        x = e && e[0] == '1';
        atomic_store_explicit(&v, x, memory_order_relaxed);
    }
    return x;
}

static CUresult launch(CUfunction f, const unsigned g[3], const unsigned b[3], unsigned shmem,
                       CUstream h, void **params, void **extra, bool pt, bool coop,
                       const unsigned *cluster)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    if (r != CUDA_SUCCESS)
        return r;
    zn_stream *s = zn_stream_get(h, pt);
    if (!zn_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!s)
        return zn_stream_bad(h);
    if (!f->ki)
        return CUDA_ERROR_INVALID_VALUE;
    zn_op *op;
    r = zn_op_kernel(&op, f, g, b, shmem, params, extra);
    if (r != CUDA_SUCCESS)
        return r;
    op->u.k.coop = coop;
    /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (NULL: none), and a shape for
     * a .explicitcluster kernel */
    r = zn_cluster_resolve(f, g, cluster, true, op->u.k.cl, &op->u.k.cl_explicit);
    if (r != CUDA_SUCCESS) {
        free(op);
        return r;
    }
    if (coop && op->u.k.cl[0] * op->u.k.cl[1] * op->u.k.cl[2] > 1) {
        zn_log(ZN_LOG_WARN, "launch of %s: cooperative launches with thread block clusters "
               "are not supported", f->name);
        free(op);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    zn_log(ZN_LOG_INFO, "launch %s grid (%u,%u,%u) block (%u,%u,%u) shared %u+%u",
           f->name, g[0], g[1], g[2], b[0], b[1], b[2], f->ki->static_shared, shmem);
    /* a kernel's own fault is sticky, reported by a later call (by this one
     * with CUDA_LAUNCH_BLOCKING=1) */
    return zn_submit(s, op, launch_blocking());
}

/* A cooperative grid must be co-resident (grid.sync() waits for every
 * block): CUDA refuses more blocks than SMs x occupancy per SM. Other
 * configuration errors are left to launch(). */
static CUresult coop_check(CUfunction f, const unsigned g[3], const unsigned b[3],
                           unsigned shmem)
{
    if (!atomic_load(&zn_drv_inited) || !zn_func_valid(f) || !f->ki)
        return CUDA_SUCCESS;
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    uint64_t blocks = (uint64_t)g[0] * g[1] * g[2];
    uint64_t max = zn_func_coresident_blocks(f, threads, shmem);
    if (max == 0 || blocks <= max)
        return CUDA_SUCCESS;
    zn_log(ZN_LOG_WARN, "cooperative launch of %s: %llu blocks, at most %llu co-resident",
           f->name, (unsigned long long)blocks, (unsigned long long)max);
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
}

static CUresult launch_ex(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra,
                          bool pt)
{
    if (!cfg || (cfg->numAttrs && !cfg->attrs))
        return CUDA_ERROR_INVALID_VALUE;
    CUevent done[2] = { NULL, NULL };
    int prog = 0, at_start = 0;
    unsigned cluster[3] = { 0, 0, 0 };
    bool has_cluster = false;
    for (unsigned i = 0; i < cfg->numAttrs; i++) {
        const CUlaunchAttribute *a = &cfg->attrs[i];
        switch (a->id) {
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            /* checked against the grid and the kernel in launch() */
            cluster[0] = a->value.clusterDim.x;
            cluster[1] = a->value.clusterDim.y;
            cluster[2] = a->value.clusterDim.z;
            has_cluster = true;
            break;
        case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
        case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
            /* value starts with the event: recorded once the grid is done */
            memcpy(&done[a->id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT ? 0 : 1],
                   a->value.pad, sizeof(CUevent));
            if (a->id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT)   /* event, flags, this */
                memcpy(&at_start, a->value.pad + sizeof(CUevent) + sizeof(int), sizeof at_start);
            break;
        case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
            /* may overlap the previous kernel: running after it is valid; a
             * capture records programmatic edges (zn_capture_programmatic) */
            memcpy(&prog, a->value.pad, sizeof prog);
            break;
        default:
            break;  /* hints (priority, cache policy, ...) change nothing here */
        }
    }
    unsigned g[3] = { cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ };
    unsigned b[3] = { cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ };
    bool coop = false;
    for (unsigned i = 0; i < cfg->numAttrs; i++) {
        if (cfg->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && cfg->attrs[i].value.cooperative) {
            CUresult rc = coop_check(f, g, b, cfg->sharedMemBytes);
            if (rc != CUDA_SUCCESS)
                return rc;
            coop = true;
        }
    }
    zn_stream *ps = prog ? zn_stream_get(cfg->hStream, pt) : NULL;
    if (ps && ps->cap) {
        CUresult rp = zn_capture_programmatic(ps);
        if (rp != CUDA_SUCCESS)
            return rp;
    }
    CUresult r = launch(f, g, b, cfg->sharedMemBytes, cfg->hStream, params, extra, pt, coop,
                        has_cluster ? cluster : NULL);
    for (int i = 0; i < 2 && r == CUDA_SUCCESS; i++)
        if (done[i])
            r = pt ? cuEventRecord_ptsz(done[i], cfg->hStream)
                   : cuEventRecord(done[i], cfg->hStream);
    if (r == CUDA_SUCCESS && done[0])   /* captured: waiters get programmatic edges */
        zn_capture_programmatic_event(done[0], at_start != 0);
    return r;
}

#define LAUNCH_ARGS CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, \
    unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem, CUstream s

#define DIMS const unsigned g[3] = { gx, gy, gz }, b[3] = { bx, by, bz }

CUresult cuLaunchKernel(LAUNCH_ARGS, void **params, void **extra)
{
    DIMS;
    ZN_RET(launch(f, g, b, shmem, s, params, extra, false, false, NULL));
}

CUresult cuLaunchKernel_ptsz(LAUNCH_ARGS, void **params, void **extra)
{
    DIMS;
    ZN_RET(launch(f, g, b, shmem, s, params, extra, true, false, NULL));
}

/* Every block of a grid that fits runs at once (zn_exec_launch_coop), so
 * grid.sync() completes. */
CUresult cuLaunchCooperativeKernel(LAUNCH_ARGS, void **params)
{
    DIMS;
    CUresult r = coop_check(f, g, b, shmem);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    ZN_RET(launch(f, g, b, shmem, s, params, NULL, false, true, NULL));
}

CUresult cuLaunchCooperativeKernel_ptsz(LAUNCH_ARGS, void **params)
{
    DIMS;
    CUresult r = coop_check(f, g, b, shmem);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    ZN_RET(launch(f, g, b, shmem, s, params, NULL, true, true, NULL));
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *cfg, CUfunction f, void **params,
                          void **extra)
{
    ZN_RET(launch_ex(cfg, f, params, extra, false));
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *cfg, CUfunction f, void **params,
                               void **extra)
{
    ZN_RET(launch_ex(cfg, f, params, extra, true));
}

/* The multi-device cooperative launch (deprecated since CUDA 11.3) on a
 * system of one device: one entry, launched as cuLaunchCooperativeKernel
 * on its stream. The two flags only concern waits between devices. */
#define ZN_COOP_MULTI_FLAGS 3u  /* NO_PRE_LAUNCH_SYNC | NO_POST_LAUNCH_SYNC */
CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *list, unsigned int ndev,
                                              unsigned int flags)
{
    ZN_CHECK_INIT();
    if (!list || !ndev || ndev > ZN_NDEVICES || (flags & ~ZN_COOP_MULTI_FLAGS))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    const CUDA_LAUNCH_PARAMS *p = &list[0];
    return cuLaunchCooperativeKernel(p->function, p->gridDimX, p->gridDimY, p->gridDimZ,
                                     p->blockDimX, p->blockDimY, p->blockDimZ,
                                     p->sharedMemBytes, p->hStream, p->kernelParams);
}
