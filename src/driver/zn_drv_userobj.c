/* zn_drv_userobj.c: user objects (cuUserObject*, cuGraph*UserObject).
 *
 * A user object is a reference-counted pointer with a destructor; graphs
 * own references so that data their host nodes use lives as long as any
 * graph, instantiation or launch that may still run them. Zinc's own
 * cuBLAS relies on this: a BLAS call made while a stream captures becomes
 * a host node whose arguments are a user object of the captured graph.
 *
 * Who holds references here:
 *  - a graph: the set given with cuGraphRetainUserObject, copied (with new
 *    references) into clones and child-graph copies;
 *  - an executable graph: its graph's set, children included, taken at
 *    instantiation and replaced by the new graph's set at a successful
 *    update (CUDA keeps the old set there; the new host nodes' data must
 *    stay alive, so Zinc takes the new one);
 *  - a launch: one reference per object until its last op has run (a host
 *    op queued behind the graph's ops), or, when the launch is captured,
 *    references of the capturing graph.
 * The destructor runs on the thread that drops the last reference: a
 * stream's worker or the caller of a release; CUDA allows either, and
 * forbids the destructor to call CUDA (CU_USER_OBJECT_NO_DESTRUCTOR_SYNC).
 */
#include "zn_drv.h"

#include <stdlib.h>

#define ZN_CU_USER_OBJECT_NO_DESTRUCTOR_SYNC 1u
#define ZN_CU_GRAPH_USER_OBJECT_MOVE 1u

typedef struct zn_uobj {
    uint32_t magic;
    atomic_uint refs;
    void *ptr;
    CUhostFn destroy;
} zn_uobj;

static bool uobj_valid(const zn_uobj *o)
{
    return o && o->magic == ZN_MAGIC_UOBJ && atomic_load(&o->refs) > 0;
}

void zn_uobj_retain(zn_uobj *o, unsigned n)
{
    atomic_fetch_add(&o->refs, n);
}

void zn_uobj_release(zn_uobj *o, unsigned n)
{
    if (atomic_fetch_sub(&o->refs, n) != n)
        return;
    if (o->destroy)
        o->destroy(o->ptr);
    zn_handle_retire(ZN_HANDLE_UOBJ, o, sizeof *o);
}

/* ---- sets of references (graphs, executable graphs, launches) ---- */

/* Adds n references that the caller already holds. */
bool zn_uobj_set_add(zn_uobj_set *s, zn_uobj *o, unsigned n)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].obj == o) {
            s->v[i].count += n;
            return true;
        }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        zn_uobj_ref *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return false;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (zn_uobj_ref){ o, n };
    return true;
}

/* Adds one new reference to each object of src. */
bool zn_uobj_set_merge(zn_uobj_set *dst, const zn_uobj_set *src)
{
    for (size_t i = 0; i < src->n; i++) {
        zn_uobj_retain(src->v[i].obj, 1);
        if (!zn_uobj_set_add(dst, src->v[i].obj, 1)) {
            zn_uobj_release(src->v[i].obj, 1);
            return false;
        }
    }
    return true;
}

void zn_uobj_set_clear(zn_uobj_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        zn_uobj_release(s->v[i].obj, s->v[i].count);
    free(s->v);
    *s = (zn_uobj_set){ 0 };
}

/* A graph's set and its child graphs' sets, one reference each. */
bool zn_uobj_set_of_graph(zn_uobj_set *dst, const zn_graph *g)
{
    if (!zn_uobj_set_merge(dst, &g->uobjs))
        return false;
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i]->child && !zn_uobj_set_of_graph(dst, g->nodes[i]->child))
            return false;
    return true;
}

/* The host op at the end of a launch: its references go. */
static void release_launch_refs(void *p)
{
    zn_uobj_set *s = p;
    zn_uobj_set_clear(s);
    free(s);
}

CUresult zn_uobj_hold_for_launch(zn_stream *s, const zn_uobj_set *set)
{
    if (!set->n)
        return CUDA_SUCCESS;
    struct zn_capture *cap = s->cap;
    if (cap) {
        /* a captured launch: the capturing graph keeps them */
        zn_graph *g = zn_capture_graph(cap);
        return g && zn_uobj_set_merge(&g->uobjs, set) ? CUDA_SUCCESS
                                                      : CUDA_ERROR_OUT_OF_MEMORY;
    }
    zn_uobj_set *held = calloc(1, sizeof *held);
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (!held || !op || !zn_uobj_set_merge(held, set)) {
        if (held)
            zn_uobj_set_clear(held);
        free(held);
        free(op);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->u.host.fn = release_launch_refs;
    op->u.host.user = held;
    return zn_submit(s, op, false);
}

/* ---- entry points ---- */

CUresult cuUserObjectCreate(CUuserObject *out, void *ptr, CUhostFn destroy,
                            unsigned int refs, unsigned int flags)
{
    ZN_CHECK_INIT();
    if (!out || !destroy || !refs || flags != ZN_CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_uobj *o = zn_handle_new(ZN_HANDLE_UOBJ, sizeof *o);
    if (!o)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    o->magic = ZN_MAGIC_UOBJ;
    atomic_init(&o->refs, refs);
    o->ptr = ptr;
    o->destroy = destroy;
    *out = o;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuUserObjectRetain(CUuserObject o, unsigned int n)
{
    ZN_CHECK_INIT();
    if (!uobj_valid(o) || !n)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_uobj_retain(o, n);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuUserObjectRelease(CUuserObject o, unsigned int n)
{
    ZN_CHECK_INIT();
    if (!uobj_valid(o) || !n || n > atomic_load(&o->refs))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_uobj_release(o, n);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphRetainUserObject(CUgraph g, CUuserObject o, unsigned int n, unsigned int flags)
{
    ZN_CHECK_INIT();
    if (!zn_graph_valid(g) || !uobj_valid(o) || !n || flags > ZN_CU_GRAPH_USER_OBJECT_MOVE)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!(flags & ZN_CU_GRAPH_USER_OBJECT_MOVE))
        zn_uobj_retain(o, n);
    pthread_mutex_lock(&g->lock);
    bool ok = zn_uobj_set_add(&g->uobjs, o, n);
    pthread_mutex_unlock(&g->lock);
    if (!ok) {
        if (!(flags & ZN_CU_GRAPH_USER_OBJECT_MOVE))
            zn_uobj_release(o, n);
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    }
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphReleaseUserObject(CUgraph g, CUuserObject o, unsigned int n)
{
    ZN_CHECK_INIT();
    if (!zn_graph_valid(g) || !uobj_valid(o) || !n)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&g->lock);
    CUresult r = CUDA_ERROR_INVALID_VALUE;      /* g holds fewer than n */
    for (size_t i = 0; i < g->uobjs.n; i++) {
        zn_uobj_ref *ref = &g->uobjs.v[i];
        if (ref->obj != o || ref->count < n)
            continue;
        ref->count -= n;
        if (!ref->count)
            *ref = g->uobjs.v[--g->uobjs.n];
        r = CUDA_SUCCESS;
        break;
    }
    pthread_mutex_unlock(&g->lock);
    if (r == CUDA_SUCCESS)
        zn_uobj_release(o, n);
    ZN_RET(r);
}
