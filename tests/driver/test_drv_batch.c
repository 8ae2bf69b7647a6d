/* test_drv_batch.c: batched copies, batched memory ops, prefetch and
 * discard batches through the driver API.
 *
 * cuMemcpyBatchAsync (13.0 form, and the 12.8 form with failIdx through
 * cuGetProcAddress): host/device copies under two attribute ranges, a
 * DURING_API_CALL source changed right after the call (the copy must have
 * the old bytes), misuse (failIdx names the bad copy, nothing of a refused
 * batch runs). cuMemcpy3DBatchAsync: a pitched 3D box between pointers and
 * a 2D box into and out of a CUDA array, against CPU references.
 * cuStreamBatchMemOp: writes, waits (one held back until the host writes
 * its flag), barrier and flush, misuse. cuMemPrefetchBatchAsync and the
 * discards: the prefetch locations read back, misuse. The batch APIs refuse
 * the legacy stream and take the per-thread one.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "drv_test.h"

static void *proc(const char *name, int version, int pt)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult q;
    OK(cuGetProcAddress(name, &fn, version,
                        pt ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0, &q));
    EXPECT(fn != NULL && q == CU_GET_PROC_ADDRESS_SUCCESS);
    return fn;
}

static CUmemcpyAttributes order(CUmemcpySrcAccessOrder o)
{
    CUmemcpyAttributes a;
    memset(&a, 0, sizeof a);
    a.srcAccessOrder = o;
    return a;
}

static void copy_batch(CUstream s)
{
    enum { N = 256 };
    static int h0[N], h1[N], out0[N], out1[N];
    int stack_src[N];
    CUdeviceptr d0, d1, d2;
    OK(cuMemAlloc(&d0, sizeof h0));
    OK(cuMemAlloc(&d1, sizeof h0));
    OK(cuMemAlloc(&d2, sizeof h0));
    for (int i = 0; i < N; i++) {
        h0[i] = i * 3;
        h1[i] = 1000 - i;
        stack_src[i] = i ^ 0x55;
        out0[i] = out1[i] = -1;
    }
    OK(cuMemsetD32(d2, 0xffffffffu, N));
    /* copies 0-1 in stream order, 2 reads its (stack) source during the call */
    CUdeviceptr dsts[3] = { d0, d1, d2 };
    CUdeviceptr srcs[3] = { (CUdeviceptr)(uintptr_t)h0, (CUdeviceptr)(uintptr_t)h1,
                            (CUdeviceptr)(uintptr_t)stack_src };
    size_t sizes[3] = { sizeof h0, sizeof h1, sizeof stack_src };
    CUmemcpyAttributes attrs[2] = { order(CU_MEMCPY_SRC_ACCESS_ORDER_STREAM),
                                    order(CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL) };
    size_t idx[2] = { 0, 2 };
    OK(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, idx, 2, s));
    for (int i = 0; i < N; i++)
        stack_src[i] = -7;      /* the batch must have read it already */
    CUdeviceptr back_d[2] = { (CUdeviceptr)(uintptr_t)out0, (CUdeviceptr)(uintptr_t)out1 };
    CUdeviceptr back_s[2] = { d0, d2 };
    size_t back_n[2] = { sizeof out0, sizeof out1 };
    CUmemcpyAttributes any = order(CU_MEMCPY_SRC_ACCESS_ORDER_ANY);
    size_t zero = 0;
    OK(cuMemcpyBatchAsync(back_d, back_s, back_n, 2, &any, &zero, 1, s));
    OK(cuStreamSynchronize(s));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out0[i] != i * 3 || out1[i] != (i ^ 0x55);
    EXPECT(bad == 0);
    int d1_back[N];
    OK(cuMemcpyDtoH(d1_back, d1, sizeof d1_back));
    EXPECT(d1_back[0] == 1000 && d1_back[N - 1] == 1000 - (N - 1));

    /* the 12.8 form: failIdx says which copy was refused, none ran */
    PFN_cuMemcpyBatchAsync_v12080 b128 =
        (PFN_cuMemcpyBatchAsync_v12080)proc("cuMemcpyBatchAsync", 12080, 0);
    CUdeviceptr dead;
    OK(cuMemAlloc(&dead, 64));
    OK(cuMemFree(dead));
    for (int i = 0; i < N; i++)
        out0[i] = -1;
    CUdeviceptr fd[3] = { (CUdeviceptr)(uintptr_t)out0, (CUdeviceptr)(uintptr_t)out1, d1 };
    CUdeviceptr fs[3] = { d0, dead, d0 };
    size_t fn[3] = { sizeof out0, 64, 64 };
    size_t fail = 1234;
    if (b128) {
        EXPECT_RC(b128(fd, fs, fn, 3, attrs, &zero, 1, &fail, s), CUDA_ERROR_INVALID_VALUE);
        EXPECT(fail == 1);
        OK(cuStreamSynchronize(s));
        EXPECT(out0[0] == -1 && out0[N - 1] == -1);     /* copy 0 did not run */
        fail = 0;   /* an error of the whole batch: SIZE_MAX */
        EXPECT_RC(b128(fd, fs, fn, 0, attrs, &zero, 1, &fail, s), CUDA_ERROR_INVALID_VALUE);
        EXPECT(fail == SIZE_MAX);
        fs[1] = d0;
        fn[1] = 64;
        OK(b128(fd, fs, fn, 3, attrs, &zero, 1, &fail, s));
        OK(cuStreamSynchronize(s));
        EXPECT(out0[5] == 15 && out1[0] == 0 && out1[15] == 45);
    }
    /* misuse of the 13.0 form */
    size_t idx_bad[2] = { 1, 2 }, idx_down[2] = { 0, 0 };
    EXPECT_RC(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, idx, 2, NULL),
              CUDA_ERROR_INVALID_VALUE);   /* legacy NULL stream */
    EXPECT_RC(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, idx, 2, CU_STREAM_LEGACY),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, idx_bad, 2, s),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, idx_down, 2, s),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, attrs, idx, 2, s),
              CUDA_ERROR_INVALID_VALUE);   /* numAttrs > count */
    CUmemcpyAttributes inval = order(CU_MEMCPY_SRC_ACCESS_ORDER_INVALID);
    EXPECT_RC(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, &inval, &zero, 1, s),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyBatchAsync(NULL, srcs, sizes, 3, attrs, idx, 2, s),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, idx, 2, (CUstream)&fail),
              CUDA_ERROR_INVALID_HANDLE);
    /* the per-thread form takes NULL as the per-thread stream */
    PFN_cuMemcpyBatchAsync_v13000 pt =
        (PFN_cuMemcpyBatchAsync_v13000)proc("cuMemcpyBatchAsync", 13000, 1);
    if (pt) {
        for (int i = 0; i < N; i++)
            out1[i] = 0;
        CUdeviceptr pd = (CUdeviceptr)(uintptr_t)out1;
        size_t pn = sizeof out1;
        OK(pt(&pd, &d0, &pn, 1, &any, &zero, 1, NULL));
        OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
        EXPECT(out1[7] == 21);
    }
    OK(cuMemFree(d0));
    OK(cuMemFree(d1));
    OK(cuMemFree(d2));
}

static CUmemcpy3DOperand ptr_op(void *p, size_t row, size_t layer)
{
    CUmemcpy3DOperand o;
    memset(&o, 0, sizeof o);
    o.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
    o.op.ptr.ptr = (CUdeviceptr)(uintptr_t)p;
    o.op.ptr.rowLength = row;
    o.op.ptr.layerHeight = layer;
    return o;
}

static CUmemcpy3DOperand array_op(CUarray a, size_t x, size_t y)
{
    CUmemcpy3DOperand o;
    memset(&o, 0, sizeof o);
    o.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
    o.op.array.array = a;
    o.op.array.offset.x = x;
    o.op.array.offset.y = y;
    return o;
}

static CUDA_MEMCPY3D_BATCH_OP op3(CUmemcpy3DOperand src, CUmemcpy3DOperand dst, size_t w,
                                  size_t h, size_t d)
{
    CUDA_MEMCPY3D_BATCH_OP o;
    memset(&o, 0, sizeof o);
    o.src = src;
    o.dst = dst;
    o.extent.width = w;
    o.extent.height = h;
    o.extent.depth = d;
    o.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    return o;
}

static void copy3d_batch(CUstream s)
{
    /* source: 8 x 4 x 3 bytes; a 5 x 3 x 2 box from it, packed */
    enum { W = 8, H = 4, D = 3, BW = 5, BH = 3, BD = 2 };
    static unsigned char src[D][H][W], box[BD][BH][BW];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                src[z][y][x] = (unsigned char)(z * 100 + y * 10 + x);
    memset(box, 0xee, sizeof box);
    CUdeviceptr dbox;
    OK(cuMemAlloc(&dbox, sizeof box));
    CUDA_MEMCPY3D_BATCH_OP ops[1] = { op3(ptr_op(src, W, H), ptr_op((void *)(uintptr_t)dbox, 0, 0),
                                          BW, BH, BD) };
    OK(cuMemcpy3DBatchAsync(1, ops, 0, s));
    OK(cuMemcpyDtoHAsync(box, dbox, sizeof box, s));
    OK(cuStreamSynchronize(s));
    int bad = 0;
    for (int z = 0; z < BD; z++)
        for (int y = 0; y < BH; y++)
            for (int x = 0; x < BW; x++)
                bad += box[z][y][x] != src[z][y][x];
    EXPECT(bad == 0);

    /* a float array 6 x 4: a 3 x 2 box in at (2, 1), the whole array out */
    CUDA_ARRAY_DESCRIPTOR ad = { .Width = 6, .Height = 4, .Format = CU_AD_FORMAT_FLOAT,
                                 .NumChannels = 1 };
    CUarray arr;
    OK(cuArrayCreate(&arr, &ad));
    static float zeros[24], in[6], all[24];
    for (int i = 0; i < 6; i++)
        in[i] = 1.5f + (float)i;
    for (int i = 0; i < 24; i++)
        all[i] = -1.0f;
    CUDA_MEMCPY3D_BATCH_OP clear = op3(ptr_op(zeros, 0, 0), array_op(arr, 0, 0), 6, 4, 1);
    OK(cuMemcpy3DBatchAsync(1, &clear, 0, s));
    CUDA_MEMCPY3D_BATCH_OP put = op3(ptr_op(in, 3, 0), array_op(arr, 2, 1), 3, 2, 1);
    OK(cuMemcpy3DBatchAsync(1, &put, 0, s));
    CUDA_MEMCPY3D_BATCH_OP get = op3(array_op(arr, 0, 0), ptr_op(all, 0, 0), 6, 4, 1);
    OK(cuMemcpy3DBatchAsync(1, &get, 0, s));
    OK(cuStreamSynchronize(s));
    bad = 0;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 6; x++) {
            bool inside = x >= 2 && x < 5 && y >= 1 && y < 3;
            float want = inside ? in[(y - 1) * 3 + (x - 2)] : 0.0f;
            bad += all[y * 6 + x] != want;
        }
    EXPECT(bad == 0);

    /* misuse; the 12.8 form's failIdx */
    PFN_cuMemcpy3DBatchAsync_v12080 b128 =
        (PFN_cuMemcpy3DBatchAsync_v12080)proc("cuMemcpy3DBatchAsync", 12080, 0);
    CUDA_MEMCPY3D_BATCH_OP two[2] = { ops[0], ops[0] };
    two[1].extent.depth = 0;
    size_t fail = 0;
    if (b128) {
        EXPECT_RC(b128(2, two, &fail, 0, s), CUDA_ERROR_INVALID_VALUE);
        EXPECT(fail == 1);
        EXPECT_RC(b128(1, ops, &fail, 1, s), CUDA_ERROR_INVALID_VALUE);  /* flags */
        EXPECT(fail == SIZE_MAX);
    }
    two[1] = ops[0];
    two[1].src.type = (CUmemcpy3DOperandType)7;
    EXPECT_RC(cuMemcpy3DBatchAsync(2, two, 0, s), CUDA_ERROR_INVALID_VALUE);
    two[1] = ops[0];
    two[1].src.op.ptr.rowLength = BW - 1;   /* rows shorter than the copy */
    EXPECT_RC(cuMemcpy3DBatchAsync(2, two, 0, s), CUDA_ERROR_INVALID_VALUE);
    two[1] = ops[0];
    two[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
    EXPECT_RC(cuMemcpy3DBatchAsync(2, two, 0, s), CUDA_ERROR_INVALID_VALUE);
    CUDA_ARRAY_DESCRIPTOR bd = { .Width = 6, .Height = 4, .Format = CU_AD_FORMAT_UNSIGNED_INT8,
                                 .NumChannels = 1 };
    CUarray barr;
    OK(cuArrayCreate(&barr, &bd));
    CUDA_MEMCPY3D_BATCH_OP mix = op3(array_op(arr, 0, 0), array_op(barr, 0, 0), 2, 2, 1);
    EXPECT_RC(cuMemcpy3DBatchAsync(1, &mix, 0, s), CUDA_ERROR_INVALID_VALUE); /* sizes differ */
    CUDA_MEMCPY3D_BATCH_OP outside = op3(ptr_op(in, 0, 0), array_op(arr, 5, 3), 3, 2, 1);
    EXPECT_RC(cuMemcpy3DBatchAsync(1, &outside, 0, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpy3DBatchAsync(0, ops, 0, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpy3DBatchAsync(1, ops, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuArrayDestroy(arr));
    OK(cuArrayDestroy(barr));
    OK(cuMemFree(dbox));
}

static CUstreamBatchMemOpParams wr(int op, CUdeviceptr a, uint64_t v)
{
    CUstreamBatchMemOpParams p;
    memset(&p, 0, sizeof p);
    p.writeValue.operation = (CUstreamBatchMemOpType)op;
    p.writeValue.address = a;
    p.writeValue.value64 = v;
    return p;
}

static CUstreamBatchMemOpParams wt(int op, CUdeviceptr a, uint64_t v, unsigned flags)
{
    CUstreamBatchMemOpParams p;
    memset(&p, 0, sizeof p);
    p.waitValue.operation = (CUstreamBatchMemOpType)op;
    p.waitValue.address = a;
    if (op == CU_STREAM_MEM_OP_WAIT_VALUE_64)
        p.waitValue.value64 = v;
    else
        p.waitValue.value = (cuuint32_t)v;
    p.waitValue.flags = flags;
    return p;
}

static void mem_ops(CUstream s)
{
    CUdeviceptr d;
    OK(cuMemAlloc(&d, 64));
    OK(cuMemsetD32(d, 0, 16));
    CUstreamBatchMemOpParams ops[5];
    ops[0] = wr(CU_STREAM_MEM_OP_WRITE_VALUE_32, d, 7);
    ops[1] = wt(CU_STREAM_MEM_OP_WAIT_VALUE_32, d, 7, CU_STREAM_WAIT_VALUE_GEQ);
    ops[2] = wr(CU_STREAM_MEM_OP_WRITE_VALUE_64, d + 8, 0x123456789aull);
    memset(&ops[3], 0, sizeof ops[3]);
    ops[3].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
    ops[3].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_SYS;
    memset(&ops[4], 0, sizeof ops[4]);
    ops[4].flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
    OK(cuStreamBatchMemOp(s, 5, ops, 0));
    OK(cuStreamSynchronize(s));
    uint32_t w32[4];
    uint64_t w64;
    OK(cuMemcpyDtoH(w32, d, sizeof w32));
    OK(cuMemcpyDtoH(&w64, d + 8, sizeof w64));
    EXPECT(w32[0] == 7 && w32[1] == 0 && w64 == 0x123456789aull);

    /* a wait holds the stream until the host writes the flag */
    volatile uint32_t *flag;
    OK(cuMemHostAlloc((void **)&flag, 64, CU_MEMHOSTALLOC_DEVICEMAP));
    flag[0] = 0;
    CUdeviceptr fd;
    OK(cuMemHostGetDevicePointer(&fd, (void *)flag, 0));
    CUstreamBatchMemOpParams hold[2] = { wt(CU_STREAM_MEM_OP_WAIT_VALUE_32, fd, 5,
                                            CU_STREAM_WAIT_VALUE_EQ),
                                         wr(CU_STREAM_MEM_OP_WRITE_VALUE_32, d + 16, 9) };
    OK(cuStreamBatchMemOp(s, 2, hold, 0));
    usleep(20000);
    EXPECT_RC(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    OK(cuMemcpyDtoH(w32, d + 16, 4));
    EXPECT(w32[0] == 0);    /* not yet: the 9 is behind the wait */
    /* an atomic release store: the stream's thread polls the flag with
     * acquire loads, and the 9 it then writes must be ordered after the
     * copy above (a plain store would race, as ThreadSanitizer says) */
    __atomic_store_n(&flag[0], 5u, __ATOMIC_RELEASE);
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(w32, d + 16, 4));
    EXPECT(w32[0] == 9);

    /* misuse: nothing of a refused batch runs */
    CUstreamBatchMemOpParams badb[2] = { wr(CU_STREAM_MEM_OP_WRITE_VALUE_32, d + 20, 1),
                                         wr(CU_STREAM_MEM_OP_WRITE_VALUE_32, d + 2, 1) };
    EXPECT_RC(cuStreamBatchMemOp(s, 2, badb, 0), CUDA_ERROR_INVALID_VALUE);  /* misaligned */
    badb[1] = wr(99, d, 1);
    EXPECT_RC(cuStreamBatchMemOp(s, 2, badb, 0), CUDA_ERROR_INVALID_VALUE);  /* no such op */
    badb[1] = wt(CU_STREAM_MEM_OP_WAIT_VALUE_32, d, 1, 0x100);
    EXPECT_RC(cuStreamBatchMemOp(s, 2, badb, 0), CUDA_ERROR_INVALID_VALUE);  /* wait flags */
    CUdeviceptr dead;
    OK(cuMemAlloc(&dead, 64));
    OK(cuMemFree(dead));
    badb[1] = wr(CU_STREAM_MEM_OP_WRITE_VALUE_64, dead, 1);
    EXPECT_RC(cuStreamBatchMemOp(s, 2, badb, 0), CUDA_ERROR_INVALID_VALUE);  /* freed */
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(w32, d + 20, 4));
    EXPECT(w32[0] == 0);
    EXPECT_RC(cuStreamBatchMemOp(s, 1, badb, 1), CUDA_ERROR_INVALID_VALUE);  /* flags */
    EXPECT_RC(cuStreamBatchMemOp(s, 0, badb, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuStreamBatchMemOp(s, 256, badb, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuStreamBatchMemOp(s, 1, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuStreamBatchMemOp((CUstream)&w64, 1, badb, 0), CUDA_ERROR_INVALID_HANDLE);
    /* the 8.0 ABI name on the per-thread stream */
    PFN_cuStreamBatchMemOp_v8000 v1 = (PFN_cuStreamBatchMemOp_v8000)proc("cuStreamBatchMemOp",
                                                                          8000, 1);
    if (v1) {
        CUstreamBatchMemOpParams one = wr(CU_STREAM_MEM_OP_WRITE_VALUE_32, d + 24, 11);
        OK(v1(NULL, 1, &one, 0));
        OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
        OK(cuMemcpyDtoH(w32, d + 24, 4));
        EXPECT(w32[0] == 11);
    }
    OK(cuMemFreeHost((void *)flag));
    OK(cuMemFree(d));
}

static int last_prefetch(CUdeviceptr p, size_t n)
{
    int v = 77;
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, n));
    return v;
}

static void prefetch_batches(CUstream s)
{
    CUdeviceptr m;
    OK(cuMemAllocManaged(&m, 3 * 4096, CU_MEM_ATTACH_GLOBAL));
    CUdeviceptr ptrs[3] = { m, m + 4096, m + 8192 };
    size_t sizes[3] = { 4096, 4096, 4096 };
    CUmemLocation locs[2] = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, { CU_MEM_LOCATION_TYPE_HOST, 0 } };
    size_t idx[2] = { 0, 2 };
    EXPECT(last_prefetch(m, 3 * 4096) == CU_DEVICE_INVALID);
    OK(cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
    EXPECT(last_prefetch(m, 4096) == 0);
    EXPECT(last_prefetch(m + 4096, 4096) == 0);
    EXPECT(last_prefetch(m + 8192, 4096) == CU_DEVICE_CPU);
    EXPECT(last_prefetch(m, 3 * 4096) == CU_DEVICE_INVALID);
    /* discard keeps the range usable; discard-and-prefetch moves the mark */
    OK(cuMemDiscardBatchAsync(ptrs, sizes, 3, 0, s));
    size_t zero = 0;
    OK(cuMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 3, &locs[1], &zero, 1, 0, s));
    EXPECT(last_prefetch(m, 3 * 4096) == CU_DEVICE_CPU);
    OK(cuMemsetD32Async(m, 0x01020304u, 3 * 1024, s));
    OK(cuStreamSynchronize(s));
    EXPECT(((uint32_t *)(uintptr_t)m)[3071] == 0x01020304u);

    /* misuse */
    CUdeviceptr d;
    OK(cuMemAlloc(&d, 4096));
    CUdeviceptr plain[1] = { d };
    EXPECT_RC(cuMemPrefetchBatchAsync(plain, sizes, 1, locs, &zero, 1, 0, s),
              CUDA_ERROR_INVALID_VALUE);           /* not managed memory */
    EXPECT_RC(cuMemDiscardBatchAsync(plain, sizes, 1, 0, s), CUDA_ERROR_INVALID_VALUE);
    CUmemLocation dev5 = { CU_MEM_LOCATION_TYPE_DEVICE, 5 };
    EXPECT_RC(cuMemPrefetchBatchAsync(ptrs, sizes, 1, &dev5, &zero, 1, 0, s),
              CUDA_ERROR_INVALID_DEVICE);
    EXPECT_RC(cuMemPrefetchBatchAsync(ptrs, sizes, 1, locs, &zero, 1, 4, s),
              CUDA_ERROR_INVALID_VALUE);           /* flags */
    EXPECT_RC(cuMemPrefetchBatchAsync(ptrs, sizes, 1, locs, idx, 2, 0, s),
              CUDA_ERROR_INVALID_VALUE);           /* more locations than operations */
    EXPECT_RC(cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, &zero, 1, 0, NULL),
              CUDA_ERROR_INVALID_VALUE);           /* legacy stream */
    size_t big[1] = { 4 * 4096 };
    EXPECT_RC(cuMemDiscardBatchAsync(ptrs, big, 1, 0, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemDiscardBatchAsync(ptrs, sizes, 0, 0, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT(last_prefetch(m, 3 * 4096) == CU_DEVICE_CPU);    /* refused: nothing recorded */
    OK(cuMemFree(d));
    OK(cuMemFree(m));
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    copy_batch(s);
    copy3d_batch(s);
    mem_ops(s);
    prefetch_batches(s);
    OK(cuStreamDestroy(s));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_batch");
}
