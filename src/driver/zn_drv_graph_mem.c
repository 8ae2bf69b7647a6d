/* zn_drv_graph_mem.c: graph memory nodes (cuGraphAddMemAllocNode,
 * cuGraphAddMemFreeNode, their stream-captured forms from cuMemAllocAsync
 * and cuMemFreeAsync) and the device's graph-memory attributes.
 *
 * An allocation node allocates its memory when it is created, so its
 * address is fixed for every instantiation and launch, as CUDA promises
 * (CUDA maps physical pages at the alloc node; on a CPU the pages are there
 * all along, so memcheck does not flag a use outside the alloc-free window).
 * The block (a zn_gmem) is owned through a user object: every graph whose
 * nodes name it holds a reference, so instantiations and launches in flight
 * keep it too (zn_drv_userobj.c). Its memory is given back when the last
 * reference goes, unless a launch left it allocated (no free node ran yet):
 * then it lives until cuMemFree/cuMemFreeAsync frees it, as in CUDA.
 *
 * State, in stream order as the host sees it: a launch marks the blocks its
 * alloc nodes allocate (`live`) and clears those its free nodes free; a
 * relaunch while one of its allocations is still live is
 * CUDA_ERROR_INVALID_VALUE (unless instantiated with AUTO_FREE_ON_LAUNCH).
 * CUDA's restrictions on such graphs are enforced: no clone, no child use
 * (except moved in with cuGraphAddNode), one instantiation at a time, no
 * node or edge removal (zn_drv_graph.c).
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

#define ZN_CU_USER_OBJECT_NO_DESTRUCTOR_SYNC 1u

typedef struct zn_gmem {
    void *p;
    size_t size;
    CUDA_MEM_ALLOC_NODE_PARAMS params;  /* as given, dptr filled */
    CUmemAccessDesc access[1];          /* params.accessDescs points here */
    CUuserObject obj;                   /* its owner references */
    const zn_gexec *exec;               /* the one instantiation of its graph */
    bool live;                          /* allocated by a launch, not yet freed */
    bool orphan;                        /* no references left, still live */
    struct zn_gmem *next;
} zn_gmem;

static pthread_mutex_t gmem_lock = PTHREAD_MUTEX_INITIALIZER;
static zn_gmem *gmem_list;
static uint64_t reserved_now, reserved_high, used_now, used_high;

static void count(int64_t reserved, int64_t used)
{
    reserved_now += (uint64_t)reserved;
    used_now += (uint64_t)used;
    if (reserved_now > reserved_high)
        reserved_high = reserved_now;
    if (used_now > used_high)
        used_high = used_now;
}

/* Called with gmem_lock held. */
static void release_block(zn_gmem *m)
{
    zn_gmem **pp = &gmem_list;
    while (*pp && *pp != m)
        pp = &(*pp)->next;
    if (*pp)
        *pp = m->next;
    count(-(int64_t)m->size, 0);
    zn_mem_free(m->p);
    free(m);
}

/* The user object's destructor: the last graph, instantiation or launch
 * that names the block is gone. */
static void gmem_unref(void *p)
{
    zn_gmem *m = p;
    pthread_mutex_lock(&gmem_lock);
    if (m->live)
        m->orphan = true;       /* freed later by cuMemFree(Async) */
    else
        release_block(m);
    pthread_mutex_unlock(&gmem_lock);
}

zn_gmem *zn_gmem_find(CUdeviceptr p)
{
    pthread_mutex_lock(&gmem_lock);
    zn_gmem *m = gmem_list;
    while (m && (CUdeviceptr)(uintptr_t)m->p != p)
        m = m->next;
    pthread_mutex_unlock(&gmem_lock);
    return m;
}

bool zn_graph_has_mem(const zn_graph *g)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i]->mem || (g->nodes[i]->child && zn_graph_has_mem(g->nodes[i]->child)))
            return true;
    return false;
}

/* g holds one reference to m's user object. */
static CUresult graph_hold(zn_graph *g, zn_gmem *m)
{
    for (size_t i = 0; i < g->uobjs.n; i++)
        if (g->uobjs.v[i].obj == (struct zn_uobj *)m->obj)
            return CUDA_SUCCESS;
    zn_uobj_retain((struct zn_uobj *)m->obj, 1);
    if (!zn_uobj_set_add(&g->uobjs, (struct zn_uobj *)m->obj, 1)) {
        zn_uobj_release((struct zn_uobj *)m->obj, 1);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    return CUDA_SUCCESS;
}

/* The ops of memory nodes run nothing on the stream: the state changes
 * happen at launch (zn_gmem_launch), the memory exists all along. Two
 * functions, so that an executable graph's ops say which they are (child
 * graphs moved in with cuGraphAddNode are flattened without their nodes). */
static void gmem_alloc_run(void *p)
{
    (void)p;
}

static void gmem_free_run(void *p)
{
    (void)p;
}

/* The block of a memory node's op, or NULL; *alloc: an alloc node's. */
zn_gmem *zn_gmem_of_op(const zn_op *op, bool *alloc)
{
    if (op->kind != ZN_OP_HOST ||
        (op->u.host.fn != gmem_alloc_run && op->u.host.fn != gmem_free_run))
        return NULL;
    if (alloc)
        *alloc = op->u.host.fn == gmem_alloc_run;
    return op->u.host.user;
}

static CUresult check_params(const CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    if (!p || !p->bytesize)
        return CUDA_ERROR_INVALID_VALUE;
    const CUmemPoolProps *pp = &p->poolProps;
    if (pp->allocType != ZN_CU_MEM_ALLOCATION_TYPE_PINNED || pp->handleTypes != 0 ||
        pp->location.type != ZN_CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    if (pp->location.id != 0)   /* no such device: INVALID_VALUE, as NVIDIA's driver */
        return CUDA_ERROR_INVALID_VALUE;
    /* one device: at most one access descriptor, for device 0 */
    if (p->accessDescCount > 1 || (p->accessDescCount && !p->accessDescs))
        return CUDA_ERROR_INVALID_VALUE;
    if (p->accessDescCount && (p->accessDescs[0].location.type != ZN_CU_MEM_LOCATION_TYPE_DEVICE ||
                               p->accessDescs[0].location.id != 0))
        return CUDA_ERROR_INVALID_DEVICE;
    return CUDA_SUCCESS;
}

/* Adds an alloc node for p to g after deps; p->dptr receives the address. */
static CUresult add_alloc(zn_gnode **out, zn_graph *g, zn_gnode *const *deps, size_t ndeps,
                          CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    CUresult r = check_params(p);
    if (r != CUDA_SUCCESS)
        return r;
    zn_gmem *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->size = p->bytesize;
    if (!(m->p = zn_mem_alloc(p->bytesize, 0, ZN_MEM_DEVICE))) {
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->params = *p;
    m->params.dptr = (CUdeviceptr)(uintptr_t)m->p;
    if (p->accessDescCount)
        m->access[0] = p->accessDescs[0];
    m->params.accessDescs = p->accessDescCount ? m->access : NULL;
    r = cuUserObjectCreate(&m->obj, m, gmem_unref, 1, ZN_CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
    if (r != CUDA_SUCCESS) {
        zn_mem_free(m->p);
        free(m);
        return r;
    }
    pthread_mutex_lock(&gmem_lock);
    m->next = gmem_list;
    gmem_list = m;
    count((int64_t)m->size, 0);
    pthread_mutex_unlock(&gmem_lock);
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (op) {
        op->u.host.fn = gmem_alloc_run;
        op->u.host.user = m;
    }
    zn_gnode *n = NULL;
    r = op ? zn_graph_add(g, CU_GRAPH_NODE_TYPE_MEM_ALLOC, op, deps, ndeps, &n)
           : CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        n->mem = m;
        r = graph_hold(g, m);
    }
    /* the creation reference: from now on the graph's keeps it */
    cuUserObjectRelease(m->obj, 1);
    if (r != CUDA_SUCCESS)
        return r;
    p->dptr = m->params.dptr;
    *out = n;
    return CUDA_SUCCESS;
}

/* A free node of g for m: m must not be freed twice in g. */
static CUresult add_free(zn_gnode **out, zn_graph *g, zn_gnode *const *deps, size_t ndeps,
                         zn_gmem *m)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i]->type == CU_GRAPH_NODE_TYPE_MEM_FREE && g->nodes[i]->mem == m)
            return CUDA_ERROR_INVALID_VALUE;
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.host.fn = gmem_free_run;
    op->u.host.user = m;
    zn_gnode *n;
    CUresult r = zn_graph_add(g, CU_GRAPH_NODE_TYPE_MEM_FREE, op, deps, ndeps, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->mem = m;
    r = graph_hold(g, m);
    if (r == CUDA_SUCCESS)
        *out = n;
    return r;
}

/* ---- stream capture (called from zn_drv_pool.c) ---- */

static zn_graph *capture_graph(zn_stream *s, CUresult *r)
{
    *r = CUDA_SUCCESS;
    if (!s->cap)
        return NULL;
    zn_graph *g = zn_capture_graph(s->cap);
    if (!g)
        *r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    return g;
}

CUresult zn_gmem_capture_alloc(zn_stream *s, size_t bytes, CUdeviceptr *dptr)
{
    CUresult r;
    zn_graph *g = capture_graph(s, &r);
    if (!g)
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_ILLEGAL_STATE;
    CUDA_MEM_ALLOC_NODE_PARAMS p = { .bytesize = bytes };
    p.poolProps.allocType = ZN_CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = ZN_CU_MEM_LOCATION_TYPE_DEVICE;
    zn_gnode *n;
    r = add_alloc(&n, g, s->deps.v, s->deps.n, &p);
    if (r != CUDA_SUCCESS)
        return r;
    zn_nodeset_set(&s->deps, &n, 1);
    *dptr = p.dptr;
    return CUDA_SUCCESS;
}

CUresult zn_gmem_capture_free(zn_stream *s, zn_gmem *m)
{
    CUresult r;
    zn_graph *g = capture_graph(s, &r);
    if (!g)
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_ILLEGAL_STATE;
    zn_gnode *n;
    r = add_free(&n, g, s->deps.v, s->deps.n, m);
    if (r != CUDA_SUCCESS)
        return r;
    zn_nodeset_set(&s->deps, &n, 1);
    return CUDA_SUCCESS;
}

/* The host op behind an asynchronous free of an orphaned block. */
static void release_later(void *p)
{
    pthread_mutex_lock(&gmem_lock);
    release_block(p);
    pthread_mutex_unlock(&gmem_lock);
}

CUresult zn_gmem_free_outside(zn_gmem *m, zn_stream *s)
{
    pthread_mutex_lock(&gmem_lock);
    if (!m->live) {
        /* not allocated now: never launched, or freed by a graph already */
        pthread_mutex_unlock(&gmem_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    m->live = false;
    count(0, -(int64_t)m->size);
    bool orphan = m->orphan;
    if (orphan && !s)
        release_block(m);
    pthread_mutex_unlock(&gmem_lock);
    if (!orphan || !s)
        return CUDA_SUCCESS;
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.host.fn = release_later;
    op->u.host.user = m;
    return zn_submit(s, op, false);
}

/* ---- instantiation and launch (called from zn_drv_graph_exec.c) ---- */

CUresult zn_gmem_exec_bind(const zn_gexec *x, bool bind)
{
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&gmem_lock);
    bool alloc;
    for (size_t i = 0; i < x->n && r == CUDA_SUCCESS; i++) {
        zn_gmem *m = zn_gmem_of_op(x->ops[i], &alloc);
        if (!m || !alloc)
            continue;
        if (bind && m->exec)
            r = CUDA_ERROR_INVALID_VALUE;       /* a second instantiation */
        else if (bind)
            m->exec = x;
        else if (m->exec == x)
            m->exec = NULL;
    }
    for (size_t i = 0; i < x->n && r != CUDA_SUCCESS; i++) {
        zn_gmem *m = zn_gmem_of_op(x->ops[i], &alloc);
        if (m && alloc && m->exec == x)
            m->exec = NULL;
    }
    pthread_mutex_unlock(&gmem_lock);
    return r;
}

CUresult zn_gmem_launch(const zn_gexec *x)
{
    bool auto_free = x->flags & ZN_CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;
    bool alloc;
    pthread_mutex_lock(&gmem_lock);
    for (size_t i = 0; i < x->n; i++) {
        zn_gmem *m = zn_gmem_of_op(x->ops[i], &alloc);
        if (m && alloc && m->live && !auto_free) {
            pthread_mutex_unlock(&gmem_lock);
            zn_log(ZN_LOG_WARN, "cuGraphLaunch: an allocation of the previous launch is "
                   "not freed yet");
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    for (size_t i = 0; i < x->n; i++) {
        zn_gmem *m = zn_gmem_of_op(x->ops[i], &alloc);
        if (!m)
            continue;
        if (alloc != m->live)
            count(0, alloc ? (int64_t)m->size : -(int64_t)m->size);
        m->live = alloc;
    }
    pthread_mutex_unlock(&gmem_lock);
    return CUDA_SUCCESS;
}

/* ---- entry points ---- */

CUresult cuGraphAddMemAllocNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                                size_t ndeps, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    ZN_ENTER(c);
    (void)c;
    if (!pn || !zn_graph_valid(g) || (ndeps && !deps))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(add_alloc(pn, g, deps, ndeps, p));
}

CUresult cuGraphMemAllocNodeGetParams(CUgraphNode n, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC || !p)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *p = n->mem->params;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphAddMemFreeNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                               size_t ndeps, CUdeviceptr dptr)
{
    ZN_ENTER(c);
    (void)c;
    if (!pn || !zn_graph_valid(g) || (ndeps && !deps))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_gmem *m = zn_gmem_find(dptr);
    if (!m)     /* not the address of an allocation node's memory */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(add_free(pn, g, deps, ndeps, m));
}

CUresult cuGraphMemFreeNodeGetParams(CUgraphNode n, CUdeviceptr *dptr)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_MEM_FREE || !dptr)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *dptr = n->mem->params.dptr;
    ZN_RET(CUDA_SUCCESS);
}

/* USED: bytes of graph allocations that launches left allocated (between
 * an alloc node and its free); RESERVED: bytes of every graph allocation
 * that exists (held by graphs, or live). */
CUresult cuDeviceGetGraphMemAttribute(CUdevice dev, int attr, void *value)
{
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    if (!value)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    uint64_t v;
    pthread_mutex_lock(&gmem_lock);
    switch (attr) {
    case ZN_CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT: v = used_now; break;
    case ZN_CU_GRAPH_MEM_ATTR_USED_MEM_HIGH: v = used_high; break;
    case ZN_CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT: v = reserved_now; break;
    case ZN_CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH: v = reserved_high; break;
    default:
        pthread_mutex_unlock(&gmem_lock);
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    }
    pthread_mutex_unlock(&gmem_lock);
    *(uint64_t *)value = v;
    ZN_RET(CUDA_SUCCESS);
}

/* Only the high watermarks can be set, and only to 0 (a reset). */
CUresult cuDeviceSetGraphMemAttribute(CUdevice dev, int attr, void *value)
{
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    if (!value || *(const uint64_t *)value != 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&gmem_lock);
    CUresult r = CUDA_SUCCESS;
    if (attr == ZN_CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)
        used_high = used_now;
    else if (attr == ZN_CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
        reserved_high = reserved_now;
    else
        r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_unlock(&gmem_lock);
    ZN_RET(r);
}

/* Nothing is cached beyond the blocks graphs hold: nothing to trim. */
CUresult cuDeviceGraphMemTrim(CUdevice dev)
{
    ZN_CHECK_INIT();
    ZN_RET(dev < 0 || dev >= ZN_NDEVICES ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS);
}
