/* zinc_run.c: `zinc run [--] APP ARGS...` execs APP with Zinc's lib folder
 * first on LD_LIBRARY_PATH, so cudart's dlopen("libcuda.so.1") finds Zinc.
 * The exec keeps the app's own exit status; 127 when it cannot start. */
#include "zinc_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

    const char *old = getenv("LD_LIBRARY_PATH");
    size_t len = strlen(dir) + (old ? strlen(old) : 0) + 2;
    char *path = malloc(len);
    if (!path)
        return 127;
    snprintf(path, len, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_LIBRARY_PATH", path, 1);
    free(path);

    execvp(argv[0], argv);
    fprintf(stderr, "zinc: cannot run %s: %s\n", argv[0], strerror(errno));
    return 127;
}
