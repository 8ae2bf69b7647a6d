/* fake_cuda.c: a stand-in libcuda.so.1 (and libcublas), built twice: as
 * "NVIDIA's" in one folder and as "Zinc's" in another, each answering
 * cuDriverGetVersion with its own marker (FAKE_MARKER), so a test sees
 * which file the loader picked. */
#include <dlfcn.h>

#define API __attribute__((visibility("default")))

API int cuDriverGetVersion(int *v)
{
    *v = FAKE_MARKER;
    return 0;
}

/* What a Zinc forwarding layer does: dlopen a library by absolute path from
 * inside Zinc's lib dir. Returns the marker of what it got, -1 if none. */
API int fake_forward(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return -1;
    int (*fn)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
    int v = -1;
    if (fn)
        fn(&v);
    return v;
}
