/* zinc_paths.c: where Zinc's libraries are, relative to the executable. */
#include "zinc_cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ../lib next to the zinc executable, not canonical yet. */
static void exe_lib_dir(char *dir, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        snprintf(dir, n, "/usr/local/lib/zinc");
        return;
    }
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    snprintf(dir, n, "%.*s/../lib", PATH_MAX - 8, exe);
}

static void canonical(const char *dir, char *out, size_t n)
{
    char real[PATH_MAX];
    snprintf(out, n, "%s", realpath(dir, real) ? real : dir);
}

bool zinc_lib_dir(char *out, size_t n)
{
    char dir[PATH_MAX];
    const char *env = getenv("ZINC_LIB_DIR");
    if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else
        exe_lib_dir(dir, sizeof dir);
    canonical(dir, out, n);
    char lib[PATH_MAX + 16];
    snprintf(lib, sizeof lib, "%s/libcuda.so.1", out);
    return access(lib, R_OK) == 0;
}

bool zinc_audit_lib(char *out, size_t n)
{
    char dirs[2][PATH_MAX], exe_dir[PATH_MAX], path[PATH_MAX + 32];
    zinc_lib_dir(dirs[0], sizeof dirs[0]);
    exe_lib_dir(exe_dir, sizeof exe_dir);
    canonical(exe_dir, dirs[1], sizeof dirs[1]);
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/libzinc_ld.so", dirs[i]);
        if (access(path, R_OK) == 0) {
            snprintf(out, n, "%s", path);
            return true;
        }
    }
    return false;
}
