/* fake_libcuda.c: the few driver entry points `zinc info` calls, with known
 * answers, so test_zinc_cli.sh can check what info prints. */
#include <stddef.h>
#include <string.h>

#define API __attribute__((visibility("default")))

API int cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
API int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
API int cuDeviceGetCount(int *n) { *n = 1; return 0; }
API int cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return ordinal == 0 ? 0 : 101; }
API int cuDeviceGetName(char *name, int len, int dev)
{
    strncpy(name, "Fake Zinc Device", (size_t)len - 1);
    name[len - 1] = 0;
    return 0;
}
API int cuDeviceTotalMem_v2(size_t *bytes, int dev) { *bytes = (size_t)3 << 30; return 0; }
API int cuDeviceGetAttribute(int *v, int attr, int dev)
{
    switch (attr) {
    case 75: *v = 8; return 0;
    case 76: *v = 6; return 0;
    case 16: *v = 7; return 0;
    case 10: *v = 32; return 0;
    default: return 1;
    }
}
