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
#include "zn_drv.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

enum { ERR_INVALID_VALUE = 1, ERR_INVALID_CONFIGURATION = 9, ERR_INVALID_FUNCTION = 98,
       ERR_INVALID_DEVICE = 101 };

static zn_func *func_named(zn_module *m, const char *name)
{
    for (unsigned i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].name && !strcmp(m->funcs[i].name, name))
            return &m->funcs[i];
    return NULL;
}

int zn_cdp_check(void *mod, const char *func, const uint32_t *grid, const uint32_t *block,
                 uint32_t shmem)
{
    zn_func *f = func_named(mod, func);
    if (!f || !f->ki || zn_func_ready(f) != CUDA_SUCCESS) {
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

int zn_cdp_attribute(int attr, int device, int *value)
{
    if (device != 0)
        return ERR_INVALID_DEVICE;
    return zn_dev_attr(value, attr) == CUDA_SUCCESS ? 0 : ERR_INVALID_VALUE;
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
        else if (x->kind == ZN_CDP_WORK_COPY)
            memmove(x->dst, x->src, x->n);
        else
            memset(x->dst, x->byte, x->n);
    }
}
