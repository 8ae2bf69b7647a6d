/* test_drv_notify: device async notifications (registered, refused
 * handles, never fired: Zinc has no device-memory budget to go over)
 * and cuLibraryGetUnifiedFunction (no
 * unified function pointers: CUDA_ERROR_NOT_FOUND after the handle checks). */
#include "drv_test.h"

#include <stdint.h>

static int calls;

static void on_note(CUasyncNotificationInfo *info, void *user, CUasyncCallbackHandle h)
{
    (void)info;
    (void)h;
    calls += user != NULL;
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);
    int attr = -1;
    OK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS, dev));
    EXPECT(attr == 0);

    CUasyncCallbackHandle a = NULL, b = NULL;
    OK(cuDeviceRegisterAsyncNotification(dev, on_note, &calls, &a));
    OK(cuDeviceRegisterAsyncNotification(dev, on_note, &calls, &b));
    EXPECT(a && b && a != b);
    EXPECT_RC(cuDeviceRegisterAsyncNotification(1, on_note, NULL, &a), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_RC(cuDeviceRegisterAsyncNotification(dev, NULL, NULL, &a), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceRegisterAsyncNotification(dev, on_note, NULL, NULL),
              CUDA_ERROR_INVALID_VALUE);
    /* a large allocation and back: no budget, no notification */
    CUdeviceptr big = 0;
    if (cuMemAlloc(&big, (size_t)1 << 26) == CUDA_SUCCESS)
        OK(cuMemFree(big));
    OK(cuCtxSynchronize());
    EXPECT(calls == 0);
    EXPECT_RC(cuDeviceUnregisterAsyncNotification(1, a), CUDA_ERROR_INVALID_DEVICE);
    OK(cuDeviceUnregisterAsyncNotification(dev, a));
    EXPECT_RC(cuDeviceUnregisterAsyncNotification(dev, a), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceUnregisterAsyncNotification(dev, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceUnregisterAsyncNotification(dev, (CUasyncCallbackHandle)&calls),
              CUDA_ERROR_INVALID_VALUE);
    OK(cuDeviceUnregisterAsyncNotification(dev, b));

    /* unified functions */
    CUlibrary lib = NULL;
    OK(cuLibraryLoadData(&lib, drv_fill_ptx, NULL, NULL, 0, NULL, NULL, 0));
    void *fp = (void *)&calls;
    EXPECT_RC(cuLibraryGetUnifiedFunction(&fp, lib, "fill"), CUDA_ERROR_NOT_FOUND);
    EXPECT_RC(cuLibraryGetUnifiedFunction(&fp, lib, "nothing"), CUDA_ERROR_NOT_FOUND);
    EXPECT(fp == (void *)&calls);       /* untouched */
    EXPECT_RC(cuLibraryGetUnifiedFunction(NULL, lib, "fill"), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLibraryGetUnifiedFunction(&fp, lib, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLibraryGetUnifiedFunction(&fp, NULL, "fill"), CUDA_ERROR_INVALID_HANDLE);
    OK(cuLibraryUnload(lib));
    EXPECT_RC(cuLibraryGetUnifiedFunction(&fp, lib, "fill"), CUDA_ERROR_INVALID_HANDLE);

    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_notify");
}
