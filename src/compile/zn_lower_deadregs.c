/* zn_lower_deadregs.c: registers dead for every lane from some block on.
 *
 * A register that lives across blocks flows through the resume chain
 * (zn_lower_func.c): every block some lane can wait at is entered from its
 * resume test as well as from its predecessors, and a masked write
 * select(mask, new, old) reads the old value. So mem2reg gives it a phi in
 * every such block from its first write to the function's end and around
 * every loop it is in, even when its PTX live range is two blocks. libcu++'s
 * cooperative memcpy_async unrolls a copy loop 64 times with a divergent
 * exit per step: each step's address and index registers live from one
 * step to the next, but became 280 registers with phis in 65 blocks and a
 * coroutine frame of 1.3 MB; LLVM took 35 s on that kernel (tests'
 * libcu_barrier: 50-110 s per binary, near CTest's timeout under load).
 *
 * The lanes of a warp wait only at blocks at or after the one that runs:
 * a branch forward leaves them there and the warp resumes the lowest one,
 * a backward branch enters its target at once (zn_lower_func.c), jump
 * threading only sends lanes further on (zn_lower_thread.c). So when block
 * m starts, every lane, running or waiting, is at a block >= m, and a
 * register live into no block >= m (PTX liveness over the blocks' edges)
 * is never read again by any lane before being written: its value can be
 * undef there. Each such register gets an undef store at the start of the
 * first block after its last live one and of every later block that can
 * be entered other than from the block before it (a branch target or a
 * resume test's block), which cuts every path that would carry the old
 * value, back edges included; mem2reg then ends its live range there.
 *
 * Liveness counts, besides the PTX reads, every read the lowering itself
 * made of a register (zn_load_reg, noted with the instruction it was
 * lowering): an analysis that walks definitions (the affine one) may read
 * an operand of a definition where the result is used, not where the PTX
 * reads it. (Those walks read invariant and uniform registers, which are
 * never ended, or registers of the same block; the note keeps any other
 * case correct.) A masked write's read of the old value is not counted:
 * it keeps the value for lanes outside the mask, which by the above need
 * it only where it is live.
 *
 * Kernels only (a .func's register parameters and results are read
 * outside any block), without brx.idx (lanes may wait anywhere) or
 * parked barriers (zn_lower_park.c). Uniform and invariant registers are
 * scalars or a single SSA value and are left alone, as are demoted ones
 * (zn_lower_demote.c). ZINC_NO_DEAD_REGS=1 turns it off (in the kernel
 * cache key). */
#include "zn_lower.h"
#include "zn_pipeline.h"
#include "util/zn_log.h"

#include <stdlib.h>
#include <string.h>

/* undef stores above which a function gets none (they are free after
 * mem2reg, but each is an instruction until then) */
#define ZN_DEAD_KILLS_MAX 2000000u

bool zn_dead_regs_disabled(void)
{
    const char *s = getenv("ZINC_NO_DEAD_REGS");
    return s && *s && *s != '0';
}

static size_t words(const zn_lfn *l)
{
    return ((size_t)l->f->nregs + 63) / 64;
}

static bool bit(const uint64_t *set, uint32_t r)
{
    return set[r / 64] >> (r % 64) & 1;
}

static void set_bit(uint64_t *set, uint32_t r)
{
    set[r / 64] |= (uint64_t)1 << (r % 64);
}

/* a read the lowering made: of reg, while lowering instruction ins */
typedef struct zn_dead_read {
    uint32_t ins;
    int32_t reg;
} zn_dead_read;

struct zn_dead_reads {
    zn_dead_read *v;
    size_t n, cap;
};

void zn_dead_regs_begin(zn_lfn *l)
{
    l->dead_reads = NULL;
    /* a store needs a block after the register's last live one and a
     * path around it: two blocks or fewer gain nothing */
    if (!l->is_entry || l->nblocks < 3 || l->has_brx || zn_dead_regs_disabled())
        return;
    l->dead_reads = calloc(1, sizeof *l->dead_reads);
}

void zn_dead_regs_note_read(zn_lfn *l, int32_t reg)
{
    zn_dead_reads *d = l->dead_reads;
    if (!d || reg < 0 || (uint32_t)reg >= l->f->nregs || l->cur_block >= l->nblocks)
        return;
    /* outside an instruction of the block (its start, the prologue): at
     * the block's start */
    uint32_t at = l->block_start[l->cur_block];
    if (l->ins && l->ins >= l->f->ins + at && l->ins < l->f->ins + l->block_start[l->cur_block + 1])
        at = (uint32_t)(l->ins - l->f->ins);
    if (d->n && d->v[d->n - 1].ins == at && d->v[d->n - 1].reg == reg)
        return;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 1024;
        zn_dead_read *v = realloc(d->v, cap * sizeof *v);
        if (!v) {   /* without the record nothing may be ended */
            free(d->v);
            free(d);
            l->dead_reads = NULL;
            return;
        }
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = (zn_dead_read){at, reg};
}

void zn_dead_regs_free(zn_lfn *l)
{
    if (l->dead_reads)
        free(l->dead_reads->v);
    free(l->dead_reads);
    l->dead_reads = NULL;
}

static int by_ins(const void *a, const void *b)
{
    const zn_dead_read *x = a, *y = b;
    return x->ins < y->ins ? -1 : x->ins > y->ins;
}

/* upward-exposed reads and full writes of one block */
typedef struct block_scan {
    uint64_t *use, *def;
} block_scan;

static void on_read(int32_t r, void *ud)
{
    block_scan *s = ud;
    if (r >= 0 && !bit(s->def, (uint32_t)r))
        set_bit(s->use, (uint32_t)r);
}

static void on_write(int32_t r, void *ud)
{
    block_scan *s = ud;
    if (r >= 0)
        set_bit(s->def, (uint32_t)r);
}

/* live_in[k] for every block, or NULL when a block's successors are
 * unknown */
static uint64_t *live_in_sets(zn_lfn *l)
{
    uint32_t n = l->nblocks;
    size_t w = words(l);
    uint64_t *use = calloc((size_t)n * w, sizeof(uint64_t));
    uint64_t *def = calloc((size_t)n * w, sizeof(uint64_t));
    uint64_t *in = calloc((size_t)(n + 1) * w, sizeof(uint64_t));  /* [n]: returned */
    uint32_t (*succ)[2] = calloc(n, sizeof *succ);
    uint8_t *nsucc = calloc(n, 1);
    bool ok = use && def && in && succ && nsucc;
    zn_dead_reads *d = l->dead_reads;
    if (d->n)
        qsort(d->v, d->n, sizeof *d->v, by_ins);
    size_t next = 0;
    for (uint32_t k = 0; ok && k < n; k++) {
        block_scan s = {use + (size_t)k * w, def + (size_t)k * w};
        for (uint32_t i = l->block_start[k]; i < l->block_start[k + 1]; i++) {
            /* the lowering's reads for instruction i, then its own */
            for (; next < d->n && d->v[next].ins <= i; next++)
                on_read(d->v[next].reg, &s);
            zn_ins_regs(&l->f->ins[i], on_read, on_write, &s);
        }
        int c = zn_block_succs(l, k, succ[k]);
        ok = c >= 0;
        nsucc[k] = (uint8_t)(c < 0 ? 0 : c);
    }
    /* in[k] = use[k] | (out[k] & ~def[k]), to a fixed point */
    for (bool changed = ok; changed;) {
        changed = false;
        for (uint32_t k = n; k-- > 0;) {
            uint64_t *ik = in + (size_t)k * w;
            for (size_t i = 0; i < w; i++) {
                uint64_t out = 0;
                for (uint8_t j = 0; j < nsucc[k]; j++)
                    out |= in[(size_t)succ[k][j] * w + i];
                uint64_t v = use[(size_t)k * w + i] | (out & ~def[(size_t)k * w + i]);
                if (v != ik[i]) {
                    ik[i] = v;
                    changed = true;
                }
            }
        }
    }
    free(use);
    free(def);
    free(succ);
    free(nsucc);
    if (!ok) {
        free(in);
        return NULL;
    }
    return in;
}

/* the registers worth a kill: vector registers that cross blocks */
static bool candidate(const zn_lfn *l, uint32_t r)
{
    return !(l->reg_blocal && l->reg_blocal[r]) && !(l->reg_uni && l->reg_uni[r]) &&
           !(l->reg_inv && l->reg_inv[r]);
}

/* whether a register whose last live block is `last` gets its undef store
 * at block m (> last): the block after `last`, and every later one entered
 * other than from the block before it */
static bool ends_at(int32_t last, const bool *entry, uint32_t m)
{
    return m == (uint32_t)last + 1 || entry[m];
}

void zn_dead_regs_finish(zn_lfn *l)
{
    if (!l->dead_reads)
        return;
    uint64_t *in = l->has_park || l->regs_demoted ? NULL : live_in_sets(l);
    zn_dead_regs_free(l);
    if (!in)
        return;
    const ptx_func *f = l->f;
    uint32_t n = l->nblocks;
    size_t w = words(l);
    /* blocks entered other than from the block before them */
    bool *entry = calloc(n + 1, sizeof *entry);
    /* per register: the last block it is live into, -1 when it is left
     * alone (never live into a block, or not a candidate) */
    int32_t *last = malloc((f->nregs + 1) * sizeof *last);
    if (!entry || !last) {
        free(entry);
        free(last);
        free(in);
        return;
    }
    for (uint32_t i = 0; i < f->nlabels; i++)
        if (f->labels[i].ins < f->nins)
            entry[l->block_of_ins[f->labels[i].ins]] = true;
    for (uint32_t k = 0; k < n; k++)
        entry[k] |= l->goto_target[k];
    uint64_t kills = 0;
    for (uint32_t r = 0; r < f->nregs; r++) {
        last[r] = -1;
        for (uint32_t k = n; candidate(l, r) && k-- > 0;)
            if (bit(in + (size_t)k * w, r)) {
                last[r] = (int32_t)k;
                break;
            }
        for (uint32_t m = (uint32_t)(last[r] + 1); last[r] >= 0 && m < n; m++)
            kills += ends_at(last[r], entry, m);
    }
    zn_log(ZN_LOG_DEBUG, "deadregs: %s: %llu undef stores", f->name, (unsigned long long)kills);
    for (uint32_t r = 0; kills <= ZN_DEAD_KILLS_MAX && r < f->nregs; r++) {
        for (uint32_t m = (uint32_t)(last[r] + 1); last[r] >= 0 && m < n; m++) {
            if (!ends_at(last[r], entry, m))
                continue;
            LLVMPositionBuilderBefore(l->b, LLVMGetFirstInstruction(l->bbs[m]));
            LLVMBuildStore(l->b, LLVMGetUndef(l->reg_ty[r]), l->regs[r]);
        }
    }
    free(entry);
    free(last);
    free(in);
}
