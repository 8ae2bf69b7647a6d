/* zinc_trace.c: `zinc trace [-o DIR] [--capture] [--sync] [--] APP ARGS...` runs APP
 * with the tracing libcuda.so.1 (lib/trace, src/trace) in place of Zinc's,
 * and reports where the trace went (docs/trace.md).
 *
 * The trace folder lib/trace holds the tracing libcuda.so.1 and links to
 * Zinc's other libraries, so it is a complete Zinc lib folder: it goes
 * first in LD_LIBRARY_PATH and is ZINC_LIB_DIR for the LD_AUDIT library
 * (as in `zinc run`), which then answers every libcuda request with the
 * tracer, and lets the tracer itself dlopen Zinc's driver (or
 * $ZINC_TRACE_TARGET) by absolute path. */
#include "zinc_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* VAR = first:OLD, or OLD:add (first = NULL), or just the new part. */
static bool env_prepend(const char *var, const char *first, const char *last)
{
    const char *old = getenv(var);
    char value[3 * PATH_MAX + 8192];
    if (!old || !*old)
        snprintf(value, sizeof value, "%s", first ? first : last);
    else if (first)
        snprintf(value, sizeof value, "%s:%s", first, old);
    else if (strstr(old, last))
        return true;
    else
        snprintf(value, sizeof value, "%s:%s", old, last);
    return setenv(var, value, 1) == 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: zinc trace [-o DIR] [--capture] [--sync] [--] APP [ARGS...]\n"
                    "  -o DIR     write the trace there (default ./zinc-trace-<pid>)\n"
                    "  --capture  save every launch's buffers for `zinc replay DIR ID`\n"
                    "  --sync     wait for every launch and copy (timeline shows execution)\n");
    return 2;
}

int zinc_cmd_trace(int argc, char **argv)
{
    const char *out = NULL;
    bool capture = false, sync = false;
    int i = 0;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--capture") == 0)
            capture = true;
        else if (strcmp(argv[i], "--sync") == 0)
            sync = true;
        else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (argv[i][0] == '-')
            return usage();
        else
            break;
    }
    if (i >= argc)
        return usage();

    char libdir[PATH_MAX], tracedir[PATH_MAX + 16], lib[PATH_MAX + 32], audit[PATH_MAX];
    zinc_lib_dir(libdir, sizeof libdir);
    snprintf(tracedir, sizeof tracedir, "%s/trace", libdir);
    snprintf(lib, sizeof lib, "%s/libcuda.so.1", tracedir);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "zinc trace: no tracing library %s (build target zn_trace_cuda)\n", lib);
        return 127;
    }
    bool have_audit = zinc_audit_lib(audit, sizeof audit);

    char dir[PATH_MAX], absdir[PATH_MAX];
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else
        snprintf(dir, sizeof dir, "zinc-trace-%d", (int)getpid());
    mkdir(dir, 0755);
    if (!realpath(dir, absdir)) {
        fprintf(stderr, "zinc trace: cannot create %s: %s\n", dir, strerror(errno));
        return 127;
    }

    const char *no_audit = getenv("ZINC_NO_AUDIT");
    if (setenv("ZINC_TRACE_DIR", absdir, 1) || setenv("ZINC_LIB_DIR", tracedir, 1) ||
        (capture && setenv("ZINC_TRACE_CAPTURE", "1", 1)) ||
        (sync && setenv("ZINC_TRACE_SYNC", "1", 1)) ||
        !env_prepend("LD_LIBRARY_PATH", tracedir, NULL) ||
        (have_audit && !(no_audit && strcmp(no_audit, "1") == 0) &&
         !env_prepend("LD_AUDIT", NULL, audit)))
        return 127;

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "zinc trace: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[i], argv + i);
        fprintf(stderr, "zinc trace: cannot run %s: %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    fprintf(stderr, "zinc trace: trace of %s in %s\n", argv[i], absdir);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
