/* zn_drv_notify.c: device async notifications
 * (cuDeviceRegisterAsyncNotification / cuDeviceUnregisterAsyncNotification).
 *
 * CUDA 12.4 defines one notification, CU_ASYNC_NOTIFICATION_TYPE_OVER_BUDGET:
 * the process has allocated more device memory than the budget the system
 * gives it (a budget that NVIDIA's driver gets from the OS, such as WDDM's
 * or a shared-GPU partition's). Zinc's device memory is the process's own
 * host memory: there is no budget besides what the kernel grants, and an
 * allocation past that fails (CUDA_ERROR_OUT_OF_MEMORY) instead of going
 * over. So callbacks are registered, checked and unregistered, but no
 * event ever fires one.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdlib.h>

struct CUasyncCallbackEntry {
    CUasyncCallback fn;
    void *user;
    CUdevice dev;
    struct CUasyncCallbackEntry *next;
};

static pthread_mutex_t notify_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUasyncCallbackEntry *callbacks;     /* registered, newest first */

CUresult cuDeviceRegisterAsyncNotification(CUdevice dev, CUasyncCallback fn, void *user,
                                           CUasyncCallbackHandle *out)
{
    ZN_CHECK_INIT();
    if (!fn || !out)            /* checked before the device, as NVIDIA does */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    struct CUasyncCallbackEntry *e = malloc(sizeof *e);
    if (!e)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    *e = (struct CUasyncCallbackEntry){ fn, user, dev, NULL };
    pthread_mutex_lock(&notify_lock);
    e->next = callbacks;
    callbacks = e;
    pthread_mutex_unlock(&notify_lock);
    *out = e;
    ZN_RET(CUDA_SUCCESS);
}

/* A handle is looked up before use, so a stale or foreign one is refused
 * (CUDA_ERROR_INVALID_VALUE), never dereferenced. */
CUresult cuDeviceUnregisterAsyncNotification(CUdevice dev, CUasyncCallbackHandle h)
{
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    struct CUasyncCallbackEntry *found = NULL;
    pthread_mutex_lock(&notify_lock);
    for (struct CUasyncCallbackEntry **pp = &callbacks; h && *pp; pp = &(*pp)->next)
        if (*pp == h && h->dev == dev) {
            found = h;
            *pp = h->next;
            break;
        }
    pthread_mutex_unlock(&notify_lock);
    free(found);
    ZN_RET(found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}
