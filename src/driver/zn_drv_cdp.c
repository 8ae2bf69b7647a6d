/* zn_drv_cdp.c: the driver's side of device-side launches (dynamic
 * parallelism; the executor's side is zn_exec_cdp.c).
 *
 * A kernel names the kernel it launches by its name (zn_lower_operand.c),
 * which is looked up in the launching kernel's module; the launch is
 * checked there and then, as the device runtime does (a bad configuration
 * is the launching thread's cudaErrorInvalidConfiguration). When the
 * grid has finished, its work runs in launch order on the same thread,
 * each child grid with its own children after it (depth first: a grid is
 * complete only once its children are), while the context is not faulted.
 */
#define _GNU_SOURCE     /* process_vm_readv */
#include "zn_drv.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

enum { ERR_INVALID_VALUE = 1, ERR_INVALID_CONFIGURATION = 9, ERR_INVALID_FUNCTION = 98,
       ERR_INVALID_DEVICE = 101, ERR_UNSUPPORTED_LIMIT = 215 };

static zn_func *func_named(zn_module *m, const char *name)
{
    for (unsigned i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].name && !strcmp(m->funcs[i].name, name))
            return &m->funcs[i];
    return NULL;
}

int zn_cdp_check(void *host, const char *func, const uint32_t *grid, const uint32_t *block,
                 uint32_t shmem)
{
    zn_func *f = func_named(((zn_op *)host)->u.k.f->mod, func);
    if (!f || !f->ki || zn_func_code(f, block, NULL) != CUDA_SUCCESS) {
        zn_log(ZN_LOG_WARN, "device-side launch of %s: no such kernel in the module", func);
        return ERR_INVALID_FUNCTION;
    }
    if (f->ki->param_bytes > ZN_CDP_PARAM_BYTES) {
        zn_log(ZN_LOG_WARN, "device-side launch of %s: %u bytes of parameters (at most %u)",
               func, f->ki->param_bytes, ZN_CDP_PARAM_BYTES);
        return ERR_INVALID_VALUE;
    }
    if (zn_launch_check(f, grid, block, shmem) != CUDA_SUCCESS) {
        zn_log(ZN_LOG_WARN, "device-side launch of %s: invalid configuration grid (%u,%u,%u) "
               "block (%u,%u,%u) dynamic shared %u", func, grid[0], grid[1], grid[2],
               block[0], block[1], block[2], shmem);
        return ERR_INVALID_CONFIGURATION;
    }
    return 0;
}

/* cudaFuncAttributes (driver_types.h), filled from cuFuncGetAttribute's
 * answers in the order of CUfunction_attribute 0-15 */
typedef struct func_attrs {
    size_t shared, constant, local;
    int max_threads, regs, ptx_version, binary_version, cache_ca, max_dyn_shared, carveout,
        cluster_must_be_set, cluster[3], cluster_policy, cluster_nonportable;
    int reserved[16];
} func_attrs;

static int func_attributes(zn_func *f, func_attrs *out)
{
    int v[16];
    for (int a = 0; a < 16; a++)
        if (cuFuncGetAttribute(&v[a], (CUfunction_attribute)a, f) != CUDA_SUCCESS)
            return ERR_INVALID_VALUE;
    func_attrs fa = {
        .max_threads = v[0], .shared = (size_t)v[1], .constant = (size_t)v[2],
        .local = (size_t)v[3], .regs = v[4], .ptx_version = v[5], .binary_version = v[6],
        .cache_ca = v[7], .max_dyn_shared = v[8], .carveout = v[9],
        .cluster_must_be_set = v[10], .cluster = { v[11], v[12], v[13] },
        .cluster_nonportable = v[14], .cluster_policy = v[15],
    };
    memcpy(out, &fa, sizeof fa);
    return 0;
}

int zn_cdp_query(void *host, uint32_t what, const uint64_t *a)
{
    const zn_op *op = host;
    void *out = (void *)(uintptr_t)a[0];
    int v = 0;
    switch (what) {
    case ZN_CDP_DEVICE_ATTRIBUTE:
        if ((int)a[2] != 0)
            return ERR_INVALID_DEVICE;
        if (zn_dev_attr(&v, (int)a[1]) != CUDA_SUCCESS)
            return ERR_INVALID_VALUE;
        break;
    case ZN_CDP_FUNC_ATTRIBUTES:
    case ZN_CDP_OCCUPANCY: {
        /* the function: the address of its name (zn_lower_operand.c) */
        const char *name = (const char *)(uintptr_t)a[1];
        zn_func *f = name ? func_named(op->u.k.f->mod, name) : NULL;
        if (!f || !f->ki)
            return ERR_INVALID_FUNCTION;
        if (what == ZN_CDP_FUNC_ATTRIBUTES)
            return func_attributes(f, out);
        if (cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&v, f, (int)a[2], a[3], 0) !=
            CUDA_SUCCESS)
            return ERR_INVALID_VALUE;
        break;
    }
    case ZN_CDP_DEVICE_LIMIT: {
        /* cudaLimit 0-6 are CUlimit's numbers */
        if (a[1] > 6)
            return ERR_UNSUPPORTED_LIMIT;
        size_t limit = op->ctx->limits[a[1]];
        memcpy(out, &limit, sizeof limit);
        return 0;
    }
    case ZN_CDP_CACHE_CONFIG:
        v = op->ctx->cache_config;
        break;
    case ZN_CDP_SHMEM_CONFIG:
        v = 1;  /* four-byte banks, fixed: as cuCtxGetSharedMemConfig answers */
        break;
    default:
        return ERR_INVALID_VALUE;
    }
    memcpy(out, &v, sizeof v);
    return 0;
}

/* Whether every page of [p, p + n) can be read, asked of the kernel (a
 * read through process_vm_readv fails with EFAULT instead of faulting). */
static bool pages_readable(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, end = a + n;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (end < a)
        return false;
    char sink[64];
    struct iovec local[64], remote[64];
    for (uintptr_t page = a & ~(pg - 1); page < end;) {
        int k = 0;
        for (; k < 64 && page < end; k++, page += pg) {
            local[k] = (struct iovec){ &sink[k], 1 };
            remote[k] = (struct iovec){ (void *)(page < a ? a : page), 1 };
        }
        if (process_vm_readv(getpid(), local, (unsigned long)k, remote, (unsigned long)k, 0) != k)
            return false;
    }
    return true;
}

/* d slices of h rows of n bytes from p (pitch, slice apart): device
 * memory of live allocations (module variables, mapped ranges), or host
 * memory that is there (registered, pinned, or the device heap of
 * in-kernel cudaMalloc, which is plain host memory); never a freed or
 * unallocated device address or an unmapped one */
static bool region_ok(const void *p, size_t n, size_t h, size_t d, size_t pitch, size_t slice)
{
    if (!n || !h || !d)
        return true;
    size_t span = (d - 1) * slice + (h - 1) * pitch + n;
    if (zn_mem_range_ok((CUdeviceptr)(uintptr_t)p, span))
        return true;
    return !zn_mem_in_device_range(p) && pages_readable(p, span);
}

/* A queued device-side copy or set; false when an address is bad. */
static bool run_region(const zn_cdp_work *x)
{
    const zn_cdp_region *r = &x->r;
    bool copy = x->kind == ZN_CDP_WORK_COPY;
    if (!region_ok(r->dst, r->n, r->h, r->d, r->dpitch, r->dslice) ||
        (copy && !region_ok(r->src, r->n, r->h, r->d, r->spitch, r->sslice))) {
        zn_log(ZN_LOG_ERROR, "device-side %s of %zu x %zu x %zu bytes: %p%s%p is not memory "
               "a kernel may access: CUDA_ERROR_ILLEGAL_ADDRESS", copy ? "memcpy" : "memset",
               r->n, r->h, r->d, r->dst, copy ? " <- " : "", copy ? r->src : (const void *)"");
        return false;
    }
    for (size_t z = 0; z < r->d; z++)
        for (size_t y = 0; y < r->h; y++) {
            char *dst = (char *)r->dst + z * r->dslice + y * r->dpitch;
            if (copy)
                memmove(dst, (const char *)r->src + z * r->sslice + y * r->spitch, r->n);
            else
                memset(dst, x->byte, r->n);
        }
    return true;
}

static void run_child(const zn_op *parent, const zn_cdp_work *x, unsigned depth)
{
    zn_func *f = func_named(parent->u.k.f->mod, x->func);   /* checked at launch */
    zn_op *op = zn_op_new(ZN_OP_KERNEL, f->ki->param_bytes);
    if (!op) {
        zn_ctx_set_sticky(parent->ctx, CUDA_ERROR_OUT_OF_MEMORY);
        return;
    }
    memcpy(op->data, x->params, f->ki->param_bytes);
    op->ctx = parent->ctx;
    op->u.k.f = f;
    memcpy(op->u.k.g, x->grid, sizeof op->u.k.g);
    memcpy(op->u.k.b, x->block, sizeof op->u.k.b);
    op->u.k.shmem = x->shmem;
    if (zn_cluster_resolve(f, op->u.k.g, NULL, false, op->u.k.cl,
                           &op->u.k.cl_explicit) != CUDA_SUCCESS) {
        zn_log(ZN_LOG_WARN, "device-side launch of %s: its cluster shape does not fit the "
               "grid", f->name);
        zn_ctx_set_sticky(parent->ctx, CUDA_ERROR_LAUNCH_FAILED);
    } else {
        zn_log(ZN_LOG_INFO, "device-side launch %s grid (%u,%u,%u) block (%u,%u,%u) "
               "shared %u+%u, depth %u", f->name, x->grid[0], x->grid[1], x->grid[2],
               x->block[0], x->block[1], x->block[2], f->ki->static_shared, x->shmem, depth);
        zn_op_run_kernel(op, depth);
    }
    free(op);
}

void zn_cdp_run(const zn_op *parent, zn_cdp_list *q)
{
    for (const zn_cdp_work *x = q->head; x; x = x->next) {
        if (atomic_load(&parent->ctx->sticky) != CUDA_SUCCESS)
            return;     /* a faulted context runs no more device work */
        if (x->kind == ZN_CDP_WORK_KERNEL)
            run_child(parent, x, q->depth + 1);
        else if (!run_region(x))
            zn_ctx_set_sticky(parent->ctx, CUDA_ERROR_ILLEGAL_ADDRESS);
    }
}
