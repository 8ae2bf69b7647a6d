/* zn_drv_graph_dot.c: cuGraphDebugDotPrint, a graph as a Graphviz DOT file.
 *
 * One DOT node per graph node (named n<graph>_<index>), labelled with its
 * type and, for kernels, copies, sets, host, event and memory nodes, its
 * main parameters; one edge per dependency; a child graph (or a
 * conditional node's body) becomes a cluster subgraph whose roots the node
 * points to with dashed edges. The
 * verbose and per-kind flags only add detail CUDA shows in the same way,
 * so Zinc writes the same labels whatever the flags.
 */
#include "zn_drv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *type_name(CUgraphNodeType t)
{
    static const char *const names[] = {
        "KERNEL", "MEMCPY", "MEMSET", "HOST", "GRAPH", "EMPTY", "WAIT_EVENT",
        "EVENT_RECORD", "EXT_SEMAS_SIGNAL", "EXT_SEMAS_WAIT", "MEM_ALLOC", "MEM_FREE",
        "BATCH_MEM_OP", "CONDITIONAL",
    };
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "UNKNOWN";
}

static void label(FILE *f, const zn_gnode *n)
{
    fprintf(f, "%s", type_name(n->type));
    const zn_op *op = n->op;
    switch (n->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        fprintf(f, "\\n%s\\ngrid (%u,%u,%u) block (%u,%u,%u) shared %u", op->u.k.f->name,
                op->u.k.g[0], op->u.k.g[1], op->u.k.g[2], op->u.k.b[0], op->u.k.b[1],
                op->u.k.b[2], op->u.k.shmem);
        break;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        fprintf(f, "\\n%zu x %zu x %zu bytes", n->copy.WidthInBytes, n->copy.Height,
                n->copy.Depth);
        break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
        fprintf(f, "\\ndst 0x%llx value 0x%x elem %u\\n%zu x %zu", (unsigned long long)n->set.dst,
                n->set.value, n->set.elementSize, n->set.width, n->set.height);
        break;
    case CU_GRAPH_NODE_TYPE_HOST:
        fprintf(f, "\\nfn %p data %p", (void *)(uintptr_t)op->u.host.fn, op->u.host.user);
        break;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        fprintf(f, "\\nevent %p", (void *)op->u.ev.e);
        break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: {
        CUDA_MEM_ALLOC_NODE_PARAMS p;
        if (cuGraphMemAllocNodeGetParams((CUgraphNode)n, &p) == CUDA_SUCCESS)
            fprintf(f, "\\n0x%llx, %zu bytes", (unsigned long long)p.dptr, p.bytesize);
        break;
    }
    case CU_GRAPH_NODE_TYPE_MEM_FREE: {
        CUdeviceptr d;
        if (cuGraphMemFreeNodeGetParams((CUgraphNode)n, &d) == CUDA_SUCCESS)
            fprintf(f, "\\n0x%llx", (unsigned long long)d);
        break;
    }
    default:
        break;
    }
}

/* Writes g's nodes and edges; id numbers the graphs (children nest). */
static void print_graph(FILE *f, const zn_graph *g, unsigned id, unsigned *next)
{
    for (size_t i = 0; i < g->n; i++) {
        const zn_gnode *n = g->nodes[i];
        fprintf(f, "  n%u_%zu [label=\"", id, i);
        label(f, n);
        fprintf(f, "\"];\n");
        zn_graph *const *bodies = NULL;
        unsigned nb = zn_gcond_bodies(n, &bodies);
        if (n->child) {
            nb = 1;
            bodies = &n->child;
        }
        for (unsigned b = 0; b < nb; b++) {
            const zn_graph *c = bodies[b];
            unsigned cid = (*next)++;
            fprintf(f, "  subgraph cluster_%u {\n  label=\"%s %u of n%u_%zu\";\n", cid,
                    n->child ? "child" : "body", b, id, i);
            print_graph(f, c, cid, next);
            fprintf(f, "  }\n");
            for (size_t j = 0; j < c->n; j++)
                if (!c->nodes[j]->ndeps)
                    fprintf(f, "  n%u_%zu -> n%u_%zu [style=dashed];\n", id, i, cid, j);
        }
    }
    for (size_t i = 0; i < g->n; i++)
        for (size_t d = 0; d < g->nodes[i]->ndeps; d++) {
            const zn_gnode *from = g->nodes[i]->deps[d];
            CUgraphEdgeData e;
            zn_gedge_get(g, from, g->nodes[i], &e);
            fprintf(f, "  n%u_%zu -> n%u_%zu", id, from->index, id, i);
            if (!zn_gedge_is_default(&e))   /* a programmatic edge, or a port */
                fprintf(f, " [label=\"type %u port %u\"]", e.type, e.from_port);
            fprintf(f, ";\n");
        }
}

CUresult cuGraphDebugDotPrint(CUgraph g, const char *path, unsigned int flags)
{
    ZN_CHECK_INIT();
    (void)flags;
    if (!zn_graph_valid(g) || !path)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    FILE *f = fopen(path, "w");
    if (!f)
        ZN_RET(CUDA_ERROR_OPERATING_SYSTEM);
    fprintf(f, "digraph zinc_graph {\n  node [shape=box];\n");
    unsigned next = 1;
    print_graph(f, g, 0, &next);
    fprintf(f, "}\n");
    ZN_RET(fclose(f) == 0 ? CUDA_SUCCESS : CUDA_ERROR_OPERATING_SYSTEM);
}
