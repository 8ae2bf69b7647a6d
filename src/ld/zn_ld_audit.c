/* zn_ld_audit.c: the rtld-audit hooks (man 7 rtld-audit) of libzinc_ld.so.
 *
 * la_objsearch sees every library name the loader is about to look for,
 * first as requested (LA_SER_ORIG: "libcuda.so.1" from DT_NEEDED or dlopen,
 * or an absolute path), before RPATH, LD_LIBRARY_PATH or RUNPATH are tried.
 * Answering a full path there makes the loader open that file and skip the
 * search, so a request for a library Zinc provides is answered with Zinc's
 * file and every other request is returned untouched.
 *
 * Absolute paths asked for by objects from Zinc's own lib dir are exempt
 * (la_objopen marks those objects through their cookie), so a forwarding
 * layer of Zinc's can dlopen NVIDIA's real driver. Their bare names are
 * still redirected: the app's DT_RPATH applies to its libraries' searches
 * too and would otherwise hand Zinc's libcublas NVIDIA's libcublasLt. */
#define _GNU_SOURCE
#include "zn_ld.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

static zn_ld_libs libs;
static bool active;        /* a lib dir was found */
static bool verbose;       /* ZINC_LOG >= 2 */
static char zinc_object;   /* its address marks Zinc's objects' cookies */
static char answer[PATH_MAX + ZN_LD_NAME_MAX];

/* One line on stderr with write(2): stdio is not for use inside the loader. */
static void say(const char *a, const char *b, const char *c)
{
    char line[2 * PATH_MAX + 64];
    size_t n = 0;
    const char *parts[] = { "zinc-ld: ", a, b, c, "\n" };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t len = strlen(parts[i]);
        if (len > sizeof line - n)
            len = sizeof line - n;
        memcpy(line + n, parts[i], len);
        n += len;
    }
    ssize_t rc = write(2, line, n);
    (void)rc;
}

static bool in_zinc_dir(const char *path)
{
    return path && strncmp(path, libs.dir, libs.dir_len) == 0 && path[libs.dir_len] == '/';
}

API unsigned int la_version(unsigned int version)
{
    const char *log = getenv("ZINC_LOG");
    verbose = log && atoi(log) >= 2;
    active = zn_ld_libs_load(&libs, getenv("ZINC_LIB_DIR"));
    if (verbose)
        say(active ? "redirecting to " : "no lib dir found, redirecting nothing", active ? libs.dir : "", "");
    /* Version 1 of the interface is all this library needs. */
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

API unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
    if (active && in_zinc_dir(map->l_name))
        *cookie = (uintptr_t)&zinc_object;
    return 0;   /* no symbol-binding audit: no cost on calls */
}

API char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
    if (!active || flag != LA_SER_ORIG || !name)
        return (char *)name;
    if ((*cookie == (uintptr_t)&zinc_object && strchr(name, '/')) || in_zinc_dir(name))
        return (char *)name;
    int i = zn_ld_pick(zn_ld_basename(name), (const char (*)[ZN_LD_NAME_MAX])libs.names, libs.count);
    if (i < 0)
        return (char *)name;
    /* The loader copies the name before the next search: one buffer will do. */
    size_t len = strlen(libs.names[i]);
    memcpy(answer, libs.dir, libs.dir_len);
    answer[libs.dir_len] = '/';
    memcpy(answer + libs.dir_len + 1, libs.names[i], len + 1);
    if (verbose)
        say(name, " -> ", answer);
    return answer;
}
