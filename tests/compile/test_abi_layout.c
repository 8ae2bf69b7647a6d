/* test_abi_layout.c: the LLVM struct types the compiler builds for the
 * kernel ABI must have the same field offsets and sizes as the C structs of
 * exec/zn_kernel_abi.h on this machine. */
#include <stddef.h>
#include <stdio.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include "zn_lower.h"

static int failures;

static void check_off(LLVMTargetDataRef td, LLVMTypeRef st, unsigned field,
                      size_t want, const char *what)
{
    unsigned long long got = LLVMOffsetOfElement(td, st, field);
    if (got != want) {
        fprintf(stderr, "FAIL %s: LLVM offset %llu, C offset %zu\n", what, got, want);
        failures++;
    }
}

int main(void)
{
    LLVMInitializeNativeTarget();
    char *triple = LLVMGetDefaultTargetTriple();
    LLVMTargetRef t;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(triple, &t, &msg)) {
        fprintf(stderr, "no target: %s\n", msg);
        return 1;
    }
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(t, triple, "generic", "",
        LLVMCodeGenLevelDefault, LLVMRelocDefault, LLVMCodeModelDefault);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    zn_lmod m = {0};
    m.ctx = LLVMContextCreate();
    m.t_i32 = LLVMInt32TypeInContext(m.ctx);
    m.t_ptr = LLVMPointerTypeInContext(m.ctx, 0);
    zn_abi_types(&m);

#define B(f, F) check_off(td, m.t_block, ZN_BLOCK_FIELD_##F, offsetof(zn_block_ctx, f), "block." #f)
    B(ctaid, CTAID); B(nctaid, NCTAID); B(ntid, NTID); B(nthreads, NTHREADS);
    B(shared, SHARED); B(shared_size, SHARED_SIZE); B(dyn_shared_size, DYN_SHARED_SIZE);
    B(params, PARAMS); B(grid_ws, GRID_WS); B(cluster_dim, CLUSTER_DIM);
    B(cluster_flags, CLUSTER_FLAGS); B(cluster, CLUSTER);
    B(warps_left, WARPS_LEFT);
#define W(f, F) check_off(td, m.t_warp, ZN_WARP_FIELD_##F, offsetof(zn_warp_ctx, f), "warp." #f)
    W(block, BLOCK); W(warpid, WARPID); W(live_mask, LIVE_MASK); W(rt, RT);
    W(smid, SMID); W(nsmid, NSMID); W(co_status, CO_STATUS);
    W(co_frame, CO_FRAME); W(co_wait, CO_WAIT);
    W(co_cap, CO_CAP); W(tid, TID);
#define R(f, F) check_off(td, m.t_rt, ZN_RT_##F, offsetof(zn_rt_ops, f), "rt." #f)
    R(barrier, BARRIER); R(assertfail, ASSERTFAIL); R(vprintf, VPRINTF);
    R(clock64, CLOCK64); R(globaltimer, GLOBALTIMER); R(malloc, MALLOC); R(free, FREE);
    R(memcheck, MEMCHECK); R(tex, TEX); R(spin, SPIN); R(cluster_barrier, CLUSTER_BARRIER);
    R(coro_frame, CORO_FRAME);

    if (LLVMABISizeOfType(td, m.t_block) != sizeof(zn_block_ctx) ||
        LLVMABISizeOfType(td, m.t_warp) != sizeof(zn_warp_ctx) ||
        LLVMABISizeOfType(td, m.t_rt) != sizeof(zn_rt_ops)) {
        fprintf(stderr, "FAIL struct sizes differ\n");
        failures++;
    }
    LLVMDisposeTargetData(td);
    LLVMDisposeTargetMachine(tm);
    LLVMContextDispose(m.ctx);
    LLVMDisposeMessage(triple);
    if (!failures)
        printf("test_abi_layout: all passed\n");
    return failures != 0;
}
