/* zinc_cli.h: the `zinc` command's subcommands (one file each) and the
 * helpers they share. */
#ifndef ZINC_CLI_H
#define ZINC_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* Subcommands: name, usage, summary. zinc_main.c dispatches from this list;
 * a new subcommand is one row here and one zinc_<name>.c. */
#define ZINC_COMMANDS(X)                                                        \
    X(run,  "run [--] APP [ARGS...]", "run APP with Zinc's libcuda.so.1")      \
    X(info, "info",                   "describe the device Zinc reports")      \
    X(oc,   "oc [OPTIONS] INPUT",     "compile PTX offline (see zinc oc --help)") \
    X(cache, "cache [ACTION]",         "manage the kernel cache (info, path, clear, evict, warm)") \
    X(trace, "trace [-o DIR] [--capture] [--sync] APP", "run APP logging every driver call") \
    X(replay, "replay DIR LAUNCH_ID", "re-run one captured launch and compare") \
    X(help, "help",                   "show this help")

#define X(name, usage, summary) int zinc_cmd_##name(int argc, char **argv);
ZINC_COMMANDS(X)
#undef X

/* `zinc cache warm APP...` (zinc_cache_warm.c), argv after "warm". */
int zinc_cache_warm(int argc, char **argv);

/* The folder holding Zinc's libcuda.so.1: $ZINC_LIB_DIR, else ../lib next
 * to the zinc executable. Returns whether libcuda.so.1 is there. */
bool zinc_lib_dir(char *out, size_t n);
/* The LD_AUDIT library libzinc_ld.so: in that folder, else in ../lib next
 * to the executable (a test's ZINC_LIB_DIR may hold only a libcuda.so.1).
 * Returns whether one was found. */
bool zinc_audit_lib(char *out, size_t n);

#endif
