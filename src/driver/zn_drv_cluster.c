/* zn_drv_cluster.c: thread block clusters (sm_90): the cluster shape of a
 * launch and the cluster occupancy queries.
 *
 * Where a launch's cluster shape comes from, first match wins: the
 * CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION of cuLaunchKernelEx (or a kernel
 * node's attribute), the function's REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH,
 * the kernel's .reqnctapercluster (__cluster_dims__). A kernel compiled
 * with a shape, or a function given one, accepts a launch attribute only
 * of that shape. A cooperative launch with clusters is refused
 * (CUDA_ERROR_NOT_SUPPORTED: its blocks would need both executors). The grid
 * must be a multiple of the shape and a cluster at most 8 blocks (16 with
 * NON_PORTABLE_CLUSTER_SIZE_ALLOWED), else CUDA_ERROR_INVALID_CLUSTER_SIZE,
 * NVIDIA's error for a cluster misconfiguration.
 *
 * Occupancy: an SM is a worker thread with the per-SM limits of the
 * reported compute capability (zn_drv_func.c), so the clusters that can be
 * resident at once are the co-resident blocks (SMs x blocks per SM)
 * divided by the cluster size; the executor runs them on a team of
 * threads per cluster (src/exec/zn_exec_cluster.c).
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <string.h>

#define CLUSTER_PORTABLE 8
#define CLUSTER_NONPORTABLE 16

static bool dims_set(const unsigned *d)
{
    return d && (d[0] || d[1] || d[2]);
}

static unsigned dim1(unsigned v)
{
    return v ? v : 1;
}

CUresult zn_cluster_resolve(const zn_func *f, const unsigned g[3], const unsigned *attr,
                            bool need_shape, unsigned out[3], bool *explicit_cluster)
{
    const zn_kernel_info *ki = f->ki;
    const unsigned *src = NULL;
    bool kernel_has = dims_set(ki->cluster_dim);
    /* a required shape (compiled in, or set on the function) admits only
     * launch attributes of that shape */
    const unsigned *req = kernel_has ? ki->cluster_dim : dims_set(f->req_cluster) ? f->req_cluster
                                                                                 : NULL;
    if (dims_set(attr)) {
        if (req)
            for (int d = 0; d < 3; d++)
                if (dim1(attr[d]) != dim1(req[d])) {
                    zn_log(ZN_LOG_WARN, "launch of %s: cluster (%u,%u,%u) but the function "
                           "requires (%u,%u,%u)", f->name, attr[0], attr[1], attr[2],
                           req[0], req[1], req[2]);
                    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
                }
        src = attr;
    } else if (dims_set(f->req_cluster)) {
        src = f->req_cluster;
    } else if (kernel_has) {
        src = ki->cluster_dim;
    }
    if (!src && ki->explicit_cluster && need_shape) {
        /* .explicitcluster: launches must name a shape (CLUSTER_SIZE_MUST_BE_SET) */
        zn_log(ZN_LOG_WARN, "launch of %s: the kernel must be launched with a cluster shape",
               f->name);
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    }
    uint64_t size = 1;
    for (int d = 0; d < 3; d++) {
        out[d] = src ? dim1(src[d]) : 1;
        size *= out[d];
    }
    if (explicit_cluster)
        *explicit_cluster = src != NULL;
    uint64_t max = f->cluster_nonportable ? CLUSTER_NONPORTABLE : CLUSTER_PORTABLE;
    if (ki->max_cluster_rank && ki->max_cluster_rank < max)
        max = ki->max_cluster_rank;
    bool multiple = g[0] % out[0] == 0 && g[1] % out[1] == 0 && g[2] % out[2] == 0;
    if (size > max || !multiple) {
        zn_log(ZN_LOG_WARN, "launch of %s: cluster (%u,%u,%u) %s", f->name, out[0], out[1],
               out[2], size > max ? "is larger than the device allows"
                                  : "does not divide the grid");
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    }
    return CUDA_SUCCESS;
}

/* The cluster shape a config asks for (its attribute or the function's). */
static CUresult config_cluster(const CUlaunchConfig *cfg, const zn_func *f, unsigned cd[3],
                               bool *given)
{
    if (!cfg || (cfg->numAttrs && !cfg->attrs))
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned *attr = NULL;
    unsigned a[3];
    for (unsigned i = 0; i < cfg->numAttrs; i++)
        if (cfg->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            a[0] = cfg->attrs[i].value.clusterDim.x;
            a[1] = cfg->attrs[i].value.clusterDim.y;
            a[2] = cfg->attrs[i].value.clusterDim.z;
            attr = a;
        }
    *given = dims_set(attr) || dims_set(f->req_cluster) || dims_set(f->ki->cluster_dim);
    /* the grid does not matter here: check the shape against itself */
    unsigned g[3];
    const unsigned *src = dims_set(attr) ? attr : dims_set(f->req_cluster) ? f->req_cluster
                                                                         : f->ki->cluster_dim;
    for (int d = 0; d < 3; d++)
        g[d] = dim1(src[d]);
    return zn_cluster_resolve(f, g, attr, false, cd, NULL);
}

static uint64_t config_threads(const CUlaunchConfig *cfg)
{
    return (uint64_t)cfg->blockDimX * cfg->blockDimY * cfg->blockDimZ;
}

CUresult cuOccupancyMaxActiveClusters(int *num, CUfunction f, const CUlaunchConfig *cfg)
{
    ZN_CHECK_INIT();
    if (!zn_func_valid(f) || !f->ki)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!num || !cfg)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    unsigned cd[3];
    bool given;
    CUresult r = config_cluster(cfg, f, cd, &given);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    if (!given)     /* CUDA: the cluster size must come from somewhere */
        ZN_RET(CUDA_ERROR_INVALID_CLUSTER_SIZE);
    uint64_t threads = config_threads(cfg);
    if (threads == 0 || threads > 1024)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    uint64_t blocks = zn_func_coresident_blocks(f, threads, cfg->sharedMemBytes);
    uint64_t n = blocks / ((uint64_t)cd[0] * cd[1] * cd[2]);
    *num = n > INT32_MAX ? INT32_MAX : (int)n;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuOccupancyMaxPotentialClusterSize(int *size, CUfunction f, const CUlaunchConfig *cfg)
{
    ZN_CHECK_INIT();
    if (!zn_func_valid(f) || !f->ki)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!size || !cfg || (cfg->numAttrs && !cfg->attrs))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    uint64_t threads = config_threads(cfg);
    if (threads == 0 || threads > 1024)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    const zn_kernel_info *ki = f->ki;
    if (dims_set(ki->cluster_dim)) {    /* compiled with a shape: that one */
        *size = (int)(dim1(ki->cluster_dim[0]) * dim1(ki->cluster_dim[1]) *
                      dim1(ki->cluster_dim[2]));
        ZN_RET(CUDA_SUCCESS);
    }
    /* the largest cluster whose blocks are co-resident, within the limit */
    uint64_t max = f->cluster_nonportable ? CLUSTER_NONPORTABLE : CLUSTER_PORTABLE;
    if (ki->max_cluster_rank && ki->max_cluster_rank < max)
        max = ki->max_cluster_rank;
    uint64_t blocks = zn_func_coresident_blocks(f, threads, cfg->sharedMemBytes);
    *size = (int)(blocks < max ? blocks : max);
    ZN_RET(CUDA_SUCCESS);
}
