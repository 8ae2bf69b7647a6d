/* fuzz_launch.c: cuLaunchKernel / cuLaunchKernelEx with fuzzed arguments.
 *
 * One fixed module (hand-written PTX, no barrier) is loaded once through the
 * driver API. Each input picks grid and block dimensions, dynamic shared
 * bytes, a stream, the way parameters are passed (kernelParams, `extra`
 * with fuzzed keys / sizes / NULLs, both, neither) and the parameter bytes.
 * An independent model of CUDA's rules says which launches must fail and
 * which must succeed; a successful launch must then run every thread once
 * and deliver the parameters bit for bit. Large valid grids are skipped
 * (time). Nothing the model calls invalid may crash or succeed. */
#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include "zn_fuzz.h"

#include <string.h>

/* params: u8 @0, u64 @8, u32 @16, f32 @20, b8[20] align 16 @32: 52 bytes.
 * Thread (0,0,0) of block (0,0,0) stores them into zsink; every thread
 * adds 1 to zsink word 10. */
static const char zk_ptx[] =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".global .align 8 .b32 zsink[12];\n"
    ".visible .entry zk(.param .u8 zk_p0, .param .u64 zk_p1, .param .u32 zk_p2,\n"
    "    .param .f32 zk_p3, .param .align 16 .b8 zk_p4[20])\n"
    "{\n"
    "    .reg .pred %p<2>;\n    .reg .b16 %rs<2>;\n    .reg .b32 %r<20>;\n"
    "    .reg .f32 %f<2>;\n    .reg .b64 %rd<2>;\n"
    "    atom.global.add.u32 %r1, [zsink+40], 1;\n"
    "    mov.u32 %r2, %tid.x;\n    mov.u32 %r3, %tid.y;\n    mov.u32 %r4, %tid.z;\n"
    "    mov.u32 %r5, %ctaid.x;\n    mov.u32 %r6, %ctaid.y;\n    mov.u32 %r7, %ctaid.z;\n"
    "    or.b32 %r8, %r2, %r3;\n    or.b32 %r8, %r8, %r4;\n    or.b32 %r8, %r8, %r5;\n"
    "    or.b32 %r8, %r8, %r6;\n    or.b32 %r8, %r8, %r7;\n"
    "    setp.ne.u32 %p1, %r8, 0;\n"
    "    @%p1 bra DONE;\n"
    "    ld.param.u8 %rs1, [zk_p0];\n    cvt.u32.u16 %r9, %rs1;\n"
    "    st.global.u32 [zsink], %r9;\n"
    "    ld.param.u32 %r10, [zk_p2];\n    st.global.u32 [zsink+4], %r10;\n"
    "    ld.param.u64 %rd1, [zk_p1];\n    st.global.u64 [zsink+8], %rd1;\n"
    "    ld.param.f32 %f1, [zk_p3];\n    mov.b32 %r11, %f1;\n    st.global.u32 [zsink+16], %r11;\n"
    "    ld.param.b32 %r12, [zk_p4];\n    st.global.u32 [zsink+20], %r12;\n"
    "    ld.param.b32 %r13, [zk_p4+4];\n    st.global.u32 [zsink+24], %r13;\n"
    "    ld.param.b32 %r14, [zk_p4+8];\n    st.global.u32 [zsink+28], %r14;\n"
    "    ld.param.b32 %r15, [zk_p4+12];\n    st.global.u32 [zsink+32], %r15;\n"
    "    ld.param.b32 %r16, [zk_p4+16];\n    st.global.u32 [zsink+36], %r16;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

#define PARAM_BYTES 52
#define MAX_RUN_THREADS (1u << 15)  /* valid launches bigger than this are skipped */
#define MAX_RUN_BLOCKS 2048u

static CUmodule mod;
static CUfunction fn;
static CUdeviceptr sink;
static CUstream own_stream;

#define DRV(call) do { CUresult r_ = (call); \
    ZN_FUZZ_CHECK(r_ == CUDA_SUCCESS, "%s -> %d", #call, (int)r_); } while (0)

void zn_fuzz_init(void)
{
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    CUdevice dev;
    CUcontext ctx;
    size_t sz;
    DRV(cuInit(0));
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));
    DRV(cuModuleLoadData(&mod, zk_ptx));
    DRV(cuModuleGetFunction(&fn, mod, "zk"));
    DRV(cuModuleGetGlobal(&sink, &sz, mod, "zsink"));
    ZN_FUZZ_CHECK(sz == 48, "zsink is %zu bytes", sz);
    DRV(cuStreamCreate(&own_stream, CU_STREAM_NON_BLOCKING));
}

/* A dimension: mostly small, sometimes an edge of CUDA's limits. */
static unsigned pick_dim(zn_fuzz_reader *r, int block)
{
    static const unsigned edge[] = { 0, 1, 2, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025,
                                     65535, 65536, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu };
    static const unsigned small_block[16] = { 1, 1, 2, 3, 4, 8, 16, 31, 32, 33, 64, 96,
                                              128, 256, 512, 1024 };
    uint8_t b = zn_fuzz_u8(r);
    if (b & 0x80)
        return edge[b % (sizeof edge / sizeof edge[0])];
    return block ? small_block[b % 16] : b % 9;
}

static unsigned pick_shared(zn_fuzz_reader *r)
{
    static const unsigned edge[] = { 0, 1, 16, 1024, 48 * 1024 - 1, 48 * 1024, 48 * 1024 + 1,
                                     64 * 1024, 99 * 1024, 227 * 1024, 228 * 1024,
                                     1u << 20, 0x7FFFFFFFu, 0xFFFFFFFFu };
    uint8_t b = zn_fuzz_u8(r);
    if (b < 0xF0)
        return edge[b % (sizeof edge / sizeof edge[0])];
    return zn_fuzz_u32(r);
}

enum { MUST_FAIL, MUST_PASS, EITHER };

/* CUDA's documented launch limits (independent of Zinc's code). */
static int model_config(const unsigned g[3], const unsigned b[3], unsigned shmem)
{
    for (int i = 0; i < 3; i++)
        if (!g[i] || !b[i])
            return MUST_FAIL;
    if (g[0] > 0x7FFFFFFFu || g[1] > 65535 || g[2] > 65535)
        return MUST_FAIL;
    if (b[0] > 1024 || b[1] > 1024 || b[2] > 64 || (uint64_t)b[0] * b[1] * b[2] > 1024)
        return MUST_FAIL;
    if (shmem > 256 * 1024)
        return MUST_FAIL;
    return shmem <= 48 * 1024 ? MUST_PASS : EITHER;   /* above 48K: opt-in rules */
}

static int worst(int a, int b)
{
    if (a == MUST_FAIL || b == MUST_FAIL)
        return MUST_FAIL;
    return a == EITHER || b == EITHER ? EITHER : MUST_PASS;
}

void zn_fuzz_one(const uint8_t *data, size_t size)
{
    zn_fuzz_reader rd = { data, size };
    unsigned g[3], b[3];
    for (int i = 0; i < 3; i++)
        g[i] = pick_dim(&rd, 0);
    for (int i = 0; i < 3; i++)
        b[i] = pick_dim(&rd, 1);
    unsigned shmem = pick_shared(&rd);
    uint8_t mode = zn_fuzz_u8(&rd) % 5;
    uint8_t how = zn_fuzz_u8(&rd);
    uint8_t which_stream = zn_fuzz_u8(&rd) % 4;
    uint8_t buf[256] = {0};
    for (int i = 0; i < 64; i++)
        buf[i] = zn_fuzz_u8(&rd);

    int expect = model_config(g, b, shmem);

    /* parameters */
    void *kp[5] = { buf, buf + 8, buf + 16, buf + 20, buf + 32 };
    size_t sizes[8];
    void *extra[2 * 4 + 1];
    void **params = NULL, **ex = NULL;
    if (mode == 0 || mode == 2 || mode == 4) {
        params = kp;
        if (mode == 4) {
            kp[zn_fuzz_u8(&rd) % 5] = NULL;   /* undefined in CUDA; must not crash */
            expect = worst(expect, EITHER);
        }
    }
    if (mode == 1 || mode == 2) {
        static const size_t sz_edge[] = { 0, 51, 52, 53, 64, 256, (size_t)-1 };
        unsigned npairs = zn_fuzz_u8(&rd) % 5, ne = 0;
        const void *src = NULL;
        size_t have = 0;
        int unknown = 0, dup = 0, seen_ptr = 0, seen_size = 0;
        for (unsigned i = 0; i < npairs; i++) {
            uint8_t k = zn_fuzz_u8(&rd);
            switch (k % 5) {
            case 0: case 1:
                extra[ne++] = CU_LAUNCH_PARAM_BUFFER_POINTER;
                src = k & 0x80 ? NULL : buf;
                extra[ne++] = (void *)src;
                dup |= seen_ptr++;
                break;
            case 2: case 3:
                extra[ne++] = CU_LAUNCH_PARAM_BUFFER_SIZE;
                sizes[i] = sz_edge[(k >> 3) % 7];
                extra[ne++] = k & 0x80 ? NULL : &sizes[i];
                have = k & 0x80 ? 0 : sizes[i];
                dup |= seen_size++;
                break;
            default:
                extra[ne++] = (void *)(uintptr_t)(k & 0x40 ? 0xDEAD : 3);
                extra[ne++] = buf;
                unknown = 1;
                break;
            }
        }
        extra[ne] = CU_LAUNCH_PARAM_END;
        ex = extra;
        int e = unknown || !src || have < PARAM_BYTES ? MUST_FAIL : MUST_PASS;
        if (dup)
            e = worst(e, EITHER);   /* which of two keys wins is not documented */
        expect = worst(expect, e);
    }
    if (mode == 2 || mode == 3)
        expect = MUST_FAIL;         /* both, or neither with parameters to pass */

    if (expect != MUST_FAIL) {
        uint64_t blocks = (uint64_t)g[0] * g[1] * g[2];
        if (blocks > MAX_RUN_BLOCKS || blocks * b[0] * b[1] * b[2] > MAX_RUN_THREADS)
            return;                 /* valid, but too slow to run per input */
    }

    CUstream st = which_stream == 0 ? NULL : which_stream == 1 ? CU_STREAM_LEGACY
                : which_stream == 2 ? CU_STREAM_PER_THREAD : own_stream;
    DRV(cuMemsetD8(sink, 0, 48));
    CUresult r;
    if (how & 1) {
        CUlaunchAttribute attr[2];
        memset(attr, 0, sizeof attr);
        attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr[0].value.clusterDim.x = how & 2 ? 2 : 1;   /* clusters of 2 blocks */
        attr[0].value.clusterDim.y = attr[0].value.clusterDim.z = 1;
        attr[1].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        attr[1].value.priority = (int)(int8_t)how;
        /* a grid that is no multiple of the cluster is refused */
        if ((how & 2) && (how >> 2) % 3 >= 1 && g[0] % 2)
            expect = MUST_FAIL;
        CUlaunchConfig cfg = {
            .gridDimX = g[0], .gridDimY = g[1], .gridDimZ = g[2],
            .blockDimX = b[0], .blockDimY = b[1], .blockDimZ = b[2],
            .sharedMemBytes = shmem, .hStream = st, .attrs = attr,
            .numAttrs = (how >> 2) % 3 };
        r = cuLaunchKernelEx(&cfg, fn, params, ex);
    } else {
        r = cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], shmem, st, params, ex);
    }
    if (expect == MUST_FAIL)
        ZN_FUZZ_CHECK(r != CUDA_SUCCESS, "invalid launch accepted: grid (%u,%u,%u) block "
                      "(%u,%u,%u) shared %u mode %u", g[0], g[1], g[2], b[0], b[1], b[2],
                      shmem, mode);
    if (expect == MUST_PASS)
        ZN_FUZZ_CHECK(r == CUDA_SUCCESS, "valid launch refused (%d): grid (%u,%u,%u) block "
                      "(%u,%u,%u) shared %u mode %u", (int)r, g[0], g[1], g[2], b[0], b[1],
                      b[2], shmem, mode);
    /* a refused launch leaves the context usable; a run one completes */
    DRV(cuCtxSynchronize());
    uint32_t out[12];
    DRV(cuMemcpyDtoH(out, sink, sizeof out));
    if (r != CUDA_SUCCESS) {
        ZN_FUZZ_CHECK(out[10] == 0, "refused launch ran %u threads", out[10]);
        return;
    }
    uint64_t threads = (uint64_t)g[0] * g[1] * g[2] * b[0] * b[1] * b[2];
    ZN_FUZZ_CHECK(out[10] == threads, "%u threads ran, want %llu", out[10],
                  (unsigned long long)threads);
    if (mode == 4)
        return;                     /* a NULL argument: contents undefined */
    uint32_t want[10];
    want[0] = buf[0];
    memcpy(&want[1], buf + 16, 4);
    memcpy(&want[2], buf + 8, 8);
    memcpy(&want[4], buf + 20, 4);
    memcpy(&want[5], buf + 32, 20);
    ZN_FUZZ_CHECK(memcmp(out, want, sizeof want) == 0, "parameters arrived changed");
}
