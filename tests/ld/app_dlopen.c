/* app_dlopen.c: dlopens each argument (an absolute path to "NVIDIA's"
 * library, as some apps do) and prints the marker its cuDriverGetVersion
 * returns, one "PATH=N" line each (-1: not loadable). With "--forward LIB
 * PATH" it dlopens LIB and asks its fake_forward(PATH) instead: a library
 * in Zinc's lib dir opening NVIDIA's, which must not be redirected. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int marker(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return -1;
    }
    int (*fn)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
    int v = -1;
    if (fn)
        fn(&v);
    return v;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--forward") == 0) {
        void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
        int (*fwd)(const char *) = h ? (int (*)(const char *))dlsym(h, "fake_forward") : NULL;
        printf("forward=%d\n", fwd ? fwd(argv[3]) : -1);
        return 0;
    }
    for (int i = 1; i < argc; i++)
        printf("%s=%d\n", argv[i], marker(argv[i]));
    return 0;
}
