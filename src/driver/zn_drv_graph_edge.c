/* zn_drv_graph_edge.c: edge data (CUgraphEdgeData) of graph edges.
 *
 * Most edges are plain full dependencies (all-zero data); a graph keeps
 * only the others, as (from, to, data) records, so the dependency arrays
 * of the nodes stay as they are. The data is checked as CUDA documents it
 * (to_port 0, reserved bytes 0, non-zero ports on kernel nodes only, a
 * programmatic edge between two kernel nodes from the programmatic or the
 * launch-order port), stored, returned by the _v2 queries, kept by clones
 * and dropped with its edge.
 *
 * Scheduling: every edge stays a full dependency. A programmatic edge
 * lets the dependent kernel start once every block of the upstream one
 * has triggered (or begun, for the launch-order port); starting it after
 * the upstream kernel has finished is one of the schedules that allows,
 * and the one Zinc runs (griddepcontrol.wait / launch_dependents are then
 * no-ops, src/compile).
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

typedef struct zn_gedge {
    const zn_gnode *from, *to;
    CUgraphEdgeData data;
} zn_gedge;

enum { PORT_DEFAULT = 0, PORT_PROGRAMMATIC = 1, PORT_LAUNCH_ORDER = 2,
       TYPE_DEFAULT = 0, TYPE_PROGRAMMATIC = 1 };

bool zn_gedge_is_default(const CUgraphEdgeData *e)
{
    static const CUgraphEdgeData zero;
    return !e || !memcmp(e, &zero, sizeof zero);
}

CUresult zn_gedge_check(const zn_gnode *from, const zn_gnode *to, const CUgraphEdgeData *e)
{
    if (zn_gedge_is_default(e))
        return CUDA_SUCCESS;
    for (size_t i = 0; i < sizeof e->reserved; i++)
        if (e->reserved[i])
            return CUDA_ERROR_INVALID_VALUE;
    if (e->to_port != 0 || e->type > TYPE_PROGRAMMATIC || e->from_port > PORT_LAUNCH_ORDER)
        return CUDA_ERROR_INVALID_VALUE;
    bool kfrom = from->type == CU_GRAPH_NODE_TYPE_KERNEL;
    bool kto = to && to->type == CU_GRAPH_NODE_TYPE_KERNEL;
    if (e->from_port != PORT_DEFAULT && !kfrom)
        return CUDA_ERROR_INVALID_VALUE;    /* only kernel nodes have ports */
    if (e->from_port == PORT_PROGRAMMATIC && e->type != TYPE_PROGRAMMATIC)
        return CUDA_ERROR_INVALID_VALUE;
    /* to == NULL: the node is not made yet (its kernel is checked by the caller) */
    if (e->type == TYPE_PROGRAMMATIC &&
        (!kfrom || (to && !kto) || e->from_port == PORT_DEFAULT))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static zn_gedge *find(const zn_graph *g, const zn_gnode *from, const zn_gnode *to)
{
    for (size_t i = 0; i < g->npedges; i++)
        if (g->pedges[i].from == from && g->pedges[i].to == to)
            return &g->pedges[i];
    return NULL;
}

void zn_gedge_get(const zn_graph *g, const zn_gnode *from, const zn_gnode *to,
                  CUgraphEdgeData *out)
{
    const zn_gedge *e = find(g, from, to);
    if (e)
        *out = e->data;
    else
        memset(out, 0, sizeof *out);
}

CUresult zn_gedge_set(zn_graph *g, const zn_gnode *from, const zn_gnode *to,
                      const CUgraphEdgeData *data)
{
    zn_gedge *e = find(g, from, to);
    if (zn_gedge_is_default(data)) {
        if (e)
            *e = g->pedges[--g->npedges];
        return CUDA_SUCCESS;
    }
    if (!e) {
        if (g->npedges == g->cappedges) {
            size_t cap = g->cappedges ? 2 * g->cappedges : 4;
            zn_gedge *v = realloc(g->pedges, cap * sizeof *v);
            if (!v)
                return CUDA_ERROR_OUT_OF_MEMORY;
            g->pedges = v;
            g->cappedges = cap;
        }
        e = &g->pedges[g->npedges++];
        e->from = from;
        e->to = to;
    }
    e->data = *data;
    return CUDA_SUCCESS;
}

void zn_gedge_drop_node(zn_graph *g, const zn_gnode *n)
{
    size_t k = 0;
    for (size_t i = 0; i < g->npedges; i++)
        if (g->pedges[i].from != n && g->pedges[i].to != n)
            g->pedges[k++] = g->pedges[i];
    g->npedges = k;
}

CUresult zn_gedge_clone(zn_graph *dst, const zn_graph *src)
{
    for (size_t i = 0; i < src->npedges; i++) {
        const zn_gedge *e = &src->pedges[i];
        CUresult r = zn_gedge_set(dst, dst->nodes[e->from->index], dst->nodes[e->to->index],
                                  &e->data);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

void zn_gedge_free(zn_graph *g)
{
    free(g->pedges);
    g->pedges = NULL;
    g->npedges = g->cappedges = 0;
}
