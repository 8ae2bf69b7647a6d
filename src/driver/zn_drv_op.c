/* zn_drv_op.c: operations, the unit of work that streams queue and graph
 * nodes hold.
 *
 * An op is self-contained: a kernel op carries its packed parameters, a
 * staged copy its source bytes, so it can run later on a stream's thread
 * (or be cloned from a graph node at each launch). zn_op_run does the
 * work; once the context has a sticky error, device work (kernels, copies,
 * sets) is skipped as on a faulted GPU, while host functions still run.
 */
#include "zn_drv.h"
#include "zn_drv_profile.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

zn_op *zn_op_new(zn_op_kind kind, size_t extra)
{
    zn_op *op = calloc(1, sizeof *op + extra);
    if (op) {
        op->kind = kind;
        op->extra = extra;
    }
    return op;
}

zn_op *zn_op_clone(const zn_op *op)
{
    zn_op *c = malloc(sizeof *op + op->extra);
    if (c)
        memcpy(c, op, sizeof *op + op->extra);
    return c;
}

void zn_op_run_kernel(zn_op *op, unsigned depth)
{
    const zn_kernel_info *ki = op->u.k.f->ki;
    /* the code for this block shape: compiled at the launch, or now when
     * a graph's node was given another shape since */
    zn_kernel_code code;
    CUresult r = zn_func_code(op->u.k.f, op->u.k.b, &code);
    if (r != CUDA_SUCCESS) {
        zn_ctx_set_sticky(op->ctx, r);
        return;
    }
    zn_launch l = {
        .fn = code.fn,
        .batch = code.batch,
        .start = code.start,
        .grid = { op->u.k.g[0], op->u.k.g[1], op->u.k.g[2] },
        .block = { op->u.k.b[0], op->u.k.b[1], op->u.k.b[2] },
        .static_shared = ki->static_shared,
        .dyn_shared = op->u.k.shmem,
        .stack_bytes = ki->stack_bytes,
        .uses_barrier = ki->uses_barrier,
        .polls = ki->polls,
        .params = op->data,
        .abort = &op->ctx->sticky,  /* another grid's fault stops this one */
        .cluster = { op->u.k.cl[0], op->u.k.cl[1], op->u.k.cl[2] },
        .cluster_explicit = op->u.k.cl_explicit,
        .max_workers = op->ctx->sm_limit,
        .heap = &op->ctx->heap,
    };
    zn_cdp_list cdp;    /* the grids it launches itself (zn_drv_cdp.c) */
    zn_cdp_list_init(&cdp, depth, zn_cdp_check, zn_cdp_query, op);
    l.cdp = &cdp;
    double t0 = zn_prof_on() ? zn_prof_now() : 0;
    /* cooperative grids run every block at once (grid.sync) */
    int st = op->u.k.coop ? zn_exec_launch_coop(&l) : zn_exec_launch(&l);
    if (t0)
        zn_prof_launch(op->u.k.f->name, zn_prof_now() - t0);
    if (st != ZN_KSTATUS_OK && st != ZN_KSTATUS_ABORTED) /* aborted: already sticky */
        zn_ctx_set_sticky(op->ctx, zn_kstatus_error(st));
    else if (st == ZN_KSTATUS_OK && cdp.head)
        zn_cdp_run(op, &cdp);
    zn_cdp_list_fini(&cdp);
}

static void run_copy(zn_op *op)
{
    if (op->u.cp.ssp || op->u.cp.dsp) { /* a sparse array side: by tiles */
        zn_sparse_copy(op);
        return;
    }
    for (size_t z = 0; z < op->u.cp.d; z++)
        for (size_t y = 0; y < op->u.cp.h; y++)
            memmove(op->u.cp.dst + z * op->u.cp.dslice + y * op->u.cp.dpitch,
                    op->u.cp.src + z * op->u.cp.sslice + y * op->u.cp.spitch, op->u.cp.w);
}

static void run_set(zn_op *op)
{
    uint32_t v = op->u.set.v;
    for (size_t y = 0; y < op->u.set.h; y++) {
        char *row = op->u.set.dst + y * op->u.set.pitch;
        size_t w = op->u.set.w;
        if (op->u.set.elem == 1) {
            memset(row, (int)(v & 0xff), w);
        } else if (op->u.set.elem == 2) {
            uint16_t x = (uint16_t)v;
            for (size_t i = 0; i < w; i++)
                memcpy(row + 2 * i, &x, 2);
        } else {
            for (size_t i = 0; i < w; i++)
                memcpy(row + 4 * i, &v, 4);
        }
    }
}

static bool value_reached(const zn_op *op)
{
    uint64_t have = op->u.val.bits == 64
        ? __atomic_load_n((uint64_t *)op->u.val.addr, __ATOMIC_ACQUIRE)
        : __atomic_load_n((uint32_t *)op->u.val.addr, __ATOMIC_ACQUIRE);
    uint64_t want = op->u.val.v;
    switch (op->u.val.flags & 3) {
    case ZN_CU_STREAM_WAIT_VALUE_GEQ:   /* wrapping compare, as CUDA defines it */
        return op->u.val.bits == 64 ? (int64_t)(have - want) >= 0
                                    : (int32_t)(uint32_t)(have - want) >= 0;
    case ZN_CU_STREAM_WAIT_VALUE_EQ:
        return have == want;
    case ZN_CU_STREAM_WAIT_VALUE_AND:
        return (have & want) != 0;
    default: {  /* NOR */
        uint64_t x = ~(have | want);
        return (op->u.val.bits == 64 ? x : (uint32_t)x) != 0;
    }
    }
}

/* The value is written by another stream or the host: poll, backing off
 * from yields to short sleeps. */
static void run_wait_value(zn_op *op)
{
    for (unsigned i = 0; !value_reached(op); i++) {
        if (i < 1000) {
            sched_yield();
        } else {
            struct timespec ts = { 0, 50000 };
            nanosleep(&ts, NULL);
        }
    }
}

void zn_op_run(zn_op *op)
{
    bool faulted = atomic_load(&op->ctx->sticky) != CUDA_SUCCESS;
    switch (op->kind) {
    case ZN_OP_EMPTY:
    case ZN_OP_EVENT_WAIT:      /* resolved into QUEUE_WAIT at submission */
        break;
    case ZN_OP_KERNEL:
        if (!faulted)
            zn_op_run_kernel(op, 0);
        break;
    case ZN_OP_COPY:
        if (!faulted)
            run_copy(op);
        break;
    case ZN_OP_SET:
        if (!faulted)
            run_set(op);
        break;
    case ZN_OP_HOST:
        op->u.host.fn(op->u.host.user);
        break;
    case ZN_OP_CALLBACK:
        op->u.cb.cb(op->u.cb.handle, (CUresult)atomic_load(&op->ctx->sticky), op->u.cb.user);
        break;
    case ZN_OP_EVENT_RECORD: {
        zn_event *e = op->u.ev.e;
        /* a later record of the same event owns the timestamp */
        if (atomic_load(&e->gen) == op->u.ev.gen)
            atomic_store(&e->ns, zn_now_ns());
        break;
    }
    case ZN_OP_QUEUE_WAIT:
        zn_queue_wait(op->u.qw.q, op->u.qw.ticket, true);
        break;
    case ZN_OP_WAIT_VALUE:
        run_wait_value(op);
        break;
    case ZN_OP_WRITE_VALUE:
        if (op->u.val.bits == 64)
            __atomic_store_n((uint64_t *)op->u.val.addr, op->u.val.v, __ATOMIC_SEQ_CST);
        else
            __atomic_store_n((uint32_t *)op->u.val.addr, (uint32_t)op->u.val.v,
                             __ATOMIC_SEQ_CST);
        break;
    }
}
