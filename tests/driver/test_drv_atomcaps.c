/* test_drv_atomcaps.c: cuDeviceGetHostAtomicCapabilities and
 * cuDeviceGetP2PAtomicCapabilities (CUDA 13).
 *
 * The answers are checked against what PTX offers on global memory (the
 * table below, written from the PTX ISA: atom/red on .s32/.u32/.s64/.u64
 * and .b32/.b64, inc/dec on .u32 only, exch/cas without a red form, f32/f64
 * add/min/max, no 128-bit or vector atomics here). The host claim is then
 * exercised: a kernel's atom.add.u64, atom.or.b32 and atom.max.s32 race the
 * host's own atomics on the same words of pinned memory; no update may be
 * lost. One device: every P2P query is CUDA_ERROR_INVALID_DEVICE.
 */
#include <cuda.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "drv_test.h"

enum { ITERS = 2000, THREADS = 64 };

/* k(ctr, bits, maxv): each thread adds 1 to *ctr ITERS times, ors bit
 * (tid % 32) into *bits and maxes its tid into *maxv. */
static const char ptx[] =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry k(.param .u64 ctr, .param .u64 bits, .param .u64 maxv, .param .u32 n)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [ctr];\n"
    "    ld.param.u64 %rd2, [bits];\n"
    "    ld.param.u64 %rd3, [maxv];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    cvta.to.global.u64 %rd2, %rd2;\n"
    "    cvta.to.global.u64 %rd3, %rd3;\n"
    "    mov.u32 %r2, %tid.x;\n"
    "    and.b32 %r3, %r2, 31;\n"
    "    mov.u32 %r4, 1;\n"
    "    shl.b32 %r4, %r4, %r3;\n"
    "    atom.global.or.b32 %r5, [%rd2], %r4;\n"
    "    atom.global.max.s32 %r5, [%rd3], %r2;\n"
    "    mov.u32 %r6, 0;\n"
    "LOOP:\n"
    "    atom.global.add.u64 %rd4, [%rd1], 1;\n"
    "    add.u32 %r6, %r6, 1;\n"
    "    setp.lt.u32 %p1, %r6, %r1;\n"
    "    @%p1 bra LOOP;\n"
    "    ret;\n"
    "}\n";

enum {
    S = CU_ATOMIC_CAPABILITY_SIGNED, U = CU_ATOMIC_CAPABILITY_UNSIGNED,
    R = CU_ATOMIC_CAPABILITY_REDUCTION, B32 = CU_ATOMIC_CAPABILITY_SCALAR_32,
    B64 = CU_ATOMIC_CAPABILITY_SCALAR_64
};

static const unsigned want[CU_ATOMIC_OPERATION_MAX] = {
    [CU_ATOMIC_OPERATION_INTEGER_ADD] = S | U | R | B32 | B64,
    [CU_ATOMIC_OPERATION_INTEGER_MIN] = S | U | R | B32 | B64,
    [CU_ATOMIC_OPERATION_INTEGER_MAX] = S | U | R | B32 | B64,
    [CU_ATOMIC_OPERATION_INTEGER_INCREMENT] = U | R | B32,
    [CU_ATOMIC_OPERATION_INTEGER_DECREMENT] = U | R | B32,
    [CU_ATOMIC_OPERATION_AND] = S | U | R | B32 | B64,
    [CU_ATOMIC_OPERATION_OR] = S | U | R | B32 | B64,
    [CU_ATOMIC_OPERATION_XOR] = S | U | R | B32 | B64,
    [CU_ATOMIC_OPERATION_EXCHANGE] = S | U | B32 | B64,
    [CU_ATOMIC_OPERATION_CAS] = S | U | B32 | B64,
    [CU_ATOMIC_OPERATION_FLOAT_ADD] = R | B32 | B64,
    [CU_ATOMIC_OPERATION_FLOAT_MIN] = R | B32 | B64,
    [CU_ATOMIC_OPERATION_FLOAT_MAX] = R | B32 | B64,
};

typedef struct race {
    uint64_t *ctr;
    uint32_t *bits;
    int32_t *maxv;
} race;

static void *host_side(void *arg)
{
    race *r = arg;
    __atomic_fetch_or(r->bits, 1u << 31, __ATOMIC_SEQ_CST);
    int32_t old = __atomic_load_n(r->maxv, __ATOMIC_SEQ_CST);
    while (old < 1000 && !__atomic_compare_exchange_n(r->maxv, &old, 1000, false,
                                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    for (int i = 0; i < ITERS * THREADS; i++)
        __atomic_fetch_add(r->ctr, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);

    CUatomicOperation ops[CU_ATOMIC_OPERATION_MAX];
    unsigned caps[CU_ATOMIC_OPERATION_MAX];
    for (int i = 0; i < CU_ATOMIC_OPERATION_MAX; i++) {
        ops[i] = (CUatomicOperation)(CU_ATOMIC_OPERATION_MAX - 1 - i);   /* any order */
        caps[i] = 0xdead;
    }
    OK(cuDeviceGetHostAtomicCapabilities(caps, ops, CU_ATOMIC_OPERATION_MAX, dev));
    for (int i = 0; i < CU_ATOMIC_OPERATION_MAX; i++) {
        if (caps[i] != want[ops[i]])
            printf("op %d: caps 0x%x, want 0x%x\n", (int)ops[i], caps[i], want[ops[i]]);
        EXPECT(caps[i] == want[ops[i]]);
        EXPECT(!(caps[i] & (CU_ATOMIC_CAPABILITY_SCALAR_128 | CU_ATOMIC_CAPABILITY_VECTOR_32x4)));
    }
    /* misuse */
    CUatomicOperation badop = CU_ATOMIC_OPERATION_MAX;
    EXPECT_RC(cuDeviceGetHostAtomicCapabilities(caps, ops, 0, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetHostAtomicCapabilities(NULL, ops, 1, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetHostAtomicCapabilities(caps, NULL, 1, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetHostAtomicCapabilities(caps, &badop, 1, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetHostAtomicCapabilities(caps, ops, 1, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_RC(cuDeviceGetP2PAtomicCapabilities(caps, ops, 1, 0, 0), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_RC(cuDeviceGetP2PAtomicCapabilities(caps, ops, 1, 0, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_RC(cuDeviceGetP2PAtomicCapabilities(NULL, ops, 1, 0, 1), CUDA_ERROR_INVALID_VALUE);

    /* the claim: kernel and host atomics on the same words lose nothing */
    CUmodule mod;
    CUfunction k;
    OK(cuModuleLoadData(&mod, ptx));
    OK(cuModuleGetFunction(&k, mod, "k"));
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    void *mem;
    OK(cuMemHostAlloc(&mem, 64, CU_MEMHOSTALLOC_DEVICEMAP));
    memset(mem, 0, 64);
    race r = { (uint64_t *)mem, (uint32_t *)mem + 2, (int32_t *)mem + 3 };
    CUdeviceptr dctr, dbits, dmax;
    OK(cuMemHostGetDevicePointer(&dctr, r.ctr, 0));
    OK(cuMemHostGetDevicePointer(&dbits, r.bits, 0));
    OK(cuMemHostGetDevicePointer(&dmax, r.maxv, 0));
    unsigned n = ITERS;
    void *args[] = { &dctr, &dbits, &dmax, &n };
    OK(cuLaunchKernel(k, 1, 1, 1, THREADS, 1, 1, 0, s, args, NULL));
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, host_side, &r) == 0);
    pthread_join(t, NULL);
    OK(cuStreamSynchronize(s));
    EXPECT(*r.ctr == 2ull * ITERS * THREADS);
    EXPECT(*r.bits == 0xffffffffu);
    EXPECT(*r.maxv == 1000);
    OK(cuMemFreeHost(mem));
    OK(cuStreamDestroy(s));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_atomcaps");
}
