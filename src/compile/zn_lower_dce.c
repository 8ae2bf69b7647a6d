/* zn_lower_dce.c: drops the computations whose only effect is a write to a
 * register nothing reads, before LLVM's pipeline sees the function.
 *
 * Why not leave it to LLVM: a proven access's fall-back path rebuilds its
 * per-lane addresses from the definitions (zn_affine_lanes), so the address
 * register's own <32 x i64> definition at the top of the kernel is read by
 * nobody. LLVM would delete it, but only after EarlyCSE has already merged
 * the fall-back's identical copy into that dominating definition (SROA
 * makes it dead only together with its uses), which put the vector
 * arithmetic back on every warp's path. Deleting the dead writes first
 * leaves the copies where they are: on the paths that need them.
 *
 * A mark-and-sweep over the instructions, as LLVM's ADCE but aware of the
 * registers' allocas: an alloca used only by loads and stores (a PTX
 * register, a mask or pc slot) is live when one of its loads is, and its
 * stores are live only then. Roots are everything with an effect:
 * terminators, calls, stores elsewhere, loads from other memory. */
#include "zn_lower.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct dce_set {
    LLVMValueRef *slot;
    size_t mask;
} dce_set;

static size_t dce_hash(LLVMValueRef v, size_t mask)
{
    uintptr_t x = (uintptr_t)v;
    x ^= x >> 17;
    x *= 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 29) & mask;
}

/* true: newly added */
static bool dce_add(dce_set *s, LLVMValueRef v)
{
    for (size_t i = dce_hash(v, s->mask);; i = (i + 1) & s->mask) {
        if (s->slot[i] == v)
            return false;
        if (!s->slot[i]) {
            s->slot[i] = v;
            return true;
        }
    }
}

static bool dce_has(const dce_set *s, LLVMValueRef v)
{
    for (size_t i = dce_hash(v, s->mask);; i = (i + 1) & s->mask) {
        if (s->slot[i] == v)
            return true;
        if (!s->slot[i])
            return false;
    }
}

/* an alloca only loaded from and stored to (as the address) */
static bool is_slot(LLVMValueRef a)
{
    if (!a || !LLVMIsAAllocaInst(a))
        return false;
    for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMIsALoadInst(user) && !LLVMGetVolatile(user))
            continue;
        if (LLVMIsAStoreInst(user) && !LLVMGetVolatile(user) &&
            LLVMGetOperand(user, 1) == a && LLVMGetOperand(user, 0) != a)
            continue;
        return false;
    }
    return true;
}

/* no effect but its value; slots: the function's is_slot allocas */
static bool is_pure(const dce_set *slots, LLVMValueRef i)
{
    switch (LLVMGetInstructionOpcode(i)) {
    case LLVMAdd: case LLVMFAdd: case LLVMSub: case LLVMFSub: case LLVMMul: case LLVMFMul:
    case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor:
    case LLVMFDiv: case LLVMFRem: case LLVMFNeg:
    case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI: case LLVMFPToSI:
    case LLVMUIToFP: case LLVMSIToFP: case LLVMFPTrunc: case LLVMFPExt: case LLVMPtrToInt:
    case LLVMIntToPtr: case LLVMBitCast:
    case LLVMICmp: case LLVMFCmp: case LLVMSelect: case LLVMGetElementPtr: case LLVMPHI:
    case LLVMExtractElement: case LLVMInsertElement: case LLVMShuffleVector:
    case LLVMExtractValue: case LLVMInsertValue: case LLVMFreeze:
        return true;
    case LLVMLoad:
        return dce_has(slots, LLVMGetOperand(i, 0));
    case LLVMStore:
        return dce_has(slots, LLVMGetOperand(i, 1));
    case LLVMAlloca:
        return dce_has(slots, i);
    default:
        return false;   /* calls, terminators, other memory, divisions */
    }
}

typedef struct dce_walk {
    dce_set live;
    LLVMValueRef *stack;
    size_t n;
} dce_walk;

static void mark(dce_walk *w, LLVMValueRef v)
{
    if (v && LLVMIsAInstruction(v) && dce_add(&w->live, v))
        w->stack[w->n++] = v;
}

void zn_drop_dead_writes(zn_lfn *l)
{
    size_t count = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(l->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            count++;
    size_t cap = 16;
    while (cap < 2 * count)
        cap *= 2;
    dce_walk w = {.live = {calloc(cap, sizeof(LLVMValueRef)), cap - 1},
                  .stack = malloc((count + 1) * sizeof(LLVMValueRef))};
    dce_set slots = {calloc(cap, sizeof(LLVMValueRef)), cap - 1};
    LLVMValueRef *dead = malloc((count + 1) * sizeof(LLVMValueRef));
    if (!w.live.slot || !w.stack || !slots.slot || !dead)
        goto out;   /* only an optimisation */
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(l->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            if (is_slot(i))
                dce_add(&slots, i);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(l->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            if (!is_pure(&slots, i))
                mark(&w, i);
    while (w.n) {
        LLVMValueRef i = w.stack[--w.n];
        int nops = LLVMGetNumOperands(i);
        for (int k = 0; k < nops; k++)
            mark(&w, LLVMGetOperand(i, k));
        if (LLVMIsALoadInst(i)) {
            /* a live read of a slot: every write of it is live */
            LLVMValueRef a = LLVMGetOperand(i, 0);
            if (dce_has(&slots, a))
                for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u))
                    if (LLVMIsAStoreInst(LLVMGetUser(u)))
                        mark(&w, LLVMGetUser(u));
        }
    }
    size_t ndead = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(l->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            if (!dce_has(&w.live, i))
                dead[ndead++] = i;
    /* their users are dead too: cut the uses, then erase */
    for (size_t k = 0; k < ndead; k++)
        if (LLVMGetTypeKind(LLVMTypeOf(dead[k])) != LLVMVoidTypeKind)
            LLVMReplaceAllUsesWith(dead[k], LLVMGetPoison(LLVMTypeOf(dead[k])));
    for (size_t k = 0; k < ndead; k++)
        LLVMInstructionEraseFromParent(dead[k]);
out:
    free(slots.slot);
    free(w.live.slot);
    free(w.stack);
    free(dead);
}
