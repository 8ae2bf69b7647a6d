/* zn_ld_dir.c: finds Zinc's lib dir and lists the libraries in it, once,
 * when the loader loads the audit library. Reads the folder with
 * getdents64 into a stack buffer: opendir would malloc inside the loader. */
#define _GNU_SOURCE   /* dladdr, getdents64 */
#include "zn_ld.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZN_LD_SELF "libzinc_ld.so"

bool zn_ld_libs_add(zn_ld_libs *libs, const char *name)
{
    size_t len = strlen(name);
    if (libs->count >= ZN_LD_MAX_LIBS || len >= ZN_LD_NAME_MAX || strcmp(name, ZN_LD_SELF) == 0)
        return false;
    if (strncmp(name, "lib", 3) != 0 || strstr(name, ".so") == NULL)
        return false;
    memcpy(libs->names[libs->count++], name, len + 1);
    return true;
}

/* The folder holding this library, from the loader's own record of it. */
static bool own_dir(char *out, size_t n)
{
    Dl_info info;
    if (!dladdr((void *)&own_dir, &info) || !info.dli_fname)
        return false;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash)
        return false;
    size_t len = (size_t)(slash - info.dli_fname);
    if (len == 0 || len >= n)
        return false;
    memcpy(out, info.dli_fname, len);
    out[len] = 0;
    return true;
}

static void list_dir(zn_ld_libs *libs)
{
    int fd = open(libs->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[8192] __attribute__((aligned(8)));
    ssize_t got;
    while ((got = getdents64(fd, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < got;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            off += d->d_reclen;
            /* Files and links to them; DT_UNKNOWN on file systems without
             * d_type. A folder named lib*.so* would fail to load anyway. */
            if (d->d_type == DT_REG || d->d_type == DT_LNK || d->d_type == DT_UNKNOWN)
                zn_ld_libs_add(libs, d->d_name);
        }
    }
    close(fd);
}

bool zn_ld_libs_load(zn_ld_libs *libs, const char *env_dir)
{
    char dir[PATH_MAX];
    libs->count = 0;
    libs->dir[0] = 0;
    libs->dir_len = 0;
    if (env_dir && *env_dir) {
        size_t len = strlen(env_dir);
        if (len >= sizeof dir)
            return false;
        memcpy(dir, env_dir, len + 1);
    } else if (!own_dir(dir, sizeof dir)) {
        return false;
    }
    /* Canonical, so that objects loaded from it are recognised by prefix. */
    if (!realpath(dir, libs->dir))
        return false;
    libs->dir_len = strlen(libs->dir);
    while (libs->dir_len > 1 && libs->dir[libs->dir_len - 1] == '/')
        libs->dir[--libs->dir_len] = 0;
    list_dir(libs);
    return true;
}
