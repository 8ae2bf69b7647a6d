/* test_drv_peer: two contexts on the one device. cuMemcpy3DPeer(Async)
 * copies a box between the contexts' allocations (checked against a CPU
 * reference, the rest of the destination still poisoned), with the context
 * checks; cuCtxEnablePeerAccess / cuCtxDisablePeerAccess answer what
 * NVIDIA's driver answers when cuDeviceCanAccessPeer(dev, dev) is 0. */
#include "drv_test.h"

#include <stdint.h>
#include <string.h>

enum { W = 40, H = 6, D = 3, SP = 64, SH = 8, DP = 48, DH = 7, SD = 4, DD = 5 };

static CUDA_MEMCPY3D_PEER box(CUdeviceptr src, CUcontext sc, CUdeviceptr dst, CUcontext dc)
{
    CUDA_MEMCPY3D_PEER p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = src;
    p.srcContext = sc;
    p.srcXInBytes = 3;
    p.srcY = 1;
    p.srcZ = 1;
    p.srcPitch = SP;
    p.srcHeight = SH;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = dst;
    p.dstContext = dc;
    p.dstXInBytes = 5;
    p.dstY = 0;
    p.dstZ = 2;
    p.dstPitch = DP;
    p.dstHeight = DH;
    p.WidthInBytes = W;
    p.Height = H;
    p.Depth = D;
    return p;
}

/* The destination the box copy must leave: poison outside the box. */
static void reference(const unsigned char *src, unsigned char *want)
{
    memset(want, 0xee, DP * DH * DD);
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                want[((z + 2) * DH + y) * DP + x + 5] = src[((z + 1) * SH + y + 1) * SP + x + 3];
}

int main(void)
{
    CUcontext c1;
    CUdevice dev = drv_test_primary_ctx(&c1);
    CUcontext c2 = NULL;
    OK(cuCtxCreate(&c2, NULL, 0, dev));    /* now current */
    CUdeviceptr dst = 0;
    OK(cuMemAlloc(&dst, DP * DH * DD));     /* c2's memory */
    OK(cuCtxSetCurrent(c1));
    CUdeviceptr src = 0;
    OK(cuMemAlloc(&src, SP * SH * SD));     /* c1's memory */

    static unsigned char hsrc[SP * SH * SD], got[DP * DH * DD], want[DP * DH * DD];
    for (size_t i = 0; i < sizeof hsrc; i++)
        hsrc[i] = (unsigned char)(i * 7 + 1);
    OK(cuMemcpyHtoD(src, hsrc, sizeof hsrc));
    reference(hsrc, want);

    /* synchronous, from c1 to c2 */
    OK(cuMemsetD8(dst, 0xee, sizeof got));
    CUDA_MEMCPY3D_PEER p = box(src, c1, dst, c2);
    OK(cuMemcpy3DPeer(&p));
    OK(cuMemcpyDtoH(got, dst, sizeof got));
    EXPECT(memcmp(got, want, sizeof got) == 0);

    /* asynchronous, on a stream of c1 */
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuMemsetD8(dst, 0xee, sizeof got));
    OK(cuMemcpy3DPeerAsync(&p, s));
    OK(cuStreamSynchronize(s));
    memset(got, 0, sizeof got);
    OK(cuMemcpyDtoH(got, dst, sizeof got));
    EXPECT(memcmp(got, want, sizeof got) == 0);

    /* misuse: contexts that are not contexts, no description */
    CUDA_MEMCPY3D_PEER q = box(src, NULL, dst, c2);
    EXPECT_RC(cuMemcpy3DPeer(&q), CUDA_ERROR_INVALID_CONTEXT);
    q = box(src, c1, dst, (CUcontext)&q);
    EXPECT_RC(cuMemcpy3DPeerAsync(&q, s), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_RC(cuMemcpy3DPeer(NULL), CUDA_ERROR_INVALID_VALUE);
    q = box(src, c1, dst, c2);
    q.dstPitch = 8;                          /* narrower than the box */
    EXPECT_RC(cuMemcpy3DPeer(&q), CUDA_ERROR_INVALID_VALUE);

    /* peer access: a device is not its own peer */
    int can = -1;
    OK(cuDeviceCanAccessPeer(&can, dev, dev));
    EXPECT(can == 0);
    EXPECT_RC(cuCtxEnablePeerAccess(c2, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    EXPECT_RC(cuCtxEnablePeerAccess(c2, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_INVALID_CONTEXT);   /* itself */
    EXPECT_RC(cuCtxEnablePeerAccess(NULL, 0), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_RC(cuCtxDisablePeerAccess(c2), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    EXPECT_RC(cuCtxDisablePeerAccess(NULL), CUDA_ERROR_INVALID_CONTEXT);

    OK(cuStreamDestroy(s));
    OK(cuMemFree(src));
    OK(cuCtxSetCurrent(c2));
    OK(cuMemFree(dst));
    OK(cuCtxSetCurrent(NULL));
    EXPECT_RC(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_INVALID_CONTEXT);    /* none current */
    OK(cuCtxDestroy(c2));
    OK(cuCtxSetCurrent(c1));
    EXPECT_RC(cuCtxDisablePeerAccess(c2), CUDA_ERROR_INVALID_CONTEXT);     /* destroyed */
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_peer");
}
