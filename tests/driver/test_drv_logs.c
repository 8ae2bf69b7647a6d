/* test_drv_logs.c: the driver log API (cuLogs*, CUDA 12.9+).
 *
 * Failed driver calls leave messages naming the call and the error: read
 * back from an iterator with cuLogsDumpToMemory and cuLogsDumpToFile (the
 * iterator advances, a second dump is empty), delivered to registered
 * callbacks until they are unregistered; a buffer too small for the newest
 * message is CUDA_ERROR_INVALID_VALUE with *size 0; after more messages
 * than the buffer keeps, a dump from an old iterator says messages were
 * lost and still ends with the newest. Zinc's own warnings (an
 * unimplemented entry point) and errors (bad PTX) are kept too. Misuse
 * errors of each call.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drv_test.h"

typedef struct seen {
    int calls;
    CUlogLevel level;
    char last[256];
} seen;

static void on_log(void *data, CUlogLevel level, char *msg, size_t len)
{
    seen *s = data;
    s->calls++;
    s->level = level;
    size_t n = len < sizeof s->last - 1 ? len : sizeof s->last - 1;
    memcpy(s->last, msg, n);
    s->last[n] = '\0';
}

/* A call that fails with CUDA_ERROR_INVALID_VALUE. */
static void fail_once(void)
{
    EXPECT_RC(cuMemFree((CUdeviceptr)0x10), CUDA_ERROR_INVALID_VALUE);
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);

    CUlogIterator it = 12345;
    OK(cuLogsCurrent(&it, 0));
    fail_once();
    static char buf[32768];
    size_t size = sizeof buf;
    OK(cuLogsDumpToMemory(&it, buf, &size, 0));
    EXPECT(size == strlen(buf) && size > 0 && buf[size - 1] == '\n');
    EXPECT(strstr(buf, "cuMemFree") && strstr(buf, "CUDA_ERROR_INVALID_VALUE"));
    EXPECT(strchr(buf, '\n') == buf + size - 1);   /* exactly one message */
    size = sizeof buf;
    OK(cuLogsDumpToMemory(&it, buf, &size, 0));     /* the iterator moved on */
    EXPECT(size == 0);

    /* callbacks */
    seen a = { 0 }, b = { 0 };
    CUlogsCallbackHandle ha, hb;
    OK(cuLogsRegisterCallback(on_log, &a, &ha));
    OK(cuLogsRegisterCallback(on_log, &b, &hb));
    EXPECT_RC(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT(a.calls == 1 && b.calls == 1);
    EXPECT(a.level == CU_LOG_LEVEL_ERROR);
    EXPECT(strstr(a.last, "cuDeviceGetAttribute") != NULL);
    OK(cuLogsUnregisterCallback(ha));
    fail_once();
    EXPECT(a.calls == 1 && b.calls == 2);
    EXPECT(strstr(b.last, "cuMemFree") != NULL);
    OK(cuLogsUnregisterCallback(hb));
    fail_once();
    EXPECT(b.calls == 2);
    EXPECT_RC(cuLogsUnregisterCallback(hb), CUDA_ERROR_INVALID_VALUE);   /* gone */
    EXPECT_RC(cuLogsUnregisterCallback(NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLogsRegisterCallback(NULL, &a, &ha), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLogsRegisterCallback(on_log, &a, NULL), CUDA_ERROR_INVALID_VALUE);

    /* a buffer that cannot hold the newest message */
    OK(cuLogsCurrent(&it, 0));
    fail_once();
    CUlogIterator keep = it;
    size = 10;
    EXPECT_RC(cuLogsDumpToMemory(&it, buf, &size, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(size == 0);

    /* to a file: the messages from keep, then nothing more */
    char path[] = "/tmp/zn_logs_XXXXXX";
    int fd = mkstemp(path);
    EXPECT(fd >= 0);
    if (fd >= 0)
        close(fd);
    it = keep;
    OK(cuLogsDumpToFile(&it, path, 0));
    OK(cuLogsDumpToFile(&it, path, 0));
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[got] = '\0';
    if (f)
        fclose(f);
    unlink(path);
    /* the failed call, then the failed dump to a 10-byte buffer */
    EXPECT(strstr(buf, "cuMemFree") && strstr(buf, "cuLogsDumpToMemory"));
    int lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    EXPECT(lines == 2);

    /* more messages than are kept: the loss is said, the newest is last */
    OK(cuLogsCurrent(&keep, 0));
    for (int i = 0; i < 400; i++)
        fail_once();
    EXPECT_RC(cuCtxSetLimit((CUlimit)999, 1), CUDA_ERROR_INVALID_VALUE);   /* the newest */
    it = keep;
    size = sizeof buf;
    OK(cuLogsDumpToMemory(&it, buf, &size, 0));
    EXPECT(size == strlen(buf) && size <= 25600);
    EXPECT(strstr(buf, "messages") != NULL && strstr(buf, "messages") < strstr(buf, "cuMemFree"));
    buf[size - 1] = '\0';
    char *last = strrchr(buf, '\n');
    EXPECT(last && strstr(last, "cuCtxSetLimit") != NULL);
    /* a NULL iterator dumps everything kept */
    size = 2000;
    OK(cuLogsDumpToMemory(NULL, buf, &size, 0));
    EXPECT(size > 0 && size < 2000);
    EXPECT(strstr(buf, "did not fit") != NULL);

    /* Zinc's own warnings and errors: an unimplemented entry point, bad PTX */
    OK(cuLogsCurrent(&it, 0));
    void *fn = NULL;
    OK(cuGetProcAddress("cuGraphicsMapResources", &fn, 13000, 0, NULL));
    CUgraphicsResource res = NULL;
    if (fn)
        EXPECT_RC(((CUresult (*)(unsigned, CUgraphicsResource *, CUstream))fn)(1, &res, NULL),
                  CUDA_ERROR_NOT_SUPPORTED);
    CUmodule mod;
    EXPECT(cuModuleLoadData(&mod, ".version 8.0\n.target sm_75\n.address_size 64\n"
                                  ".visible .entry k() { bogus.op %r1; }\n") != CUDA_SUCCESS);
    size = sizeof buf;
    OK(cuLogsDumpToMemory(&it, buf, &size, 0));
    EXPECT(strstr(buf, "warning: cuGraphicsMapResources") != NULL);
    EXPECT(strstr(buf, "error: ") != NULL && strstr(buf, "cuModuleLoadData") != NULL);

    /* an iterator ahead of the log has nothing to dump yet */
    OK(cuLogsCurrent(&it, 0));
    it += 5;
    size = sizeof buf;
    OK(cuLogsDumpToMemory(&it, buf, &size, 0));
    EXPECT(size == 0);

    /* misuse */
    EXPECT_RC(cuLogsCurrent(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLogsCurrent(&it, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLogsDumpToMemory(&it, NULL, &size, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLogsDumpToMemory(&it, buf, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLogsDumpToMemory(&it, buf, &size, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLogsDumpToFile(&it, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLogsDumpToFile(&it, "/nonexistent-dir/x/y", 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLogsDumpToFile(&it, "/tmp/unused", 4), CUDA_ERROR_INVALID_VALUE);

    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_logs");
}
