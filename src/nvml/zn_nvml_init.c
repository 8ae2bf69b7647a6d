/* zn_nvml_init.c: nvmlInit / nvmlShutdown (reference counted, as NVIDIA's),
 * error strings and the system-wide queries. */
#include "zn_nvml.h"

#include <pthread.h>
#include <stdio.h>

/* Versions reported: the CUDA 13.0 driver API, and an NVML of its era. */
#define ZN_NVML_CUDA_DRIVER_VERSION 13000
#define ZN_NVML_DRIVER_VERSION "580.65.06"
#define ZN_NVML_VERSION "13.580.65.06"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int refs;
static struct nvmlDevice_st device;

nvmlDevice_t zn_nvml_device(void)
{
    return &device;
}

bool zn_nvml_ready(void)
{
    pthread_mutex_lock(&lock);
    bool ok = refs > 0;
    pthread_mutex_unlock(&lock);
    return ok;
}

ZN_API nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    pthread_mutex_lock(&lock);
    if (refs++ == 0)
        zn_nvml_probe(&device);
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlInit_v2(void)
{
    return nvmlInitWithFlags(0);
}

ZN_API nvmlReturn_t nvmlInit(void)
{
    return nvmlInitWithFlags(0);
}

ZN_API nvmlReturn_t nvmlShutdown(void)
{
    pthread_mutex_lock(&lock);
    nvmlReturn_t r = refs > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
    if (refs > 0)
        refs--;
    pthread_mutex_unlock(&lock);
    return r;
}

ZN_API const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
#define X(name, value, text) case name: return text;
#include "zn_nvml_errors.def"
#undef X
    }
    return "Unknown Error";
}

static nvmlReturn_t put_string(char *out, unsigned int len, const char *s)
{
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    if ((size_t)snprintf(out, len, "%s", s) >= len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    if (!zn_nvml_ready())
        return NVML_ERROR_UNINITIALIZED;
    return put_string(version, length, ZN_NVML_DRIVER_VERSION);
}

ZN_API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    return put_string(version, length, ZN_NVML_VERSION);
}

ZN_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
    if (!v)
        return NVML_ERROR_INVALID_ARGUMENT;
    *v = ZN_NVML_CUDA_DRIVER_VERSION;
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
    return nvmlSystemGetCudaDriverVersion(v);
}

ZN_API nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
    if (!zn_nvml_ready())
        return NVML_ERROR_UNINITIALIZED;
    char path[64], buf[256] = "";
    snprintf(path, sizeof path, "/proc/%u/comm", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return NVML_ERROR_NOT_FOUND;
    if (!fgets(buf, sizeof buf, f))
        buf[0] = 0;
    fclose(f);
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = 0;
    return put_string(name, length, buf);
}
