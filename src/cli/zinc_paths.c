/* zinc_paths.c: where Zinc's libraries are, relative to the executable. */
#include "zinc_cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool zinc_lib_dir(char *out, size_t n)
{
    char dir[PATH_MAX];
    const char *env = getenv("ZINC_LIB_DIR");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
    } else {
        char exe[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (len <= 0) {
            snprintf(dir, sizeof dir, "/usr/local/lib/zinc");
        } else {
            exe[len] = 0;
            char *slash = strrchr(exe, '/');
            if (slash)
                *slash = 0;
            snprintf(dir, sizeof dir, "%.*s/../lib", PATH_MAX - 8, exe);
        }
    }
    char real[PATH_MAX];
    snprintf(out, n, "%s", realpath(dir, real) ? real : dir);
    char lib[PATH_MAX + 16];
    snprintf(lib, sizeof lib, "%s/libcuda.so.1", out);
    return access(lib, R_OK) == 0;
}
