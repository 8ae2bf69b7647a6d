/* zn_drv_func.c: kernel and function handles: attributes, names,
 * parameters, and occupancy answers.
 *
 * A CUkernel and a CUfunction are the same zn_func, so the cuKernel* and
 * cuFunc* families share one implementation. Occupancy on a CPU: an SM is a
 * worker thread, and the per-SM limits are those of the reported compute
 * capability, so the answers agree with the device attributes.
 */
#include "zn_drv.h"
#include "zn_drv_profile.h"
#include "../util/zn_log.h"

#include <string.h>

bool zn_func_valid(const zn_func *f)
{
    return f && f->magic == ZN_MAGIC_FUNC;
}

static CUresult func_get_attr(int *pi, CUfunction_attribute a, const zn_func *f)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!zn_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    const zn_kernel_info *ki = f->ki;
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *pi = ki->max_threads && ki->max_threads < 1024 ? (int)ki->max_threads : 1024;
        break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = (int)ki->shared_declared; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = (int)f->const_bytes; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = (int)ki->local_bytes; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 32; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
        *pi = f->mod->sm ? (int)f->mod->sm : (int)zn_dev_cc();
        break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = (int)zn_dev_cc(); break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = f->max_dyn_shared; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = f->carveout; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:  /* .explicitcluster */
        *pi = ki->explicit_cluster ? 1 : 0;
        break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: {
        /* the kernel's .reqnctapercluster, else what was set (0: none) */
        int d = (int)(a - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
        bool kernel = ki->cluster_dim[0] || ki->cluster_dim[1] || ki->cluster_dim[2];
        *pi = kernel ? (int)(ki->cluster_dim[d] ? ki->cluster_dim[d] : 1) : (int)f->req_cluster[d];
        break;
    }
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = f->cluster_nonportable; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = f->cluster_policy; break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult func_set_attr(zn_func *f, CUfunction_attribute a, int v)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!zn_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (v < 0 || (int64_t)v + f->ki->static_shared > zn_drv_dev.sm->smem_optin)
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dyn_shared = v;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (v < -1 || v > 100)
            return CUDA_ERROR_INVALID_VALUE;
        f->carveout = v;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: {
        /* launches of f use this shape unless they give one (zn_drv_cluster.c);
         * a kernel compiled with a shape keeps it */
        int d = (int)(a - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
        const unsigned *kd = f->ki->cluster_dim;
        if (v < 0 || v > 16 || ((kd[0] || kd[1] || kd[2]) && (unsigned)v != (kd[d] ? kd[d] : 1)))
            return CUDA_ERROR_INVALID_VALUE;
        f->req_cluster[d] = (unsigned)v;
        return CUDA_SUCCESS;
    }
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        if (v != 0 && v != 1)
            return CUDA_ERROR_INVALID_VALUE;
        f->cluster_nonportable = v;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        if (v < 0 || v > 2)     /* DEFAULT, SPREAD, LOAD_BALANCING */
            return CUDA_ERROR_INVALID_VALUE;
        f->cluster_policy = v;  /* a hint: one cluster per team of threads regardless */
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;    /* read-only attributes */
    }
}

static CUresult func_set_cache(zn_func *f, int config)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!zn_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (config < 0 || config > 3)
        return CUDA_ERROR_INVALID_VALUE;
    f->cache_config = config;
    return CUDA_SUCCESS;
}

static CUresult func_name(const char **name, const zn_func *f)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!zn_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    *name = f->name;
    return CUDA_SUCCESS;
}

static CUresult func_param(const zn_func *f, size_t i, size_t *offset, size_t *size)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!zn_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (i >= f->ki->nparams || !offset)     /* paramOffset required, paramSize optional */
        return CUDA_ERROR_INVALID_VALUE;
    *offset = f->ki->param_offset[i];
    if (size)
        *size = f->ki->param_size[i];
    return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute a, CUfunction f)
{
    ZN_RET(func_get_attr(pi, a, f));
}

CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute a, CUkernel k, CUdevice dev)
{
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    ZN_RET(func_get_attr(pi, a, k));
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
    ZN_RET(func_set_attr(f, a, v));
}

CUresult cuKernelSetAttribute(CUfunction_attribute a, int v, CUkernel k, CUdevice dev)
{
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    ZN_RET(func_set_attr(k, a, v));
}

CUresult cuFuncSetCacheConfig(CUfunction f, int config)
{
    ZN_RET(func_set_cache(f, config));
}

CUresult cuKernelSetCacheConfig(CUkernel k, int config, CUdevice dev)
{
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    ZN_RET(func_set_cache(k, config));
}

/* Bank size is fixed on a CPU; any valid choice is accepted. */
CUresult cuFuncSetSharedMemConfig(CUfunction f, int config)
{
    if (!zn_func_valid(f))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    ZN_RET(config >= 0 && config <= 2 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult cuFuncGetName(const char **name, CUfunction f)
{
    ZN_RET(func_name(name, f));
}

CUresult cuKernelGetName(const char **name, CUkernel k)
{
    ZN_RET(func_name(name, k));
}

CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *offset, size_t *size)
{
    ZN_RET(func_param(f, i, offset, size));
}

CUresult cuKernelGetParamInfo(CUkernel k, size_t i, size_t *offset, size_t *size)
{
    ZN_RET(func_param(k, i, offset, size));
}

CUresult cuKernelGetFunction(CUfunction *f, CUkernel k)
{
    ZN_CHECK_INIT();
    if (!zn_func_valid(k))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!f)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *f = k;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuFuncGetModule(CUmodule *mod, CUfunction f)
{
    ZN_CHECK_INIT();
    if (!zn_func_valid(f))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!mod)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *mod = f->mod;
    ZN_RET(CUDA_SUCCESS);
}

/* Lazy loading (CUDA_MODULE_LOADING=LAZY, Zinc's default): a kernel is
 * compiled on its first launch; cuFuncLoad compiles it now. */
CUresult cuFuncLoad(CUfunction f)
{
    ZN_CHECK_INIT();
    if (!zn_func_valid(f))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    ZN_RET(zn_func_ready(f));
}

CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction f)
{
    ZN_CHECK_INIT();
    if (!state)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!zn_func_valid(f))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    bool loaded = f->jit ? zn_jit_kernel_loaded(f->jit, f->ki) : f->ki && f->ki->fn;
    *state = loaded ? CU_FUNCTION_LOADING_STATE_LOADED : CU_FUNCTION_LOADING_STATE_UNLOADED;
    ZN_RET(CUDA_SUCCESS);
}

/* ---- occupancy ---- */

static int func_max_threads(const zn_func *f)
{
    int m = (int)f->ki->max_threads;
    return m > 0 && m < 1024 ? m : 1024;
}

/* Blocks of bs threads using dsmem dynamic shared bytes that fit one SM. */
static int blocks_per_sm(const zn_func *f, int bs, size_t dsmem)
{
    const zn_sm_limits *sm = zn_drv_dev.sm;
    if (bs <= 0 || bs > func_max_threads(f))
        return 0;
    int warps = (bs + 31) / 32;
    int n = sm->threads_per_sm / (warps * 32);
    if (n > sm->blocks_per_sm)
        n = sm->blocks_per_sm;
    /* every block also holds the GPU's reserved shared bytes */
    size_t smem = ZN_SMEM_RESERVED + f->ki->static_shared + dsmem;
    {
        size_t by_smem = (size_t)sm->smem_per_sm / smem;
        if (by_smem < (size_t)n)
            n = (int)by_smem;
    }
    return n;
}

uint64_t zn_func_coresident_blocks(const zn_func *f, uint64_t threads, size_t dsmem)
{
    if (threads == 0 || threads > 1024)
        return 0;
    return (uint64_t)blocks_per_sm(f, (int)threads, dsmem) * (uint64_t)zn_drv_dev.sm_count;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, CUfunction f, int bs,
                                                              size_t dsmem, unsigned int flags)
{
    ZN_CHECK_INIT();
    if (!zn_func_valid(f))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!n || flags > 1)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *n = blocks_per_sm(f, bs, dsmem);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int bs,
                                                     size_t dsmem)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, bs, dsmem, 0);
}

/* The block size (a multiple of the warp size) with the most resident
 * threads per SM; ties go to the larger block. */
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *bs, CUfunction f,
    CUoccupancyB2DSize b2d, size_t dsmem, int limit, unsigned int flags)
{
    ZN_CHECK_INIT();
    if (!zn_func_valid(f))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!min_grid || !bs || flags > 1)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    int maxbs = func_max_threads(f);
    if (limit > 0 && limit < maxbs)
        maxbs = limit;
    int best_bs = 0, best_blocks = 0, best_threads = 0;
    for (int b = 32; b <= maxbs; b += 32) {
        size_t ds = b2d ? b2d(b) : dsmem;
        int nb = blocks_per_sm(f, b, ds);
        if (nb > 0 && nb * b >= best_threads) {
            best_threads = nb * b;
            best_bs = b;
            best_blocks = nb;
        }
    }
    if (!best_bs) {     /* even one warp does not fit */
        *bs = 0;
        *min_grid = 0;
        ZN_RET(CUDA_SUCCESS);
    }
    *bs = best_bs;
    *min_grid = best_blocks * zn_drv_dev.sm_count;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *bs, CUfunction f,
                                          CUoccupancyB2DSize b2d, size_t dsmem, int limit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, bs, f, b2d, dsmem, limit, 0);
}

CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dsmem, CUfunction f, int nblocks,
                                                 int bs)
{
    ZN_CHECK_INIT();
    if (!zn_func_valid(f))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!dsmem || nblocks <= 0 || bs <= 0 || bs > func_max_threads(f))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (blocks_per_sm(f, bs, 0) < nblocks) {
        *dsmem = 0;
        ZN_RET(CUDA_SUCCESS);
    }
    const zn_sm_limits *sm = zn_drv_dev.sm;
    size_t per_block = (size_t)sm->smem_per_sm / (size_t)nblocks;
    per_block = per_block > ZN_SMEM_RESERVED ? per_block - ZN_SMEM_RESERVED : 0;
    if (per_block > (size_t)sm->smem_optin)
        per_block = (size_t)sm->smem_optin;
    size_t st = f->ki->static_shared;
    *dsmem = per_block > st ? per_block - st : 0;
    ZN_RET(CUDA_SUCCESS);
}

CUresult zn_func_code(const zn_func *f, const unsigned block[3], zn_kernel_code *code)
{
    if (!f->ki)
        return CUDA_ERROR_INVALID_VALUE;
    zn_kernel_code c = {f->ki->fn, f->ki->batch, f->ki->start};
    if (f->jit) {
        char err[4096];
        double t0 = zn_prof_on() ? zn_prof_now() : 0;
        int rc = zn_jit_kernel_code(f->jit, f->ki, block, &c, err, sizeof err);
        if (rc < 0) {
            zn_log(ZN_LOG_ERROR, "PTX compile error in kernel %s: %s", f->name, err);
            return CUDA_ERROR_INVALID_PTX;
        }
        if (rc > 0 && t0)
            zn_prof_compile_kernel(f->name, zn_prof_now() - t0);
    }
    if (!c.fn)
        return CUDA_ERROR_INVALID_VALUE;
    if (code)
        *code = c;
    return CUDA_SUCCESS;
}
