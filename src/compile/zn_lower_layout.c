/* zn_lower_layout.c: a block order under which the warp's lowest-pc-first
 * scheduling reconverges every branch where a GPU does.
 *
 * Lanes of a warp that part at a branch run one group at a time, the one
 * with the lowest pc first (zn_lower_func.c), so they meet again at the
 * first block that both groups reach only if every block between the
 * branch and that block (its immediate post-dominator) comes before it.
 * nvcc's layout usually does. Not always: a loop's latch is often placed
 * above its header (`bra.uni $HEADER` at the top jumps over it), and a
 * `continue` jumps back to the header itself. Lanes that skip an if-arm
 * there run the latch and the next iteration alone, their shuffles and
 * ballots with half the warp (a ballot-and-compact loop of cdpQuadtree
 * counted 980 points of 1024).
 *
 * When the uniform analysis finds such a branch (zn_lower_uniform.c), or
 * did not run (too many blocks, ZINC_NO_UNIFORM), or a loop is entered
 * again from two blocks (lanes taking one back edge would run the header
 * while others of the same iteration are still on their way to the other:
 * a region the analysis's test does not see, its post-dominator being
 * after the loop), the function is laid out again: loops are contiguous, header first, in an
 * order where every block comes after the blocks that branch to it
 * (back edges aside; the original order among blocks that are free to go
 * first), and a loop whose back edges do not all come from its last block
 * gets a latch there, one `bra.uni` to the header, that they go to
 * instead. Fallthroughs that no longer fall through become `bra.uni`, or
 * flip the branch before them (`@p bra T; F:` -> `@!p bra F; T:`).
 * Functions with irreducible loops, jump tables (brx.idx) or a label past
 * their last instruction are left as they are.
 */
#include "zn_lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct layout {
    const zn_lfn *l;
    uint32_t n;                 /* blocks; n is the exit */
    uint32_t (*succ)[2];
    uint8_t *nsucc;
    uint32_t *pred_start, *preds; /* predecessors (CSR) */
    uint32_t *items, nitems;    /* the order: block b, or n + h for h's latch */
    uint32_t *first, *last;     /* header h: its loop's first and last item */
    bool *latch;                /* header h has a latch item */
    uint32_t *comp;             /* block -> its component in its region */
    uint32_t *region;           /* block -> id of the region being ordered */
    uint32_t *item_of;          /* block -> its item, UINT32_MAX before */
    uint32_t *index, *low;      /* Tarjan's numbers (0: not visited) */
    bool *on;                   /* on Tarjan's stack */
    uint32_t next_region;
    bool multi_back;            /* a loop is entered again from two blocks */
    bool failed;
} layout;

/* ---- strongly connected components (iterative Tarjan) of the blocks in
 * region r, without edges into header h ---------------------------------- */

typedef struct scc {
    uint32_t *index, *low, *stack, *cstack, *citer;
    bool *on;
    uint32_t ncomp;
} scc;

static bool in_region(const layout *L, uint32_t r, uint32_t b)
{
    return b < L->n && L->region[b] == r;
}

static void tarjan(layout *L, scc *s, uint32_t r, uint32_t h, uint32_t root, uint32_t *counter)
{
    uint32_t sp = 0, csp = 0;
    s->cstack[csp] = root;
    s->citer[csp++] = 0;
    s->index[root] = s->low[root] = ++*counter;
    s->stack[sp++] = root;
    s->on[root] = true;
    while (csp) {
        uint32_t v = s->cstack[csp - 1];
        if (s->citer[csp - 1] < L->nsucc[v]) {
            uint32_t w = L->succ[v][s->citer[csp - 1]++];
            if (!in_region(L, r, w) || w == h)
                continue;
            if (!s->index[w]) {
                s->index[w] = s->low[w] = ++*counter;
                s->stack[sp++] = w;
                s->on[w] = true;
                s->cstack[csp] = w;
                s->citer[csp++] = 0;
            } else if (s->on[w] && s->index[w] < s->low[v]) {
                s->low[v] = s->index[w];
            }
            continue;
        }
        csp--;
        if (csp) {
            uint32_t u = s->cstack[csp - 1];
            if (s->low[v] < s->low[u])
                s->low[u] = s->low[v];
        }
        if (s->low[v] == s->index[v]) {
            uint32_t w;
            do {
                w = s->stack[--sp];
                s->on[w] = false;
                L->comp[w] = s->ncomp;
            } while (w != v);
            s->ncomp++;
        }
    }
}

/* ---- ordering --------------------------------------------------------------- */

static void place(layout *L, const uint32_t *blocks, uint32_t nb, uint32_t h);

/* Orders one component of a region: mine[0..cnt), in original order; h is
 * the region's header, whose back edges do not count. */
static void place_comp(layout *L, uint32_t *mine, uint32_t cnt, uint32_t h)
{
    uint32_t r = ++L->next_region, entry = UINT32_MAX, nentry = 0;
    bool self_loop = false;
    for (uint32_t i = 0; i < cnt; i++)
        L->region[mine[i]] = r;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t b = mine[i];
        bool outside = b == 0;  /* the function's entry */
        for (uint32_t p = L->pred_start[b]; p < L->pred_start[b + 1]; p++) {
            outside |= L->region[L->preds[p]] != r;
            self_loop |= L->preds[p] == b && b != h;
        }
        if (outside) {
            entry = b;
            nentry++;
        }
    }
    if (cnt == 1 && !self_loop) {
        L->item_of[mine[0]] = L->nitems;
        L->items[L->nitems++] = mine[0];
    }
    else if (nentry != 1)
        L->failed = true;       /* irreducible */
    else
        place(L, mine, cnt, entry);  /* a loop, ordered without its back edges */
}

/* Orders blocks[0..nb) (a region, in original order); h: its loop header
 * (UINT32_MAX at the top), placed first, with the latch the loop needs. */
/* A min-heap of component numbers by their first block. */
typedef struct heap {
    uint32_t *v, n;
    const uint32_t *key;
} heap;

static void heap_push(heap *hp, uint32_t c)
{
    uint32_t i = hp->n++;
    while (i && hp->key[hp->v[(i - 1) / 2]] > hp->key[c]) {
        hp->v[i] = hp->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    hp->v[i] = c;
}

static uint32_t heap_pop(heap *hp)
{
    uint32_t top = hp->v[0], last = hp->v[--hp->n], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= hp->n)
            break;
        if (c + 1 < hp->n && hp->key[hp->v[c + 1]] < hp->key[hp->v[c]])
            c++;
        if (hp->key[hp->v[c]] >= hp->key[last])
            break;
        hp->v[i] = hp->v[c];
        i = c;
    }
    if (hp->n)
        hp->v[i] = last;
    return top;
}

static void place(layout *L, const uint32_t *blocks, uint32_t nb, uint32_t h)
{
    uint32_t r = L->region[blocks[0]], start = L->nitems;
    scc s = {.index = L->index, .low = L->low, .on = L->on};
    s.stack = malloc((nb + 1) * sizeof *s.stack);
    s.cstack = malloc((nb + 1) * sizeof *s.cstack);
    s.citer = malloc((nb + 1) * sizeof *s.citer);
    uint32_t counter = 0;
    for (uint32_t i = 0; i < nb; i++)
        if (!s.index[blocks[i]])
            tarjan(L, &s, r, h, blocks[i], &counter);
    for (uint32_t i = 0; i < nb; i++)   /* the scratch is shared by all regions */
        s.index[blocks[i]] = s.low[blocks[i]] = 0;
    /* the components' blocks (in original order) and in-degrees */
    uint32_t nc = s.ncomp;
    uint32_t *indeg = calloc(nc + 1, sizeof *indeg), *minb = malloc((nc + 1) * sizeof *minb);
    uint32_t *cstart = calloc(nc + 2, sizeof *cstart), *cblocks = malloc((nb + 1) * sizeof *cblocks);
    for (uint32_t c = 0; c < nc; c++)
        minb[c] = UINT32_MAX;
    for (uint32_t i = 0; i < nb; i++) {
        uint32_t b = blocks[i], c = L->comp[b];
        cstart[c + 1]++;
        if (b < minb[c])
            minb[c] = b;
        for (uint8_t k = 0; k < L->nsucc[b]; k++) {
            uint32_t t = L->succ[b][k];
            if (in_region(L, r, t) && t != h && L->comp[t] != c)
                indeg[L->comp[t]]++;
        }
    }
    for (uint32_t c = 0; c < nc; c++)
        cstart[c + 1] += cstart[c];
    uint32_t *fill = calloc(nc + 1, sizeof *fill);
    for (uint32_t i = 0; i < nb; i++) {
        uint32_t c = L->comp[blocks[i]];
        cblocks[cstart[c] + fill[c]++] = blocks[i];
    }
    free(fill);
    /* Kahn's order of the components: among those ready, the one whose
     * first block comes first in the original order */
    heap ready = {.v = malloc((nc + 1) * sizeof *ready.v), .key = minb};
    for (uint32_t c = 0; c < nc; c++)
        if (!indeg[c])
            heap_push(&ready, c);
    for (uint32_t placed = 0; placed < nc && !L->failed; placed++) {
        if (!ready.n) {
            L->failed = true;
            break;
        }
        uint32_t best = heap_pop(&ready);
        uint32_t *mine = &cblocks[cstart[best]], cnt = cstart[best + 1] - cstart[best];
        for (uint32_t i = 0; i < cnt; i++) {
            uint32_t b = mine[i];
            for (uint8_t k = 0; k < L->nsucc[b]; k++) {
                uint32_t t = L->succ[b][k];
                if (in_region(L, r, t) && t != h && L->comp[t] != best && !--indeg[L->comp[t]])
                    heap_push(&ready, L->comp[t]);
            }
        }
        place_comp(L, mine, cnt, h);    /* moves its blocks out of region r */
    }
    if (h != UINT32_MAX && !L->failed) {
        /* one back edge from the loop's last block needs no latch; every
         * block of the loop is placed by now, after start */
        uint32_t nback = 0, lastb = L->items[L->nitems - 1];
        bool from_last = false;
        for (uint32_t p = L->pred_start[h]; p < L->pred_start[h + 1]; p++) {
            uint32_t q = L->preds[p];
            if (L->item_of[q] >= start && L->item_of[q] != UINT32_MAX) {
                nback++;
                from_last |= q == lastb;
            }
        }
        L->multi_back |= nback > 1;
        if (nback > 1 || !from_last) {
            L->latch[h] = true;
            L->items[L->nitems++] = L->n + h;
        }
        L->first[h] = start;
        L->last[h] = L->nitems - 1;
    }
    free(ready.v);
    free(indeg);
    free(minb);
    free(cstart);
    free(cblocks);
    free(s.stack);
    free(s.cstack);
    free(s.citer);
}

/* ---- the new function --------------------------------------------------- */

typedef struct emit {
    ptx_func *g;
    uint32_t nold;              /* the original function's labels */
    uint32_t *block_label;      /* a label of each block's start, or UINT32_MAX */
    uint32_t *latch_label;
    uint32_t *new_item;         /* label nold + i: the item it starts */
} emit;

static uint32_t new_label(emit *e, const char *fmt, uint32_t k, uint32_t item)
{
    char name[48];
    snprintf(name, sizeof name, fmt, k);
    ptx_label *lb = &e->g->labels[e->g->nlabels];
    lb->name = strdup(name);
    lb->ins = 0;
    e->new_item[e->g->nlabels - e->nold] = item;
    return e->g->nlabels++;
}

static void push_bra(emit *e, uint32_t label, const ptx_ins *near)
{
    ptx_ins *b = &e->g->ins[e->g->nins++];
    memset(b, 0, sizeof *b);
    b->op = PTX_OP_bra;
    b->guard_reg = -1;
    b->nmods = 1;
    b->mods[0] = PTX_MOD_uni;
    b->flags = PTX_F(uni);
    b->vec = 1;
    b->nopnds = 1;
    b->opnds[0].kind = PTX_OPND_LABEL;
    b->opnds[0].reg = b->opnds[0].reg2 = -1;
    b->opnds[0].label = (int32_t)label;
    if (near) {
        b->line = near->line;
        b->col = near->col;
        b->loc_file = near->loc_file;
        b->loc_line = near->loc_line;
    }
}

/* The item an edge from item i to block t goes to: t's latch (n + t) for
 * a back edge from inside a loop that has one, else t. */
static uint32_t edge_item(const layout *L, uint32_t i, uint32_t t)
{
    return t < L->n && L->latch[t] && i >= L->first[t] && i <= L->last[t] ? L->n + t : t;
}

static uint32_t item_label(const layout *L, emit *e, uint32_t item)
{
    if (item >= L->n)
        return e->latch_label[item - L->n];
    if (e->block_label[item] == UINT32_MAX)
        e->block_label[item] = new_label(e, "$zn_B%u", item, item);
    return e->block_label[item];
}

static ptx_func *build(layout *L)
{
    const zn_lfn *l = L->l;
    const ptx_func *f = l->f;
    uint32_t n = L->n;
    emit e = {.nold = f->nlabels};
    e.g = malloc(sizeof *e.g);
    *e.g = *f;
    e.g->ins = malloc((f->nins + 2 * L->nitems + 1) * sizeof *e.g->ins);
    e.g->labels = malloc((f->nlabels + 2 * n + 1) * sizeof *e.g->labels);
    e.new_item = malloc((2 * n + 1) * sizeof *e.new_item);
    e.g->nins = 0;
    e.g->nlabels = f->nlabels;
    e.block_label = malloc((n + 1) * sizeof *e.block_label);
    e.latch_label = malloc((n + 1) * sizeof *e.latch_label);
    uint32_t *pos = malloc((2 * n + 1) * sizeof *pos);  /* item -> its first ins */
    for (uint32_t b = 0; b <= n; b++)
        e.block_label[b] = e.latch_label[b] = UINT32_MAX;
    for (uint32_t i = 0; i < f->nlabels; i++) {
        e.g->labels[i].name = strdup(f->labels[i].name);
        uint32_t b = l->block_of_ins[f->labels[i].ins];
        if (e.block_label[b] == UINT32_MAX)
            e.block_label[b] = i;
    }
    for (uint32_t h = 0; h < n; h++)
        if (L->latch[h])
            e.latch_label[h] = new_label(&e, "$zn_L%u", h, n + h);
    for (uint32_t i = 0; i < L->nitems; i++) {
        uint32_t it = L->items[i];
        uint32_t next = i + 1 < L->nitems ? L->items[i + 1] : UINT32_MAX;
        pos[it] = e.g->nins;
        if (it >= n) {      /* a latch: back to its header */
            uint32_t h = it - n;
            push_bra(&e, item_label(L, &e, h), &f->ins[l->block_start[h]]);
            continue;
        }
        uint32_t s = l->block_start[it], end = l->block_start[it + 1];
        bool flipped = false;
        for (uint32_t k = s; k < end; k++) {
            ptx_ins *c = &e.g->ins[e.g->nins++];
            *c = f->ins[k];
            if (k + 1 == end && c->op == PTX_OP_bra && c->opnds[0].kind == PTX_OPND_LABEL) {
                uint32_t t = edge_item(L, i, l->block_of_ins[f->labels[c->opnds[0].label].ins]);
                uint32_t fall = it + 1 < n ? edge_item(L, i, it + 1) : UINT32_MAX;
                /* `@p bra T` followed by T: `@!p bra F` instead of a stub
                 * block (which would sit before the region it ends) */
                if (c->guard_reg >= 0 && t == next && fall != next && fall != UINT32_MAX) {
                    c->guard_neg = !c->guard_neg;
                    t = fall;
                    flipped = true;
                }
                c->opnds[0].label = (int32_t)item_label(L, &e, t);
            }
        }
        /* the fallthrough, when the block has one */
        const ptx_ins *t = end > s ? &f->ins[end - 1] : NULL;
        bool falls = !t || t->guard_reg >= 0 ||
                     !(t->op == PTX_OP_bra || t->op == PTX_OP_ret || t->op == PTX_OP_exit);
        if (!falls || flipped)
            continue;
        if (it + 1 >= n) {      /* it fell off the end: return */
            if (next != UINT32_MAX) {
                ptx_ins *r = &e.g->ins[e.g->nins++];
                memset(r, 0, sizeof *r);
                r->op = PTX_OP_ret;
                r->guard_reg = -1;
                r->vec = 1;
                if (t) {
                    r->line = t->line;
                    r->loc_file = t->loc_file;
                    r->loc_line = t->loc_line;
                }
            }
            continue;
        }
        uint32_t to = edge_item(L, i, it + 1);
        if (to != next)
            push_bra(&e, item_label(L, &e, to), t);
    }
    for (uint32_t i = 0; i < f->nlabels; i++)
        e.g->labels[i].ins = pos[l->block_of_ins[f->labels[i].ins]];
    for (uint32_t i = f->nlabels; i < e.g->nlabels; i++)
        e.g->labels[i].ins = pos[e.new_item[i - f->nlabels]];
    free(pos);
    free(e.new_item);
    free(e.block_label);
    free(e.latch_label);
    return e.g;
}

void zn_layout_free(ptx_func *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->nlabels; i++)
        free((char *)g->labels[i].name);
    free(g->labels);
    free(g->ins);
    free(g);
}

ptx_func *zn_layout_func(const zn_lfn *l, bool needed)
{
    const ptx_func *f = l->f;
    uint32_t n = l->nblocks;
    if (!n || n > 100000 || getenv("ZINC_NO_LAYOUT"))  /* for A/B comparisons */
        return NULL;
    for (uint32_t i = 0; i < f->nlabels; i++)
        if (f->labels[i].ins >= f->nins)
            return NULL;
    layout L = {.l = l, .n = n};
    L.succ = calloc(n + 1, sizeof *L.succ);
    L.nsucc = calloc(n + 1, 1);
    L.pred_start = calloc(n + 2, sizeof *L.pred_start);
    L.items = malloc((2 * n + 1) * sizeof *L.items);
    L.first = calloc(n + 1, sizeof *L.first);
    L.last = calloc(n + 1, sizeof *L.last);
    L.latch = calloc(n + 1, 1);
    L.comp = calloc(n + 1, sizeof *L.comp);
    L.region = calloc(n + 1, sizeof *L.region);
    L.item_of = malloc((n + 1) * sizeof *L.item_of);
    memset(L.item_of, 0xff, (n + 1) * sizeof *L.item_of);
    L.index = calloc(n + 1, sizeof *L.index);
    L.low = calloc(n + 1, sizeof *L.low);
    L.on = calloc(n + 1, 1);
    for (uint32_t b = 0; b < n && !L.failed; b++) {
        uint32_t out[2];
        int c = zn_block_succs(l, b, out);
        if (c < 0) {
            L.failed = true;
            break;
        }
        for (int k = 0; k < c; k++)
            if (out[k] < n && (k == 0 || out[k] != L.succ[b][0]))
                L.succ[b][L.nsucc[b]++] = out[k];
    }
    ptx_func *g = NULL;
    if (!L.failed) {
        for (uint32_t b = 0; b < n; b++)
            for (uint8_t k = 0; k < L.nsucc[b]; k++)
                L.pred_start[L.succ[b][k] + 1]++;
        for (uint32_t b = 0; b < n; b++)
            L.pred_start[b + 1] += L.pred_start[b];
        L.preds = malloc((L.pred_start[n] + 1) * sizeof *L.preds);
        uint32_t *fill = calloc(n + 1, sizeof *fill);
        for (uint32_t b = 0; b < n; b++)
            for (uint8_t k = 0; k < L.nsucc[b]; k++) {
                uint32_t t = L.succ[b][k];
                L.preds[L.pred_start[t] + fill[t]++] = b;
            }
        free(fill);
        /* unreachable blocks take part too: every block is placed */
        uint32_t *all = malloc((n + 1) * sizeof *all);
        for (uint32_t b = 0; b < n; b++)
            all[b] = b;
        L.next_region = 0;
        place(&L, all, n, UINT32_MAX);
        free(all);
        bool same = L.nitems == n;
        for (uint32_t i = 0; i < L.nitems && same; i++)
            same = L.items[i] == i;
        /* two back edges: lanes taking one run the header again while
         * others of the same iteration are still on their way to the
         * other, whatever the analysis said about the branches */
        if (!L.failed && !same && L.items[0] == 0 && (needed || L.multi_back))
            g = build(&L);
    }
    free(L.succ);
    free(L.nsucc);
    free(L.pred_start);
    free(L.preds);
    free(L.items);
    free(L.first);
    free(L.last);
    free(L.latch);
    free(L.comp);
    free(L.region);
    free(L.item_of);
    free(L.index);
    free(L.low);
    free(L.on);
    return g;
}
