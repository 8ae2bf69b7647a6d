/* test_drv_async_copy.c: stream-ordered copies and memsets of pitched and
 * 3D regions, device-to-device and peer copies, and 64-bit stream memory
 * operations, through the driver API.
 *
 * Each destination is poisoned first; every byte is then compared with
 * what the test computes itself: inside the copied region the source
 * byte, outside it the poison. The 64-bit wait is checked to compare all
 * 64 bits: a write that matches only the low word must not release it.
 */
#define _POSIX_C_SOURCE 200809L
#include "drv_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POISON 0xEE

static uint8_t pattern(size_t i)
{
    return (uint8_t)(i * 31 + 7);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* cuMemcpy2DAsync host -> pitched device, cuMemsetD2D8Async, then
 * cuMemcpyDtoDAsync and cuMemcpyPeerAsync of the whole allocation. */
static void check_2d(CUcontext ctx, CUstream s)
{
    enum { HP = 64, HR = 16, W = 40, H = 12, SX = 3, SY = 2, DX = 5, DY = 1, ROWS = 20 };
    uint8_t *host = malloc(HP * HR);
    for (size_t i = 0; i < HP * HR; i++)
        host[i] = pattern(i);
    CUdeviceptr d = 0, d2 = 0, d3 = 0;
    size_t pitch = 0;
    OK(cuMemAllocPitch(&d, &pitch, 48, ROWS, 4));
    EXPECT(pitch >= 48);
    size_t bytes = pitch * ROWS;
    OK(cuMemAlloc(&d2, bytes));
    OK(cuMemAlloc(&d3, bytes));
    OK(cuMemsetD8Async(d, POISON, bytes, s));
    OK(cuMemsetD8Async(d2, POISON ^ 1, bytes, s));
    OK(cuMemsetD8Async(d3, POISON ^ 2, bytes, s));

    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = HP;
    c.srcXInBytes = SX;
    c.srcY = SY;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = d;
    c.dstPitch = pitch;
    c.dstXInBytes = DX;
    c.dstY = DY;
    c.WidthInBytes = W;
    c.Height = H;
    OK(cuMemcpy2DAsync(&c, s));
    /* a rectangle of 0x5A over part of the copy: rows 2..4, bytes 4..13 */
    OK(cuMemsetD2D8Async(d + 2 * pitch + 4, pitch, 0x5A, 10, 3, s));
    OK(cuMemcpyDtoDAsync(d2, d, bytes, s));
    OK(cuMemcpyPeerAsync(d3, ctx, d2, ctx, bytes, s));
    uint8_t *out = malloc(bytes), *out3 = malloc(bytes);
    memset(out, 0, bytes);
    memset(out3, 0, bytes);
    OK(cuMemcpyDtoHAsync(out, d, bytes, s));
    OK(cuMemcpyDtoHAsync(out3, d3, bytes, s));
    OK(cuStreamSynchronize(s));

    int bad = 0;
    for (size_t y = 0; y < ROWS; y++)
        for (size_t x = 0; x < pitch; x++) {
            uint8_t want = POISON;
            if (y >= DY && y < DY + H && x >= DX && x < DX + W)
                want = host[(y - DY + SY) * HP + (x - DX + SX)];
            if (y >= 2 && y < 5 && x >= 4 && x < 14)
                want = 0x5A;
            uint8_t got = out[y * pitch + x];
            if (got != want && bad++ < 5)
                printf("FAIL 2d copy+memset (%zu,%zu): got %#x want %#x\n", x, y, got, want);
            if (out3[y * pitch + x] != want && bad++ < 5)
                printf("FAIL dtod+peer copy (%zu,%zu): got %#x want %#x\n", x, y,
                       out3[y * pitch + x], want);
        }
    drv_failures += bad;

    /* a NULL context names the current one (NVIDIA's driver copies); misuse:
     * a pitch narrower than the width */
    OK(cuMemsetD8Async(d3, 0x5a, 16, s));
    OK(cuMemcpyPeerAsync(d3, NULL, d2, ctx, 16, s));
    OK(cuStreamSynchronize(s));
    unsigned char peer16[16], want16[16];
    OK(cuMemcpyDtoH(peer16, d3, 16));
    OK(cuMemcpyDtoH(want16, d2, 16));
    EXPECT(memcmp(peer16, want16, 16) == 0);
    EXPECT_RC(cuMemsetD2D8Async(d, 8, 0, 16, 2, s), CUDA_ERROR_INVALID_VALUE);
    free(out);
    free(out3);
    free(host);
    OK(cuMemFree(d));
    OK(cuMemFree(d2));
    OK(cuMemFree(d3));
}

/* cuMemcpy3DAsync: a box from a pitched host volume into a pitched device
 * volume at an offset, read back whole. */
static void check_3d(CUstream s)
{
    enum { SP = 16, SH = 6, SD = 4, W = 8, H = 4, D = 3, DP = 32, DH = 5, DD = 5 };
    uint8_t *src = malloc(SP * SH * SD);
    for (size_t i = 0; i < SP * SH * SD; i++)
        src[i] = pattern(i * 3);
    size_t bytes = DP * DH * DD;
    CUdeviceptr d = 0;
    OK(cuMemAlloc(&d, bytes));
    OK(cuMemsetD8Async(d, POISON, bytes, s));
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcPitch = SP;
    c.srcHeight = SH;
    c.srcXInBytes = 2;
    c.srcY = 1;
    c.srcZ = 1;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = d;
    c.dstPitch = DP;
    c.dstHeight = DH;
    c.dstXInBytes = 4;
    c.dstY = 0;
    c.dstZ = 1;
    c.WidthInBytes = W;
    c.Height = H;
    c.Depth = D;
    OK(cuMemcpy3DAsync(&c, s));
    uint8_t *out = malloc(bytes);
    memset(out, 0, bytes);
    OK(cuMemcpyDtoHAsync(out, d, bytes, s));
    OK(cuStreamSynchronize(s));
    int bad = 0;
    for (size_t z = 0; z < DD; z++)
        for (size_t y = 0; y < DH; y++)
            for (size_t x = 0; x < DP; x++) {
                uint8_t want = POISON;
                if (z >= 1 && z < 1 + D && y < H && x >= 4 && x < 4 + W)
                    want = src[(z - 1 + 1) * SP * SH + (y + 1) * SP + (x - 4 + 2)];
                uint8_t got = out[(z * DH + y) * DP + x];
                if (got != want && bad++ < 5)
                    printf("FAIL 3d copy (%zu,%zu,%zu): got %#x want %#x\n", x, y, z, got, want);
            }
    drv_failures += bad;
    /* misuse: a source pitch narrower than the width */
    c.srcPitch = 4;
    EXPECT_RC(cuMemcpy3DAsync(&c, s), CUDA_ERROR_INVALID_VALUE);
    free(src);
    free(out);
    OK(cuMemFree(d));
}

/* cuStreamWaitValue64 holds its stream until all 64 bits match. */
static void check_wait_value64(void)
{
    CUstream s1, s2;
    OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    uint64_t *flag = NULL;
    uint32_t *done = NULL;
    OK(cuMemHostAlloc((void **)&flag, 64, CU_MEMHOSTALLOC_DEVICEMAP));
    OK(cuMemHostAlloc((void **)&done, 64, CU_MEMHOSTALLOC_DEVICEMAP));
    if (!flag || !done)
        return;
    *flag = 0;
    *done = 0;
    CUdeviceptr dflag = 0, ddone = 0;
    OK(cuMemHostGetDevicePointer(&dflag, flag, 0));
    OK(cuMemHostGetDevicePointer(&ddone, done, 0));
    const uint64_t want = 0x100000005ull;
    OK(cuStreamWaitValue64(s1, dflag, want, CU_STREAM_WAIT_VALUE_EQ));
    OK(cuMemsetD32Async(ddone, 7, 1, s1));
    sleep_ms(20);
    EXPECT_RC(cuStreamQuery(s1), CUDA_ERROR_NOT_READY);
    EXPECT(*done == 0);
    /* the low word matches, the high one does not: still waiting */
    OK(cuStreamWriteValue64(s2, dflag, want & 0xffffffffu, 0));
    OK(cuStreamSynchronize(s2));
    EXPECT(*flag == (want & 0xffffffffu));
    sleep_ms(20);
    EXPECT_RC(cuStreamQuery(s1), CUDA_ERROR_NOT_READY);
    EXPECT(*done == 0);
    OK(cuStreamWriteValue64(s2, dflag, want, 0));
    OK(cuStreamSynchronize(s1));
    EXPECT(*done == 7);
    /* misuse: a misaligned address, an unknown wait kind */
    EXPECT_RC(cuStreamWaitValue64(s1, dflag + 4, want, CU_STREAM_WAIT_VALUE_EQ),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuStreamWaitValue64(s1, dflag, want, 0x77), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamDestroy(s1));
    OK(cuStreamDestroy(s2));
    OK(cuMemFreeHost(flag));
    OK(cuMemFreeHost(done));
}

int main(void)
{
    CUcontext ctx;
    CUdevice dev = drv_test_primary_ctx(&ctx);
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    check_2d(ctx, s);
    check_3d(s);
    check_wait_value64();
    OK(cuStreamDestroy(s));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_async_copy");
}
