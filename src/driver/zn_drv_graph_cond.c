/* zn_drv_graph_cond.c: conditional nodes (IF, WHILE, SWITCH) and their
 * handles.
 *
 * A CUgraphConditionalHandle is the address of a zn_cond_handle whose
 * first word is the condition value. It lives in device memory (a live
 * allocation, so memcheck accepts the store): device code sets it with
 * cudaGraphSetConditional(handle, value), a PTX call the module loader
 * resolves with a definition that stores the value there
 * (zn_drv_module.c). The handle is owned by a user object of its graph, so
 * instantiations and launches keep it.
 *
 * A conditional node owns its body graphs (1 for WHILE, 1-2 for IF, n for
 * SWITCH), which the caller fills through phGraph_out. Instantiation
 * flattens each body into an op list and the node becomes one host op
 * (run on the stream's thread, in stream order) that reads the value and
 * runs the chosen body's ops inline: IF runs body 0 when it is non-zero
 * (body 1 otherwise, if there is one), WHILE runs body 0 while it is
 * non-zero (checked before each pass), SWITCH body[value] when in range.
 * A handle created with CU_GRAPH_COND_ASSIGN_DEFAULT is reset to its
 * default by an op at the start of each launch.
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define ZN_CU_USER_OBJECT_NO_DESTRUCTOR_SYNC 1u
#define COND_MAGIC 0x5a636e64u  /* "Zcnd" */

typedef struct zn_cond_handle {
    uint32_t value;             /* first: cudaGraphSetConditional stores here */
    uint32_t magic;
    uint32_t dflt;
    unsigned flags;
    CUuserObject obj;
} zn_cond_handle;

typedef struct zn_gcond {
    zn_cond_handle *h;
    int type;
    unsigned size;
    CUgraph *bodies;            /* what phGraph_out points to */
} zn_gcond;

/* What a launch runs: the bodies' ops, built at instantiation. */
typedef struct zn_cond_exec {
    zn_cond_handle *h;
    int type;
    unsigned size;
    zn_ctx *ctx;
    zn_op **ops[8];             /* per body (SWITCH: more go to more) */
    size_t n[8];
    zn_op ***more_ops;
    size_t *more_n;
} zn_cond_exec;

static void handle_free(void *p)
{
    zn_mem_free(p);
}

static zn_cond_handle *handle_get(CUgraphConditionalHandle h)
{
    zn_cond_handle *c = (zn_cond_handle *)(uintptr_t)h;
    void *base;
    size_t size;
    zn_mem_kind kind;
    if (!c || zn_mem_lookup(c, &base, &size, &kind) != 0 || base != c)
        return NULL;
    return c->magic == COND_MAGIC ? c : NULL;
}

CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *out, CUgraph g,
                                        CUcontext ctx, unsigned int dflt, unsigned int flags)
{
    ZN_ENTER(c);
    (void)ctx;
    if (!out || !zn_graph_valid(g) || (flags & ~(unsigned)ZN_CU_GRAPH_COND_ASSIGN_DEFAULT))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    (void)c;
    zn_cond_handle *h = zn_mem_alloc(sizeof *h, 0, ZN_MEM_DEVICE);
    if (!h)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    *h = (zn_cond_handle){ .value = dflt, .magic = COND_MAGIC, .dflt = dflt, .flags = flags };
    CUresult r = cuUserObjectCreate(&h->obj, h, handle_free, 1,
                                    ZN_CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
    if (r != CUDA_SUCCESS) {
        zn_mem_free(h);
        ZN_RET(r);
    }
    if (!zn_uobj_set_add(&g->uobjs, h->obj, 1)) {     /* the graph takes it */
        cuUserObjectRelease(h->obj, 1);
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *out = (CUgraphConditionalHandle)(uintptr_t)h;
    ZN_RET(CUDA_SUCCESS);
}

/* ---- the node ---- */

void zn_gcond_free(zn_gcond *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < c->size; i++)
        if (c->bodies[i])
            zn_graph_free(c->bodies[i]);
    free(c->bodies);
    zn_uobj_release(c->h->obj, 1);
    free(c);
}

static zn_gcond *gcond_new(zn_cond_handle *h, int type, unsigned size)
{
    zn_gcond *c = calloc(1, sizeof *c);
    if (c && !(c->bodies = calloc(size, sizeof *c->bodies))) {
        free(c);
        c = NULL;
    }
    if (!c)
        return NULL;
    c->h = h;
    c->type = type;
    c->size = size;
    zn_uobj_retain(h->obj, 1);
    return c;
}

zn_gcond *zn_gcond_clone(const zn_gcond *c)
{
    zn_gcond *d = gcond_new(c->h, c->type, c->size);
    for (unsigned i = 0; d && i < c->size; i++)
        if (!(d->bodies[i] = zn_graph_clone(c->bodies[i]))) {
            zn_gcond_free(d);
            d = NULL;
        }
    return d;
}

CUresult zn_gcond_add(zn_gnode **out, zn_graph *g, zn_gnode *const *deps, size_t ndeps,
                      CUDA_CONDITIONAL_NODE_PARAMS *p)
{
    zn_ctx *ctx;
    CUresult r = zn_ctx_enter(&ctx);
    if (r != CUDA_SUCCESS)
        return r;
    if (!out || !zn_graph_valid(g) || (ndeps && !deps) || !p)
        return CUDA_ERROR_INVALID_VALUE;
    zn_cond_handle *h = handle_get(p->handle);
    bool size_ok = p->type == ZN_CU_GRAPH_COND_TYPE_IF ? p->size == 1 || p->size == 2
                 : p->type == ZN_CU_GRAPH_COND_TYPE_WHILE ? p->size == 1
                 : p->type == ZN_CU_GRAPH_COND_TYPE_SWITCH ? p->size >= 1 : false;
    if (!h || !size_ok)
        return CUDA_ERROR_INVALID_VALUE;
    zn_gcond *c = gcond_new(h, p->type, p->size);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned i = 0; i < p->size; i++)
        if (!(c->bodies[i] = zn_graph_new(ctx))) {
            zn_gcond_free(c);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    r = zn_graph_add(g, CU_GRAPH_NODE_TYPE_CONDITIONAL, NULL, deps, ndeps, out);
    if (r != CUDA_SUCCESS) {
        zn_gcond_free(c);
        return r;
    }
    (*out)->cond = c;
    p->phGraph_out = c->bodies;
    return CUDA_SUCCESS;
}

/* ---- launch ---- */

static void reset_default(void *p)
{
    zn_cond_handle *h = p;
    __atomic_store_n(&h->value, h->dflt, __ATOMIC_RELEASE);
}

zn_op *zn_gcond_default_op(const zn_gnode *n)
{
    if (!n->cond || !(n->cond->h->flags & ZN_CU_GRAPH_COND_ASSIGN_DEFAULT))
        return NULL;
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (op) {
        op->u.host.fn = reset_default;
        op->u.host.user = n->cond->h;
    }
    return op;
}

static zn_op ***body_ops(zn_cond_exec *e, unsigned i, size_t **n)
{
    if (i < 8) {
        *n = &e->n[i];
        return &e->ops[i];
    }
    *n = &e->more_n[i - 8];
    return &e->more_ops[i - 8];
}

static void run_body(zn_cond_exec *e, unsigned i)
{
    size_t *n;
    zn_op **ops = *body_ops(e, i, &n);
    for (size_t k = 0; k < *n; k++) {
        if (ops[k]->kind == ZN_OP_EMPTY)
            continue;
        zn_op *op = zn_op_clone(ops[k]);
        if (!op) {
            zn_ctx_set_sticky(e->ctx, CUDA_ERROR_OUT_OF_MEMORY);
            return;
        }
        op->ctx = e->ctx;
        zn_op_run(op);
        free(op);
    }
}

static void cond_run(void *p)
{
    zn_cond_exec *e = p;
    uint32_t v = __atomic_load_n(&e->h->value, __ATOMIC_ACQUIRE);
    switch (e->type) {
    case ZN_CU_GRAPH_COND_TYPE_IF:
        if (v)
            run_body(e, 0);
        else if (e->size == 2)
            run_body(e, 1);
        break;
    case ZN_CU_GRAPH_COND_TYPE_WHILE:
        /* a faulted context runs no kernels: stop rather than spin */
        while (v && !atomic_load(&e->ctx->sticky)) {
            run_body(e, 0);
            v = __atomic_load_n(&e->h->value, __ATOMIC_ACQUIRE);
        }
        break;
    default:
        if (v < e->size)
            run_body(e, v);
    }
}

static void cond_exec_free(void *p)
{
    zn_cond_exec *e = p;
    for (unsigned i = 0; i < e->size; i++) {
        size_t *n;
        zn_op **ops = *body_ops(e, i, &n);
        for (size_t k = 0; k < *n; k++)
            free(ops[k]);
        free(ops);
    }
    free(e->more_ops);
    free(e->more_n);
    zn_uobj_release(e->h->obj, 1);
    free(e);
}

CUresult zn_gcond_exec_op(const zn_gnode *n, zn_ctx *ctx, zn_flatten_fn flat, zn_op **out,
                          zn_uobj_set *objs)
{
    const zn_gcond *c = n->cond;
    zn_cond_exec *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->h = c->h;
    e->type = c->type;
    e->ctx = ctx;
    zn_uobj_retain(c->h->obj, 1);
    if (c->size > 8 && (!(e->more_ops = calloc(c->size - 8, sizeof *e->more_ops)) ||
                        !(e->more_n = calloc(c->size - 8, sizeof *e->more_n)))) {
        cond_exec_free(e);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUresult r = CUDA_SUCCESS;
    for (unsigned i = 0; i < c->size && r == CUDA_SUCCESS; i++) {
        size_t *cnt;
        zn_op ***ops = body_ops(e, i, &cnt);
        r = flat(c->bodies[i], ops, cnt, objs);
        e->size = i + 1;    /* what cond_exec_free must free */
        /* CUDA: bodies hold kernel, empty, child, memset, memcpy and
         * conditional nodes only (they run inline, outside stream order) */
        for (size_t k = 0; r == CUDA_SUCCESS && k < *cnt; k++) {
            const zn_op *o = (*ops)[k];
            if (o->kind != ZN_OP_KERNEL && o->kind != ZN_OP_COPY && o->kind != ZN_OP_SET &&
                o->kind != ZN_OP_EMPTY && !(o->kind == ZN_OP_HOST && o->u.host.fn == cond_run))
                r = CUDA_ERROR_INVALID_VALUE;
        }
    }
    e->size = r == CUDA_SUCCESS ? c->size : e->size;
    zn_op *op = r == CUDA_SUCCESS ? zn_op_new(ZN_OP_HOST, 0) : NULL;
    CUuserObject o = NULL;
    if (op && cuUserObjectCreate(&o, e, cond_exec_free, 1,
                                 ZN_CU_USER_OBJECT_NO_DESTRUCTOR_SYNC) != CUDA_SUCCESS)
        o = NULL;
    if (!op || !o) {
        free(op);
        cond_exec_free(e);
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (!zn_uobj_set_add(objs, o, 1)) {
        free(op);
        cuUserObjectRelease(o, 1);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->u.host.fn = cond_run;
    op->u.host.user = e;
    *out = op;
    return CUDA_SUCCESS;
}

/* ---- device side: cudaGraphSetConditional ---- */

/* nvcc declares the device function `.extern .func cudaGraphSetConditional
 * (.param .b64, .param .b32)` and calls it; a GPU driver supplies it. Zinc
 * replaces the declaration with a definition that stores the value into
 * the handle's first word. */
static const char set_cond_def[] =
    ".func cudaGraphSetConditional(.param .b64 zn_cond_h, .param .b32 zn_cond_v)\n"
    "{\n"
    "    .reg .b64 %zn_h;\n"
    "    .reg .b32 %zn_v;\n"
    "    ld.param.b64 %zn_h, [zn_cond_h];\n"
    "    ld.param.b32 %zn_v, [zn_cond_v];\n"
    "    st.release.gpu.b32 [%zn_h], %zn_v;\n"
    "    ret;\n"
    "}\n";

/* The end (after its ';') of a well-formed declaration of
 * cudaGraphSetConditional's parameter list starting at p (just past the
 * name): `( .param .b64 a, .param .b32 b ) ;` with any spacing, as nvcc
 * writes it. NULL for anything else, which is then left for the parser to
 * accept or reject as written: replacing text up to some later ';' would
 * load PTX the parser rejects. */
static const char *set_cond_decl_end(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p == end || *p != '(')
        return NULL;
    const char *close = memchr(p, ')', (size_t)(end - p));
    if (!close)
        return NULL;
    int params = 0;
    for (const char *q = p + 1; q < close; q++) {
        if (*q == '.' && (size_t)(close - q) >= 6 && !memcmp(q, ".param", 6))
            params++;
        else if (!isalnum((unsigned char)*q) && !(*q && strchr("_$%., \t\r\n", *q)))
            return NULL;
    }
    const char *q = close + 1;
    while (q < end && isspace((unsigned char)*q))
        q++;
    return params == 2 && q < end && *q == ';' ? q + 1 : NULL;
}

char *zn_gcond_ptx_patch(const char *text, size_t len, size_t *outlen)
{
    static const char decl[] = ".extern .func cudaGraphSetConditional";
    const char *end = text + len, *p = NULL, *tail_at = NULL;
    for (const char *q = text; q + sizeof decl - 1 <= end; q++)
        if (*q == '.' && !memcmp(q, decl, sizeof decl - 1) &&
            (tail_at = set_cond_decl_end(q + sizeof decl - 1, end))) {
            p = q;
            break;
        }
    if (!p)
        return NULL;
    size_t head = (size_t)(p - text), tail = (size_t)(end - tail_at);
    char *out = malloc(head + sizeof set_cond_def + tail + 1);
    if (!out)
        return NULL;
    memcpy(out, text, head);
    memcpy(out + head, set_cond_def, sizeof set_cond_def - 1);
    memcpy(out + head + sizeof set_cond_def - 1, tail_at, tail);
    *outlen = head + sizeof set_cond_def - 1 + tail;
    out[*outlen] = 0;
    return out;
}

unsigned zn_gcond_bodies(const zn_gnode *n, zn_graph *const **bodies)
{
    if (!n->cond)
        return 0;
    *bodies = n->cond->bodies;
    return n->cond->size;
}
