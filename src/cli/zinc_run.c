/* zinc_run.c: `zinc run [--] APP ARGS...` execs APP so that it loads Zinc's
 * libraries instead of NVIDIA's. Two environment variables do it:
 *
 * - LD_LIBRARY_PATH gets Zinc's lib folder first, so cudart's
 *   dlopen("libcuda.so.1") finds Zinc. Alone it loses to an app's DT_RPATH
 *   naming NVIDIA's folder, and cannot touch dlopen of an absolute path.
 * - LD_AUDIT gets libzinc_ld.so (src/ld, docs/ld-audit.md) appended, after
 *   any audit library already there, so it has the last word: it answers
 *   every request for a library Zinc ships with Zinc's file, whatever the
 *   RPATH/RUNPATH or path. ZINC_NO_AUDIT=1 leaves LD_AUDIT alone; when the
 *   library is not found, LD_AUDIT is left alone too (a warning at
 *   ZINC_LOG>=1).
 *
 * The exec keeps the app's own exit status; 127 when it cannot start. */
#include "zinc_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sets VAR to OLD + ':' + ADD (or to ADD when OLD is unset or empty), or to
 * ADD + ':' + OLD when first. Returns false when out of memory. */
static bool env_join(const char *var, const char *add, bool first)
{
    const char *old = getenv(var);
    if (!old || !*old)
        return setenv(var, add, 1) == 0;
    size_t len = strlen(add) + strlen(old) + 2;
    char *value = malloc(len);
    if (!value)
        return false;
    snprintf(value, len, "%s:%s", first ? add : old, first ? old : add);
    int rc = setenv(var, value, 1);
    free(value);
    return rc == 0;
}

/* Whether the ':'-separated list already holds item (a nested zinc run). */
static bool list_has(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; p && *p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL)
        if (strncmp(p, item, n) == 0 && (p[n] == ':' || p[n] == 0))
            return true;
    return false;
}

static bool set_audit(void)
{
    const char *no = getenv("ZINC_NO_AUDIT");
    if (no && strcmp(no, "1") == 0)
        return true;
    char lib[PATH_MAX];
    if (!zinc_audit_lib(lib, sizeof lib)) {
        const char *log = getenv("ZINC_LOG");
        if (log && atoi(log) >= 1)
            fprintf(stderr, "zinc: warning: no libzinc_ld.so found; RPATH and absolute dlopen "
                            "paths can still reach NVIDIA's libraries\n");
        return true;
    }
    if (list_has(getenv("LD_AUDIT"), lib))
        return true;
    return env_join("LD_AUDIT", lib, false);
}

int zinc_cmd_run(int argc, char **argv)
{
    if (argc > 0 && strcmp(argv[0], "--") == 0) {
        argc--;
        argv++;
    }
    if (argc < 1) {
        fprintf(stderr, "usage: zinc run [--] APP [ARGS...]\n");
        return 2;
    }
    char dir[PATH_MAX];
    if (!zinc_lib_dir(dir, sizeof dir))
        fprintf(stderr, "zinc: warning: no libcuda.so.1 in %s (set ZINC_LIB_DIR)\n", dir);

    if (!env_join("LD_LIBRARY_PATH", dir, true) || !set_audit())
        return 127;

    execvp(argv[0], argv);
    fprintf(stderr, "zinc: cannot run %s: %s\n", argv[0], strerror(errno));
    return 127;
}
